"""Time of one training iteration: per-operation compute on a roofline, hierarchical collectives,
1F1B pipeline, data parallelism, ZeRO, offload; and the three ScalePool systems.

Compute (per layer, per micro-batch, per accelerator; ops from sim.traffic.llm):
  GEMM       t = max(FLOPs / (peak x gemm_efficiency), bytes / (HBM x hbm_efficiency))
  element-wise (norms, residual adds, dropout, activation function, softmax): bytes / achievable HBM
  backward   2 x the forward GEMMs; element-wise and softmax traffic x 2 (read the output gradient
             and the saved input, write the input gradient)
  fused attention: FLOPs at the GEMM rate (causal: half the score blocks), backward 2.5 x forward
  recompute  full: the forward again (its TP collectives too); selective: attention scores,
             softmax, dropout and context again
  fp32 gradient accumulation: 10 B per parameter for every micro-batch after the first
Overlap rules:
  - tensor-parallel collectives and pipeline transfers are on the critical path (exposed);
  - data-parallel gradient reduction overlaps only the backward of the last micro-batch (a layer's
    gradient is final then); ZeRO-1/2's all-gather of updated weights follows the optimizer step;
  - ZeRO-3 weight all-gathers (and gradient reduce-scatters) are prefetched one layer ahead:
    exposed = max(0, collective - that layer's compute) per layer and pass;
  - weight / gradient offload is prefetched one layer ahead the same way (host link full duplex:
    loads and stores overlap); optimizer-state offload (read + write of the states) is exposed,
    after the last backward, with the optimizer step.
Pipeline (1F1B, interleave v): iteration = (m + (p-1)/v) x T_mb of the slowest stage (the last:
its layers plus the logits and loss), + DP exposed + optimizer.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from sim.config.build import Config
from sim.config.schema import Hardware, Workload
from sim.system.collectives import Level, collective, p2p, ring
from sim.system.latency import Paths, compute_paths, cxl_data_efficiency
from sim.system.memory import Footprint, footprint
from sim.traffic.llm import (CAUSAL_SKIP, FLASH_BWD_FACTOR, GRAD_ACC_BYTES, GRAD_BYTES, OPT_BYTES, OPT_STEP_BYTES, R,
                             Gemm, LayerOps, layer_ops, layers_per_stage, logits_gemm, model_flops_per_iteration,
                             recompute_flops_per_iteration, stage_params)

SYSTEMS = ("baseline", "acc_clusters", "scalepool")
INF = float("inf")


@dataclass(frozen=True)
class Placement:
    """Where the groups sit (Megatron rank order: tensor innermost, then pipeline, then data)."""

    tp_per_domain: int
    tp_domains: int
    dp_per_domain: int
    dp_domains: int
    pp_cross: bool               # some pipeline boundary leaves its scale-up domain
    pp_cross_fraction: float
    domains: int


def placement(w: Workload, per_domain: int) -> Placement:
    tp, pp, dp = w.layout.tp, w.layout.pp, w.layout.dp
    d_idx, s_idx, t_idx = np.meshgrid(np.arange(dp), np.arange(pp), np.arange(tp), indexing="ij")
    dom = ((d_idx * pp + s_idx) * tp + t_idx) // per_domain           # shape (dp, pp, tp)

    def spread(groups: np.ndarray) -> int:                             # one group per row
        g = np.sort(groups, axis=1)
        return int((1 + (np.diff(g, axis=1) != 0).sum(axis=1)).max())

    tp_dom = spread(dom.reshape(-1, tp))
    dp_dom = spread(dom.transpose(1, 2, 0).reshape(-1, dp))
    if pp > 1:
        cross = dom[:, 1:, :] != dom[:, :-1, :]
        pp_any, pp_frac = bool(cross.any()), float(cross.any(axis=2).mean())
    else:
        pp_any, pp_frac = False, 0.0
    return Placement(-(-tp // tp_dom), tp_dom, -(-dp // dp_dom), dp_dom, pp_any, pp_frac, int(dom.max()) + 1)


@dataclass(frozen=True)
class Network:
    """What one system gives an accelerator: scale-up level, scale-out level, offload tier."""

    system: str
    up: Level
    out: Level
    offload_bw: float           # bytes/s per accelerator, one direction
    offload_capacity: float     # bytes per accelerator in the offload tier (inf: a pool)
    offload_name: str


def scaleup_level(hw: Hardware) -> Level:
    su = hw.scaleup
    return Level(su.busbw_gbps * 1e9, su.base_us * 1e-6, su.step_us * 1e-6, su.link_gbps * 1e9,
                 su.torus_dims if su.kind == "torus" else 1, su.torus_dim_size)


def scaleout_level(hw: Hardware) -> Level:
    so = hw.scaleout
    bw = so.nic_gbps * so.efficiency * 1e9
    return Level(bw, so.base_us * 1e-6, so.step_us * 1e-6, bw)


def cxl_bandwidth(cfg: Config) -> float:
    """Per-accelerator CXL data bandwidth (bytes/s, one direction)."""
    s = cfg.system
    return s.topology.cxl_ports_per_gpu * s.cxl.link_gbps * cxl_data_efficiency(cfg) * 1e9


def networks(cfg: Config, paths: Paths | None = None) -> dict[str, Network]:
    """baseline: the preset's scale-out network (NCCL over RDMA) and host-memory offload;
    acc_clusters: racks joined by CXL between clusters through rack-edge bridges, host offload;
    scalepool: CXL from the accelerators' own ports (hardware-mediated: no software latency),
    offload to the tier-2 CXL memory pool."""
    hw = cfg.hardware
    paths = paths or compute_paths(cfg)
    up = scaleup_level(hw)
    cxl = cxl_bandwidth(cfg)
    host = hw.offload_bytes_s
    host_cap = hw.host.mem_gb * 1e9
    return {
        "baseline": Network("baseline", up, scaleout_level(hw), host, host_cap, "host memory"),
        "acc_clusters": Network("acc_clusters", up, Level(cxl, 0.0, paths.acc_gpu_step * 1e-9, cxl), host, host_cap,
                                "host memory"),
        "scalepool": Network("scalepool", up, Level(cxl, 0.0, paths.cxl_gpu_step * 1e-9, cxl), cxl, INF,
                             "CXL memory pool"),
    }


def gemm_time(g: Gemm, hw: Hardware) -> float:
    return max(g.flops / hw.gemm_flops, g.bytes / hw.hbm_bytes_s)


@dataclass(frozen=True)
class LayerTime:
    fwd: float
    bwd: float
    recompute: float
    tp_fwd: float
    tp_bwd: float
    tp_recompute: float
    grad_acc: float


def layer_time(w: Workload, ops: LayerOps, hw: Hardware, pl: Placement, net: Network) -> LayerTime:
    hbm = hw.hbm_bytes_s
    proj = sum(gemm_time(g, hw) for g in ops.gemms)
    if ops.fused_attention:
        core_f = max(CAUSAL_SKIP * ops.core_flops / hw.gemm_flops, ops.core_bytes / hbm)
        core_b = max(FLASH_BWD_FACTOR * CAUSAL_SKIP * ops.core_flops / hw.gemm_flops, 2 * ops.core_bytes / hbm)
    else:
        core_gemm = sum(gemm_time(g, hw) for g in ops.core_gemms)
        core_f = core_gemm + ops.core_bytes / hbm
        core_b = 2 * core_gemm + 2 * ops.core_bytes / hbm
    elem = ops.elementwise_bytes / hbm
    fwd = proj + core_f + elem
    bwd = 2 * proj + core_b + 2 * elem
    rc = w.layout.recompute
    recompute = fwd if rc == "full" else (core_f if rc == "selective" and not ops.fused_attention else 0.0)
    tp_one = collective("all_reduce", ops.tp_bytes, pl.tp_per_domain, pl.tp_domains, net.up, net.out) \
        if w.layout.tp > 1 else 0.0
    tp_pass = ops.tp_per_pass * tp_one
    return LayerTime(fwd, bwd, recompute, tp_pass, tp_pass, tp_pass if rc == "full" else 0.0,
                     GRAD_ACC_BYTES * ops.params / hbm)


@dataclass(frozen=True)
class IterationTime:
    model: str
    system: str
    fits: bool
    memory: Footprint
    total: float                 # s per iteration (nan when the layout does not fit)
    computation: float
    communication: float         # tp + pp + dp
    other: float                 # bubble + offload
    tp: float
    pp: float
    dp_total: float
    dp_exposed: float
    bubble: float
    offload_exposed: float
    inter_cluster_comm: float    # PP and DP time that crosses scale-up domains
    tokens_per_s: float
    model_flops: float           # per iteration, all accelerators
    hardware_flops: float        # model + recomputation
    tflops_per_accelerator: float  # hardware FLOPs / s / accelerator (Narayanan's convention)
    mfu: float
    hfu: float
    accelerators: int

    def as_dict(self) -> dict:
        d = asdict(self)
        d["memory"] = self.memory.as_dict()
        return d


def iteration_time(w: Workload, cfg: Config, system: str = "baseline", net: Network | None = None,
                   place: Placement | None = None) -> IterationTime:
    hw = cfg.hardware
    net = net or networks(cfg)[system]
    pl = place or placement(w, hw.accelerator.per_domain)
    l = w.layout
    ops = layer_ops(w)
    lt = layer_time(w, ops, hw, pl, net)
    lps = layers_per_stage(w)
    m, p, v, t = l.microbatches, l.pp, l.interleave, l.tp
    hbm = hw.hbm_bytes_s
    mem = footprint(w, hw, net.offload_capacity)

    # the last stage: its layers plus logits and the loss (fp32 softmax over the vocabulary shard)
    lg = logits_gemm(w)
    loss_bytes = 6.0 * l.micro_batch * w.model.seq * w.model.vocab / t
    logits_f = gemm_time(lg, hw) + loss_bytes / hbm
    logits_b = 2 * gemm_time(lg, hw) + loss_bytes / hbm
    acc_share = (m - 1) / m
    grad_acc = (lps * lt.grad_acc + GRAD_ACC_BYTES * w.model.vocab * w.model.hidden / t / hbm) * acc_share
    compute_mb = lps * (lt.fwd + lt.bwd + lt.recompute) + logits_f + logits_b + grad_acc
    tp_mb = lps * (lt.tp_fwd + lt.tp_bwd + lt.tp_recompute)

    # ZeRO-3: per-layer weight all-gathers (and gradient reduce-scatter) prefetched one layer ahead
    zero3_mb = zero3_total_mb = zero3_bwd = 0.0
    dp_coll = lambda kind, nbytes: collective(kind, nbytes, pl.dp_per_domain, pl.dp_domains, net.up, net.out)
    if l.zero_stage >= 3 and l.dp > 1:
        ag = dp_coll("all_gather", R * ops.params)
        rs = dp_coll("reduce_scatter", GRAD_BYTES * ops.params)
        zero3_total_mb = lps * ((3 if l.recompute == "full" else 2) * ag + rs)
        zero3_bwd = lps * (max(0.0, ag + rs - lt.bwd - lt.tp_bwd)
                           + (max(0.0, ag - lt.recompute - lt.tp_recompute) if l.recompute == "full" else 0.0))
        zero3_mb = zero3_bwd + lps * max(0.0, ag - lt.fwd - lt.tp_fwd)

    # weight / gradient offload, prefetched one layer ahead (loads and stores in opposite directions)
    offload_mb = offload_bwd = 0.0
    if l.offload.weights or l.offload.gradients:
        load = R * ops.params / net.offload_bw if l.offload.weights else 0.0
        store = R * ops.params / net.offload_bw if l.offload.gradients else 0.0
        offload_bwd = lps * (max(0.0, max(load, store) - lt.bwd - lt.tp_bwd)
                             + (max(0.0, load - lt.recompute - lt.tp_recompute) if lt.recompute else 0.0))
        offload_mb = offload_bwd + lps * max(0.0, load - lt.fwd - lt.tp_fwd)

    # pipeline transfers: forward activation and backward gradient per virtual stage
    p2p_mb = 0.0
    if p > 1:
        act = ops.tp_bytes
        if pl.pp_cross:
            one = p2p(act / t, net.out)                                    # scatter: each rank sends 1/t
            if t > 1 and not l.sp:
                one += ring("all_gather", act, pl.tp_per_domain, net.up)  # gather over the scale-up level
        else:
            one = p2p(act / t if l.sp else act, net.up)
        p2p_mb = 2 * v * one

    t_mb = compute_mb + tp_mb + zero3_mb + offload_mb + p2p_mb
    bubble = (p - 1) / v * t_mb

    # data parallelism: gradient reduction overlapped with the last micro-batch's backward
    shard = stage_params(w)
    if l.dp > 1 and l.zero_stage < 3:
        reduce = dp_coll("all_reduce" if l.zero_stage == 0 else "reduce_scatter", GRAD_BYTES * shard)
        gather = dp_coll("all_gather", R * shard) if l.zero_stage in (1, 2) else 0.0
        # wall time of the last backward (recompute, TP and offload / ZeRO-3 stalls included)
        window = lps * (lt.bwd + lt.recompute + lt.tp_bwd + lt.tp_recompute) + offload_bwd + zero3_bwd
        dp_total = reduce + gather
        dp_exposed = max(0.0, reduce - window) + gather
    else:
        dp_total = m * zero3_total_mb
        dp_exposed = 0.0
    local = shard / (l.dp if l.zero_stage >= 1 else 1)
    opt_step = OPT_STEP_BYTES * local / hbm
    opt_offload = 2 * OPT_BYTES * local / net.offload_bw if l.offload.optimizer else 0.0

    pipeline = m * t_mb + bubble
    total = pipeline + dp_exposed + opt_step + opt_offload
    compute = m * compute_mb + opt_step
    tp, pp = m * tp_mb, m * p2p_mb
    dp = dp_exposed + m * zero3_mb
    offload = m * offload_mb + opt_offload
    inter = (pp if pl.pp_cross else 0.0) + (dp_total if pl.dp_domains > 1 else 0.0)
    if not mem.fits:
        total = float("nan")
    n = w.accelerators
    mf = model_flops_per_iteration(w)
    hf = mf + recompute_flops_per_iteration(w)
    peak = hw.peak_flops
    return IterationTime(
        w.key, net.system, mem.fits, mem, total, compute, tp + pp + dp, bubble + offload, tp, pp, dp_total, dp, bubble,
        offload, inter, l.global_batch * w.model.seq / total, mf, hf, hf / total / n / 1e12, mf / (total * n * peak),
        hf / (total * n * peak), n)


def evaluate(workloads, cfg: Config, systems: tuple[str, ...] = SYSTEMS) -> dict[str, dict[str, IterationTime]]:
    """model key -> system -> IterationTime."""
    nets = networks(cfg)
    out: dict[str, dict[str, IterationTime]] = {}
    curves = getattr(cfg, "load_curves", None)     # RTL load curves: CXL-port contention (sim/system/loadcurve.py)
    for w in workloads:
        pl = placement(w, cfg.hardware.accelerator.per_domain)
        if curves is not None:
            from sim.system.loadcurve import loaded_iteration
            out[w.key] = {s: loaded_iteration(w, cfg, s, curves, nets[s], pl)[0] for s in systems}
        else:
            out[w.key] = {s: iteration_time(w, cfg, s, nets[s], pl) for s in systems}
    return out
