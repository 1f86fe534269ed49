"""System model: FLOPs, memory, collectives and iteration time by hand, placement, memory fit and
offload, presets, overrides and domain errors, the RTL-latency hook, monotonic what-ifs, scale."""
from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
import yaml

from sim.config import ConfigError, describe, hardware_names, load_config
from sim.config.build import HARDWARE_SECTIONS, SYSTEM_SECTIONS, WORKLOAD_YAML, base_tree
from sim.config.schema import Layout, ModelShape, Offload, Workload
from sim.system import bench, build_config, speedups
from sim.system.collectives import Level, collective, p2p, ring, torus, tree
from sim.system.gemm import gemm_time, shape_efficiency, wave_efficiency
from sim.system.latency import compute_paths, cxl_data_efficiency
from sim.system.memory import footprint
from sim.system.model import run_system, run_tiering
from sim.system.training import (evaluate, hidden_cost, iteration_time, layer_time, networks, placement,
                                 tp_layer_time)
from sim.traffic.llm import (Gemm, layer_ops, model_flops_per_iteration, narayanan_flops, recompute_flops_per_iteration,
                             stage_params)


@pytest.fixture(scope="module")
def base():
    return build_config()[0]


def _wl(cfg, key):
    return next(w for w in cfg.workloads if w.key == key)


def _gpt(layers=4, h=1024, a=16, s=512, v=51200, **lay) -> Workload:
    model = ModelShape(layers=layers, hidden=h, heads=a, kv_heads=a, ffn=4 * h, gated=False, vocab=v, seq=s, dropout=True)
    kw = dict(tp=1, pp=1, dp=1, micro_batch=1, global_batch=1, recompute="none", zero_stage=0)
    kw.update(lay)
    return Workload("t", "t", model, Layout(**kw))


# ---- inputs ----

def test_every_parameter_cites_a_source_and_has_a_domain():
    keyed = {k for name, cls in {**HARDWARE_SECTIONS, **SYSTEM_SECTIONS}.items() for k, *_ in describe(cls, name + ".")}
    for hw in hardware_names():
        tree = base_tree(hw)
        assert len(tree.leaves) > 60
        for key, leaf in tree.leaves.items():
            assert leaf["source"].strip(), key
            assert key in keyed, f"{key} has no declared domain"
    assert set(hardware_names()) >= {"a100_80gb", "h100_80gb", "gb200", "tpu_v4"}


def test_unknown_preset_and_section():
    with pytest.raises(ConfigError, match="no such preset"):
        load_config("a200")
    with pytest.raises(ConfigError, match=r"unknown parameter 'gpu.compute_efficiency'"):
        build_config(sets=["gpu.compute_efficiency=5"])


@pytest.mark.parametrize("item,match", [
    ("cxl.switch_latency_ns=-50", r"cxl\.switch_latency_ns: expected a positive number \(> 0\), got -50"),
    ("scaleout.nic_gbps=0", r"scaleout\.nic_gbps: expected a positive number"),
    ("scaleout.efficiency=-1", r"scaleout\.efficiency: expected a fraction in \(0, 1\]"),
    ("accelerator.gemm_efficiency=5", r"accelerator\.gemm_efficiency: expected a fraction in \(0, 1\]"),
    ("cxl.switch_latency_ns=.nan", r"cxl\.switch_latency_ns: expected a finite number"),
    ("ib.rdma_oneway_ns=.inf", r"ib\.rdma_oneway_ns: expected a finite number"),
    ("topology.cxl_ports_per_gpu=1.5", r"topology\.cxl_ports_per_gpu: expected an integer >= 1"),
    ("workload.models.gpt3_175b.layout.tp=0", r"gpt3_175b\.layout\.tp: expected an integer >= 1"),
    ("workload.models.gpt3_175b.layout.recompute=half", r"recompute: expected one of none, selective, full"),
    ("workload.models.gpt3_175b.layout.micro_batch=7", r"global_batch: 1536 is not a multiple of dp x micro_batch"),
    ("tiering.sweep.points=2", r"tiering\.sweep\.points: expected an integer >= 3"),
    ("accelerator.gemm_units=-1", r"accelerator\.gemm_units: expected an integer >= 0"),
    ("workload.models.llama3_405b.layout.interleave=9", r"llama3_405b\.layout\.interleave: 9 virtual stages need pp > 1 "
     r"and at least pp x interleave - 2 = 142 layers \(model has 126\)"),
])
def test_out_of_domain_values_are_one_line_errors(item, match):
    with pytest.raises(ConfigError, match=match) as exc:
        build_config(sets=[item])
    assert "\n" not in str(exc.value)


