"""Memory footprint per accelerator: weights, gradients, optimizer states (per ZeRO stage, or moved
to the offload tier), activations of the micro-batches in flight (with recomputation), buffers.

Per parameter (llm-configs §8a, ZeRO §3): 16-bit weights 2 B, fp32 gradient accumulation 4 B
(Megatron main_grad; Llama 3 §3.3.2), fp32 master weights + Adam m, v 12 B. ZeRO stage 1 shards
the optimizer states over the data-parallel group, stage 2 also the gradients, stage 3 also the
weights (ZeRO §5); ZeRO-3 keeps the gathered weights of the current and the prefetched layer, or at
most `zero3_live_params` parameters (DeepSpeed's stage3_max_live_parameters, default 1e9). Offloading
a state keeps only a two-layer staging buffer of it on the device.
Activations in flight on the first pipeline stage (it holds the most): 1F1B keeps min(m, p)
micro-batches of its layers (Narayanan §2.2.1); the interleaved schedule's warm-up keeps
2(p-1) + (v-1)p + 1 model chunks of L/(p v) layers (Megatron-LM's interleaved schedule), at most
m v. One layer's full activations are the working set of its backward (recomputation included).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from sim.config.schema import Hardware, Workload
from sim.traffic.llm import OPT_BYTES, R, grad_bytes, layer_ops, layers_per_stage, stage_params

GB = 1e9


@dataclass(frozen=True)
class Footprint:
    weights: float
    gradients: float
    optimizer: float
    activations: float
    buffers: float
    offloaded: float           # bytes this accelerator keeps in the offload tier
    capacity: float            # HBM bytes
    offload_capacity: float    # offload-tier bytes available to this accelerator (inf: a pool)

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations + self.buffers

    @property
    def fits(self) -> bool:
        return self.total <= self.capacity and self.offloaded <= self.offload_capacity

    def why_not(self) -> str:
        if self.total > self.capacity:
            return (f"needs {self.total / GB:.1f} GB of {self.capacity / GB:.1f} GB HBM (weights "
                    f"{self.weights / GB:.1f}, gradients {self.gradients / GB:.1f}, optimizer {self.optimizer / GB:.1f}, "
                    f"activations {self.activations / GB:.1f}, buffers {self.buffers / GB:.1f} GB)")
        if self.offloaded > self.offload_capacity:
            return (f"offloads {self.offloaded / GB:.1f} GB but the offload tier holds "
                    f"{self.offload_capacity / GB:.1f} GB per accelerator")
        return "fits"

    def as_dict(self) -> dict:
        return dict(asdict(self), total=self.total, fits=self.fits)


def chunks_in_flight(w: Workload) -> tuple[float, float]:
    """(model chunks in flight on the first stage, layers per chunk)."""
    l = w.layout
    m, p, v = l.microbatches, l.pp, l.interleave
    if p == 1:
        return 1.0, float(w.model.layers)
    if v == 1:
        return float(min(m, p)), float(layers_per_stage(w))
    return float(min(m * v, 2 * (p - 1) + (v - 1) * p + 1)), math.ceil(w.model.layers / (p * v))


def footprint(w: Workload, hw: Hardware, offload_capacity: float | None = None) -> Footprint:
    ops = layer_ops(w)
    l = w.layout
    p = stage_params(w)
    dp = l.dp
    weights = R * p / (dp if l.zero_stage >= 3 else 1)
    gb = grad_bytes(w)
    grads = gb * p / (dp if l.zero_stage >= 2 else 1)
    opt = OPT_BYTES * p / (dp if l.zero_stage >= 1 else 1)
    offloaded = 0.0
    staging = 2 * ops.params                       # two layers staged on the device
    if l.offload.weights:
        offloaded += weights
        weights = R * staging
    if l.offload.gradients:
        offloaded += grads
        grads = gb * staging
    if l.offload.optimizer:
        offloaded += opt
        opt = 0.0
    chunks, layers_per_chunk = chunks_in_flight(w)
    acts = chunks * layers_per_chunk * ops.act_stored + ops.act_full
    logits = l.micro_batch * w.model.seq * w.model.vocab / l.tp * (R + 4)      # bf16 logits + fp32 loss
    gathered = 0.0
    if l.zero_stage >= 3:                          # ZeRO-3: this layer and the prefetched one, or the live-parameter cap
        live = 2 * ops.params
        gathered = R * (min(live, l.zero3_live_params) if l.zero3_live_params > 0 else live)
    cap = hw.host.mem_gb * GB if offload_capacity is None else offload_capacity
    return Footprint(weights, grads, opt, acts, logits + gathered, offloaded, hw.accelerator.hbm_gb * GB, cap)
