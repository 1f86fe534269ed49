"""pyuvm environment of the XLink-CXL bridge core (xbridge_core).

* XLink agent: VRAgent driving xl_rx (header + data beats with `last`), VRAgent sink on xl_tx with a
  back-pressure pattern; a packet assembler turns tx beats into packets.
* CXL memory agent (:class:`CxlMemAgent`): accepts M2S Req/RwD, D2H Req and D2H Data with a ready
  pattern, answers each after a random latency (out of order) with S2M DRS/NDR, H2D Data (RdCurr)
  or H2D Rsp GO_WritePull (ItoMWr, the line then comes on D2H Data) from one memory model (the
  coherence agent of the coherent sub-range shares it). Reads see the memory at response time,
  writes land at response time (MemWr) or when the pulled line arrives (ItoMWr): any ordering bug
  of the bridge shows up as wrong data.
* Scoreboard: in-order XLink responses against the functional reference models.bridge.BridgeRef.
* Checkers: the HBM controller's completion times against models.bridge.HbmModel, the CXL
  messages' fields, the per-line debug stream; coverage of opcode x size x hit/miss (per flavour).
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
from models.bridge.packets import HDR_USED_BITS, beats_for
from models.cxl.messages import (D2HData, D2HReq, D2HReqOp, H2DData, H2DRsp, H2DRspOp, M2SReq,
                                 M2SReqOp, M2SRwD, M2SRwDOp, S2MDRS, S2MDRSOp, S2MNDR, S2MNDROp)
from tb.common.checker import CycleChecker
from tb.common.coverage import CoverageCollector
from tb.common.patterns import Pattern
from tb.common.scoreboard import AnalysisImp, InOrderScoreboard
from tb.common.seeds import component_rng
from tb.common.signals import SignalPool
from tb.common.vr_agent import Beat, VRAgent, VRBus

KIND_NAMES = {0: "memrd", 1: "hit", 2: "fwd", 3: "coh", 4: "wbwr", 5: "wr", 6: "wbwr_hit",
              7: "cohwr"}
MASK96 = (1 << HDR_USED_BITS) - 1


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

    def tag_ok(self, tag: int) -> bool:
        """CXL.mem tags of this bridge: TAG_BASE + {ROB slot, line} or TAG_BASE + 0x8000 + entry."""
        loc = (tag - self.tag_base) % (1 << 16)
        return loc < 4 * self.nrob or (self.buf_en and 0x8000 <= loc < 0x8000 + self.wb_depth)

    def params(self) -> dict[str, int | str]:
        p = self.bridge.params()
        p.update({"BUF_EN": self.buf_en, "SETS": self.sets, "WR_ALLOC": self.wr_alloc,
                  "HT_ENTRIES": self.ht_entries, "NPC": self.npc, "NBANK": self.nbank,
                  "ROW_LINES": self.row_lines, "NROB": self.nrob, "WB_DEPTH": self.wb_depth,
                  "WQ_DEPTH": self.wq_depth,
                  "HBM_INFLIGHT": self.hbm_inflight, "REF_POSTPONE": self.ref_postpone,
                  "REF_IDLE": self.ref_idle,
                  "TAG_BASE": self.tag_base})
        p.update(self.timing().params())
        return p

    def timing(self) -> HbmTiming:
        t = HbmTiming.hbm3()
        return replace(t, tREFI=self.t_refi) if self.t_refi else t


# ------------------------------------------------------------------------------------------------
class CxlMemAgent(uvm_component):
    """CXL.mem device + CXL.cache home (for the coherent range) behind one memory model."""

    def __init__(self, name: str, parent: Any, cfg: TbConfig, lat: tuple[int, int] = (20, 60),
                 ready: Pattern | None = None) -> None:
        super().__init__(name, parent)
        self.cfg = cfg
        self.lat = lat
        self.ready_pat = ready
        self.mem: dict[int, bytes] = {}
        self.nxm: set[int] = set()
        self.errors: list[str] = []
        self.counts = {"m2s_req": 0, "m2s_rwd": 0, "d2h_req": 0, "itomwr": 0, "d2h_data": 0}
        self.pulls: dict[int, int] = {}        # write-pull UQID -> line
        self.req_cycle: dict[int, int] = {}    # tag -> cycle accepted (latency measurement)
        self.far_cycles: list[int] = []
        self.accept_log: list[tuple[int, str, int]] = []
        self.strict_ready = os.environ.get("XB_TOP", "") == ""

    def build_phase(self) -> None:
        self.rng = component_rng(self)
        if self.ready_pat is None:
            self.ready_pat = Pattern.always()

    def read(self, line: int) -> bytes:
        return self.mem.get(line, default_line(line))

    def _check_addr(self, kind: str, line: int) -> None:
        b = self.cfg.bridge
        lo = b.hpa_base >> 6
        if not lo <= line < lo + (b.win_size >> 6):
            self.errors.append(f"{kind} line {line:#x} outside the translated window")

    async def run_phase(self) -> None:
        dut = cocotb.top
        for s in ("m2s_req_ready", "m2s_rwd_ready", "d2h_req_ready", "d2h_data_ready",
                  "s2m_drs_valid", "s2m_ndr_valid", "h2d_data_valid", "h2d_rsp_valid"):
            getattr(dut, s).value = 0
        cyc = 0
        pend: dict[str, list[tuple[int, int, Any]]] = {"drs": [], "ndr": [], "h2d": [], "rsp": []}
        cur: dict[str, Any] = {"drs": None, "ndr": None, "h2d": None, "rsp": None}
        ready_sig = {"drs": "s2m_drs_ready", "ndr": "s2m_ndr_ready", "h2d": "h2d_data_ready",
                     "rsp": "h2d_rsp_ready"}
        valid_sig = {"drs": "s2m_drs_valid", "ndr": "s2m_ndr_valid", "h2d": "h2d_data_valid",
                     "rsp": "h2d_rsp_valid"}
        # the core always takes NDR and H2D Data (ROB space is reserved); DRS may wait for the HBM
        # write queue and H2D Rsp for the D2H Data output
        strict = {"ndr", "h2d"}
        seq = 0
        uqid = 0
        while True:
            await FallingEdge(dut.clk)
            cyc += 1
            rdy = [int(self.ready_pat.next()) for _ in range(4)]
            (dut.m2s_req_ready.value, dut.m2s_rwd_ready.value, dut.d2h_req_ready.value,
             dut.d2h_data_ready.value) = rdy
            # present the next due response per channel; it stays until accepted
            for ch, q in pend.items():
                if cur[ch] is None and q and q[0][0] <= cyc:
                    item = heapq.heappop(q)[2]
                    if ch == "drs":
                        tag, line = item
                        nxm = line in self.nxm
                        m = S2MDRS(memop=S2MDRSOp.MEMDATA_NXM if nxm else S2MDRSOp.MEMDATA,
                                   tag=tag, data=self.read(line))
                        dut.s2m_drs_hdr.value = m.to_canonical()
                        dut.s2m_drs_data.value = int.from_bytes(m.data, "little")
                        self.far_cycles.append(cyc - self.req_cycle.pop(tag, cyc))
                    elif ch == "ndr":
                        tag, line, data = item
                        self.mem[line] = data
                        dut.s2m_ndr_hdr.value = S2MNDR(memop=S2MNDROp.CMP, tag=tag).to_canonical()
                    elif ch == "h2d":
                        cqid, line = item
                        m = H2DData(cqid=cqid, data=self.read(line))
                        dut.h2d_data_hdr.value = m.to_canonical()
                        dut.h2d_data_data.value = int.from_bytes(m.data, "little")
                    else:
                        cqid, u = item
                        dut.h2d_rsp_hdr.value = H2DRsp(opcode=H2DRspOp.GO_WRITEPULL, rspdata=u,
                                                       cqid=cqid).to_canonical()
                    cur[ch] = item
                getattr(dut, valid_sig[ch]).value = int(cur[ch] is not None)
            await ReadOnly()
            if int(dut.rst.value):
                continue
            for ch in cur:
                if cur[ch] is not None:
                    if int(getattr(dut, ready_sig[ch]).value):
                        cur[ch] = None
                    elif self.strict_ready and ch in strict:
                        self.errors.append(f"bridge not ready for {ch} (the core must always accept)")
            lat = self.rng.randint(*self.lat)
            if int(dut.m2s_req_valid.value) and rdy[0]:
                r = M2SReq.from_canonical(int(dut.m2s_req_hdr.value))
                self.counts["m2s_req"] += 1
                if r.memop != M2SReqOp.MEMRD or r.metafield != 0b11 or r.snptype != 0:
                    self.errors.append(f"unexpected M2S Req fields {r}")
                self._check_addr("MemRd", r.addr)
                if not self.cfg.tag_ok(r.tag) or r.tag in self.req_cycle:
                    self.errors.append(f"MemRd tag {r.tag:#x} outside the bridge's range or in use")
                self.req_cycle[r.tag] = cyc
                self.accept_log.append((cyc, "rd", r.addr))
                seq += 1
                heapq.heappush(pend["drs"], (cyc + lat, seq, (r.tag, r.addr)))
            if int(dut.m2s_rwd_valid.value) and rdy[1]:
                w = M2SRwD.from_canonical(int(dut.m2s_rwd_hdr.value),
                                          int(dut.m2s_rwd_data.value).to_bytes(64, "little"))
                self.counts["m2s_rwd"] += 1
                if w.memop != M2SRwDOp.MEMWR or w.metafield != 0b11:
                    self.errors.append(f"unexpected M2S RwD fields {w.memop} {w.metafield}")
                self._check_addr("MemWr", w.addr)
                if not self.cfg.tag_ok(w.tag):
                    self.errors.append(f"MemWr tag {w.tag:#x} outside the bridge's range")
                self.accept_log.append((cyc, "wr", w.addr))
                seq += 1
                heapq.heappush(pend["ndr"], (cyc + lat, seq, (w.tag, w.addr, w.data)))
            if int(dut.d2h_req_valid.value) and rdy[2]:
                d = D2HReq.from_canonical(int(dut.d2h_req_hdr.value))
                self.counts["d2h_req"] += 1
                off = (d.addr << 6) - self.cfg.bridge.hpa_base
                b = self.cfg.bridge
                if not b.coh_off <= off < b.coh_off + b.coh_size:
                    self.errors.append(f"D2H Req for a non-coherent line {d.addr:#x}")
                seq += 1
                if d.opcode == D2HReqOp.RDCURR:
                    heapq.heappush(pend["h2d"], (cyc + lat, seq, (d.cqid, d.addr)))
                elif d.opcode == D2HReqOp.ITOMWR:
                    self.counts["itomwr"] += 1
                    uqid = (uqid + 1) % 4096
                    self.pulls[uqid] = d.addr
                    heapq.heappush(pend["rsp"], (cyc + lat, seq, (d.cqid, uqid)))
                else:
                    self.errors.append(f"unexpected D2H Req opcode {d.opcode}")
            if int(dut.d2h_data_valid.value) and rdy[3]:
                dd = D2HData.from_canonical(int(dut.d2h_data_hdr.value),
                                            int(dut.d2h_data_data.value).to_bytes(64, "little"))
                self.counts["d2h_data"] += 1
                line = self.pulls.pop(dd.uqid, None)
                if line is None:
                    self.errors.append(f"D2H Data with UQID {dd.uqid} that was never pulled")
                else:
                    self.mem[line] = dd.data

    def outstanding(self) -> int:
        return len(self.pulls)

    def check_phase(self) -> None:
        assert not self.errors, "\n".join(self.errors[:20])
        assert not self.pulls, f"write pulls never answered with data: {sorted(self.pulls)[:8]}"


# ------------------------------------------------------------------------------------------------
class PacketAssembler(uvm_component):
    """xl_tx beats -> response packets (with the cycle of the last beat) for the scoreboard."""

    def __init__(self, name: str, parent: Any, sb: InOrderScoreboard) -> None:
        super().__init__(name, parent)
        self.sb = sb
        self.cur: list[int] = []
        self.first_cycle = 0
        self.packets: list[tuple[Packet, int, int]] = []   # (packet, first beat cycle, last beat cycle)
        self.errors: list[str] = []
        self.imp = AnalysisImp("imp", self, self.write)

    def write(self, beat: Beat) -> None:
        if not self.cur:
            self.first_cycle = beat.cycle
            if beat.payload["data"] >> HDR_USED_BITS:
                self.errors.append(f"response header beat has junk above bit 95 @{beat.cycle}")
        self.cur.append(beat.payload["data"])
        if beat.payload["last"]:
            b = self.cur
            pkt = Packet(XlHeader.unpack(b[0] & MASK96), tuple(x.to_bytes(64, "little") for x in b[1:]))
            self.cur = []
            self.packets.append((pkt, self.first_cycle, beat.cycle))
            self.sb.write_actual(pkt)

    def check_phase(self) -> None:
        assert not self.errors, "\n".join(self.errors[:10])
        assert not self.cur, f"{len(self.cur)} beats of an unfinished response"


class DebugMonitor(uvm_component):
    """Per-cycle: line-issue kinds per request sequence number, header-table hits, HBM timing."""

    def __init__(self, name: str, parent: Any, cfg: TbConfig) -> None:
        super().__init__(name, parent)
        self.cfg = cfg
        self.kinds: dict[int, list[str]] = {}
        self.hthit: dict[int, bool] = {}
        self.enter_cycle: dict[int, int] = {}
        self.hbm_checked = 0
        self.hbm = HbmModel(cfg.timing(), HbmGeom(cfg.npc, cfg.nbank, cfg.row_lines),
                            cfg.ref_postpone, cfg.ref_idle)
        self.chk = CycleChecker("chk", self, clk=cocotb.top.clk, fn=self.step, rst=cocotb.top.rst)
        self.cycle = 0

    def step(self) -> list[str]:
        dut = cocotb.top
        self.cycle += 1
        errs: list[str] = []
        if int(dut.dbg_line_valid.value):
            s = int(dut.dbg_line_seq.value)
            self.kinds.setdefault(s, []).append(KIND_NAMES[int(dut.dbg_line_kind.value)])
        if int(dut.dbg_req_valid.value):
            s = int(dut.dbg_req_seq.value)
            self.hthit[s] = bool(int(dut.dbg_req_hthit.value))
            self.enter_cycle[s] = self.cycle
        if self.cfg.buf_en and int(dut.hbm_iss_valid.value):
            now = int(dut.hbm_now.value)
            idx = int(dut.hbm_iss_idx.value)
            try:
                _, exp = self.hbm.issue(now, idx)
            except ValueError as e:
                return [f"HBM issue at cycle {now}: {e}"]
            act = int(dut.hbm_iss_done.value)
            self.hbm_checked += 1
            if act != exp:
                errs.append(f"HBM access idx {idx} issued at {now}: done {act}, model {exp}")
        return errs


# ------------------------------------------------------------------------------------------------
class BridgeEnv(uvm_env):
    def __init__(self, name: str, parent: Any, cfg: TbConfig, idle: Pattern, sink: Pattern,
                 cxl_ready: Pattern, lat: tuple[int, int], cov: bool = True) -> None:
        super().__init__(name, parent)
        self.cfg, self.idle, self.sink_pat, self.cxl_ready, self.lat = cfg, idle, sink, cxl_ready, lat
        self.use_cov = cov

    def build_phase(self) -> None:
        dut = cocotb.top
        self.pool = SignalPool()
        rx = VRBus.lane(self.pool, dut, "xl_rx_valid", "xl_rx_ready",
                        {"data": "xl_rx_data", "last": "xl_rx_last"})
        tx = VRBus.lane(self.pool, dut, "xl_tx_valid", "xl_tx_ready",
                        {"data": "xl_tx_data", "last": "xl_tx_last"})
        self.xl = VRAgent("xl", self, bus=rx, idle=self.idle)
        self.rsp = VRAgent("rsp", self, bus=tx, active=False, sink=self.sink_pat, check_hold=True)
        self.sb = InOrderScoreboard("sb", self, timeout_cycles=20000)
        self.asm = PacketAssembler("asm", self, self.sb)
        self.mem = CxlMemAgent("mem", self, self.cfg, lat=self.lat, ready=self.cxl_ready)
        self.dbg = DebugMonitor("dbg", self, self.cfg)
        self.cov = CoverageCollector("cov", self, enforce=self.use_cov)

    def connect_phase(self) -> None:
        self.rsp.ap.connect(self.asm.imp)


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
    return [{"data": b, "last": int(last)} for b, last in pkt.beats(cfg.flavor)]


def new_ref(cfg: TbConfig) -> BridgeRef:
    return BridgeRef(cfg.bridge, default=default_line, sets=cfg.sets if cfg.buf_en else 0,
                     write_alloc=bool(cfg.wr_alloc),
                     ht_entries=cfg.ht_entries)


__all__ = ["BridgeEnv", "CxlMemAgent", "DebugMonitor", "NVLINK", "PacketAssembler", "TbConfig",
           "XlStatus", "beats_payloads", "default_line", "make_packet", "new_ref", "outcome",
           "size_bins"]
