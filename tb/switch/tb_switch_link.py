"""pyuvm tests of the switch through its link layers (cxl_switch_link_tb: cxl_switch + a partner
cxl_link per port, flits on the wire; cxl_switch_cascade_tb: two switches joined by a 256B PBR
fabric link). Same environment and golden model as tb_switch; the partners' message lanes are the
observed ports, so link-layer latency is included in every figure."""
from __future__ import annotations

import cocotb
import pyuvm
from cocotb.triggers import FallingEdge, ReadOnly

from models.cxl.messages import M2SReq, M2SReqOp, M2SRwD, M2SRwDOp, S2MDRS, S2MDRSOp
from models.switch import HdmDecoder, PortConfig, PortRole, SwitchConfig, SwitchFabric, SwitchModel
from models.switch.hdm import HDM_UNIT
from tb.switch.base import SOAK, SwitchTestBase
from tb.switch.env import EnvCfg, SwitchEnv, program, read_counters
from tb.switch.regs import config_writes
from tb.switch.tb_switch import InterleaveBase, RandomBase
from tb.switch.traffic import BASE, dest_ways, host_requests, hpa_for_way

USP, DSP, FAB = PortRole.USP, PortRole.DSP, PortRole.FABRIC


async def wait_links(dut, max_cycles: int = 5000) -> int:
    want_l = (1 << len(dut.link_up)) - 1
    want_p = (1 << len(dut.partner_up)) - 1
    for cyc in range(max_cycles):
        await FallingEdge(dut.clk)
        await ReadOnly()
        if int(dut.link_up.value) == want_l and int(dut.partner_up.value) == want_p:
            return cyc
    raise AssertionError("links did not come up")


class LinkMixin:
    async def pre_configure(self) -> None:
        cyc = await wait_links(cocotb.top)
        self.logger.info(f"all links up after {cyc} cycles")


@pyuvm.test(timeout_time=3000, timeout_unit="us")
class LinkInterleaveHBR(LinkMixin, InterleaveBase):
    """Directed routing through the link layers for the interleave settings the 4-port link bench
    can hold (hosts on ports 0-1, devices on 2-3: 1 and 2 ways x 7 granularities; every setting is
    covered at core level)."""

    mode = "hbr"
    n_hosts = 2


@pyuvm.test(timeout_time=3000, timeout_unit="us")
class LinkRandomUniform(LinkMixin, RandomBase):
    """Uniform random reads/writes with idles and back-pressure through the links."""

    pattern = "uniform"
    count = 80


@pyuvm.test(timeout_time=3000, timeout_unit="us")
class LinkErrors(LinkMixin, SwitchTestBase):
    """Decode misses through the links: MemData-NXM and NDR answers reach the host partner."""

    check_coverage = False

    def scenario(self):
        cfg = SwitchConfig("hbr", [PortConfig.usp(), PortConfig.usp(), PortConfig.dsp(), PortConfig.dsp()],
                           [HdmDecoder.make(BASE, 2 * HDM_UNIT * 2, 2, 512, (2, 3))])
        miss = BASE + 8 * HDM_UNIT
        h = [M2SReq(memop=int(M2SReqOp.MEMRD), tag=1, addr=miss >> 6),
             M2SRwD(memop=int(M2SRwDOp.MEMWR), tag=2, addr=miss >> 6, data=bytes(range(64))),
             M2SRwD(memop=int(M2SRwDOp.MEMWR), tag=3, addr=BASE >> 6, poison=1, data=bytes(64))]
        d = [S2MDRS(memop=int(S2MDRSOp.MEMDATA), tag=0x55, data=bytes(64))]  # nobody asked
        return cfg, {1: h, 3: d}


