"""Flit agents and the flit wire (DUT flit output -> other DUT's flit input) with error injection.

A flit bus is a valid/ready channel with one payload field ``"flit"`` (FLIT_W bits); the receiving
side may have no ready (``rx_flit_valid`` / ``rx_flit`` of cxl_link). :class:`FlitAgent` is a
:class:`~tb.common.vr_agent.VRAgent` on such a bus (one flit per cycle when the sequence keeps it
busy). :class:`FlitWire` moves flits from a source bus to a destination bus with a fixed latency and
an :class:`ErrorInjector` in between; it publishes what left the source (``ap_in``) and what was
delivered (``ap_out``, after corruption) and records every flip in ``injector.records``.
"""
from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from cocotb.simtime import get_sim_time
from cocotb.triggers import FallingEdge, ReadOnly
from pyuvm import uvm_analysis_port, uvm_component

from tb.common.clock import DEFAULT_PERIOD_NS, cycle_at
from tb.common.patterns import Pattern
from tb.common.seeds import component_rng
from tb.common.signals import Bind, SignalPool
from tb.common.vr_agent import Beat, VRAgent, VRBus, VRItem

FLIT_FIELD = "flit"


def flit_bus(pool: SignalPool, dut: Any, valid: str, data: str, ready: str | None = None,
             clk: str = "clk", rst: str | None = "rst",
             period_ns: float = DEFAULT_PERIOD_NS) -> VRBus:
    """VRBus for a flit port, e.g. ``flit_bus(pool, dut, "tx_flit_valid", "tx_flit",
    "tx_flit_ready")`` or ``flit_bus(pool, dut, "rx_flit_valid", "rx_flit")``."""
    return VRBus.lane(pool, dut, valid=valid, ready=ready, fields={FLIT_FIELD: data}, clk=clk,
                      rst=rst, period_ns=period_ns)


def flit_item(bits: int) -> VRItem:
    return VRItem("flit", {FLIT_FIELD: bits})


class FlitAgent(VRAgent):
    """VRAgent on a flit bus. ``await agent.send_flits([int, ...])`` drives them in order."""

    async def send_flits(self, flits: list[int]) -> None:
        await self.send([{FLIT_FIELD: f} for f in flits])


@dataclass(frozen=True)
class FlipRecord:
    index: int               # flit index on the wire (0 = first flit carried)
    cycle: int               # cycle the flit left the source
    bits: tuple[int, ...]    # flipped bit positions
    original: int
    corrupted: int


@dataclass
class ErrorInjector:
    """Flips bits of flits passing a wire.

    * ``p_flit``: probability that an eligible flit gets ``nbits`` random distinct bit flips;
    * ``at``: {flit index: bit positions or None (random ``nbits``)}: scheduled corruption;
    * ``eligible(flit) -> bool``: restricts random corruption (e.g. only payload flits);
    * ``bit_range``: (lo, hi) bit positions that may be flipped at random (default: whole flit).
    Every corruption is appended to ``records``.
    """

    width: int
    rng: random.Random
    p_flit: float = 0.0
    nbits: int = 1
    at: dict[int, tuple[int, ...] | None] = field(default_factory=dict)
    eligible: Any = None
    bit_range: tuple[int, int] | None = None
    records: list[FlipRecord] = field(default_factory=list)

    def apply(self, index: int, cycle: int, flit: int) -> int:
        bits: tuple[int, ...] | None = None
        if index in self.at:
            bits = self.at[index]
            if bits is None:
                bits = self._random_bits()
        elif self.p_flit > 0.0 and (self.eligible is None or self.eligible(flit)):
            if self.rng.random() < self.p_flit:
                bits = self._random_bits()
        if not bits:
            return flit
        out = flit
        for b in bits:
            if not 0 <= b < self.width:
                raise ValueError(f"flip position {b} outside a {self.width}-bit flit")
            out ^= 1 << b
        self.records.append(FlipRecord(index, cycle, tuple(bits), flit, out))
        return out

    def _random_bits(self) -> tuple[int, ...]:
        lo, hi = self.bit_range or (0, self.width - 1)
        return tuple(sorted(self.rng.sample(range(lo, hi + 1), self.nbits)))


class FlitWire(uvm_component):
    """Connects ``src`` (a DUT flit output: valid [, ready driven here] , flit) to ``dst`` (a DUT
    flit input: valid, flit [, ready read here]).

    A flit accepted from ``src`` at rising edge k is presented on ``dst`` from the falling edge
    after edge k + ``latency`` - 1 (latency >= 1 cycles, default 1). ``src_ready``: Pattern for
    the ready given to the source (default always; ignored when src has no ready). If ``dst`` has
    no ready, each flit is presented for exactly one cycle. ``capacity`` bounds in-flight flits
    (source ready is withheld when full).
    """

    def __init__(self, name: str, parent: uvm_component | None, src: VRBus | None = None,
                 dst: VRBus | None = None, latency: int = 1, injector: ErrorInjector | None = None,
                 src_ready: Pattern | None = None, capacity: int = 64,
                 field_name: str = FLIT_FIELD) -> None:
        super().__init__(name, parent)
        if latency < 1:
            raise ValueError("latency must be >= 1")
        self.src = src
        self.dst = dst
        self.latency = latency
        self.injector = injector
        self.src_ready = src_ready
        self.capacity = capacity
        self.field_name = field_name
        self.carried = 0
        self.delivered = 0
        self.ap_in = uvm_analysis_port("ap_in", self)
        self.ap_out = uvm_analysis_port("ap_out", self)

    def build_phase(self) -> None:
        if self.src_ready is None:
            self.src_ready = Pattern.always()
        if self.injector is None:
            assert self.src is not None
            self.injector = ErrorInjector(width=self.src.fields[self.field_name].width,
                                          rng=component_rng(self))

    async def run_phase(self) -> None:
        src, dst = self.src, self.dst
        assert src is not None and dst is not None and self.src_ready is not None
        assert self.injector is not None
        s_data: Bind = src.fields[self.field_name]
        d_data: Bind = dst.fields[self.field_name]
        q: deque[tuple[int, int]] = deque()  # (deliverable from cycle, flit)
        presenting = False
        dst.valid.write(0)
        while True:
            await FallingEdge(src.clk)
            now = cycle_at(src.period_ns)  # the next rising edge
            # dst: present the head once its latency elapsed (payload stable while presented)
            if not presenting and q and q[0][0] <= now:
                d_data.write(q[0][1])
                dst.valid.write(1)
                presenting = True
            elif not presenting:
                dst.valid.write(0)
            ready_now = 0
            if src.ready is not None:
                ready_now = int(self.src_ready.next() and len(q) < self.capacity)
                src.ready.write(ready_now)
            await ReadOnly()
            if presenting and (dst.ready is None or dst.ready.read() == 1):
                _, flit = q.popleft()
                self.delivered += 1
                self.ap_out.write(Beat({self.field_name: flit}, now, int(get_sim_time("ps")),
                                       self.get_full_name() + ".out"))
                presenting = False
            if src.valid.read() == 1 and (src.ready is None or ready_now):
                orig = s_data.read()
                self.ap_in.write(Beat({self.field_name: orig}, now, int(get_sim_time("ps")),
                                      self.get_full_name() + ".in"))
                bad = self.injector.apply(self.carried, now, orig)
                self.carried += 1
                q.append((now + self.latency, bad))
            # With no ready on dst the presented flit is consumed this cycle; valid drops next
            # falling edge unless another flit is due.
