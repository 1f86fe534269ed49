"""Multi-lane valid/ready agent: many lanes of flattened vectors driven and sampled by one coroutine.

A DUT with L lanes per side exposes, per side, a valid vector (bit i = lane i), a ready vector, a
header vector (lane i at bits [i*HW +: HW]) and optionally a data vector whose slots are shared by
a subset of the lanes (lane i -> slot `data_slot(i)` at [slot*DW +: DW], or None when the lane
carries no data). `MultiLaneBus` is the driver of the input side and the monitor of both sides:

  * input side: per-lane queues (`put(lane, hdr, data)`); a lane presents its next item when its
    group's idle pattern allows (one `Pattern.next()` per group and cycle), holds valid and payload
    stable until `valid && ready`, and fires `on_in(lane, hdr, data, cycle)` at the transfer;
  * output side: ready per group from a pattern (`ready[g]`), `on_out(lane, hdr, data, cycle)` for
    every lane with `valid && ready`.

One coroutine per cycle for all lanes, writing the vectors only when they change, is what keeps
32+ lanes cheap (a VRAgent per lane costs a trigger per lane per cycle). Timing follows tb/common:
drive right after the falling edge, sample in ReadOnly (what the next rising edge takes); `cycle`
counts falling edges since `run()` started.
"""
from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cocotb.triggers import FallingEdge, ReadOnly

from tb.common.patterns import Pattern

LaneCallback = Callable[[int, int, int, int], None]     # (lane, hdr, data, cycle)


@dataclass(frozen=True)
class LaneSide:
    """Signal names and layout of one side (input or output) of a multi-lane port."""

    valid: str
    ready: str
    hdr: str
    hdr_width: int
    data: str | None = None
    data_width: int = 0


class MultiLaneBus:
    def __init__(self, dut: Any, lanes: int, inp: LaneSide, out: LaneSide, *,
                 group_of: Callable[[int], int] = lambda lane: 0,
                 data_slot: Callable[[int], int | None] = lambda lane: None,
                 clk: Any = None, rng: random.Random | None = None) -> None:
        if lanes < 1:
            raise ValueError(f"MultiLaneBus: lanes={lanes} (>= 1)")
        self.dut, self.lanes, self.inp, self.out = dut, lanes, inp, out
        self.clk = clk if clk is not None else dut.clk
        self.rng = rng
        self.group = [group_of(i) for i in range(lanes)]
        self.slot = [data_slot(i) for i in range(lanes)]
        if any(s is not None for s in self.slot) and not (inp.data and out.data):
            raise ValueError("MultiLaneBus: lanes with data slots need data vectors on both sides")
        ngroups = max(self.group) + 1
        self.idle: list[Pattern] = [Pattern.always() for _ in range(ngroups)]
        self.ready: list[Pattern] = [Pattern.always() for _ in range(ngroups)]
        self.q: list[deque[tuple[int, int]]] = [deque() for _ in range(lanes)]
        self.cur: list[tuple[int, int] | None] = [None] * lanes
        self.on_in: list[LaneCallback] = []
        self.on_out: list[LaneCallback] = []
        self.cycle = 0
        self._hmask = (1 << inp.hdr_width) - 1
        self._omask = (1 << out.hdr_width) - 1
        self._dmask = (1 << out.data_width) - 1
        self._ready_bits = [sum(1 << i for i in range(lanes) if self.group[i] == g) for g in range(ngroups)]
        self._data_lanes = sum(1 << i for i in range(lanes) if self.slot[i] is not None)
        self._last: tuple[int, int, int, int] | None = None

    def put(self, lane: int, hdr: int, data: int = 0) -> None:
        """Queue one item on an input lane."""
        self.q[lane].append((hdr & self._hmask, data))

    def queued(self, lanes: Sequence[int]) -> int:
        """Items queued or being presented on these input lanes."""
        return sum(len(self.q[i]) + (self.cur[i] is not None) for i in lanes)

    def busy(self) -> bool:
        return any(self.q[i] or self.cur[i] is not None for i in range(self.lanes))

    async def run(self) -> None:
        dut, inp, out = self.dut, self.inp, self.out
        v_in, h_in = getattr(dut, inp.valid), getattr(dut, inp.hdr)
        d_in = getattr(dut, inp.data) if inp.data else None
        r_in = getattr(dut, inp.ready)
        v_out, h_out, r_out = getattr(dut, out.valid), getattr(dut, out.hdr), getattr(dut, out.ready)
        d_out = getattr(dut, out.data) if out.data else None
        hw, dw, ow = inp.hdr_width, inp.data_width, out.hdr_width
        while True:
            await FallingEdge(self.clk)
            self.cycle += 1
            go = [p.next() for p in self.idle]
            valid = hdr = data = 0
            for i in range(self.lanes):
                if self.cur[i] is None and self.q[i] and go[self.group[i]]:
                    self.cur[i] = self.q[i].popleft()
                if self.cur[i] is not None:
                    h, d = self.cur[i]
                    valid |= 1 << i
                    hdr |= h << (hw * i)
                    if self.slot[i] is not None:
                        data |= d << (dw * self.slot[i])
            ready = 0
            for g, p in enumerate(self.ready):
                if p.next():
                    ready |= self._ready_bits[g]
            state = (valid, hdr, data, ready)
            if state != self._last:
                v_in.value = valid
                h_in.value = hdr
                if d_in is not None:
                    d_in.value = data
                r_out.value = ready
                self._last = state
            await ReadOnly()
            acc = valid & int(r_in.value)
            fired = int(v_out.value) & ready
            cyc = self.cycle
            if acc:
                for i in range(self.lanes):
                    if acc >> i & 1:
                        h, d = self.cur[i]  # type: ignore[misc]
                        self.cur[i] = None
                        for cb in self.on_in:
                            cb(i, h, d, cyc)
            if fired:
                oh = int(h_out.value)
                od = int(d_out.value) if d_out is not None and fired & self._data_lanes else 0
                for i in range(self.lanes):
                    if fired >> i & 1:
                        h = (oh >> (ow * i)) & self._omask
                        s = self.slot[i]
                        d = (od >> (out.data_width * s)) & self._dmask if s is not None else 0
                        for cb in self.on_out:
                            cb(i, h, d, cyc)
