"""pyuvm environment of cxl_flit256_rx (the 256B flit formatter, receive side).

The RX takes one flit per cycle while ``flit_valid`` is high (no ready: it never back-pressures)
and is a pipeline: its outputs describe the flit given LAT cycles earlier (``out_valid``). The
bench runs it in tb/link256/hdl/cxl_flit256_rx_tb.v, which takes ``commit`` with the flit and
hands it to the RX when the RX presents that flit: committed, the flit's 128B group D count
counts toward the next flit's cross-flit DA group limit (the link commits only in-sequence
flits). The stimulus has idle cycles (``flit_valid`` low, random junk on ``flit`` and
``commit``) and flits presented without commit (a link discarding a flit, which is then replayed).

* ``src``: FlitAgent (tb.common) driving ``flit_valid`` / ``flit`` and ``commit`` from a sequence.
* ``txn``: passive VRAgent on ``out_valid`` reading every output of a valid cycle.
* ``pred`` (:class:`RxPredictor`): the outputs the reference model gives for each driven flit
  (models.cxl.flit256.unpack_flit256 with the partner's role; its receiver state advances only on
  a committed legal flit, as the RTL's): CRC verdict; for a CRC-clean flit the model rejects, or
  one the RTL documents as unsupported (data rolling over into the next flit, LLCTRL, an ACK count
  above 255, more than MAXM messages of a class), proto_err and nothing else (``retryable`` left
  open); otherwise the
  messages per class (wire bits and data line), the credits for our classes, the ack count and the
  control kind.
* ``outs`` (:class:`RxOutputs`): the same view of the DUT outputs (runs expanded into messages,
  with the run packing rules checked).
* ``sb``: InOrderScoreboard of the two; ``quiet``: CycleChecker that nothing is reported on a
  cycle without ``out_valid``.
* ``cov``: CoverageCollector; groups ``kinds`` (flit kinds and the most messages of a class in a
  flit), ``verdict`` (legal / illegal / ...), ``flow`` (back-to-back / after idle, commit / held),
  each defined only when the test enforces it.
"""
from __future__ import annotations

import copy
import random
from collections import Counter, deque
from collections.abc import Iterator
from typing import Any

import cocotb
from pyuvm import uvm_analysis_port, uvm_component, uvm_sequence

from models.cxl import flit256 as f2
from models.cxl.messages import NCLS, SPECS, CxlMessage
from tb.common.checker import CycleChecker
from tb.common.coverage import CoverageCollector
from tb.common.flit import FLIT_FIELD, FlitAgent, flit_bus
from tb.common.scoreboard import AnalysisImp, InOrderScoreboard
from tb.common.signals import SignalPool
from tb.common.vr_agent import Beat, VRAgent, VRBus, VRItem
from tb.link256.common import (DATA_CLASSES, DONT_CARE, LINE_W, Cfg, CtlKind, FlowCoverage,
                               Link256Env, compare_dont_care, crd_fields, field, flit_from_slots,
                               has_trailer, line_int, mid_of, rand_msg, refresh_crc, slot_image)

# payload field -> DUT port
OUT_FIELDS = {"crc_ok": "crc_ok", "proto_err": "proto_err", "retryable": "retryable",
              "ctl_kind": "ctl_kind", "ctl_eseq": "ctl_eseq", "ctl_num_retry": "ctl_num_retry",
              "ctl_empty": "ctl_empty", "ack": "ack_cnt", "crd": "crd_cnt", "msg_cnt": "msg_cnt",
              "run_valid": "run_valid", "run_n": "run_n", "run_bits": "run_bits", "line": "line"}
# Outputs that must read zero on a cycle without out_valid (run_bits is not gated: it is read
# only for valid runs).
GATED = ("proto_err", "retryable", "ctl_kind", "ctl_eseq", "ack_cnt", "crd_cnt", "msg_cnt",
         "run_valid", "run_n", "line")
RUN_N_W = 3             # run_n lane: messages in the run
RUN_W = f2.G_PAYLOAD_BITS   # run_bits lane: a slot's message bits
MSG_CNT_W = 5
KIND_BINS = ("multi_msg_slot", "data", "hslot", "nop", "credits", "trailer")
CTL_OF_REPLAY = {f2.REPLAY_NONE: CtlKind.IDLE, f2.REPLAY_RETRY_REQ: CtlKind.REQ,
                 f2.REPLAY_RETRY_ACK: CtlKind.ACK}


