"""Directed tests of the coherence reference model (models/coherence): every request from every
directory state, races, directory eviction, selective coherence, errors, checkers, conversions."""
from __future__ import annotations

import pytest

from models.coherence import (
    CacheState,
    CD2HData,
    CD2HReq,
    CD2HRsp,
    CH2DData,
    CH2DReq,
    CH2DRsp,
    CM2SReq,
    CM2SRwD,
    CS2MDRS,
    CS2MNDR,
    CompletionChecker,
    DataValueChecker,
    DirState,
    LineState,
    Load,
    OrderingChecker,
    PortMsg,
    Store,
    SwmrChecker,
    SysConfig,
    System,
    check_trace,
    decide,
    from_cxl,
    snoop_options,
    to_cxl,
)
from models.coherence.protocol import LEGAL_SNOOP_RSPS, REQUEST_OPS
from models.coherence.scenario import request, sent_since, settle, setup, states_of, store
from models.cxl.messages import D2HReqOp as Op
from models.cxl.messages import D2HRspOp, GOState, H2DReqOp, H2DRspOp

L = LineState
I, S, E, M = L.I, L.S, L.E, L.M
CFG = SysConfig(n_devices=3, lines=(0,), sets=2, ways=2, max_requests=None, max_writes=None)
GO_ = H2DRspOp.GO
GWP, DROP, WP = H2DRspOp.GO_WRITEPULL, H2DRspOp.GO_WRITEPULL_DROP, H2DRspOp.WRITEPULL
FGWP, EXT = H2DRspOp.FAST_GO_WRITEPULL, H2DRspOp.EXTCMP
SD, SI, SC = H2DReqOp.SNPDATA, H2DReqOp.SNPINV, H2DReqOp.SNPCUR

