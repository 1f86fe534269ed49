"""System model: formulas by hand, overrides, the RTL-latency hook, monotonic what-ifs, scale."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from sim.system import bench, build_config, speedups
from sim.system.config import ConfigError, load_system_params
from sim.system.latency import compute_paths, cxl_data_efficiency
from sim.system.model import run_tiering
from sim.system.training import evaluate, iteration_time, placement, ring_allreduce
from sim.traffic.llm import load_workloads


@pytest.fixture(scope="module")
def base():
    cfg, _ = build_config()
    return cfg


def _wl(cfg, key):
    return next(w for w in load_workloads(cfg) if w.key == key)


def test_every_system_parameter_cites_a_source():
    cfg = load_system_params()
    assert len(cfg.leaves) > 40
    for key, leaf in cfg.leaves.items():
        assert leaf["source"].strip(), key


def test_paths_by_hand(base):
    p = compute_paths(base)
    assert p.hbm_local == pytest.approx(16.25 + 19.4 + 12.5 + 4 * 0.625)
    ddr = 16.25 + 16.25 + 16.67 + 3.33
    assert p.ddr5_local == pytest.approx(ddr)
    link_in = 2 * (256 / 128) + 5.0 * 2.0           # serialize + accumulate one flit + 2 m of flight
    link_out = 2 * (256 / 128) + 5.0 * 30.0
    proto = 12 + 15
    assert p.cxl_direct_read == pytest.approx(2 * proto + 2 * link_in + ddr)
    assert p.cxl_1sw_read == pytest.approx(2 * proto + 2 * (2 * link_in + 100) + ddr)
    assert p.sp_tier2_read == pytest.approx(2 * proto + 2 * (2 * link_in + 2 * link_out + 3 * 100) + ddr)
    assert p.rdma_read == pytest.approx(2 * 830 + 2 * 3 * 150 + 2 * 2 * 150)
    nv_req, nv_rsp = 2 * 16 / 50 + 10, 2 * 80 / 50 + 10
    assert p.nvlink_peer_read == pytest.approx(2 * nv_req + 2 * nv_rsp + 200 + p.hbm_local)
    assert cxl_data_efficiency(base) == pytest.approx(14 * 16 / 256 * 64 / 80)


def test_ring_allreduce_by_hand():
    # 8 ranks, 2 racks: 14 steps of which 2 cross racks
    t = ring_allreduce(8e9, 8, 2, 100e9, 1e-6, 10e-6, 5e-6)
    assert t == pytest.approx(5e-6 + 12 * 1e-6 + 2 * 10e-6 + 2 * 7 / 8 * 8e9 / 100e9)
    assert ring_allreduce(1e9, 1, 1, 1e9, 1, 1, 1) == 0.0


def test_placement(base):
    gpt3 = placement(_wl(base, "gpt3_175b"), 72)
    assert gpt3.pp_cross_rack and gpt3.dp_nodes == 16 and gpt3.racks == 1536 // 72 + 1
    palm = placement(_wl(base, "palm_540b"), 72)
    assert not palm.pp_cross_rack and palm.dp_nodes == 86           # 6 DP peers per rack, 6144 GPUs


def test_iteration_time_by_hand(base):
    """A one-rack, no-PP, no-DP layout: only compute, TP and offload remain."""
    w = dataclasses.replace(_wl(base, "gpt3_175b"), pp=1, dp=1, gpus=8, global_batch=4, layers=96)
    it = iteration_time(w, base, "baseline")
    flops = 2500e12
    t_f = 2 * 2048 * 174.6e9 / 8 / flops
    assert it.computation == pytest.approx(4 * 4 * t_f)              # m=4, fwd+2*bwd+recompute
    tp_one = 8.4e-6 + 14 * 3.4e-6 + 2 * 7 / 8 * (2048 * 12288 * 2) / (50e9 * 18 * 0.65)
    assert it.tp == pytest.approx(4 * (2 * 3 * 96) * tp_one)
    assert it.pp == 0 and it.bubble == 0 and it.dp_total == 0 and it.inter_cluster_comm == 0
    off_bw = min(900 / 2, 512) / 2 * 1e9
    wg = (3 * 2 + 2) * 174.6e9 / 8 / off_bw                          # weight loads x3 + grad store
    assert it.offload_exposed == pytest.approx(max(0.0, wg - it.computation) + 32 * 174.6e9 / 8 / off_bw)
    assert it.total == pytest.approx(it.computation + it.communication + it.other)


def test_breakdown_sums_and_tp_unchanged(base):
    res = evaluate(load_workloads(base), base)
    for model, d in res.items():
        for s, it in d.items():
            assert it.total == pytest.approx(it.computation + it.communication + it.other), (model, s)
        assert d["baseline"].tp == pytest.approx(d["scalepool"].tp)          # TP stays on NVLink
        assert d["baseline"].computation == pytest.approx(d["scalepool"].computation)


def test_set_override_and_errors(base):
    cfg, _ = build_config(sets=["cxl.switch_latency_ns=150", "workload.models.gpt3_175b.micro_batch=2"])
    assert cfg.get("cxl.switch_latency_ns") == 150.0
    assert "override" in cfg.source("cxl.switch_latency_ns")
    assert _wl(cfg, "gpt3_175b").micro_batch == 2
    with pytest.raises(ConfigError, match="unknown parameter 'cxl.switch_latncy_ns'"):
        build_config(sets=["cxl.switch_latncy_ns=1"])
    with pytest.raises(ConfigError, match="expected a number"):
        build_config(sets=["cxl.switch_latency_ns=fast"])
    with pytest.raises(ConfigError, match="expected key=value"):
        build_config(sets=["cxl.switch_latency_ns"])
    with pytest.raises(ConfigError, match="tiering.access.pattern: 'gauss' is not one of"):
        run_tiering(build_config(sets=["tiering.access.pattern=gauss"])[0])


def test_config_file_override(tmp_path):
    f = tmp_path / "what.yaml"
    f.write_text("ib:\n  nic_gbps: {value: 100.0, source: 'ConnectX-8 800 Gb/s'}\ncxl:\n  switch_latency_ns: 80\n")
    cfg, _ = build_config(config_file=f)
    assert cfg.get("ib.nic_gbps") == 100.0 and cfg.get("cxl.switch_latency_ns") == 80
    assert "ConnectX-8" in cfg.source("ib.nic_gbps")


def test_measured_latency_hook(tmp_path):
    f = tmp_path / "latency.json"
    f.write_text(json.dumps({"source": "unit test", "clock_mhz": 500.0,
                             "hops": {"cxl.switch_latency_ns": {"p50_cycles": 60, "p99_cycles": 90},
                                      "cxl.bridge_ns": {"p50_ns": 20.0}},
                             "samples_cycles": {"switch": [58, 60, 61, 90]}}))
    cfg, m = build_config(latencies_from=f)
    assert cfg.get("cxl.switch_latency_ns") == pytest.approx(120.0)
    assert cfg.get("cxl.bridge_ns") == pytest.approx(20.0)
    assert "measured on RTL" in cfg.source("cxl.switch_latency_ns") and "p99 180.0" in cfg.source("cxl.switch_latency_ns")
    assert m.samples_ns["switch"][0] == pytest.approx(116.0)
    f.write_text(json.dumps({"clock_mhz": 500.0, "hops": {"cxl.no_such_hop": {"p50_cycles": 1}}}))
    with pytest.raises(ConfigError, match="unknown parameter 'cxl.no_such_hop'"):
        build_config(latencies_from=f)
    f.write_text(json.dumps({"clock_mhz": 0, "hops": {}}))
    with pytest.raises(ConfigError, match="clock_mhz"):
        build_config(latencies_from=f)


# ---- monotonic relations: a parameter moves the result in the physically expected direction ----

def _totals(cfg, system="scalepool"):
    return {k: v[system] for k, v in evaluate(load_workloads(cfg), cfg).items()}


def test_more_inter_rack_bandwidth_less_comm(base):
    lo = _totals(base.with_values({"ib.nic_gbps": 25.0}), "baseline")
    hi = _totals(base.with_values({"ib.nic_gbps": 100.0}), "baseline")
    for k in lo:
        assert hi[k].inter_cluster_comm < lo[k].inter_cluster_comm, k
        assert hi[k].total < lo[k].total, k
    s_lo = speedups(evaluate(load_workloads(base), base.with_values({"topology.cxl_ports_per_gpu": 1})))
    s_hi = speedups(evaluate(load_workloads(base), base.with_values({"topology.cxl_ports_per_gpu": 4})))
    assert all(s_hi[k] > s_lo[k] for k in s_lo)


def test_switch_latency_raises_tier2_latency(base):
    prev = None
    for sw in (50.0, 100.0, 200.0, 400.0):
        cfg = base.with_values({"cxl.switch_latency_ns": sw})
        p = compute_paths(cfg)
        lat = run_tiering(cfg).latency["uniform"]["scalepool"][-1]
        if prev is not None:
            assert p.sp_tier2_read > prev[0] and lat > prev[1]
        prev = (p.sp_tier2_read, lat)
    # the baseline does not use CXL at all
    a = run_tiering(base.with_values({"cxl.switch_latency_ns": 50.0})).latency["uniform"]["baseline"]
    b = run_tiering(base.with_values({"cxl.switch_latency_ns": 400.0})).latency["uniform"]["baseline"]
    assert np.allclose(a, b)


def test_more_gpus_fixed_global_batch(base):
    """Doubling DP at a fixed global batch halves compute per iteration, but the pipeline bubble and
    the DP all-reduce do not shrink: faster iterations, lower per-GPU efficiency."""
    w = _wl(base, "mtnlg_530b")
    small = iteration_time(w, base, "baseline")
    big = iteration_time(dataclasses.replace(w, dp=16, gpus=4480), base, "baseline")
    assert big.computation == pytest.approx(small.computation / 2)
    assert big.total < small.total
    assert big.bubble / big.total > small.bubble / small.total
    assert big.dp_total >= small.dp_total
    assert 2 * big.total > small.total                                  # scaling efficiency below 1


def test_latency_grows_with_working_set(base):
    t = run_tiering(base)
    for pattern, lat in t.latency.items():
        for cfg, y in lat.items():
            assert np.all(np.diff(y) >= -1e-9), (pattern, cfg)
        below = t.ws_bytes <= t.accel_bytes
        assert np.allclose(lat["baseline"][below], compute_paths(base).hbm_local)


def test_random_what_ifs_keep_directions(base):
    """Random parameter pairs: more compute efficiency never slows, longer cables never speed up memory."""
    seed = 20250611
    print(f"seed={seed}")
    rng = np.random.default_rng(seed)
    ws = load_workloads(base)[:2]
    for _ in range(4):
        e1, e2 = sorted(rng.uniform(0.3, 1.0, 2))
        t1 = evaluate(ws, base.with_values({"gpu.compute_efficiency": float(e1)}))
        t2 = evaluate(ws, base.with_values({"gpu.compute_efficiency": float(e2)}))
        for k in t1:
            assert t2[k]["scalepool"].total <= t1[k]["scalepool"].total + 1e-12
        m1, m2 = sorted(rng.uniform(1.0, 100.0, 2))
        p1 = compute_paths(base.with_values({"fabric.inter_rack_cable_m": float(m1)}))
        p2 = compute_paths(base.with_values({"fabric.inter_rack_cable_m": float(m2)}))
        assert p2.sp_tier2_read >= p1.sp_tier2_read and p2.rdma_read >= p1.rdma_read


def test_bench_10k_in_seconds():
    b = bench()
    assert set(b) == {"system.seconds_for_5_models", "system.seconds_10k_accelerators"}
    assert 0 < b["system.seconds_10k_accelerators"] < 5.0
    assert 0 < b["system.seconds_for_5_models"] < 30.0


def test_slower_cxl_switch_lowers_scalepool_speedup(base):
    """Higher CXL switch latency: slower hardware collective steps, so every model's ScalePool speedup
    falls (the offload part is bandwidth-bound and unaffected), and the baseline does not change."""
    ws = load_workloads(base)
    prev = None
    for sw in (50.0, 100.0, 200.0, 400.0):
        res = evaluate(ws, base.with_values({"cxl.switch_latency_ns": sw}))
        sp = speedups(res)
        base_t = {k: v["baseline"].total for k, v in res.items()}
        if prev is not None:
            assert all(sp[k] < prev[0][k] for k in sp), (sw, sp, prev[0])
            assert base_t == pytest.approx(prev[1])
        prev = (sp, base_t)


def test_more_ib_bandwidth_lowers_baseline_dp_time(base):
    ws = load_workloads(base)
    lo = evaluate(ws, base.with_values({"ib.nic_gbps": 25.0}))
    hi = evaluate(ws, base.with_values({"ib.nic_gbps": 100.0}))
    crossing = [w.key for w in ws if placement(w, 72).dp_nodes > 1]
    assert crossing
    for k in crossing:
        assert hi[k]["baseline"].dp_total < lo[k]["baseline"].dp_total, k
        assert hi[k]["scalepool"].total == pytest.approx(lo[k]["scalepool"].total)   # no IB in ScalePool


def test_more_skew_helps_only_coherent_placement(base):
    """Zipf skew up: ScalePool's hot-first tier-1 serves more locally (latency down beyond one
    accelerator); the statically placed baseline does not care."""
    prev = None
    for a in (0.6, 0.8, 0.99, 1.2):
        t = run_tiering(base.with_values({"tiering.access.zipf_alpha": a}))
        beyond = t.ws_bytes > t.accel_bytes
        sp, bl = t.latency["zipf"]["scalepool"][beyond], t.latency["zipf"]["baseline"][beyond]
        if prev is not None:
            assert np.all(sp < prev[0]) and np.allclose(bl, prev[1])
        prev = (sp, bl)


def test_more_tier2_hops_shrink_tier2_advantage(base):
    prev = None
    for h in (1, 2, 3, 5):
        t = run_tiering(base.with_values({"topology.tier2_switch_hops": h}))
        lat = t.latency[t.scored_pattern]
        m = t.ws_bytes > t.cluster_bytes
        ratio = float(np.max(lat["baseline"][m] / lat["scalepool"][m]))
        if prev is not None:
            assert ratio < prev
        prev = ratio


def test_more_hbm_per_gpu_never_raises_latency(base):
    ws = np.geomspace(1e9, 1e15, 40)
    from sim.system.tiering import mean_latency
    from sim.traffic.tiering import load_tiering
    for pattern in ("uniform", "zipf"):
        a = mean_latency(ws, pattern, load_tiering(base), compute_paths(base), base.with_values({"gpu.hbm_capacity_gb": 96.0}))
        b = mean_latency(ws, pattern, load_tiering(base), compute_paths(base), base.with_values({"gpu.hbm_capacity_gb": 288.0}))
        for c in a:
            assert np.all(b[c] <= a[c] + 1e-9) and np.any(b[c] < a[c]), (pattern, c)