def rx_item(flit: int, commit: bool = True) -> VRItem:
    return VRItem("flit", {FLIT_FIELD: flit, "commit": int(commit)})


def rand_credits(cfg: Cfg, rng: random.Random) -> dict[str, int]:
    """One channel per CRD field: mostly ours (returned for our TX classes), sometimes foreign."""
    out: dict[str, int] = {}
    for classes in crd_fields(cfg.role).values():
        r = rng.random()
        if r < 0.35:
            continue
        c = rng.choice(classes)
        role = cfg.role if r < 0.9 else cfg.partner  # foreign channel: dropped by the RX
        out[mid_of(role, c)] = rng.choice(f2.CRD_VALUES)
    return out


class ModelSender:
    """Model packer for the partner, with queues; never lets data roll over into the next flit."""

    def __init__(self, cfg: Cfg, rng: random.Random) -> None:
        self.cfg = cfg
        self.rng = rng
        self.packer = f2.Flit256Packer(cfg.partner, cfg.pbr)
        self.queues: list[deque[CxlMessage]] = [deque() for _ in range(NCLS)]

    def refill(self, p_trailer: float) -> None:
        for c in range(NCLS):
            for _ in range(self.rng.choice([0, 0, 1, 2, 4, 8])):
                if len(self.queues[c]) < 16:
                    self.queues[c].append(rand_msg(mid_of(self.cfg.partner, c), self.cfg.flavor,
                                                   self.rng, p_trailer=p_trailer))

    def pack(self) -> int:
        rng = self.rng
        self.packer.max_per_class = rng.choice([{}, {c: 1 for c in range(NCLS)},
                                                {c: rng.randint(1, 4) for c in range(NCLS)}])
        credits = rand_credits(self.cfg, rng)
        ack = rng.choice([0, 0, 1, rng.randrange(256)])
        rc = f2.REPLAY_ACK if ack else f2.REPLAY_NONE
        limit = max(len(self.queues[c]) for c in DATA_CLASSES)
        while True:
            saved = copy.deepcopy(self.packer)
            q2 = [deque(list(q)[:limit] if c in DATA_CLASSES else q) for c, q in enumerate(self.queues)]
            before = [len(q) for q in q2]
            flit = self.packer.pack(q2, credits=credits, replay_cmd=rc, field10=ack)
            if self.packer.rollover == 0:
                for c in range(NCLS):
                    for _ in range(before[c] - len(q2[c])):
                        self.queues[c].popleft()
                return int.from_bytes(flit, "little")
            self.packer = saved
            limit -= 1


def nop_flit(rng: random.Random) -> int:
    cmd = rng.choice([f2.REPLAY_NONE, f2.REPLAY_RETRY_REQ, f2.REPLAY_RETRY_ACK])
    return int.from_bytes(f2.make_nop_flit(cmd, rng.randrange(256)), "little")


class RxItemSeq(uvm_sequence):
    """Sends the items of :meth:`items` (generated lazily, so stateful generators stay in step)."""

    def items(self) -> Iterator[VRItem]:
        raise NotImplementedError

    async def body(self) -> None:
        for item in self.items():
            await self.start_item(item)
            await self.finish_item(item)


class RxModelSeq(RxItemSeq):
    """``n`` flits of the model's packer for the partner (random mixes, multi-message slots,
    trailers, credits of all channels, ACK counts), 10 % NOP / RETRY.Req / RETRY.Ack flits; with
    probability ``p_hold`` a flit is first presented without commit, then again with commit."""

    def __init__(self, name: str, cfg: Cfg, rng: random.Random, n: int, p_hold: float = 0.1) -> None:
        super().__init__(name)
        self.cfg, self.rng, self.n, self.p_hold = cfg, rng, n, p_hold

    def items(self) -> Iterator[VRItem]:
        rng = self.rng
        snd = ModelSender(self.cfg, rng)
        for _ in range(self.n):
            if rng.random() < 0.1:
                flit = nop_flit(rng)
            else:
                snd.refill(p_trailer=rng.choice([0.0, 0.1, 0.5]))
                flit = snd.pack()
            if rng.random() < self.p_hold:
                yield rx_item(flit, commit=False)
            yield rx_item(flit)