# (op, setup) -> (snoop, snooped ports, final (dev0, dev1, dev2), directory (state, sharer ports) or
#                 None, H2D Rsp to dev0 as (opcode, GO state or None for pulls), memory holds latest)
ALL_I = (I, I, I)
EXPECT: dict[tuple[int, str], tuple] = {
    (Op.RDSHARED, "I"): (None, (), (S, I, I), (DirState.S, (0,)), [(GO_, GOState.S)], True),
    (Op.RDSHARED, "S"): (None, (), (S, S, S), (DirState.S, (0, 1, 2)), [(GO_, GOState.S)], True),
    (Op.RDSHARED, "E"): (SD, (1,), (S, S, I), (DirState.S, (0, 1)), [(GO_, GOState.S)], True),
    (Op.RDSHARED, "M"): (SD, (1,), (S, S, I), (DirState.S, (0, 1)), [(GO_, GOState.S)], True),
    (Op.RDOWN, "I"): (None, (), (E, I, I), (DirState.E, (0,)), [(GO_, GOState.E)], True),
    (Op.RDOWN, "S"): (SI, (1, 2), (E, I, I), (DirState.E, (0,)), [(GO_, GOState.E)], True),
    (Op.RDOWN, "E"): (SI, (1,), (E, I, I), (DirState.E, (0,)), [(GO_, GOState.E)], True),
    (Op.RDOWN, "M"): (SI, (1,), (M, I, I), (DirState.E, (0,)), [(GO_, GOState.M)], False),
    (Op.RDANY, "I"): (None, (), (E, I, I), (DirState.E, (0,)), [(GO_, GOState.E)], True),
    (Op.RDANY, "S"): (None, (), (S, S, S), (DirState.S, (0, 1, 2)), [(GO_, GOState.S)], True),
    (Op.RDANY, "E"): (SD, (1,), (S, S, I), (DirState.S, (0, 1)), [(GO_, GOState.S)], True),
    (Op.RDANY, "M"): (SD, (1,), (S, S, I), (DirState.S, (0, 1)), [(GO_, GOState.S)], True),
    (Op.RDCURR, "I"): (None, (), ALL_I, None, [], True),
    (Op.RDCURR, "S"): (None, (), (I, S, S), (DirState.S, (1, 2)), [], True),
    (Op.RDCURR, "E"): (SC, (1,), (I, E, I), (DirState.E, (1,)), [], True),
    (Op.RDCURR, "M"): (SC, (1,), (I, M, I), (DirState.E, (1,)), [], False),
    (Op.RDOWNNODATA, "I"): (None, (), (M, I, I), (DirState.E, (0,)), [(GO_, GOState.E)], False),
    (Op.RDOWNNODATA, "S"): (SI, (1, 2), (M, I, I), (DirState.E, (0,)), [(GO_, GOState.E)], False),
    (Op.RDOWNNODATA, "E"): (SI, (1,), (M, I, I), (DirState.E, (0,)), [(GO_, GOState.E)], False),
    (Op.RDOWNNODATA, "M"): (SI, (1,), (M, I, I), (DirState.E, (0,)), [(GO_, GOState.E)], False),
    (Op.RDOWN, "S_self"): (SI, (1,), (E, I, I), (DirState.E, (0,)), [(GO_, GOState.E)], True),
    (Op.RDOWNNODATA, "S_self"): (SI, (1,), (M, I, I), (DirState.E, (0,)), [(GO_, GOState.E)], False),
    (Op.CLEANEVICT, "S_self"): (None, (), (I, S, I), (DirState.S, (1,)), [(DROP, 0)], True),
    (Op.CLEANEVICTNODATA, "S_self"): (None, (), (I, S, I), (DirState.S, (1,)), [(GO_, GOState.I)], True),
    (Op.CLEANEVICT, "E_self"): (None, (), ALL_I, None, [(DROP, 0)], True),
    (Op.CLEANEVICTNODATA, "E_self"): (None, (), ALL_I, None, [(GO_, GOState.I)], True),
    (Op.DIRTYEVICT, "M_self"): (None, (), ALL_I, None, [(GWP, None)], True),
}
_SNOOPED = {"I": (), "S": (1, 2), "E": (1,), "M": (1,)}
for _st in ("I", "S", "E", "M"):
    _snp = SI if _SNOOPED[_st] else None
    EXPECT[(Op.ITOMWR, _st)] = (_snp, _SNOOPED[_st], ALL_I, None, [(GWP, None)], True)
    EXPECT[(Op.WRCUR, _st)] = (_snp, _SNOOPED[_st], ALL_I, None, [(GWP, None)], True)
    EXPECT[(Op.WRINV, _st)] = (_snp, _SNOOPED[_st], ALL_I, None, [(WP, None), (GO_, GOState.I)], True)
    EXPECT[(Op.CLFLUSH, _st)] = (_snp, _SNOOPED[_st], ALL_I, None, [(GO_, GOState.I)], True)
    for _wo in (Op.WOWRINV, Op.WOWRINVF):  # Fast_GO_WritePull, the line, ExtCmp after the memory write
        EXPECT[(_wo, _st)] = (_snp, _SNOOPED[_st], ALL_I, None, [(FGWP, None), (EXT, None)], True)
# CacheFlushed: GO-I at once, no snoop, the directory is left as it is
EXPECT[(Op.CACHEFLUSHED, "I")] = (None, (), ALL_I, None, [(GO_, GOState.I)], True)
EXPECT[(Op.CACHEFLUSHED, "S")] = (None, (), (I, S, S), (DirState.S, (1, 2)), [(GO_, GOState.I)], True)
EXPECT[(Op.CACHEFLUSHED, "M")] = (None, (), (I, M, I), (DirState.E, (1,)), [(GO_, GOState.I)], False)


def _assert_clean(s: System) -> None:
    assert s.quiescent()
    assert s.violations == []
    assert s.check() == []
    assert s.trace is not None
    res = check_trace(s.trace, {a: 0 for a in s.cfg.lines})
    assert res == {"swmr": [], "data": [], "completion": [], "ordering": []}, res
    assert not any(s.errors().values()), s.errors()


def test_every_request_is_covered() -> None:
    assert {op for op, _ in EXPECT} == set(REQUEST_OPS)
    assert {st for _, st in EXPECT} == {"I", "S", "E", "M", "S_self", "E_self", "M_self"}


