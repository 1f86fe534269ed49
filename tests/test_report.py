"""Scoring: targets parsed from targets.md, one row per id, verdict rules, the run's outputs."""
from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from sim.report import run
from sim.report.score import COLUMNS, RATIO_DEFINITION, Ours, case_verdict, score, verdict
from sim.report.targets import Rules, Spec, load_rules, load_targets, parse_rules, parse_spec, targets_path
from sim.system import build_config, run_system

REPO = Path(__file__).resolve().parents[1]


def _ids_in_sections(path: Path, sections=(1, 2, 3)) -> list[str]:
    """Independent reading of targets.md: first cell of table rows under '## N.' headings."""
    ids, sec = [], 0
    for line in path.read_text().splitlines():
        m = re.match(r"## (\d+)\.", line)
        if m:
            sec = int(m.group(1))
        elif sec in sections and line.startswith("| ") and not line.startswith("| id"):
            cell = line.split("|")[1].strip()
            if cell and not cell.startswith("-"):
                ids.append(cell)
    return ids


@pytest.fixture(scope="module")
def scored():
    cfg, _ = build_config()
    res = run_system(cfg)
    return score(load_targets(), res, cfg)


def _case_rows_expected(path: Path) -> list[str]:
    """Section 4: one row per number of the value cell, named <id>.<quantity> from the case profile;
    the count comes from an independent reading of the cell (numbers followed by 'x' or 's')."""
    from sim.traffic.cases import load_case_file
    names = {p.target: p.target_values for p in load_case_file()[1]}
    out = []
    for cid in _ids_in_sections(path, (4,)):
        row = next(l for l in path.read_text().splitlines() if l.startswith(f"| {cid} |"))
        n = len(re.findall(r"\d\s*[xs]\b", row.split("|")[3]))
        assert len(names[cid]) == n, cid
        out += [f"{cid}.{q}" for q in names[cid]]
    return out


def test_one_row_per_target_id(scored):
    expected = _ids_in_sections(targets_path())
    assert len(expected) == len(set(expected)) >= 18
    main = [r for r in scored if r.section < 4]          # section 4 rows: test_case_rows
    assert [r.id for r in main] == expected
    assert all(r.verdict in {"hit", "miss", "in", "out"} for r in main)   # every row is modelled


def test_parse_specs():
    assert parse_spec("2.5x") == Spec("point", 2.5, 2.5, "x")
    assert parse_spec("100-250 ns") == Spec("range", 100.0, 250.0, "ns")
    assert parse_spec("+70-90 ns") == Spec("range", 70.0, 90.0, "ns")
    assert parse_spec("< 1 us") == Spec("upper", None, 1000.0, "ns")
    assert parse_spec("> 1 us") == Spec("lower", 1000.0, None, "ns")
    assert parse_spec("<= 150 ns (25.6T), < 200 ns (51.2T)") == Spec("upper", None, 150.0, "ns", True)
    assert parse_spec("487 ns (switch adds ~203 ns)") == Spec("point", 487.0, 487.0, "ns")
    assert parse_spec("tens to hundreds of ns").kind == "range"
    assert parse_spec("ordering").kind == "ordering"


def test_rules_are_read_from_targets_md(tmp_path):
    rules = load_rules()
    assert rules.point_tolerance == pytest.approx(0.10) and rules.speedup_floor == 1.0
    assert "±10%" in rules.text
    # a changed rule in the file changes the verdicts: nothing is hard-coded
    src = targets_path().read_text()
    p = tmp_path / "targets.md"
    p.write_text(src.replace("within ±10% of it", "within ±25% of it").replace("is met only by a value above 1.0", "is met"))
    loose = load_rules(p)
    assert loose.point_tolerance == pytest.approx(0.25) and loose.speedup_floor is None
    assert verdict(Spec("point", 1.22, 1.22, "x"), Ours(0.97, "x", ""), loose)[1] == "hit"
    assert verdict(Spec("point", 1.22, 1.22, "x"), Ours(0.97, "x", ""), rules)[1] == "miss"
    p.write_text(src.replace("within ±10% of it", "close to it"))
    with pytest.raises(ValueError, match="no point-value tolerance"):
        load_rules(p)
    assert parse_rules("hit only within ±5 % of it. A speedup target is met only by a value above 1.0").speedup_floor == 1.0


