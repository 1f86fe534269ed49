"""pyuvm environment of the home coherence agent (top: coh_home_agent).

Components
  * CacheDeviceAgent (one per port): a real caching device. Its decisions come from the model's
    `DeviceCache` (MESI + eviction-pending states): it issues requests its line states allow,
    stores into E/M lines, drops clean lines silently, answers snoops from its own state (after a
    random delay, choosing among the legal answers), writes back on pulls, and holds a snoop to a
    line whose GO arrived before its data. It drives D2H Req/Rsp/Data with idle cycles and applies
    back-pressure on H2D Req/Rsp/Data.
  * MemoryAgent: CXL.mem memory (MemRd -> MemData, MemWr -> Cmp) with random latency and
    back-pressure.
  * CohMonitor (inside the env's cycle loop): every handshake of every port, in cycle order, as
    model messages (`models.coherence.msgs`), broadcast on `ap` to the scoreboard, the model's
    trace checkers and the coverage collector.
  * CohScoreboard: `CohPredictor` (expected answers from the spec table, error rules from the
    model) + SWMR, data-value, completion and ordering checkers of `models.coherence.checkers` on
    the observed traffic; error counters of the RTL compared with the model's classification; a
    `RequestWatchdog` (tb/common) that fails the test when an accepted request or a delivered snoop
    is unanswered for more than `CohCfg.wd_bound` cycles.
  * CohDut: the DUT's parameters, read once from the DUT (the env has no copies of them).

Timing: one coroutine runs the cycle loop. At each falling edge it first delivers the handshakes
sampled in the previous ReadOnly phase (they transferred at the rising edge in between), then every
agent drives its signals for the next rising edge; in ReadOnly it samples valid && ready of every
channel. Event times are cycle numbers (+0.5 for device-side events that follow a delivery).
"""
from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from pyuvm import ConfigDB, uvm_analysis_port, uvm_component, uvm_env

from models.coherence.checkers import (
    CacheState,
    CompletionChecker,
    DataValueChecker,
    Load,
    OrderingChecker,
    PortMsg,
    Store,
    SwmrChecker,
)
from models.coherence.device import DeviceCache
from models.coherence.msgs import (
    CD2HData,
    CD2HReq,
    CD2HRsp,
    CH2DData,
    CH2DReq,
    CH2DRsp,
    CM2SReq,
    CM2SRwD,
    CS2MDRS,
    CS2MNDR,
    CohMsg,
    from_cxl,
    to_cxl,
)
from models.coherence.protocol import READABLE, REQUEST_OPS, WRITE_OPS, LineState, snoop_options
from models.cxl.messages import (
    D2HReqOp,
    D2HRspOp,
    H2DData,
    H2DReq,
    H2DRsp,
    M2SReq,
    M2SRwD,
    S2MDRSOp,
    S2MNDROp,
)
from tb.common.clock import cycle_at
from tb.common.coverage import CoverageCollector
from tb.common.patterns import Pattern
from tb.common.seeds import component_rng
from tb.common.signals import lane_int
from tb.common.scoreboard import AnalysisImp
from tb.common.watchdog import RequestWatchdog
from models.coherence.home import RTL_ERROR_KINDS
from models.coherence.spec_table import load as load_table
from tb.coherence.coh_scoreboard import CohPredictor

LW = 46
M512 = (1 << 512) - 1
Op = D2HReqOp
# Requests a device may issue for a line it does not hold (DeviceCache.legal_requests from I).
I_OPS = (Op.RDSHARED, Op.RDOWN, Op.RDANY, Op.RDCURR, Op.RDOWNNODATA, Op.ITOMWR, Op.WRCUR, Op.WRINV,
         Op.CLFLUSH, Op.WOWRINV, Op.WOWRINVF)


@dataclass(frozen=True)
class CohDut:
    """Parameters of the coh_home_agent under test, read from the DUT once (never repeated as knobs)."""

    n: int
    sets: int
    ways: int
    ntxn: int
    nrange: int
    qdepth: int
    cnt_w: int

    @classmethod
    def from_dut(cls, dut: Any = None) -> CohDut:
        dut = dut if dut is not None else cocotb.top
        return cls(*(int(getattr(dut, k).value) for k in ("N", "SETS", "WAYS", "NTXN", "NRANGE", "QDEPTH", "CNT_W")))

    @property
    def port_bits(self) -> int:
        return max(1, (self.n - 1).bit_length())

    @property
    def entry_bits(self) -> int:
        return max(1, (self.ntxn - 1).bit_length())


