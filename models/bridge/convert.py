"""XLink <-> CXL conversion of the bridge: checks, window translation, splitting into 64 B lines
with 16 B chunk masks, CXL headers, responses. Written from the issue text (issue 5) and the packet
description in packets.py.

Checks, in priority order (first failing one is reported): opcode (READ/WRITE only) -> BAD_OP;
size (UALink 64..256 B in 64 B steps, NVLink 2..16 data flits) and data beats (writes carry
ceil(bytes/64) beats, reads none) -> BAD_LEN; alignment (UALink 64 B; NVLink 16 B and
addr % 64 + bytes <= 256, i.e. at most 4 lines) -> BAD_ALIGN; [addr, addr+bytes) inside
[win_base, win_base+win_size) -> BAD_ADDR; a write whose partial line is coherent -> COH_PTL.

A valid request is translated as HPA = hpa_base + (addr - win_base) and split into the 64 B lines
it touches; each line carries a 4-bit mask of the 16 B chunks the request covers. A line whose
window offset lies in [coh_off, coh_off+coh_size) (a line-aligned range) goes to CXL.cache (read:
D2H RdCurr; full-line write: D2H ItoMWr, data pulled by GO_WritePull), every other line to CXL.mem
(MemRd / MemWr). CXL.mem MemWr is a full line and our link carries no byte enables (no MemWrPtl),
so a partial-line write is a read-modify-write in the bridge: the whole line is read (hot-line
cache, write buffer or MemRd), the covered chunks are replaced and the full line is written.
"""
from __future__ import annotations

from dataclasses import dataclass

from models.bridge.packets import (LINE_BYTES, NV_FLIT_BYTES, NV_MAX_DATA_FLITS,
                                   NV_MIN_DATA_FLITS, NVLINK, UALINK, Packet, XlHeader, XlOp,
                                   XlStatus, beats_for, len_bytes)
from models.cxl.messages import D2HReq, D2HReqOp, M2SReq, M2SReqOp, M2SRwD, M2SRwDOp, SnpType

MAX_LINES = 4
CHUNK = 16
FULL_MASK = 0xF
META_NOOP = 0b11  # MetaField No-Op: the bridge keeps no metadata state


@dataclass(frozen=True)
class BridgeConfig:
    flavor: str = UALINK
    win_base: int = 0x1_0000_0000
    win_size: int = 1 << 24
    hpa_base: int = 0x40_0000_0000
    coh_off: int = 0xF0_0000      # coherent sub-range, as an offset inside the window (64 B aligned)
    coh_size: int = 0x10_0000

    def params(self) -> dict[str, int | str]:
        """Verilog parameters of xbridge_core for this config."""
        def lit(v: int) -> str:   # sized literal: plain -G integers are 32-bit in Verilator
            return f"64'h{v:x}"

        return {"FLAVOR": 0 if self.flavor == UALINK else 1, "WIN_BASE": lit(self.win_base),
                "WIN_SIZE": lit(self.win_size), "HPA_BASE": lit(self.hpa_base),
                "COH_OFF": lit(self.coh_off), "COH_SIZE": lit(self.coh_size)}


def size_ok(flavor: str, len_field: int) -> bool:
    if flavor == UALINK:
        return len_field % LINE_BYTES == 0 and 1 <= len_field // LINE_BYTES <= MAX_LINES
    return NV_MIN_DATA_FLITS <= len_field <= NV_MAX_DATA_FLITS


def legal_sizes(flavor: str) -> list[int]:
    """Request sizes in bytes the flavour allows."""
    if flavor == UALINK:
        return [64 * n for n in range(1, MAX_LINES + 1)]
    return [NV_FLIT_BYTES * n for n in range(NV_MIN_DATA_FLITS, NV_MAX_DATA_FLITS + 1)]


def align_ok(flavor: str, addr: int, nbytes: int) -> bool:
    if flavor == UALINK:
        return addr % LINE_BYTES == 0
    return addr % CHUNK == 0 and addr % LINE_BYTES + nbytes <= MAX_LINES * LINE_BYTES