def test_verdict_rules():
    rules = Rules(0.10, 1.0, "")
    pt = Spec("point", 2.0, 2.0, "x")
    assert verdict(pt, Ours(2.2, "x", ""), rules) == (pytest.approx(1.1), "hit")
    assert verdict(pt, Ours(2.25, "x", ""), rules)[1] == "miss"
    assert verdict(pt, Ours(1.81, "x", ""), rules)[1] == "hit"
    # a speedup target is met only by a value above 1.0, whatever the tolerance
    near = Spec("point", 1.05, 1.05, "x")
    assert verdict(near, Ours(1.0, "x", ""), rules)[1] == "miss"
    assert verdict(near, Ours(0.97, "x", ""), Rules(0.25, 1.0, ""))[1] == "miss"
    assert verdict(near, Ours(1.01, "x", ""), rules)[1] == "hit"
    ns = Spec("point", 130.0, 130.0, "ns")                               # not a speedup: no floor
    assert verdict(ns, Ours(125.0, "ns", ""), rules)[1] == "hit"
    rg = Spec("range", 100.0, 250.0, "ns")
    assert verdict(rg, Ours(100.0, "ns", ""), rules)[1] == "in"
    assert verdict(rg, Ours(300.0, "ns", ""), rules) == (1.2, "out")
    assert verdict(Spec("upper", None, 150.0, "ns", True), Ours(150.0, "ns", ""), rules)[1] == "in"
    assert verdict(Spec("upper", None, 150.0, "ns", False), Ours(150.0, "ns", ""), rules)[1] == "out"
    assert verdict(Spec("lower", 1000.0, None, "ns"), Ours(999.0, "ns", ""), rules)[1] == "out"
    assert verdict(Spec("ordering"), Ours(None, "", "", holds=True), rules) == (None, "hit")
    assert verdict(pt, Ours(None, "x", ""), rules)[1] == "not modelled"


def test_unknown_target_gets_a_not_modelled_row(tmp_path):
    src = targets_path().read_text()
    extra = src.replace("## 2.", "| SP-NEW-THING | something new | 2.0x |\n\n## 2.", 1)
    p = tmp_path / "targets.md"
    p.write_text(extra)
    cfg, _ = build_config()
    rows = score(load_targets(p), run_system(cfg), cfg)
    new = [r for r in rows if r.id == "SP-NEW-THING"]
    assert len(new) == 1 and new[0].verdict == "not modelled"


def test_miss_carries_a_reason(scored):
    for r in scored:
        if r.verdict in ("miss", "out"):
            assert len(r.note) > 20, r.id


