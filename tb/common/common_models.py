"""Reference models of the rtl/common blocks, written from their interface text
(/tmp/prompts/rtlcommon_iface.md as recorded in tb/common/README.md), not from the RTL.

Each model is stepped once per clock edge with the inputs sampled for that edge; its outputs
(ready/valid/count/...) are the values expected *before* the edge.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass
class FifoModel:
    """FIFO of ``depth`` entries, first-word fall-through, one push and one pop per cycle."""

    depth: int
    q: deque[int] = field(default_factory=deque)

    @property
    def in_ready(self) -> bool:
        return len(self.q) < self.depth

    @property
    def out_valid(self) -> bool:
        return bool(self.q)

    @property
    def head(self) -> int | None:
        return self.q[0] if self.q else None

    @property
    def count(self) -> int:
        return len(self.q)

    def step(self, in_valid: bool, in_data: int, out_ready: bool) -> tuple[bool, bool]:
        """Apply one edge; returns (pushed, popped)."""
        push = in_valid and self.in_ready
        pop = out_ready and self.out_valid
        if pop:
            self.q.popleft()
        if push:
            self.q.append(in_data)
        return push, pop


@dataclass
class FifoMWModel:
    """Multi-write FIFO: valid lanes written in index order while space (before this cycle's read)
    lasts; the rest are dropped and set the sticky overflow flag."""

    depth: int
    w: int
    q: deque[int] = field(default_factory=deque)
    overflow: bool = False
    dropped: int = 0

    @property
    def free(self) -> int:
        return self.depth - len(self.q)

    @property
    def count(self) -> int:
        return len(self.q)

    @property
    def out_valid(self) -> bool:
        return bool(self.q)

    @property
    def head(self) -> int | None:
        return self.q[0] if self.q else None

    def step(self, lanes: list[int | None], out_ready: bool) -> tuple[list[int], int, bool]:
        """``lanes[i]`` is lane i's data when valid else None. Returns (written, dropped, popped)."""
        if len(lanes) != self.w:
            raise ValueError(f"expected {self.w} lanes")
        space = self.free
        written: list[int] = []
        drop = 0
        for d in lanes:
            if d is None:
                continue
            if len(written) < space:
                written.append(d)
            else:
                drop += 1
        pop = out_ready and self.out_valid
        if pop:
            self.q.popleft()
        self.q.extend(written)
        if drop:
            self.overflow = True
            self.dropped += drop
        return written, drop, pop


@dataclass
class RRArbiterModel:
    """Round robin over ``n`` requesters: priority starts at ``ptr`` and goes up, wrapping; after
    a grant with ``advance`` the requester just past the winner has top priority."""

    n: int
    ptr: int = 0

    def winner(self, req: int) -> int | None:
        for k in range(self.n):
            i = (self.ptr + k) % self.n
            if req >> i & 1:
                return i
        return None

    def step(self, req: int, advance: bool) -> int | None:
        w = self.winner(req)
        if advance and w is not None:
            self.ptr = (w + 1) % self.n
        return w


@dataclass
class CreditCounterModel:
    """Credits: +add each cycle, -1 per legal take; saturates at 2**width-1; a take with no
    credit is an error (sticky), and consumes nothing."""

    width: int
    count: int = 0
    err: bool = False

    @property
    def max(self) -> int:
        return (1 << self.width) - 1

    @property
    def avail(self) -> bool:
        return self.count > 0

    def step(self, add: int, take: bool) -> None:
        ok = take and self.avail
        if take and not self.avail:
            self.err = True
        self.count = min(self.max, self.count + add - int(ok))


@dataclass
class StatCounterModel:
    """Statistics count: +add in every cycle with en set, wrapping modulo 2**width; reset clears it.
    ``carry_top`` names how far the carry of an add runs (the property a prefix adder must get
    right): -1 no carry, k the highest bit a carry enters, ``width`` a wrap past the top."""

    width: int
    count: int = 0

    @property
    def mod(self) -> int:
        return 1 << self.width

    def carry_top(self, add: int) -> int:
        total = self.count + add
        if total >= self.mod:
            return self.width
        return ((total ^ self.count ^ add).bit_length() - 1)

    def step(self, en: bool, add: int) -> None:
        if en:
            self.count = (self.count + add) % self.mod


def gt_ref(a: int, b: int) -> bool:
    """gt_tree: unsigned a > b."""
    return a > b


def dn_floor_ref(x: int, floor: int, width: int) -> int:
    """dn_floor: a relative time counting down that stays at its floor, (x == floor) ? x : x - 1,
    modulo 2**width (x below the floor is outside the contract and still decrements)."""
    return x if x == floor else (x - 1) % (1 << width)


def top_diff_bit(a: int, b: int) -> int:
    """Highest bit where a and b differ (-1 when equal): the tree level that decides a compare."""
    return (a ^ b).bit_length() - 1


def borrow_len(x: int) -> int:
    """How many low bits a decrement of x flips minus one (trailing zeros of x): the prefix AND's
    reach; -1 for x == 0 would wrap and is reported as the width by the caller."""
    return (x & -x).bit_length() - 1 if x else -1
