"""Scoreboards (Forastero style): expected items from a model, actual items from monitors.

* :class:`InOrderScoreboard`: actual stream must equal the expected stream in order.
* :class:`MatchWindowScoreboard`: an actual item may match any of the oldest ``window`` expected
  items (bounded reordering); an expected item overtaken by more than ``window`` others is an error.
* :class:`FunnelScoreboard`: several expected in-order streams (e.g. per source) merged into one
  actual stream: each actual must match the head of one stream.

Common behaviour: both sides are queued (the model may lag or lead the DUT); ``write_expected`` /
``write_actual`` (or the analysis exports ``exp_export`` / ``act_export``; the funnel has
``exp_export(stream)``) feed it; items are compared with ``compare`` (default: equality of
``item.payload`` when present, else of the items). Errors (mismatch with both items shown,
timeouts, leftovers) go to ``errors``; ``check_phase`` fails on any when ``enforce`` is True.

Timeout: with ``timeout_cycles`` set, an item waiting longer than that (in clock periods of
``period_ns``) for its partner is reported once, both while running (periodic check) and at the end.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cocotb.simtime import get_sim_time
from cocotb.triggers import Timer
from pyuvm import uvm_analysis_export, uvm_component

from tb.common.clock import DEFAULT_PERIOD_NS


class AnalysisImp(uvm_analysis_export):
    """Analysis export that forwards ``write`` to a function."""

    def __init__(self, name: str, parent: uvm_component, fn: Callable[[Any], None]) -> None:
        super().__init__(name, parent)
        self._fn = fn

    def write(self, datum: Any) -> None:
        self._fn(datum)


def content(item: Any) -> Any:
    """What is compared by default: ``item.payload`` if it has one, else the item itself."""
    return getattr(item, "payload", item)


def default_compare(exp: Any, act: Any) -> bool:
    return content(exp) == content(act)


def describe(item: Any) -> str:
    return str(item)


def diff(exp: Any, act: Any) -> str:
    """Field-by-field difference when both contents are dicts, else ''."""
    e, a = content(exp), content(act)
    if isinstance(e, dict) and isinstance(a, dict):
        parts = []
        for k in list(e) + [k for k in a if k not in e]:
            ev, av = e.get(k), a.get(k)
            if ev != av:
                if isinstance(ev, int) and isinstance(av, int):
                    parts.append(f"{k}: exp {ev:#x} act {av:#x} (xor {ev ^ av:#x})")
                else:
                    parts.append(f"{k}: exp {ev} act {av}")
        return "; ".join(parts)
    return ""


@dataclass
class Pending:
    item: Any
    t_ps: int
    index: int          # arrival index on its side
    overtaken: int = 0  # match window: younger expected items matched before this one
    timed_out: bool = False


def _now_ps() -> int:
    """Sim time; 0 outside a simulation (scoreboards are also unit-tested without one)."""
    try:
        return int(get_sim_time("ps"))
    except RuntimeError:
        return 0


class ScoreboardBase(uvm_component):
    """Shared bookkeeping: errors, match count, timeouts, end-of-test leftovers."""

    def __init__(self, name: str, parent: uvm_component | None,
                 compare: Callable[[Any, Any], bool] | None = None,
                 timeout_cycles: int | None = None, period_ns: float = DEFAULT_PERIOD_NS,
                 enforce: bool = True, max_errors_shown: int = 20) -> None:
        super().__init__(name, parent)
        self.compare = compare or default_compare
        self.timeout_cycles = timeout_cycles
        self.period_ns = period_ns
        self.enforce = enforce
        self.max_errors_shown = max_errors_shown
        self.errors: list[str] = []
        self.matched = 0
        self.n_exp = 0
        self.n_act = 0
        self.act_export = AnalysisImp("act_export", self, self.write_actual)

    # subclasses provide these
    def write_actual(self, item: Any) -> None:
        raise NotImplementedError

    def pending_items(self) -> list[tuple[str, Pending]]:
        """(description of the queue, entry) for everything not matched yet."""
        raise NotImplementedError

    def error(self, msg: str) -> None:
        full = f"{self.get_full_name()}: {msg}"
        self.errors.append(full)
        self.logger.error(full)

    def mismatch(self, exp: Any, act: Any, where: str) -> None:
        d = diff(exp, act)
        self.error(f"MISMATCH {where}\n  expected: {describe(exp)}\n  actual:   {describe(act)}"
                   + (f"\n  diff: {d}" if d else ""))

    def outstanding(self) -> int:
        return len(self.pending_items())

    def check_timeouts(self) -> None:
        if self.timeout_cycles is None:
            return
        limit_ps = int(self.timeout_cycles * self.period_ns * 1000)
        now = _now_ps()
        for qname, p in self.pending_items():
            if not p.timed_out and now - p.t_ps > limit_ps:
                p.timed_out = True
                self.error(f"TIMEOUT: {qname} item #{p.index} waited "
                           f"{(now - p.t_ps) / (self.period_ns * 1000):.0f} cycles "
                           f"(> {self.timeout_cycles}) for its partner: {describe(p.item)}")

    async def run_phase(self) -> None:
        if self.timeout_cycles is None:
            return
        step = max(1, self.timeout_cycles // 4)
        while True:
            await Timer(step * self.period_ns, unit="ns")
            self.check_timeouts()

    async def wait_drained(self, clk: Any, max_cycles: int) -> bool:
        """Wait (in clock cycles of ``clk``) until nothing is pending; False if still pending."""
        from cocotb.triggers import RisingEdge

        for _ in range(max_cycles):
            if not self.pending_items():
                return True
            await RisingEdge(clk)
        return not self.pending_items()

    def final_errors(self) -> list[str]:
        """All errors including end-of-test leftovers (idempotent)."""
        self.check_timeouts()
        errs = list(self.errors)
        left = self.pending_items()
        if left:
            lines = [f"{q} #{p.index}: {describe(p.item)}" for q, p in left[:self.max_errors_shown]]
            errs.append(f"{self.get_full_name()}: {len(left)} item(s) left unmatched at end of "
                        f"test:\n  " + "\n  ".join(lines))
        return errs

    def check_phase(self) -> None:
        errs = self.final_errors()
        self.logger.info(f"{self.get_full_name()}: {self.matched} matched, {self.n_exp} expected, "
                         f"{self.n_act} actual, {len(errs)} error(s)")
        if self.enforce:
            assert not errs, "\n".join(errs[:self.max_errors_shown])


class InOrderScoreboard(ScoreboardBase):
    """Expected queue vs actual queue, strictly in order."""

    def __init__(self, name: str, parent: uvm_component | None, **kw: Any) -> None:
        super().__init__(name, parent, **kw)
        self.exp_q: deque[Pending] = deque()
        self.act_q: deque[Pending] = deque()
        self.exp_export = AnalysisImp("exp_export", self, self.write_expected)

    def write_expected(self, item: Any) -> None:
        self.exp_q.append(Pending(item, _now_ps(), self.n_exp))
        self.n_exp += 1
        self._match()

    def write_actual(self, item: Any) -> None:
        self.act_q.append(Pending(item, _now_ps(), self.n_act))
        self.n_act += 1
        self._match()

    def _match(self) -> None:
        while self.exp_q and self.act_q:
            e, a = self.exp_q.popleft(), self.act_q.popleft()
            if self.compare(e.item, a.item):
                self.matched += 1
            else:
                self.mismatch(e.item, a.item, f"at item #{e.index} (actual #{a.index})")
        self.check_timeouts()

    def pending_items(self) -> list[tuple[str, Pending]]:
        return ([("expected", p) for p in self.exp_q] + [("actual", p) for p in self.act_q])


class MatchWindowScoreboard(ScoreboardBase):
    """Actual items may arrive up to ``window`` positions out of order."""

    def __init__(self, name: str, parent: uvm_component | None, window: int = 4,
                 **kw: Any) -> None:
        super().__init__(name, parent, **kw)
        if window < 1:
            raise ValueError("window must be >= 1")
        self.window = window
        self.exp_q: list[Pending] = []
        self.act_q: deque[Pending] = deque()
        self.exp_export = AnalysisImp("exp_export", self, self.write_expected)

    def write_expected(self, item: Any) -> None:
        self.exp_q.append(Pending(item, _now_ps(), self.n_exp))
        self.n_exp += 1
        self._match()

    def write_actual(self, item: Any) -> None:
        self.act_q.append(Pending(item, _now_ps(), self.n_act))
        self.n_act += 1
        self._match()

    def _match(self) -> None:
        while self.act_q:
            a = self.act_q[0]
            hit = next((i for i, e in enumerate(self.exp_q[:self.window])
                        if self.compare(e.item, a.item)), None)
            if hit is None:
                if len(self.exp_q) < self.window:
                    break  # the partner may still be predicted
                heads = "\n    ".join(describe(e.item) for e in self.exp_q[:self.window])
                self.error(f"MISMATCH actual #{a.index} matches none of the {self.window} oldest "
                           f"expected items\n  actual:   {describe(a.item)}\n  window:\n    {heads}"
                           + (f"\n  diff vs oldest: {diff(self.exp_q[0].item, a.item)}"))
                self.act_q.popleft()
                continue
            self.act_q.popleft()
            for e in self.exp_q[:hit]:
                e.overtaken += 1
                if e.overtaken == self.window + 1:
                    self.error(f"ORDER: expected #{e.index} overtaken by more than {self.window} "
                               f"later items: {describe(e.item)}")
            self.exp_q.pop(hit)
            self.matched += 1
        self.check_timeouts()

    def pending_items(self) -> list[tuple[str, Pending]]:
        return ([("expected", p) for p in self.exp_q] + [("actual", p) for p in self.act_q])


class FunnelScoreboard(ScoreboardBase):
    """Several in-order expected streams merged (any interleaving) into one actual stream."""

    def __init__(self, name: str, parent: uvm_component | None, streams: list[str] | None = None,
                 **kw: Any) -> None:
        super().__init__(name, parent, **kw)
        self.streams: dict[str, deque[Pending]] = {}
        self._exports: dict[str, AnalysisImp] = {}
        self.act_q: deque[Pending] = deque()
        for s in streams or []:
            self.add_stream(s)

    def add_stream(self, stream: str) -> None:
        if stream not in self.streams:
            self.streams[stream] = deque()

    def exp_export(self, stream: str) -> AnalysisImp:
        """Analysis export for expected items of ``stream`` (created on demand)."""
        self.add_stream(stream)
        if stream not in self._exports:
            self._exports[stream] = AnalysisImp(f"exp_export_{stream}", self,
                                                lambda it, s=stream: self.write_expected(s, it))
        return self._exports[stream]

    def write_expected(self, stream: str, item: Any) -> None:
        self.add_stream(stream)
        self.streams[stream].append(Pending(item, _now_ps(), self.n_exp))
        self.n_exp += 1
        self._match()

    def write_actual(self, item: Any) -> None:
        self.act_q.append(Pending(item, _now_ps(), self.n_act))
        self.n_act += 1
        self._match()

    def _match(self) -> None:
        while self.act_q:
            a = self.act_q[0]
            hit = next((s for s, q in self.streams.items()
                        if q and self.compare(q[0].item, a.item)), None)
            if hit is None:
                if any(not q for q in self.streams.values()) or not self.streams:
                    break  # it may belong to a stream whose prediction has not arrived yet
                heads = "\n    ".join(f"{s}: {describe(q[0].item)}"
                                      for s, q in self.streams.items())
                self.error(f"MISMATCH actual #{a.index} matches no stream head\n"
                           f"  actual:   {describe(a.item)}\n  heads:\n    {heads}")
                self.act_q.popleft()
                continue
            self.act_q.popleft()
            self.streams[hit].popleft()
            self.matched += 1
        self.check_timeouts()

    def pending_items(self) -> list[tuple[str, Pending]]:
        out = [(f"expected[{s}]", p) for s, q in self.streams.items() for p in q]
        return out + [("actual", p) for p in self.act_q]
