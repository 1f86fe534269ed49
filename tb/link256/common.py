"""Shared helpers for the 256B formatter testbenches (tb_flit256_tx / tb_flit256_rx).

Random messages come from the reference model (models.cxl.messages): every field that the flit
flavour carries gets a random value, absent fields are zero. Flits are ints (bit n = byte n/8,
bit n%8), the same convention as the RTL `flit` ports.
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import cocotb

from models.cxl import flit256 as f2
from models.cxl.crc import flit256_with_crc
from models.cxl.messages import CLASS_OF, MESSAGES, RSVD, SPECS, TRAILER_W, CxlMessage
from tb.common.coverage import Covergroup, dump

HDR_W = 128
LINE_W = 512
NCLS = 6
DATA_CLASSES = (2, 5)
TRAILER_FLAG = {"d2h_dh": "bep", "m2s_rwd": "trp", "s2m_drs": "trp"}


@dataclass(frozen=True)
class Cfg:
    """DUT parameters, read from the DUT (:func:`cfg_from_dut`)."""

    role: int  # role of the DUT endpoint
    pbr: bool

    @property
    def partner(self) -> int:
        return 1 - self.role

    @property
    def flavor(self) -> str:
        return "PBR" if self.pbr else "256B"


def cfg_from_dut() -> Cfg:
    """The DUT's ROLE and PBR parameters."""
    top = cocotb.top
    return Cfg(int(top.ROLE.value), bool(int(top.PBR.value)))


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
            if small and pos + w > 108:
                keep = max(0, 108 - pos)
                v &= (1 << keep) - 1
            vals[name] = v
        pos += w
    flag = TRAILER_FLAG.get(mid)
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


def msg_from_rtl(mid: str, hdr: int, line: int | None) -> CxlMessage:
    data = None if line is None else line.to_bytes(64, "little")
    return MESSAGES[mid].from_canonical(hdr, data)


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


def mid_of(role: int, c: int) -> str:
    return CLASS_OF[(role, c)]


def dump_kinds(test: str, stats: Mapping[str, int], kinds: Iterable[str]) -> Covergroup:
    """The flit kinds a test must see, as a covergroup (one bin per kind, hits from ``stats``)
    dumped for `make signoff`; the caller still asserts each kind was seen."""
    cg = Covergroup("kinds")
    cp = cg.coverpoint("kind", bins=list(kinds))
    cp.hits = {k: int(stats.get(k, 0)) for k in cp.bins}
    cg.samples = sum(cp.hits.values())
    dump(cg, test)
    return cg
