"""pyuvm environment for the CXL switch (cxl_switch_core, or the link-level / cascade wrappers,
which expose the same message-level lanes).

DUT lanes: port p, switch class c (0 M2S Req, 1 M2S RwD, 2 S2M NDR, 3 S2M DRS) is bit p*4+c of
in_valid/in_ready/out_valid/out_ready and in_hdr/out_hdr[(p*4+c)*128 +: 128]; data of RwD/DRS is
in_data/out_data[(p*2+{0,1})*512 +: 512].

Pieces: `LaneBus` (the switch's lane layout on tb/common's `MultiLaneBus`: one coroutine drives and
samples all lanes each cycle, cheap for 32+ lanes),
`PortAgent` (sequencer + `PortDriver` + `PortMonitor`) per port, `DeviceResponder` on device-facing
ports, `SwitchScoreboard` (golden model, funnel per egress), `CompletionTracker` (every request
gets exactly one response), functional coverage (class x source x destination x mode).
"""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import cocotb
from cocotb.triggers import FallingEdge
from pyuvm import (uvm_agent, uvm_analysis_port, uvm_component, uvm_driver, uvm_env, uvm_sequence,
                   uvm_sequence_item, uvm_sequencer)

from models.cxl.messages import CxlMessage, M2SReq, M2SRwD, S2MDRS, S2MDRSOp, S2MNDR, S2MNDROp
from models.switch import ExpectedStreams, OrderingError, expected_response
from tb.common.cfg_agent import CfgAgent
from tb.common.coverage import CoverageCollector
from tb.common.multilane import LaneSide, MultiLaneBus
from tb.common.patterns import Pattern
from tb.common.scoreboard import AnalysisImp
from tb.common.seeds import component_rng
from tb.switch.regs import A_COUNT, COUNTERS, RESP_OK, RegWrite

CLS_TYPES: tuple[type, ...] = (M2SReq, M2SRwD, S2MNDR, S2MDRS)
CLS_NAMES = ("req", "rwd", "ndr", "drs")
DATA_LANE = {1: 0, 3: 1}


def cls_of(msg: CxlMessage) -> int:
    return CLS_TYPES.index(type(msg))


def msg_to_lane(msg: CxlMessage) -> tuple[int, int, int]:
    """(class, canonical header, data as an int: byte k at bits 8k)."""
    c = cls_of(msg)
    data = int.from_bytes(msg.data, "little") if c in DATA_LANE else 0
    return c, msg.to_canonical(), data


def lane_to_msg(c: int, hdr: int, data: int) -> CxlMessage:
    t = CLS_TYPES[c]
    return t.from_canonical(hdr, data.to_bytes(64, "little")) if c in DATA_LANE else t.from_canonical(hdr)


@dataclass(frozen=True)
class Obs:
    """A message seen on a lane: `port` is the switch (external) port, cycle the transfer edge."""

    port: int
    msg: CxlMessage
    cycle: int


