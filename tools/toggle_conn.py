"""Connection bits of a composition module: which bits of its own wires carry a port of one of
its submodules unchanged, so that Verilator's toggle point for the bit repeats a toggle point of
that port (counted in the submodule's own file).

A coverage exclusion with `connection:` (tools/coverage_exclusions.yaml, tools/coverage.md) names
a module and a grid of parameter values; tools/coverage.py excludes a toggle bit of the entry's
signals only when this module finds it a connection in every combination of the grid that has it.

yosys elaborates the module with the parameters, its submodules read as black boxes (ports and
their directions only: `read_verilog -lib` on each module file whose name the module's text
names), runs `proc` and `opt_clean` (which merges the nets an `assign` joins) and writes JSON. A
bit of one of the module's own named wires (its ports included) is a connection when its net is
- driven by an output port of a submodule instance (the bit is that port's bit, whatever reads
  it), or
- tied to a constant (0 or 1 in every cycle: it cannot toggle), or
- driven by an input port of the module and read only by input ports of submodule instances or by
  output ports of the module (no logic of the module reads it).
Every other bit is the module's own logic and keeps its toggle points: one a logic cell of the
module drives (an operator, a multiplexer, a flip-flop), an input a logic cell reads, and a bit
the netlist names no driver for.

Results are cached per (module, parameters, this file, the module's source set as tools.lint
finds it) under sim_build/_conn/.
"""
from __future__ import annotations

import itertools
import json
import sys
import tempfile
from pathlib import Path

from tools.lint import _IDENT
from tools.toggle_const import ROOTS, RTL, _key, _sources, run_yosys

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / "sim_build" / "_conn"


def _netlist(module: str, params: dict[str, int], work: Path) -> dict:
    """The module's JSON netlist after proc / opt_clean, its submodules black boxes."""
    src = next((p for root in ROOTS for p in root.rglob(f"{module}.v")), None)
    if src is None:
        raise SystemExit(f"toggle_conn: no {module}.v under {', '.join(map(str, ROOTS))}")
    # the submodules it instantiates: module files (one per file, named after it) its text names
    files = {p.stem: p for root in ROOTS for p in root.rglob("*.v")}
    subs = sorted(files[w] for w in set(_IDENT.findall(src.read_text())) if w in files and w != module)
    chparam = "".join(f"chparam -set {k} {v} {module}\n" for k, v in sorted(params.items()))
    lib = f"read_verilog -lib {' '.join(map(str, subs))}\n" if subs else ""
    # rename -top: a top with parameters set comes out of hierarchy as "$paramod$<hash>\<name>"
    script = (f"verilog_defaults -add -sv -I {RTL / 'include'}\n{lib}read_verilog {src}\n"
              f"{chparam}hierarchy -top {module}\nrename -top {module}\nproc\nopt_clean\n"
              f"write_json {work / 'n.json'}\n")
    run_yosys(script, work / "n.ys", f"toggle_conn: yosys failed on {module} {params}")
    mods = json.loads((work / "n.json").read_text())["modules"]
    return next(v for v in mods.values() if v.get("attributes", {}).get("top"))


def classify(top: dict) -> dict[str, str]:
    """{"name[bit]": class} for every bit of the module's own named wires: "port" (driven by a
    submodule's output), "tie" (a constant), "input" (a module input read by no logic of the
    module), "logic" (anything else). A 1-bit wire is also listed by its name alone."""
    drivers: dict[int, str] = {}        # net bit -> "port" / "logic" / "input"
    logic_reads: set[int] = set()       # net bits a logic cell of the module reads
    for p in top.get("ports", {}).values():
        if p["direction"] == "input":
            for b in p["bits"]:
                if isinstance(b, int):
                    drivers[b] = "input"
    for cell in top.get("cells", {}).values():
        sub = not cell["type"].startswith("$")
        dirs = cell.get("port_directions", {})
        for pname, bits in cell["connections"].items():
            d = dirs.get(pname)
            for b in bits:
                if not isinstance(b, int):
                    continue
                if d == "output":
                    drivers[b] = "port" if sub else "logic"
                elif not sub:
                    logic_reads.add(b)      # a logic cell's input (or a port of unknown direction)
    out: dict[str, str] = {}
    for name, net in top["netnames"].items():
        if name.startswith("$") or net.get("upto"):
            continue
        low, width = int(net.get("offset", 0)), len(net["bits"])
        for i, b in enumerate(net["bits"]):
            if not isinstance(b, int):
                cls = "tie" if b in ("0", "1") else "logic"
            else:
                cls = drivers.get(b, "logic")
                if cls == "input" and b in logic_reads:
                    cls = "logic"
            out[f"{name}[{low + i}]"] = cls
            if width == 1:
                out[name] = cls                 # a scalar's toggle point has no bit index
    return out


def classes(module: str, params: dict[str, int]) -> dict[str, str]:
    """classify() of the module at these parameters, cached."""
    CACHE.mkdir(parents=True, exist_ok=True)
    cached = CACHE / f"{module}-{_key(module, params, '', Path(__file__))}.json"
    if cached.exists():
        return json.loads(cached.read_text())
    # not under /tmp: the WebAssembly yosys maps /tmp to a directory of its own
    (REPO / "sim_build").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=REPO / "sim_build", prefix="_conn-") as tmp:
        out = classify(_netlist(module, params, Path(tmp)))
    cached.write_text(json.dumps(out, sort_keys=True))
    return out


def connections_grid(module: str, grid: dict[str, list[int]]) -> set[str]:
    """The bits that are connections in every combination of the grid that has them (a bit of a
    generate branch one combination leaves out is judged by the others)."""
    keys = sorted(grid)
    conn: set[str] = set()
    own: set[str] = set()
    for combo in itertools.product(*(grid[k] for k in keys)):
        for bit, cls in classes(module, dict(zip(keys, combo))).items():
            (own if cls == "logic" else conn).add(bit)
    return conn - own


if __name__ == "__main__":
    import argparse
    import collections
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("module")
    ap.add_argument("--param", action="append", default=[], help="NAME=V[,V...] (a grid axis)")
    a = ap.parse_args()
    grid = {k: [int(x) for x in v.split(",")] for k, v in (p.split("=", 1) for p in a.param)}
    bits = connections_grid(a.module, grid)
    per = collections.Counter(b.rsplit("[", 1)[0] for b in bits if b.endswith("]"))
    for name, n in sorted(per.items()):
        print(f"{n:6d} {name}")
    print(f"{sum(per.values())} connection bits", file=sys.stderr)