def line_masks(addr: int, nbytes: int) -> list[int]:
    """16 B chunk mask of every line [addr, addr+nbytes) touches (bit c = chunk c of the line)."""
    first = addr % LINE_BYTES // CHUNK
    g0, g1 = first, first + nbytes // CHUNK          # chunk range relative to the first line
    n = -(-g1 // 4)
    return [sum(1 << c for c in range(4) if g0 <= 4 * ln + c < g1) for ln in range(n)]


def is_coherent(cfg: BridgeConfig, addr: int) -> bool:
    off = addr - cfg.win_base
    return cfg.coh_off <= off < cfg.coh_off + cfg.coh_size


def check(cfg: BridgeConfig, pkt: Packet) -> XlStatus:
    h = pkt.hdr
    if h.opcode not in (XlOp.READ, XlOp.WRITE):
        return XlStatus.BAD_OP
    if not size_ok(cfg.flavor, h.len):
        return XlStatus.BAD_LEN
    nbytes = len_bytes(cfg.flavor, h.len)
    want = beats_for(nbytes) if h.opcode == XlOp.WRITE else 0
    if len(pkt.lines) != want:
        return XlStatus.BAD_LEN
    if not align_ok(cfg.flavor, h.addr, nbytes):
        return XlStatus.BAD_ALIGN
    if h.addr < cfg.win_base or h.addr + nbytes > cfg.win_base + cfg.win_size:
        return XlStatus.BAD_ADDR
    if h.opcode == XlOp.WRITE:
        base = h.addr - h.addr % LINE_BYTES
        for i, m in enumerate(line_masks(h.addr, nbytes)):
            if m != FULL_MASK and is_coherent(cfg, base + LINE_BYTES * i):
                return XlStatus.COH_PTL
    return XlStatus.OK


def translate(cfg: BridgeConfig, addr: int) -> int:
    return cfg.hpa_base + (addr - cfg.win_base)


def merge(old: bytes, new: bytes, mask: int) -> bytes:
    """old with the 16 B chunks selected by mask taken from new."""
    return b"".join((new if mask >> c & 1 else old)[CHUNK * c:CHUNK * c + CHUNK] for c in range(4))


@dataclass(frozen=True)
class LineOp:
    """One 64 B CXL line a valid request touches."""

    index: int        # line number inside the request
    xl_addr: int      # 64 B aligned XLink address of the line
    hpa: int
    coherent: bool
    write: bool
    mask: int = FULL_MASK        # 16 B chunks of the line the request covers
    data: bytes | None = None    # writes: line-relative data (chunks outside mask are zero)

    @property
    def partial(self) -> bool:
        return self.mask != FULL_MASK

    def m2s(self, tag: int) -> M2SReq | M2SRwD:
        if self.write:
            assert self.data is not None
            return M2SRwD(memop=M2SRwDOp.MEMWR, snptype=SnpType.NOOP, metafield=META_NOOP,
                          tag=tag, addr=self.hpa >> 6, data=self.data)
        return M2SReq(memop=M2SReqOp.MEMRD, snptype=SnpType.NOOP, metafield=META_NOOP,
                      tag=tag, addr=self.hpa >> 6)

    def d2h(self, cqid: int) -> D2HReq:
        op = D2HReqOp.ITOMWR if self.write else D2HReqOp.RDCURR
        return D2HReq(opcode=op, cqid=cqid, addr=self.hpa >> 6)


def payload(pkt: Packet, nbytes: int) -> bytes:
    return b"".join(pkt.lines)[:nbytes]


def split(cfg: BridgeConfig, pkt: Packet) -> list[LineOp]:
    h = pkt.hdr
    nbytes = len_bytes(cfg.flavor, h.len)
    wr = h.opcode == XlOp.WRITE
    base = h.addr - h.addr % LINE_BYTES
    lead = h.addr % LINE_BYTES
    # line-relative image of the payload: lead zero bytes, payload, zero tail
    img = bytes(lead) + (payload(pkt, nbytes) if wr else bytes(nbytes))
    masks = line_masks(h.addr, nbytes)
    img += bytes(LINE_BYTES * len(masks) - len(img))
    ops = []
    for i, m in enumerate(masks):
        a = base + LINE_BYTES * i
        data = merge(bytes(64), img[64 * i:64 * i + 64], m) if wr else None
        ops.append(LineOp(i, a, translate(cfg, a), is_coherent(cfg, a), wr, m, data))
    return ops


def pack_payload(data: bytes) -> tuple[bytes, ...]:
    """Payload -> 64 B data beats, zero padded."""
    n = beats_for(len(data))
    data = data + bytes(LINE_BYTES * n - len(data))
    return tuple(data[64 * i:64 * i + 64] for i in range(n))


def read_payload(addr: int, nbytes: int, lines: list[bytes]) -> tuple[bytes, ...]:
    """RD_DATA beats from the full lines a read touched."""
    lead = addr % LINE_BYTES
    return pack_payload(b"".join(lines)[lead:lead + nbytes])


def response(req: XlHeader, status: XlStatus, lines: tuple[bytes, ...] = ()) -> Packet:
    """Response packet: echoes tag, src, len and addr of the request."""
    if status != XlStatus.OK:
        op = XlOp.ERR
        lines = ()
    else:
        op = XlOp.RD_DATA if req.opcode == XlOp.READ else XlOp.WR_ACK
    return Packet(XlHeader(opcode=op, status=int(status), tag=req.tag, src=req.src, len=req.len,
                           addr=req.addr), lines)


def flavor_len_ok(flavor: str) -> list[int]:
    """Length-field values the bridge supports in `flavor`."""
    return [f for f in range(512) if size_ok(flavor, f)] if flavor in (UALINK, NVLINK) else []
