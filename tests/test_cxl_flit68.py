"""68B flit model: header, credits, control flits, slot formats, packing rules, rollover/ADF."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.cxl import flit68 as f
from models.cxl.crc import crc16_68b
from models.cxl.messages import (CLASS_OF, MESSAGES, NCLS, ROLE_DOWN, ROLE_UP, RSVD, SPECS, D2HData, D2HReq,
                                 D2HRsp, H2DData, H2DRsp, M2SReq, M2SRwD, S2MDRS, S2MNDR)

M512 = (1 << 512) - 1


def rand_msg(mid: str, rng: random.Random):  # type: ignore[no-untyped-def]
    """A message with random values in every field that exists in 68B."""
    kw = {name: rng.getrandbits(w) for name, w in SPECS[mid].wire["68B"].fields if name != RSVD}
    if SPECS[mid].has_data:
        kw["data"] = rng.randbytes(64)
    return MESSAGES[mid](**kw)


def rand_item(mid: str, rng: random.Random, options: bool) -> f.LinkMsg:
    msg = rand_msg(mid, rng)
    be = None
    sz32 = False
    if options and mid in f.SZ32_OK and rng.random() < 0.3:
        sz32 = True
        half = int(getattr(msg, "chunkvalid", 0))
        data = bytearray(64)
        data[32 * half:32 * half + 32] = rng.randbytes(32)
        msg = msg.replace(data=bytes(data))
    if options and mid in f.BE_OK and rng.random() < 0.3:
        be = rng.getrandbits(64)
    return f.LinkMsg(msg, be, sz32)


def classes_68b(role: int) -> list[int]:
    return [c for c in range(NCLS) if f.class_supported_68b(role, c)]


def unpack_all(direction: str, flits: list[int], mdh: bool = False) -> tuple[list[f.RxFlit], f.Flit68Unpacker]:
    u = f.Flit68Unpacker(direction, mdh=mdh)
    return [u.unpack(x) for x in flits], u


def ctl_bits(llctrl: int, sub: int, payload: int = 0, extra: int = 0) -> int:
    return f.with_crc(1 | (llctrl << 32) | (sub << 36) | (payload << 64) | extra)


# ------------------------------------------------------------------ header and credits
def test_header_bit_positions() -> None:
    assert f.FlitHeader(type=1, slot_fmt=(0, 0, 0, 0), sz=0).encode() == 1
    assert f.FlitHeader(ak=1, slot_fmt=(0, 0, 0, 0), sz=0).encode() == 1 << 2
    assert f.FlitHeader(be=1, slot_fmt=(0, 0, 0, 0), sz=0).encode() == 1 << 3
    assert f.FlitHeader(sz=1, slot_fmt=(0, 0, 0, 0)).encode() == 1 << 4
    assert f.FlitHeader(sz=0, slot_fmt=(7, 0, 0, 0)).encode() == 7 << 5
    assert f.FlitHeader(sz=0, slot_fmt=(0, 7, 0, 0)).encode() == 7 << 8
    assert f.FlitHeader(sz=0, slot_fmt=(0, 0, 7, 0)).encode() == 7 << 11
    assert f.FlitHeader(sz=0, slot_fmt=(0, 0, 0, 7)).encode() == 7 << 14
    assert f.FlitHeader(sz=0, slot_fmt=(0, 0, 0, 0), rsp_crd=0xF).encode() == 0xF << 20
    assert f.FlitHeader(sz=0, slot_fmt=(0, 0, 0, 0), req_crd=0xF).encode() == 0xF << 24
    assert f.FlitHeader(sz=0, slot_fmt=(0, 0, 0, 0), data_crd=0xF).encode() == 0xF << 28


@given(st.integers(0, (1 << 32) - 1))
def test_header_decode_encode_round_trip(h: int) -> None:
    assert f.FlitHeader.decode(h).encode() == h


def test_credit_encoding_table() -> None:
    assert [f.decode_credit(v)[1] for v in range(8)] == [0, 1, 2, 4, 8, 16, 32, 64]
    assert f.decode_credit(0b1011) == (True, 4)
    assert f.encode_credit(64, mem=False) == 0b0111
    assert f.encode_credit(16, mem=True) == 0b1101
    with pytest.raises(ValueError):
        f.encode_credit(3, mem=False)
    assert [f.credit_chunk(n) for n in (0, 1, 3, 7, 9, 63, 64, 500)] == [0, 1, 2, 4, 8, 32, 64, 64]
    # ReqCrd -> class 0 (cache) / 3 (mem), RspCrd -> 1 / 4, DataCrd -> 2 / 5
    assert f.credits_from_fields(0b0001, 0b1010, 0b0111) == (0, 1, 64, 2, 0, 0)
    assert f.credits_from_fields(0b1100, 0, 0b1001) == (0, 0, 0, 0, 8, 1)
    fields = f.credit_fields_for([3, 0, 100, 5, 2, 1])
    assert f.credits_from_fields(*fields) == (0, 0, 64, 4, 2, 0)


def test_unsupported_channel_credits_dropped() -> None:
    # an upstream flit returns credits for downstream channels: RspCrd mem = M2S BIRsp (256B only)
    flit = f.with_crc(f.FlitHeader(rsp_crd=0b1100, req_crd=0b1001).encode())
    rx = f.Flit68Unpacker("up").unpack(flit)
    assert rx.credits == (0, 0, 0, 1, 0, 0)
    # a downstream flit: ReqCrd mem = S2M BISnp (256B only) is dropped, RspCrd mem = NDR kept
    flit = f.with_crc(f.FlitHeader(rsp_crd=0b1100, req_crd=0b1001).encode())
    rx = f.Flit68Unpacker("down").unpack(flit)
    assert rx.credits == (0, 0, 0, 0, 8, 0)


# ------------------------------------------------------------------ control flits
def test_control_flit_known_answers() -> None:
    assert f.retry_idle().encode() == (0xC341 << 512) | 1 | (1 << 32)
    assert f.retry_frame().encode() == (0x4198 << 512) | 1 | (1 << 32) | (3 << 36)
    # INIT.Param with version 0010b and wrap value 0: the section 2 vector (payload 0002h)
    assert f.init_param(wrap_value=0).encode() == (0xCCD2 << 512) | 1 | (0xC << 32) | (8 << 36) | (2 << 64)
    ip = f.init_param(wrap_value=31)
    assert ip.bits512() == 1 | (0xC << 32) | (8 << 36) | ((2 | (31 << 24)) << 64)
    assert f.ControlFlit.decode(ip.bits512()).wrap_value == 31


def test_llcrd_full_ack_layout() -> None:
    c = f.llcrd_ack(0xAB, rsp_crd=0x3, req_crd=0x9, data_crd=0x7)
    bits = c.bits512()
    # Full_Ack = {Ack[7:4], Ak, Ack[2:0]}: 0xAB = 1010_1011b -> Ak = bit 3 = 1
    assert (bits >> 2) & 1 == 1
    assert (bits >> 64) & 0xFF == 0xA3  # payload [7:4]=Ack[7:4], [3] RSVD, [2:0]=Ack[2:0]
    assert (bits >> 32) & 0xFF == 0x10  # LLCTRL 0000b, SubType 0001b
    assert (bits >> 20) & 0xFFF == 0x793
    d = f.ControlFlit.decode(bits)
    assert (d.name, d.full_ack, d.credits()) == ("LLCRD.Acknowledge", 0xAB, (0, 4, 64, 1, 0, 0))
    assert f.ControlFlit.decode(f.llcrd_ack(0x05).bits512()).ak == 0


def test_retry_req_ack_layout() -> None:
    req = f.retry_req(eseq=0x5A, num_retry=0x13, num_phy_reinit=0x1F)
    assert req.bits512() == 1 | (1 << 32) | (1 << 36) | ((0x5A | (0x13 << 16) | (0x1F << 21)) << 64)
    ack = f.retry_ack(eseq=0x22, num_retry=7, empty=1, viral=0, wrptr=0x33, num_free_buf=0x44, viral_ldid=0xBEEF)
    p = 1 | (7 << 3) | (0x33 << 8) | (0x22 << 16) | (0x44 << 24) | (0xBEEF << 32)
    assert ack.bits512() == 1 | (1 << 32) | (2 << 36) | (p << 64)
    d = f.ControlFlit.decode(ack.bits512())
    assert (d.eseq, d.num_retry, d.empty, d.wrptr, d.num_free_buf, d.viral_ldid) == (0x22, 7, 1, 0x33, 0x44, 0xBEEF)
    d = f.ControlFlit.decode(req.bits512())
    assert (d.name, d.eseq, d.num_retry, d.num_phy_reinit, d.retryable) == ("RETRY.Req", 0x5A, 0x13, 0x1F, False)


def test_control_flit_illegal() -> None:
    u = f.Flit68Unpacker("down")
    for bit in (40, 50, 63):  # static-0 bits [63:40]
        with pytest.raises(f.FlitError, match="static"):
            u.unpack(ctl_bits(1, 0, extra=1 << bit))
        assert f.parse_control(ctl_bits(1, 0, extra=1 << bit)) is None
    with pytest.raises(f.FlitError, match="reserved control"):
        u.unpack(ctl_bits(1, 5))
    with pytest.raises(f.FlitError, match="IDE"):
        u.unpack(ctl_bits(2, 0, extra=1 << 5))
    with pytest.raises(f.FlitError, match="reserved header"):
        u.unpack(ctl_bits(1, 0, extra=1 << 2))  # Ak is reserved in RETRY flits
    with pytest.raises(f.FlitError, match="reserved payload"):
        u.unpack(ctl_bits(1, 1, payload=1 << 8))
    with pytest.raises(f.FlitError, match="slots 1-3"):
        u.unpack(ctl_bits(0, 1, extra=1 << 300))
    assert f.ControlFlit.decode(ctl_bits(1, 1, payload=(1 << 8) | 3) & M512, strict=False).eseq == 3
    assert u.rollover == 0


# ------------------------------------------------------------------ slot formats
def test_slot_format_sizes_match_reference() -> None:
    bits = {(ROLE_DOWN, "H"): {0: 96, 1: 88, 2: 88, 3: 96, 4: 87, 5: 87},
            (ROLE_DOWN, "G"): {1: 128, 2: 120, 3: 128, 4: 111, 5: 119},
            (ROLE_UP, "H"): {0: 87, 1: 96, 2: 88, 3: 70, 4: 60, 5: 80},
            (ROLE_UP, "G"): {1: 119, 2: 116, 3: 68, 4: 100, 5: 60, 6: 120}}
    for key, table in bits.items():
        assert set(f.SLOT_FORMATS[key]) == set(table)
        for fmt, n in table.items():
            sf = f.SLOT_FORMATS[key][fmt]
            assert bin(sf.used_mask()).count("1") == n, (key, fmt)
            assert sf.used_mask() < (1 << (96 if key[1] == "H" else 128))
    # the split DevLoad of the first NDR (H4/G5 at slot bits 59:58, G4 at 99:98)
    ndr = S2MNDR(memop=0, tag=0, devload=3)
    for key, fmt, pos in (((ROLE_UP, "H"), 4, 58), ((ROLE_UP, "G"), 5, 58), ((ROLE_UP, "G"), 4, 98)):
        ent = [e for e in f.SLOT_FORMATS[key][fmt].entries if e[0] == "s2m_ndr"][0]
        valid_at = 40 if (key[1], fmt) == ("G", 4) else 0
        assert f._place(ndr.pack("68B"), ent[1]) == (1 << valid_at) | (3 << pos)


def test_known_layout_h1_down() -> None:
    dh = H2DData(cqid=0x123, data=bytes(range(64)))
    r0, r1 = H2DRsp(opcode=4, cqid=1), H2DRsp(opcode=1, cqid=2)
    flits = f.pack_messages("down", [(2, dh), (1, r0), (1, r1)])
    bits = flits[0]
    assert (bits >> 5) & 7 == 1  # H1 in slot 0
    slot0 = (bits >> 32) & ((1 << 96) - 1)
    assert slot0 & 0xFFFFFF == dh.pack("68B")
    assert (slot0 >> 24) & 0xFFFFFFFF == r0.pack("68B")
    assert (slot0 >> 56) & 0xFFFFFFFF == r1.pack("68B")
    for s in (1, 2, 3):  # chunks 0..2 in slots 1..3, chunk 3 rolls over to slot 1 of the next flit
        assert (bits >> (5 + 3 * s)) & 7 == 0
        assert (bits >> (128 * s)) & ((1 << 128) - 1) == int.from_bytes(bytes(range(16 * (s - 1), 16 * s)), "little")
    assert (flits[1] >> 8) & 7 == 0
    assert (flits[1] >> 128) & ((1 << 128) - 1) == int.from_bytes(bytes(range(48, 64)), "little")
    assert all(crc16_68b(x & M512) == x >> 512 for x in flits)


# ------------------------------------------------------------------ round trips
MIXES = st.tuples(st.integers(0, 2**32 - 1), st.sampled_from(["down", "up"]), st.booleans(), st.booleans(),
                  st.sampled_from([None, 1, 2]), st.integers(1, 40))


@settings(max_examples=60, deadline=None)
@given(MIXES)
def test_round_trip_random_mixes(params: tuple) -> None:  # type: ignore[type-arg]
    seed, direction, mdh, options, mpc, n = params
    print(f"seed={seed} direction={direction} mdh={mdh} options={options} max_per_class={mpc} n={n}")
    rng = random.Random(seed)
    role = f.tx_role(direction)
    items = []
    for _ in range(n):
        c = rng.choice(classes_68b(role))
        items.append((c, rand_item(CLASS_OF[(role, c)], rng, options)))
    queues: list[list[f.LinkMsg]] = [[m for k, m in items if k == c] for c in range(NCLS)]
    packer = f.Flit68Packer(direction, max_per_class=mpc, mdh=mdh)
    flits = []
    while any(queues) or packer.rollover:
        if packer.adf_due:
            flits.append(packer.pack_adf().flit)
            continue
        res = packer.pack(queues)
        counts = res.counts()
        assert sum(counts) or packer.rollover or res.header.slot_fmt[1] == 0, "no progress"
        if mpc is not None:
            assert max(counts) <= mpc
        for c, k in enumerate(counts):
            del queues[c][:k]
        flits.append(res.flit)
    assert flits == f.pack_messages(direction, items, mdh=mdh, max_per_class=mpc)
    rxs, u = unpack_all(direction, flits, mdh=mdh)
    assert u.rollover == 0
    got = [m for rx in rxs for m in rx.messages]
    for c in range(NCLS):
        assert [m for k, m in got if k == c] == [m for k, m in items if k == c], f"class {c}"
    assert all(rx.crc_ok and rx.kind in ("protocol", "adf") for rx in rxs)


def test_max_per_class_one() -> None:
    rng = random.Random(5)
    items = [(1, rand_item("h2d_rsp", rng, False)) for _ in range(8)] + [(0, rand_item("h2d_req", rng, False))
                                                                          for _ in range(4)]
    flits = f.pack_messages("down", items, max_per_class=1)
    rxs, _ = unpack_all("down", flits)
    assert len(flits) == 8
    for rx in rxs:
        assert sum(1 for k, _ in rx.messages if k == 1) == 1
        assert sum(1 for k, _ in rx.messages if k == 0) <= 1


def test_tight_packing_fills_one_flit() -> None:
    rng = random.Random(11)
    # downstream max: 4 H2D Rsp fit one G1 slot; 2 H2D Req + 2 Rsp go to H0 + G2-less formats
    items = [(1, rand_item("h2d_rsp", rng, False)) for _ in range(4)] + [(0, rand_item("h2d_req", rng, False))
                                                                          for _ in range(2)]
    assert len(f.pack_messages("down", items)) == 1
    items = [(1, rand_item("d2h_rsp", rng, False)) for _ in range(2)] + [(0, rand_item("d2h_req", rng, False))
                                                                          for _ in range(4)]
    assert len(f.pack_messages("up", items)) == 1


# ------------------------------------------------------------------ rollover and all-data flits
def test_mdh_rollover_forces_adfs() -> None:
    rng = random.Random(3)
    dhs = [D2HData(uqid=i, data=rng.randbytes(64)) for i in range(4)]
    flits = f.pack_messages("up", [(2, d) for d in dhs], mdh=True)
    rxs, u = unpack_all("up", flits, mdh=True)
    # H2 (4 DH) in slot 0 + 3 chunks; rollover 13 -> ADF, ADF, ADF; rollover 1 -> slot 1 of a protocol flit
    assert [r.kind for r in rxs] == ["protocol", "adf", "adf", "adf", "protocol"]
    assert rxs[0].header.slot_fmt == (2, 0, 0, 0)
    assert rxs[4].header.slot_fmt[1] == 0
    assert [m.msg for _, m in sum((r.messages for r in rxs), [])] == dhs
    # without MDH one DH per flit; the rollover still builds up (1, 2, 3, then 4 -> ADF)
    flits = f.pack_messages("up", [(2, d) for d in dhs])
    rxs, u = unpack_all("up", flits)
    assert [r.kind for r in rxs] == ["protocol"] * 4 + ["adf"]
    assert [m.msg for _, m in sum((r.messages for r in rxs), [])] == dhs


def test_shadow_rollover_tracking() -> None:
    rng = random.Random(8)
    u = f.Flit68Unpacker("down")
    rwd = M2SRwD(memop=1, tag=7, data=rng.randbytes(64))
    p = f.Flit68Packer("down")
    res = p.pack([[], [], [], [], [], [rwd]])
    assert res.header.slot_fmt == (4, 0, 0, 0) and p.rollover == 1 and not p.adf_due
    rx = u.unpack(res.flit)
    assert rx.messages == [] and u.rollover == 1
    res2 = p.pack([[], [H2DRsp(opcode=4)], [], [], [], []])
    assert res2.header.slot_fmt[1] == 0  # rollover 1 fills slot 1
    rx2 = u.unpack(res2.flit)
    assert [m.msg for _, m in rx2.messages] == [rwd, H2DRsp(opcode=4)] or \
        [m.msg for _, m in rx2.messages] == [H2DRsp(opcode=4), rwd]
    assert u.rollover == 0


def test_dh_in_last_slot_rolls_all_four_chunks_into_adf() -> None:
    rng = random.Random(9)
    p = f.Flit68Packer("down")
    reqs = [M2SReq(memop=1, tag=i) for i in range(2)]
    dh = H2DData(cqid=5, data=rng.randbytes(64))
    # 2 M2S Req fill H5 and G4(+DH) is the only way to send the DH: put it in slot 1..3
    rsps = [H2DRsp(opcode=1, cqid=i) for i in range(8)]
    res = p.pack([[], rsps, [dh], reqs, [], []])
    fm = res.header.slot_fmt
    dh_slot = [s for s in range(4) if fm[s] in f.SLOT_FORMATS[(ROLE_DOWN, "H" if s == 0 else "G")]
               and any(e[0] == "h2d_dh" for e in f.SLOT_FORMATS[(ROLE_DOWN, "H" if s == 0 else "G")][fm[s]].entries)]
    assert dh_slot, fm
    u = f.Flit68Unpacker("down")
    u.unpack(res.flit)
    assert u.rollover == p.rollover
    flits = []
    while p.rollover:
        flits.append(p.pack_adf().flit if p.adf_due else p.pack([[]] * 6).flit)
    got = [m for x in flits for _, m in u.unpack(x).messages]
    assert [m.msg for m in got if m.mid == "h2d_dh"] == [dh]


def test_sz32_and_be_round_trip() -> None:
    rng = random.Random(12)
    data = bytearray(64)
    data[32:] = rng.randbytes(32)
    dh = D2HData(uqid=3, chunkvalid=1, data=bytes(data))
    items = [(2, f.LinkMsg(dh, sz32=True)),
             (2, f.LinkMsg(D2HData(uqid=4, data=rng.randbytes(64)), be=0x0123_4567_89AB_CDEF)),
             (5, f.LinkMsg(S2MDRS(tag=9, data=bytes(rng.randbytes(32)) + bytes(32)), sz32=True))]
    flits = f.pack_messages("up", items)
    hdr0 = f.FlitHeader.decode(flits[0])
    assert hdr0.sz == 0 and hdr0.be == 0
    rxs, _ = unpack_all("up", flits)
    assert [m for r in rxs for _, m in r.messages] == [m for _, m in items]
    with pytest.raises(ValueError):
        f.check_link_msg(f.LinkMsg(M2SRwD(), sz32=True))  # RwD has no 32B transfer
    with pytest.raises(ValueError):
        f.check_link_msg(f.LinkMsg(H2DData(), be=1))  # H2D Data has no BE
    with pytest.raises(ValueError):
        f.check_link_msg(f.LinkMsg(H2DData(data=bytes(range(64))), sz32=True))  # unsent half not zero


# ------------------------------------------------------------------ illegal flits
def proto(direction: str, fmts: tuple[int, int, int, int], slots: dict[int, int], **hdr: int) -> int:
    bits = f.FlitHeader(slot_fmt=fmts, **hdr).encode()
    for s, v in slots.items():
        bits |= v << (32 if s == 0 else 128 * s)
    return f.with_crc(bits)


def test_illegal_protocol_flits_rejected() -> None:
    dh = H2DData(cqid=1).pack("68B")
    rsp = H2DRsp(opcode=4).pack("68B")
    cases = [
        ("down", proto("down", (0, 0, 1, 1), {1: 5}), "no data pending"),  # orphan data chunk
        ("down", proto("down", (7, 1, 1, 1), {}), "reserved slot format"),
        ("down", proto("down", (0, 7, 1, 1), {}), "reserved slot format"),
        ("down", proto("down", (0, 6, 1, 1), {}), "reserved slot format"),  # G6 does not exist downstream
        ("down", proto("down", (6, 1, 1, 1), {}), "IDE"),
        ("down", proto("down", (1, 1, 1, 1), {0: dh}), "pending"),  # header slot while data pending
        ("down", proto("down", (1, 0, 0, 2), {0: dh, 3: dh << 64}, sz=0), "more than one data header"),
        ("down", proto("down", (3, 0, 0, 0), {0: dh | (dh << 24)}), "MDH"),  # MDH not enabled
        ("down", proto("down", (4, 0, 0, 0), {0: M2SRwD().pack("68B")}, sz=0), "32B"),
        ("down", proto("down", (1, 0, 0, 0), {0: dh}, be=1), "BE=1"),
        ("down", proto("down", (1, 1, 1, 1), {0: rsp << 24}, rsvd=1 << 1), "RSVD"),
        ("down", proto("down", (1, 1, 1, 1), {0: rsp << 24}, rsvd=1 << 18), "RSVD"),
        ("down", proto("down", (0, 1, 1, 1), {0: (rsp << 64) | (1 << 95)}), "reserved bits"),  # Rsp RSVD bit 31
        ("down", proto("down", (1, 1, 1, 1), {0: 1 << 90}), "reserved bits"),  # H1 RSVD [95:88]
        ("down", proto("down", (0, 1, 1, 1), {0: 2}), "nonzero bits"),  # invalid H2D Req with bits set
        ("up", proto("up", (4, 5, 1, 1), {0: S2MNDR().pack("68B") | (S2MNDR().pack("68B") << 28),
                                          1: S2MNDR().pack("68B")}), "more than 2 s2m_ndr"),
    ]
    for direction, flit, reason in cases:
        u = f.Flit68Unpacker(direction)
        with pytest.raises(f.FlitError, match=reason):
            u.unpack(flit)
        assert u.rollover == 0


def test_mdh_rules() -> None:
    dh = H2DData(cqid=1).pack("68B")
    u = f.Flit68Unpacker("down", mdh=True)
    with pytest.raises(f.FlitError, match="fewer than 2"):
        u.unpack(proto("down", (3, 0, 0, 0), {0: dh}))
    with pytest.raises(f.FlitError, match="Sz=1"):
        u.unpack(proto("down", (3, 0, 0, 0), {0: dh | (dh << 24)}, sz=0))
    rx = u.unpack(proto("down", (3, 0, 0, 0), {0: dh | (dh << 24)}))
    assert rx.kind == "protocol" and u.rollover == 8 - 3 and u.adf_due  # rollover 5 > 3: ADF next
    assert u.unpack(f.with_crc(0)).kind == "adf" and u.rollover == 1


def test_crc_error_and_non_strict() -> None:
    u = f.Flit68Unpacker("down")
    good = f.pack_messages("down", [(1, H2DRsp(opcode=4))])[0]
    rx = u.unpack(good ^ (1 << 77))
    assert rx.kind == "crc_error" and not rx.crc_ok and not rx.messages
    bad = proto("down", (0, 1, 1, 1), {0: 2})  # invalid H2D Req with a stray bit
    assert f.Flit68Unpacker("down", strict=False).unpack(bad).messages == []
    assert len(u.unpack(good).messages) == 1


def test_data_never_in_slot0_and_rollover_fills_first_slots() -> None:
    rng = random.Random(21)
    p = f.Flit68Packer("up")
    queues = [[D2HReq(opcode=1, cqid=i) for i in range(6)], [D2HRsp(opcode=1) for _ in range(4)],
              [D2HData(uqid=i, data=rng.randbytes(64)) for i in range(6)], [], [S2MNDR() for _ in range(6)],
              [S2MDRS(tag=i, data=rng.randbytes(64)) for i in range(6)]]
    u = f.Flit68Unpacker("up")
    for _ in range(30):
        before = p.rollover
        if p.adf_due:
            res = p.pack_adf()
        else:
            res = p.pack(queues)
            for c, n in enumerate(res.counts()):
                del queues[c][:n]
            fm = res.header.slot_fmt
            assert fm[0] in f.SLOT_FORMATS[(ROLE_UP, "H")]  # slot 0 is always a header slot
            assert all(fm[s] == 0 for s in range(1, 1 + min(before, 3)))
        u.unpack(res.flit)
        assert u.rollover == p.rollover
    assert not any(queues) and p.rollover == 0
