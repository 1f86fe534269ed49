"""CRC-16 (68B flit) and CRC-64 (our 256B flit CRC) against the spec text and their properties."""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from models.cxl.crc import (CRC16_POLY, crc16_68b, crc16_68b_by_masks, crc16_masks, crc64_256b,
                            crc64_256b_bitwise, flit68_crc_ok, flit68_with_crc, flit256_crc_ok,
                            flit256_with_crc, poly_mod)

M512 = (1 << 512) - 1


def _flit(byte_values: bytes) -> int:
    return int.from_bytes(byte_values, "little")


# (flit bits [511:0], CRC) from cxl-flits.md section 2, "Test vectors"
SPEC_VECTORS = [
    ("all zero", 0, 0x0000),
    ("only bit0", 1, 0xF053),
    ("only bit511", 1 << 511, 0xC47D),
    ("bytes k = k", _flit(bytes(range(64))), 0xABF7),
    ("all ones", M512, 0x7856),
    ("RETRY.Idle", 1 | (1 << 32), 0xC341),
    ("RETRY.Frame", 1 | (1 << 32) | (3 << 36), 0x4198),
    ("INIT.Param", 1 | (0xC << 32) | (8 << 36) | (0x0002 << 64), 0xCCD2),
]


def test_mask_check_values_from_spec() -> None:
    dm = crc16_masks()
    assert len(dm) == 16
    assert dm[15] >> 448 == 0xEF9CD9F9C4BBB83A
    assert dm[0] & ((1 << 64) - 1) == 0x360D27A8E8D64863


def test_masks_are_generated_from_polynomial() -> None:
    dm = crc16_masks()
    for n in (0, 1, 17, 255, 511):
        col = poly_mod(1 << (n + 16), CRC16_POLY)
        assert sum(((dm[j] >> n) & 1) << j for j in range(16)) == col


def test_spec_table_vectors() -> None:
    dm = crc16_masks()
    for name, flit, crc in SPEC_VECTORS:
        assert crc16_68b(flit) == crc, name
        assert crc16_68b_by_masks(flit, dm) == crc, name
        wire = flit68_with_crc(flit)
        assert (wire >> 512) & 0xFF == crc & 0xFF, f"{name}: byte 64 = CRC[7:0]"
        assert (wire >> 520) & 0xFF == crc >> 8, f"{name}: byte 65 = CRC[15:8]"
        assert flit68_crc_ok(wire)


def test_fast_form_equals_matrix_form_random() -> None:
    seed = 20240611
    print(f"seed={seed}")
    rng = random.Random(seed)
    dm = crc16_masks()
    for _ in range(50):
        x = rng.getrandbits(512)
        assert crc16_68b(x) == crc16_68b_by_masks(x, dm)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, M512), st.integers(0, M512))
def test_crc16_linearity(a: int, b: int) -> None:
    assert crc16_68b(a ^ b) == crc16_68b(a) ^ crc16_68b(b)
    assert crc16_68b(0) == 0


def _syndromes() -> list[int]:
    """Syndrome of flipping wire bit i (i < 512: data, else CRC bit i-512)."""
    return [crc16_68b(1 << i) for i in range(512)] + [1 << k for k in range(16)]


def test_all_1_2_3_bit_errors_detected_exhaustive() -> None:
    # The check is linear: an error pattern is missed iff the XOR of its syndromes is 0.
    syn = _syndromes()
    assert all(s != 0 for s in syn), "single-bit error missed"
    assert len(set(syn)) == len(syn), "double-bit error missed"
    index = {s: i for i, s in enumerate(syn)}
    for i in range(len(syn)):
        for j in range(i + 1, len(syn)):
            k = index.get(syn[i] ^ syn[j])
            assert k is None or k in (i, j), f"triple-bit error {i},{j},{k} missed"


def test_bit_errors_detected_on_random_flits_sampled() -> None:
    seed = 7
    print(f"seed={seed}")
    rng = random.Random(seed)
    for _ in range(300):
        wire = flit68_with_crc(rng.getrandbits(512))
        for nflip in (1, 2, 3):
            bad = wire
            for pos in rng.sample(range(528), nflip):
                bad ^= 1 << pos
            assert not flit68_crc_ok(bad), (hex(wire), nflip)


def test_crc64_check_value_and_bit_order() -> None:
    # CRC-64/ECMA-182 check value of "123456789" is 6C40DF5F0B497347h. Our feed order is byte 241
    # first down to byte 0, so the string sits reversed in bytes 8..0 (leading zero bytes do not
    # change an init-0 CRC).
    data = b"123456789"[::-1] + bytes(233)
    assert crc64_256b(data) == 0x6C40DF5F0B497347
    assert crc64_256b(bytes(242)) == 0


def test_crc64_matches_polynomial_definition_and_placement() -> None:
    seed = 99
    print(f"seed={seed}")
    rng = random.Random(seed)
    for _ in range(20):
        flit = bytes(rng.getrandbits(8) for _ in range(256))
        crc = crc64_256b(flit)
        assert crc == crc64_256b_bitwise(flit)
        assert crc == crc64_256b(flit[:242])  # bytes 242.. are not covered
        wire = flit256_with_crc(flit)
        assert wire[242:250] == crc.to_bytes(8, "little")  # LSB-first in bytes 242..249
        assert wire[:242] == flit[:242] and wire[250:] == flit[250:]
        assert flit256_crc_ok(wire)


def test_crc64_detects_random_bit_flips() -> None:
    seed = 4242
    print(f"seed={seed}")
    rng = random.Random(seed)
    for _ in range(200):
        wire = flit256_with_crc(bytes(rng.getrandbits(8) for _ in range(256)))
        bad = bytearray(wire)
        for pos in rng.sample(range(250 * 8), rng.randint(1, 8)):
            bad[pos // 8] ^= 1 << (pos % 8)
        assert not flit256_crc_ok(bytes(bad))