@dataclass
class CohCfg:
    """Knobs of one test (set in ConfigDB as "coh_cfg"); DUT parameters are in `dut`."""

    dut: CohDut
    lines: tuple[int, ...] = (0x10, 0x11, 0x12)
    nc_base: int = 1 << 40  # without `ranges`: lines >= nc_base are outside the coherent range
    # selective-coherence ranges as programmed on cfg_coh_*: (enable, lo, hi) per range, a line in
    # [lo, hi) of an enabled range is coherent; None = range 0 is [0, nc_base), the others off
    ranges: tuple[tuple[int, int, int], ...] | None = None
    # CQIDs on the wire: the device model numbers its requests 0..n_cqid-1; with wide_cqids each
    # request goes out with a CQID drawn from the whole 12-bit field (CacheDeviceAgent maps them)
    wide_cqids: bool = True
    traffic: bool = False  # random requests / stores / drops / loads by every device
    p_issue: float = 0.25
    p_store: float = 0.1
    p_drop: float = 0.03
    p_load: float = 0.1
    ops: frozenset[int] = frozenset(REQUEST_OPS)
    n_cqid: int = 4
    d2h_idle: str | None = None  # Pattern spec for presenting D2H items, e.g. "random:0.7"
    h2d_ready: str | None = None  # Pattern spec for H2D ready
    snoop_delay: tuple[int, int] = (0, 0)  # extra cycles a device takes to answer a snoop
    mem_lat: tuple[int, int] = (2, 2)
    mem_ready: str | None = None
    s2m_idle: str | None = None
    mem_init: dict[int, int] = field(default_factory=dict)
    # cycles an accepted request / delivered snoop may wait for its answer: the stress and capacity runs
    # (back-pressure, slow snoop answers, memory latency up to 8) peak at 83, so 500 leaves a 6x margin
    wd_bound: int = 500

    @property
    def n(self) -> int:
        return self.dut.n

    def coherent(self, line: int) -> bool:
        if self.ranges is None:
            return line < self.nc_base
        return any(en and lo <= line < hi for en, lo, hi in self.ranges)


def random_ranges(rng: random.Random, nrange: int) -> tuple[tuple[int, int, int], ...]:
    """Coherent ranges drawn over the whole 46-bit line address: every range enabled with
    probability 3/4 (at least one enabled), bounds anywhere, a range may be empty or overlap another."""
    out = []
    for _ in range(nrange):
        a, b = rng.getrandbits(LW), rng.getrandbits(LW)
        out.append((int(rng.random() < 0.75), min(a, b), max(a, b)))
    if not any(en for en, _, _ in out):
        k = rng.randrange(nrange)
        out[k] = (1,) + out[k][1:]
    return tuple(out)


class LinePicker:
    """Distinct line addresses over the full 46-bit field, coherent or not under `cfg.coherent`,
    optionally in a given snoop-filter set (low address bits), so set conflicts stay as planned."""

    def __init__(self, cfg: CohCfg, rng: random.Random) -> None:
        self.cfg, self.rng = cfg, rng
        self.used: set[int] = set()

    def line(self, coherent: bool = True, set_index: int | None = None) -> int:
        cfg, rng = self.cfg, self.rng
        sb = max(0, (cfg.dut.sets - 1).bit_length())
        spans = [(lo, hi) for en, lo, hi in (cfg.ranges or ((1, 0, cfg.nc_base),)) if en and hi > lo]
        for _ in range(10000):
            if coherent and spans and rng.random() < 0.9:
                lo, hi = rng.choice(spans)  # inside a range (a narrow one would rarely be hit by chance)
                a = rng.randrange(lo, hi)
            else:
                a = rng.getrandbits(LW)
            if set_index is not None:
                a = (a >> sb << sb) | set_index
            if cfg.coherent(a) == coherent and a not in self.used:
                self.used.add(a)
                return a
        raise AssertionError(f"no {'coherent' if coherent else 'non-coherent'} line in set {set_index} "
                             f"under ranges {cfg.ranges}")


def _pat(spec: str | None, rng: random.Random) -> Pattern:
    return Pattern.from_spec(spec, rng) if spec else Pattern.always()


class Out:
    """One outgoing valid/ready channel of an agent: FIFO of (release_cycle, msg)."""

    def __init__(self, idle: Pattern) -> None:
        self.q: deque[tuple[int, CohMsg]] = deque()
        self.cur: CohMsg | None = None
        self.idle = idle

    def push(self, msg: CohMsg, at: int = 0) -> None:
        self.q.append((at, msg))

    def drive(self, now: int) -> CohMsg | None:
        """Item presented this cycle (stays presented until taken)."""
        if self.cur is None and self.q and self.q[0][0] <= now and self.idle.next():
            self.cur = self.q.popleft()[1]
        return self.cur

    def taken(self) -> CohMsg:
        m, self.cur = self.cur, None
        assert m is not None
        return m

    def busy(self) -> bool:
        return self.cur is not None or bool(self.q)


