"""68B flit reference model: header, slot formats, data rollover, control flits, packer/unpacker.

Written from /work/shared/reference/cxl-flits.md section 1 (spec 4.2) and CONVENTIONS.md.
Wire format: a full flit is a 528-bit int, bits [511:0] + CRC-16 at [527:512]; flit bit n is
byte n/8, bit n%8. Slot 0 is flit bits [127:32] (96 b), slot n = 1..3 is [128n+127:128n].

Our reading of points the reference leaves open (documented here, enforced by the unpacker):
  * Data chunks of a data header (DH) are a FIFO: once a DH is sent, every following G slot
    (in that flit and the next ones) is a G0 data slot until its chunks are done; rollover
    chunks therefore fill slots 1..r (spec 1.6). A G0 slot with no data pending is illegal and so
    is a header G slot while data is pending. Slot 0 is always a header slot (H0..H6), so a
    data chunk in slot 0 cannot even be encoded.
  * Sz/BE in a flit header describe the (single, non-MDH) DH of that flit; with an MDH slot they
    must be Sz=1, BE=0. Chunks are sent in line order, then the BE chunk (BE[63:0] at slot bits
    [63:0]). A 32B transfer sends the 32B half chosen by ChunkValid (cache DHs; 1 = upper) or the
    lower half (S2M DRS, which has no such bit); the other half must be zero.
  * strict=True (default): header RSVD bits, slot RSVD bits, RSVD bits inside messages and all
    bits of invalid (Valid=0) messages must be zero. This is stricter than the spec (receivers may
    ignore RSVD) on purpose, so TX bugs in our RTL show up; pass strict=False to relax.
  * Credits for a channel that does not exist in 68B (S2M BISnp / M2S BIRsp) are dropped.
  * IDE (H6 MAC slot, CTL_FMT=001b control flits) is not implemented: rejected with FlitError.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from models.common.bits import bit_mask, get_field
from models.cxl.crc import FLIT68_DATA_BITS, crc16_68b, flit68_crc_ok
from models.cxl.messages import (CLASS_INDEX, CLASS_OF, MESSAGES, NCLS, ROLE_DOWN, ROLE_UP, RSVD, SPECS,
                                 CxlMessage)

FLAVOR = "68B"
FLIT_BITS = FLIT68_DATA_BITS  # 512
FLIT_W = 528
NSLOTS = 4
SLOT0_LSB = 32
H_SLOT_BITS = 96
G_SLOT_BITS = 128
CHUNK_BYTES = 16
CHUNK_BITS = 128
LINE_CHUNKS = 4
ADF_CHUNKS = 4
MAX_ROLLOVER_IN_PROTOCOL = 3  # rollover > 3 forces an all-data flit
FMT_G0_DATA = 0
FMT_MAC = 6
FMT_RSVD = 7
EMPTY_H_FMT = 0  # H0 with nothing valid
EMPTY_G_FMT = 1  # G1 with nothing valid (G0 would mean data)

# flit header (cxl-flits.md 1.2)
HDR_TYPE, HDR_AK, HDR_BE, HDR_SZ = 0, 2, 3, 4
HDR_SLOT_FMT_LSB = (5, 8, 11, 14)
HDR_RSPCRD, HDR_REQCRD, HDR_DATACRD = 20, 24, 28
HDR_RSVD_MASK = (1 << 1) | (0b111 << 17)
TYPE_PROTOCOL, TYPE_CONTROL = 0, 1

# control flit (cxl-flits.md 1.7)
CTL_FMT_LSB, LLCTRL_LSB, SUBTYPE_LSB, PAYLOAD_LSB = 5, 32, 36, 64
CTL_STATIC_ZERO_MASK = bit_mask(24) << 40  # flit bits [63:40] are static 0
CTL_FMT_LLCRD_RETRY_INIT = 0
CTL_FMT_IDE = 1
LLCTRL_LLCRD, LLCTRL_RETRY, LLCTRL_IDE, LLCTRL_INIT = 0x0, 0x1, 0x2, 0xC
SUB_LLCRD_ACK = 0x1
SUB_RETRY_IDLE, SUB_RETRY_REQ, SUB_RETRY_ACK, SUB_RETRY_FRAME = 0x0, 0x1, 0x2, 0x3
SUB_INIT_PARAM = 0x8
INIT_VERSION_CXL2 = 0b0010
LLR_WRAP_DEFAULT = 9

# credit return encoding (cxl-flits.md 1.3): bits[2:0] -> credits, bit 3 = CXL.mem
CREDIT_VALUES: tuple[int, ...] = (0, 1, 2, 4, 8, 16, 32, 64)
CREDIT_MEM_BIT = 0x8
# header credit field -> (cache class, mem class) it returns credits for
CRD_FIELD_CLASSES: Mapping[str, tuple[int, int]] = {"req": (0, 3), "rsp": (1, 4), "data": (2, 5)}

# Sz/BE legality per data channel (cxl-flits.md 1.2, Table 4-3)
SZ32_OK = frozenset({"h2d_dh", "d2h_dh", "s2m_drs"})
BE_OK = frozenset({"m2s_rwd", "d2h_dh"})

# maximum messages of one type in one flit (cxl-flits.md 1.6)
MAX_PER_FLIT: Mapping[int, Mapping[str, int]] = {
    ROLE_UP: {"d2h_req": 4, "d2h_rsp": 2, "d2h_dh": 4, "s2m_ndr": 2, "s2m_drs": 3},
    ROLE_DOWN: {"h2d_req": 2, "h2d_rsp": 4, "h2d_dh": 4, "m2s_req": 2, "m2s_rwd": 1},
}


class FlitError(ValueError):
    """An illegal 68B flit; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# ---------------------------------------------------------------------------------------------
# Directions
# ---------------------------------------------------------------------------------------------
_DIR_NAMES: Mapping[str, int] = {"down": ROLE_DOWN, "h2d": ROLE_DOWN, "m2s": ROLE_DOWN,
                                 "up": ROLE_UP, "d2h": ROLE_UP, "s2m": ROLE_UP}


