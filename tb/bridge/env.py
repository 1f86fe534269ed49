"""pyuvm environment of the XLink-CXL bridge core (xbridge_core).

* XLink agent: VRAgent driving xl_rx (packets as XW-beat transfers, `last` one-hot on the final
  beat's lane), VRAgent sink on xl_tx with a back-pressure pattern; a packet assembler turns tx
  transfers into packets.
* CXL memory agent (:class:`CxlMemAgent`), one channel set per line lane: accepts M2S Req/RwD, D2H
  Req and D2H Data with a ready pattern, answers each on the lane it came from after a random
  latency (out of order) with S2M DRS/NDR, H2D Data (RdCurr) or H2D Rsp GO_WritePull (ItoMWr, the
  line then comes on D2H Data) from one memory model (the coherence agent of the coherent sub-range
  shares it). Reads see the memory at response time, writes land at response time (MemWr) or when
  the pulled line arrives (ItoMWr): any ordering bug of the bridge shows up as wrong data. Lines in
  ``nxm`` are answered with an error (MemData-NXM or poison; GO-Err or poison
  for coherent lines). Every response carries random values in the fields the bridge ignores
  (rtl/bridge/README.md, "CXL responses": MetaField / MetaValue, LD-ID, DevLoad, DPID, CacheID,
  RSP_PRE), so the scoreboard, which predicts from a model blind to them, checks that they change
  nothing. Optional faults (:class:`Faults`): responses with unknown tags, duplicated DRS, NDR on a read's tag.
* Scoreboard: in-order XLink responses against the functional reference models.bridge.BridgeRef.
* Watchdog (tb.common.watchdog): every accepted XLink request is answered within a bound.
* Checkers: every HBM access's completion time against models.bridge.HbmModel (one per lane), the
  CXL messages' fields and lanes, the per-line debug stream; coverage of opcode x size x hit/miss.
"""
from __future__ import annotations

import hashlib
import heapq
import json
import os
import random
from dataclasses import dataclass, field, replace
from typing import Any

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from pyuvm import uvm_component, uvm_env

from models.bridge import (NVLINK, UALINK, BridgeConfig, BridgeRef, HbmGeom, HbmModel, HbmTiming,
                           Packet, XlHeader, XlOp, XlStatus, len_field_for)
from models.bridge.hbm import REF_IDLE, REF_POSTPONE
from models.bridge.lanes import lane_of
from models.bridge.packets import BEAT_BITS, HDR_USED_BITS, beats_for
from models.cxl.messages import (D2HData, D2HReq, D2HReqOp, H2DData, H2DRsp, H2DRspOp, M2SReq,
                                 M2SReqOp, M2SRwD, M2SRwDOp, MetaValue, S2MDRS, S2MDRSOp, S2MNDR,
                                 S2MNDROp)
from tb.common.checker import CycleChecker
from tb.common.coverage import CoverageCollector
from tb.common.patterns import Pattern
from tb.common.scoreboard import AnalysisImp, InOrderScoreboard
from tb.common.seeds import component_rng, derive_seed, test_seed
from tb.common.signals import SignalPool
from tb.common.vr_agent import Beat, VRAgent, VRBus
from tb.common.watchdog import RequestWatchdog

KIND_NAMES = {0: "memrd", 1: "hit", 2: "fwd", 3: "coh", 4: "wbwr", 5: "wr", 6: "wbwr_hit",
              7: "cohwr"}
MASK96 = (1 << HDR_USED_BITS) - 1
BEAT_MASK = (1 << BEAT_BITS) - 1
GO_STATE_ERR = 0b0100          # GO carries the granted state in RspData (cxl-protocol.md)
META_FIELDS = (0b00, 0b11)     # S2M MetaField: Meta0-State, No-Op (the other two are reserved)


def default_line(line: int) -> bytes:
    """Content of a never-written CXL line: a hash of its address (checkable, not all zero)."""
    h = hashlib.sha256(line.to_bytes(8, "little")).digest()
    return (h * 2)[:64]


