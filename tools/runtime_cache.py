"""Verilator's runtime library (verilated*.o) compiled once per regression and reused by new builds.

Every build directory otherwise recompiles the same runtime: ~12 s of CPU each, a large share of the
regression with ~60 builds on a 2-core CI machine. The objects depend only on Verilator's headers,
the VM_* defines of Vtop_classes.mk that reach their compile (coverage, timing, tracing), the user
C++ flags (-CFLAGS: a -O2 build's runtime is compiled at -O2) and VM_TRACE (waves). That set is the
signature, and the cache keeps one entry per signature, so builds with other flags (a bench that adds
-O2, one with --timing) each get their own entry and every later build with the same flags reuses it.
VM_PARALLEL_BUILDS (one C++ file or many for the design) is not part of it: it changes how the
design's files are compiled, not the runtime. A seed step runs between Verilator's C++ generation
and make (so the switches of this design are known): if an entry has this signature the objects are
copied in and stamped newer than the freshly generated Vtop.mk, which make would otherwise treat as
newer than them. Anything else (no entry yet) compiles as usual and the build stores its objects.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

OBJS = ("verilated", "verilated_dpi", "verilated_threads", "verilated_vpi")
FILES = tuple(f"{o}{ext}" for o in OBJS for ext in (".o", ".d"))


class RuntimeCache:
    """One cache of runtime objects per (waves, coverage) pair, one entry per signature in it."""

    def __init__(self, sim_build: Path, waves: bool, coverage: bool) -> None:
        self.dir = Path(sim_build) / "_runtime" / f"waves{int(waves)}-cov{int(coverage)}"
        self.waves = bool(waves)

    def signature(self, build_dir: Path) -> str | None:
        """What the runtime objects of the build in `build_dir` are compiled with (None before
        Verilator has written its makefiles)."""
        classes = Path(build_dir) / "Vtop_classes.mk"
        if not classes.exists():
            return None
        lines = [ln.strip() for ln in classes.read_text().splitlines()
                 if ln.startswith("VM_") and not ln.startswith("VM_PARALLEL_BUILDS")]
        # user CFLAGS (-CFLAGS on the Verilator command line, e.g. -O0) also reach the runtime objects
        mk = Path(build_dir) / "Vtop.mk"
        text = mk.read_text() if mk.exists() else ""
        i = text.find("VM_USER_CFLAGS =")
        cflags = text[i:text.find("\n\n", i)].split() if i >= 0 else []
        return "\n".join(sorted(lines) + [f"VM_TRACE_ARG={int(self.waves)}", " ".join(cflags)])

    def entry(self, sig: str) -> Path:
        """The directory holding the objects compiled with signature `sig`."""
        return self.dir / hashlib.sha256(sig.encode()).hexdigest()[:16]

    def seed(self, build_dir: Path) -> bool:
        """Copy cached objects with this build's signature into `build_dir`; False when there are
        none (make then compiles them)."""
        build_dir = Path(build_dir)
        sig = self.signature(build_dir)
        if sig is None or (build_dir / "verilated.o").exists():
            return False
        d = self.entry(sig)
        stamp = d / "signature"
        if not stamp.is_file() or stamp.read_text() != sig:
            return False
        if not all((d / f).exists() for f in FILES):
            return False
        for f in FILES:
            shutil.copyfile(d / f, build_dir / f)
            os.utime(build_dir / f)     # newer than Vtop.mk, which the objects depend on
        return True

    def store(self, build_dir: Path) -> None:
        """Keep the runtime objects of a finished build under its signature (first one wins)."""
        build_dir = Path(build_dir)
        sig = self.signature(build_dir)
        if sig is None:
            return
        d = self.entry(sig)
        if (d / "signature").exists():
            return
        if not all((build_dir / f).exists() for f in FILES):
            return
        tmp = self.dir / f".tmp-{os.getpid()}-{d.name}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        for f in FILES:
            shutil.copy2(build_dir / f, tmp / f)
        (tmp / "signature").write_text(sig)
        try:
            tmp.rename(d)          # atomic publish; another xdist worker may have won the race
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