def tx_role(direction: int | str) -> int:
    """Role of the transmitter: ROLE_DOWN for "down"/"H2D"/"M2S"/0, ROLE_UP for "up"/"D2H"/"S2M"/1."""
    if isinstance(direction, str):
        try:
            return _DIR_NAMES[direction.lower()]
        except KeyError:
            raise ValueError(f"unknown direction {direction!r}") from None
    if direction in (ROLE_DOWN, ROLE_UP):
        return int(direction)
    raise ValueError(f"unknown direction {direction!r}")


def is_data_mid(mid: str) -> bool:
    return SPECS[mid].has_data


def class_supported_68b(role: int, cls: int) -> bool:
    """True when (transmitting role, class) has a message in 68B flits."""
    return SPECS[CLASS_OF[(role, cls)]].width(FLAVOR) > 0


# ---------------------------------------------------------------------------------------------
# Credit fields
# ---------------------------------------------------------------------------------------------
def encode_credit(count: int, mem: bool) -> int:
    """4-bit RspCrd/ReqCrd/DataCrd value returning exactly ``count`` credits (must be encodable)."""
    if count not in CREDIT_VALUES:
        raise ValueError(f"{count} credits cannot be encoded (legal: {CREDIT_VALUES})")
    return CREDIT_VALUES.index(count) | (CREDIT_MEM_BIT if mem else 0)


def decode_credit(value: int) -> tuple[bool, int]:
    """(mem, count) of a 4-bit credit field."""
    if not 0 <= value < 16:
        raise ValueError("credit field is 4 bits")
    return bool(value & CREDIT_MEM_BIT), CREDIT_VALUES[value & 0x7]


def credit_chunk(pending: int) -> int:
    """Largest encodable credit count not above ``pending``."""
    return max(v for v in CREDIT_VALUES if v <= max(pending, 0))


def credits_from_fields(rsp_crd: int, req_crd: int, data_crd: int) -> tuple[int, ...]:
    """Credits returned per class index (0..5) by the three header fields."""
    out = [0] * NCLS
    for name, value in (("rsp", rsp_crd), ("req", req_crd), ("data", data_crd)):
        mem, count = decode_credit(value)
        out[CRD_FIELD_CLASSES[name][1 if mem else 0]] += count
    return tuple(out)


def credit_fields_for(pending: Sequence[int]) -> tuple[int, int, int]:
    """(rsp_crd, req_crd, data_crd) returning as much of ``pending`` (per class) as one flit can.

    Per field the class with more pending credits wins (cache on a tie). The caller subtracts
    :func:`credits_from_fields` of the result from its pending counts.
    """
    vals: dict[str, int] = {}
    for name, (c_cache, c_mem) in CRD_FIELD_CLASSES.items():
        mem = pending[c_mem] > pending[c_cache]
        n = credit_chunk(pending[c_mem] if mem else pending[c_cache])
        vals[name] = encode_credit(n, mem and n > 0)
    return vals["rsp"], vals["req"], vals["data"]


# ---------------------------------------------------------------------------------------------
# Flit header
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FlitHeader:
    """32-bit protocol flit header (flit bits [31:0])."""

    type: int = TYPE_PROTOCOL
    ak: int = 0
    be: int = 0
    sz: int = 1
    slot_fmt: tuple[int, int, int, int] = (EMPTY_H_FMT, EMPTY_G_FMT, EMPTY_G_FMT, EMPTY_G_FMT)
    rsp_crd: int = 0
    req_crd: int = 0
    data_crd: int = 0
    rsvd: int = 0  # value of the RSVD bits (1, 19:17) as found in the flit; must be 0

    def encode(self) -> int:
        for name, v, w in (("type", self.type, 1), ("ak", self.ak, 1), ("be", self.be, 1), ("sz", self.sz, 1),
                           ("rsp_crd", self.rsp_crd, 4), ("req_crd", self.req_crd, 4),
                           ("data_crd", self.data_crd, 4)):
            if not 0 <= v < (1 << w):
                raise ValueError(f"header field {name}={v} out of range")
        if len(self.slot_fmt) != NSLOTS or any(not 0 <= f < 8 for f in self.slot_fmt):
            raise ValueError(f"bad slot formats {self.slot_fmt}")
        if self.rsvd & ~HDR_RSVD_MASK:
            raise ValueError("rsvd holds only header bits 1 and 19:17")
        bits = (self.type << HDR_TYPE) | (self.ak << HDR_AK) | (self.be << HDR_BE) | (self.sz << HDR_SZ)
        for lsb, f in zip(HDR_SLOT_FMT_LSB, self.slot_fmt):
            bits |= f << lsb
        bits |= (self.rsp_crd << HDR_RSPCRD) | (self.req_crd << HDR_REQCRD) | (self.data_crd << HDR_DATACRD)
        return bits | self.rsvd

    @classmethod
    def decode(cls, flit: int) -> "FlitHeader":
        h = flit & 0xFFFF_FFFF
        return cls(type=get_field(h, HDR_TYPE, 1), ak=get_field(h, HDR_AK, 1), be=get_field(h, HDR_BE, 1),
                   sz=get_field(h, HDR_SZ, 1),
                   slot_fmt=tuple(get_field(h, lsb, 3) for lsb in HDR_SLOT_FMT_LSB),  # type: ignore[arg-type]
                   rsp_crd=get_field(h, HDR_RSPCRD, 4), req_crd=get_field(h, HDR_REQCRD, 4),
                   data_crd=get_field(h, HDR_DATACRD, 4), rsvd=h & HDR_RSVD_MASK)

    def credits(self) -> tuple[int, ...]:
        return credits_from_fields(self.rsp_crd, self.req_crd, self.data_crd)


# ---------------------------------------------------------------------------------------------
# Slot formats (cxl-flits.md 1.4). A format is a tuple of message entries; an entry is
# (message id, pieces) and a piece is (message lsb, width, slot lsb): the first NDR of H4/G4/G5
# upstream has its DevLoad[1:0] (message bits 29:28) split off above the second NDR.
# ---------------------------------------------------------------------------------------------
Piece = tuple[int, int, int]
Entry = tuple[str, tuple[Piece, ...]]


