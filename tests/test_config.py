"""The configuration facility: domains, checked dataclasses, parameter trees, and the property that
every latency and bandwidth input moves each scored ratio the physically right way."""
from __future__ import annotations

import math
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.config import (COUNT, FRACTION, FRACTION0, NONNEG, POSITIVE, Checked, ConfigError, ParamTree, build, describe,
                        integer, load_config, one_of, param)
from sim.config.schema import Layout, ModelShape, Offload
from sim.report.score import headline_values
from sim.report.targets import load_targets
from sim.system.model import run_system


@dataclass(frozen=True)
class Knobs(Checked):
    n: int = param(COUNT, 150, doc="requests")
    p: float = param(FRACTION0, 0.95)
    bw: float = param(POSITIVE, 1.0, unit="GB/s")
    mode: str = param(one_of("direct", "cascade"), "direct")


@dataclass(frozen=True)
class Outer(Checked):
    k: Knobs = Knobs()
    lat: float = param(NONNEG, 0.0)


@pytest.mark.parametrize("kw,match", [
    ({"n": 0}, r"^n: expected an integer >= 1, got 0$"),
    ({"n": 8.0}, r"^n: expected an integer >= 1, got 8\.0$"),
    ({"n": True}, r"^n: expected an integer >= 1, got True$"),
    ({"p": 1.5}, r"^p: expected a fraction in \[0, 1\], got 1\.5$"),
    ({"bw": 0.0}, r"^bw: expected a positive number \(> 0\), got 0\.0$"),
    ({"bw": float("nan")}, r"^bw: expected a positive number \(> 0\), got nan$"),
    ({"bw": float("inf")}, r"^bw: expected a positive number \(> 0\), got inf$"),
    ({"bw": "fast"}, r"^bw: expected a positive number \(> 0\), got 'fast'$"),
    ({"mode": "ring"}, r"^mode: expected one of direct, cascade, got 'ring'$"),
])
def test_checked_dataclass_refuses_out_of_domain(kw, match):
    with pytest.raises(ConfigError, match=match):
        Knobs(**kw)


def test_build_names_keys_and_nests():
    k = build(Outer, {"k": {"n": 3, "bw": 2}, "lat": 1}, "cosim")
    assert k.k.n == 3 and k.k.bw == 2.0 and isinstance(k.k.bw, float) and k.lat == 1.0
    with pytest.raises(ConfigError, match=r"^cosim\.k\.bw: expected a positive number"):
        build(Outer, {"k": {"bw": -1}}, "cosim")
    with pytest.raises(ConfigError, match=r"^cosim\.k\.nn: unknown field \(allowed: bw, mode, n, p\)$"):
        build(Outer, {"k": {"nn": 1}}, "cosim")
    with pytest.raises(ConfigError, match=r"^x\.layers: required field is missing$"):
        build(ModelShape, {"hidden": 8}, "x")
    with pytest.raises(ConfigError, match=r"^x: expected a mapping"):
        build(Outer, [1, 2], "x")
    keys = [d[0] for d in describe(Outer)]
    assert keys == ["k.n", "k.p", "k.bw", "k.mode", "lat"]
    assert integer(2, 4).check("q", 3) == 3 and FRACTION.check("f", 1) == 1.0


def test_every_workload_field_has_a_domain():
    for cls in (ModelShape, Layout, Offload):
        for f in cls.__dataclass_fields__.values():
            if f.name != "offload":
                assert "domain" in f.metadata, (cls.__name__, f.name)


def test_param_tree_ranges_and_overrides(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("a:\n  x: {value: 2.0, source: s, range: [1.0, 3.0], range_source: r}\n")
    t = ParamTree()
    t.load_into(f)
    assert t.get("a.x") == 2.0 and t.section("a") == {"x": 2.0}
    t.apply_sets(["a.x=2.5"])
    assert t.get("a.x") == 2.5 and "override" in t.source("a.x")
    for bad, match in (("{value: 5.0, source: s, range: [1.0, 3.0], range_source: r}", "outside its range"),
                       ("{value: 2.0, source: s, range: [1.0, 3.0]}", "needs a 'range_source'"),
                       ("{value: 2.0, source: s, range: [3.0, 1.0], range_source: r}", r"range: expected \[lo, hi\]"),
                       ("{value: 2.0, source: s, rnage: 1}", "unknown leaf field"),
                       ("{value: fused, source: s, range: [materialized, flash], range_source: r}", "two alternatives"),
                       ("{value: true, source: s, range: [true, true], range_source: r}", "two alternatives"),
                       ("{value: 2.0}", "missing 'source'")):
        f.write_text(f"a:\n  x: {bad}\n")
        with pytest.raises(ConfigError, match=match):
            ParamTree().load_into(f)
    f.write_text("a:\n  k: {value: fused, source: s, range: [materialized, fused], range_source: r}\n")
    ParamTree().load_into(f)                                  # a categorical assumption lists its alternatives
    with pytest.raises(ConfigError, match=r"did you mean a\.x"):
        t.set("b.x", 1, "--set")


# ---- property: every latency / bandwidth input moves the scored ratios the right way ----

CFG = load_config()
HEADLINE = [t.id for t in load_targets() if t.section == 1]
VS_BASELINE = [i for i in HEADLINE if i != "SP-TIER2-ACC"]      # ScalePool over the baseline (no CXL there)
BASE = headline_values(run_system(CFG), CFG, HEADLINE)


def _kind(key: str) -> str | None:
    unit = str(CFG.tree.leaves[key].get("unit", ""))
    if unit in ("ns", "us"):
        return "latency"
    if unit == "GB/s":
        return "bandwidth"
    return None


def _side(key: str) -> str:
    """Which systems use a parameter: only the baseline, only the CXL systems, or both."""
    if key.startswith(("ib.", "scaleout.", "host.")):
        return "baseline"
    if key.startswith("cxl."):
        return "cxl"
    return "shared"


MOVABLE = sorted(k for k in CFG.tree.leaves if _kind(k) and not k.startswith(("workload.", "tiering.", "cases.")))


def test_movable_keys_cover_both_sides():
    sides = {_side(k) for k in MOVABLE}
    assert sides == {"baseline", "cxl", "shared"} and len(MOVABLE) > 25


@settings(max_examples=40)
@given(key=st.sampled_from(MOVABLE), factor=st.floats(1.1, 4.0))
def test_latency_and_bandwidth_move_ratios_the_right_way(key, factor):
    """A slower (or narrower) baseline-only part never lowers a ScalePool speedup over the baseline;
    a slower (or narrower) CXL part never raises one. Parts both sides use may move a ratio either
    way (the report shows by how much); every ratio stays finite and positive."""
    value = CFG.tree.get(key)
    new = value * factor if value > 0 else factor
    cfg = CFG.with_values({key: new}, "property test")
    vals = headline_values(run_system(cfg), cfg, HEADLINE)
    worse = 1 if _kind(key) == "latency" else -1        # +1: a larger value is a slower part
    side = _side(key)
    for rid in HEADLINE:
        assert vals[rid] is not None and math.isfinite(vals[rid]) and vals[rid] > 0, (key, rid)
    tol = 1e-9
    for rid in VS_BASELINE:
        delta = (vals[rid] - BASE[rid]) / BASE[rid]
        if side == "baseline":
            assert worse * delta >= -tol, (key, rid, BASE[rid], vals[rid])
        elif side == "cxl":
            assert worse * delta <= tol, (key, rid, BASE[rid], vals[rid])
