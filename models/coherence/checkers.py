"""Checkers that run on any observed trace (the model's own or an RTL testbench's).

Trace events (times are any non-decreasing numbers, e.g. sim time or an event counter):
  * PortMsg(t, msg): a message at the home agent's ports: D2H/S2M messages when the home receives
    them, H2D/M2S messages when it sends them. Feeds CompletionChecker and OrderingChecker.
  * CacheState(t, port, addr, state): a device cache line changed state (device-side ground
    truth, e.g. from a caching-device agent). Feeds SwmrChecker.
  * Store(t, port, addr, value): a new line value became the latest (a store into an E/M line, or
    a write-through committed at the home; port -1 when committed at the home).
  * Load(t0, t1, port, addr, value): a read returned `value`; it was issued at t0 and returned at
    t1 (t0 == t1 for a read of a cached copy). Store and Load feed DataValueChecker.
Each checker collects human-readable `violations`; `strict=True` raises AssertionError at once.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Union

from models.coherence.msgs import CD2HData, CD2HReq, CD2HRsp, CH2DData, CH2DReq, CH2DRsp, CohMsg
from models.coherence.protocol import (
    FWD_RSPS,
    GO_CLASS,
    ILLEGAL_RSP_TAKEN_AS,
    LEGAL_SNOOP_RSPS,
    LINELESS_OPS,
    PULL_CLASS,
    REQUEST_OPS,
    WRITABLE,
    LineState,
    completion_spec,
)
from models.cxl.messages import D2HReqOp, GOState, H2DRspOp


@dataclass(frozen=True)
class PortMsg:
    t: float
    msg: CohMsg


@dataclass(frozen=True)
class CacheState:
    t: float
    port: int
    addr: int
    state: LineState


@dataclass(frozen=True)
class Store:
    t: float
    port: int
    addr: int
    value: int


@dataclass(frozen=True)
class Load:
    t0: float
    t1: float
    port: int
    addr: int
    value: int


TraceEvent = Union[PortMsg, CacheState, Store, Load]


def swmr_violations(snapshot: Mapping[int, Mapping[int, LineState]]) -> list[str]:
    """SWMR on a snapshot {addr: {port: state}}: one writer (E/M) and nobody else, or only readers (S)."""
    out: list[str] = []
    for addr, per in snapshot.items():
        writers = sorted(p for p, s in per.items() if s in WRITABLE)
        readers = sorted(p for p, s in per.items() if s == LineState.S)
        if len(writers) > 1 or (writers and readers):
            out.append(f"SWMR: line {addr:#x} writers {writers} readers {readers}")
    return out


@dataclass
class _Checker:
    strict: bool = False
    violations: list[str] = field(default_factory=list)

    def _fail(self, text: str) -> None:
        self.violations.append(text)
        if self.strict:
            raise AssertionError(text)


@dataclass
class SwmrChecker(_Checker):
    """Single writer or multiple readers per line at every instant of the trace."""

    states: dict[int, dict[int, LineState]] = field(default_factory=dict)

    def feed(self, ev: TraceEvent) -> None:
        if not isinstance(ev, CacheState):
            return
        per = self.states.setdefault(ev.addr, {})
        if ev.state == LineState.I:
            per.pop(ev.port, None)
        else:
            per[ev.port] = ev.state
        for v in swmr_violations({ev.addr: per}):
            self._fail(f"t={ev.t}: {v}")


@dataclass
class DataValueChecker(_Checker):
    """Every read returns the latest write: the value latest at issue or one committed before return."""

    initial: Mapping[int, int] = field(default_factory=dict)
    history: dict[int, list[tuple[float, int]]] = field(default_factory=dict)
    loads: int = 0

    def latest(self, addr: int) -> int:
        h = self.history.get(addr)
        return h[-1][1] if h else self.initial.get(addr, 0)

    def feed(self, ev: TraceEvent) -> None:
        if isinstance(ev, Store):
            self.history.setdefault(ev.addr, []).append((ev.t, ev.value))
        elif isinstance(ev, Load):
            self.loads += 1
            h = self.history.get(ev.addr, [])
            at_issue = self.initial.get(ev.addr, 0)
            allowed = set()
            for t, v in h:
                if t <= ev.t0:
                    at_issue = v
                elif t <= ev.t1:
                    allowed.add(v)
            allowed.add(at_issue)
            if ev.value not in allowed:
                self._fail(f"t={ev.t1}: dev{ev.port} read line {ev.addr:#x} = {ev.value:#x}, "
                           f"latest writes allowed {sorted(allowed)}")


def _opname(op: int) -> str:
    return D2HReqOp(op).name if op in D2HReqOp._value2member_map_ else f"opcode {op:#x}"


@dataclass
class _Pending:
    port: int
    op: int
    addr: int
    go: int = 0
    data: int = 0
    pulls: int = 0
    pull_done: int = 0
    go_err: bool = False
    extcmp: int = 0


@dataclass
class CompletionChecker(_Checker):
    """Every request gets exactly one GO/completion (and its data / write-pull), nothing else."""

    pending: dict[tuple[int, int], _Pending] = field(default_factory=dict)
    pulls: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)  # (port, uqid) -> req
    completed: int = 0
    dropped: list[str] = field(default_factory=list)  # requests the home must drop (duplicate CQID)
    on_done: Callable[[float, tuple[int, int]], None] | None = None  # (t, (port, cqid)) per completion

    def feed(self, ev: TraceEvent) -> None:
        if not isinstance(ev, PortMsg):
            return
        m = ev.msg
        if isinstance(m, CD2HReq):
            k = (m.port, m.cqid)
            if k in self.pending:
                # a CQID reused while its request is owed an answer: the home drops it (counted as an
                # illegal request), the first request keeps the CQID
                self.dropped.append(f"t={ev.t}: dev{m.port} CQID {m.cqid} reused while outstanding")
                return
            self.pending[k] = _Pending(m.port, m.opcode, m.addr)  # an illegal opcode gets GO-Err
        elif isinstance(m, CH2DRsp):
            k = (m.port, m.cqid)
            p = self.pending.get(k)
            if p is None:
                self._fail(f"t={ev.t}: H2D Rsp {H2DRspOp(m.opcode).name} to dev{m.port} CQID {m.cqid} "
                           f"with no outstanding request")
                return
            if m.opcode in GO_CLASS:
                p.go += 1
                if m.opcode == H2DRspOp.GO and m.rspdata == GOState.ERR:
                    p.go_err = True
                if p.op == D2HReqOp.RDCURR:
                    self._fail(f"t={ev.t}: GO for RdCurr dev{m.port} CQID {m.cqid}")
                if p.op == D2HReqOp.WRINV and p.pull_done < 1:
                    self._fail(f"t={ev.t}: WrInv GO before its data arrived (dev{m.port} CQID {m.cqid})")
            if m.opcode == H2DRspOp.EXTCMP:
                p.extcmp += 1
                if not completion_spec(p.op).extcmp:
                    self._fail(f"t={ev.t}: ExtCmp for {_opname(p.op)} dev{m.port} CQID {m.cqid}")
                elif p.pull_done < 1:
                    self._fail(f"t={ev.t}: ExtCmp before the written line arrived (dev{m.port} CQID {m.cqid})")
            if m.opcode in PULL_CLASS:
                p.pulls += 1
                self.pulls[(m.port, m.rspdata)] = k
            self._check_done(ev.t, k, p)
        elif isinstance(m, CH2DData):
            k = (m.port, m.cqid)
            p = self.pending.get(k)
            if p is None:
                self._fail(f"t={ev.t}: H2D Data to dev{m.port} CQID {m.cqid} with no outstanding request")
                return
            p.data += 1
            self._check_done(ev.t, k, p)
        elif isinstance(m, CD2HData):
            k2 = self.pulls.pop((m.port, m.uqid), None)
            if k2 is not None and k2 in self.pending:
                self.pending[k2].pull_done += 1
                self._check_done(ev.t, k2, self.pending[k2])

    def _check_done(self, t: float, k: tuple[int, int], p: _Pending) -> None:
        spec = completion_spec(p.op)
        if p.go > 1 or p.data > 1 or p.pulls > 1 or p.extcmp > 1:
            self._fail(f"t={t}: dev{p.port} CQID {k[1]} {_opname(p.op)}: {p.go} GO, {p.data} data, "
                       f"{p.pulls} pulls, {p.extcmp} ExtCmp")
            del self.pending[k]
            return
        if p.op not in REQUEST_OPS and p.go == 1 and not p.go_err:
            self._fail(f"t={t}: illegal request dev{p.port} CQID {k[1]} answered with a GO other than GO-Err")
        need_go = spec.go
        need_data = spec.data and not p.go_err
        if p.op == D2HReqOp.WRINV:
            done = p.go == 1 and p.pulls == 1
        elif spec.extcmp:
            done = p.go == 1 and p.pulls == 1 and p.extcmp == 1
        else:
            done = (p.go == 1 or not need_go) and (p.data == 1 or not need_data)
            if spec.pull == "yes" and not p.go_err:
                done = done and p.pulls == 1
        if done:
            del self.pending[k]
            self.completed += 1
            if self.on_done is not None:
                self.on_done(t, k)

    def finish(self) -> list[str]:
        """Call at quiescence: every request and every write-pull must have completed."""
        for (port, cqid), p in self.pending.items():
            self._fail(f"end: dev{port} CQID {cqid} {_opname(p.op)} line {p.addr:#x} never completed")
        for (port, uqid) in self.pulls:
            self._fail(f"end: write-pull UQID {uqid} to dev{port} never got its data")
        return self.violations


@dataclass
class OrderingChecker(_Checker):
    """Host ordering rules: one snoop pending per line per device; no GO / WritePull for a line
    before its snoops' responses and forwarded data arrived."""

    req_addr: dict[tuple[int, int], int] = field(default_factory=dict)
    snoops: dict[tuple[int, int], list] = field(default_factory=dict)  # (port, uqid) -> [addr, rsp, data, snoop]

    def _busy(self, addr: int) -> bool:
        return any(s[0] == addr for s in self.snoops.values())

    def feed(self, ev: TraceEvent) -> None:
        if not isinstance(ev, PortMsg):
            return
        m = ev.msg
        if isinstance(m, CD2HReq):
            if m.opcode in LINELESS_OPS:   # CacheFlushed names no line (its address field is 0)
                self.req_addr.pop((m.port, m.cqid), None)
            else:
                self.req_addr[(m.port, m.cqid)] = m.addr
        elif isinstance(m, CH2DReq):
            if any(s[0] == m.addr and p == m.port for (p, _), s in self.snoops.items()):
                self._fail(f"t={ev.t}: second snoop to dev{m.port} for line {m.addr:#x} while one is pending")
            self.snoops[(m.port, m.uqid)] = [m.addr, None, False, m.opcode]
        elif isinstance(m, (CD2HRsp, CD2HData)):
            s = self.snoops.get((m.port, m.uqid))
            if s is None:
                return
            if isinstance(m, CD2HRsp):
                # an answer outside the snoop's legal set is taken as ILLEGAL_RSP_TAKEN_AS (no data)
                s[1] = m.opcode if m.opcode in LEGAL_SNOOP_RSPS.get(s[3], ()) else int(ILLEGAL_RSP_TAKEN_AS)
            else:
                s[2] = True
            if s[1] is not None and (s[1] not in FWD_RSPS or s[2]):
                del self.snoops[(m.port, m.uqid)]
        elif isinstance(m, CH2DRsp) and (m.opcode in GO_CLASS or m.opcode in PULL_CLASS):
            addr = self.req_addr.get((m.port, m.cqid))
            if addr is not None and self._busy(addr):
                self._fail(f"t={ev.t}: {H2DRspOp(m.opcode).name} to dev{m.port} for line {addr:#x} "
                           f"before the line's snoop responses / data arrived")


def check_trace(events: Iterable[TraceEvent], initial: Mapping[int, int] | None = None,
                at_quiescence: bool = True) -> dict[str, list[str]]:
    """Run all four checkers over a trace; returns {checker name: violations}."""
    cs = {"swmr": SwmrChecker(), "data": DataValueChecker(initial=dict(initial or {})),
          "completion": CompletionChecker(), "ordering": OrderingChecker()}
    for ev in events:
        for c in cs.values():
            c.feed(ev)
    if at_quiescence:
        cs["completion"].finish()  # type: ignore[attr-defined]
    return {k: c.violations for k, c in cs.items()}


__all__ = ["PortMsg", "CacheState", "Store", "Load", "TraceEvent", "swmr_violations", "SwmrChecker",
           "DataValueChecker", "CompletionChecker", "OrderingChecker", "check_trace"]
