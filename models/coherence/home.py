"""Home agent: set-associative inclusive snoop filter + per-line transaction engine.

Event-driven: `receive(msg)` handles one delivered message atomically and leaves the messages it
sends in `out` (and write commits in `commits`) for the caller to route. All records are frozen
dataclasses; the containers are copied by `clone()` so exploration can branch cheaply.

Ordering rules kept by construction (cxl-protocol.md, "Ordering rules"):
  * one transaction per line at a time; requests to a busy line wait in a per-line FIFO;
  * GO / WritePull of a request are sent only after all its snoop responses and forwarded data
    arrived (the `early_go` fault breaks exactly this, for the checkers' negative tests);
  * one snoop per line per device, since only the line's single transaction snoops it;
  * a line is unlocked only when its memory writes completed (so later MemRd see them).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from models.coherence.msgs import (
    CD2HData,
    CD2HReq,
    CD2HRsp,
    CH2DData,
    CH2DReq,
    CH2DRsp,
    CM2SReq,
    CM2SRwD,
    CohMsg,
    CS2MDRS,
    CS2MNDR,
)
from models.coherence.protocol import (
    ALLOC_OPS,
    DIRTY_TO_MEM_RSPS,
    FWD_RSPS,
    ILLEGAL_RSP_TAKEN_AS,
    LEGAL_SNOOP_RSPS,
    LINELESS_OPS,
    REQUEST_OPS,
    WRITE_OPS,
    Decision,
    DirState,
    decide,
    holders,
    snoop_plan,
)
from models.cxl.messages import (
    D2HReqOp,
    D2HRspOp,
    GOState,
    H2DReqOp,
    H2DRspOp,
    M2SReqOp,
    M2SRwDOp,
    S2MDRSOp,
    S2MNDROp,
)

# Error kinds, in the order of coh_home_agent's err_pulse / err_count (RTL_ERROR_KINDS), then the
# model-only kind bad_port (a message on a port the home does not have: the RTL's ports are wires).
#   illegal_request  opcode not served (answered GO-Err) or CQID of a request still owed an answer
#                    (dropped: any answer under that CQID would be taken for the other request's)
#   unsolicited_rsp  D2H Rsp whose UQID is not outstanding (dropped)
#   bad_data         D2H Data the home cannot use: UQID not outstanding, data for a non-forwarding
#                    snoop answer, a second copy, or pulled data with byte enables (BEP=1), which this
#                    full-line agent cannot apply (the pull completes, nothing is written)
#   wrong_uqid       UQID outstanding for another device, a second answer, or a Rsp to a pull UQID
#   illegal_rsp      snoop answer outside the legal set of the snoop: taken as RspIHitI (the device
#                    is dropped from the line's holders), so the line never waits for another answer
#   unsolicited_mem  S2M message whose tag is not outstanding, or of the wrong opcode (dropped)
ERROR_KINDS = ("illegal_request", "unsolicited_rsp", "bad_data", "wrong_uqid", "illegal_rsp",
               "unsolicited_mem", "bad_port")
RTL_ERROR_KINDS = ERROR_KINDS[:6]


def classify_s2m(outstanding: str | None, msg: CS2MDRS | CS2MNDR) -> str | None:
    """Verdict on an S2M message whose tag has `outstanding` ("rd" MemRd / "wr" MemWr / None):
    None if it answers that memory operation, else unsolicited_mem (dropped)."""
    if isinstance(msg, CS2MDRS):
        ok = outstanding == "rd" and msg.memop == S2MDRSOp.MEMDATA
    else:
        ok = outstanding == "wr" and msg.memop == S2MNDROp.CMP
    return None if ok else "unsolicited_mem"


@dataclass(frozen=True)
class UqView:
    """What the home knows about one outstanding UQID, for classifying D2H Rsp / Data."""

    kind: str  # "snp" or "pull"
    port: int
    snoop_op: int = 0
    rsp: int | None = None  # snoop answer received
    data: bool = False  # forwarded line received


def classify_rsp(u: UqView | None, port: int, opcode: int) -> tuple[list[str], int | None]:
    """Verdict on a D2H Rsp for UQID state `u`: (error kinds, answer taken or None = dropped).

    A data line that arrived before a non-forwarding answer is dropped and counted as bad_data."""
    if u is None:
        return ["unsolicited_rsp"], None
    if u.kind != "snp" or u.port != port or u.rsp is not None:
        return ["wrong_uqid"], None
    errs = []
    if opcode not in LEGAL_SNOOP_RSPS[u.snoop_op]:
        errs.append("illegal_rsp")
        opcode = int(ILLEGAL_RSP_TAKEN_AS)
    if opcode not in FWD_RSPS and u.data:
        errs.append("bad_data")
    return errs, opcode


def classify_data(u: UqView | None, port: int, bep: int = 0) -> tuple[str | None, bool]:
    """Verdict on a D2H Data for UQID state `u`: (error kind or None, accepted).

    Pulled data is always accepted (it completes the pull); with BEP=1 it is also an error and is
    not written to memory."""
    if u is None:
        return "bad_data", False
    if u.port != port:
        return "wrong_uqid", False
    if u.kind == "pull":
        return ("bad_data" if bep else None), True
    if u.data or (u.rsp is not None and u.rsp not in FWD_RSPS):
        return "bad_data", False
    return None, True


@dataclass(frozen=True)
class HomeConfig:
    """Home agent parameters. `coherent` holds half-open line-address ranges [lo, hi)."""

    n_ports: int = 4
    sets: int = 4
    ways: int = 2
    coherent: tuple[tuple[int, int], ...] = ((0, 1 << 46),)
    n_uqid: int = 4096
    n_tag: int = 1 << 16
    fault: str | None = None

    def is_coherent(self, line: int) -> bool:
        return any(lo <= line < hi for lo, hi in self.coherent)

    def set_of(self, line: int) -> int:
        return line % self.sets


@dataclass(frozen=True)
class DirEntry:
    line: int
    state: DirState
    sharers: int  # bit p = device p may hold the line (superset: clean lines may be dropped silently)


@dataclass(frozen=True)
class Txn:
    """The one active transaction of a line: a device request or a back-invalidation."""

    line: int
    binv: bool = False
    port: int = -1
    opcode: int = 0
    cqid: int = 0
    coherent: bool = True
    started: bool = False  # False while waiting for a snoop-filter way
    snoop_op: int | None = None
    pend: frozenset[int] = frozenset()  # snoop UQIDs whose response / forwarded data is missing
    rsps: tuple[tuple[int, int], ...] = ()  # (port, D2H Rsp opcode) collected
    fwd: int | None = None  # forwarded line value
    decided: Decision | None = None
    mem_rd: bool = False  # waiting for MemRd data
    wr_pending: int = 0  # MemWr without Cmp
    pull_uqid: int | None = None  # waiting for the pulled line
    go_after: int | None = None  # GO state still to send once writes completed
    ext_after: bool = False  # ExtCmp still to send once writes completed
    early: bool = False  # `early_go` fault: answered before the snoops completed


@dataclass(frozen=True)
class UqEntry:
    kind: str  # "snp" or "pull"
    port: int
    line: int
    snoop_op: int = 0
    rsp: int | None = None
    data: int | None = None


@dataclass
class HomeAgent:
    cfg: HomeConfig
    dirs: dict[int, tuple[DirEntry, ...]] = field(default_factory=dict)  # set -> entries, LRU first
    txns: dict[int, Txn] = field(default_factory=dict)
    waitq: dict[int, tuple[CD2HReq, ...]] = field(default_factory=dict)
    alloc_wait: tuple[int, ...] = ()
    uq: dict[int, UqEntry] = field(default_factory=dict)
    tags: dict[int, tuple[int, str]] = field(default_factory=dict)  # tag -> (line, "rd" | "wr")
    errors: dict[str, int] = field(default_factory=lambda: {k: 0 for k in ERROR_KINDS})
    error_log: list[tuple[str, CohMsg]] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    out: list[CohMsg] = field(default_factory=list)
    commits: list[tuple[int, int]] = field(default_factory=list)  # (line, value) of write-throughs

    # ------------------------------------------------------------------ plumbing
    def clone(self) -> HomeAgent:
        return HomeAgent(self.cfg, dict(self.dirs), dict(self.txns), dict(self.waitq), self.alloc_wait,
                         dict(self.uq), dict(self.tags), dict(self.errors), list(self.error_log),
                         dict(self.stats), [], [])

    def key(self) -> tuple:
        return (tuple(sorted(self.dirs.items())), tuple(sorted(self.txns.items())),
                tuple(sorted(self.waitq.items())), self.alloc_wait, tuple(sorted(self.uq.items())),
                tuple(sorted(self.tags.items())))

    def idle(self) -> bool:
        return not self.txns and not any(self.waitq.values())

    def entry(self, line: int) -> DirEntry | None:
        for e in self.dirs.get(self.cfg.set_of(line), ()):
            if e.line == line:
                return e
        return None

    def entries(self) -> list[DirEntry]:
        return [e for s in self.dirs.values() for e in s]

    def _count(self, name: str) -> None:
        self.stats[name] = self.stats.get(name, 0) + 1

    def _error(self, kind: str, msg: CohMsg) -> None:
        self.errors[kind] += 1
        self.error_log.append((kind, msg))

    def _alloc(self, table: dict, limit: int) -> int:
        for i in range(limit):
            if i not in table:
                return i
        raise RuntimeError("identifier pool exhausted")

    def _set_entry(self, line: int, state: DirState, sharers: int) -> None:
        """Write a line's directory entry (most recently used); no sharers frees the way."""
        s = self.cfg.set_of(line)
        rest = tuple(e for e in self.dirs.get(s, ()) if e.line != line)
        if sharers:
            rest = rest + (DirEntry(line, state, sharers),)
        if rest:
            self.dirs[s] = rest
        else:
            self.dirs.pop(s, None)

    def _reserve(self, line: int) -> bool:
        """Make sure the line has a way (an empty placeholder entry if new); False if the set is full."""
        s = self.cfg.set_of(line)
        ents = self.dirs.get(s, ())
        if any(e.line == line for e in ents):
            return True
        if len(ents) < self.cfg.ways:
            self.dirs[s] = ents + (DirEntry(line, DirState.I, 0),)
            return True
        return False

    # ------------------------------------------------------------------ inputs
    def receive(self, msg: CohMsg) -> None:
        """Handle one message delivered to the home (from a device port or from memory)."""
        if isinstance(msg, (CD2HReq, CD2HRsp, CD2HData)) and not 0 <= msg.port < self.cfg.n_ports:
            self._error("bad_port", msg)
        elif isinstance(msg, CD2HReq):
            self._on_req(msg)
        elif isinstance(msg, CD2HRsp):
            self._on_rsp(msg)
        elif isinstance(msg, CD2HData):
            self._on_data(msg)
        elif isinstance(msg, CS2MDRS):
            self._on_drs(msg)
        elif isinstance(msg, CS2MNDR):
            self._on_ndr(msg)
        else:
            raise TypeError(f"home cannot receive {msg!r}")

    def owes(self, port: int, cqid: int) -> bool:
        """True while request (port, cqid) is owed an H2D answer the home has not sent yet."""
        for q in self.waitq.values():
            if any(r.port == port and r.cqid == cqid for r in q):
                return True
        for t in self.txns.values():
            if not t.binv and t.port == port and t.cqid == cqid and (
                    t.decided is None or t.mem_rd or t.go_after is not None or t.ext_after):
                return True
        return False

    def _on_req(self, m: CD2HReq) -> None:
        if self.owes(m.port, m.cqid):
            self._error("illegal_request", m)  # duplicate CQID: dropped, the first request goes on
            return
        if m.opcode not in REQUEST_OPS:
            self._error("illegal_request", m)  # not served: GO-Err, nothing else changes
            self.out.append(CH2DRsp(m.port, int(H2DRspOp.GO), int(GOState.ERR), m.cqid))
            return
        self._count(f"req_{m.opcode}")
        if m.opcode in LINELESS_OPS:  # CacheFlushed: GO-I at once, no line, directory untouched
            self.out.append(CH2DRsp(m.port, int(H2DRspOp.GO), int(GOState.I), m.cqid))
            return
        if m.addr in self.txns:
            self.waitq[m.addr] = self.waitq.get(m.addr, ()) + (m,)
            self._count("conflict_wait")
            return
        self._start(m)

    def _start(self, m: CD2HReq) -> None:
        t = Txn(m.addr, port=m.port, opcode=m.opcode, cqid=m.cqid, coherent=self.cfg.is_coherent(m.addr))
        self.txns[m.addr] = t
        if t.coherent and m.opcode in ALLOC_OPS and not self._reserve(m.addr):
            self.alloc_wait = self.alloc_wait + (m.addr,)
            self._kick_binv(self.cfg.set_of(m.addr))
            return
        self._begin(t)

    def _kick_binv(self, s: int) -> None:
        """Start back-invalidations in set s until there is one per request waiting for a way."""
        need = sum(1 for ln in self.alloc_wait if self.cfg.set_of(ln) == s)
        active = sum(1 for t in self.txns.values() if t.binv and self.cfg.set_of(t.line) == s)
        for e in self.dirs.get(s, ()):
            if active >= need:
                break
            if e.line not in self.txns and e.sharers:
                self._count("back_invalidations")
                active += 1
                self.txns[e.line] = t = Txn(e.line, binv=True)
                self._begin(t)

    def _begin(self, t: Txn) -> None:
        e = self.entry(t.line)
        st, sh = (e.state, e.sharers) if e else (DirState.I, 0)
        if t.binv:
            snp, targets = H2DReqOp.SNPINV, sh
        elif t.coherent:
            snp, targets = snoop_plan(t.opcode, st, sh, t.port, self.cfg.fault)
        else:
            snp, targets = None, 0
        pend: set[int] = set()
        for p in holders(targets):
            u = self._alloc(self.uq, self.cfg.n_uqid)
            self.uq[u] = UqEntry("snp", p, t.line, int(snp))  # type: ignore[arg-type]
            pend.add(u)
            self.out.append(CH2DReq(p, int(snp), t.line, u))  # type: ignore[arg-type]
            self._count("snoops")
        t = replace(t, started=True, snoop_op=snp, pend=frozenset(pend))
        self.txns[t.line] = t
        if not pend:
            self._after_snoops(t)
        elif self.cfg.fault == "early_go" and not t.binv:
            # broken variant: answer as if nobody held the line, before the snoop responses
            self._apply(replace(t, early=True), decide(t.opcode, t.port, DirState.I, 0, {}, False,
                                                       t.coherent))

    def _after_snoops(self, t: Txn) -> None:
        if t.early:
            self._maybe_retire(t.line)
            return
        rsps = dict(t.rsps)
        if t.binv:
            dirty = t.fwd is not None and any(r in DIRTY_TO_MEM_RSPS for r in rsps.values())
            self._set_entry(t.line, DirState.I, 0)
            if dirty:
                self._mem_write(t.line, t.fwd)  # type: ignore[arg-type]
                t = replace(self.txns[t.line], wr_pending=1)
            self.txns[t.line] = replace(t, decided=Decision(DirState.I, 0))
            self._maybe_retire(t.line)
            return
        e = self.entry(t.line)
        st, sh = (e.state, e.sharers) if e else (DirState.I, 0)
        d = decide(t.opcode, t.port, st, sh, rsps, t.fwd is not None, t.coherent, self.cfg.fault)
        # functional coverage point: request x directory state x snoop responses
        names = "+".join(sorted({D2HRspOp(r).name for r in rsps.values()})) or "none"
        where = (st.name + ("_self" if sh >> t.port & 1 else "")) if t.coherent else "NC"
        self._count(f"cov:{D2HReqOp(t.opcode).name}:{where}:{names}")
        self._apply(t, d)

    def _apply(self, t: Txn, d: Decision) -> None:
        if t.coherent:
            self._set_entry(t.line, d.state, d.sharers)
        wr = 0
        if d.write_fwd and t.fwd is not None:
            self._mem_write(t.line, t.fwd)
            wr = 1
        t = replace(t, decided=d, wr_pending=t.wr_pending + wr)
        if d.data_src == "mem":
            tag = self._alloc(self.tags, self.cfg.n_tag)
            self.tags[tag] = (t.line, "rd")
            self.out.append(CM2SReq(int(M2SReqOp.MEMRD), tag, t.line))
            t = replace(t, mem_rd=True)
        elif d.data_src == "fwd":
            self._send_data_go(t, t.fwd)  # type: ignore[arg-type]
        elif d.go is not None:
            self.out.append(CH2DRsp(t.port, int(H2DRspOp.GO), int(d.go), t.cqid))
        if d.pull is not None:
            if d.pull == H2DRspOp.GO_WRITEPULL_DROP:
                self.out.append(CH2DRsp(t.port, int(d.pull), 0, t.cqid))
            else:
                u = self._alloc(self.uq, self.cfg.n_uqid)
                self.uq[u] = UqEntry("pull", t.port, t.line)
                self.out.append(CH2DRsp(t.port, int(d.pull), u, t.cqid))
                t = replace(t, pull_uqid=u)
        t = replace(t, go_after=d.go_after_cmp, ext_after=d.extcmp)
        self.txns[t.line] = t
        self._maybe_retire(t.line)

    def _send_data_go(self, t: Txn, value: int) -> None:
        d = t.decided
        assert d is not None
        if d.go is not None:
            self.out.append(CH2DRsp(t.port, int(H2DRspOp.GO), int(d.go), t.cqid))
        self.out.append(CH2DData(t.port, t.cqid, value))

    def _mem_write(self, line: int, value: int) -> None:
        tag = self._alloc(self.tags, self.cfg.n_tag)
        self.tags[tag] = (line, "wr")
        self.out.append(CM2SRwD(int(M2SRwDOp.MEMWR), tag, line, value))

    @staticmethod
    def _view(u: UqEntry | None) -> UqView | None:
        return None if u is None else UqView(u.kind, u.port, u.snoop_op, u.rsp, u.data is not None)

    def _on_rsp(self, m: CD2HRsp) -> None:
        u = self.uq.get(m.uqid)
        errs, taken = classify_rsp(self._view(u), m.port, m.opcode)
        for k in errs:
            self._error(k, m)
        if taken is None:
            return
        assert u is not None
        if taken not in FWD_RSPS and u.data is not None:
            u = replace(u, data=None)  # data arrived first for a non-forwarding answer: dropped
        u = replace(u, rsp=taken)
        self.uq[m.uqid] = u
        self._snoop_progress(m.uqid, u)

    def _on_data(self, m: CD2HData) -> None:
        u = self.uq.get(m.uqid)
        err, ok = classify_data(self._view(u), m.port, m.bep)
        if err is not None:
            self._error(err, m)
        if not ok:
            return
        assert u is not None
        if u.kind == "pull":
            del self.uq[m.uqid]
            t = self.txns[u.line]
            d = t.decided
            assert d is not None
            wr = 0
            if d.accept_pull and not m.bogus and not m.bep:
                self._mem_write(t.line, m.value)
                wr = 1
                if t.opcode in WRITE_OPS:
                    self.commits.append((t.line, m.value))
            elif d.fwd_if_no_pull and t.fwd is not None:
                self._mem_write(t.line, t.fwd)  # the requester wrote nothing: keep the old owner's line
                wr = 1
            self.txns[t.line] = replace(t, pull_uqid=None, wr_pending=t.wr_pending + wr)
            self._send_go_after(t.line)
            return
        u = replace(u, data=m.value)
        self.uq[m.uqid] = u
        self._snoop_progress(m.uqid, u)

    def _snoop_progress(self, uqid: int, u: UqEntry) -> None:
        if u.rsp is None or (u.rsp in FWD_RSPS and u.data is None):
            return
        del self.uq[uqid]
        t = self.txns[u.line]
        t = replace(t, pend=t.pend - {uqid}, rsps=t.rsps + ((u.port, u.rsp),),
                    fwd=u.data if u.data is not None else t.fwd)
        self.txns[u.line] = t
        if not t.pend:
            self._after_snoops(t)

    def _on_drs(self, m: CS2MDRS) -> None:
        ent = self.tags.get(m.tag)
        err = classify_s2m(ent[1] if ent else None, m)
        if err is not None:
            self._error(err, m)
            return
        assert ent is not None
        del self.tags[m.tag]
        t = replace(self.txns[ent[0]], mem_rd=False)
        self.txns[t.line] = t
        self._send_data_go(t, m.value)
        self._maybe_retire(t.line)

    def _on_ndr(self, m: CS2MNDR) -> None:
        ent = self.tags.get(m.tag)
        err = classify_s2m(ent[1] if ent else None, m)
        if err is not None:
            self._error(err, m)
            return
        assert ent is not None
        del self.tags[m.tag]
        t = self.txns[ent[0]]
        self.txns[t.line] = replace(t, wr_pending=t.wr_pending - 1)
        self._send_go_after(t.line)

    def _send_go_after(self, line: int) -> None:
        t = self.txns[line]
        if t.pull_uqid is None and t.wr_pending == 0:
            if t.go_after is not None:
                self.out.append(CH2DRsp(t.port, int(H2DRspOp.GO), int(t.go_after), t.cqid))
            if t.ext_after:
                self.out.append(CH2DRsp(t.port, int(H2DRspOp.EXTCMP), 0, t.cqid))
            self.txns[line] = replace(t, go_after=None, ext_after=False)
        self._maybe_retire(line)

    def _maybe_retire(self, line: int) -> None:
        t = self.txns.get(line)
        if (t is None or t.pend or t.decided is None or t.mem_rd or t.wr_pending or t.pull_uqid is not None
                or t.go_after is not None or t.ext_after):
            return
        del self.txns[line]
        if t.coherent and not t.binv:
            e = self.entry(line)
            if e is not None and not e.sharers:  # placeholder of a request that granted nothing
                self._set_entry(line, DirState.I, 0)
        self._wake(line)

    def _wake(self, line: int) -> None:
        """A line became free: first give ways to requests waiting for one, then the line's queue."""
        waiting = self.alloc_wait
        self.alloc_wait = ()
        still: list[int] = []
        for ln in waiting:
            if self._reserve(ln):
                self._begin(self.txns[ln])
            else:
                still.append(ln)
        self.alloc_wait = tuple(still) + self.alloc_wait
        for s in sorted({self.cfg.set_of(ln) for ln in self.alloc_wait}):
            self._kick_binv(s)
        q = self.waitq.get(line, ())
        if q and line not in self.txns:
            if len(q) > 1:
                self.waitq[line] = q[1:]
            else:
                del self.waitq[line]
            self._start(q[0])
