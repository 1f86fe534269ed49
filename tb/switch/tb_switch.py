"""pyuvm tests of cxl_switch_core (message level): routing for every interleave setting in HBR and
PBR, random traffic patterns with idles and back-pressure, error traffic, configuration errors,
a saturation/deadlock run, against models.switch.SwitchModel.

Scoreboard: funnel per egress (per class and source order), completion tracker (each request gets
exactly one response), model counters == RTL counters, coverage of (class x src x dst x mode)."""
from __future__ import annotations

import random

import cocotb
import pyuvm
from cocotb.triggers import FallingEdge, ReadOnly

from models.cxl.messages import (CxlMessage, M2SReq, M2SReqOp, M2SRwD, M2SRwDOp, S2MDRS, S2MDRSOp, S2MNDR,
                                 S2MNDROp)
from models.switch import (HDM_UNIT, ConfigError, HdmDecoder, PortConfig, PortRole, SwitchConfig,
                           SwitchModel, hbr_config)
from tb.switch.base import SOAK, SwitchTestBase
from tb.switch.env import cfg_access, cfg_agent, program
from tb.common.clock import ClockReset
from tb.switch.regs import (A_COUNT, A_CTRL, A_DEC, A_ERR, A_INFO, A_PORT, A_ROUTE, ERR, RESP_ADDR, RESP_OK, RESP_REJ,
                            ROLE_CODE, config_writes, ctrl, decoder, port, readback, route)
from tb.switch.traffic import (BASE, PATTERNS, dest_ways, hbr_setup, host_requests, hpa_for_way, pbr_edge_setup,
                              random_pbr_config)

USP, DSP, FAB = PortRole.USP, PortRole.DSP, PortRole.FABRIC
WAYS_ALL = (1, 2, 4, 8, 16, 3, 6, 12)
GRANS = tuple(256 << e for e in range(7))


def n_ports() -> int:
    return len(cocotb.top.in_valid) // 4


def nrt() -> int:
    return int(cocotb.top.NRT.value)


