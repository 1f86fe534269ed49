"""Tests for models/cxl/flit256.py (256B standard flit)."""
from __future__ import annotations

import random
from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.cxl import flit256 as f2
from models.cxl import messages as msg
from models.cxl.crc import crc64_256b
from models.cxl.flit256 import (
    Flit256Packer, Flit256RxState, FlitError, FlitHeader256, decode_crd, encode_crd, unpack_flit256,
)
from models.cxl.messages import ROLE_DOWN, ROLE_UP

# Format totals from cxl-flits.md 4.2 (bits, without the SlotFmt nibble; PBR H4/H14 before the cut).
G_HBR = {0: 112, 1: 120, 2: 124, 3: 96, 4: 100, 5: 120, 6: 124, 7: 120, 12: 112, 13: 96, 14: 104, 15: 120}
G_PBR = {0: 92, 1: 96, 2: 96, 3: 108, 4: 120, 5: 104, 6: 96, 7: 96, 12: 108, 13: 108, 14: 124, 15: 96}
H_HBR = {0: 72, 1: 80, 2: 100, 3: 96, 4: 100, 5: 80, 6: 84, 7: 80, 12: 84, 13: 96, 14: 104, 15: 80}
H_PBR = {0: 92, 1: 96, 2: 96, 3: 108, 4: 120, 5: 104, 6: 96, 7: 96, 12: 108, 13: 108, 14: 124, 15: 96}


@pytest.mark.parametrize("kind,pbr,table", [("G", False, G_HBR), ("G", True, G_PBR), ("H", False, H_HBR),
                                            ("H", True, H_PBR)])
def test_format_totals_match_spec_table(kind: str, pbr: bool, table: dict[int, int]) -> None:
    assert set(f2.SLOT_FORMATS[(kind, pbr)]) == set(table)
    for enc, bits in table.items():
        assert f2.format_bits(kind, pbr, enc) == bits, enc


# ---------------------------------------------------------------------------------------- helpers
def raw_flit(slots: dict[int, int], crd: int = 0, hdr: FlitHeader256 | None = None,
             data_slots: dict[int, bytes] | None = None) -> bytes:
    """A CRC-correct flit from slot contents (slot bits as ints) and raw 16 B data slots."""
    body = bytearray(256)
    body[0:2] = (hdr or FlitHeader256()).encode().to_bytes(2, "little")
    for s, bits in slots.items():
        lo, hi = f2.slot_range(s)
        body[lo:hi] = bits.to_bytes(hi - lo, "little")
    for s, b in (data_slots or {}).items():
        lo, hi = f2.slot_range(s)
        body[lo:hi] = b
    body[240:242] = crd.to_bytes(2, "little")
    body[242:250] = crc64_256b(bytes(body)).to_bytes(8, "little")
    return bytes(body)


def slot_of(fmt: int, *msgs: msg.CxlMessage, pbr: bool = False) -> int:
    flavor = "PBR" if pbr else "256B"
    bits, pos = fmt, 4
    for m in msgs:
        bits |= m.pack(flavor) << pos
        pos += m.width(flavor)
    return bits


def rand_msg(rng: random.Random, mid: str, flavor: str) -> msg.CxlMessage:
    spec = msg.SPECS[mid]
    present = {n for n, _ in spec.wire[flavor].fields}
    kw: dict[str, object] = {n: rng.getrandbits(w) if n in present else 0 for n, w in spec.canonical}
    if spec.has_data:
        kw["data"] = rng.randbytes(64)
        if mid in msg.TRAILER_W:
            flag = "bep" if mid == "d2h_dh" else "trp"
            kw["trailer"] = rng.getrandbits(msg.TRAILER_W[mid]) if kw[flag] else 0
    return msg.MESSAGES[mid](**kw)  # type: ignore[arg-type]


