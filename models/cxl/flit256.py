"""256B standard flit model (cxl-flits.md section 4; CONVENTIONS.md "Flit wire").

Byte map (standard flit): 0-1 flit header, 2-15 slot 0 (H-slot, 14 B), 16*s .. 16*s+15 slot s
(G-slots, s = 1..14), 240-241 CRD[15:0] (CRD[7:0] in byte 240), 242-249 CRC-64 (ours, see
models/cxl/crc.py), 250-255 FEC = 0 (left to the PHY; ignored on receive).

Header slots: SlotFmt nibble at slot bits [3:0]; the format's messages follow from bit 4, back to back.
Every 256B/PBR message width is a multiple of 4 bits, so "back to back" == "each message starts on a
nibble boundary" (checked at import). Bits above the format's messages are RSVD (zero).

Rules the model enforces (spec = cxl-flits.md 4.x, ours = our choice where the text is silent):
  * formats per role (ours, from the contract's class table): ROLE_DOWN sends enc 0,1,4,5,12,14;
    ROLE_UP sends 2,3,6,7,13,15; enc 8 (LLCTRL) only in the H-slot; 9-11 RSVD (spec).
  * an all-zero header slot is an empty slot (ours). A non-empty header slot must have message 0
    valid (spec for DH formats, ours for the rest), valid messages form a prefix of the format
    (tight packing, ours) and invalid message positions are all-zero (ours, strict).
  * zero-extended PBR H4/H14: the message bits that do not fit in the 108 payload bits must be 0 (spec).
  * data: each valid DH is followed by its 4 data G-slots (in DH order), then one trailer G-slot when
    BEP/TRP = 1 (ours: one 16 B slot per trailer, value in the low bits; the spec packs up to three
    32b DRS trailers into one slot - not modelled). Data rolls over into the next flit's slots 1..14
    (slot 0 is always a header slot). A DH format in the H-slot needs <= 16 rollover slots (spec).
  * message limits per rolling 128B group AB, BC, CD and DA (D of this flit + A of the next) (spec).
  * LLCTRL (H8): bit order not public; ours: [7:4] LLCTRL, [11:8] SubType, [15:12] RSVD,
    [111:16] 96b payload. Slots 1..14 after it must be empty (spec: reserved; IDE.MAC exception not
    modelled) and it may not be sent while data is rolling over (ours).
  * Empty flit: CRD[4:0] = 01h, no header slot used, no data slots, no credits (spec).
  * Not modelled: LOpt flits, HS slots, MDH-disable, late poison, IDE.
"""
from __future__ import annotations

import copy
from collections import deque
from dataclasses import dataclass, field
from typing import Mapping, MutableSequence, Sequence

from models.common.bits import get_field
from models.cxl.crc import crc64_256b
from models.cxl.messages import (
    CLASS_INDEX, CLASS_OF, DATA_BYTES, MESSAGES, NCLS, ROLE_DOWN, ROLE_UP, SPECS, TRAILER_W, CxlMessage,
)

FLIT_BYTES = 256
NSLOTS = 15
H_SLOT_BYTES = 14
G_SLOT_BYTES = 16
H_PAYLOAD_BITS = 108  # H-slot minus the SlotFmt nibble
G_PAYLOAD_BITS = 124
CRD_BYTE = 240
CRC_LO, CRC_HI = 242, 250
DATA_SLOTS_PER_LINE = DATA_BYTES // G_SLOT_BYTES  # 4
H_SLOT_DH_MAX_ROLLOVER = 16

# Flit header (CONVENTIONS.md)
FLIT_TYPE_NOP = 0b00
FLIT_TYPE_PAYLOAD = 0b10
REPLAY_NONE = 0b00
REPLAY_ACK = 0b01
REPLAY_RETRY_REQ = 0b10
REPLAY_RETRY_ACK = 0b11
SEQ_FIELD_W = 10

SLOTFMT_LLCTRL = 8

