"""Whole system: home agent + N caching devices + memory, joined by explicit FIFO channels.

Every step is one event: delivering the head of one channel, or one device action (issue a request,
store, silently drop a clean line). `enabled()` lists the events possible now, `apply(ev)` performs
one, `clone()`/`key()` let the explorer branch and deduplicate, `check()` evaluates the invariants.

Channel semantics: one FIFO per port and CXL.cache channel (D2H Req/Rsp/Data, H2D Req/Rsp/Data) and
one per CXL.mem channel; channels are independent, except that an H2D Req (snoop) is not delivered
before an older H2D Rsp on the same port (snoops do not pass GOs).

Ghost state for checking: `latest[line]` (the latest committed value), fresh values from a counter
(every value written is unique). Values are committed by stores into E/M lines and by the home when
a write-through's data arrives.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from models.coherence.checkers import CacheState, Load, PortMsg, Store, TraceEvent, swmr_violations
from models.coherence.device import DeviceCache
from models.coherence.home import HomeAgent, HomeConfig
from models.coherence.msgs import (
    CHANNEL_OF,
    CD2HReq,
    CM2SReq,
    CM2SRwD,
    CohMsg,
    CS2MDRS,
    CS2MNDR,
    D2H_DATA,
    D2H_REQ,
    D2H_RSP,
    H2D_DATA,
    H2D_REQ,
    H2D_RSP,
    M2S_REQ,
    M2S_RWD,
    S2M_DRS,
    S2M_NDR,
)
from models.coherence.protocol import READABLE, REQUEST_OPS, WRITE_OPS, LineState
from models.cxl.messages import D2HReqOp, S2MDRSOp, S2MNDROp

Op = D2HReqOp
INVARIANTS = frozenset({"SWMR", "data", "inclusion", "selective", "directory", "memory"})
DEV_CHANNELS = (D2H_REQ, D2H_RSP, D2H_DATA, H2D_REQ, H2D_RSP, H2D_DATA)
MEM_CHANNELS = (M2S_REQ, M2S_RWD, S2M_NDR, S2M_DRS)
TO_HOME = (D2H_REQ, D2H_RSP, D2H_DATA, S2M_NDR, S2M_DRS)


@dataclass(frozen=True)
class SysConfig:
    """Parameters of a system model. Budgets bound exploration (None = unbounded)."""

    n_devices: int = 2
    lines: tuple[int, ...] = (0,)  # line addresses the devices use
    sets: int = 2
    ways: int = 2
    coherent: tuple[tuple[int, int], ...] = ((0, 1 << 46),)
    ops: frozenset[int] = REQUEST_OPS  # requests the devices may issue
    max_requests: int | None = 2  # per device
    max_writes: int | None = 2  # new values in the whole system (stores, write-throughs, RdOwnNoData)
    silent_drop: bool = True
    snoop_choices: bool = False  # explore every legal snoop answer, not just the default one
    stores: bool = True
    loads: bool = False  # offer ("ld", port, addr) events: a device reads a line it holds
    n_cqid: int = 2
    n_uqid: int = 4096
    fault: str | None = None
    # Memory serves an M2S message the moment the home sends it (only the S2M answer travels).
    # Equivalent for exploration: the home keeps a line locked until its MemWr completed, so no two
    # memory operations of one line are ever outstanding together; it only removes interleavings.
    mem_atomic: bool = False

    def home_config(self) -> HomeConfig:
        return HomeConfig(self.n_devices, self.sets, self.ways, self.coherent, self.n_uqid, fault=self.fault)


Event = tuple  # ("dlv", channel, port, choice) | ("iss", port, op, addr) | ("st", port, addr) | ("drop", port, addr)


@dataclass
class System:
    cfg: SysConfig
    home: HomeAgent
    devs: list[DeviceCache]
    ch: dict[tuple[str, int], tuple[tuple[int, CohMsg], ...]]  # (channel, port) -> ((seq, msg), ...)
    mem: dict[int, int]
    latest: dict[int, int]
    next_value: int = 1
    req_left: tuple[int, ...] = ()
    writes_left: int = 0
    seq: int = 0
    violations: list[str] = field(default_factory=list)
    trace: list[TraceEvent] | None = None
    time: int = 0
    issue_time: dict[tuple[int, int], int] = field(default_factory=dict)  # (port, cqid) -> t0

    @classmethod
    def initial(cls, cfg: SysConfig, trace: bool = False, mem: dict[int, int] | None = None) -> System:
        big = 1 << 30
        m = dict(mem or {})
        return cls(cfg, HomeAgent(cfg.home_config()),
                   [DeviceCache(p, cfg.n_cqid) for p in range(cfg.n_devices)], {}, m,
                   {a: m.get(a, 0) for a in cfg.lines}, 1 + max(m.values(), default=0),
                   tuple(cfg.max_requests if cfg.max_requests is not None else big for _ in range(cfg.n_devices)),
                   cfg.max_writes if cfg.max_writes is not None else big, 0, [], [] if trace else None)

    def clone(self) -> System:
        return System(self.cfg, self.home.clone(), [d.clone() for d in self.devs], dict(self.ch), dict(self.mem),
                      dict(self.latest), self.next_value, self.req_left, self.writes_left, self.seq, [], None,
                      self.time, dict(self.issue_time))

    def key(self) -> tuple:
        """Canonical state. Sequence numbers only matter as the relative order of H2D Req vs Rsp."""
        ch = self.ch
        chans = tuple((k, tuple(m for _, m in ch[k])) for k in sorted(ch))
        order = []
        for p in range(self.cfg.n_devices):
            a, b = ch.get((H2D_REQ, p)), ch.get((H2D_RSP, p))
            if a and b:
                order.append((p, tuple(x for _, x in sorted([(s, 0) for s, _ in a] + [(s, 1) for s, _ in b]))))
        # next_value is left out: fresh values are always new, so states differing only in it are equivalent
        return (self.home.key(), tuple(d.key() for d in self.devs), chans, tuple(order),
                tuple(sorted(self.mem.items())), tuple(sorted(self.latest.items())), self.req_left,
                self.writes_left)

    # ------------------------------------------------------------------ routing
    def _emit(self, ev: TraceEvent) -> None:
        if self.trace is not None:
            self.trace.append(ev)

    def _send(self, msg: CohMsg) -> None:
        name = CHANNEL_OF[type(msg)]
        if self.cfg.mem_atomic and name in (M2S_REQ, M2S_RWD):
            self._emit(PortMsg(self.time, msg))
            self._memory(msg)
            return
        port = getattr(msg, "port", -1) if name in DEV_CHANNELS else -1
        self.seq += 1
        k = (name, port)
        self.ch[k] = self.ch.get(k, ()) + ((self.seq, msg),)
        if name in (H2D_REQ, H2D_RSP, H2D_DATA, M2S_REQ, M2S_RWD):
            self._emit(PortMsg(self.time, msg))  # observed when the home sends it

    def _route_home(self) -> None:
        out, self.home.out = self.home.out, []
        for m in out:
            self._send(m)
        commits, self.home.commits = self.home.commits, []
        for line, value in commits:
            self._commit(-1, line, value)

    def _commit(self, port: int, line: int, value: int) -> None:
        self.latest[line] = value
        self._emit(Store(self.time, port, line, value))
        for d in self.devs:
            d.widen_windows(line, value)

    def _fresh(self) -> int:
        v = self.next_value
        self.next_value += 1
        self.writes_left -= 1
        return v

    def _route_dev(self, d: DeviceCache) -> None:
        out, d.out = d.out, []
        for m in out:
            self._send(m)
            if isinstance(m, CD2HReq):  # remember the issue time: the window of a non-caching read
                self.issue_time[(m.port, m.cqid)] = self.time
        evs, d.events = d.events, []
        for ev in evs:
            if ev[0] == "state":
                self._emit(CacheState(self.time, d.port, ev[1], ev[2]))
            elif ev[0] == "load":
                _, addr, value, window, cqid = ev
                t0 = self.issue_time.pop((d.port, cqid), self.time)
                if window is None:
                    if value != self.latest[addr]:
                        self.violations.append(f"data: dev{d.port} installed line {addr:#x} = {value}, "
                                               f"latest {self.latest[addr]}")
                elif value not in window:
                    self.violations.append(f"data: dev{d.port} read line {addr:#x} = {value}, "
                                           f"allowed {sorted(window)}")
                self._emit(Load(t0 if window is not None else self.time, self.time, d.port, addr, value))
            elif ev[0] == "full_write":
                v = self.next_value  # budget already taken at issue
                self.next_value += 1
                d.store(ev[1], v)
                self._route_dev_states(d)
                self._commit(d.port, ev[1], v)

    def _route_dev_states(self, d: DeviceCache) -> None:
        evs, d.events = d.events, []
        for ev in evs:
            if ev[0] == "state":
                self._emit(CacheState(self.time, d.port, ev[1], ev[2]))

    # ------------------------------------------------------------------ events
    def coherent(self, addr: int) -> bool:
        return self.home.cfg.is_coherent(addr)

    def enabled(self) -> list[Event]:
        evs: list[Event] = []
        for (name, port), q in sorted(self.ch.items()):
            if not q:
                continue
            seq, msg = q[0]
            if name == H2D_REQ:
                rq = self.ch.get((H2D_RSP, port), ())
                if rq and rq[0][0] < seq:
                    continue  # a snoop does not pass an older GO
                d = self.devs[port]
                if d.snoop_blocked(msg):  # type: ignore[arg-type]
                    continue
                n = d.snoop_choices(msg) if self.cfg.snoop_choices else 1  # type: ignore[arg-type]
                evs.extend(("dlv", name, port, c) for c in range(n))
            else:
                evs.append(("dlv", name, port, 0))
        for d in self.devs:
            for a in self.cfg.lines:
                st = d.state(a)
                if self.req_left[d.port] > 0:
                    for op in d.legal_requests(a, self.coherent(a)):
                        if op not in self.cfg.ops or (op == Op.CACHEFLUSHED and a != self.cfg.lines[0]):
                            continue
                        if (op in WRITE_OPS or op == Op.RDOWNNODATA) and self.writes_left <= 0:
                            continue
                        evs.append(("iss", d.port, op, a))
                if d.txn_for(a) is None:
                    if self.cfg.stores and st in (LineState.E, LineState.M) and self.writes_left > 0:
                        evs.append(("st", d.port, a))
                    if self.cfg.silent_drop and st in (LineState.S, LineState.E):
                        evs.append(("drop", d.port, a))
                    if self.cfg.loads and st in READABLE:
                        evs.append(("ld", d.port, a))
        return evs

    def apply(self, ev: Event) -> None:
        self.time += 1
        kind = ev[0]
        if kind == "dlv":
            _, name, port, choice = ev
            q = self.ch[(name, port)]
            _, msg = q[0]
            if len(q) > 1:
                self.ch[(name, port)] = q[1:]
            else:
                del self.ch[(name, port)]
            if name in TO_HOME:
                self._emit(PortMsg(self.time, msg))  # observed when the home receives it
                self.home.receive(msg)
                self._route_home()
            elif name in (M2S_REQ, M2S_RWD):
                self._memory(msg)
            else:
                d = self.devs[port]
                d.receive(msg, choice)
                self._route_dev(d)
        elif kind == "iss":
            _, port, op, addr = ev
            d = self.devs[port]
            rl = list(self.req_left)
            rl[port] -= 1
            self.req_left = tuple(rl)
            wvalue = self._fresh() if op in WRITE_OPS else None
            if op == Op.RDOWNNODATA:
                self.writes_left -= 1  # its full-line store draws a value when ownership arrives
            window = frozenset({self.latest[addr]}) if op in (Op.RDSHARED, Op.RDOWN, Op.RDANY, Op.RDCURR) \
                else frozenset()
            d.issue(op, addr, wvalue, window)
            self._route_dev(d)
        elif kind == "st":
            _, port, addr = ev
            d = self.devs[port]
            v = self._fresh()
            d.store(addr, v)
            self._route_dev(d)
            self._commit(port, addr, v)
        elif kind == "ld":
            _, port, addr = ev
            v = self.devs[port].value(addr)
            if v != self.latest[addr]:
                self.violations.append(f"data: dev{port} load of line {addr:#x} = {v}, latest {self.latest[addr]}")
            self._emit(Load(self.time, self.time, port, addr, v))
        elif kind == "drop":
            _, port, addr = ev
            d = self.devs[port]
            d.silent_drop(addr)
            self._route_dev(d)
        else:
            raise ValueError(f"unknown event {ev!r}")

    def _memory(self, msg: CohMsg) -> None:
        if isinstance(msg, CM2SReq):
            self._send(CS2MDRS(int(S2MDRSOp.MEMDATA), msg.tag, self.mem.get(msg.addr, 0)))
        elif isinstance(msg, CM2SRwD):
            self.mem[msg.addr] = msg.value
            self._send(CS2MNDR(int(S2MNDROp.CMP), msg.tag))

    def inject(self, msg: CohMsg) -> None:
        """Put an arbitrary (e.g. malformed) message on its channel, for error-injection tests."""
        self._send(msg)

    # ------------------------------------------------------------------ invariants
    def quiescent(self) -> bool:
        return (not any(self.ch.values()) and self.home.idle() and not any(d.txns for d in self.devs))

    def snapshot(self) -> dict[int, dict[int, LineState]]:
        snap: dict[int, dict[int, LineState]] = {}
        for d in self.devs:
            for a, (st, _) in d.lines.items():
                snap.setdefault(a, {})[d.port] = st
        return snap

    def check(self, only: frozenset[str] | None = None) -> list[str]:
        """Invariants of the current state: SWMR, every accessible copy holds the latest value,
        inclusive snoop filter, and at quiescence memory holds the latest value of unowned lines.
        Each text starts with its kind (one of INVARIANTS); `only` keeps just those kinds."""
        out = self._check()
        if only is not None:
            out = [v for v in out if v.split(":", 1)[0] in only]
        return out

    def _check(self) -> list[str]:
        out = swmr_violations(self.snapshot())
        for d in self.devs:
            for a, (st, v) in d.lines.items():
                if (st in READABLE or st == LineState.EV_M) and v != self.latest.get(a, 0):
                    out.append(f"data: dev{d.port} holds line {a:#x} in {st.name} = {v}, latest {self.latest.get(a)}")
                if st in READABLE and self.coherent(a) and not self._listed(d.port, a):
                    out.append(f"inclusion: dev{d.port} holds line {a:#x} in {st.name}, snoop filter does not list it")
                if not self.coherent(a):
                    out.append(f"selective: dev{d.port} caches non-coherent line {a:#x}")
        for s, ents in self.home.dirs.items():
            if len(ents) > self.home.cfg.ways:
                out.append(f"directory: set {s} holds {len(ents)} > {self.home.cfg.ways} ways")
        if self.quiescent():
            owned = {a for d in self.devs for a, (st, _) in d.lines.items() if st == LineState.M}
            for a in self.cfg.lines:
                if a not in owned and self.mem.get(a, 0) != self.latest.get(a, 0):
                    out.append(f"memory: line {a:#x} = {self.mem.get(a, 0)}, latest {self.latest.get(a)}")
        return out

    def _listed(self, port: int, addr: int) -> bool:
        e = self.home.entry(addr)
        return e is not None and bool(e.sharers >> port & 1)

    def errors(self) -> dict[str, int]:
        errs = dict(self.home.errors)
        for d in self.devs:
            for k, v in d.errors.items():
                errs[f"dev_{k}"] = errs.get(f"dev_{k}", 0) + v
        return errs


def run_events(s: System, events: Iterable[Event]) -> System:
    """Apply a fixed sequence of events (for directed tests); returns the system."""
    for ev in events:
        s.apply(ev)
    return s