def run_link(role: int, pbr: bool, queues: list[deque], max_per_class: int | None = None,
             max_flits: int = 500) -> tuple[list[list[msg.CxlMessage]], list[bytes]]:
    pk = Flit256Packer(role, pbr, max_per_class)
    rx = Flit256RxState()
    got: list[list[msg.CxlMessage]] = [[] for _ in range(msg.NCLS)]
    flits: list[bytes] = []
    while any(queues) or pk.rollover:
        assert len(flits) < max_flits, "packer made no progress"
        fl = pk.pack(queues)
        flits.append(fl)
        res = unpack_flit256(role, pbr, fl, rx)
        assert res.crc_ok
        for c in range(msg.NCLS):
            got[c] += res.messages[c]
    assert rx.rollover == 0 and not rx.partial
    return got, flits


# ------------------------------------------------------------------------------------ round trips
@pytest.mark.parametrize("role", [ROLE_DOWN, ROLE_UP])
@pytest.mark.parametrize("pbr", [False, True])
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), mpc=st.sampled_from([None, 1, 2]))
def test_round_trip_random_mix(role: int, pbr: bool, seed: int, mpc: int | None) -> None:
    print(f"seed={seed} role={role} pbr={pbr} max_per_class={mpc}")
    rng = random.Random(seed)
    flavor = "PBR" if pbr else "256B"
    queues: list[deque] = []
    for c in range(msg.NCLS):
        mid = msg.CLASS_OF[(role, c)]
        queues.append(deque(rand_msg(rng, mid, flavor) for _ in range(rng.randrange(0, 12))))
    sent = [list(q) for q in queues]
    got, flits = run_link(role, pbr, queues, mpc)
    assert got == sent
    if mpc is not None:  # re-decode: no slot carries more than mpc messages of one class
        rx = Flit256RxState()
        for fl in flits:
            res = unpack_flit256(role, pbr, fl, rx)
            assert max(res.slot_msgs) <= mpc * 2  # a slot may mix two classes (e.g. G2, G6)


def test_multi_message_slots_used_and_forced_single() -> None:
    rsp = [msg.H2DRsp(opcode=4, cqid=i) for i in range(6)]
    _, multi = run_link(ROLE_DOWN, False, [deque(), deque(rsp), deque(), deque(), deque(), deque()])
    _, single = run_link(ROLE_DOWN, False, [deque(), deque(rsp), deque(), deque(), deque(), deque()], 1)
    rm = unpack_flit256(ROLE_DOWN, False, multi[0], Flit256RxState())
    rs = unpack_flit256(ROLE_DOWN, False, single[0], Flit256RxState())
    assert len(multi) == len(single) == 1
    assert rm.slot_formats[:3] == [1, 1, 1] and rm.slot_msgs[:3] == [2, 3, 1]  # H1 holds 2, G1 holds 3
    assert rs.slot_formats[:6] == [1] * 6 and rs.slot_msgs[:7] == [1] * 6 + [0]


def test_data_rolls_over_into_next_flit() -> None:
    # 14 NDR-free D2H DH: 3 per G13 PBR slot -> data rolls over several flits
    rng = random.Random(7)
    dh = [rand_msg(rng, "d2h_dh", "256B").replace(bep=0, trailer=0) for _ in range(6)]
    req = [msg.D2HReq(opcode=3, cqid=i, addr=i) for i in range(3)]
    queues = [deque(req), deque(), deque(dh), deque(), deque(), deque()]
    pk = Flit256Packer(ROLE_UP, False)
    rx = Flit256RxState()
    got: list[msg.CxlMessage] = []
    rollovers = []
    for _ in range(4):
        res = unpack_flit256(ROLE_UP, False, pk.pack(queues), rx)
        got += res.messages[msg.CLS_C_DATA]
        rollovers.append(rx.rollover)
    assert got == dh
    assert rollovers[0] > 0 and rollovers[-1] == 0