# ------------------------------------------------------------------ slot formats (cxl-flits.md 4.2)
_G_HBR: Mapping[int, tuple[str, ...]] = {
    0: ("h2d_req", "h2d_rsp"), 1: ("h2d_rsp",) * 3, 2: ("d2h_req", "d2h_rsp", "d2h_rsp"),
    3: ("d2h_rsp",) * 4, 4: ("m2s_req",), 5: ("m2s_birsp",) * 3, 6: ("s2m_bisnp", "s2m_ndr"),
    7: ("s2m_ndr",) * 3, 12: ("h2d_dh",) * 4, 13: ("d2h_dh",) * 4, 14: ("m2s_rwd",), 15: ("s2m_drs",) * 3,
}
_G_PBR: Mapping[int, tuple[str, ...]] = {
    0: ("h2d_req",), 1: ("h2d_rsp",) * 2, 2: ("d2h_req",), 3: ("d2h_rsp",) * 3, 4: ("m2s_req",),
    5: ("m2s_birsp",) * 2, 6: ("s2m_bisnp",), 7: ("s2m_ndr",) * 2, 12: ("h2d_dh",) * 3,
    13: ("d2h_dh",) * 3, 14: ("m2s_rwd",), 15: ("s2m_drs",) * 2,
}
_H_HBR: Mapping[int, tuple[str, ...]] = {
    0: ("h2d_req",), 1: ("h2d_rsp",) * 2, 2: ("d2h_req", "d2h_rsp"), 3: ("d2h_rsp",) * 4, 4: ("m2s_req",),
    5: ("m2s_birsp",) * 2, 6: ("s2m_bisnp",), 7: ("s2m_ndr",) * 2, 12: ("h2d_dh",) * 3,
    13: ("d2h_dh",) * 4, 14: ("m2s_rwd",), 15: ("s2m_drs",) * 2,
}
_H_PBR = _G_PBR  # same contents; enc 4 and 14 are zero-extended in the H-slot
SLOT_FORMATS: Mapping[tuple[str, bool], Mapping[int, tuple[str, ...]]] = {
    ("G", False): _G_HBR, ("G", True): _G_PBR, ("H", False): _H_HBR, ("H", True): _H_PBR,
}
DH_FORMATS = frozenset({12, 13, 14, 15})
ROLE_FORMATS: Mapping[int, frozenset[int]] = {
    ROLE_DOWN: frozenset({0, 1, 4, 5, 12, 14}), ROLE_UP: frozenset({2, 3, 6, 7, 13, 15}),
}

# Max messages per rolling 128B group (cxl-flits.md 4.3); DH entries count data headers.
GROUP_LIMITS: Mapping[str, int] = {
    "d2h_req": 4, "d2h_rsp": 4, "d2h_dh": 4, "s2m_bisnp": 2, "s2m_ndr": 6, "s2m_drs": 3,
    "h2d_req": 2, "h2d_rsp": 6, "h2d_dh": 4, "m2s_req": 4, "m2s_rwd": 2, "m2s_birsp": 3,
}
GROUP_OF_SLOT: tuple[int, ...] = (0,) * 4 + (1,) * 4 + (2,) * 4 + (3,) * 3  # A B C D
TRAILER_FLAG = {"d2h_dh": "bep", "m2s_rwd": "trp", "s2m_drs": "trp"}

# ------------------------------------------------------------------ CRD (cxl-flits.md 4.4)
CRD_VALUES: tuple[int, ...] = (1, 4, 8, 12, 16)
CRD_EMPTY = 0x01
CRD_CHANNEL_BASE: tuple[int, ...] = (0x04, 0x09, 0x14, 0x19)  # channels A B C D
# CRD field index (0 = CRD[4:0] req, 1 = CRD[9:5] data, 2 = CRD[14:10] rsp) -> channel A..D message ids
CRD_FIELDS: tuple[tuple[str, str, str, str], ...] = (
    ("h2d_req", "d2h_req", "m2s_req", "s2m_bisnp"),
    ("h2d_dh", "d2h_dh", "m2s_rwd", "s2m_drs"),
    ("h2d_rsp", "d2h_rsp", "m2s_birsp", "s2m_ndr"),
)