def _e(mid: str, slot_lsb: int) -> Entry:
    return (mid, ((0, SPECS[mid].width(FLAVOR), slot_lsb),))


def _ndr_split(lo_lsb: int, devload_lsb: int) -> Entry:
    return ("s2m_ndr", ((0, 28, lo_lsb), (28, 2, devload_lsb)))


@dataclass(frozen=True)
class SlotFormat:
    """One H or G slot format of one direction."""

    name: str
    entries: tuple[Entry, ...]
    mdh: bool = False  # a multi-data-header slot

    def used_mask(self) -> int:
        m = 0
        for _, pieces in self.entries:
            for _, w, s in pieces:
                m |= bit_mask(w) << s
        return m


_DOWN_H: dict[int, SlotFormat] = {
    0: SlotFormat("H0", (_e("h2d_req", 0), _e("h2d_rsp", 64))),
    1: SlotFormat("H1", (_e("h2d_dh", 0), _e("h2d_rsp", 24), _e("h2d_rsp", 56))),
    2: SlotFormat("H2", (_e("h2d_req", 0), _e("h2d_dh", 64))),
    3: SlotFormat("H3", tuple(_e("h2d_dh", 24 * i) for i in range(4)), mdh=True),
    4: SlotFormat("H4", (_e("m2s_rwd", 0),)),
    5: SlotFormat("H5", (_e("m2s_req", 0),)),
}
_DOWN_G: dict[int, SlotFormat] = {
    1: SlotFormat("G1", tuple(_e("h2d_rsp", 32 * i) for i in range(4))),
    2: SlotFormat("G2", (_e("h2d_req", 0), _e("h2d_dh", 64), _e("h2d_rsp", 88))),
    3: SlotFormat("G3", tuple(_e("h2d_dh", 24 * i) for i in range(4)) + (_e("h2d_rsp", 96),), mdh=True),
    4: SlotFormat("G4", (_e("m2s_req", 0), _e("h2d_dh", 88))),
    5: SlotFormat("G5", (_e("m2s_rwd", 0), _e("h2d_rsp", 88))),
}
_UP_H: dict[int, SlotFormat] = {
    0: SlotFormat("H0", (_e("d2h_dh", 0), _e("d2h_rsp", 17), _e("d2h_rsp", 37), _e("s2m_ndr", 57))),
    1: SlotFormat("H1", (_e("d2h_req", 0), _e("d2h_dh", 79))),
    2: SlotFormat("H2", tuple(_e("d2h_dh", 17 * i) for i in range(4)) + (_e("d2h_rsp", 68),), mdh=True),
    3: SlotFormat("H3", (_e("s2m_drs", 0), _e("s2m_ndr", 40))),
    4: SlotFormat("H4", (_ndr_split(0, 58), _e("s2m_ndr", 28))),
    5: SlotFormat("H5", (_e("s2m_drs", 0), _e("s2m_drs", 40)), mdh=True),
}
_UP_G: dict[int, SlotFormat] = {
    1: SlotFormat("G1", (_e("d2h_req", 0), _e("d2h_rsp", 79), _e("d2h_rsp", 99))),
    2: SlotFormat("G2", (_e("d2h_req", 0), _e("d2h_dh", 79), _e("d2h_rsp", 96))),
    3: SlotFormat("G3", tuple(_e("d2h_dh", 17 * i) for i in range(4)), mdh=True),
    4: SlotFormat("G4", (_e("s2m_drs", 0), _ndr_split(40, 98), _e("s2m_ndr", 68))),
    5: SlotFormat("G5", (_ndr_split(0, 58), _e("s2m_ndr", 28))),
    6: SlotFormat("G6", tuple(_e("s2m_drs", 40 * i) for i in range(3)), mdh=True),
}
SLOT_FORMATS: Mapping[tuple[int, str], Mapping[int, SlotFormat]] = {
    (ROLE_DOWN, "H"): _DOWN_H, (ROLE_DOWN, "G"): _DOWN_G, (ROLE_UP, "H"): _UP_H, (ROLE_UP, "G"): _UP_G,
}


def slot_format(direction: int | str, slot: int, fmt: int) -> SlotFormat:
    """Header slot format ``fmt`` of ``slot`` (0 = H slot); FlitError if G0/MAC/reserved."""
    role = tx_role(direction)
    kind = "H" if slot == 0 else "G"
    if fmt == FMT_MAC and kind == "H":
        raise FlitError("slot 0 format H6 (IDE MAC) is not supported")
    table = SLOT_FORMATS[(role, kind)]
    if fmt not in table:
        raise FlitError(f"reserved slot format {fmt:03b}b in slot {slot}")
    return table[fmt]


def _defined_bits(mid: str) -> int:
    """Mask of the Valid bit and the non-RSVD fields of ``mid`` in 68B."""
    m = 0
    for name, lsb, w in SPECS[mid].wire[FLAVOR].offsets():
        if name != RSVD:
            m |= bit_mask(w) << lsb
    return m


def _slot_lsb(slot: int) -> int:
    return SLOT0_LSB if slot == 0 else G_SLOT_BITS * slot


def _slot_bits(slot: int) -> int:
    return H_SLOT_BITS if slot == 0 else G_SLOT_BITS


def _place(mbits: int, pieces: tuple[Piece, ...]) -> int:
    out = 0
    for mlsb, w, slsb in pieces:
        out |= get_field(mbits, mlsb, w) << slsb
    return out


def _extract(sbits: int, pieces: tuple[Piece, ...]) -> int:
    out = 0
    for mlsb, w, slsb in pieces:
        out |= get_field(sbits, slsb, w) << mlsb
    return out