def test_set_override_and_errors(base):
    cfg, _ = build_config(sets=["cxl.switch_latency_ns=150", "workload.models.gpt3_175b.layout.micro_batch=2"])
    assert cfg.system.cxl.switch_latency_ns == 150.0 and cfg.get("cxl.switch_latency_ns") == 150.0
    assert "override" in cfg.source("cxl.switch_latency_ns")
    assert _wl(cfg, "gpt3_175b").layout.micro_batch == 2
    with pytest.raises(ConfigError, match="unknown parameter 'cxl.switch_latncy_ns'"):
        build_config(sets=["cxl.switch_latncy_ns=1"])
    with pytest.raises(ConfigError, match="expected a number"):
        build_config(sets=["cxl.switch_latency_ns=fast"])
    with pytest.raises(ConfigError, match="expected key=value"):
        build_config(sets=["cxl.switch_latency_ns"])
    with pytest.raises(ConfigError, match="tiering.access.pattern: expected one of uniform, zipf, streaming"):
        build_config(sets=["tiering.access.pattern=gauss"])


def test_config_file_override(tmp_path):
    f = tmp_path / "what.yaml"
    f.write_text("scaleout:\n  nic_gbps: {value: 50.0, source: 'ConnectX-7 400 Gb/s'}\ncxl:\n  switch_latency_ns: 80\n")
    cfg, _ = build_config(config_file=f)
    assert cfg.hardware.scaleout.nic_gbps == 50.0 and cfg.system.cxl.switch_latency_ns == 80
    assert "ConnectX-7" in cfg.source("scaleout.nic_gbps")
    f.write_text("cxl:\n  switch_latency_ns: -3\n")
    with pytest.raises(ConfigError, match=r"what.yaml: cxl.switch_latency_ns: expected a positive number"):
        build_config(config_file=f)


def test_measured_latency_hook(tmp_path):
    f = tmp_path / "latency.json"
    f.write_text(json.dumps({"source": "unit test", "clock_mhz": 500.0,
                             "hops": {"cxl.switch_latency_ns": {"p50_cycles": 60, "p99_cycles": 90},
                                      "cxl.bridge_ns": {"p50_ns": 20.0}},
                             "samples_cycles": {"switch": [58, 60, 61, 90]}}))
    cfg, m = build_config(latencies_from=f)
    assert cfg.system.cxl.switch_latency_ns == pytest.approx(120.0)
    assert cfg.system.cxl.bridge_ns == pytest.approx(20.0)
    assert "measured on RTL" in cfg.source("cxl.switch_latency_ns") and "p99 180.0" in cfg.source("cxl.switch_latency_ns")
    assert m.samples_ns["switch"][0] == pytest.approx(116.0)
    f.write_text(json.dumps({"clock_mhz": 500.0, "hops": {"cxl.no_such_hop": {"p50_cycles": 1}}}))
    with pytest.raises(ConfigError, match="unknown parameter 'cxl.no_such_hop'"):
        build_config(latencies_from=f)
    f.write_text(json.dumps({"clock_mhz": 0, "hops": {}}))
    with pytest.raises(ConfigError, match="clock_mhz"):
        build_config(latencies_from=f)


# ---- paths and collectives by hand ----

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


UP = Level(busbw=200e9, base=8e-6, step=3e-6, p2p_bw=240e9)
OUT = Level(busbw=24e9, base=8e-6, step=14e-6, p2p_bw=24e9)