@pyuvm.test(timeout_time=500, timeout_unit="us")
class LinkLatency(LinkMixin, SwitchTestBase):
    """Zero-load latency through partner link -> switch -> partner link (message valid at the
    sending partner to message valid at the receiving partner); logged for the report."""

    check_coverage = False

    def scenario(self):
        cfg = SwitchConfig("hbr", [PortConfig.usp(), PortConfig.usp(), PortConfig.dsp(), PortConfig.dsp()],
                           [HdmDecoder.make(BASE, 2 * HDM_UNIT, 1, 256, (2,))])
        return cfg, {}

    async def body(self) -> None:
        dut = cocotb.top
        lat = []
        for k in range(4):
            await self.env.drain(500)
            m = M2SReq(memop=int(M2SReqOp.MEMRD), tag=k, addr=(BASE + 64 * k) >> 6)
            await FallingEdge(dut.clk)
            self.env.bus.push(0, m)
            t_in = None
            for _ in range(200):
                await ReadOnly()
                if t_in is None and int(dut.in_valid.value):
                    t_in = self.env.bus.cycle
                if t_in is not None and int(dut.out_valid.value):
                    lat.append(self.env.bus.cycle - t_in)
                    break
                await FallingEdge(dut.clk)
        self.logger.info(f"link-level zero-load latency (cycles, partner to partner): {lat}")
        assert lat and min(lat) < 100


# ------------------------------------------------------------------------------ cascade
def cascade_configs(n: int, bidir: bool = False) -> tuple[SwitchConfig, SwitchConfig, HdmDecoder]:
    """A: hosts on its first ports (PIDs 0x10+p; one host when n == 3, else two), devices on the
    rest (0x10+p), fabric port n-1. B: devices on 0..n-2 (0x20+p), fabric n-1. A's decoder
    interleaves over A's and B's devices (3 ways when n == 3: exercises the mod-3 decode).
    bidir: one host and n-2 devices on each switch, both decoders interleave over all devices,
    so requests and responses cross the fabric link both ways."""
    if bidir:
        a_ports = [PortConfig.usp(0x10)] + [PortConfig.dsp(0x10 + p) for p in range(1, n - 1)] + [PortConfig.fabric()]
        b_ports = [PortConfig.usp(0x20)] + [PortConfig.dsp(0x20 + p) for p in range(1, n - 1)] + [PortConfig.fabric()]
        targets = tuple([0x10 + p for p in range(1, n - 1)] + [0x20 + p for p in range(1, n - 1)])
        ways = len(targets)
        dec = HdmDecoder.make(BASE, 3 * HDM_UNIT * ways if ways % 3 == 0 else 2 * HDM_UNIT * ways, ways, 512,
                              targets)
        a = SwitchConfig("pbr", a_ports, [dec], routes={0x20 + p: n - 1 for p in range(n - 1)})
        b = SwitchConfig("pbr", b_ports, [dec], routes={0x10 + p: n - 1 for p in range(n - 1)})
        return a, b, dec
    n_host = 1 if n == 3 else 2
    a_ports = [PortConfig.usp(0x10 + p) for p in range(n_host)]
    a_ports += [PortConfig.dsp(0x10 + p) for p in range(n_host, n - 1)] + [PortConfig.fabric()]
    b_ports = [PortConfig.dsp(0x20 + p) for p in range(n - 1)] + [PortConfig.fabric()]
    remote = [0x20 + p for p in range(n - 1)]
    targets = tuple([0x10 + p for p in range(n_host, n - 1)] + remote)
    ways = len(targets)
    dec = HdmDecoder.make(BASE, 3 * HDM_UNIT * ways if ways % 3 == 0 else 2 * HDM_UNIT * ways, ways, 1024,
                          targets)
    a = SwitchConfig("pbr", a_ports, [dec], routes={d: n - 1 for d in remote})
    b = SwitchConfig("pbr", b_ports, [], routes={0x10 + p: n - 1 for p in range(n_host)})
    return a, b, dec


