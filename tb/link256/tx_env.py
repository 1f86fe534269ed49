"""pyuvm environment of cxl_flit256_tx (the 256B flit formatter, transmit side).

The TX is combinational: on a cycle with ``fire`` high the flit and the take outputs
(msg_take, crd_take, ack_take, flit_retryable, busy_adf) describe the flit built from that cycle's
class heads (offered only with ``msg_en``), pending credits and acks and control kind. It has no ready (the caller decides when a
flit goes out), so the stimulus has idle cycles (``fire`` low, random junk on the inputs) but no
back-pressure.

* ``req``: VRAgent (tb.common) driving ``fire`` (valid) and the inputs from a sequence.
* ``txn``: passive VRAgent on ``fire`` reading the inputs and the outputs of every fired cycle.
* ``pred`` (:class:`TxPredictor`): what the flit must carry, from the driven inputs and the
  DUT's take decisions: the taken heads (as model messages), the taken credits, the ack count or
  control command in the header, payload / NOP, Empty, retryable.
* ``dec`` (:class:`TxDecoder`): what the flit does carry, decoded by the reference model's
  stateful receiver (models.cxl.flit256.unpack_flit256: CRC, every packing rule and the cross-flit
  128B group limit); an illegal flit is reported with the model's reason.
* ``sb``: InOrderScoreboard of the two; ``takes`` (:class:`TxTakeChecker`): the take policy
  (only offered classes, i.e. available with ``msg_en`` high, one message per offered class
  unless a trailer needs the room,
  encodable credits not above the pending count, no CRD field left unused, nothing taken for a
  control flit).
* ``cov``: CoverageCollector; groups ``kinds`` (flit kinds), ``ctl`` (control flits), ``flow``
  (back-to-back / after idle), each defined only when the test enforces it.
"""
from __future__ import annotations

import random
from typing import Any

import cocotb
from pyuvm import uvm_analysis_port, uvm_component, uvm_sequence

from models.cxl import flit256 as f2
from models.cxl.messages import MESSAGES, NCLS
from tb.common.coverage import CoverageCollector
from tb.common.scoreboard import AnalysisImp, InOrderScoreboard
from tb.common.signals import SignalPool
from tb.common.vr_agent import Beat, VRAgent, VRBus, VRItem
from tb.link256.common import (DATA_CLASSES, HDR_W, LINE_W, Cfg, CtlKind, FlowCoverage, Link256Env,
                               compare_dont_care, crd_fields, field, has_trailer, line_int, mid_of,
                               rand_msg)

# payload field -> DUT port
REQ_FIELDS = {"avail": "msg_avail", "en": "msg_en", "hdr": "msg_hdr", "data": "msg_data",
              "crd_pend": "crd_pend", "ack_pend": "ack_pend", "kind": "ctl_kind", "eseq": "ctl_eseq",
              "num_retry": "ctl_num_retry", "empty": "ctl_empty"}
OUT_FIELDS = {"flit": "flit", "nocrc": "flit_nocrc", "take": "msg_take", "crd_take": "crd_take",
              "ack_take": "ack_take", "retryable": "flit_retryable", "busy_adf": "busy_adf"}
FEC_LSB = 8 * f2.CRC_HI      # bytes 250..255: FEC, zero from the formatter
# Pending-credit stimulus: zero (twice as likely), each encodable credit value and the count just
# below it, a count between the two smallest values, and counts above the largest.
CRD_PEND_CHOICES = [0, 0, 2] + sorted({x for v in f2.CRD_VALUES for x in (v - 1, v)} - {0}) + [40, 255]
KIND_BINS = ("payload", "idle", "empty", "msgs6", "hslot", "trailer")
CTL_KINDS = (CtlKind.IDLE, CtlKind.FRAME, CtlKind.REQ, CtlKind.ACK, CtlKind.INIT)