def test_wave_quantization_by_hand():
    """Tile and wave quantization (NVIDIA Matrix Multiplication Background guide §3) by hand."""
    a100 = load_config("a100_80gb", workload_file=None, tiering_file=None, cases_file=None).hardware
    acc = a100.accelerator
    assert (acc.gemm_units, acc.gemm_tile_m, acc.gemm_tile_n) == (108, 256, 128)
    # GPT-3 175B qkv under TP 8: 2048 x 4608 = 8 x 36 = 288 tiles of 256x128 -> 3 waves of 108
    assert wave_efficiency(2048, 4608, 1, 108, 256, 128) == pytest.approx(288 / 324)
    # the guide's example: 109 tiles need two waves; a 257-row output needs two 256-row tiles
    assert wave_efficiency(256, 128, 109, 108, 256, 128) == pytest.approx(109 / 216)
    assert wave_efficiency(257, 128 * 108, 1, 108, 256, 128) == pytest.approx(257 / 512)
    # the better tile orientation is taken: 128 x 27648 is 108 tiles of 128x256 (one full wave) but
    # 216 half-empty tiles of 256x128
    assert wave_efficiency(128, 27648, 1, 108, 256, 128) == pytest.approx(1.0)
    # the MAMF measurement's own shape (1024 x 10240: 320 tiles in 3 waves) scales the measured rate
    ref = 320 / 324
    assert shape_efficiency(acc, 2048, 4608) == pytest.approx(0.869 * (288 / 324) / ref)
    assert shape_efficiency(acc, 6912, 16384) == pytest.approx(0.869 / ref)      # 3456 tiles = 32 full waves
    g = Gemm("qkv", 2048, 4608, 12288)
    assert gemm_time(g, a100) == pytest.approx(g.flops / (312e12 * 0.869 * (288 / 324) / ref))
    # backward products: dA (2048 x 12288, inner 4608) and dB (12288 x 4608, inner 2048), same FLOPs
    dg, wg = g.grads()
    assert (dg.m, dg.n, dg.k, wg.m, wg.n, wg.k) == (2048, 12288, 4608, 12288, 4608, 2048)
    assert dg.flops == wg.flops == g.flops
    assert shape_efficiency(acc, wg.m, wg.n) == pytest.approx(0.869 / ref)         # 48 x 36 = 16 full waves
    # H100: 128x256 tiles on 132 SMs; its MAMF shape 2048 x 2048 is 128 tiles in one wave
    h100 = load_config("h100_80gb", workload_file=None, tiering_file=None, cases_file=None).hardware.accelerator
    assert shape_efficiency(h100, 2048, 2048) == pytest.approx(0.803)
    # without a wave model (gemm_units 0) every shape runs at the measured fraction
    flat = dataclasses.replace(acc, gemm_units=0)
    assert shape_efficiency(flat, 2048, 4608) == shape_efficiency(flat, 100, 100) == 0.869
    # efficiency never exceeds the peak, and more waves of the same tail never help
    assert shape_efficiency(dataclasses.replace(acc, gemm_efficiency=1.0), 6912, 16384) == 1.0
    assert all(wave_efficiency(2048, n, 1, 108, 256, 128) <= 1.0 for n in range(128, 20000, 128))


def test_collectives_by_hand():
    v = 1e9
    assert ring("all_reduce", v, 8, UP) == pytest.approx(8e-6 + 14 * 3e-6 + 2 * 7 / 8 * v / 200e9)
    assert ring("all_gather", v, 8, UP) == pytest.approx(8e-6 + 7 * 3e-6 + 7 / 8 * v / 200e9)
    assert tree("all_reduce", v, 8, UP) == pytest.approx(8e-6 + 2 * 3 * 3e-6 + 2 * 7 / 8 * v / (200e9 * 0.92))
    assert ring("all_reduce", v, 1, UP) == 0.0 and collective("all_reduce", 0.0, 8, 4, UP, OUT) == 0.0
    # 8 ranks in each of 4 domains: hierarchical = RS + AG inside, all-reduce of v/8 across (ring or tree)
    inner = ring("reduce_scatter", v, 8, UP) + ring("all_gather", v, 8, UP)
    across = min(ring("all_reduce", v / 8, 4, OUT), tree("all_reduce", v / 8, 4, OUT))
    flat = 8e-6 + (62 - 6) * 3e-6 + 6 * 14e-6 + 2 * 31 / 32 * v / 24e9
    assert collective("all_reduce", v, 8, 4, UP, OUT) == pytest.approx(min(flat, inner + across))
    assert inner + across < flat                      # the NIC bottleneck is shared by 8 ranks
    assert p2p(1e6, OUT) == pytest.approx(8e-6 + 14e-6 + 1e6 / 24e9)
    # torus: a 256-chip group spans 2 of 3 dimensions (16 per side) and gets 2/3 of the bandwidth
    tor = Level(busbw=270e9, base=5e-6, step=1e-6, p2p_bw=45e9, torus_dims=3, torus_dim_size=16)
    assert torus("all_reduce", v, 256, tor) == pytest.approx(5e-6 + 2 * 2 * 15 * 1e-6 + 2 * 255 / 256 * v / 180e9)
    assert torus("all_reduce", v, 12, tor) > torus("all_reduce", v, 256, tor) / 3   # one dimension: 1/3 bandwidth


