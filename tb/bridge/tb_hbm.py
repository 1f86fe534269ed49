"""cocotb test of xb_hbm_ctrl on its own against models.bridge.HbmModel (cycle-exact).

Random bursts and idle gaps (so refreshes run both when idle and forced; one silent gap after the
first phase makes an idle refresh happen on every seed), a hot set of lines (the same line written
and read while in flight: per-line order), random lines over several rows (row
misses; bus gaps of a pseudo-channel reused ahead of a bank that waits). Every cycle the checker
compares: req_ready with the model's acceptance rule (a free slot and a free or leaving request
register), the scheduling report (iss_valid three cycles after the model's scheduling cycle, with the
access's line, kind and reserved completion cycle), each refresh (cycle, bank, forced), and each
completion (read data + tag in the reserved cycle, store of a write). Parameters come in XB_HBM
(JSON) so the test and the RTL agree.
"""
from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly

from models.bridge.hbm import HbmGeom, HbmModel, HbmTiming, RefEvent
from tb.common.clock import ClockReset
from tb.common.coverage import Covergroup, dump
from tb.common.seeds import announce_seed, named_rng

TAG_W = 8


@dataclass(frozen=True)
class HbmTbCfg:
    sets: int = 64
    npc: int = 2
    nbank: int = 4
    row_lines: int = 4
    inflight: int = 8
    postpone: int = 1
    idle: int = 8
    t_refi: int = 400
    t_rfc: int = 160
    cycles: int = 6000

    def timing(self) -> HbmTiming:
        t = HbmTiming.hbm3()
        return HbmTiming(t.tCL, t.tRCD, t.tRP, t.tRAS, t.tBURST, self.t_refi, self.t_rfc)

    def params(self) -> dict[str, int]:
        p = {"SETS": self.sets, "NPC": self.npc, "NBANK": self.nbank, "ROW_LINES": self.row_lines,
             "INFLIGHT": self.inflight, "REF_POSTPONE": self.postpone, "REF_IDLE": self.idle, "TAG_W": TAG_W}
        p.update(self.timing().params())
        return p

    @classmethod
    def from_env(cls) -> "HbmTbCfg":
        return cls(**json.loads(os.environ.get("XB_HBM", "{}")))


