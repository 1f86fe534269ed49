"""Verilator's runtime library (verilated*.o) compiled once per regression and reused by new builds.

Every build directory otherwise recompiles the same runtime: ~14 s of CPU each, a large share of the
regression with ~40 builds on a 2-core CI machine. The objects depend only on Verilator's headers,
the VM_* switches in Vtop_classes.mk and VM_TRACE (waves). A seed step runs between Verilator's C++
generation and make (so the switches of this design are known): if they equal the cached ones the
objects are copied in and stamped newer than the freshly generated Vtop.mk, which make would
otherwise treat as newer than them. Anything else (no cache, other switches) compiles as usual.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

OBJS = ("verilated", "verilated_dpi", "verilated_threads", "verilated_vpi")
FILES = tuple(f"{o}{ext}" for o in OBJS for ext in (".o", ".d"))


class RuntimeCache:
    def __init__(self, sim_build: Path, waves: bool, coverage: bool) -> None:
        self.dir = Path(sim_build) / "_runtime" / f"waves{int(waves)}-cov{int(coverage)}"
        self.waves = bool(waves)

    def signature(self, build_dir: Path) -> str | None:
        classes = Path(build_dir) / "Vtop_classes.mk"
        if not classes.exists():
            return None
        lines = [ln.strip() for ln in classes.read_text().splitlines() if ln.startswith("VM_")]
        # user CFLAGS (-CFLAGS on the Verilator command line, e.g. -O0) also reach the runtime objects
        mk = Path(build_dir) / "Vtop.mk"
        text = mk.read_text() if mk.exists() else ""
        i = text.find("VM_USER_CFLAGS =")
        cflags = text[i:text.find("\n\n", i)].split() if i >= 0 else []
        return "\n".join(sorted(lines) + [f"VM_TRACE_ARG={int(self.waves)}", " ".join(cflags)])

    def seed(self, build_dir: Path) -> bool:
        build_dir = Path(build_dir)
        sig = self.dir / "signature"
        if (build_dir / "verilated.o").exists() or not sig.exists():
            return False
        if sig.read_text() != self.signature(build_dir):
            return False
        if not all((self.dir / f).exists() for f in FILES):
            return False
        for f in FILES:
            shutil.copyfile(self.dir / f, build_dir / f)
            os.utime(build_dir / f)     # newer than Vtop.mk, which the objects depend on
        return True

    def store(self, build_dir: Path) -> None:
        build_dir = Path(build_dir)
        sig = self.signature(build_dir)
        if sig is None or (self.dir / "signature").exists():
            return
        if not all((build_dir / f).exists() for f in FILES):
            return
        tmp = self.dir.parent / f".tmp-{os.getpid()}-{self.dir.name}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        for f in FILES:
            shutil.copy2(build_dir / f, tmp / f)
        (tmp / "signature").write_text(sig)
        try:
            tmp.rename(self.dir)          # atomic publish; another xdist worker may have won the race
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)


def cached_runtime_runner(runner, sim_build: Path, waves: bool, coverage: bool):
    """Wrap a cocotb Verilator runner so its build runs the seed step before make."""
    base = type(runner)

    class _Runner(base):  # type: ignore[misc, valid-type]
        def _build_command(self):
            cmds = list(super()._build_command())
            seed = [sys.executable, "-m", "tools.runtime_cache", str(sim_build), str(int(waves)),
                    str(int(coverage)), str(self.build_dir)]
            # the wheel's verilated.mk leaves the precompiled-header include option empty, which
            # breaks the compile of any build with more than one generated C++ file (split
            # functions, see tools/runner.py); make is the last command
            make = list(cmds[-1]) + ["CFG_CXXFLAGS_PCH_I=-include"]
            return cmds[:-1] + [seed, make]

    obj = _Runner.__new__(_Runner)
    obj.__dict__.update(runner.__dict__)
    return obj


def main(argv: list[str]) -> int:
    sim_build, waves, coverage, build_dir = argv
    RuntimeCache(Path(sim_build), waves == "1", coverage == "1").seed(Path(build_dir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