def test_placement(base):
    gpt3 = placement(_wl(base, "gpt3_175b"), 72)
    assert gpt3.pp_cross and gpt3.dp_domains == 16 and gpt3.domains == 1536 // 72 + 1
    assert gpt3.tp_domains == 1 and gpt3.tp_per_domain == 8
    palm = placement(_wl(base, "palm_540b"), 72)
    assert not palm.pp_cross and palm.dp_domains == 86 and palm.dp_per_domain == 6   # 6 DP peers per rack


# ---- FLOPs, memory ----

def test_flops_match_narayanan_eq3_and_generalise():
    w = _gpt(layers=96, h=12288, a=96, s=2048, tp=8, pp=12, dp=16, global_batch=1536, recompute="full")
    assert model_flops_per_iteration(w) + recompute_flops_per_iteration(w) == pytest.approx(narayanan_flops(w), rel=1e-12)
    assert recompute_flops_per_iteration(dataclasses.replace(w, layout=dataclasses.replace(w.layout, recompute="none"))) == 0
    # GQA + SwiGLU: per layer 2 T (h (a + 2k) d + a d h + 3 h f) + 4 b s^2 d a, logits 2 T h V; x3 (fwd + bwd)
    m = ModelShape(layers=2, hidden=1024, heads=16, kv_heads=4, ffn=2816, gated=True, vocab=1000, seq=256)
    g = Workload("g", "g", m, Layout(tp=1, pp=1, dp=1, micro_batch=2, global_batch=2, recompute="none", zero_stage=0))
    T, d = 2 * 256, 64
    per_layer = 2 * T * (1024 * (16 + 8) * d + 16 * d * 1024 + 3 * 1024 * 2816) + 4 * 2 * 256 ** 2 * d * 16
    assert model_flops_per_iteration(g) == pytest.approx(3 * (2 * per_layer + 2 * T * 1024 * 1000))
    assert m.params_per_layer == 1024 * 24 * 64 + 16 * 64 * 1024 + 3 * 1024 * 2816


def test_activation_memory_matches_korthikanti():
    s, b, h, a, t = 2048, 1, 12288, 96, 8
    sbh = s * b * h

    def act(**lay):
        return layer_ops(_gpt(h=h, a=a, s=s, **lay))
    assert act(recompute="none").act_stored == pytest.approx(sbh * (34 + 5 * a * s / h))
    assert act(tp=t, recompute="none").act_stored == pytest.approx(sbh * (10 + 24 / t + 5 * a * s / (h * t)))
    assert act(tp=t, sp=True, recompute="none").act_stored == pytest.approx(sbh / t * (34 + 5 * a * s / h))
    assert act(tp=t, sp=True, recompute="selective").act_stored == pytest.approx(34 * sbh / t)
    assert act(tp=t, recompute="full").act_stored == pytest.approx(2 * sbh)


def test_memory_fit_and_offload(base):
    """A 39B GPT on one 8-GPU A100 node does not fit (18 B per parameter of states alone exceed
    80 GB); offloading weights, gradients and optimizer states to host memory does, and the offload
    traffic then costs time. GPT-3 175B would not fit the host's 128 GB per GPU either."""
    a100 = load_config("a100_80gb", workload_file=None, tiering_file=None, cases_file=None)
    w = _gpt(layers=48, h=8192, a=64, s=2048, tp=8, global_batch=8, recompute="full")
    it = iteration_time(w, a100)
    assert not it.fits and math.isnan(it.total) and "needs" in it.memory.why_not()
    off = dataclasses.replace(w, layout=dataclasses.replace(w.layout, offload=Offload(True, True, True)))
    it2 = iteration_time(off, a100)
    assert it2.memory.total < it.memory.total and it2.memory.offloaded > 0
    assert it2.fits and it2.offload_exposed > 0
    big = _gpt(layers=96, h=12288, a=96, s=2048, tp=8, global_batch=8, recompute="full",
               offload=Offload(True, True, True))
    assert "offload tier holds" in iteration_time(big, a100).memory.why_not()
    # ZeRO stages shard the optimizer, then gradients, then weights (16 + 2 B/param accounting)
    w4 = _gpt(layers=8, h=4096, a=32, dp=4, global_batch=4)
    f = [footprint(dataclasses.replace(w4, layout=dataclasses.replace(w4.layout, zero_stage=z)), a100.hardware) for z in range(4)]
    p = stage_params(w4)
    assert (f[0].optimizer, f[1].optimizer) == pytest.approx((12 * p, 3 * p))
    assert (f[1].gradients, f[2].gradients) == pytest.approx((4 * p, p))
    assert (f[2].weights, f[3].weights) == pytest.approx((2 * p, p / 2))


