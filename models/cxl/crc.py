"""CXL link-layer CRCs.

68B flit: CRC-16 of cxl-flits.md section 2 (spec 4.2.8.7). The spec defines it as
``CRC[i] = XOR(DM[i][511:0] & Flit[511:0])`` with generator 1F053h and no seed or inversion.
Column n of the mask matrix is x^(n+16) mod G, so the CRC equals M(x)*x^16 mod G where
M(x) = sum flit[n] x^n: a plain MSB-first LFSR fed from flit bit 511 down to bit 0.

256B flit: CONVENTIONS.md "Flit wire" (ours; the PCIe 6 8 B CRC matrix is not public):
CRC-64/ECMA-182 (poly 42F0E1EBA9EA3693h, init 0, no reflection, no xorout) over bytes
0..241 fed from the highest bit of byte 241 down to bit 0 of byte 0, i.e. B(x)*x^64 mod G with
B(x) = int.from_bytes(bytes[0:242], "little"); stored LSB-first in bytes 242..249.
"""
from __future__ import annotations

CRC16_POLY: int = 0x1F053  # x^16+x^15+x^14+x^13+x^12+x^6+x^4+x+1 (with the x^16 term)
CRC16_BITS: int = 16
FLIT68_DATA_BITS: int = 512

CRC64_POLY: int = 0x1_42F0_E1EB_A9EA_3693  # CRC-64/ECMA-182 with the x^64 term
CRC64_BITS: int = 64
FLIT256_CRC_BYTES: int = 242  # bytes 0..241 are covered
FLIT256_CRC_LO: int = 242     # CRC byte 0 (CRC[7:0])
FLIT256_CRC_HI: int = 250     # one past the last CRC byte


def poly_mod(value: int, poly: int) -> int:
    """Remainder of the GF(2) polynomial ``value`` divided by ``poly``."""
    deg = poly.bit_length() - 1
    while value.bit_length() > deg:
        value ^= poly << (value.bit_length() - 1 - deg)
    return value


def _byte_table(poly: int, width: int) -> tuple[int, ...]:
    """Non-reflected byte-at-a-time table: entry b = (b * x^width) mod poly."""
    return tuple(poly_mod(b << width, poly) for b in range(256))


_T16: tuple[int, ...] = _byte_table(CRC16_POLY, CRC16_BITS)
_T64: tuple[int, ...] = _byte_table(CRC64_POLY, CRC64_BITS)


def _crc_msb_first(data_hi_first: bytes, table: tuple[int, ...], width: int) -> int:
    """Standard non-reflected table CRC, init 0, no xorout, bytes fed in the given order."""
    mask = (1 << width) - 1
    shift = width - 8
    crc = 0
    for b in data_hi_first:
        crc = ((crc << 8) & mask) ^ table[((crc >> shift) ^ b) & 0xFF]
    return crc


def crc16_masks() -> list[int]:
    """The 16 spec data masks DM[0..15], each a 512-bit int (bit n = flit bit n).

    Generated from the polynomial: DM[j] bit n = coefficient of x^j in x^(n+16) mod G.
    """
    masks = [0] * CRC16_BITS
    col = poly_mod(1 << CRC16_BITS, CRC16_POLY)  # x^16 mod G, column n = 0
    for n in range(FLIT68_DATA_BITS):
        for j in range(CRC16_BITS):
            if (col >> j) & 1:
                masks[j] |= 1 << n
        col <<= 1  # next column: multiply by x
        if col >> CRC16_BITS:
            col ^= CRC16_POLY
    return masks


def crc16_68b(flit_bits_511_0: int) -> int:
    """CRC-16 of a 68B flit (bits [511:0]); the result goes to flit bits [527:512]."""
    if not 0 <= flit_bits_511_0 < (1 << FLIT68_DATA_BITS):
        raise ValueError("flit must be a 512-bit non-negative int")
    # byte 63 first, its bit 7 first: identical to feeding flit bit 511 down to 0
    data = flit_bits_511_0.to_bytes(FLIT68_DATA_BITS // 8, "little")[::-1]
    return _crc_msb_first(data, _T16, CRC16_BITS)


def crc16_68b_by_masks(flit_bits_511_0: int, masks: list[int] | None = None) -> int:
    """The spec's matrix form (slow); used to cross-check :func:`crc16_68b`."""
    dm = crc16_masks() if masks is None else masks
    return sum((bin(dm[j] & flit_bits_511_0).count("1") & 1) << j for j in range(CRC16_BITS))


def crc64_256b(data: bytes) -> int:
    """Our 256B flit CRC over bytes 0..241 of ``data`` (242 or more bytes, e.g. a whole flit)."""
    if len(data) < FLIT256_CRC_BYTES:
        raise ValueError(f"need at least {FLIT256_CRC_BYTES} bytes, got {len(data)}")
    return _crc_msb_first(bytes(data[:FLIT256_CRC_BYTES])[::-1], _T64, CRC64_BITS)


def crc64_256b_bitwise(data: bytes) -> int:
    """Polynomial definition B(x)*x^64 mod G (slow); used to cross-check :func:`crc64_256b`."""
    value = int.from_bytes(bytes(data[:FLIT256_CRC_BYTES]), "little")
    return poly_mod(value << CRC64_BITS, CRC64_POLY)


def flit68_with_crc(flit_bits_511_0: int) -> int:
    """528-bit wire flit: bits [511:0] plus the CRC at [527:512]."""
    return flit_bits_511_0 | (crc16_68b(flit_bits_511_0) << FLIT68_DATA_BITS)


def flit68_crc_ok(flit528: int) -> bool:
    """True when the CRC at [527:512] matches bits [511:0]."""
    data = flit528 & ((1 << FLIT68_DATA_BITS) - 1)
    return (flit528 >> FLIT68_DATA_BITS) == crc16_68b(data)


def flit256_with_crc(flit: bytes) -> bytes:
    """256-byte flit with the CRC written LSB-first into bytes 242..249 (FEC bytes kept)."""
    if len(flit) != 256:
        raise ValueError("a 256B flit is 256 bytes")
    crc = crc64_256b(flit)
    return bytes(flit[:FLIT256_CRC_LO]) + crc.to_bytes(8, "little") + bytes(flit[FLIT256_CRC_HI:])


def flit256_crc_ok(flit: bytes) -> bool:
    """True when bytes 242..249 hold the CRC of bytes 0..241."""
    if len(flit) != 256:
        raise ValueError("a 256B flit is 256 bytes")
    return int.from_bytes(flit[FLIT256_CRC_LO:FLIT256_CRC_HI], "little") == crc64_256b(flit)