class CascadeBase(SwitchTestBase):
    """Two switches in PBR joined by a fabric link; the golden model is SwitchFabric of two
    SwitchModels; external ports are numbered A 0..n-2 then B 0..n-2."""

    pattern = "uniform"
    count = 60
    idle_p = 0.8
    ready_p = 0.8
    bidir = False

    def sw_ports(self) -> int:
        return int(cocotb.top.N.value)

    def ext(self, s: int, p: int) -> int:
        return p if s == 0 else p + self.sw_ports() - 1

    def build_phase(self) -> None:
        from tb.common.seeds import component_rng
        self.rng = component_rng(self)
        n = self.sw_ports()
        self.cfg_a, self.cfg_b, self.dec = cascade_configs(n, self.bidir)
        self.models = [SwitchModel(n, self.cfg_a), SwitchModel(n, self.cfg_b)]
        self.fabric = SwitchFabric(self.models, [((0, n - 1), (1, n - 1))])
        m = 2 * n - 2
        to_sw = {self.ext(s, p): (s, p) for s in (0, 1) for p in range(n - 1)}

        def predict(e: int, msg):
            s, p = to_sw[e]
            return [(self.ext(s2, p2), m2) for s2, p2, m2 in self.fabric.ingress(s, p, msg)]
        roles = {self.ext(s, p): c.ports[p].role for s, c in ((0, self.cfg_a), (1, self.cfg_b)) for p in range(n - 1)}
        hosts = [e for e in range(m) if roles[e] == USP]
        devs = [e for e in range(m) if roles[e] == DSP]

        def legal(k: str, src: int, dst: int) -> bool:
            if k in ("req", "rwd"):
                return src in hosts and dst in devs
            return src in devs and dst in hosts
        self.env = SwitchEnv("env", self, EnvCfg(n_ports=m, predict=predict, hosts=hosts, devices=devs,
                                                 mode="pbr", idle_p=self.idle_p, ready_p=self.ready_p,
                                                 cov_legal=legal if self.check_coverage else None))
        count = self.count * (8 if SOAK else 1)
        self.traffic = {}
        for i, h in enumerate(hosts):
            ways = dest_ways(self.pattern, i, len(hosts), self.dec.ways, count, self.rng)
            self.traffic[h] = host_requests(i, ways, self.dec, self.rng)

    async def pre_configure(self) -> None:
        if int(cocotb.top.LINKS.value):  # the 256B-link cascade; the core cascade has no links
            cyc = await wait_links(cocotb.top)
            self.logger.info(f"all links up after {cyc} cycles")

    async def configure(self) -> None:
        dut = cocotb.top
        for sel, cfg in ((0, self.cfg_a), (1, self.cfg_b)):
            await FallingEdge(dut.clk)  # the previous step may end in ReadOnly
            dut.cfg_sel.value = sel
            await program(dut, config_writes(cfg, self.ndec))

    async def compare_counters(self) -> None:
        dut = cocotb.top
        for sel, model in enumerate(self.models):
            await FallingEdge(dut.clk)
            dut.cfg_sel.value = sel
            got = await read_counters(dut)
            want = model.counters.as_dict()
            diffs = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
            self.logger.info(f"switch {'AB'[sel]} counters: { {k: v for k, v in got.items() if v} }")
            assert not diffs, f"switch {'AB'[sel]}: RTL counters differ from the model: {diffs}"


@pyuvm.test(timeout_time=5000, timeout_unit="us")
class CascadeUniform(CascadeBase):
    """Hosts on switch A read/write devices on A and (over the fabric link) on B."""


@pyuvm.test(timeout_time=5000, timeout_unit="us")
class CascadeBidir(CascadeBase):
    """A host on each switch; both read/write devices on both switches, so PBR requests and
    responses cross the fabric connection in both directions; saturating, with back-pressure."""

    bidir = True
    count = 100
    idle_p = 1.0
    ready_p = 0.7


@pyuvm.test(timeout_time=5000, timeout_unit="us")
class CascadeIncastMiss(CascadeBase):
    """Incast to one remote device plus decode misses answered by A to the requester PID."""

    pattern = "incast"
    count = 40
    check_coverage = False  # one destination by construction

    def build_phase(self) -> None:
        super().build_phase()
        miss = BASE + self.dec.size + 0x10000
        self.traffic[0] = self.traffic[0] + [M2SReq(memop=int(M2SReqOp.MEMRD), tag=0xF00, addr=miss >> 6)]
