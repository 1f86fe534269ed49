"""pyuvm environment for the CXL link layer loopback (tb/link/hdl/cxl_link_loopback.v).

Two endpoints, A = ROLE_DOWN and B = ROLE_UP, joined by a wire with stalls and bit flips:
  * per endpoint and supported class: a TX agent (tb.common VRAgent, drives tx_valid/hdr/data) and
    an RX agent (monitor + ready sink on rx_ready);
  * per direction and class an in-order scoreboard: what the sender accepted (tx monitor) against
    what the partner delivered (rx monitor);
  * per direction a flit monitor: every flit the receiver commits is decoded by the reference
    unpacker (models.cxl.flit68); an illegal flit fails the test, the decoded messages feed a
    second in-order scoreboard per class (model view of the wire vs what was sent), slot formats,
    control flits, CRC errors and replays are sampled into coverage;
  * per direction a fault injector (seeded bit flips, wire stalls).
Configuration: a LinkCfg in ConfigDB under "link_cfg" (set by the test before the env builds).
"""
from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge
from pyuvm import ConfigDB, uvm_component, uvm_env

from models.cxl import flit68 as f68
from models.cxl.crc import flit68_crc_ok
from models.cxl.messages import CLASS_OF, CLASS_NAMES, MESSAGES, NCLS, ROLE_DOWN, ROLE_UP, RSVD, SPECS
from tb.common.clock import cycle_at
from tb.common.coverage import CoverageCollector
from tb.common.patterns import Pattern
from tb.common.scoreboard import InOrderScoreboard
from tb.common.seeds import named_rng
from tb.common.vr_agent import Beat
from tb.link.link_agents import EndpointAgent

FLIT68_W = 528
DATA_CLASSES = (2, 5)
EP_ROLE = {"a": ROLE_DOWN, "b": ROLE_UP}
PARTNER = {"a": "b", "b": "a"}


def supported_68b(role: int) -> list[int]:
    """Classes a role transmits in 68B mode (BISnp / BIRsp are 256B only)."""
    return [c for c in range(NCLS) if SPECS[CLASS_OF[(role, c)]].width("68B")]


def rand_msg(role: int, cls: int, rng: random.Random, flavor: str = "68B") -> Any:
    """A random message of class ``cls`` sent by ``role``: every field of ``flavor`` random,
    the other canonical fields 0."""
    mid = CLASS_OF[(role, cls)]
    spec = SPECS[mid]
    vals = {name: 0 for name, _ in spec.canonical}
    for name, w in spec.wire[flavor].fields:
        if name != RSVD:
            vals[name] = rng.getrandbits(w)
    data = bytes(rng.getrandbits(8) for _ in range(64)) if spec.has_data else None
    return MESSAGES[mid]._build(vals, data)


def msg_payload(msg: Any) -> dict[str, int]:
    """Bus payload of a message: canonical header (+ the 64 B line for data messages)."""
    p = {"hdr": msg.to_canonical()}
    if SPECS[msg.MID].has_data:
        p["data"] = int.from_bytes(msg.data, "little")
    return p


def dut_flit_mode() -> int:
    """The DUT's FLIT_MODE parameter (0 = 68B, 1 = 256B); 0 outside a simulation."""
    top = cocotb.top
    return int(top.FLIT_MODE.value) if top is not None else 0