def test_iteration_time_by_hand():
    """One node, no pipeline, no DP: compute + TP + logits + accumulation + optimizer, nothing else."""
    a100 = load_config("a100_80gb", workload_file=None, tiering_file=None, cases_file=None)
    hw = a100.hardware
    w = _gpt(layers=4, h=4096, a=32, s=2048, tp=8, micro_batch=1, global_batch=4, recompute="full")
    it = iteration_time(w, a100)
    ops = layer_ops(w)
    net = networks(a100)["baseline"]
    lt = layer_time(w, ops, hw, placement(w, 8), net)
    # forward GEMMs (M x N output) by hand: 256x128 tiles, waves of 108, relative to the MAMF shape's
    # 320 tiles in 3 waves; qkv 2048x1536: 96 tiles, 1 wave; proj / mlp_out 2048x4096: 256 tiles, 3
    # waves; mlp_in 2048x2048: 128 tiles, 2 waves; scores 4 x 2048x2048: 512 tiles, 5 waves; context
    # 4 x 2048x128: 32 tiles, 1 wave
    ref = 320 / 324
    eff = {"qkv": 96 / 108, "proj": 256 / 324, "mlp_in": 128 / 216, "mlp_out": 256 / 324, "score": 512 / 540,
           "context": 32 / 108}
    gemm = lambda g: max(g.flops / (312e12 * 0.869 * eff[g.name] / ref), g.bytes / (2039e9 * 0.88))
    assert lt.fwd == pytest.approx(sum(gemm(g) for g in ops.gemms + ops.core_gemms)
                                   + (ops.core_bytes + ops.elementwise_bytes) / (2039e9 * 0.88))
    tp_one = min(ring("all_reduce", 2 * 2048 * 4096, 8, net.up), tree("all_reduce", 2 * 2048 * 4096, 8, net.up))
    assert lt.tp_fwd == pytest.approx(2 * tp_one)
    assert it.pp == 0 and it.bubble == 0 and it.dp_total == 0 and it.inter_cluster_comm == 0 and it.offload_exposed == 0
    assert it.tp == pytest.approx(4 * 4 * 3 * lt.tp_fwd)            # 4 micro-batches x 4 layers x 3 passes
    assert it.total == pytest.approx(it.computation + it.communication + it.other)
    assert it.mfu == pytest.approx(model_flops_per_iteration(w) / (it.total * 8 * 312e12))
    assert it.hfu / it.mfu == pytest.approx(1 + recompute_flops_per_iteration(w) / model_flops_per_iteration(w))
    assert it.tokens_per_s == pytest.approx(4 * 2048 / it.total)


def _with(w: Workload, **lay) -> Workload:
    return dataclasses.replace(w, layout=dataclasses.replace(w.layout, **lay))


