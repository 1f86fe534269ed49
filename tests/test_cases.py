"""Case-study profiles (targets.md §4): schema errors, path numbers by hand, exact intervals,
scoring rules, monotonic what-ifs, and the report/scoreboard rows."""
from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from sim.report import run
from sim.report.score import NOT_DERIVABLE, case_verdict, score_case_target
from sim.report.targets import CASE_SECTION, Rules, load_targets, targets_path
from sim.system.cases import (CasePaths, CaseValue, build_case_config, case_paths, evaluate_case, fabric_speedup,
                              run_cases)
from sim.config import ConfigError
from sim.traffic.cases import CASES_YAML, CaseCommon, Composite, Phase, CaseProfile, load_case_file

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def base():
    return build_case_config()[0]


def _vals(cfg) -> dict[str, CaseValue]:
    return {f"{c.profile.key}.{n}": v for c in run_cases(cfg)[1] for n, v in c.values.items()}


def _edit(tmp_path: Path, fn) -> Path:
    tree = yaml.safe_load(CASES_YAML.read_text())
    fn(tree)
    p = tmp_path / "cases.yaml"
    p.write_text(yaml.safe_dump(tree, sort_keys=False))
    return p


# ---- profiles and schema ----

def test_shipped_profiles_load_and_cite_sources():
    common, profiles = load_case_file()
    assert {p.target for p in profiles} == {"J-RAG", "J-GRAPHRAG", "J-DLRM", "J-MPI-PIC", "J-MPI-CFD"}
    assert common.switch_hops >= 1 and common.rdma_copy_gbps > 0
    for leaf in _leaves(yaml.safe_load(CASES_YAML.read_text())):
        assert str(leaf.get("source", "")).strip(), leaf
    dlrm = next(p for p in profiles if p.key == "dlrm")
    assert dlrm.phase("init").data_bytes == (1e11, 1e12)          # 'hundreds of GBs'
    assert dlrm.phase("inference").op_bytes is None               # the report gives no row size
    assert "op_bytes" in dlrm.phase("inference").unknowns


def _leaves(node):
    if isinstance(node, dict) and "value" in node:
        yield node
    elif isinstance(node, dict):
        for v in node.values():
            yield from _leaves(v)


BAD = [  # (edit, field named in the error, text in the error)
    (lambda t: t["profiles"]["rag"]["phases"]["search"].update(pattern={"value": "random", "source": "x"}),
     "cases.profiles.rag.phases.search.pattern", "is not one of"),
    (lambda t: t["profiles"]["rag"]["phases"]["search"].update(compute_share={"value": 1.5, "source": "x"}),
     "cases.profiles.rag.phases.search.compute_share", "in [0, 1]"),
    (lambda t: t["profiles"]["rag"]["phases"]["search"].update(op_bytes={"value": [4096, 64], "source": "x"}),
     "cases.profiles.rag.phases.search.op_bytes", "lo > hi"),
    (lambda t: t["profiles"]["rag"]["phases"]["search"].update(op_bytes={"value": "big", "source": "x"}),
     "cases.profiles.rag.phases.search.op_bytes", "'unknown'"),
    (lambda t: t["profiles"]["rag"]["phases"]["search"].update(op_byte={"value": 64, "source": "x"}),
     "cases.profiles.rag.phases.search.op_byte", "unknown field"),
    (lambda t: t["profiles"]["rag"]["phases"]["search"].update(cxl_traversals={"value": 0, "source": "x"}),
     "cases.profiles.rag.phases.search.cxl_traversals", "expected an integer"),
    (lambda t: t["profiles"]["rag"]["phases"]["search"].pop("rdma_copies"),
     "cases.profiles.rag.phases.search.rdma_copies", "required field is missing"),
    (lambda t: t["profiles"]["rag"].update(target_values={"value": ["search", "rerank"], "source": "x"}),
     "cases.profiles.rag.target_values", "'rerank' names no phase"),
    (lambda t: t["profiles"]["dlrm"]["composites"]["throughput"].update(parts={"value": ["init", "train"], "source": "x"}),
     "cases.profiles.dlrm.composites.throughput.parts", "'train' is not a phase"),
    (lambda t: t["profiles"]["dlrm"]["composites"]["throughput"].update(shares={"value": [0.5, 0.6], "source": "x"}),
     "cases.profiles.dlrm.composites.throughput.shares", "sum to 1"),
    (lambda t: t["profiles"]["dlrm"]["phases"]["init"].update(compute_s={"value": 2.0, "source": "x"}),
     "cases.profiles.dlrm.phases.init.compute_share", "must be 'unknown'"),
    (lambda t: t["profiles"]["mpi_cfd"].update(target={"value": "J-RAG", "source": "x"}),
     "cases.profiles.mpi_cfd.target", "already the target"),
    (lambda t: t["common"].update(switch_hops={"value": 1.5, "source": "x"}),
     "cases.common.switch_hops", "expected an integer"),
]