class FlitError(Exception):
    """A CRC-clean 256B flit that breaks a packing/format rule; `reason` says which."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _flavor(pbr: bool) -> str:
    return "PBR" if pbr else "256B"


def crd_channel(mid: str) -> tuple[int, int]:
    """(CRD field index, channel index 0..3) that returns credits for message id `mid`."""
    for f, chans in enumerate(CRD_FIELDS):
        if mid in chans:
            return f, chans.index(mid)
    raise ValueError(f"unknown message id {mid!r}")


def crd_field_encode(mid: str, credits: int) -> int:
    """5-bit code returning `credits` (1/4/8/12/16) for `mid`'s channel."""
    if credits not in CRD_VALUES:
        raise ValueError(f"credits {credits} not encodable; must be one of {CRD_VALUES}")
    _, ch = crd_channel(mid)
    return CRD_CHANNEL_BASE[ch] + CRD_VALUES.index(credits)


def crd_field_decode(field_idx: int, code: int) -> tuple[str, int] | None:
    """(message id, credits) for a 5-bit code in field `field_idx`; None for 00h (and 01h in field 0)."""
    if code == 0 or (field_idx == 0 and code == CRD_EMPTY):
        return None
    for ch, base in enumerate(CRD_CHANNEL_BASE):
        if base <= code < base + len(CRD_VALUES):
            return CRD_FIELDS[field_idx][ch], CRD_VALUES[code - base]
    raise ValueError(f"CRD field {field_idx}: reserved code {code:#04x}")


def encode_crd(credits: Mapping[str, int], empty: bool = False) -> int:
    """CRD[15:0] from {message id: credits}; at most one channel per field (req/data/rsp)."""
    fields = [0, 0, 0]
    for mid, n in credits.items():
        if n == 0:
            continue
        f, _ = crd_channel(mid)
        if fields[f]:
            raise ValueError(f"CRD field {f} already returns credits; cannot add {mid}")
        fields[f] = crd_field_encode(mid, n)
    if empty:
        if any(fields):
            raise ValueError("an Empty flit returns no credits")
        fields[0] = CRD_EMPTY
    return fields[0] | (fields[1] << 5) | (fields[2] << 10)


@dataclass(frozen=True)
class CrdInfo:
    credits: Mapping[str, int]
    empty: bool


def decode_crd(crd: int) -> CrdInfo:
    """Decode CRD[15:0]; raises ValueError on reserved codes or CRD[15] = 1."""
    if crd < 0 or crd >> 16:
        raise ValueError("CRD is 16 bits")
    if crd >> 15:
        raise ValueError("CRD[15] is reserved")
    out: dict[str, int] = {}
    for f in range(3):
        d = crd_field_decode(f, get_field(crd, 5 * f, 5))
        if d is not None:
            out[d[0]] = d[1]
    return CrdInfo(out, get_field(crd, 0, 5) == CRD_EMPTY)


def split_credits(n: int) -> list[int]:
    """Split n credits into encodable returns, largest first (e.g. 21 -> [16, 4, 1])."""
    out: list[int] = []
    for v in sorted(CRD_VALUES, reverse=True):
        while n >= v:
            out.append(v)
            n -= v
    return out


# ------------------------------------------------------------------ flit header
@dataclass(frozen=True)
class FlitHeader256:
    flit_type: int = FLIT_TYPE_PAYLOAD
    replay_cmd: int = REPLAY_NONE
    field10: int = 0  # ACK count / ESeq

    def encode(self) -> int:
        if self.flit_type not in (FLIT_TYPE_NOP, FLIT_TYPE_PAYLOAD):
            raise ValueError(f"flit type {self.flit_type} not supported")
        if not 0 <= self.replay_cmd <= 3 or not 0 <= self.field10 < (1 << SEQ_FIELD_W):
            raise ValueError("replay_cmd is 2 bits, field10 is 10 bits")
        return (self.flit_type << 6) | (self.replay_cmd << 2) | (self.field10 >> 8) | ((self.field10 & 0xFF) << 8)

    @staticmethod
    def decode(hdr: int) -> "FlitHeader256":
        if get_field(hdr, 4, 2):
            raise FlitError("flit header bits [5:4] must be 0")
        return FlitHeader256(get_field(hdr, 6, 2), get_field(hdr, 2, 2),
                             (get_field(hdr, 0, 2) << 8) | get_field(hdr, 8, 8))


