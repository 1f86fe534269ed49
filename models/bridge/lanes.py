"""Line lanes of the bridge and the sizing of its buffers for line rate (rtl/bridge/README.md).

Lanes. The bridge splits a request into 64 B lines; lane ``line % lanes`` owns a line (issue order,
hazards, its share of the hot-line cache, write buffer, HBM controller and CXL ports), so one line
never crosses lanes. Inside lane L a line's index is ``line // lanes``: its hot-line set is that
index modulo ``sets // lanes`` (the same line-to-set map as one direct-mapped cache of ``sets``
lines indexed by ``line % sets``), its HBM buffer index is that set, and its write-buffer slot is
the index modulo the lane's slots.

Sizing (Little's law: items in flight = rate x time in flight). For a stream of requests of one
size at the full link rate R (bytes/cycle) of the flavour, in the data-carrying direction (read
responses, write requests):
* packets per cycle  p = R / link_bytes(packet)
* lines per cycle    l = p x lines per request
* XLink beats per cycle the core must move: p x beats per packet -> XW beats per transfer;
* lane count: a lane issues one line per cycle -> lanes >= l;
* reorder buffer: a read miss holds its request entry and its line slots for the far-side round
  trip T = far + bridge pipeline -> NROB >= p x T, NLINE >= l x T;
* write buffer: a posted write holds its slot until the write's NDR -> WB_DEPTH >= l x T;
* HBM: every line is one HBM access (a hit's read, a fill, a write update) that holds its
  pseudo-channel's data bus for tBURST cycles -> pseudo-channels per lane >= l / lanes x tBURST,
  and accesses in flight per lane >= l / lanes x the HBM access time.
Every bound is rounded up to a power of two (the RTL's tables index with address bits).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from models.bridge.packets import (LINE_BYTES, NVLINK, UALINK, Packet, XlHeader, XlOp, beats_for,
                                   len_field_for)

# Link rates per direction at the 1 GHz core clock (targets.md "Interconnects": UALink 1.0 100 GB/s
# per x4 port, NVLink 5.0 50 GB/s per link), bytes per cycle.
LINK_RATE = {UALINK: 100.0, NVLINK: 50.0}
FAR_CYCLES = 284     # far-side read latency, CAL-CXL-ASIC in targets.md
REQ_SIZES = (64, 256)


def lane_of(line: int, lanes: int) -> int:
    return line % lanes


def lane_index(line: int, lanes: int) -> int:
    """Index of a line inside its lane."""
    return line // lanes


def lane_set(line: int, sets: int, lanes: int) -> int:
    """Hot-line cache set (= HBM buffer index) of a line inside its lane."""
    return lane_index(line, lanes) % (sets // lanes)


def pow2(x: float) -> int:
    return 1 << max(0, math.ceil(math.log2(max(1.0, x))))


def data_packet(flavor: str, nbytes: int, write: bool) -> Packet:
    """The packet that carries a request's data: the write request, or the read response."""
    op = XlOp.WRITE if write else XlOp.RD_DATA
    lines = tuple(bytes(LINE_BYTES) for _ in range(beats_for(nbytes)))
    return Packet(XlHeader(op, 0, 0, len_field_for(flavor, nbytes), 0), lines)


@dataclass(frozen=True)
class StreamNeed:
    """What one request stream at the full link rate asks of the bridge."""

    flavor: str
    nbytes: int
    pkts_per_cycle: float
    lines_per_cycle: float
    beats_per_cycle: float
    req_in_flight: float       # outstanding requests over the far-side round trip
    lines_in_flight: float     # line slots / posted write lines over the far-side round trip


def stream_need(flavor: str, nbytes: int, far: int = FAR_CYCLES, pipeline: int = 16,
                rate: float | None = None) -> StreamNeed:
    """Demand of a stream of `nbytes` requests at `rate` (default: the flavour's link rate).
    `pipeline`: bridge cycles a miss spends outside the far side (conversion, queues, response)."""
    rate = LINK_RATE[flavor] if rate is None else rate
    pkt = data_packet(flavor, nbytes, write=True)
    p = rate / pkt.link_bytes(flavor)
    nl = -(-nbytes // LINE_BYTES)
    t = far + pipeline
    return StreamNeed(flavor, nbytes, p, p * nl, p * len(pkt.beats(flavor)), p * t, p * nl * t)


@dataclass(frozen=True)
class Sizing:
    """xbridge_core parameters that carry a set of streams at the full link rate."""

    lanes: int
    xw: int
    nrob: int
    nline: int
    wb_depth: int
    npc: int
    hbm_inflight: int
    needs: tuple[StreamNeed, ...]

    def params(self) -> dict[str, int]:
        return {"lanes": self.lanes, "xw": self.xw, "nrob": self.nrob, "nline": self.nline,
                "wb_depth": self.wb_depth, "npc": self.npc, "hbm_inflight": self.hbm_inflight}


def size_for(flavors: tuple[str, ...] = (UALINK, NVLINK), sizes: tuple[int, ...] = REQ_SIZES,
             far: int = FAR_CYCLES, pipeline: int = 16, t_burst: int = 3,
             hbm_access: int = 40) -> Sizing:
    """Smallest power-of-two configuration that carries every (flavour, size) stream at the full
    link rate with a far side of `far` cycles. `hbm_access`: cycles an HBM access is in flight
    (tRCD + tCL + tBURST plus queueing; the bench measures about 24 for an isolated hit)."""
    needs = tuple(stream_need(f, n, far, pipeline) for f in flavors for n in sizes)
    lines = max(n.lines_per_cycle for n in needs)
    lanes = pow2(lines)
    xw = pow2(max(n.beats_per_cycle for n in needs))
    per_lane = lines / lanes
    return Sizing(lanes=lanes, xw=xw,
                  nrob=pow2(max(n.req_in_flight for n in needs)),
                  nline=pow2(max(n.lines_in_flight for n in needs)),
                  wb_depth=pow2(max(n.lines_in_flight for n in needs)),
                  npc=lanes * max(2, pow2(per_lane * t_burst)),
                  hbm_inflight=pow2(per_lane * hbm_access),
                  needs=needs)