@pytest.mark.parametrize("op,state", sorted(EXPECT), ids=lambda x: x.name if hasattr(x, "name") else str(x))
def test_directed_flow(op: int, state: str) -> None:
    snp, targets, final, dir_exp, rsps, mem_latest = EXPECT[(op, state)]
    s = setup(state, CFG)
    mark = len(s.trace)  # type: ignore[arg-type]
    request(s, 0, op, 0)
    sent = sent_since(s, mark)
    snoops = [m for m in sent if isinstance(m, CH2DReq)]
    assert sorted(m.port for m in snoops) == list(targets)
    assert all(m.opcode == snp for m in snoops)
    got = [(m.opcode, m.rspdata if m.opcode == GO_ or m.opcode == DROP else None)
           for m in sent if isinstance(m, CH2DRsp) and m.port == 0]
    assert got == [(o, g) for o, g in rsps]
    assert states_of(s, 0) == final
    e = s.home.entry(0)
    if dir_exp is None:
        assert e is None
    else:
        assert e is not None and e.state == dir_exp[0]
        assert e.sharers == sum(1 << p for p in dir_exp[1])
    assert (s.mem.get(0, 0) == s.latest[0]) == mem_latest
    _assert_clean(s)


def test_rdcurr_returns_owner_dirty_data() -> None:
    s = setup("M", CFG)
    v = s.latest[0]
    mark = len(s.trace)  # type: ignore[arg-type]
    request(s, 0, Op.RDCURR, 0)
    data = [e.msg for e in s.trace[mark:] if isinstance(e, PortMsg) and isinstance(e.msg, CH2DData)]
    assert [d.value for d in data] == [v] and v != s.mem.get(0, 0)
    _assert_clean(s)


def test_snoop_to_pending_dirty_evict_gets_data_and_writepull_is_bogus() -> None:
    s = setup("M_self", CFG)  # dev0 owns line 0 dirty
    v = s.latest[0]
    s.apply(("iss", 0, Op.DIRTYEVICT, 0))
    s.apply(("iss", 1, Op.RDOWN, 0))
    s.apply(("dlv", "d2h_req", 1, 0))  # the home sees dev1's RdOwn first
    assert s.devs[0].state(0) == L.EV_M
    settle(s)
    assert states_of(s, 0) == (I, M, I)
    assert s.devs[1].value(0) == v
    bogus = [e.msg for e in s.trace if isinstance(e, PortMsg) and isinstance(e.msg, CD2HData) and e.msg.bogus]
    assert len(bogus) == 1  # the write-pull after the snoop carried Bogus data, not written to memory
    assert s.home.stats.get("cov:DIRTYEVICT:E:none") == 1  # dev1 owns it when the evict is served
    _assert_clean(s)


def test_conflicting_requests_wait_in_fifo_order() -> None:
    s = System.initial(CFG, trace=True)
    for p in (2, 0, 1):
        s.apply(("iss", p, Op.RDOWN, 0))
    for p in (2, 0, 1):
        s.apply(("dlv", "d2h_req", p, 0))  # arrival order at the home: 2, 0, 1
    assert s.home.waitq[0] == tuple(CD2HReq(p, Op.RDOWN, 0, 0) for p in (0, 1))
    settle(s)
    grants = [e.msg.port for e in s.trace if isinstance(e, PortMsg) and isinstance(e.msg, CH2DRsp)]
    assert grants == [2, 0, 1]
    assert states_of(s, 0) == (I, E, I)
    _assert_clean(s)


def test_snoop_waits_for_data_after_go_and_does_not_pass_go() -> None:
    s = System.initial(CFG, trace=True)
    s.apply(("iss", 0, Op.RDSHARED, 0))
    s.apply(("dlv", "d2h_req", 0, 0))
    s.apply(("dlv", "m2s_req", -1, 0))
    s.apply(("dlv", "s2m_drs", -1, 0))  # home sends GO-S and data to dev0
    s.apply(("iss", 1, Op.RDOWN, 0))
    s.apply(("dlv", "d2h_req", 1, 0))  # home snoops dev0 (SnpInv) while GO and data are in flight
    evs = s.enabled()
    assert ("dlv", "h2d_req", 0, 0) not in evs  # the snoop may not pass the older GO
    s.apply(("dlv", "h2d_rsp", 0, 0))  # GO arrives, data still in flight
    assert ("dlv", "h2d_req", 0, 0) not in s.enabled()  # device holds the snoop until the data
    s.apply(("dlv", "h2d_data", 0, 0))
    assert ("dlv", "h2d_req", 0, 0) in s.enabled()
    settle(s)
    assert states_of(s, 0) == (I, E, I)
    _assert_clean(s)


