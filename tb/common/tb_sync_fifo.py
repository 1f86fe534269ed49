"""pyuvm tests of rtl/common/sync_fifo.v (also exercise tb.common's agents, scoreboard, coverage).
rtl/edge/sp_mem_q.v, which claims a sync_fifo's cycles without its count output, runs the same
tests (tests/test_edge_mem_q.py).

Checks: output stream == input stream (InOrderScoreboard), a cycle-accurate Python queue model of
in_ready / out_valid / out_data / count (CycleChecker), handshake rules on the output (monitor),
coverage of fill levels and push/pop/stall combinations, full throughput and fall-through latency.
"""
from __future__ import annotations

import pyuvm

from tb.common.fifo_env import Collector, Corrupter, FifoTestBase
from tb.common.patterns import Pattern
from tb.common.vr_agent import Beat


@pyuvm.test(timeout_time=200, timeout_unit="us")
class FifoRandom(FifoTestBase):
    """Random idles on input, random bursty back-pressure on output; all bins must be hit."""


@pyuvm.test(timeout_time=200, timeout_unit="us")
class FifoStallPhases(FifoTestBase):
    """Deterministic phases: output blocked for long stretches so the FIFO fills and the input
    stalls, then drains with the input idle."""

    n_items = 200

    def patterns(self) -> tuple[Pattern, Pattern]:
        return Pattern.bursts(5, 1), Pattern.bursts(3, 3 * self.depth + 5)

    def end_of_elaboration_phase(self) -> None:
        super().end_of_elaboration_phase()
        self.env.cov.enforce = False  # directed: only the bins it is meant to reach are checked

    def check_phase(self) -> None:
        pts = self.cg.points
        assert pts["level"].hits["full"] > 0, "FIFO never filled"
        assert pts["stall"].hits["in_stall"] > 0, "input never stalled"
        assert pts["op"].hits["pop"] > 0, "never drained"


@pyuvm.test(timeout_time=100, timeout_unit="us")
class FifoThroughput(FifoTestBase):
    """No idles, output always ready: one beat per cycle and 1-cycle fall-through latency."""

    n_items = 100

    def patterns(self) -> tuple[Pattern, Pattern]:
        return Pattern.always(), Pattern.always()

    def end_of_elaboration_phase(self) -> None:
        super().end_of_elaboration_phase()
        self.env.cov.enforce = False  # this test checks timing, not coverage
        self.ins: list[Beat] = []
        self.outs: list[Beat] = []
        self.env.src.mon.ap.connect(Collector("cin", self, self.ins).export)
        self.env.dst.mon.ap.connect(Collector("cout", self, self.outs).export)

    def check_phase(self) -> None:
        assert len(self.outs) == self.n_items, f"{len(self.outs)} of {self.n_items} delivered"
        in_cycles = [b.cycle for b in self.ins]
        out_cycles = [b.cycle for b in self.outs]
        assert in_cycles == list(range(in_cycles[0], in_cycles[0] + self.n_items)), \
            "input not accepted every cycle"
        assert out_cycles == [c + 1 for c in in_cycles], \
            f"latency not 1 cycle: first in/out {in_cycles[:4]} / {out_cycles[:4]}"
        self.logger.info(f"throughput 1 beat/cycle over {self.n_items} beats, latency 1 cycle")


@pyuvm.test(timeout_time=100, timeout_unit="us")
class FifoScoreboardCatchesCorruption(FifoTestBase):
    """Expect-fail proof: the predicted stream has one corrupted item; the scoreboard must report
    exactly that mismatch (with both items). Passes only because the mismatch was detected."""

    n_items = 40
    corrupt_index = 17

    def end_of_elaboration_phase(self) -> None:
        super().end_of_elaboration_phase()
        self.env.cov.enforce = False
        # Re-route expected items through a corrupter instead of straight into the scoreboard.
        self.env.src.ap.subscribers.clear()
        self.env.src.ap.connect(Corrupter("corrupt", self, self.env.sb, self.corrupt_index).export)

    def check_phase(self) -> None:
        errs = self.env.sb.final_errors()
        mism = [e for e in errs if "MISMATCH" in e]
        assert len(errs) == 1 and len(mism) == 1, f"expected exactly one mismatch, got {errs}"
        assert f"item #{self.corrupt_index}" in mism[0] and "expected:" in mism[0] \
            and "actual:" in mism[0], mism[0]
        self.logger.info(f"scoreboard detected the corrupted item as required:\n{mism[0]}")


