"""Shared pieces of the 256B formatter environments (tx_env / rx_env).

Everything the benches expect comes from the reference model: random messages from
models.cxl.messages (every field the flit flavour carries gets a random value, absent fields are
zero), flit legality, contents, credits and error verdicts from models.cxl.flit256. Flits are ints
(bit n = byte n/8, bit n%8), the convention of the RTL ``flit`` ports. The tables used here (data
classes, trailer flags, CRD fields, credit values, slot formats) are read from the model, never
repeated.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import cocotb
from pyuvm import uvm_component

from models.cxl import flit256 as f2
from models.cxl.crc import flit256_with_crc
from models.cxl.messages import (CLASS_OF, CXL_DATA_W, CXL_HDR_W, MESSAGES, NCLS, ROLE_DOWN, RSVD,
                                 SPECS, TRAILER_W, CxlMessage)
from tb.common.patterns import Pattern
from tb.common.scoreboard import AnalysisImp, content
from tb.common.vr_agent import Beat

HDR_W = CXL_HDR_W     # one class lane of msg_hdr
LINE_W = CXL_DATA_W   # one data line lane of msg_data / line
# Classes that carry a data line (C_DATA, M_DATA), the same for both roles; their order is the lane
# order of the RTL's msg_data / line ports.
DATA_CLASSES: tuple[int, ...] = tuple(c for c in range(NCLS) if SPECS[CLASS_OF[(ROLE_DOWN, c)]].has_data)


class CtlKind(IntEnum):
    """ctl_kind encoding of the formatter ports (cxl_flit256_tx input, cxl_flit256_rx output)."""

    NONE = 0
    IDLE = 1
    FRAME = 2
    REQ = 3
    ACK = 4
    INIT = 5


@dataclass(frozen=True)
class Cfg:
    """DUT parameters, read from the DUT (:func:`cfg_from_dut`)."""

    role: int           # role of the DUT endpoint
    pbr: bool
    maxm: int | None    # RX only: messages (and runs) per class per flit

    @property
    def partner(self) -> int:
        return 1 - self.role

    @property
    def flavor(self) -> str:
        return "PBR" if self.pbr else "256B"


def cfg_from_dut() -> Cfg:
    """The DUT's ROLE, PBR (and MAXM when it has one) parameters."""
    top = cocotb.top
    maxm = int(top.MAXM.value) if hasattr(top, "MAXM") else None
    return Cfg(int(top.ROLE.value), bool(int(top.PBR.value)), maxm)


def mid_of(role: int, c: int) -> str:
    return CLASS_OF[(role, c)]


def trailer_flag(mid: str) -> str | None:
    """Header field (BEP / TRP) whose value 1 makes message `mid` carry a trailer slot (the model's
    table)."""
    return f2.TRAILER_FLAG.get(mid)


def has_trailer(m: CxlMessage) -> bool:
    flag = trailer_flag(m.MID)
    return bool(flag and getattr(m, flag))


def crd_fields(role: int) -> dict[int, list[int]]:
    """CRD field index -> the classes of `role` whose credits that field returns (one channel per
    field per flit), from the model's CRD channel table."""
    out: dict[int, list[int]] = {}
    for c in range(NCLS):
        out.setdefault(f2.crd_channel(mid_of(role, c))[0], []).append(c)
    return out


def rand_msg(mid: str, flavor: str, rng: random.Random, p_trailer: float = 0.1,
             random_trailer: bool = True, p_small: float = 0.3) -> CxlMessage:
    """Random message `mid` whose fields exist in `flavor`; BEP/TRP set with p_trailer.

    With probability p_small the fields above bit 107 of the wire image are cleared where that is
    possible (so PBR M2S Req/RwD also exercise the zero-extended H-slot formats).
    """
    spec = SPECS[mid]
    vals = {name: 0 for name, _ in spec.canonical}
    small = rng.random() < p_small
    pos = 1
    for name, w in spec.wire[flavor].fields:
        if name != RSVD:
            v = rng.getrandbits(w)
            if small and pos + w > f2.H_PAYLOAD_BITS:
                keep = max(0, f2.H_PAYLOAD_BITS - pos)
                v &= (1 << keep) - 1
            vals[name] = v
        pos += w
    flag = trailer_flag(mid)
    kw: dict[str, object] = {}
    if flag is not None:
        vals[flag] = 1 if rng.random() < p_trailer else 0
        if vals[flag] and random_trailer:
            kw["trailer"] = rng.getrandbits(TRAILER_W[mid])
    if spec.has_data:
        kw["data"] = rng.randbytes(64)
    return MESSAGES[mid](**vals, **kw)