def test_directory_eviction_back_invalidates_victim() -> None:
    cfg = SysConfig(n_devices=3, lines=(0, 1), sets=1, ways=1, max_requests=None, max_writes=None)
    s = System.initial(cfg, trace=True)
    request(s, 0, Op.RDOWN, 0)
    store(s, 0, 0)
    v = s.latest[0]
    mark = len(s.trace)  # type: ignore[arg-type]
    request(s, 1, Op.RDSHARED, 1)  # set full: line 0 must be back-invalidated first
    snoops = [m for m in sent_since(s, mark) if isinstance(m, CH2DReq)]
    assert snoops == [CH2DReq(0, H2DReqOp.SNPINV, 0, snoops[0].uqid)]
    assert states_of(s, 0) == ALL_I and states_of(s, 1) == (I, S, I)
    assert s.mem[0] == v  # the dirty victim was written back
    assert [e.line for e in s.home.entries()] == [1]
    assert s.home.stats["back_invalidations"] == 1
    _assert_clean(s)


def test_directory_pressure_all_ways_busy_waits() -> None:
    cfg = SysConfig(n_devices=3, lines=(0, 1, 2), sets=1, ways=1, max_requests=None, max_writes=None)
    s = System.initial(cfg, trace=True)
    for p, a in ((0, 0), (1, 1), (2, 2)):
        s.apply(("iss", p, Op.RDOWN, a))
    for p in (0, 1, 2):
        s.apply(("dlv", "d2h_req", p, 0))
    assert s.home.alloc_wait == (1, 2)
    settle(s)
    assert sum(1 for p in range(3) for a in (0, 1, 2) if s.devs[p].state(a) == E) == 1
    assert s.devs[2].state(2) == E
    _assert_clean(s)


def test_selective_coherence_passthrough() -> None:
    cfg = SysConfig(n_devices=2, lines=(0, 0x100), coherent=((0, 0x100),), max_requests=None, max_writes=None)
    s = System.initial(cfg, trace=True)
    request(s, 0, Op.RDOWN, 0x100)  # non-coherent: data + GO-I, nothing cached, no directory entry
    request(s, 1, Op.ITOMWR, 0x100)
    request(s, 0, Op.RDSHARED, 0x100)
    request(s, 1, Op.RDCURR, 0x100)
    assert s.home.entries() == []
    assert not any(isinstance(e.msg, CH2DReq) for e in s.trace if isinstance(e, PortMsg))
    assert states_of(s, 0x100) == (I, I)
    assert s.mem[0x100] == s.latest[0x100] != 0
    assert s.home.stats["cov:RDOWN:NC:none"] == 1
    assert not s.enabled() or all(e[0] != "st" for e in s.enabled())
    assert s.devs[0].legal_requests(0x100, False) and Op.RDOWN not in s.devs[0].legal_requests(0x100, False)
    _assert_clean(s)


@pytest.mark.parametrize("bad", ["illegal_opcode", "duplicate_cqid", "unsolicited_rsp", "bad_data",
                                 "wrong_uqid", "bad_port"])