# ---------------------------------------------------------------------------------------------
# Messages on the link: header + the 68B-only transfer options.
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LinkMsg:
    """One message queued on / delivered by a link: the message plus its transfer options.

    ``be`` (64-bit byte enables, sent as a BE chunk) is legal for D2H Data and M2S RwD only;
    ``sz32`` (32B transfer) for H2D Data, D2H Data and S2M DRS (see the module docstring).
    """

    msg: CxlMessage
    be: int | None = None
    sz32: bool = False

    @property
    def mid(self) -> str:
        return self.msg.MID

    def half(self) -> int:
        """32B transfers: which half of the line is sent (0 lower, 1 upper)."""
        return int(getattr(self.msg, "chunkvalid", 0))

    def chunks(self) -> list[int]:
        """128-bit data chunks in send order (line chunks, then the BE chunk)."""
        data: bytes = getattr(self.msg, "data")
        idx = range(2 * self.half(), 2 * self.half() + 2) if self.sz32 else range(LINE_CHUNKS)
        out = [int.from_bytes(data[CHUNK_BYTES * i:CHUNK_BYTES * (i + 1)], "little") for i in idx]
        if self.be is not None:
            out.append(self.be)
        return out

    def n_chunks(self) -> int:
        return (2 if self.sz32 else LINE_CHUNKS) + (1 if self.be is not None else 0)


def as_link_msg(item: CxlMessage | LinkMsg) -> LinkMsg:
    return item if isinstance(item, LinkMsg) else LinkMsg(item)


def check_link_msg(item: LinkMsg, role: int | None = None) -> None:
    """ValueError unless ``item`` can be sent in a 68B flit (by ``role`` when given)."""
    mid = item.mid
    if SPECS[mid].width(FLAVOR) == 0:
        raise ValueError(f"{mid} does not exist in 68B flits")
    if role is not None and CLASS_INDEX[mid][0] != role:
        raise ValueError(f"{mid} is not transmitted by role {role}")
    item.msg.pack(FLAVOR)  # range and presence checks of the header fields
    has_data = is_data_mid(mid)
    if not has_data and (item.be is not None or item.sz32):
        raise ValueError(f"{mid} carries no data: be/sz32 not allowed")
    if item.sz32:
        if mid not in SZ32_OK:
            raise ValueError(f"32B transfer not allowed for {mid}")
        data: bytes = getattr(item.msg, "data")
        keep = item.half()
        other = data[32 * (1 - keep):32 * (2 - keep)]
        if any(other):
            raise ValueError("32B transfer: the half that is not sent must be zero")
    if item.be is not None:
        if mid not in BE_OK:
            raise ValueError(f"byte enables not allowed for {mid}")
        if not 0 <= item.be < (1 << 64):
            raise ValueError("be is a 64-bit value")


# ---------------------------------------------------------------------------------------------
# Control flits (cxl-flits.md 1.7)
# ---------------------------------------------------------------------------------------------
_CTL_NAMES: Mapping[tuple[int, int], str] = {
    (LLCTRL_LLCRD, SUB_LLCRD_ACK): "LLCRD.Acknowledge",
    (LLCTRL_RETRY, SUB_RETRY_IDLE): "RETRY.Idle",
    (LLCTRL_RETRY, SUB_RETRY_REQ): "RETRY.Req",
    (LLCTRL_RETRY, SUB_RETRY_ACK): "RETRY.Ack",
    (LLCTRL_RETRY, SUB_RETRY_FRAME): "RETRY.Frame",
    (LLCTRL_INIT, SUB_INIT_PARAM): "INIT.Param",
}
# payload bits that are defined (everything else is RSVD) per control flit
_CTL_PAYLOAD_MASK: Mapping[str, int] = {
    "LLCRD.Acknowledge": 0xF7,
    "RETRY.Idle": 0,
    "RETRY.Req": 0xFF | (0x1F << 16) | (0x1F << 21),
    "RETRY.Ack": 0x3 | (0x1F << 3) | (0xFF << 8) | (0xFF << 16) | (0xFF << 24) | (0xFFFF << 32),
    "RETRY.Frame": 0,
    "INIT.Param": 0xF | (0xFF << 24),
}
_CTL_HDR_USED_LLCRD = (1 << HDR_TYPE) | (1 << HDR_AK) | (0b111 << CTL_FMT_LSB) | (0xFFF << HDR_RSPCRD)
_CTL_HDR_USED_OTHER = (1 << HDR_TYPE) | (0b111 << CTL_FMT_LSB)


