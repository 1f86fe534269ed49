"""Simulator-free unit tests of tb/common (patterns, signal pool, coverage, scoreboards, models)."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tb.common.common_models import (CreditCounterModel, FifoMWModel, FifoModel,
                                     RRArbiterModel)
from tb.common.coverage import Covergroup, write_json
from tb.common.patterns import Pattern
from tb.common.scoreboard import (FunnelScoreboard, InOrderScoreboard,
                                  MatchWindowScoreboard)
from tb.common.signals import SignalPool


class FakeSignal:
    """Mimics a cocotb handle whose writes land only at the end of the timestep."""

    def __init__(self, width: int, value: int = 0) -> None:
        self.width = width
        self._value = value
        self._pending: int | None = None
        self._name = "fake"

    def __len__(self) -> int:
        return self.width

    @property
    def value(self) -> int:
        return self._value          # reads see the old value until commit()

    @value.setter
    def value(self, v: int) -> None:
        self._pending = v           # last write in a timestep wins

    def commit(self) -> None:
        if self._pending is not None:
            self._value = self._pending
            self._pending = None


def test_pool_lanes_survive_same_timestep_writes() -> None:
    sig = FakeSignal(6 * 8)
    pool = SignalPool()
    lanes = [pool.bind(sig, index=i, width=8) for i in range(6)]
    for i, b in enumerate(lanes):
        b.write(0x10 + i)           # all in one "timestep"
    sig.commit()
    assert [b.read() for b in lanes] == [0x10 + i for i in range(6)]
    lanes[2].write(0xFF)
    sig.commit()
    assert [b.read() for b in lanes] == [0x10, 0x11, 0xFF, 0x13, 0x14, 0x15]
    with pytest.raises(ValueError):
        lanes[0].write(0x100)
    with pytest.raises(ValueError):
        pool.bind(sig, index=6, width=8)


def test_pool_whole_and_bit_bindings() -> None:
    sig = FakeSignal(4, value=0b1010)
    pool = SignalPool()
    bit0, bit1 = pool.bind(sig, index=0), pool.bind(sig, index=1)
    whole = pool.bind(sig)
    assert (bit0.read(), bit1.read(), whole.width) == (0, 1, 4)
    bit0.write(1)
    sig.commit()
    assert sig.value == 0b1011 and whole.name == "fake"


def test_patterns() -> None:
    p = Pattern.bursts(2, 3)
    assert [p.next() for _ in range(10)] == [True, True, False, False, False] * 2
    assert not any(Pattern.never().next() for _ in range(10))
    assert all(Pattern.always().next() for _ in range(10))
    r1 = Pattern.random(0.3, random.Random(5))
    r2 = Pattern.random(0.3, random.Random(5))
    s1 = [r1.next() for _ in range(2000)]
    assert s1 == [r2.next() for _ in range(2000)]
    assert 0.25 < sum(s1) / len(s1) < 0.35
    rb = Pattern.random_bursts(4, 3, random.Random(1))
    seq = [rb.next() for _ in range(500)]
    runs: list[tuple[bool, int]] = []
    for v in seq:
        if runs and runs[-1][0] == v:
            runs[-1] = (v, runs[-1][1] + 1)
        else:
            runs.append((v, 1))
    assert seq[0] is True
    # off runs last 0..3 cycles (a 0-length gap merges two on runs)
    assert all(n <= 3 for v, n in runs[:-1] if not v) and any(not v for v, _ in runs)
    assert Pattern.from_spec("bursts:1:1", random.Random(0)).seq == (True, False)
    with pytest.raises(ValueError):
        Pattern.from_spec("bogus", random.Random(0))


def test_covergroup_bins_crosses_and_json(tmp_path: Path) -> None:
    cg = Covergroup("g")
    cg.coverpoint("lvl", {"zero": 0, "low": range(1, 4), "hi": (4, 7)})
    cg.coverpoint("op", ["rd", "wr"])
    cg.cross("x", ["lvl", "op"], ignore=lambda c: c == ("zero", "rd"))
    for lvl, op in [(0, "wr"), (2, "rd"), (2, "wr"), (5, "rd")]:
        cg.sample(lvl=lvl, op=op)
    assert cg.missed() == ["x.<hi,wr>"]
    assert 0 < cg.percent() < 100
    with pytest.raises(AssertionError, match="x.<hi,wr>"):
        cg.check()
    cg.sample(lvl=7, op="wr")
    cg.check()
    path = write_json([cg], tmp_path / "c.json")
    d = json.loads(path.read_text())[0]
    assert d["bins_hit"] == d["bins_total"] == 3 + 2 + 5 and d["missed"] == []
    with pytest.raises(KeyError):
        cg.sample(nope=1)


def test_inorder_scoreboard_reports_both_items() -> None:
    sb = InOrderScoreboard("sb_io", None)
    for v in (1, 2, 3):
        sb.write_expected({"d": v})
    sb.write_actual({"d": 1})
    sb.write_actual({"d": 7})
    assert sb.matched == 1 and len(sb.errors) == 1
    msg = sb.errors[0]
    assert "expected: {'d': 2}" in msg and "actual:   {'d': 7}" in msg and "xor 0x5" in msg
    errs = sb.final_errors()
    assert any("left unmatched" in e and "#2" in e for e in errs)


def test_match_window_scoreboard() -> None:
    sb = MatchWindowScoreboard("sb_mw", None, window=2)
    for v in range(5):
        sb.write_expected(v)
    for v in (1, 0, 3, 2, 4):       # swaps within the window
        sb.write_actual(v)
    assert sb.errors == [] and sb.matched == 5 and sb.final_errors() == []
    sb2 = MatchWindowScoreboard("sb_mw2", None, window=2)
    for v in range(6):
        sb2.write_expected(v)
    sb2.write_actual(4)             # beyond the window of 2
    assert any("matches none" in e for e in sb2.errors)
    sb3 = MatchWindowScoreboard("sb_mw3", None, window=2)
    for v in range(6):
        sb3.write_expected(v)
    for v in (1, 2, 3):             # 0 overtaken by three later items
        sb3.write_actual(v)
    assert any("overtaken" in e for e in sb3.errors)


def test_funnel_scoreboard() -> None:
    sb = FunnelScoreboard("sb_f", None, streams=["a", "b"])
    for v in ("a0", "a1"):
        sb.write_expected("a", v)
    for v in ("b0", "b1"):
        sb.write_expected("b", v)
    for v in ("b0", "a0", "a1", "b1"):
        sb.write_actual(v)
    assert sb.errors == [] and sb.matched == 4
    sb2 = FunnelScoreboard("sb_f2", None, streams=["a", "b"])
    for v in ("a0", "a1"):
        sb2.write_expected("a", v)
    sb2.write_expected("b", "b0")
    sb2.write_actual("a1")          # a1 before a0: order within a stream violated
    assert any("matches no stream head" in e for e in sb2.errors)


def test_models() -> None:
    f = FifoModel(2)
    assert f.step(True, 5, False) == (True, False) and f.step(True, 6, False) == (True, False)
    assert not f.in_ready and f.step(True, 7, True) == (False, True) and f.head == 6
    mw = FifoMWModel(depth=4, w=3)
    mw.step([1, None, 2], False)
    written, dropped, _ = mw.step([3, 4, 5], False)
    assert written == [3, 4] and dropped == 1 and mw.overflow and mw.free == 0
    assert list(mw.q) == [1, 2, 3, 4]
    rr = RRArbiterModel(3)
    assert [rr.step(0b111, True) for _ in range(4)] == [0, 1, 2, 0]
    assert rr.step(0b101, False) == 2 and rr.step(0b101, True) == 2 and rr.winner(0b101) == 0
    cc = CreditCounterModel(4, count=14)
    cc.step(5, True)
    assert cc.count == 15 and not cc.err
    cc = CreditCounterModel(4)
    cc.step(1, True)
    assert cc.err and cc.count == 1


def test_request_watchdog_bound_unanswered_and_stray() -> None:
    from tb.common.watchdog import RequestWatchdog

    wd = RequestWatchdog("wd", None, bound_cycles=10, enforce=False)
    wd.accepted(1, cycle=0)
    wd.accepted(2, cycle=1)
    wd.answered(1, cycle=5)                       # in time
    assert [k for k, _ in wd.overdue(now=20)] == [2]
    wd.answered(2, cycle=30)                      # late: an error naming the key and the latency
    wd.answered(3, cycle=31)                      # no such request
    wd.accepted(4, cycle=40)
    wd.accepted(4, cycle=41)                      # second outstanding with one key
    assert len(wd.errors) == 3, wd.errors
    assert "29 cycles > bound 10" in wd.errors[0] and "no outstanding" in wd.errors[1]
    assert wd.n_answered == 2 and wd.max_latency == 29
    with pytest.raises(AssertionError):           # still outstanding at the end fails when enforced
        wd.enforce = True
        wd.check_phase()
    ok = RequestWatchdog("ok", None, bound_cycles=10, multiple=True)
    ok.accepted("a", cycle=0)
    ok.accepted("a", cycle=1)
    ok.answered("a", cycle=2)
    ok.answered("a", cycle=3)
    ok.check_phase()                              # nothing outstanding, nothing late: passes


class _Sig:
    def __init__(self) -> None:
        self.value = 0


class _RegBlock:
    """A register block behind cfg_* (two selectable blocks of 16 registers) with the switch's
    handshake: a request is taken at a step with cfg_valid && cfg_ready, cfg_ready is low until its
    answer, which comes LAT cycles after the cycle that took it (cfg_rvalid for one step). Writes to
    odd addresses are rejected (resp 2), address 15 never answers; `hold` keeps cfg_ready low for
    that many steps."""

    LAT = 3

    def __init__(self) -> None:
        for n in ("valid", "ready", "write", "addr", "wdata", "rvalid", "resp", "rdata", "sel"):
            setattr(self, "cfg_" + n, _Sig())
        self.cfg_ready.value = 1
        self.mem = [[0] * 16, [0] * 16]
        self.hold = 0
        self.busy = 0
        self.req: tuple[int, int, int, int] | None = None
        self.taken = 0

    async def step(self) -> None:
        self.cfg_rvalid.value = 0
        if self.cfg_valid.value and self.cfg_ready.value:
            self.req = (self.cfg_sel.value, self.cfg_addr.value, self.cfg_write.value, self.cfg_wdata.value)
            self.busy = self.LAT - 1                           # answered in cycle c + LAT
            self.taken += 1
        elif self.busy:
            self.busy -= 1
            if self.busy == 0 and self.req is not None and self.req[1] != 15:
                sel, a, write, wdata = self.req
                blk = self.mem[sel]
                self.cfg_rvalid.value = 1
                self.cfg_resp.value = 2 if write and a % 2 else 0
                self.cfg_rdata.value = blk[a]                   # the value before the write
                if write and not a % 2:
                    blk[a] = wdata
        if self.hold:
            self.hold -= 1
        self.cfg_ready.value = int(self.busy == 0 and self.hold == 0)


def test_cfg_agent_program_read_and_errors() -> None:
    import asyncio

    from tb.common.cfg_agent import CfgAccessError, CfgAgent
    dut = _RegBlock()
    agent = CfgAgent(dut, resp_ok=0, sel="sel", step=dut.step, max_wait=8)

    async def run() -> None:
        await agent.program([(0, 5), (2, 7)], sel=1)
        assert dut.mem[1][:3] == [5, 0, 7] and dut.mem[0][:3] == [0, 0, 0]
        assert agent.last_latency == _RegBlock.LAT
        assert await agent.read_block(0, ["a", "b", "c"], sel=1) == {"a": 5, "b": 0, "c": 7}
        with pytest.raises(CfgAccessError, match="rejected"):
            await agent.program([(4, 1), (3, 1), (6, 1)])
        assert dut.mem[0][4] == 1 and dut.mem[0][6] == 0          # stops at the first rejected write
        # a request is held until cfg_ready takes it, and taken once
        dut.cfg_ready.value, dut.hold, n = 0, 3, dut.taken
        assert await agent.access(2, write=False, sel=1) == (0, 7) and dut.taken == n + 1
        with pytest.raises(CfgAccessError, match="no response"):
            await agent.access(15, write=False)
        assert dut.cfg_valid.value == 0                          # the request is withdrawn either way
        dut.cfg_ready.value, dut.hold = 0, 100                   # never taken: bounded wait
        with pytest.raises(CfgAccessError, match="not taken"):
            await agent.access(2, write=False)
        assert dut.cfg_valid.value == 0
    asyncio.run(run())
    with pytest.raises(ValueError):
        CfgAgent(object(), resp_ok=0)                            # no clock and no step
