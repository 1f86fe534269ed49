"""Reference model of rtl/edge/sp_mem_node, the CXL.mem memory node of the rack edge.

Written from rtl/edge/README.md ("Memory nodes", the file table) and the module's port and
parameter text, not from its RTL:

* Contents. A line never written reads as its image: every 64-bit word is {DATA_TAG, Addr[51:6]}
  (the 18-bit DATA_TAG above the 46-bit line address). A written line reads back what was written
  while the store remembers it: the store is direct mapped over 2^AW entries indexed by the line
  address's low AW bits, each entry tagged with the rest of the line address and valid from its
  first write; reset clears every valid bit. A write that replaces a valid entry holding another
  line counts one alias (`stat_alias`, 32 bits, wrapping).
* Ordering. A write takes effect when its RwD is accepted; a read takes its data when its Req is
  accepted. A read and a write accepted in the same cycle: the read sees the contents before the
  write.
* Responses. Every M2S Req is a MemRd and every M2S RwD a MemWr (the node uses only Tag, LD-ID and
  Addr of a header): a read is answered by S2M DRS MemData, a write by S2M NDR Cmp, each with the
  request's Tag and LD-ID, MetaField No-Op and every other header bit 0. Each class answers in
  acceptance order and holds at most DEPTH answers.
* Timing. Cycles are numbered by clock edge: a request "accepted in cycle a" transferred at edge a,
  a response "valid in cycle k" is seen by edge k. A response is valid first in cycle
  a + max(lat, 1), lat being the `lat` input at acceptance: `lat` cycles after acceptance, and never
  in the acceptance cycle itself, since the answer leaves through a queue with the cycles of a
  sync_fifo (rtl/edge/README.md: sp_mem_q), whose out_valid follows the first push by one cycle
  (tb/common/README.md); so lat = 0 answers like lat = 1. Later answers wait behind earlier ones of
  their class. In cycle k a class's queue holds the answers accepted before k and not taken before
  k: the head of them is valid from its earliest cycle on; the class accepts (in_ready) while it
  holds fewer than DEPTH (a take in the same cycle makes no room, as in a sync_fifo).

Times are unbounded integers here: the model knows nothing of the node's 32-bit time stamp, so a
bench comparing the two checks the node's wrap-safe time compare at any time it reaches.
"""
from __future__ import annotations

from bisect import bisect_left
from collections import deque
from dataclasses import dataclass

from models.common.bits import bit_mask, get_field
from models.cxl.messages import (CXL_DATA_W, SPECS, M2SReq, M2SRwD, S2MDRS, S2MDRSOp, S2MNDR,
                                 S2MNDROp)
from models.switch.flows import META_FIELD_NO_OP

DATA_TAG = 0x3C0DE          # sp_mem_node's default DATA_TAG (the co-simulation's)
DATA_TAG_W = 18             # DATA_TAG's width: with the line address it fills a 64-bit word
LINE_W = dict(SPECS["m2s_req"].canonical)["addr"]      # Addr[51:6]
WORD_W = 64
ALIAS_W = 32                # stat_alias
_REQ_W = SPECS["m2s_req"].canonical_width              # header bits the canonical layout uses
_RWD_W = SPECS["m2s_rwd"].canonical_width

READ_OUTCOMES = ("hit", "never_written", "evicted")    # evicted: written, then another line took its entry
WRITE_OUTCOMES = ("fresh", "rewrite", "alias")         # the entry was: invalid, this line, another line


@dataclass(frozen=True)
class Response:
    """One expected answer: its canonical header (and data for DRS), the cycle its request was
    accepted in and the first cycle it may be valid in. ``outcome`` says what the request met in
    the store (READ_OUTCOMES / WRITE_OUTCOMES); ``line`` is the request's line address."""

    kind: str               # "drs" (read) or "ndr" (write)
    hdr: int
    data: int | None
    accepted: int
    lat: int
    earliest: int
    line: int
    outcome: str

    def payload(self) -> dict[str, int]:
        """The response as a monitor of the S2M channel sees it."""
        return {"hdr": self.hdr} if self.data is None else {"hdr": self.hdr, "data": self.data}