def test_tensor_parallel_overlap_by_hand():
    """Megatron-LM's backward TP collectives: exposed (2021) or under the weight/data-gradient GEMMs
    of the column-parallel layers (2022 on); sequence parallelism re-gathers the stored input shard."""
    a100 = load_config("a100_80gb", workload_file=None, tiering_file=None, cases_file=None)
    hw, net = a100.hardware, networks(a100)["baseline"]
    w = _gpt(layers=4, h=4096, a=32, s=2048, tp=8, micro_batch=1, global_batch=4, recompute="none")
    pl = placement(w, 8)
    v = 2 * 2048 * 4096
    ar = collective("all_reduce", v, 8, 1, net.up, net.out)
    ag = collective("all_gather", v, 8, 1, net.up, net.out)
    rs = collective("reduce_scatter", v, 8, 1, net.up, net.out)
    ops = layer_ops(w)
    col = [g for g in ops.gemms if g.name in ("qkv", "mlp_in")]
    dgrad = [gemm_time(g.grads()[0], hw) for g in col]
    wgrad = [gemm_time(g.grads()[1], hw) for g in col]
    # a hidden collective sticks out past its GEMM, or slows it by the 24 of 108 SMs NCCL holds
    assert hw.scaleup.collective_units == 24 and hw.accelerator.gemm_units == 108
    under = lambda c, g: max(c - g, 24 / 108 * c)
    assert hidden_cost(1.0, 3.0, hw) == pytest.approx(24 / 108) and hidden_cost(3.0, 1.0, hw) == pytest.approx(2.0)
    assert tp_layer_time(w, ops, hw, pl, net) == pytest.approx((2 * ar, 2 * ar))
    over = _with(w, tp_overlap=True)
    assert tp_layer_time(over, layer_ops(over), hw, pl, net) == pytest.approx(
        (2 * ar, sum(under(ar, t) for t in wgrad)))
    sp = _with(w, sp=True)
    assert tp_layer_time(sp, layer_ops(sp), hw, pl, net) == pytest.approx((2 * ar, 2 * (ar + ag)))
    spo = _with(w, sp=True, tp_overlap=True)
    assert tp_layer_time(spo, layer_ops(spo), hw, pl, net) == pytest.approx(
        (2 * ar, sum(ag + under(ag, d) + under(rs, g) for d, g in zip(dgrad, wgrad))))
    assert ar > wgrad[0] / 10                    # the case is not trivially hidden
    # overlapping never makes an iteration slower
    for lay in ({}, {"sp": True}):
        slow = iteration_time(_with(w, **lay), a100)
        fast = iteration_time(_with(w, tp_overlap=True, **lay), a100)
        assert fast.tp < slow.tp and fast.total < slow.total


def test_gradient_precision_fusion_and_dp_overlap():
    """Gradient buffer type (fp32 main_grad or the 16-bit parameter type), fused accumulation into
    the buffer, and a data-parallel reduction that overlaps the last backward or starts after it."""
    a100 = load_config("a100_80gb", workload_file=None, tiering_file=None, cases_file=None)
    hbm = a100.hardware.hbm_bytes_s
    w = _gpt(layers=8, h=4096, a=32, s=2048, tp=8, pp=2, dp=4, micro_batch=1, global_batch=32, recompute="full")
    net, pl = networks(a100)["baseline"], placement(w, 8)
    p = stage_params(w)
    fp32, fp16 = iteration_time(w, a100), iteration_time(_with(w, grad_dtype="fp16"), a100)
    assert fp16.memory.gradients == pytest.approx(fp32.memory.gradients / 2) == pytest.approx(2 * p)
    red = lambda nbytes: collective("all_reduce", nbytes, pl.dp_per_domain, pl.dp_domains, net.up, net.out)
    assert fp32.dp_total == pytest.approx(red(4 * p)) and fp16.dp_total == pytest.approx(red(2 * p))
    # accumulation pass per extra micro-batch: 10 B/param (fp32 sum), 6 B (16-bit in place), none fused
    ops = layer_ops(w)
    lt = lambda x: layer_time(x, layer_ops(x), a100.hardware, pl, net).grad_acc
    assert lt(w) == pytest.approx(10 * ops.params / hbm)
    assert lt(_with(w, grad_dtype="bf16")) == pytest.approx(6 * ops.params / hbm)
    assert lt(_with(w, grad_acc_fusion=True)) == 0.0
    assert iteration_time(_with(w, grad_acc_fusion=True), a100).computation < fp32.computation
    # without overlap the whole reduction is exposed; with it, at most that
    late = iteration_time(_with(w, dp_overlap=False), a100)
    assert late.dp_exposed == pytest.approx(late.dp_total) == pytest.approx(fp32.dp_total)
    assert fp32.dp_exposed < late.dp_exposed and fp32.total < late.total


def test_activation_memory_matches_korthikanti_figure1():
    """First-stage activation memory of the four models of Korthikanti et al. 2022 (Figure 1, without
    recomputation and with sequence parallelism + selective recomputation; GiB per GPU as transcribed
    in calculon-ai/calculon calculon/llm/validation.py, layouts of its validation/seqsel/fig1), within
    10 % (the model adds one layer's working set)."""
    a100 = load_config("a100_80gb", workload_file=None, tiering_file=None, cases_file=None).hardware
    figure1 = {(48, 6144, 64, 4, 1, 1, 4): (59.25, 9.5625), (96, 12288, 96, 64, 8, 3, 1): (66.84375, 12.3515625),
               (105, 20480, 128, 280, 35, 3, 1): (114.0234375, 23.076171875),
               (128, 25600, 160, 512, 64, 1, 1): (131.25, 26.5625)}
    for (layers, h, a, batch, pp, v, mb), (none, seqsel) in figure1.items():
        w = _gpt(layers=layers, h=h, a=a, s=2048, tp=8, pp=pp, micro_batch=mb, global_batch=batch, interleave=v)
        f0 = footprint(_with(w, recompute="none"), a100)
        f1 = footprint(_with(w, recompute="selective", sp=True), a100)
        assert f0.activations / 2 ** 30 == pytest.approx(none, rel=0.10), (layers, "none")
        assert f1.activations / 2 ** 30 == pytest.approx(seqsel, rel=0.10), (layers, "seqsel")


