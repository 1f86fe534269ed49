"""HDM decoder: HPA range -> interleave target, and the HPA <-> DPA mapping used by tests.

Sources (facts only, no code copied):
  * CXL r3.x 8.2.4.20.3-8.2.4.20.7 (HDM Decoder n Base/Size/Control): base and size are kept in
    256 MB units (bits 27:0 reserved); IG encodings 0h..6h = 256 B..16 KB; IW encodings 0h..4h =
    1..16 ways, 8h/9h/Ah = 3/6/12 ways (the spec allows 16/3/6/12 only in devices; the issue asks
    the switch to support them, so we do).
  * CXL r3.x 8.2.4.20.12 (Committing Decoder Programming): no wraparound; IW >= 8 -> size is a
    multiple of 3 (of the 256 MB unit); target identifiers of one decoder are distinct; decoders must
    not alias (we check pairwise overlap instead of the spec's "in increasing order" rule).
  * cxl-protocol.md: power-of-two ways select the target with HPA bits [eIG+8 +: eIW].
  * 3/6/12 ways: Linux drivers/cxl/core/region.c. cxl_is_hpa_in_chunk() accepts position `pos` for
    an HPA iff ((HPA - region_base) mod (gran * ways)) lies in [pos*gran, (pos+1)*gran), i.e.
        pos = ((HPA - base) >> (eIG + 8)) mod ways,
    and cxl_dpa_to_hpa() (spec 8.2.4.19.13 "Device Decode Logic", quoted there) rebuilds
        HPA_offset = (((DPA_offset[51:eIG+8] * 3) << (eIW - 8)) + pos) << (eIG + 8) | DPA_offset[eIG+7:0]
    whose inverse is DPA_offset[51:eIG+8] = HPA_offset[51:eIG+eIW] / 3 (the spec device rule).
    Written with k = eIW - 8 and chunk c = HPA_offset >> (eIG + 8), that is
        pos = (((c >> k) mod 3) << k) | (c & (2**k - 1))     (== c mod ways)
    which is the formula this module implements for 3/6/12 ways ("modulo 3 of the upper bits"
    above the k low position bits). Offsets are taken from the decoder base (HPA - base); for
    power-of-two ways this equals the plain HPA bits because base is 256 MB aligned.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from models.switch.errors import ConfigError

HPA_BITS = 52  # M2S Addr[51:6] carries a 52-bit host physical address
HDM_UNIT = 1 << 28  # base/size granule of the HDM decoder registers (256 MB)
POW2_EIW = (0, 1, 2, 3, 4)
MOD3_EIW = (8, 9, 10)
VALID_EIW = POW2_EIW + MOD3_EIW
VALID_EIG = tuple(range(7))  # 256 B .. 16 KB


def ways_from_eiw(eiw: int) -> int:
    """Interleave ways for an eIW encoding (ConfigError if reserved)."""
    if eiw in POW2_EIW:
        return 1 << eiw
    if eiw in MOD3_EIW:
        return 3 << (eiw - 8)
    raise ConfigError(f"interleave ways encoding eIW={eiw} is reserved (valid: {VALID_EIW})")


def eiw_from_ways(ways: int) -> int:
    """eIW encoding for a number of ways (ConfigError if not 1/2/4/8/16/3/6/12)."""
    for eiw in VALID_EIW:
        if ways_from_eiw(eiw) == ways:
            return eiw
    raise ConfigError(f"{ways} interleave ways not supported (valid: 1, 2, 4, 8, 16, 3, 6, 12)")


def granularity_from_eig(eig: int) -> int:
    """Interleave granularity in bytes for an eIG encoding (ConfigError if reserved)."""
    if eig not in VALID_EIG:
        raise ConfigError(f"interleave granularity encoding eIG={eig} is reserved (valid: 0..6)")
    return 256 << eig


def eig_from_granularity(gran: int) -> int:
    """eIG encoding for a granularity in bytes (ConfigError unless 256 B .. 16 KB power of two)."""
    for eig in VALID_EIG:
        if 256 << eig == gran:
            return eig
    raise ConfigError(f"interleave granularity {gran} B not supported (valid: 256 B .. 16 KB, powers of two)")


@dataclass(frozen=True)
class HdmDecoder:
    """One committed HDM decoder: [base, base+size) interleaved over `targets`.

    `targets[i]` is what the decoder sends way i to: an egress port number in an HBR switch, a
    12-bit DPID in a PBR switch (the switch configuration checks which). Size 0 is legal and
    decodes nothing (spec 8.2.4.20.12). Construction validates the decoder by itself."""

    base: int
    size: int
    eiw: int
    eig: int
    targets: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "targets", tuple(self.targets))
        for name in ("base", "size", "eiw", "eig"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                raise ConfigError(f"decoder {name}={getattr(self, name)!r}: expected a non-negative integer")
        ways = ways_from_eiw(self.eiw)
        granularity_from_eig(self.eig)
        if self.base % HDM_UNIT:
            raise ConfigError(f"decoder base {self.base:#x} is not 256 MB aligned")
        if self.size % HDM_UNIT:
            raise ConfigError(f"decoder size {self.size:#x} is not a multiple of 256 MB")
        if self.eiw in MOD3_EIW and self.size % (3 * HDM_UNIT):
            raise ConfigError(f"decoder size {self.size:#x} with {ways} ways is not a multiple of 3 x 256 MB")
        if self.base + self.size > 1 << HPA_BITS:
            raise ConfigError(f"decoder [{self.base:#x}, +{self.size:#x}) wraps past the {HPA_BITS}-bit HPA space")
        if len(self.targets) != ways:
            raise ConfigError(f"decoder with {ways} ways needs {ways} targets, got {len(self.targets)}")
        if any(not isinstance(t, int) or t < 0 for t in self.targets):
            raise ConfigError(f"decoder targets {self.targets} must be non-negative integers")
        if len(set(self.targets)) != ways:
            raise ConfigError(f"decoder targets {self.targets} are not distinct")

    @classmethod
    def make(cls, base: int, size: int, ways: int, granularity: int, targets: Sequence[int]) -> HdmDecoder:
        """Build from plain numbers (ways, granularity in bytes) instead of encodings."""
        return cls(base, size, eiw_from_ways(ways), eig_from_granularity(granularity), tuple(targets))

    @property
    def ways(self) -> int:
        return ways_from_eiw(self.eiw)

    @property
    def granularity(self) -> int:
        return granularity_from_eig(self.eig)

    @property
    def limit(self) -> int:
        """First HPA above the range."""
        return self.base + self.size

    def contains(self, hpa: int) -> bool:
        return self.base <= hpa < self.limit

    def position(self, hpa: int) -> int:
        """Interleave way (index into targets) of an HPA inside the range, spec bit formulas."""
        self._check_hpa(hpa)
        off = hpa - self.base
        shift = self.eig + 8
        if self.eiw in POW2_EIW:
            return (off >> shift) & ((1 << self.eiw) - 1)  # HPA[eIG+8 +: eIW]
        k = self.eiw - 8
        chunk = off >> shift
        return (((chunk >> k) % 3) << k) | (chunk & ((1 << k) - 1))

    def target(self, hpa: int) -> int:
        return self.targets[self.position(hpa)]

    def hpa_to_dpa(self, hpa: int) -> tuple[int, int]:
        """(position, DPA offset inside this decoder's share of the target), spec device decode."""
        pos = self.position(hpa)
        off = hpa - self.base
        shift = self.eig + 8
        low = off & ((1 << shift) - 1)
        if self.eiw in POW2_EIW:
            upper = off >> (shift + self.eiw)  # HPA_offset[51:eIG+eIW+8]
        else:
            upper = (off >> (shift + self.eiw - 8)) // 3  # HPA_offset[51:eIG+eIW] / 3
        return pos, (upper << shift) | low

    def dpa_to_hpa(self, pos: int, dpa: int) -> int:
        """Inverse of hpa_to_dpa (ValueError if pos or dpa lies outside this decoder)."""
        if not 0 <= pos < self.ways:
            raise ValueError(f"position {pos} out of range for {self.ways} ways")
        if not 0 <= dpa < self.size // self.ways:
            raise ValueError(f"DPA offset {dpa:#x} outside the {self.size // self.ways:#x} B share of a target")
        shift = self.eig + 8
        low = dpa & ((1 << shift) - 1)
        upper = dpa >> shift
        if self.eiw in POW2_EIW:
            off = (upper << (shift + self.eiw)) | (pos << shift) | low
        else:
            off = ((((upper * 3) << (self.eiw - 8)) + pos) << shift) | low
        return self.base + off

    def _check_hpa(self, hpa: int) -> None:
        if not self.contains(hpa):
            raise ValueError(f"HPA {hpa:#x} outside decoder [{self.base:#x}, {self.limit:#x})")


def check_no_overlap(decoders: Iterable[HdmDecoder]) -> None:
    """ConfigError naming the first pair of decoders (by index) whose non-empty ranges overlap."""
    live = sorted((d.base, d.limit, i) for i, d in enumerate(decoders) if d.size)
    for (b0, l0, i0), (b1, l1, i1) in zip(live, live[1:]):
        if b1 < l0:
            lo, hi = sorted((i0, i1))
            raise ConfigError(f"decoders {lo} and {hi} overlap: [{b0:#x}, {l0:#x}) and [{b1:#x}, {l1:#x})")


def find_decoder(decoders: Sequence[HdmDecoder], hpa: int) -> HdmDecoder | None:
    """The decoder whose range holds hpa, None if no decoder positively decodes it."""
    for d in decoders:
        if d.contains(hpa):
            return d
    return None