# ------------------------------------------------------------------------------ interleave
class InterleaveBase(SwitchTestBase):
    """One USP (port 0) reads through decoders of every ways x granularity setting; each config
    is programmed through the registers and checked against the model's decode (egress port, and
    in PBR the DPID the message carries)."""

    mode = "hbr"
    check_coverage = False
    n_hosts = 1  # HBR: ports 0..n_hosts-1 are USPs (port 0 sends), the rest DSPs

    def ways_list(self) -> list[int]:
        n = n_ports()
        if self.mode == "hbr":
            return [w for w in WAYS_ALL if w <= n - self.n_hosts]
        return [w for w in WAYS_ALL if w <= nrt()]

    def make_cfg(self, ways: int, gran: int) -> tuple[SwitchConfig, HdmDecoder]:
        n = n_ports()
        rng = random.Random(ways * 100003 + gran)
        size = 3 * HDM_UNIT * ways
        if self.mode == "hbr":
            tg = list(range(self.n_hosts, self.n_hosts + ways))
            rng.shuffle(tg)
            dec = HdmDecoder.make(BASE, size, ways, gran, tg)
            return hbr_config([USP] * self.n_hosts + [DSP] * (n - self.n_hosts), [dec]), dec
        # PBR: remote DPIDs behind fabric ports 1..n-1 (targets in shuffled order)
        tg = [0x300 + 5 * i for i in range(ways)]
        rng.shuffle(tg)
        dec = HdmDecoder.make(BASE, size, ways, gran, tg)
        routes = {t: 1 + i % (n - 1) for i, t in enumerate(sorted(tg))}
        ports = [PortConfig.usp(0x001)] + [PortConfig.fabric() for _ in range(n - 1)]
        return SwitchConfig("pbr", ports, [dec], routes), dec

    def scenario(self):
        cfg, _ = self.make_cfg(1, 256)
        self.models: list[SwitchModel] = []
        return cfg, {}

    def model_counters(self) -> dict[str, int]:
        tot = self.model.counters.as_dict()
        for m in self.models:
            for k, v in m.counters.as_dict().items():
                tot[k] += v
        return tot

    async def body(self) -> None:
        dut = cocotb.top
        tag = 0
        for ways in self.ways_list():
            for gran in GRANS:
                cfg, dec = self.make_cfg(ways, gran)
                await self.env.drain(2000)
                # reprogram: clear routes and disable decoder 0 first
                await program(dut, [decoder(0, 0, 0, 0, 0, (), commit=False)[-1]]
                              + [route(e, 0, 0, valid=False) for e in range(nrt())])
                await program(dut, config_writes(cfg, self.ndec))
                self.models.append(self.model)
                self.model = SwitchModel(n_ports(), cfg)  # the reprogrammed switch
                self.env.sb.predict = self.model.ingress
                msgs = []
                for k in range(2 * ways + 2):
                    way = k % ways
                    hpa = hpa_for_way(dec, way, self.rng, align=32) if k < 2 * ways else \
                        BASE + self.rng.randrange(dec.size // 32) * 32
                    msgs.append(M2SReq(memop=int(M2SReqOp.MEMRD), tag=tag, addr=hpa >> 6, addr5=(hpa >> 5) & 1))
                    tag += 1
                    # the model's own decode must agree with the position we aimed for
                    if k < 2 * ways:
                        assert dec.position(hpa) == way
                await self.send_all({0: msgs})
        self.logger.info(f"interleave: {tag} reads over {len(self.ways_list())} way settings x {len(GRANS)} granularities")


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class InterleaveHBR(InterleaveBase):
    mode = "hbr"


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class InterleavePBR(InterleaveBase):
    mode = "pbr"


# ------------------------------------------------------------------------------ random traffic
class RandomBase(SwitchTestBase):
    pattern = "uniform"
    mode = "hbr"
    count = 120
    idle_p = 0.7
    ready_p = 0.7

    def scenario(self):
        n = n_ports()
        cfg, dec = hbr_setup(n) if self.mode == "hbr" else pbr_edge_setup(n)
        hosts = [p for p, pc in enumerate(cfg.ports) if pc.role == USP]
        traffic = {}
        count = self.count * (8 if SOAK else 1)
        for h_i, h in enumerate(hosts):
            ways = dest_ways(self.pattern, h_i, len(hosts), dec.ways, count, self.rng)
            traffic[h] = host_requests(h, ways, dec, self.rng)
        return cfg, traffic


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class RandomUniformHBR(RandomBase):
    pattern = "uniform"


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class RandomUniformPBR(RandomBase):
    pattern = "uniform"
    mode = "pbr"


class RandomNoCovBase(RandomBase):
    check_coverage = False  # patterns that cannot reach every (src, dst) pair by construction


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class RandomHotspot(RandomBase):
    pattern = "hotspot"
    # half the requests go to way 0, so a (class, source, other way) bin expects count x 0.5 / ways
    # x its class share: at 120 a write bin expected ~6 and one in a few hundred seeds missed one
    # (SEED=14250180 at N=8); at 240 the chance that any bin stays empty is below 1e-4
    count = 240


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class RandomPermutation(RandomNoCovBase):
    pattern = "permutation"
    ready_p = 0.5


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class RandomIncast(RandomNoCovBase):
    pattern = "incast"
    mode = "pbr"


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class RandomAllToAll(RandomBase):
    pattern = "all_to_all"
    idle_p = 1.0
    ready_p = 0.9


def fabric_all_to_all(n: int, per_port: int, rng: random.Random) -> tuple[SwitchConfig, dict[int, list[CxlMessage]]]:
    """Every port is a PBR fabric port with a remote host and device behind it (DPID 0x100+p routes
    to port p): each port sends requests to every other port in turn (reads, writes, invalidations,
    speculative reads), and the devices answer to the SPID, so every port carries all 4 classes in
    both directions. Tags: port p uses p<<12 | k (wrapping after 4096: nothing is tracked on
    fabric-to-fabric paths, and the tag still names the source)."""
    cfg = SwitchConfig("pbr", [PortConfig.fabric() for _ in range(n)], [], routes={0x100 + k: k for k in range(n)})
    traffic: dict[int, list[CxlMessage]] = {}
    for p in range(n):
        others = [q for q in range(n) if q != p]
        msgs: list[CxlMessage] = []
        for k in range(per_port):
            q = others[(k + p) % len(others)]
            tag, addr, r = (p << 12) | (k & 0xFFF), rng.getrandbits(46), rng.random()
            hdr = dict(tag=tag, addr=addr, spid=0x100 + p, dpid=0x100 + q)
            if r < 0.4:
                msgs.append(M2SRwD(memop=int(M2SRwDOp.MEMWR), data=rng.randbytes(64), poison=int(rng.random() < 0.03), **hdr))
            elif r < 0.45:
                msgs.append(M2SReq(memop=int(M2SReqOp.MEMSPECRD), **hdr))
            elif r < 0.5:
                msgs.append(M2SReq(memop=int(M2SReqOp.MEMINV), **hdr))
            else:
                msgs.append(M2SReq(memop=int(M2SReqOp.MEMRD), **hdr))
        traffic[p] = msgs
    return cfg, traffic


@pyuvm.test(timeout_time=20000, timeout_unit="us")
class SaturationDeadlock(SwitchTestBase):
    """Deadlock test: all-to-all at saturation (every port always has a request to send, to every
    other port in turn), random back-pressure on every egress (ready 60%) and devices answering
    after 0..30 cycles, so requests and responses of all 4 classes share every port in both
    directions. Every message must be delivered: the scoreboard ends with nothing pending.
    Default ~1200 requests (+ their responses); SOAK=1: ~26000 requests, ~50000 messages."""

    idle_p = 1.0
    ready_p = 0.6
    max_delay = 30
    drain_cycles = 50000
    requests = 26000 if SOAK else 1200

    def coverage_legal(self, cfg: SwitchConfig):
        return lambda k, s, d: s != d

    def scenario(self):
        n = n_ports()
        return fabric_all_to_all(n, self.requests // n, self.rng)

    async def body(self) -> None:
        t0 = self.env.bus.cycle
        await self.send_all(self.traffic)
        await self.env.drain(self.drain_cycles)
        assert self.env.quiet(), f"not drained after {self.drain_cycles} cycles: possible deadlock"
        cyc = self.env.bus.cycle - t0
        self.logger.info(f"saturation all-to-all: {self.env.sb.matched} messages delivered in {cyc} cycles "
                         f"({self.env.sb.matched / max(cyc, 1) / n_ports():.3f} per port per cycle)")


# ------------------------------------------------------------------------------ tag conflicts
class TagConflictBase(SwitchTestBase):
    """Two requesters use one (LD-ID, Tag) toward one DSP while the first request is outstanding
    (the device holds its answers back): the second is not forwarded but answered by the switch
    (read: MemData-NXM, write: NDR Cmp) and counted as tag_conflict, as the model does. The same
    tag with another LD-ID, and the same key after the first completed, are forwarded."""

    check_coverage = False
    mode = "hbr"

    def scenario(self):
        n = n_ports()
        if self.mode == "hbr":
            cfg, _ = hbr_setup(n)
            return cfg, {}
        ports = [PortConfig.usp(0x101), PortConfig.usp(0x102), PortConfig.dsp(0x202)] + \
                [PortConfig.fabric() for _ in range(n - 3)]
        dec = HdmDecoder.make(BASE, 2 * HDM_UNIT, 1, 256, (0x202,))
        return SwitchConfig("pbr", ports, [dec], routes={0x555: 3}), {}

    async def body(self) -> None:
        dec, r, dev = self.cfg.decoders[0], self.rng, self.env.dev

        def rd(tag: int, ldid: int = 0, **kw) -> M2SReq:
            return M2SReq(memop=int(M2SReqOp.MEMRD), tag=tag, addr=hpa_for_way(dec, 0, r) >> 6, ldid=ldid, **kw)

        def wr(tag: int) -> M2SRwD:
            return M2SRwD(memop=int(M2SRwDOp.MEMWR), tag=tag, addr=hpa_for_way(dec, 0, r) >> 6, data=r.randbytes(64))
        dev.hold = True
        await self.send_all({0: [rd(5), wr(6), rd(7)]})  # outstanding at the DSP
        await self.settle()
        conflicts = {1: [rd(5), wr(6)]}
        if self.mode == "pbr":  # remote requesters behind fabric port 3 (one has no route back)
            conflicts[3] = [rd(7, spid=0x555, dpid=0x202), rd(5, spid=0x666, dpid=0x202)]
        await self.send_all(conflicts)
        await self.settle()
        if self.mode == "hbr":  # same tag, other LD: no conflict
            await self.send_all({1: [rd(5, ldid=1)]})
            await self.settle()
        dev.hold = False
        await self.env.drain(2000)
        await self.send_all({1: [rd(5), wr(6)]})  # the first ones completed: forwarded now
        await self.env.drain(2000)
        want = 2 + (2 if self.mode == "pbr" else 0)
        assert self.model.counters.tag_conflict == want, f"model tag_conflict {self.model.counters.tag_conflict}"


@pyuvm.test(timeout_time=1000, timeout_unit="us")
class TagConflictHBR(TagConflictBase):
    mode = "hbr"


@pyuvm.test(timeout_time=1000, timeout_unit="us")
class TagConflictPBR(TagConflictBase):
    mode = "pbr"


@pyuvm.test(timeout_time=1000, timeout_unit="us")
class ResponseHazard(SwitchTestBase):
    """Responses to one outstanding request entering a DSP back to back: the first completes the
    request and deletes its table entry, a second with the same key right behind it (the next cycle
    or one later, so it is looked up while the first is in stage 1 or 2) is an unexpected response,
    as the model says; an NDR for a read is forwarded without completing it, the DRS after it
    completes it. The device holds its own answers back (and they are discarded), the test sends
    the responses into the DSP itself."""

    check_coverage = False

    def scenario(self):
        cfg, _ = hbr_setup(n_ports())
        return cfg, {}

    async def body(self) -> None:
        dec, r, dev = self.cfg.decoders[0], self.rng, self.env.dev
        dsp = dec.targets[0]

        def rd(tag: int) -> M2SReq:
            return M2SReq(memop=int(M2SReqOp.MEMRD), tag=tag, addr=hpa_for_way(dec, 0, r) >> 6)

        def wr(tag: int) -> M2SRwD:
            return M2SRwD(memop=int(M2SRwDOp.MEMWR), tag=tag, addr=hpa_for_way(dec, 0, r) >> 6, data=r.randbytes(64))

        def drs(tag: int) -> S2MDRS:
            return S2MDRS(memop=int(S2MDRSOp.MEMDATA), tag=tag, data=r.randbytes(64))

        def ndr(tag: int) -> S2MNDR:
            return S2MNDR(memop=int(S2MNDROp.CMP), tag=tag)
        dev.hold = True
        await self.send_all({0: [rd(1), rd(2), rd(3), wr(4), rd(5), wr(6)]})
        await self.settle()
        dev.pending.clear()
        # the same DRS twice on one input: the second is looked up while the first is in stage 1
        await self.send_all({dsp: [drs(1), drs(1)]})
        await self.settle()
        # NDR then DRS for a read, and a duplicate on the other input two cycles behind
        await self.send_all({dsp: [ndr(2), drs(2), drs(2)]})
        await self.settle()
        # interleaved inputs: completions and duplicates of three requests
        await self.send_all({dsp: [drs(3), ndr(4), drs(3), ndr(4), drs(5), ndr(6), ndr(6), drs(5)]})
        await self.settle()
        dev.hold = False
        c = self.model.counters
        assert c.unexpected_rsp == 6, f"model unexpected_rsp {c.unexpected_rsp}"


# ------------------------------------------------------------------------------ error traffic
@pyuvm.test(timeout_time=1000, timeout_unit="us")
class ErrorTrafficHBR(SwitchTestBase):
    """Decode misses (read -> MemData-NXM, write -> NDR Cmp, MemSpecRd dropped, BIConflict ->
    BI-ConflictAck), reserved opcodes, wrong direction, unexpected responses, poisoned data, a
    disabled ingress port and a disabled egress port: the model's answers and counters."""

    check_coverage = False
    poison = True

    def scenario(self):
        n = n_ports()
        cfg, dec = hbr_setup(n)
        ports = list(cfg.ports)
        ports[n - 1] = PortConfig(DSP, None, enabled=False)  # last DSP disabled (egress disabled)
        ports[1] = PortConfig(USP, None, enabled=False) if n > 4 else ports[1]
        cfg = SwitchConfig("hbr", ports, cfg.decoders, poison_on_decode_error=self.poison)
        r = self.rng
        miss = BASE + dec.size + 0x1000
        h: list[CxlMessage] = [
            M2SReq(memop=int(M2SReqOp.MEMRD), tag=1, addr=miss >> 6, ldid=3),
            M2SRwD(memop=int(M2SRwDOp.MEMWR), tag=2, addr=miss >> 6, data=r.randbytes(64), poison=1),
            M2SReq(memop=int(M2SReqOp.MEMSPECRD), tag=3, addr=miss >> 6),
            M2SRwD(memop=int(M2SRwDOp.BICONFLICT), tag=4, addr=miss >> 6, data=bytes(64)),
            M2SReq(memop=0x5, tag=5, addr=BASE >> 6),  # reserved opcode
            M2SRwD(memop=0x7, tag=6, addr=BASE >> 6, data=bytes(64)),  # reserved opcode
            M2SRwD(memop=int(M2SRwDOp.MEMWR), tag=7, addr=hpa_for_way(dec, 0, r) >> 6, poison=1,
                   data=r.randbytes(64)),  # poisoned write forwarded
            M2SReq(memop=int(M2SReqOp.MEMRD), tag=8, addr=hpa_for_way(dec, dec.ways - 1, r) >> 6),  # disabled DSP
            M2SReq(memop=int(M2SReqOp.MEMINVNT), tag=9, addr=miss >> 6),
            S2MNDR(memop=int(S2MNDROp.CMP), tag=10),  # S2M into a USP: wrong direction
        ]
        dsp = n // 2
        d: list[CxlMessage] = [
            S2MDRS(memop=int(S2MDRSOp.MEMDATA), tag=0x777, data=bytes(64)),  # nobody asked
            S2MNDR(memop=int(S2MNDROp.CMP), tag=0x778),
            M2SReq(memop=int(M2SReqOp.MEMRD), tag=11, addr=BASE >> 6),  # M2S into a DSP
        ]
        traffic = {0: h, dsp: d}
        if n > 4:
            traffic[1] = [M2SReq(memop=int(M2SReqOp.MEMRD), tag=12, addr=hpa_for_way(dec, 0, r) >> 6)]
        return cfg, traffic


@pyuvm.test(timeout_time=1000, timeout_unit="us")
class ErrorTrafficPBR(SwitchTestBase):
    """PBR: unknown DPID on a fabric port (dropped, counted), misroutes (U-turn, request routed to
    a USP, response routed to a DSP), decode miss answered to the requester PID, poisoned DRS
    forwarded across the fabric."""

    check_coverage = False

    def scenario(self):
        n = n_ports()
        ports = [PortConfig.usp(0x101), PortConfig.dsp(0x202), PortConfig.fabric()] + \
                [PortConfig.fabric() for _ in range(n - 3)]
        dec = HdmDecoder.make(BASE, 2 * HDM_UNIT * 2, 2, 256, (0x202, 0x999))
        cfg = SwitchConfig("pbr", ports, [dec], routes={0x999: 2, 0x555: 2})
        r = self.rng
        miss = BASE + dec.size
        h = [M2SReq(memop=int(M2SReqOp.MEMRD), tag=1, addr=miss >> 6, ldid=2),
             M2SReq(memop=int(M2SReqOp.MEMRD), tag=2, addr=hpa_for_way(dec, 0, r) >> 6),
             M2SRwD(memop=int(M2SRwDOp.MEMWR), tag=3, addr=hpa_for_way(dec, 1, r) >> 6, data=r.randbytes(64))]
        f = [M2SReq(memop=int(M2SReqOp.MEMRD), tag=20, addr=BASE >> 6, spid=0x555, dpid=0x123),  # unknown
             M2SReq(memop=int(M2SReqOp.MEMRD), tag=21, addr=BASE >> 6, spid=0x555, dpid=0x999),  # U-turn
             M2SReq(memop=int(M2SReqOp.MEMRD), tag=22, addr=BASE >> 6, spid=0x555, dpid=0x101),  # to a USP
             S2MDRS(memop=int(S2MDRSOp.MEMDATA), tag=23, dpid=0x202, data=bytes(64)),  # rsp to a DSP
             S2MDRS(memop=int(S2MDRSOp.MEMDATA), tag=24, dpid=0x101, poison=1, data=r.randbytes(64)),
             S2MNDR(memop=int(S2MNDROp.CMP), tag=25, dpid=0x0AB),  # unknown
             M2SRwD(memop=int(M2SRwDOp.MEMWR), tag=26, addr=BASE >> 6, spid=0x555, dpid=0x202,
                    data=r.randbytes(64))]  # remote host writes to our DSP
        return cfg, {0: h, 2: f}


# ------------------------------------------------------------------------------ configuration
@pyuvm.test(timeout_time=500, timeout_unit="us")
class ConfigErrors(SwitchTestBase):
    """Each bad register write is refused with status 2 and the reason in ERR, the model refuses
    the same configuration (ConfigError), the programmed configuration stays unchanged and traffic
    still routes afterwards. Unmapped addresses answer status 1."""

    check_coverage = False

    def scenario(self):
        n = n_ports()
        cfg, dec = hbr_setup(n)
        return cfg, {0: host_requests(0, dest_ways("uniform", 0, 1, dec.ways, 20, self.rng), dec, self.rng)}

    async def expect_reject(self, w, reason: str, model_cfg) -> None:
        dut = cocotb.top
        resp, _ = await cfg_access(dut, w.addr, w.data)
        assert resp == RESP_REJ, f"write {w} accepted, expected rejection ({reason})"
        self.n_rej = getattr(self, "n_rej", 0) + 1
        _, err = await cfg_access(dut, A_ERR, write=False)
        assert err == ERR[reason], f"write {w}: ERR {err}, expected {ERR[reason]} ({reason})"
        if model_cfg is None:  # a register encoding the model has no counterpart for
            return
        try:
            model_cfg()
        except ConfigError as e:
            self.logger.info(f"rejected ({reason}); model agrees: {e}")
        else:
            raise AssertionError(f"model accepts what the RTL rejects ({reason})")

    async def body(self) -> None:
        dut = cocotb.top
        n = n_ports()
        _, info = await cfg_access(dut, A_INFO, write=False)
        assert info & 0xFF == n
        resp, _ = await cfg_access(dut, 0x0F0, 0)
        assert resp == RESP_ADDR
        roles = [pc.role for pc in self.cfg.ports]
        base_u = BASE // HDM_UNIT
        d0 = self.cfg.decoders[0]
        dsp = roles.index(DSP)

        def hbr(*decs, rl=roles):
            return lambda: hbr_config(rl, list(decs))
        # overlapping decoder (decoder 0 is committed over [BASE, BASE + size))
        await program(dut, decoder(1, base_u + 1, 2, 0, 0, (dsp,), commit=False))
        await self.expect_reject(decoder(1, 0, 0, 0, 0, ())[-1], "overlap",
                                 hbr(d0, HdmDecoder.make(BASE + HDM_UNIT, 2 * HDM_UNIT, 1, 256, (dsp,))))
        # 3 ways with a size that is not a multiple of 3 x 256 MB
        await program(dut, decoder(1, base_u + 64, 4, 8, 0, (dsp, dsp + 1, dsp + 2 if dsp + 2 < n else 0),
                                   commit=False))
        await self.expect_reject(decoder(1, 0, 0, 0, 0, ())[-1], "size3",
                                 lambda: HdmDecoder(BASE + 64 * HDM_UNIT, 4 * HDM_UNIT, 8, 0, (2, 3, 4)))
        # reserved eIW / eIG
        await program(dut, decoder(1, base_u + 64, 6, 5, 0, (), commit=False))
        await self.expect_reject(decoder(1, 0, 0, 0, 0, ())[-1], "eiw",
                                 lambda: HdmDecoder(BASE + 64 * HDM_UNIT, 6 * HDM_UNIT, 5, 0, ()))
        await program(dut, decoder(1, base_u + 64, 6, 0, 7, (dsp,), commit=False))
        await self.expect_reject(decoder(1, 0, 0, 0, 0, ())[-1], "eig",
                                 lambda: HdmDecoder(BASE + 64 * HDM_UNIT, 6 * HDM_UNIT, 0, 7, (dsp,)))
        # repeated targets
        await program(dut, decoder(1, base_u + 64, 4, 1, 0, (dsp, dsp), commit=False))
        await self.expect_reject(decoder(1, 0, 0, 0, 0, ())[-1], "tgt_dup",
                                 lambda: HdmDecoder(BASE + 64 * HDM_UNIT, 4 * HDM_UNIT, 1, 0, (dsp, dsp)))
        # HBR target that is not a downstream port
        await program(dut, decoder(1, base_u + 64, 4, 0, 0, (0,), commit=False))
        await self.expect_reject(decoder(1, 0, 0, 0, 0, ())[-1], "tgt_port",
                                 hbr(d0, HdmDecoder.make(BASE + 64 * HDM_UNIT, 4 * HDM_UNIT, 1, 256, (0,))))
        # range past 2^52
        await program(dut, decoder(1, (1 << 24) - 2, 4, 0, 0, (dsp,), commit=False))
        await self.expect_reject(decoder(1, 0, 0, 0, 0, ())[-1], "wrap",
                                 lambda: HdmDecoder(((1 << 24) - 2) * HDM_UNIT, 4 * HDM_UNIT, 0, 0, (dsp,)))
        # out-of-range DPID / PID values, routes in HBR mode, fabric ports in HBR mode
        await self.expect_reject(decoder(1, 0, 0, 0, 0, (0x1000,))[3], "tgt_range",
                                 lambda: SwitchConfig("pbr", [PortConfig.usp(1), PortConfig.dsp(2)],
                                                      [HdmDecoder.make(BASE, HDM_UNIT, 1, 256, (0x1000,))]))
        await self.expect_reject(route(0, 0x1000, n - 1), "rt_mode",
                                 lambda: SwitchConfig("hbr", self.cfg.ports, routes={0x1000: n - 1}))
        await self.expect_reject(port(0, FAB), "fab_hbr",
                                 lambda: hbr_config([FAB] + roles[1:]))
        await self.expect_reject(port(0, USP, pid=0x1000), "pid_range",
                                 lambda: SwitchConfig("pbr", [PortConfig.usp(0x1000)] +
                                                      [PortConfig.dsp(0x10 + p) for p in range(1, n)]))
        await self.expect_reject(port(0, 3), "role", None)
        # PBR checks: program a PBR configuration, then try bad writes
        pbr_ports = [PortConfig.usp(0x10), PortConfig.dsp(0x20)] + [PortConfig.fabric() for _ in range(n - 2)]
        good = SwitchConfig("pbr", pbr_ports, [], routes={0x300: 2})
        await program(dut, [decoder(0, 0, 0, 0, 0, (), commit=False)[-1]] + config_writes(good, self.ndec))
        await self.expect_reject(route(1, 0x1000, 2), "rt_dpid",
                                 lambda: SwitchConfig("pbr", pbr_ports, routes={0x1000: 2}))
        await self.expect_reject(route(1, 0x301, 1), "rt_port",
                                 lambda: SwitchConfig("pbr", pbr_ports, routes={0x301: 1}))
        await self.expect_reject(route(1, 0x20, 2), "rt_local",
                                 lambda: SwitchConfig("pbr", pbr_ports, routes={0x20: 2}))
        await self.expect_reject(port(1, DSP, pid=0x10), "pid_shared",
                                 lambda: SwitchConfig("pbr", [PortConfig.usp(0x10), PortConfig.dsp(0x10)]
                                                      + pbr_ports[2:]))
        await program(dut, decoder(0, base_u, 2, 0, 0, (0x10,), commit=False))
        await self.expect_reject(decoder(0, 0, 0, 0, 0, ())[-1], "tgt_usp",
                                 lambda: SwitchConfig("pbr", pbr_ports, [HdmDecoder.make(BASE, 2 * HDM_UNIT, 1,
                                                                                         256, (0x10,))]))
        # both a route and fabric ports forbid HBR mode; the route is reported (checked last)
        await self.expect_reject(ctrl(False), "rt_mode", lambda: SwitchConfig("hbr", pbr_ports, routes={0x300: 2}))
        _, rej = await cfg_access(dut, A_COUNT + 15, write=False)
        assert rej == self.n_rej, f"cfg_rejected counter {rej}, {self.n_rej} writes were rejected"
        # reset, program the HBR configuration: traffic routes as the model says
        await FallingEdge(dut.clk)
        await ClockReset(dut.clk, dut.rst).reset()
        await program(dut, config_writes(self.cfg, self.ndec))
        _, c = await cfg_access(dut, A_CTRL, write=False)
        assert c == 0
        _, p0 = await cfg_access(dut, A_PORT, write=False)
        assert p0 == 1, f"port 0 register {p0:#x}"
        self.rejects = 0  # the counters were reset with the switch
        await self.send_all(self.traffic)

    async def compare_counters(self) -> None:
        from tb.switch.env import read_counters
        got = await read_counters(cocotb.top)
        want = self.model_counters()
        assert got["cfg_rejected"] == self.rejects, f"cfg_rejected {got['cfg_rejected']}"
        diffs = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
        assert not diffs, f"RTL counters differ from the model: {diffs}"


# ------------------------------------------------------------------------------ latency
@pyuvm.test(timeout_time=200, timeout_unit="us")
class ZeroLoadLatency(SwitchTestBase):
    """One read at a time through an idle switch: ingress valid -> egress valid, every request
    and response; the figure is logged and must be <= 4 cycles (the issue's goal)."""

    check_coverage = False

    def scenario(self):
        cfg, dec = hbr_setup(n_ports())
        return cfg, {}

    async def body(self) -> None:
        dut = cocotb.top
        dec = self.cfg.decoders[0]
        lat = []
        for k in range(dec.ways):
            m = M2SReq(memop=int(M2SReqOp.MEMRD), tag=k, addr=hpa_for_way(dec, k, self.rng) >> 6)
            await FallingEdge(dut.clk)
            t_in = None
            self.env.bus.push(0, m)
            for _ in range(50):
                await ReadOnly()
                v_in, v_out = int(dut.in_valid.value), int(dut.out_valid.value)
                if t_in is None and v_in:
                    t_in = self.env.bus.cycle
                if t_in is not None and v_out:
                    lat.append(self.env.bus.cycle - t_in)
                    break
                await FallingEdge(dut.clk)
            await self.env.drain(200)
        self.logger.info(f"zero-load latency (cycles): {lat}")
        assert lat and max(lat) <= 4, f"zero-load latency {lat} cycles exceeds 4"


# ------------------------------------------------------------------------------ register sweep
@pyuvm.test(timeout_time=2000, timeout_unit="us")
class ConfigSweep(SwitchTestBase):
    """Every writable field of every register at full width, then routing with random full-width
    configurations.

    Sweep: each field of every port, decoder staging (BASE, SIZE, CTRL, 16 TARGETs) and route
    register is written with a random legal value r, its complement and r again (so every stored
    bit is set and cleared), with random data in the ignored bits. Each write must be accepted and
    answer the register's previous value, a final read must give r; the expected values come from
    the register map (tb/switch/regs.py), ignored bits read 0.
    Rounds: random PBR configurations (random_pbr_config: random 12-bit PIDs and DPIDs, NRT
    routes, NDEC decoders anywhere in the 52-bit HPA space with random sizes, ways, granularity and
    targets) are programmed after a reset to neutral; the committed decoders read back as staged
    (COMMIT reads 1); then the USP sends requests to random HPAs over each decoder's whole range and
    to HPAs no decoder holds, and a fabric port sends requests from random routed SPIDs to the DSP,
    all checked by the scoreboard against the model of that round's configuration, and the counters
    against the sum of the models at the end."""

    check_coverage = False
    rounds = 8
    per_decoder = 4

    def scenario(self):
        self.models: list[SwitchModel] = []
        return random_pbr_config(n_ports(), self.ndec, nrt(), 0, self.rng), {}

    def model_counters(self) -> dict[str, int]:
        tot = self.model.counters.as_dict()
        for m in self.models:
            for k, v in m.counters.as_dict().items():
                tot[k] += v
        return tot

    async def sweep_field(self, addr: int, legal: int, ignored: int, readback, fixed: int = 0) -> None:
        """r, ~r, r on one field (legal: mask of the swept bits, ignored: bits written at random
        and not stored, fixed: bits written in every write); readback(w) = what the register reads
        after writing w."""
        dut, rng = cocotb.top, self.rng
        _, old = await cfg_access(dut, addr, write=False)
        r = rng.getrandbits(32) & legal
        for v in (r, ~r & legal, r):
            w = v | (rng.getrandbits(32) & ignored) | fixed
            resp, prev = await cfg_access(dut, addr, w)
            assert resp == RESP_OK, f"write {w:#x} to {addr:#x}: response {resp}"
            assert prev == old, f"write to {addr:#x}: previous value {prev:#x}, expected {old:#x}"
            old = readback(w)
        _, got = await cfg_access(dut, addr, write=False)
        assert got == old, f"register {addr:#x} reads {got:#x} after writing {w:#x}, expected {old:#x}"

    async def sweep(self) -> None:
        n, pw = n_ports(), max(1, (n_ports() - 1).bit_length())
        # ports as fabric ports (PBR: no PID checks for them), random enable and PID
        for p in range(n):
            await self.sweep_field(A_PORT + p, 0x0FFF_0001, 0x0000_FFF8, lambda w: w & 0x0FFF_0007,
                                   fixed=ROLE_CODE[FAB] << 1)
        for d in range(self.ndec):
            a = A_DEC + 0x20 * d
            await self.sweep_field(a, 0xFF_FFFF, 0, lambda w: w)
            await self.sweep_field(a + 1, 0xFF_FFFF, 0, lambda w: w)
            await self.sweep_field(a + 2, 0x7F, 0xFFFF_FF80, lambda w: w & 0x7F)
            for t in range(16):
                await self.sweep_field(a + 0x10 + t, 0xFFF, 0, lambda w: w)
        # routes written invalid (no checks), random egress and DPID; the register keeps the low
        # PW bits of the egress field
        for e in range(nrt()):
            await self.sweep_field(A_ROUTE + e, 0x0FFF_0F00, 0x0000_F0FE,
                                   lambda w: w & (0x0FFF_0000 | ((1 << pw) - 1) << 8))

    async def reprogram(self, cfg: SwitchConfig) -> None:
        dut = cocotb.top
        await self.env.drain(2000)
        neutral = [ctrl(True)] + [route(e, 0, 0, valid=False) for e in range(nrt())] + \
                  [decoder(d, 0, 0, 0, 0, (), commit=False)[-1] for d in range(self.ndec)] + \
                  [port(p, FAB) for p in range(n_ports())]
        writes = config_writes(cfg, self.ndec)
        await program(dut, neutral + writes)
        await cfg_agent(dut).check_reads(readback(writes))   # every register programmed, decoders included
        self.models.append(self.model)
        self.model = SwitchModel(n_ports(), cfg)
        self.env.sb.predict = self.model.ingress

    def round_traffic(self, cfg: SwitchConfig, k: int) -> dict[int, list[CxlMessage]]:
        rng, n = self.rng, n_ports()
        live = [d for d in cfg.decoders if d.size]
        host: list[CxlMessage] = []
        tag = 0
        for dec in live:
            ways = [rng.randrange(dec.ways) for _ in range(self.per_decoder)]
            host += host_requests(0, ways, dec, rng, tag_base=tag)
            tag += len(ways)
        for _ in range(2):   # HPAs no decoder holds: answered by the switch
            while True:
                hpa = rng.getrandbits(52) & ~63
                if not any(d.contains(hpa) for d in live):
                    break
            host.append(M2SReq(memop=int(M2SReqOp.MEMRD), tag=tag, addr=hpa >> 6))
            tag += 1
        rng.shuffle(host)
        # remote requesters (routed DPIDs as SPIDs) to the local DSP; tags apart from the host's
        dsp_pid = cfg.ports[1].pid
        remote = [M2SReq(memop=int(M2SReqOp.MEMRD), tag=0x800 + i, addr=rng.getrandbits(46), spid=s,
                         dpid=dsp_pid) for i, s in enumerate(rng.sample(sorted(cfg.routes), 2))]
        return {0: host, 2 + k % (n - 2): remote}

    async def body(self) -> None:
        await self.sweep()
        for k in range(self.rounds):
            cfg = self.cfg if k == 0 else random_pbr_config(n_ports(), self.ndec, nrt(), k % self.ndec, self.rng)
            await self.reprogram(cfg)
            await self.send_all(self.round_traffic(cfg, k))
        self.logger.info(f"config sweep: {self.rounds} configurations, {self.env.sb.matched} messages checked")
