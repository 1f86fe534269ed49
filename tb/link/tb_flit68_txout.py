"""pyuvm tests of rtl/link/cxl_flit68_txout (68B flit output builder) on its own: a driver applies
random cycles (every control-flit kind, prepared protocol and all-data flits, LLCRD and idle
cycles, credit and ack counts aimed at every credit-field code, fire low on about a third of the
cycles) and a per-cycle checker compares the whole flit image and every flag with TxOutRef
(tb/link/txout_ref.py, built on models/cxl/flit68's control-flit and credit encoders); plus the
expect-fail proofs that the check catches a reference with Ak at 9 acks and one whose credit round
robin never moves.
"""
from __future__ import annotations

import random

import cocotb
import pyuvm
from cocotb.triggers import FallingEdge
from pyuvm import uvm_test

from models.cxl import flit68 as f68
from tb.common.checker import CycleChecker
from tb.common.clock import ClockReset
from tb.common.coverage import CoverageCollector
from tb.common.seeds import announce_seed, component_rng
from tb.link.txout_ref import CTL_KINDS, FIELD_NAMES, K_NONE, TxOutIn, TxOutOut, TxOutRef

# pending-credit counts: 0, each code's lower edge and one below the next, and above 64
CRD_EDGES = (0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 65, 200, 255)


def _code_bin(n: int) -> str:
    return f"c{f68.credit_chunk(min(n, 64))}"


class TxOutTestBase(uvm_test):
    n_cycles = 6000
    enforce_cov = True
    enforce_chk = True

    def make_ref(self) -> TxOutRef:
        return TxOutRef()

    def build_phase(self) -> None:
        dut = cocotb.top
        self.ref = self.make_ref()
        self.inp = TxOutIn()
        self.chk = CycleChecker("chk", self, clk=dut.clk, fn=self.check_cycle, rst=dut.rst,
                                enforce=self.enforce_chk)
        self.cov = CoverageCollector("cov", self, enforce=self.enforce_cov)

    def end_of_elaboration_phase(self) -> None:
        cg = self.cov.group("txout")
        kinds = ["idle", "frame", "req", "ack", "init", "protocol", "adf", "llcrd", "idle_none", "zero"]
        cg.coverpoint("kind", {k: k for k in kinds})
        cg.coverpoint("fire", {"held": False, "taken": True})
        cg.cross("kind_x_fire", ["kind", "fire"])
        cg.coverpoint("ak", {"no_ak": False, "ak": True})
        cg.coverpoint("crd_en", {"off": False, "on": True})
        cg.coverpoint("ack_en", {"off": False, "on": True})
        # every credit-field value for both class choices, per field
        codes = {f"c{v}": f"c{v}" for v in f68.CREDIT_VALUES}
        for name in FIELD_NAMES:
            cg.coverpoint(f"{name}_class", {"cache": "cache", "mem": "mem"})
            cg.coverpoint(f"{name}_code", codes)
            cg.cross(f"{name}_class_x_code", [f"{name}_class", f"{name}_code"],
                     ignore=lambda c: c[0] == "mem" and c[1] == "c0")
            # both classes pending: the round robin decides, each way
            cg.coverpoint(f"{name}_rr", {"both_cache": "cache", "both_mem": "mem"})
        self.cg = cg

    # ------------------------------------------------------------------ stimulus
    def rand_counts(self, rng: random.Random) -> tuple[int, ...]:
        out = []
        for _ in range(6):
            r = rng.random()
            out.append(0 if r < 0.35 else rng.choice(CRD_EDGES) if r < 0.85 else rng.randint(0, 255))
        return tuple(out)

    def rand_input(self, rng: random.Random) -> TxOutIn:
        i = TxOutIn()
        r = rng.random()
        if r < 0.6:
            i.ctl_kind = K_NONE
        elif r < 0.97:
            i.ctl_kind = rng.choice([k for k in CTL_KINDS.values() if k != K_NONE])
        else:
            i.ctl_kind = rng.choice((6, 7))          # undefined kinds
        i.pk_send = rng.random() < 0.5
        i.pk_adf = rng.random() < 0.25
        i.pk_flit = rng.getrandbits(f68.FLIT_BITS)
        if not i.pk_adf:
            # a prepared protocol flit arrives with its credit fields and Ak zero
            i.pk_flit &= ~((0xFFF << f68.HDR_RSPCRD) | (1 << f68.HDR_AK))
        i.crd_pend = self.rand_counts(rng) if rng.random() < 0.8 else (0,) * 6
        i.crd_en = rng.random() < 0.7
        r = rng.random()
        i.ack_pend = 0 if r < 0.3 else rng.choice((1, 7, 8, 9, 255)) if r < 0.6 else rng.randint(0, 255)
        i.ack_en = rng.random() < 0.5
        i.ctl_eseq = rng.getrandbits(8)
        i.ctl_num_retry = rng.getrandbits(5)
        i.ctl_empty = rng.random() < 0.5
        i.fire = rng.random() < 0.7
        return i

    def drive(self, i: TxOutIn) -> None:
        dut = cocotb.top
        dut.ctl_kind.value = i.ctl_kind
        dut.pk_send.value = int(i.pk_send)
        dut.pk_flit.value = i.pk_flit
        dut.pk_adf.value = int(i.pk_adf)
        dut.crd_pend.value = sum(c << (8 * k) for k, c in enumerate(i.crd_pend))
        dut.crd_en.value = int(i.crd_en)
        dut.ack_pend.value = i.ack_pend
        dut.ack_en.value = int(i.ack_en)
        dut.ctl_eseq.value = i.ctl_eseq
        dut.ctl_num_retry.value = i.ctl_num_retry
        dut.ctl_empty.value = int(i.ctl_empty)
        dut.fire.value = int(i.fire)
        self.inp = i

    # ------------------------------------------------------------------ check
    def check_cycle(self) -> list[str]:
        dut = cocotb.top
        i = self.inp
        exp = self.ref.build(i)
        got = TxOutOut(flit=int(dut.flit.value), retryable=bool(int(dut.flit_retryable.value)),
                       crd_mem=int(dut.crd_mem.value), crd_used=bool(int(dut.crd_used.value)),
                       ack_all=bool(int(dut.ack_all.value)), ack_8=bool(int(dut.ack_8.value)))
        errs = []
        if got.flit != exp.flit:
            diff = got.flit ^ exp.flit
            errs.append(f"{exp.kind}: flit differs in bits {[b for b in range(528) if diff >> b & 1][:12]} "
                        f"(got [95:0] {got.flit & ((1 << 96) - 1):#x}, expected {exp.flit & ((1 << 96) - 1):#x})")
        for name in ("retryable", "crd_mem", "crd_used", "ack_all", "ack_8"):
            if getattr(got, name) != getattr(exp, name):
                errs.append(f"{exp.kind}: {name} {getattr(got, name)} expected {getattr(exp, name)}")
        self.sample(i, exp)
        self.ref.step(i, exp)
        return errs

    def sample(self, i: TxOutIn, o: TxOutOut) -> None:
        kw: dict = {"kind": o.kind, "fire": i.fire, "crd_en": i.crd_en, "ack_en": i.ack_en}
        if o.kind == "protocol":
            kw["ak"] = o.ack_8
        self.cg.sample(**kw)
        if o.kind not in ("protocol", "llcrd") or not i.crd_en:
            return
        for fi, name in enumerate(FIELD_NAMES):
            c_cache, c_mem = f68.CRD_FIELD_CLASSES[name]
            pc, pm = i.crd_pend[c_cache], i.crd_pend[c_mem]
            mem = bool(o.crd_mem >> fi & 1)
            fk = {f"{name}_class": "mem" if mem else "cache", f"{name}_code": _code_bin(pm if mem else pc)}
            if pc and pm:
                fk[f"{name}_rr"] = "mem" if mem else "cache"
            self.cg.sample(**fk)

    # ------------------------------------------------------------------ run
    async def run_phase(self) -> None:
        self.raise_objection()
        dut = cocotb.top
        announce_seed(self.logger)
        self.drive(TxOutIn())
        await ClockReset(dut.clk, dut.rst).start()
        self.ref.reset()
        rng = component_rng(self)
        for _ in range(self.n_cycles):
            self.drive(self.rand_input(rng))
            await FallingEdge(dut.clk)
        self.drive(TxOutIn())
        await FallingEdge(dut.clk)
        self.drop_objection()