@dataclass(frozen=True)
class ControlFlit:
    """A 68B control flit (Type=1, CTL_FMT=000b). Only LLCRD carries Ak and credits."""

    llctrl: int
    subtype: int
    payload: int = 0
    ak: int = 0
    rsp_crd: int = 0
    req_crd: int = 0
    data_crd: int = 0

    @property
    def name(self) -> str:
        return _CTL_NAMES[(self.llctrl, self.subtype)]

    @property
    def retryable(self) -> bool:
        """LLCRD and INIT are stored in the LLRB; RETRY.* are not."""
        return self.llctrl != LLCTRL_RETRY

    @property
    def is_retry(self) -> bool:
        return self.llctrl == LLCTRL_RETRY

    # LLCRD.Acknowledge
    @property
    def full_ack(self) -> int:
        """Full_Ack = {Ack[7:4], Ak, Ack[2:0]} (LLCRD.Acknowledge)."""
        return (self.payload & 0xF7) | (self.ak << 3)

    # RETRY.Req / RETRY.Ack
    @property
    def eseq(self) -> int:
        return get_field(self.payload, 16 if self.subtype == SUB_RETRY_ACK else 0, 8)

    @property
    def num_retry(self) -> int:
        return get_field(self.payload, 3, 5) if self.subtype == SUB_RETRY_ACK else get_field(self.payload, 16, 5)

    @property
    def num_phy_reinit(self) -> int:
        return get_field(self.payload, 21, 5)

    @property
    def empty(self) -> int:
        return get_field(self.payload, 0, 1)

    @property
    def viral(self) -> int:
        return get_field(self.payload, 1, 1)

    @property
    def wrptr(self) -> int:
        return get_field(self.payload, 8, 8)

    @property
    def num_free_buf(self) -> int:
        return get_field(self.payload, 24, 8)

    @property
    def viral_ldid(self) -> int:
        return get_field(self.payload, 32, 16)

    # INIT.Param
    @property
    def version(self) -> int:
        return get_field(self.payload, 0, 4)

    @property
    def wrap_value(self) -> int:
        return get_field(self.payload, 24, 8)

    def credits(self) -> tuple[int, ...]:
        return credits_from_fields(self.rsp_crd, self.req_crd, self.data_crd)

    def bits512(self) -> int:
        name = self.name  # KeyError for an unknown encoding
        if self.payload & ~_CTL_PAYLOAD_MASK[name]:
            raise ValueError(f"{name}: payload has reserved bits set")
        if name != "LLCRD.Acknowledge" and (self.ak or self.rsp_crd or self.req_crd or self.data_crd):
            raise ValueError(f"{name}: Ak and credit fields are reserved")
        bits = (TYPE_CONTROL << HDR_TYPE) | (self.ak << HDR_AK) | (CTL_FMT_LLCRD_RETRY_INIT << CTL_FMT_LSB)
        bits |= (self.rsp_crd << HDR_RSPCRD) | (self.req_crd << HDR_REQCRD) | (self.data_crd << HDR_DATACRD)
        bits |= (self.llctrl << LLCTRL_LSB) | (self.subtype << SUBTYPE_LSB) | (self.payload << PAYLOAD_LSB)
        return bits

    def encode(self) -> int:
        """528-bit flit with CRC."""
        return with_crc(self.bits512())

    @classmethod
    def decode(cls, flit: int, strict: bool = True) -> "ControlFlit":
        """Parse a control flit (bits [511:0] used; CRC not checked); FlitError if illegal."""
        if not flit & 1:
            raise FlitError("not a control flit (Type=0)")
        ctl_fmt = get_field(flit, CTL_FMT_LSB, 3)
        if ctl_fmt == CTL_FMT_IDE:
            raise FlitError("IDE control flits are not supported")
        if ctl_fmt != CTL_FMT_LLCRD_RETRY_INIT:
            raise FlitError(f"reserved CTL_FMT {ctl_fmt:03b}b")
        if flit & CTL_STATIC_ZERO_MASK:
            raise FlitError("control flit static-0 bits [63:40] are not zero")
        llctrl, sub = get_field(flit, LLCTRL_LSB, 4), get_field(flit, SUBTYPE_LSB, 4)
        name = _CTL_NAMES.get((llctrl, sub))
        if name is None:
            raise FlitError(f"reserved control flit LLCTRL={llctrl:04b}b SubType={sub:04b}b")
        payload = get_field(flit, PAYLOAD_LSB, 64)
        llcrd = llctrl == LLCTRL_LLCRD
        if strict:
            used = _CTL_HDR_USED_LLCRD if llcrd else _CTL_HDR_USED_OTHER
            if (flit & 0xFFFF_FFFF) & ~used:
                raise FlitError(f"{name}: reserved header bits set")
            if (flit >> G_SLOT_BITS) & bit_mask(FLIT_BITS - G_SLOT_BITS):
                raise FlitError(f"{name}: reserved slots 1-3 not zero")
            if payload & ~_CTL_PAYLOAD_MASK[name]:
                raise FlitError(f"{name}: reserved payload bits set")
        else:
            payload &= _CTL_PAYLOAD_MASK[name]
        if not llcrd:
            return cls(llctrl, sub, payload)
        return cls(llctrl, sub, payload, ak=get_field(flit, HDR_AK, 1), rsp_crd=get_field(flit, HDR_RSPCRD, 4),
                   req_crd=get_field(flit, HDR_REQCRD, 4), data_crd=get_field(flit, HDR_DATACRD, 4))


def llcrd_ack(full_ack: int, rsp_crd: int = 0, req_crd: int = 0, data_crd: int = 0) -> ControlFlit:
    """LLCRD.Acknowledge returning ``full_ack`` (0..255) flits and the given credit fields."""
    if not 0 <= full_ack < 256:
        raise ValueError("Full_Ack is 8 bits")
    return ControlFlit(LLCTRL_LLCRD, SUB_LLCRD_ACK, full_ack & 0xF7, (full_ack >> 3) & 1, rsp_crd, req_crd, data_crd)


def retry_idle() -> ControlFlit:
    return ControlFlit(LLCTRL_RETRY, SUB_RETRY_IDLE)


def retry_frame() -> ControlFlit:
    return ControlFlit(LLCTRL_RETRY, SUB_RETRY_FRAME)


def retry_req(eseq: int, num_retry: int = 0, num_phy_reinit: int = 0) -> ControlFlit:
    if not (0 <= eseq < 256 and 0 <= num_retry < 32 and 0 <= num_phy_reinit < 32):
        raise ValueError("RETRY.Req field out of range")
    return ControlFlit(LLCTRL_RETRY, SUB_RETRY_REQ, eseq | (num_retry << 16) | (num_phy_reinit << 21))


def retry_ack(eseq: int, num_retry: int = 0, empty: int = 0, viral: int = 0, wrptr: int = 0,
              num_free_buf: int = 0, viral_ldid: int = 0) -> ControlFlit:
    vals = ((empty, 1), (viral, 1), (num_retry, 5), (wrptr, 8), (eseq, 8), (num_free_buf, 8), (viral_ldid, 16))
    if any(not 0 <= v < (1 << w) for v, w in vals):
        raise ValueError("RETRY.Ack field out of range")
    payload = (empty | (viral << 1) | (num_retry << 3) | (wrptr << 8) | (eseq << 16) | (num_free_buf << 24)
               | (viral_ldid << 32))
    return ControlFlit(LLCTRL_RETRY, SUB_RETRY_ACK, payload)