def test_nop_and_header_fields() -> None:
    assert FlitHeader256(f2.FLIT_TYPE_PAYLOAD, f2.REPLAY_ACK, 0x3FF).encode() == 0xFF87
    assert FlitHeader256.decode(0x3482) == FlitHeader256(f2.FLIT_TYPE_PAYLOAD, f2.REPLAY_NONE, 0x234)
    nop = f2.make_nop_flit(f2.REPLAY_RETRY_REQ, 0x155)
    assert nop[0] == 0b0000_1001 and nop[1] == 0x55
    res = unpack_flit256(ROLE_UP, False, nop, Flit256RxState())
    assert res.crc_ok and res.header == FlitHeader256(f2.FLIT_TYPE_NOP, f2.REPLAY_RETRY_REQ, 0x155)
    with pytest.raises(FlitError, match="NOP"):
        unpack_flit256(ROLE_UP, False, raw_flit({1: 1 << 8}, hdr=FlitHeader256(f2.FLIT_TYPE_NOP)), Flit256RxState())
    with pytest.raises(FlitError, match="Replay"):
        unpack_flit256(ROLE_UP, False, raw_flit({}, hdr=FlitHeader256(f2.FLIT_TYPE_PAYLOAD, f2.REPLAY_RETRY_REQ)),
                       Flit256RxState())


def test_ack_and_credits_round_trip() -> None:
    pk = Flit256Packer(ROLE_DOWN, False)
    fl = pk.pack([deque() for _ in range(6)], credits={"d2h_req": 16, "d2h_dh": 4, "s2m_ndr": 1},
                 replay_cmd=f2.REPLAY_ACK, field10=9)
    res = unpack_flit256(ROLE_DOWN, False, fl, Flit256RxState())
    assert res.header == FlitHeader256(f2.FLIT_TYPE_PAYLOAD, f2.REPLAY_ACK, 9)
    assert dict(res.credits) == {"d2h_req": 16, "d2h_dh": 4, "s2m_ndr": 1} and not res.empty
    empty = pk.pack([deque() for _ in range(6)])
    assert int.from_bytes(empty[240:242], "little") == 0x01
    assert unpack_flit256(ROLE_DOWN, False, empty, Flit256RxState()).empty


def test_llctrl_round_trip() -> None:
    pk = Flit256Packer(ROLE_UP, False)
    q = [deque(), deque([msg.D2HRsp(opcode=4)]), deque(), deque(), deque(), deque()]
    fl = pk.pack(q, llctrl=(0b0011, 0b0000, 0xBEEF))
    res = unpack_flit256(ROLE_UP, False, fl, Flit256RxState())
    assert res.llctrl == (3, 0, 0xBEEF) and len(q[1]) == 1  # nothing else sent with LLCTRL
    with pytest.raises(FlitError, match="LLCTRL"):
        unpack_flit256(ROLE_UP, False, raw_flit({0: 8 | 3 << 4, 1: slot_of(3, msg.D2HRsp())}), Flit256RxState())