class RxCrcSeq(RxItemSeq):
    """A model flit, then every single-bit flip of it (the CRC left as it was), none committed."""

    def __init__(self, name: str, cfg: Cfg, rng: random.Random) -> None:
        super().__init__(name)
        self.cfg, self.rng = cfg, rng
        self.width = 8 * f2.FLIT_BYTES

    def items(self) -> Iterator[VRItem]:
        snd = ModelSender(self.cfg, self.rng)
        snd.refill(p_trailer=0.2)
        snd.refill(p_trailer=0.2)
        flit = snd.pack()
        yield rx_item(flit, commit=False)
        for n in range(self.width):
            yield rx_item(flit ^ (1 << n), commit=False)


class RxMutationSeq(RxItemSeq):
    """``n`` model flits with 1 to 3 random bit flips each (biased to the flit header, the CRD field
    and the SlotFmt nibbles) and the CRC recomputed: legal, illegal and unsupported flits."""

    def __init__(self, name: str, cfg: Cfg, rng: random.Random, n: int) -> None:
        super().__init__(name)
        self.cfg, self.rng, self.n = cfg, rng, n

    def items(self) -> Iterator[VRItem]:
        rng = self.rng
        snd = ModelSender(self.cfg, rng)
        hdr_bits = 8 * f2.slot_range(0)[0]
        crd_lsb = 8 * f2.CRD_BYTE
        for _ in range(self.n):
            snd.refill(p_trailer=0.2)
            flit = snd.pack()
            for _ in range(rng.choice([1, 1, 2, 3])):
                r = rng.random()
                if r < 0.1:
                    bit = rng.randrange(hdr_bits)                         # flit header
                elif r < 0.2:
                    bit = crd_lsb + rng.randrange(16)                     # CRD
                elif r < 0.5:
                    bit = 8 * f2.slot_range(rng.randrange(f2.NSLOTS))[0] + rng.randrange(4)  # SlotFmt
                else:
                    bit = hdr_bits + rng.randrange(crd_lsb - hdr_bits)    # slots
                flit ^= 1 << bit
            yield rx_item(refresh_crc(flit))


def fitting_msg(mid: str, avail: int, flavor: str, rng: random.Random) -> CxlMessage:
    """Random message `mid` (no trailer) whose wire image fits in `avail` bits."""
    while True:
        m = rand_msg(mid, flavor, rng, p_trailer=0.0)
        if m.pack(flavor) >> avail == 0:
            return m


def class_slot(cfg: Cfg, kind: str, c: int, rng: random.Random, most: int = 4) -> tuple[int, int] | None:
    """(slot image, DHs in it) of a random partner format holding class c, with a random valid
    prefix of random messages that reaches at least one message of class c and holds at most
    `most` of them; None when no format of this slot kind holds class c."""
    mid = mid_of(cfg.partner, c)
    table = f2.SLOT_FORMATS[(kind, cfg.pbr)]
    fmts = [f for f in sorted(f2.ROLE_FORMATS[cfg.partner]) if f in table and mid in table[f]]
    if not fmts:
        return None
    fmt = rng.choice(fmts)
    pos = f2.format_positions(kind, cfg.pbr, fmt)
    first = next(i for i, (m, _, _) in enumerate(pos) if m == mid)
    n = min(rng.randint(first + 1, len(pos)), first + most)
    msgs = [fitting_msg(m, avail, cfg.flavor, rng) for m, _, avail in pos[:n]]
    ndh = sum(1 for m in msgs if SPECS[m.MID].has_data)
    return slot_image(kind, cfg.pbr, fmt, msgs), ndh


