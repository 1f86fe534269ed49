"""cocotb/pyuvm tests of two cxl_link endpoints in loopback (top: cxl_link_loopback).

Every test prints its seed (tb.common.seeds.announce_seed); SEED=<n> reproduces it.
"""
from __future__ import annotations

import os
import cocotb
import pyuvm
from cocotb.triggers import RisingEdge
from pyuvm import ConfigDB, uvm_test

from tb.common.clock import ClockReset, cycle_at
from tb.common.seeds import announce_seed, named_rng
from tb.link.link_env import LinkCfg, LinkEnv, msg_payload, rand_msg, EP_ROLE


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


class LinkBaseTest(uvm_test):
    """Random message mixes from both endpoints; subclasses change the knobs and the checks."""

    def make_cfg(self) -> LinkCfg:
        return LinkCfg(n_msgs=_env_int("LINK_N_MSGS", 40))

    def build_phase(self) -> None:
        self.cfg = self.make_cfg()
        ConfigDB().set(None, "*", "link_cfg", self.cfg)
        self.env = LinkEnv("env", self)

    def send_all(self) -> None:
        for ep, agent in self.env.agent.items():
            for c in self.cfg.classes[ep]:
                rng = named_rng(f"msgs/{ep}{c}")
                flavor = "256B" if self.cfg.flit_mode else "68B"
                agent.send(c, [msg_payload(rand_msg(EP_ROLE[ep], c, rng, flavor))
                               for _ in range(self.cfg.n_msgs)])

    async def run_phase(self) -> None:
        self.raise_objection()
        dut = cocotb.top
        announce_seed(self.logger)
        await ClockReset(dut.clk, dut.rst).start()
        up = await self.env.wait_link_up()
        self.logger.info(f"link up after {up} cycles")
        await self.body()
        self.drop_objection()

    async def body(self) -> None:
        self.send_all()
        drained = await self.env.drain(self.cfg.drain_cycles)
        st = self.env.status()
        self.logger.info(f"done at cycle {cycle_at()}: {st}")
        assert drained, f"messages still in flight after {self.cfg.drain_cycles} cycles: {st}"
        self.check_status(st)

    def check_status(self, st: dict[str, int]) -> None:
        for ep in ("a", "b"):
            assert st[f"{ep}_link_up"] == 1 and st[f"{ep}_fatal"] == 0, st
            assert st[f"{ep}_rx_overflow"] == 0 and st[f"{ep}_credit_err"] == 0, st
            assert st[f"{ep}_proto_err"] == 0, st
        if not self.cfg.flip_p:
            assert st["a_crc_err"] == 0 and st["b_crc_err"] == 0, st


@pyuvm.test(timeout_time=400, timeout_unit="us")
class LoopbackTest(LinkBaseTest):
    """Both directions, random mixes with idle cycles, consumers always ready. Slower request
    classes make the formats that need "no request waiting" (UP DH in H0, DOWN M2S Req in H5)
    frequent enough for the format coverage to close."""

    def make_cfg(self) -> LinkCfg:
        return LinkCfg(n_msgs=_env_int("LINK_N_MSGS", 60),
                       tx_idle_by={"a0": 0.2, "a1": 0.2, "b0": 0.2})


@pyuvm.test(timeout_time=600, timeout_unit="us")
class BackpressureTest(LinkBaseTest):
    """Slow consumers (rx_ready 30 %) and a stalling wire (tx_flit_ready 70 %)."""

    def make_cfg(self) -> LinkCfg:
        return LinkCfg(n_msgs=_env_int("LINK_N_MSGS", 30), tx_idle_p=0.9, rx_ready_p=0.3,
                       wire_ready_p=0.7, drain_cycles=20000, cover_formats=False)


@pyuvm.test(timeout_time=800, timeout_unit="us")
class StarvationTest(LinkBaseTest):
    """Credit starvation: run with a tiny RX_DEPTH; consumers take a message 8 % of cycles."""

    def make_cfg(self) -> LinkCfg:
        return LinkCfg(n_msgs=_env_int("LINK_N_MSGS", 16), tx_idle_p=1.0, rx_ready_p=0.08,
                       drain_cycles=40000, cover_formats=False)