def _finish(body: bytearray) -> bytes:
    crc = crc64_256b(bytes(body))
    body[CRC_LO:CRC_HI] = crc.to_bytes(8, "little")
    body[CRC_HI:] = bytes(FLIT_BYTES - CRC_HI)
    return bytes(body)


def make_nop_flit(replay_cmd: int = REPLAY_NONE, field10: int = 0) -> bytes:
    """NOP flit (idle, RETRY.Req or RETRY.Ack): header only, CRC set."""
    if replay_cmd == REPLAY_ACK:
        raise ValueError("ACK rides on payload flits; NOP replay_cmd is 00, 10 or 11")
    body = bytearray(FLIT_BYTES)
    body[0:2] = FlitHeader256(FLIT_TYPE_NOP, replay_cmd, field10).encode().to_bytes(2, "little")
    return _finish(body)


# ------------------------------------------------------------------ slot helpers
def slot_range(s: int) -> tuple[int, int]:
    """Byte range [lo, hi) of slot s in the flit."""
    if s == 0:
        return 2, 2 + H_SLOT_BYTES
    if 1 <= s < NSLOTS:
        return G_SLOT_BYTES * s, G_SLOT_BYTES * (s + 1)
    raise ValueError(f"slot {s} out of range")


def format_positions(kind: str, pbr: bool, fmt: int) -> tuple[tuple[str, int, int], ...]:
    """(message id, slot bit offset, bits available) per message position of a slot format."""
    mids = SLOT_FORMATS[(kind, pbr)][fmt]
    payload = H_PAYLOAD_BITS if kind == "H" else G_PAYLOAD_BITS
    out: list[tuple[str, int, int]] = []
    pos = 4
    for mid in mids:
        w = SPECS[mid].width(_flavor(pbr))
        avail = min(w, 4 + payload - pos)
        out.append((mid, pos, avail))
        pos += w
    return tuple(out)


def format_bits(kind: str, pbr: bool, fmt: int) -> int:
    """Message bits of a format (without the SlotFmt nibble), before zero-extension cut."""
    return sum(SPECS[m].width(_flavor(pbr)) for m in SLOT_FORMATS[(kind, pbr)][fmt])


def _check_format_tables() -> None:
    for (kind, pbr), table in SLOT_FORMATS.items():
        payload = H_PAYLOAD_BITS if kind == "H" else G_PAYLOAD_BITS
        for fmt, mids in table.items():
            for mid in mids:
                if SPECS[mid].width(_flavor(pbr)) % 4:
                    raise AssertionError(f"{mid} width not a nibble multiple")
            zero_ext = kind == "H" and pbr and fmt in (4, 14)
            if format_bits(kind, pbr, fmt) > payload and not zero_ext:
                raise AssertionError(f"format {kind}{fmt} pbr={pbr} exceeds the slot")


_check_format_tables()


@dataclass(frozen=True)
class _Pending:
    """One G-slot owed to a data message: chunk 0..3 of its line, or its trailer (chunk = 4)."""

    cls: int
    msg: CxlMessage
    chunk: int
    key: int  # identifies the message while its data is in flight


def _data_slots_for(msg: CxlMessage, key: int) -> list[_Pending]:
    cls = CLASS_INDEX[msg.MID][1]
    out = [_Pending(cls, msg, i, key) for i in range(DATA_SLOTS_PER_LINE)]
    flag = TRAILER_FLAG.get(msg.MID)
    if flag is not None and getattr(msg, flag):
        out.append(_Pending(cls, msg, DATA_SLOTS_PER_LINE, key))
    return out


def _group_violation(prev: Mapping[str, int], cur: Mapping[str, int]) -> str | None:
    for mid, lim in GROUP_LIMITS.items():
        n = prev.get(mid, 0) + cur.get(mid, 0)
        if n > lim:
            return f"{mid}: {n} messages in a 128B group (limit {lim})"
    return None