class RespQueue:
    """One response class: answers in acceptance order, at most ``depth`` held (see the module
    text for the cycle rules)."""

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.q: deque[Response] = deque()
        self.taken = 0

    def push(self, r: Response) -> None:
        if self.q and r.accepted <= self.q[-1].accepted:
            raise ValueError(f"two requests of one class accepted in cycle {r.accepted}")
        self.q.append(r)

    def held(self, k: int) -> int:
        """Answers held in cycle k: accepted before k, not yet taken."""
        n = 0
        for r in self.q:
            if r.accepted >= k:
                break
            n += 1
        return n

    def ready(self, k: int) -> bool:
        return self.held(k) < self.depth

    def head(self, k: int) -> Response | None:
        return self.q[0] if self.q and self.q[0].accepted < k else None

    def valid(self, k: int) -> bool:
        h = self.head(k)
        return h is not None and k >= h.earliest

    def take(self, k: int, early: bool = False) -> Response:
        """The head leaves in cycle k (valid and ready; ``early``: also before its earliest cycle,
        for a bench that has reported that and keeps following the design)."""
        if not (self.valid(k) or early and self.head(k) is not None):
            raise ValueError(f"cycle {k}: nothing valid to take")
        self.taken += 1
        return self.q.popleft()

    def next_valid(self, k: int) -> int | None:
        """The first cycle >= k in which the head (accepted before k) is valid, if any."""
        h = self.head(k)
        return None if h is None else max(k, h.earliest)

    def __len__(self) -> int:
        return len(self.q)


@dataclass
class _Entry:
    key: int                # line address above the index bits
    data: int
    written: int            # cycle of the write that stored it
    before: "_Entry | None"  # the entry as it was before that write (one cycle of history)


