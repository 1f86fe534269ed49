"""Scoreboard of the home agent against the reference model's protocol tables.

The RTL serializes transactions per line; the scoreboard keeps its own copy of the snoop filter
(`refdir`: line -> (DirState, sharers)) and, for every transaction the RTL starts (trace port),
predicts with `models.coherence.protocol.snoop_plan` which snoops must go out, then, once the
observed snoop answers are in, with `decide` what the answer must be (GO state, pull opcode,
data source and value, memory writes). It also classifies every D2H Rsp/Data the way
`models.coherence.home.HomeAgent` does, to predict the error counters.

Nothing here looks inside the RTL except the trace port (which transaction started, and whether
it is a back-invalidation); the predictions come from the model only.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

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
)
from models.coherence.protocol import (
    FWD_RSPS,
    LEGAL_SNOOP_RSPS,
    REQUEST_OPS,
    WRITE_OPS,
    Decision,
    DirState,
    decide,
    holders,
    snoop_plan,
)
from models.cxl.messages import D2HReqOp, D2HRspOp, H2DReqOp, H2DRspOp, S2MDRSOp, S2MNDROp

ERROR_KINDS = ("illegal_opcode", "unsolicited_rsp", "unsolicited_data", "wrong_uqid", "illegal_rsp",
               "unsolicited_mem")


@dataclass
class Txn:
    """One transaction on a line: a device request or a back-invalidation."""

    line: int
    binv: bool = False
    port: int = -1
    op: int = 0
    cqid: int = 0
    coherent: bool = True
    t_arr: float = 0
    t_start: float | None = None
    st: DirState = DirState.I
    sh: int = 0
    snp_op: int | None = None
    targets: int = 0
    snooped: int = 0  # ports whose snoop went out
    done: int = 0  # ports whose snoop answer (and data) are in
    rsps: dict[int, int] = field(default_factory=dict)
    fwd: int | None = None
    dec: Decision | None = None
    # outputs still expected / seen
    go_seen: int = 0
    data_seen: int = 0
    pull_seen: int = 0
    pull_data: bool = False
    go_after_seen: int = 0
    memval: int | None = None
    t_go: float | None = None
    counted: bool = False

    def outputs_done(self) -> bool:
        """Decided and every H2D answer (GO / pull / data / GO after the write) was delivered."""
        d = self.dec
        if d is None:
            return False
        if self.binv:
            return True
        return (d.go is not None) == (self.go_seen == 1) and (d.data_src is not None) == (self.data_seen == 1) \
            and (d.pull is not None) == (self.pull_seen == 1) and \
            (d.go_after_cmp is not None) == (self.go_after_seen == 1)

    def h2d_done(self) -> bool:
        """Every H2D answer arrived; only the device's write-pull data may still be on its way (the
        device may then reuse the CQID)."""
        d = self.dec
        return d is not None and (d.go is not None) == (self.go_seen == 1) and \
            (d.data_src is not None) == (self.data_seen == 1) and (d.pull is not None) == (self.pull_seen == 1) \
            and (d.go_after_cmp is None)

    def finished(self) -> bool:
        d = self.dec
        if d is None:
            return False
        if self.binv:
            return True
        if (d.go is not None) != (self.go_seen == 1) or (d.data_src is not None) != (self.data_seen == 1):
            return False
        if (d.pull is not None) != (self.pull_seen == 1):
            return False
        if d.pull is not None and d.pull != H2DRspOp.GO_WRITEPULL_DROP and not self.pull_data:
            return False
        return (d.go_after_cmp is not None) == (self.go_after_seen == 1)


@dataclass
class SnoopRec:
    port: int
    txn: Txn
    snp_op: int
    rsp: int | None = None
    data: int | None = None


@dataclass
class CohPredictor:
    """Pure-Python scoreboard state; `feed_*` methods are called in observation order."""

    n_ports: int
    coherent: callable  # line -> bool
    refdir: dict[int, tuple[DirState, int]] = field(default_factory=dict)
    arrivals: dict[int, deque] = field(default_factory=dict)
    reqs: dict[tuple[int, int], Txn] = field(default_factory=dict)
    cur: dict[int, Txn] = field(default_factory=dict)
    snoops: dict[int, SnoopRec] = field(default_factory=dict)  # uqid -> snoop
    pulls: dict[int, tuple[int, Txn]] = field(default_factory=dict)  # uqid -> (port, txn)
    exp_rd: dict[int, deque] = field(default_factory=dict)  # line -> txns expecting a MemRd
    exp_wr: dict[int, deque] = field(default_factory=dict)  # line -> values expected on MemWr
    mem_tags: dict[int, Txn] = field(default_factory=dict)
    rd_out: set[int] = field(default_factory=set)  # outstanding MemRd / MemWr tags
    wr_out: set[int] = field(default_factory=set)
    errors: dict[str, int] = field(default_factory=lambda: {k: 0 for k in ERROR_KINDS})
    mismatches: list[str] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    decisions: list[tuple[Txn, str]] = field(default_factory=list)  # (txn, dir bin) for coverage
    commits: list[tuple[float, int, int]] = field(default_factory=list)  # write-throughs (t, line, value)
    latencies: dict[str, list[float]] = field(default_factory=dict)
    completed: int = 0
    arrival_times: list[float] = field(default_factory=list)

    # ------------------------------------------------------------------ helpers
    def _bad(self, text: str) -> None:
        self.mismatches.append(text)

    def _count(self, k: str) -> None:
        self.stats[k] = self.stats.get(k, 0) + 1

    def dir_of(self, line: int) -> tuple[DirState, int]:
        return self.refdir.get(line, (DirState.I, 0))

    def _set_dir(self, line: int, st: DirState, sh: int) -> None:
        if sh:
            self.refdir[line] = (st, sh)
        else:
            self.refdir.pop(line, None)

    # ------------------------------------------------------------------ inputs to the home
    def feed_req(self, t: float, m: CD2HReq) -> None:
        if m.opcode not in REQUEST_OPS:
            self.errors["illegal_opcode"] += 1
            return
        k = (m.port, m.cqid)
        old = self.reqs.get(k)
        if old is not None:
            if old.h2d_done():
                del self.reqs[k]  # its pull data is still tracked through self.pulls
            else:
                self._bad(f"t={t}: dev{m.port} reused CQID {m.cqid} while its request is unanswered")
        tx = Txn(m.addr, port=m.port, op=m.opcode, cqid=m.cqid, coherent=self.coherent(m.addr), t_arr=t)
        self.reqs[k] = tx
        self.arrival_times.append(t)
        if m.addr in self.cur or self.arrivals.get(m.addr):
            self._count("conflict_wait")
        self.arrivals.setdefault(m.addr, deque()).append(tx)

    def feed_start(self, t: float, binv: bool, line: int, port: int, cqid: int) -> Txn | None:
        prev = self.cur.get(line)
        if prev is not None:
            self._bad(f"t={t}: line {line:#x} started a new transaction before the previous one decided")
        if binv:
            st, sh = self.dir_of(line)
            if not sh:
                self._bad(f"t={t}: back-invalidation of line {line:#x} that the snoop filter does not hold")
            if self.arrivals.get(line):
                self._bad(f"t={t}: back-invalidation of line {line:#x} with requests waiting for it")
            tx = Txn(line, binv=True, t_start=t, st=st, sh=sh, snp_op=int(H2DReqOp.SNPINV), targets=sh)
            self._count("back_invalidations")
        else:
            q = self.arrivals.get(line)
            if not q or (q[0].port, q[0].cqid) != (port, cqid):
                head = (q[0].port, q[0].cqid) if q else None
                self._bad(f"t={t}: line {line:#x} started dev{port} CQID {cqid}, arrival order says {head}")
                tx = self.reqs.get((port, cqid))
                if tx is None:
                    return None
                if q and tx in q:
                    q.remove(tx)
            else:
                tx = q.popleft()
            if not q:
                self.arrivals.pop(line, None)
            tx.t_start = t
            tx.st, tx.sh = self.dir_of(line) if tx.coherent else (DirState.I, 0)
            if tx.coherent:
                snp, tg = snoop_plan(tx.op, tx.st, tx.sh, tx.port)
            else:
                snp, tg = None, 0
            tx.snp_op, tx.targets = (int(snp) if snp is not None else None), tg
        self.cur[line] = tx
        if not tx.targets:
            self._decide(t, tx)
        return tx

    def feed_snoop(self, t: float, m: CH2DReq) -> None:
        tx = self.cur.get(m.addr)
        if tx is None:
            self._bad(f"t={t}: snoop {H2DReqOp(m.opcode).name} to dev{m.port} for idle line {m.addr:#x}")
            return
        if m.opcode != tx.snp_op or not tx.targets >> m.port & 1 or tx.snooped >> m.port & 1:
            self._bad(f"t={t}: snoop {H2DReqOp(m.opcode).name} to dev{m.port} line {m.addr:#x}: expected "
                      f"{tx.snp_op} to {holders(tx.targets)} (already {holders(tx.snooped)})")
        if m.uqid in self.snoops or m.uqid in self.pulls:
            self._bad(f"t={t}: snoop UQID {m.uqid} reused while outstanding")
        tx.snooped |= 1 << m.port
        self.snoops[m.uqid] = SnoopRec(m.port, tx, m.opcode)
        self._count("snoops")

    def feed_rsp(self, t: float, m: CD2HRsp) -> None:
        s = self.snoops.get(m.uqid)
        if s is None:
            self.errors["wrong_uqid" if m.uqid in self.pulls else "unsolicited_rsp"] += 1
            return
        if s.port != m.port or s.rsp is not None:
            self.errors["wrong_uqid"] += 1
            return
        if m.opcode not in LEGAL_SNOOP_RSPS[s.snp_op]:
            self.errors["illegal_rsp"] += 1
            return
        if m.opcode not in FWD_RSPS and s.data is not None:
            self.errors["unsolicited_data"] += 1
            s.data = None
        s.rsp = m.opcode
        self._progress(t, m.uqid, s)

    def feed_data(self, t: float, m: CD2HData) -> None:
        p = self.pulls.get(m.uqid)
        if p is not None:
            port, tx = p
            if port != m.port:
                self.errors["wrong_uqid"] += 1
                return
            del self.pulls[m.uqid]
            tx.pull_data = True
            d = tx.dec
            assert d is not None
            if d.accept_pull and not m.bogus:
                self.exp_wr.setdefault(tx.line, deque()).append(m.value)
                if tx.op in WRITE_OPS:
                    self.commits.append((t, tx.line, m.value))
            self._retire(tx)
            return
        s = self.snoops.get(m.uqid)
        if s is None:
            self.errors["unsolicited_data"] += 1
            return
        if s.port != m.port:
            self.errors["wrong_uqid"] += 1
            return
        if s.data is not None or (s.rsp is not None and s.rsp not in FWD_RSPS):
            self.errors["unsolicited_data"] += 1
            return
        s.data = m.value
        self._progress(t, m.uqid, s)

    def _progress(self, t: float, uqid: int, s: SnoopRec) -> None:
        if s.rsp is None or (s.rsp in FWD_RSPS and s.data is None):
            return
        del self.snoops[uqid]
        tx = s.txn
        tx.rsps[s.port] = s.rsp
        if s.data is not None:
            tx.fwd = s.data
        tx.done |= 1 << s.port
        if tx.done == tx.targets:
            self._decide(t, tx)

    def _decide(self, t: float, tx: Txn) -> None:
        if self.cur.get(tx.line) is tx:
            del self.cur[tx.line]
        if tx.binv:
            tx.dec = Decision(DirState.I, 0)
            self._set_dir(tx.line, DirState.I, 0)
            dirty = tx.fwd is not None and any(r in (D2HRspOp.RSPSFWDM, D2HRspOp.RSPIFWDM)
                                               for r in tx.rsps.values())
            if dirty:
                self.exp_wr.setdefault(tx.line, deque()).append(tx.fwd)
                self._count("dirty_binv")
            return
        d = decide(tx.op, tx.port, tx.st, tx.sh, dict(tx.rsps), tx.fwd is not None, tx.coherent)
        tx.dec = d
        if tx.coherent:
            self._set_dir(tx.line, d.state, d.sharers)
        if d.write_fwd and tx.fwd is not None:
            self.exp_wr.setdefault(tx.line, deque()).append(tx.fwd)
        if d.data_src == "mem":
            self.exp_rd.setdefault(tx.line, deque()).append(tx)
        names = "+".join(sorted({D2HRspOp(r).name for r in tx.rsps.values()})) or "none"
        where = tx.st.name if tx.coherent else "NC"
        self.decisions.append((tx, where))
        self._count(f"dec:{D2HReqOp(tx.op).name}:{where}:{names}")
        self._retire(tx)

    def _retire(self, tx: Txn) -> None:
        if tx.finished() and not tx.binv and not tx.counted:
            tx.counted = True
            self.completed += 1
            if self.reqs.get((tx.port, tx.cqid)) is tx:
                del self.reqs[(tx.port, tx.cqid)]

    # ------------------------------------------------------------------ outputs of the home
    def feed_h2d_rsp(self, t: float, m: CH2DRsp) -> None:
        tx = self.reqs.get((m.port, m.cqid))
        if tx is None or tx.dec is None:
            self._bad(f"t={t}: {H2DRspOp(m.opcode).name} to dev{m.port} CQID {m.cqid} for no decided request")
            return
        d = tx.dec
        name = f"dev{m.port} CQID {m.cqid} {D2HReqOp(tx.op).name} line {tx.line:#x}"
        if m.opcode == H2DRspOp.GO:
            if d.go is not None and tx.go_seen == 0:
                tx.go_seen = 1
                if m.rspdata != d.go:
                    self._bad(f"t={t}: {name}: GO state {m.rspdata}, model says {int(d.go)} "
                              f"(dir {tx.st.name} {holders(tx.sh)}, rsps {tx.rsps})")
                tx.t_go = t
                self.latencies.setdefault("go_snoop" if tx.targets else "go_hit", []).append(t - tx.t_arr)
            elif d.go_after_cmp is not None and tx.go_after_seen == 0:
                tx.go_after_seen = 1
                if m.rspdata != d.go_after_cmp:
                    self._bad(f"t={t}: {name}: GO state {m.rspdata} after the write, model says {d.go_after_cmp}")
                if d.pull is not None and not tx.pull_data:
                    self._bad(f"t={t}: {name}: GO before the pulled data arrived")
            else:
                self._bad(f"t={t}: {name}: unexpected GO (model decision {d})")
        else:
            if d.pull is None or tx.pull_seen:
                self._bad(f"t={t}: {name}: unexpected {H2DRspOp(m.opcode).name} (model decision {d})")
                return
            tx.pull_seen = 1
            if m.opcode != d.pull:
                self._bad(f"t={t}: {name}: {H2DRspOp(m.opcode).name}, model says {H2DRspOp(d.pull).name}")
            if m.opcode != H2DRspOp.GO_WRITEPULL_DROP:
                self.pulls[m.rspdata] = (m.port, tx)
        self._retire(tx)

    def feed_h2d_data(self, t: float, m: CH2DData) -> None:
        tx = self.reqs.get((m.port, m.cqid))
        if tx is None or tx.dec is None or tx.dec.data_src is None or tx.data_seen:
            self._bad(f"t={t}: H2D Data to dev{m.port} CQID {m.cqid} not expected")
            return
        tx.data_seen = 1
        want = tx.fwd if tx.dec.data_src == "fwd" else tx.memval
        if want is None or m.value != want:
            self._bad(f"t={t}: dev{m.port} CQID {m.cqid} {D2HReqOp(tx.op).name} line {tx.line:#x}: data "
                      f"{m.value:#x}, expected {tx.dec.data_src} value {want}")
        self._retire(tx)

    def feed_m2s_req(self, t: float, m: CM2SReq) -> None:
        q = self.exp_rd.get(m.addr)
        if not q:
            self._bad(f"t={t}: MemRd line {m.addr:#x} not expected")
            return
        self.mem_tags[m.tag] = q.popleft()
        self.rd_out.add(m.tag)

    def feed_m2s_rwd(self, t: float, m: CM2SRwD) -> None:
        self.wr_out.add(m.tag)
        q = self.exp_wr.get(m.addr)
        if not q:
            self._bad(f"t={t}: MemWr line {m.addr:#x} value {m.value:#x} not expected")
            return
        want = q.popleft()
        if m.value != want:
            self._bad(f"t={t}: MemWr line {m.addr:#x} value {m.value:#x}, expected {want:#x}")

    def feed_drs(self, t: float, m: CS2MDRS) -> None:
        if m.tag not in self.rd_out or m.memop != S2MDRSOp.MEMDATA:
            self.errors["unsolicited_mem"] += 1
            return
        self.rd_out.discard(m.tag)
        tx = self.mem_tags.pop(m.tag, None)
        if tx is not None:
            tx.memval = m.value

    def feed(self, t: float, msg: CohMsg) -> None:
        """Dispatch one observed message (not the trace port)."""
        if isinstance(msg, CD2HReq):
            self.feed_req(t, msg)
        elif isinstance(msg, CD2HRsp):
            self.feed_rsp(t, msg)
        elif isinstance(msg, CD2HData):
            self.feed_data(t, msg)
        elif isinstance(msg, CH2DReq):
            self.feed_snoop(t, msg)
        elif isinstance(msg, CH2DRsp):
            self.feed_h2d_rsp(t, msg)
        elif isinstance(msg, CH2DData):
            self.feed_h2d_data(t, msg)
        elif isinstance(msg, CM2SReq):
            self.feed_m2s_req(t, msg)
        elif isinstance(msg, CM2SRwD):
            self.feed_m2s_rwd(t, msg)
        elif isinstance(msg, CS2MDRS):
            self.feed_drs(t, msg)
        elif isinstance(msg, CS2MNDR):
            if msg.tag not in self.wr_out or msg.memop != S2MNDROp.CMP:
                self.errors["unsolicited_mem"] += 1
            self.wr_out.discard(msg.tag)

    def idle(self) -> bool:
        return not self.reqs and not self.cur and not self.snoops and not self.pulls and \
            not any(self.exp_rd.values()) and not any(self.exp_wr.values()) and not self.rd_out and \
            not self.wr_out

    def final_errors(self) -> list[str]:
        out = list(self.mismatches)
        for (p, c), tx in self.reqs.items():
            out.append(f"end: dev{p} CQID {c} {D2HReqOp(tx.op).name} line {tx.line:#x} not completed "
                       f"(decision {tx.dec})")
        for line, tx in self.cur.items():
            out.append(f"end: line {line:#x} transaction still collecting snoops ({holders(tx.done)} of "
                       f"{holders(tx.targets)})")
        for line, q in self.exp_wr.items():
            if q:
                out.append(f"end: line {line:#x}: {len(q)} expected MemWr never seen")
        for line, q in self.exp_rd.items():
            if q:
                out.append(f"end: line {line:#x}: {len(q)} expected MemRd never seen")
        return out
