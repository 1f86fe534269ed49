"""cocotb harness for rtl/edge/sp_rack_edge.v: drives sim/traffic request streams into the bridges,
plays peer caching devices on the home agent, and times every block boundary from the `tap_*` ports.

One coroutine runs the cycle loop (cheap: about ten signal reads per cycle). At each falling edge
(cycle number `cyc`) it drives the inputs for the next rising edge; in ReadOnly it samples every
valid/ready pair. A handshake sampled there happens at the next rising edge; an output's
*first-valid* cycle is the first `cyc` its valid was seen for that item. Hop latencies are
differences of first-valid cycles ("from the valid at one boundary to the valid at the other").

Knobs (`CosimCfg`): requests per bridge, request sources, switch mode (one switch hop "direct" /
two hops "cascade"), far-memory latencies, idle cycles before each request, back-pressure on the
XLink response side and on the peers, peer request rate, peer write share and snoop-answer delay.
"""
from __future__ import annotations

import random
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge

from models.bridge.packets import NVLINK, UALINK, XlHeader, XlOp, len_field_for
from models.coherence.device import DeviceCache
from models.coherence.protocol import READ_OPS, LineState as L
from models.coherence.msgs import CD2HReq, CD2HRsp, CH2DReq, from_cxl, to_cxl
from models.cxl.messages import D2HReqOp, D2HRspOp, H2DData, H2DReq, H2DRsp
from models.switch import SwitchConfig
from sim.cosim.knobs import CosimCfg
from sim.cosim.stream import LINE, Request, Window, llm_requests, tiering_requests
from tb.common.cfg_agent import CfgAgent
from tb.common.signals import lane_int
from tb.switch.regs import RESP_OK

DATA_TAG = 0x3C0DE            # sp_mem_node: each 64-bit word of a line = {DATA_TAG, Addr[51:6]}
KIND = {0: "miss", 1: "hit", 2: "wbfwd", 3: "coh_rd", 4: "wr", 5: "wr", 6: "wr", 7: "coh_wr"}
# tap channel offsets (rtl/edge/sp_rack_edge.v header)
B_REQ, B_RWD, B_NDR, B_DRS, B_D2H, B_H2D = range(6)
N_REQ, N_RWD, N_NDR, N_DRS = range(4)
# A peer's read/evict requests (DirtyEvict: legal only from M, i.e. after one of its stores) ...
PEER_OPS = (D2HReqOp.RDSHARED, D2HReqOp.RDOWN, D2HReqOp.RDANY, D2HReqOp.CLEANEVICT, D2HReqOp.CLEANEVICTNODATA,
            D2HReqOp.DIRTYEVICT)
# ... and the requests of its write share (`peer_write_p`) on a line it does not hold (I): the writes
# the home agent and the model serve in the coherent range (ItoMWr, WrCur: GO_WritePull; WrInv:
# WritePull then GO-I; WOWrInv/F: Fast_GO_WritePull then ExtCmp; each pushes the line on D2H Data),
# RdOwnNoData (ownership without data, then a full-line store) and CLFlush (no data from the peer;
# a dirty holder's forwarded line is written to memory). From S the write share upgrades with RdOwn /
# RdOwnNoData; a line held in E or M is stored to locally (E -> M).
PEER_WRITE_OPS = (D2HReqOp.ITOMWR, D2HReqOp.WRCUR, D2HReqOp.WRINV, D2HReqOp.WOWRINV, D2HReqOp.WOWRINVF,
                  D2HReqOp.RDOWNNODATA, D2HReqOp.CLFLUSH)
PEER_UPGRADE_OPS = (D2HReqOp.RDOWN, D2HReqOp.RDOWNNODATA)
D2H_WRITES = frozenset((D2HReqOp.ITOMWR, D2HReqOp.WRCUR, D2HReqOp.WRINV, D2HReqOp.WOWRINV, D2HReqOp.WOWRINVF))
FWD_DIRTY = frozenset((D2HRspOp.RSPIFWDM, D2HRspOp.RSPSFWDM, D2HRspOp.RSPVFWDV))


def line_word(line: int) -> int:
    return (DATA_TAG << 46) | line


def line_data(line: int) -> int:
    w = line_word(line)
    return sum(w << (64 * i) for i in range(8))


