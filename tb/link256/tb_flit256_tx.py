"""cocotb tests of cxl_flit256_tx: every flit is parsed by the reference model.

The TX is combinational: drive the class heads, credits, acks and control kind, settle, read the
flit and the take outputs, and check with models/cxl/flit256.unpack_flit256 (a stateful model
receiver, so the cross-flit 128B group limit DA is checked too) that the flit is legal and carries
exactly the messages taken (one per class, in order), the credits taken and the acks taken.
"""
from __future__ import annotations

import random
from collections import Counter

import cocotb
from cocotb.triggers import Timer

from models.cxl import flit256 as f2
from tb.common.seeds import base_seed
from tb.link256.common import (
    DATA_CLASSES, HDR_W, LINE_W, NCLS, TRAILER_FLAG, cfg_from_dut, dump_kinds, field, line_int, mid_of,
    rand_msg,
)

K_NONE, K_IDLE, K_FRAME, K_REQ, K_ACK, K_INIT = range(6)


def rng_for(name: str) -> random.Random:
    seed = int(cocotb.RANDOM_SEED)
    cocotb.log.info(f"{name}: seed {seed}, derived from SEED={base_seed()} (reproduce with SEED={base_seed()})")
    return random.Random(f"{seed}:{name}")


def zero_inputs(dut) -> None:
    dut.clk.value = 0
    dut.rst.value = 0
    dut.fire.value = 0
    dut.msg_avail.value = 0
    dut.msg_hdr.value = 0
    dut.msg_data.value = 0
    dut.crd_pend.value = 0
    dut.ack_pend.value = 0
    dut.ctl_kind.value = 0
    dut.ctl_eseq.value = 0
    dut.ctl_num_retry.value = 0
    dut.ctl_empty.value = 0


