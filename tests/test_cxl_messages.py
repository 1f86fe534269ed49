"""Tests for models/cxl/messages.py: tables, round trips, known answers, negative cases."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.cxl import messages as msg
from models.cxl.messages import (
    D2HData, D2HRsp, D2HReq, H2DData, H2DReq, H2DRsp, M2SReq, M2SRwD, S2MBISnp, S2MDRS, S2MNDR,
)

PAIRS = [(mid, fl) for mid, spec in msg.SPECS.items() for fl in msg.FLAVORS if fl in spec.wire]


def _msg_strategy(mid: str, flavor: str | None) -> st.SearchStrategy[msg.CxlMessage]:
    """Random valid message; fields absent from `flavor` are 0 (all fields random if flavor is None)."""
    spec = msg.SPECS[mid]
    present = None if flavor is None else {n for n, _ in spec.wire[flavor].fields}
    kw = {n: (st.integers(0, (1 << w) - 1) if present is None or n in present else st.just(0))
          for n, w in spec.canonical}
    if spec.has_data:
        kw["data"] = st.binary(min_size=64, max_size=64)
    return st.builds(msg.MESSAGES[mid], **kw)


# ----------------------------------------------------------------------------------------- tables
def test_tables_consistent() -> None:
    assert msg.table_errors() == []


@pytest.mark.parametrize("mid", msg.MESSAGE_IDS)
def test_section5_widths(mid: str) -> None:
    cls = msg.MESSAGES[mid]
    assert tuple(cls.width(f) for f in msg.FLAVORS) == msg.SECTION5_WIDTHS[mid]
    assert msg.SPECS[mid].canonical_width <= msg.CXL_HDR_W


def test_class_map_is_bijective() -> None:
    assert sorted(msg.CLASS_OF.values()) == sorted(msg.MESSAGE_IDS)
    assert msg.CLASS_OF[(msg.ROLE_DOWN, msg.CLS_M_RSP)] == "m2s_birsp"
    assert msg.CLASS_OF[(msg.ROLE_UP, msg.CLS_M_REQ)] == "s2m_bisnp"
    assert msg.CLASS_INDEX["s2m_drs"] == (msg.ROLE_UP, msg.CLS_M_DATA)


def test_spec_vs_ours_marking() -> None:
    for mid, spec in msg.SPECS.items():
        for fl, lay in spec.wire.items():
            expect_spec = fl == "68B" or mid == "s2m_drs"
            assert lay.is_spec == expect_spec, (mid, fl)


# ------------------------------------------------------------------------------------ round trips
@pytest.mark.parametrize("mid,flavor", PAIRS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_pack_unpack_round_trip(mid: str, flavor: str, data: st.DataObject) -> None:
    m = data.draw(_msg_strategy(mid, flavor))
    bits = m.pack(flavor)
    assert bits & 1 == 1
    assert 0 <= bits < (1 << msg.MESSAGES[mid].width(flavor))
    back = msg.MESSAGES[mid].unpack(flavor, bits, data=getattr(m, "data", None))
    assert back == m


@pytest.mark.parametrize("mid", msg.MESSAGE_IDS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_canonical_round_trip(mid: str, data: st.DataObject) -> None:
    m = data.draw(_msg_strategy(mid, None))
    hdr = m.to_canonical()
    assert 0 <= hdr < (1 << msg.SPECS[mid].canonical_width)
    assert msg.MESSAGES[mid].from_canonical(hdr, data=getattr(m, "data", None)) == m


@pytest.mark.parametrize("mid,flavor", PAIRS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_flavor_canonical_flavor(mid: str, flavor: str, data: st.DataObject) -> None:
    """wire -> message -> canonical -> message -> wire is the identity for legal wire values."""
    lay = msg.SPECS[mid].wire[flavor]
    bits = 1
    for name, lsb, w in lay.offsets()[1:]:
        if name != msg.RSVD:
            bits |= data.draw(st.integers(0, (1 << w) - 1)) << lsb
    cls = msg.MESSAGES[mid]
    hdr = cls.unpack(flavor, bits).to_canonical()
    assert cls.from_canonical(hdr).pack(flavor) == bits


@pytest.mark.parametrize("mid,flavor", PAIRS)
def test_every_field_lands_at_its_offset(mid: str, flavor: str) -> None:
    """Setting one field to all-ones sets exactly its wire bits (walks every field)."""
    lay = msg.SPECS[mid].wire[flavor]
    cls = msg.MESSAGES[mid]
    for name, lsb, w in lay.offsets()[1:]:
        if name == msg.RSVD:
            continue
        m = cls(**{name: (1 << w) - 1})
        assert m.pack(flavor) == 1 | (((1 << w) - 1) << lsb), name


# ---------------------------------------------------------------------------------- known answers
# Hand-derived from cxl-flits.md 1.5 (68B) and 4.2 (256B DRS); bit 0 = Valid.
def test_kat_d2h_rsp_68b() -> None:
    # Val[0] Opcode[5:1] UQID[17:6] RSVD[19:18]
    m = D2HRsp(opcode=msg.D2HRspOp.RSPIFWDM, uqid=0xABC)
    assert m.pack("68B") == 0b1 | (0x0F << 1) | (0xABC << 6) == 0x2AF1F


def test_kat_h2d_rsp_68b_go_e() -> None:
    # Val[0] Opcode[4:1] RspData[16:5] RSP_PRE[18:17] CQID[30:19] RSVD[31]
    m = H2DRsp(opcode=msg.H2DRspOp.GO, rspdata=msg.GOState.E, rsppre=2, cqid=0xFED)
    assert m.pack("68B") == 1 | (4 << 1) | (2 << 5) | (2 << 17) | (0xFED << 19)
    assert m.pack("68B") == 0x7F6C0049


def test_kat_h2d_req_68b() -> None:
    # Val[0] Opcode[3:1] Addr[51:6]->[49:4] UQID[61:50] RSVD[63:62]
    pa = 0xF_1234_5678_9AC0  # 52-bit physical address, line aligned
    m = H2DReq(opcode=msg.H2DReqOp.SNPINV, addr=pa >> 6, uqid=0x801)
    assert m.pack("68B") == 1 | (2 << 1) | ((pa >> 6) << 4) | (0x801 << 50)


def test_kat_d2h_req_68b() -> None:
    # Val[0] Opcode[5:1] CQID[17:6] NT[18] RSVD[25:19] Addr[51:6]->[71:26] RSVD[78:72]
    m = D2HReq(opcode=msg.D2HReqOp.RDOWN, cqid=0x00F, nt=1, addr=(1 << 46) - 1)
    assert m.pack("68B") == 1 | (2 << 1) | (0xF << 6) | (1 << 18) | (((1 << 46) - 1) << 26)


def test_kat_dh_68b() -> None:
    # D2H DH: Val[0] UQID[12:1] ChunkValid[13] Bogus[14] Poison[15] RSVD[16]
    assert D2HData(uqid=0x5A5, chunkvalid=1, poison=1).pack("68B") == 1 | (0x5A5 << 1) | (1 << 13) | (1 << 15)
    assert D2HData(bogus=1).pack("68B") == 0x4001
    # H2D DH: Val[0] CQID[12:1] ChunkValid[13] Poison[14] GO-Err[15] RSVD[23:16]
    assert H2DData(cqid=0xFFF, goerr=1).pack("68B") == 0x9FFF
    assert H2DData(poison=1).pack("68B") == 0x4001


def test_kat_m2s_req_68b_addr() -> None:
    # Val[0] MemOp[4:1] SnpType[7:5] MetaField[9:8] MetaValue[11:10] Tag[27:12] Addr[51:5]->[74:28]
    # TC[76:75] LD-ID[80:77] RSVD[86:81]
    pa = 0xA_BCDE_F012_3460  # Addr[5] = 1
    m = M2SReq(memop=msg.M2SReqOp.MEMRD, snptype=msg.SnpType.SNPDATA, metafield=3,
               metavalue=msg.MetaValue.SHARED, tag=0xBEEF, addr=pa >> 6, addr5=(pa >> 5) & 1, tc=1, ldid=0xA)
    expect = (1 | (1 << 1) | (1 << 5) | (3 << 8) | (3 << 10) | (0xBEEF << 12) | ((pa >> 5) << 28)
              | (1 << 75) | (0xA << 77))
    assert m.pack("68B") == expect
    assert (m.pack("68B") >> 28) & ((1 << 47) - 1) == pa >> 5


def test_kat_m2s_rwd_68b() -> None:
    # as M2S Req except Addr[51:6]->[73:28], Poison[74]
    m = M2SRwD(memop=msg.M2SRwDOp.MEMWR, tag=1, addr=3, poison=1, ldid=0xF)
    assert m.pack("68B") == 1 | (1 << 1) | (1 << 12) | (3 << 28) | (1 << 74) | (0xF << 77)


def test_kat_s2m_68b() -> None:
    # NDR: Val[0] MemOp[3:1] MetaField[5:4] MetaValue[7:6] Tag[23:8] LD-ID[27:24] DevLoad[29:28]
    m = S2MNDR(memop=msg.S2MNDROp.CMP_E, metafield=1, metavalue=2, tag=0x1234, ldid=5, devload=3)
    assert m.pack("68B") == 1 | (2 << 1) | (1 << 4) | (2 << 6) | (0x1234 << 8) | (5 << 24) | (3 << 28)
    # DRS: ... Poison[24] LD-ID[28:25] DevLoad[30:29] RSVD[39:31]
    d = S2MDRS(memop=msg.S2MDRSOp.MEMDATA_NXM, tag=0xFFFF, poison=1, ldid=0x9, devload=2)
    assert d.pack("68B") == 1 | (1 << 1) | (0xFFFF << 8) | (1 << 24) | (0x9 << 25) | (2 << 29)


def test_kat_s2m_drs_256b_and_pbr() -> None:
    # 256B HBR: Val[0] MemOp[3:1] MetaField[5:4] MetaValue[7:6] Tag[23:8] Poison[24] DevLoad[26:25]
    # LD-ID[30:27] TRP[31] RSVD[39:32]
    d = S2MDRS(memop=1, tag=0xA5A5, poison=1, devload=2, ldid=0xC, trp=1)
    assert d.pack("256B") == 1 | (1 << 1) | (0xA5A5 << 8) | (1 << 24) | (2 << 25) | (0xC << 27) | (1 << 31)
    # PBR: DPID[38:27], TRP[39], RSVD[47:40]
    p = S2MDRS(memop=1, tag=0xA5A5, devload=1, dpid=0xABC, trp=1)
    assert p.pack("PBR") == 1 | (1 << 1) | (0xA5A5 << 8) | (1 << 25) | (0xABC << 27) | (1 << 39)


def test_kat_canonical_m2s_req() -> None:
    # Canonical order (contract): memop, snptype, metafield, metavalue, tag, addr, addr5, ldid, tc, spid, dpid, ckid
    m = M2SReq(memop=0xF, tag=0x8001, addr=1, addr5=1, ldid=0x3, tc=0x2, spid=0x111, dpid=0x222, ckid=0x1ABC)
    expect = 0xF | (0x8001 << 11) | (1 << 27) | (1 << 73) | (3 << 74) | (2 << 78) | (0x111 << 80) \
        | (0x222 << 92) | (0x1ABC << 104)
    assert m.to_canonical() == expect
    assert msg.SPECS["m2s_req"].canonical_width == 117


def test_opcode_values() -> None:
    assert msg.D2HReqOp.RDSHARED == 3 and msg.D2HReqOp.CACHEFLUSHED == 0x10
    assert msg.H2DRspOp.GO == 4 and msg.H2DRspOp.GO_ERR_WRITEPULL == 0xF
    assert (msg.GOState.I, msg.GOState.S, msg.GOState.E, msg.GOState.M, msg.GOState.ERR) == (3, 1, 2, 6, 4)
    assert msg.S2MDRSOp.MEMDATA_NXM == 1 and msg.M2SReqOp.MEMSPECRD == 8


# ------------------------------------------------------------------------------------- negatives
@pytest.mark.parametrize("mid", msg.MESSAGE_IDS)
def test_out_of_range_names_field(mid: str) -> None:
    cls = msg.MESSAGES[mid]
    for name, w in msg.SPECS[mid].canonical:
        with pytest.raises(ValueError, match=name):
            cls(**{name: 1 << w})
        with pytest.raises(ValueError, match=name):
            cls(**{name: -1})
        m = cls()
        setattr(m, name, 1 << w)  # mutated after construction: pack re-checks
        with pytest.raises(ValueError, match=name):
            m.to_canonical()


@pytest.mark.parametrize("mid,flavor", PAIRS)
def test_reserved_valid_and_width_rejected(mid: str, flavor: str) -> None:
    cls = msg.MESSAGES[mid]
    lay = msg.SPECS[mid].wire[flavor]
    good = cls().pack(flavor)
    with pytest.raises(ValueError, match="Valid"):
        cls.unpack(flavor, good & ~1)
    with pytest.raises(ValueError):
        cls.unpack(flavor, good | (1 << lay.width))
    for name, lsb, w in lay.offsets()[1:]:
        if name == msg.RSVD:
            for b in range(lsb, lsb + w):
                with pytest.raises(ValueError, match="reserved"):
                    cls.unpack(flavor, good | (1 << b))


@pytest.mark.parametrize("mid,flavor", PAIRS)
def test_absent_field_must_be_zero(mid: str, flavor: str) -> None:
    cls = msg.MESSAGES[mid]
    present = {n for n, _ in msg.SPECS[mid].wire[flavor].fields}
    absent = [n for n, _ in msg.SPECS[mid].canonical if n not in present]
    for name in absent:
        with pytest.raises(ValueError, match=name):
            cls(**{name: 1}).pack(flavor)
        assert getattr(cls.unpack(flavor, cls().pack(flavor)), name) == 0


def test_absent_message_and_bad_flavor() -> None:
    assert S2MBISnp.width("68B") == 0 and msg.M2SBIRsp.width("68B") == 0
    with pytest.raises(ValueError, match="68B"):
        S2MBISnp().pack("68B")
    with pytest.raises(ValueError, match="68B"):
        S2MBISnp.unpack("68B", 1)
    with pytest.raises(ValueError, match="flavor"):
        D2HRsp().pack("128B")


def test_canonical_high_bits_and_bad_data() -> None:
    with pytest.raises(ValueError):
        D2HRsp.from_canonical(1 << msg.SPECS["d2h_rsp"].canonical_width)
    with pytest.raises(ValueError, match="data"):
        S2MDRS(data=bytes(63))
    with pytest.raises(ValueError, match="data"):
        D2HRsp.unpack("68B", 1, data=bytes(64))