class CacheDeviceAgent(uvm_component):
    """A caching device on one port (driver, receiver and policy in one reactive agent)."""

    def __init__(self, name: str, parent: uvm_component, port: int) -> None:
        super().__init__(name, parent)
        self.port = port

    def build_phase(self) -> None:
        self.cfg: CohCfg = ConfigDB().get(self, "", "coh_cfg")
        self.env: CohEnv = self.get_parent()  # type: ignore[assignment]
        self.rng = component_rng(self)
        self.id_rng = random.Random(component_rng(self).getrandbits(64) ^ 0xC01D)  # own stream: wire CQIDs
        self.dc = DeviceCache(self.port, self.cfg.n_cqid)
        self.cq_wire: dict[int, int] = {}   # the model's CQID -> the CQID on the wire
        self.cq_model: dict[int, int] = {}  # and back
        self.req = Out(_pat(self.cfg.d2h_idle, self.rng))
        self.rsp = Out(_pat(self.cfg.d2h_idle, self.rng))
        self.dat = Out(_pat(self.cfg.d2h_idle, self.rng))
        self.rdy_snp = _pat(self.cfg.h2d_ready, self.rng)
        self.rdy_rsp = _pat(self.cfg.h2d_ready, self.rng)
        self.rdy_dat = _pat(self.cfg.h2d_ready, self.rng)
        self.traffic = self.cfg.traffic
        self.snoop_choice: Callable[[CH2DReq, int], int] | None = None  # (snoop, n options) -> index
        self.snoop_delay = self.cfg.snoop_delay
        self.hold_snoops = False
        self.data_hook: Callable[[CD2HData], CD2HData] | None = None  # rewrites outgoing D2H Data (negative tests)
        self.rsp_hook: Callable[[CD2HRsp], CD2HRsp] | None = None  # rewrites outgoing D2H Rsp (negative tests)
        self.issue_time: dict[int, float] = {}
        self.answer_cycles: list[int] = []  # snoop handshake -> D2H Rsp handshake, per answered snoop
        self.snoop_at: dict[int, int] = {}
        self.n_issued = 0
        self.issued: list[tuple[int, int]] = []  # (opcode, line) of every request issued
        self.held = 0  # cycles a snoop waited for the data of a line whose GO arrived

    # ------------------------------------------------------------------ actions
    def issue(self, op: int, addr: int) -> int:
        """Issue a request now (directed tests); returns its CQID on the wire."""
        wvalue = self.env.fresh() if op in WRITE_OPS else None
        cqid = self.dc.issue(op, addr, wvalue)
        self.issue_time[cqid] = self.env.now()
        self.n_issued += 1
        self.issued.append((op, addr))
        wire = self._wire_cqid(cqid)
        self._route()
        return wire

    def _wire_cqid(self, cqid: int) -> int:
        """The wire CQID of the model's request `cqid`: drawn from the 12-bit field when the request
        is issued, distinct from this device's other outstanding CQIDs, freed when the model is done."""
        if cqid not in self.cq_wire:
            w = cqid
            if self.cfg.wide_cqids:
                while True:
                    w = self.id_rng.getrandbits(12)
                    if w not in self.cq_model:
                        break
            self.cq_wire[cqid], self.cq_model[w] = w, cqid
        return self.cq_wire[cqid]

    def _free_cqids(self) -> None:
        for c in [c for c in self.cq_wire if c not in self.dc.txns]:
            del self.cq_model[self.cq_wire.pop(c)]

    def store(self, addr: int) -> int:
        v = self.env.fresh()
        self.dc.store(addr, v)
        self._route()
        self.env.emit(Store(self.env.now(), self.port, addr, v))
        return v

    def drop(self, addr: int) -> None:
        self.dc.silent_drop(addr)
        self._route()

    def inject(self, msg: CohMsg) -> None:
        """Send a raw (possibly malformed) message on its D2H channel, ahead of queued answers."""
        {CD2HReq: self.req, CD2HRsp: self.rsp, CD2HData: self.dat}[type(msg)].q.appendleft((0, msg))

    def _route(self, delay: int = 0) -> None:
        out, self.dc.out = self.dc.out, []
        at = self.env.cycle + delay
        for m in out:
            if isinstance(m, CD2HReq):
                self.req.push(replace(m, cqid=self._wire_cqid(m.cqid)))
            elif isinstance(m, CD2HRsp):
                self.rsp.push(self.rsp_hook(m) if self.rsp_hook else m, at)
            else:
                self.dat.push(self.data_hook(m) if self.data_hook else m, at)
        evs, self.dc.events = self.dc.events, []
        t = self.env.now()
        for ev in evs:
            if ev[0] == "state":
                self.env.emit(CacheState(t, self.port, ev[1], ev[2]))
            elif ev[0] == "load":
                _, addr, value, window, cqid = ev
                t0 = self.issue_time.pop(cqid, t)
                self.env.emit(Load(t0 if window is not None else t, t, self.port, addr, value))
            elif ev[0] == "full_write":
                self.store(ev[1])
        for c in list(self.issue_time):
            if c not in self.dc.txns:
                del self.issue_time[c]
        self._free_cqids()

    def random_step(self) -> None:
        cfg, rng, dc = self.cfg, self.rng, self.dc
        r = rng.random()
        if r < cfg.p_issue:
            addr = rng.choice(cfg.lines)
            ops = [o for o in dc.legal_requests(addr, cfg.coherent(addr)) if o in cfg.ops]
            if ops:
                self.issue(rng.choice(ops), addr)
            return
        r -= cfg.p_issue
        free = [a for a in cfg.lines if dc.txn_for(a) is None]
        if r < cfg.p_store:
            cand = [a for a in free if dc.state(a) in (LineState.E, LineState.M)]
            if cand:
                self.store(rng.choice(cand))
            return
        r -= cfg.p_store
        if r < cfg.p_drop:
            cand = [a for a in free if dc.state(a) in (LineState.S, LineState.E)]
            if cand:
                self.drop(rng.choice(cand))
            return
        r -= cfg.p_drop
        if r < cfg.p_load:
            cand = [a for a in cfg.lines if dc.state(a) in READABLE]
            if cand:
                a = rng.choice(cand)
                t = self.env.now()
                self.env.emit(Load(t, t, self.port, a, dc.value(a)))

    # ------------------------------------------------------------------ cycle hooks
    def deliver(self, msg: CohMsg) -> None:
        """An H2D message arrived (handshake at the last rising edge)."""
        if isinstance(msg, CH2DReq):
            n = len(snoop_options(msg.opcode, self.dc.state(msg.addr)))
            c = self.snoop_choice(msg, n) if self.snoop_choice else self.rng.randrange(n)
            self.dc.receive(msg, c % n)
            self.snoop_at[msg.uqid] = self.env.cycle - 1
            lo, hi = self.snoop_delay
            self._route(self.rng.randint(lo, hi))
        else:
            # back to the model's CQID; one this device never used stays unknown to the model
            self.dc.receive(replace(msg, cqid=self.cq_model.get(msg.cqid, -1 - msg.cqid)))
            self._route()

    def taken(self, ch: str) -> CohMsg:
        m = {"req": self.req, "rsp": self.rsp, "dat": self.dat}[ch].taken()
        if isinstance(m, CD2HRsp) and m.uqid in self.snoop_at:
            self.answer_cycles.append(self.env.cycle - 1 - self.snoop_at.pop(m.uqid))
        return m

    def drive(self, snoop_in: CH2DReq | None) -> tuple[CohMsg | None, CohMsg | None, CohMsg | None,
                                                        bool, bool, bool]:
        if self.traffic:
            self.random_step()
        now = self.env.cycle
        rq, rs, da = self.req.drive(now), self.rsp.drive(now), self.dat.drive(now)
        blocked = snoop_in is not None and (self.dc.snoop_blocked(snoop_in) or self.hold_snoops)
        if snoop_in is not None and self.dc.snoop_blocked(snoop_in):
            self.held += 1
        return rq, rs, da, self.rdy_snp.next() and not blocked, self.rdy_rsp.next(), self.rdy_dat.next()

    def busy(self) -> bool:
        return bool(self.dc.txns) or self.req.busy() or self.rsp.busy() or self.dat.busy()