@pytest.mark.parametrize("edit,field,text", BAD)
def test_bad_profile_names_file_and_field(tmp_path, edit, field, text):
    p = _edit(tmp_path, edit)
    with pytest.raises(ConfigError) as exc:
        load_case_file(p)
    msg = str(exc.value)
    assert field in msg and text in msg, msg
    if "required field" not in msg:
        assert str(p) in msg


def test_missing_source_is_an_error(tmp_path):
    p = _edit(tmp_path, lambda t: t["profiles"]["rag"]["phases"]["search"]["op_bytes"].pop("source"))
    with pytest.raises(ConfigError, match="phases.search.op_bytes: missing 'source'"):
        load_case_file(p)


# ---- paths and formulas by hand ----

def test_case_paths_by_hand(base):
    cp = case_paths(base, CaseCommon(switch_hops=2, cable_m=2.0, rdma_copy_gbps=346.0))
    link = 2 * 256 / 128 + 5.0 * 2.0                  # serialize + accumulate one flit + 2 m flight
    ddr = 16.25 + 16.25 + 16.67 + 3.33
    assert cp.cxl_lat_ns == pytest.approx(2 * 27 + 2 * (3 * link + 2 * 100) + ddr)
    assert cp.rdma_lat_ns == pytest.approx(2 * 830 + 2 * 2 * 150 + 2 * 1 * 10)
    assert cp.cxl_gbps == pytest.approx(128 * 14 * 16 / 256 * 64 / 80)
    assert cp.rdma_gbps == pytest.approx(100 * 0.92)                # 800 Gb/s per GPU (targets §5) at 0.92
    lim = fabric_speedup(np.array([0.0, np.inf]), 1, 0, cp)
    assert lim[0] == pytest.approx(cp.rdma_lat_ns / cp.cxl_lat_ns)
    assert lim[1] == pytest.approx(cp.cxl_gbps / cp.rdma_gbps)
    # two traversals and one copy, one 1 MB transfer
    s = 1e6
    t_r = cp.rdma_lat_ns + s * (1 / cp.rdma_gbps + 1 / 346.0)
    t_c = 2 * (cp.cxl_lat_ns + s / cp.cxl_gbps)
    assert float(fabric_speedup(s, 2, 1, cp)) == pytest.approx(t_r / t_c)


CP = CasePaths(cxl_lat_ns=500.0, rdma_lat_ns=2000.0, cxl_gbps=100.0, rdma_gbps=50.0, copy_gbps=200.0,
               switch_hops=2, cable_m=2.0)


def _phase(name="p", **kw) -> Phase:
    d = dict(what="w", pattern="unknown", compute_share=None, op_bytes=None, data_bytes=None, compute_s=None,
             cxl_traversals=1, rdma_copies=0.0, excluded="none named")
    d.update(kw)
    return Phase(name=name, **d)


def _profile(phases, composites=()) -> CaseProfile:
    return CaseProfile("t", "T", "J-T", tuple(p.name for p in phases), "nothing", tuple(phases), tuple(composites))


def test_phase_formulas_by_hand():
    # latency ratio 4, bandwidth ratio 2; compute share 0.5 and 1 kB transfers
    s = (2000 + 1000 / 50) / (500 + 1000 / 100)
    r = evaluate_case(_profile([_phase(compute_share=(0.5, 0.5), op_bytes=(1000.0, 1000.0))]), CP)
    v = r.values["p"]
    assert v.is_point and v.lo == pytest.approx(1 / (0.5 + 0.5 / s))
    assert not r.values["p_time"].derivable
    # everything open: [1, latency-bound ratio]
    v = evaluate_case(_profile([_phase()]), CP).values["p"]
    assert (v.lo, v.hi) == pytest.approx((1.0, 4.0))
    # compute only: exactly 1
    v = evaluate_case(_profile([_phase(compute_share=(1.0, 1.0))]), CP).values["p"]
    assert v.is_point and v.hi == pytest.approx(1.0)
    # explicit sizes: 1 s compute, 10 GB in 1 MB transfers -> absolute CXL time too
    r = evaluate_case(_profile([_phase(data_bytes=(1e10, 1e10), compute_s=(1.0, 1.0), op_bytes=(1e6, 1e6))]), CP)
    n = 1e10 / 1e6
    t_c = 1e9 + n * 500 + 1e10 / 100
    t_r = 1e9 + n * 2000 + 1e10 / 50
    assert r.values["p_time"].lo == pytest.approx(t_c / 1e9)
    assert r.values["p"].lo == pytest.approx(t_r / t_c)


