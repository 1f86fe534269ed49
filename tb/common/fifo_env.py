"""Shared pyuvm environment and test base for the FIFO-like common blocks (sync_fifo, skid_buffer): an input
VRAgent, an output monitor + ready sink, an in-order scoreboard from input beats to output beats
and a coverage collector. Used by tb_sync_fifo and tb_skid_buffer."""
from __future__ import annotations

from typing import Any

import cocotb
from pyuvm import uvm_component, uvm_env, uvm_test

from tb.common.checker import CycleChecker
from tb.common.clock import ClockReset
from tb.common.common_models import FifoModel
from tb.common.coverage import CoverageCollector
from tb.common.patterns import Pattern
from tb.common.scoreboard import AnalysisImp, InOrderScoreboard
from tb.common.seeds import announce_seed, component_rng
from tb.common.signals import SignalPool
from tb.common.vr_agent import Beat, VRAgent, VRBus


class FifoEnv(uvm_env):
    """Port names (rtl/common README scheme: in_* / out_*) via ``names``."""

    def __init__(self, name: str, parent: Any, names: dict[str, str],
                 idle: Pattern | None = None, sink: Pattern | None = None,
                 timeout_cycles: int = 2000) -> None:
        super().__init__(name, parent)
        self.names = names
        self.idle = idle
        self.sink_pattern = sink
        self.timeout_cycles = timeout_cycles

    def build_phase(self) -> None:
        dut = cocotb.top
        n = self.names
        self.pool = SignalPool()
        in_bus = VRBus.lane(self.pool, dut, n["in_valid"], n["in_ready"], {"data": n["in_data"]})
        out_bus = VRBus.lane(self.pool, dut, n["out_valid"], n["out_ready"],
                             {"data": n["out_data"]})
        self.src = VRAgent("src", self, bus=in_bus, idle=self.idle, idle_junk=True)
        self.dst = VRAgent("dst", self, bus=out_bus, active=False,
                           sink=self.sink_pattern or Pattern.always(), check_hold=True)
        self.sb = InOrderScoreboard("sb", self, timeout_cycles=self.timeout_cycles)
        self.cov = CoverageCollector("cov", self)

    def connect_phase(self) -> None:
        # The blocks are identity queues: the expected output stream is the input stream.
        self.src.ap.connect(self.sb.exp_export)
        self.dst.ap.connect(self.sb.act_export)


NAMES = {"in_valid": "in_valid", "in_ready": "in_ready", "in_data": "in_data",
         "out_valid": "out_valid", "out_ready": "out_ready", "out_data": "out_data"}


class FifoTestBase(uvm_test):
    """Builds the env, the model checker and coverage; subclasses choose patterns and traffic."""

    names = NAMES
    n_items = 300
    corrupt_index: int | None = None  # expect-fail variant: corrupt one expected item

    def patterns(self) -> tuple[Pattern, Pattern]:
        rng = component_rng(self)
        # input rate (0.5) close to the sink's mean ready rate (3.5 / 6.5): the fill level random-walks
        # over the whole range, so empty-side and full-side bins are both reached for every seed
        return Pattern.random(0.5, rng), Pattern.random_bursts(6, 6, rng)

    def dut_params(self) -> tuple[int, int]:
        """(data width, capacity the model uses)."""
        dut = cocotb.top
        return len(getattr(dut, self.names["in_data"])), int(dut.DEPTH.value)

    def dut_count(self) -> int | None:
        """The DUT's occupancy output (None when it has none)."""
        dut = cocotb.top
        return int(dut.count.value) if hasattr(dut, "count") else None

    def build_phase(self) -> None:
        dut = cocotb.top
        self.width, self.depth = self.dut_params()
        idle, sink = self.patterns()
        self.env = FifoEnv("env", self, self.names, idle=idle, sink=sink)
        self.model = FifoModel(self.depth)
        self.chk = CycleChecker("chk", self, clk=dut.clk, fn=self.check_cycle, rst=dut.rst)

    def end_of_elaboration_phase(self) -> None:
        cg = self.env.cov.group("fifo")
        d = self.depth
        levels: dict[str, object] = {"empty": 0, "one": 1}
        if d > 3:
            levels["mid"] = range(2, d - 1)
        if d > 2:
            levels["almost_full"] = d - 1
        levels["full"] = d
        cg.coverpoint("level", levels)
        cg.coverpoint("op", ["idle", "push", "pop", "both"])
        cg.coverpoint("stall", ["none", "in_stall", "out_stall", "both"])
        cg.cross("level_x_op", ["level", "op"],
                 ignore=lambda c: (c[0] == "empty" and c[1] in ("pop", "both"))
                 or (c[0] == "full" and c[1] in ("push", "both")))
        self.cg = cg

    def check_cycle(self) -> list[str]:
        dut = cocotb.top
        m = self.model

        def sig(key: str) -> int:
            return int(getattr(dut, self.names[key]).value)

        errs = []
        in_valid, in_ready = sig("in_valid"), sig("in_ready")
        out_valid, out_ready = sig("out_valid"), sig("out_ready")
        count = self.dut_count()
        if in_ready != m.in_ready:
            errs.append(f"in_ready {in_ready} expected {int(m.in_ready)} (model count {m.count})")
        if out_valid != m.out_valid:
            errs.append(f"out_valid {out_valid} expected {int(m.out_valid)}")
        if count is not None and count != m.count:
            errs.append(f"count {count} expected {m.count}")
        if m.head is not None and sig("out_data") != m.head:
            errs.append(f"out_data {sig('out_data'):#x} expected {m.head:#x}")
        level = m.count
        push, pop = m.step(bool(in_valid), sig("in_data"), bool(out_ready))
        op = {(False, False): "idle", (True, False): "push", (False, True): "pop",
              (True, True): "both"}[(push, pop)]
        in_stall = bool(in_valid and not in_ready)
        out_stall = bool(out_valid and not out_ready)
        stall = {(False, False): "none", (True, False): "in_stall", (False, True): "out_stall",
                 (True, True): "both"}[(in_stall, out_stall)]
        self.cg.sample(level=level, op=op, stall=stall)
        return errs

    async def run_phase(self) -> None:
        self.raise_objection()
        dut = cocotb.top
        announce_seed(self.logger)
        await ClockReset(dut.clk, dut.rst).start()
        rng = component_rng(self)
        payloads = [{"data": rng.getrandbits(self.width)} for _ in range(self.n_items)]
        if self.corrupt_index is not None:
            self.env.sb.enforce = False
        await self.env.src.send(payloads)
        await self.env.sb.wait_drained(dut.clk, 40 * self.depth + 200)
        self.drop_objection()


class Collector(uvm_component):
    """Appends every written item to a list."""

    def __init__(self, name: str, parent: uvm_component, sink: list[Beat]) -> None:
        super().__init__(name, parent)
        self.export = AnalysisImp("export", self, sink.append)


class Corrupter(uvm_component):
    """Forwards expected beats, flipping bit 0 of the data of beat number ``index``."""

    def __init__(self, name: str, parent: uvm_component, sb: object, index: int) -> None:
        super().__init__(name, parent)
        self.sb = sb
        self.index = index
        self.n = 0
        self.export = AnalysisImp("export", self, self.write)

    def write(self, beat: Beat) -> None:
        if self.n == self.index:
            beat = Beat({"data": beat.payload["data"] ^ 1}, beat.cycle, beat.time_ps, "corrupted")
        self.n += 1
        self.sb.write_expected(beat)