class MemoryAgent(uvm_component):
    """CXL.mem memory: MemRd -> MemData, MemWr -> Cmp, after a random latency."""

    def build_phase(self) -> None:
        self.cfg: CohCfg = ConfigDB().get(self, "", "coh_cfg")
        self.env: CohEnv = self.get_parent()  # type: ignore[assignment]
        self.rng = component_rng(self)
        self.mem: dict[int, int] = dict(self.cfg.mem_init)
        self.drs = Out(_pat(self.cfg.s2m_idle, self.rng))
        self.ndr = Out(_pat(self.cfg.s2m_idle, self.rng))
        self.rdy_req = _pat(self.cfg.mem_ready, self.rng)
        self.rdy_rwd = _pat(self.cfg.mem_ready, self.rng)
        self.reads = 0
        self.writes = 0

    def deliver(self, msg: CohMsg) -> None:
        lo, hi = self.cfg.mem_lat
        at = self.env.cycle + self.rng.randint(lo, hi)
        if isinstance(msg, CM2SReq):
            self.reads += 1
            self.drs.push(CS2MDRS(int(S2MDRSOp.MEMDATA), msg.tag, self.mem.get(msg.addr, 0)), at)
        elif isinstance(msg, CM2SRwD):
            self.writes += 1
            self.mem[msg.addr] = msg.value
            self.ndr.push(CS2MNDR(int(S2MNDROp.CMP), msg.tag), at)

    def busy(self) -> bool:
        return self.drs.busy() or self.ndr.busy()


