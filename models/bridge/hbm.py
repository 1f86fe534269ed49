"""HBM3-like timing model of the bridge's buffer memory (reference for rtl/bridge/xb_hbm_ctrl.v).

Parameters come from targets.md (JEDEC HBM3 / Ramulator2 JESD238 preset): tCK 0.625 ns, tCL 12.5 ns,
tRCD 19.4 ns, tRP 16.25 ns, tRAS 28.1 ns; 16 channels x 2 pseudo-channels of 32 DQ at 6.4 Gb/s.
targets.md has no refresh numbers: tREFI 3.9 us and the per-bank refresh time tRFCsb 160 ns are
the Ramulator2 HBM3 preset values (nREFI=3900, nRFCSB=160 at tCK 1 ns). All converted to cycles of
the 1 GHz core clock by rounding up (never tuned).

Semantics (the RTL implements exactly this; timestamps are core cycles):
* address map of a buffer line index i: pc = i % NPC, bank = (i / NPC) % NBANK,
  column = (i / (NPC*NBANK)) % ROW_LINES, row = i / (NPC*NBANK*ROW_LINES); open-page policy.
* one access may issue per cycle, in order; an access to the open row issues its column command
  at max(now, bus_free[pc], t_act+tRCD); to a closed bank: ACT at max(now, avail), column at
  max(ACT+tRCD, bus_free); to another row: PRE at max(now, t_act+tRAS, last_col+tBURST), ACT = PRE+tRP.
  The column command occupies the pseudo-channel data bus for tBURST; data is done at
  col + tCL + tBURST (writes use tCL too). Completions are returned in issue order.
* bank number = bank * NPC + pc (the low index bits). Refresh: per-bank (REFsb) round robin in
  bank-number order, one bank every tREFI/(NPC*NBANK) cycles starting at that
  interval; the bank is precharged (respecting tRAS) and unavailable for tRFCsb. No access issues
  in a refresh cycle.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

# ns values (targets.md, "Memory" table; refresh from the Ramulator2 JESD238 preset, see above)
HBM3_NS = {"tCL": 12.5, "tRCD": 19.4, "tRP": 16.25, "tRAS": 28.1, "tREFI": 3900.0, "tRFC": 160.0}
HBM3_PIN_GBPS = 6.4
HBM3_PC_DQ = 32
CORE_GHZ = 1.0


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


@dataclass
class HbmModel:
    timing: HbmTiming
    geom: HbmGeom = field(default_factory=HbmGeom)
    banks: list[_Bank] = field(default_factory=list)
    bus_free: list[int] = field(default_factory=list)
    next_ref: int = 0
    ref_ptr: int = 0
    last_done: int = 0
    refreshes: int = 0

    def __post_init__(self) -> None:
        self.banks = [_Bank() for _ in range(self.geom.nbanks_total)]
        self.bus_free = [0] * self.geom.npc
        self.next_ref = self.ref_slot

    @property
    def ref_slot(self) -> int:
        return max(1, self.timing.tREFI // self.geom.nbanks_total)

    def is_refresh_cycle(self, now: int) -> bool:
        self.advance(now - 1)
        return now == self.next_ref

    def advance(self, now: int) -> None:
        """Apply every refresh event at a cycle <= now."""
        t = self.timing
        while self.next_ref <= now:
            r = self.next_ref
            b = self.banks[self.ref_ptr]
            if b.open:
                pre = max(r, b.t_act + t.tRAS, b.t_col + t.tBURST)
                b.avail = pre + t.tRP + t.tRFC
            else:
                b.avail = max(r, b.avail) + t.tRFC
            b.open = False
            self.refreshes += 1
            self.ref_ptr = (self.ref_ptr + 1) % len(self.banks)
            self.next_ref += self.ref_slot

    def issue(self, now: int, idx: int) -> tuple[int, int]:
        """Issue an access to line idx at cycle now. Returns (raw done, in-order done)."""
        if self.is_refresh_cycle(now):
            raise ValueError(f"cycle {now} is a refresh cycle: no access may issue")
        self.advance(now)
        t = self.timing
        pc, bank, row = self.geom.map(idx)
        b = self.banks[bank * self.geom.npc + pc]   # = idx % (NPC*NBANK)
        if b.open and b.row == row:
            col = max(now, self.bus_free[pc], b.t_act + t.tRCD)
        else:
            if b.open:
                act = max(now, b.t_act + t.tRAS, b.t_col + t.tBURST) + t.tRP
            else:
                act = max(now, b.avail)
            col = max(act + t.tRCD, self.bus_free[pc])
            b.open, b.row, b.t_act = True, row, act
        b.t_col = col
        self.bus_free[pc] = col + t.tBURST
        done = col + t.tCL + t.tBURST
        self.last_done = max(self.last_done, done)
        return done, self.last_done

    def latency(self, now: int, idx: int) -> int:
        return self.issue(now, idx)[1] - now
