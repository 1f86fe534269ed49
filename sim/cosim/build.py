"""Verilator builds of the co-simulation tops, cached by RTL content.

Two kinds of build of one top and parameter set:
- ``cocotb``: the design under cocotb's Verilator main loop (VPI), for sim.cosim.tb_hil. Only the
  HIL top's own ports are public (marked in the HDL; every public signal is one Verilator cannot
  optimize away; the regression runner makes the whole top level public), and the ``fast`` build
  compiles optimized.
- ``raw``: the same design under a bare C++ loop (tb/edge/raw_main.cpp: clock only, no Python):
  the speed limit the co-simulation is measured against.

Optimization levels: ``fast`` = Verilator -O3 --x-assign fast --x-initial fast, C++ -O2 (speed
figures, long runs); ``debug`` = C++ -O0 (short runs in `make test`: a multi-minute -O2 compile
of a large top would cost CI more than it saves).

Coverage (``COV=1``, as for every RTL test, tools/runner.py): a ``cocotb`` build adds the runner's
coverage flags (``cov_flags()``: ``COV_FLAGS``) and gets its own tag (``...-cov``) and hash, so a
coverage build and a normal one never share a directory. cocotb's C++ main writes ``coverage.dat``
into the simulator's working directory at the end of the run (sim.cosim.hilrun keeps it for a
passing run). A ``raw`` build is a speed reference and its main writes no coverage: it ignores
``COV``.

Cache: the build directory is ``sim_build/cosim/<tag>-<hash>``, where the hash covers every RTL
source (all of rtl/, since every subdirectory is a module library), the test-only HDL under
tb/edge, the flags, the parameters and the tool versions. A directory with a completed marker is
reused as it is (a changed C++ main is recompiled and relinked there); older directories of the
same tag are removed. Builds are serialized by
a lock per tag.
"""
from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import json
import os
import re
import resource
import shutil
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tools.runner import (INCLUDE, REPO, RTL, SIM_BUILD, cov_flags, cov_toolchain_id, env_flag,
                          setup_verilator_env)
from tools.runtime_cache import RuntimeCache

TB_EDGE = REPO / "tb" / "edge"
CACHE = SIM_BUILD / "cosim"
OPT_FLAGS = {
    "fast": ["-O3", "--x-assign", "fast", "--x-initial", "fast", "-CFLAGS", "-O2"],
    "debug": ["-CFLAGS", "-O0"],
}
# The wheel's verilated.mk leaves the precompiled-header include option empty, which breaks split
# (multi-file) builds; with it set, the generated files compile in parallel.
MAKE_VARS = ["CFG_CXXFLAGS_PCH_I=-include"]


@dataclass
class Build:
    kind: str                      # "cocotb" or "raw"
    top: str
    params: dict[str, int]
    opt: str                       # "fast" or "debug"
    tag: str = ""
    dir: Path = field(default_factory=Path)
    seconds: float = 0.0           # spent building in this call (0 when cached)
    cached: bool = False
    build_seconds: float = 0.0     # what the build took when it was made
    coverage: bool = False         # built with the runner's coverage flags (COV=1)

    @property
    def binary(self) -> Path:
        return self.dir / (self.top if self.kind == "cocotb" else "Vtop")


def _versions() -> str:
    out = []
    for pkg in ("verilator", "cocotb"):
        try:
            out.append(f"{pkg}={importlib.metadata.version(pkg)}")
        except importlib.metadata.PackageNotFoundError:
            out.append(f"{pkg}=?")
    return " ".join(out)


def source_files(kind: str = "cocotb") -> list[Path]:
    """The HDL a build depends on: all of rtl/ (every subdirectory is a module library), and for the
    co-simulation top the test-only HDL of tb/edge."""
    files = sorted(p for p in RTL.rglob("*") if p.suffix in (".v", ".vh", ".sv") and p.is_file())
    return files + (sorted(TB_EDGE.glob("*.v")) if kind == "cocotb" else [])