class CohScoreboard(uvm_component):
    """Model-based scoreboard plus the model's trace checkers on the observed traffic."""

    def build_phase(self) -> None:
        self.cfg: CohCfg = ConfigDB().get(self, "", "coh_cfg")
        self.pred = CohPredictor(self.cfg.n, self.cfg.coherent)
        self.swmr = SwmrChecker()
        self.data = DataValueChecker(initial=dict(self.cfg.mem_init))
        self.wd = RequestWatchdog("wd", self, clk=cocotb.top.clk, bound_cycles=self.cfg.wd_bound)
        self.completion = CompletionChecker(on_done=lambda t, k: self.wd.answered(("req",) + k, int(t)))
        self.ordering = OrderingChecker()
        self.rtl_errors: dict[str, int] = {}
        self.enforce = True
        self.imp = AnalysisImp("imp", self, self.write)
        self.line_txns: dict[int, deque] = {}  # line -> transactions in start order (ordering feed)
        self.held: dict[int, list[PortMsg]] = {}
        self.held_uq: dict[int, int] = {}

    def write(self, ev: Any) -> None:
        if isinstance(ev, tuple) and ev[0] == "start":
            _, t, binv, line, port, cqid = ev
            tx = self.pred.feed_start(t, binv, line, port, cqid)
            if tx is not None:
                self.line_txns.setdefault(line, deque()).append(tx)
            return
        if isinstance(ev, PortMsg):
            m = ev.msg
            self.pred.feed(ev.t, m)
            if isinstance(m, CD2HReq):
                k = (m.port, m.cqid)
                was = k in self.completion.pending
                self.completion.feed(ev)
                if not was and k in self.completion.pending:  # a request the home owes an answer
                    self.wd.accepted(("req",) + k, int(ev.t))
            else:
                self.completion.feed(ev)
            if isinstance(m, CH2DReq):
                self.wd.accepted(("snp", m.port, m.uqid), int(ev.t))
            elif isinstance(m, CD2HRsp) and ("snp", m.port, m.uqid) in self.wd.outstanding:
                self.wd.answered(("snp", m.port, m.uqid), int(ev.t))
            self._ordering_feed(ev)
            self._ordering_flush()
            for t, line, value in self.pred.commits:
                self.data.feed(Store(t, -1, line, value))
            self.pred.commits.clear()
        else:
            self.swmr.feed(ev)
            self.data.feed(ev)

    # The model's OrderingChecker sees H2D messages when the home *sends* them; here they are seen
    # when the device takes them. A later transaction's snoop to one device can be taken before an
    # earlier transaction's GO to another device (still in that device's queue), which the checker
    # would read as "GO while the line has a snoop outstanding". So the snoops of a transaction (and
    # their answers) reach the checker only after every older transaction of the line delivered its
    # H2D answers, which restores the send order per line.
    def _ordering_feed(self, ev: PortMsg) -> None:
        m = ev.msg
        if isinstance(m, CH2DReq):
            q = self.line_txns.get(m.addr, ())
            if any(not tx.outputs_done() for tx in list(q)[:-1]) or m.addr in self.held:
                self.held.setdefault(m.addr, []).append(ev)
                self.held_uq[m.uqid] = m.addr
                return
        elif isinstance(m, (CD2HRsp, CD2HData)) and m.uqid in self.held_uq and self.held_uq[m.uqid] in self.held:
            self.held[self.held_uq[m.uqid]].append(ev)
            return
        self.ordering.feed(ev)

    def _ordering_flush(self) -> None:
        for line, q in list(self.line_txns.items()):
            while len(q) > 1 and q[0].outputs_done():
                q.popleft()
            if len(q) == 1 and q[0].outputs_done() and line not in self.held:
                del self.line_txns[line]
        for line in list(self.held):
            q = self.line_txns.get(line, deque())
            if all(tx.outputs_done() for tx in list(q)[:-1]):
                for ev in self.held.pop(line):
                    if isinstance(ev.msg, CH2DReq):
                        self.held_uq.pop(ev.msg.uqid, None)
                    self.ordering.feed(ev)

    def errors(self, at_quiescence: bool = True) -> list[str]:
        out = self.pred.final_errors() if at_quiescence else list(self.pred.mismatches)
        out += [f"SWMR {v}" for v in self.swmr.violations]
        out += [f"data {v}" for v in self.data.violations]
        out += [f"ordering {v}" for v in self.ordering.violations]
        if at_quiescence:
            self.completion.finish()
        out += [f"completion {v}" for v in self.completion.violations]
        for k in RTL_ERROR_KINDS:
            if self.rtl_errors.get(k, 0) != self.pred.errors[k]:
                out.append(f"error counter {k}: RTL {self.rtl_errors.get(k, 0)}, model {self.pred.errors[k]}")
        return out

    def check_phase(self) -> None:
        errs = self.errors()
        for e in errs[:30]:
            self.logger.error(e)
        if self.enforce:
            assert not errs, f"{len(errs)} scoreboard/checker errors, first: {errs[0]}"


