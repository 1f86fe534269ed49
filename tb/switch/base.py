"""Test base shared by the switch benches (core, link-level): build the env from a scenario,
program the DUT, run per-host sequences, drain, compare counters with the model."""
from __future__ import annotations

import os
from collections.abc import Sequence

import cocotb
from cocotb.triggers import Combine, FallingEdge
from pyuvm import uvm_test

from models.cxl.messages import CxlMessage
from models.switch import PortRole, SwitchConfig, SwitchModel
from tb.common.clock import ClockReset
from tb.common.seeds import announce_seed, component_rng
from tb.switch.env import EnvCfg, MsgListSeq, SwitchEnv, program, read_counters
from tb.switch.regs import COUNTERS, config_writes

SOAK = os.environ.get("SOAK", "") not in ("", "0")


def legal_routes(cfg: SwitchConfig):
    """Coverage legality of (class, src, dst) for an edge-only switch: requests host -> device,
    responses device -> host, switch-made answers host -> same host."""
    roles = [pc.role for pc in cfg.ports]

    def legal(k: str, s: int, d: int) -> bool:
        if k in ("req", "rwd"):
            return roles[s] == PortRole.USP and roles[d] == PortRole.DSP
        return (roles[s] == PortRole.DSP and roles[d] == PortRole.USP)
    return legal


class SwitchTestBase(uvm_test):
    """Subclasses set `scenario()` -> (SwitchConfig, {port: [messages]}) and knobs."""

    idle_p = 1.0
    ready_p = 1.0
    max_delay = 8
    drain_cycles = 20000
    check_coverage = True
    ndec = 4

    def n_ports(self) -> int:
        return len(cocotb.top.in_valid) // 4

    def scenario(self) -> tuple[SwitchConfig, dict[int, list[CxlMessage]]]:
        raise NotImplementedError

    def coverage_legal(self, cfg: SwitchConfig):
        return legal_routes(cfg) if self.check_coverage else None

    def build_phase(self) -> None:
        self.rng = component_rng(self)
        self.cfg, self.traffic = self.scenario()
        self.model = SwitchModel(self.n_ports(), self.cfg)
        roles = [pc.role for pc in self.cfg.ports]
        self.env = SwitchEnv("env", self, EnvCfg(
            n_ports=self.n_ports(), predict=self.model.ingress,
            hosts=[p for p, r in enumerate(roles) if r == PortRole.USP],
            devices=[p for p, r in enumerate(roles) if r == PortRole.DSP],
            remote=[p for p, r in enumerate(roles) if r == PortRole.FABRIC],
            mode=self.cfg.mode, idle_p=self.idle_p, ready_p=self.ready_p, max_delay=self.max_delay,
            cov_legal=self.coverage_legal(self.cfg)))

    async def pre_configure(self) -> None:
        """Link-level benches wait for link_up here."""

    async def configure(self) -> None:
        await program(cocotb.top, config_writes(self.cfg, self.ndec))

    async def send_all(self, traffic: dict[int, Sequence[CxlMessage]]) -> None:
        tasks = []
        for p, msgs in traffic.items():
            seq = MsgListSeq(f"host{p}", msgs)
            tasks.append(cocotb.start_soon(seq.start(self.env.agents[p].seqr)))
        if tasks:
            await Combine(*tasks)

    async def run_phase(self) -> None:
        self.raise_objection()
        dut = cocotb.top
        announce_seed(self.logger)
        dut.in_valid.value = 0
        dut.out_ready.value = 0
        dut.cfg_valid.value = 0
        if hasattr(dut, "ev_unsup"):    # the bare core: no link wrapper drains anything (X if undriven)
            dut.ev_unsup.value = 0
        await ClockReset(dut.clk, dut.rst).start()
        await self.pre_configure()
        await self.configure()
        self.env.start_bus()
        await self.body()
        await self.env.drain(self.drain_cycles)
        await self.compare_counters()
        self.drop_objection()

    async def body(self) -> None:
        await self.send_all(self.traffic)

    async def settle(self, max_cycles: int = 2000) -> None:
        """Wait until everything sent so far has been delivered (answers a device still holds
        back do not count), then a few cycles more."""
        env = self.env
        for _ in range(max_cycles):
            await FallingEdge(cocotb.top.clk)
            if not env.bus.busy() and env.sb.pending() == 0:
                break
        else:
            raise AssertionError(f"traffic did not settle in {max_cycles} cycles")
        for _ in range(4):
            await FallingEdge(cocotb.top.clk)

    def model_counters(self) -> dict[str, int]:
        return self.model.counters.as_dict()

    async def compare_counters(self) -> None:
        await FallingEdge(cocotb.top.clk)
        got = await read_counters(cocotb.top)
        want = self.model_counters()
        diffs = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
        self.logger.info(f"counters: { {k: v for k, v in got.items() if v} }")
        assert not diffs, f"RTL counters differ from the model (rtl, model): {diffs}"
        assert got["cfg_rejected"] == 0 and COUNTERS[-1] == "cfg_rejected"
