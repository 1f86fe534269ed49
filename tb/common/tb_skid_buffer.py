"""pyuvm tests of rtl/common/skid_buffer.v.

The skid buffer is checked as a 2-entry first-word-fall-through queue (the minimum that gives full
throughput with a registered in_ready): out_valid/out_data/in_ready against FifoModel(2) every cycle,
output stream == input stream, 1 beat/cycle with 1-cycle latency, and in_ready never changes
between a falling edge and the following rising edge when out_ready toggles (no combinational
out_ready -> in_ready path).
"""
from __future__ import annotations

import cocotb
import pyuvm
from cocotb.triggers import FallingEdge, ReadOnly

from tb.common.fifo_env import Collector, FifoTestBase
from tb.common.patterns import Pattern
from tb.common.seeds import component_rng
from tb.common.vr_agent import Beat


class SkidTestBase(FifoTestBase):
    def dut_params(self) -> tuple[int, int]:
        return len(cocotb.top.in_data), 2

    def dut_count(self) -> int | None:
        return None

    def build_phase(self) -> None:
        super().build_phase()
        self.ready_path_errors: list[str] = []
        self.ready_toggles = 0

    async def watch_ready_path(self) -> None:
        dut = cocotb.top
        while True:
            await FallingEdge(dut.clk)
            before_s, before_m = int(dut.in_ready.value), int(dut.out_ready.value)
            await ReadOnly()
            after_s, after_m = int(dut.in_ready.value), int(dut.out_ready.value)
            if before_m != after_m:
                self.ready_toggles += 1
            if before_s != after_s:
                self.ready_path_errors.append(
                    f"in_ready changed {before_s}->{after_s} between edges (out_ready "
                    f"{before_m}->{after_m}): combinational path")

    async def run_phase(self) -> None:
        cocotb.start_soon(self.watch_ready_path())
        await super().run_phase()

    def check_phase(self) -> None:
        assert not self.ready_path_errors, "\n".join(self.ready_path_errors[:5])


@pyuvm.test(timeout_time=200, timeout_unit="us")
class SkidRandom(SkidTestBase):
    """Random idles and bursty back-pressure; model, scoreboard, coverage, ready-path check."""

    def check_phase(self) -> None:
        super().check_phase()
        assert self.ready_toggles > 20, f"out_ready toggled only {self.ready_toggles} times"


@pyuvm.test(timeout_time=100, timeout_unit="us")
class SkidThroughput(SkidTestBase):
    """Always valid, always ready: 1 beat per cycle, 1-cycle latency."""

    n_items = 100

    def patterns(self) -> tuple[Pattern, Pattern]:
        return Pattern.always(), Pattern.always()

    def end_of_elaboration_phase(self) -> None:
        super().end_of_elaboration_phase()
        self.env.cov.enforce = False
        self.ins: list[Beat] = []
        self.outs: list[Beat] = []
        self.env.src.mon.ap.connect(Collector("cin", self, self.ins).export)
        self.env.dst.mon.ap.connect(Collector("cout", self, self.outs).export)

    def check_phase(self) -> None:
        super().check_phase()
        assert len(self.outs) == self.n_items
        in_cycles = [b.cycle for b in self.ins]
        assert in_cycles == list(range(in_cycles[0], in_cycles[0] + self.n_items))
        assert [b.cycle for b in self.outs] == [c + 1 for c in in_cycles]


@pyuvm.test(timeout_time=100, timeout_unit="us")
class SkidReadyToggle(SkidTestBase):
    """Input always valid, output ready random 50% each cycle (many stall/release edges)."""

    n_items = 120

    def patterns(self) -> tuple[Pattern, Pattern]:
        rng = component_rng(self)
        return Pattern.always(), Pattern.random(0.5, rng)

    def end_of_elaboration_phase(self) -> None:
        super().end_of_elaboration_phase()
        self.env.cov.enforce = False
