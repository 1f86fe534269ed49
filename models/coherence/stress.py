"""Random stress of the system model: random interleavings, then a drain to quiescence.

Every run is reproducible from its seed (`random.Random(seed)` is the only source of randomness).
The trace is checked by the trace checkers (SWMR, data value, completion, ordering) and the state
invariants are evaluated every `check_every` steps and at the end.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from models.coherence.checkers import check_trace
from models.coherence.msgs import CD2HData, CD2HReq, CD2HRsp
from models.coherence.system import Event, SysConfig, System
from models.cxl.messages import D2HReqOp, D2HRspOp

# Relative weights of event kinds: deliveries dominate so queues stay short but do fill up.
WEIGHTS = {"dlv": 4.0, "iss": 1.0, "st": 0.7, "ld": 0.7, "drop": 0.15}


@dataclass
class StressResult:
    seed: int
    steps: int = 0
    drained: bool = False
    violations: list[str] = field(default_factory=list)
    trace_violations: dict[str, list[str]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    injected: dict[str, int] = field(default_factory=dict)
    stats: dict[str, int] = field(default_factory=dict)
    completed: int = 0

    @property
    def ok(self) -> bool:
        return self.drained and not self.violations and not any(self.trace_violations.values())


def pick(rng: random.Random, evs: list[Event]) -> Event:
    w = [WEIGHTS.get(e[0], 1.0) for e in evs]
    return rng.choices(evs, weights=w, k=1)[0]


def inject_error(s: System, rng: random.Random) -> str | None:
    """Deliver one malformed message straight to the home; returns the error kind it must raise."""
    h = s.home
    n = s.cfg.n_devices
    kind = rng.choice(("illegal_opcode", "unsolicited_rsp", "unsolicited_data", "wrong_uqid"))
    port = rng.randrange(n)
    if kind == "illegal_opcode":
        op = rng.choice((D2HReqOp.WOWRINV, D2HReqOp.WOWRINVF, D2HReqOp.CACHEFLUSHED, 0x00, 0x1F))
        h.receive(CD2HReq(port, int(op), 0, rng.choice(s.cfg.lines)))
    elif kind == "unsolicited_rsp":
        free = [u for u in range(s.cfg.n_uqid) if u not in h.uq]
        h.receive(CD2HRsp(port, int(D2HRspOp.RSPIHITI), rng.choice(free[-8:])))
    elif kind == "unsolicited_data":
        free = [u for u in range(s.cfg.n_uqid) if u not in h.uq]
        h.receive(CD2HData(port, rng.choice(free[-8:]), 0xBAD))
    else:
        snoops = [(u, e) for u, e in sorted(h.uq.items()) if e.kind == "snp" and e.rsp is None]
        if not snoops or n < 2:
            return None
        u, e = rng.choice(snoops)
        other = rng.choice([p for p in range(n) if p != e.port])
        h.receive(CD2HRsp(other, int(D2HRspOp.RSPIHITI), u))
    assert not h.out, "a malformed message must not make the home send anything"
    return kind


def run_random(cfg: SysConfig, seed: int, steps: int = 2000, check_every: int = 50,
               error_rate: float = 0.0, max_drain: int = 100_000) -> StressResult:
    """`steps` random events, then drain (no new requests/stores) until quiescent."""
    rng = random.Random(seed)
    s = System.initial(cfg, trace=True)
    res = StressResult(seed)
    injected: dict[str, int] = {}
    for i in range(steps):
        if error_rate and rng.random() < error_rate:
            k = inject_error(s, rng)
            if k is not None:
                injected[k] = injected.get(k, 0) + 1
        evs = s.enabled()
        if not evs:
            break
        s.apply(pick(rng, evs))
        res.steps += 1
        if check_every and i % check_every == 0:
            res.violations.extend(s.check())
        if s.violations:
            break
    # drain: only deliveries (messages keep moving until everything completed)
    for _ in range(max_drain):
        evs = [e for e in s.enabled() if e[0] == "dlv"]
        if not evs:
            break
        s.apply(rng.choice(evs))
    res.drained = s.quiescent()
    res.violations.extend(s.violations)
    res.violations.extend(s.check())
    if not res.drained:
        res.violations.append("drain: system not quiescent after deliveries stopped (deadlock)")
    assert s.trace is not None
    init = {a: 0 for a in cfg.lines}
    res.trace_violations = check_trace(s.trace, init, at_quiescence=res.drained)
    res.errors = s.errors()
    res.injected = injected
    res.stats = dict(s.home.stats)
    return res
