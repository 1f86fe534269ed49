"""cocotb tests of cxl_flit256_rx against the reference model (models/cxl/flit256.py).

- rx_model_flits: flits packed by the model's Flit256Packer (random mixes, multi-message slots,
  trailers, credits of all channels, ACK counts, NOP RETRY.Req/Ack) must give exactly the messages
  (per class, in order, wire bits and data line), credits and acks the model's unpacker returns.
  The RX delivers runs (the messages of a class in one slot); they are expanded here.
- rx_crc_single_bit: every single-bit flip of the CRC-covered bytes 0..249 is detected.
- rx_negative: directed illegal flits (reserved / wrong-direction SlotFmt, 128B group limit incl.
  the cross-flit DA group, message 0 invalid, bad CRD code, rollover) give proto_err.
- rx_mutation_fuzz: random bit flips in legal flits (CRC recomputed): proto_err must equal the
  model's verdict (FlitError) and legal results must match the model.
"""
from __future__ import annotations

import copy
import random
from collections import Counter, deque

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge, Timer

from models.cxl import flit256 as f2
from models.cxl.messages import SPECS
from tb.common.seeds import base_seed
from tb.link256.common import (
    DATA_CLASSES, LINE_W, NCLS, Cfg, cfg_from_dut, dump_kinds, field, flit_from_slots, line_int,
    mid_of, rand_msg, refresh_crc, slot_image,
)

MAXM = 12
K_NONE, K_IDLE, K_REQ, K_ACK = 0, 1, 3, 4


def rng_for(name: str) -> random.Random:
    seed = int(cocotb.RANDOM_SEED)
    cocotb.log.info(f"{name}: seed {seed}, derived from SEED={base_seed()} (reproduce with SEED={base_seed()})")
    return random.Random(f"{seed}:{name}")


async def setup(dut) -> None:
    Clock(dut.clk, 1, unit="ns").start()
    dut.rst.value = 1
    dut.flit_valid.value = 0
    dut.flit.value = 0
    dut.commit.value = 0
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    dut.rst.value = 0
    await RisingEdge(dut.clk)


class Out:
    """Snapshot of the RX outputs for the flit on its input."""

    def __init__(self, dut) -> None:
        self.crc_ok = int(dut.crc_ok.value)
        self.proto_err = int(dut.proto_err.value)
        self.retryable = int(dut.retryable.value)
        self.ctl_kind = int(dut.ctl_kind.value)
        self.ctl_eseq = int(dut.ctl_eseq.value)
        self.ack = int(dut.ack_cnt.value)
        crd = int(dut.crd_cnt.value)
        self.crd = [field(crd, c, 8) for c in range(NCLS)]
        self.cnt = int(dut.msg_cnt.value)
        self.rv = int(dut.run_valid.value)
        self.rn = int(dut.run_n.value)
        self.rb = int(dut.run_bits.value)
        self.ln = int(dut.line.value)
        self.mv = self.rv | self.cnt   # anything delivered

    def n_msgs(self, c: int) -> int:
        return field(self.cnt, c, 5)

    def messages(self, cfg: Cfg, c: int) -> list[tuple[int, int | None]]:
        """(wire bits, line or None) of the messages of class c, expanded from its runs (message k
        of a run at k * the class's wire width); checks the packing of runs and lines."""
        v = field(self.rv, c, MAXM)
        n = bin(v).count("1")
        assert v == (1 << n) - 1, f"class {c}: run_valid {v:0{MAXM}b} not packed from index 0"
        w = SPECS[mid_of(cfg.partner, c)].width(cfg.flavor)
        wires = []
        for j in range(n):
            k_n = field(self.rn, c * MAXM + j, 3)
            assert 1 <= k_n <= 4, f"class {c} run {j}: {k_n} messages"
            bits = field(self.rb, c * MAXM + j, 124)
            wires += [(bits >> (k * w)) & ((1 << w) - 1) for k in range(k_n)]
        assert len(wires) == self.n_msgs(c), f"class {c}: runs hold {len(wires)} != msg_cnt {self.n_msgs(c)}"
        out = []
        for i, wb in enumerate(wires):
            line = None
            if c in DATA_CLASSES:
                assert i < 3, f"class {c}: more than 3 data lines"
                line = field(self.ln, DATA_CLASSES.index(c) * 3 + i, LINE_W)
            out.append((wb, line))
        return out


async def apply(dut, flit: int, commit: bool = True) -> Out:
    """Drive one flit, sample the combinational outputs, then commit it on a clock edge."""
    await Timer(0.25, unit="ns")  # away from the clock edge
    dut.flit.value = flit
    dut.flit_valid.value = 1
    await Timer(0.25, unit="ns")
    out = Out(dut)
    dut.commit.value = int(commit)
    await RisingEdge(dut.clk)
    dut.commit.value = 0
    dut.flit_valid.value = 0
    return out


