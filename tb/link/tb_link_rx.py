"""cocotb tests of one cxl_link endpoint fed by flits from the reference model (models.cxl.flit68).

The test plays the partner: it drives rx_flit with model-packed flits (greedy packer: several
messages of a class per slot and per flit, all-data flits), control flits and corrupted or illegal
flits, and checks what the RTL delivers on rx_* and what its TX answers (RETRY framing).
The DUT's ROLE parameter (0 DOWN, 1 UP) sets the partner's role. Every test logs its seed.
"""
from __future__ import annotations

import random
from collections import deque
from typing import Any

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly

from models.cxl import flit68 as f68
from models.cxl.messages import NCLS, ROLE_DOWN, ROLE_UP
from tb.common.clock import ClockReset
from tb.common.seeds import announce_seed, named_rng
from tb.common.signals import lane_int
from tb.link.link_env import msg_payload, rand_msg, supported_68b



def peer() -> int:
    """The partner's role: the other one than the DUT's ROLE parameter."""
    return ROLE_UP if int(cocotb.top.ROLE.value) == ROLE_DOWN else ROLE_DOWN

IDLE = f68.retry_idle().encode()
FRAME = f68.retry_frame().encode()


def reflit(bits512: int) -> int:
    """Recompute the CRC of a modified flit body (a CRC-clean flit with new content)."""
    return f68.with_crc(bits512 & ((1 << 512) - 1))


