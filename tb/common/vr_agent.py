"""Valid/ready message agent: sequence item, driver, monitor, back-pressure sink, agent.

Timing discipline (every agent in tb/common follows it, so they compose):
  * drivers write only right after a **falling** edge;
  * monitors sample in the ReadOnly phase after that falling edge; with inputs changing only at
    falling edges and registers only at rising edges, these are exactly the values the DUT sees at
    the next rising edge, where the beat transfers (``valid && ready``). ``Beat.cycle`` is the
    number of that rising edge (:func:`tb.common.clock.cycle_at`).

Bus fields are :class:`tb.common.signals.Bind` objects, so an agent can own a whole signal or one
lane of a flattened vector (``tx_valid[c]``, ``tx_hdr[c*128 +: 128]``) shared with other agents.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from cocotb.simtime import get_sim_time
from cocotb.triggers import FallingEdge, ReadOnly, current_gpi_trigger
from pyuvm import (uvm_agent, uvm_analysis_port, uvm_component, uvm_driver, uvm_sequence,
                   uvm_sequence_item, uvm_sequencer)

from tb.common.clock import DEFAULT_PERIOD_NS, cycle_at
from tb.common.patterns import Pattern
from tb.common.seeds import component_rng
from tb.common.signals import Bind, SignalPool


@dataclass
class VRBus:
    """Signals of one valid/ready channel. ``ready=None``: the receiver always accepts.

    ``fields`` maps payload field names to bindings, e.g. ``{"hdr": ..., "data": ...}``.
    """

    clk: Any
    valid: Bind
    ready: Bind | None
    fields: dict[str, Bind]
    period_ns: float = DEFAULT_PERIOD_NS
    rst: Any | None = None  # when given, monitors ignore cycles with rst high

    @classmethod
    def lane(cls, pool: SignalPool, dut: Any, valid: str, ready: str | None,
             fields: dict[str, str | tuple[str, int]], index: int | None = None,
             clk: str = "clk", rst: str | None = "rst",
             period_ns: float = DEFAULT_PERIOD_NS) -> "VRBus":
        """Bind by signal names. With ``index`` (lane of a flattened vector): valid/ready are bit
        ``index``; a field given as ``(name, width)`` is ``name[index*width +: width]``; a field
        given as a plain name is the whole signal. Without ``index`` everything is whole-signal.
        """
        def b(name: str, width: int | None = None) -> Bind:
            sig = getattr(dut, name)
            if index is None:
                return pool.bind(sig)
            return pool.bind(sig, index=index, width=1 if width is None else width)

        fbinds: dict[str, Bind] = {}
        for k, spec in fields.items():
            if isinstance(spec, tuple):
                name, width = spec
                sig = getattr(dut, name)
                fbinds[k] = pool.bind(sig) if index is None else pool.bind(sig, index=index,
                                                                           width=width)
            else:
                fbinds[k] = pool.bind(getattr(dut, spec))
        return cls(clk=getattr(dut, clk), valid=b(valid), ready=None if ready is None else b(ready),
                   fields=fbinds, period_ns=period_ns,
                   rst=getattr(dut, rst) if rst and hasattr(dut, rst) else None)

    def read_payload(self) -> dict[str, int]:
        return {k: v.read() for k, v in self.fields.items()}


class VRItem(uvm_sequence_item):
    """One beat to drive: ``payload`` maps field name -> int (missing fields are driven 0)."""

    def __init__(self, name: str = "vr_item", payload: dict[str, int] | None = None) -> None:
        super().__init__(name)
        self.payload: dict[str, int] = dict(payload or {})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VRItem) and self.payload == other.payload

    def __str__(self) -> str:
        return fmt_payload(self.payload)


@dataclass(frozen=True)
class Beat:
    """A transferred beat as published by monitors."""

    payload: dict[str, int]
    cycle: int           # rising-edge index at which valid && ready transferred it
    time_ps: int = 0     # sim time of the sample (between the falling and that rising edge)
    source: str = ""     # monitor full name

    def __str__(self) -> str:
        return f"{fmt_payload(self.payload)} @cycle {self.cycle}"


def fmt_payload(p: Any) -> str:
    if isinstance(p, dict):
        return "{" + ", ".join(f"{k}={v:#x}" if isinstance(v, int) else f"{k}={v}"
                               for k, v in p.items()) + "}"
    return str(p)


def _can_write_now(t_fall: int) -> bool:
    """True when still inside the falling-edge timestep t_fall and not in ReadOnly."""
    if get_sim_time() != t_fall:
        return False
    try:
        return not isinstance(current_gpi_trigger(), ReadOnly)
    except RuntimeError:
        return False


class VRDriver(uvm_driver):
    """Drives items from its sequencer onto a :class:`VRBus`.

    * ``idle``: Pattern sampled each cycle an item is waiting to be presented; False = idle cycle
      (valid low). Default: no idles. Once valid is high it stays high, payload stable, until the
      beat transfers.
    * ``idle_junk``: drive random payload while valid is low (catches DUTs that use data without
      valid). Avoid for lanes whose payload vectors other agents treat specially.
    * The pyuvm driver trap: ``get_next_item`` may return after the falling edge's timestep; the
      driver then re-aligns to the next falling edge before driving, so no beat is mis-timed.
    """

    def __init__(self, name: str, parent: uvm_component | None, bus: VRBus | None = None,
                 idle: Pattern | None = None, idle_junk: bool = False) -> None:
        super().__init__(name, parent)
        self.bus = bus
        self.idle = idle
        self.idle_junk = idle_junk
        self.sent = 0
        self.rng: random.Random | None = None

    def build_phase(self) -> None:
        self.rng = component_rng(self)
        if self.idle is None:
            self.idle = Pattern.always()

    def _drive_idle(self) -> None:
        assert self.bus is not None and self.rng is not None
        self.bus.valid.write(0)
        if self.idle_junk:
            for b in self.bus.fields.values():
                b.write(self.rng.getrandbits(b.width))

    async def run_phase(self) -> None:
        bus = self.bus
        assert bus is not None, f"{self.get_full_name()}: no bus"
        assert self.idle is not None
        bus.valid.write(0)
        await FallingEdge(bus.clk)
        while True:
            t_fall = get_sim_time()
            ok, item = self.seq_item_port.try_next_item()
            if not ok:
                self._drive_idle()
                item = await self.seq_item_port.get_next_item()
                if not _can_write_now(t_fall):
                    await FallingEdge(bus.clk)  # realign: drive only at falling edges
            while not self.idle.next():
                self._drive_idle()
                await FallingEdge(bus.clk)
            for k, b in bus.fields.items():
                b.write(item.payload.get(k, 0))
            unknown = set(item.payload) - set(bus.fields)
            if unknown:
                raise KeyError(f"{self.get_full_name()}: item fields {sorted(unknown)} not on bus")
            bus.valid.write(1)
            while True:
                await ReadOnly()
                done = bus.ready is None or bus.ready.read() == 1
                await FallingEdge(bus.clk)
                if done:
                    break
            self.sent += 1
            self.seq_item_port.item_done()
            # loop continues at a falling edge: the next item can go out back-to-back


class VRMonitor(uvm_component):
    """Publishes every transferred beat (``Beat``) on ``ap``.

    Also checks the handshake rule on the monitored bus: while valid is high and not accepted the
    payload must not change (``check_stable``); ``check_hold`` also flags valid dropping before
    the transfer. Violations are collected in ``protocol_errors`` and fail ``check_phase``.
    """

    def __init__(self, name: str, parent: uvm_component | None, bus: VRBus | None = None,
                 check_stable: bool = True, check_hold: bool = False) -> None:
        super().__init__(name, parent)
        self.bus = bus
        self.check_stable = check_stable
        self.check_hold = check_hold
        self.count = 0
        self.protocol_errors: list[str] = []
        self.ap = uvm_analysis_port("ap", self)

    async def run_phase(self) -> None:
        bus = self.bus
        assert bus is not None, f"{self.get_full_name()}: no bus"
        stalled: dict[str, int] | None = None
        name = self.get_full_name()
        while True:
            await FallingEdge(bus.clk)
            await ReadOnly()
            if bus.rst is not None and int(bus.rst.value):
                stalled = None
                continue
            valid = bus.valid.read() == 1
            if not valid:
                if stalled is not None and self.check_hold:
                    self._err(f"valid dropped before transfer (payload {fmt_payload(stalled)})")
                stalled = None
                continue
            payload = bus.read_payload()
            if stalled is not None and self.check_stable and payload != stalled:
                self._err(f"payload changed while stalled: {fmt_payload(stalled)} -> "
                          f"{fmt_payload(payload)}")
            if bus.ready is None or bus.ready.read() == 1:
                self.count += 1
                self.ap.write(Beat(payload=payload, cycle=cycle_at(bus.period_ns),
                                   time_ps=int(get_sim_time("ps")), source=name))
                stalled = None
            else:
                stalled = payload

    def _err(self, msg: str) -> None:
        full = f"{self.get_full_name()} cycle {cycle_at(self.bus.period_ns if self.bus else 1.0)}: {msg}"
        self.logger.error(full)
        self.protocol_errors.append(full)

    def check_phase(self) -> None:
        assert not self.protocol_errors, "handshake violations:\n" + "\n".join(
            self.protocol_errors[:20])


class ReadySink(uvm_component):
    """Drives a ready signal from a :class:`Pattern` (always / random p / bursts / never)."""

    def __init__(self, name: str, parent: uvm_component | None, ready: Bind | None = None,
                 clk: Any = None, pattern: Pattern | None = None) -> None:
        super().__init__(name, parent)
        self.ready = ready
        self.clk = clk
        self.pattern = pattern

    def build_phase(self) -> None:
        if self.pattern is None:
            self.pattern = Pattern.always()

    async def run_phase(self) -> None:
        assert self.ready is not None and self.clk is not None and self.pattern is not None
        while True:
            self.ready.write(int(self.pattern.next()))
            await FallingEdge(self.clk)


class VRListSeq(uvm_sequence):
    """Sends a list of payload dicts, one item each."""

    def __init__(self, name: str = "vr_list_seq", payloads: list[dict[str, int]] | None = None):
        super().__init__(name)
        self.payloads = list(payloads or [])

    async def body(self) -> None:
        for p in self.payloads:
            item = VRItem("item", p)
            await self.start_item(item)
            await self.finish_item(item)


class VRAgent(uvm_agent):
    """Sequencer + driver + monitor on one bus (``active=False``: monitor only).

    ``sink``: a Pattern makes the agent also drive ``bus.ready`` (a receiving agent); leave None
    when the DUT drives ready. Publishes beats on ``self.ap`` (the monitor's port).
    """

    def __init__(self, name: str, parent: uvm_component | None, bus: VRBus | None = None,
                 active: bool = True, idle: Pattern | None = None,
                 sink: Pattern | None = None, idle_junk: bool = False,
                 check_hold: bool = False) -> None:
        super().__init__(name, parent)
        self.bus = bus
        self.active = active
        self.idle = idle
        self.sink_pattern = sink
        self.idle_junk = idle_junk
        self.check_hold = check_hold

    def build_phase(self) -> None:
        assert self.bus is not None, f"{self.get_full_name()}: no bus"
        self.mon = VRMonitor("mon", self, bus=self.bus, check_hold=self.check_hold)
        self.ap = self.mon.ap
        if self.active:
            self.seqr = uvm_sequencer("seqr", self)
            self.drv = VRDriver("drv", self, bus=self.bus, idle=self.idle,
                                idle_junk=self.idle_junk)
        if self.sink_pattern is not None:
            assert self.bus.ready is not None, "sink needs a ready signal"
            self.sink = ReadySink("sink", self, ready=self.bus.ready, clk=self.bus.clk,
                                  pattern=self.sink_pattern)

    def connect_phase(self) -> None:
        if self.active:
            self.drv.seq_item_port.connect(self.seqr.seq_item_export)

    async def send(self, payloads: list[dict[str, int]]) -> None:
        """Run a :class:`VRListSeq` on this agent's sequencer; returns when all were accepted."""
        await VRListSeq("send", payloads).start(self.seqr)
