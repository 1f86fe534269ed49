"""Switch reference model: routing (HBR/PBR), error paths, tag tracking, cascading, ordering."""
from __future__ import annotations

import os
import random

import pytest

from models.cxl.messages import (M2SReq, M2SReqOp, M2SRwD, M2SRwDOp, S2MDRS, S2MDRSOp, S2MNDR, S2MNDROp,
                                 H2DReq)
from models.switch import (META_FIELD_NO_OP, SWITCH_SRC, ConfigError, HdmDecoder, OrderingError, PortConfig,
                           PortRole, SwitchConfig, SwitchFabric, SwitchModel, hbr_config)
from models.switch.hdm import HDM_UNIT

SEED = int(os.environ.get("SEED", "20260311"))
USP, DSP, FAB = PortRole.USP, PortRole.DSP, PortRole.FABRIC
BASE = 0x10_0000_0000


def rd(hpa: int, tag: int, ldid: int = 0, op: int = M2SReqOp.MEMRD) -> M2SReq:
    return M2SReq(memop=op, tag=tag, addr=hpa >> 6, addr5=(hpa >> 5) & 1, ldid=ldid)


def wr(hpa: int, tag: int, poison: int = 0, fill: int = 0xA5, op: int = M2SRwDOp.MEMWR) -> M2SRwD:
    return M2SRwD(memop=op, tag=tag, addr=hpa >> 6, poison=poison, data=bytes([fill]) * 64)


def drs(tag: int, ldid: int = 0, poison: int = 0, fill: int = 0x3C) -> S2MDRS:
    return S2MDRS(memop=S2MDRSOp.MEMDATA, tag=tag, ldid=ldid, poison=poison, data=bytes([fill]) * 64)


def ndr(tag: int, ldid: int = 0, op: int = S2MNDROp.CMP) -> S2MNDR:
    return S2MNDR(memop=op, tag=tag, ldid=ldid)


def hbr_switch(n_usp: int = 2, n_dsp: int = 4, ways: int = 4, gran: int = 256, **kw: bool) -> SwitchModel:
    roles = [USP] * n_usp + [DSP] * n_dsp
    dec = HdmDecoder.make(BASE, 3 * HDM_UNIT * ways, ways, gran, tuple(range(n_usp, n_usp + ways)))
    return SwitchModel(len(roles), hbr_config(roles, [dec], **kw))


# ---- directed routing for every interleave setting -------------------------------------------
@pytest.mark.parametrize("ways", (1, 2, 4, 8, 16, 3, 6, 12))
@pytest.mark.parametrize("gran", (256, 1024, 4096, 16384))
@pytest.mark.parametrize("mode", ("hbr", "pbr"))
def test_routing_every_interleave(ways: int, gran: int, mode: str) -> None:
    n = ways + 1
    targets = list(range(1, n)) if mode == "hbr" else [0x200 + 3 * i for i in range(ways)]
    random.Random(ways * gran).shuffle(targets)  # target list order must be honoured, not port order
    dec = HdmDecoder.make(BASE, 3 * HDM_UNIT, ways, gran, targets)
    if mode == "hbr":
        cfg = hbr_config([USP] + [DSP] * ways, [dec])
    else:
        ports = [PortConfig.usp(0x001)] + [PortConfig.dsp(0x200 + 3 * i) for i in range(ways)]
        cfg = SwitchConfig("pbr", ports, [dec])
    sw = SwitchModel(n, cfg)
    for chunk in range(2 * ways):
        hpa = BASE + chunk * gran + 0x40
        port_of_way = targets[chunk % ways] if mode == "hbr" else 1 + (targets[chunk % ways] - 0x200) // 3
        out = sw.ingress(0, rd(hpa, tag=chunk))
        assert out == [(port_of_way, rd(hpa, tag=chunk))], (chunk, out)
        # the response goes back to port 0 in HBR form
        assert sw.ingress(port_of_way, drs(chunk)) == [(0, drs(chunk))]
    assert sw.outstanding() == [] and sw.counters.errors() == 0


