"""pyuvm tests of cxl_flit256_rx (environment: tb/link256/rx_env.py).

Every flit's outputs are compared with what the reference model (models/cxl/flit256.py, the
partner's role) gives for it: the messages per class (wire bits and data line; the RX delivers
runs, expanded by the environment), credits, acks, control kind, CRC and protocol verdict. ROLE,
PBR and MAXM are read from the DUT. Each test logs its seed (reproduce with SEED=<n>).

* RxModelFlits: flits of the model's packer (random mixes, multi-message slots, trailers, credits
  of all channels, ACK counts, NOP RETRY.Req/Ack), random idle cycles, some presented first
  without commit; coverage of the flit kinds, of 4+ messages of a class and of the flow.
* RxCrcSingleBit: every single-bit flip of the CRC-covered bytes 0..249 is detected; flips of the
  FEC bytes 250..255 change nothing.
* RxNegative: directed illegal flits (reserved / wrong-direction SlotFmt, 128B group limit incl.
  the cross-flit DA group, message 0 invalid, bad CRD codes, Empty / NOP with payload) and a
  rollover give proto_err.
* RxMutationFuzz: random bit flips in legal flits (CRC recomputed): the RTL's verdict and contents
  equal the model's.
* RxRunLanes: flits whose header slots all carry one class (random formats holding it, random
  prefixes and fields; for data classes chained data headers, up to rollover), so every run lane
  and every run size is driven: the RTL's verdict and contents equal the model's.
* RxScoreboardCatchesCorruption: expect-fail proof that a corrupted output is reported.
"""
from __future__ import annotations

import pyuvm
from pyuvm import uvm_sequence, uvm_sequencer

from models.cxl import flit256 as f2
from tb.link256.common import Corrupter, Link256TestBase
from tb.link256.rx_env import (RUN_W, RxCrcSeq, RxEnv, RxModelSeq, RxMutationSeq, RxNegativeSeq,
                               RxRunLanesSeq)


class RxTestBase(Link256TestBase):
    """The RX environment; flits are driven on the ``src`` agent."""

    env_cls = RxEnv

    def stimulus_sequencer(self) -> uvm_sequencer:
        return self.env.src.seqr

    def dut_params(self) -> str:
        return f"{super().dut_params()} MAXM={self.cfg.maxm}"

    def report_phase(self) -> None:
        self.logger.info(f"model verdicts: {dict(self.env.pred.stats)}")


@pyuvm.test(timeout_time=500, timeout_unit="us")
class RxModelFlits(RxTestBase):
    """Model-packed flits (HBR/PBR per build) decode to exactly the model's messages."""

    groups = ("kinds", "flow")

    def sequence(self) -> uvm_sequence:
        return RxModelSeq("model", self.cfg, self.rng, n=300)

    def check_phase(self) -> None:
        bad = {v: n for v, n in self.env.pred.stats.items() if v != "legal"}
        assert not bad, f"the model packer's flits are not all legal and supported: {bad}"


@pyuvm.test(timeout_time=500, timeout_unit="us")
class RxCrcSingleBit(RxTestBase):
    """Every single-bit flip in bytes 0..249 is caught by crc_ok (and nothing is delivered); FEC
    bytes are not covered."""

    idle = "none"

    def sequence(self) -> uvm_sequence:
        return RxCrcSeq("crc", self.cfg, self.rng)

    def check_phase(self) -> None:
        covered = 8 * f2.CRC_HI
        want = ["legal"] + ["crc_bad"] * covered + ["legal"] * (8 * f2.FLIT_BYTES - covered)
        assert self.env.pred.verdicts == want, \
            f"the model does not see every flip of bytes 0..{f2.CRC_HI - 1}: {self.env.pred.stats}"


@pyuvm.test(timeout_time=200, timeout_unit="us")
class RxNegative(RxTestBase):
    """Directed illegal flits give proto_err (and the model rejects them too)."""

    idle = "bursts"

    def sequence(self) -> uvm_sequence:
        return RxNegativeSeq("negative", self.cfg, self.rng)

    def check_phase(self) -> None:
        cases = self.seq.cases
        got = list(zip(self.env.pred.verdicts, self.env.pred.reasons))
        assert len(got) == len(cases), (len(got), len(cases))
        for (name, want), (verdict, reason) in zip(cases, got):
            assert verdict == want, f"'{name}': model verdict {verdict} ({reason}), meant {want}"
            self.logger.info(f"'{name}': {verdict} ({reason})")


@pyuvm.test(timeout_time=500, timeout_unit="us")
class RxMutationFuzz(RxTestBase):
    """Random bit flips in legal flits (CRC fixed up): RTL verdict == model verdict."""

    groups = ("verdict",)

    def sequence(self) -> uvm_sequence:
        return RxMutationSeq("mutants", self.cfg, self.rng, n=400)


@pyuvm.test(timeout_time=300, timeout_unit="us")
class RxRunLanes(RxTestBase):
    """Flits whose header slots all hold one class (every run lane, most flits over a limit): RTL
    verdict and contents == model."""

    groups = ("verdict",)

    def sequence(self) -> uvm_sequence:
        return RxRunLanesSeq("lanes", self.cfg, self.rng, n=25)


@pyuvm.test(timeout_time=200, timeout_unit="us")
class RxScoreboardCatchesCorruption(RxTestBase):
    """Expect-fail proof: in the first output from number 17 on that delivers a message, bit 1 of
    the first run's message is flipped on its way to the scoreboard (as an RX bug in one message
    field would look); the scoreboard must report exactly that flit. Passes only because the
    mismatch was detected."""

    corrupt_index = 17

    def sequence(self) -> uvm_sequence:
        return RxModelSeq("model", self.cfg, self.rng, n=40)

    @staticmethod
    def corrupt(p: dict[str, int]) -> dict[str, int] | None:
        rv = p["run_valid"]
        if not rv:
            return None
        lane = (rv & -rv).bit_length() - 1          # first valid run
        return {**p, "run_bits": p["run_bits"] ^ (1 << (lane * RUN_W + 1))}

    def end_of_elaboration_phase(self) -> None:
        env = self.env
        env.sb.enforce = False
        env.txn.ap.subscribers.remove(env.outs.export)
        self.corrupter = Corrupter("corrupt", self, env.outs.write, self.corrupt_index, self.corrupt)
        env.txn.ap.connect(self.corrupter.export)

    def check_phase(self) -> None:
        errs = self.env.sb.final_errors()
        mism = [e for e in errs if "MISMATCH" in e]
        assert self.corrupter.corrupted is not None, "no output with a message to corrupt"
        assert len(errs) == 1 and len(mism) == 1, f"expected exactly one mismatch, got {errs}"
        assert f"item #{self.corrupter.corrupted} " in mism[0] and "expected:" in mism[0] \
            and "actual:" in mism[0], mism[0]
        self.logger.info(f"scoreboard detected the corrupted output as required:\n{mism[0]}")
