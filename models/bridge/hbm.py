"""HBM3-like timing model of the bridge's buffer memory (reference for rtl/bridge/xb_hbm_ctrl.v).

Parameters. targets.md section 5 (JEDEC HBM3 / Ramulator2 JESD238 preset): tCK 0.625 ns, tCL 12.5 ns,
tRCD 19.4 ns, tRP 16.25 ns, tRAS 28.1 ns, tRC 45 ns; 16 channels x 2 pseudo-channels of 32 DQ at
6.4 Gb/s. targets.md has no refresh numbers: tREFI 3.9 us and the single-bank refresh time tRFCsb
160 ns are the values of the Ramulator2 HBM3 timing preset (CMU-SAFARI/ramulator2,
src/dram/impl/HBM3.cpp, preset "HBM3_2Gbps": nREFI 3900, nRFCSB 160 at tCK 1 ns). All are
converted to cycles of the 1 GHz core clock by rounding up (never tuned); tRC is not a separate
constraint here: tRAS + tRP = 46 cycles >= 45 ns.

Semantics (the RTL implements exactly this; timestamps are core cycles):
* address map of a buffer line index i: pc = i % NPC, bank = (i / NPC) % NBANK,
  column = (i / (NPC*NBANK)) % ROW_LINES, row = i / (NPC*NBANK*ROW_LINES); open-page policy.
  bank number = bank * NPC + pc = i % (NPC*NBANK) (the low index bits).
* acceptance and scheduling. At most one access is accepted per cycle; it needs a free slot (at
  most INFLIGHT accesses are accepted and not completed: an access holds its slot from the cycle
  after its acceptance up to and including its completion cycle) and a free request register,
  which holds one accepted access until it is scheduled (free in a cycle in which it is empty or
  its access is scheduled). An access accepted in cycle t is scheduled in the first cycle u > t,
  after the previous access's scheduling cycle, such that
    - u is not a forced refresh cycle, and the cycle after u would not start a forced round if
      no refresh ran in u (the cycle after u is a timer cycle and POSTPONE * NPC * NBANK refreshes
      are owed in u): the controller's pipeline reads the bank state in u and writes it in u + 1;
    - the previous access was not scheduled in u - 1 on the same pseudo-channel (it writes the
      bank and bus state of its pseudo-channel in u).
  Everything below happens as if the access were issued in cycle u ("now" = u): with a free
  pipeline u = t + 1, one cycle more than a controller deciding in the cycle of acceptance. The
  completion is reported (iss_valid / iss_done) in cycle u + 3.
* bank timing at the scheduling cycle now. The bank is ready for the column command at: open row,
  max(now, t_act+tRCD, last_col+tBURST); closed bank, ACT at max(now, avail); other row, PRE at
  max(now, t_act+tRAS, last_col+tBURST) and ACT = PRE+tRP; then ready at max(ACT+tRCD,
  last_col+tBURST) (last_col: the bank's previous column command). The column command occupies
  the pseudo-channel data bus for tBURST and takes the earliest start >= that ready time at which
  its burst overlaps no burst already scheduled on the pseudo-channel (bus gaps are reused: a bank
  waiting for its ACT, e.g. behind a refresh, does not hold the bus for the others). The data
  is done ("raw done") at col + tCL + tBURST (writes use tCL too).
* completion, out of order across banks: the controller has one data port toward the bridge (one
  completion per cycle), and an access reserves the first cycle >= its raw done that no earlier
  access still in flight has reserved. Its data (read) or its store (write) happens at that cycle,
  tagged. Within a bank, column times (hence raw done times) strictly increase with issue order,
  and so do the reserved cycles, so accesses to one bank, and to one line, complete in issue
  order (a read after a write of the same line sees the write). An access is in flight from the
  cycle after its scheduling cycle up to and including its completion cycle.
* refresh: single-bank refresh (REFsb). A timer owes one refresh every tREFI/(NPC*NBANK) cycles
  (first at that interval), to the banks in round-robin bank-number order, so each bank is owed one
  per tREFI. Owed refreshes are executed in the order they were owed, one per cycle at most. A
  cycle is idle when no access is in flight and none is scheduled in it (an access waiting in the
  request register does not make it busy).
  - idle: in an idle cycle that follows at least IDLE idle cycles, the oldest owed refresh is
    executed (so a burst's short gaps do not start refreshes that its next accesses would wait for);
  - forced round: in a timer cycle where POSTPONE * NPC * NBANK refreshes are owed (every bank is
    POSTPONE refreshes behind) and no round runs, a round starts: the oldest owed refresh is
    executed in this cycle and in each of the next ROUND-1 cycles (ROUND = NPC*NBANK, every bank
    once, if POSTPONE > 0, else 1), and no access is scheduled in a round cycle or the cycle before
    it (see above; acceptance into the free request register goes on). Under saturation an
    in-order consumer then waits once per tREFI (about tRFC) instead of once per bank refresh.
    Requires tREFI/(NPC*NBANK) > ROUND (no timer cycle inside a round).
  POSTPONE = 0 is the plain schedule (each refresh at its timer cycle). Executing a refresh
  precharges the bank (respecting tRAS and the last burst) and makes it unavailable for tRFCsb.
  Assumption: HBM3 allows a controller to postpone up to 8 refreshes per bank (the JEDEC DDR3/DDR4
  rule; AMD's HBM controller, PG313 "Refresh", skips up to eight while transactions are queued);
  JESD238's own text was not available. No refresh is pulled in ahead of its timer. tRREFD
  (REFsb to REFsb of another bank) is not modelled.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

# ns values (targets.md, "Memory" table; refresh from the Ramulator2 HBM3 preset, see above)
HBM3_NS = {"tCL": 12.5, "tRCD": 19.4, "tRP": 16.25, "tRAS": 28.1, "tREFI": 3900.0, "tRFC": 160.0}
HBM3_TRC_NS = 45.0
HBM3_PIN_GBPS = 6.4
HBM3_PC_DQ = 32
CORE_GHZ = 1.0
REF_POSTPONE = 8     # refreshes per bank that may be postponed (assumption, see above)
REF_IDLE = 32        # idle cycles before owed refreshes run (a policy choice of ours)


def ns_to_cycles(ns: float, ghz: float = CORE_GHZ) -> int:
    return int(math.ceil(ns * ghz - 1e-9))


@dataclass(frozen=True)
class HbmTiming:
    tCL: int
    tRCD: int
    tRP: int
    tRAS: int
    tBURST: int
    tREFI: int
    tRFC: int

    @classmethod
    def hbm3(cls, ghz: float = CORE_GHZ) -> "HbmTiming":
        burst_ns = 64 * 8 / (HBM3_PC_DQ * HBM3_PIN_GBPS)  # one 64 B line on a 32-bit pseudo-channel
        c = {k: ns_to_cycles(v, ghz) for k, v in HBM3_NS.items()}
        return cls(tBURST=ns_to_cycles(burst_ns, ghz), **c)

    def params(self, prefix: str = "T_") -> dict[str, int]:
        """Verilog parameter names of xb_hbm_ctrl / xbridge_core."""
        return {f"{prefix}{k[1:]}": v for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class HbmGeom:
    npc: int = 2
    nbank: int = 4
    row_lines: int = 16   # 1 KB page per pseudo-channel / 64 B

    def map(self, idx: int) -> tuple[int, int, int]:
        """(pseudo-channel, bank, row) of buffer line idx."""
        pc = idx % self.npc
        bank = (idx // self.npc) % self.nbank
        row = idx // (self.npc * self.nbank * self.row_lines)
        return pc, bank, row

    @property
    def nbanks_total(self) -> int:
        return self.npc * self.nbank


@dataclass
class _Bank:
    open: bool = False
    row: int = 0
    t_act: int = 0
    t_col: int = 0
    avail: int = 0


@dataclass(frozen=True)
class RefEvent:
    cycle: int
    bank: int
    forced: bool


@dataclass(frozen=True)
class Sched:
    """An accepted access scheduled in cycle ``cycle`` (reported in cycle + 3)."""
    cycle: int
    accepted: int
    idx: int
    raw: int
    done: int
    key: object = None


@dataclass
class HbmModel:
    """Cycle-exact timing reference. Either feed acceptances with ``accept(now, idx)`` in cycle order
    (the model schedules them, ``ready(now)`` tells whether an access may be accepted, ``scheduled``
    lists the outcomes), or feed scheduling cycles directly with ``issue(now, idx)``."""

    timing: HbmTiming
    geom: HbmGeom = field(default_factory=HbmGeom)
    postpone: int = REF_POSTPONE
    idle_wait: int = REF_IDLE
    banks: list[_Bank] = field(default_factory=list)
    bursts: list[list[int]] = field(default_factory=list)   # per pc: column times of future bursts
    next_ref: int = 0           # next timer cycle
    owed: int = 0               # refreshes owed, not yet executed
    exec_ptr: int = 0           # bank of the oldest owed refresh
    rnd_left: int = 0           # round cycles left after the current one
    idle_q: int = 0             # consecutive idle cycles before cycle t (saturates at idle_wait)
    max_done: int = -1          # latest completion cycle of any access issued so far
    t: int = 0                  # first cycle not processed yet
    reserved: set[int] = field(default_factory=set)   # completion cycles of accesses in flight
    refreshes: list[RefEvent] = field(default_factory=list)
    inflight: int = 8           # slots (accepted, not completed), for accept()/ready()
    pending: list[tuple[int, int, object]] = field(default_factory=list)  # the request register
    slots: list[int | None] = field(default_factory=list)   # completion of each held access (None: not yet scheduled)
    last_sched: tuple[int, int] = (-2, -1)                  # (cycle, pseudo-channel) of the last scheduling
    scheduled: list[Sched] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.banks = [_Bank() for _ in range(self.geom.nbanks_total)]
        self.bursts = [[] for _ in range(self.geom.npc)]
        self.next_ref = self.ref_slot

    @property
    def ref_slot(self) -> int:
        return max(1, self.timing.tREFI // self.geom.nbanks_total)

    @property
    def owe_limit(self) -> int:
        return self.postpone * self.geom.nbanks_total

    @property
    def round_len(self) -> int:
        return self.geom.nbanks_total if self.postpone > 0 else 1

    def _busy(self, t: int) -> bool:
        return self.max_done >= t          # every access in flight completes at or before max_done

    def _refresh(self, t: int, forced: bool) -> None:
        tm = self.timing
        b = self.banks[self.exec_ptr]
        if b.open:
            pre = max(t, b.t_act + tm.tRAS, b.t_col + tm.tBURST)
            b.avail = pre + tm.tRP + tm.tRFC
        else:
            b.avail = max(t, b.avail) + tm.tRFC
        b.open = False
        self.refreshes.append(RefEvent(t, self.exec_ptr, forced))
        self.exec_ptr = (self.exec_ptr + 1) % len(self.banks)

    def _forced(self, t: int) -> tuple[bool, bool]:
        """(round starts at t, t is a forced refresh cycle)."""
        start = t == self.next_ref and self.owed >= self.owe_limit and self.rnd_left == 0
        return start, start or self.rnd_left > 0

    def _cycle(self, t: int, issuing: bool) -> None:
        """Refresh bookkeeping of cycle t (an access is accepted in t when ``issuing``)."""
        tick = t == self.next_ref
        start, forced = self._forced(t)
        if forced and issuing:
            raise ValueError(f"cycle {t} is a forced refresh cycle: no access may issue")
        idle_now = not issuing and not self._busy(t)
        do_ref = forced or (self.owed > 0 and idle_now and self.idle_q >= self.idle_wait)
        if do_ref:
            self._refresh(t, forced)
        self.owed += int(tick) - int(do_ref)
        self.rnd_left = self.round_len - 1 if start else max(0, self.rnd_left - 1)
        self.idle_q = min(self.idle_wait, self.idle_q + 1) if idle_now else 0
        if tick:
            self.next_ref += self.ref_slot

    def _skip(self, t2: int) -> None:
        """Jump from self.t to t2 (< next timer cycle, no round, no refresh in between)."""
        t = self.t
        if self.max_done >= t2 - 1:
            self.idle_q = 0
        elif self.max_done < t:
            self.idle_q = min(self.idle_wait, self.idle_q + t2 - t)
        else:
            self.idle_q = min(self.idle_wait, t2 - self.max_done - 1)
        self.t = t2

    def advance(self, now: int) -> None:
        """Process every cycle before ``now``: the waiting access of accept() is scheduled in its
        cycle; no other access is scheduled in these cycles."""
        while self.t < now:
            t = self.t
            if self.pending:
                acc, idx, key = self.pending[0]
                if acc < t and self.can_schedule(t, idx):
                    self.pending.pop(0)
                    raw, done = self._issue(t, idx)
                    self.slots[self.slots.index(None)] = done
                    self.scheduled.append(Sched(t, acc, idx, raw, done, key))
                else:
                    self._cycle(t, False)
                    self.t = t + 1
                continue
            horizon = min(now, self.next_ref)
            if self.rnd_left == 0 and t < horizon:
                if self.owed == 0:                     # nothing can happen before the timer
                    self._skip(horizon)
                    continue
                if self._busy(t):                      # no idle refresh while busy
                    self._skip(min(horizon, self.max_done + 1))
                    continue
                if self.idle_q < self.idle_wait:       # idle, but not for long enough yet
                    self._skip(min(horizon, t + self.idle_wait - self.idle_q))
                    continue
            self._cycle(t, False)
            self.t = t + 1
        self.reserved = {d for d in self.reserved if d >= now}

    def _pre_round(self, t: int) -> bool:
        """Would cycle t + 1 start a forced round if no refresh ran in t? (t is no round cycle.)"""
        return t + 1 == self.next_ref and self.owed >= self.owe_limit and self.rnd_left == 0

    def _blocked(self, t: int, idx: int) -> str | None:
        """Why an access to idx may not be scheduled in cycle t (the model is at cycle t)."""
        if self._forced(t)[1]:
            return "a forced refresh cycle"
        if self._pre_round(t):
            return "the cycle before a forced round"
        if self.last_sched == (t - 1, self.geom.map(idx)[0]):
            return "the cycle after an access to the same pseudo-channel was scheduled"
        return None

    def can_schedule(self, t: int, idx: int) -> bool:
        """May an access to idx be scheduled in cycle t (the model must be at cycle t)?"""
        return self._blocked(t, idx) is None

    def ready(self, now: int) -> bool:
        """May an access be accepted in cycle ``now``? Processes the cycles before now."""
        self.advance(now)
        held = sum(1 for d in self.slots if d is None or d >= now)
        if held >= self.inflight:
            return False
        if not self.pending:
            return True
        acc, idx, _ = self.pending[0]
        return acc < now and self.can_schedule(now, idx)

    def accept(self, now: int, idx: int, key: object = None) -> None:
        """Accept an access to line idx in cycle now; it is scheduled in a later cycle (see
        ``scheduled`` once the model has advanced past it)."""
        if not self.ready(now):
            raise ValueError(f"cycle {now}: no access may be accepted (slots or request register held)")
        self.advance(now + 1)        # cycle now: the register's occupant, if any, is scheduled in it
        self.slots = [d for d in self.slots if d is None or d >= now]
        self.slots.append(None)
        self.pending.append((now, idx, key))

    def is_forced_cycle(self, now: int) -> bool:
        """Is cycle ``now`` a forced refresh cycle? Does not change the model."""
        probe = copy.deepcopy(self)
        probe.advance(now)
        return probe._forced(now)[1]

    def schedulable(self, now: int, idx: int) -> bool:
        """Could an access to idx be scheduled (issue()) in cycle ``now``? Does not change the model."""
        probe = copy.deepcopy(self)
        probe.advance(now)
        return probe.can_schedule(now, idx)

    def issue(self, now: int, idx: int) -> tuple[int, int]:
        """Schedule an access to line idx in cycle now (its scheduling cycle, not its acceptance).
        Returns (raw done, reserved completion cycle)."""
        if now < self.t:
            raise ValueError(f"access at cycle {now} after cycle {self.t - 1} was processed")
        if self.pending:
            raise ValueError("issue() and accept() cannot be mixed")
        self.advance(now)
        return self._issue(now, idx)

    def _issue(self, now: int, idx: int) -> tuple[int, int]:
        why = self._blocked(now, idx)
        if why is not None:
            raise ValueError(f"cycle {now}: no access may be scheduled in {why}")
        self._cycle(now, True)
        self.t = now + 1
        tm = self.timing
        pc, _, row = self.geom.map(idx)
        self.last_sched = (now, pc)
        b = self.banks[idx % self.geom.nbanks_total]
        if b.open and b.row == row:
            ready = max(now, b.t_act + tm.tRCD, b.t_col + tm.tBURST)
        else:
            if b.open:
                act = max(now, b.t_act + tm.tRAS, b.t_col + tm.tBURST) + tm.tRP
            else:
                act = max(now, b.avail)
            ready = max(act + tm.tRCD, b.t_col + tm.tBURST)
            b.open, b.row, b.t_act = True, row, act
        col = self._bus_slot(pc, ready)
        b.t_col = col
        self.bursts[pc].append(col)
        raw = col + tm.tCL + tm.tBURST
        done = raw
        while done in self.reserved:
            done += 1
        self.reserved.add(done)
        self.max_done = max(self.max_done, done)
        return raw, done

    def _bus_slot(self, pc: int, ready: int) -> int:
        """Earliest burst start >= ready that overlaps no scheduled burst of pseudo-channel pc."""
        tb = self.timing.tBURST
        held = [c for c in self.bursts[pc] if c + tb > ready]
        self.bursts[pc] = [c for c in self.bursts[pc] if c + tb > self.t - 1]
        for cand in sorted({ready} | {c + tb for c in held}):
            if all(c + tb <= cand or c >= cand + tb for c in held):
                return cand
        raise AssertionError("unreachable: after the last burst the bus is free")

    def latency(self, now: int, idx: int) -> int:
        return self.issue(now, idx)[1] - now
