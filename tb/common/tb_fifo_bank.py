"""pyuvm tests of rtl/common/fifo_bank.v (banked multi-write FIFO, prefix writes).

The benches are those of tb_fifo_mw (cycle checker of free/count/out_valid/out_data/overflow, an
in-order scoreboard, fill-level coverage); the model differs in one rule: fifo_bank takes its
valid inputs as a prefix, so a valid lane after an invalid one is dropped and flagged.
"""
from __future__ import annotations

import cocotb
import pyuvm
from cocotb.triggers import FallingEdge

from tb.common.common_models import FifoMWModel
from tb.common.seeds import component_rng
from tb.common.tb_fifo_mw import MWOverflow, MWTestBase


class FifoBankModel(FifoMWModel):
    """FifoMWModel for prefix writes: lanes after the first invalid one are dropped."""

    def step(self, lanes: list[int | None], out_ready: bool) -> tuple[list[int], int, bool]:
        cut = next((i for i, d in enumerate(lanes) if d is None), len(lanes))
        late = sum(1 for d in lanes[cut:] if d is not None)
        written, drop, pop = super().step(lanes[:cut] + [None] * (len(lanes) - cut), out_ready)
        if late:
            self.overflow = True
            self.dropped += late
        return written, drop + late, pop


class BankTestBase(MWTestBase):
    def build_phase(self) -> None:
        super().build_phase()
        self.model = FifoBankModel(self.depth, self.w)

    def end_of_elaboration_phase(self) -> None:
        # the fifo_mw bins without "gaps": only the negative test writes masks with holes here
        cg = self.cov.group("fifo_bank")
        cg.coverpoint("n_valid", list(range(self.w + 1)))
        cg.coverpoint("level", {"empty": 0, "partial": range(1, self.depth), "full": self.depth})
        cg.coverpoint("gappy", {"contiguous": False})
        self.cg = cg


@pyuvm.test(timeout_time=200, timeout_unit="us")
class BankNoOverflow(BankTestBase):
    """Writer respects `free` with prefix masks of every length; overflow must never rise. The
    write pointer visits every bank and row (wrap-around with DEPTH not a multiple of W)."""

    n_cycles = 3000

    async def traffic(self) -> None:
        dut = cocotb.top
        rng = component_rng(self)
        for cyc in range(self.n_cycles):
            await FallingEdge(dut.clk)
            free = int(dut.free.value)
            # alternating phases: a heavy one that fills the FIFO, and a light one (inflow about
            # half the sink's drain rate) in which every burst size 1..W finds room
            heavy = (cyc // 200) % 3 == 0
            p_write = 0.6 if heavy else (0.5 if free >= self.w else 0.1) * 2 / (self.w + 1)
            n = 0 if rng.random() >= p_write else min(free, rng.randint(1, self.w))
            for i in range(self.w):
                self.valid_b[i].write(int(i < n))
                self.data_b[i].write(rng.getrandbits(self.width) if i < n else 0)
        await FallingEdge(dut.clk)

    def check_phase(self) -> None:
        assert not self.model.overflow and int(cocotb.top.overflow.value) == 0


@pyuvm.test(timeout_time=200, timeout_unit="us")
class BankOverflow(BankTestBase, MWOverflow):
    """Negative test: independent lane agents ignore `free` and the prefix rule (lanes with gaps)
    while the output is blocked; overflow rises on the first drop and every item is either
    delivered or counted as dropped by the model."""

    def end_of_elaboration_phase(self) -> None:
        BankTestBase.end_of_elaboration_phase(self)
        self.cov.enforce = False