class RxRunLanesSeq(RxItemSeq):
    """``n`` flits per partner class c whose header slots all hold class c in a random format of
    the partner's (single- and two-class formats, random valid prefixes, random message fields):
    for a message class each slot is such a header slot with probability 3/4 and empty otherwise,
    so the runs of c reach every run lane of the RTL with varied run sizes; for a data class the
    header slots follow each other's data (random data slots), up to three of them and their data
    rolling over into the next flit. Most of these flits exceed the 128B group limits or MAXM, or
    roll over: the RTL must give the model's verdict for each, and the legal ones' contents."""

    def __init__(self, name: str, cfg: Cfg, rng: random.Random, n: int) -> None:
        super().__init__(name)
        self.cfg, self.rng, self.n = cfg, rng, n

    def items(self) -> Iterator[VRItem]:
        cfg, rng = self.cfg, self.rng
        for c in range(NCLS):
            for _ in range(self.n):
                slots: dict[int, int] = {}
                if c in DATA_CLASSES:
                    s = rng.choice([0, 1])
                    for _ in range(3):
                        if s >= f2.NSLOTS:
                            break
                        got = class_slot(cfg, "H" if s == 0 else "G", c, rng, most=rng.choice([1, 1, 2]))
                        if got is None:
                            s += 1
                            continue
                        slots[s], ndh = got
                        for d in range(s + 1, min(s + 1 + 4 * ndh, f2.NSLOTS)):
                            slots[d] = rng.getrandbits(8 * f2.G_SLOT_BYTES)
                        s += 1 + 4 * ndh
                else:
                    for s in range(f2.NSLOTS):
                        got = class_slot(cfg, "H" if s == 0 else "G", c, rng)
                        if got is not None and rng.random() < 0.75:
                            slots[s] = got[0]
                yield rx_item(flit_from_slots(slots))
                if rng.random() < 0.5:   # an Empty flit clears the cross-flit group D count
                    yield rx_item(flit_from_slots({}, crd=f2.CRD_EMPTY))


def single_msg_slot(cfg: Cfg, kind: str, c: int, rng: random.Random) -> int:
    """Slot image carrying one random message of the partner's class c in a format of the
    partner's whose message 0 is of that class (the message's bits fit the first position)."""
    mid = mid_of(cfg.partner, c)
    table = f2.SLOT_FORMATS[(kind, cfg.pbr)]
    for fmt in sorted(f2.ROLE_FORMATS[cfg.partner]):
        if fmt in table and table[fmt][0] == mid:
            pos = f2.format_positions(kind, cfg.pbr, fmt)
            while True:
                m = rand_msg(mid, cfg.flavor, rng, p_trailer=0.0)
                if m.pack(cfg.flavor) >> pos[0][2] == 0:
                    return slot_image(kind, cfg.pbr, fmt, [m])
    raise AssertionError(f"no single-message format for {mid}")


