"""Buffer policies of the bridge (hot-line cache, pre-converted header table, write buffer) and the
functional reference of the whole bridge.

Policies (parameters of xbridge_core):
* hot-line cache: direct-mapped, SETS lines of 64 B kept in the HBM model; tag = CXL line address.
  Read miss -> line filled (from the CXL response, or from a write-buffer forward); write ->
  update on a tag hit, allocate on a miss when WR_ALLOC=1. Coherent lines are never cached (a
  bridge copy would not be snooped). Write-through: the write buffer always drains to CXL, so an
  eviction never writes back. The read of a partial-line write (read-modify-write) does not fill;
  the merged write then follows the write rule.
  Timing rule (what makes hit/miss exact when requests do not overlap): every fill is taken (a full
  HBM write queue back-pressures S2M DRS instead of dropping the fill) and the tag is written when
  the line enters the HBM write queue from the issue stage, or one cycle after a fill from S2M DRS
  entered it (visible from the second cycle after the data arrived, while the request's response
  leaves at the earliest in the first), so the next request of a sequential stream, looked up
  cycles after that response, sees it. A hit read waits until the queue is empty, so it never
  overtakes a queued write of its set. When requests overlap, which of two fills of one set lands
  last depends on CXL response order (and a read issued in the cycle after a fill's data
  arrived misses); only the sequential case is checked exactly.
* header table: direct-mapped on the request's line address, HT_ENTRIES entries, key = (addr, len,
  opcode); a hit skips the translate/build stages of the conversion pipeline.
* write buffer: WB_DEPTH posted 64 B writes; the XLink write is acknowledged when all its lines are
  in the buffer; a write to a line that is still waiting in the buffer overwrites it (coalesce);
  reads that miss the cache are forwarded from the buffer.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from models.bridge.convert import (BridgeConfig, LineOp, check, len_bytes, merge, read_payload,
                                   response, split)
from models.bridge.packets import Packet, XlOp, XlStatus


@dataclass
class HotLineCache:
    sets: int
    write_alloc: bool = True
    tags: dict[int, int] = field(default_factory=dict)   # set -> line address
    hits: int = 0
    misses: int = 0

    def index(self, line: int) -> int:
        return line % self.sets

    def lookup(self, line: int) -> bool:
        hit = self.tags.get(self.index(line)) == line
        if hit:
            self.hits += 1
        else:
            self.misses += 1
        return hit

    def fill(self, line: int) -> None:
        self.tags[self.index(line)] = line

    def write(self, line: int) -> None:
        if self.tags.get(self.index(line)) == line or self.write_alloc:
            self.fill(line)


@dataclass
class HeaderTable:
    entries: int
    keys: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    hits: int = 0

    def lookup_insert(self, addr: int, len_field: int, opcode: int) -> bool:
        idx = (addr >> 6) % self.entries
        key = (addr, len_field, opcode)
        if self.keys.get(idx) == key:
            self.hits += 1
            return True
        self.keys[idx] = key
        return False


@dataclass
class BridgeRef:
    """Functional reference: in-order XLink semantics over a CXL memory.

    ``mem`` maps CXL line address (HPA >> 6) -> 64 B; unwritten lines read as ``default(line)``.
    ``nxm`` holds line addresses the far side answers with an error (MemData-NXM or poison; -> CXL_ERR
    on a read). With a buffer (``sets`` > 0) the reference also tracks which read lines the bridge
    answers itself when requests are issued one at a time (no overlap), to check hit/miss
    classification. With ``track_tags`` a request whose (src, tag) is outstanding (processed and not
    yet ``retire``d) is answered BAD_TAG before any other check; the caller retires each request
    when its answer has left the bridge.
    """

    cfg: BridgeConfig
    default: object = None
    mem: dict[int, bytes] = field(default_factory=dict)
    nxm: set[int] = field(default_factory=set)
    sets: int = 0
    write_alloc: bool = True
    ht_entries: int = 0
    cache: HotLineCache | None = None
    htab: HeaderTable | None = None
    errors: dict[int, int] = field(default_factory=dict)
    track_tags: bool = False
    outstanding: dict[tuple[int, int], int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.sets:
            self.cache = HotLineCache(self.sets, self.write_alloc)
        if self.ht_entries:
            self.htab = HeaderTable(self.ht_entries)

    def retire(self, src: int, tag: int) -> None:
        """The answer to a request with (src, tag) has left the bridge: the pair is free again."""
        key = (src, tag)
        n = self.outstanding.get(key, 0)
        if n <= 0:
            raise ValueError(f"retire of (src {src}, tag {tag}) that is not outstanding")
        if n == 1:
            del self.outstanding[key]
        else:
            self.outstanding[key] = n - 1

    def read_line(self, line: int) -> bytes:
        if line in self.mem:
            return self.mem[line]
        return self.default(line) if callable(self.default) else bytes(64)

    def _err(self, st: XlStatus) -> None:
        self.errors[int(st)] = self.errors.get(int(st), 0) + 1

    def process(self, pkt: Packet) -> tuple[Packet, list[LineOp], list[bool]]:
        """Response, line operations, and per line 'answered on the bridge' (sequential mode).

        Writes: a full line is written as is (CXL.mem MemWr, or CXL.cache ItoMWr when coherent);
        a partial line is merged into the current line (read-modify-write); if that read is
        answered with an error the line is not written and the request answers CXL_ERR. A coherent
        line in ``nxm`` is refused by the home (GO_ERR_WritePull): not written, CXL_ERR.
        """
        key = (pkt.hdr.src, pkt.hdr.tag)
        dup = self.track_tags and self.outstanding.get(key, 0) > 0
        if self.track_tags:
            self.outstanding[key] = self.outstanding.get(key, 0) + 1
        st = XlStatus.BAD_TAG if dup else check(self.cfg, pkt)
        if st != XlStatus.OK:
            self._err(st)
            return response(pkt.hdr, st), [], []
        if self.htab is not None:
            self.htab.lookup_insert(pkt.hdr.addr, pkt.hdr.len, pkt.hdr.opcode)
        ops = split(self.cfg, pkt)
        local: list[bool] = []
        if pkt.hdr.opcode == XlOp.WRITE:
            err = False
            for op in ops:
                assert op.data is not None
                line = op.hpa >> 6
                local.append(False)
                if op.coherent and line in self.nxm:
                    err = True          # the home refused the write (GO_ERR_WritePull)
                    continue
                if op.partial:
                    if line in self.nxm and not (self.cache is not None
                                                 and self.cache.tags.get(self.cache.index(line)) == line):
                        err = True
                        continue
                    self.mem[line] = merge(self.read_line(line), op.data, op.mask)
                else:
                    self.mem[line] = op.data
                if self.cache is not None and not op.coherent:
                    self.cache.write(line)
            if err:
                self._err(XlStatus.CXL_ERR)
                return response(pkt.hdr, XlStatus.CXL_ERR), ops, local
            return response(pkt.hdr, XlStatus.OK), ops, local
        lines = []
        err = False
        for op in ops:
            line = op.hpa >> 6
            hit = False
            if self.cache is not None and not op.coherent:
                hit = self.cache.lookup(line)
                if not hit and line not in self.nxm:
                    self.cache.fill(line)
            local.append(hit)
            if line in self.nxm and not hit:
                err = True
            lines.append(self.read_line(line))
        if err:
            self._err(XlStatus.CXL_ERR)
            return response(pkt.hdr, XlStatus.CXL_ERR), ops, local
        nbytes = len_bytes(self.cfg.flavor, pkt.hdr.len)
        return response(pkt.hdr, XlStatus.OK, read_payload(pkt.hdr.addr, nbytes, lines)), ops, local