def init_param(wrap_value: int = LLR_WRAP_DEFAULT, version: int = INIT_VERSION_CXL2) -> ControlFlit:
    """INIT.Param: [3:0] version, [31:24] LLR wrap value (sequence counters wrap after it)."""
    if not (0 <= wrap_value < 256 and 0 <= version < 16):
        raise ValueError("INIT.Param field out of range")
    return ControlFlit(LLCTRL_INIT, SUB_INIT_PARAM, version | (wrap_value << 24))


def with_crc(bits512: int) -> int:
    """528-bit flit: ``bits512`` with its CRC-16 at [527:512]."""
    return bits512 | (crc16_68b(bits512) << FLIT_BITS)


def parse_control(flit528: int, strict: bool = True) -> ControlFlit | None:
    """Control flit of a CRC-clean 528-bit flit, or None if it is not a legal control flit.

    Stateless: used by a receiver that is discarding flits (it cannot know the ADF state).
    """
    bits = flit528 & bit_mask(FLIT_BITS)
    if not bits & 1:
        return None
    try:
        return ControlFlit.decode(bits, strict)
    except FlitError:
        return None


# ---------------------------------------------------------------------------------------------
# Packer
# ---------------------------------------------------------------------------------------------
@dataclass
class _PendingData:
    """A data header whose chunks are (partly) still to come."""

    cls: int
    item: LinkMsg
    chunks: list[int]  # TX: chunks still to send; RX: chunks received so far
    total: int


@dataclass
class PackResult:
    """One packed flit and what went into it."""

    flit: int  # 528 bits with CRC
    kind: str  # "protocol" or "adf"
    header: FlitHeader | None
    sent: list[tuple[int, LinkMsg]] = field(default_factory=list)  # (class, message) in flit order

    def counts(self) -> list[int]:
        out = [0] * NCLS
        for c, _ in self.sent:
            out[c] += 1
        return out


def _per_class(limit: int | Sequence[int] | None) -> list[int | None]:
    if limit is None or isinstance(limit, int):
        return [limit] * NCLS
    if len(limit) != NCLS:
        raise ValueError("per-class limits need 6 entries")
    return list(limit)


class Flit68Packer:
    """Greedy packer of per-class queues into legal 68B flits (one direction).

    Keeps the TX rollover state. Call :meth:`pack` for each protocol flit, or :meth:`pack_adf`
    while :attr:`adf_due` (an all-data flit must come next; nothing else may be sent then).
    """

    def __init__(self, direction: int | str, max_per_class: int | Sequence[int] | None = None,
                 mdh: bool = False) -> None:
        self.role = tx_role(direction)
        self.max_per_class = _per_class(max_per_class)
        self.mdh = mdh
        self._pending: deque[int] = deque()  # data chunks still to send, in order
        self._prio = 0  # rotating class priority (fairness between formats)

    @property
    def rollover(self) -> int:
        """Data chunks still owed by headers already sent."""
        return len(self._pending)

    @property
    def adf_due(self) -> bool:
        return len(self._pending) > MAX_ROLLOVER_IN_PROTOCOL

    def pack_adf(self) -> PackResult:
        if not self.adf_due:
            raise RuntimeError("no all-data flit is due")
        bits = 0
        for i in range(ADF_CHUNKS):
            bits |= self._pending.popleft() << (CHUNK_BITS * i)
        return PackResult(with_crc(bits), "adf", None)

    def pack(self, queues: Sequence[Sequence[CxlMessage | LinkMsg]], credits: Sequence[int] | None = None,
             ak: int = 0, rsp_crd: int = 0, req_crd: int = 0, data_crd: int = 0) -> PackResult:
        """Pack one protocol flit from the heads of ``queues`` (6 per-class sequences, not modified).

        At most ``credits[c]`` messages of class c are taken (no limit when None). The caller
        removes ``result.counts()[c]`` items from the front of each queue.
        """
        if self.adf_due:
            raise RuntimeError("an all-data flit is due: call pack_adf()")
        if len(queues) != NCLS:
            raise ValueError("need 6 per-class queues")
        allow = [None] * NCLS if credits is None else list(credits)
        st = _FlitState(self, queues, allow)
        fmts: list[int] = []
        slot_bits: list[int] = []
        pending = deque(self._pending)
        for slot in range(NSLOTS):
            if slot > 0 and pending:
                fmts.append(FMT_G0_DATA)
                slot_bits.append(pending.popleft())
                continue
            fmt, bits, new_chunks = st.fill_slot(slot)
            fmts.append(fmt)
            slot_bits.append(bits)
            pending.extend(new_chunks)
        hdr = FlitHeader(TYPE_PROTOCOL, ak, st.be, st.sz, tuple(fmts),  # type: ignore[arg-type]
                         rsp_crd, req_crd, data_crd)
        flit = hdr.encode()
        for slot in range(NSLOTS):
            flit |= slot_bits[slot] << _slot_lsb(slot)
        self._pending = pending
        self._prio = (self._prio + 1) % NCLS
        return PackResult(with_crc(flit), "protocol", hdr, st.sent)


