"""CXL.cache / CXL.mem message reference model: field tables, opcodes, pack/unpack.

Written from /work/shared/reference/cxl-flits.md (sections 1.5, 4.2, 5) and cxl-protocol.md.

Two representations per message:
  * wire layout, per flit flavour "68B", "256B" (256B HBR) and "PBR" (256B PBR): Valid at bit 0, then
    the fields LSB-first at fixed offsets; reserved bits (RSVD) must be zero.
  * canonical header (rtl/include/CONVENTIONS.md): the superset of the fields of all flavours,
    LSB-first from bit 0, no Valid bit, at most CXL_HDR_W = 128 bits.

Which layouts are spec and which are ours (see `WireLayout.origin`):
  * 68B: all ten messages exactly as cxl-flits.md 1.5 (spec).
  * 256B HBR S2M DRS and PBR S2M DRS: cxl-flits.md 4.2 (spec, G15/H15 text rendering).
  * every other 256B HBR / PBR layout is NOT public: OURS. Totals equal cxl-flits.md section 5
    exactly. Our rule ("R"): the 68B fields in 68B order (fields the flavour drops are removed;
    68B-only Addr[5] is dropped), then the new fields in the order
        CacheID, SPID, DPID, CKID, BEP, TRP
    then all reserved bits in one block at the top. Messages that only exist in 256B (M2S BIRsp,
    S2M BISnp) use Opcode, BI-ID, BITag, LowAddr|Addr, then SPID, DPID, then RSVD.
    One exception: S2M NDR 256B/PBR puts DevLoad before LD-ID/DPID, mirroring the spec's 256B DRS.
  * Canonical order: the 68B order (Addr[5] split into ADDR5), then the new fields in the order
    above; for M2S Req/RwD the order is the contract's example (memop .. addr, addr5, ldid, tc, ...).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import IntEnum
from types import MappingProxyType
from typing import ClassVar, Mapping, TypeVar

from models.common.bits import bit_mask, check_field, get_field

FLAVORS: tuple[str, ...] = ("68B", "256B", "PBR")
RSVD = "rsvd"
CXL_HDR_W = 128
CXL_DATA_W = 512
DATA_BYTES = 64
# 256B trailer widths (cxl-flits.md 4.3): D2H DH BEP -> 64b BE; M2S RwD TRP -> BE (+EMD) up to 96b;
# S2M DRS TRP -> 32b EMD. Carried in the dataclass field `trailer` (not part of the header).
TRAILER_W: Mapping[str, int] = MappingProxyType({"d2h_dh": 64, "m2s_rwd": 96, "s2m_drs": 32})

# ---------------------------------------------------------------------------------------------
# Opcode and field-value enums.  Member names are the upper-case suffixes used in cxl_defs.vh.
# ---------------------------------------------------------------------------------------------


class D2HReqOp(IntEnum):
    """D2H Req opcode (5 bit). Source: cxl-protocol.md [PMU, spec table 3-17]."""

    RDCURR = 0x01
    RDOWN = 0x02
    RDSHARED = 0x03
    RDANY = 0x04
    RDOWNNODATA = 0x05
    ITOMWR = 0x06
    WRCUR = 0x07
    CLFLUSH = 0x08
    CLEANEVICT = 0x09
    DIRTYEVICT = 0x0A
    CLEANEVICTNODATA = 0x0B
    WOWRINV = 0x0C
    WOWRINVF = 0x0D
    WRINV = 0x0E
    CACHEFLUSHED = 0x10


class D2HRspOp(IntEnum):
    """D2H Rsp opcode (5 bit). Source: cxl-protocol.md [PMU table 3-20]."""

    RSPSHITSE = 0x01
    RSPIHITI = 0x04
    RSPIHITSE = 0x05
    RSPVHITV = 0x06
    RSPSFWDM = 0x07
    RSPIFWDM = 0x0F
    RSPVFWDV = 0x16


class H2DReqOp(IntEnum):
    """H2D Req (snoop) opcode (3 bit). Source: cxl-protocol.md [PMU table 3-21]."""

    SNPDATA = 1
    SNPINV = 2
    SNPCUR = 3


class H2DRspOp(IntEnum):
    """H2D Rsp opcode (4 bit). Source: cxl-protocol.md [PMU table 3-22]."""

    WRITEPULL = 0x1
    GO = 0x4
    GO_WRITEPULL = 0x5
    EXTCMP = 0x6
    GO_WRITEPULL_DROP = 0x8
    FAST_GO_WRITEPULL = 0xD
    GO_ERR_WRITEPULL = 0xF


class GOState(IntEnum):
    """State granted by GO, carried in H2D Rsp RspData. Source: cxl-protocol.md [PMU table 3-22]."""

    I = 0b0011  # noqa: E741 - spec name
    S = 0b0001
    E = 0b0010
    M = 0b0110
    ERR = 0b0100


class M2SReqOp(IntEnum):
    """M2S Req MemOpcode (4 bit). Source: cxl-protocol.md (CXL.mem section)."""

    MEMINV = 0x0
    MEMRD = 0x1
    MEMRDDATA = 0x2
    MEMRDFWD = 0x3
    MEMWRFWD = 0x4
    MEMSPECRD = 0x8
    MEMINVNT = 0x9
    MEMCLNEVCT = 0xA


class M2SRwDOp(IntEnum):
    """M2S RwD MemOpcode (4 bit). Source: cxl-protocol.md."""

    MEMWR = 0x1
    MEMWRPTL = 0x2
    BICONFLICT = 0x4


class M2SBIRspOp(IntEnum):
    """M2S BIRsp opcode (4 bit). Source: cxl-protocol.md."""

    BIRSPI = 0x0
    BIRSPS = 0x1
    BIRSPE = 0x2
    BIRSPIBLK = 0x4
    BIRSPSBLK = 0x5
    BIRSPEBLK = 0x6


class S2MNDROp(IntEnum):
    """S2M NDR opcode (3 bit). Source: cxl-protocol.md."""

    CMP = 0
    CMP_S = 1
    CMP_E = 2
    CMP_M = 3
    BI_CONFLICTACK = 4


class S2MDRSOp(IntEnum):
    """S2M DRS opcode (3 bit). Source: cxl-protocol.md."""

    MEMDATA = 0
    MEMDATA_NXM = 1


class S2MBISnpOp(IntEnum):
    """S2M BISnp opcode (4 bit). Source: cxl-protocol.md ("Blk variants 4h-6h" in Cur/Data/Inv order)."""

    BISNPCUR = 0x0
    BISNPDATA = 0x1
    BISNPINV = 0x2
    BISNPCURBLK = 0x4
    BISNPDATABLK = 0x5
    BISNPINVBLK = 0x6


class SnpType(IntEnum):
    """M2S Req/RwD SnpType (3 bit). Source: cxl-protocol.md."""

    NOOP = 0
    SNPDATA = 1
    SNPCUR = 2
    SNPINV = 3


class MetaValue(IntEnum):
    """MetaValue (2 bit). Source: cxl-protocol.md (Invalid 00b, Any 10b, Shared 11b)."""

    INVALID = 0b00
    ANY = 0b10
    SHARED = 0b11


class DevLoad(IntEnum):
    """S2M NDR/DRS DevLoad (2 bit). Source: cxl-protocol.md (light, optimal, moderate, severe)."""

    LIGHT = 0
    OPTIMAL = 1
    MODERATE = 2
    SEVERE = 3


# ---------------------------------------------------------------------------------------------
# Link classes and roles (CONVENTIONS.md "Link classes and roles").
# ---------------------------------------------------------------------------------------------
ROLE_DOWN = 0  # host / switch downstream port
ROLE_UP = 1  # device
CLS_C_REQ, CLS_C_RSP, CLS_C_DATA, CLS_M_REQ, CLS_M_RSP, CLS_M_DATA = range(6)
NCLS = 6
CLASS_NAMES: tuple[str, ...] = ("C_REQ", "C_RSP", "C_DATA", "M_REQ", "M_RSP", "M_DATA")

# (transmitting role, class index) -> message id.
CLASS_OF: Mapping[tuple[int, int], str] = MappingProxyType({
    (ROLE_DOWN, CLS_C_REQ): "h2d_req",
    (ROLE_DOWN, CLS_C_RSP): "h2d_rsp",
    (ROLE_DOWN, CLS_C_DATA): "h2d_dh",
    (ROLE_DOWN, CLS_M_REQ): "m2s_req",
    (ROLE_DOWN, CLS_M_RSP): "m2s_birsp",
    (ROLE_DOWN, CLS_M_DATA): "m2s_rwd",
    (ROLE_UP, CLS_C_REQ): "d2h_req",
    (ROLE_UP, CLS_C_RSP): "d2h_rsp",
    (ROLE_UP, CLS_C_DATA): "d2h_dh",
    (ROLE_UP, CLS_M_REQ): "s2m_bisnp",
    (ROLE_UP, CLS_M_RSP): "s2m_ndr",
    (ROLE_UP, CLS_M_DATA): "s2m_drs",
})
# message id -> (transmitting role, class index)
CLASS_INDEX: Mapping[str, tuple[int, int]] = MappingProxyType({v: k for k, v in CLASS_OF.items()})

# ---------------------------------------------------------------------------------------------
# Field tables.
# ---------------------------------------------------------------------------------------------
FieldList = tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class WireLayout:
    """Wire layout of one message in one flavour: fields after the Valid bit, LSB-first."""

    fields: FieldList
    origin: str  # "spec: <where>" or "ours: <rule>"

    @property
    def width(self) -> int:
        """Total wire width including the Valid bit."""
        return 1 + sum(w for _, w in self.fields)

    @property
    def is_spec(self) -> bool:
        return self.origin.startswith("spec")

    def offsets(self) -> tuple[tuple[str, int, int], ...]:
        """(name, lsb, width) for Valid ("valid"), every field and every RSVD block."""
        out: list[tuple[str, int, int]] = [("valid", 0, 1)]
        pos = 1
        for name, w in self.fields:
            out.append((name, pos, w))
            pos += w
        return tuple(out)


@dataclass(frozen=True)
class MessageSpec:
    """Everything known about one message type."""

    mid: str  # message id, e.g. "m2s_req"
    title: str  # spec name, e.g. "M2S Req"
    canonical: FieldList  # superset, LSB-first from bit 0
    wire: Mapping[str, WireLayout]  # only the flavours the message exists in
    opcodes: type[IntEnum] | None
    has_data: bool

    def canonical_offsets(self) -> tuple[tuple[str, int, int], ...]:
        out: list[tuple[str, int, int]] = []
        pos = 0
        for name, w in self.canonical:
            out.append((name, pos, w))
            pos += w
        return tuple(out)

    @property
    def canonical_width(self) -> int:
        return sum(w for _, w in self.canonical)

    def width(self, flavor: str) -> int:
        _check_flavor(flavor)
        lay = self.wire.get(flavor)
        return lay.width if lay is not None else 0


_S68 = "spec: cxl-flits.md 1.5 (68B message layouts)"
_S256DRS = "spec: cxl-flits.md 4.2 (G15/H15 DRS text rendering)"
_OURS = "ours: rule R (68B order, then CacheID,SPID,DPID,CKID,BEP,TRP, then RSVD); totals = cxl-flits.md 5"
_OURS_BI = "ours: Opcode, BI-ID, BITag, LowAddr|Addr, SPID, DPID, RSVD; totals = cxl-flits.md 5"
_OURS_NDR = "ours: rule R but DevLoad before LD-ID/DPID as in the spec 256B DRS; totals = cxl-flits.md 5"


def _spec(mid: str, title: str, canonical: FieldList, wire: dict[str, WireLayout],
          opcodes: type[IntEnum] | None, has_data: bool) -> MessageSpec:
    return MessageSpec(mid, title, canonical, MappingProxyType(dict(wire)), opcodes, has_data)


R = RSVD
SPECS: Mapping[str, MessageSpec] = MappingProxyType({s.mid: s for s in (
    _spec("d2h_req", "D2H Req",
          (("opcode", 5), ("cqid", 12), ("nt", 1), ("addr", 46), ("cacheid", 4), ("spid", 12), ("dpid", 12)),
          {"68B": WireLayout((("opcode", 5), ("cqid", 12), ("nt", 1), (R, 7), ("addr", 46), (R, 7)), _S68),
           "256B": WireLayout((("opcode", 5), ("cqid", 12), ("nt", 1), ("addr", 46), ("cacheid", 4), (R, 7)), _OURS),
           "PBR": WireLayout((("opcode", 5), ("cqid", 12), ("nt", 1), ("addr", 46), ("spid", 12), ("dpid", 12),
                              (R, 7)), _OURS)},
          D2HReqOp, False),
    _spec("d2h_rsp", "D2H Rsp",
          (("opcode", 5), ("uqid", 12), ("dpid", 12)),
          {"68B": WireLayout((("opcode", 5), ("uqid", 12), (R, 2)), _S68),
           "256B": WireLayout((("opcode", 5), ("uqid", 12), (R, 6)), _OURS),
           "PBR": WireLayout((("opcode", 5), ("uqid", 12), ("dpid", 12), (R, 6)), _OURS)},
          D2HRspOp, False),
    _spec("d2h_dh", "D2H Data Header",
          (("uqid", 12), ("chunkvalid", 1), ("bogus", 1), ("poison", 1), ("bep", 1), ("dpid", 12)),
          {"68B": WireLayout((("uqid", 12), ("chunkvalid", 1), ("bogus", 1), ("poison", 1), (R, 1)), _S68),
           "256B": WireLayout((("uqid", 12), ("bogus", 1), ("poison", 1), ("bep", 1), (R, 8)), _OURS),
           "PBR": WireLayout((("uqid", 12), ("bogus", 1), ("poison", 1), ("bep", 1), ("dpid", 12), (R, 8)),
                             _OURS)},
          None, True),
    _spec("h2d_req", "H2D Req",
          (("opcode", 3), ("addr", 46), ("uqid", 12), ("cacheid", 4), ("spid", 12), ("dpid", 12)),
          {"68B": WireLayout((("opcode", 3), ("addr", 46), ("uqid", 12), (R, 2)), _S68),
           "256B": WireLayout((("opcode", 3), ("addr", 46), ("uqid", 12), ("cacheid", 4), (R, 6)), _OURS),
           "PBR": WireLayout((("opcode", 3), ("addr", 46), ("uqid", 12), ("spid", 12), ("dpid", 12), (R, 6)),
                             _OURS)},
          H2DReqOp, False),
    _spec("h2d_rsp", "H2D Rsp",
          (("opcode", 4), ("rspdata", 12), ("rsppre", 2), ("cqid", 12), ("cacheid", 4), ("dpid", 12)),
          {"68B": WireLayout((("opcode", 4), ("rspdata", 12), ("rsppre", 2), ("cqid", 12), (R, 1)), _S68),
           "256B": WireLayout((("opcode", 4), ("rspdata", 12), ("rsppre", 2), ("cqid", 12), ("cacheid", 4),
                               (R, 5)), _OURS),
           "PBR": WireLayout((("opcode", 4), ("rspdata", 12), ("rsppre", 2), ("cqid", 12), ("dpid", 12),
                              (R, 5)), _OURS)},
          H2DRspOp, False),
    _spec("h2d_dh", "H2D Data Header",
          (("cqid", 12), ("chunkvalid", 1), ("poison", 1), ("goerr", 1), ("cacheid", 4), ("dpid", 12)),
          {"68B": WireLayout((("cqid", 12), ("chunkvalid", 1), ("poison", 1), ("goerr", 1), (R, 8)), _S68),
           "256B": WireLayout((("cqid", 12), ("poison", 1), ("goerr", 1), ("cacheid", 4), (R, 9)), _OURS),
           "PBR": WireLayout((("cqid", 12), ("poison", 1), ("goerr", 1), ("dpid", 12), (R, 9)), _OURS)},
          None, True),
    _spec("m2s_req", "M2S Req",
          (("memop", 4), ("snptype", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16), ("addr", 46),
           ("addr5", 1), ("ldid", 4), ("tc", 2), ("spid", 12), ("dpid", 12), ("ckid", 13)),
          {"68B": WireLayout((("memop", 4), ("snptype", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16),
                              ("addr5", 1), ("addr", 46), ("tc", 2), ("ldid", 4), (R, 6)), _S68),
           "256B": WireLayout((("memop", 4), ("snptype", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16),
                               ("addr", 46), ("tc", 2), ("ldid", 4), ("ckid", 13), (R, 7)), _OURS),
           "PBR": WireLayout((("memop", 4), ("snptype", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16),
                              ("addr", 46), ("tc", 2), ("spid", 12), ("dpid", 12), ("ckid", 13), (R, 7)), _OURS)},
          M2SReqOp, False),
    _spec("m2s_rwd", "M2S RwD",
          (("memop", 4), ("snptype", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16), ("addr", 46),
           ("poison", 1), ("ldid", 4), ("tc", 2), ("spid", 12), ("dpid", 12), ("ckid", 13), ("trp", 1)),
          {"68B": WireLayout((("memop", 4), ("snptype", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16),
                              ("addr", 46), ("poison", 1), ("tc", 2), ("ldid", 4), (R, 6)), _S68),
           "256B": WireLayout((("memop", 4), ("snptype", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16),
                               ("addr", 46), ("poison", 1), ("tc", 2), ("ldid", 4), ("ckid", 13), ("trp", 1),
                               (R, 9)), _OURS),
           "PBR": WireLayout((("memop", 4), ("snptype", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16),
                              ("addr", 46), ("poison", 1), ("tc", 2), ("spid", 12), ("dpid", 12), ("ckid", 13),
                              ("trp", 1), (R, 9)), _OURS)},
          M2SRwDOp, True),
    _spec("m2s_birsp", "M2S BIRsp",
          (("opcode", 4), ("biid", 12), ("bitag", 12), ("lowaddr", 2), ("spid", 12), ("dpid", 12)),
          {"256B": WireLayout((("opcode", 4), ("biid", 12), ("bitag", 12), ("lowaddr", 2), (R, 9)), _OURS_BI),
           "PBR": WireLayout((("opcode", 4), ("bitag", 12), ("lowaddr", 2), ("spid", 12), ("dpid", 12), (R, 9)),
                             _OURS_BI)},
          M2SBIRspOp, False),
    _spec("s2m_ndr", "S2M NDR",
          (("memop", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16), ("ldid", 4), ("devload", 2),
           ("dpid", 12)),
          {"68B": WireLayout((("memop", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16), ("ldid", 4),
                              ("devload", 2)), _S68),
           "256B": WireLayout((("memop", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16), ("devload", 2),
                               ("ldid", 4), (R, 10)), _OURS_NDR),
           "PBR": WireLayout((("memop", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16), ("devload", 2),
                              ("dpid", 12), (R, 10)), _OURS_NDR)},
          S2MNDROp, False),
    _spec("s2m_drs", "S2M DRS",
          (("memop", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16), ("poison", 1), ("ldid", 4),
           ("devload", 2), ("dpid", 12), ("trp", 1)),
          {"68B": WireLayout((("memop", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16), ("poison", 1),
                              ("ldid", 4), ("devload", 2), (R, 9)), _S68),
           "256B": WireLayout((("memop", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16), ("poison", 1),
                               ("devload", 2), ("ldid", 4), ("trp", 1), (R, 8)), _S256DRS),
           "PBR": WireLayout((("memop", 3), ("metafield", 2), ("metavalue", 2), ("tag", 16), ("poison", 1),
                              ("devload", 2), ("dpid", 12), ("trp", 1), (R, 8)), _S256DRS)},
          S2MDRSOp, True),
    _spec("s2m_bisnp", "S2M BISnp",
          (("opcode", 4), ("biid", 12), ("bitag", 12), ("addr", 46), ("spid", 12), ("dpid", 12)),
          {"256B": WireLayout((("opcode", 4), ("biid", 12), ("bitag", 12), ("addr", 46), (R, 9)), _OURS_BI),
           "PBR": WireLayout((("opcode", 4), ("bitag", 12), ("addr", 46), ("spid", 12), ("dpid", 12), (R, 9)),
                             _OURS_BI)},
          S2MBISnpOp, False),
)})
del R

MESSAGE_IDS: tuple[str, ...] = tuple(SPECS)

# Totals from cxl-flits.md section 5 (bits incl. Valid; 0 = message absent in that flavour).
SECTION5_WIDTHS: Mapping[str, tuple[int, int, int]] = MappingProxyType({
    "d2h_req": (79, 76, 96), "d2h_rsp": (20, 24, 36), "d2h_dh": (17, 24, 36),
    "h2d_req": (64, 72, 92), "h2d_rsp": (32, 40, 48), "h2d_dh": (24, 28, 36),
    "m2s_req": (87, 100, 120), "m2s_rwd": (87, 104, 124), "m2s_birsp": (0, 40, 52),
    "s2m_bisnp": (0, 84, 96), "s2m_ndr": (30, 40, 48), "s2m_drs": (40, 40, 48),
})


def _check_flavor(flavor: str) -> None:
    if flavor not in FLAVORS:
        raise ValueError(f"unknown flavor {flavor!r}; expected one of {FLAVORS}")


def table_errors() -> list[str]:
    """Consistency problems in SPECS (empty list when the tables are sound)."""
    errs: list[str] = []
    for mid, spec in SPECS.items():
        cw = dict(spec.canonical)
        if len(cw) != len(spec.canonical):
            errs.append(f"{mid}: duplicate canonical field")
        if spec.canonical_width > CXL_HDR_W:
            errs.append(f"{mid}: canonical width {spec.canonical_width} > {CXL_HDR_W}")
        for i, flavor in enumerate(FLAVORS):
            if spec.width(flavor) != SECTION5_WIDTHS[mid][i]:
                errs.append(f"{mid} {flavor}: width {spec.width(flavor)} != {SECTION5_WIDTHS[mid][i]}")
            lay = spec.wire.get(flavor)
            if lay is None:
                continue
            names = [n for n, _ in lay.fields if n != RSVD]
            if len(set(names)) != len(names):
                errs.append(f"{mid} {flavor}: duplicate wire field")
            for name, w in lay.fields:
                if name != RSVD and cw.get(name) != w:
                    errs.append(f"{mid} {flavor}: field {name} width {w} != canonical {cw.get(name)}")
    return errs


# ---------------------------------------------------------------------------------------------
# Message dataclasses.
# ---------------------------------------------------------------------------------------------
M = TypeVar("M", bound="CxlMessage")


class CxlMessage:
    """Behaviour shared by all message dataclasses (subclasses set MID and declare the fields)."""

    MID: ClassVar[str]

    @classmethod
    def spec(cls) -> MessageSpec:
        return SPECS[cls.MID]

    @classmethod
    def width(cls, flavor: str) -> int:
        """Wire width incl. Valid in `flavor`, 0 if the message does not exist there."""
        return SPECS[cls.MID].width(flavor)

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """Range-check every header field (and data/poison); raises ValueError naming the field."""
        for name, w in SPECS[self.MID].canonical:
            check_field(f"{self.MID}.{name}", getattr(self, name), w)
        if SPECS[self.MID].has_data:
            data = getattr(self, "data")
            if not isinstance(data, (bytes, bytearray)) or len(data) != DATA_BYTES:
                raise ValueError(f"field {self.MID}.data: expected {DATA_BYTES} bytes")
        if self.MID in TRAILER_W:
            check_field(f"{self.MID}.trailer", getattr(self, "trailer"), TRAILER_W[self.MID])

    def header_values(self) -> dict[str, int]:
        """Canonical field name -> int value (validated)."""
        self.check()
        return {name: int(getattr(self, name)) for name, _ in SPECS[self.MID].canonical}

    def pack(self, flavor: str) -> int:
        """Wire bits of the header in `flavor`, Valid (bit 0) = 1. Data is not included."""
        _check_flavor(flavor)
        spec = SPECS[self.MID]
        lay = spec.wire.get(flavor)
        if lay is None:
            raise ValueError(f"{self.MID} does not exist in {flavor} flits")
        vals = self.header_values()
        present = {n for n, _ in lay.fields}
        for name, v in vals.items():
            if v and name not in present:
                raise ValueError(f"field {self.MID}.{name} is absent in {flavor} but nonzero ({v:#x})")
        bits = 1
        for name, lsb, w in lay.offsets()[1:]:
            if name != RSVD:
                bits |= vals[name] << lsb
        return bits

    @classmethod
    def unpack(cls: type[M], flavor: str, bits: int, data: bytes | None = None) -> M:
        """Parse wire bits; raises ValueError on Valid=0, nonzero RSVD bits or excess width."""
        _check_flavor(flavor)
        spec = SPECS[cls.MID]
        lay = spec.wire.get(flavor)
        if lay is None:
            raise ValueError(f"{cls.MID} does not exist in {flavor} flits")
        if bits < 0 or bits >> lay.width:
            raise ValueError(f"{cls.MID} {flavor}: value wider than {lay.width} bits")
        if not bits & 1:
            raise ValueError(f"{cls.MID} {flavor}: Valid bit is 0")
        vals: dict[str, int] = {name: 0 for name, _ in spec.canonical}
        for name, lsb, w in lay.offsets()[1:]:
            v = get_field(bits, lsb, w)
            if name == RSVD:
                if v:
                    raise ValueError(f"{cls.MID} {flavor}: reserved bits [{lsb + w - 1}:{lsb}] = {v:#x}")
            else:
                vals[name] = v
        return cls._build(vals, data)

    def to_canonical(self) -> int:
        """Canonical header (CONVENTIONS.md): fields LSB-first from bit 0, no Valid bit."""
        vals = self.header_values()
        hdr = 0
        for name, lsb, _ in SPECS[self.MID].canonical_offsets():
            hdr |= vals[name] << lsb
        return hdr

    @classmethod
    def from_canonical(cls: type[M], hdr: int, data: bytes | None = None) -> M:
        """Inverse of to_canonical; raises ValueError if bits above the used width are set."""
        spec = SPECS[cls.MID]
        if hdr < 0 or hdr >> spec.canonical_width:
            raise ValueError(f"{cls.MID}: canonical header has bits set above bit {spec.canonical_width - 1}")
        vals = {name: get_field(hdr, lsb, w) for name, lsb, w in spec.canonical_offsets()}
        return cls._build(vals, data)

    def header_equal(self, other: object) -> bool:
        """Same type and same header fields (data and trailer ignored)."""
        return type(other) is type(self) and self.header_values() == other.header_values()  # type: ignore[attr-defined]

    @classmethod
    def _build(cls: type[M], vals: dict[str, int], data: bytes | None) -> M:
        if SPECS[cls.MID].has_data:
            return cls(**vals, data=bytes(DATA_BYTES) if data is None else bytes(data))  # type: ignore[call-arg]
        if data is not None:
            raise ValueError(f"{cls.MID} carries no data")
        return cls(**vals)  # type: ignore[call-arg]

    def replace(self: M, **changes: object) -> M:
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]


_ZERO_LINE = bytes(DATA_BYTES)


@dataclass
class D2HReq(CxlMessage):
    MID: ClassVar[str] = "d2h_req"
    opcode: int = 0
    cqid: int = 0
    nt: int = 0
    addr: int = 0  # Addr[51:6]
    cacheid: int = 0
    spid: int = 0
    dpid: int = 0


@dataclass
class D2HRsp(CxlMessage):
    MID: ClassVar[str] = "d2h_rsp"
    opcode: int = 0
    uqid: int = 0
    dpid: int = 0


@dataclass
class D2HData(CxlMessage):
    MID: ClassVar[str] = "d2h_dh"
    uqid: int = 0
    chunkvalid: int = 0
    bogus: int = 0
    poison: int = 0
    bep: int = 0
    dpid: int = 0
    data: bytes = _ZERO_LINE
    trailer: int = 0  # 256B trailer (BE/EMD) sent when bep/trp = 1; not part of the header


@dataclass
class H2DReq(CxlMessage):
    MID: ClassVar[str] = "h2d_req"
    opcode: int = 0
    addr: int = 0  # Addr[51:6]
    uqid: int = 0
    cacheid: int = 0
    spid: int = 0
    dpid: int = 0


@dataclass
class H2DRsp(CxlMessage):
    MID: ClassVar[str] = "h2d_rsp"
    opcode: int = 0
    rspdata: int = 0
    rsppre: int = 0
    cqid: int = 0
    cacheid: int = 0
    dpid: int = 0


@dataclass
class H2DData(CxlMessage):
    MID: ClassVar[str] = "h2d_dh"
    cqid: int = 0
    chunkvalid: int = 0
    poison: int = 0
    goerr: int = 0
    cacheid: int = 0
    dpid: int = 0
    data: bytes = _ZERO_LINE


@dataclass
class M2SReq(CxlMessage):
    MID: ClassVar[str] = "m2s_req"
    memop: int = 0
    snptype: int = 0
    metafield: int = 0
    metavalue: int = 0
    tag: int = 0
    addr: int = 0  # Addr[51:6]
    addr5: int = 0  # Addr[5], 68B only
    ldid: int = 0
    tc: int = 0
    spid: int = 0
    dpid: int = 0
    ckid: int = 0


@dataclass
class M2SRwD(CxlMessage):
    MID: ClassVar[str] = "m2s_rwd"
    memop: int = 0
    snptype: int = 0
    metafield: int = 0
    metavalue: int = 0
    tag: int = 0
    addr: int = 0  # Addr[51:6]
    poison: int = 0
    ldid: int = 0
    tc: int = 0
    spid: int = 0
    dpid: int = 0
    ckid: int = 0
    trp: int = 0
    data: bytes = _ZERO_LINE
    trailer: int = 0  # 256B trailer (BE/EMD) sent when bep/trp = 1; not part of the header


@dataclass
class M2SBIRsp(CxlMessage):
    MID: ClassVar[str] = "m2s_birsp"
    opcode: int = 0
    biid: int = 0
    bitag: int = 0
    lowaddr: int = 0
    spid: int = 0
    dpid: int = 0


@dataclass
class S2MNDR(CxlMessage):
    MID: ClassVar[str] = "s2m_ndr"
    memop: int = 0
    metafield: int = 0
    metavalue: int = 0
    tag: int = 0
    ldid: int = 0
    devload: int = 0
    dpid: int = 0


@dataclass
class S2MDRS(CxlMessage):
    MID: ClassVar[str] = "s2m_drs"
    memop: int = 0
    metafield: int = 0
    metavalue: int = 0
    tag: int = 0
    poison: int = 0
    ldid: int = 0
    devload: int = 0
    dpid: int = 0
    trp: int = 0
    data: bytes = _ZERO_LINE
    trailer: int = 0  # 256B trailer (BE/EMD) sent when bep/trp = 1; not part of the header


@dataclass
class S2MBISnp(CxlMessage):
    MID: ClassVar[str] = "s2m_bisnp"
    opcode: int = 0
    biid: int = 0
    bitag: int = 0
    addr: int = 0  # Addr[51:6]
    spid: int = 0
    dpid: int = 0


MESSAGES: Mapping[str, type[CxlMessage]] = MappingProxyType({c.MID: c for c in (
    D2HReq, D2HRsp, D2HData, H2DReq, H2DRsp, H2DData, M2SReq, M2SRwD, M2SBIRsp, S2MNDR, S2MDRS, S2MBISnp)})


def message_class(mid: str) -> type[CxlMessage]:
    """Dataclass for message id `mid` (KeyError if unknown)."""
    return MESSAGES[mid]


def wire_width(mid: str, flavor: str) -> int:
    """Wire width incl. Valid of message `mid` in `flavor` (0 if absent)."""
    return SPECS[mid].width(flavor)


def unpack_message(mid: str, flavor: str, bits: int) -> CxlMessage:
    return MESSAGES[mid].unpack(flavor, bits)


def _self_check() -> None:
    errs = table_errors()
    if errs:
        raise AssertionError("models.cxl.messages tables inconsistent: " + "; ".join(errs))
    for mid, cls in MESSAGES.items():
        names = [f.name for f in dataclasses.fields(cls) if f.name not in ("data", "trailer")]
        if names != [n for n, _ in SPECS[mid].canonical]:
            raise AssertionError(f"{mid}: dataclass fields {names} differ from canonical table")


_self_check()

__all__ = [
    "FLAVORS", "RSVD", "CXL_HDR_W", "CXL_DATA_W", "DATA_BYTES", "TRAILER_W", "WireLayout", "MessageSpec", "SPECS",
    "MESSAGE_IDS", "SECTION5_WIDTHS", "MESSAGES", "CLASS_OF", "CLASS_INDEX", "CLASS_NAMES", "NCLS",
    "ROLE_DOWN", "ROLE_UP", "CLS_C_REQ", "CLS_C_RSP", "CLS_C_DATA", "CLS_M_REQ", "CLS_M_RSP", "CLS_M_DATA",
    "CxlMessage", "D2HReq", "D2HRsp", "D2HData", "H2DReq", "H2DRsp", "H2DData", "M2SReq", "M2SRwD",
    "M2SBIRsp", "S2MNDR", "S2MDRS", "S2MBISnp", "D2HReqOp", "D2HRspOp", "H2DReqOp", "H2DRspOp", "GOState",
    "M2SReqOp", "M2SRwDOp", "M2SBIRspOp", "S2MNDROp", "S2MDRSOp", "S2MBISnpOp", "SnpType", "MetaValue",
    "DevLoad", "message_class", "wire_width", "unpack_message", "table_errors",
]
