"""pyuvm tests of rtl/common/gt_tree.v (combinational a > b as a kept (greater, equal) tree): every
operand pair at widths up to 6, else random pairs of which most differ only from a chosen bit down
(so every tree level decides some compare, each way); `gt` checked against the model on every pair;
plus the expect-fail proof that the check catches a reference that answers a >= b.
"""
from __future__ import annotations

import cocotb
import pyuvm
from cocotb.triggers import Timer
from pyuvm import uvm_test

from tb.common.common_models import gt_ref, top_diff_bit
from tb.common.coverage import CoverageCollector
from tb.common.seeds import announce_seed, component_rng

EXHAUSTIVE_MAX_W = 6


class GtTestBase(uvm_test):
    n_random = 4000
    enforce_cov = True
    ref = staticmethod(gt_ref)

    def build_phase(self) -> None:
        self.width = len(cocotb.top.a)
        self.cov = CoverageCollector("cov", self, enforce=self.enforce_cov)
        self.errors: list[str] = []

    def end_of_elaboration_phase(self) -> None:
        cg = self.cov.group("gt")
        cg.coverpoint("result", {"gt": "gt", "eq": "eq", "lt": "lt"})
        # the bit that decides the compare: every bit, i.e. every leaf and level of the tree
        cg.coverpoint("decider", {f"bit{k}": k for k in range(self.width)} | {"none": -1})
        cg.cross("decider_x_result", ["decider", "result"],
                 ignore=lambda c: (c[0] == "none") != (c[1] == "eq"))
        self.cg = cg

    def pairs(self):
        w = self.width
        if w <= EXHAUSTIVE_MAX_W:
            for a in range(1 << w):
                for b in range(1 << w):
                    yield a, b
            return
        rng = component_rng(self)
        top = (1 << w) - 1
        for a, b in ((0, 0), (top, top), (top, 0), (0, top), (1 << (w - 1), top >> 1)):
            yield a, b
        for _ in range(self.n_random):
            a = rng.getrandbits(w)
            r = rng.random()
            if r < 0.1:
                b = a
            elif r < 0.8:
                k = rng.randrange(w)         # b equals a above bit k, flips bit k, random below
                b = (a & ~((1 << (k + 1)) - 1)) | ((~a) & (1 << k)) | rng.getrandbits(k) if k else \
                    (a & ~1) | ((~a) & 1)
            else:
                b = rng.getrandbits(w)
            yield a, b

    async def run_phase(self) -> None:
        self.raise_objection()
        announce_seed(self.logger)
        dut = cocotb.top
        for a, b in self.pairs():
            dut.a.value, dut.b.value = a, b
            await Timer(1, "ns")
            got = bool(int(dut.gt.value))
            exp = self.ref(a, b)
            if got != exp and len(self.errors) < 20:
                self.errors.append(f"a={a:#x} b={b:#x}: gt {int(got)} expected {int(exp)}")
            self.cg.sample(result="gt" if a > b else "eq" if a == b else "lt", decider=top_diff_bit(a, b))
        self.drop_objection()

    def check_phase(self) -> None:
        super().check_phase()
        assert not self.errors, "; ".join(self.errors)


@pyuvm.test(timeout_time=2, timeout_unit="ms")
class GtCompare(GtTestBase):
    """gt equals a > b for every pair (exhaustive up to 6 bits) or for random pairs aimed at every
    deciding bit; every deciding bit seen with both answers."""


@pyuvm.test(timeout_time=2, timeout_unit="ms")
class GtWrongReferenceCaught(GtTestBase):
    """Expect-fail proof for the check: against a reference that answers a >= b, the run must
    report mismatches (on the equal pairs). Passes because they were caught."""

    enforce_cov = False
    ref = staticmethod(lambda a, b: a >= b)

    def check_phase(self) -> None:
        assert self.errors, "a reference answering a >= b matched gt_tree on every pair"
        self.logger.info(f"check caught the wrong reference ({len(self.errors)} mismatches listed)")