def test_error_is_counted_and_agent_keeps_serving(bad: str) -> None:
    s = setup("M", CFG)
    s.apply(("iss", 0, Op.RDOWN, 0))
    s.apply(("dlv", "d2h_req", 0, 0))  # the home snoops dev1 now: one snoop UQID is outstanding
    (u, ent), = s.home.uq.items()
    h = s.home
    msg = {
        "illegal_opcode": CD2HReq(2, 0x1F, 5, 0),
        "duplicate_cqid": CD2HReq(0, Op.RDCURR, 0, 3),  # dev0's RdOwn (CQID 0) is still unanswered
        "unsolicited_rsp": CD2HRsp(2, D2HRspOp.RSPIHITI, u + 7),
        "bad_data": CD2HData(2, u + 7, 0xBAD),
        "wrong_uqid": CD2HRsp(2, D2HRspOp.RSPIHITI, u),  # dev2 answers dev1's snoop
        "bad_port": CD2HRsp(9, D2HRspOp.RSPIHITI, u),
    }[bad]
    kind = {"illegal_opcode": "illegal_request", "duplicate_cqid": "illegal_request"}.get(bad, bad)
    h.receive(msg)
    # an illegal opcode is answered GO-Err (to a CQID dev2 does not use); nothing else answers
    want = [CH2DRsp(2, GO_, GOState.ERR, 5)] if bad == "illegal_opcode" else []
    assert h.out == want and h.errors[kind] == 1
    h.out.clear()
    assert sum(h.errors.values()) == 1
    assert h.error_log == [(kind, msg)]
    settle(s)  # the real answer still completes the request
    request(s, 2, Op.RDSHARED, 0)
    assert states_of(s, 0) == (S, I, S)
    assert s.quiescent() and s.check() == [] and s.violations == []


def test_illegal_snoop_answer_is_taken_as_rspihiti_and_never_holds_the_line() -> None:
    s = setup("S", CFG)  # dev1 and dev2 share line 0
    s.apply(("iss", 0, Op.RDOWN, 0))
    s.apply(("dlv", "d2h_req", 0, 0))  # SnpInv to dev1 and dev2
    h = s.home
    u1 = next(u for u, e in h.uq.items() if e.port == 1)
    s.ch.pop(("h2d_req", 1))  # dev1 never sees its snoop: it answers with garbage instead
    s.devs[1].silent_drop(0)
    h.receive(CD2HRsp(1, D2HRspOp.RSPSHITSE, u1))  # RspSHitSE is not legal for SnpInv
    assert h.errors["illegal_rsp"] == 1 and sum(h.errors.values()) == 1
    s._route_home()
    settle(s)
    assert states_of(s, 0) == (E, I, I) and s.quiescent() and s.home.idle()
    e = s.home.entry(0)
    assert e is not None and (e.state, e.sharers) == (DirState.E, 0b001)


def test_illegal_answer_after_forwarded_data_counts_both() -> None:
    s = setup("M", CFG)
    s.apply(("iss", 0, Op.RDOWN, 0))
    s.apply(("dlv", "d2h_req", 0, 0))
    h = s.home
    (u, _), = h.uq.items()
    h.receive(CD2HData(1, u, 0x77))  # forwarded line first ...
    h.receive(CD2HRsp(1, D2HRspOp.RSPVHITV, u))  # ... then an answer SnpInv does not allow
    assert h.errors["illegal_rsp"] == 1 and h.errors["bad_data"] == 1
    assert h.out == [CM2SReq(1, h.out[0].tag, 0)]  # decided at once: memory data + GO-E, no forwarded line
    assert h.txns[0].decided is not None and h.txns[0].decided.go == GOState.E


def test_illegal_opcodes_are_answered_go_err() -> None:
    legal = {int(o) for o in REQUEST_OPS}
    s = System.initial(CFG, trace=True)
    h = s.home
    bad = [op for op in range(32) if op not in legal]
    for i, op in enumerate(bad):
        h.receive(CD2HReq(i % 3, op, 100 + i, 0))
    assert h.out == [CH2DRsp(i % 3, GO_, GOState.ERR, 100 + i) for i in range(len(bad))]
    assert h.errors["illegal_request"] == len(bad) == 17 and h.idle() and h.entries() == []


def test_cqid_reuse_after_the_last_h2d_answer_is_legal() -> None:
    s = System.initial(SysConfig(n_devices=3, lines=(0, 1), max_requests=None, max_writes=None), trace=True)
    s.apply(("iss", 0, Op.ITOMWR, 0))
    s.apply(("dlv", "d2h_req", 0, 0))
    s.apply(("dlv", "h2d_rsp", 0, 0))  # GO_WritePull: the CQID is free again, the data is on its way
    assert not s.devs[0].txns and s.home.txns
    s.apply(("iss", 0, Op.RDSHARED, 1))  # same CQID 0, another line: not a duplicate
    s.apply(("dlv", "d2h_req", 0, 0))
    assert s.home.errors["illegal_request"] == 0
    settle(s)
    assert s.quiescent() and not any(s.errors().values())


