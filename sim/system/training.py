"""Per-iteration LLM training time on three systems, with the overlap modelled explicitly.

Systems (ScalePool sec. 6):
- baseline: NVL72 racks (NVLink 5 inside), InfiniBand RDMA between racks (NCCL ring latency model),
  weights/optimizer offloaded to the GB200's CPU memory over NVLink-C2C;
- acc_clusters: the same racks joined by CXL between clusters only (through rack-edge bridges),
  offload still to CPU memory;
- scalepool: CXL fabric between clusters from the accelerators' CXL ports, hardware-mediated
  (no NCCL software latency), offload to the tier-2 CXL memory pool.

Time of one iteration on the slowest pipeline (1F1B, m micro-batches, p stages, interleave v):
  stage_mb  = compute_mb + TP all-reduces (exposed, on NVLink) + PP p2p (exposed)
  total     = m*(compute_mb + tp_mb + pp_mb) + bubble + DP exposed + offload exposed
  bubble    = (p-1)/v * stage_mb
  DP exposed = max(0, DP all-reduce - backward of the last micro-batch)  (the only overlap window,
               gradients are final only then)
  weights/grads offload overlaps all compute (prefetch): exposed = max(0, t - compute);
  optimizer offload (read+write of states) sits on the critical path after the last backward.
Breakdown: communication = TP + PP + DP exposed; computation; other = bubble + exposed offload.
Placement is evaluated per GPU with numpy (rank -> rack), so 10^4-GPU layouts cost milliseconds.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from sim.system.config import Config
from sim.system.latency import Paths, compute_paths, cxl_data_efficiency
from sim.traffic.llm import IterationTraffic, LLMWorkload, iteration_traffic

SYSTEMS = ("baseline", "acc_clusters", "scalepool")


@dataclass(frozen=True)
class Placement:
    pp_cross_rack: bool          # some pipeline boundary leaves its rack
    pp_cross_fraction: float     # share of pipeline boundaries that leave their rack
    dp_nodes: int                # most racks spanned by one DP group
    racks: int


@dataclass(frozen=True)
class Fabric:
    """Per-GPU network and offload figures of one system."""

    inter_bw: float        # bytes/s per GPU between racks
    inter_step_s: float    # per ring step latency between racks
    base_s: float          # fixed software latency per collective / p2p between racks
    offload_bw: float      # bytes/s per GPU to the offload tier


@dataclass(frozen=True)
class IterationTime:
    model: str
    system: str
    total: float
    computation: float
    communication: float
    other: float
    tp: float
    pp: float
    dp_total: float
    dp_exposed: float
    bubble: float
    offload_exposed: float
    inter_cluster_comm: float

    def as_dict(self) -> dict:
        return asdict(self)


def placement(w: LLMWorkload, gpus_per_rack: int) -> Placement:
    d_idx, s_idx, t_idx = np.meshgrid(np.arange(w.dp), np.arange(w.pp), np.arange(w.tp), indexing="ij")
    rank = (d_idx * w.pp + s_idx) * w.tp + t_idx           # Megatron order: TP innermost, then PP, DP
    rack = rank // gpus_per_rack                           # shape (dp, pp, tp)
    if w.pp > 1:
        cross = rack[:, 1:, :] != rack[:, :-1, :]
        pp_any, pp_frac = bool(cross.any()), float(cross.any(axis=2).mean())
    else:
        pp_any, pp_frac = False, 0.0
    groups = np.sort(rack.transpose(1, 2, 0).reshape(-1, w.dp), axis=1)   # one row per DP group
    nodes = 1 + (np.diff(groups, axis=1) != 0).sum(axis=1)
    return Placement(pp_any, pp_frac, int(nodes.max()), int(rank.max() // gpus_per_rack + 1))


def fabric(cfg: Config, system: str, paths: Paths) -> Fabric:
    g = cfg.get
    cpu_bw = min(g("cpu_offload.c2c_bidir_gbps") / 2, g("cpu_offload.lpddr_gbps")) / g("gpu.gpus_per_cpu") * 1e9
    cxl_bw = g("topology.cxl_ports_per_gpu") * g("cxl.link_gbps") * cxl_data_efficiency(cfg) * 1e9
    if system == "baseline":
        return Fabric(g("ib.nic_gbps") * g("ib.efficiency") * 1e9, g("nccl.net_step_us") * 1e-6,
                      g("nccl.base_lat_us") * 1e-6, cpu_bw)
    if system == "acc_clusters":
        return Fabric(cxl_bw, paths.acc_gpu_step * 1e-9, 0.0, cpu_bw)
    if system == "scalepool":
        return Fabric(cxl_bw, paths.cxl_gpu_step * 1e-9, 0.0, cxl_bw)
    raise ValueError(f"unknown system {system!r}; one of {SYSTEMS}")


def ring_allreduce(v: float, n: int, n_nodes: int, bw: float, intra_step: float, inter_step: float, base: float) -> float:
    """NCCL ring model (llm-configs §7): base + steps' latency + 2(n-1)/n * V / B."""
    if n <= 1 or v <= 0:
        return 0.0
    nsteps = 2 * (n - 1)
    n_inter = 2 * (n_nodes - 1) if n_nodes > 1 else 0
    return base + (nsteps - n_inter) * intra_step + n_inter * inter_step + 2 * (n - 1) / n * v / bw