def test_software_stack_fields_have_domains():
    base = dict(tp=1, pp=1, dp=1, micro_batch=1, global_batch=1, recompute="none", zero_stage=0)
    for bad, match in (({"grad_dtype": "fp8"}, "grad_dtype: expected one of fp32, fp16, bf16"),
                       ({"dp_overlap": 1}, "dp_overlap: expected"), ({"tp_overlap": "yes"}, "tp_overlap: expected"),
                       ({"zero3_live_params": -1.0}, "zero3_live_params: expected a number >= 0")):
        with pytest.raises(ConfigError, match=match):
            Layout(**base, **bad)


def test_zero3_live_parameters_cap():
    a100 = load_config("a100_80gb", workload_file=None, tiering_file=None, cases_file=None).hardware
    w = _gpt(layers=8, h=8192, a=64, dp=8, global_batch=8, zero_stage=3, recompute="full")
    per_layer = layer_ops(w).params
    two = footprint(w, a100)
    capped = footprint(_with(w, zero3_live_params=1e8), a100)
    assert per_layer > 1e8
    assert two.buffers - capped.buffers == pytest.approx(2 * (2 * per_layer - 1e8))


def test_breakdown_sums_and_tp_unchanged(base):
    res = evaluate(base.workloads, base)
    for model, d in res.items():
        for s, it in d.items():
            assert it.fits, (model, s, it.memory.why_not())
            assert it.total == pytest.approx(it.computation + it.tp + it.pp + it.dp_exposed + it.bubble
                                             + it.offload_exposed), (model, s)
            assert 0 < it.mfu <= it.hfu < 1
        assert d["baseline"].tp == pytest.approx(d["scalepool"].tp)          # TP stays on NVLink
        assert d["baseline"].computation == pytest.approx(d["scalepool"].computation)


def test_presets_run_every_model():
    for hw in ("a100_80gb", "h100_80gb", "tpu_v4"):
        cfg = load_config(hw, sets=["workload.models.gpt3_175b.layout.offload.weights=true"])
        res = evaluate(cfg.workloads, cfg, ("baseline",))
        assert len(res) == len(cfg.workloads)
        for k, d in res.items():
            it = d["baseline"]
            assert it.fits == (not math.isnan(it.total)), (hw, k)


def test_sixth_model_runs_everywhere(tmp_path):
    data = yaml.safe_load(WORKLOAD_YAML.read_text())
    data["models"]["gpt3_13b"] = {
        "display": {"value": "GPT-3 13B", "source": "test"},
        "model": {k: {"value": v, "source": "test"} for k, v in dict(
            layers=40, hidden=5120, heads=40, kv_heads=40, ffn=20480, gated=False, vocab=51200, seq=2048).items()},
        "layout": {k: {"value": v, "source": "test"} for k, v in dict(
            tp=8, pp=2, dp=8, micro_batch=1, global_batch=512, recompute="full", zero_stage=1).items()},
    }
    f = tmp_path / "six.yaml"
    f.write_text(yaml.safe_dump(data))
    cfg, _ = build_config(workload_file=f)
    res = run_system(cfg)
    assert len(res.workloads) == 6 and len(speedups(res.training)) == 6


# ---- monotonic relations: a parameter moves the result in the physically expected direction ----

def test_more_scaleout_bandwidth_less_baseline_comm(base):
    lo = evaluate(base.workloads, base.with_values({"scaleout.nic_gbps": 25.0}))
    hi = evaluate(base.workloads, base.with_values({"scaleout.nic_gbps": 100.0}))
    crossing = [w.key for w in base.workloads if placement(w, 72).dp_domains > 1 or placement(w, 72).pp_cross]
    assert crossing
    for k in crossing:
        assert hi[k]["baseline"].inter_cluster_comm < lo[k]["baseline"].inter_cluster_comm, k
        assert hi[k]["baseline"].total < lo[k]["baseline"].total, k
        assert hi[k]["scalepool"].total == pytest.approx(lo[k]["scalepool"].total)   # no IB in ScalePool
    s_lo = speedups(evaluate(base.workloads, base.with_values({"topology.cxl_ports_per_gpu": 1})))
    s_hi = speedups(evaluate(base.workloads, base.with_values({"topology.cxl_ports_per_gpu": 3})))
    assert all(s_hi[k] > s_lo[k] for k in s_lo)