class LineHistory:
    """Every write and read of a line with its time interval, and the values a read may return.

    A write is (start, end, value): it takes effect somewhere in [start, end] (a peer's store:
    start = end = its cycle; a peer's write request: issue to the cycle its transaction completed;
    a bridge write: request valid to acknowledgement). A read over [a, b] (request valid to answer)
    may return the value of any write that started by b, unless a later write (started after it
    ended) had ended before a; or the line's memory image, unless some write had ended before a.
    Intervals are taken wide (issue and completion as the harness sees them), so the check never
    refuses a legal order; it does refuse a stale value: one overwritten by a write that completed
    before the read began (a lost or out-of-order write-back, a missed snoop).
    """

    def __init__(self) -> None:
        self.writes: dict[int, list[list[int]]] = defaultdict(list)    # line -> [start, end, value]
        self.reads: list[tuple[str, int, int | None, int, int]] = []     # (who, line, value, a, b)

    def write(self, line: int, value: int, start: int, end: int = -1) -> list[int]:
        rec = [start, end, value]
        self.writes[line].append(rec)
        return rec

    def read(self, who: str, line: int, value: int | None, a: int, b: int) -> None:
        self.reads.append((who, line, value, a, b))

    def legal(self, line: int, a: int, b: int) -> set[int]:
        ws = [w for w in self.writes.get(line, []) if w[1] >= 0]
        ok = set() if any(w[1] < a for w in ws) else {line_data(line)}
        for w in ws:
            if w[0] <= b and not any(v[0] > w[1] and v[1] < a for v in ws):
                ok.add(w[2])
        return ok

    def check(self) -> tuple[list[str], int, int]:
        """(errors, reads checked, reads that returned a value some peer wrote)."""
        err: list[str] = []
        peer_vals = 0
        for who, line, value, a, b in self.reads:
            if value is None or value not in self.legal(line, a, b):
                err.append(f"{who}: read of line {line:#x} over cycles {a}..{b} returned "
                           f"{'no data' if value is None else 'a stale or unknown value'}")
            elif value != line_data(line):
                peer_vals += 1
        open_w = sum(1 for ws in self.writes.values() for w in ws if w[1] < 0)
        if open_w:
            err.append(f"{open_w} writes never completed")
        return err, len(self.reads), peer_vals


def peer_value(line: int, port: int, n: int) -> int:
    """The n-th value peer `port` writes to `line`: the image with its top word's upper bits marked
    (never the image, unique per port and write)."""
    return line_data(line) ^ ((((port & 0xFF) << 24) | (n & 0xFFFFFF)) + 1) << (448 + 24)


@dataclass
class XReq:
    bridge: int
    seq: int
    req: Request
    tag: int
    t_valid: int = -1                  # first cycle the header beat was valid
    t_rsp: int = -1                    # first cycle the response header was valid
    kind: str = ""                     # bridge's line kind (miss/hit/wbfwd/coh_rd/wr/coh_wr)
    t_line: int = -1


@dataclass
class Tap:
    """Per channel: current item's first-valid cycle, and completed (id, first_valid, fire)."""

    first: int = -1
    events: list[tuple[int, int, int]] = field(default_factory=list)