@dataclass
class TbConfig:
    """Everything the pytest entry passes to the simulation (env XB_CFG, JSON)."""

    flavor: str = UALINK
    buf_en: int = 1
    sets: int = 16
    wr_alloc: int = 1
    ht_entries: int = 8
    npc: int = 2
    nbank: int = 4
    row_lines: int = 16
    nrob: int = 4
    wb_depth: int = 8
    wq_depth: int = 4
    hbm_inflight: int = 8
    ref_postpone: int = REF_POSTPONE
    ref_idle: int = REF_IDLE
    tag_base: int = 0
    t_refi: int = 0                  # 0: the HBM3 value; larger than a run = refresh off (diagnostic)
    lanes: int = 1                   # line lanes
    xw: int = 1                      # XLink beats per cycle
    nline: int = 0                   # line slots (0: 4 x nrob, the RTL default)
    lq_depth: int = 2
    cw_depth: int = 2
    bridge: BridgeConfig = field(default_factory=BridgeConfig)

    @classmethod
    def from_env(cls) -> "TbConfig":
        d = json.loads(os.environ.get("XB_CFG", "{}"))
        br = BridgeConfig(**d.pop("bridge", {}))
        return cls(bridge=br, **d)

    def to_json(self) -> str:
        d = dict(self.__dict__)
        d["bridge"] = dict(self.bridge.__dict__)
        return json.dumps(d)

    @property
    def line_slots(self) -> int:
        return self.nline or 4 * self.nrob

    def tag_ok(self, tag: int) -> bool:
        """CXL.mem tags of this bridge: TAG_BASE + line slot, or TAG_BASE + 0x8000 + write-buffer slot."""
        loc = (tag - self.tag_base) % (1 << 16)
        return loc < self.line_slots or bool(self.buf_en and 0x8000 <= loc < 0x8000 + self.wb_depth)

    def params(self) -> dict[str, int | str]:
        p = self.bridge.params()
        p.update({"BUF_EN": self.buf_en, "SETS": self.sets, "WR_ALLOC": self.wr_alloc,
                  "HT_ENTRIES": self.ht_entries, "NPC": self.npc, "NBANK": self.nbank,
                  "ROW_LINES": self.row_lines, "NROB": self.nrob, "WB_DEPTH": self.wb_depth,
                  "WQ_DEPTH": self.wq_depth,
                  "HBM_INFLIGHT": self.hbm_inflight, "REF_POSTPONE": self.ref_postpone,
                  "REF_IDLE": self.ref_idle,
                  "TAG_BASE": self.tag_base, "LANES": self.lanes, "XW": self.xw,
                  "NLINE": self.line_slots, "LQ_DEPTH": self.lq_depth, "CW_DEPTH": self.cw_depth})
        p.update(self.timing().params())
        return p

    def timing(self) -> HbmTiming:
        t = HbmTiming.hbm3()
        return replace(t, tREFI=self.t_refi) if self.t_refi else t

    def hbm_geom(self) -> HbmGeom:
        """Geometry of one lane's HBM controller."""
        return HbmGeom(self.npc // self.lanes, self.nbank, self.row_lines)


@dataclass
class Faults:
    """Protocol faults the CXL agent injects (probability per cycle and idle channel, or per
    response). Every injected fault must be dropped and counted by the bridge (stat_proto_err)."""

    stray: float = 0.0      # a DRS / NDR / H2D Data / H2D Rsp with a tag or CQID nobody uses
    dup_drs: float = 0.0    # a DRS answered twice (the copy comes the next cycle)
    ndr_on_rd: float = 0.0  # an NDR carrying the tag of an outstanding read (wrong type)
    poison: float = 0.5     # share of error lines answered with Poison instead of MemData-NXM


# ------------------------------------------------------------------------------------------------
class CxlMemAgent(uvm_component):
    """CXL.mem device + CXL.cache home (for the coherent range) behind one memory model, with one
    channel set per bridge lane; every response goes back on the lane of its request."""

    CH = ("drs", "ndr", "h2d", "rsp")
    READY = {"drs": "s2m_drs_ready", "ndr": "s2m_ndr_ready", "h2d": "h2d_data_ready",
             "rsp": "h2d_rsp_ready"}
    VALID = {"drs": "s2m_drs_valid", "ndr": "s2m_ndr_valid", "h2d": "h2d_data_valid",
             "rsp": "h2d_rsp_valid"}
    HDR = {"drs": "s2m_drs_hdr", "ndr": "s2m_ndr_hdr", "h2d": "h2d_data_hdr", "rsp": "h2d_rsp_hdr"}
    DATA = {"drs": "s2m_drs_data", "h2d": "h2d_data_data"}

    def __init__(self, name: str, parent: Any, cfg: TbConfig, lat: tuple[int, int] = (20, 60),
                 ready: Pattern | None = None, faults: Faults | None = None) -> None:
        super().__init__(name, parent)
        self.cfg = cfg
        self.lat = lat
        self.ready_pat = ready
        self.faults = faults or Faults()
        self.mem: dict[int, bytes] = {}
        self.nxm: set[int] = set()
        self.errors: list[str] = []
        self.counts = {"m2s_req": 0, "m2s_rwd": 0, "d2h_req": 0, "itomwr": 0, "d2h_data": 0}
        self.injected: dict[str, int] = {}     # protocol faults presented, by kind
        self.pulls: dict[int, tuple[int, bool]] = {}   # write-pull UQID -> (line, failed)
        self.req_cycle: dict[int, int] = {}    # tag -> cycle accepted (latency measurement)
        self.rd_lane: dict[int, int] = {}      # outstanding read tag -> lane
        self.far_cycles: list[int] = []
        self.accept_log: list[tuple[int, str, int]] = []
        self.withhold: int | None = None       # answer the n-th MemRd only when released
        self.held: list[tuple[int, tuple[int, int]]] = []
        self.hold_all = False                  # answer every MemRd only when released (bursts)
        # cycles a response waited on the bridge's ready, per channel (DRS fills wait for a full
        # HBM write queue; H2D Rsp for the D2H Data output)
        self.wait_cycles = {ch: 0 for ch in self.CH}
        self.strict_ready = os.environ.get("XB_TOP", "") == ""
        self.inject_on = True                  # quiesce() turns fault injection off before the counts are compared

    def build_phase(self) -> None:
        self.rng = component_rng(self)
        # a stream of its own for the ignored fields, so that drawing them shifts no other choice
        self.ign_rng = component_rng(self, derive_seed(test_seed(), "ignored-fields"))
        if self.ready_pat is None:
            self.ready_pat = Pattern.always()

    def read(self, line: int) -> bytes:
        return self.mem.get(line, default_line(line))

    def release(self) -> None:
        """Deliver the withheld response(s) now."""
        for lane, item in self.held:
            self._push(lane, "drs", 0, item)
        self.held = []
        self.withhold = None
        self.hold_all = False

    def _check_addr(self, kind: str, line: int, lane: int) -> None:
        b = self.cfg.bridge
        lo = b.hpa_base >> 6
        if not lo <= line < lo + (b.win_size >> 6):
            self.errors.append(f"{kind} line {line:#x} outside the translated window")
        if lane_of(line, self.cfg.lanes) != lane:
            self.errors.append(f"{kind} line {line:#x} on lane {lane}, it belongs to lane "
                               f"{lane_of(line, self.cfg.lanes)}")

    def _push(self, lane: int, ch: str, delay: int, item: Any) -> None:
        self.seq += 1
        heapq.heappush(self.pend[lane][ch], (self.cyc + delay, self.seq, item))

    def _inject(self, kind: str) -> None:
        self.injected[kind] = self.injected.get(kind, 0) + 1

    def _ignored(self, ch: str) -> dict[str, int]:
        """Random values, within their encodings, for the fields of a response on channel `ch` that
        the bridge ignores. Fields that mean something for these flows keep their value: S2M
        MemOp (Cmp / MemData / MemData-NXM), DRS TRP (no trailer), H2D Data ChunkValid (whole
        lines)."""
        r = self.ign_rng
        if ch in ("drs", "ndr"):
            return {"metafield": r.choice(META_FIELDS), "metavalue": r.choice(list(MetaValue)),
                    "ldid": r.randrange(16), "devload": r.randrange(4), "dpid": r.randrange(4096)}
        if ch == "h2d":
            return {"cacheid": r.randrange(16), "dpid": r.randrange(4096)}
        return {"rsppre": r.randrange(4), "cacheid": r.randrange(16), "dpid": r.randrange(4096)}

    def _present(self, lane: int, ch: str, item: Any) -> tuple[int, int]:
        """(header, data) of a response item."""
        kind = item[0]
        if ch == "drs":
            _, tag, line = item
            bad = line is not None and line in self.nxm
            poison = bad and self.rng.random() < self.faults.poison
            m = S2MDRS(memop=S2MDRSOp.MEMDATA_NXM if bad and not poison else S2MDRSOp.MEMDATA,
                       tag=tag, poison=int(poison), **self._ignored(ch),
                       data=self.read(line) if line is not None else bytes(64))
            if kind == "ok":
                self.far_cycles.append(self.cyc - self.req_cycle.pop(tag, self.cyc))
                self.rd_lane.pop(tag, None)
            return m.to_canonical(), int.from_bytes(m.data, "little")
        if ch == "ndr":
            _, tag, line, data = item
            if kind == "ok":
                self.mem[line] = data
            return S2MNDR(memop=S2MNDROp.CMP, tag=tag, **self._ignored(ch)).to_canonical(), 0
        if ch == "h2d":
            _, cqid, line = item
            bad = line is not None and line in self.nxm
            poison = bad and self.rng.random() < self.faults.poison
            m = H2DData(cqid=cqid, goerr=int(bad and not poison), poison=int(poison),
                        **self._ignored(ch), data=self.read(line) if line is not None else bytes(64))
            return m.to_canonical(), int.from_bytes(m.data, "little")
        _, cqid, op, rspdata = item
        return H2DRsp(opcode=op, rspdata=rspdata, cqid=cqid, **self._ignored(ch)).to_canonical(), 0

    def _stray(self, ch: str) -> tuple:
        """A response nobody asked for: a tag / CQID outside every range the bridge uses."""
        tb = self.cfg.tag_base
        if ch == "drs":
            return ("stray", (tb + 0x7000 + self.rng.randrange(0x800)) & 0xFFFF, None)
        if ch == "ndr":
            return ("stray", (tb + 0x7800 + self.rng.randrange(0x800)) & 0xFFFF, None, bytes(64))
        if ch == "h2d":
            return ("stray", 0xFFF - self.rng.randrange(16), None)
        return ("stray", 0xFFF - self.rng.randrange(16), H2DRspOp.GO_WRITEPULL, 0)

    async def run_phase(self) -> None:
        dut = cocotb.top
        nl = self.cfg.lanes
        for s in ("m2s_req_ready", "m2s_rwd_ready", "d2h_req_ready", "d2h_data_ready",
                  "s2m_drs_valid", "s2m_ndr_valid", "h2d_data_valid", "h2d_rsp_valid"):
            getattr(dut, s).value = 0
        self.cyc = 0
        self.seq = 0
        self.pend = [{ch: [] for ch in self.CH} for _ in range(nl)]
        self.cur: list[dict[str, Any]] = [{ch: None for ch in self.CH} for _ in range(nl)]
        cur = self.cur
        # the core always takes NDR and H2D Data; DRS may wait for the HBM write queue and H2D
        # Rsp for the D2H Data output
        strict = {"ndr", "h2d"}
        n_rd = 0
        f = self.faults
        while True:
            await FallingEdge(dut.clk)
            self.cyc += 1
            rdy = {k: 0 for k in ("m2s_req_ready", "m2s_rwd_ready", "d2h_req_ready", "d2h_data_ready")}
            for ln in range(nl):
                for k in rdy:
                    rdy[k] |= int(self.ready_pat.next()) << ln
            for k, v in rdy.items():
                getattr(dut, k).value = v
            vals = {ch: 0 for ch in self.CH}
            hdrs = {ch: 0 for ch in self.CH}
            datas = {ch: 0 for ch in self.DATA}
            for ln in range(nl):
                for ch in self.CH:
                    q = self.pend[ln][ch]
                    item = None
                    if cur[ln][ch] is None and q and q[0][0] <= self.cyc:
                        item = heapq.heappop(q)[2]
                    elif cur[ln][ch] is None and self.inject_on and f.stray and self.rng.random() < f.stray:
                        item = self._stray(ch)
                        self._inject(f"stray_{ch}")
                    elif (cur[ln][ch] is None and ch == "ndr" and self.inject_on and f.ndr_on_rd and self.rd_lane
                          and self.rng.random() < f.ndr_on_rd):
                        item = ("stray", self.rng.choice(sorted(self.rd_lane)), None, bytes(64))
                        self._inject("ndr_on_rd")
                    if item is not None:
                        cur[ln][ch] = [item, *self._present(ln, ch, item)]   # stays until taken
                    it = cur[ln][ch]
                    if it is not None:
                        vals[ch] |= 1 << ln
                        hdrs[ch] |= it[1] << (128 * ln)
                        if ch in datas:
                            datas[ch] |= it[2] << (512 * ln)
            for ch in self.CH:
                getattr(dut, self.VALID[ch]).value = vals[ch]
                getattr(dut, self.HDR[ch]).value = hdrs[ch]
                if ch in datas:
                    getattr(dut, self.DATA[ch]).value = datas[ch]
            await ReadOnly()
            if int(dut.rst.value):
                continue
            for ch in self.CH:
                rv = int(getattr(dut, self.READY[ch]).value)
                for ln in range(nl):
                    it = cur[ln][ch]
                    if it is None:
                        continue
                    if rv >> ln & 1:
                        cur[ln][ch] = None
                        item = it[0]
                        if (ch == "drs" and item[0] == "ok" and self.inject_on and f.dup_drs
                                and self.rng.random() < f.dup_drs):
                            self._push(ln, ch, 0, ("stray", item[1], item[2]))
                            self._inject("dup_drs")
                    else:
                        self.wait_cycles[ch] += 1
                        if self.strict_ready and ch in strict:
                            self.errors.append(f"bridge not ready for {ch} lane {ln} (the core must always accept)")
            lat = self.rng.randint(*self.lat)
            m2s_req_v = int(dut.m2s_req_valid.value)
            m2s_rwd_v = int(dut.m2s_rwd_valid.value)
            d2h_req_v = int(dut.d2h_req_valid.value)
            d2h_dat_v = int(dut.d2h_data_valid.value)
            req_hdr = int(dut.m2s_req_hdr.value) if m2s_req_v else 0
            rwd_hdr = int(dut.m2s_rwd_hdr.value) if m2s_rwd_v else 0
            rwd_dat = int(dut.m2s_rwd_data.value) if m2s_rwd_v else 0
            d2h_hdr = int(dut.d2h_req_hdr.value) if d2h_req_v else 0
            dd_hdr = int(dut.d2h_data_hdr.value) if d2h_dat_v else 0
            dd_dat = int(dut.d2h_data_data.value) if d2h_dat_v else 0
            for ln in range(nl):
                if m2s_req_v >> ln & 1 and rdy["m2s_req_ready"] >> ln & 1:
                    r = M2SReq.from_canonical(req_hdr >> (128 * ln) & ((1 << 128) - 1))
                    self.counts["m2s_req"] += 1
                    if r.memop != M2SReqOp.MEMRD or r.metafield != 0b11 or r.snptype != 0:
                        self.errors.append(f"unexpected M2S Req fields {r}")
                    self._check_addr("MemRd", r.addr, ln)
                    if not self.cfg.tag_ok(r.tag) or r.tag in self.req_cycle:
                        self.errors.append(f"MemRd tag {r.tag:#x} outside the bridge's range or in use")
                    self.req_cycle[r.tag] = self.cyc
                    self.rd_lane[r.tag] = ln
                    self.accept_log.append((self.cyc, "rd", r.addr))
                    n_rd += 1
                    if self.hold_all or (self.withhold is not None and n_rd == self.withhold):
                        self.held.append((ln, ("ok", r.tag, r.addr)))
                    else:
                        self._push(ln, "drs", lat, ("ok", r.tag, r.addr))
                if m2s_rwd_v >> ln & 1 and rdy["m2s_rwd_ready"] >> ln & 1:
                    w = M2SRwD.from_canonical(rwd_hdr >> (128 * ln) & ((1 << 128) - 1),
                                              (rwd_dat >> (512 * ln) & BEAT_MASK).to_bytes(64, "little"))
                    self.counts["m2s_rwd"] += 1
                    if w.memop != M2SRwDOp.MEMWR or w.metafield != 0b11:
                        self.errors.append(f"unexpected M2S RwD fields {w.memop} {w.metafield}")
                    self._check_addr("MemWr", w.addr, ln)
                    if not self.cfg.tag_ok(w.tag):
                        self.errors.append(f"MemWr tag {w.tag:#x} outside the bridge's range")
                    self.accept_log.append((self.cyc, "wr", w.addr))
                    self._push(ln, "ndr", lat, ("ok", w.tag, w.addr, w.data))
                if d2h_req_v >> ln & 1 and rdy["d2h_req_ready"] >> ln & 1:
                    d = D2HReq.from_canonical(d2h_hdr >> (128 * ln) & ((1 << 128) - 1))
                    self.counts["d2h_req"] += 1
                    off = (d.addr << 6) - self.cfg.bridge.hpa_base
                    b = self.cfg.bridge
                    if not b.coh_off <= off < b.coh_off + b.coh_size:
                        self.errors.append(f"D2H Req for a non-coherent line {d.addr:#x}")
                    if lane_of(d.addr, nl) != ln:
                        self.errors.append(f"D2H Req line {d.addr:#x} on the wrong lane {ln}")
                    if d.opcode == D2HReqOp.RDCURR:
                        if d.addr in self.nxm and self.rng.random() < 0.5:
                            # error without data: GO-Err
                            self._push(ln, "rsp", lat, ("ok", d.cqid, H2DRspOp.GO, GO_STATE_ERR))
                        else:
                            self._push(ln, "h2d", lat, ("ok", d.cqid, d.addr))
                    elif d.opcode == D2HReqOp.ITOMWR:
                        self.counts["itomwr"] += 1
                        # the home picks any free UQID (12 bits); the bridge must echo it
                        uqid = self.rng.randrange(4096)
                        while uqid in self.pulls:
                            uqid = self.rng.randrange(4096)
                        bad = d.addr in self.nxm
                        self.pulls[uqid] = (d.addr, bad)
                        op = H2DRspOp.GO_ERR_WRITEPULL if bad else H2DRspOp.GO_WRITEPULL
                        self._push(ln, "rsp", lat, ("ok", d.cqid, op, uqid))
                    else:
                        self.errors.append(f"unexpected D2H Req opcode {d.opcode}")
                if d2h_dat_v >> ln & 1 and rdy["d2h_data_ready"] >> ln & 1:
                    dd = D2HData.from_canonical(dd_hdr >> (128 * ln) & ((1 << 128) - 1),
                                                (dd_dat >> (512 * ln) & BEAT_MASK).to_bytes(64, "little"))
                    self.counts["d2h_data"] += 1
                    pulled = self.pulls.pop(dd.uqid, None)
                    if pulled is None:
                        self.errors.append(f"D2H Data with UQID {dd.uqid} that was never pulled")
                    elif not pulled[1]:
                        self.mem[pulled[0]] = dd.data

    def outstanding(self) -> int:
        return len(self.pulls)

    def _faults_pending(self) -> bool:
        """An injected fault is still waiting for the bridge (presented and not taken, or queued)."""
        return any(q is not None and q[0][0] == "stray" for lane in self.cur for q in lane.values()) \
            or any(it[2][0] == "stray" for lane in self.pend for q in lane.values() for it in q)

    async def quiesce(self, counter: str = "stat_proto_err", bound: int = 2000) -> None:
        """Stop injecting faults, wait until every injected one has been taken, then up to `bound`
        cycles for the bridge's counter to reach the number injected: a fault presented in the last
        cycles is still crossing the link (xbridge_top) when traffic ends. The caller compares the
        counts; a counter that never gets there (or passes the count) fails there."""
        self.inject_on = False
        clk = cocotb.top.clk
        for _ in range(bound):
            if not self._faults_pending():
                break
            await FallingEdge(clk)
        else:
            raise AssertionError(f"injected faults not taken by the bridge within {bound} cycles")
        for _ in range(bound):
            if int(getattr(cocotb.top, counter).value) >= self.proto_faults():
                return
            await FallingEdge(clk)

    def proto_faults(self) -> int:
        return sum(self.injected.values())

    def check_phase(self) -> None:
        assert not self.errors, "\n".join(self.errors[:20])
        assert not self.pulls, f"write pulls never answered with data: {sorted(self.pulls)[:8]}"


# ------------------------------------------------------------------------------------------------
class PacketAssembler(uvm_component):
    """xl_tx transfers -> response packets (with the cycles of the first and last transfer) for the
    scoreboard and the watchdog."""

    def __init__(self, name: str, parent: Any, sb: InOrderScoreboard, xw: int,
                 wd: RequestWatchdog | None = None) -> None:
        super().__init__(name, parent)
        self.sb = sb
        self.xw = xw
        self.wd = wd
        self.cur: list[int] = []
        self.first_cycle = 0
        self.packets: list[tuple[Packet, int, int]] = []   # (packet, first beat cycle, last beat cycle)
        self.errors: list[str] = []
        self.listeners: list[Any] = []
        self.imp = AnalysisImp("imp", self, self.write)

    def write(self, beat: Beat) -> None:
        data, last = beat.payload["data"], beat.payload["last"]
        if last & (last - 1):
            self.errors.append(f"xl_tx_last {last:#x} is not one-hot @{beat.cycle}")
        n = last.bit_length() if last else self.xw
        if not self.cur:
            self.first_cycle = beat.cycle
            if (data & BEAT_MASK) >> HDR_USED_BITS:
                self.errors.append(f"response header beat has junk above bit 95 @{beat.cycle}")
        if data >> (BEAT_BITS * n):
            self.errors.append(f"response lanes past the last beat are not zero @{beat.cycle}")
        self.cur += [data >> (BEAT_BITS * x) & BEAT_MASK for x in range(n)]
        if last:
            b = self.cur
            pkt = Packet(XlHeader.unpack(b[0] & MASK96), tuple(x.to_bytes(64, "little") for x in b[1:]))
            self.cur = []
            self.packets.append((pkt, self.first_cycle, beat.cycle))
            for fn in self.listeners:
                fn(pkt)
            if self.wd is not None:
                self.wd.answered((pkt.hdr.src, pkt.hdr.tag), beat.cycle)
            self.sb.write_actual(pkt)

    def check_phase(self) -> None:
        assert not self.errors, "\n".join(self.errors[:10])
        assert not self.cur, f"{len(self.cur)} beats of an unfinished response"


class RequestMonitor(uvm_component):
    """xl_rx transfers -> the watchdog's 'accepted' events, keyed by (src, tag) of each header, and
    ``listeners(header, cycle)`` for every header beat taken."""

    def __init__(self, name: str, parent: Any, wd: RequestWatchdog) -> None:
        super().__init__(name, parent)
        self.wd = wd
        self.mid = False
        self.n = 0
        self.listeners: list[Any] = []
        self.imp = AnalysisImp("imp", self, self.write)

    def write(self, beat: Beat) -> None:
        data, last = beat.payload["data"], beat.payload["last"]
        if not self.mid:
            h = XlHeader.unpack(data & MASK96)
            self.wd.accepted((h.src, h.tag), beat.cycle)
            self.n += 1
            for fn in self.listeners:
                fn(h, beat.cycle)
        self.mid = not last


class DebugMonitor(uvm_component):
    """Per-cycle: line-issue kinds per (request sequence number, lane), header-table hits, and every
    HBM access's completion cycle against the lane's HbmModel."""

    def __init__(self, name: str, parent: Any, cfg: TbConfig) -> None:
        super().__init__(name, parent)
        self.cfg = cfg
        self.kinds: dict[tuple[int, int], list[str]] = {}
        self.hthit: dict[int, bool] = {}
        self.enter_cycle: dict[int, int] = {}
        self.hbm_checked = 0
        self.hbm = [HbmModel(cfg.timing(), cfg.hbm_geom(), cfg.ref_postpone, cfg.ref_idle)
                    for _ in range(cfg.lanes)]
        self.chk = CycleChecker("chk", self, clk=cocotb.top.clk, fn=self.step, rst=cocotb.top.rst)
        self.cycle = 0

    def request_kinds(self, seq: int, ops: list[Any]) -> list[str]:
        """Kinds of request `seq`'s lines in request order (each lane issues its lines in order)."""
        take = {ln: iter(self.kinds.get((seq, ln), [])) for ln in range(self.cfg.lanes)}
        out = []
        for op in ops:
            k = next(take[lane_of(op.hpa >> 6, self.cfg.lanes)], None)
            if k is not None:
                out.append(k)
        return out

    def n_kinds(self, seq: int) -> int:
        return sum(len(self.kinds.get((seq, ln), [])) for ln in range(self.cfg.lanes))

    def step(self) -> list[str]:
        dut = cocotb.top
        self.cycle += 1
        errs: list[str] = []
        lv = int(dut.dbg_line_valid.value)
        if lv:
            kinds, seqs = int(dut.dbg_line_kind.value), int(dut.dbg_line_seq.value)
            for ln in range(self.cfg.lanes):
                if lv >> ln & 1:
                    s = seqs >> (16 * ln) & 0xFFFF
                    self.kinds.setdefault((s, ln), []).append(KIND_NAMES[kinds >> (3 * ln) & 7])
        if int(dut.dbg_req_valid.value):
            s = int(dut.dbg_req_seq.value)
            self.hthit[s] = bool(int(dut.dbg_req_hthit.value))
            self.enter_cycle[s] = self.cycle
        iv = int(dut.hbm_iss_valid.value) if self.cfg.buf_en else 0
        if iv:
            now = int(dut.hbm_now.value)
            idxs, dones = int(dut.hbm_iss_idx.value), int(dut.hbm_iss_done.value)
            iw = (self.cfg.sets // self.cfg.lanes).bit_length() - 1
            for ln in range(self.cfg.lanes):
                if not iv >> ln & 1:
                    continue
                idx = idxs >> (iw * ln) & ((1 << iw) - 1)
                try:    # reported three cycles after the access's scheduling cycle (S1)
                    _, exp = self.hbm[ln].issue(now - 3, idx)
                except ValueError as e:
                    errs.append(f"HBM lane {ln} scheduling at cycle {now - 3}: {e}")
                    continue
                act = dones >> (32 * ln) & 0xFFFFFFFF
                self.hbm_checked += 1
                if act != exp:
                    errs.append(f"HBM lane {ln} access idx {idx} scheduled at {now - 3}: done {act}, model {exp}")
        return errs


# ------------------------------------------------------------------------------------------------
class BridgeEnv(uvm_env):
    def __init__(self, name: str, parent: Any, cfg: TbConfig, idle: Pattern, sink: Pattern,
                 cxl_ready: Pattern, lat: tuple[int, int], cov: bool = True,
                 faults: Faults | None = None, wd_bound: int = 4000, sb_timeout: int = 20000) -> None:
        super().__init__(name, parent)
        self.cfg, self.idle, self.sink_pat, self.cxl_ready, self.lat = cfg, idle, sink, cxl_ready, lat
        self.use_cov = cov
        self.faults = faults
        self.wd_bound = wd_bound
        self.sb_timeout = sb_timeout

    def build_phase(self) -> None:
        dut = cocotb.top
        self.pool = SignalPool()
        rx = VRBus.lane(self.pool, dut, "xl_rx_valid", "xl_rx_ready",
                        {"data": "xl_rx_data", "last": "xl_rx_last"})
        tx = VRBus.lane(self.pool, dut, "xl_tx_valid", "xl_tx_ready",
                        {"data": "xl_tx_data", "last": "xl_tx_last"})
        self.xl = VRAgent("xl", self, bus=rx, idle=self.idle)
        self.rsp = VRAgent("rsp", self, bus=tx, active=False, sink=self.sink_pat, check_hold=True)
        self.sb = InOrderScoreboard("sb", self, timeout_cycles=self.sb_timeout)
        # every accepted XLink request answered within the bound, keyed by (src, tag); duplicates
        # of an outstanding pair are legal input (answered BAD_TAG), hence multiple=True
        self.wd = RequestWatchdog("wd", self, clk=dut.clk, bound_cycles=self.wd_bound, multiple=True)
        self.reqmon = RequestMonitor("reqmon", self, self.wd)
        self.asm = PacketAssembler("asm", self, self.sb, self.cfg.xw, self.wd)
        self.mem = CxlMemAgent("mem", self, self.cfg, lat=self.lat, ready=self.cxl_ready,
                               faults=self.faults)
        self.dbg = DebugMonitor("dbg", self, self.cfg)
        self.cov = CoverageCollector("cov", self, enforce=self.use_cov)

    def connect_phase(self) -> None:
        self.rsp.ap.connect(self.asm.imp)
        self.xl.ap.connect(self.reqmon.imp)


def size_bins() -> list[int]:
    """Coverage size bins: bytes of the 64 B lines a request touches."""
    return [64, 128, 192, 256]


def outcome(kinds: list[str]) -> str:
    if any(k in ("hit", "fwd", "wbwr_hit") for k in kinds):
        return "hit"
    if any(k in ("coh", "cohwr") for k in kinds):
        return "coh"
    return "miss"


def make_packet(cfg: TbConfig, rng: random.Random, op: int, addr: int, nbytes: int, tag: int,
                src: int) -> Packet:
    """Request packet; a write's last beat carries random junk past the payload (ignored)."""
    n = beats_for(nbytes) if op == XlOp.WRITE else 0
    lines = tuple(rng.randbytes(64) for _ in range(n))
    return Packet(XlHeader(opcode=op, tag=tag, src=src, len=len_field_for(cfg.flavor, nbytes),
                           addr=addr), lines)


def beats_payloads(cfg: TbConfig, pkt: Packet) -> list[dict[str, int]]:
    """The packet as xl_rx transfers of cfg.xw beats."""
    return [{"data": d, "last": last} for d, last in pkt.transfers(cfg.flavor, cfg.xw)]


def raw_payloads(cfg: TbConfig, beats: list[int]) -> list[dict[str, int]]:
    """Arbitrary beats (e.g. a malformed packet) framed as one packet in cfg.xw-beat transfers."""
    out = []
    for i in range(0, len(beats), cfg.xw):
        chunk = beats[i:i + cfg.xw]
        last = 1 << (len(chunk) - 1) if i + cfg.xw >= len(beats) else 0
        out.append({"data": sum(b << (BEAT_BITS * x) for x, b in enumerate(chunk)), "last": last})
    return out


def new_ref(cfg: TbConfig) -> BridgeRef:
    return BridgeRef(cfg.bridge, default=default_line, sets=cfg.sets if cfg.buf_en else 0,
                     write_alloc=bool(cfg.wr_alloc), ht_entries=cfg.ht_entries, track_tags=True)


__all__ = ["BridgeEnv", "CxlMemAgent", "DebugMonitor", "Faults", "NVLINK", "PacketAssembler",
           "RequestMonitor", "TbConfig", "XlStatus", "beats_payloads", "default_line", "make_packet",
           "new_ref", "outcome", "raw_payloads", "size_bins"]
