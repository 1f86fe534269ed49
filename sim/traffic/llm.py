"""LLM training traffic per iteration, from each model's published configuration.

Sizes follow the formulas in targets.md §5 (99-problems paper): tensor-parallel volume per layer
per pass 2*s*b*h*r (two all-reduces of s*b*h*r), pipeline activation per boundary s*b*h/t*r,
DP gradient all-reduce of the rank's parameter shard, and ZeRO-Infinity offload volumes
(llm-configs §8b): weights loaded for forward, backward (and recompute), gradients stored once,
optimizer states read and written once.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.system.config import Config, ConfigError
from sim.traffic.schema import CONFIG_DIR, check_known, fail, get_field, load_tree_into

LLM_YAML = CONFIG_DIR / "llm_training.yaml"

MODEL_FIELDS = {
    "display": "str", "params": "num>0", "layers": "int>0", "hidden": "int>0", "seq_len": "int>0",
    "global_batch": "int>0", "micro_batch": "int>0", "tp": "int>0", "pp": "int>0", "dp": "int>0",
    "gpus": "int>0", "zero_stage": "zero", "recompute": "bool", "pipeline_interleave": "int>0",
}
COMMON_FIELDS = {
    "bytes_per_element": "int>0", "offload_weight_bytes_per_param": "int>0",
    "offload_grad_bytes_per_param": "int>0", "offload_optimizer_bytes_per_param": "int>0",
    "tp_syncs_per_layer_pass": "int>0",
}


@dataclass(frozen=True)
class LLMWorkload:
    key: str
    display: str
    params: float
    layers: int
    hidden: int
    seq_len: int
    global_batch: int
    micro_batch: int
    tp: int
    pp: int
    dp: int
    gpus: int
    zero_stage: int
    recompute: bool
    pipeline_interleave: int
    bytes_per_element: int
    offload_weight_bytes_per_param: int
    offload_grad_bytes_per_param: int
    offload_optimizer_bytes_per_param: int
    tp_syncs_per_layer_pass: int

    @property
    def microbatches(self) -> int:
        """Micro-batches per pipeline per iteration (m)."""
        return self.global_batch // (self.dp * self.micro_batch)

    @property
    def layers_per_stage(self) -> int:
        """Layers on the most loaded stage; it sets the pipeline's pace."""
        return math.ceil(self.layers / self.pp)

    @property
    def passes(self) -> int:
        """Forward, backward and (with full recompute) a second forward."""
        return 3 if self.recompute else 2


@dataclass(frozen=True)
class IterationTraffic:
    """Per-GPU traffic of one training iteration (bytes per message and message counts)."""

    tp_allreduce_bytes: float      # one TP all-reduce payload (s*b*h*r)
    tp_allreduces: int             # per micro-batch on one stage
    pp_p2p_bytes: float            # one activation / activation-gradient transfer (s*b*h/t*r)
    pp_p2p_per_microbatch: int     # forward activation + backward gradient (0 without PP)
    dp_allreduce_bytes: float      # gradient shard reduced per iteration (x1.5 for ZeRO-3)
    offload_weight_bytes: float    # weight loads from the offload tier per iteration (overlappable)
    offload_grad_bytes: float      # gradient stores to the offload tier per iteration (overlappable)
    offload_optimizer_bytes: float  # optimizer-state read+write per iteration (on the critical path)
    flops_fwd_per_microbatch: float  # one forward on the slowest stage, per GPU

    @property
    def offload_overlappable_bytes(self) -> float:
        return self.offload_weight_bytes + self.offload_grad_bytes


def load_workloads(cfg: Config, prefix: str = "workload") -> list[LLMWorkload]:
    """Build validated workloads from the `prefix.*` leaves of a resolved config."""
    check_known(cfg, f"{prefix}.common", COMMON_FIELDS)
    common = {k: get_field(cfg, f"{prefix}.common.{k}", kind) for k, kind in COMMON_FIELDS.items()}
    keys = list(dict.fromkeys(k.split(".")[2] for k in cfg.leaves if k.startswith(f"{prefix}.models.")))
    if not keys:
        raise ConfigError(f"{prefix}.models: no models defined")
    out = []
    for key in keys:
        base = f"{prefix}.models.{key}"
        check_known(cfg, base, MODEL_FIELDS)
        vals = {k: get_field(cfg, f"{base}.{k}", kind) for k, kind in MODEL_FIELDS.items()}
        if vals["tp"] * vals["pp"] * vals["dp"] != vals["gpus"]:
            fail(cfg, f"{base}.gpus", f"tp*pp*dp = {vals['tp'] * vals['pp'] * vals['dp']} does not equal gpus = {vals['gpus']}")
        if vals["global_batch"] % (vals["dp"] * vals["micro_batch"]):
            fail(cfg, f"{base}.global_batch",
                 f"{vals['global_batch']} is not a multiple of dp*micro_batch = {vals['dp'] * vals['micro_batch']}")
        if vals["pp"] > vals["layers"]:
            fail(cfg, f"{base}.pp", f"more pipeline stages ({vals['pp']}) than layers ({vals['layers']})")
        if vals["pipeline_interleave"] > 1 and vals["pp"] == 1:
            fail(cfg, f"{base}.pipeline_interleave", "interleaving needs pp > 1")
        out.append(LLMWorkload(key=key, **vals, **common))
    return out


