"""Caching device (MESI) that answers snoops from its own state, evicts and writes back.

Rules the device keeps (cxl-protocol.md plus the choices stated here):
  * at most one outstanding request per line; CQIDs from a pool of `n_cqid`;
  * a snoop is answered from the current line state, except that a snoop to a line whose read
    already got its GO but not yet its data waits for the data (the data is in flight and H2D Data
    always makes progress). A snoop never overtakes an older GO on the same port (the system
    delivers H2D Req behind older H2D Rsp), so "GO received" means the host served the request;
  * eviction-pending lines cannot be accessed; a write-pull after a snoop took the line returns
    Bogus data.
The device reports what the checkers need in `events`: ("state", addr, LineState),
("load", addr, value, window, cqid) for every completed read (window None = cached install, exact check),
("full_write", addr) when RdOwnNoData got ownership and the full-line store must now happen.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from models.coherence.msgs import CD2HData, CD2HReq, CD2HRsp, CH2DData, CH2DReq, CH2DRsp, CohMsg
from models.coherence.protocol import (
    READ_OPS,
    WEAK_WRITE_OPS,
    WRITE_OPS,
    LineState,
    snoop_options,
)
from models.cxl.messages import D2HReqOp, GOState, H2DRspOp

Op = D2HReqOp
L = LineState
GO_TO_LINE = {GOState.S: L.S, GOState.E: L.E, GOState.M: L.M}
DEV_ERROR_KINDS = ("unexpected_rsp", "unexpected_data", "go_err")


@dataclass(frozen=True)
class DevTxn:
    opcode: int
    addr: int
    cqid: int
    go: int | None = None
    data: int | None = None
    wvalue: int | None = None  # line value of a write-through
    pulled: bool = False
    ext: bool = False  # ExtCmp received (weakly ordered writes; it may come before or after the GO)
    window: frozenset[int] = frozenset()  # values a non-caching read may legally return


@dataclass
class DeviceCache:
    port: int
    n_cqid: int = 4
    lines: dict[int, tuple[LineState, int]] = field(default_factory=dict)  # addr -> (state, value)
    txns: dict[int, DevTxn] = field(default_factory=dict)  # cqid -> txn
    errors: dict[str, int] = field(default_factory=lambda: {k: 0 for k in DEV_ERROR_KINDS})
    out: list[CohMsg] = field(default_factory=list)
    events: list[tuple] = field(default_factory=list)

    def clone(self) -> DeviceCache:
        return DeviceCache(self.port, self.n_cqid, dict(self.lines), dict(self.txns), dict(self.errors), [], [])

    def key(self) -> tuple:
        return (tuple(sorted(self.lines.items())), tuple(sorted(self.txns.items())))

    def state(self, addr: int) -> LineState:
        return self.lines.get(addr, (L.I, 0))[0]

    def value(self, addr: int) -> int:
        return self.lines.get(addr, (L.I, 0))[1]

    def txn_for(self, addr: int) -> DevTxn | None:
        for t in self.txns.values():
            if t.addr == addr:
                return t
        return None

    def _set(self, addr: int, st: LineState, value: int = 0) -> None:
        old = self.lines.get(addr, (L.I, 0))[0]
        if st == L.I:
            self.lines.pop(addr, None)
        else:
            self.lines[addr] = (st, value)
        if st != old:
            self.events.append(("state", addr, st))

    # ------------------------------------------------------------------ local actions
    def can_issue(self, addr: int) -> bool:
        return self.txn_for(addr) is None and len(self.txns) < self.n_cqid

    def flushed(self) -> bool:
        """Nothing cached and nothing outstanding: the device may send CacheFlushed."""
        return not self.lines and not self.txns

    def legal_requests(self, addr: int, coherent: bool) -> tuple[int, ...]:
        """Requests this device may issue for `addr` now (its policy, from its own line state).
        CacheFlushed (no line) is offered with every line while the device holds nothing."""
        if not self.can_issue(addr):
            return ()
        st = self.state(addr)
        flushed = (Op.CACHEFLUSHED,) if self.flushed() else ()
        if not coherent:
            return (Op.RDCURR, Op.RDSHARED, Op.ITOMWR, Op.WRCUR, Op.WRINV, Op.CLFLUSH, Op.WOWRINV,
                    Op.WOWRINVF) + flushed if st == L.I else ()
        if st == L.I:
            return (Op.RDSHARED, Op.RDOWN, Op.RDANY, Op.RDCURR, Op.RDOWNNODATA, Op.ITOMWR, Op.WRCUR,
                    Op.WRINV, Op.CLFLUSH, Op.WOWRINV, Op.WOWRINVF) + flushed
        if st == L.S:
            return (Op.RDOWN, Op.RDOWNNODATA, Op.CLEANEVICT, Op.CLEANEVICTNODATA)
        if st == L.E:
            return (Op.CLEANEVICT, Op.CLEANEVICTNODATA)
        if st == L.M:
            return (Op.DIRTYEVICT,)
        return ()

    def issue(self, op: int, addr: int, wvalue: int | None = None, window: frozenset[int] = frozenset()) -> int:
        """Send request `op` for `addr`; returns its CQID."""
        assert self.can_issue(addr), f"dev{self.port}: cannot issue for line {addr:#x}"
        cqid = next(i for i in range(self.n_cqid) if i not in self.txns)
        if op == Op.CACHEFLUSHED:  # no line: the address field is reserved (sent as 0)
            self.txns[cqid] = DevTxn(op, -1, cqid)
            self.out.append(CD2HReq(self.port, int(op), cqid, 0))
            return cqid
        st, val = self.lines.get(addr, (L.I, 0))
        if op in (Op.CLEANEVICT, Op.CLEANEVICTNODATA):
            assert st in (L.S, L.E), f"clean evict from {st.name}"
            self._set(addr, L.EV_C, val)
        elif op == Op.DIRTYEVICT:
            assert st == L.M, f"dirty evict from {st.name}"
            self._set(addr, L.EV_M, val)
        self.txns[cqid] = DevTxn(op, addr, cqid, wvalue=wvalue, window=window)
        self.out.append(CD2HReq(self.port, int(op), cqid, addr))
        return cqid

    def store(self, addr: int, value: int) -> None:
        st = self.state(addr)
        assert st in (L.E, L.M), f"store to a line in {st.name}"
        self._set(addr, L.M, value)

    def silent_drop(self, addr: int) -> None:
        st = self.state(addr)
        assert st in (L.S, L.E) and self.txn_for(addr) is None, f"silent drop from {st.name}"
        self._set(addr, L.I)

    def widen_windows(self, addr: int, value: int) -> None:
        """A new value of `addr` was committed: outstanding non-caching reads may return it."""
        for c, t in list(self.txns.items()):
            if t.addr == addr and t.opcode in READ_OPS:
                self.txns[c] = replace(t, window=t.window | {value})

    # ------------------------------------------------------------------ host messages
    def snoop_blocked(self, m: CH2DReq) -> bool:
        t = self.txn_for(m.addr)
        return (t is not None and t.opcode in (Op.RDSHARED, Op.RDOWN, Op.RDANY) and t.go is not None
                and t.go != GOState.ERR and t.data is None)

    def snoop_choices(self, m: CH2DReq) -> int:
        return len(snoop_options(m.opcode, self.state(m.addr)))

    def receive(self, m: CohMsg, choice: int = 0) -> None:
        if isinstance(m, CH2DReq):
            self._on_snoop(m, choice)
        elif isinstance(m, CH2DRsp):
            self._on_rsp(m)
        elif isinstance(m, CH2DData):
            self._on_data(m)
        else:
            raise TypeError(f"device cannot receive {m!r}")

    def _on_snoop(self, m: CH2DReq, choice: int) -> None:
        assert not self.snoop_blocked(m)
        st, val = self.lines.get(m.addr, (L.I, 0))
        ans = snoop_options(m.opcode, st)[choice]
        self.out.append(CD2HRsp(self.port, int(ans.rsp), m.uqid))
        if ans.fwd:
            self.out.append(CD2HData(self.port, m.uqid, val))
        self._set(m.addr, ans.new_state, val)

    def _done(self, t: DevTxn) -> None:
        del self.txns[t.cqid]

    def _on_rsp(self, m: CH2DRsp) -> None:
        t = self.txns.get(m.cqid)
        if t is None:
            self.errors["unexpected_rsp"] += 1
            return
        op, r = t.opcode, m.opcode
        if r == H2DRspOp.GO and t.go is None and op != Op.RDCURR:
            t = replace(t, go=m.rspdata)
            self.txns[t.cqid] = t
            if m.rspdata == GOState.ERR:
                self.errors["go_err"] += 1
                self._done(t)
                if self.state(t.addr) in (L.EV_C, L.EV_M, L.EV_I):
                    self._set(t.addr, L.I)
            elif op in (Op.RDSHARED, Op.RDOWN, Op.RDANY):
                if t.data is not None:
                    self._finish_read(t)
            elif op == Op.RDOWNNODATA:
                self._done(t)
                if m.rspdata in (GOState.E, GOState.M):
                    self._set(t.addr, L.E, self.value(t.addr))
                    self.events.append(("full_write", t.addr))
            elif op == Op.CLEANEVICTNODATA:
                self._done(t)
                self._set(t.addr, L.I)
            elif op in (Op.CLFLUSH, Op.WRINV, Op.CACHEFLUSHED):
                if op == Op.WRINV and not t.pulled:
                    self.errors["unexpected_rsp"] += 1
                self._done(t)
            else:
                self.errors["unexpected_rsp"] += 1
            return
        if r == H2DRspOp.GO_WRITEPULL and op in (Op.ITOMWR, Op.WRCUR, Op.DIRTYEVICT, Op.CLEANEVICT):
            self._done(t)
            if op in WRITE_OPS:
                self.out.append(CD2HData(self.port, m.rspdata, t.wvalue or 0))
                return
            st, val = self.lines.get(t.addr, (L.I, 0))
            lost = st == L.EV_I
            self.out.append(CD2HData(self.port, m.rspdata, 0 if lost else val, 1 if lost else 0))
            self._set(t.addr, L.I)
            return
        if r == H2DRspOp.GO_WRITEPULL_DROP and op in (Op.CLEANEVICT, Op.DIRTYEVICT):
            self._done(t)
            self._set(t.addr, L.I)
            return
        if op in WEAK_WRITE_OPS and (r == H2DRspOp.FAST_GO_WRITEPULL and t.go is None
                                     or r == H2DRspOp.EXTCMP and not t.ext):
            if r == H2DRspOp.FAST_GO_WRITEPULL:
                t = replace(t, go=int(GOState.I), pulled=True)
                self.out.append(CD2HData(self.port, m.rspdata, t.wvalue or 0))
            else:
                t = replace(t, ext=True)
            self.txns[t.cqid] = t
            if t.pulled and t.ext:
                self._done(t)
            return
        if r == H2DRspOp.WRITEPULL and op == Op.WRINV and not t.pulled:
            self.txns[t.cqid] = replace(t, pulled=True)
            self.out.append(CD2HData(self.port, m.rspdata, t.wvalue or 0))
            return
        self.errors["unexpected_rsp"] += 1

    def _on_data(self, m: CH2DData) -> None:
        t = self.txns.get(m.cqid)
        if t is None or t.opcode not in READ_OPS or t.data is not None:
            self.errors["unexpected_data"] += 1
            return
        t = replace(t, data=m.value)
        self.txns[t.cqid] = t
        if t.opcode == Op.RDCURR:
            self._done(t)
            self.events.append(("load", t.addr, m.value, t.window, t.cqid))
        elif t.go is not None:
            self._finish_read(t)

    def _finish_read(self, t: DevTxn) -> None:
        self._done(t)
        st = GO_TO_LINE.get(t.go)  # type: ignore[arg-type]
        assert t.data is not None
        if st is None:  # GO-I: a non-caching read
            self.events.append(("load", t.addr, t.data, t.window, t.cqid))
            if self.state(t.addr) == L.S:
                self._set(t.addr, L.I)
            return
        self._set(t.addr, st, t.data)
        self.events.append(("load", t.addr, t.data, None, t.cqid))
