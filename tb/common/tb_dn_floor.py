"""pyuvm tests of rtl/common/dn_floor.v (a relative time's count-down step that stays at its floor:
y = x == floor ? x : x - 1, the decrement a kept prefix AND): every (x, floor) pair at widths up to
6, else random pairs aimed at every borrow length, at the floor, one above it and at the top; `y`
checked against the model on every pair; plus the expect-fail proof that the check catches a
reference that ignores the floor.
"""
from __future__ import annotations

import cocotb
import pyuvm
from cocotb.triggers import Timer
from pyuvm import uvm_test

from tb.common.common_models import borrow_len, dn_floor_ref
from tb.common.coverage import CoverageCollector
from tb.common.seeds import announce_seed, component_rng

EXHAUSTIVE_MAX_W = 6


class DnTestBase(uvm_test):
    n_random = 4000
    enforce_cov = True

    def ref(self, x: int, floor: int) -> int:
        return dn_floor_ref(x, floor, self.width)

    def build_phase(self) -> None:
        self.width = len(cocotb.top.x)
        self.cov = CoverageCollector("cov", self, enforce=self.enforce_cov)
        self.errors: list[str] = []

    def end_of_elaboration_phase(self) -> None:
        w = self.width
        cg = self.cov.group("dn")
        cg.coverpoint("case", {"at_floor": "at_floor", "above": "above", "below": "below"})
        # how far the borrow of a decrement runs: trailing zeros of x, every length, and x == 0
        cg.coverpoint("borrow", {f"len{k}": k for k in range(w)} | {"wrap": -1})
        cg.coverpoint("floor", {"zero": 0, "nonzero": lambda f: f != 0})
        # nothing is below a floor of 0; at one bit the only nonzero floor is the top
        cg.cross("case_x_floor", ["case", "floor"],
                 ignore=lambda c: c == ("below", "zero") or (w == 1 and c == ("above", "nonzero")))
        self.cg = cg

    def pairs(self):
        w = self.width
        top = (1 << w) - 1
        if w <= EXHAUSTIVE_MAX_W:
            for x in range(1 << w):
                for f in range(1 << w):
                    yield x, f
            return
        rng = component_rng(self)
        for x, f in ((0, 0), (top, 0), (top, top), (1, 0), (1 << (w - 1), 0), (0, top)):
            yield x, f
        for _ in range(self.n_random):
            f = 0 if rng.random() < 0.4 else rng.getrandbits(rng.randint(1, w))
            r = rng.random()
            if r < 0.15:
                x = f
            elif r < 0.3:
                x = min(top, f + 1)
            elif r < 0.85:
                k = rng.randrange(w)         # k trailing zeros: the borrow runs through k bits
                x = ((rng.getrandbits(w - k - 1) << (k + 1)) | (1 << k)) if k < w - 1 else 1 << k
            else:
                x = rng.getrandbits(w)
            yield x, f

    async def run_phase(self) -> None:
        self.raise_objection()
        announce_seed(self.logger)
        dut = cocotb.top
        for x, f in self.pairs():
            dut.x.value, dut.floor.value = x, f
            await Timer(1, "ns")
            got, exp = int(dut.y.value), self.ref(x, f)
            if got != exp and len(self.errors) < 20:
                self.errors.append(f"x={x:#x} floor={f:#x}: y {got:#x} expected {exp:#x}")
            case = "at_floor" if x == f else "above" if x > f else "below"
            kw = {"case": case, "floor": f}
            if x != f:
                kw["borrow"] = borrow_len(x)
            self.cg.sample(**kw)
        self.drop_objection()

    def check_phase(self) -> None:
        super().check_phase()
        assert not self.errors, "; ".join(self.errors)


@pyuvm.test(timeout_time=2, timeout_unit="ms")
class DnCountDown(DnTestBase):
    """y equals the floored decrement for every pair (exhaustive up to 6 bits) or for random pairs
    aimed at every borrow length, at the floor and just above it; every borrow length and the wrap
    from 0 seen."""


@pyuvm.test(timeout_time=2, timeout_unit="ms")
class DnFloorIgnoredCaught(DnTestBase):
    """Expect-fail proof for the check: against a reference that always decrements (no floor), the
    run must report mismatches (on x == floor). Passes because they were caught."""

    enforce_cov = False

    def ref(self, x: int, floor: int) -> int:
        return (x - 1) % (1 << self.width)

    def check_phase(self) -> None:
        assert self.errors, "a reference without the floor matched dn_floor on every pair"
        self.logger.info(f"check caught the floorless reference ({len(self.errors)} mismatches listed)")