class Peer:
    """A caching device on a home-agent port, decisions from models.coherence.DeviceCache.

    Each cycle, with probability `peer_p`, the peer acts on a random line of the coherent range: a
    read or eviction (PEER_OPS that the model allows from the line's state), or with probability
    `peer_write_p` a write: a store to a line it holds in E or M (the line becomes M), else a write
    request from I or an ownership upgrade from S (PEER_WRITE_OPS / PEER_UPGRADE_OPS). Half of the
    writes go to a line the peer already holds in E or M when it has one, so lines reach M; a write
    that picks a line already in M writes it back instead (DirtyEvict) half of the time. Dirty lines
    also leave through snoop answers that forward them (RspIFwdM / RspSFwdM / RspVFwdV).

    Every value a peer writes is new (`peer_value`: the image with a mark unique to the peer and
    the write); writes and reads are entered in `hist` with their cycles, so every read, a peer's
    or a bridge's, is checked against the values it may legally return (`LineHistory`).
    """

    def __init__(self, port: int, lines: list[int], rng: random.Random, cfg: CosimCfg,
                 hist: LineHistory | None = None) -> None:
        self.dev = DeviceCache(port, n_cqid=4)
        self.hist = hist if hist is not None else LineHistory()
        self.now = 0                                  # the harness cycle of the current action
        self.wseq = 0                                 # values written so far (peer_value's n)
        self.wrec: dict[int, list[int]] = {}          # cqid -> history record of an open write request
        self.rissue: dict[int, int] = {}              # cqid -> issue cycle of an open read
        self.lines = lines
        self.rng = rng
        self.cfg = cfg
        self.q: dict[str, deque] = {"req": deque(), "rsp": deque(), "data": deque()}
        self.snoops: deque[tuple[CH2DReq, int, int]] = deque()    # (snoop, due cycle, first-valid)
        self.answer_times: dict[int, list[tuple[int, int, int]]] = defaultdict(list)  # line -> (t_snp, t_ans, uqid)
        self.pending_ans: dict[int, tuple[int, int]] = {}            # uqid -> (line, t_snoop_valid)
        self.requests = 0
        self.ops: dict[str, int] = defaultdict(int)   # requests issued, by opcode name
        self.stores = 0                               # local stores (line left in M)
        self.fwd_dirty = 0                            # snoop answers that forwarded a dirty line
        self.data_sent = 0                            # D2H Data messages (write pushes, evictions, forwards)
        self.loads = 0                                # completed reads (entered in hist)

    def step(self, cyc: int, new_requests: bool = True) -> None:
        self.now = cyc
        # snoops in arrival order, each after its delay, held while the model says so
        while self.snoops and self.snoops[0][1] <= cyc and not self.dev.snoop_blocked(self.snoops[0][0]):
            m, _, t0 = self.snoops.popleft()
            self.dev.receive(m, self.rng.randrange(self.dev.snoop_choices(m)))
            self.pending_ans[m.uqid] = (m.addr, t0)
            self._drain()
        if new_requests and self.rng.random() < self.cfg.peer_p and not self.q["req"]:
            if self.cfg.peer_write_p > 0 and self.rng.random() < self.cfg.peer_write_p:
                self._write()
                return
            addr = self.rng.choice(self.lines)
            ops = [op for op in self.dev.legal_requests(addr, True) if op in PEER_OPS]
            if ops:
                self._issue(self.rng.choice(ops), addr)

    def _write(self) -> None:
        owned = [a for a, (st, _) in sorted(self.dev.lines.items()) if st in (L.E, L.M) and self.dev.can_issue(a)]
        addr = self.rng.choice(owned) if owned and self.rng.random() < 0.5 else self.rng.choice(self.lines)
        st = self.dev.state(addr)
        if st == L.M and self.dev.can_issue(addr) and self.rng.random() < 0.5:
            self._issue(D2HReqOp.DIRTYEVICT, addr)      # write the dirty line back
            return
        if st in (L.E, L.M) and self.dev.txn_for(addr) is None:
            self._store(addr)
            return
        legal = self.dev.legal_requests(addr, True)
        ops = [op for op in (PEER_WRITE_OPS if st == L.I else PEER_UPGRADE_OPS) if op in legal]
        if ops:
            self._issue(self.rng.choice(ops), addr)

    def _new_value(self, addr: int) -> int:
        self.wseq += 1
        return peer_value(addr, self.dev.port, self.wseq)

    def _store(self, addr: int) -> None:
        v = self._new_value(addr)
        self.dev.store(addr, v)
        self.hist.write(addr, v, self.now, self.now)
        self.stores += 1

    def _issue(self, op: int, addr: int) -> None:
        wvalue = self._new_value(addr) if op in D2H_WRITES else None
        cqid = self.dev.issue(op, addr, wvalue=wvalue)
        if wvalue is not None:
            self.wrec[cqid] = self.hist.write(addr, wvalue, self.now)
        elif op in READ_OPS:
            self.rissue[cqid] = self.now
        self.requests += 1
        self.ops[D2HReqOp(op).name] += 1
        self._drain()

    def _drain(self) -> None:
        evs = list(self.dev.events)
        self.dev.events.clear()
        for ev in evs:
            if ev[0] == "full_write":      # RdOwnNoData got ownership: the full-line store happens now
                self._store(ev[1])
            elif ev[0] == "load":
                self.loads += 1
                self.hist.read(f"peer on home-agent port {self.dev.port}", ev[1], ev[2], self.rissue.pop(ev[4]),
                               self.now)
        self.dev.events.clear()        # the stores' own state events
        for cqid in [c for c in self.wrec if c not in self.dev.txns]:
            self.wrec.pop(cqid)[1] = self.now          # the write request completed
        for m in self.dev.out:
            ch = "req" if isinstance(m, CD2HReq) else "rsp" if isinstance(m, CD2HRsp) else "data"
            if ch == "rsp" and m.opcode in FWD_DIRTY:
                self.fwd_dirty += 1
            elif ch == "data":
                self.data_sent += 1
            self.q[ch].append(m)
        self.dev.out.clear()

    def receive(self, m: Any, cyc: int, t_first: int) -> None:
        self.now = cyc
        if isinstance(m, CH2DReq):
            self.snoops.append((m, cyc + self.rng.randint(0, self.cfg.peer_delay), t_first))
        else:
            self.dev.receive(m)
            self._drain()

    def answered(self, m: Any, t_first: int) -> None:
        if isinstance(m, CD2HRsp) and m.uqid in self.pending_ans:
            line, t0 = self.pending_ans.pop(m.uqid)
            self.answer_times[line].append((t0, t_first, m.uqid))

    def busy(self) -> bool:
        return bool(self.dev.txns or self.snoops or any(self.q.values()))