@pyuvm.test(timeout_time=800, timeout_unit="us")
class FaultTest(LinkBaseTest):
    """Seeded random bit flips on both wires: every message arrives exactly once, in order."""

    def make_cfg(self) -> LinkCfg:
        return LinkCfg(n_msgs=_env_int("LINK_N_MSGS", 80), flip_p=0.05, flip_start=5,
                       cover_formats=False, cover_retry=True, drain_cycles=30000)

    def check_status(self, st: dict[str, int]) -> None:
        super().check_status(st)
        assert st["a_crc_err"] + st["b_crc_err"] > 0 and st["a_retry"] + st["b_retry"] > 0, st
        self.logger.info(f"flips injected: a->b {self.env.fault['a'].flips}, "
                         f"b->a {self.env.fault['b'].flips}")


@pyuvm.test(timeout_time=400, timeout_unit="us")
class FatalTest(LinkBaseTest):
    """Negative: every A->B flit corrupted from 150 cycles after link up. B must exhaust its
    retries and assert link_fatal; no message may be delivered out of order or from a bad flit."""

    def make_cfg(self) -> LinkCfg:
        return LinkCfg(n_msgs=30, flip_all_after=150, expect_fatal=True, cover_formats=False)

    async def body(self) -> None:
        dut = cocotb.top
        self.send_all()
        fatal_at = None
        for _ in range(20000):
            await RisingEdge(dut.clk)
            if int(dut.b_fatal.value):
                fatal_at = cycle_at()
                break
        st = self.env.status()
        self.logger.info(f"B link_fatal at cycle {fatal_at}: {st}")
        assert fatal_at is not None, f"B never reached link_fatal: {st}"
        assert st["b_retry"] >= 2 and st["b_crc_err"] > 0 and st["b_link_up"] == 0, st
        assert st["b_proto_err"] == 0 and st["b_rx_overflow"] == 0, st
        assert st["a_fatal"] == 0, st
        # Commits stop with the corruption: nothing more is delivered to B.
        got = {c: self.env.agent["b"].n_rx[c] for c in self.cfg.classes["a"]}
        for _ in range(200):
            await RisingEdge(dut.clk)
        assert {c: self.env.agent["b"].n_rx[c] for c in self.cfg.classes["a"]} == got
        assert int(dut.b_rx_commit.value) == 0
        for sb in self.env.all_scoreboards():
            assert not sb.errors, sb.errors[:3]   # mismatches only; leftovers are expected
        delivered = sum(got.values())
        self.logger.info(f"delivered to B before the fatal error: {delivered} messages {got}")


@pyuvm.test(timeout_time=800, timeout_unit="us")
class IdleBitErrorTest(LinkBaseTest):
    """Bit errors on an idle link (RETRY.Idle flits hit, nothing to replay), many more than
    MAX_RETRY per direction, then traffic under the same errors: every retry that completes with
    nothing to replay ends the count of retries without progress, so the link stays up and every
    message arrives exactly once, in order."""

    IDLE_CYCLES = 4000
    MAX_RETRY = 16                      # cxl_link default (the build of test_link_idle_bit_errors)

    def make_cfg(self) -> LinkCfg:
        # the retry-event bins belong to FaultTest (a replay needs a lost retryable flit)
        return LinkCfg(n_msgs=_env_int("LINK_N_MSGS", 80), flip_p=0.01, flip_start=5,
                       cover_formats=False, drain_cycles=30000)

    async def body(self) -> None:
        dut = cocotb.top
        for _ in range(self.IDLE_CYCLES):
            await RisingEdge(dut.clk)
        st = self.env.status()
        self.logger.info(f"after {self.IDLE_CYCLES} idle cycles with bit errors: {st}")
        for ep in ("a", "b"):
            assert st[f"{ep}_fatal"] == 0 and st[f"{ep}_link_up"] == 1, st
            assert st[f"{ep}_retry"] > self.MAX_RETRY, st     # the test exercised the retry limit
        await super().body()