def iteration_time(w: LLMWorkload, cfg: Config, system: str, paths: Paths | None = None,
                   traffic: IterationTraffic | None = None, place: Placement | None = None) -> IterationTime:
    g = cfg.get
    paths = paths or compute_paths(cfg)
    tr = traffic or iteration_traffic(w)
    pl = place or placement(w, g("gpu.gpus_per_rack"))
    fab = fabric(cfg, system, paths)

    flops = g("gpu.bf16_dense_tflops") * 1e12 * g("gpu.compute_efficiency")
    nv_bw = g("nvlink.link_gbps") * g("nvlink.links_per_gpu") * g("nvlink.efficiency") * 1e9
    nccl_base = g("nccl.base_lat_us") * 1e-6
    nv_step = g("nccl.nvlink_step_us") * 1e-6

    t_f = tr.flops_fwd_per_microbatch / flops
    t_b = 2 * t_f
    t_rc = t_f if w.recompute else 0.0
    comp_mb = t_f + t_b + t_rc

    tp_one = ring_allreduce(tr.tp_allreduce_bytes, w.tp, 1, nv_bw, nv_step, nv_step, nccl_base)
    tp_mb = tr.tp_allreduces * tp_one
    if tr.pp_p2p_per_microbatch:
        if pl.pp_cross_rack:
            p2p = fab.base_s + fab.inter_step_s + tr.pp_p2p_bytes / fab.inter_bw
        else:
            p2p = nccl_base + nv_step + tr.pp_p2p_bytes / nv_bw
        pp_mb = tr.pp_p2p_per_microbatch * p2p
    else:
        pp_mb = 0.0

    m = w.microbatches
    stage_mb = comp_mb + tp_mb + pp_mb
    compute, tp, pp = m * comp_mb, m * tp_mb, m * pp_mb
    bubble = (w.pp - 1) / w.pipeline_interleave * stage_mb

    inter = pl.dp_nodes > 1
    dp_bw = fab.inter_bw if inter else nv_bw
    dp_base = fab.base_s if inter else nccl_base
    dp_total = ring_allreduce(tr.dp_allreduce_bytes, w.dp, pl.dp_nodes, dp_bw, nv_step, fab.inter_step_s, dp_base)
    dp_exposed = max(0.0, dp_total - (t_b + t_rc))

    wg = tr.offload_overlappable_bytes / fab.offload_bw
    opt = tr.offload_optimizer_bytes / fab.offload_bw
    off_exposed = max(0.0, wg - compute) + opt

    comm = tp + pp + dp_exposed
    other = bubble + off_exposed
    total = compute + comm + other
    inter_comm = (pp if pl.pp_cross_rack else 0.0) + (dp_total if inter else 0.0)
    return IterationTime(w.key, system, total, compute, comm, other, tp, pp, dp_total, dp_exposed, bubble,
                         off_exposed, inter_comm)


def evaluate(workloads: list[LLMWorkload], cfg: Config, systems: tuple[str, ...] = SYSTEMS) -> dict[str, dict[str, IterationTime]]:
    """model key -> system -> IterationTime."""
    paths = compute_paths(cfg)
    out: dict[str, dict[str, IterationTime]] = {}
    for w in workloads:
        tr = iteration_traffic(w)
        pl = placement(w, cfg.get("gpu.gpus_per_rack"))
        out[w.key] = {s: iteration_time(w, cfg, s, paths, tr, pl) for s in systems}
    return out