class EdgeHarness:
    def __init__(self, dut: Any, cfg: CosimCfg, seed: int, win: Window = Window()) -> None:
        self.dut, self.cfg, self.seed, self.win = dut, cfg, seed, win
        self.regs = CfgAgent(dut, resp_ok=RESP_OK, sel="sel")     # both switches' registers (cfg_sel)
        self.nbr = len(dut.xl_rx_valid)
        self.npeer = len(dut.peer_d2h_req_valid)
        self.ntap = len(dut.tap_valid)
        self.nmn = (self.ntap - 6 * self.nbr) // 4 - 1
        if cfg.nbr > self.nbr:
            raise ValueError(f"cfg.nbr={cfg.nbr} but the RTL top has {self.nbr} bridges")
        self.rng = random.Random(seed)
        self.flavor = [UALINK if b == 0 else NVLINK for b in range(self.nbr)]   # FLAVOR = b in the RTL
        self.reqs: list[list[XReq]] = [[] for _ in range(self.nbr)]
        self.pending: list[deque[XReq]] = [deque() for _ in range(self.nbr)]   # to send
        self.outst: list[deque[XReq]] = [deque() for _ in range(self.nbr)]     # sent, not answered
        self.errors: list[str] = []
        self.taps = [Tap() for _ in range(self.ntap)]
        self.lines: list[list[tuple[int, str, int]]] = [[] for _ in range(self.nbr)]
        self.ha_reads: list[tuple[int, int, int]] = []   # (line, tag, first-valid) of home memory reads
        self.cyc = 0
        clo, chi = win.coh_hpa_range()
        peer_lines = list(range(clo, clo + min(cfg.coh_lines, chi - clo)))
        self.hist = LineHistory()
        self.peers = [Peer(self.nbr + i, peer_lines, random.Random(seed * 31 + i), cfg, self.hist)
                      for i in range(self.npeer)]
        self.cur_tx = [None] * self.nbr             # beats being sent per bridge
        self.tx_idx = [0] * self.nbr
        self.rsp_beats: list[list[int]] = [[] for _ in range(self.nbr)]
        self.rsp_first = [-1] * self.nbr
        self.peer_out: list[dict[str, Any]] = [dict() for _ in range(self.npeer)]
        self.peer_in_first: list[dict[str, int]] = [dict() for _ in range(self.npeer)]
        self.sent_total = 0

    # ------------------------------------------------------------------ setup
    def build_streams(self) -> None:
        for b in range(min(self.cfg.nbr, self.nbr)):
            src = self.cfg.sources[b % len(self.cfg.sources)]
            s = self.seed * 7 + b
            if src == "tiering":
                rs = tiering_requests(self.cfg.n_per_bridge, s, self.win, self.cfg.pattern, self.cfg.ws_lines,
                                      self.cfg.read_share, self.cfg.coh_share, self.cfg.coh_lines)
            elif src == "llm":
                rs = llm_requests(self.cfg.n_per_bridge, s, self.win, self.cfg.model)
            else:
                raise ValueError(f"request source {src!r}: 'tiering' or 'llm'")
            for i, r in enumerate(rs):
                x = XReq(b, i, r, tag=i % 1024)
                self.reqs[b].append(x)
                self.pending[b].append(x)

    def switch_configs(self) -> tuple[SwitchConfig, SwitchConfig | None]:
        from sim.cosim.hil import switch_configs
        return switch_configs(self.cfg.mode, self.win, self.nmn)

    async def program(self) -> None:
        from sim.cosim.hil import program_switches
        await program_switches(self.regs, self.cfg.mode, self.win, self.nmn)

    async def counters(self, sel: int) -> dict[str, int]:
        from sim.cosim.hil import read_counters
        return await read_counters(self.regs, sel)

    async def start(self) -> None:
        d = self.dut
        for s in ("xl_rx_valid", "xl_rx_data", "xl_rx_last", "cfg_valid", "cfg_sel", "cfg_write", "cfg_addr",
                  "cfg_wdata", "peer_d2h_req_valid", "peer_d2h_req_hdr", "peer_d2h_rsp_valid", "peer_d2h_rsp_hdr",
                  "peer_d2h_data_valid", "peer_d2h_data_hdr", "peer_d2h_data_data"):
            getattr(d, s).value = 0
        d.xl_tx_ready.value = (1 << self.nbr) - 1
        for s in ("peer_h2d_req_ready", "peer_h2d_rsp_ready", "peer_h2d_data_ready"):
            getattr(d, s).value = (1 << self.npeer) - 1
        d.t2_lat.value = self.cfg.t2_lat
        d.ha_lat.value = self.cfg.ha_lat
        clo, chi = self.win.coh_hpa_range()
        d.coh_en.value = 1
        d.coh_lo.value = clo
        d.coh_hi.value = chi
        Clock(d.clk, 1, unit="ns").start(start_high=True)
        d.rst.value = 1
        await ClockCycles(d.clk, 5)
        await FallingEdge(d.clk)
        d.rst.value = 0
        await self.program()

    # ------------------------------------------------------------------ packets
    def packet(self, x: XReq) -> list[tuple[int, bool]]:
        fl = self.flavor[x.bridge]
        op = XlOp.WRITE if x.req.write else XlOp.READ
        hdr = XlHeader(opcode=int(op), tag=x.tag, src=x.bridge, len=len_field_for(fl, LINE), addr=x.req.addr)
        beats = [hdr.pack()]
        if x.req.write:
            beats.append(line_data(self.win.hpa_line(x.req.addr)))
        return [(bt, i == len(beats) - 1) for i, bt in enumerate(beats)]

    # ------------------------------------------------------------------ cycle loop
    def done_sending(self) -> bool:
        return all(not p for p in self.pending) and all(c is None for c in self.cur_tx)

    def quiet(self) -> bool:
        return (self.done_sending() and all(not o for o in self.outst) and not any(p.busy() for p in self.peers)
                and all(t.first < 0 for t in self.taps))

    async def run(self, peers_stop_with_traffic: bool = True) -> int:
        d = self.dut
        nbr, npeer = self.nbr, self.npeer
        idle_quiet = 0
        while self.cyc < self.cfg.max_cycles:
            await FallingEdge(d.clk)
            self.cyc += 1
            cyc = self.cyc
            # ---- drive XLink requests
            rx_v, rx_d, rx_l = 0, 0, 0
            for b in range(nbr):
                if self.cur_tx[b] is None and self.pending[b] and self.rng.random() >= self.cfg.idle_p:
                    x = self.pending[b].popleft()
                    self.cur_tx[b] = (x, self.packet(x))
                    self.tx_idx[b] = 0
                    x.t_valid = cyc
                    self.outst[b].append(x)
                if self.cur_tx[b] is not None:
                    beat, last = self.cur_tx[b][1][self.tx_idx[b]]
                    rx_v |= 1 << b
                    rx_d |= beat << (512 * b)
                    rx_l |= int(last) << b
            d.xl_rx_valid.value = rx_v
            d.xl_rx_data.value = rx_d
            d.xl_rx_last.value = rx_l
            rdy = 0
            for b in range(nbr):
                if self.cfg.ready_p >= 1.0 or self.rng.random() < self.cfg.ready_p:
                    rdy |= 1 << b
            d.xl_tx_ready.value = rdy
            # ---- peers
            traffic_on = not (peers_stop_with_traffic and self.done_sending() and not any(self.outst))
            pv = {"req": 0, "rsp": 0, "data": 0}
            ph = {"req": 0, "rsp": 0, "data": 0}
            pdata = 0
            for i, p in enumerate(self.peers):
                p.step(cyc, traffic_on)   # after the traffic, peers only answer and finish
                for ch in ("req", "rsp", "data"):
                    cur = self.peer_out[i].get(ch)
                    if cur is None and p.q[ch]:
                        cur = p.q[ch].popleft()
                        self.peer_out[i][ch] = cur
                        self.peer_in_first[i][ch] = cyc
                        if ch == "rsp":
                            p.answered(cur, cyc)
                    if cur is not None:
                        pv[ch] |= 1 << i
                        cm = to_cxl(cur)
                        ph[ch] |= cm.to_canonical() << (128 * i)
                        if ch == "data":
                            pdata |= int.from_bytes(cm.data, "little") << (512 * i)
            if npeer:
                d.peer_d2h_req_valid.value = pv["req"]
                d.peer_d2h_req_hdr.value = ph["req"]
                d.peer_d2h_rsp_valid.value = pv["rsp"]
                d.peer_d2h_rsp_hdr.value = ph["rsp"]
                d.peer_d2h_data_valid.value = pv["data"]
                d.peer_d2h_data_hdr.value = ph["data"]
                d.peer_d2h_data_data.value = pdata
                if self.cfg.peer_ready_p < 1.0:
                    for s in ("peer_h2d_req_ready", "peer_h2d_rsp_ready", "peer_h2d_data_ready"):
                        v = sum(1 << i for i in range(npeer) if self.rng.random() < self.cfg.peer_ready_p)
                        getattr(d, s).value = v
            await ReadOnly()
            self.sample(cyc, rx_v, rdy, pv)
            if self.quiet():
                idle_quiet += 1
                # long enough for any request still inside a memory node to come back out
                if (idle_quiet > max(self.cfg.t2_lat, self.cfg.ha_lat) + 20
                        and all(int(d.br_wb_empty.value) >> b & 1 for b in range(nbr))):
                    return cyc
            else:
                idle_quiet = 0
        self.errors.append(f"simulation did not finish within {self.cfg.max_cycles} cycles")
        return self.cyc

    def sample(self, cyc: int, rx_v: int, rdy: int, pv: dict[str, int]) -> None:
        d = self.dut
        # XLink requests accepted
        if rx_v:
            rr = int(d.xl_rx_ready.value)
            for b in range(self.nbr):
                if rx_v >> b & 1 and rr >> b & 1:
                    self.tx_idx[b] += 1
                    if self.tx_idx[b] == len(self.cur_tx[b][1]):
                        self.cur_tx[b] = None
                        self.sent_total += 1
        # XLink responses
        tv = int(d.xl_tx_valid.value)
        if tv:
            data = None
            for b in range(self.nbr):
                if not tv >> b & 1:
                    continue
                if self.rsp_first[b] < 0 and not self.rsp_beats[b]:
                    self.rsp_first[b] = cyc
                if rdy >> b & 1:
                    if data is None:
                        data = d.xl_tx_data.value
                        last = d.xl_tx_last.value
                    self.rsp_beats[b].append(lane_int(data, b, 512))
                    if lane_int(last, b, 1):
                        self.response(b, self.rsp_beats[b], self.rsp_first[b])
                        self.rsp_beats[b] = []
                        self.rsp_first[b] = -1
        # bridge line kinds
        lv = int(d.br_line_valid.value)
        if lv:
            kinds = d.br_line_kind.value
            seqs = d.br_line_seq.value
            for b in range(self.nbr):
                if lv >> b & 1:
                    self.lines[b].append((lane_int(seqs, b, 16), KIND.get(lane_int(kinds, b, 3), "?"), cyc))
        # taps
        tvv = int(d.tap_valid.value)
        if tvv:
            trr = int(d.tap_ready.value)
            ids = None
            for ch in range(self.ntap):
                if not tvv >> ch & 1:
                    continue
                t = self.taps[ch]
                if t.first < 0:
                    t.first = cyc
                if trr >> ch & 1:
                    if ids is None:
                        ids = d.tap_id.value
                    tid = lane_int(ids, ch, 16)    # idle lanes may be X on Icarus
                    t.events.append((tid, t.first, cyc))
                    if ch == 6 * self.nbr + 4 * self.nmn + N_REQ:
                        self.ha_reads.append((int(d.tap_ha_line.value), tid, t.first))
                    t.first = -1
        # peers: D2H accepted, H2D received
        if self.npeer:
            rd = {"req": int(d.peer_d2h_req_ready.value), "rsp": int(d.peer_d2h_rsp_ready.value),
                  "data": int(d.peer_d2h_data_ready.value)}
            for i in range(self.npeer):
                for ch in ("req", "rsp", "data"):
                    if pv[ch] >> i & 1 and rd[ch] >> i & 1:
                        self.peer_out[i][ch] = None
            hv = {"req": int(d.peer_h2d_req_valid.value), "rsp": int(d.peer_h2d_rsp_valid.value),
                  "data": int(d.peer_h2d_data_valid.value)}
            if any(hv.values()):
                hr = {"req": int(d.peer_h2d_req_ready.value), "rsp": int(d.peer_h2d_rsp_ready.value),
                      "data": int(d.peer_h2d_data_ready.value)}
                for i in range(self.npeer):
                    port = self.nbr + i
                    for ch, cls_ in (("data", H2DData), ("rsp", H2DRsp), ("req", H2DReq)):
                        key = f"h2d_{ch}"
                        if hv[ch] >> i & 1:
                            self.peer_in_first[i].setdefault(key, cyc)
                            if hr[ch] >> i & 1:
                                hdr = lane_int(getattr(d, f"peer_h2d_{ch}_hdr").value, i, 128)
                                if ch == "data":
                                    raw = lane_int(d.peer_h2d_data_data.value, i, 512)
                                    m = cls_.from_canonical(hdr, raw.to_bytes(64, "little"))
                                else:
                                    m = cls_.from_canonical(hdr)
                                self.peers[i].receive(from_cxl(m, port), cyc, self.peer_in_first[i].pop(key))

    def response(self, b: int, beats: list[int], t_first: int) -> None:
        if not self.outst[b]:
            self.errors.append(f"bridge {b}: response with no outstanding request at cycle {self.cyc}")
            return
        x = self.outst[b].popleft()
        h = XlHeader.unpack(beats[0] & ((1 << 96) - 1))
        want_op = XlOp.WR_ACK if x.req.write else XlOp.RD_DATA
        if h.opcode != want_op or h.status != 0 or h.tag != x.tag or h.addr != x.req.addr:
            self.errors.append(f"bridge {b} request {x.seq} ({x.req}): response op {h.opcode:#x} status "
                               f"{h.status} tag {h.tag} addr {h.addr:#x}")
        line = self.win.hpa_line(x.req.addr)
        if x.req.write:
            self.hist.write(line, line_data(line), x.t_valid, t_first)
        else:
            self.hist.read(f"bridge {b} request {x.seq}", line, beats[1] if len(beats) == 2 else None,
                           x.t_valid, t_first)
        x.t_rsp = t_first

    def peer_counts(self) -> dict[str, int]:
        """What the peers did, summed over peers (the JSON's counts): requests (and per opcode), writes
        (stores, write requests that push a line), dirty evictions, snoop answers forwarding a dirty
        line, D2H Data messages, completed peer reads."""
        ps = self.peers
        ops: dict[str, int] = defaultdict(int)
        for p in ps:
            for k, v in p.ops.items():
                ops[k] += v
        c = {"peer_requests": sum(p.requests for p in ps), "peer_stores": sum(p.stores for p in ps),
             "peer_write_requests": sum(ops[D2HReqOp(op).name] for op in D2H_WRITES),
             "peer_dirty_evicts": ops["DIRTYEVICT"], "peer_fwd_dirty": sum(p.fwd_dirty for p in ps),
             "peer_d2h_data": sum(p.data_sent for p in ps), "peer_reads": sum(p.loads for p in ps)}
        c.update({f"peer_op.{k}": v for k, v in sorted(ops.items())})
        return c

    # ------------------------------------------------------------------ analysis
    def _take(self, evs: list[tuple[int, int, int]], used: set[int], ident: int, after: int) -> tuple[int, int, int] | None:
        """Earliest unused event with id `ident` whose first-valid is >= `after`."""
        for k, e in enumerate(evs):
            if k not in used and e[0] == ident and e[1] >= after:
                used.add(k)
                return e
        return None

    def collect(self) -> tuple[dict[str, list[int]], dict[str, int], list[str]]:
        """Per-path latency samples (cycles), counts, and consistency errors of the matching."""
        S: dict[str, list[int]] = defaultdict(list)
        cnt: dict[str, int] = defaultdict(int)
        err: list[str] = []
        nb = 6 * self.nbr
        node_ch = [nb + 4 * n for n in range(self.nmn)]
        ha_ch = nb + 4 * self.nmn
        used: dict[int, set[int]] = defaultdict(set)

        def find_node(tag: int, after: int, req_c: int, rsp_c: int):
            """The request's arrival at whichever node saw the tag first after `after`, and its answer."""
            best = None
            for base in node_ch:
                evs, u = self.taps[base + req_c].events, used[base + req_c]
                k = next((k for k, e in enumerate(evs) if k not in u and e[0] == tag and e[1] >= after), None)
                if k is not None and (best is None or evs[k][1] < best[2][1]):
                    best = (base, k, evs[k])
            if best is None:
                return None, None
            base, k, e = best
            used[base + req_c].add(k)
            r = self._take(self.taps[base + rsp_c].events, used[base + rsp_c], tag, e[2])
            return e, r

        for b in range(self.nbr):
            kinds: dict[int, list[str]] = defaultdict(list)
            for seq, kind, _ in self.lines[b]:
                kinds[seq].append(kind)
            miss_ev = iter(self.taps[6 * b + B_REQ].events)
            d2h_ev = iter(self.taps[6 * b + B_D2H].events)
            for x in self.reqs[b]:
                ks = kinds.get(x.seq, [])
                if len(ks) != 1:
                    err.append(f"bridge {b} request {x.seq}: issued lines {ks}, expected one")
                    continue
                x.kind = ks[0]
                if x.t_rsp < 0:
                    continue
                total = x.t_rsp - x.t_valid
                cnt[f"{x.kind}"] += 1
                if x.kind == "hit":
                    S["read/bridge_hit"].append(total)
                elif x.kind == "wbfwd":
                    S["read/bridge_wbfwd"].append(total)
                elif x.kind == "wr":
                    S["write/bridge_posted"].append(total)
                elif x.kind == "coh_wr":
                    S["coh_write/home_agent_total"].append(total)
                    next(d2h_ev, None)
                elif x.kind == "miss":
                    e = next(miss_ev, None)
                    if e is None:
                        err.append(f"bridge {b} request {x.seq}: miss without an M2S Req")
                        continue
                    nq, nr = find_node(e[0], e[1], N_REQ, N_DRS)
                    br = self._take(self.taps[6 * b + B_DRS].events, used[6 * b + B_DRS], e[0], nr[1]) if nr else None
                    if nq is None or nr is None or br is None:
                        err.append(f"bridge {b} request {x.seq}: tag {e[0]:#x} not traced through the switch")
                        continue
                    far = nr[1] - nq[1]
                    S["read/miss_total_incl_far"].append(total)
                    S["far/tier2_read"].append(far)
                    S["read/miss_tier2_fabric"].append(total - far)
                    S["bridge/req_conv"].append(e[1] - x.t_valid)
                    S["switch/m2s_req"].append(nq[1] - e[1])
                    S["switch/s2m_drs"].append(br[1] - nr[1])
                    S["bridge/rsp_conv"].append(x.t_rsp - br[1])
                    S["switch/round_trip_rd"].append((nq[1] - e[1]) + (br[1] - nr[1]))
                    S["bridge/round_trip_rd"].append((e[1] - x.t_valid) + (x.t_rsp - br[1]))
                elif x.kind == "coh_rd":
                    e = next(d2h_ev, None)
                    h = self._take(self.taps[6 * b + B_H2D].events, used[6 * b + B_H2D], e[0], e[1]) if e else None
                    if e is None or h is None:
                        err.append(f"bridge {b} request {x.seq}: coherent read not traced through the home agent")
                        continue
                    line = self.win.hpa_line(x.req.addr)
                    far = 0
                    reads = [r for r in self.ha_reads if r[0] == line and e[1] <= r[2] <= h[1]]
                    if reads:
                        _, tag, t0 = reads[-1]
                        rr = [ev for ev in self.taps[ha_ch + N_DRS].events if ev[0] == tag and ev[1] >= t0]
                        if rr:
                            far = rr[0][1] - t0
                    else:
                        cnt["coh_rd_no_memory_read"] += 1
                    peer = 0
                    for p in self.peers:
                        for t_snp, t_ans, _ in p.answer_times.get(line, []):
                            if e[1] <= t_snp <= h[1]:
                                peer = max(peer, t_ans - t_snp)
                    if peer:
                        cnt["coh_rd_snooped"] += 1
                    S["coh_read/total_incl_far"].append(total)
                    S["far/home_memory_read"].append(far)
                    if peer:
                        S["peer/snoop_answer"].append(peer)
                    S["coh_read/fabric"].append(total - far - peer)
                    S["home_agent/d2h_to_h2d_data"].append(h[1] - e[1] - far - peer)
            # posted writes draining to tier 2
            for e in self.taps[6 * b + B_RWD].events:
                nq, nr = find_node(e[0], e[1], N_RWD, N_NDR)
                br = self._take(self.taps[6 * b + B_NDR].events, used[6 * b + B_NDR], e[0], nr[1]) if nr else None
                if nq is None or nr is None or br is None:
                    err.append(f"bridge {b}: write tag {e[0]:#x} not traced through the switch")
                    continue
                S["switch/m2s_rwd"].append(nq[1] - e[1])
                S["far/tier2_write"].append(nr[1] - nq[1])
                S["switch/s2m_ndr"].append(br[1] - nr[1])
                S["switch/round_trip_wr"].append((nq[1] - e[1]) + (br[1] - nr[1]))
        # exactly one response per request at every memory node and bridge boundary
        for n, base in enumerate(node_ch + [ha_ch]):
            for rq, rs, what in ((N_REQ, N_DRS, "reads"), (N_RWD, N_NDR, "writes")):
                a, z = len(self.taps[base + rq].events), len(self.taps[base + rs].events)
                cnt[f"node{n}.{what}"] = a
                if base == ha_ch:
                    cnt[f"home_memory.{what}"] = a      # the home agent's MemRd / MemWr
                if a != z:
                    err.append(f"memory node {n}: {a} {what} accepted, {z} answered")
        for b in range(self.nbr):
            for rq, rs, what in ((B_REQ, B_DRS, "M2S Req/DRS"), (B_RWD, B_NDR, "M2S RwD/NDR")):
                a, z = len(self.taps[6 * b + rq].events), len(self.taps[6 * b + rs].events)
                if a != z:
                    err.append(f"bridge {b} {what}: {a} requests, {z} responses")
        return dict(S), dict(cnt), err