class TxFlitSeq(uvm_sequence):
    """``n`` fire requests: per class a random model message with probability ``p_avail`` (else
    junk that must not be taken), random pending credits and acks, and ``kinds`` (control kinds
    drawn at random; default: protocol flits only). ``p_avail`` / ``p_trailer`` are drawn per flit
    from the given choices. ``msg_en`` is low in about 1 request of 8 (messages held back, as the
    link does when its replay buffer is nearly full or an ack is forced out): nothing may be
    taken then."""

    def __init__(self, name: str, cfg: Cfg, rng: random.Random, n: int,
                 p_avail: tuple[float, ...] = (0.0, 0.3, 0.6, 1.0),
                 p_trailer: tuple[float, ...] = (0.0, 0.2, 0.6),
                 kinds: tuple[CtlKind, ...] = (CtlKind.NONE,)) -> None:
        super().__init__(name)
        self.cfg = cfg
        self.rng = rng
        self.n = n
        self.p_avail = p_avail
        self.p_trailer = p_trailer
        self.kinds = kinds

    def request(self) -> dict[str, int]:
        cfg, rng = self.cfg, self.rng
        kind = rng.choice(self.kinds)
        p_avail, p_trailer = rng.choice(self.p_avail), rng.choice(self.p_trailer)
        avail = hdr = data = 0
        for c in range(NCLS):
            lane = DATA_CLASSES.index(c) * LINE_W if c in DATA_CLASSES else None
            if rng.random() < p_avail:
                m = rand_msg(mid_of(cfg.role, c), cfg.flavor, rng, p_trailer=p_trailer,
                             random_trailer=False)   # the port carries no trailer value: zero
                avail |= 1 << c
                hdr |= m.to_canonical() << (c * HDR_W)
                if lane is not None:
                    data |= line_int(m) << lane
            else:
                hdr |= rng.getrandbits(HDR_W) << (c * HDR_W)   # junk that must not be taken
                if lane is not None:
                    data |= rng.getrandbits(LINE_W) << lane
        quiet = rng.random() < 0.3   # no credits to return: idle and Empty flits become possible
        crd_pend = [0 if quiet else rng.choice(CRD_PEND_CHOICES) for _ in range(NCLS)]
        return {"avail": avail, "en": int(rng.random() >= 0.125), "hdr": hdr, "data": data,
                "crd_pend": sum(v << (8 * c) for c, v in enumerate(crd_pend)),
                "ack_pend": rng.choice([0, 0, 1, 8, rng.randrange(256)]), "kind": int(kind),
                "eseq": rng.randrange(256), "num_retry": rng.randrange(32),
                "empty": rng.randrange(2)}

    async def body(self) -> None:
        for _ in range(self.n):
            item = VRItem("flit_req", self.request())
            await self.start_item(item)
            await self.finish_item(item)


def offered(p: dict[str, int]) -> int:
    """The classes a request offers: those available, none while ``msg_en`` is low."""
    return p["avail"] if p["en"] else 0


def head_message(cfg: Cfg, p: dict[str, int], c: int) -> Any:
    """The model message the request presented as head of class c (a string naming the fault if
    the class was not offered or its header is no valid message)."""
    if not offered(p) >> c & 1:
        return f"class {c} taken but not offered (available, with msg_en)"
    data = (field(p["data"], DATA_CLASSES.index(c), LINE_W).to_bytes(64, "little")
            if c in DATA_CLASSES else None)
    try:
        return MESSAGES[mid_of(cfg.role, c)].from_canonical(field(p["hdr"], c, HDR_W), data)
    except ValueError as e:
        return f"class {c}: {e}"