def test_cacheflushed_is_answered_go_i_without_a_transaction() -> None:
    s = setup("S", CFG)
    d = s.devs[0]
    assert d.flushed() and Op.CACHEFLUSHED in d.legal_requests(0, True)
    s.apply(("iss", 0, Op.CACHEFLUSHED, 0))
    s.apply(("dlv", "d2h_req", 0, 0))
    assert s.home.out == [] and s.home.idle()
    assert s.ch[("h2d_rsp", 0)][0][1] == CH2DRsp(0, GO_, GOState.I, 0)
    settle(s)
    assert not d.txns
    _assert_clean(s)


@pytest.mark.parametrize("op", [Op.WOWRINV, Op.WOWRINVF])
@pytest.mark.parametrize("bep,bogus", [(0, 0), (1, 0), (0, 1)])
def test_weakly_ordered_write_with_dirty_owner(op: int, bep: int, bogus: int) -> None:
    """WOWrInv(F) over a dirty owner: Fast_GO_WritePull, then ExtCmp after the memory Cmp. A full line
    (BEP=0, Bogus=0) replaces the owner's data; otherwise the owner's forwarded line is written, so
    nothing is lost, and BEP=1 data is counted as bad_data."""
    s = setup("M", CFG)
    old = s.latest[0]
    s.apply(("iss", 0, op, 0))
    cq = next(iter(s.devs[0].txns))
    s.apply(("dlv", "d2h_req", 0, 0))
    settle_until = 0
    while ("h2d_rsp", 0) not in s.ch and settle_until < 100:  # deliver until the Fast_GO_WritePull is out
        s.apply([e for e in s.enabled() if e[0] == "dlv" and e[1] != "h2d_rsp"][0])
        settle_until += 1
    pull = s.ch[("h2d_rsp", 0)][0][1]
    assert pull.opcode == FGWP and pull.cqid == cq
    s.ch.pop(("h2d_rsp", 0))
    s.devs[0].txns.clear()  # the device's answer is scripted here
    s.home.receive(CD2HData(0, pull.rspdata, 0x1234, bogus, bep))
    s._route_home()
    settle(s)
    h2d = [e.msg for e in s.trace if isinstance(e, PortMsg) and isinstance(e.msg, CH2DRsp) and e.msg.port == 0]
    assert h2d[-1].opcode == EXT and h2d[-1].cqid == cq
    wrote = [e.msg.value for e in s.trace if isinstance(e, PortMsg) and isinstance(e.msg, CM2SRwD)]
    assert wrote[-1] == (0x1234 if not bep and not bogus else old)
    assert s.mem[0] == wrote[-1] and states_of(s, 0) == ALL_I
    assert s.home.errors["bad_data"] == bep and s.home.idle()


def test_unsolicited_memory_response_is_counted() -> None:
    s = System.initial(CFG)
    s.home.receive(CS2MDRS(0, 99, 5))
    s.home.receive(CS2MNDR(0, 98))
    assert s.home.errors["unsolicited_mem"] == 2 and s.home.out == []


def test_snoop_option_tables_are_legal() -> None:
    for snp, legal in LEGAL_SNOOP_RSPS.items():
        for st in L:
            opts = snoop_options(snp, st)
            assert opts
            for a in opts:
                assert a.rsp in legal, (snp, st, a)
                assert a.fwd == (a.rsp in (D2HRspOp.RSPSFWDM, D2HRspOp.RSPIFWDM, D2HRspOp.RSPVFWDV))
                assert a.fwd == (st in (M, L.EV_M))  # exactly the dirty states forward data


def test_decide_dirty_shared_is_written_back() -> None:
    d = decide(Op.RDSHARED, 0, DirState.E, 0b10, {1: D2HRspOp.RSPSFWDM}, True)
    assert d.write_fwd and d.data_src == "fwd" and d.go == GOState.S and d.sharers == 0b11