def test_composites_by_hand():
    a = _phase("a", compute_share=(0.0, 0.0), op_bytes=(0.0, 0.0))            # latency-bound: 4x
    b = _phase("b", compute_share=(1.0, 1.0))                                   # compute: 1x
    known = Composite("ab", ("a", "b"), (0.25, 0.75))
    open_ = Composite("ab2", ("a", "b"), None)
    r = evaluate_case(_profile([a, b], [known, open_]), CP)
    assert r.values["ab"].lo == pytest.approx(1 / (0.25 / 4 + 0.75 / 1))
    assert (r.values["ab2"].lo, r.values["ab2"].hi) == pytest.approx((1.0, 4.0))


def test_interval_contains_every_sampled_setting():
    """Corners give the exact interval: random settings of the open inputs stay inside and approach it."""
    seed = 6062025
    print(f"seed={seed}")
    rng = np.random.default_rng(seed)
    for n, k in ((1, 0.0), (2, 1.0), (3, 2.5)):
        v = evaluate_case(_profile([_phase(cxl_traversals=n, rdma_copies=k, op_bytes=(64.0, 1e9),
                                           compute_share=(0.1, 0.7))]), CP).values["p"]
        f = rng.uniform(0.1, 0.7, 20000)
        s = np.exp(rng.uniform(np.log(64), np.log(1e9), 20000))
        sp = 1 / (f + (1 - f) / fabric_speedup(s, n, k, CP))
        assert sp.min() >= v.lo - 1e-9 and sp.max() <= v.hi + 1e-9
        assert sp.max() > v.lo + 0.9 * (v.hi - v.lo) and sp.min() < v.lo + 0.1 * (v.hi - v.lo)


# ---- scoring ----

def test_case_verdict_rules():
    rules = Rules(0.10, 1.0, "")
    pt = CaseValue("q", "x", 2.0, 2.0, "")
    assert case_verdict(2.1, pt, rules)[1] == "hit" and case_verdict(2.4, pt, rules)[1] == "miss"
    assert case_verdict(2.0, pt, rules)[0] == pytest.approx(1.0)
    one = CaseValue("q", "x", 1.0, 1.0, "")                             # no gain never meets a speedup target
    assert case_verdict(1.06, one, rules, speedup=True)[1] == "miss"
    assert case_verdict(1.06, one, rules, speedup=False)[1] == "hit"
    iv = CaseValue("q", "x", 1.0, 4.0, "")
    assert case_verdict(3.0, iv, rules) == (1.0, "in")
    r, v = case_verdict(8.0, iv, rules)
    assert v == "out" and r == pytest.approx(0.5)
    assert case_verdict(1.0, CaseValue("q", "s", None, None, ""), rules) == (None, NOT_DERIVABLE)


def test_section4_rows(base):
    targets = [t for t in load_targets() if t.section == CASE_SECTION]
    assert {t.id for t in targets} == {"J-RAG", "J-GRAPHRAG", "J-DLRM", "J-MPI-PIC", "J-MPI-CFD"}
    cases = run_cases(base)[1]
    for t in targets:
        rows = score_case_target(t, cases)
        assert len(rows) == len(re.findall(r"\d\s*[xs]\b", t.value_text)), t.id
        for r in rows:
            assert r.id.startswith(t.id + ".") and r.section == CASE_SECTION
            assert r.verdict in {"hit", "miss", "in", "out", NOT_DERIVABLE}
            assert len(r.note) > 20, r.id
            if r.verdict == NOT_DERIVABLE:
                assert r.ours is None and "not derivable" in r.note
            else:
                assert r.ours is not None and r.ours_lo <= r.ours
    # a target without a profile, and a profile whose values do not match the row
    only = [c for c in cases if c.profile.target != "J-RAG"]
    rag = next(t for t in targets if t.id == "J-RAG")
    rows = score_case_target(rag, only)
    assert len(rows) == 1 and rows[0].verdict == "not modelled"


def test_time_rows_not_derivable_and_computation_rows_determined(base):
    v = _vals(base)
    assert not v["rag.search_time"].derivable and "data_bytes" in v["rag.search_time"].note
    assert v["mpi_pic.computation"].is_point and v["mpi_pic.computation"].hi == pytest.approx(1.0)
    assert v["dlrm.init"].is_point            # hundreds of GB in bulk: bandwidth-bound, pinned down


# ---- monotonic relations ----

def test_more_rdma_latency_larger_case_speedups(base):
    lo = _vals(base.with_values({"ib.rdma_oneway_ns": 600.0}))
    hi = _vals(base.with_values({"ib.rdma_oneway_ns": 1500.0}))
    for k in lo:
        if lo[k].derivable:
            assert hi[k].hi >= lo[k].hi - 1e-12 and hi[k].lo >= lo[k].lo - 1e-12, k
    for k in ("rag.search", "mpi_pic.communication", "mpi_cfd.communication", "graph_rag.e2e"):
        assert hi[k].hi > lo[k].hi, k