class TxPredictor(uvm_component):
    """Expected flit contents (Beat payload, see :class:`TxDecoder`) per fired cycle, on ``ap``."""

    def __init__(self, name: str, parent: uvm_component, cfg: Cfg) -> None:
        super().__init__(name, parent)
        self.cfg = cfg
        self.ap = uvm_analysis_port("ap", self)
        self.export = AnalysisImp("export", self, self.write)

    def write(self, beat: Beat) -> None:
        p, cfg = beat.payload, self.cfg
        kind = p["kind"]
        take = p["take"]
        crd_take = [field(p["crd_take"], c, 8) for c in range(NCLS)]
        payload = kind == CtlKind.NONE and bool(take or any(crd_take) or p["ack_pend"])
        if payload:
            rc = (f2.REPLAY_ACK, p["ack_pend"]) if p["ack_pend"] else (f2.REPLAY_NONE, 0)
        else:
            rc = {CtlKind.REQ: (f2.REPLAY_RETRY_REQ, p["eseq"]),
                  CtlKind.ACK: (f2.REPLAY_RETRY_ACK, p["eseq"])}.get(CtlKind(kind), (f2.REPLAY_NONE, 0))
        exp: dict[str, Any] = {
            "crc_ok": True, "error": None, "fec": 0, "nocrc_same": True,
            "flit_type": f2.FLIT_TYPE_PAYLOAD if payload else f2.FLIT_TYPE_NOP,
            "replay_cmd": rc[0], "field10": rc[1],
            "empty": payload and not take and not any(crd_take),
            "retryable": int(payload), "ack_take": p["ack_pend"] if payload else 0, "busy_adf": 0,
            "crd_other": (),
        }
        for c in range(NCLS):
            taken = payload and take >> c & 1
            exp[f"m{c}"] = (head_message(cfg, p, c),) if taken else ()
            exp[f"crd{c}"] = crd_take[c] if payload else 0
        self.ap.write(Beat(exp, beat.cycle, beat.time_ps, self.get_full_name()))


class TxDecoder(uvm_component):
    """Actual flit contents per fired cycle, decoded by the model's stateful receiver, on ``ap``;
    samples the ``kinds`` and ``ctl`` covergroups (when defined) from the decoded flit."""

    def __init__(self, name: str, parent: uvm_component, cfg: Cfg, cov: CoverageCollector) -> None:
        super().__init__(name, parent)
        self.cfg = cfg
        self.cov = cov
        self.state = f2.Flit256RxState()
        self.partner_mids = {mid_of(cfg.partner, c) for c in range(NCLS)}
        self.ap = uvm_analysis_port("ap", self)
        self.export = AnalysisImp("export", self, self.write)

    def write(self, beat: Beat) -> None:
        p, cfg = beat.payload, self.cfg
        flit = p["flit"]
        # flit_nocrc (what cxl_link's TX stages take) is the flit with its CRC bytes zero
        crc_mask = ((1 << (8 * (f2.CRC_HI - f2.CRC_LO))) - 1) << (8 * f2.CRC_LO)
        act: dict[str, Any] = {"fec": flit >> FEC_LSB, "retryable": p["retryable"],
                               "nocrc_same": p["nocrc"] == flit & ~crc_mask,
                               "ack_take": p["ack_take"], "busy_adf": p["busy_adf"]}
        try:
            res = f2.unpack_flit256(cfg.role, cfg.pbr, flit, self.state)
            error = None
        except f2.FlitError as e:
            res, error = None, e.reason
        hdr = res.header if res is not None and res.header is not None else \
            f2.FlitHeader256.decode(flit & 0xFFFF)
        act.update({"crc_ok": res is None or res.crc_ok, "error": error,
                    "flit_type": hdr.flit_type, "replay_cmd": hdr.replay_cmd,
                    "field10": hdr.field10, "empty": bool(res and res.empty)})
        credits = dict(res.credits) if res is not None else {}
        act["crd_other"] = tuple(sorted((k, v) for k, v in credits.items()
                                        if k not in self.partner_mids))
        for c in range(NCLS):
            act[f"m{c}"] = tuple(res.messages[c]) if res is not None else ()
            act[f"crd{c}"] = credits.get(mid_of(cfg.partner, c), 0)
        if res is not None and res.crc_ok:
            self._sample(p, res)
        self.ap.write(Beat(act, beat.cycle, beat.time_ps, self.get_full_name()))

    def _sample(self, p: dict[str, int], res: f2.Flit256Result) -> None:
        groups = self.cov.groups
        if p["kind"] != CtlKind.NONE:
            if "ctl" in groups:
                groups["ctl"].sample(kind=CtlKind(p["kind"]).name.lower())
            return
        if "kinds" not in groups:
            return
        msgs = [m for ms in res.messages for m in ms]
        assert res.header is not None
        if res.header.flit_type == f2.FLIT_TYPE_PAYLOAD:
            tags = {"payload", f"msgs{len(msgs)}"}
            if res.empty:
                tags.add("empty")
            if res.slot_formats and res.slot_formats[0] is not None:
                tags.add("hslot")
            if any(has_trailer(m) for m in msgs):
                tags.add("trailer")
        else:
            tags = {"idle"}
        groups["kinds"].sample(kind=frozenset(tags))