# ---- error paths ------------------------------------------------------------------------------
def test_nxm_read_write_and_no_response() -> None:
    sw = hbr_switch()
    miss = BASE - 0x1000
    assert sw.ingress(1, rd(miss, tag=7, ldid=3)) == [(1, S2MDRS(
        memop=S2MDRSOp.MEMDATA_NXM, metafield=META_FIELD_NO_OP, tag=7, ldid=3, poison=0))]
    assert sw.ingress(0, wr(miss, tag=8)) == [(0, S2MNDR(memop=S2MNDROp.CMP, metafield=META_FIELD_NO_OP, tag=8))]
    assert sw.ingress(0, wr(miss, tag=9, op=M2SRwDOp.BICONFLICT)) == [
        (0, S2MNDR(memop=S2MNDROp.BI_CONFLICTACK, metafield=META_FIELD_NO_OP, tag=9))]
    assert sw.ingress(0, rd(miss, tag=10, op=M2SReqOp.MEMSPECRD)) == []
    c = sw.counters
    assert (c.nxm_read, c.nxm_write, c.nxm_no_response, c.forwarded_req) == (1, 2, 1, 0)
    # switch-made responses are a stream of their own
    assert [e.src for e in sw.streams.pending()] == [SWITCH_SRC] * 3
    # above the decoder range too
    assert sw.ingress(0, rd(BASE + 12 * HDM_UNIT, tag=1))[0][1].memop == S2MDRSOp.MEMDATA_NXM


def test_poison_on_decode_error_and_poison_forwarding() -> None:
    sw = hbr_switch(poison_on_decode_error=True)
    assert sw.ingress(0, rd(0, tag=1))[0][1].poison == 1
    # poisoned write data and poisoned read data pass unchanged
    w = wr(BASE, tag=2, poison=1)
    assert sw.ingress(0, w) == [(2, w)]
    assert sw.ingress(0, rd(BASE + 256, tag=3)) == [(3, rd(BASE + 256, tag=3))]
    p = drs(3, poison=1, fill=0xEE)
    assert sw.ingress(3, p) == [(0, p)]
    assert sw.counters.poisoned == 2


def test_bad_direction_opcode_unsupported_disabled() -> None:
    roles = [PortConfig(USP), PortConfig(DSP), PortConfig(DSP, enabled=False), PortConfig(USP, enabled=False)]
    dec = HdmDecoder.make(BASE, 2 * HDM_UNIT, 2, 256, (1, 2))
    sw = SwitchModel(4, SwitchConfig("hbr", roles, [dec]))
    assert sw.ingress(1, rd(BASE, 1)) == []  # request into a DSP
    assert sw.ingress(0, drs(1)) == []  # response into a USP
    assert sw.ingress(0, M2SReq(memop=5, tag=1, addr=BASE >> 6)) == []  # reserved opcode
    assert sw.ingress(0, H2DReq(opcode=1)) == []  # not CXL.mem
    assert sw.ingress(3, rd(BASE, 1)) == []  # disabled ingress
    assert sw.ingress(0, rd(BASE + 256, 1)) == []  # way 1 -> disabled port 2
    c = sw.counters
    assert (c.bad_direction, c.bad_opcode, c.unsupported, c.rx_disabled, c.egress_disabled) == (2, 1, 1, 1, 1)
    assert c.errors() == 6 and sw.outstanding() == []
    with pytest.raises(ValueError):
        sw.ingress(4, rd(BASE, 1))


# ---- tag tracking -----------------------------------------------------------------------------
def test_tag_routing_two_requesters() -> None:
    sw = hbr_switch(n_usp=3, n_dsp=2, ways=2)
    # three requesters, same device (way 0 = port 3), distinct tags; LD-ID separates equal tags
    sw.ingress(0, rd(BASE, tag=0x11))
    sw.ingress(1, rd(BASE, tag=0x22))
    sw.ingress(2, rd(BASE, tag=0x11, ldid=1))
    sw.ingress(1, wr(BASE + 256, tag=0x11))  # other device: same tag is fine
    assert len(sw.outstanding()) == 4
    assert sw.ingress(3, drs(0x22)) == [(1, drs(0x22))]
    assert sw.ingress(3, drs(0x11, ldid=1)) == [(2, drs(0x11, ldid=1))]
    assert sw.ingress(4, ndr(0x11)) == [(1, ndr(0x11))]
    assert sw.ingress(3, drs(0x11)) == [(0, drs(0x11))]
    assert sw.outstanding() == []
    # a response nobody asked for, a second completion, and a DRS for a write
    assert sw.ingress(3, drs(0x11)) == []
    sw.ingress(0, wr(BASE, tag=5))
    assert sw.ingress(3, drs(5)) == []
    assert sw.ingress(3, ndr(5)) == [(0, ndr(5))]
    assert sw.counters.unexpected_rsp == 2 and sw.counters.errors() == 2


