"""Helpers to script directed flows on the system model (used by tests and by RTL scoreboards)."""
from __future__ import annotations

from models.coherence.checkers import PortMsg
from models.coherence.msgs import CH2DReq, CH2DRsp
from models.coherence.protocol import LineState
from models.coherence.system import SysConfig, System
from models.cxl.messages import D2HReqOp

Op = D2HReqOp


def settle(s: System, limit: int = 10_000) -> System:
    """Deliver messages (lowest channel/port first) until nothing is in flight."""
    for _ in range(limit):
        evs = [e for e in s.enabled() if e[0] == "dlv"]
        if not evs:
            return s
        s.apply(evs[0])
    raise RuntimeError("settle: messages still moving after limit")


def request(s: System, port: int, op: int, addr: int) -> System:
    """Issue one request from `port` and run it to completion."""
    s.apply(("iss", port, op, addr))
    return settle(s)


def store(s: System, port: int, addr: int) -> System:
    s.apply(("st", port, addr))
    return s


def setup(state: str, cfg: SysConfig, addr: int = 0, requester: int = 0) -> System:
    """A quiescent system whose directory holds `addr` in `state`, seen from `requester`:
    "I" nobody; "S" two other devices share it; "E" another device owns it clean; "M" another
    device owns it dirty; "S_self" requester and one other share it; "E_self" / "M_self" the
    requester owns it clean / dirty."""
    s = System.initial(cfg, trace=True)
    others = [p for p in range(cfg.n_devices) if p != requester]
    if state == "I":
        pass
    elif state == "S":
        request(s, others[0], Op.RDSHARED, addr)
        request(s, others[1], Op.RDSHARED, addr)
    elif state in ("E", "M"):
        request(s, others[0], Op.RDOWN, addr)
        if state == "M":
            store(s, others[0], addr)
    elif state == "S_self":
        request(s, others[0], Op.RDSHARED, addr)
        request(s, requester, Op.RDSHARED, addr)
    elif state in ("E_self", "M_self"):
        request(s, requester, Op.RDOWN, addr)
        if state == "M_self":
            store(s, requester, addr)
    else:
        raise ValueError(f"unknown setup state {state!r}")
    return s


def states_of(s: System, addr: int) -> tuple[LineState, ...]:
    return tuple(d.state(addr) for d in s.devs)


def sent_since(s: System, start: int) -> list:
    """Messages the home sent to devices (snoops and responses) in trace[start:]."""
    assert s.trace is not None
    return [e.msg for e in s.trace[start:] if isinstance(e, PortMsg) and isinstance(e.msg, (CH2DReq, CH2DRsp))]