class RxNegativeSeq(RxItemSeq):
    """Directed flits, each named with the verdict the model must give it (``cases``: (name,
    verdict) in send order): reserved and wrong-direction SlotFmt, message 0 invalid, reserved CRD
    codes, Empty flit with a slot, NOP with payload, the 128B group limit inside a flit, data
    rolling over (legal, unsupported by the RTL), then the cross-flit DA group limit: a flit
    filling group D, one more message in group A (illegal), an Empty flit, the same flit again
    (legal: group D is empty now), and the pair again with the group D flit not committed (legal:
    only committed flits count)."""

    def __init__(self, name: str, cfg: Cfg, rng: random.Random) -> None:
        super().__init__(name)
        self.cfg, self.rng = cfg, rng
        self.cases: list[tuple[str, str]] = []

    def _case(self, name: str, flit: int, verdict: str, commit: bool = True) -> VRItem:
        self.cases.append((name, verdict))
        return rx_item(flit, commit)

    def items(self) -> Iterator[VRItem]:
        cfg, rng = self.cfg, self.rng
        good1 = single_msg_slot(cfg, "G", 1, rng)
        fmt_bits = ~0xF
        for fmt in sorted(set(range(16)) - set(f2.SLOT_FORMATS[("G", cfg.pbr)])):  # reserved in G
            yield self._case(f"reserved G fmt {fmt}", flit_from_slots({1: (good1 & fmt_bits) | fmt}),
                             "illegal")
        other = sorted(f2.ROLE_FORMATS[cfg.role])[0]   # a format only the other direction sends
        yield self._case(f"wrong-direction fmt {other}",
                         flit_from_slots({2: (good1 & fmt_bits) | other | 1 << 4}), "illegal")
        yield self._case("msg0 invalid", flit_from_slots({3: good1 & ~(1 << 4)}), "illegal")
        yield self._case("CRD reserved code 02h", flit_from_slots({1: good1}, crd=0x02), "illegal")
        yield self._case("CRD[15] set", flit_from_slots({1: good1}, crd=0x8000), "illegal")
        yield self._case("Empty with a slot", flit_from_slots({1: good1}, crd=f2.CRD_EMPTY), "illegal")
        yield self._case("NOP with payload",
                         flit_from_slots({1: good1}, hdr=f2.FlitHeader256(f2.FLIT_TYPE_NOP)), "illegal")
        # 128B group limit inside a flit: limit + 1 single-message slots of the lowest-limit class
        lim, c = min((f2.GROUP_LIMITS[mid_of(cfg.partner, c)], c) for c in range(NCLS)
                     if c not in DATA_CLASSES)
        slots = {s: single_msg_slot(cfg, "G", c, rng) for s in range(1, lim + 2)}
        yield self._case(f"group limit class {c} ({lim}+1 in AB)", flit_from_slots(slots), "illegal")
        dc = DATA_CLASSES[0]   # a DH in the last slot: its data rolls over (legal, unsupported)
        yield self._case("rollover (DH in slot 14)",
                         flit_from_slots({f2.NSLOTS - 1: single_msg_slot(cfg, "G", dc, rng)}),
                         "unsupported")
        d_first = f2.GROUP_OF_SLOT.index(3)
        if lim <= f2.NSLOTS - d_first:   # `lim` single-message slots fit in group D
            d_flit = flit_from_slots({d_first + i: single_msg_slot(cfg, "G", c, rng)
                                      for i in range(lim)})
            yield self._case(f"{lim} messages of class {c} in group D", d_flit, "legal")
            a_flit = flit_from_slots({1: single_msg_slot(cfg, "G", c, rng)})
            yield self._case("one more in the next flit's group A (DA limit)", a_flit, "illegal")
            yield self._case("Empty flit", flit_from_slots({}, crd=f2.CRD_EMPTY), "legal")
            yield self._case("the group A flit after an empty group D", a_flit, "legal")
            # only a committed flit's group D counts: the same pair with the D flit not committed
            yield self._case("the group D flit, not committed", d_flit, "legal", commit=False)
            yield self._case("the group A flit after an uncommitted group D", a_flit, "legal")


