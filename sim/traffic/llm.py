"""LLM training workloads: what one transformer layer computes, stores and sends, per micro-batch and
per accelerator, from the model shape and the parallel layout (no hardware here).

Sources of the formulas (see sim/system/README.md for the derivations):
- GEMM FLOPs: 2*M*N*K per matrix product; forward per layer 24*b*s*h^2*(1 + s/(6h)) for a standard
  GPT layer and 2*b*s*h*V for the logits (Narayanan et al. SC'21, eq. 3 and appendix), generalised
  here to grouped-query attention (kv_heads), separate head_dim, any ffn size and gated MLPs
  (SwiGLU: 3 matrices). Backward = 2 x forward FLOPs.
- Activation memory per layer: Korthikanti et al. 2022 (sbh(34 + 5as/h) without parallelism,
  sbh(10 + 24/t + 5as/(ht)) with tensor parallelism, sbh/t(34 + 5as/h) with sequence parallelism,
  34 sbh/t with selective recomputation, 2 sbh with full recomputation), generalised the same way.
- Collective volumes: tensor-parallel 2 all-reduces of s*b*h*r per layer per pass (99-problems,
  targets.md §5); pipeline activation s*b*h*r per boundary (s*b*h/t*r per rank with Megatron's
  scatter/gather or sequence parallelism); DP gradients of the rank's parameters.
All sizes are bytes; activations and weights are 16-bit (r = 2), gradients are accumulated and
reduced in fp32, optimizer states are fp32 master weights + Adam m and v (12 B per parameter).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.config.build import WORKLOAD_YAML, workloads_from
from sim.config.schema import Workload
from sim.config.tree import ParamTree

LLM_YAML = WORKLOAD_YAML
R = 2                      # bytes per 16-bit activation / weight element
GRAD_BYTES = 4             # fp32 gradient accumulation buffer and reduction (Llama 3 §3.3.2; Megatron main_grad)
GRAD16_BYTES = 2           # gradients kept and reduced in the 16-bit parameter type (Megatron-LM 2021 fp16 default)
GRAD16_ACC_BYTES = 6       # per parameter per extra micro-batch, 16-bit: autograd adds the new gradient in place (2+2+2)
OPT_BYTES = 12             # fp32 master weights + Adam m + v (ZeRO §3, llm-configs §8a)
GRAD_ACC_BYTES = 10        # per parameter per extra micro-batch: read bf16 grad (2) + read/write fp32 sum (4 + 4)
OPT_STEP_BYTES = 30        # per parameter: read grad 4 + master/m/v 12, write master/m/v 12 + 16-bit weight 2
FLASH_BWD_FACTOR = 2.5     # fused attention backward recomputes the scores: 2 x forward + 0.5 (FlashAttention)
CAUSAL_SKIP = 0.5          # a fused causal kernel skips the masked half of the score blocks
COLUMN_PARALLEL = ("qkv", "mlp_in")   # GEMMs split by output columns (their input gradient is all-reduced)


@dataclass(frozen=True)
class Gemm:
    """C[m x n] = A[m x k] B[k x n], `batch` times."""

    name: str
    m: float
    n: float
    k: float
    batch: float = 1.0

    @property
    def flops(self) -> float:
        return 2.0 * self.m * self.n * self.k * self.batch

    @property
    def bytes(self) -> float:
        return R * (self.m * self.k + self.k * self.n + self.m * self.n) * self.batch

    def grads(self) -> tuple["Gemm", "Gemm"]:
        """The backward products of C = A B: dA = dC B^T (m x k, inner n) and dB = A^T dC (k x n,
        inner m); each has the forward's FLOPs, with its own output shape."""
        return (Gemm(self.name + ".dgrad", self.m, self.k, self.n, self.batch),
                Gemm(self.name + ".wgrad", self.k, self.n, self.m, self.batch))


@dataclass(frozen=True)
class LayerOps:
    """One transformer layer, one micro-batch, one accelerator (tensor-parallel rank)."""

    gemms: tuple[Gemm, ...]            # projections and MLP, forward
    core_gemms: tuple[Gemm, ...]       # attention scores and context (materialized attention), forward
    core_flops: float                  # attention score + context FLOPs (counted either way)
    core_bytes: float                  # softmax/dropout traffic (materialized) or Q,K,V,O (fused), forward
    fused_attention: bool
    elementwise_bytes: float           # norms, residual adds, dropout, activation function, forward
    tp_bytes: float                    # one tensor-parallel collective (all-reduce, or RS+AG with SP)
    tp_per_pass: int                   # collectives per forward (and per backward) pass
    params: float                      # weights of the layer on this rank
    act_stored: float                  # activation bytes kept for backward (recompute applied)
    act_full: float                    # activation bytes of one layer without recomputation

    @property
    def gemm_flops(self) -> float:
        return sum(g.flops for g in self.gemms)

    @property
    def fwd_flops(self) -> float:
        return self.gemm_flops + self.core_flops