def test_run_writes_everything_and_reproduces(tmp_path, capsys):
    lat = tmp_path / "out" / "cosim" / "latency.json"
    lat.parent.mkdir(parents=True)
    lat.write_text(json.dumps({"source": "test", "clock_mhz": 1000.0,
                               "hops": {"cxl.switch_latency_ns": {"p50_cycles": 90}},
                               "samples_cycles": {"switch": [88, 90, 95]}}))
    out = tmp_path / "out"
    assert run.main(["--out", str(out), "--set", "scaleout.nic_gbps=60"]) == 0
    text = capsys.readouterr().out
    assert "[6/6]" in text and "SP-TRAIN-AVG" in text and "verdict" in text and "held-out" in text
    with open(out / "scoreboard.csv") as fh:
        rows = list(csv.reader(fh))
    assert tuple(rows[0]) == COLUMNS
    assert [r[0] for r in rows[1:]] == _ids_in_sections(targets_path()) + _case_rows_expected(targets_path())
    head = {r[0]: r for r in rows[1:] if r[0].startswith("SP-")}
    for rid, r in head.items():                                        # headline rows carry their interval
        assert float(r[8]) <= float(r[3]) <= float(r[9]), rid
    for name in ("report.md", "report.html", "inputs.yaml", "training_breakdown.csv", "tiering.csv", "speedup_per_model.png",
                 "time_breakdown.png", "latency_vs_working_set.png", "cosim_latency_cdf.png", "sensitivity.csv",
                 "tornado.png", "validation.csv", "validation_holdout.csv", "validation.png"):
        assert (out / name).is_file(), name
    report = (out / "report.md").read_text()
    assert "measured on RTL" in report and "scaleout.nic_gbps" in report
    assert "mean over 5 models" in report and "## Validation against measured training runs" in report
    assert "![tornado](tornado.png)" in report and "Against accelerator clusters" in report
    assert "hit within ±10 %" in report
    assert RATIO_DEFINITION in report and "GB200 NVL72 + InfiniBand (baseline)" in report
    assert "| Llama 3 405B | accelerator clusters |" in report and "| acc_clusters |" not in report
    # notes say what this run did: the latency file measured the CXL switch, not the UALink one
    assert "cxl.switch_latency_ns" in report and "does not measure it" in head_or_cal(rows, "CAL-UALINK-SWITCH")
    assert "Switch figures differ" in head_or_cal(rows, "ORDER-CXL-XLINK")
    with open(out / "validation.csv") as fh:
        val = list(csv.reader(fh))
    assert val[0][:5] == ["name", "metric", "predicted", "measured", "error"] and len(val) == 5
    # the resolved inputs reproduce the scoreboard exactly
    out2 = tmp_path / "again"
    out2.mkdir()
    assert run.main(["--out", str(out2), "--no-whatif", "--config", str(out / "inputs.yaml")]) == 0
    with open(out2 / "scoreboard.csv") as fh:
        again = list(csv.reader(fh))
    assert [r[:7] for r in again] == [r[:7] for r in rows]


def head_or_cal(rows: list[list[str]], rid: str) -> str:
    return next(r[7] for r in rows if r[0] == rid)


def test_ratio_is_one_rule_for_points_and_intervals():
    """RATIO_DEFINITION: our value / the paper's, each interval taken at its point nearest the other."""
    rules = Rules(0.10, 1.0, "")
    assert verdict(Spec("point", 2.0, 2.0, "x"), Ours(3.0, "x", ""), rules)[0] == pytest.approx(1.5)
    rg = Spec("range", 100.0, 250.0, "ns")
    assert verdict(rg, Ours(180.0, "ns", ""), rules)[0] == 1.0                    # inside: they meet
    assert verdict(rg, Ours(50.0, "ns", ""), rules)[0] == pytest.approx(0.5)      # below: vs the low end
    up = Spec("upper", None, 500.0, "ns")                                          # "< 500 ns" is an interval too
    assert verdict(up, Ours(126.0, "ns", ""), rules) == (1.0, "in")
    assert verdict(up, Ours(750.0, "ns", ""), rules) == (pytest.approx(1.5), "out")
    lo = Spec("lower", 1000.0, None, "ns")
    assert verdict(lo, Ours(3160.0, "ns", ""), rules) == (1.0, "in")
    assert verdict(lo, Ours(500.0, "ns", ""), rules) == (pytest.approx(0.5), "out")
    from sim.system.cases import CaseValue
    iv = CaseValue("llm", "x", 0.974, 3.86, "")                                     # our interval, the paper's point
    assert case_verdict(2.78, iv, rules, speedup=True) == (1.0, "in")
    assert case_verdict(14.0, iv, rules, speedup=True)[0] == pytest.approx(3.86 / 14.0)


