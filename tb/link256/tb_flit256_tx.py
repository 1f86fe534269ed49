"""pyuvm tests of cxl_flit256_tx (environment: tb/link256/tx_env.py).

Every fired flit is decoded by the reference model's stateful receiver and must be legal and carry
exactly what the formatter reports taken (one message per class, in order, the taken credits, the
ack count or the control command); the take policy is checked on every flit. ROLE and PBR are read
from the DUT. Each test logs its seed (reproduce with SEED=<n>).

* TxRandomMix: random message mixes, credits and acks with random idle cycles; coverage of the flit
  kinds (payload, idle, Empty, 6 messages, H-slot used, trailer) and of back-to-back / after-idle.
* TxControlFlits: IDLE / RETRY.Frame / RETRY.Req / RETRY.Ack / INIT kinds give NOP flits even with
  heads, credits and acks pending.
* TxScoreboardCatchesCorruption: expect-fail proof that a corrupted flit is reported.
"""
from __future__ import annotations

import cocotb
import pyuvm
from pyuvm import uvm_sequence, uvm_test

from tb.common.clock import ClockReset
from tb.common.seeds import announce_seed, named_rng
from tb.link256.common import Corrupter, cfg_from_dut, idle_pattern, refresh_crc
from tb.link256.tx_env import CTL_KINDS, TxEnv, TxFlitSeq


class TxTestBase(uvm_test):
    """Builds the env; subclasses choose the sequence, the idle pattern and the covergroups."""

    idle = "random"
    groups: tuple[str, ...] = ()

    def build_phase(self) -> None:
        self.cfg = cfg_from_dut()
        name = type(self).__name__
        self.rng = named_rng(f"{name}/seq")
        self.env = TxEnv("env", self, self.cfg, idle_pattern(self.idle, named_rng(f"{name}/idle")),
                         groups=self.groups)

    def sequence(self) -> uvm_sequence:
        raise NotImplementedError

    async def run_phase(self) -> None:
        self.raise_objection()
        dut = cocotb.top
        announce_seed(self.logger)
        self.logger.info(f"DUT ROLE={self.cfg.role} PBR={int(self.cfg.pbr)}")
        await ClockReset(dut.clk, dut.rst).start()
        await self.sequence().start(self.env.req.seqr)
        await self.env.sb.wait_drained(dut.clk, 10)
        self.drop_objection()


@pyuvm.test(timeout_time=200, timeout_unit="us")
class TxRandomMix(TxTestBase):
    """Random message mixes, credits and acks; every flit legal and exactly what was taken."""

    groups = ("kinds", "flow")

    def sequence(self) -> uvm_sequence:
        return TxFlitSeq("mix", self.cfg, self.rng, n=400)


@pyuvm.test(timeout_time=100, timeout_unit="us")
class TxControlFlits(TxTestBase):
    """Control kinds give NOP flits (RETRY.Req / Ack with the ESeq) even with heads available."""

    idle = "bursts"
    groups = ("ctl",)

    def sequence(self) -> uvm_sequence:
        return TxFlitSeq("ctl", self.cfg, self.rng, n=60, p_avail=(0.8,), kinds=CTL_KINDS)


@pyuvm.test(timeout_time=100, timeout_unit="us")
class TxScoreboardCatchesCorruption(TxTestBase):
    """Expect-fail proof: the first flit from number 17 on that carries messages is corrupted on
    its way to the model decoder (slot 0's message Valid bit flipped, the CRC made good again, as a
    formatter bug with a correct CRC would look); the scoreboard must report exactly that flit.
    Passes only because the mismatch was detected."""

    corrupt_index = 17

    def sequence(self) -> uvm_sequence:
        return TxFlitSeq("mix", self.cfg, self.rng, n=40)

    def end_of_elaboration_phase(self) -> None:
        env = self.env
        env.sb.enforce = False
        env.txn.ap.subscribers.remove(env.dec.export)
        self.corrupt = Corrupter("corrupt", self, env.dec.write, self.corrupt_index,
                                 lambda p: {**p, "flit": refresh_crc(p["flit"] ^ (1 << 20))}
                                 if p["take"] else None)
        env.txn.ap.connect(self.corrupt.export)

    def check_phase(self) -> None:
        errs = self.env.sb.final_errors()
        mism = [e for e in errs if "MISMATCH" in e]
        assert self.corrupt.corrupted is not None, "no flit with messages to corrupt"
        assert len(errs) == 1 and len(mism) == 1, f"expected exactly one mismatch, got {errs}"
        assert f"item #{self.corrupt.corrupted} " in mism[0] and "expected:" in mism[0] \
            and "actual:" in mism[0], mism[0]
        self.logger.info(f"scoreboard detected the corrupted flit as required:\n{mism[0]}")