def test_hdmd_read_ndr_then_drs() -> None:
    sw = hbr_switch()
    sw.ingress(0, rd(BASE, tag=3))
    assert sw.ingress(2, ndr(3, op=S2MNDROp.CMP_E)) == [(0, ndr(3, op=S2MNDROp.CMP_E))]
    assert len(sw.outstanding()) == 1  # the read is completed by its data
    assert sw.ingress(2, drs(3)) == [(0, drs(3))]
    assert sw.outstanding() == []


def test_tag_conflict_answered_by_switch() -> None:
    sw = hbr_switch()
    assert sw.ingress(0, rd(BASE, tag=4)) == [(2, rd(BASE, tag=4))]
    out = sw.ingress(1, rd(BASE, tag=4))
    assert out == [(1, S2MDRS(memop=S2MDRSOp.MEMDATA_NXM, metafield=META_FIELD_NO_OP, tag=4))]
    assert sw.counters.tag_conflict == 1
    assert sw.ingress(2, drs(4)) == [(0, drs(4))]  # the first requester still gets its data


# ---- PBR --------------------------------------------------------------------------------------
def pbr_single() -> SwitchModel:
    ports = [PortConfig.usp(0x010), PortConfig.dsp(0x100), PortConfig.dsp(0x101), PortConfig.fabric()]
    dec = HdmDecoder.make(BASE, 2 * HDM_UNIT, 2, 4096, (0x100, 0x101))
    dec2 = HdmDecoder.make(BASE + 2 * HDM_UNIT, HDM_UNIT, 1, 256, (0x555,))  # remote, no route
    return SwitchModel(4, SwitchConfig("pbr", ports, [dec, dec2], routes={0x300: 3}))


def test_pbr_edge_conversion_and_unknown_dpid() -> None:
    sw = pbr_single()
    r = rd(BASE + 4096 + 32, tag=9, ldid=2)  # Addr[5]=1 and LD-ID cannot cross a PBR fabric
    out = sw.ingress(0, r)
    assert out == [(2, r.replace(ldid=0, addr5=0))]
    assert sw.ingress(2, drs(9)) == [(0, drs(9))]
    # unknown DPID: from a decoder target, from the fabric, and for a response's requester
    assert sw.ingress(0, rd(BASE + 2 * HDM_UNIT, tag=1)) == []
    assert sw.ingress(3, rd(BASE, tag=1).replace(spid=0x300, dpid=0x777)) == []
    assert sw.ingress(3, drs(1).replace(dpid=0x778)) == []
    assert sw.counters.unknown_dpid == 3
    # fabric request to a local device keeps SPID for the response, which goes back over the fabric
    f = rd(BASE, tag=5).replace(spid=0x300, dpid=0x100)
    assert sw.ingress(3, f) == [(1, f.replace(spid=0, dpid=0))]
    assert sw.ingress(1, ndr(5, op=S2MNDROp.CMP_S)) == [(3, ndr(5, op=S2MNDROp.CMP_S).replace(dpid=0x300))]
    assert sw.ingress(1, drs(5, ldid=0)) == [(3, drs(5).replace(dpid=0x300))]
    # decode miss at a PBR edge: answered in HBR form on the requesting port
    assert sw.ingress(0, wr(0, tag=6)) == [(0, S2MNDR(memop=S2MNDROp.CMP, metafield=META_FIELD_NO_OP, tag=6))]
    # misroutes: U-turn on the fabric port, request to a host PID, response to a device PID
    assert sw.ingress(3, rd(BASE, tag=1).replace(spid=0x300, dpid=0x300)) == []
    assert sw.ingress(3, rd(BASE, tag=1).replace(spid=0x300, dpid=0x010)) == []
    assert sw.ingress(3, drs(1).replace(dpid=0x101)) == []
    assert sw.ingress(3, drs(1).replace(dpid=0x300)) == []
    assert sw.counters.misrouted == 4 and sw.outstanding() == []