def check_against_model(cfg: Cfg, out: Out, res: f2.Flit256Result, tag: str) -> None:
    assert out.crc_ok == 1, f"{tag}: crc_ok=0 on a model flit"
    assert out.proto_err == 0, f"{tag}: proto_err on a flit the model accepts"
    hdr = res.header
    assert hdr is not None
    if hdr.flit_type == f2.FLIT_TYPE_NOP:
        assert out.retryable == 0 and out.mv == 0 and out.ack == 0 and not any(out.crd)
        want = {f2.REPLAY_NONE: K_IDLE, f2.REPLAY_RETRY_REQ: K_REQ, f2.REPLAY_RETRY_ACK: K_ACK}[hdr.replay_cmd]
        assert out.ctl_kind == want, f"{tag}: ctl_kind {out.ctl_kind} != {want}"
        if want != K_IDLE:
            assert out.ctl_eseq == hdr.field10 & 0xFF
        return
    assert out.retryable == 1 and out.ctl_kind == K_NONE
    assert out.ack == (hdr.field10 if hdr.replay_cmd == f2.REPLAY_ACK else 0), f"{tag}: ack"
    want_crd = [res.credits.get(mid_of(cfg.role, c), 0) for c in range(NCLS)]
    assert out.crd == want_crd, f"{tag}: credits {out.crd} != {want_crd} ({dict(res.credits)})"
    for c in range(NCLS):
        got = out.messages(cfg, c)
        want = [(m.pack(cfg.flavor), line_int(m) if c in DATA_CLASSES else None) for m in res.messages[c]]
        assert got == want, f"{tag}: class {c}: RTL {len(got)} msgs != model {len(want)} (or content differs)"


def rand_credits(cfg: Cfg, rng: random.Random) -> dict[str, int]:
    """One channel per CRD field: mostly ours (returned for our TX classes), sometimes foreign."""
    out: dict[str, int] = {}
    for cache_c, mem_c in ((0, 3), (2, 5), (1, 4)):
        r = rng.random()
        if r < 0.35:
            continue
        c = cache_c if rng.random() < 0.5 else mem_c
        role = cfg.role if r < 0.9 else cfg.partner  # foreign channel: dropped by the RX
        out[mid_of(role, c)] = rng.choice(f2.CRD_VALUES)
    return out


class ModelSender:
    """Model packer for the partner, with queues; never lets data roll over into the next flit."""

    def __init__(self, cfg: Cfg, rng: random.Random) -> None:
        self.cfg = cfg
        self.rng = rng
        self.packer = f2.Flit256Packer(cfg.partner, cfg.pbr)
        self.queues: list[deque] = [deque() for _ in range(NCLS)]

    def refill(self, p_trailer: float) -> None:
        for c in range(NCLS):
            for _ in range(self.rng.choice([0, 0, 1, 2, 4, 8])):
                if len(self.queues[c]) < 16:
                    self.queues[c].append(rand_msg(mid_of(self.cfg.partner, c), self.cfg.flavor, self.rng,
                                                   p_trailer=p_trailer))

    def pack(self) -> int:
        rng = self.rng
        self.packer.max_per_class = rng.choice([{}, {c: 1 for c in range(NCLS)}, {c: rng.randint(1, 4)
                                                                                 for c in range(NCLS)}])
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


@cocotb.test(timeout_time=5000, timeout_unit="us")
async def rx_model_flits(dut):
    """Model-packed flits (HBR/PBR per build) decode to exactly the model's messages."""
    cfg = cfg_from_dut()
    rng = rng_for("rx_model_flits")
    await setup(dut)
    snd = ModelSender(cfg, rng)
    state = f2.Flit256RxState()
    stats: Counter = Counter()
    for i in range(300):
        r = rng.random()
        if r < 0.1:
            cmd = rng.choice([f2.REPLAY_NONE, f2.REPLAY_RETRY_REQ, f2.REPLAY_RETRY_ACK])
            flit = int.from_bytes(f2.make_nop_flit(cmd, rng.randrange(256)), "little")
        else:
            snd.refill(p_trailer=rng.choice([0.0, 0.1, 0.5]))
            flit = snd.pack()
        res = f2.unpack_flit256(cfg.partner, cfg.pbr, flit, state)
        assert state.rollover == 0
        out = await apply(dut, flit)
        check_against_model(cfg, out, res, f"flit {i}")
        for s, n in enumerate(res.slot_msgs):
            if n > 1:
                stats["multi_msg_slot"] += 1
        stats["msgs"] += sum(len(m) for m in res.messages)
        stats["data"] += sum(len(res.messages[c]) for c in DATA_CLASSES)
        stats["max_in_class"] = max(stats["max_in_class"], max(len(m) for m in res.messages))
        stats["hslot"] += int(bool(res.slot_formats) and res.slot_formats[0] is not None)
        stats["nop"] += int(res.header is not None and res.header.flit_type == f2.FLIT_TYPE_NOP)
        stats["credits"] += int(any(out.crd))
        stats["trailer"] += sum(1 for c in DATA_CLASSES for m in res.messages[c]
                                if getattr(m, "trp", 0) or getattr(m, "bep", 0))
    cocotb.log.info(f"rx_model_flits role={cfg.role} pbr={cfg.pbr}: {dict(stats)}")
    kinds = ("multi_msg_slot", "data", "hslot", "nop", "credits", "trailer")
    dump_kinds("rx_model_flits", stats, kinds)
    for key in kinds:
        assert stats[key] > 0, f"coverage hole: {key}"
    assert stats["max_in_class"] >= 4


