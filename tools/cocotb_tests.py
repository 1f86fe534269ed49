"""Which cocotb tests each testbench module holds: `make list`, and TESTCASE checks in tools.runner.

    python -m tools.cocotb_tests                 # every module: its cocotb tests and who runs it
    python -m tools.cocotb_tests --json MOD ...  # {"MOD": ["TestA", ...]} (used by tools.runner)

Tests are found the way cocotb finds them (every ``cocotb.test``/``pyuvm.test`` object and every
test generator in the module's namespace), by importing the module in a separate process: importing
a testbench sets up pyuvm state that must not leak into the caller.
"""
from __future__ import annotations

import argparse
import functools
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Where testbench modules are named (test_module="...") and run from.
CALLERS = ("tests/*.py", "tb/*/bench.py", "sim/*/run.py", "sim/*/bench.py")


def discover(modules: list[str]) -> dict[str, list[str] | str]:
    """Module -> its cocotb test names in cocotb's order, or the import error as text. Imports here."""
    from cocotb._decorators import Test
    try:
        from cocotb._decorators import TestGenerator
    except ImportError:  # pragma: no cover - other cocotb 2.x layouts
        from cocotb._test_factory import TestGenerator  # type: ignore[no-redef]
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    out: dict[str, list[str] | str] = {}
    for name in modules:
        try:
            mod = importlib.import_module(name)
        except Exception as exc:  # reported, not raised: one broken module must not hide the others
            out[name] = f"{type(exc).__name__}: {exc}"
            continue
        tests: list[str] = []
        for obj in vars(mod).values():
            if isinstance(obj, Test):
                tests.append(obj.name)
            elif isinstance(obj, TestGenerator):
                tests += [t.name for t in obj.generate_tests()]
        out[name] = tests
    return out


@functools.lru_cache(maxsize=None)
def _discover_child(modules: tuple[str, ...]) -> dict[str, list[str] | str]:
    r = subprocess.run([sys.executable, "-m", "tools.cocotb_tests", "--json", *modules], cwd=REPO,
                       capture_output=True, text=True)
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise RuntimeError(f"cannot list cocotb tests: {r.stderr.strip()[-2000:]}") from None


def all_tests() -> dict[str, list[str] | str]:
    """Every testbench module -> its cocotb tests (or its import error), found in a child process."""
    return _discover_child(tuple(module_names()))


def tests_of(module: str) -> tuple[str, ...]:
    """The cocotb tests of one module; raises RuntimeError if it does not import."""
    found = all_tests()
    res = found[module] if module in found else _discover_child((module,)).get(module, "not found")
    if isinstance(res, str):
        raise RuntimeError(f"cannot list the cocotb tests of {module}: {res}")
    return tuple(res)


def module_names() -> list[str]:
    """Every testbench module: tb_*.py under tb/ and sim/, and any module a caller names as test_module."""
    names = {".".join(p.relative_to(REPO).with_suffix("").parts)
             for top in ("tb", "sim") for p in (REPO / top).rglob("tb_*.py")}
    for pattern in CALLERS:
        for f in REPO.glob(pattern):
            names.update(re.findall(r"test_module\s*=\s*[\"']([\w.]+)[\"']", f.read_text(encoding="utf-8")))
    return sorted(names)


def callers(module: str) -> list[str]:
    """Files (tests, benches, run scripts) that name ``module``."""
    pat = re.compile(r"[\"']" + re.escape(module) + r"[\"']")
    return sorted(str(f.relative_to(REPO)) for pattern in CALLERS for f in REPO.glob(pattern)
                  if pat.search(f.read_text(encoding="utf-8")))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.cocotb_tests", description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object (module -> tests)")
    ap.add_argument("modules", nargs="*", help="module names (default: every testbench module)")
    args = ap.parse_args(argv)
    mods = args.modules or module_names()
    found = discover(mods)
    if args.json:
        print(json.dumps(found))
        return 0
    bad = 0
    total = 0
    for mod in mods:
        tests = found[mod]
        where = ", ".join(callers(mod)) or "no caller found"
        if isinstance(tests, str):
            bad += 1
            print(f"{mod}  ({where})\n    cannot import: {tests}")
            continue
        total += len(tests)
        print(f"{mod}  ({where})")
        for t in tests:
            print(f"    {t}")
    print(f"\n{total} cocotb tests in {len(mods) - bad} modules"
          + (f"; {bad} module(s) failed to import" if bad else ""))
    print("Run one: TESTCASE=<test> .venv/bin/python -m pytest <tests/file.py> (a pytest test that picks "
          "other cocotb tests is skipped with the reason)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
