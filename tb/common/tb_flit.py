"""pyuvm tests of the flit agent, FlitWire and ErrorInjector (DUT: tb/common/hdl/flit_pair.v,
two sync_fifos). FlitAgent drives a_in; a FlitWire carries a_out -> b_in with latency and bit flips
(b_in has no ready); b_out is monitored. End to end, every flit must arrive in order, equal to what
was sent XOR exactly the flips the injector recorded, with the wire's latency."""
from __future__ import annotations

import cocotb
import pyuvm
from cocotb.triggers import FallingEdge
from pyuvm import uvm_test

from tb.common.checker import CycleChecker
from tb.common.clock import ClockReset
from tb.common.fifo_env import Collector
from tb.common.flit import ErrorInjector, FlitAgent, FlitWire, flit_bus
from tb.common.patterns import Pattern
from tb.common.scoreboard import InOrderScoreboard
from tb.common.seeds import announce_seed, component_rng
from tb.common.signals import SignalPool
from tb.common.vr_agent import Beat

LATENCY = 2


class FlitTestBase(uvm_test):
    n_flits = 120
    p_flit = 0.1
    scheduled = {3: (0, -1)}  # flit index 3: flip bit 0 and the top bit (-1 = FLIT_W-1)

    def build_phase(self) -> None:
        dut = cocotb.top
        self.fw = len(dut.a_in_data)
        self.pool = SignalPool()
        rng = component_rng(self)
        self.src = FlitAgent("src", self, bus=flit_bus(self.pool, dut, "a_in_valid", "a_in_data",
                                                       "a_in_ready"),
                             idle=Pattern.random(0.6, rng))
        self.dst = FlitAgent("dst", self, bus=flit_bus(self.pool, dut, "b_out_valid",
                                                       "b_out_data", "b_out_ready"),
                             active=False, sink=Pattern.always())
        at = {i: tuple(b % self.fw for b in bits) for i, bits in self.scheduled.items()}
        self.inj = ErrorInjector(width=self.fw, rng=component_rng(self), p_flit=self.p_flit,
                                 at=at)
        self.wire = FlitWire("wire", self,
                             src=flit_bus(self.pool, dut, "a_out_valid", "a_out_data",
                                          "a_out_ready"),
                             dst=flit_bus(self.pool, dut, "b_in_valid", "b_in_data"),
                             latency=LATENCY, injector=self.inj,
                             src_ready=Pattern.random(0.7, rng))
        # FIFO a is an identity: what left it must be what was driven into it.
        self.sb_a = InOrderScoreboard("sb_a", self, timeout_cycles=500)
        # What the wire delivered (after corruption) must come out of FIFO b unchanged.
        self.sb_b = InOrderScoreboard("sb_b", self, timeout_cycles=500)
        self.sent: list[Beat] = []
        self.got: list[Beat] = []
        self.w_in: list[Beat] = []
        self.w_out: list[Beat] = []
        self.chk = CycleChecker("chk", self, clk=dut.clk, fn=self.check_cycle, rst=dut.rst)

    def check_cycle(self) -> list[str]:
        # b_in has no ready on the wire side: FIFO b must never be full (b_out always ready).
        return [] if int(cocotb.top.b_in_ready.value) else ["b_in_ready low: flit would be lost"]

    def connect_phase(self) -> None:
        self.src.ap.connect(self.sb_a.exp_export)
        self.wire.ap_in.connect(self.sb_a.act_export)
        self.wire.ap_out.connect(self.sb_b.exp_export)
        self.dst.ap.connect(self.sb_b.act_export)
        self.src.ap.connect(Collector("c_sent", self, self.sent).export)
        self.dst.ap.connect(Collector("c_got", self, self.got).export)
        self.wire.ap_in.connect(Collector("c_win", self, self.w_in).export)
        self.wire.ap_out.connect(Collector("c_wout", self, self.w_out).export)

    async def run_phase(self) -> None:
        self.raise_objection()
        dut = cocotb.top
        announce_seed(self.logger)
        await ClockReset(dut.clk, dut.rst).start()
        rng = component_rng(self)
        await self.src.send_flits([rng.getrandbits(self.fw) for _ in range(self.n_flits)])
        for _ in range(500):  # drain: both FIFOs and the wire
            if len(self.got) == self.n_flits:
                break
            await FallingEdge(dut.clk)
        self.drop_objection()

    def check_phase(self) -> None:
        assert len(self.got) == len(self.sent) == self.n_flits, (len(self.sent), len(self.got))
        flips = {r.index: r for r in self.inj.records}
        for i, (s, g) in enumerate(zip(self.sent, self.got)):
            mask = 0
            if i in flips:
                for b in flips[i].bits:
                    mask |= 1 << b
                assert flips[i].original == s.payload["flit"]
            assert g.payload["flit"] == s.payload["flit"] ^ mask, f"flit {i} differs beyond flips"
        for i, bits in self.scheduled.items():
            assert i in flips and flips[i].bits == tuple(sorted(b % self.fw for b in bits))
        for a, b in zip(self.w_in, self.w_out):
            assert b.cycle - a.cycle == LATENCY, f"wire latency {b.cycle - a.cycle}"
        self.logger.info(f"{self.n_flits} flits, {len(flips)} corrupted "
                         f"({sorted(flips)[:10]}...), wire latency {LATENCY}")


@pyuvm.test(timeout_time=200, timeout_unit="us")
class FlitWireInjection(FlitTestBase):
    """Random flips (p=0.1 per flit) plus a scheduled double flip on flit 3."""

    def check_phase(self) -> None:
        super().check_phase()
        assert len(self.inj.records) > 2


@pyuvm.test(timeout_time=200, timeout_unit="us")
class FlitWireClean(FlitTestBase):
    """No injection: the wire must be transparent."""

    p_flit = 0.0
    scheduled: dict[int, tuple[int, ...]] = {}

    def check_phase(self) -> None:
        super().check_phase()
        assert not self.inj.records
