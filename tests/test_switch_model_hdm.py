"""HDM decoder of the switch reference model: interleave target selection, HPA <-> DPA, validation."""
from __future__ import annotations

import os

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from models.switch import ConfigError, HdmDecoder, check_no_overlap, eig_from_granularity, eiw_from_ways
from models.switch.hdm import HDM_UNIT, HPA_BITS, find_decoder

SEED = int(os.environ.get("SEED", "20260311"))
WAYS = (1, 2, 4, 8, 16, 3, 6, 12)
GRANS = tuple(256 << i for i in range(7))
BASE = 0x40_0000_0000  # 256 GB, 256 MB aligned


def _dec(ways: int, gran: int, units: int = 3, base: int = BASE) -> HdmDecoder:
    return HdmDecoder.make(base, units * HDM_UNIT, ways, gran, tuple(100 + 7 * i for i in range(ways)))


def test_encodings() -> None:
    assert [eiw_from_ways(w) for w in WAYS] == [0, 1, 2, 3, 4, 8, 9, 10]
    assert [eig_from_granularity(g) for g in GRANS] == list(range(7))


@pytest.mark.parametrize("ways", WAYS)
@pytest.mark.parametrize("gran", GRANS)
def test_target_every_setting(ways: int, gran: int) -> None:
    """Directed: the chunk at every position of two interleave rounds (plus ends of the range)."""
    d = _dec(ways, gran)
    eiw, eig = eiw_from_ways(ways), eig_from_granularity(gran)
    for chunk in list(range(2 * ways + 1)) + [d.size // gran - 1]:
        for low in (0, 64, gran - 1):
            hpa = BASE + chunk * gran + low
            if ways & (ways - 1) == 0:
                # spec: HPA bits [eIG+8 +: eIW] taken from the absolute HPA
                want = (hpa >> (eig + 8)) & ((1 << eiw) - 1)
            else:
                # kernel region.c cxl_is_hpa_in_chunk: ((HPA - base) mod (gran*ways)) // gran
                want = ((hpa - BASE) % (gran * ways)) // gran
            assert d.position(hpa) == want, (ways, gran, chunk, low)
            assert d.target(hpa) == 100 + 7 * want


# Hand-computed vectors for the 3/6/12-way modulo decode: (ways, gran, hpa offset, position, DPA offset)
HAND = [
    (3, 256, 0x000, 0, 0x000), (3, 256, 0x1FF, 1, 0x0FF), (3, 256, 0x200, 2, 0x000),
    (3, 256, 0x300, 0, 0x100), (3, 256, 0x5C0, 2, 0x1C0), (3, 256, 0x600, 0, 0x200),
    (6, 256, 0x700, 1, 0x100), (6, 256, 0x800, 2, 0x100), (6, 256, 0xD40, 1, 0x240),
    (12, 1024, 25 * 1024 + 5, 1, 2048 + 5), (12, 1024, 23 * 1024, 11, 1024),
    (6, 16384, 13 * 16384 + 100, 1, 2 * 16384 + 100),
]


@pytest.mark.parametrize("ways,gran,off,pos,dpa", HAND)
def test_mod3_hand_vectors(ways: int, gran: int, off: int, pos: int, dpa: int) -> None:
    d = _dec(ways, gran)
    assert d.hpa_to_dpa(BASE + off) == (pos, dpa)
    assert d.dpa_to_hpa(pos, dpa) == BASE + off


def test_pow2_dpa_vectors() -> None:
    d = _dec(4, 512)  # HPA offset 0x1234: chunk 9 -> way 1, DPA = (9 // 4) * 512 + 0x34
    assert d.hpa_to_dpa(BASE + 0x1234) == (1, 2 * 512 + 0x34)
    d16 = _dec(16, 16384)
    assert d16.hpa_to_dpa(BASE + 17 * 16384 + 3) == (1, 16384 + 3)


@settings(max_examples=300, deadline=None, database=None)
@seed(SEED)
@given(data=st.data())
def test_round_trip_hypothesis(data: st.DataObject) -> None:
    print(f"SEED={SEED}")
    ways = data.draw(st.sampled_from(WAYS))
    gran = data.draw(st.sampled_from(GRANS))
    units = data.draw(st.one_of(st.integers(1, 8), st.integers(1, 1 << 20))) * (3 if ways % 3 == 0 else 1)
    base = data.draw(st.integers(0, (1 << (HPA_BITS - 28)) - units - 1)) * HDM_UNIT
    d = HdmDecoder.make(base, units * HDM_UNIT, ways, gran, tuple(range(ways)))
    hpa = data.draw(st.integers(d.base, d.limit - 1))
    pos, dpa = d.hpa_to_dpa(hpa)
    # independent arithmetic form: chunk = offset // gran; way = chunk mod ways; DPA = chunk // ways
    off = hpa - base
    assert (pos, dpa) == ((off // gran) % ways, (off // gran // ways) * gran + off % gran)
    assert d.dpa_to_hpa(pos, dpa) == hpa
    p2 = data.draw(st.integers(0, ways - 1))
    dpa2 = data.draw(st.integers(0, d.size // ways - 1))
    assert d.hpa_to_dpa(d.dpa_to_hpa(p2, dpa2)) == (p2, dpa2)


def test_dpa_to_hpa_rejects_outside() -> None:
    d = _dec(3, 256)
    with pytest.raises(ValueError):
        d.dpa_to_hpa(3, 0)
    with pytest.raises(ValueError):
        d.dpa_to_hpa(0, d.size // 3)
    with pytest.raises(ValueError):
        d.position(d.limit)


@pytest.mark.parametrize("kw,reason", [
    (dict(base=BASE + 0x100_0000, size=HDM_UNIT, eiw=0, eig=0, targets=(1,)), "not 256 MB aligned"),
    (dict(base=BASE, size=HDM_UNIT + 4096, eiw=0, eig=0, targets=(1,)), "not a multiple of 256 MB"),
    (dict(base=BASE, size=2 * HDM_UNIT, eiw=8, eig=0, targets=(1, 2, 3)), "multiple of 3"),
    (dict(base=BASE, size=HDM_UNIT, eiw=5, eig=0, targets=tuple(range(32))), "eIW=5 is reserved"),
    (dict(base=BASE, size=HDM_UNIT, eiw=11, eig=0, targets=tuple(range(24))), "eIW=11 is reserved"),
    (dict(base=BASE, size=HDM_UNIT, eiw=1, eig=7, targets=(1, 2)), "eIG=7 is reserved"),
    (dict(base=BASE, size=HDM_UNIT, eiw=2, eig=0, targets=(1, 2, 3)), "needs 4 targets"),
    (dict(base=BASE, size=HDM_UNIT, eiw=1, eig=0, targets=(5, 5)), "not distinct"),
    (dict(base=(1 << HPA_BITS) - HDM_UNIT, size=2 * HDM_UNIT, eiw=0, eig=0, targets=(1,)), "wraps"),
    (dict(base=-HDM_UNIT, size=HDM_UNIT, eiw=0, eig=0, targets=(1,)), "non-negative"),
])
def test_decoder_config_errors(kw: dict, reason: str) -> None:
    with pytest.raises(ConfigError, match=reason):
        HdmDecoder(**kw)


def test_bad_ways_and_granularity_numbers() -> None:
    for ways in (0, 5, 7, 24, 32):
        with pytest.raises(ConfigError):
            eiw_from_ways(ways)
    for gran in (128, 300, 32768):
        with pytest.raises(ConfigError):
            eig_from_granularity(gran)


def test_overlap() -> None:
    a = HdmDecoder.make(BASE, 4 * HDM_UNIT, 2, 256, (1, 2))
    b = HdmDecoder.make(BASE + 3 * HDM_UNIT, HDM_UNIT, 1, 256, (3,))
    c = HdmDecoder.make(BASE + 4 * HDM_UNIT, HDM_UNIT, 1, 256, (3,))  # adjacent: fine
    empty = HdmDecoder.make(BASE + HDM_UNIT, 0, 1, 256, (3,))  # size 0 decodes nothing
    check_no_overlap([a, c, empty])
    with pytest.raises(ConfigError, match="decoders 0 and 1 overlap"):
        check_no_overlap([a, b])
    with pytest.raises(ConfigError, match="decoders 1 and 2 overlap"):
        check_no_overlap([c, a, b])
    assert find_decoder([a, c, empty], BASE + HDM_UNIT) is a
    assert find_decoder([a, c, empty], BASE + 4 * HDM_UNIT) is c
    assert find_decoder([a, c, empty], BASE + 5 * HDM_UNIT) is None