class _FlitState:
    """Per-flit bookkeeping of the packer."""

    def __init__(self, packer: Flit68Packer, queues: Sequence[Sequence[CxlMessage | LinkMsg]],
                 allow: list[int | None]) -> None:
        self.p = packer
        self.queues = queues
        self.allow = allow
        self.taken = [0] * NCLS
        self.per_mid: dict[str, int] = {}
        self.dh_count = 0
        self.sz, self.be = 1, 0
        self.sent: list[tuple[int, LinkMsg]] = []

    def _room(self, cls: int, mid: str, taken: list[int], per_mid: dict[str, int]) -> bool:
        """Whether one more message of class ``cls`` may go into this flit."""
        if taken[cls] >= len(self.queues[cls]):
            return False
        if any(x is not None and taken[cls] >= x for x in (self.allow[cls], self.p.max_per_class[cls])):
            return False
        return per_mid.get(mid, 0) < MAX_PER_FLIT[self.p.role][mid]

    def _plan(self, fmt: SlotFormat) -> list[tuple[int, Entry, LinkMsg]] | None:
        """Messages ``fmt`` would take now (entry index, entry, message), or None if illegal."""
        taken = list(self.taken)
        per_mid = dict(self.per_mid)
        plan: list[tuple[int, Entry, LinkMsg]] = []
        n_dh = 0
        for idx, ent in enumerate(fmt.entries):
            mid = ent[0]
            cls = CLASS_INDEX[mid][1]
            if not self._room(cls, mid, taken, per_mid):
                continue
            item = as_link_msg(self.queues[cls][taken[cls]])
            if is_data_mid(mid):
                if self.dh_count:
                    continue
                if fmt.mdh and (item.sz32 or item.be is not None):
                    continue
                if not fmt.mdh and n_dh:
                    continue
                n_dh += 1
            taken[cls] += 1
            per_mid[mid] = per_mid.get(mid, 0) + 1
            plan.append((idx, ent, item))
        if fmt.mdh and (not self.p.mdh or n_dh < 2):
            return None
        return plan

    def fill_slot(self, slot: int) -> tuple[int, int, list[int]]:
        """(format, slot bits, new data chunks) for ``slot``, chosen greedily."""
        kind = "H" if slot == 0 else "G"
        table = SLOT_FORMATS[(self.p.role, kind)]
        prio = self.p._prio
        best: tuple[tuple[int, int, int], int, list[tuple[int, Entry, LinkMsg]]] | None = None
        for fmt_idx, fmt in table.items():
            plan = self._plan(fmt)
            if not plan:
                continue
            classes = {CLASS_INDEX[e[0]][1] for _, e, _ in plan}
            score = (1 if prio in classes else 0, len(plan), -fmt_idx)
            if best is None or score > best[0]:
                best = (score, fmt_idx, plan)
        if best is None:
            return (EMPTY_H_FMT if slot == 0 else EMPTY_G_FMT), 0, []
        _, fmt_idx, plan = best
        bits = 0
        chunks: list[int] = []
        for _, (mid, pieces), item in plan:
            cls = CLASS_INDEX[mid][1]
            self.taken[cls] += 1
            self.per_mid[mid] = self.per_mid.get(mid, 0) + 1
            bits |= _place(item.msg.pack(FLAVOR), pieces)
            if is_data_mid(mid):
                self.dh_count += 1
                if not table[fmt_idx].mdh:
                    self.sz = 0 if item.sz32 else 1
                    self.be = 1 if item.be is not None else 0
                chunks.extend(item.chunks())
            self.sent.append((cls, item))
        return fmt_idx, bits, chunks


# ---------------------------------------------------------------------------------------------
# Unpacker
# ---------------------------------------------------------------------------------------------
@dataclass
class RxFlit:
    """What one received flit carried."""

    kind: str  # "protocol", "adf", "control" or "crc_error"
    crc_ok: bool
    header: FlitHeader | None = None
    control: ControlFlit | None = None
    messages: list[tuple[int, LinkMsg]] = field(default_factory=list)  # completed, in order
    credits: tuple[int, ...] = (0,) * NCLS  # credits returned per class index
    ak: int = 0  # header Ak bit (protocol flits and LLCRD)
    acks: int = 0  # flits acknowledged: 8*Ak (protocol) or Full_Ack (LLCRD)

    @property
    def retryable(self) -> bool:
        if self.kind in ("protocol", "adf"):
            return True
        return self.kind == "control" and self.control is not None and self.control.retryable


