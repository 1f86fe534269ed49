"""Typed configuration: hardware preset, ScalePool fabric parameters, LLM workloads, tiering sweep.

Every numeric field declares its domain (`sim.config.domains`); the values come from YAML leaves
that cite a source (`sim.config.tree`). Cross-field rules (tp*pp*dp = accelerators, batch
divisibility, heads divisible by tp, ...) are checked here too, each error naming its key.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Mapping

from sim.config.domains import (BOOL, COUNT, COUNT0, FRACTION, NONNEG, POSITIVE, TEXT, Checked, ConfigError,
                                build, integer, number, one_of, param)

# ----------------------------------------------------------------------------------------- hardware


@dataclass(frozen=True)
class Accelerator(Checked):
    name: str = param(TEXT, doc="preset name")
    peak_tflops: float = param(POSITIVE, unit="TFLOP/s", doc="dense BF16/FP16 tensor peak")
    hbm_gb: float = param(POSITIVE, unit="GB", doc="HBM capacity per accelerator")
    hbm_gbps: float = param(POSITIVE, unit="GB/s", doc="HBM peak bandwidth")
    gemm_efficiency: float = param(FRACTION, doc="achievable fraction of peak on large GEMMs (measured)")
    hbm_efficiency: float = param(FRACTION, doc="achievable fraction of HBM bandwidth (measured)")
    per_domain: int = param(COUNT, unit="accelerators", doc="accelerators per scale-up domain (NVLink node/rack)")
    gemm_units: int = param(COUNT0, 0, unit="tiles", doc="GEMM tiles running at once (SMs x blocks per SM); "
                            "0 = no tile/wave quantization model")
    gemm_tile_m: int = param(COUNT, 256, unit="elements", doc="GEMM thread-block tile rows")
    gemm_tile_n: int = param(COUNT, 128, unit="elements", doc="GEMM thread-block tile columns")
    gemm_ref_m: int = param(COUNT0, 0, unit="elements", doc="output rows of the shape gemm_efficiency was measured "
                            "on (0 = no reference shape)")
    gemm_ref_n: int = param(COUNT0, 0, unit="elements", doc="output columns of that shape")


@dataclass(frozen=True)
class ScaleUp(Checked):
    kind: str = param(one_of("switch", "torus"), doc="switched domain (NVLink) or direct torus (ICI)")
    busbw_gbps: float = param(POSITIVE, unit="GB/s", doc="measured all-reduce bus bandwidth per accelerator")
    link_gbps: float = param(POSITIVE, unit="GB/s", doc="point-to-point bandwidth per accelerator, one direction")
    base_us: float = param(NONNEG, unit="us", doc="fixed latency of one collective")
    step_us: float = param(NONNEG, unit="us", doc="latency of one algorithm step")
    torus_dims: int = param(COUNT, unit="dims", doc="torus dimensions (1 for a switched domain)")
    torus_dim_size: int = param(COUNT, unit="accelerators", doc="accelerators along one torus dimension")
    collective_units: int = param(COUNT0, 0, unit="SMs", doc="compute units a collective on this level occupies "
                                  "while it runs (NCCL: one thread block per channel); 0 = none")


@dataclass(frozen=True)
class ScaleOut(Checked):
    nic_gbps: float = param(POSITIVE, unit="GB/s", doc="scale-out NIC bandwidth per accelerator, one direction")
    efficiency: float = param(FRACTION, doc="achieved fraction of NIC bandwidth (measured)")
    base_us: float = param(NONNEG, unit="us", doc="fixed software latency of one collective")
    step_us: float = param(NONNEG, unit="us", doc="latency of one step between domains")


@dataclass(frozen=True)
class Host(Checked):
    link_gbps: float = param(POSITIVE, unit="GB/s", doc="accelerator-host link per accelerator, one direction")
    mem_gbps: float = param(POSITIVE, unit="GB/s", doc="host memory bandwidth per accelerator")
    mem_gb: float = param(POSITIVE, unit="GB", doc="host memory per accelerator (offload capacity)")


@dataclass(frozen=True)
class Hardware:
    accelerator: Accelerator
    scaleup: ScaleUp
    scaleout: ScaleOut
    host: Host

    @property
    def peak_flops(self) -> float:
        return self.accelerator.peak_tflops * 1e12

    @property
    def gemm_flops(self) -> float:
        return self.peak_flops * self.accelerator.gemm_efficiency

    @property
    def hbm_bytes_s(self) -> float:
        return self.accelerator.hbm_gbps * 1e9 * self.accelerator.hbm_efficiency

    @property
    def offload_bytes_s(self) -> float:
        """Baseline offload tier (host memory) bandwidth per accelerator, one direction."""
        return min(self.host.link_gbps, self.host.mem_gbps) * 1e9


HARDWARE_SECTIONS = {"accelerator": Accelerator, "scaleup": ScaleUp, "scaleout": ScaleOut, "host": Host}

# ------------------------------------------------------------------------------- ScalePool fabric


@dataclass(frozen=True)
class HbmTiming(Checked):
    trp_ns: float = param(POSITIVE, unit="ns")
    trcd_ns: float = param(POSITIVE, unit="ns")
    tcl_ns: float = param(POSITIVE, unit="ns")
    tck_ns: float = param(POSITIVE, unit="ns")
    burst_tck: int = param(COUNT, unit="tCK")


@dataclass(frozen=True)
class Ddr5Timing(Checked):
    trp_ns: float = param(POSITIVE, unit="ns")
    trcd_ns: float = param(POSITIVE, unit="ns")
    tcl_ns: float = param(POSITIVE, unit="ns")
    burst_ns: float = param(POSITIVE, unit="ns")
    controller_ns: float = param(NONNEG, unit="ns")


@dataclass(frozen=True)
class FabricParams(Checked):
    flight_ns_per_m: float = param(POSITIVE, unit="ns/m")
    intra_rack_cable_m: float = param(NONNEG, unit="m")
    inter_rack_cable_m: float = param(NONNEG, unit="m")
    line_bytes: int = param(COUNT, unit="B")
    onchip_ns: float = param(NONNEG, unit="ns")


@dataclass(frozen=True)
class NvLinkParams(Checked):
    link_gbps: float = param(POSITIVE, unit="GB/s")
    links_per_gpu: int = param(COUNT, unit="links")
    flit_bytes: int = param(COUNT, unit="B")
    switch_ns: float = param(NONNEG, unit="ns")


@dataclass(frozen=True)
class IbParams(Checked):
    rdma_oneway_ns: float = param(POSITIVE, unit="ns")
    rdma_read_factor: float = param(number(1.0, text="a number >= 1"), unit="x")
    switch_ns: float = param(NONNEG, unit="ns")
    switch_hops: int = param(COUNT0, unit="hops")


@dataclass(frozen=True)
class CxlParams(Checked):
    link_gbps: float = param(POSITIVE, unit="GB/s")
    flit_bytes: int = param(COUNT, unit="B")
    data_slots_per_flit: int = param(COUNT, unit="slots")
    slot_bytes: int = param(COUNT, unit="B")
    header_bytes_per_line: float = param(NONNEG, unit="B")
    switch_latency_ns: float = param(POSITIVE, unit="ns")
    host_protocol_ns: float = param(NONNEG, unit="ns")
    device_protocol_ns: float = param(NONNEG, unit="ns")
    retimers_per_link: int = param(COUNT0, unit="count")
    retimer_ns: float = param(NONNEG, unit="ns")
    bridge_ns: float = param(NONNEG, unit="ns")
    port_phy_ns: float = param(NONNEG, unit="ns")
    port_link_layer_ns: float = param(NONNEG, unit="ns")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.data_slots_per_flit * self.slot_bytes > self.flit_bytes:
            raise ConfigError(f"cxl.data_slots_per_flit: {self.data_slots_per_flit} x {self.slot_bytes} B slots "
                              f"exceed the {self.flit_bytes} B flit")


@dataclass(frozen=True)
class TopologyParams(Checked):
    inter_cluster_switch_hops: int = param(COUNT, unit="hops")
    tier2_switch_hops: int = param(COUNT, unit="hops")
    cxl_ports_per_gpu: int = param(COUNT, unit="x16 ports")


@dataclass(frozen=True)
class UaLinkParams(Checked):
    port_gbps: float = param(POSITIVE, unit="GB/s")
    dl_flit_bytes: int = param(COUNT, unit="B")
    switch_ns: float = param(NONNEG, unit="ns")


SYSTEM_SECTIONS = {"hbm": HbmTiming, "ddr5": Ddr5Timing, "fabric": FabricParams, "nvlink": NvLinkParams,
                   "ib": IbParams, "cxl": CxlParams, "topology": TopologyParams, "ualink": UaLinkParams}


@dataclass(frozen=True)
class SystemParams:
    hbm: HbmTiming
    ddr5: Ddr5Timing
    fabric: FabricParams
    nvlink: NvLinkParams
    ib: IbParams
    cxl: CxlParams
    topology: TopologyParams
    ualink: UaLinkParams


# -------------------------------------------------------------------------------------- workloads

RECOMPUTE = ("none", "selective", "full")
ATTENTION = ("materialized", "fused")
GRAD_DTYPES = ("fp32", "fp16", "bf16")


@dataclass(frozen=True)
class ModelShape(Checked):
    layers: int = param(COUNT)
    hidden: int = param(COUNT)
    heads: int = param(COUNT)
    kv_heads: int = param(COUNT, doc="key/value heads (= heads: MHA; 1: MQA; else GQA)")
    ffn: int = param(COUNT, doc="feed-forward inner size")
    gated: bool = param(BOOL, doc="gated MLP (SwiGLU: 3 matrices)")
    vocab: int = param(COUNT)
    seq: int = param(COUNT, unit="tokens")
    head_dim: int = param(COUNT0, 0, doc="0 = hidden / heads")
    dropout: bool = param(BOOL, False, doc="dropout after attention probabilities and both residual branches")
    parallel_block: bool = param(BOOL, False, doc="attention and MLP in parallel from one norm (PaLM)")

    def __post_init__(self) -> None:
        super().__post_init__()
        w = self._where + "." if self._where else ""
        if self.head_dim == 0 and self.hidden % self.heads:
            raise ConfigError(f"{w}heads: hidden {self.hidden} is not a multiple of heads {self.heads} (give head_dim)")
        if self.heads % self.kv_heads:
            raise ConfigError(f"{w}kv_heads: heads {self.heads} is not a multiple of kv_heads {self.kv_heads}")

    @property
    def d_head(self) -> int:
        return self.head_dim or self.hidden // self.heads

    @property
    def params_per_layer(self) -> float:
        """Weights of one layer (matrices; biases and norms add < 0.1 %)."""
        h, d = self.hidden, self.d_head
        attn = h * (self.heads + 2 * self.kv_heads) * d + self.heads * d * h
        mlp = (3 if self.gated else 2) * h * self.ffn
        return float(attn + mlp)

    @property
    def params(self) -> float:
        """Layers plus input embedding and (untied) output projection."""
        return self.layers * self.params_per_layer + 2.0 * self.vocab * self.hidden


@dataclass(frozen=True)
class Offload(Checked):
    weights: bool = param(BOOL, False)
    gradients: bool = param(BOOL, False)
    optimizer: bool = param(BOOL, False)

    @property
    def any(self) -> bool:
        return self.weights or self.gradients or self.optimizer


@dataclass(frozen=True)
class Layout(Checked):
    tp: int = param(COUNT)
    pp: int = param(COUNT)
    dp: int = param(COUNT)
    micro_batch: int = param(COUNT, unit="sequences")
    global_batch: int = param(COUNT, unit="sequences")
    recompute: str = param(one_of(*RECOMPUTE))
    zero_stage: int = param(integer(0, 3))
    sp: bool = param(BOOL, False, doc="Megatron sequence parallelism")
    interleave: int = param(COUNT, 1, doc="virtual pipeline stages per device")
    attention: str = param(one_of(*ATTENTION), "materialized", doc="score matrix in HBM, or a fused kernel")
    grad_dtype: str = param(one_of(*GRAD_DTYPES), "fp32", doc="gradient accumulation and data-parallel reduction: "
                            "fp32 main gradients, or the 16-bit parameter type (Megatron-LM 2021 fp16 default)")
    grad_acc_fusion: bool = param(BOOL, False, doc="weight-gradient GEMMs accumulate into the fp32 gradient buffer: no "
                                  "separate accumulation pass (Megatron-LM gradient_accumulation_fusion, February 2022 on)")
    zero3_live_params: float = param(NONNEG, 0.0, unit="parameters", doc="ZeRO-3: gathered parameters kept at once "
                                     "(DeepSpeed stage3_max_live_parameters); 0 = the current and the prefetched layer")
    dp_overlap: bool = param(BOOL, True, doc="data-parallel gradient reduction overlaps the last micro-batch's "
                             "backward (false: starts after the whole backward, Megatron-LM 2021 / DeepSpeed pipeline)")
    tp_overlap: bool = param(BOOL, False, doc="backward tensor-parallel collectives of column-parallel layers overlap "
                             "their weight-gradient GEMMs (Megatron-LM from September 2021)")
    offload: Offload = field(default_factory=Offload)

    @property
    def accelerators(self) -> int:
        return self.tp * self.pp * self.dp

    @property
    def microbatches(self) -> int:
        return self.global_batch // (self.dp * self.micro_batch)


@dataclass(frozen=True)
class Workload:
    key: str
    display: str
    model: ModelShape
    layout: Layout

    @property
    def accelerators(self) -> int:
        return self.layout.accelerators


def check_workload(w: Workload, where: str) -> None:
    """Cross-field rules of a model on a layout, each error naming the offending key."""
    m, l = w.model, w.layout
    if l.global_batch % (l.dp * l.micro_batch):
        raise ConfigError(f"{where}.layout.global_batch: {l.global_batch} is not a multiple of dp x micro_batch "
                          f"= {l.dp * l.micro_batch}")
    if l.pp > m.layers:
        raise ConfigError(f"{where}.layout.pp: more pipeline stages ({l.pp}) than layers ({m.layers})")
    # every model chunk holds a layer, except that the first and the last may hold only the embedding
    # and the output layer (Llama 3 §3.3.2)
    if l.interleave > 1 and (l.pp == 1 or l.pp * l.interleave > m.layers + 2):
        raise ConfigError(f"{where}.layout.interleave: {l.interleave} virtual stages need pp > 1 and at least "
                          f"pp x interleave - 2 = {l.pp * l.interleave - 2} layers (model has {m.layers})")
    if m.heads % l.tp:
        raise ConfigError(f"{where}.layout.tp: heads ({m.heads}) not divisible by tp ({l.tp})")
    if m.ffn % l.tp:
        raise ConfigError(f"{where}.layout.tp: ffn ({m.ffn}) not divisible by tp ({l.tp})")


def build_workload(key: str, display: str, model: Mapping[str, Any], layout: Mapping[str, Any], where: str) -> Workload:
    w = Workload(key, display, build(ModelShape, model, f"{where}.model"), build(Layout, layout, f"{where}.layout"))
    check_workload(w, where)
    return w


# ---------------------------------------------------------------------------------------- tiering

TIERING_PATTERNS = ("uniform", "zipf", "streaming")


@dataclass(frozen=True)
class TieringSweep(Checked):
    min_fraction_of_accelerator: float = param(POSITIVE)
    max_fraction_of_cluster: float = param(POSITIVE)
    points: int = param(integer(3, text="an integer >= 3"))


@dataclass(frozen=True)
class TieringAccess(Checked):
    pattern: str = param(one_of(*TIERING_PATTERNS))
    zipf_alpha: float = param(POSITIVE)
    placement_granule_bytes: int = param(COUNT, unit="B")


@dataclass(frozen=True)
class TieringSpec:
    min_fraction_of_accelerator: float
    max_fraction_of_cluster: float
    points: int
    pattern: str
    zipf_alpha: float
    granule_bytes: int


def build_tiering(values: Mapping[str, Any], where: str = "tiering") -> TieringSpec:
    known = {"sweep", "access"}
    for k in values:
        if k not in known:
            raise ConfigError(f"{where}.{k}: unknown section (allowed: access, sweep)")
    sw = build(TieringSweep, values.get("sweep", {}), f"{where}.sweep")
    ac = build(TieringAccess, values.get("access", {}), f"{where}.access")
    return TieringSpec(sw.min_fraction_of_accelerator, sw.max_fraction_of_cluster, sw.points, ac.pattern,
                       ac.zipf_alpha, ac.placement_granule_bytes)


def section_fields(cls: type) -> list[str]:
    return [f.name for f in fields(cls)]


__all__ = ["ATTENTION", "Accelerator", "GRAD_DTYPES", "CxlParams", "Ddr5Timing", "FabricParams", "HARDWARE_SECTIONS", "Hardware",
           "HbmTiming", "Host", "IbParams", "Layout", "ModelShape", "NvLinkParams", "Offload", "RECOMPUTE",
           "SYSTEM_SECTIONS", "ScaleOut", "ScaleUp", "SystemParams", "TIERING_PATTERNS", "TieringSpec",
           "TopologyParams", "UaLinkParams", "Workload", "build_tiering", "build_workload", "check_workload"]
