"""pyuvm tests of rtl/common/stat_counter.v: a StatCounterModel checks `count` every cycle while a
driver applies random en/add patterns, a third of them aimed at a carry length not yet covered
(2^k - count mod 2^k carries into bit k; 2^WIDTH - count wraps), so with wide adds every carry
length up to a wrap past the top is exercised; plus the expect-fail proof that the checker catches
an adder whose carry stops short.
"""
from __future__ import annotations

import random

import cocotb
import pyuvm
from cocotb.triggers import FallingEdge
from pyuvm import uvm_test

from tb.common.checker import CycleChecker
from tb.common.clock import ClockReset
from tb.common.common_models import StatCounterModel
from tb.common.coverage import CoverageCollector
from tb.common.seeds import announce_seed, component_rng


class StatTestBase(uvm_test):
    n_cycles = 3000
    enforce_cov = True
    enforce_chk = True
    model_cls = StatCounterModel

    def build_phase(self) -> None:
        dut = cocotb.top
        self.width = len(dut.count)
        self.aw = len(dut.add)
        self.model = self.model_cls(self.width)
        self.chk = CycleChecker("chk", self, clk=dut.clk, fn=self.check_cycle, rst=dut.rst,
                                enforce=self.enforce_chk)
        self.cov = CoverageCollector("cov", self, enforce=self.enforce_cov)

    def end_of_elaboration_phase(self) -> None:
        w, amax = self.width, (1 << self.aw) - 1
        cg = self.cov.group("stat")
        add_bins: dict = {"zero": 0, "one": 1}
        if amax > 1:
            add_bins["max"] = amax
        if amax > 2:
            add_bins["mid"] = range(2, amax)
        cg.coverpoint("add", add_bins)
        cg.coverpoint("en", {"off": False, "on": True})
        # how far the carry of a counted add runs: the prefix network's distance classes
        carry = {"none": -1, "low": range(0, min(4, w)), "wrap": w}
        if w > 4:
            carry["mid"] = range(4, max(5, w // 2))
        if w > 8:
            carry["high"] = range(max(5, w // 2), w)
        cg.coverpoint("carry", carry)
        cg.cross("add_x_en", ["add", "en"])
        self.cg = cg

    def check_cycle(self) -> list[str]:
        dut = cocotb.top
        m = self.model
        got = int(dut.count.value)
        errs = [] if got == m.count else [f"count {got:#x} expected {m.count:#x}"]
        en, add = bool(int(dut.en.value)), int(dut.add.value)
        kw = {"add": add, "en": en}
        if en and add:
            kw["carry"] = m.carry_top(add)
        self.cg.sample(**kw)
        m.step(en, add)
        return errs

    def aimed_add(self, rng: random.Random, count: int) -> int | None:
        """An add whose carry ends in a carry-length bin still unhit (None when every bin is hit or
        the add needed does not fit in AW bits): 2^k - (count mod 2^k) carries into bit k, then
        through the ones of the count above it; 2^WIDTH - count wraps."""
        w = self.width
        hits = self.cg.points["carry"].hits
        want = [b for b, n in hits.items() if n == 0 and b != "none"]
        if not want:
            return None
        b = rng.choice(want)
        k = {"low": rng.randint(0, min(3, w - 1)), "mid": rng.randint(4, max(4, w // 2 - 1)),
             "high": rng.randint(max(5, w // 2), w - 1), "wrap": w}[b]
        add = (1 << k) - (count % (1 << k))
        return add if 0 < add < (1 << self.aw) else None

    async def start(self):
        """Log the seed, hold en and add low, and reset: the start of every test."""
        dut = cocotb.top
        announce_seed(self.logger)
        dut.en.value = 0
        dut.add.value = 0
        await ClockReset(dut.clk, dut.rst).start()
        return dut

    async def run_phase(self) -> None:
        self.raise_objection()
        dut = await self.start()
        rng = component_rng(self)
        amax = (1 << self.aw) - 1
        for _ in range(self.n_cycles):
            add = self.aimed_add(rng, int(dut.count.value)) if rng.random() < 0.3 else None
            if add is None:
                r = rng.random()
                add = (0 if r < 0.1 else 1 if r < 0.4 else amax if r < 0.6 else rng.randint(0, amax))
            dut.add.value = add
            dut.en.value = int(rng.random() < 0.8)
            await FallingEdge(dut.clk)
        dut.en.value = 0
        await FallingEdge(dut.clk)
        await FallingEdge(dut.clk)
        self.drop_objection()

    async def count_to(self, target: int, bound: int) -> None:
        """Count up to `target` with the largest adds that do not pass it (within `bound` cycles)."""
        dut = cocotb.top
        amax = (1 << self.aw) - 1
        for _ in range(bound):
            c = int(dut.count.value)
            if c == target:
                break
            dut.en.value, dut.add.value = 1, min(amax, (target - c) % (1 << self.width))
            await FallingEdge(dut.clk)
        dut.en.value = 0
        assert int(dut.count.value) == target, f"count {int(dut.count.value):#x} not at {target:#x}"


@pyuvm.test(timeout_time=400, timeout_unit="us")
class StatRandom(StatTestBase):
    """Random en/add, a third aimed at an uncovered carry length: count equal to the model every
    cycle; every add value class with and without en, and every carry length up to a wrap."""


@pyuvm.test(timeout_time=100, timeout_unit="us")
class StatWrapAndReset(StatTestBase):
    """Directed: all ones + 1 wraps to 0; all ones + the largest add wraps to add - 1; en low holds;
    reset clears a nonzero count on the next edge."""

    enforce_cov = False

    async def run_phase(self) -> None:
        self.raise_objection()
        dut = await self.start()
        ones, amax = (1 << self.width) - 1, (1 << self.aw) - 1
        bound = 4 + (1 << self.width) // amax
        for add, expect in ((1, 0), (amax, amax - 1)):
            await self.count_to(ones, bound)
            dut.en.value, dut.add.value = 1, add
            await FallingEdge(dut.clk)
            dut.en.value = 0
            await FallingEdge(dut.clk)
            assert int(dut.count.value) == expect, f"{ones:#x} + {add} gave {int(dut.count.value):#x}"
        dut.add.value = amax                 # en low: held
        await FallingEdge(dut.clk)
        assert int(dut.count.value) == amax - 1
        dut.en.value = 1                     # reset wins over a counted add and clears the count
        dut.rst.value = 1
        await FallingEdge(dut.clk)
        dut.rst.value = 0
        dut.en.value = 0
        self.model.count = 0
        assert int(dut.count.value) == 0, "reset did not clear the count"
        await FallingEdge(dut.clk)
        self.drop_objection()


class ShortCarryModel(StatCounterModel):
    """A wrong reference: its carry stops at bit width // 2 (the fault a broken prefix stage makes)."""

    def step(self, en: bool, add: int) -> None:
        if en:
            h = self.width // 2
            lo = (self.count % (1 << h)) + add
            self.count = ((self.count >> h) << h) | (lo % (1 << h))


@pyuvm.test(timeout_time=400, timeout_unit="us")
class BrokenAdderCaught(StatTestBase):
    """Expect-fail proof for the checker: against a model whose carry stops halfway, the random run
    must report count mismatches. Passes because they were caught."""

    enforce_cov = False
    enforce_chk = False
    model_cls = ShortCarryModel
    n_cycles = 1000

    def check_phase(self) -> None:
        super().check_phase()
        assert self.chk.errors, "a model whose carry stops halfway matched the RTL for a whole run"
        self.logger.info(f"checker caught the short carry ({len(self.chk.errors)} mismatching cycles)")
