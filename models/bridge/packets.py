"""XLink-side packet formats of the bridge (UALink-style and NVLink-style), bit-exact.

What follows the public descriptions (CXL-over-XLink report lines 1773, 1812, 1830, 1845-1847):
UALink moves 64 B transaction-layer (TL) flits packed into 640 B data-link (DL) flits, requests of
64-256 B with tags; NVLink moves 16 B flits, a packet = 1 header flit + 2..16 data flits (48-272 B).
What is ours (the real formats are not public): every header field position below, the opcode and
status codes, the DL flit layout (one 64 B DL segment + 9 TL slots) and header-only NVLink read
requests, the packet-relative data placement and the alignment rules. Both flavours use the same
field positions; only the length encoding and the header size (64 B TL slot vs 16 B flit) differ.

Sizes: UALink 64..256 B in 64 B steps, 64 B aligned. NVLink 2..16 data flits (32..256 B in 16 B
steps), 16 B aligned, and the request must lie inside the four 64 B lines starting at its line
((addr % 64) + bytes <= 256). Data is packet-relative: payload byte k is byte k % 64 of data beat
k // 64 (NVLink: data flit k // 16); unused bytes of the last beat are ignored on requests and zero
on responses.

Header fields (LSB-first):
  [3:0] opcode  [7:4] status  [17:8] tag  [27:18] src  [36:28] len  [43:37] rsvd (0)
  [95:44] addr (52-bit XLink unified byte address)
  len: UALink = bytes (64..256), NVLink = number of 16 B data flits (2..16).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from models.common.bits import bit_mask, get_field

UALINK = "ualink"
NVLINK = "nvlink"
FLAVORS = (UALINK, NVLINK)
FLAVOR_ID = {UALINK: 0, NVLINK: 1}

LINE_BYTES = 64
BEAT_BITS = 512                    # core beat: one 64 B TL flit / four 16 B NVLink flits
UAL_TL_BYTES = 64
UAL_DL_BYTES = 640
UAL_DL_SLOTS = 9                   # ours: 64 B DL segment + 9 TL slots
NV_FLIT_BYTES = 16
NV_MIN_DATA_FLITS, NV_MAX_DATA_FLITS = 2, 16


class XlOp(IntEnum):
    NOP = 0x0      # empty UALink TL slot (never a request)
    READ = 0x1
    WRITE = 0x2
    RD_DATA = 0x8  # read response, carries data
    WR_ACK = 0x9
    ERR = 0xF


class XlStatus(IntEnum):
    OK = 0
    BAD_LEN = 1       # length field not a legal size of the flavour, or wrong number of data beats
    BAD_OP = 2        # opcode is not READ/WRITE
    BAD_ADDR = 3      # request not entirely inside the XLink window
    BAD_ALIGN = 4     # address misaligned (UALink 64 B; NVLink 16 B, and inside 4 lines)
    COH_PTL = 5       # partial-line write to the coherent region (needs byte enables: not built)
    CXL_ERR = 6       # far side answered with an error (MemData-NXM or poison on S2M DRS, GO-Err
                      # or poison on H2D Data, GO-Err / an unexpected H2D Rsp for a coherent line)
    BAD_TAG = 7       # a request whose (src, tag) is still outstanding (its answer would be ambiguous)


# field name -> (lsb, width)
FIELDS: dict[str, tuple[int, int]] = {
    "opcode": (0, 4), "status": (4, 4), "tag": (8, 10), "src": (18, 10),
    "len": (28, 9), "rsvd": (37, 7), "addr": (44, 52),
}
HDR_USED_BITS = 96


@dataclass(frozen=True)
class XlHeader:
    opcode: int
    tag: int
    src: int
    len: int
    addr: int
    status: int = 0
    rsvd: int = 0

    def pack(self) -> int:
        v = 0
        for name, (lsb, w) in FIELDS.items():
            f = int(getattr(self, name))
            if f < 0 or f >> w:
                raise ValueError(f"xlink header field {name}={f:#x} does not fit {w} bits")
            v |= f << lsb
        return v

    @classmethod
    def unpack(cls, bits: int) -> "XlHeader":
        return cls(**{name: get_field(bits, lsb, w) for name, (lsb, w) in FIELDS.items()})


def len_bytes(flavor: str, len_field: int) -> int:
    """Payload bytes a length field stands for."""
    return len_field if flavor == UALINK else len_field * NV_FLIT_BYTES


def len_field_for(flavor: str, nbytes: int) -> int:
    return nbytes if flavor == UALINK else nbytes // NV_FLIT_BYTES


def header_beat(flavor: str, hdr: XlHeader) -> int:
    """Header as the core's 512-bit beat: UALink = whole 64 B TL slot, NVLink = 16 B flit in [127:0]."""
    return hdr.pack()