@dataclass(frozen=True)
class IterationTraffic:
    """Per-accelerator traffic volumes of one iteration (bytes per message and message counts); the
    co-simulation samples its request streams from these."""

    tp_allreduce_bytes: float      # one TP collective payload
    tp_allreduces: int             # per micro-batch on one stage
    pp_p2p_bytes: float            # one activation / gradient transfer between stages, per rank
    pp_p2p_per_microbatch: int     # forward activation + backward gradient, per virtual stage (0 without PP)
    dp_allreduce_bytes: float      # gradients reduced per iteration (fp32; x1.5 for ZeRO-3)
    offload_weight_bytes: float    # weight loads from the offload tier per iteration
    offload_grad_bytes: float      # gradient stores to the offload tier per iteration
    offload_optimizer_bytes: float  # optimizer-state read + write per iteration
    flops_fwd_per_microbatch: float  # one forward of the slowest stage, per rank

    @property
    def offload_overlappable_bytes(self) -> float:
        return self.offload_weight_bytes + self.offload_grad_bytes


def grad_bytes(w: Workload) -> int:
    """Bytes per parameter of the gradient buffer and of its data-parallel reduction."""
    return GRAD_BYTES if w.layout.grad_dtype == "fp32" else GRAD16_BYTES


def grad_acc_bytes(w: Workload) -> int:
    """HBM bytes per parameter to add one more micro-batch's gradient into the buffer (none when the
    weight-gradient GEMM accumulates into it directly)."""
    if w.layout.grad_acc_fusion:
        return 0
    return GRAD_ACC_BYTES if w.layout.grad_dtype == "fp32" else GRAD16_ACC_BYTES


def layers_per_stage(w: Workload) -> int:
    """Layers on the most loaded pipeline stage (it sets the pipeline's pace)."""
    return math.ceil(w.model.layers / w.layout.pp)


def kv_heads_per_rank(w: Workload) -> float:
    """K/V heads on one tensor-parallel rank; with fewer K/V heads than ranks they are replicated."""
    return max(w.model.kv_heads / w.layout.tp, 1.0)


def layer_ops(w: Workload) -> LayerOps:
    m, l = w.model, w.layout
    t, b, s, h, d = l.tp, l.micro_batch, m.seq, m.hidden, m.d_head
    tokens = b * s
    a_t = m.heads / t
    kv_t = kv_heads_per_rank(w)
    ffn_t = m.ffn / t
    mlp_in = ffn_t * (2 if m.gated else 1)
    gemms = (
        Gemm("qkv", tokens, (a_t + 2 * kv_t) * d, h),
        Gemm("proj", tokens, h, a_t * d),
        Gemm("mlp_in", tokens, mlp_in, h),
        Gemm("mlp_out", tokens, h, ffn_t),
    )
    core = (Gemm("score", s, s, d, b * a_t), Gemm("context", s, d, s, b * a_t))
    core_flops = sum(g.flops for g in core)
    fused = l.attention == "fused"
    scores = b * a_t * s * s                                   # score elements on this rank
    if fused:
        core_bytes = R * tokens * (2 * a_t + 2 * kv_t) * d     # read Q, K, V, write O
        core_gemms: tuple[Gemm, ...] = ()
    else:
        core_bytes = 2 * R * scores + ((2 * R + 1) * scores if m.dropout else 0.0)   # softmax; dropout + mask
        core_gemms = core
    tok = tokens * h                                           # elements of one hidden-state tensor
    tok_sp = tok / t if l.sp else tok                          # token-wise ops are split by sequence parallelism
    mask = 1.0 if m.dropout else 0.0
    norms = (1 if m.parallel_block else 2) * 2 * R * tok_sp
    residual = ((4 * R + 2 * mask) if m.parallel_block else 2 * (3 * R + mask)) * tok_sp
    act_fn = (3 if m.gated else 2) * R * tokens * ffn_t
    elementwise = norms + residual + act_fn
    tp_per_pass = (1 if m.parallel_block else 2) if t > 1 else 0
    params = h * (a_t + 2 * kv_t) * d + a_t * d * h + (3 if m.gated else 2) * h * ffn_t

    # activation bytes stored per layer (Korthikanti et al. 2022, generalised)
    replicated = (R * tok * (1 if m.parallel_block else 2)          # norm inputs
                  + R * tok * (1 if m.parallel_block else 2)        # qkv and mlp_in inputs
                  + mask * tok * (1 if m.parallel_block else 2))    # residual dropout masks
    if l.sp:
        replicated /= t
    sharded = (R * tokens * (a_t + kv_t) * d                        # Q, K (score backward)
               + R * tokens * kv_t * d                              # V (context backward)
               + R * tokens * a_t * d                               # proj input
               + R * tokens * mlp_in                                # activation-function input
               + R * tokens * ffn_t)                                # mlp_out input
    core_act = 0.0 if fused else (R * scores + ((R + 1) * scores if m.dropout else 0.0))
    act_full = replicated + sharded + core_act
    if l.recompute == "full":
        act_stored = R * tok_sp                                      # the layer input only
    elif l.recompute == "selective":
        act_stored = replicated + sharded
    else:
        act_stored = act_full
    return LayerOps(gemms, core_gemms, core_flops, core_bytes, fused, elementwise, R * tok, tp_per_pass, params,
                    act_stored, act_full)