# ---------------------------------------------------------------------------------------- CRC
def test_crc_detects_every_single_bit_flip() -> None:
    seed = random.randrange(1 << 32)
    print(f"seed={seed}")
    rng = random.Random(seed)
    queues = [deque(rand_msg(rng, msg.CLASS_OF[(ROLE_UP, c)], "256B") for _ in range(3)) for c in range(6)]
    fl = Flit256Packer(ROLE_UP, False).pack(queues, credits={"h2d_rsp": 8})
    rx = Flit256RxState()
    assert unpack_flit256(ROLE_UP, False, fl, Flit256RxState()).crc_ok
    for bit in range(250 * 8):  # header, slots, CRD and the CRC itself
        bad = bytearray(fl)
        bad[bit // 8] ^= 1 << (bit % 8)
        res = unpack_flit256(ROLE_UP, False, bytes(bad), rx)
        assert not res.crc_ok, f"seed={seed} bit={bit}"
    assert rx.rollover == 0 and not rx.prev_d_counts  # bad flits leave the state alone
    # FEC bytes are outside the CRC (left to the PHY): ignored
    bad = bytearray(fl)
    bad[255] ^= 0x80
    assert unpack_flit256(ROLE_UP, False, bytes(bad), Flit256RxState()).crc_ok
    # int form: flit bit n = byte n//8, bit n%8
    assert unpack_flit256(ROLE_UP, False, int.from_bytes(fl, "little"), Flit256RxState()).crc_ok


# ------------------------------------------------------------------------------------ negatives
def test_group_limits_rejected() -> None:
    req = msg.H2DReq(opcode=1)
    rsp = msg.H2DRsp(opcode=4)
    ok = raw_flit({0: slot_of(0, req), 1: slot_of(0, req, rsp)})  # 2 H2D Req in group A: limit 2
    assert unpack_flit256(ROLE_DOWN, False, ok, Flit256RxState()).messages[0] == [req, req]
    bad = raw_flit({0: slot_of(0, req), 1: slot_of(0, req, rsp), 2: slot_of(0, req, rsp)})
    with pytest.raises(FlitError, match="h2d_req"):
        unpack_flit256(ROLE_DOWN, False, bad, Flit256RxState())
    # window BC: slot 7 (B) + slot 8 (C)
    bad_bc = raw_flit({7: slot_of(0, req, rsp), 8: slot_of(0, req, rsp), 9: slot_of(0, req, rsp)})
    with pytest.raises(FlitError, match="128B group"):
        unpack_flit256(ROLE_DOWN, False, bad_bc, Flit256RxState())
    # window DA across flits: 2 in D of flit 1, 1 in A of flit 2
    rx = Flit256RxState()
    unpack_flit256(ROLE_DOWN, False, raw_flit({13: slot_of(0, req, rsp), 14: slot_of(0, req, rsp)}), rx)
    with pytest.raises(FlitError, match="h2d_req"):
        unpack_flit256(ROLE_DOWN, False, raw_flit({0: slot_of(0, req)}), rx)
    # packer respects the same limits: 8 H2D Req need >= 2 flits' worth of groups
    q = [deque([msg.H2DReq(uqid=i) for i in range(8)]), deque(), deque(), deque(), deque(), deque()]
    got, flits = run_link(ROLE_DOWN, False, q)
    assert [m.uqid for m in got[0]] == list(range(8))


def test_illegal_formats_rejected() -> None:
    rx = Flit256RxState
    d2h = msg.D2HRsp(opcode=4, uqid=1)
    cases = {
        "reserved slot format": raw_flit({1: 9 | 1 << 4}),
        "not sent by role": raw_flit({1: slot_of(3, d2h)}),  # upstream format from ROLE_DOWN
        "message 0": raw_flit({1: slot_of(1, msg.H2DRsp()) & ~(1 << 4)}),
        "not tight": raw_flit({1: 1 | (msg.H2DRsp().pack("256B") << 4) | (msg.H2DRsp().pack("256B") << 84)}),
        "RSVD bits above": raw_flit({1: slot_of(1, msg.H2DRsp(), msg.H2DRsp(), msg.H2DRsp()) | 1 << 127}),
        "reserved bits": raw_flit({1: 1 | ((msg.H2DRsp().pack("256B") | 1 << 39) << 4)}),
        "invalid message 1 has nonzero": raw_flit({1: slot_of(1, msg.H2DRsp()) | 1 << 50}),
        "Empty flit": raw_flit({1: slot_of(1, msg.H2DRsp())}, crd=0x01),
        "reserved code": raw_flit({}, crd=0x1E),
    }
    for why, fl in cases.items():
        with pytest.raises(FlitError, match=why):
            unpack_flit256(ROLE_DOWN, False, fl, rx())
    with pytest.raises(FlitError, match="reserved slot format 8"):  # LLCTRL only in the H-slot
        unpack_flit256(ROLE_DOWN, False, raw_flit({1: 8}), rx())


def test_h_slot_dh_needs_small_rollover() -> None:
    rng = random.Random(3)
    dh = [rand_msg(rng, "h2d_dh", "256B") for _ in range(4)]
    # G12 in slot 14 with 4 DH -> 16 rollover slots: a DH in the next H-slot is still allowed
    rx = Flit256RxState()
    unpack_flit256(ROLE_DOWN, False, raw_flit({14: slot_of(12, *dh)}), rx)
    assert rx.rollover == 16
    nxt = raw_flit({0: slot_of(14, msg.M2SRwD(tag=1))}, data_slots={s: bytes(16) for s in range(1, 15)})
    res = unpack_flit256(ROLE_DOWN, False, nxt, rx)
    assert rx.rollover == 2 + 4 and len(res.messages[msg.CLS_C_DATA]) == 3
    # 4 D2H DH with BEP in slot 14 -> 20 rollover slots: a DH in the next H-slot is illegal
    udh = [msg.D2HData(uqid=i, bep=1) for i in range(4)]
    rx = Flit256RxState()
    unpack_flit256(ROLE_UP, False, raw_flit({14: slot_of(13, *udh)}), rx)
    assert rx.rollover == 20
    with pytest.raises(FlitError, match="rollover"):
        unpack_flit256(ROLE_UP, False, raw_flit({0: slot_of(15, msg.S2MDRS())}), rx)
    assert rx.rollover == 20  # unchanged after the error
    # ... and the packer never does it
    q = [deque(), deque(), deque(msg.D2HData(uqid=i, bep=1, trailer=i) for i in range(12)), deque(), deque(),
         deque()]
    got, _ = run_link(ROLE_UP, False, q)
    assert [m.trailer for m in got[msg.CLS_C_DATA]] == list(range(12))


def test_zero_extended_pbr_h4() -> None:
    small = msg.M2SReq(memop=1, tag=5, addr=9, spid=1, dpid=2)  # bits >= 108 are 0 -> fits H4
    big = msg.M2SReq(memop=1, tag=6, ckid=0x1FFF)  # CKID[12:8] beyond the H-slot
    q = [deque(), deque(), deque(), deque([big, small]), deque(), deque()]
    pk = Flit256Packer(ROLE_DOWN, True, 1)
    fl = pk.pack(q)
    res = unpack_flit256(ROLE_DOWN, True, fl, Flit256RxState())
    assert res.messages[msg.CLS_M_REQ] == [big, small]
    assert res.slot_formats[0] is None and res.slot_formats[1] == 4  # big cannot use H4: slot 0 empty


# ------------------------------------------------------------------------------------------- CRD
def test_crd_known_values() -> None:
    assert encode_crd({"h2d_req": 1}) == 0x04
    assert encode_crd({"d2h_req": 16}) == 0x0D
    assert encode_crd({"m2s_req": 1}) == 0x14
    assert encode_crd({"s2m_bisnp": 12}) == 0x1C
    assert encode_crd({"h2d_dh": 4}) == 0x05 << 5
    assert encode_crd({"m2s_rwd": 8}) == 0x16 << 5
    assert encode_crd({"s2m_ndr": 16}) == 0x1D << 10
    assert encode_crd({"d2h_rsp": 1, "d2h_dh": 1, "d2h_req": 1}) == 0x09 | 0x09 << 5 | 0x09 << 10
    assert encode_crd({}, empty=True) == 0x01
    assert decode_crd(0x01).empty and decode_crd(0x01).credits == {}
    assert decode_crd(0x14 << 10 | 0x08).credits == {"m2s_birsp": 1, "h2d_req": 16}
    assert decode_crd(0x1B << 10).credits == {"s2m_ndr": 8}
    assert f2.split_credits(21) == [16, 4, 1] and f2.split_credits(0) == []


@pytest.mark.parametrize("code", [0x02, 0x03, 0x0E, 0x0F, 0x10, 0x13, 0x1E, 0x1F])
def test_crd_reserved_codes(code: int) -> None:
    for fld in range(3):
        with pytest.raises(ValueError):
            decode_crd(code << (5 * fld))
    assert code != 0x01
    with pytest.raises(ValueError):
        decode_crd(0x01 << 5)  # Empty code only in CRD[4:0]
    with pytest.raises(ValueError):
        decode_crd(1 << 15)


def test_crd_all_channels_round_trip() -> None:
    for fld, chans in enumerate(f2.CRD_FIELDS):
        for mid in chans:
            for n in f2.CRD_VALUES:
                crd = encode_crd({mid: n})
                assert crd >> (5 * fld) and decode_crd(crd).credits == {mid: n}
    with pytest.raises(ValueError):
        encode_crd({"h2d_req": 3})
    with pytest.raises(ValueError):
        encode_crd({"h2d_req": 1, "d2h_req": 1})  # same field
    with pytest.raises(ValueError):
        encode_crd({"h2d_req": 1}, empty=True)