# ------------------------------------------------------------------ receive side
@dataclass
class Flit256RxState:
    """Receiver state carried between flits (pass the same object for every flit of a link)."""

    pending: deque = field(default_factory=deque)  # deque[_Pending] of data slots still owed
    partial: dict = field(default_factory=dict)  # _Pending.key -> bytes of the line received so far
    prev_d_counts: dict = field(default_factory=dict)  # header counts in the previous flit's group D
    next_key: int = 0

    @property
    def rollover(self) -> int:
        """Data/trailer slots still expected."""
        return len(self.pending)


@dataclass
class Flit256Result:
    crc_ok: bool
    header: FlitHeader256 | None = None
    messages: list[list[CxlMessage]] = field(default_factory=lambda: [[] for _ in range(NCLS)])
    order: list[tuple[int, CxlMessage]] = field(default_factory=list)  # completion order, all classes
    credits: Mapping[str, int] = field(default_factory=dict)
    empty: bool = False
    slot_formats: list[int | None] = field(default_factory=list)  # None = data/trailer slot or empty
    slot_msgs: list[int] = field(default_factory=list)  # valid messages per slot (0 for data/empty)
    llctrl: tuple[int, int, int] | None = None  # (LLCTRL, SubType, payload)


def unpack_flit256(role_of_sender: int, pbr: bool, flit: bytes | int, state: Flit256RxState) -> Flit256Result:
    """Decode one 256B flit sent by an endpoint of role `role_of_sender`.

    Returns crc_ok=False (state untouched) on a CRC mismatch. Raises FlitError on a CRC-clean flit that
    breaks a rule (state untouched). Data messages are returned when their last data/trailer slot
    arrives, possibly in a later flit; per class, messages come out in order.
    """
    if role_of_sender not in ROLE_FORMATS:
        raise ValueError(f"bad role {role_of_sender}")
    raw = flit.to_bytes(FLIT_BYTES, "little") if isinstance(flit, int) else bytes(flit)
    if len(raw) != FLIT_BYTES:
        raise ValueError("a 256B flit is 256 bytes")
    if int.from_bytes(raw[CRC_LO:CRC_HI], "little") != crc64_256b(raw):
        return Flit256Result(crc_ok=False)
    hdr = FlitHeader256.decode(int.from_bytes(raw[0:2], "little"))
    res = Flit256Result(crc_ok=True, header=hdr)
    if hdr.flit_type == FLIT_TYPE_NOP:
        if hdr.replay_cmd == REPLAY_ACK:
            raise FlitError("NOP flit with Replay Cmd ACK")
        if any(raw[2:CRC_LO]):
            raise FlitError("NOP flit carries payload bytes")
        return res
    if hdr.flit_type != FLIT_TYPE_PAYLOAD:
        raise FlitError(f"flit type {hdr.flit_type:02b} not supported (CXL.io/ALMP)")
    if hdr.replay_cmd not in (REPLAY_NONE, REPLAY_ACK):
        raise FlitError(f"payload flit with Replay Cmd {hdr.replay_cmd:02b}")
    try:
        crd = decode_crd(int.from_bytes(raw[CRD_BYTE:CRD_BYTE + 2], "little"))
    except ValueError as e:
        raise FlitError(str(e)) from None
    res.credits, res.empty = dict(crd.credits), crd.empty
    st = copy.copy(state)
    st.pending, st.partial = deque(state.pending), dict(state.partial)
    _decode_slots(role_of_sender, pbr, raw, st, res)
    if res.empty and (any(f is not None for f in res.slot_formats) or len(state.pending)
                      or get_field(int.from_bytes(raw[CRD_BYTE:CRD_BYTE + 2], "little"), 5, 11)):
        raise FlitError("Empty flit (CRD 01h) carries slots, data or credits")
    state.pending, state.partial, state.prev_d_counts = st.pending, st.partial, st.prev_d_counts
    state.next_key = st.next_key
    return res