def test_switch_config_errors() -> None:
    dec = HdmDecoder.make(BASE, HDM_UNIT, 1, 256, (1,))
    cases: list[tuple[object, str]] = [
        (lambda: hbr_config([USP, DSP], [dec, HdmDecoder.make(BASE, HDM_UNIT, 1, 256, (1,))]), "overlap"),
        (lambda: hbr_config([USP, DSP], [HdmDecoder.make(BASE, HDM_UNIT, 1, 256, (2,))]), "out of range"),
        (lambda: hbr_config([USP, USP], [dec]), "not a downstream port"),
        (lambda: hbr_config([USP, FAB]), "need PBR mode"),
        (lambda: SwitchConfig("hbr", [PortConfig(USP)], routes={1: 0}), "needs PBR mode"),
        (lambda: SwitchConfig("xbr", [PortConfig(USP)]), "routing mode"),
        (lambda: SwitchConfig("hbr", []), "at least one port"),
        (lambda: SwitchConfig("pbr", [PortConfig.usp(4096)]), "PID 4096 out of range"),
        (lambda: SwitchConfig("pbr", [PortConfig.usp(None)]), "PID None out of range"),
        (lambda: SwitchConfig("pbr", [PortConfig.usp(5), PortConfig.dsp(5)]), "share PID"),
        (lambda: SwitchConfig("pbr", [PortConfig(FAB, pid=3)]), "fabric port has no PID"),
        (lambda: SwitchConfig("pbr", [PortConfig.usp(1), PortConfig.fabric()], routes={4096: 1}),
         "DPID 4096 out of range"),
        (lambda: SwitchConfig("pbr", [PortConfig.usp(1), PortConfig.fabric()], routes={-1: 1}),
         "DPID -1 out of range"),
        (lambda: SwitchConfig("pbr", [PortConfig.usp(1), PortConfig.fabric()], routes={9: 2}),
         "egress port 2 out of range"),
        (lambda: SwitchConfig("pbr", [PortConfig.usp(1), PortConfig.fabric()], routes={1: 1}),
         "PID of local edge port"),
        (lambda: SwitchConfig("pbr", [PortConfig.usp(1), PortConfig.dsp(2)], routes={9: 1}),
         "not a fabric port"),
        (lambda: SwitchConfig("pbr", [PortConfig.usp(1)], [HdmDecoder.make(BASE, HDM_UNIT, 1, 256, (4096,))]),
         "target DPID 4096 out of range"),
        (lambda: SwitchConfig("pbr", [PortConfig.usp(1)], [HdmDecoder.make(BASE, HDM_UNIT, 1, 256, (1,))]),
         "is upstream port 0"),
        (lambda: SwitchModel(3, hbr_config([USP, DSP])), "n_ports=3"),
    ]
    for make, reason in cases:
        with pytest.raises(ConfigError, match=reason):
            make()  # type: ignore[operator]


# ---- cascade ----------------------------------------------------------------------------------
def cascade() -> SwitchFabric:
    """Switch A: host H0 (PID 0x001) on port 0, device D0 (0x100) on port 1, fabric port 2.
    Switch B: host H1 (0x002) on port 0, devices D1 (0x101), D2 (0x102) on ports 1, 2, fabric port 3.
    Both hosts see one 2-way region over D1, D2 (behind B) and one 1-way region on D0 (behind A)."""
    far = HdmDecoder.make(BASE, 2 * HDM_UNIT, 2, 1024, (0x101, 0x102))
    near = HdmDecoder.make(BASE + 2 * HDM_UNIT, HDM_UNIT, 1, 256, (0x100,))
    a = SwitchModel(3, SwitchConfig("pbr", [PortConfig.usp(0x001), PortConfig.dsp(0x100), PortConfig.fabric()],
                                    [far, near], routes={0x002: 2, 0x101: 2, 0x102: 2}))
    b = SwitchModel(4, SwitchConfig("pbr", [PortConfig.usp(0x002), PortConfig.dsp(0x101), PortConfig.dsp(0x102),
                                            PortConfig.fabric()], [far, near],
                                    routes={0x001: 3, 0x100: 3}))
    return SwitchFabric([a, b], [((0, 2), (1, 3))])