def cov_bins() -> list[str]:
    """Functional-coverage bins of the directed flows: every row of the expected-answer table that
    a policy-following device produces (reach: flow). Rows marked race / decide are checked on
    coh_decide / coh_snoop_plan and against protocol.py (tests/test_coherence_table.py); the RTL
    flows count them when they happen but do not require them."""
    return [r.id for r in load_table().rows if r.reach == "flow"]


class CohCoverage(CoverageCollector):
    """Table rows (flows) plus back-invalidation / conflict / error bins."""

    def __init__(self, name: str, parent: uvm_component, enforce: bool = True,
                 groups: tuple[str, ...] = ("flows",), events: tuple[str, ...] = ()) -> None:
        super().__init__(name, parent, enforce=enforce)
        self.wanted = groups
        g = self.group("flows")
        g.coverpoint("row", cov_bins())
        if "events" in groups:
            e = self.group("events")
            e.coverpoint("event", list(events))
        if "errors" in groups:
            e = self.group("errors")
            e.coverpoint("kind", list(RTL_ERROR_KINDS))
        if "flows" not in groups:
            self.groups.pop("flows")
        self.rows_seen: set[str] = set()

    def sample_decision(self, tx: Any) -> None:
        if tx.exp is None:
            return
        self.rows_seen.add(tx.exp.row)
        if "flows" in self.groups:  # race / decide rows are not bins: they hit nothing
            self.groups["flows"].sample(row=tx.exp.row)

    def sample_event(self, name: str) -> None:
        if "events" in self.groups:
            self.groups["events"].sample(event=name)

    def sample_error(self, kind: str) -> None:
        if "errors" in self.groups:
            self.groups["errors"].sample(kind=kind)