class RxPredictor(uvm_component):
    """Expected outputs (Beat payload, see :class:`RxOutputs`) for every driven flit, on ``ap``.

    ``verdicts``: per flit ``crc_bad`` / ``illegal`` / ``unsupported`` / ``legal`` (with
    ``reasons``: the model's FlitError reason or the unsupported rule); samples the ``kinds`` and
    ``verdict`` covergroups (when defined)."""

    def __init__(self, name: str, parent: uvm_component, cfg: Cfg, cov: CoverageCollector) -> None:
        super().__init__(name, parent)
        self.cfg = cfg
        self.cov = cov
        self.state = f2.Flit256RxState()
        self.verdicts: list[str] = []
        self.reasons: list[str | None] = []
        self.stats: Counter[str] = Counter()
        self.ap = uvm_analysis_port("ap", self)
        self.export = AnalysisImp("export", self, self.write)

    def unsupported(self, res: f2.Flit256Result, after: f2.Flit256RxState) -> str | None:
        """Legal in the model, rejected by the RTL as documented in cxl_flit256_rx.v."""
        hdr = res.header
        assert hdr is not None
        if after.rollover:
            return "data rolls over into the next flit"
        if res.llctrl is not None:
            return "LLCTRL"
        if hdr.flit_type == f2.FLIT_TYPE_PAYLOAD and hdr.replay_cmd == f2.REPLAY_ACK \
                and hdr.field10 > 0xFF:
            return f"ACK count {hdr.field10} above 255"
        most = max(len(ms) for ms in res.messages)
        if self.cfg.maxm is not None and most > self.cfg.maxm:
            return f"{most} messages of a class (MAXM {self.cfg.maxm})"
        return None

    def write(self, beat: Beat) -> None:
        cfg = self.cfg
        flit, commit = beat.payload[FLIT_FIELD], beat.payload["commit"]
        after = copy.deepcopy(self.state)
        exp: dict[str, Any] = {"crc_ok": 1, "proto_err": 0, "retryable": 0,
                               "ctl_kind": int(CtlKind.NONE), "ctl_eseq": 0, "ctl_num_retry": 0,
                               "ctl_empty": 0, "ack": 0, "runs": ""}
        for c in range(NCLS):
            exp[f"crd{c}"] = 0
            exp[f"m{c}"] = ()
        reason: str | None = None
        try:
            res: f2.Flit256Result | None = f2.unpack_flit256(cfg.partner, cfg.pbr, flit, after)
        except f2.FlitError as e:
            res, reason, verdict = None, e.reason, "illegal"
        if res is not None and not res.crc_ok:
            verdict = "crc_bad"
            exp["crc_ok"] = 0
        elif res is not None:
            reason = self.unsupported(res, after)
            verdict = "unsupported" if reason else "legal"
        if reason is not None:
            exp["proto_err"] = 1
            # Left open: the RTL's header says every output but crc_ok / proto_err reads zero
            # for a rejected flit, but its retryable is the flit type (cxl_link ignores it then).
            exp["retryable"] = DONT_CARE
        elif res is not None and res.crc_ok:
            self._expect(exp, res)
            if commit:
                self.state = after
            self._sample(res, exp)
        self.verdicts.append(verdict)
        self.reasons.append(reason)
        self.stats[verdict] += 1
        if "verdict" in self.cov.groups:
            self.cov.groups["verdict"].sample(verdict=verdict)
        self.ap.write(Beat(exp, beat.cycle, beat.time_ps, self.get_full_name()))

    def _expect(self, exp: dict[str, Any], res: f2.Flit256Result) -> None:
        cfg, hdr = self.cfg, res.header
        assert hdr is not None
        if hdr.flit_type == f2.FLIT_TYPE_NOP:
            kind = CTL_OF_REPLAY[hdr.replay_cmd]
            exp["ctl_kind"] = int(kind)
            exp["ctl_eseq"] = DONT_CARE if kind == CtlKind.IDLE else hdr.field10 & 0xFF
            return
        exp["retryable"] = 1
        exp["ack"] = hdr.field10 if hdr.replay_cmd == f2.REPLAY_ACK else 0
        for c in range(NCLS):
            exp[f"crd{c}"] = res.credits.get(mid_of(cfg.role, c), 0)
            exp[f"m{c}"] = tuple((m.pack(cfg.flavor), line_int(m) if c in DATA_CLASSES else None)
                                 for m in res.messages[c])

    def _sample(self, res: f2.Flit256Result, exp: dict[str, Any]) -> None:
        if "kinds" not in self.cov.groups:
            return
        assert res.header is not None
        tags = set()
        if any(n > 1 for n in res.slot_msgs):
            tags.add("multi_msg_slot")
        if any(res.messages[c] for c in DATA_CLASSES):
            tags.add("data")
        if res.slot_formats and res.slot_formats[0] is not None:
            tags.add("hslot")
        if res.header.flit_type == f2.FLIT_TYPE_NOP:
            tags.add("nop")
        if any(exp[f"crd{c}"] for c in range(NCLS)):
            tags.add("credits")
        if any(has_trailer(m) for c in DATA_CLASSES for m in res.messages[c]):
            tags.add("trailer")
        self.cov.groups["kinds"].sample(kind=frozenset(tags),
                                        max_in_class=max(len(ms) for ms in res.messages))