def _decode_slots(role: int, pbr: bool, raw: bytes, st: Flit256RxState, res: Flit256Result) -> None:
    flavor = _flavor(pbr)
    rollover_at_start = len(st.pending)
    counts: list[dict[str, int]] = [{}, {}, {}, {}]
    llctrl_seen = False
    for s in range(NSLOTS):
        lo, hi = slot_range(s)
        bits = int.from_bytes(raw[lo:hi], "little")
        if s > 0 and st.pending:
            _take_data_slot(st, raw[lo:hi], res)
            res.slot_formats.append(None)
            res.slot_msgs.append(0)
            continue
        res.slot_msgs.append(0)
        if bits == 0:
            res.slot_formats.append(None)
            continue
        if llctrl_seen:
            raise FlitError(f"slot {s}: slots after an LLCTRL message are reserved")
        kind = "H" if s == 0 else "G"
        fmt = bits & 0xF
        res.slot_formats.append(fmt)
        if kind == "H" and fmt == SLOTFMT_LLCTRL:
            if rollover_at_start:
                raise FlitError("LLCTRL while data rolls over (not modelled)")
            if get_field(bits, 12, 4):
                raise FlitError("LLCTRL RSVD bits set")
            res.llctrl = (get_field(bits, 4, 4), get_field(bits, 8, 4), get_field(bits, 16, 96))
            llctrl_seen = True
            continue
        if fmt not in SLOT_FORMATS[(kind, pbr)]:
            raise FlitError(f"slot {s}: reserved slot format {fmt}")
        if fmt not in ROLE_FORMATS[role]:
            raise FlitError(f"slot {s}: format {fmt} not sent by role {role}")
        if fmt in DH_FORMATS and kind == "H" and rollover_at_start > H_SLOT_DH_MAX_ROLLOVER:
            raise FlitError(f"slot 0: DH format with {rollover_at_start} rollover slots (> 16)")
        positions = format_positions(kind, pbr, fmt)
        end = positions[-1][1] + positions[-1][2]
        if bits >> end:
            raise FlitError(f"slot {s}: RSVD bits above the format's messages are set")
        prev_valid = True
        for k, (mid, off, avail) in enumerate(positions):
            mbits = get_field(bits, off, avail)
            if not mbits & 1:
                if k == 0:
                    raise FlitError(f"slot {s}: message 0 of format {fmt} not valid")
                if mbits:
                    raise FlitError(f"slot {s}: invalid message {k} has nonzero bits")
                prev_valid = False
                continue
            if not prev_valid:
                raise FlitError(f"slot {s}: valid message {k} after an invalid one (not tight)")
            try:
                m = MESSAGES[mid].unpack(flavor, mbits)
            except ValueError as e:
                raise FlitError(f"slot {s}: {e}") from None
            counts[GROUP_OF_SLOT[s]][mid] = counts[GROUP_OF_SLOT[s]].get(mid, 0) + 1
            res.slot_msgs[s] += 1
            cls = CLASS_INDEX[mid][1]
            if SPECS[mid].has_data:
                st.pending.extend(_data_slots_for(m, st.next_key))
                st.partial[st.next_key] = b""
                st.next_key += 1
            else:
                res.messages[cls].append(m)
                res.order.append((cls, m))
    for a, b in ((st.prev_d_counts, counts[0]), (counts[0], counts[1]), (counts[1], counts[2]),
                 (counts[2], counts[3])):
        why = _group_violation(a, b)
        if why:
            raise FlitError(why)
    st.prev_d_counts = counts[3]


def _take_data_slot(st: Flit256RxState, slot: bytes, res: Flit256Result) -> None:
    p = st.pending.popleft()
    line = st.partial[p.key]
    trailer = 0
    if p.chunk < DATA_SLOTS_PER_LINE:
        line += slot
        st.partial[p.key] = line
    else:
        trailer = int.from_bytes(slot, "little")
        if trailer >> TRAILER_W[p.msg.MID]:
            raise FlitError(f"{p.msg.MID} trailer has bits above {TRAILER_W[p.msg.MID]} set")
    if not st.pending or st.pending[0].key != p.key:  # last slot of this message
        del st.partial[p.key]
        done = p.msg.replace(data=line, trailer=trailer) if p.msg.MID in TRAILER_W else p.msg.replace(data=line)
        res.messages[p.cls].append(done)
        res.order.append((p.cls, done))


