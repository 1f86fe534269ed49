"""Unloaded path latencies built from per-component parameters (no fitted constants).

A link traversal costs the transmitter's serialization of one flit/packet, the receiver's
accumulation of the same flit before CRC/FEC check (store-and-forward at flit granularity),
optional retimers, and flight time. A read is a request one way and a data response back.
All results in ns. Units: 1 GB/s = 1 byte/ns.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from sim.config.build import Config


@dataclass(frozen=True)
class Paths:
    hbm_local: float              # GPU local HBM row-miss read
    ddr5_local: float             # host DDR5 row-miss read (CAL-LOCAL-DRAM analog)
    nvlink_oneway_64b: float      # 64 B payload GPU -> NVSwitch -> GPU
    ualink_oneway_64b: float      # one 640 B DL flit accelerator -> switch -> accelerator
    ualink_switch: float          # switch port-to-port used for UALink
    nvlink_peer_read: float       # non-coherent load from a peer GPU's HBM in the rack
    cxl_oneway_1sw: float         # 64 B CXL transfer through one switch (protocol both ends)
    cxl_direct_read: float        # CXL.mem read, Type-3 DDR5 expander, direct attach
    cxl_direct_adder: float       # cxl_direct_read - ddr5_local
    cxl_1sw_read: float           # same behind one CXL switch
    cxl_ctrl_roundtrip: float     # host + device protocol layers, both directions
    rdma_read: float              # baseline beyond-cluster access (IB RDMA READ, fat tree)
    acc_remote_read: float        # accelerator clusters beyond-cluster: NVLink + bridge + CXL fabric + bridge + NVLink
    sp_tier1_peer_read: float     # ScalePool coherent tier-1 access to a peer (XLink data + CXL.cache check)
    sp_tier2_read: float          # ScalePool tier-2 pool access over the CXL fabric
    cxl_gpu_step: float           # hardware step of a CXL inter-cluster collective (write round trip)
    acc_gpu_step: float           # same for accelerator clusters (through the bridges)

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def _link(ser_ns: float, flight_ns: float, retimers: float = 0.0) -> float:
    return 2.0 * ser_ns + flight_ns + retimers


def compute_paths(cfg: Config) -> Paths:
    s = cfg.system
    fl = s.fabric.flight_ns_per_m
    f_in = fl * s.fabric.intra_rack_cable_m
    f_out = fl * s.fabric.inter_rack_cable_m
    line = s.fabric.line_bytes

    hb, dd = s.hbm, s.ddr5
    hbm = s.fabric.onchip_ns + hb.trp_ns + hb.trcd_ns + hb.tcl_ns + hb.burst_tck * hb.tck_ns
    ddr = dd.controller_ns + dd.trp_ns + dd.trcd_ns + dd.tcl_ns + dd.burst_ns

    # NVLink: request = one header flit, response = header + data flits.
    nv = s.nvlink
    nv_req = _link(nv.flit_bytes / nv.link_gbps, f_in)
    nv_rsp = _link((nv.flit_bytes + line) / nv.link_gbps, f_in)
    nv_sw = nv.switch_ns
    nvlink_oneway = 2 * nv_rsp + nv_sw
    nvlink_peer = (2 * nv_req + nv_sw) + (2 * nv_rsp + nv_sw) + hbm

    ua_sw = s.ualink.switch_ns
    ualink_oneway = 2 * _link(s.ualink.dl_flit_bytes / s.ualink.port_gbps, f_in) + ua_sw

    # CXL: one 256 B flit carries a request or a 64 B line with its header.
    cx = s.cxl
    flit_t = cx.flit_bytes / cx.link_gbps
    rt = cx.retimers_per_link * cx.retimer_ns
    cl_in = _link(flit_t, f_in, rt)
    cl_out = _link(flit_t, f_out, rt)
    sw = cx.switch_latency_ns
    proto = cx.host_protocol_ns + cx.device_protocol_ns

    def fabric_oneway(hops: int) -> float:
        """Leaf-spine path: the first and last links stay in a rack, the rest cross racks."""
        if hops <= 0:
            return cl_in
        return 2 * cl_in + (hops - 1) * cl_out + hops * sw

    cxl_direct = 2 * proto + 2 * fabric_oneway(0) + ddr
    cxl_1sw = 2 * proto + 2 * fabric_oneway(1) + ddr
    cxl_oneway_1sw = proto + fabric_oneway(1)

    ib = s.ib
    rdma = ib.rdma_oneway_ns * ib.rdma_read_factor + 2 * ib.switch_hops * ib.switch_ns + 2 * max(ib.switch_hops - 1, 0) * f_out

    k_ic = s.topology.inter_cluster_switch_hops
    k_t2 = s.topology.tier2_switch_hops
    bridge = cx.bridge_ns
    nv_to_edge_req = 2 * nv_req + nv_sw
    nv_to_edge_rsp = 2 * nv_rsp + nv_sw
    # request: GPU -NVLink-> bridge -CXL-> bridge -NVLink-> GPU; response the same way back.
    acc_remote = (2 * nv_to_edge_req + 2 * bridge + fabric_oneway(k_ic)) + \
                 (2 * nv_to_edge_rsp + 2 * bridge + fabric_oneway(k_ic)) + hbm
    sp_tier1 = nvlink_peer + proto
    sp_tier2 = 2 * proto + 2 * fabric_oneway(k_t2) + ddr
    cxl_step = 2 * proto + 2 * fabric_oneway(k_ic) + hbm
    acc_step = acc_remote
    return Paths(
        hbm_local=hbm, ddr5_local=ddr, nvlink_oneway_64b=nvlink_oneway, ualink_oneway_64b=ualink_oneway,
        ualink_switch=ua_sw, nvlink_peer_read=nvlink_peer, cxl_oneway_1sw=cxl_oneway_1sw,
        cxl_direct_read=cxl_direct, cxl_direct_adder=cxl_direct - ddr, cxl_1sw_read=cxl_1sw,
        cxl_ctrl_roundtrip=2 * proto, rdma_read=rdma, acc_remote_read=acc_remote,
        sp_tier1_peer_read=sp_tier1, sp_tier2_read=sp_tier2, cxl_gpu_step=cxl_step, acc_gpu_step=acc_step,
    )


def cxl_data_efficiency(cfg: Config) -> float:
    """Share of CXL link bandwidth that carries line data (256B flit slots, header share per line)."""
    cx = cfg.system.cxl
    slot_share = cx.data_slots_per_flit * cx.slot_bytes / cx.flit_bytes
    line = cfg.system.fabric.line_bytes
    return slot_share * line / (line + cx.header_bytes_per_line)