class TxTakeChecker(uvm_component):
    """The formatter's take policy on every fired cycle (errors fail check_phase)."""

    def __init__(self, name: str, parent: uvm_component, cfg: Cfg) -> None:
        super().__init__(name, parent)
        self.cfg = cfg
        self.fields = crd_fields(cfg.partner)
        self.errors: list[str] = []
        self.export = AnalysisImp("export", self, self.write)

    def write(self, beat: Beat) -> None:
        p = beat.payload
        take, avail = p["take"], offered(p)
        crd_take = [field(p["crd_take"], c, 8) for c in range(NCLS)]
        crd_pend = [field(p["crd_pend"], c, 8) for c in range(NCLS)]
        errs = []
        if take & ~avail:
            errs.append(f"took a class that was not offered: take={take:06b} avail={p['avail']:06b} "
                        f"msg_en={p['en']}")
        if p["kind"] != CtlKind.NONE:
            if take or any(crd_take):
                errs.append(f"control flit (kind {p['kind']}) took messages {take:06b} or "
                            f"credits {crd_take}")
        else:
            heads = [head_message(self.cfg, p, c) for c in range(NCLS) if avail >> c & 1]
            trailers = any(not isinstance(m, str) and has_trailer(m) for m in heads)
            if not trailers and take != avail:
                errs.append(f"line rate: one message per offered class: take={take:06b} "
                            f"offered={avail:06b}")
            for c in range(NCLS):
                if crd_take[c] > crd_pend[c] or crd_take[c] not in (0, *f2.CRD_VALUES):
                    errs.append(f"class {c}: credits taken {crd_take[c]} (pending {crd_pend[c]})")
            for f, classes in self.fields.items():
                if any(crd_pend[c] for c in classes) and not any(crd_take[c] for c in classes):
                    errs.append(f"CRD field {f} left unused with credits pending for {classes}")
        for e in errs:
            msg = f"{self.get_full_name()} cycle {beat.cycle}: {e}"
            self.logger.error(msg)
            self.errors.append(msg)

    def check_phase(self) -> None:
        assert not self.errors, "\n".join(self.errors[:20])


class TxEnv(Link256Env):
    """Agents, predictor, model decoder, scoreboard, take checker and coverage of the TX."""

    def build_phase(self) -> None:
        dut = cocotb.top
        self.pool = SignalPool()
        self.req = VRAgent("req", self, bus=VRBus.lane(self.pool, dut, "fire", None, REQ_FIELDS),
                           idle=self.idle, idle_junk=True)
        self.txn = VRAgent("txn", self, active=False,
                           bus=VRBus.lane(self.pool, dut, "fire", None, {**REQ_FIELDS, **OUT_FIELDS}))
        self.cov = CoverageCollector("cov", self)
        self.pred = TxPredictor("pred", self, self.cfg)
        self.dec = TxDecoder("dec", self, self.cfg, self.cov)
        self.takes = TxTakeChecker("takes", self, self.cfg)
        self.sb = InOrderScoreboard("sb", self, compare=compare_dont_care, timeout_cycles=20)
        self.flow = FlowCoverage("flow", self, self.cov)
        self._coverage_model()

    def _coverage_model(self) -> None:
        if "kinds" in self.groups:
            self.cov.group("kinds").coverpoint(
                "kind", {k: (lambda v, k=k: k in v) for k in KIND_BINS})
        if "ctl" in self.groups:
            self.cov.group("ctl").coverpoint("kind", [k.name.lower() for k in CTL_KINDS])
        if "flow" in self.groups:
            self.cov.group("flow").coverpoint("gap", ["back_to_back", "after_idle"])

    def connect_phase(self) -> None:
        for sub in (self.pred.export, self.dec.export, self.takes.export):
            self.txn.ap.connect(sub)
        self.req.ap.connect(self.flow.export)
        self.pred.ap.connect(self.sb.exp_export)
        self.dec.ap.connect(self.sb.act_export)