async def one_flit(dut, cfg, rng: random.Random, state: f2.Flit256RxState, stats: Counter,
                   kind: int = K_NONE, p_avail: float = 0.6, p_trailer: float = 0.1) -> None:
    avail = 0
    heads: dict[int, object] = {}
    hdr = 0
    data = 0
    for c in range(NCLS):
        if rng.random() < p_avail:
            m = rand_msg(mid_of(cfg.role, c), cfg.flavor, rng, p_trailer=p_trailer, random_trailer=False)
            heads[c] = m
            avail |= 1 << c
            hdr |= m.to_canonical() << (c * HDR_W)
            if c in DATA_CLASSES:
                data |= line_int(m) << (DATA_CLASSES.index(c) * LINE_W)
        else:
            hdr |= rng.getrandbits(HDR_W) << (c * HDR_W)  # garbage that must not be taken
            if c in DATA_CLASSES:
                data |= rng.getrandbits(LINE_W) << (DATA_CLASSES.index(c) * LINE_W)
    quiet = rng.random() < 0.3  # no credits to return (idle / Empty flits become possible)
    crd_pend = [0 if quiet else rng.choice([0, 0, 1, 2, 3, 4, 7, 8, 11, 12, 15, 16, 40, 255])
                for _ in range(NCLS)]
    ack_pend = rng.choice([0, 0, 1, 8, rng.randrange(256)])
    eseq = rng.randrange(256)
    dut.msg_avail.value = avail
    dut.msg_hdr.value = hdr
    dut.msg_data.value = data
    dut.crd_pend.value = sum(v << (8 * c) for c, v in enumerate(crd_pend))
    dut.ack_pend.value = ack_pend
    dut.ctl_kind.value = kind
    dut.ctl_eseq.value = eseq
    dut.ctl_num_retry.value = rng.randrange(32)
    dut.ctl_empty.value = rng.randrange(2)
    await Timer(1, unit="ns")
    flit = int(dut.flit.value)
    take = int(dut.msg_take.value)
    crd_take = [field(int(dut.crd_take.value), c, 8) for c in range(NCLS)]
    ack_take = int(dut.ack_take.value)
    retryable = int(dut.flit_retryable.value)
    assert int(dut.busy_adf.value) == 0

    assert flit >> 2000 == 0, "FEC bytes 250..255 must be zero"
    res = f2.unpack_flit256(cfg.role, cfg.pbr, flit, state)  # raises FlitError on an illegal flit
    assert res.crc_ok, "model CRC check failed on a TX flit"
    hdr_m = res.header
    assert hdr_m is not None
    if kind != K_NONE:
        assert hdr_m.flit_type == f2.FLIT_TYPE_NOP and not retryable
        assert take == 0 and ack_take == 0 and not any(crd_take)
        want = {K_REQ: (f2.REPLAY_RETRY_REQ, eseq), K_ACK: (f2.REPLAY_RETRY_ACK, eseq)}.get(kind, (0, 0))
        assert (hdr_m.replay_cmd, hdr_m.field10) == want, (kind, hdr_m)
        stats[f"ctl{kind}"] += 1
        return
    # protocol flit request
    assert take & ~avail == 0, f"took a class that was not available: take={take:06b} avail={avail:06b}"
    trailers = any(getattr(m, TRAILER_FLAG.get(m.MID, "nonexistent"), 0) for m in heads.values())
    if not trailers:
        assert take == avail, f"line rate: one message per available class: take={take:06b} avail={avail:06b}"
    for c in range(NCLS):
        want_msgs = [heads[c]] if take >> c & 1 else []
        assert res.messages[c] == want_msgs, f"class {c}: flit has {res.messages[c]} expected {want_msgs}"
    # credits: exactly crd_take, each an encodable value not above the pending count, greedy per field
    want_crd = {mid_of(cfg.partner, c): n for c, n in enumerate(crd_take) if n}
    assert dict(res.credits) == want_crd, (res.credits, crd_take)
    for c in range(NCLS):
        assert crd_take[c] <= crd_pend[c] and crd_take[c] in (0, 1, 4, 8, 12, 16), (c, crd_take, crd_pend)
    for cache_c, mem_c in ((0, 3), (2, 5), (1, 4)):
        if crd_pend[cache_c] or crd_pend[mem_c]:
            assert crd_take[cache_c] or crd_take[mem_c], "a CRD field was left unused"
    payload = bool(take or any(crd_take) or ack_pend)
    assert bool(retryable) == payload
    if payload:
        assert hdr_m.flit_type == f2.FLIT_TYPE_PAYLOAD
        assert ack_take == ack_pend
        want_rc = f2.REPLAY_ACK if ack_pend else f2.REPLAY_NONE
        assert (hdr_m.replay_cmd, hdr_m.field10) == (want_rc, ack_pend)
        assert res.empty == (not take and not any(crd_take))
        stats["payload"] += 1
        stats[f"msgs{bin(take).count('1')}"] += 1
        stats["empty"] += int(res.empty)
        stats["hslot"] += int(res.slot_formats[0] is not None)
        stats["trailer"] += int(trailers and bool(take & 0b100100))
    else:
        assert hdr_m.flit_type == f2.FLIT_TYPE_NOP and hdr_m.replay_cmd == 0 and ack_take == 0
        stats["idle"] += 1


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def tx_random_mix(dut):
    """Random message mixes, credits and acks; every flit legal and exactly what was taken."""
    cfg = cfg_from_dut()
    rng = rng_for("tx_random_mix")
    zero_inputs(dut)
    state = f2.Flit256RxState()
    stats: Counter = Counter()
    for i in range(400):
        p = rng.choice([0.0, 0.3, 0.6, 1.0])
        await one_flit(dut, cfg, rng, state, stats, p_avail=p, p_trailer=rng.choice([0.0, 0.2, 0.6]))
    cocotb.log.info(f"tx_random_mix role={cfg.role} pbr={cfg.pbr}: {dict(stats)}")
    kinds = ("payload", "idle", "empty", "msgs6", "hslot", "trailer")
    dump_kinds("tx_random_mix", stats, kinds)
    for key in kinds:
        assert stats[key] > 0, f"coverage hole: no '{key}' flit"


@cocotb.test(timeout_time=500, timeout_unit="us")
async def tx_control_flits(dut):
    """IDLE / RETRY.Req / RETRY.Ack / INIT kinds give NOP flits even with heads available."""
    cfg = cfg_from_dut()
    rng = rng_for("tx_control_flits")
    zero_inputs(dut)
    state = f2.Flit256RxState()
    stats: Counter = Counter()
    for i in range(60):
        kind = rng.choice([K_IDLE, K_FRAME, K_REQ, K_ACK, K_INIT])
        await one_flit(dut, cfg, rng, state, stats, kind=kind, p_avail=0.8)
    for kind in (K_IDLE, K_REQ, K_ACK):
        assert stats[f"ctl{kind}"] > 0