@pyuvm.test(timeout_time=200, timeout_unit="us")
class TxOutRandom(TxOutTestBase):
    """Every flit kind, with and without fire; the whole 528-bit flit and every flag equal to the
    reference each cycle; every credit value per field for cache and mem, the round robin both
    ways with both classes pending, Ak set and clear."""


@pyuvm.test(timeout_time=100, timeout_unit="us")
class TxOutReset(TxOutTestBase):
    """Directed: reset clears the credit round robin (a field with both classes pending returns
    cache first after reset, then mem once that flit was taken)."""

    enforce_cov = False

    async def run_phase(self) -> None:
        self.raise_objection()
        dut = cocotb.top
        announce_seed(self.logger)
        both = TxOutIn(crd_pend=(4, 4, 4, 4, 4, 4), crd_en=True, fire=True)
        self.drive(TxOutIn())
        await ClockReset(dut.clk, dut.rst).start()
        self.ref.reset()
        self.drive(both)                               # LLCRD with all three fields: cache
        await FallingEdge(dut.clk)
        assert int(dut.crd_mem.value) == 0b111, f"after one LLCRD crd_mem is {int(dut.crd_mem.value):03b}"
        dut.rst.value = 1
        self.drive(TxOutIn())
        await FallingEdge(dut.clk)
        dut.rst.value = 0
        self.ref.reset()
        self.drive(both)
        await FallingEdge(dut.clk)
        self.drive(TxOutIn())
        await FallingEdge(dut.clk)
        self.drop_objection()


class _AkAt9(TxOutRef):
    def __init__(self) -> None:
        super().__init__(ak_threshold=9)


class _RrStuck(TxOutRef):
    def step(self, i: TxOutIn, o: TxOutOut) -> None:
        return


class _CaughtBase(TxOutTestBase):
    """Expect-fail proof against a wrong reference (`wrong`, what it gets wrong in `what`): the
    checker must report mismatches; the test passes because they were caught."""

    enforce_cov = False
    enforce_chk = False
    n_cycles = 3000
    wrong: type[TxOutRef] = TxOutRef
    what = ""

    def make_ref(self) -> TxOutRef:
        return self.wrong()

    def check_phase(self) -> None:
        assert self.chk.errors, f"a reference with {self.what} matched the RTL on every cycle"
        self.logger.info(f"checker caught {self.what} ({len(self.chk.errors)} errors)")


@pyuvm.test(timeout_time=200, timeout_unit="us")
class TxOutAkThresholdCaught(_CaughtBase):
    """Expect-fail proof: a reference that sets Ak only at 9 acks must be reported (protocol
    flits with exactly 8 acks pending)."""

    wrong = _AkAt9
    what = "Ak at 9 acks"


@pyuvm.test(timeout_time=200, timeout_unit="us")
class TxOutStuckRoundRobinCaught(_CaughtBase):
    """Expect-fail proof: a reference whose credit round robin never moves must be reported (the
    RTL alternates)."""

    wrong = _RrStuck
    what = "a credit round robin that never moves"