@cocotb.test(timeout_time=20000, timeout_unit="us")
async def rx_crc_single_bit(dut):
    """Every single-bit flip in bytes 0..249 is caught by crc_ok; FEC bytes are not covered."""
    cfg = cfg_from_dut()
    rng = rng_for("rx_crc_single_bit")
    await setup(dut)
    snd = ModelSender(cfg, rng)
    snd.refill(p_trailer=0.2)
    snd.refill(p_trailer=0.2)
    flit = snd.pack()
    out = await apply(dut, flit, commit=False)
    assert out.crc_ok == 1
    await Timer(0.25, unit="ns")
    dut.flit_valid.value = 1
    for n in range(2048):
        dut.flit.value = flit ^ (1 << n)
        await Timer(0.25, unit="ns")
        ok = int(dut.crc_ok.value)
        if n < 2000:
            assert ok == 0, f"single-bit flip at flit bit {n} not detected"
            assert int(dut.run_valid.value) == 0 and int(dut.msg_cnt.value) == 0
            assert int(dut.proto_err.value) == 0
        else:
            assert ok == 1, f"flip in FEC bit {n} changed crc_ok"
    dut.flit_valid.value = 0


def single_msg_slot(cfg: Cfg, kind: str, c: int, rng: random.Random) -> tuple[int, int]:
    """(slot image, format) carrying one random message of the partner's class c."""
    mid = mid_of(cfg.partner, c)
    for fmt in sorted(f2.ROLE_FORMATS[cfg.partner]):
        table = f2.SLOT_FORMATS[(kind, cfg.pbr)]
        if fmt in table and table[fmt][0] == mid:
            while True:
                m = rand_msg(mid, cfg.flavor, rng, p_trailer=0.0)
                pos = f2.format_positions(kind, cfg.pbr, fmt)
                if m.pack(cfg.flavor) >> pos[0][2] == 0:
                    return slot_image(kind, cfg.pbr, fmt, [m]), fmt
    raise AssertionError(f"no single-message format for {mid}")