def logits_gemm(w: Workload) -> Gemm:
    """The output projection on the last stage (vocabulary split over tensor-parallel ranks)."""
    return Gemm("logits", w.layout.micro_batch * w.model.seq, w.model.vocab / w.layout.tp, w.model.hidden)


def stage_params(w: Workload) -> float:
    """Parameters on the most loaded rank: its layers plus the embedding or output projection."""
    return layers_per_stage(w) * layer_ops(w).params + w.model.vocab * w.model.hidden / w.layout.tp


def _layer_fwd_flops_model(w: Workload) -> tuple[float, float]:
    """(matrix, attention-core) forward FLOPs of one layer for one micro-batch, whole model (no
    tensor-parallel replication of K/V heads counted)."""
    m = w.model
    tokens = w.layout.micro_batch * m.seq
    core = 4.0 * w.layout.micro_batch * m.seq * m.seq * m.d_head * m.heads
    return 2.0 * tokens * m.params_per_layer, core


def model_flops_per_iteration(w: Workload) -> float:
    """Model FLOPs of one iteration (PaLM appendix B convention: every matrix product of forward
    and backward, attention scores and context included, no recomputation)."""
    mat, core = _layer_fwd_flops_model(w)
    m = w.model
    logits = 2.0 * w.layout.micro_batch * m.seq * m.hidden * m.vocab
    return 3.0 * ((mat + core) * m.layers + logits) * w.layout.global_batch / w.layout.micro_batch


def recompute_flops_per_iteration(w: Workload) -> float:
    """Extra FLOPs executed by activation recomputation (full: a second forward of every layer;
    selective: of the attention scores and context, unless a fused kernel stores nothing)."""
    mat, core = _layer_fwd_flops_model(w)
    if w.layout.recompute == "full":
        per_layer = mat + core
    elif w.layout.recompute == "selective" and w.layout.attention != "fused":
        per_layer = core
    else:
        per_layer = 0.0
    return per_layer * w.model.layers * w.layout.global_batch / w.layout.micro_batch


def narayanan_flops(w: Workload) -> float:
    """Narayanan et al. SC'21 eq. 3, 96 B s l h^2 (1 + s/6h + V/16lh): hardware FLOPs per iteration
    of a standard GPT with full recomputation (used to check the general count)."""
    m = w.model
    B, s, l, h, V = w.layout.global_batch, m.seq, m.layers, m.hidden, m.vocab
    return 96.0 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))


def iteration_traffic(w: Workload) -> IterationTraffic:
    """Per-rank traffic volumes of one iteration (message sizes and counts)."""
    ops = layer_ops(w)
    l = w.layout
    lps = layers_per_stage(w)
    passes = 3 if l.recompute == "full" else 2
    shard = stage_params(w)
    dp_bytes = shard * grad_bytes(w) * (1.5 if l.zero_stage == 3 else 1.0) if l.dp > 1 else 0.0
    m = l.microbatches
    opt_div = l.dp if l.zero_stage >= 1 else 1
    return IterationTraffic(
        tp_allreduce_bytes=ops.tp_bytes,
        tp_allreduces=ops.tp_per_pass * passes * lps,
        pp_p2p_bytes=ops.tp_bytes / l.tp if l.pp > 1 else 0.0,
        pp_p2p_per_microbatch=2 * l.interleave if l.pp > 1 else 0,
        dp_allreduce_bytes=dp_bytes,
        offload_weight_bytes=(passes * R * shard * m) if l.offload.weights else 0.0,
        offload_grad_bytes=(R * shard * m) if l.offload.gradients else 0.0,
        offload_optimizer_bytes=(2 * OPT_BYTES * shard / opt_div) if l.offload.optimizer else 0.0,
        flops_fwd_per_microbatch=ops.fwd_flops * lps,
    )


def load_workloads(tree: ParamTree, prefix: str = "workload") -> list[Workload]:
    """Checked workloads from the `prefix.models.*` leaves of a parameter tree."""
    return list(workloads_from(tree, prefix))


def load_workload_file(path: Path = LLM_YAML, prefix: str = "workload") -> list[Workload]:
    """Stand-alone loader (no system parameters needed)."""
    tree = ParamTree()
    tree.load_into(Path(path), prefix)
    return load_workloads(tree, prefix)


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
