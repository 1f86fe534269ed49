"""Exhaustive exploration of all interleavings of a small system (breadth-first, deduplicated).

Budgets in SysConfig (requests per device, new values in total) make the state graph finite and
acyclic (every event consumes a budget or moves a message one hop), so every path ends in a state
with no enabled event; such a terminal state must be quiescent (nothing in flight, nothing pending),
otherwise it is a deadlock. Together with the per-state invariants (System.check) this shows:
no deadlock, every transaction can complete, SWMR and data values hold in every reachable state.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

from models.coherence.system import Event, SysConfig, System


@dataclass
class ExploreResult:
    states: int = 0
    transitions: int = 0
    terminal: int = 0
    max_depth: int = 0
    truncated: int = 0  # states at the depth bound, not expanded
    seconds: float = 0.0
    violations: list[str] = field(default_factory=list)
    coverage: set[str] = field(default_factory=set)  # home stat names seen on any transition
    counterexample: list[Event] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations

    def summary(self) -> str:
        return (f"states={self.states} transitions={self.transitions} terminal={self.terminal} "
                f"max_depth={self.max_depth} truncated={self.truncated} time={self.seconds:.1f}s "
                f"violations={len(self.violations)}")


def explore(cfg: SysConfig, max_depth: int | None = None, max_states: int = 2_000_000,
            stop_at_first: bool = True, only: frozenset[str] | None = None) -> ExploreResult:
    """BFS over every interleaving of `cfg`; records invariant violations and deadlocks.

    `only` restricts the invariants checked (names in system.INVARIANTS; deadlock is always checked).
    """
    t_start = time.monotonic()
    res = ExploreResult()
    init = System.initial(cfg)
    k0 = init.key()
    parent: dict[tuple, tuple[tuple, Event] | None] = {k0: None}
    frontier: deque[tuple[System, tuple, int]] = deque([(init, k0, 0)])
    res.states = 1

    def path_to(k: tuple) -> list[Event]:
        p: list[Event] = []
        while parent[k] is not None:
            k, ev = parent[k]  # type: ignore[misc]
            p.append(ev)
        return p[::-1]

    def fail(text: str, k: tuple) -> bool:
        res.violations.append(text)
        if not res.counterexample:
            res.counterexample = path_to(k)
        return stop_at_first

    for v in init.check(only):
        if fail(v, k0):
            break
    while frontier and not (stop_at_first and res.violations):
        s, k, depth = frontier.popleft()
        res.max_depth = max(res.max_depth, depth)
        evs = s.enabled()
        if not evs:
            res.terminal += 1
            if not s.quiescent():
                if fail(f"deadlock at depth {depth}: no event enabled but the system is not quiescent", k):
                    break
            continue
        if max_depth is not None and depth >= max_depth:
            res.truncated += 1
            continue
        for ev in evs:
            s2 = s.clone()
            s2.apply(ev)
            res.transitions += 1
            res.coverage.update(s2.home.stats)
            k2 = s2.key()
            trans_bad = [v for v in s2.violations if only is None or v.split(":", 1)[0] in only]
            if k2 in parent:
                if trans_bad and fail(f"{trans_bad[0]} (after {ev})", k):
                    break
                continue
            parent[k2] = (k, ev)
            res.states += 1
            bad = trans_bad + s2.check(only)
            if bad and fail(bad[0], k2):
                break
            frontier.append((s2, k2, depth + 1))
        if res.states >= max_states:
            res.violations.append(f"state limit {max_states} reached")
            break
    res.seconds = time.monotonic() - t_start
    return res


def replay(cfg: SysConfig, events: list[Event]) -> System:
    """Re-run a counterexample with tracing on (for debugging and printing)."""
    s = System.initial(cfg, trace=True)
    for ev in events:
        s.apply(ev)
    return s