class RxOutputs(uvm_component):
    """The DUT outputs of every valid cycle in the predictor's terms, on ``ap``: the runs of each
    class expanded into messages (message k of a run at k * the class's wire width) with their
    data lines; ``runs`` names every broken packing rule (runs not packed from index 0, a run of
    no messages or more than a slot holds, run sizes not adding up to msg_cnt, more data lines
    than the port has)."""

    def __init__(self, name: str, parent: uvm_component, cfg: Cfg, lines_per_class: int) -> None:
        super().__init__(name, parent)
        self.cfg = cfg
        self.lines = lines_per_class
        self.width = [SPECS[mid_of(cfg.partner, c)].width(cfg.flavor) for c in range(NCLS)]
        self.ap = uvm_analysis_port("ap", self)
        self.export = AnalysisImp("export", self, self.write)

    def write(self, beat: Beat) -> None:
        p, maxm = beat.payload, self.cfg.maxm
        assert maxm is not None
        act: dict[str, Any] = {k: p[k] for k in ("crc_ok", "proto_err", "retryable", "ctl_kind",
                                                 "ctl_eseq", "ctl_num_retry", "ctl_empty", "ack")}
        problems: list[str] = []
        for c in range(NCLS):
            act[f"crd{c}"] = field(p["crd"], c, 8)
            v = field(p["run_valid"], c, maxm)
            n = bin(v).count("1")
            if v != (1 << n) - 1:
                problems.append(f"class {c}: run_valid {v:0{maxm}b} not packed from index 0")
            w = self.width[c]
            wires: list[int] = []
            for j in (j for j in range(maxm) if v >> j & 1):
                k_n = field(p["run_n"], c * maxm + j, RUN_N_W)
                if not 1 <= k_n or k_n * w > RUN_W:
                    problems.append(f"class {c} run {j}: {k_n} messages of {w} bits")
                bits = field(p["run_bits"], c * maxm + j, RUN_W)
                wires += [(bits >> (k * w)) & ((1 << w) - 1) for k in range(k_n)]
            if len(wires) != field(p["msg_cnt"], c, MSG_CNT_W):
                problems.append(f"class {c}: runs hold {len(wires)} messages, msg_cnt "
                                f"{field(p['msg_cnt'], c, MSG_CNT_W)}")
            msgs = []
            for i, wb in enumerate(wires):
                line = None
                if c in DATA_CLASSES:
                    if i < self.lines:
                        line = field(p["line"], DATA_CLASSES.index(c) * self.lines + i, LINE_W)
                    else:
                        problems.append(f"class {c}: more than {self.lines} data lines")
                msgs.append((wb, line))
            act[f"m{c}"] = tuple(msgs)
        act["runs"] = "; ".join(problems)
        self.ap.write(Beat(act, beat.cycle, beat.time_ps, self.get_full_name()))


class RxEnv(Link256Env):
    """Agents, predictor, output view, scoreboard, idle-cycle checker and coverage of the RX."""

    def build_phase(self) -> None:
        dut = cocotb.top
        self.pool = SignalPool()
        src_bus = flit_bus(self.pool, dut, "flit_valid", "flit")
        src_bus.fields["commit"] = self.pool.bind(dut.commit)
        self.src = FlitAgent("src", self, bus=src_bus, idle=self.idle, idle_junk=True)
        self.txn = VRAgent("txn", self, active=False,
                           bus=VRBus.lane(self.pool, dut, "out_valid", None, OUT_FIELDS))
        self.cov = CoverageCollector("cov", self)
        self.pred = RxPredictor("pred", self, self.cfg, self.cov)
        lines = len(dut.line) // (len(DATA_CLASSES) * LINE_W)
        self.outs = RxOutputs("outs", self, self.cfg, lines)
        self.sb = InOrderScoreboard("sb", self, compare=compare_dont_care, timeout_cycles=20)
        self.quiet = CycleChecker("quiet", self, clk=dut.clk, fn=self.check_quiet, rst=dut.rst)
        self.flow = FlowCoverage("flow", self, self.cov,
                                 extra=lambda p: {"commit": "commit" if p["commit"] else "held"})
        self._coverage_model()

    def _coverage_model(self) -> None:
        if "kinds" in self.groups:
            g = self.cov.group("kinds")
            g.coverpoint("kind", {k: (lambda v, k=k: k in v) for k in KIND_BINS})
            g.coverpoint("max_in_class", {"one_to_three": (1, 3), "four_or_more": (4, f2.NSLOTS * 4)})
        if "verdict" in self.groups:
            self.cov.group("verdict").coverpoint("verdict", ["legal", "illegal"])
        if "flow" in self.groups:
            g = self.cov.group("flow")
            g.coverpoint("gap", ["back_to_back", "after_idle"])
            g.coverpoint("commit", ["commit", "held"])

    def check_quiet(self) -> list[str]:
        """Nothing is reported for a cycle without out_valid (crc_ok is not gated)."""
        dut = cocotb.top
        if int(dut.out_valid.value):
            return []
        return [f"{n} = {int(getattr(dut, n).value):#x} with out_valid low" for n in GATED
                if int(getattr(dut, n).value)]

    def connect_phase(self) -> None:
        self.src.ap.connect(self.pred.export)
        self.src.ap.connect(self.flow.export)
        self.txn.ap.connect(self.outs.export)
        self.pred.ap.connect(self.sb.exp_export)
        self.outs.ap.connect(self.sb.act_export)
