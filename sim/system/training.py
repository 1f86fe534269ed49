"""Time of one training iteration: per-operation compute on a roofline, hierarchical collectives,
1F1B pipeline, data parallelism, ZeRO, offload; and the three ScalePool systems.

Compute (per layer, per micro-batch, per accelerator; ops from sim.traffic.llm):
  GEMM       t = max(FLOPs / (peak x shape efficiency), bytes / (HBM x hbm_efficiency)); the shape
             efficiency is the measured MAMF fraction scaled by the GEMM's tile and wave quantization
             (sim.system.gemm)
  backward   each GEMM's data-gradient and weight-gradient products with their own shapes;
             element-wise and softmax traffic x 2 (read the output gradient and the saved input,
             write the input gradient)
  element-wise (norms, residual adds, dropout, activation function, softmax): bytes / achievable HBM
  fused attention: FLOPs at the GEMM rate (causal: half the score blocks), backward 2.5 x forward
  recompute  full: the forward again (its TP collectives too); selective: attention scores,
             softmax, dropout and context again
  gradient accumulation: per parameter for every micro-batch after the first, 10 B (fp32 buffer),
             6 B (16-bit, in place), none when the weight-gradient GEMM accumulates into the buffer
Overlap rules:
  - tensor-parallel forward collectives and pipeline transfers are on the critical path; backward
    TP collectives too, unless `tp_overlap` hides them under the column-parallel layers' data- and
    weight-gradient GEMMs (Megatron-LM from 2021-09);
  - data-parallel gradient reduction overlaps the backward of the last micro-batch (`dp_overlap`),
    or starts after it; ZeRO-1/2's all-gather of updated weights follows the optimizer step;
  - ZeRO-3 weight all-gathers (and gradient reduce-scatters) are prefetched one layer ahead;
  - a collective hidden under compute costs max(collective - compute, held/units x collective): it
    holds `scaleup.collective_units` of the `gemm_units` while it runs (hidden_cost);
  - weight / gradient offload is prefetched one layer ahead (copy engines: no compute units held;
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
from sim.system.gemm import gemm_time
from sim.system.latency import Paths, compute_paths, cxl_data_efficiency
from sim.system.memory import Footprint, footprint
from sim.traffic.llm import (CAUSAL_SKIP, COLUMN_PARALLEL, FLASH_BWD_FACTOR, OPT_BYTES, OPT_STEP_BYTES, R, grad_acc_bytes, grad_bytes,
                             LayerOps, layer_ops, layers_per_stage, logits_gemm, model_flops_per_iteration,
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
    proj_b = sum(gemm_time(d, hw) for g in ops.gemms for d in g.grads())
    if ops.fused_attention:
        core_f = max(CAUSAL_SKIP * ops.core_flops / hw.gemm_flops, ops.core_bytes / hbm)
        core_b = max(FLASH_BWD_FACTOR * CAUSAL_SKIP * ops.core_flops / hw.gemm_flops, 2 * ops.core_bytes / hbm)
    else:
        core_f = sum(gemm_time(g, hw) for g in ops.core_gemms) + ops.core_bytes / hbm
        core_b = sum(gemm_time(d, hw) for g in ops.core_gemms for d in g.grads()) + 2 * ops.core_bytes / hbm
    elem = ops.elementwise_bytes / hbm
    fwd = proj + core_f + elem
    bwd = proj_b + core_b + 2 * elem
    rc = w.layout.recompute
    recompute = fwd if rc == "full" else (core_f if rc == "selective" and not ops.fused_attention else 0.0)
    tp_fwd, tp_bwd = tp_layer_time(w, ops, hw, pl, net)
    return LayerTime(fwd, bwd, recompute, tp_fwd, tp_bwd, tp_fwd if rc == "full" else 0.0,
                     grad_acc_bytes(w) * ops.params / hbm)


def hidden_cost(c: float, g: float, hw: Hardware) -> float:
    """Time a collective of c seconds adds when it runs under g seconds of compute: what sticks out,
    or at least the compute it slows by holding `scaleup.collective_units` of the `gemm_units`
    (NCCL: one thread block per channel) while it runs."""
    units, held = hw.accelerator.gemm_units, hw.scaleup.collective_units
    slowed = min(1.0, held / units) if units > 0 else 0.0
    return max(c - g, slowed * c, 0.0)


def tp_layer_time(w: Workload, ops: LayerOps, hw: Hardware, pl: Placement, net: Network) -> tuple[float, float]:
    """Exposed tensor-parallel collective time of one layer's forward and backward (Megatron-LM).

    Forward: one all-reduce (sequence parallel: all-gather before, reduce-scatter after) per
    column/row-parallel pair. Backward: the all-reduce of each column-parallel layer's input gradient;
    with sequence parallelism an all-gather of the row-parallel output gradient, a re-gather of the
    column-parallel input (only its shard is stored) and the reduce-scatter of its input gradient.
    With `tp_overlap` (Megatron-LM's asynchronous tensor-parallel communication, September 2021 on)
    the input-gradient all-reduce / reduce-scatter runs under the layer's weight-gradient GEMM and
    the re-gather under its data-gradient GEMM. While it runs, the collective holds
    `scaleup.collective_units` of the accelerator's `gemm_units` (NCCL runs one thread block per
    channel), so the GEMM advances at r = (units - held) / units: a collective of c seconds under a
    GEMM of g seconds costs max(c - g, (1 - r) c) beyond the GEMM."""
    if w.layout.tp <= 1:
        return 0.0, 0.0
    coll = lambda kind: collective(kind, ops.tp_bytes, pl.tp_per_domain, pl.tp_domains, net.up, net.out)
    ar = coll("all_reduce")
    fwd = ops.tp_per_pass * ar
    sp = w.layout.sp
    ag = coll("all_gather") if sp else 0.0
    if not w.layout.tp_overlap:
        return fwd, ops.tp_per_pass * (ar + ag)
    # column-parallel GEMMs grouped by the collective they share (a parallel block has one)
    cols = [g for g in ops.gemms if g.name in COLUMN_PARALLEL]
    groups = [cols] if ops.tp_per_pass == 1 else [[g] for g in cols]
    under = lambda c, g: hidden_cost(c, g, hw)
    bwd = 0.0
    for grp in groups:
        dgrad = sum(gemm_time(g.grads()[0], hw) for g in grp)
        wgrad = sum(gemm_time(g.grads()[1], hw) for g in grp)
        if sp:
            bwd += ag + under(ag, dgrad) + under(coll("reduce_scatter"), wgrad)
        else:
            bwd += under(ar, wgrad)
    return fwd, bwd


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
    logits_b = sum(gemm_time(d, hw) for d in lg.grads()) + loss_bytes / hbm
    acc_share = (m - 1) / m
    grad_acc = (lps * lt.grad_acc + grad_acc_bytes(w) * w.model.vocab * w.model.hidden / t / hbm) * acc_share
    compute_mb = lps * (lt.fwd + lt.bwd + lt.recompute) + logits_f + logits_b + grad_acc
    tp_mb = lps * (lt.tp_fwd + lt.tp_bwd + lt.tp_recompute)

    # ZeRO-3: per-layer weight all-gathers (and gradient reduce-scatter) prefetched one layer ahead
    zero3_mb = zero3_total_mb = zero3_bwd = 0.0
    dp_coll = lambda kind, nbytes: collective(kind, nbytes, pl.dp_per_domain, pl.dp_domains, net.up, net.out)
    if l.zero_stage >= 3 and l.dp > 1:
        ag = dp_coll("all_gather", R * ops.params)
        rs = dp_coll("reduce_scatter", grad_bytes(w) * ops.params)
        zero3_total_mb = lps * ((3 if l.recompute == "full" else 2) * ag + rs)
        zero3_bwd = lps * (hidden_cost(ag + rs, lt.bwd + lt.tp_bwd, hw)
                           + (hidden_cost(ag, lt.recompute + lt.tp_recompute, hw) if l.recompute == "full" else 0.0))
        zero3_mb = zero3_bwd + lps * hidden_cost(ag, lt.fwd + lt.tp_fwd, hw)

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

    # data parallelism: gradient reduction overlapped with the last micro-batch's backward (dp_overlap)
    shard = stage_params(w)
    if l.dp > 1 and l.zero_stage < 3:
        reduce = dp_coll("all_reduce" if l.zero_stage == 0 else "reduce_scatter", grad_bytes(w) * shard)
        gather = dp_coll("all_gather", R * shard) if l.zero_stage in (1, 2) else 0.0
        # wall time of the last backward (recompute, TP and offload / ZeRO-3 stalls included); none
        # when the reduction starts only after the whole backward
        window = lps * (lt.bwd + lt.recompute + lt.tp_bwd + lt.tp_recompute) + offload_bwd + zero3_bwd \
            if l.dp_overlap else 0.0
        dp_total = reduce + gather
        dp_exposed = hidden_cost(reduce, window, hw) + gather
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