def test_slower_cxl_switch_lowers_scalepool_speedup(base):
    prev = None
    for sw in (50.0, 100.0, 200.0, 400.0):
        res = evaluate(base.workloads, base.with_values({"cxl.switch_latency_ns": sw}))
        sp = speedups(res)
        base_t = {k: v["baseline"].total for k, v in res.items()}
        if prev is not None:
            assert all(sp[k] <= prev[0][k] for k in sp), (sw, sp, prev[0])
            assert base_t == pytest.approx(prev[1])
        prev = (sp, base_t)


def test_more_gpus_fixed_global_batch(base):
    """Doubling DP at a fixed global batch halves compute per iteration, but the pipeline bubble and
    the DP reduction do not shrink: faster iterations, lower per-GPU efficiency."""
    w = _wl(base, "mtnlg_530b")
    small = iteration_time(w, base, "baseline")
    big = iteration_time(dataclasses.replace(w, layout=dataclasses.replace(w.layout, dp=16)), base, "baseline")
    assert big.computation == pytest.approx(small.computation / 2, rel=0.01)
    assert big.total < small.total
    assert big.bubble / big.total > small.bubble / small.total
    assert 2 * big.total > small.total and big.mfu < small.mfu


def test_faster_hardware_never_slower(base):
    seed = 20250611
    print(f"seed={seed}")
    rng = np.random.default_rng(seed)
    for _ in range(4):
        e1, e2 = sorted(rng.uniform(0.4, 1.0, 2))
        for key in ("accelerator.gemm_efficiency", "accelerator.hbm_efficiency"):
            t1 = evaluate(base.workloads[:2], base.with_values({key: float(e1)}))
            t2 = evaluate(base.workloads[:2], base.with_values({key: float(e2)}))
            for k in t1:
                assert t2[k]["scalepool"].total <= t1[k]["scalepool"].total + 1e-12, key
        m1, m2 = sorted(rng.uniform(1.0, 100.0, 2))
        p1 = compute_paths(base.with_values({"fabric.inter_rack_cable_m": float(m1)}))
        p2 = compute_paths(base.with_values({"fabric.inter_rack_cable_m": float(m2)}))
        assert p2.sp_tier2_read >= p1.sp_tier2_read and p2.rdma_read >= p1.rdma_read


def test_switch_latency_raises_tier2_latency(base):
    prev = None
    for sw in (50.0, 100.0, 200.0, 400.0):
        cfg = base.with_values({"cxl.switch_latency_ns": sw})
        p = compute_paths(cfg)
        lat = run_tiering(cfg).latency["uniform"]["scalepool"][-1]
        if prev is not None:
            assert p.sp_tier2_read > prev[0] and lat > prev[1]
        prev = (p.sp_tier2_read, lat)
    a = run_tiering(base.with_values({"cxl.switch_latency_ns": 50.0})).latency["uniform"]["baseline"]
    b = run_tiering(base.with_values({"cxl.switch_latency_ns": 400.0})).latency["uniform"]["baseline"]
    assert np.allclose(a, b)                                        # the baseline does not use CXL


def test_latency_grows_with_working_set(base):
    t = run_tiering(base)
    for pattern, lat in t.latency.items():
        for cfg, y in lat.items():
            assert np.all(np.diff(y) >= -1e-9), (pattern, cfg)
        below = t.ws_bytes <= t.accel_bytes
        assert np.allclose(lat["baseline"][below], compute_paths(base).hbm_local)


def test_more_skew_helps_only_coherent_placement(base):
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


def test_bench_keys_and_timings():
    b = bench()
    assert set(b) == {"system.seconds_for_5_models", "system.seconds_10k_accelerators", "system.seconds_for_validation",
                      "system.validation_mean_abs_error", "system.validation_max_abs_error"}
    assert 0 < b["system.validation_mean_abs_error"] <= b["system.validation_max_abs_error"] < 1
    assert 0 < b["system.seconds_10k_accelerators"] < 5.0 and 0 < b["system.seconds_for_5_models"] < 5.0