@pytest.mark.parametrize("sets,latency,expect", [
    ((), False, "no co-simulation latency file in this run"),
    (("ualink.switch_ns=80", "nvlink.switch_ns=80"), False, "set by `--set ualink.switch_ns=80`"),
    ((), True, "measured on RTL"),
])
def test_run_dependent_notes_are_true_for_the_run(tmp_path, sets, latency, expect):
    lat = None
    if latency:
        lat = tmp_path / "latency.json"
        lat.write_text(json.dumps({"source": "test", "clock_mhz": 1000.0,
                                   "hops": {"ualink.switch_ns": {"p50_cycles": 60}}}))
    cfg, _ = build_config(sets=sets, latencies_from=lat)
    rows = {r.id: r for r in score(load_targets(), run_system(cfg), cfg)}
    note = rows["CAL-UALINK-SWITCH"].note
    assert expect in note, note
    assert "will replace" not in note
    nv = rows["LAT-NVLINK"].note
    assert ("assumed proxy" in nv) == (not sets) and ("set by `--set nvlink.switch_ns=80`" in nv) == bool(sets), nv
    same = "same switch figure" in rows["ORDER-CXL-XLINK"].note
    assert same == (cfg.system.cxl.switch_latency_ns == cfg.system.nvlink.switch_ns)


def test_model_count_follows_the_workload_file(tmp_path, capsys):
    import yaml
    from sim.config import WORKLOAD_YAML
    data = yaml.safe_load(WORKLOAD_YAML.read_text())
    del data["models"]["gopher_280b"], data["models"]["palm_540b"]
    f = tmp_path / "three.yaml"
    f.write_text(yaml.safe_dump(data))
    assert run.main(["--out", str(tmp_path / "o"), "--no-whatif", "--workload", str(f)]) == 0
    assert "3 LLMs x 3 systems" in capsys.readouterr().out
    with open(tmp_path / "o" / "scoreboard.csv") as fh:
        rows = {r[0]: r for r in csv.reader(fh)}
    assert "mean over 3 models" in rows["SP-TRAIN-AVG"][7]


@pytest.mark.parametrize("item,text", [
    ("cxl.switch_latency_ns=-50", "cxl.switch_latency_ns: expected a positive number"),
    ("scaleout.nic_gbps=0", "scaleout.nic_gbps: expected a positive number"),
    ("scaleout.efficiency=-1", "scaleout.efficiency: expected a fraction in (0, 1]"),
    ("accelerator.gemm_efficiency=5", "accelerator.gemm_efficiency: expected a fraction in (0, 1]"),
    ("cxl.switch_latency_ns=nan", "cxl.switch_latency_ns: expected a number, got 'nan'"),
    ("ib.rdma_oneway_ns=.inf", "expected a finite number"),
])
def test_bad_values_exit_2_with_one_line(tmp_path, capsys, item, text):
    assert run.main(["--out", str(tmp_path), "--no-whatif", "--set", item]) == 2
    err = capsys.readouterr().err
    assert text in err and err.count("\n") == 1 and "Traceback" not in err


def test_bad_set_is_a_clear_error(tmp_path, capsys):
    assert run.main(["--out", str(tmp_path), "--no-whatif", "--set", "cxl.nope=1"]) == 2
    assert "unknown parameter 'cxl.nope'" in capsys.readouterr().err


def test_no_paper_values_in_code():
    """Tripwire: paper values live in targets.md only (unless the line says target/paper/expect/reference)."""
    pat = re.compile(r"(?<![\d.])(1\.22|1\.84|3\.79|4\.5|1\.6|1\.4)(?![\d])")
    bad = []
    for f in (REPO / "sim").rglob("*.py"):
        for i, line in enumerate(f.read_text().splitlines(), 1):
            if pat.search(line) and not re.search(r"target|paper|expect|reference", line, re.I):
                bad.append(f"{f}:{i}: {line.strip()}")
    assert not bad, "\n".join(bad)


def _figure_facts(fig) -> dict:
    """What a reader sees in a figure: titles, every text with its box, lines with their styles."""
    from matplotlib.text import Annotation, Text
    fig.tight_layout()
    r = fig.canvas.get_renderer()
    fig.canvas.draw()
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return {
        "titles": [ax.get_title() for ax in fig.axes if ax.get_title()] + ([fig._suptitle.get_text()] if fig._suptitle else []),
        "texts": [t.get_text() for t in texts],
        "annotations": [(a.get_text(), Text.get_window_extent(a, r)) for a in fig.findobj(Annotation)],  # text only
        "axes": [(ax, ax.get_window_extent(r)) for ax in fig.axes],
        "lines": [[(l.get_linestyle(), l.get_marker(), l.get_label()) for l in ax.get_lines()] for ax in fig.axes],
        "hlines": [l.get_ydata()[0] for ax in fig.axes for l in ax.get_lines()
                   if len(set(map(float, l.get_ydata()))) == 1 and len(l.get_ydata()) == 2],
    }