def line_int(m: CxlMessage) -> int:
    return int.from_bytes(getattr(m, "data"), "little")


def field(v: int, i: int, w: int) -> int:
    return (v >> (i * w)) & ((1 << w) - 1)


def flit_from_slots(slots: dict[int, int], crd: int = 0, hdr: f2.FlitHeader256 | None = None) -> int:
    """CRC-correct flit (int) from raw slot images (slot index -> int) and a CRD value."""
    body = bytearray(256)
    body[0:2] = (hdr or f2.FlitHeader256()).encode().to_bytes(2, "little")
    for s, bits in slots.items():
        lo, hi = f2.slot_range(s)
        body[lo:hi] = bits.to_bytes(hi - lo, "little")
    body[f2.CRD_BYTE:f2.CRD_BYTE + 2] = crd.to_bytes(2, "little")
    return int.from_bytes(flit256_with_crc(bytes(body)), "little")


def refresh_crc(flit: int) -> int:
    return int.from_bytes(flit256_with_crc(flit.to_bytes(256, "little")), "little")


def slot_image(kind: str, pbr: bool, fmt: int, msgs: list[CxlMessage]) -> int:
    """Header slot with format `fmt` carrying `msgs` at the format's first positions."""
    bits = fmt
    flavor = "PBR" if pbr else "256B"
    for (mid, off, _), m in zip(f2.format_positions(kind, pbr, fmt), msgs):
        assert m.MID == mid, (m.MID, mid)
        bits |= m.pack(flavor) << off
    return bits


class _DontCare:
    """Expected value of a field the prediction leaves open."""

    def __repr__(self) -> str:
        return "<don't care>"


DONT_CARE = _DontCare()


def compare_dont_care(exp: Any, act: Any) -> bool:
    """Scoreboard compare: the payloads have the same fields and every expected field equals the
    actual one, except fields the prediction leaves open (:data:`DONT_CARE`)."""
    e, a = content(exp), content(act)
    return e.keys() == a.keys() and all(v is DONT_CARE or a[k] == v for k, v in e.items())


class Corrupter(uvm_component):
    """Expect-fail helper: forwards beats to ``dst(beat)``, passing beat number >= ``index`` for
    which ``corrupt(payload)`` returns a changed payload (None: not corruptible, try the next one)
    in its changed form exactly once. ``corrupted`` is the beat number it changed."""

    def __init__(self, name: str, parent: uvm_component, dst: Callable[[Beat], None], index: int,
                 corrupt: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
        super().__init__(name, parent)
        self.dst = dst
        self.index = index
        self.corrupt = corrupt
        self.n = 0
        self.corrupted: int | None = None
        self.export = AnalysisImp("export", self, self.write)

    def write(self, beat: Beat) -> None:
        if self.corrupted is None and self.n >= self.index:
            bad = self.corrupt(dict(beat.payload))
            if bad is not None:
                beat = Beat(bad, beat.cycle, beat.time_ps, "corrupted")
                self.corrupted = self.n
        self.n += 1
        self.dst(beat)


def idle_pattern(spec: str, rng: random.Random) -> Pattern:
    """Valid gating of a driver: 'none' (back to back), 'random' (a random duty cycle of 0.5 to
    0.9 per cycle) or 'bursts' (random bursts of up to 6 flits with gaps of up to 3 cycles)."""
    if spec == "none":
        return Pattern.always()
    if spec == "random":
        return Pattern.random(rng.choice([0.5, 0.7, 0.9]), rng)
    if spec == "bursts":
        return Pattern.random_bursts(6, 3, rng)
    raise ValueError(f"unknown idle pattern {spec!r}")


class FlowCoverage(uvm_component):
    """Samples how the stimulus reached the DUT into covergroup ``flow`` of ``cov``: coverpoint
    ``gap`` (the flit came the cycle after the previous one or after idle cycles) and the
    coverpoints ``extra(payload)`` names (e.g. the RX commit)."""

    def __init__(self, name: str, parent: uvm_component, cov: Any,
                 extra: Callable[[dict[str, int]], dict[str, Any]] | None = None) -> None:
        super().__init__(name, parent)
        self.cov = cov
        self.extra = extra
        self.last: int | None = None
        self.export = AnalysisImp("export", self, self.write)

    def write(self, beat: Beat) -> None:
        values = dict(self.extra(beat.payload)) if self.extra else {}
        if self.last is not None:
            values["gap"] = "back_to_back" if beat.cycle - self.last == 1 else "after_idle"
        self.last = beat.cycle
        if "flow" in self.cov.groups and values:
            self.cov.groups["flow"].sample(**values)