# ------------------------------------------------------------------ transmit side
class Flit256Packer:
    """Greedy 256B flit packer for one transmitter.

    role: ROLE_DOWN or ROLE_UP (which messages the classes carry, see messages.CLASS_OF).
    pbr: PBR flavour (else 256B HBR).
    max_per_class: max messages of one class in one slot (int for all classes, or {class: n});
        None = as many as the format holds. 1 forces single-message slots.
    pack() pops messages from the caller's per-class queues (index = class) and keeps the data
    rollover and the group-D counts between flits.
    """

    def __init__(self, role: int, pbr: bool, max_per_class: int | Mapping[int, int] | None = None) -> None:
        if role not in ROLE_FORMATS:
            raise ValueError(f"bad role {role}")
        self.role = role
        self.pbr = pbr
        self.flavor = _flavor(pbr)
        if isinstance(max_per_class, int):
            self.max_per_class: dict[int, int] = {c: max_per_class for c in range(NCLS)}
        else:
            self.max_per_class = dict(max_per_class or {})
        self.pending: deque[_Pending] = deque()
        self.prev_d_counts: dict[str, int] = {}
        self._rr = 0
        self._key = 0

    @property
    def rollover(self) -> int:
        """Data/trailer slots still owed to headers already sent."""
        return len(self.pending)

    def pack(self, queues: Sequence[MutableSequence[CxlMessage]], credits: Mapping[str, int] | None = None,
             replay_cmd: int = REPLAY_NONE, field10: int = 0,
             llctrl: tuple[int, int, int] | None = None) -> bytes:
        """Build one payload flit (256 bytes, CRC set) from the queues."""
        if len(queues) != NCLS:
            raise ValueError(f"need {NCLS} queues")
        if replay_cmd not in (REPLAY_NONE, REPLAY_ACK):
            raise ValueError("payload flits carry Replay Cmd 00 or 01")
        for c, q in enumerate(queues):
            want = MESSAGES[CLASS_OF[(self.role, c)]]
            for m in q:
                if not isinstance(m, want):
                    raise ValueError(f"class {c} queue holds {type(m).__name__}, expected {want.__name__}")
        body = bytearray(FLIT_BYTES)
        body[0:2] = FlitHeader256(FLIT_TYPE_PAYLOAD, replay_cmd, field10).encode().to_bytes(2, "little")
        rollover_at_start = len(self.pending)
        counts: list[dict[str, int]] = [{}, {}, {}, {}]
        any_slot = False
        for s in range(NSLOTS):
            lo, hi = slot_range(s)
            if s > 0 and self.pending:
                body[lo:hi] = self._data_slot(self.pending.popleft())
                any_slot = True
                continue
            if s == 0 and llctrl is not None:
                if rollover_at_start:
                    raise ValueError("LLCTRL while data rolls over is not modelled")
                ctl, sub, payload = llctrl
                if ctl >> 4 or sub >> 4 or payload >> 96:
                    raise ValueError("LLCTRL 4b, SubType 4b, payload 96b")
                body[lo:hi] = (SLOTFMT_LLCTRL | ctl << 4 | sub << 8 | payload << 16).to_bytes(H_SLOT_BYTES, "little")
                any_slot = True
                break
            bits = self._header_slot(s, queues, counts, rollover_at_start)
            if bits:
                any_slot = True
                body[lo:hi] = bits.to_bytes(hi - lo, "little")
        self.prev_d_counts = counts[3]
        crd = encode_crd(credits or {}, empty=not any_slot and not any((credits or {}).values()))
        body[CRD_BYTE:CRD_BYTE + 2] = crd.to_bytes(2, "little")
        return _finish(body)

    def _data_slot(self, p: _Pending) -> bytes:
        if p.chunk < DATA_SLOTS_PER_LINE:
            data: bytes = getattr(p.msg, "data")
            return data[G_SLOT_BYTES * p.chunk:G_SLOT_BYTES * (p.chunk + 1)]
        return int(getattr(p.msg, "trailer")).to_bytes(G_SLOT_BYTES, "little")

    def _fill(self, s: int, fmt: int, queues: Sequence[MutableSequence[CxlMessage]],
              counts: list[dict[str, int]], rollover_at_start: int) -> list[CxlMessage]:
        """Messages (a prefix of the format's positions) this format could carry now."""
        kind = "H" if s == 0 else "G"
        if fmt in DH_FORMATS and kind == "H" and rollover_at_start > H_SLOT_DH_MAX_ROLLOVER:
            return []
        g = GROUP_OF_SLOT[s]
        prev = self.prev_d_counts if g == 0 else counts[g - 1]
        taken: dict[int, int] = {}
        extra: dict[str, int] = {}
        out: list[CxlMessage] = []
        for mid, off, avail in format_positions(kind, self.pbr, fmt):
            cls = CLASS_INDEX[mid][1]
            k = taken.get(cls, 0)
            if k >= len(queues[cls]) or k >= self.max_per_class.get(cls, 1 << 30):
                break
            n = prev.get(mid, 0) + counts[g].get(mid, 0) + extra.get(mid, 0) + 1
            if n > GROUP_LIMITS[mid]:
                break
            m = queues[cls][k]
            if m.pack(self.flavor) >> avail:  # zero-extended format cannot hold it
                break
            out.append(m)
            taken[cls] = k + 1
            extra[mid] = extra.get(mid, 0) + 1
        return out

    def _header_slot(self, s: int, queues: Sequence[MutableSequence[CxlMessage]],
                     counts: list[dict[str, int]], rollover_at_start: int) -> int:
        kind = "H" if s == 0 else "G"
        best: tuple[tuple[int, int], int, list[CxlMessage]] | None = None
        for fmt in sorted(ROLE_FORMATS[self.role] & SLOT_FORMATS[(kind, self.pbr)].keys()):
            msgs = self._fill(s, fmt, queues, counts, rollover_at_start)
            if not msgs:
                continue
            first_cls = CLASS_INDEX[msgs[0].MID][1]
            score = (len(msgs), -((first_cls - self._rr) % NCLS))  # ties: round-robin on class
            if best is None or score > best[0]:
                best = (score, fmt, msgs)
        if best is None:
            return 0
        _, fmt, msgs = best
        self._rr = (CLASS_INDEX[msgs[0].MID][1] + 1) % NCLS
        bits = fmt
        g = GROUP_OF_SLOT[s]
        for (mid, off, _), m in zip(format_positions(kind, self.pbr, fmt), msgs):
            cls = CLASS_INDEX[mid][1]
            popped = queues[cls].pop(0) if not isinstance(queues[cls], deque) else queues[cls].popleft()
            assert popped is m
            bits |= m.pack(self.flavor) << off
            counts[g][mid] = counts[g].get(mid, 0) + 1
            if SPECS[mid].has_data:
                flag = TRAILER_FLAG.get(mid)
                if flag is not None and not getattr(m, flag) and getattr(m, "trailer"):
                    raise ValueError(f"{mid}: trailer set but {flag} = 0")
                self.pending.extend(_data_slots_for(m, self._key))
                self._key += 1
        return bits


def flit_bytes_to_int(flit: bytes) -> int:
    """Flit bit n = byte n//8, bit n%8 (cxl-flits.md bit convention)."""
    return int.from_bytes(flit, "little")


__all__ = [
    "FlitError", "Flit256Packer", "Flit256Result", "Flit256RxState", "FlitHeader256", "CrdInfo",
    "unpack_flit256", "make_nop_flit", "encode_crd", "decode_crd", "crd_field_encode", "crd_field_decode",
    "crd_channel", "split_credits", "slot_range", "format_positions", "format_bits", "flit_bytes_to_int",
    "SLOT_FORMATS", "ROLE_FORMATS", "DH_FORMATS", "GROUP_LIMITS", "GROUP_OF_SLOT", "CRD_VALUES", "CRD_EMPTY",
    "CRD_FIELDS", "FLIT_BYTES", "NSLOTS", "FLIT_TYPE_NOP", "FLIT_TYPE_PAYLOAD", "REPLAY_NONE", "REPLAY_ACK",
    "REPLAY_RETRY_REQ", "REPLAY_RETRY_ACK", "SLOTFMT_LLCTRL", "TRAILER_FLAG",
]