class LaneBus(MultiLaneBus):
    """The switch's lanes on tb/common's multi-lane agent: lane p*4+c is port p, class c; RwD and
    DRS carry data in slots p*2+{0,1}; idle and ready patterns per port (`idle[p]`, `ready[p]`).
    `on_in` / `on_out` callbacks get (lane, hdr, data, cycle); `port_class(lane)` splits a lane."""

    def __init__(self, dut: Any, n_ports: int, rng: random.Random) -> None:
        super().__init__(dut, 4 * n_ports,
                         LaneSide("in_valid", "in_ready", "in_hdr", 128, "in_data", 512),
                         LaneSide("out_valid", "out_ready", "out_hdr", 128, "out_data", 512),
                         group_of=lambda i: i // 4,
                         data_slot=lambda i: (i // 4) * 2 + DATA_LANE[i % 4] if i % 4 in DATA_LANE else None,
                         rng=rng)
        self.n = n_ports

    @staticmethod
    def port_class(lane: int) -> tuple[int, int]:
        return divmod(lane, 4)

    def push(self, port: int, msg: CxlMessage) -> None:
        c, hdr, data = msg_to_lane(msg)
        self.put(port * 4 + c, hdr, data)

    def backlog(self, port: int) -> int:
        return self.queued(range(port * 4, port * 4 + 4))


def cfg_agent(dut: Any) -> CfgAgent:
    """The switch's register agent (tb/common/cfg_agent.py), one per DUT handle."""
    agent = _CFG_AGENTS.get(id(dut))
    if agent is None or agent.dut is not dut:
        agent = _CFG_AGENTS[id(dut)] = CfgAgent(dut, resp_ok=RESP_OK)
    return agent


_CFG_AGENTS: dict[int, CfgAgent] = {}


async def cfg_access(dut: Any, addr: int, data: int = 0, write: bool = True) -> tuple[int, int]:
    """One register access on cfg_* (call at any time; returns (resp, rdata))."""
    return await cfg_agent(dut).access(addr, data, write)


async def program(dut: Any, writes: Sequence[RegWrite]) -> None:
    await cfg_agent(dut).program(writes)


async def read_counters(dut: Any) -> dict[str, int]:
    return await cfg_agent(dut).read_block(A_COUNT, COUNTERS)


# ------------------------------------------------------------------------------ agents
class MsgItem(uvm_sequence_item):
    def __init__(self, name: str = "msg", msg: CxlMessage | None = None) -> None:
        super().__init__(name)
        self.msg = msg


class MsgListSeq(uvm_sequence):
    """Sends a list of messages on one port."""

    def __init__(self, name: str = "msgs", msgs: Sequence[CxlMessage] = ()) -> None:
        super().__init__(name)
        self.msgs = list(msgs)

    async def body(self) -> None:
        for m in self.msgs:
            item = MsgItem("m", m)
            await self.start_item(item)
            await self.finish_item(item)


class PortDriver(uvm_driver):
    """Moves sequence items into the port's lane queues, keeping at most `depth` waiting."""

    def __init__(self, name: str, parent: uvm_component | None, bus: LaneBus | None = None,
                 port: int = 0, depth: int = 4) -> None:
        super().__init__(name, parent)
        self.bus, self.port, self.depth = bus, port, depth

    async def run_phase(self) -> None:
        assert self.bus is not None
        while True:
            item = await self.seq_item_port.get_next_item()
            while self.bus.backlog(self.port) >= self.depth:
                await FallingEdge(self.bus.dut.clk)
            self.bus.push(self.port, item.msg)
            self.seq_item_port.item_done()


class PortMonitor(uvm_component):
    """Publishes accepted ingress messages on ap_in and delivered egress messages on ap_out."""

    def __init__(self, name: str, parent: uvm_component | None, bus: LaneBus | None = None,
                 port: int = 0) -> None:
        super().__init__(name, parent)
        self.bus, self.port = bus, port
        self.ap_in = uvm_analysis_port("ap_in", self)
        self.ap_out = uvm_analysis_port("ap_out", self)
        self.n_in = self.n_out = 0

    def connect_phase(self) -> None:
        assert self.bus is not None
        self.bus.on_in.append(self._in)
        self.bus.on_out.append(self._out)

    def _in(self, lane: int, h: int, d: int, cyc: int) -> None:
        p, c = LaneBus.port_class(lane)
        if p == self.port:
            self.n_in += 1
            self.ap_in.write(Obs(p, lane_to_msg(c, h, d), cyc))

    def _out(self, lane: int, h: int, d: int, cyc: int) -> None:
        p, c = LaneBus.port_class(lane)
        if p == self.port:
            self.n_out += 1
            self.ap_out.write(Obs(p, lane_to_msg(c, h, d), cyc))


class PortAgent(uvm_agent):
    def __init__(self, name: str, parent: uvm_component | None, bus: LaneBus | None = None,
                 port: int = 0) -> None:
        super().__init__(name, parent)
        self.bus, self.port = bus, port

    def build_phase(self) -> None:
        self.seqr = uvm_sequencer("seqr", self)
        self.drv = PortDriver("drv", self, bus=self.bus, port=self.port)
        self.mon = PortMonitor("mon", self, bus=self.bus, port=self.port)

    def connect_phase(self) -> None:
        self.drv.seq_item_port.connect(self.seqr.seq_item_export)


# ------------------------------------------------------------------------------ device side
def device_data(tag: int) -> bytes:
    return bytes(((tag * 7) + i) & 0xFF for i in range(64))


def device_response(req: M2SReq | M2SRwD) -> CxlMessage | None:
    """What a simple HDM-H memory device answers (written from the CXL.mem flows, not the RTL)."""
    exp = expected_response(req)
    if exp == "drs":
        return S2MDRS(memop=int(S2MDRSOp.MEMDATA), tag=req.tag, ldid=req.ldid, data=device_data(req.tag))
    if exp == "ndr":
        return S2MNDR(memop=int(S2MNDROp.CMP), tag=req.tag, ldid=req.ldid)
    return None


class DeviceResponder(uvm_component):
    """On each request delivered at a device-facing port, sends the device's answer back into the
    same port after a random delay (0..max_delay cycles); responses may overtake each other."""

    def __init__(self, name: str, parent: uvm_component | None, bus: LaneBus | None = None,
                 ports: Sequence[int] = (), max_delay: int = 8, pbr_ports: Sequence[int] = ()) -> None:
        super().__init__(name, parent)
        self.bus, self.ports, self.max_delay = bus, set(ports), max_delay
        self.pbr_ports = set(pbr_ports)  # remote devices behind a PBR fabric port: answer to SPID
        self.pending: list[tuple[int, int, CxlMessage]] = []  # (due cycle, port, msg)
        self.hold = False  # a test holds every answer back while True (e.g. to keep a tag outstanding)
        self.imp = AnalysisImp("imp", self, self._seen)

    def build_phase(self) -> None:
        self.rng = component_rng(self)

    def _seen(self, o: Obs) -> None:
        if o.port in self.ports | self.pbr_ports and isinstance(o.msg, (M2SReq, M2SRwD)):
            rsp = device_response(o.msg)
            if rsp is not None and o.port in self.pbr_ports:
                rsp = rsp.replace(dpid=o.msg.spid)
            if rsp is not None:
                assert self.bus is not None
                self.pending.append((self.bus.cycle + self.rng.randint(0, self.max_delay), o.port, rsp))

    async def run_phase(self) -> None:
        assert self.bus is not None
        while True:
            await FallingEdge(self.bus.dut.clk)
            if self.pending and not self.hold:
                now = self.bus.cycle
                due = [x for x in self.pending if x[0] <= now]
                self.pending = [x for x in self.pending if x[0] > now]
                for _, p, m in due:
                    self.bus.push(p, m)


# ------------------------------------------------------------------------------ checking
class SwitchScoreboard(uvm_component):
    """Golden model + per-egress funnel: `predict(port, msg) -> [(egress, msg)]` is called for every
    accepted ingress message; every delivered message must equal the head of one (class, source)
    FIFO of its egress (per-class, per-source order; sources may interleave)."""

    def __init__(self, name: str, parent: uvm_component | None, n_ports: int = 0,
                 predict: Callable[[int, CxlMessage], list[tuple[int, CxlMessage]]] | None = None,
                 window: int | None = None) -> None:
        super().__init__(name, parent)
        self.predict = predict
        self.streams = ExpectedStreams(n_ports)
        self.window = window
        self.errors: list[str] = []
        self.matched = 0
        self.on_match: list[Callable[[int, int, CxlMessage, int], None]] = []
        self.ing = AnalysisImp("ing", self, self._ingress)
        self.egr = AnalysisImp("egr", self, self._egress)
        self.on_predict: list[Callable[[Obs, list[tuple[int, CxlMessage]]], None]] = []

    def _ingress(self, o: Obs) -> None:
        assert self.predict is not None
        outs = self.predict(o.port, o.msg)
        for eg, m in outs:
            self.streams.push(eg, o.port, m)
        for cb in self.on_predict:
            cb(o, outs)

    def _egress(self, o: Obs) -> None:
        try:
            src = self.streams.match(o.port, o.msg, self.window)
        except OrderingError as e:
            self.errors.append(f"cycle {o.cycle}: {e}")
            if len(self.errors) < 5:
                self.logger.error(self.errors[-1])
            return
        self.matched += 1
        for cb in self.on_match:
            cb(src, o.port, o.msg, o.cycle)

    def pending(self) -> int:
        return len(self.streams.pending())

    def check_phase(self) -> None:
        left = self.streams.pending()
        assert not self.errors, f"{len(self.errors)} scoreboard errors, first: {self.errors[:3]}"
        assert not left, f"{len(left)} expected messages never delivered, e.g. {left[:3]}"


class CompletionTracker(uvm_component):
    """Every request a host sends that expects a completion and that the model says the switch
    delivers (or answers) gets exactly one completion (by host port + tag); a second completion
    is an error. Responses the test injects for tags nobody opened are the scoreboard's business."""

    def __init__(self, name: str, parent: uvm_component | None, hosts: Sequence[int] = ()) -> None:
        super().__init__(name, parent)
        self.hosts = set(hosts)
        self.open: dict[tuple[int, int], str] = {}
        self.done: set[tuple[int, int]] = set()
        self.errors: list[str] = []
        self.completed = 0
        self.egr = AnalysisImp("egr", self, self._rsp)

    def predicted(self, o: Obs, outs: list[tuple[int, CxlMessage]]) -> None:
        if outs and o.port in self.hosts and isinstance(o.msg, (M2SReq, M2SRwD)):
            exp = expected_response(o.msg)
            if exp in ("drs", "ndr"):
                key = (o.port, o.msg.tag)
                if key in self.open:
                    self.errors.append(f"test bug: tag {o.msg.tag:#x} reused on port {o.port}")
                self.open[key] = exp
                self.done.discard(key)

    def _rsp(self, o: Obs) -> None:
        if o.port in self.hosts and isinstance(o.msg, (S2MNDR, S2MDRS)):
            key = (o.port, o.msg.tag)
            kind = "drs" if isinstance(o.msg, S2MDRS) else "ndr"
            if self.open.get(key) == kind:
                del self.open[key]
                self.done.add(key)
                self.completed += 1
            elif key in self.done:
                self.errors.append(f"cycle {o.cycle}: port {o.port}: second {kind} for tag {o.msg.tag:#x}")

    def check_phase(self) -> None:
        assert not self.errors, f"completion errors: {self.errors[:5]}"
        assert not self.open, f"{len(self.open)} requests never completed, e.g. {list(self.open)[:5]}"


# ------------------------------------------------------------------------------ environment
@dataclass
class EnvCfg:
    n_ports: int
    predict: Callable[[int, CxlMessage], list[tuple[int, CxlMessage]]]
    hosts: Sequence[int]
    devices: Sequence[int]
    mode: str = "hbr"
    idle_p: float = 1.0       # probability a port presents its next message in a cycle
    ready_p: float = 1.0      # probability an egress port is ready in a cycle
    max_delay: int = 8
    window: int | None = None
    remote: Sequence[int] = ()  # fabric ports with remote devices behind them
    cov_legal: Callable[[str, int, int], bool] | None = None  # (class, src, dst) -> legal bin
    extra: dict[str, Any] = field(default_factory=dict)


class SwitchEnv(uvm_env):
    def __init__(self, name: str, parent: Any, cfg: EnvCfg | None = None) -> None:
        super().__init__(name, parent)
        assert cfg is not None
        self.cfg = cfg

    def build_phase(self) -> None:
        c = self.cfg
        self.rng = component_rng(self)
        self.bus = LaneBus(cocotb.top, c.n_ports, self.rng)
        for p in range(c.n_ports):
            if c.idle_p < 1.0:
                self.bus.idle[p] = Pattern.random(c.idle_p, random.Random(self.rng.getrandbits(64)))
            if c.ready_p < 1.0:
                self.bus.ready[p] = Pattern.random(c.ready_p, random.Random(self.rng.getrandbits(64)))
        self.agents = [PortAgent(f"port{p}", self, bus=self.bus, port=p) for p in range(c.n_ports)]
        self.sb = SwitchScoreboard("sb", self, n_ports=c.n_ports, predict=c.predict, window=c.window)
        self.tracker = CompletionTracker("tracker", self, hosts=c.hosts)
        self.dev = DeviceResponder("dev", self, bus=self.bus, ports=c.devices, max_delay=c.max_delay,
                                   pbr_ports=c.remote)
        self.cov = CoverageCollector("cov", self, enforce=c.cov_legal is not None)
        g = self.cov.group("route")
        n = c.n_ports
        g.coverpoint("cls", {k: i for i, k in enumerate(CLS_NAMES)})
        g.coverpoint("src", {f"p{p}": p for p in range(n)})
        g.coverpoint("dst", {f"p{p}": p for p in range(n)})
        g.coverpoint("mode", {c.mode: c.mode})
        legal = c.cov_legal or (lambda k, s, d: True)
        g.cross("cls_src_dst_mode", ["cls", "src", "dst", "mode"],
                ignore=lambda combo: not legal(combo[0], int(combo[1][1:]), int(combo[2][1:])))
        self.covg = g

    def connect_phase(self) -> None:
        for a in self.agents:
            a.mon.ap_in.connect(self.sb.ing)
            a.mon.ap_out.connect(self.sb.egr)
            a.mon.ap_out.connect(self.tracker.egr)
            a.mon.ap_out.connect(self.dev.imp)
        self.sb.on_match.append(self._sample)
        self.sb.on_predict.append(self.tracker.predicted)

    def _sample(self, src: int, dst: int, msg: CxlMessage, cycle: int) -> None:
        self.covg.sample(cls=cls_of(msg), src=src, dst=dst, mode=self.cfg.mode)

    def start_bus(self) -> None:
        cocotb.start_soon(self.bus.run())

    def quiet(self) -> bool:
        return not self.bus.busy() and not self.dev.pending and self.sb.pending() == 0

    async def drain(self, max_cycles: int) -> None:
        """Wait until nothing is queued, expected or pending (or max_cycles pass)."""
        for _ in range(max_cycles):
            await FallingEdge(self.bus.dut.clk)
            if self.quiet():
                for _ in range(8):  # a few more cycles: anything unexpected would show up
                    await FallingEdge(self.bus.dut.clk)
                if self.quiet():
                    return