def test_cascade_pbr() -> None:
    fab = cascade()
    a, b = fab.switches
    assert fab.external_ports() == [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2)]
    r = rd(BASE + 1024, tag=0x42)  # way 1 -> D2 behind B
    assert fab.ingress(0, 0, r) == [(1, 2, r)]
    # on the link the message carried SPID/DPID (switch A's egress stream on its fabric port)
    assert a.streams.match(2, r.replace(spid=0x001, dpid=0x102)) == 0
    assert fab.ingress(1, 2, drs(0x42)) == [(0, 0, drs(0x42))]
    assert b.streams.match(3, drs(0x42).replace(dpid=0x001)) == 2
    # the other direction: host H1 on B writes to D0 behind A
    w = wr(BASE + 2 * HDM_UNIT + 64, tag=0x43)
    assert fab.ingress(1, 0, w) == [(0, 1, w)]
    assert fab.ingress(0, 1, ndr(0x43)) == [(1, 0, ndr(0x43))]
    # two hosts using one tag for one device: the device edge keys on (DSP, LD-ID, Tag), so the
    # second request is a tag conflict answered by switch B
    fab.ingress(0, 0, rd(BASE, tag=7))
    out = fab.ingress(1, 0, rd(BASE, tag=7))
    assert out == [(1, 0, S2MDRS(memop=S2MDRSOp.MEMDATA_NXM, metafield=META_FIELD_NO_OP, tag=7))]
    assert b.counters.tag_conflict == 1
    # a conflict for a request that came over the fabric: answered across the fabric to host H0
    fab.ingress(1, 0, rd(BASE + 1024, tag=8))
    out = fab.ingress(0, 0, rd(BASE + 1024, tag=8))
    assert out == [(0, 0, S2MDRS(memop=S2MDRSOp.MEMDATA_NXM, metafield=META_FIELD_NO_OP, tag=8))]
    assert b.counters.tag_conflict == 2
    assert a.counters.errors() == 0


def test_cascade_config_errors() -> None:
    fab = cascade()
    a, b = fab.switches
    with pytest.raises(ConfigError, match="cannot be linked"):
        SwitchFabric([a, b], [((0, 1), (1, 3))])
    with pytest.raises(ConfigError, match="linked twice"):
        SwitchFabric([a, b], [((0, 2), (1, 3)), ((0, 2), (1, 3))])
    with pytest.raises(ConfigError, match="does not exist"):
        SwitchFabric([a, b], [((0, 2), (2, 0))])
    h = hbr_switch()
    with pytest.raises(ConfigError, match="joins an HBR and a PBR"):
        SwitchFabric([a, h], [((0, 2), (1, 2))])
    with pytest.raises(ValueError, match="linked port"):
        fab.ingress(0, 2, rd(BASE, 1))


def test_routing_loop_detected() -> None:
    """Three PBR switches in a ring all forwarding DPID 9 clockwise: the message never leaves."""
    dec = HdmDecoder.make(BASE, HDM_UNIT, 1, 256, (0x9,))
    s0 = SwitchModel(3, SwitchConfig("pbr", [PortConfig.usp(0x1), PortConfig.fabric(), PortConfig.fabric()],
                                     [dec], routes={0x9: 1}))
    ring = [SwitchModel(2, SwitchConfig("pbr", [PortConfig.fabric(), PortConfig.fabric()], routes={0x9: 1}))
            for _ in range(2)]
    fab = SwitchFabric([s0, *ring], [((0, 1), (1, 0)), ((1, 1), (2, 0)), ((2, 1), (0, 2))], max_hops=8)
    with pytest.raises(RuntimeError, match="routing loop"):
        fab.ingress(0, 0, rd(BASE, 1))


