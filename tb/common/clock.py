"""Clock and reset helper: the project's 1 GHz sim clock and a synchronous active-high reset."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from cocotb.clock import Clock
from cocotb.simtime import get_sim_time
from cocotb.triggers import ClockCycles, FallingEdge

DEFAULT_PERIOD_NS = 1.0


def cycle_at(period_ns: float = DEFAULT_PERIOD_NS) -> int:
    """Index of the next rising edge at or after now (clock started high at t=0).

    A monitor sampling between edges gets the number of the edge at which the beat transfers.
    """
    t_ps = get_sim_time("ps")
    return int(math.ceil(t_ps / (period_ns * 1000.0) - 1e-9))


@dataclass
class ClockReset:
    """Starts ``clk`` and pulses ``rst``. ``await ClockReset(dut.clk, dut.rst).start()``."""

    clk: Any
    rst: Any | None = None
    period_ns: float = DEFAULT_PERIOD_NS
    reset_cycles: int = 5

    async def start(self) -> None:
        """Start the clock (first rising edge at t=0) and apply reset for ``reset_cycles`` cycles.

        Returns at a falling edge with reset released, i.e. where drivers drive.
        """
        Clock(self.clk, self.period_ns, unit="ns").start(start_high=True)
        await self.reset()

    async def reset(self, cycles: int | None = None) -> None:
        """Synchronous reset pulse; rst changes on falling edges only."""
        if self.rst is None:
            await FallingEdge(self.clk)
            return
        self.rst.value = 1
        await ClockCycles(self.clk, self.reset_cycles if cycles is None else cycles)
        await FallingEdge(self.clk)
        self.rst.value = 0

    def cycle(self) -> int:
        """Current cycle number (see :func:`cycle_at`)."""
        return cycle_at(self.period_ns)

    async def cycles(self, n: int) -> None:
        """Wait ``n`` rising edges, then return at the following falling edge."""
        await ClockCycles(self.clk, n)
        await FallingEdge(self.clk)