def test_plots_read_at_a_glance(tmp_path, monkeypatch):
    """Every figure titled, systems named as in the report, paper targets marked on the speedup plot,
    case-study labels off the curves and apart, capacity lines labelled, overlapping curves styled apart."""
    from sim.report import plots
    from sim.report.names import legend_names
    from sim.report.sensitivity import Swing
    from sim.system.cases import run_cases
    from sim.system.validate import SHIPPED_RUNS, load_runs, validate_runs
    facts: dict[str, dict] = {}

    def spy(fig, out, name):                 # read the figure as drawn; writing the PNG is run.main's test
        facts[name] = _figure_facts(fig)
        plots.plt.close(fig)
        return out / name
    monkeypatch.setattr(plots, "_save", spy)
    cfg, _ = build_config()
    res = run_system(cfg)
    cp, cases = run_cases(cfg)
    targets = load_targets()
    rows = score(targets, res, cfg, cases)
    by_id = {r.id: r for r in rows}
    names = legend_names(cfg)
    marks = [(f"paper {i}", plots.paper_number(by_id[i].paper)) for i in ("SP-TRAIN-AVG", "SP-TRAIN-MAX")]
    plots.plot_speedup(res, tmp_path, names, marks, (0.5, 1.1))
    plots.plot_breakdown(res, tmp_path, names, run.SHORT)
    plots.plot_tiering(res, tmp_path, names, cfg.hardware.accelerator.hbm_gb, cfg.hardware.accelerator.per_domain)
    plots.plot_cases(cases, cp, rows, tmp_path)
    head = [r for r in rows if r.section == 1]
    swing = Swing("cxl.switch_latency_ns", 100.0, 50.0, 200.0, "", "test", {r.id: 1.0 for r in head},
                  {r.id: 2.0 for r in head})
    plots.plot_tornado([swing], {r.id: 1.5 for r in head}, head, tmp_path)
    plots.plot_validation(validate_runs(load_runs(SHIPPED_RUNS)), [], tmp_path)
    assert len(facts) == 6
    internal = re.compile(r"\b(acc_clusters|scalepool|gpt3_175b|llama3_405b)\b")
    for name, f in facts.items():
        assert f["titles"], f"{name}: no title"
        assert not [t for t in f["texts"] if internal.search(t)], (name, [t for t in f["texts"] if internal.search(t)])
    sp = facts["speedup_per_model.png"]
    assert any(names["baseline"] in t for t in sp["titles"]) and "GB200 NVL72 + InfiniBand (baseline)" == names["baseline"]
    for rid in ("SP-TRAIN-AVG", "SP-TRAIN-MAX"):                      # the paper's targets, read from targets.md
        v = parse_spec(next(t.value_text for t in targets if t.id == rid)).lo
        assert any(abs(h - v) < 1e-9 for h in sp["hlines"]), rid
    case = facts["case_study_fabric_speedup.png"]
    (ax, box), = case["axes"]
    labels = [b for t, b in case["annotations"]]
    assert len(labels) >= 5 and all(b.x0 >= box.x1 for b in labels)      # in the margin, off the curves
    assert not [(a, b) for i, a in enumerate(labels) for b in labels[i + 1:] if a.overlaps(b)]
    tier = facts["latency_vs_working_set.png"]
    for lines in tier["lines"]:
        styled = {(ls, m) for ls, m, lab in lines if lab in names.values()}
        assert len(styled) == 3                                           # three systems, three styles
    assert sum("HBM" in t for t in tier["texts"]) == 3 and sum("scale-up domain" in t for t in tier["texts"]) == 3
    assert any("paper value" in t for t in facts["tornado.png"]["texts"])
