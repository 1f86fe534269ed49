"""pyuvm tests of rtl/common/credit_counter.v, plus the coverage-miss expect-fail proof.

A CreditCounterModel (saturating at all-ones, take-while-empty = sticky error, consumes nothing)
checks count/avail/underflow every cycle while a driver applies random add/take patterns.
"""
from __future__ import annotations

import json
import random

import cocotb
import pyuvm
from cocotb.triggers import FallingEdge
from pyuvm import uvm_test

from tb.common.checker import CycleChecker
from tb.common.clock import ClockReset
from tb.common.common_models import CreditCounterModel
from tb.common.coverage import CoverageCollector
from tb.common.seeds import announce_seed, component_rng


class CreditTestBase(uvm_test):
    n_cycles = 2000
    enforce_cov = True

    def build_phase(self) -> None:
        dut = cocotb.top
        self.width = len(dut.count)
        self.init = int(dut.INIT.value)
        self.model = CreditCounterModel(self.width, count=self.init)
        self.chk = CycleChecker("chk", self, clk=dut.clk, fn=self.check_cycle, rst=dut.rst)
        self.cov = CoverageCollector("cov", self, enforce=self.enforce_cov)

    def end_of_elaboration_phase(self) -> None:
        mx = self.model.max
        cg = self.cov.group("credits")
        cg.coverpoint("level", {"empty": 0, "one": 1, "mid": range(2, mx), "max": mx})
        cg.coverpoint("op", ["none", "add", "take", "add_take"])
        cg.coverpoint("saturate", {"no": False, "yes": True})
        # Legal traffic never takes while empty (that is the negative test's job).
        cg.cross("level_x_op", ["level", "op"],
                 ignore=lambda c: c[0] == "empty" and c[1] in ("take", "add_take"))
        self.cg = cg

    def check_cycle(self) -> list[str]:
        dut = cocotb.top
        m = self.model
        errs = []
        for name, exp in (("count", m.count), ("avail", int(m.avail)), ("underflow", int(m.err))):
            got = int(getattr(dut, name).value)
            if got != exp:
                errs.append(f"{name} {got} expected {exp}")
        add, take = int(dut.add.value), bool(int(dut.take.value))
        if take and not m.avail:
            self.bad_takes += 1
        sat = m.count + add - int(take and m.avail) > m.max
        op = ("add_take" if add and take else "add" if add else "take" if take else "none")
        self.cg.sample(level=m.count, op=op, saturate=sat)
        m.step(add, take)
        return errs

    def next_target(self, rng: random.Random) -> int:
        """The next level to steer to: one of empty / one / mid / max, among the levels that still
        have an unhit (level, op) bin when there are any (a walk across the range takes hundreds
        of cycles at WIDTH 8, so uniform picks can miss a level in a whole run)."""
        mx = self.model.max
        levels = {"empty": 0, "one": 1, "mid": rng.randint(2, mx - 1), "max": mx}
        hits = self.cg.crosses["level_x_op"].hits
        open_ = [lv for lv in levels if any(n == 0 for (l, _), n in hits.items() if l == lv)]
        return levels[rng.choice(open_ or list(levels))]

    def stimulus(self, rng: random.Random, count: int) -> tuple[int, int]:
        """Steer toward ``self.target`` (re-picked after 16 cycles near it, among empty / one /
        mid / max), then dither around it with every op kind, preferring ops whose bin at this
        level is unhit. Takes only when credit is available."""
        mx = self.model.max
        avail = count > 0
        if count > self.target:
            return (1 if rng.random() < 0.2 else 0), int(avail)
        if count < self.target:
            gap = self.target - count
            return (rng.randint(1, gap) if rng.random() < 0.7 else mx), int(avail and rng.random() < 0.3)
        ops = ["none", "add", "take", "add_take"] if avail else ["none", "add"]
        # Coverage-driven: half the time pick among the ops whose (level, op) cross bin is still
        # unhit at this level, so a short dwell at a narrow level (one, empty) cannot leave a hole.
        level = self.cg.points["level"].bins_of(count)[0]
        hits = self.cg.crosses["level_x_op"].hits
        unhit = [o for o in ops if hits.get((level, o), 1) == 0]
        op = rng.choice(unhit if unhit and rng.random() < 0.5 else ops)
        add = rng.randint(1, 3) if op in ("add", "add_take") else 0
        if op == "add" and count == mx and rng.random() < 0.5:
            add = mx  # saturating add at the top
        return add, int(op in ("take", "add_take"))

    async def run_phase(self) -> None:
        self.raise_objection()
        self.bad_takes = 0
        dut = cocotb.top
        announce_seed(self.logger)
        dut.add.value = 0
        dut.take.value = 0
        await ClockReset(dut.clk, dut.rst).start()
        rng = component_rng(self)
        mx = self.model.max
        self.target = 0
        dwell = 0
        for _ in range(self.n_cycles):
            count = int(dut.count.value)
            dwell += int(abs(count - self.target) <= 3)
            if dwell >= 16:  # stayed near the target long enough: pick the next one
                self.target = self.next_target(rng)
                dwell = 0
            add, take = self.stimulus(rng, count)
            dut.add.value = add
            dut.take.value = take
            await FallingEdge(dut.clk)
        dut.add.value = 0
        dut.take.value = 0
        await FallingEdge(dut.clk)
        await FallingEdge(dut.clk)
        self.drop_objection()


