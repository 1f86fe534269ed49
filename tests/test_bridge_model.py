"""Unit tests of the bridge reference model (models/bridge)."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.bridge import (NVLINK, UALINK, BridgeConfig, BridgeRef, HbmGeom, HbmModel, HbmTiming,
                           Packet, XlHeader, XlOp, XlStatus, check, dl_pack, dl_stream, dl_unpack,
                           len_field_for, nv_flits, packet_from_beats, split, translate)
from models.bridge.packets import FIELDS
from models.cxl.messages import M2SReq, M2SRwD

CFG = BridgeConfig()


@given(op=st.integers(0, 15), status=st.integers(0, 15), tag=st.integers(0, 1023),
       src=st.integers(0, 1023), ln=st.integers(0, 511), addr=st.integers(0, 2**52 - 1))
@settings(max_examples=200, deadline=None)
def test_header_roundtrip(op: int, status: int, tag: int, src: int, ln: int, addr: int) -> None:
    h = XlHeader(opcode=op, status=status, tag=tag, src=src, len=ln, addr=addr)
    bits = h.pack()
    assert bits < 2**96
    assert XlHeader.unpack(bits) == h
    assert (bits >> FIELDS["addr"][0]) == addr


def test_header_field_overflow() -> None:
    with pytest.raises(ValueError):
        XlHeader(opcode=16, tag=0, src=0, len=64, addr=0).pack()
    with pytest.raises(ValueError):
        XlHeader(opcode=1, tag=1024, src=0, len=64, addr=0).pack()


def test_packet_sizes_follow_public_descriptions() -> None:
    lines = tuple(bytes([i]) * 64 for i in range(4))
    nv = Packet(XlHeader(XlOp.WRITE, 1, 2, len_field_for(NVLINK, 256), 0x100), lines)
    assert len(nv_flits(nv)) == 17 and nv.wire_bytes(NVLINK) == 272      # 1 header + 16 data flits
    ua = Packet(XlHeader(XlOp.WRITE, 1, 2, 256, 0x100), lines)
    assert ua.wire_bytes(UALINK) == 5 * 64
    beats = ua.beats(UALINK)
    assert [b[1] for b in beats] == [False] * 4 + [True]
    assert packet_from_beats([b for b, _ in beats]) == ua


def test_dl_flit_roundtrip() -> None:
    rng = random.Random(5)
    beats = [(rng.getrandbits(512), rng.random() < 0.3) for _ in range(20)]
    flits = dl_stream(beats)
    assert len(flits) == 3 and all(f < 2**(640 * 8) for f in flits)
    back = []
    for n, f in enumerate(flits):
        slots, seq = dl_unpack(f)
        assert seq == n
        back += slots
    assert back == beats
    with pytest.raises(ValueError):
        dl_pack(beats[:10], 0)


def _req(op: int, addr: int, nbytes: int, flavor: str = UALINK, lines: int | None = None) -> Packet:
    n = -(-nbytes // 64) if op == XlOp.WRITE else 0
    n = n if lines is None else lines
    return Packet(XlHeader(op, 3, 4, len_field_for(flavor, nbytes), addr),
                  tuple(bytes([k]) * 64 for k in range(n)))


def test_checks_and_priorities() -> None:
    b = CFG.win_base
    assert check(CFG, _req(XlOp.READ, b, 256)) == XlStatus.OK
    assert check(CFG, _req(XlOp.WRITE, b + 64, 192)) == XlStatus.OK
    assert check(CFG, _req(0x5, 7, 65)) == XlStatus.BAD_OP          # op first
    assert check(CFG, _req(XlOp.READ, b, 320)) == XlStatus.BAD_LEN
    assert check(CFG, _req(XlOp.READ, b, 96)) == XlStatus.BAD_LEN
    assert check(CFG, _req(XlOp.WRITE, b, 128, lines=1)) == XlStatus.BAD_LEN
    assert check(CFG, _req(XlOp.READ, b, 64, lines=1)) == XlStatus.BAD_LEN
    assert check(CFG, _req(XlOp.READ, b + 32, 64)) == XlStatus.BAD_ALIGN
    assert check(CFG, _req(XlOp.READ, b - 64, 64)) == XlStatus.BAD_ADDR
    assert check(CFG, _req(XlOp.READ, b + CFG.win_size - 64, 128)) == XlStatus.BAD_ADDR
    assert check(CFG, _req(XlOp.WRITE, b + CFG.coh_off - 64, 128)) == XlStatus.OK    # full lines: ItoMWr
    assert check(CFG, _req(XlOp.READ, b + CFG.coh_off - 64, 128)) == XlStatus.OK
    nv = BridgeConfig(flavor=NVLINK)
    assert check(nv, _req(XlOp.READ, b, 256, NVLINK)) == XlStatus.OK
    # NVLink: every 16 B size 32..256 B, 16 B aligned, inside 4 lines
    for nb in range(32, 257, 16):
        for lead in range(0, 64, 16):
            want = XlStatus.OK if lead + nb <= 256 else XlStatus.BAD_ALIGN
            assert check(nv, _req(XlOp.WRITE, b + lead, nb, NVLINK)) == want, (nb, lead)
            assert check(nv, _req(XlOp.READ, b + lead, nb, NVLINK)) == want, (nb, lead)
    assert check(nv, Packet(XlHeader(XlOp.READ, 0, 0, 1, b))) == XlStatus.BAD_LEN      # 16 B
    assert check(nv, Packet(XlHeader(XlOp.READ, 0, 0, 17, b))) == XlStatus.BAD_LEN     # 272 B
    assert check(nv, _req(XlOp.READ, b + 8, 32, NVLINK)) == XlStatus.BAD_ALIGN
    assert check(nv, _req(XlOp.WRITE, b, 80, NVLINK, lines=1)) == XlStatus.BAD_LEN     # needs 2 beats
    assert check(nv, _req(XlOp.WRITE, b + CFG.coh_off + 16, 48, NVLINK)) == XlStatus.COH_PTL
    assert check(nv, _req(XlOp.WRITE, b + CFG.coh_off - 16, 80, NVLINK)) == XlStatus.OK   # partial line not coherent
    assert check(nv, _req(XlOp.WRITE, b + CFG.coh_off - 16, 96, NVLINK)) == XlStatus.COH_PTL
    assert check(CFG, _req(XlOp.READ, b, 96)) == XlStatus.BAD_LEN                      # UALink: 64 B steps


def test_translate_split_route() -> None:
    b = CFG.win_base
    ops = split(CFG, _req(XlOp.READ, b + CFG.coh_off - 128, 256))
    assert [o.hpa for o in ops] == [translate(CFG, b + CFG.coh_off - 128 + 64 * i) for i in range(4)]
    assert ops[0].hpa == CFG.hpa_base + CFG.coh_off - 128
    assert [o.coherent for o in ops] == [False, False, True, True]
    assert ops[2].d2h(5).opcode == 1 and split(CFG, _req(XlOp.WRITE, b + CFG.coh_off, 64))[0].d2h(5).opcode == 6
    m = ops[0].m2s(0x12)
    assert isinstance(m, M2SReq) and m.addr == ops[0].hpa >> 6 and m.tag == 0x12
    w = split(CFG, _req(XlOp.WRITE, b, 128))
    mw = w[1].m2s(7)
    assert isinstance(mw, M2SRwD) and mw.data == bytes([1]) * 64
    assert M2SReq.from_canonical(m.to_canonical()) == m


def test_hbm_timing_from_ns() -> None:
    t = HbmTiming.hbm3()
    assert (t.tCL, t.tRCD, t.tRP, t.tRAS, t.tBURST) == (13, 20, 17, 29, 3)
    assert t.tRCD + t.tRP >= 0 and t.tRAS + t.tRP >= 45  # tRC 45 ns is implied


def test_hbm_bank_states() -> None:
    t = HbmTiming.hbm3()
    g = HbmGeom(npc=2, nbank=4, row_lines=16)
    m = HbmModel(t, g)
    assert m.latency(10, 0) == t.tRCD + t.tCL + t.tBURST            # closed bank
    assert m.latency(200, 0) == t.tCL + t.tBURST                     # open row hit
    conflict = g.npc * g.nbank * g.row_lines                         # same pc/bank, next row
    assert g.map(conflict)[:2] == (0, 0) and g.map(conflict)[2] == 1
    assert m.latency(300, conflict) == t.tRP + t.tRCD + t.tCL + t.tBURST
    # tRAS: a conflict right after an ACT waits for tRAS before the precharge
    m2 = HbmModel(t, g)
    m2.issue(10, 0)
    assert not m2.schedulable(11, conflict)                          # same pseudo-channel, next cycle
    done, _ = m2.issue(12, conflict)
    assert done == 10 + t.tRAS + t.tRP + t.tRCD + t.tCL + t.tBURST
    # the data bus of one pseudo-channel serializes bursts; another pc does not
    m3 = HbmModel(t, g)
    a, _ = m3.issue(10, 0)
    b, _ = m3.issue(12, 2)      # pc 0, bank 1
    c, _ = m3.issue(13, 1)      # pc 1
    assert b == a + t.tBURST                                         # waits for the pc-0 bus
    assert c == 13 + t.tRCD + t.tCL + t.tBURST


def test_hbm_refresh_plain_schedule() -> None:
    t = HbmTiming.hbm3()
    g = HbmGeom()
    m = HbmModel(t, g, postpone=0)       # each refresh at its timer cycle, blocking acceptance
    slot = m.ref_slot
    assert slot == t.tREFI // g.nbanks_total
    m.issue(10, 0)                       # bank 0 open
    assert m.is_forced_cycle(slot) and not m.is_forced_cycle(slot + 1)
    assert not m.schedulable(slot - 1, 0) and m.schedulable(slot - 2, 0)   # the cycle before a round
    with pytest.raises(ValueError):
        m.issue(slot - 1, 0)
    with pytest.raises(ValueError):
        m.issue(slot, 0)
    raw, done = m.issue(slot + 1, 0)     # refresh closed bank 0: ACT waits tRP + tRFC
    assert raw == done == slot + t.tRP + t.tRFC + t.tRCD + t.tCL + t.tBURST
    assert [(r.cycle, r.bank, r.forced) for r in m.refreshes] == [(slot, 0, True)]


def test_hbm_refresh_postponed_while_busy_then_idle() -> None:
    t = HbmTiming.hbm3()
    g = HbmGeom()
    m = HbmModel(t, g, postpone=1, idle_wait=32)
    slot, nb = m.ref_slot, g.nbanks_total
    last = 0
    for now in range(0, (nb + 2) * slot + 5, 10):    # always an access in flight: never idle
        while not m.schedulable(now, 1):
            now += 1
        last = m.issue(now, 1)[1]
    # owed 1..nb at timer cycles 1..nb (every bank one behind); timer cycle nb+1 forces a round:
    # every bank in nb consecutive cycles, no access accepted meanwhile
    r0 = (nb + 1) * slot
    assert [(r.cycle, r.bank, r.forced) for r in m.refreshes] == [(r0 + k, k, True) for k in range(nb)]
    assert all(m.is_forced_cycle(c) is False for c in (r0 + nb, r0 + nb + 1))
    assert m.owed == 2                                # nb + 2 timer cycles, nb executed
    # idle: after `idle_wait` idle cycles the owed refreshes run, one a cycle
    m.advance(last + 1 + 32 + 2)
    idle = m.refreshes[nb:]
    assert [(r.cycle, r.bank, r.forced) for r in idle] == [(last + 33, 0, False), (last + 34, 1, False)]
    assert m.owed == 0
    # an access to the bank refreshed in the previous cycle waits for it
    raw, _ = m.issue(last + 35, 1)
    assert raw >= last + 34 + t.tRFC + t.tRCD


def test_hbm_short_gaps_do_not_start_refreshes() -> None:
    t = HbmTiming.hbm3()
    m = HbmModel(t, HbmGeom(), postpone=8, idle_wait=32)
    now = 0
    while now < 3 * m.ref_slot:                       # accesses with idle gaps of ~20 cycles
        done = m.issue(now, 0)[1]
        now = done + 20
    assert m.owed == 2 and not m.refreshes               # gaps shorter than idle_wait
    m.advance(now + 40)
    assert len(m.refreshes) == 3 and m.owed == 0


def test_hbm_out_of_order_completion() -> None:
    rng = random.Random(11)
    g = HbmGeom()
    m = HbmModel(HbmTiming.hbm3(), g, postpone=0)
    now, done_of, order = 0, [], 0
    for k in range(400):
        now += rng.randint(1, 3)
        idx = rng.randrange(512)
        while not m.schedulable(now, idx):
            now += 1
        raw, done = m.issue(now, idx)
        assert done >= raw > now and done - raw < 64
        done_of.append((idx % g.nbanks_total, done))
    assert len({d for _, d in done_of}) == len(done_of)          # one completion per cycle
    for bank in range(g.nbanks_total):                           # in order per bank
        ds = [d for b, d in done_of if b == bank]
        assert ds == sorted(ds)
    same_pc = [(a[1], b[1]) for a, b in zip(done_of, done_of[1:]) if a[0] % g.npc == b[0] % g.npc]
    assert any(db < da for da, db in same_pc)                    # bus gaps reused within a pc
    assert any(b[1] < a[1] for a, b in zip(done_of, done_of[1:]))


def test_hbm_refresh_does_not_hold_the_bus() -> None:
    t = HbmTiming.hbm3()
    g = HbmGeom()
    m = HbmModel(t, g, postpone=0)
    slot = m.ref_slot
    m.issue(slot + 1, 1)                                  # bank number 1 (pc 1), refreshed at 2 * slot
    raw_ref, _ = m.issue(2 * slot + 1, 1)                 # waits for the refresh
    raw_other, _ = m.issue(2 * slot + 3, 3)               # bank number 3, same pc: not behind it
    assert [(r.cycle, r.bank) for r in m.refreshes] == [(slot, 0), (2 * slot, 1)]
    assert raw_ref >= 2 * slot + t.tRFC and raw_other < raw_ref
    assert raw_other == 2 * slot + 3 + t.tRCD + t.tCL + t.tBURST


def test_hbm_pipeline_acceptance_and_scheduling() -> None:
    t = HbmTiming.hbm3()
    g = HbmGeom()
    ref = HbmModel(t, g)
    raw_issue, _ = ref.issue(11, 0)
    m = HbmModel(t, g, inflight=2)
    assert m.ready(10)
    m.accept(10, 0, key="a")                         # pc 0, scheduled in the next cycle
    assert m.ready(11)                               # the register's occupant leaves in 11
    m.accept(11, 2, key="b")                         # pc 0 again: waits one cycle in the register
    assert not m.ready(12)                           # register held, and both slots
    m.advance(14)
    assert [(s.key, s.cycle, s.accepted) for s in m.scheduled] == [("a", 11, 10), ("b", 13, 11)]
    assert m.scheduled[0].raw == raw_issue == 11 + t.tRCD + t.tCL + t.tBURST
    done_a = m.scheduled[0].done
    assert not m.ready(done_a) and m.ready(done_a + 1)      # slots free after the completion
    with pytest.raises(ValueError):
        m.accept(done_a, 1)
    # a forced round: no scheduling in it or in the cycle before it; acceptance goes on
    p = HbmModel(t, g, postpone=0)
    slot = p.ref_slot
    p.accept(slot - 2, 1, key="r")
    assert p.ready(slot - 1) is False                # the register holds it (slot - 1 precedes the round)
    p.advance(slot + 2)
    assert [(s.key, s.cycle) for s in p.scheduled] == [("r", slot + 1)]
    assert [(r.cycle, r.forced) for r in p.refreshes] == [(slot, True)]


def test_reference_semantics_and_policies() -> None:
    ref = BridgeRef(CFG, sets=16, ht_entries=8)
    b = CFG.win_base
    rsp, ops, _ = ref.process(_req(XlOp.WRITE, b, 128))
    assert rsp.hdr.opcode == XlOp.WR_ACK and len(ops) == 2
    rsp, _, local = ref.process(_req(XlOp.READ, b, 256))
    assert rsp.hdr.opcode == XlOp.RD_DATA and rsp.lines[:2] == (bytes([0]) * 64, bytes([1]) * 64)
    assert rsp.lines[2] == bytes(64) and local == [True, True, False, False]   # write-allocated
    _, _, local = ref.process(_req(XlOp.READ, b, 256))
    assert local == [True] * 4
    assert ref.htab is not None and ref.htab.hits == 1
    _, _, local = ref.process(_req(XlOp.READ, b + CFG.coh_off, 64))
    _, _, local = ref.process(_req(XlOp.READ, b + CFG.coh_off, 64))
    assert local == [False]                                                    # coherent: never cached
    rsp, _, _ = ref.process(_req(XlOp.READ, b - 64, 64))
    assert rsp.hdr.opcode == XlOp.ERR and rsp.hdr.status == XlStatus.BAD_ADDR and not rsp.lines
    ref.nxm.add((CFG.hpa_base >> 6) + 100)
    rsp, _, _ = ref.process(_req(XlOp.READ, b + 64 * 100, 64))
    assert rsp.hdr.status == XlStatus.CXL_ERR
    assert ref.errors == {int(XlStatus.BAD_ADDR): 1, int(XlStatus.CXL_ERR): 1}
    noalloc = BridgeRef(CFG, sets=16, write_alloc=False)
    noalloc.process(_req(XlOp.WRITE, b, 64))
    assert noalloc.process(_req(XlOp.READ, b, 64))[2] == [False]


def test_partial_lines_nvlink() -> None:
    nv = BridgeConfig(flavor=NVLINK)
    b = nv.win_base
    pay = bytes(range(80))
    pkt = Packet(XlHeader(XlOp.WRITE, 1, 2, len_field_for(NVLINK, 80), b + 48),
                 (pay[:64], pay[64:] + bytes(range(200, 248))))           # junk after the payload
    ops = split(nv, pkt)
    assert [o.mask for o in ops] == [0b1000, 0b1111]
    assert ops[0].data == bytes(48) + pay[:16] and ops[1].data == pay[16:80]
    ref = BridgeRef(nv, sets=16, ht_entries=8, default=lambda ln: bytes([ln & 0xFF]) * 64)
    rsp, _, _ = ref.process(pkt)
    assert rsp.hdr.opcode == XlOp.WR_ACK
    line0 = (nv.hpa_base >> 6)
    assert ref.mem[line0] == bytes([line0 & 0xFF]) * 48 + pay[:16]         # read-modify-write
    rsp, _, local = ref.process(Packet(XlHeader(XlOp.READ, 1, 2, len_field_for(NVLINK, 96), b + 32)))
    assert local == [True, True]                                           # write-allocated lines
    want = bytes([line0 & 0xFF]) * 16 + pay[:80]
    assert len(rsp.lines) == 2 and rsp.lines[0] == want[:64] and rsp.lines[1] == want[64:] + bytes(32)
    assert len(nv_flits(rsp)) == 1 + 6 and rsp.wire_bytes(NVLINK) == 16 * 7
    # NXM on the read of a partial write: the line is not written, the request answers CXL_ERR
    ref.nxm.add(line0 + 100)
    rsp, _, _ = ref.process(Packet(XlHeader(XlOp.WRITE, 1, 2, 2, b + 64 * 100), (bytes(64),)))
    assert rsp.hdr.status == XlStatus.CXL_ERR and (line0 + 100) not in ref.mem


def test_coherent_full_line_write() -> None:
    ref = BridgeRef(CFG, sets=16)
    a = CFG.win_base + CFG.coh_off
    rsp, ops, _ = ref.process(_req(XlOp.WRITE, a, 128))
    assert rsp.hdr.opcode == XlOp.WR_ACK and all(o.coherent for o in ops)
    assert ref.mem[ops[1].hpa >> 6] == bytes([1]) * 64
    _, _, local = ref.process(_req(XlOp.READ, a, 128))
    assert local == [False, False]                                         # never cached


# ------------------------------------------------------------------ line rate (issue 11)
@given(xw=st.sampled_from([1, 2]), nl=st.integers(0, 4), fl=st.sampled_from([UALINK, NVLINK]))
@settings(max_examples=60, deadline=None)
def test_transfers_frame_the_beats(xw: int, nl: int, fl: str) -> None:
    """XW-beat transfers: the packet starts in lane 0, `last` is one-hot on the final beat's lane
    of the final transfer only, the lanes concatenate to the beat list."""
    pkt = Packet(XlHeader(XlOp.WRITE, 3, 4, len_field_for(fl, 64 * max(nl, 1)), 0x40),
                 tuple(random.Random(nl).randbytes(64) for _ in range(nl)))
    beats = [b for b, _ in pkt.beats(fl)]
    tr = pkt.transfers(fl, xw)
    assert len(tr) == -(-len(beats) // xw)
    assert all(last == 0 for _, last in tr[:-1])
    last = tr[-1][1]
    assert last & (last - 1) == 0 and last.bit_length() == len(beats) - xw * (len(tr) - 1)
    flat = [d >> (512 * x) & ((1 << 512) - 1) for d, _ in tr for x in range(xw)]
    assert flat[:len(beats)] == beats and not any(flat[len(beats):])


def test_link_bytes() -> None:
    lines = tuple(bytes(64) for _ in range(4))
    ual = Packet(XlHeader(XlOp.WRITE, 0, 0, 256, 0), lines)
    assert ual.link_bytes(UALINK) == pytest.approx(5 * 64 * 640 / 576)    # 9 TL slots per 640 B DL flit
    nv = Packet(XlHeader(XlOp.WRITE, 0, 0, 16, 0), lines)
    assert nv.link_bytes(NVLINK) == 272


def test_duplicate_tag_answered_bad_tag() -> None:
    ref = BridgeRef(CFG, track_tags=True)
    a = Packet(XlHeader(XlOp.READ, 5, 9, 64, CFG.win_base))
    b = Packet(XlHeader(XlOp.WRITE, 5, 9, 64, CFG.win_base + 64), (bytes(64),))
    c = Packet(XlHeader(7, 5, 9, 64, CFG.win_base))                         # malformed as well
    assert ref.process(a)[0].hdr.status == XlStatus.OK
    rb, ops, _ = ref.process(b)
    assert rb.hdr.status == XlStatus.BAD_TAG and not ops and (CFG.hpa_base + 64) >> 6 not in ref.mem
    assert ref.process(c)[0].hdr.status == XlStatus.BAD_TAG                  # BAD_TAG wins
    assert ref.process(Packet(XlHeader(XlOp.READ, 6, 9, 64, CFG.win_base)))[0].hdr.status == XlStatus.OK
    for _ in range(3):
        ref.retire(9, 5)
    assert ref.process(b)[0].hdr.status == XlStatus.OK                       # free again
    with pytest.raises(ValueError):
        ref.retire(1, 1)
    assert ref.errors[int(XlStatus.BAD_TAG)] == 2


def test_coherent_write_refused_by_home() -> None:
    ref = BridgeRef(CFG)
    addr = CFG.win_base + CFG.coh_off + 64 * 10
    line = translate(CFG, addr) >> 6
    ref.nxm.add(line)
    rsp, _, _ = ref.process(Packet(XlHeader(XlOp.WRITE, 1, 1, 128, addr), (bytes([1]) * 64, bytes([2]) * 64)))
    assert rsp.hdr.status == XlStatus.CXL_ERR
    assert line not in ref.mem and ref.mem[line + 1] == bytes([2]) * 64      # the other line is written


@given(lanes=st.sampled_from([1, 2]), sets_log=st.integers(2, 10),
       lines=st.lists(st.integers(0, 2**40), min_size=2, max_size=2))
@settings(max_examples=100, deadline=None)
def test_lane_sets_are_one_direct_mapped_cache(lanes: int, sets_log: int, lines: list[int]) -> None:
    from models.bridge.lanes import lane_of, lane_set
    sets = 1 << sets_log
    a, b = lines
    same_slot = (lane_of(a, lanes), lane_set(a, sets, lanes)) == (lane_of(b, lanes), lane_set(b, sets, lanes))
    assert same_slot == (a % sets == b % sets)


def test_line_rate_sizing() -> None:
    """Little's law: the sizing grows with the far side and covers every stream at the link rate."""
    from models.bridge.lanes import FAR_CYCLES, LINK_RATE, size_for, stream_need
    sz = size_for()
    assert sz.params() == {"lanes": 2, "xw": 2, "nrob": 256, "nline": 512, "wb_depth": 512,
                           "npc": 4, "hbm_inflight": 32}
    for n in sz.needs:
        assert n.lines_per_cycle <= sz.lanes and n.beats_per_cycle <= sz.xw
        assert n.req_in_flight <= sz.nrob and n.lines_in_flight <= min(sz.nline, sz.wb_depth)
    u = stream_need(UALINK, 256)
    assert u.lines_per_cycle == pytest.approx(LINK_RATE[UALINK] / (5 * 64 * 640 / 576) * 4)
    assert u.lines_in_flight == pytest.approx(u.lines_per_cycle * (FAR_CYCLES + 16))
    assert size_for(far=20).nline < sz.nline <= size_for(far=1000).nline