def model_verdict(cfg: Cfg, flit: int, state: f2.Flit256RxState) -> str | None:
    try:
        f2.unpack_flit256(cfg.partner, cfg.pbr, flit, state)
    except f2.FlitError as e:
        return e.reason
    return None


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def rx_negative(dut):
    """Directed illegal flits give proto_err (and the model rejects them too)."""
    cfg = cfg_from_dut()
    rng = rng_for("rx_negative")
    await setup(dut)
    cases: list[tuple[str, int, bool]] = []  # (name, flit, model also rejects)
    good1, _ = single_msg_slot(cfg, "G", 1, rng)
    # reserved G SlotFmt 9..11 and 8 (LLCTRL only in the H-slot)
    for fmt in (8, 9, 10, 11):
        cases.append((f"reserved G fmt {fmt}", flit_from_slots({1: (good1 & ~0xF) | fmt}), True))
    # a format only the other direction sends
    other = sorted(f2.ROLE_FORMATS[cfg.role])[0]
    cases.append((f"wrong-direction fmt {other}", flit_from_slots({2: (good1 & ~0xF) | other | 1 << 4}), True))
    # message 0 invalid in a non-empty slot
    cases.append(("msg0 invalid", flit_from_slots({3: good1 & ~(1 << 4)}), True))
    # reserved CRD codes
    cases.append(("CRD reserved code 02h", flit_from_slots({1: good1}, crd=0x02), True))
    cases.append(("CRD[15] set", flit_from_slots({1: good1}, crd=0x8000), True))
    cases.append(("Empty with a slot", flit_from_slots({1: good1}, crd=0x01), True))
    cases.append(("NOP with payload", flit_from_slots({1: good1}, hdr=f2.FlitHeader256(f2.FLIT_TYPE_NOP)), True))
    # 128B group limit inside a flit: limit+1 single-message slots of the lowest-limit class
    lims = [(f2.GROUP_LIMITS[mid_of(cfg.partner, c)], c) for c in (0, 1, 3, 4)]
    lim, c = min(lims)
    slots = {s: single_msg_slot(cfg, "G", c, rng)[0] for s in range(1, lim + 2)}
    cases.append((f"group limit class {c} ({lim}+1 in AB)", flit_from_slots(slots), True))
    # rollover: a DH in slot 14 (legal in the spec, unsupported here)
    dh, _ = single_msg_slot(cfg, "G", 2, rng)
    cases.append(("rollover (DH in slot 14)", flit_from_slots({14: dh}), False))
    for name, flit, model_rejects in cases:
        st = f2.Flit256RxState()
        verdict = model_verdict(cfg, flit, st)
        assert (verdict is not None) == model_rejects, f"{name}: model verdict {verdict!r}"
        out = await apply(dut, flit)
        assert out.crc_ok == 1 and out.proto_err == 1, f"{name}: proto_err not raised"
        assert out.mv == 0 and out.ack == 0 and not any(out.crd) and out.ctl_kind == K_NONE
        cocotb.log.info(f"negative '{name}': proto_err (model: {verdict})")
    # cross-flit DA group: `lim` messages in group D (slots 12..14), then 1 more in group A
    if lim <= 3:
        st = f2.Flit256RxState()
        d_flit = flit_from_slots({12 + i: single_msg_slot(cfg, "G", c, rng)[0] for i in range(lim)})
        assert model_verdict(cfg, d_flit, st) is None
        out = await apply(dut, d_flit)
        assert out.proto_err == 0 and out.n_msgs(c) == lim
        a_flit = flit_from_slots({1: single_msg_slot(cfg, "G", c, rng)[0]})
        assert model_verdict(cfg, a_flit, st) is not None
        out = await apply(dut, a_flit)
        assert out.proto_err == 1, "cross-flit DA group limit not detected"
        # the same flit after an unrelated flit (group D empty) is legal
        out = await apply(dut, flit_from_slots({}, crd=0x01))
        assert out.proto_err == 0
        out = await apply(dut, a_flit)
        assert out.proto_err == 0 and out.mv != 0


@cocotb.test(timeout_time=10000, timeout_unit="us")
async def rx_mutation_fuzz(dut):
    """Random bit flips in legal flits (CRC fixed up): RTL verdict == model verdict."""
    cfg = cfg_from_dut()
    rng = rng_for("rx_mutation_fuzz")
    await setup(dut)
    snd = ModelSender(cfg, rng)
    state = f2.Flit256RxState()
    stats: Counter = Counter()
    for i in range(400):
        snd.refill(p_trailer=0.2)
        flit = snd.pack()
        for _ in range(rng.choice([1, 1, 2, 3])):
            r = rng.random()
            if r < 0.1:
                bit = rng.randrange(16)             # flit header
            elif r < 0.2:
                bit = 1920 + rng.randrange(16)      # CRD
            elif r < 0.5:
                s = rng.randrange(15)
                bit = (16 if s == 0 else 128 * s) + rng.randrange(4)  # a SlotFmt nibble
            else:
                bit = 16 + rng.randrange(1904)
            flit ^= 1 << bit
        flit = refresh_crc(flit)
        probe = copy.deepcopy(state)
        try:
            res = f2.unpack_flit256(cfg.partner, cfg.pbr, flit, probe)
            verdict = None
        except f2.FlitError as e:
            res, verdict = None, e.reason
        if res is not None and (probe.rollover or res.llctrl is not None or
                                (res.header is not None and res.header.flit_type == f2.FLIT_TYPE_PAYLOAD
                                 and res.header.replay_cmd == f2.REPLAY_ACK and res.header.field10 > 255)):
            # legal but unsupported here (rollover, LLCTRL, ACK count > 255): must give proto_err
            out = await apply(dut, flit)
            assert out.crc_ok == 1 and out.proto_err == 1, f"mutant {i}: unsupported flit accepted"
            stats["unsupported"] += 1
            continue
        out = await apply(dut, flit)
        if verdict is not None:
            assert out.proto_err == 1, f"mutant {i}: model rejects ({verdict}) but RTL accepts"
            stats["illegal"] += 1
        else:
            assert res is not None
            state = probe
            check_against_model(cfg, out, res, f"mutant {i}")
            stats["legal"] += 1
    cocotb.log.info(f"rx_mutation_fuzz role={cfg.role} pbr={cfg.pbr}: {dict(stats)}")
    assert stats["illegal"] > 0 and stats["legal"] > 0
