"""XLink <-> CXL conversion of the bridge: checks, window translation, 64 B splitting, CXL headers,
responses. Written from the issue text (issue 5) and the packet description in packets.py.

Checks, in priority order (first failing one is reported): opcode (READ/WRITE only) -> BAD_OP;
length (64..256 B in 64 B steps; writes carry exactly len/64 data lines, reads none) -> BAD_LEN;
address 64 B aligned -> BAD_ALIGN; [addr, addr+len) inside [win_base, win_base+win_size) -> BAD_ADDR;
write overlapping the coherent sub-range -> COH_WR. A valid request is translated as
HPA = hpa_base + (addr - win_base) and split into len/64 lines; a line whose window offset lies in
[coh_off, coh_off+coh_size) is routed to CXL.cache (D2H RdCurr), every other line to CXL.mem.
"""
from __future__ import annotations

from dataclasses import dataclass

from models.bridge.packets import (LINE_BYTES, NVLINK, UALINK, Packet, XlHeader, XlOp, XlStatus,
                                   len_bytes)
from models.cxl.messages import D2HReq, D2HReqOp, M2SReq, M2SReqOp, M2SRwD, M2SRwDOp, SnpType

MAX_LINES = 4
META_NOOP = 0b11  # MetaField No-Op: the bridge keeps no metadata state


@dataclass(frozen=True)
class BridgeConfig:
    flavor: str = UALINK
    win_base: int = 0x1_0000_0000
    win_size: int = 1 << 24
    hpa_base: int = 0x40_0000_0000
    coh_off: int = 0xF0_0000      # coherent sub-range, as an offset inside the window
    coh_size: int = 0x10_0000

    def params(self) -> dict[str, int | str]:
        """Verilog parameters of xbridge_core for this config."""
        def lit(v: int) -> str:   # sized literal: plain -G integers are 32-bit in Verilator
            return f"64'h{v:x}"

        return {"FLAVOR": 0 if self.flavor == UALINK else 1, "WIN_BASE": lit(self.win_base),
                "WIN_SIZE": lit(self.win_size), "HPA_BASE": lit(self.hpa_base),
                "COH_OFF": lit(self.coh_off), "COH_SIZE": lit(self.coh_size)}


def check(cfg: BridgeConfig, pkt: Packet) -> XlStatus:
    h = pkt.hdr
    if h.opcode not in (XlOp.READ, XlOp.WRITE):
        return XlStatus.BAD_OP
    nbytes = len_bytes(cfg.flavor, h.len)
    if nbytes % LINE_BYTES or not 1 <= nbytes // LINE_BYTES <= MAX_LINES:
        return XlStatus.BAD_LEN
    want = nbytes // LINE_BYTES if h.opcode == XlOp.WRITE else 0
    if len(pkt.lines) != want:
        return XlStatus.BAD_LEN
    if h.addr % LINE_BYTES:
        return XlStatus.BAD_ALIGN
    if h.addr < cfg.win_base or h.addr + nbytes > cfg.win_base + cfg.win_size:
        return XlStatus.BAD_ADDR
    off = h.addr - cfg.win_base
    if h.opcode == XlOp.WRITE and off < cfg.coh_off + cfg.coh_size and off + nbytes > cfg.coh_off:
        return XlStatus.COH_WR
    return XlStatus.OK


def translate(cfg: BridgeConfig, addr: int) -> int:
    return cfg.hpa_base + (addr - cfg.win_base)


def is_coherent(cfg: BridgeConfig, addr: int) -> bool:
    off = addr - cfg.win_base
    return cfg.coh_off <= off < cfg.coh_off + cfg.coh_size


@dataclass(frozen=True)
class LineOp:
    """One 64 B CXL operation a valid request splits into."""

    index: int        # line number inside the request
    xl_addr: int
    hpa: int
    coherent: bool
    write: bool
    data: bytes | None = None

    def m2s(self, tag: int) -> M2SReq | M2SRwD:
        if self.write:
            assert self.data is not None
            return M2SRwD(memop=M2SRwDOp.MEMWR, snptype=SnpType.NOOP, metafield=META_NOOP,
                          tag=tag, addr=self.hpa >> 6, data=self.data)
        return M2SReq(memop=M2SReqOp.MEMRD, snptype=SnpType.NOOP, metafield=META_NOOP,
                      tag=tag, addr=self.hpa >> 6)

    def d2h(self, cqid: int) -> D2HReq:
        return D2HReq(opcode=D2HReqOp.RDCURR, cqid=cqid, addr=self.hpa >> 6)


def split(cfg: BridgeConfig, pkt: Packet) -> list[LineOp]:
    h = pkt.hdr
    n = len_bytes(cfg.flavor, h.len) // LINE_BYTES
    wr = h.opcode == XlOp.WRITE
    return [LineOp(i, h.addr + LINE_BYTES * i, translate(cfg, h.addr + LINE_BYTES * i),
                   is_coherent(cfg, h.addr + LINE_BYTES * i), wr, pkt.lines[i] if wr else None)
            for i in range(n)]


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
    """Length-field values the bridge supports in `flavor` (64..256 B)."""
    return [len_field for len_field in range(0, 512)
            if len_bytes(flavor, len_field) in (64, 128, 192, 256)] if flavor in (UALINK, NVLINK) else []