@dataclass
class Pending:
    seq: int
    issue: int
    we: bool
    idx: int
    data: int
    tag: int


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def hbm_random(dut: object) -> None:
    announce_seed()
    cfg = HbmTbCfg.from_env()
    rng: random.Random = named_rng("hbm_random")
    model = HbmModel(cfg.timing(), HbmGeom(cfg.npc, cfg.nbank, cfg.row_lines), cfg.postpone,
                     cfg.idle, inflight=cfg.inflight)
    cg = Covergroup("hbm")
    events = ["reorder", "bumped", "bus_gap_reused", "read_after_write_in_flight", "forced_refresh",
              "blocked_by_refresh", "slots_full", "waits_for_refreshing_bank", "same_pc_stall"]
    if cfg.postpone:                         # POSTPONE=0 refreshes at the timer: never idle, no rounds
        events += ["idle_refresh", "forced_round"]
    cg.coverpoint("event", bins=events)
    dut.req_valid.value = 0
    await ClockReset(dut.clk, dut.rst).start()
    hot = [rng.randrange(cfg.sets) for _ in range(4)]
    mem: dict[int, int] = {}
    pend: dict[int, Pending] = {}            # completion cycle -> access
    inflight_w: dict[int, int] = {}         # idx -> writes in flight
    max_raw: dict[int, int] = {}            # pc -> latest data time scheduled so far
    errors: list[str] = []
    cur: Pending | None = None
    seq = issued = reads_checked = 0
    last_done_seq = -1
    busy_left, p_req, phase = 0, 0.0, 0
    for _ in range(cfg.cycles):
        await FallingEdge(dut.clk)
        if busy_left <= 0:                   # next phase: a busy burst or an idle gap
            if phase == 1:
                # one silent gap after the first phase, long enough for every access in flight to
                # finish (a refresh-blocked miss takes up to about 250 cycles) and REF_IDLE idle
                # cycles to pass with refreshes owed: an idle refresh on every seed
                busy_left, p_req = rng.randint(500, 700), 0.0
            elif rng.random() < 0.5:
                busy_left, p_req = rng.randint(200, 900), rng.choice([0.6, 0.9, 1.0])
            else:
                busy_left, p_req = rng.randint(1, 400), 0.01
            phase += 1
        busy_left -= 1
        if cur is None and rng.random() < p_req:
            we = rng.random() < 0.5
            idx = rng.choice(hot) if rng.random() < 0.4 else rng.randrange(cfg.sets)
            cur = Pending(seq, 0, we, idx, rng.getrandbits(512), seq % (1 << TAG_W))
            seq += 1
        dut.req_valid.value = int(cur is not None)
        if cur is not None:
            dut.req_we.value = int(cur.we)
            dut.req_idx.value = cur.idx
            dut.req_data.value = cur.data
            dut.req_tag.value = cur.tag
        await ReadOnly()
        now = int(dut.now.value)
        nref = len(model.refreshes)
        exp_ready = model.ready(now)          # processes the cycles before now
        if int(dut.req_ready.value) != int(exp_ready):
            errors.append(f"cycle {now}: req_ready {int(dut.req_ready.value)}, model {int(exp_ready)}")
            break
        if cur is not None and not exp_ready:
            if model.pending and model.pending[0][0] < now:
                why = model._blocked(now, model.pending[0][1])
                if why is not None and "pseudo-channel" in why:
                    cg.sample(event="same_pc_stall")
                elif why is not None:
                    cg.sample(event="blocked_by_refresh")
            if sum(1 for d in model.slots if d is None or d >= now) >= cfg.inflight:
                cg.sample(event="slots_full")
        fire = int(cur is not None and int(dut.req_ready.value))
        if fire:
            assert cur is not None
            if not cur.we and inflight_w.get(cur.idx, 0):
                cg.sample(event="read_after_write_in_flight")
            if cur.we:
                inflight_w[cur.idx] = inflight_w.get(cur.idx, 0) + 1
            cur.issue = now
            model.accept(now, cur.idx, key=cur)
            issued += 1
            cur = None
        model.advance(now + 1)                # cycle now (a waiting access may be scheduled in it)
        # the scheduling report of the access scheduled three cycles ago
        exp_s = [x for x in model.scheduled if x.cycle == now - 3]
        if int(dut.iss_valid.value) != len(exp_s):
            errors.append(f"cycle {now}: iss_valid {int(dut.iss_valid.value)}, model schedules "
                          f"{[(x.idx, x.cycle) for x in exp_s]}")
            break
        for x in exp_s:
            a: Pending = x.key
            got = (int(dut.iss_done.value), int(dut.iss_idx.value), bool(int(dut.iss_we.value)))
            if got != (x.done, a.idx, a.we):
                errors.append(f"cycle {now}: (done, idx, we) {got}, model {(x.done, a.idx, a.we)}")
                break
            if x.done > x.raw:
                cg.sample(event="bumped")
            pc = a.idx % cfg.npc
            if x.raw < max_raw.get(pc, 0):
                cg.sample(event="bus_gap_reused")       # before a burst scheduled earlier on its pc
            max_raw[pc] = max(max_raw.get(pc, 0), x.raw)
            if x.raw - x.cycle > cfg.t_rfc:
                cg.sample(event="waits_for_refreshing_bank")
            pend[x.done] = a
        model.scheduled = [x for x in model.scheduled if x.cycle > now - 3]
        exp_ref = [r for r in model.refreshes[nref:] if r.cycle == now]
        got_ref = ([RefEvent(now, int(dut.ref_bank.value), bool(int(dut.ref_forced.value)))]
                   if int(dut.ref_valid.value) else [])
        if exp_ref != got_ref:
            errors.append(f"cycle {now}: refresh {got_ref}, model {exp_ref}")
        for r in exp_ref:
            if r.forced or cfg.postpone:
                cg.sample(event="forced_refresh" if r.forced else "idle_refresh")
            if r.forced and cfg.postpone and len(model.refreshes) > 1 and model.refreshes[-2] == \
                    RefEvent(now - 1, (r.bank - 1) % (cfg.npc * cfg.nbank), True):
                cg.sample(event="forced_round")
        # completion of this cycle
        a = pend.pop(now, None)
        rv = int(dut.rsp_valid.value)
        if a is None:
            if rv:
                errors.append(f"cycle {now}: unexpected read response")
        else:
            if a.seq < last_done_seq:
                cg.sample(event="reorder")
            last_done_seq = max(last_done_seq, a.seq)
            if a.we:
                if rv:
                    errors.append(f"cycle {now}: read response for a write")
                mem[a.idx] = a.data
                inflight_w[a.idx] -= 1
            elif not rv or int(dut.rsp_tag.value) != a.tag:
                errors.append(f"cycle {now}: read of idx {a.idx} (tag {a.tag}) missing or wrong tag")
            elif a.idx in mem:
                reads_checked += 1
                if int(dut.rsp_data.value) != mem[a.idx]:
                    errors.append(f"cycle {now}: read of idx {a.idx} returned stale data")
        if errors:
            break
    assert not errors, "\n".join(errors[:10])
    assert not [d for d in pend if d < now], "completions never seen"
    dut._log.info(f"{issued} accesses, {reads_checked} reads checked, {len(model.refreshes)} refreshes "
                  f"({sum(r.forced for r in model.refreshes)} forced)\n{cg.report()}")
    dump(cg, "hbm_random")
    cg.check()
