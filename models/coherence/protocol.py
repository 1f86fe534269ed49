"""Pure protocol tables of the lightweight CXL.cache home agent (no state, no side effects).

Written from /work/shared/reference/cxl-protocol.md (CXL.cache section: host answers, snoop
response sets, ordering rules). Where the reference leaves a choice open the choice made here is
stated next to the rule.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from models.cxl.messages import D2HReqOp, D2HRspOp, GOState, H2DReqOp, H2DRspOp

Op = D2HReqOp
Rsp = D2HRspOp
Snp = H2DReqOp


class DirState(IntEnum):
    """Directory (snoop filter) state of a line. E stands for "owned": the owner may be E or M."""

    I = 0  # noqa: E741 - no entry, or a way reserved for a transaction that is still running
    S = 1
    E = 2


class LineState(IntEnum):
    """Device cache line state: MESI plus the eviction-pending states.

    A line whose eviction request is outstanding can no longer be read or written (it only answers
    snoops): EV_C holds a clean copy, EV_M the dirty data for the write-pull, EV_I means a snoop took
    the line meanwhile (the write-pull then returns Bogus data).
    """

    I = 0  # noqa: E741
    S = 1
    E = 2
    M = 3
    EV_C = 4
    EV_M = 5
    EV_I = 6


READABLE = frozenset({LineState.S, LineState.E, LineState.M})
WRITABLE = frozenset({LineState.E, LineState.M})

# Every D2H request opcode of cxl-protocol.md line 21-23 is served. Anything else is an illegal
# request: answered GO-Err (GO with RspData = Error, cxl-protocol.md line 24 and 36) and counted.
REQUEST_OPS: frozenset[int] = frozenset({
    Op.RDSHARED, Op.RDOWN, Op.RDANY, Op.RDCURR, Op.RDOWNNODATA, Op.ITOMWR, Op.WRCUR,
    Op.CLEANEVICT, Op.DIRTYEVICT, Op.CLEANEVICTNODATA, Op.CLFLUSH, Op.WRINV,
    Op.WOWRINV, Op.WOWRINVF, Op.CACHEFLUSHED})
READ_OPS = frozenset({Op.RDSHARED, Op.RDOWN, Op.RDANY, Op.RDCURR})  # return one line of data
# The device writes a new line value through (its data is committed when it reaches the home).
WRITE_OPS = frozenset({Op.ITOMWR, Op.WRCUR, Op.WRINV, Op.WOWRINV, Op.WOWRINVF})
# Weakly ordered write-invalidates: Fast_GO_WritePull, the line, then ExtCmp once it is in memory.
WEAK_WRITE_OPS = frozenset({Op.WOWRINV, Op.WOWRINVF})
EVICT_OPS = frozenset({Op.CLEANEVICT, Op.DIRTYEVICT, Op.CLEANEVICTNODATA})
# Requests without a line: answered at once, no transaction, no directory change.
LINELESS_OPS = frozenset({Op.CACHEFLUSHED})
# Requests that leave the requester holding the line, so they need a snoop-filter way.
ALLOC_OPS = frozenset({Op.RDSHARED, Op.RDOWN, Op.RDANY, Op.RDOWNNODATA})
INVALIDATING_OPS = frozenset({Op.RDOWN, Op.RDOWNNODATA, Op.ITOMWR, Op.WRCUR, Op.WRINV, Op.CLFLUSH,
                              Op.WOWRINV, Op.WOWRINVF})

# Snoop -> legal D2H responses (cxl-protocol.md, [PMU table 3-20]).
LEGAL_SNOOP_RSPS: dict[int, frozenset[int]] = {
    Snp.SNPDATA: frozenset({Rsp.RSPIHITI, Rsp.RSPSHITSE, Rsp.RSPSFWDM, Rsp.RSPIFWDM}),
    Snp.SNPINV: frozenset({Rsp.RSPIHITI, Rsp.RSPIHITSE, Rsp.RSPIFWDM}),
    Snp.SNPCUR: frozenset({Rsp.RSPIHITI, Rsp.RSPVHITV, Rsp.RSPSHITSE, Rsp.RSPSFWDM, Rsp.RSPIFWDM,
                           Rsp.RSPVFWDV}),
}
# What the home takes a snoop answer outside the snoop's legal set for: the device no longer holds the
# line and sends no data, so the line never waits for another answer (counted as illegal_rsp).
ILLEGAL_RSP_TAKEN_AS = Rsp.RSPIHITI
FWD_RSPS = frozenset({Rsp.RSPSFWDM, Rsp.RSPIFWDM, Rsp.RSPVFWDV})  # data follows on D2H Data
KEEP_S_RSPS = frozenset({Rsp.RSPSHITSE, Rsp.RSPSFWDM})  # snooped device keeps S
KEEP_V_RSPS = frozenset({Rsp.RSPVHITV, Rsp.RSPVFWDV})  # snooped device keeps its state
DIRTY_TO_MEM_RSPS = frozenset({Rsp.RSPSFWDM, Rsp.RSPIFWDM})  # the owner gave up M: data is the only copy

GO_CLASS = frozenset({H2DRspOp.GO, H2DRspOp.GO_WRITEPULL, H2DRspOp.GO_WRITEPULL_DROP,
                      H2DRspOp.FAST_GO_WRITEPULL, H2DRspOp.GO_ERR_WRITEPULL})
PULL_CLASS = frozenset({H2DRspOp.WRITEPULL, H2DRspOp.GO_WRITEPULL, H2DRspOp.FAST_GO_WRITEPULL,
                        H2DRspOp.GO_ERR_WRITEPULL})

# Deliberately broken protocol variants, only for the negative tests of the checkers.
FAULTS = ("skip_sharer_inv", "no_fwd_writeback", "early_go")


@dataclass(frozen=True)
class SnoopAnswer:
    """One legal way for a device to answer a snoop from a given line state."""

    rsp: int
    new_state: LineState
    fwd: bool  # send the line on D2H Data


def snoop_options(snoop: int, state: LineState) -> tuple[SnoopAnswer, ...]:
    """Legal answers of a device cache to `snoop` in `state`; the first one is the default policy.

    Eviction-pending lines always go to EV_I (the device is dropping them anyway); dirty ones hand
    their data over with RspIFwdM (legal for all three snoops).
    """
    L, A = LineState, SnoopAnswer
    if state in (L.I, L.EV_I):
        return (A(Rsp.RSPIHITI, state, False),)
    if state == L.EV_M:
        return (A(Rsp.RSPIFWDM, L.EV_I, True),)
    if state == L.EV_C:
        return (A(Rsp.RSPIHITSE if snoop == Snp.SNPINV else Rsp.RSPIHITI, L.EV_I, False),)
    if snoop == Snp.SNPINV:
        if state == L.M:
            return (A(Rsp.RSPIFWDM, L.I, True),)
        return (A(Rsp.RSPIHITSE, L.I, False),)
    if snoop == Snp.SNPDATA:
        if state == L.M:
            return (A(Rsp.RSPSFWDM, L.S, True), A(Rsp.RSPIFWDM, L.I, True))
        return (A(Rsp.RSPSHITSE, L.S, False), A(Rsp.RSPIHITI, L.I, False))
    if snoop == Snp.SNPCUR:
        if state == L.M:
            return (A(Rsp.RSPVFWDV, L.M, True), A(Rsp.RSPSFWDM, L.S, True), A(Rsp.RSPIFWDM, L.I, True))
        return (A(Rsp.RSPVHITV, state, False), A(Rsp.RSPSHITSE, L.S, False), A(Rsp.RSPIHITI, L.I, False))
    raise ValueError(f"unknown snoop opcode {snoop}")


def holders(sharers: int) -> list[int]:
    """Ports whose bit is set in a sharer vector."""
    return [p for p in range(sharers.bit_length()) if sharers >> p & 1]


def snoop_plan(op: int, state: DirState, sharers: int, requester: int,
               fault: str | None = None) -> tuple[int | None, int]:
    """(snoop opcode, target vector) for a request; snoops only go to recorded holders.

    The requester is never snooped: it only issues these requests while it holds no readable copy
    it would lose (reads from I, upgrades from S keep S until the GO), so a stale directory bit for
    it is simply overwritten.
    """
    others = sharers & ~(1 << requester)
    if not others:
        return None, 0
    if op in INVALIDATING_OPS:
        if fault == "skip_sharer_inv" and op == Op.RDOWN and state == DirState.S:
            return None, 0
        return Snp.SNPINV, others
    if op in (Op.RDSHARED, Op.RDANY) and state == DirState.E:
        return Snp.SNPDATA, others
    if op == Op.RDCURR and state == DirState.E:
        return Snp.SNPCUR, others
    return None, 0


@dataclass(frozen=True)
class Decision:
    """What the home does once every snoop response (and forwarded data) of a request is in."""

    state: DirState  # new directory state of the line
    sharers: int
    go: int | None = None  # GO state sent now (with the data, if any)
    data_src: str | None = None  # "mem" (MemRd first), "fwd" (forwarded line) or None
    write_fwd: bool = False  # write the forwarded dirty line to memory
    pull: int | None = None  # WritePull / GO_WritePull / GO_WritePull_Drop
    accept_pull: bool = False  # write the pulled line to memory (unless Bogus)
    go_after_cmp: int | None = None  # GO sent once the pulled data / flush reached memory
    extcmp: bool = False  # ExtCmp sent once the pulled data reached memory (weakly ordered writes)
    # when the pulled line cannot be written (Bogus, or byte enables this agent cannot apply), write
    # the forwarded dirty line instead, so the previous owner's data is not lost
    fwd_if_no_pull: bool = False


def _survivors(sharers: int, rsps: dict[int, int]) -> int:
    """Vector of the recorded holders that still hold the line after their snoop answers."""
    keep = 0
    for p in holders(sharers):
        r = rsps.get(p)
        if r is None or r in KEEP_S_RSPS or r in KEEP_V_RSPS:
            keep |= 1 << p
    return keep


def decide(op: int, requester: int, state: DirState, sharers: int, rsps: dict[int, int],
           have_fwd: bool, coherent: bool = True, fault: str | None = None) -> Decision:
    """The host's answer to request `op` from `requester` (cxl-protocol.md "Typical host answers").

    Choices made here: RdShared always gets GO-S; RdAny gets GO-E when nobody else holds the line
    and GO-M when the previous owner handed its dirty line over (RspIFwdM), as does RdOwn; dirty data
    that ends up shared is written to memory; ItoMWr/WrCur/WrInv are full-line writes, so a previous
    owner's dirty data is dropped; CleanEvict is answered GO_WritePull_Drop (memory is current).
    """
    me = 1 << requester
    dirty = any(r in DIRTY_TO_MEM_RSPS for r in rsps.values())
    src = "fwd" if have_fwd else "mem"
    if not coherent:  # selective coherence: straight to memory, never cached, directory untouched
        if op in (Op.RDSHARED, Op.RDOWN, Op.RDANY):
            return Decision(DirState.I, 0, go=GOState.I, data_src="mem")
        if op == Op.RDCURR:
            return Decision(DirState.I, 0, data_src="mem")
        if op in (Op.ITOMWR, Op.WRCUR, Op.DIRTYEVICT):
            return Decision(DirState.I, 0, pull=H2DRspOp.GO_WRITEPULL, accept_pull=True)
        if op == Op.WRINV:
            return Decision(DirState.I, 0, pull=H2DRspOp.WRITEPULL, accept_pull=True, go_after_cmp=GOState.I)
        if op == Op.CLEANEVICT:
            return Decision(DirState.I, 0, pull=H2DRspOp.GO_WRITEPULL_DROP)
        if op in WEAK_WRITE_OPS:
            return Decision(DirState.I, 0, pull=H2DRspOp.FAST_GO_WRITEPULL, accept_pull=True, extcmp=True)
        if op == Op.CACHEFLUSHED:
            return Decision(state, sharers, go=GOState.I)
        return Decision(DirState.I, 0, go=GOState.I)  # RdOwnNoData, CleanEvictNoData, CLFlush

    others = sharers & ~me
    keep = _survivors(others, rsps)
    write_fwd = dirty and fault != "no_fwd_writeback"
    if op == Op.RDSHARED:
        return Decision(DirState.S, keep | me, go=GOState.S, data_src=src, write_fwd=write_fwd)
    if op == Op.RDANY:
        if keep:
            return Decision(DirState.S, keep | me, go=GOState.S, data_src=src, write_fwd=write_fwd)
        if have_fwd:  # previous owner went I and handed over its dirty line: pass M on
            return Decision(DirState.E, me, go=GOState.M, data_src="fwd")
        return Decision(DirState.E, me, go=GOState.E, data_src="mem")
    if op == Op.RDOWN:
        if have_fwd:
            return Decision(DirState.E, me, go=GOState.M, data_src="fwd")
        return Decision(DirState.E, me, go=GOState.E, data_src="mem")
    if op == Op.RDOWNNODATA:
        return Decision(DirState.E, me, go=GOState.E, write_fwd=dirty)
    if op == Op.RDCURR:
        if not keep:
            return Decision(DirState.I, 0, data_src=src, write_fwd=write_fwd)
        st = state if not any(r in KEEP_S_RSPS for r in rsps.values()) else DirState.S
        return Decision(st, keep, data_src=src, write_fwd=write_fwd)
    if op in (Op.ITOMWR, Op.WRCUR):
        return Decision(DirState.I, 0, pull=H2DRspOp.GO_WRITEPULL, accept_pull=True)
    if op == Op.WRINV:
        return Decision(DirState.I, 0, pull=H2DRspOp.WRITEPULL, accept_pull=True, go_after_cmp=GOState.I)
    if op in WEAK_WRITE_OPS:  # full-line write: a previous owner's dirty line is kept only as a fallback
        return Decision(DirState.I, 0, pull=H2DRspOp.FAST_GO_WRITEPULL, accept_pull=True, extcmp=True,
                        fwd_if_no_pull=dirty and have_fwd)
    if op == Op.CACHEFLUSHED:  # no line: the directory is left as it is (it is a superset anyway)
        return Decision(state, sharers, go=GOState.I)
    if op == Op.CLFLUSH:
        if dirty:
            return Decision(DirState.I, 0, write_fwd=True, go_after_cmp=GOState.I)
        return Decision(DirState.I, 0, go=GOState.I)
    rest_state = state if others else DirState.I
    if op == Op.CLEANEVICT:
        return Decision(rest_state, others, pull=H2DRspOp.GO_WRITEPULL_DROP)
    if op == Op.DIRTYEVICT:
        owner = state == DirState.E and sharers == me
        return Decision(rest_state, others, pull=H2DRspOp.GO_WRITEPULL, accept_pull=owner)
    if op == Op.CLEANEVICTNODATA:
        return Decision(rest_state, others, go=GOState.I)
    raise ValueError(f"request opcode {op} is not served")


@dataclass(frozen=True)
class CompletionSpec:
    """What completes a request as seen at the host ports (for the completion checker)."""

    go: bool  # exactly one GO-class H2D Rsp
    data: bool  # exactly one H2D Data
    pull: str  # "no": no WritePull; "yes": exactly one pull (+ one D2H Data); "maybe": CleanEvict
    extcmp: bool = False  # exactly one ExtCmp (weakly ordered writes)


def completion_spec(op: int, go_state_in_error: bool = False) -> CompletionSpec:
    """Expected host answers per request opcode (cxl-protocol.md "Typical host answers").

    An opcode that is not served is answered with one GO (GO-Err) and nothing else."""
    if op not in REQUEST_OPS:
        return CompletionSpec(go=True, data=False, pull="no")
    if op in WEAK_WRITE_OPS:
        return CompletionSpec(go=True, data=False, pull="yes", extcmp=True)
    if op == Op.CACHEFLUSHED:
        return CompletionSpec(go=True, data=False, pull="no")
    if op in (Op.RDSHARED, Op.RDOWN, Op.RDANY):
        return CompletionSpec(go=True, data=not go_state_in_error, pull="no")
    if op == Op.RDCURR:
        return CompletionSpec(go=False, data=True, pull="no")
    if op in (Op.RDOWNNODATA, Op.CLEANEVICTNODATA, Op.CLFLUSH):
        return CompletionSpec(go=True, data=False, pull="no")
    if op in (Op.ITOMWR, Op.WRCUR, Op.DIRTYEVICT, Op.WRINV):
        return CompletionSpec(go=True, data=False, pull="yes")
    if op == Op.CLEANEVICT:
        return CompletionSpec(go=True, data=False, pull="maybe")
    raise ValueError(f"request opcode {op} is not served")
