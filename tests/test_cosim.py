"""Rack-edge co-simulation (rtl/edge/sp_rack_edge.v + sim/cosim): behaviour, not wall-clock time.

One Verilator build (default parameters) and short runs. The RTL runs check inside the cocotb test
that every request is answered exactly once with the right data and that no block raised an error;
here the latency figures are checked for the orderings the design implies and for the direction a
knob moves them. Pure-Python parts (streams, statistics, latency.json -> system model) need no
simulator.
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from sim.cosim.harness import CosimCfg
from sim.cosim.stats import PORT_PLUS, latency_json, percentile, summary
from sim.cosim.stream import Window, llm_requests, pattern_lines, tiering_requests
from sim.system.config import ConfigError
from sim.system.latency import compute_paths
from sim.system.measured import load_measured
from sim.system.model import build_config

SHORT = CosimCfg(n_per_bridge=60, idle_p=0.9, peer_p=0.03)
# peers and bridges on 16 shared coherent lines: peers' dirty lines meet the bridges' and each other's reads
SHARED = replace(SHORT, coh_lines=16)


# ------------------------------------------------------------------ pure Python
def test_streams_reproducible_and_in_window() -> None:
    w = Window()
    a = tiering_requests(200, 5, w, "zipf")
    assert a == tiering_requests(200, 5, w, "zipf")
    assert a != tiering_requests(200, 6, w, "zipf")
    for r in a + llm_requests(200, 5, w):
        assert w.win_base <= r.addr < w.win_base + w.win_size and r.addr % 64 == 0
        assert r.coherent == (r.addr - w.win_base >= w.coh_off)
        assert not (r.coherent and r.kind.startswith("llm"))
    assert any(r.write for r in a) and any(not r.write for r in a) and any(r.coherent for r in a)


def test_patterns() -> None:
    import numpy as np
    rng = np.random.default_rng(1)
    s = pattern_lines("streaming", 10, 4, rng, 0.99, start=2)
    assert list(s) == [2, 3, 0, 1, 2, 3, 0, 1, 2, 3]
    z = pattern_lines("zipf", 4000, 1000, rng, 0.99)
    u = pattern_lines("uniform", 4000, 1000, rng, 0.99)
    top = lambda x: np.sort(np.bincount(x, minlength=1000))[-10:].sum()   # noqa: E731
    assert top(z) > 3 * top(u)          # zipf concentrates accesses on a hot set
    with pytest.raises(ValueError, match="pattern"):
        pattern_lines("random", 1, 1, rng, 1.0)


def test_percentile_and_json(tmp_path: Path) -> None:
    assert percentile([5, 1, 3], 50) == 3 and percentile(list(range(1, 101)), 99) == 99
    samples = {"switch/round_trip_rd": [6, 6, 7, 12], "switch/round_trip_wr": [6], "bridge/round_trip_rd": [8, 9],
               "read/bridge_hit": [20, 25]}
    lj = latency_json(samples, "unit test")
    p = tmp_path / "latency.json"
    p.write_text(json.dumps(lj))
    m = load_measured(p)
    assert m.hops["cxl.switch_latency_ns"]["p50_ns"] == 3.0
    assert m.plus["cxl.switch_latency_ns"] == {k: float(v) for k, v in PORT_PLUS.items()}
    cfg, _ = build_config(latencies_from=p)
    port = cfg.get("cxl.port_phy_ns") + cfg.get("cxl.port_link_layer_ns")
    assert cfg.get("cxl.switch_latency_ns") == pytest.approx(3.0 + 2 * port)
    # a later --set of a port figure still counts; a --set of the hop itself wins
    hi, _ = build_config(latencies_from=p, sets=["cxl.port_phy_ns=50"])
    assert compute_paths(hi).cxl_1sw_read > compute_paths(cfg).cxl_1sw_read
    fixed, _ = build_config(latencies_from=p, sets=["cxl.port_phy_ns=50", "cxl.switch_latency_ns=7"])
    base, _ = build_config(latencies_from=p, sets=["cxl.switch_latency_ns=7"])
    assert compute_paths(fixed).cxl_1sw_read == pytest.approx(compute_paths(base).cxl_1sw_read)
    bad = dict(lj, hops={"cxl.switch_latency_ns": {"p50_cycles": 3, "plus": {"cxl.no_such": 2}}})
    p.write_text(json.dumps(bad))
    with pytest.raises(ConfigError, match="cxl.no_such"):
        build_config(latencies_from=p)


# ------------------------------------------------------------------ RTL co-simulation
def _run(cfg: CosimCfg, seed: int = 11) -> dict:
    from sim.cosim.run import run_sim
    res = run_sim(cfg, seed)
    assert not res["errors"], res["errors"]
    return res


def _p50(res: dict, path: str) -> float:
    return summary(res["samples"][path])["p50_cycles"]


def _mean(res: dict, path: str) -> float:
    return summary(res["samples"][path])["mean_cycles"]


@pytest.mark.rtl
def test_cosim_paths_and_json(tmp_path: Path) -> None:
    res = _run(SHARED)
    s = res["samples"]
    c = res["counts"]
    assert c["requests"] == c["responses"] == 2 * SHARED.n_per_bridge
    for path in ("read/bridge_hit", "read/miss_tier2_fabric", "coh_read/fabric", "switch/m2s_req",
                 "switch/s2m_drs", "bridge/req_conv", "far/tier2_read"):
        assert s.get(path), f"no samples on {path}"
    for path, v in s.items():
        sm = summary(v)
        assert sm["p99_cycles"] >= sm["p50_cycles"] >= sm["min_cycles"] >= 0, path
    # the far memory is excluded from the fabric path and is the node latency when unloaded
    assert min(s["far/tier2_read"]) == SHARED.t2_lat
    # a hit is answered on the bridge; a miss also crosses the switch both ways (fabric part alone)
    assert _p50(res, "read/bridge_hit") < _p50(res, "read/miss_tier2_fabric") + SHARED.t2_lat
    assert _p50(res, "read/miss_tier2_fabric") > _p50(res, "switch/m2s_req") + _p50(res, "switch/s2m_drs")
    assert min(s["switch/m2s_req"]) >= 1
    # peers write (default peer_write_p): local stores, write requests pushing a line on D2H Data,
    # dirty lines leaving by DirtyEvict or a forwarding snoop answer, and the home agent writing to
    # its memory node beyond the bridges' coherent writes; reads returned peers' values (every read's
    # value is checked in the run, harness.LineHistory)
    assert SHARED.peer_write_p > 0
    assert c["peer_stores"] > 0 and c["peer_write_requests"] > 0 and c["peer_d2h_data"] > 0, c
    assert c["peer_dirty_evicts"] + c["peer_fwd_dirty"] > 0, c
    assert c["home_memory.writes"] > c.get("coh_wr", 0), c
    bridge_reads = c["responses"] - c.get("wr", 0) - c.get("coh_wr", 0)
    assert c["peer_reads"] > 0 and c["reads_value_checked"] == c["peer_reads"] + bridge_reads, c
    assert c["reads_saw_peer_write"] > 0, c
    lj = latency_json(s, "test")
    p = tmp_path / "latency.json"
    p.write_text(json.dumps(lj))
    m = load_measured(p)
    assert m.hops["cxl.switch_latency_ns"]["p99_ns"] >= m.hops["cxl.switch_latency_ns"]["p50_ns"] > 0
    build_config(latencies_from=p)


@pytest.mark.rtl
def test_cosim_knobs_move_latency() -> None:
    """A second switch hop and XLink back-pressure both raise latency; far time does not leak; peers
    without a write share leave no dirty data."""
    base = _run(replace(SHORT, n_per_bridge=40))
    casc = _run(replace(SHORT, n_per_bridge=40, mode="cascade"))
    assert _p50(casc, "switch/m2s_req") > _p50(base, "switch/m2s_req")
    assert _p50(casc, "read/miss_tier2_fabric") > _p50(base, "read/miss_tier2_fabric")
    bp = _run(replace(SHORT, n_per_bridge=40, ready_p=0.3, idle_p=0.0))
    nobp = _run(replace(SHORT, n_per_bridge=40, ready_p=1.0, idle_p=0.0))
    assert _mean(bp, "read/bridge_hit") > _mean(nobp, "read/bridge_hit")
    slow = _run(replace(SHORT, n_per_bridge=40, t2_lat=150, peer_write_p=0.0))
    assert min(slow["samples"]["far/tier2_read"]) == 150
    # read-only peers: nothing dirty, no peer data on D2H, the home memory writes only for the bridges
    c = slow["counts"]
    assert c["peer_requests"] > 0
    assert c["peer_stores"] == c["peer_write_requests"] == c["peer_dirty_evicts"] == c["peer_fwd_dirty"] == 0, c
    assert c["peer_d2h_data"] == 0 and c["home_memory.writes"] == c.get("coh_wr", 0), c
    assert c["reads_saw_peer_write"] == 0, c
    assert _p50(slow, "read/miss_total_incl_far") > _p50(base, "read/miss_total_incl_far")