def test_more_cxl_bandwidth_faster_bulk_init(base):
    a = _vals(base.with_values({"topology.cxl_ports_per_gpu": 1}))["dlrm.init"]
    b = _vals(base.with_values({"topology.cxl_ports_per_gpu": 2}))["dlrm.init"]
    assert b.lo == pytest.approx(2 * a.lo, rel=1e-3)       # bandwidth-bound: speedup scales with CXL bandwidth


def test_slower_cxl_switch_smaller_case_speedups(base):
    prev = None
    for sw in (50.0, 100.0, 200.0, 400.0):
        v = _vals(base.with_values({"cxl.switch_latency_ns": sw}))["mpi_cfd.communication"]
        if prev is not None:
            assert v.hi < prev.hi
        prev = v


def test_compute_share_and_copies_move_the_right_way(base):
    key = "cases.profiles.mpi_cfd.phases.communication"
    prev = None
    for f in (0.0, 0.3, 0.6, 0.9):
        v = _vals(base.with_values({f"{key}.compute_share": f}))["mpi_cfd.communication"]
        if prev is not None:                 # more compute: both ends move toward 1 (no fabric effect)
            assert abs(v.hi - 1) < abs(prev.hi - 1) and abs(v.lo - 1) <= abs(prev.lo - 1)
        prev = v
    c0 = _vals(base.with_values({f"{key}.rdma_copies": 0}))["mpi_cfd.communication"]
    c2 = _vals(base.with_values({f"{key}.rdma_copies": 2}))["mpi_cfd.communication"]
    assert c2.lo > c0.lo and c2.hi >= c0.hi


def test_transfer_size_moves_from_latency_to_bandwidth_bound(base):
    cp = run_cases(base)[0]
    s = np.geomspace(1, 1e12, 50)
    y = fabric_speedup(s, 1, 0, cp)
    lat, bw = cp.rdma_lat_ns / cp.cxl_lat_ns, cp.cxl_gbps / cp.rdma_gbps
    assert np.all(np.diff(y) * np.sign(bw - lat) >= -1e-12)
    assert y[0] == pytest.approx(lat, rel=1e-2) and y[-1] == pytest.approx(bw, rel=1e-2)


# ---- end to end through the report ----

def test_run_with_case_override(tmp_path, capsys):
    out = tmp_path / "o"
    assert run.main(["--out", str(out), "--no-whatif", "--set",
                     "cases.profiles.dlrm.phases.init.rdma_copies=1"]) == 0
    assert "J-DLRM.init" in capsys.readouterr().out
    with open(out / "scoreboard.csv") as fh:
        rows = {r[0]: r for r in csv.reader(fh)}
    default = _vals(build_case_config()[0])["dlrm.init"].hi
    assert float(rows["J-DLRM.init"][3]) > default                     # one copy slows the RDMA side
    report = (out / "report.md").read_text()
    assert "## Case studies" in report and "case_study_fabric_speedup.png" in report
    assert (out / "case_study_fabric_speedup.png").is_file()
    assert "cases.profiles.dlrm.phases.init.rdma_copies" in report     # listed among the overrides


def test_bad_case_set_and_file_are_clear_errors(tmp_path, capsys):
    assert run.main(["--out", str(tmp_path), "--no-whatif", "--set", "cases.profiles.rag.phases.search.op_bytes=-5"]) == 2
    assert "cases.profiles.rag.phases.search.op_bytes" in capsys.readouterr().err
    p = _edit(tmp_path, lambda t: t["profiles"]["rag"]["phases"]["search"].update(pattern={"value": "x", "source": "s"}))
    assert run.main(["--out", str(tmp_path), "--no-whatif", "--cases", str(p)]) == 2
    assert "phases.search.pattern" in capsys.readouterr().err


def test_no_case_paper_values_in_code_or_profiles():
    """Tripwire: section-4 paper values appear only in targets.md (a profile line may cite the report)."""
    vals = {v for t in load_targets(targets_path()) if t.section == CASE_SECTION
            for v in re.findall(r"(\d+(?:\.\d+)?)\s*[xs]\b", t.value_text)}
    pats = [re.compile(rf"(?<![\d.]){re.escape(v)}\s*[xs]\b") for v in vals]
    files = list((REPO / "sim").rglob("*.py")) + [CASES_YAML]
    bad = [f"{f}:{i}: {line.strip()}" for f in files for i, line in enumerate(f.read_text().splitlines(), 1)
           if any(p.search(line) for p in pats)]
    assert not bad, "\n".join(bad)