class MemNodeModel:
    """sp_mem_node with ``2^aw`` stored lines, ``depth`` answers per class, a ``lat_w``-bit `lat`."""

    def __init__(self, aw: int, depth: int, lat_w: int = 16, data_tag: int = DATA_TAG) -> None:
        if not 1 <= aw <= 24:
            raise ValueError(f"AW {aw}: 1..24")
        if depth < 3:
            raise ValueError(f"DEPTH {depth}: at least 3")
        if not 1 <= lat_w <= 32:
            raise ValueError(f"LAT_W {lat_w}: 1..32")
        if data_tag >> DATA_TAG_W:
            raise ValueError(f"DATA_TAG {data_tag:#x} wider than {DATA_TAG_W} bits")
        self.aw, self.depth, self.lat_w, self.data_tag = aw, depth, lat_w, data_tag
        self.reset()

    def reset(self) -> None:
        self.store: dict[int, _Entry] = {}
        self.first_write: dict[int, int] = {}     # line -> cycle of its first write since reset
        self.alias_cycles: list[int] = []          # cycles of the writes that counted an alias
        self.drs = RespQueue(self.depth)
        self.ndr = RespQueue(self.depth)

    # ------------------------------------------------------------------ contents
    def image(self, line: int) -> int:
        """A never-written line: {DATA_TAG, line} in every 64-bit word."""
        word = (self.data_tag << LINE_W) | line
        return sum(word << (WORD_W * i) for i in range(CXL_DATA_W // WORD_W))

    def _split(self, line: int) -> tuple[int, int]:
        return line & bit_mask(self.aw), line >> self.aw

    def _entry_before(self, idx: int, cycle: int) -> _Entry | None:
        """The entry at ``idx`` as a request accepted in ``cycle`` sees it: without a write of that
        same cycle (the read sees the old contents)."""
        e = self.store.get(idx)
        while e is not None and e.written >= cycle:
            e = e.before
        return e

    def lookup(self, line: int, cycle: int) -> tuple[int, str]:
        """(data, outcome) of a read of ``line`` accepted in ``cycle``."""
        idx, key = self._split(line)
        e = self._entry_before(idx, cycle)
        if e is not None and e.key == key:
            return e.data, "hit"
        written = self.first_write.get(line)
        return self.image(line), ("evicted" if written is not None and written < cycle else "never_written")

    @property
    def alias(self) -> int:
        """stat_alias after every write the model has seen."""
        return len(self.alias_cycles) & bit_mask(ALIAS_W)

    def alias_before(self, k: int) -> int:
        """stat_alias in cycle k: the aliases of writes accepted before k."""
        return bisect_left(self.alias_cycles, k) & bit_mask(ALIAS_W)

    # ------------------------------------------------------------------ requests
    def earliest(self, cycle: int, lat: int) -> int:
        """First cycle in which the answer to a request accepted in ``cycle`` may be valid."""
        if not 0 <= lat < 1 << self.lat_w:
            raise ValueError(f"lat {lat} outside {self.lat_w} bits")
        return cycle + max(lat, 1)

    def read(self, hdr: int, cycle: int, lat: int) -> Response:
        """An M2S Req accepted in ``cycle`` with `lat` = ``lat``: its S2M DRS, queued."""
        req = M2SReq.from_canonical(hdr & bit_mask(_REQ_W))
        data, outcome = self.lookup(req.addr, cycle)
        drs = S2MDRS(memop=int(S2MDRSOp.MEMDATA), metafield=META_FIELD_NO_OP, tag=req.tag, ldid=req.ldid)
        r = Response("drs", drs.to_canonical(), data, cycle, lat, self.earliest(cycle, lat), req.addr, outcome)
        self.drs.push(r)
        return r

    def write(self, hdr: int, data: int, cycle: int, lat: int) -> Response:
        """An M2S RwD accepted in ``cycle``: stores the line, its S2M NDR queued."""
        if data >> CXL_DATA_W:
            raise ValueError("data wider than a line")
        rwd = M2SRwD.from_canonical(hdr & bit_mask(_RWD_W))
        idx, key = self._split(rwd.addr)
        old = self._entry_before(idx, cycle)
        if old is None:
            outcome = "fresh"
        elif old.key == key:
            outcome = "rewrite"
        else:
            outcome = "alias"
            self.alias_cycles.append(cycle)
        self.store[idx] = _Entry(key, data, cycle, None if old is None else
                                 _Entry(old.key, old.data, old.written, None))
        self.first_write.setdefault(rwd.addr, cycle)
        ndr = S2MNDR(memop=int(S2MNDROp.CMP), metafield=META_FIELD_NO_OP, tag=rwd.tag, ldid=rwd.ldid)
        r = Response("ndr", ndr.to_canonical(), None, cycle, lat, self.earliest(cycle, lat), rwd.addr, outcome)
        self.ndr.push(r)
        return r

    def queue(self, kind: str) -> RespQueue:
        return self.drs if kind == "drs" else self.ndr


def _addr_field(kind: str) -> tuple[int, int]:
    spec = SPECS["m2s_req" if kind == "req" else "m2s_rwd"]
    return next((lsb, w) for n, lsb, w in spec.canonical_offsets() if n == "addr")


def line_of(hdr: int, kind: str) -> int:
    """Addr[51:6] of an M2S Req (kind "req") or RwD ("rwd") canonical header."""
    lsb, w = _addr_field(kind)
    return get_field(hdr, lsb, w)


def with_line(hdr: int, kind: str, line: int) -> int:
    """``hdr`` (M2S Req for kind "req", RwD for "rwd") with its Addr[51:6] replaced by ``line``."""
    lsb, w = _addr_field(kind)
    return (hdr & ~(bit_mask(w) << lsb)) | ((line & bit_mask(w)) << lsb)
