"""Request watchdog: every accepted request must be answered within a bound.

A block's environment tells the watchdog when a request is accepted and when it is answered, by
key (a tag, a UQID, an address: whatever the block's protocol pairs on). A request still
unanswered ``bound_cycles`` after its acceptance is an error, reported once while the test runs
(so a hang shows up at the cycle it happens, not at the test timeout) and again at the end; an
answer with no accepted request is an error too. ``check_phase`` fails on any error when
``enforce`` is True, and also on requests still outstanding at the end of the test.

    wd = RequestWatchdog("wd", self, clk=dut.clk, bound_cycles=500)
    req_monitor.ap.connect(wd.accept_export)      # items -> wd.key_of(item) -> accepted
    rsp_monitor.ap.connect(wd.answer_export)      # or call wd.accepted(key) / wd.answered(key)

Keys may repeat once answered (tags are reused); a key accepted twice while outstanding counts
twice and needs two answers (``multiple=True``) or is an error (default), because most protocols
forbid a second outstanding request with one tag.
"""
from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from typing import Any

from cocotb.triggers import ClockCycles
from pyuvm import uvm_component

from tb.common.clock import DEFAULT_PERIOD_NS, cycle_at
from tb.common.scoreboard import AnalysisImp


class RequestWatchdog(uvm_component):
    def __init__(self, name: str, parent: uvm_component | None, clk: Any = None,
                 bound_cycles: int = 1000, period_ns: float = DEFAULT_PERIOD_NS,
                 key_of: Callable[[Any], Hashable] | None = None,
                 answer_key_of: Callable[[Any], Hashable] | None = None,
                 multiple: bool = False, enforce: bool = True, poll_cycles: int = 16,
                 max_errors: int = 50) -> None:
        super().__init__(name, parent)
        if bound_cycles < 1:
            raise ValueError(f"{name}: bound_cycles must be >= 1, got {bound_cycles}")
        self.clk = clk
        self.bound = bound_cycles
        self.period_ns = period_ns
        self.key_of = key_of or (lambda item: item)
        self.answer_key_of = answer_key_of or self.key_of
        self.multiple = multiple
        self.enforce = enforce
        self.poll = max(1, poll_cycles)
        self.max_errors = max_errors
        # key -> deque of acceptance cycles (oldest first); insertion order = age order of keys
        self.outstanding: OrderedDict[Hashable, deque[int]] = OrderedDict()
        self.reported: set[tuple[Hashable, int]] = set()
        self.errors: list[str] = []
        self.n_accepted = 0
        self.n_answered = 0
        self.max_latency = 0
        self.accept_export = AnalysisImp("accept_export", self, lambda it: self.accepted(self.key_of(it)))
        self.answer_export = AnalysisImp("answer_export", self, lambda it: self.answered(self.answer_key_of(it)))

    def _error(self, msg: str) -> None:
        msg = f"{self.get_full_name()}: {msg}"
        if len(self.errors) < self.max_errors:
            self.logger.error(msg)
        self.errors.append(msg)

    def now(self) -> int:
        return cycle_at(self.period_ns)

    def accepted(self, key: Hashable, cycle: int | None = None) -> None:
        cyc = self.now() if cycle is None else cycle
        q = self.outstanding.get(key)
        if q and not self.multiple:
            self._error(f"request {key!r} accepted at cycle {cyc} while one with the same key is "
                        f"outstanding since cycle {q[0]}")
        self.outstanding.setdefault(key, deque()).append(cyc)
        self.n_accepted += 1

    def answered(self, key: Hashable, cycle: int | None = None) -> None:
        cyc = self.now() if cycle is None else cycle
        q = self.outstanding.get(key)
        if not q:
            self._error(f"answer {key!r} at cycle {cyc} with no outstanding request")
            return
        t0 = q.popleft()
        if not q:
            del self.outstanding[key]
        self.n_answered += 1
        self.max_latency = max(self.max_latency, cyc - t0)
        if cyc - t0 > self.bound and (key, t0) not in self.reported:
            self._error(f"request {key!r} accepted at cycle {t0} answered at {cyc}: "
                        f"{cyc - t0} cycles > bound {self.bound}")

    def overdue(self, now: int | None = None) -> list[tuple[Hashable, int]]:
        now = self.now() if now is None else now
        return [(k, t0) for k, q in self.outstanding.items() for t0 in q if now - t0 > self.bound]

    async def run_phase(self) -> None:
        if self.clk is None:
            return
        while True:
            await ClockCycles(self.clk, self.poll)
            now = self.now()
            for key, t0 in self.overdue(now):
                if (key, t0) not in self.reported:
                    self.reported.add((key, t0))
                    self._error(f"request {key!r} accepted at cycle {t0} unanswered after "
                                f"{now - t0} cycles (bound {self.bound})")

    def check_phase(self) -> None:
        left = [(k, t0) for k, q in self.outstanding.items() for t0 in q]
        for key, t0 in left[:20]:
            if (key, t0) not in self.reported:
                self._error(f"request {key!r} accepted at cycle {t0} never answered")
        if len(left) > 20:
            self._error(f"... and {len(left) - 20} more requests never answered")
        self.logger.info(f"{self.get_full_name()}: {self.n_accepted} accepted, {self.n_answered} "
                         f"answered, max latency {self.max_latency} cycles (bound {self.bound}), "
                         f"{len(self.errors)} error(s)")
        if self.enforce:
            assert not self.errors, "\n".join(self.errors[:20])