@dataclass
class LinkCfg:
    """Knobs of one loopback test."""

    n_msgs: int = 40                    # messages per class per endpoint
    tx_idle_p: float = 0.7              # probability a driver presents its next message in a cycle
    tx_idle_by: dict[str, float] = field(default_factory=dict)  # per "<ep><class>" override
    rx_ready_p: float = 1.0             # consumer speed (rx_ready probability)
    wire_ready_p: float = 1.0           # wire stalls (tx_flit_ready probability)
    flip_p: float = 0.0                 # per-flit probability of a bit-flip burst
    flip_start: int = 0                 # cycles after link up before flips start
    flip_all_after: int | None = None   # corrupt every A->B flit from this cycle (negative test)
    drain_cycles: int = 6000
    expect_fatal: bool = False          # negative test: B must reach link_fatal
    cover_formats: bool = True          # enforce the class x slot-format bins
    cover_retry: bool = False           # enforce the retry-event bins
    flit_mode: int = field(default_factory=lambda: dut_flit_mode())
    classes: dict[str, list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.classes:
            if self.flit_mode:
                self.classes = {"a": list(range(NCLS)), "b": list(range(NCLS))}
            else:
                self.classes = {"a": supported_68b(ROLE_DOWN), "b": supported_68b(ROLE_UP)}
        if self.flit_mode:
            self.cover_formats = False   # the class x slot-format bins are 68B formats


# (sender role, class) -> slot formats our TX packing policy uses for it (bins that must be hit)
TX_FORMATS: dict[tuple[int, int], list[str]] = {
    (ROLE_DOWN, 0): ["H0"], (ROLE_DOWN, 1): ["H0"], (ROLE_DOWN, 2): ["H1", "G4"],
    (ROLE_DOWN, 3): ["H5", "G4"], (ROLE_DOWN, 5): ["H4", "G5"],
    (ROLE_UP, 0): ["H1", "G1", "G2"], (ROLE_UP, 1): ["H0"], (ROLE_UP, 2): ["H0", "H1", "G2"],
    (ROLE_UP, 4): ["H0"], (ROLE_UP, 5): ["H3", "G4"],
}


class FlitMonitor(uvm_component):
    """Watches one wire direction; decodes committed flits with the reference unpacker."""

    def __init__(self, name: str, parent: uvm_component | None, dut: Any = None, src: str = "a",
                 cov: CoverageCollector | None = None, flit_mode: int = 0) -> None:
        super().__init__(name, parent)
        self.dut = dut
        self.flit_mode = flit_mode
        self.src = src
        self.dst = PARTNER[src]
        self.role = EP_ROLE[src]
        self.cov = cov
        self.unpacker = f68.Flit68Unpacker(self.role)
        self.errors: list[str] = []
        self.scoreboards: dict[int, InOrderScoreboard] = {}
        self.n_flits = 0
        self.n_commit = 0
        self.n_crc = 0
        self.kinds: dict[str, int] = {}

    def _sample(self, **kw: Any) -> None:
        if self.cov is not None:
            self.cov.group(f"{self.src}2{self.dst}").sample(**kw)

    def _formats(self, flit: int) -> None:
        bits = flit & ((1 << 512) - 1)
        if bits & 1:
            return
        hdr = f68.FlitHeader.decode(bits)
        for slot in range(4):
            fmt = hdr.slot_fmt[slot]
            if slot > 0 and fmt == 0:
                continue
            sf = f68.slot_format(self.role, slot, fmt)
            lsb = 32 if slot == 0 else 128 * slot
            for mid, pieces in sf.entries:
                vpos = [sl for ml, _, sl in pieces if ml == 0][0]
                if (bits >> (lsb + vpos)) & 1:
                    cls = [c for c in range(NCLS) if CLASS_OF[(self.role, c)] == mid][0]
                    self._sample(cls_fmt=(cls, ("H" if slot == 0 else "G") + str(fmt)))

    async def run_phase(self) -> None:
        d, s, t = self.dut, self.src, self.dst
        valid, wire = getattr(d, f"{s}{t}_valid"), getattr(d, f"{s}{t}_flit")
        commit, replay = getattr(d, f"{t}_rx_commit"), getattr(d, f"{s}_tx_replay")
        crc_cnt = getattr(d, f"{t}_crc_err")
        last_crc = 0
        # The receiver judges a flit (dbg_rx_commit) in the cycle it arrives (256B) or one cycle
        # later (68B: cxl_flit68_rx registers it first), so the monitor pairs the commit flag with
        # the wire flit of that many cycles before.
        judged: deque[tuple[int, int]] = deque(maxlen=1 if self.flit_mode else 2)
        while True:
            await FallingEdge(d.clk)
            await ReadOnly()
            if int(d.rst.value):
                judged.clear()
                continue
            if int(replay.value):
                self._sample(event="replay")
            n_crc = int(crc_cnt.value)
            if n_crc != last_crc:
                self.n_crc += n_crc - last_crc
                last_crc = n_crc
                self._sample(event="crc_error")
            v_now = int(valid.value)
            judged.append((v_now, int(wire.value) if v_now and not self.flit_mode else 0))
            if v_now:
                self.n_flits += 1
            if len(judged) < judged.maxlen:
                continue
            v_judged, flit = judged[0]
            if not v_judged:
                continue
            if self.flit_mode:
                # 256B: no reference decoder wired in here; the message scoreboards check content.
                if int(commit.value):
                    self.n_commit += 1
                    self._sample(event="commit")
                continue
            if not int(commit.value):
                # RETRY.Frame/Req/Ack (not Idle) for coverage; CRC checked by the model here.
                if flit & 1 and (flit >> 32) & 0xF == 1 and (flit >> 36) & 0xF and flit68_crc_ok(flit):
                    ctl = f68.parse_control(flit, strict=False)
                    if ctl is not None and ctl.is_retry:
                        self._sample(event=ctl.name)
                continue
            if not flit68_crc_ok(flit):
                self.errors.append(f"cycle {cycle_at()}: {t} committed a CRC-bad flit")
                continue
            self.n_commit += 1
            try:
                rx = self.unpacker.unpack(flit)
            except f68.FlitError as exc:
                self.errors.append(f"cycle {cycle_at()}: {s}->{t} committed flit is illegal: "
                                   f"{exc.reason} ({flit:#x})")
                self.logger.error(self.errors[-1])
                continue
            kind = rx.kind if rx.control is None else rx.control.name
            self.kinds[kind] = self.kinds.get(kind, 0) + 1
            self._sample(event=kind)
            if rx.kind == "protocol":
                self._formats(flit)
            for cls, item in rx.messages:
                self._sample(cls_fmt=(cls, "data_done"))
                sb = self.scoreboards.get(cls)
                if sb is None:
                    self.errors.append(f"{s}->{t}: message of unexpected class {cls}")
                    continue
                sb.write_actual(Beat(payload=msg_payload(item.msg), cycle=cycle_at()))

    def check_phase(self) -> None:
        self.logger.info(f"{self.src}->{self.dst}: {self.n_flits} flits, {self.n_commit} committed, "
                         f"{self.n_crc} CRC errors, kinds {self.kinds}")
        assert not self.errors, "\n".join(self.errors[:10])


class FaultInjector(uvm_component):
    """Drives <src><dst>_ready (stalls) and <src><dst>_flip (bit flips) each falling edge."""

    def __init__(self, name: str, parent: uvm_component | None, dut: Any = None, src: str = "a",
                 cfg: LinkCfg | None = None) -> None:
        super().__init__(name, parent)
        self.dut = dut
        self.src = src
        self.cfg = cfg or LinkCfg()
        self.flips = 0
        self.first_flip_cycle: int | None = None
        self.flip_cycles: list[int] = []

    async def run_phase(self) -> None:
        d, cfg = self.dut, self.cfg
        name = f"{self.src}{PARTNER[self.src]}"
        rdy, flip = getattr(d, f"{name}_ready"), getattr(d, f"{name}_flip")
        rng = named_rng(f"fault/{name}")
        width = len(flip)
        rdy.value = 1
        flip.value = 0
        last_rdy, last_mask = 1, 0
        up_at: int | None = None
        while True:
            await FallingEdge(d.clk)
            now = cycle_at()
            if up_at is None and int(d.a_link_up.value) and int(d.b_link_up.value):
                up_at = now
            r = int(rng.random() < cfg.wire_ready_p) if cfg.wire_ready_p < 1.0 else 1
            if r != last_rdy:
                rdy.value = last_rdy = r
            mask = 0
            if up_at is not None and now - up_at >= cfg.flip_start:
                if cfg.flip_all_after is not None and self.src == "a" and now - up_at >= cfg.flip_all_after:
                    mask = 1 << rng.randrange(width)
                elif cfg.flip_p and rng.random() < cfg.flip_p:
                    for _ in range(rng.choice((1, 1, 2, 3, 8))):
                        mask ^= 1 << rng.randrange(width)
            if mask:
                self.flips += 1
                self.flip_cycles.append(now)
                if self.first_flip_cycle is None:
                    self.first_flip_cycle = now
            if mask != last_mask:
                flip.value = last_mask = mask


class LinkEnv(uvm_env):
    """Agents, scoreboards, flit monitors, fault injectors and coverage for the loopback."""

    def build_phase(self) -> None:
        self.dut = cocotb.top
        self.cfg: LinkCfg = ConfigDB().get(None, "", "link_cfg")
        cfg, d = self.cfg, self.dut
        self.cov = CoverageCollector("cov", self)
        self.agent: dict[str, EndpointAgent] = {}
        self.sb: dict[tuple[str, int], InOrderScoreboard] = {}
        self.sb_model: dict[tuple[str, int], InOrderScoreboard] = {}
        for ep in ("a", "b"):
            idle = {c: Pattern.random(cfg.tx_idle_by.get(f"{ep}{c}", cfg.tx_idle_p), named_rng(f"idle/{ep}{c}"))
                    for c in cfg.classes[ep]}
            ready = {c: Pattern.random(cfg.rx_ready_p, named_rng(f"rdy/{ep}{c}")) for c in range(NCLS)}
            self.agent[ep] = EndpointAgent(f"ep_{ep}", self, dut=d, ep=ep, classes=cfg.classes[ep],
                                           idle=idle, ready=ready)
            for c in cfg.classes[ep]:
                self.sb[(ep, c)] = InOrderScoreboard(f"sb_{ep}{c}", self, enforce=not cfg.expect_fatal)
                self.sb_model[(ep, c)] = InOrderScoreboard(f"sbm_{ep}{c}", self,
                                                           enforce=not cfg.expect_fatal)
        self.fmon = {ep: FlitMonitor(f"fmon_{ep}", self, dut=d, src=ep, cov=self.cov, flit_mode=cfg.flit_mode)
                     for ep in ("a", "b")}
        self.fault = {ep: FaultInjector(f"fault_{ep}", self, dut=d, src=ep, cfg=cfg) for ep in ("a", "b")}
        self._coverage_model()

    def _coverage_model(self) -> None:
        cfg = self.cfg
        for ep in ("a", "b"):
            g = self.cov.group(f"{ep}2{PARTNER[ep]}")
            role = EP_ROLE[ep]
            bins: dict[str, Any] = {}
            if cfg.cover_formats:
                for c in cfg.classes[ep]:
                    for f in TX_FORMATS[(role, c)] + (["data_done"] if c in DATA_CLASSES else []):
                        bins[f"{CLASS_NAMES[c]}@{f}"] = (lambda v, k=(c, f): v == k)
            if not cfg.flit_mode:
                g.coverpoint("cls_fmt", bins=bins if bins else {"any": lambda v: True})
            ev = ["protocol", "LLCRD.Acknowledge", "INIT.Param"] if not cfg.flit_mode else ["commit"]
            if cfg.cover_formats:
                ev.append("adf")
            if cfg.cover_retry:
                ev += ["crc_error", "replay"]
                if not cfg.flit_mode:
                    ev += ["RETRY.Frame", "RETRY.Req", "RETRY.Ack"]
            g.coverpoint("event", bins=ev)

    def connect_phase(self) -> None:
        for (ep, c), sb in self.sb.items():
            self.agent[ep].ap_tx[c].connect(sb.exp_export)
            self.agent[PARTNER[ep]].ap_rx[c].connect(sb.act_export)
            if not self.cfg.flit_mode:
                self.agent[ep].ap_tx[c].connect(self.sb_model[(ep, c)].exp_export)
                self.fmon[ep].scoreboards[c] = self.sb_model[(ep, c)]
        if self.cfg.expect_fatal:
            self.cov.enforce = False

    def all_scoreboards(self) -> list[InOrderScoreboard]:
        return list(self.sb.values()) + (list(self.sb_model.values()) if not self.cfg.flit_mode else [])

    async def wait_link_up(self, max_cycles: int = 2000) -> int:
        d = self.dut
        for i in range(max_cycles):
            await RisingEdge(d.clk)
            if int(d.a_link_up.value) and int(d.b_link_up.value):
                return i
        raise AssertionError(f"link not up after {max_cycles} cycles")

    async def drain(self, max_cycles: int) -> bool:
        d = self.dut
        for _ in range(max_cycles):
            if not any(a.pending() for a in self.agent.values()) and \
                    not any(sb.pending_items() for sb in self.all_scoreboards()):
                return True
            await RisingEdge(d.clk)
        return False

    def status(self) -> dict[str, int]:
        d = self.dut
        names = ["link_up", "fatal", "crc_err", "retry", "proto_err", "rx_overflow", "credit_err"]
        return {f"{ep}_{n}": int(getattr(d, f"{ep}_{n}").value) for ep in ("a", "b") for n in names}