class Flit68Unpacker:
    """Stateful 68B flit decoder of one direction (keeps the shadow rollover count).

    :meth:`unpack` decodes a 528-bit flit; a CRC error returns ``kind="crc_error"`` and changes
    nothing; an illegal flit raises FlitError and changes nothing.
    """

    def __init__(self, direction: int | str, mdh: bool = False, strict: bool = True) -> None:
        self.role = tx_role(direction)
        self.mdh = mdh
        self.strict = strict
        self._pending: deque[_PendingData] = deque()

    @property
    def rollover(self) -> int:
        """Shadow rollover count: data chunks still expected."""
        return sum(p.total - len(p.chunks) for p in self._pending)

    @property
    def adf_due(self) -> bool:
        return self.rollover > MAX_ROLLOVER_IN_PROTOCOL

    def unpack(self, flit528: int) -> RxFlit:
        if not 0 <= flit528 < (1 << FLIT_W):
            raise ValueError("a 68B flit is a 528-bit non-negative int")
        if not flit68_crc_ok(flit528):
            return RxFlit("crc_error", False)
        bits = flit528 & bit_mask(FLIT_BITS)
        pending = deque(_PendingData(p.cls, p.item, list(p.chunks), p.total) for p in self._pending)
        if self.adf_due:
            out: list[tuple[int, LinkMsg]] = []
            for i in range(ADF_CHUNKS):
                self._take_chunk(pending, get_field(bits, CHUNK_BITS * i, CHUNK_BITS), out)
            self._pending = pending
            return RxFlit("adf", True, messages=out)
        if bits & 1:
            ctl = ControlFlit.decode(bits, self.strict)
            return RxFlit("control", True, control=ctl, credits=ctl.credits() if ctl.retryable else (0,) * NCLS,
                          ak=ctl.ak, acks=ctl.full_ack if ctl.llctrl == LLCTRL_LLCRD else 0)
        rx = self._protocol(bits, pending)
        self._pending = pending
        return rx

    def _take_chunk(self, pending: deque[_PendingData], chunk: int, out: list[tuple[int, LinkMsg]]) -> None:
        if not pending:
            raise FlitError("G0 data slot with no data pending")
        head = pending[0]
        head.chunks.append(chunk)
        if len(head.chunks) == head.total:
            pending.popleft()
            out.append((head.cls, self._complete(head)))

    def _complete(self, p: _PendingData) -> LinkMsg:
        item = p.item
        n_line = 2 if item.sz32 else LINE_CHUNKS
        line = bytearray(LINE_CHUNKS * CHUNK_BYTES)
        first = 2 * item.half() if item.sz32 else 0
        for k in range(n_line):
            pos = CHUNK_BYTES * (first + k)
            line[pos:pos + CHUNK_BYTES] = p.chunks[k].to_bytes(CHUNK_BYTES, "little")
        be = None
        if item.be is not None:
            be_chunk = p.chunks[n_line]
            if self.strict and be_chunk >> 64:
                raise FlitError("BE slot: reserved bits [127:64] set")
            be = be_chunk & bit_mask(64)
        return LinkMsg(item.msg.replace(data=bytes(line)), be, item.sz32)

    def _protocol(self, bits: int, pending: deque[_PendingData]) -> RxFlit:
        hdr = FlitHeader.decode(bits)
        if self.strict and hdr.rsvd:
            raise FlitError("protocol flit header RSVD bits set")
        out: list[tuple[int, LinkMsg]] = []
        per_mid: dict[str, int] = {}
        dh_slots: list[tuple[int, bool, int]] = []  # (slot, mdh, n valid DH)
        for slot in range(NSLOTS):
            fmt_idx = hdr.slot_fmt[slot]
            sbits = get_field(bits, _slot_lsb(slot), _slot_bits(slot))
            if slot > 0 and fmt_idx == FMT_G0_DATA:
                self._take_chunk(pending, sbits, out)
                continue
            if slot > 0 and pending:
                raise FlitError(f"slot {slot} holds headers while data chunks are pending")
            fmt = slot_format(self.role, slot, fmt_idx)
            if self.strict and sbits & ~fmt.used_mask():
                raise FlitError(f"slot {slot} {fmt.name}: reserved bits set")
            n_dh = 0
            for mid, pieces in fmt.entries:
                mbits = _extract(sbits, pieces)
                if not mbits & 1:
                    if self.strict and mbits:
                        raise FlitError(f"slot {slot} {fmt.name}: invalid {mid} has nonzero bits")
                    continue
                if not self.strict:
                    mbits &= _defined_bits(mid)
                try:
                    msg = MESSAGES[mid].unpack(FLAVOR, mbits)
                except ValueError as exc:
                    raise FlitError(f"slot {slot} {fmt.name}: {exc}") from None
                per_mid[mid] = per_mid.get(mid, 0) + 1
                if per_mid[mid] > MAX_PER_FLIT[self.role][mid]:
                    raise FlitError(f"more than {MAX_PER_FLIT[self.role][mid]} {mid} in one flit")
                cls = CLASS_INDEX[mid][1]
                if not is_data_mid(mid):
                    out.append((cls, LinkMsg(msg)))
                    continue
                n_dh += 1
                sz32 = not fmt.mdh and hdr.sz == 0
                be = not fmt.mdh and hdr.be == 1
                if sz32 and mid not in SZ32_OK:
                    raise FlitError(f"Sz=0 (32B) is not allowed for {mid}")
                if be and mid not in BE_OK:
                    raise FlitError(f"BE=1 is not allowed for {mid}")
                item = LinkMsg(msg, 0 if be else None, sz32)
                pending.append(_PendingData(cls, item, [], item.n_chunks()))
            if n_dh:
                dh_slots.append((slot, fmt.mdh, n_dh))
        self._check_dh(hdr, dh_slots)
        return RxFlit("protocol", True, header=hdr, messages=out, credits=self._credits(hdr), ak=hdr.ak,
                      acks=8 * hdr.ak)

    def _check_dh(self, hdr: FlitHeader, dh_slots: list[tuple[int, bool, int]]) -> None:
        mdh_slots = [s for s in dh_slots if s[1]]
        total = sum(s[2] for s in dh_slots)
        if mdh_slots:
            if not self.mdh:
                raise FlitError("MDH slot received but MDH is not enabled")
            if len(dh_slots) > 1:
                raise FlitError("a flit with an MDH slot may not carry another data header")
            if mdh_slots[0][2] < 2:
                raise FlitError("MDH slot with fewer than 2 valid data headers")
            if hdr.sz != 1 or hdr.be != 0:
                raise FlitError("MDH requires Sz=1 and BE=0")
        elif total > 1:
            raise FlitError("more than one data header in a flit without MDH")

    def _credits(self, hdr: FlitHeader) -> tuple[int, ...]:
        got = hdr.credits()
        # credits arrive for the receiver's TX classes: the opposite role of this flit's sender
        rx_role = ROLE_UP if self.role == ROLE_DOWN else ROLE_DOWN
        return tuple(n if class_supported_68b(rx_role, c) else 0 for c, n in enumerate(got))


def pack_messages(direction: int | str, items: Iterable[tuple[int, CxlMessage | LinkMsg]], mdh: bool = False,
                  max_per_class: int | Sequence[int] | None = None) -> list[int]:
    """Convenience: pack (class, message) pairs into a list of 528-bit flits (protocol + ADF)."""
    queues: list[list[CxlMessage | LinkMsg]] = [[] for _ in range(NCLS)]
    for c, m in items:
        queues[c].append(m)
    packer = Flit68Packer(direction, max_per_class, mdh)
    flits: list[int] = []
    while any(queues) or packer.rollover:
        if packer.adf_due:
            flits.append(packer.pack_adf().flit)
            continue
        res = packer.pack(queues)
        for c, n in enumerate(res.counts()):
            del queues[c][:n]
        flits.append(res.flit)
    return flits


__all__ = [
    "FLIT_W", "FLIT_BITS", "FlitError", "FlitHeader", "SlotFormat", "SLOT_FORMATS", "slot_format", "LinkMsg",
    "as_link_msg", "check_link_msg", "ControlFlit", "llcrd_ack", "retry_idle", "retry_frame", "retry_req",
    "retry_ack", "init_param", "with_crc", "parse_control", "Flit68Packer", "Flit68Unpacker", "PackResult",
    "RxFlit", "encode_credit", "decode_credit", "credit_chunk", "credits_from_fields", "credit_fields_for",
    "tx_role", "class_supported_68b", "pack_messages", "MAX_PER_FLIT", "SZ32_OK", "BE_OK", "CREDIT_VALUES",
    "LLR_WRAP_DEFAULT",
]