def load_workload_file(path: Path = LLM_YAML, prefix: str = "workload") -> list[LLMWorkload]:
    """Stand-alone loader (no system parameters needed)."""
    cfg = Config()
    load_tree_into(cfg, path, prefix)
    return load_workloads(cfg, prefix)


def iteration_traffic(w: LLMWorkload) -> IterationTraffic:
    s, b, h, r = w.seq_len, w.micro_batch, w.hidden, w.bytes_per_element
    t, p, d = w.tp, w.pp, w.dp
    shard = w.params / (t * p)                       # parameters held by one GPU (before DP sharding)
    stage_params = w.params * w.layers_per_stage / w.layers / t
    tp_msgs = w.tp_syncs_per_layer_pass * w.passes * w.layers_per_stage if t > 1 else 0
    dp_factor = 1.5 if w.zero_stage == 3 else 1.0   # ZeRO §7: 3 Psi vs 2 Psi per iteration
    dp_bytes = shard * r * dp_factor if d > 1 else 0.0
    weight_div = d if w.zero_stage >= 3 else 1
    grad_div = d if w.zero_stage >= 2 else 1
    opt_div = d if w.zero_stage >= 1 else 1
    return IterationTraffic(
        tp_allreduce_bytes=float(s * b * h * r),
        tp_allreduces=tp_msgs,
        pp_p2p_bytes=float(s * b * h / t * r) if p > 1 else 0.0,
        pp_p2p_per_microbatch=2 if p > 1 else 0,
        dp_allreduce_bytes=float(dp_bytes),
        offload_weight_bytes=w.passes * w.offload_weight_bytes_per_param * shard / weight_div,
        offload_grad_bytes=w.offload_grad_bytes_per_param * shard / grad_div,
        offload_optimizer_bytes=w.offload_optimizer_bytes_per_param * shard / opt_div,
        flops_fwd_per_microbatch=2.0 * s * b * stage_params,
    )


MSG_DTYPE = np.dtype([("kind", "U8"), ("cxl_msg", "U8"), ("addr", "u8"), ("bytes", "u4")])


def message_stream(traffic: IterationTraffic, n: int, seed: int, line_bytes: int = 64) -> np.ndarray:
    """Sample `n` 64 B CXL transactions with the iteration's inter-cluster/offload byte mix.

    For the co-simulation: PP/DP traffic becomes M2S RwD writes into a peer's memory, optimizer
    and weight offload become M2S Req reads / RwD writes to the pool. Reproducible from `seed`.
    """
    rng = np.random.default_rng(seed)
    mix = {
        "pp": (traffic.pp_p2p_bytes * traffic.pp_p2p_per_microbatch, "m2s_rwd"),
        "dp": (traffic.dp_allreduce_bytes, "m2s_rwd"),
        "wload": (traffic.offload_weight_bytes, "m2s_req"),
        "gstore": (traffic.offload_grad_bytes, "m2s_rwd"),
        "opt_rd": (traffic.offload_optimizer_bytes / 2, "m2s_req"),
        "opt_wr": (traffic.offload_optimizer_bytes / 2, "m2s_rwd"),
    }
    names = list(mix)
    weights = np.array([mix[k][0] for k in names], dtype=float)
    if weights.sum() <= 0:
        raise ValueError("traffic has no inter-cluster or offload bytes")
    idx = rng.choice(len(names), size=n, p=weights / weights.sum())
    out = np.empty(n, dtype=MSG_DTYPE)
    out["kind"] = np.array(names)[idx]
    out["cxl_msg"] = np.array([mix[k][1] for k in names])[idx]
    # Streams are sequential per class: each class walks its own region line by line.
    base = idx.astype(np.uint64) << np.uint64(40)
    offs = np.empty(n, dtype=np.uint64)
    for k in range(len(names)):          # loop over classes, not packets
        sel = idx == k
        offs[sel] = np.arange(sel.sum(), dtype=np.uint64) * np.uint64(line_bytes)
    out["addr"] = base + offs
    out["bytes"] = line_bytes
    return out