# ------------------------------------------------------------------ checkers on hand-made traces
def test_swmr_checker_fires_on_two_writers_and_writer_plus_reader() -> None:
    c = SwmrChecker()
    for ev in (CacheState(1, 0, 5, S), CacheState(2, 1, 5, S), CacheState(3, 1, 5, I), CacheState(4, 0, 5, E)):
        c.feed(ev)
    assert c.violations == []
    c.feed(CacheState(5, 2, 5, S))
    c.feed(CacheState(6, 1, 5, M))
    assert len(c.violations) == 2


def test_data_checker_window_and_stale_read() -> None:
    c = DataValueChecker(initial={0: 0})
    c.feed(Store(1, 0, 0, 10))
    c.feed(Load(2, 2, 1, 0, 10))
    c.feed(Load(2, 5, 1, 0, 10))
    c.feed(Store(3, 0, 0, 11))
    c.feed(Load(2, 5, 1, 0, 11))  # committed inside the read's window: fine
    assert c.violations == []
    c.feed(Load(4, 4, 1, 0, 10))  # stale
    c.feed(Load(4, 4, 1, 0, 99))  # never written
    assert len(c.violations) == 2


def test_completion_checker_missing_duplicate_and_unsolicited() -> None:
    c = CompletionChecker()
    c.feed(PortMsg(0, CD2HReq(0, Op.RDSHARED, 1, 0)))
    c.feed(PortMsg(1, CH2DRsp(0, GO_, GOState.S, 1)))
    c.feed(PortMsg(2, CH2DRsp(0, GO_, GOState.S, 1)))  # second GO before the data
    assert len(c.violations) == 1
    c2 = CompletionChecker()
    c2.feed(PortMsg(0, CD2HReq(0, Op.ITOMWR, 0, 0)))
    c2.feed(PortMsg(1, CH2DRsp(1, GO_, GOState.I, 3)))  # nobody asked
    c2.feed(PortMsg(2, CH2DRsp(0, GWP, 17, 0)))
    c2.feed(PortMsg(3, CD2HReq(0, Op.RDCURR, 1, 0)))  # never answered
    c2.finish()
    assert len(c2.violations) == 3  # unsolicited GO, RdCurr incomplete, pull data never arrived


def test_ordering_checker_go_before_snoop_response_and_double_snoop() -> None:
    c = OrderingChecker()
    c.feed(PortMsg(0, CD2HReq(0, Op.RDOWN, 0, 4)))
    c.feed(PortMsg(1, CH2DReq(1, SI, 4, 0)))
    c.feed(PortMsg(2, CH2DReq(1, SI, 4, 1)))  # second snoop to dev1 for line 4
    c.feed(PortMsg(3, CD2HRsp(1, D2HRspOp.RSPIFWDM, 0)))
    c.feed(PortMsg(4, CD2HRsp(1, D2HRspOp.RSPIHITI, 1)))
    c.feed(PortMsg(5, CH2DRsp(0, GO_, GOState.E, 0)))  # forwarded data of UQID 0 not arrived yet
    assert len(c.violations) == 2
    c.feed(PortMsg(6, CD2HData(1, 0, 3)))
    c.feed(PortMsg(7, CH2DRsp(0, GO_, GOState.E, 0)))
    assert len(c.violations) == 2


# ------------------------------------------------------------------ models.cxl conversion
@pytest.mark.parametrize("msg", [
    CD2HReq(3, Op.RDOWN, 17, 0x123456), CD2HRsp(2, D2HRspOp.RSPIFWDM, 0xABC),
    CD2HData(1, 5, (1 << 511) | 0xDEADBEEF, 1), CH2DReq(0, SD, 0x3FF, 77), CH2DRsp(3, GO_, GOState.M, 9),
    CH2DData(2, 4, 123456789, 0), CM2SReq(1, 0xFFFF, 42), CM2SRwD(1, 3, 42, 7), CS2MNDR(0, 3), CS2MDRS(0, 2, 9),
])
def test_cxl_roundtrip(msg: object) -> None:
    c = to_cxl(msg)  # type: ignore[arg-type]
    back = type(c).from_canonical(c.to_canonical(), getattr(c, "data", None))
    assert from_cxl(back, getattr(msg, "port", 0)) == msg