# ---- ordering and the expected streams --------------------------------------------------------
def _random_traffic(rng: random.Random, n: int) -> tuple[SwitchModel, dict[int, list[tuple[int, object]]]]:
    """Hosts 0..2 send reads/writes to a 4-way region over DSPs 3..6 (and some misses); devices
    answer in a random order. Returns the model and, per egress, the (source, msg) emitted."""
    sw = hbr_switch(n_usp=3, n_dsp=4, ways=4)
    emitted: dict[int, list[tuple[int, object]]] = {}
    pending: list[tuple[int, object]] = []
    tags = [iter(range(1 << 16)) for _ in range(3)]
    for _ in range(n):
        if pending and rng.random() < 0.4:
            dsp, req = pending.pop(rng.randrange(len(pending)))
            rsp = drs(req.tag, fill=rng.randrange(256)) if isinstance(req, M2SReq) else ndr(req.tag)
            src, msg = dsp, rsp
        else:
            host = rng.randrange(3)
            hpa = BASE + rng.randrange(0, 12 * HDM_UNIT, 64)
            if rng.random() < 0.05:  # decode miss below or above the region
                hpa = rng.choice((BASE - 64 * rng.randrange(1, 100), BASE + 12 * HDM_UNIT + 64 * rng.randrange(100)))
            tag = next(tags[host]) * 4 + host  # tags unique across hosts: no conflicts
            msg = rd(hpa, tag) if rng.random() < 0.5 else wr(hpa, tag, fill=rng.randrange(256))
            src = host
        for eg, m in sw.ingress(src, msg):
            emitted.setdefault(eg, []).append((src, m))
            if eg >= 3:
                pending.append((eg, m))
    for dsp, req in pending:  # drain: every request gets its response
        rsp = drs(req.tag) if isinstance(req, M2SReq) else ndr(req.tag)
        for eg, m in sw.ingress(dsp, rsp):
            emitted.setdefault(eg, []).append((dsp, m))
    return sw, emitted


def _rtl_like_merge(rng: random.Random, stream: list[tuple[int, object]]) -> list[object]:
    """An arbitrary interleaving that keeps per-(source, class) order: what a legal switch may emit."""
    fifos: dict[tuple[int, str], list[object]] = {}
    for src, m in stream:
        fifos.setdefault((src, m.MID), []).append(m)
    out: list[object] = []
    while fifos:
        key = rng.choice(sorted(fifos))
        out.append(fifos[key].pop(0))
        if not fifos[key]:
            del fifos[key]
    return out


def test_random_traffic_streams_and_completion() -> None:
    print(f"SEED={SEED}")
    rng = random.Random(SEED)
    sw, emitted = _random_traffic(rng, 600)
    assert sw.outstanding() == []  # every forwarded request got its completion
    c = sw.counters
    assert c.errors() == c.nxm_read + c.nxm_write and c.nxm_read + c.nxm_write > 0
    # per (ingress, egress, class) the model's streams keep arrival order
    for eg, stream in emitted.items():
        for m in _rtl_like_merge(rng, stream):
            sw.streams.match(eg, m)
    assert sw.streams.pending() == []


def test_streams_detect_reordering_within_a_source() -> None:
    sw = hbr_switch()
    a, b, c = rd(BASE, 1), rd(BASE + 1024, 2), rd(BASE + 2048, 3)  # all to way 0 -> port 2
    for m in (a, b, c):
        assert sw.ingress(0, m)[0][0] == 2
    with pytest.raises(OrderingError, match="unexpected"):
        sw.streams.match(2, b)
    assert sw.streams.match(2, a) == 0
    with pytest.raises(OrderingError):
        sw.streams.match(2, c)
    with pytest.raises(OrderingError):
        sw.streams.match(3, b)  # right message, wrong egress
    assert sw.streams.match(2, b) == 0 and sw.streams.match(2, c) == 0


def test_streams_allow_cross_source_and_cross_class_but_window_bounds_it() -> None:
    sw = hbr_switch()
    r0, r1 = rd(BASE, 10), rd(BASE + 1024, 11)  # port 2, from hosts 0 and 1
    w0 = wr(BASE + 2048, 12)  # port 2, host 0, other class
    sw.ingress(0, r0)
    sw.ingress(1, r1)
    sw.ingress(0, w0)
    # window 1: only the oldest pending message of the class may come out
    with pytest.raises(OrderingError, match="outside window 1"):
        sw.streams.match(2, r1, window=1)
    assert sw.streams.match(2, w0, window=1) == 0  # other class: its own funnel
    assert sw.streams.match(2, r1, window=2) == 1  # host 1 overtakes host 0: legal
    assert sw.streams.match(2, r0, window=1) == 0
    assert sw.streams.pending() == []
