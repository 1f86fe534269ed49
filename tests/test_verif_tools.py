"""Simulator-free tests of the sign-off tools: the coverage merge (tools/coverage.py), the formal
runner's bind splice and mutations (tools/formal.py) and the runner's simulator selection."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools import coverage as cov
from tools import formal
from tools.runner import icarus_build_args, sim_name

REPO = Path(__file__).resolve().parents[1]


def _pt(f: str, t: str, line: int, col: int, o: str, span: str | None, h: str = "top") -> str:
    keys = {"f": f, "l": str(line), "n": str(col), "t": t, "page": f"v_{t}/m", "o": o}
    if span is not None:
        keys["S"] = span
    keys["h"] = h
    return "".join(f"\x01{k}\x02{v}" for k, v in keys.items())


def _dat(path: Path, points: list[tuple[str, int]]) -> Path:
    path.write_text("# SystemC::Coverage-3\n" + "".join(f"C '{k}' {n}\n" for k, n in points))
    return path


F = str(REPO / "rtl" / "common" / "x.v")


def test_coverage_merge_and_lcov(tmp_path: Path) -> None:
    a = _dat(tmp_path / "a.dat", [
        (_pt(F, "line", 10, 5, "block", "10-11"), 3),
        (_pt(F, "branch", 12, 9, "if", "12-13"), 0),
        (_pt(F, "branch", 12, 10, "else", None), 3),
        (_pt(F, "branch", 14, 55, "cond_then", "14"), 0),
        (_pt(F, "branch", 14, 56, "cond_else", "14"), 0),
        (_pt(F, "line", 16, 22, "case", "16"), 0),
        (_pt(F, "toggle", 2, 4, "q[0]:0->1", None), 1),
        (_pt(F, "toggle", 2, 4, "q[0]:1->0", None), 0),
        (_pt(F, "toggle", 2, 4, "q[1]:0->1", None), 0),
        (_pt(F, "toggle", 2, 4, "q[1]:1->0", None), 0),
    ])
    # a second run and another instance of the same module: counts add up per point
    b = _dat(tmp_path / "b.dat", [
        (_pt(F, "branch", 12, 9, "if", "12-13", h="top.u2"), 2),
        (_pt(F, "toggle", 2, 4, "q[1]:1->0", None), 4),
    ])
    points = cov.merge([a, b])
    files, _ = cov.build_files(points, [])
    fc = files["rtl/common/x.v"]
    assert fc.lines == {10: 3, 11: 3, 12: 2, 13: 2, 14: 0, 16: 0}
    assert fc.branches[12] == [[("if", 2), ("else", 3)]]
    assert fc.branches[14] == [[("cond_then", 0), ("cond_else", 0)]]
    c = fc.counts()
    assert c["line"] == (4, 6) and c["branch"] == (2, 4) and c["toggle"] == (2, 4)
    u = cov.uncovered(fc)
    assert u["lines"] == ["14", "16"]
    assert u["toggles"] == ["q[0] 1->0", "q[1] 0->1"]
    info = tmp_path / "rtl.info"
    cov.write_info(files, info)
    text = info.read_text()
    assert "BRDA:12,0,0,2\nBRDA:12,0,1,3\nBRDA:14,0,0,-\nBRDA:14,0,1,-" in text
    assert "LF:6\nLH:4" in text and "BRF:4\nBRH:2" in text
    s = cov.summarize(files)["common"]
    assert s["line"]["pct"] == pytest.approx(66.67) and not s["meets_goal"]
    assert s["below_goal"] == ["line", "branch", "toggle"]


def test_coverage_exclusions(tmp_path: Path) -> None:
    a = _dat(tmp_path / "a.dat", [
        (_pt(F, "line", 10, 5, "block", "10"), 0),
        (_pt(F, "line", 20, 5, "block", "20"), 1),
        (_pt(str(REPO / "tb" / "common" / "hdl" / "p.v"), "line", 3, 5, "block", "3"), 0),
        (_pt(F, "toggle", 2, 4, "dbg[0]:0->1", None), 0),
    ])
    y = tmp_path / "ex.yaml"
    y.write_text("- {files: 'tb/*', reason: test HDL}\n"
                 "- {files: rtl/common/x.v, kind: line, lines: [10], reason: unreachable default}\n"
                 "- {files: rtl/common/x.v, signal: 'dbg', reason: debug port}\n"
                 "- {files: rtl/nowhere.v, reason: stale}\n")
    ex = cov.load_exclusions(y)
    files, n = cov.build_files(cov.merge([a]), ex)
    assert n == 3 and files["rtl/common/x.v"].lines == {20: 1} and not files["rtl/common/x.v"].toggles
    assert [e.matched for e in ex] == [1, 1, 1, 0]      # the stale one is reported by main()
    y.write_text("- {files: 'tb/*'}\n")
    with pytest.raises(SystemExit, match="no reason"):
        cov.load_exclusions(y)


def test_coverage_main_writes_outputs(tmp_path: Path) -> None:
    d = tmp_path / "dat"
    d.mkdir()
    _dat(d / "a.dat", [(_pt(F, "line", 10, 5, "block", "10"), 1)])
    ex = tmp_path / "none.yaml"
    rc = cov.main(["--dat", str(d), "--out", str(tmp_path / "out"), "--exclusions", str(ex),
                   "--no-html", "--flags=--coverage-line"])
    assert rc == 0
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["blocks"]["common"]["line"] == {"hit": 1, "total": 1, "pct": 100.0, "goal": 90.0}
    assert cov.bench(tmp_path / "out" / "summary.json")["coverage.common.line"] == 100.0
    assert cov.main(["--dat", str(tmp_path), "--out", str(tmp_path / "o2"), "--no-html"]) == 1


def test_formal_bind_and_mutation(tmp_path: Path) -> None:
    text = "module a(input x);\nendmodule\nmodule b(input y);\n  wire z = y;\nendmodule\n"
    out = formal.splice_bind(text, "b", "b.props.svh")
    assert out.endswith('  wire z = y;\n`include "b.props.svh"\nendmodule\n')
    assert formal.splice_bind(text, "a", "a.svh").startswith('module a(input x);\n`include "a.svh"\nendmodule')
    with pytest.raises(ValueError, match="defined 0 times"):
        formal.splice_bind(text, "c", "c.svh")
    # every property names a broken variant whose mutation applies exactly once to today's RTL
    for p in formal.load_spec():
        for b in p.broken:
            src = (REPO / b["file"]).read_text()
            assert src.count(b["from"]) == 1, f"{p.name}/{b['name']}: mutation does not apply once"
        for module, inc in p.bind.items():
            assert (REPO / inc).exists(), inc


def test_formal_prepare_writes_sby(tmp_path: Path) -> None:
    p = next(p for p in formal.load_spec() if p.name == "sync_fifo")
    sby = formal.prepare(p, formal.Variant(p.name, ""), tmp_path / "w")
    text = sby.read_text()
    assert "proof: mode prove" in text and "cover: mode cover" in text and "smtbmc z3" in text
    assert f"prep -flatten -top {p.top}" in text
    assert '`include "sync_fifo.props.svh"\nendmodule' in (tmp_path / "w" / "sync_fifo.v").read_text()
    b = p.broken[0]
    sby = formal.prepare(p, formal.Variant(p.name, b["name"], b), tmp_path / "m")
    assert "bmc: mode bmc" in sby.read_text()
    assert b["to"] in (tmp_path / "m" / Path(b["file"]).name).read_text()
    # extra Yosys commands of a property run right after prep
    ha = next(p for p in formal.load_spec() if p.name == "home_agent")
    text = formal.prepare(ha, formal.Variant(ha.name, ""), tmp_path / "h").read_text()
    assert f"prep -flatten -top {ha.top}\nmemory_map\nopt_clean\n" in text


def test_formal_home_agent_broken_variants_caught(tmp_path: Path) -> None:
    """The home agent's depth-20 proof runs for over an hour, so `make test` runs only its broken
    variants: each bounded search (three entries, FV_HA_NTXN) must end in a counterexample. The
    intact design's proof keeps two entries."""
    ha = next(p for p in formal.load_spec() if p.name == "home_agent")
    intact = formal.prepare(ha, formal.Variant(ha.name, ""), tmp_path / "intact").read_text()
    assert "FV_HA_NTXN" not in intact
    for b in ha.broken:
        v = formal.Variant(ha.name, b["name"], b)
        sby = formal.prepare(ha, v, tmp_path / v.tag)
        assert "-DFV_HA_NTXN=3" in sby.read_text()
        status, secs, tail = formal.run_sby(sby, "bmc", 600)
        print(f"{v.tag}: {status} in {secs:.1f} s")
        assert status == "FAIL", f"{v.tag} not caught ({status}): {tail}"


def test_runner_sim_selection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SIM", raising=False)
    assert sim_name() == "verilator"
    monkeypatch.setenv("SIM", "Icarus")
    assert sim_name() == "icarus"
    monkeypatch.setenv("SIM", "xcelium")
    with pytest.raises(ValueError, match="supported"):
        sim_name()
    assert icarus_build_args(["--output-split", "0", "-CFLAGS", "-O1", "-Wno-WIDTH", "-DFOO=1"]) == ["-DFOO=1"]
    # a bench that reaches inside the design asks Verilator for public signals; Icarus needs nothing
    assert icarus_build_args(["--public-flat-rw", "-DFOO=1"]) == ["-DFOO=1"]


def test_formal_runs_with_a_relative_out_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`make formal` passes results/formal (relative); sby runs in the property's own directory,
    so every proof errored before the runner resolved the path. One small property end to end:
    proven, both broken variants caught."""
    monkeypatch.chdir(tmp_path)
    assert formal.main(["--out", "rel/formal", "--only", "credit_counter"]) == 0
    s = json.loads((tmp_path / "rel" / "formal" / "summary_quick.json").read_text())
    assert s["properties_proven"] == 1 and s["broken_caught"] == s["broken_total"] == 2