@dataclass(frozen=True)
class Packet:
    """One XLink packet at the core's beat level: header + 64 B data lines."""

    hdr: XlHeader
    lines: tuple[bytes, ...] = ()

    def beats(self, flavor: str) -> list[tuple[int, bool]]:
        """(512-bit beat, last) list as driven on xl_rx_* / seen on xl_tx_*."""
        out = [header_beat(flavor, self.hdr)]
        out += [int.from_bytes(ln, "little") for ln in self.lines]
        return [(b, i == len(out) - 1) for i, b in enumerate(out)]

    def transfers(self, flavor: str, xw: int = 1) -> list[tuple[int, int]]:
        """(data, last) per transfer of an XW-beat-wide interface: beat lane x of a transfer is bits
        [512x +: 512]; a packet starts in lane 0; `last` is one-hot on the final beat's lane (0 on
        transfers that are not the packet's last); lanes past it are zero."""
        bts = [b for b, _ in self.beats(flavor)]
        out = []
        for i in range(0, len(bts), xw):
            chunk = bts[i:i + xw]
            data = sum(b << (BEAT_BITS * x) for x, b in enumerate(chunk))
            last = 1 << (len(chunk) - 1) if i + xw >= len(bts) else 0
            out.append((data, last))
        return out

    def wire_bytes(self, flavor: str) -> int:
        """Bytes on the XLink wire (UALink: TL slots; NVLink: 16 B flits, len data flits)."""
        if flavor == UALINK:
            return UAL_TL_BYTES * (1 + len(self.lines))
        return NV_FLIT_BYTES * (1 + (self.hdr.len if self.lines else 0))

    def link_bytes(self, flavor: str) -> float:
        """Link bytes the packet occupies: NVLink its flits; UALink its TL slots' share of the 640 B
        DL flits that carry them (9 TL slots + the 64 B DL segment)."""
        if flavor == UALINK:
            return self.wire_bytes(flavor) * UAL_DL_BYTES / (UAL_DL_SLOTS * UAL_TL_BYTES)
        return float(self.wire_bytes(flavor))


def packet_from_beats(beats: list[int]) -> Packet:
    hdr = XlHeader.unpack(beats[0] & bit_mask(HDR_USED_BITS))
    return Packet(hdr, tuple(b.to_bytes(64, "little") for b in beats[1:]))


# --- NVLink 16 B flit view ------------------------------------------------------------------------
def nv_flits(pkt: Packet) -> list[int]:
    """128-bit flits of an NVLink packet: header flit then its len data flits (packet-relative)."""
    fl = [pkt.hdr.pack()]
    data = b"".join(pkt.lines)
    n = pkt.hdr.len if pkt.lines else 0
    fl += [int.from_bytes(data[16 * i:16 * i + 16], "little") for i in range(n)]
    return fl


def beats_for(nbytes: int) -> int:
    """Data beats (64 B) that carry nbytes of payload."""
    return -(-nbytes // LINE_BYTES)


# --- UALink 640 B DL flit (ours: DL segment + 9 TL slots) -----------------------------------------
# DL segment (slot position 0, 64 B): [8:0] slot-valid mask, [17:9] slot-last mask, [31:24] seq,
# rest 0. The DL CRC / replay of UALink are not modelled (left to the link below the bridge).
DL_VALID_LSB, DL_LAST_LSB, DL_SEQ_LSB = 0, 9, 24


def dl_pack(slots: list[tuple[int, bool]], seq: int) -> int:
    """Pack up to 9 (TL flit, last) pairs into one 640 B DL flit (5120-bit int)."""
    if len(slots) > UAL_DL_SLOTS:
        raise ValueError("at most 9 TL slots per DL flit")
    vmask = lmask = 0
    flit = 0
    for i, (tl, last) in enumerate(slots):
        vmask |= 1 << i
        lmask |= int(last) << i
        flit |= tl << (BEAT_BITS * (i + 1))
    flit |= vmask << DL_VALID_LSB | lmask << DL_LAST_LSB | (seq & 0xFF) << DL_SEQ_LSB
    return flit


def dl_unpack(flit: int) -> tuple[list[tuple[int, bool]], int]:
    vmask = get_field(flit, DL_VALID_LSB, UAL_DL_SLOTS)
    lmask = get_field(flit, DL_LAST_LSB, UAL_DL_SLOTS)
    slots = []
    for i in range(UAL_DL_SLOTS):
        if vmask >> i & 1:
            slots.append((get_field(flit, BEAT_BITS * (i + 1), BEAT_BITS), bool(lmask >> i & 1)))
    return slots, get_field(flit, DL_SEQ_LSB, 8)


def dl_stream(beats: list[tuple[int, bool]]) -> list[int]:
    """Greedy packing of a beat stream into DL flits (as a full-rate sender would)."""
    return [dl_pack(beats[i:i + UAL_DL_SLOTS], n)
            for n, i in enumerate(range(0, len(beats), UAL_DL_SLOTS))]