class CohEnv(uvm_env):
    """Device agents + memory + monitor/scoreboard/coverage around coh_home_agent."""

    def build_phase(self) -> None:
        self.cfg: CohCfg = ConfigDB().get(self, "", "coh_cfg")
        self.dut = cocotb.top
        n = self.cfg.n
        self.devs = [CacheDeviceAgent(f"dev{p}", self, p) for p in range(n)]
        self.mem = MemoryAgent("mem", self)
        self.sb = CohScoreboard("sb", self)
        groups = ConfigDB().get(self, "", "coh_cov")
        events = ConfigDB().get(self, "", "coh_cov_events")
        self.cov = CohCoverage("cov", self, enforce=bool(groups), groups=tuple(groups) or ("flows",),
                               events=tuple(events))
        self.ap = uvm_analysis_port("ap", self)
        self.cycle = 0
        self.value_ctr = 0x1000
        self.value_rng = component_rng(self)
        self.quiet = 0
        self.err_pulses = {k: 0 for k in RTL_ERROR_KINDS}
        self.h2d_log: list[tuple[int, CohMsg]] = []  # (cycle, message) of every H2D handshake
        self.trace_starts = 0

    def connect_phase(self) -> None:
        self.ap.connect(self.sb.imp)

    # ------------------------------------------------------------------ helpers for tests/agents
    def now(self) -> float:
        """Time of device-side events: between the last rising edge (cycle-1) and the next one."""
        return self.cycle - 0.5

    def fresh(self) -> int:
        """A line value never used before: random over the 512 bits, a counter in the low 32."""
        self.value_ctr += 1
        return (self.value_rng.getrandbits(480) << 32) | self.value_ctr

    def emit(self, ev: Any) -> None:
        self.ap.write(ev)

    def start(self) -> None:
        dut = self.dut
        n = self.cfg.n
        self.program_ranges()
        for s in ("d2h_req_valid", "d2h_rsp_valid", "d2h_data_valid", "h2d_req_ready", "h2d_rsp_ready",
                  "h2d_data_ready", "s2m_ndr_valid", "s2m_drs_valid"):
            getattr(dut, s).value = 0
        dut.m2s_req_ready.value = 0
        dut.m2s_rwd_ready.value = 0
        del n
        cocotb.start_soon(self._loop())

    def program_ranges(self) -> None:
        """Drive cfg_coh_en/lo/hi from `cfg.ranges` (None: range 0 = [0, nc_base), the others off).
        The tests change them only while the agent is idle and no device caches a line."""
        dut, nr = self.dut, self.cfg.dut.nrange
        rs = list(self.cfg.ranges or ((1, 0, self.cfg.nc_base),))
        assert len(rs) <= nr, f"{len(rs)} ranges for NRANGE={nr}"
        rs += [(0, 0, 0)] * (nr - len(rs))
        dut.cfg_coh_en.value = sum(en << r for r, (en, _, _) in enumerate(rs))
        dut.cfg_coh_lo.value = sum(lo << (r * LW) for r, (_, lo, _) in enumerate(rs))
        dut.cfg_coh_hi.value = sum(hi << (r * LW) for r, (_, _, hi) in enumerate(rs))

    def idle(self) -> bool:
        return (not any(d.busy() for d in self.devs) and not self.mem.busy() and self.sb.pred.idle())

    async def wait_idle(self, max_cycles: int = 5000, settle: int = 8) -> bool:
        """Wait until every agent and the scoreboard are quiet for `settle` cycles."""
        for _ in range(max_cycles):
            await FallingEdge(self.dut.clk)
            if self.idle():
                self.quiet += 1
                if self.quiet >= settle:
                    return True
            else:
                self.quiet = 0
        return False

    async def cycles(self, k: int) -> None:
        for _ in range(k):
            await FallingEdge(self.dut.clk)

    def read_errors(self) -> dict[str, int]:
        v = int(self.dut.err_count.value)
        w = self.cfg.dut.cnt_w
        return {k: (v >> (i * w)) & ((1 << w) - 1) for i, k in enumerate(RTL_ERROR_KINDS)}

    # ------------------------------------------------------------------ the cycle loop
    async def _loop(self) -> None:
        dut = self.dut
        n = self.cfg.n
        pending: list[tuple] = []
        last: dict[str, int] = {}

        def put(name: str, value: int) -> None:
            if last.get(name) != value:
                getattr(dut, name).value = value
                last[name] = value

        while True:
            await FallingEdge(dut.clk)
            self.cycle = cycle_at()
            self._deliver(pending)
            # drive
            h2d_req_v = int(dut.h2d_req_valid.value)
            snoop_in: list[CH2DReq | None] = [None] * n
            if h2d_req_v:
                hdrs = dut.h2d_req_hdr.value
                for p in range(n):
                    if h2d_req_v >> p & 1:
                        snoop_in[p] = from_cxl(H2DReq.from_canonical(lane_int(hdrs, p, 128)), p)  # type: ignore
            rv = sv = dv = 0
            rh = sh = dh = dd = 0
            rdy = [0, 0, 0]
            presented: list[tuple] = []
            for p, d in enumerate(self.devs):
                rq, rs, da, r0, r1, r2 = d.drive(snoop_in[p])
                presented.append((rq, rs, da))
                if rq is not None:
                    rv |= 1 << p
                    rh |= to_cxl(rq).to_canonical() << (128 * p)
                if rs is not None:
                    sv |= 1 << p
                    sh |= to_cxl(rs).to_canonical() << (128 * p)
                if da is not None:
                    dv |= 1 << p
                    dh |= to_cxl(da).to_canonical() << (128 * p)
                    dd |= (da.value & M512) << (512 * p)  # type: ignore[union-attr]
                rdy[0] |= int(r0) << p
                rdy[1] |= int(r1) << p
                rdy[2] |= int(r2) << p
            put("d2h_req_valid", rv)
            if rv:
                put("d2h_req_hdr", rh)
            put("d2h_rsp_valid", sv)
            if sv:
                put("d2h_rsp_hdr", sh)
            put("d2h_data_valid", dv)
            if dv:
                put("d2h_data_hdr", dh)
                put("d2h_data_data", dd)
            put("h2d_req_ready", rdy[0])
            put("h2d_rsp_ready", rdy[1])
            put("h2d_data_ready", rdy[2])
            m = self.mem
            drs, ndr = m.drs.drive(self.cycle), m.ndr.drive(self.cycle)
            put("s2m_drs_valid", int(drs is not None))
            if drs is not None:
                put("s2m_drs_hdr", to_cxl(drs).to_canonical())
                put("s2m_drs_data", drs.value & M512)  # type: ignore[union-attr]
            put("s2m_ndr_valid", int(ndr is not None))
            if ndr is not None:
                put("s2m_ndr_hdr", to_cxl(ndr).to_canonical())
            put("m2s_req_ready", int(m.rdy_req.next()))
            put("m2s_rwd_ready", int(m.rdy_rwd.next()))
            # sample
            await ReadOnly()
            pending = self._sample(presented, drs, ndr)

    def _sample(self, presented: list[tuple], drs: CohMsg | None, ndr: CohMsg | None) -> list[tuple]:
        dut, n = self.dut, self.cfg.n
        t = self.cycle
        hs: list[tuple] = []
        rr = int(dut.d2h_req_ready.value)
        sr = int(dut.d2h_rsp_ready.value)
        dr = int(dut.d2h_data_ready.value)
        # a start of this cycle was picked in an earlier cycle (lane A's stage 2 decides it): it
        # comes before the requests accepted in this cycle
        if int(dut.trc_valid.value):
            hs.append(("start", int(dut.trc_binv.value), int(dut.trc_line.value), int(dut.trc_port.value),
                       int(dut.trc_cqid.value)))
        for p in range(n):
            if presented[p][0] is not None and rr >> p & 1:
                hs.append(("d2h", p, "req", presented[p][0]))
        for p in range(n):
            if presented[p][1] is not None and sr >> p & 1:
                hs.append(("d2h", p, "rsp", presented[p][1]))
            if presented[p][2] is not None and dr >> p & 1:
                hs.append(("d2h", p, "dat", presented[p][2]))
        if drs is not None and int(dut.s2m_drs_ready.value):
            hs.append(("s2m", "drs", drs))
        if ndr is not None and int(dut.s2m_ndr_ready.value):
            hs.append(("s2m", "ndr", ndr))
        for name, cls in (("h2d_data", H2DData), ("h2d_rsp", H2DRsp), ("h2d_req", H2DReq)):
            v = int(getattr(dut, f"{name}_valid").value) & int(getattr(dut, f"{name}_ready").value)
            if not v:
                continue
            hdrs = getattr(dut, f"{name}_hdr").value
            for p in range(n):
                if v >> p & 1:
                    raw = lane_int(hdrs, p, 128)
                    if name == "h2d_data":
                        msg = cls.from_canonical(raw, lane_int(dut.h2d_data_data.value, p, 512).to_bytes(64, "little"))
                    else:
                        msg = cls.from_canonical(raw)
                    if msg.cacheid != p:
                        self.sb.pred.mismatches.append(f"t={t}: {name} on port {p} carries CacheID {msg.cacheid}")
                    hs.append(("h2d", p, from_cxl(msg, p)))
        if int(dut.m2s_req_valid.value) and int(dut.m2s_req_ready.value):
            hs.append(("m2s", from_cxl(M2SReq.from_canonical(int(dut.m2s_req_hdr.value)))))
        if int(dut.m2s_rwd_valid.value) and int(dut.m2s_rwd_ready.value):
            d = int(dut.m2s_rwd_data.value).to_bytes(64, "little")
            hs.append(("m2s", from_cxl(M2SRwD.from_canonical(int(dut.m2s_rwd_hdr.value), d))))
        pulses = int(dut.err_pulse.value)
        if pulses:
            for i, k in enumerate(RTL_ERROR_KINDS):
                if pulses >> i & 1:
                    self.err_pulses[k] += 1
                    self.cov.sample_error(k)
        return [(t,) + h for h in hs]

    def _deliver(self, pending: list[tuple]) -> None:
        for h in pending:
            t, kind = h[0], h[1]
            if kind == "d2h":
                _, _, p, ch, _ = h
                self.emit(PortMsg(t, self.devs[p].taken(ch)))
            elif kind == "start":
                _, _, binv, line, port, cqid = h
                self.trace_starts += 1
                if binv:
                    self.cov.sample_event("back_invalidation")
                self.emit(("start", t, bool(binv), line, port, cqid))
            elif kind == "s2m":
                msg = h[3]
                (self.mem.drs if h[2] == "drs" else self.mem.ndr).taken()
                self.emit(PortMsg(t, msg))
            elif kind == "h2d":
                _, _, p, msg = h
                self.h2d_log.append((t, msg))
                self.emit(PortMsg(t, msg))
            elif kind == "m2s":
                msg = h[2]
                self.emit(PortMsg(t, msg))
                self.mem.deliver(msg)
        # device deliveries after the monitor saw the whole cycle (data before rsp before snoops)
        order = {CH2DData: 0, CH2DRsp: 1, CH2DReq: 2}
        for h in sorted((h for h in pending if h[1] == "h2d"), key=lambda h: order[type(h[3])]):
            self.devs[h[2]].deliver(h[3])
        for tx in self.sb.pred.decisions:
            self.cov.sample_decision(tx)
        self.sb.pred.decisions.clear()