class Partner:
    """Drives rx_flit, records rx_* deliveries and the DUT's TX flits."""

    def __init__(self, dut: Any) -> None:
        self.dut = dut
        self.q: deque[int] = deque()
        self.got: dict[int, list[dict[str, int]]] = {c: [] for c in range(NCLS)}
        self.tx: list[int] = []
        self.task: Any = None

    async def run(self) -> None:
        d = self.dut
        d.rx_ready.value = 0x3F
        d.tx_flit_ready.value = 1
        d.tx_valid.value = 0
        while True:
            await FallingEdge(d.clk)
            flit = self.q.popleft() if self.q else IDLE
            d.rx_flit.value = flit
            d.rx_flit_valid.value = 1
            await ReadOnly()
            if int(d.rst.value):
                continue
            if int(d.tx_flit_valid.value):
                self.tx.append(int(d.tx_flit.value))
            v = int(d.rx_valid.value)
            if v:
                hv, dv = d.rx_hdr.value, d.rx_data.value
                for c in range(NCLS):
                    if v >> c & 1:
                        p = {"hdr": lane_int(hv, c, 128)}
                        if c in (2, 5):
                            p["data"] = lane_int(dv, c // 5, 512)
                        self.got[c].append(p)

    async def idle_until_empty(self, extra: int = 0) -> None:
        while self.q:
            await FallingEdge(self.dut.clk)
        for _ in range(extra):
            await FallingEdge(self.dut.clk)

    def tx_controls(self) -> list[str]:
        out = []
        for f in self.tx:
            c = f68.parse_control(f)
            out.append(c.name if c is not None else "protocol")
        return out


async def start(dut: Any) -> Partner:
    announce_seed(dut._log)
    for s in ("rx_flit_valid", "tx_valid"):
        getattr(dut, s).value = 0
    p = Partner(dut)
    await ClockReset(dut.clk, dut.rst).start()
    p.task = cocotb.start_soon(p.run())
    p.q.extend([IDLE, IDLE, f68.init_param(31).encode()])
    return p


def random_queues(rng: random.Random, n: int) -> list[list[Any]]:
    qs: list[list[Any]] = [[] for _ in range(NCLS)]
    for c in supported_68b(peer()):
        qs[c] = [rand_msg(peer(), c, rng) for _ in range(n)]
    return qs


def pack_all(queues: list[list[Any]], gap: int = 4) -> tuple[list[int], list[f68.PackResult]]:
    """Greedy model packing of every queued message; `gap` idle flits after each flit that does
    not owe an all-data flit (lets a 16-deep RX buffer drain at one pop per cycle)."""
    packer = f68.Flit68Packer(peer())
    qs = [list(q) for q in queues]
    flits: list[int] = []
    results: list[f68.PackResult] = []
    while any(qs) or packer.rollover:
        r = packer.pack_adf() if packer.adf_due else packer.pack(qs)
        for c, k in enumerate(r.counts()):
            del qs[c][:k]
        flits.append(r.flit)
        results.append(r)
        if not packer.adf_due:
            flits.extend([IDLE] * gap)
    return flits, results


def expect(queues: list[list[Any]]) -> dict[int, list[dict[str, int]]]:
    return {c: [msg_payload(m) for m in q] for c, q in enumerate(queues)}


def status(dut: Any) -> dict[str, int]:
    return {n: int(getattr(dut, n).value) for n in
            ("link_up", "link_fatal", "stat_crc_err", "stat_retry", "stat_proto_err",
             "dbg_rx_overflow", "dbg_lrsm")}


@cocotb.test(timeout_time=200, timeout_unit="us")
async def model_flits_to_rtl_rx(dut: Any) -> None:
    """Model-packed flits (multi-message slots, ADFs) are decoded by the RTL RX exactly."""
    p = await start(dut)
    rng = named_rng("model_flits")
    queues = random_queues(rng, 40)
    flits, results = pack_all(queues)
    multi = sum(1 for r in results if r.kind == "protocol" and max(r.counts()) > 1)
    adfs = sum(1 for r in results if r.kind == "adf")
    dut._log.info(f"{len(results)} model flits, {multi} with several messages of a class, {adfs} ADFs")
    assert multi > 0 and adfs > 0, "stimulus did not exercise multi-message flits and ADFs"
    p.q.extend(flits)
    await p.idle_until_empty(60)
    st = status(dut)
    assert st["link_up"] == 1 and st["stat_proto_err"] == 0 and st["stat_crc_err"] == 0, st
    exp = expect(queues)
    for c in range(NCLS):
        assert p.got[c] == exp[c], f"class {c}: {len(p.got[c])} delivered, {len(exp[c])} expected; " \
                                   f"first difference at {next((i for i, (a, b) in enumerate(zip(p.got[c], exp[c])) if a != b), None)}"
    dut._log.info(f"delivered {[len(p.got[c]) for c in range(NCLS)]}")


@cocotb.test(timeout_time=200, timeout_unit="us")
async def crc_error_retry_handshake(dut: Any) -> None:
    """A corrupted flit is not delivered; the RTL sends 5 x RETRY.Frame + RETRY.Req(ESeq),
    discards retryable flits until a framed RETRY.Ack, then accepts the replay exactly once."""
    p = await start(dut)
    rng = named_rng("retry")
    queues = random_queues(rng, 6)
    flits, results = pack_all(queues, gap=0)
    k = next(i for i, r in enumerate(results) if r.kind == "protocol" and r.sent) + 1
    good, rest = flits[:k], flits[k:]
    p.q.extend(good)
    await p.idle_until_empty(30)
    n_good = {c: len(v) for c, v in p.got.items()}
    bit = rng.randrange(528)
    p.tx.clear()
    p.q.append(rest[0] ^ (1 << bit))         # CRC error
    p.q.extend(rest[1:3])                     # retryable flits the DUT must discard
    await p.idle_until_empty(40)
    st = status(dut)
    assert st["stat_crc_err"] == 1 and st["stat_retry"] == 1 and st["dbg_lrsm"] == 2, st
    assert {c: len(v) for c, v in p.got.items()} == n_good, "delivered from a bad or discarded flit"
    names = p.tx_controls()
    i_req = names.index("RETRY.Req")
    assert names[i_req - 5:i_req] == ["RETRY.Frame"] * 5, names[:i_req + 1]
    req = f68.parse_control(p.tx[i_req])
    assert req is not None and req.eseq == 1 + k and req.num_retry == 0, (req, k)
    # Answer: framed RETRY.Ack echoing NUM_RETRY, then replay from ESeq.
    p.q.extend([FRAME] * 5 + [f68.retry_ack(req.eseq, req.num_retry, empty=0).encode()])
    p.q.extend(rest)
    await p.idle_until_empty(60)
    st = status(dut)
    assert st["dbg_lrsm"] == 0 and st["stat_proto_err"] == 0 and st["link_fatal"] == 0, st
    exp = expect(queues)
    for c in range(NCLS):
        assert p.got[c] == exp[c], f"class {c}: {len(p.got[c])} delivered vs {len(exp[c])} expected"


def _illegal_variants(no_data: f68.PackResult, with_dh: f68.PackResult) -> dict[str, int]:
    """CRC-clean flits our RX must reject (proto_err), built from legal protocol flits."""
    body = no_data.flit & ((1 << 512) - 1)
    mdh_h = 3 if peer() == ROLE_DOWN else 2        # H3 (4 H2D DH) / H2 (4 D2H DH + Rsp)
    return {
        "reserved_slot_fmt": reflit(body | (0b111 << 8)),                    # slot 1 format 111b
        "mdh_slot0": reflit((body & ~(0b111 << 5)) | (mdh_h << 5)),
        "data_slot_not_owed": reflit(body & ~(0b111 << 8)),                  # slot 1 = G0
        "dh_sz32": reflit(with_dh.flit & ((1 << 512) - 1) & ~(1 << 4)),      # DH with Sz=0
        "unknown_llctrl": reflit(1 | (0x7 << 32)),
        "second_init": f68.init_param(31).encode(),
    }


@cocotb.test(timeout_time=200, timeout_unit="us")
async def illegal_flits_proto_err(dut: Any) -> None:
    """Each illegal CRC-clean flit raises stat_proto_err and link_fatal and delivers nothing;
    so does a protocol flit before INIT.Param and a second INIT.Param."""
    rng = random.Random(named_rng("illegal").getrandbits(32))
    qs = random_queues(rng, 1)
    no_data = f68.Flit68Packer(peer()).pack([q if c not in (2, 5) else [] for c, q in enumerate(qs)])
    with_dh = f68.Flit68Packer(peer()).pack([q if c == 2 else [] for c, q in enumerate(qs)])
    assert no_data.sent and with_dh.sent
    cases = _illegal_variants(no_data, with_dh)
    cases["protocol_before_init"] = no_data.flit
    p: Partner | None = None
    for name, flit in cases.items():
        if p is not None:
            p.task.cancel()
        p = await start(dut)
        if name == "protocol_before_init":
            p.q.clear()
            p.q.extend([IDLE, IDLE])
        await p.idle_until_empty(4)
        p.q.append(flit)
        await p.idle_until_empty(10)
        st = status(dut)
        dut._log.info(f"{name}: {st}")
        assert st["stat_proto_err"] == 1 and st["link_fatal"] == 1, (name, st)
        assert not any(p.got.values()), (name, "message delivered from an illegal flit")