@pyuvm.test(timeout_time=200, timeout_unit="us")
class CreditRandom(CreditTestBase):
    """Legal traffic (take only when avail): model match, all level x op bins, saturation; underflow
    must stay 0."""

    def check_phase(self) -> None:
        assert self.bad_takes == 0 and int(cocotb.top.underflow.value) == 0


@pyuvm.test(timeout_time=100, timeout_unit="us")
class CreditSaturation(CreditTestBase):
    """Directed: keep adding all-ones; the count must stick at the maximum (never wrap)."""

    n_cycles = 40
    enforce_cov = False

    def stimulus(self, rng: random.Random, count: int) -> tuple[int, int]:
        return self.model.max, int(count > 0 and rng.random() < 0.5)

    def check_phase(self) -> None:
        assert int(cocotb.top.count.value) == self.model.max == (1 << self.width) - 1
        assert self.cg.points["saturate"].hits["yes"] >= 10


@pyuvm.test(timeout_time=100, timeout_unit="us")
class CreditTakeWhileEmpty(CreditTestBase):
    """Negative: drain to 0, take while empty -> underflow rises next cycle, count stays 0, underflow stays
    set through later legal traffic, and reset clears it."""

    enforce_cov = False

    async def run_phase(self) -> None:
        self.raise_objection()
        self.bad_takes = 0
        dut = cocotb.top
        announce_seed(self.logger)
        dut.add.value = 0
        dut.take.value = 0
        await ClockReset(dut.clk, dut.rst).start()
        while int(dut.avail.value):               # drain legally
            dut.take.value = 1
            await FallingEdge(dut.clk)
        dut.take.value = 0
        await FallingEdge(dut.clk)
        assert int(dut.underflow.value) == 0 and int(dut.count.value) == 0
        dut.take.value = 1                         # illegal take
        await FallingEdge(dut.clk)
        dut.take.value = 0
        assert int(dut.underflow.value) == 1, "underflow did not rise after take while empty"
        assert int(dut.count.value) == 0, "illegal take changed the count"
        dut.add.value = 3                          # legal traffic: underflow is sticky
        await FallingEdge(dut.clk)
        dut.add.value = 0
        dut.take.value = 1
        await FallingEdge(dut.clk)
        dut.take.value = 0
        await FallingEdge(dut.clk)
        assert int(dut.underflow.value) == 1 and int(dut.count.value) == 2
        self.model_before_reset_err = self.model.err
        dut.rst.value = 1
        await FallingEdge(dut.clk)
        dut.rst.value = 0
        self.model = CreditCounterModel(self.width, count=self.init)
        await FallingEdge(dut.clk)
        assert int(dut.underflow.value) == 0 and int(dut.count.value) == self.init
        self.drop_objection()

    def check_phase(self) -> None:
        assert self.bad_takes == 1 and self.model_before_reset_err


@pyuvm.test(timeout_time=100, timeout_unit="us")
class CoverageMissDetected(CreditTestBase):
    """Expect-fail proof for coverage: a bin that cannot be hit (count above the maximum) must make
    the coverage check fail, and the JSON must list it as missed. Passes because it was caught."""

    n_cycles = 50
    enforce_cov = False

    def end_of_elaboration_phase(self) -> None:
        super().end_of_elaboration_phase()
        self.probe = self.cov.group("probe")
        self.probe.coverpoint("count", {"reachable": range(0, self.model.max + 1),
                                        "beyond_max": self.model.max + 1})

    def check_cycle(self) -> list[str]:
        errs = super().check_cycle()
        self.probe.sample(count=int(cocotb.top.count.value))
        return errs

    def check_phase(self) -> None:
        try:
            self.cov.check()
        except AssertionError as e:
            assert "probe:count.beyond_max" in str(e), f"wrong bin reported: {e}"
        else:
            raise AssertionError("coverage check passed although bin beyond_max was never hit")
        path = next(p for p in self.cov.json_paths if p.name.endswith(".probe.json"))
        data = json.loads(path.read_text())
        assert data[0]["missed"] == ["count.beyond_max"], data[0]["missed"]
        self.logger.info(f"coverage check failed on the missed bin as required ({path.name})")
