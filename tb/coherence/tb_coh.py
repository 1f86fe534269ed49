"""cocotb/pyuvm tests of the home coherence agent (top: coh_home_agent).

Every test prints its seed (announce_seed); SEED=<n> reproduces a run. Knobs (env):
COH_STRESS_CYCLES (random stress length, default 2500), SOAK=1 (x8 longer stress).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import cocotb
import pyuvm
from pyuvm import ConfigDB, uvm_test

from models.coherence.msgs import CD2HData, CD2HReq, CD2HRsp, CS2MDRS, CS2MNDR
from models.coherence.protocol import LineState
from models.cxl.messages import D2HReqOp, D2HRspOp, H2DReq, S2MDRSOp, S2MNDROp
from tb.common.clock import ClockReset
from tb.common.patterns import Pattern
from tb.common.seeds import announce_seed
from tb.common.signals import lane_int
from tb.coherence.coh_env import I_OPS, CohCfg, CohEnv

Op = D2HReqOp
SOAK = os.environ.get("SOAK", "") not in ("", "0")


def _n() -> int:
    return len(cocotb.top.d2h_req_valid)


class CohBaseTest(uvm_test):
    """Builds the env from `make_cfg()`; subclasses implement `body()`."""

    cov_groups: tuple[str, ...] = ()
    cov_events: tuple[str, ...] = ()

    def make_cfg(self) -> CohCfg:
        return CohCfg(n=_n())

    def build_phase(self) -> None:
        self.cfg = self.make_cfg()
        ConfigDB().set(None, "*", "coh_cfg", self.cfg)
        ConfigDB().set(None, "*", "coh_cov", self.cov_groups)
        ConfigDB().set(None, "*", "coh_cov_events", self.cov_events)
        self.env = CohEnv("env", self)

    async def run_phase(self) -> None:
        self.raise_objection()
        dut = cocotb.top
        announce_seed(self.logger)
        await ClockReset(dut.clk, dut.rst).start()
        self.env.start()
        await self.body()
        ok = await self.env.wait_idle(20000)
        assert ok, f"not quiescent: {[d.dc.txns for d in self.env.devs]} sb {self.env.sb.pred.reqs}"
        await self.env.cycles(4)
        self.env.sb.rtl_errors = self.env.read_errors()
        pred = self.env.sb.pred
        self.logger.info(f"completed {pred.completed} requests, stats {dict(sorted(pred.stats.items()))}")
        self.logger.info(f"RTL error counters {self.env.sb.rtl_errors}, pulses {self.env.err_pulses}")
        # err_pulse has one bit per kind and cycle: at most one pulse per counted event
        for k, c in self.env.sb.rtl_errors.items():
            p = self.env.err_pulses[k]
            assert p <= c and (p > 0) == (c > 0), f"err_pulse[{k}] seen {p} times, counter {c}"
        self.final_checks()
        self.drop_objection()

    async def body(self) -> None:
        raise NotImplementedError

    def final_checks(self) -> None:
        pass


# ---------------------------------------------------------------------- directed flows
def scenarios(op: int) -> list[tuple[str, list[tuple], int]]:
    """(name, setup steps, choices) for a request by dev0 on a fresh line. Steps: (dev, op) | ("store",
    dev) | ("drop", dev). `choices` = how many snoop-answer choices to iterate for the snooped owner."""
    sh = [(1, Op.RDSHARED), (2, Op.RDSHARED)]
    if op in I_OPS:
        return [("I", [], 1), ("S", sh, 1), ("S_drop", sh + [("drop", 1)], 1),
                ("E", [(1, Op.RDOWN)], 3), ("M", [(1, Op.RDOWN), ("store", 1)], 3),
                ("E_drop", [(1, Op.RDOWN), ("drop", 1)], 1)]
    if op in (Op.CLEANEVICT, Op.CLEANEVICTNODATA):
        return [("S_self", [(0, Op.RDSHARED)], 1), ("S_self_other", [(0, Op.RDSHARED), (1, Op.RDSHARED)], 1),
                ("E_self", [(0, Op.RDOWN)], 1)]
    if op == Op.DIRTYEVICT:
        return [("M_self", [(0, Op.RDOWN), ("store", 0)], 1)]
    return []


class CohDirectedFlowsTest(CohBaseTest):
    """Every request type from every directory state it can meet (I, S, S with a dropped sharer,
    E clean, M dirty, E dropped, the requester's own S/E/M, non-coherent), every snoop answer the
    owner may give; functional coverage (dir state x request x snoop answer) fails on holes."""

    cov_groups = ("flows",)

    async def run_flow(self, line: int, setup: list[tuple], op: int, choice: int) -> None:
        env = self.env
        for d in env.devs:
            d.snoop_choice = None
        for st in setup:
            if st[0] == "store":
                env.devs[st[1]].store(line)
            elif st[0] == "drop":
                env.devs[st[1]].drop(line)
            else:
                env.devs[st[0]].issue(st[1], line)
                assert await env.wait_idle(2000, settle=2), f"setup {st} of line {line:#x} hung"
        for d in env.devs:
            d.snoop_choice = lambda m, n, c=choice: c % n
        env.devs[0].issue(op, line)
        assert await env.wait_idle(2000, settle=2), f"{Op(op).name} on line {line:#x} hung"

    async def body(self) -> None:
        line = 0x100
        flows = 0
        for op in sorted(I_OPS) + [Op.RDOWN, Op.RDOWNNODATA, Op.CLEANEVICT, Op.CLEANEVICTNODATA,
                                   Op.DIRTYEVICT]:
            for name, setup, nch in scenarios(op):
                for c in range(nch):
                    await self.run_flow(line, setup, op, c)
                    line += 1
                    flows += 1
        # upgrades from S (the requester holds S, alone or with another sharer)
        for op in (Op.RDOWN, Op.RDOWNNODATA):
            for setup in ([(0, Op.RDSHARED)], [(0, Op.RDSHARED), (1, Op.RDSHARED)]):
                await self.run_flow(line, setup, op, 0)
                line += 1
                flows += 1
        # GO before data: dev0's RdShared gets its GO while its data is held back; dev1's RdOwn then
        # snoops dev0, which must hold the snoop until the data arrived (model device rule)
        d0, d1 = self.env.devs[0], self.env.devs[1]
        d0.rdy_dat = Pattern.never()
        held0 = d0.held
        d0.issue(Op.RDSHARED, line)
        await self.env.cycles(12)
        d1.issue(Op.RDOWN, line)
        await self.env.cycles(12)
        d0.rdy_dat = Pattern.always()
        assert await self.env.wait_idle(500, settle=2)
        assert d0.held > held0, "the snoop was not held behind the in-flight data"
        assert d1.dc.state(line) == LineState.E and d0.dc.state(line) == LineState.I
        line += 1
        flows += 1
        # selective coherence: requests to a non-coherent line go straight to memory
        for op in (Op.RDCURR, Op.RDSHARED, Op.ITOMWR, Op.WRCUR, Op.WRINV, Op.CLFLUSH):
            await self.run_flow(self.cfg.nc_base + flows, [], op, 0)
            flows += 1
        self.logger.info(f"{flows} directed flows")


# ---------------------------------------------------------------------- random stress
def _stress_cycles(default: int) -> int:
    n = int(os.environ.get("COH_STRESS_CYCLES", default))
    return n * 8 if SOAK else n


class CohRandomStressTest(CohBaseTest):
    """Few lines, every device issuing random legal requests, stores, silent drops and loads, with
    idle cycles, back-pressure on every channel, slow snoop answers and random memory latency."""

    cov_groups = ("events",)
    cov_events = ("conflict_wait",)
    n_lines = 3
    cycles = 2500

    def make_cfg(self) -> CohCfg:
        n_lines = int(os.environ.get("COH_CAP_LINES", self.n_lines)) if isinstance(self, CohCapacityTest) \
            else self.n_lines
        lines = tuple(0x40 + i for i in range(n_lines)) + ((1 << 40) + 1,)
        return CohCfg(n=_n(), lines=lines, traffic=True, p_issue=0.2, d2h_idle="random:0.7",
                      h2d_ready="random:0.75", snoop_delay=(0, 4), mem_lat=(1, 8), mem_ready="random:0.8",
                      s2m_idle="random:0.8")

    async def body(self) -> None:
        await self.env.cycles(_stress_cycles(self.cycles))
        for d in self.env.devs:
            d.traffic = False
        self.logger.info(f"issued {sum(d.n_issued for d in self.env.devs)} requests")

    def final_checks(self) -> None:
        pred = self.env.sb.pred
        assert pred.completed > 50, f"only {pred.completed} requests completed"
        assert pred.stats.get("snoops", 0) > 20, pred.stats
        held = sum(d.held for d in self.env.devs)
        self.logger.info(f"snoops held by devices (GO before data) for {held} cycles")
        for name, count in (("conflict_wait", pred.stats.get("conflict_wait", 0)), ("snoop_held", held),
                            ("back_invalidation", pred.stats.get("back_invalidations", 0)),
                            ("dirty_binv", pred.stats.get("dirty_binv", 0))):
            for _ in range(min(count, 1)):
                self.env.cov.sample_event(name)


class CohCapacityTest(CohRandomStressTest):
    """Directory capacity pressure: many more lines than snoop-filter ways, so requests wait for
    back-invalidations (SnpInv to the victim's holders, dirty data written back). COH_CAP_LINES
    changes the number of lines (e.g. on a 2-set build for a fuller set)."""

    n_lines = 40
    cycles = 2500
    cov_events = ("conflict_wait", "back_invalidation", "dirty_binv")

    def final_checks(self) -> None:
        super().final_checks()
        assert self.env.sb.pred.stats.get("back_invalidations", 0) > 5, self.env.sb.pred.stats


# ---------------------------------------------------------------------- error injection
class CohErrorInjectionTest(CohBaseTest):
    """Illegal opcode, unsolicited response/data, wrong UQID, illegal snoop answer and unsolicited
    memory completions: each is flagged on err_pulse and counted (compared with the model's
    classification), and the agent keeps serving (the flows around them complete)."""

    cov_groups = ("errors",)

    async def body(self) -> None:
        env = self.env
        d0, d1, d2 = env.devs[0], env.devs[1], env.devs[2]
        line = 0x200
        # illegal opcodes (WOWrInv, CacheFlushed and an unassigned code)
        for op in (Op.WOWRINV, Op.CACHEFLUSHED, 0x1F):
            d0.inject(CD2HReq(0, int(op), 30, line))
        # unsolicited response / data (UQIDs outside anything outstanding)
        d1.inject(CD2HRsp(1, int(D2HRspOp.RSPIHITI), 0x7FF))
        d2.inject(CD2HData(2, 0x7FE, 0xDEAD))
        d2.inject(CD2HData(2, 0xFFF, 0xBEEF))
        # unsolicited memory answers
        env.mem.ndr.push(CS2MNDR(int(S2MNDROp.CMP), 0xFFFF))
        env.mem.drs.push(CS2MDRS(int(S2MDRSOp.MEMDATA), 0xFFF0, 0x1234))
        assert await env.wait_idle(500, settle=2)
        # a snoop held by dev1 while others answer for it
        d1.issue(Op.RDSHARED, line)
        assert await env.wait_idle(500, settle=2)
        d1.hold_snoops = True
        d0.issue(Op.RDOWN, line)
        uq = None
        dut = cocotb.top
        for _ in range(100):
            await env.cycles(1)
            if int(dut.h2d_req_valid.value) >> 1 & 1:
                hdr = lane_int(dut.h2d_req_hdr.value, 1, 128)
                uq = H2DReq.from_canonical(hdr).uqid
                break
        assert uq is not None, "snoop to dev1 never presented"
        # dev1 takes the snoop now but answers late; meanwhile bad answers for its UQID arrive
        d1.snoop_delay = (40, 40)
        d1.hold_snoops = False
        await env.cycles(3)
        d2.inject(CD2HRsp(2, int(D2HRspOp.RSPIHITI), uq))  # wrong UQID (belongs to dev1)
        d2.inject(CD2HData(2, uq, 0x5555))  # wrong UQID
        await env.cycles(6)
        d1.inject(CD2HRsp(1, int(D2HRspOp.RSPSHITSE), uq))  # not legal for SnpInv
        await env.cycles(6)
        # other lines keep being served while the snoop is pending
        d2.issue(Op.RDOWN, line + 1)
        d3 = env.devs[3]
        d3.issue(Op.RDSHARED, line + 2)
        assert await env.wait_idle(1000, settle=2)
        d1.snoop_delay = (0, 0)
        assert d0.dc.state(line) in (LineState.E, LineState.M)
        assert d2.dc.state(line + 1) in (LineState.E, LineState.M)
        # after all that, normal service continues on the same line
        d1.issue(Op.RDSHARED, line)
        assert await env.wait_idle(1000, settle=2)
        assert d1.dc.state(line) == LineState.S

    def final_checks(self) -> None:
        errs = self.env.sb.rtl_errors
        want = {"illegal_opcode": 3, "unsolicited_rsp": 1, "unsolicited_data": 2, "wrong_uqid": 2,
                "illegal_rsp": 1, "unsolicited_mem": 2}
        assert errs == want, f"RTL error counters {errs}, injected {want}"


# ---------------------------------------------------------------------- benchmark figures
class CohBenchTest(CohBaseTest):
    """Measures the issue's figures (written to COH_BENCH_OUT as JSON): GO latency without snoops,
    GO latency with one sharer to invalidate (minus the device's answer time), and requests per
    cycle for non-conflicting lines."""

    def make_cfg(self) -> CohCfg:
        return CohCfg(n=_n(), n_cqid=16, mem_lat=(4, 4))

    async def body(self) -> None:
        env = self.env
        pred = env.sb.pred
        d0, d1 = env.devs[0], env.devs[1]
        # 1) hit: RdOwnNoData (GO-E), RdShared (GO-S, sent before the memory data) and
        # CleanEvictNoData (GO-I) on lines nobody else holds -> GO without snoops
        for i in range(8):
            for op in (Op.RDOWNNODATA, Op.DIRTYEVICT, Op.RDSHARED, Op.CLEANEVICTNODATA):
                d0.issue(op, 0x300 + i)
                assert await env.wait_idle(500, settle=2)
        hit = list(pred.latencies.get("go_hit", []))
        # 2) one sharer to invalidate: dev1 holds S, dev0 asks RdOwnNoData
        pred.latencies.clear()
        d1.answer_cycles.clear()
        for i in range(8):
            d1.issue(Op.RDSHARED, 0x400 + i)
            assert await env.wait_idle(500, settle=2)
            d0.issue(Op.RDOWNNODATA, 0x400 + i)
            assert await env.wait_idle(500, settle=2)
        snp = list(pred.latencies.get("go_snoop", []))
        answer = list(d1.answer_cycles)
        # 3) throughput: every device streams RdCurr to its own lines (no conflicts, no snoops)
        pred.arrival_times.clear()
        per_dev = 48
        left = [per_dev] * len(env.devs)
        while any(left):
            for p, d in enumerate(env.devs):
                if left[p] and d.dc.can_issue(0x1000 + p * 0x100 + left[p]):
                    d.issue(Op.RDCURR, 0x1000 + p * 0x100 + left[p])
                    left[p] -= 1
            await env.cycles(1)
        assert await env.wait_idle(5000, settle=2)
        ts = sorted(pred.arrival_times)
        rate = (len(ts) - 1) / (ts[-1] - ts[0])
        res = {
            "coherence.hit_go_latency_cycles": sum(hit) / len(hit),
            "coherence.snoop_go_latency_cycles": (sum(snp) - sum(answer)) / len(snp),
            "coherence.device_answer_cycles": sum(answer) / len(answer),
            "coherence.requests_per_cycle": rate,
        }
        self.logger.info(f"bench: {res}")
        out = os.environ.get("COH_BENCH_OUT")
        if out:
            Path(out).write_text(json.dumps(res, indent=1) + "\n")


for _cls in (CohDirectedFlowsTest, CohRandomStressTest, CohCapacityTest, CohErrorInjectionTest, CohBenchTest):
    pyuvm.test(timeout_time=2_000_000 if SOAK else 400_000, timeout_unit="ns")(_cls)
