"""Per-cycle checker: calls a function once per clock cycle where monitors sample (ReadOnly after
the falling edge, i.e. the values the next rising edge will see) and collects its complaints.

    def check() -> list[str] | None: ...      # read signals, step a model, return errors
    CycleChecker("chk", self, clk=dut.clk, fn=check, rst=dut.rst)

Errors fail ``check_phase`` (``enforce=False`` only records them in ``errors``).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cocotb.triggers import FallingEdge, ReadOnly
from pyuvm import uvm_component

from tb.common.clock import DEFAULT_PERIOD_NS, cycle_at


class CycleChecker(uvm_component):
    def __init__(self, name: str, parent: uvm_component | None, clk: Any = None,
                 fn: Callable[[], list[str] | None] | None = None, rst: Any = None,
                 period_ns: float = DEFAULT_PERIOD_NS, enforce: bool = True,
                 max_errors: int = 50) -> None:
        super().__init__(name, parent)
        self.clk = clk
        self.fn = fn
        self.rst = rst
        self.period_ns = period_ns
        self.enforce = enforce
        self.max_errors = max_errors
        self.errors: list[str] = []
        self.cycles = 0

    async def run_phase(self) -> None:
        assert self.clk is not None and self.fn is not None
        while True:
            await FallingEdge(self.clk)
            await ReadOnly()
            if self.rst is not None and int(self.rst.value):
                continue
            self.cycles += 1
            errs = self.fn() or []
            for e in errs:
                msg = f"{self.get_full_name()} cycle {cycle_at(self.period_ns)}: {e}"
                if len(self.errors) < self.max_errors:
                    self.logger.error(msg)
                self.errors.append(msg)

    def check_phase(self) -> None:
        self.logger.info(f"{self.get_full_name()}: {self.cycles} cycles checked, "
                         f"{len(self.errors)} error(s)")
        if self.enforce:
            assert not self.errors, "\n".join(self.errors[:20])