def content_hash(kind: str, top: str, params: Mapping[str, int], flags: list[str]) -> str:
    """Hash of the generated model: HDL, parameters, flags, tool versions (names the directory)."""
    h = hashlib.sha256()
    h.update(f"{kind}\n{top}\n{sorted(params.items())}\n{flags}\n{MAKE_VARS}\n{_versions()}\n".encode())
    if any(f.startswith("--coverage") for f in flags):
        h.update(cov_toolchain_id().encode())           # the coverage header it compiles against
    for f in source_files(kind):
        h.update(str(f.relative_to(REPO)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def main_hash(kind: str) -> str:
    """Hash of the C++ main (raw_main.cpp, or cocotb's verilator.cpp): a change only recompiles it."""
    if kind == "raw":
        f = TB_EDGE / "raw_main.cpp"
    else:
        import cocotb_tools.config as cc
        f = cc.share_dir / "lib" / "verilator" / "verilator.cpp"
    return hashlib.sha256(f.read_bytes()).hexdigest()[:16]


def _libdirs() -> list[str]:
    args = []
    for d in sorted(p for p in RTL.iterdir() if p.is_dir() and p != INCLUDE):
        args += ["-y", str(d)]
    return args + ["-y", str(TB_EDGE)]


def _top_file(top: str) -> Path:
    for d in [TB_EDGE] + sorted(p for p in RTL.iterdir() if p.is_dir()):
        f = d / f"{top}.v"
        if f.exists():
            return f
    raise FileNotFoundError(f"no source file for top {top!r} under rtl/ or tb/edge/")


def coverage_build(kind: str, coverage: bool | None = None) -> bool:
    """Whether a build of `kind` is a coverage build: `coverage` when given, else ``COV=1`` for a
    ``cocotb`` build (a ``raw`` build is a speed reference and its main writes no coverage)."""
    return (kind == "cocotb" and env_flag("COV")) if coverage is None else bool(coverage)


def build_flags(kind: str, opt: str, coverage: bool) -> list[str]:
    """Verilator flags that distinguish builds of one top: the optimization level, and for a
    coverage build the runner's coverage flags (part of the content hash)."""
    if coverage and kind != "cocotb":
        raise ValueError(f"coverage needs a 'cocotb' build: the {kind!r} main writes no coverage.dat")
    return OPT_FLAGS[opt] + (cov_flags() if coverage else [])


def build_tag(kind: str, top: str, params: Mapping[str, int], opt: str, coverage: bool,
              name: str | None = None) -> str:
    """Name of a build's directory (before its hash) and lock; a coverage build ends in ``-cov``."""
    tag = name or f"{kind}-{top}-{opt}" + "".join(f"-{k}{v}" for k, v in sorted(params.items()))
    return tag + ("-cov" if coverage else "")


def _verilator_cmd(kind: str, top: str, params: Mapping[str, int], flags: list[str], bdir: Path) -> list[str]:
    cmd = ["verilator", "--cc", "--exe", "-Mdir", str(bdir), "--top-module", top, "--prefix", "Vtop",
           "-Wno-fatal", "--output-split-cfuncs", "3000",   # g++ time grows with function size
           f"-I{INCLUDE}"] + _libdirs() + flags
    cmd += [f"-G{k}={v}" for k, v in sorted(params.items())]
    if kind == "cocotb":
        import cocotb_tools.config as cc
        libs = cc.libs_dir
        cmd += ["--vpi", "--timing", "-CFLAGS", "-std=c++20", "--timescale", "1ns/1ps", "-o", top,
                "-LDFLAGS", f"-Wl,-rpath,{libs} -L{libs} -lcocotbvpi_verilator",
                str(cc.share_dir / "lib" / "verilator" / "verilator.cpp")]
    else:
        cmd += ["-o", "Vtop", str(TB_EDGE / "raw_main.cpp")]
    return cmd + [str(_top_file(top))]


def _sync_generated(gen: Path, bdir: Path) -> int:
    """Make `bdir`'s generated sources equal to `gen`'s, touching only files whose bytes differ."""
    new = {p.name for p in gen.iterdir() if p.is_file()}
    for p in bdir.iterdir():
        if p.is_file() and p.suffix in (".cpp", ".h", ".mk", ".dat") and p.name not in new:
            p.unlink()
    changed = 0
    for name in sorted(new):
        src, dst = gen / name, bdir / name
        if dst.exists() and dst.read_bytes() == src.read_bytes():
            continue
        shutil.copyfile(src, dst)
        changed += 1
    return changed


def _drop_stale_objects(bdir: Path) -> int:
    """Remove each object (and its dependency file) whose dependency file names a generated file
    that no longer exists (a module class renamed by a new parameter value): make would otherwise
    stop at "no rule to make target" instead of compiling it again. Returns how many."""
    n = 0
    for d in list(bdir.glob("*.d")):
        deps = d.read_text(errors="replace").replace("\\\n", " ").split()
        if any("/" not in t and not t.endswith(":") and not (bdir / t).exists() for t in deps):
            for ext in (".o", ".gch"):
                (bdir / (d.name[:-2] + ext)).unlink(missing_ok=True)
            d.unlink()
            n += 1
    return n


def _same_tag(tag: str) -> list[Path]:
    """Build directories of `tag`: exactly ``<tag>-<16 hex digits>``, so the directories of a longer
    tag that starts with this one (``<tag>-cov-<hash>``, the coverage build of the same top) are
    never taken for older builds of it (reused or removed)."""
    pat = re.compile(re.escape(tag) + r"-[0-9a-f]{16}")
    return [o for o in CACHE.glob(f"{tag}-*") if o.is_dir() and pat.fullmatch(o.name)]


def build(kind: str, top: str, params: Mapping[str, int] | None = None, opt: str = "fast",
          name: str | None = None, jobs: int | None = None, log=print, coverage: bool | None = None) -> Build:
    """Build (or reuse) `top` with `params`; returns where it is and what it cost.

    ``coverage``: a Verilator coverage build (default: ``coverage_build``)."""
    if kind not in ("cocotb", "raw"):
        raise ValueError(f"build kind {kind!r}: 'cocotb' or 'raw'")
    if opt not in OPT_FLAGS:
        raise ValueError(f"optimization {opt!r}: one of {', '.join(OPT_FLAGS)}")
    coverage = coverage_build(kind, coverage)
    setup_verilator_env()
    params = dict(params or {})
    flags = build_flags(kind, opt, coverage)
    tag = build_tag(kind, top, params, opt, coverage, name)
    digest = content_hash(kind, top, params, flags)
    bdir = CACHE / f"{tag}-{digest}"
    b = Build(kind, top, params, opt, tag, bdir, coverage=coverage)
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{tag}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = bdir / "build.json"
        mh = main_hash(kind)
        make = ["make", "-j", str(jobs or os.cpu_count() or 2), "-C", str(bdir), "-f", "Vtop.mk"] + MAKE_VARS
        if marker.exists() and b.binary.exists():
            info = json.loads(marker.read_text())
            b.build_seconds = float(info.get("seconds", 0.0))
            if info.get("main") != mh:          # only the C++ main changed: make recompiles it and relinks
                t0 = time.perf_counter()
                r = subprocess.run(make, capture_output=True, text=True, cwd=bdir)
                if r.returncode != 0:
                    raise RuntimeError(f"{tag}: rebuilding the C++ main failed:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
                b.seconds = time.perf_counter() - t0
                marker.write_text(json.dumps({**info, "main": mh}))
            b.cached = b.seconds == 0.0
            return b
        # An interrupted build of the same content resumes at make (its generated C++ is the same). An
        # older build of the same tag is reused incrementally: Verilator regenerates into a scratch
        # directory and only files whose content changed replace the old ones, so make recompiles
        # just those (a large top's unchanged module classes keep their objects).
        resume = (bdir / "Vtop.mk").exists() and (bdir / ".verilated").exists()
        olds = sorted((o for o in _same_tag(tag) if o != bdir), key=lambda o: o.stat().st_mtime)
        if not resume:
            shutil.rmtree(bdir, ignore_errors=True)
            if olds and (olds[-1] / "Vtop.mk").exists():
                olds[-1].rename(bdir)
                (bdir / ".verilated").unlink(missing_ok=True)
                (bdir / "build.json").unlink(missing_ok=True)
            else:
                bdir.mkdir(parents=True)
        for old in _same_tag(tag):
            if old != bdir:
                shutil.rmtree(old, ignore_errors=True)
        log(f"[cosim.build] {tag}: {'resuming' if resume else 'building'} in {bdir.relative_to(REPO) if bdir.is_relative_to(REPO) else bdir} "
            f"(C++ {OPT_FLAGS[opt][-1]}{', coverage ' + ' '.join(flags[len(OPT_FLAGS[opt]):]) if coverage else ''}; "
            "minutes for a large top)")
        t0 = time.perf_counter()
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        logf = bdir / "build.log"
        with open(logf, "a" if resume else "w") as lf:
            if not resume:
                gen = bdir / ".gen"
                shutil.rmtree(gen, ignore_errors=True)
                cmd = _verilator_cmd(kind, top, params, flags, gen)
                lf.write("$ " + " ".join(cmd) + "\n")
                lf.flush()
                r = subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, cwd=bdir)
                if r.returncode != 0:
                    tail = "\n".join(logf.read_text(errors="replace").splitlines()[-25:])
                    raise RuntimeError(f"{tag}: Verilator failed (exit {r.returncode}), log {logf}:\n{tail}")
                changed = _sync_generated(gen, bdir)
                shutil.rmtree(gen, ignore_errors=True)
                lf.write(f"# {changed} generated files new or changed\n")
                (bdir / ".verilated").touch()
            lf.write(f"# {_drop_stale_objects(bdir)} objects with removed dependencies dropped\n")
            # a cocotb build links Verilator's VPI runtime like the regression's builds: take the
            # objects compiled with the same flags from the runtime cache (tools/runtime_cache.py)
            runtime = RuntimeCache(SIM_BUILD, waves=False, coverage=coverage) if kind == "cocotb" else None
            if runtime is not None and runtime.seed(bdir):
                lf.write("# Verilator runtime objects from the runtime cache\n")
            lf.write("$ " + " ".join(make) + "\n")
            lf.flush()
            r = subprocess.run(make, stdout=lf, stderr=subprocess.STDOUT, cwd=bdir)
            if r.returncode != 0:
                tail = "\n".join(logf.read_text(errors="replace").splitlines()[-25:])
                raise RuntimeError(f"{tag}: build failed (exit {r.returncode}), log {logf}:\n{tail}")
            if runtime is not None:
                runtime.store(bdir)
        b.seconds = b.build_seconds = time.perf_counter() - t0
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
        marker.write_text(json.dumps({"seconds": b.seconds, "cpu_seconds": cpu, "resumed": resume, "tag": tag,
                                      "hash": digest, "params": params, "opt": opt, "kind": kind, "main": mh,
                                      "coverage": coverage, "flags": flags}))
        log(f"[cosim.build] {tag}: built in {b.seconds:.0f} s ({cpu:.0f} s CPU{', resumed' if resume else ''})")
        return b


def raw_speed(params: Mapping[str, int] | None = None, cycles: int = 1_000_000, top: str = "sp_rack_edge",
              opt: str = "fast", log=print) -> dict:
    """Cycles per second of `top` under the bare C++ loop (builds it if needed)."""
    b = build("raw", top, params, opt, log=log)
    r = subprocess.run([str(b.binary), str(int(cycles))], capture_output=True, text=True, check=True)
    res = json.loads(r.stdout.strip().splitlines()[-1])
    res.update({"build_seconds": b.seconds, "build_cached": b.cached, "top": top, "params": dict(params or {})})
    return res
