"""pyuvm tests of rtl/common/rr_arbiter.v.

Each requester is a VRAgent on bit i of `req` whose "ready" is grant[i] & advance (a FnBind), so a
requester holds req until it is granted with advance, exactly like a valid/ready source. A
cycle-accurate RRArbiterModel checks grant / grant_idx / any every cycle; fairness is measured as
the number of grants to others while a requester waits (must be <= N-1).
"""
from __future__ import annotations

import cocotb
import pyuvm
from pyuvm import uvm_test

from tb.common.checker import CycleChecker
from tb.common.clock import ClockReset
from tb.common.common_models import RRArbiterModel
from tb.common.coverage import CoverageCollector
from tb.common.patterns import Pattern
from tb.common.seeds import announce_seed, component_rng
from tb.common.signals import FnBind, SignalPool
from tb.common.vr_agent import ReadySink, VRAgent, VRBus


class ArbTestBase(uvm_test):
    n_per_req = 60
    enforce_cov = True

    def patterns(self) -> tuple[Pattern, Pattern]:
        """(per-requester idle pattern, advance pattern)"""
        rng = component_rng(self)
        return Pattern.random(0.4, rng), Pattern.random(0.7, rng)

    def build_phase(self) -> None:
        dut = cocotb.top
        self.n = len(dut.req)
        self.pool = SignalPool()
        idle, adv = self.patterns()
        adv_b = self.pool.bind(dut.advance)
        self.agents = []
        for i in range(self.n):
            g = self.pool.bind(dut.grant, index=i)
            ready = FnBind(lambda g=g: g.read() & adv_b.read(), f"grant[{i}]&advance")
            bus = VRBus(clk=dut.clk, valid=self.pool.bind(dut.req, index=i), ready=ready,
                        fields={}, rst=dut.rst)
            # Each requester gets its own copy of the idle pattern kind with its own stream.
            rng = component_rng(self)
            lane_idle = (Pattern.random(idle.p, rng) if idle.kind == "random" else
                         Pattern(kind=idle.kind, p=idle.p, seq=idle.seq, rng=rng))
            self.agents.append(VRAgent(f"req{i}", self, bus=bus, idle=lane_idle,
                                       check_hold=True))
        self.adv = ReadySink("adv", self, ready=adv_b, clk=dut.clk, pattern=adv)
        self.model = RRArbiterModel(self.n)
        self.wait_grants = [0] * self.n   # grants to others while i waits
        self.max_wait = 0
        self.grants = [0] * self.n
        self.order: list[int] = []
        self.prev_grant: int | None = None
        self.chk = CycleChecker("chk", self, clk=dut.clk, fn=self.check_cycle, rst=dut.rst)
        self.cov = CoverageCollector("cov", self, enforce=self.enforce_cov)

    def end_of_elaboration_phase(self) -> None:
        cg = self.cov.group("rr")
        cg.coverpoint("grant_idx", list(range(self.n)))
        cg.coverpoint("n_req", {"none": 0, "one": 1, "some": range(2, self.n) if self.n > 2 else 1,
                                "all": self.n})
        cg.coverpoint("event", ["advance", "hold", "wrap"])
        self.cg = cg

    def check_cycle(self) -> list[str]:
        dut = cocotb.top
        req = int(dut.req.value)
        adv = bool(int(dut.advance.value))
        errs = []
        w = self.model.winner(req)
        exp_grant = 0 if w is None else 1 << w
        if int(dut.grant.value) != exp_grant:
            errs.append(f"grant {int(dut.grant.value):#b} expected {exp_grant:#b} "
                        f"(req {req:#b}, ptr {self.model.ptr})")
        if int(dut.any.value) != int(req != 0):
            errs.append(f"any {int(dut.any.value)} expected {int(req != 0)}")
        if w is not None and int(dut.grant_idx.value) != w:
            errs.append(f"grant_idx {int(dut.grant_idx.value)} expected {w}")
        if w is not None:
            ev = "hold"
            if adv:
                ev = "wrap" if self.prev_grant is not None and w <= self.prev_grant else "advance"
                self.grants[w] += 1
                self.order.append(w)
                self.prev_grant = w
                self.wait_grants[w] = 0
                for i in range(self.n):
                    if i != w and req >> i & 1:
                        self.wait_grants[i] += 1
                        self.max_wait = max(self.max_wait, self.wait_grants[i])
            self.cg.sample(grant_idx=w, n_req=bin(req).count("1"), event=ev)
        else:
            self.cg.sample(n_req=0)
        self.model.step(req, adv)
        return errs

    async def run_phase(self) -> None:
        self.raise_objection()
        dut = cocotb.top
        announce_seed(self.logger)
        await ClockReset(dut.clk, dut.rst).start()
        tasks = [cocotb.start_soon(a.send([{}] * self.n_per_req)) for a in self.agents]
        for t in tasks:
            await t
        self.drop_objection()

    def check_phase(self) -> None:
        assert self.grants == [self.n_per_req] * self.n, f"grants per requester {self.grants}"
        assert self.max_wait <= self.n - 1, (
            f"unfair: a requester waited {self.max_wait} grants to others (> N-1 = {self.n - 1})")
        self.logger.info(f"fairness: max grants to others while waiting = {self.max_wait} "
                         f"(bound N-1 = {self.n - 1}); grants {self.grants}")


@pyuvm.test(timeout_time=200, timeout_unit="us")
class ArbRandom(ArbTestBase):
    """Random requests (held until granted) and random advance."""


@pyuvm.test(timeout_time=200, timeout_unit="us")
class ArbSaturated(ArbTestBase):
    """Everyone always requests, advance always: strict rotation 0,1,..,N-1 and equal shares."""

    enforce_cov = False

    def patterns(self) -> tuple[Pattern, Pattern]:
        return Pattern.always(), Pattern.always()

    def check_phase(self) -> None:
        super().check_phase()
        full = self.order[:self.n * (self.n_per_req - 1)]
        assert full == [i % self.n for i in range(len(full))], f"not round robin: {full[:3 * self.n]}"
