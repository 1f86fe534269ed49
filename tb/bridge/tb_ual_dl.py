"""cocotb tests of the UALink-style DL flit packer/unpacker against models.bridge.packets."""
from __future__ import annotations

import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly

from models.bridge.packets import BEAT_BITS, DL_VALID_LSB, UAL_DL_SLOTS, dl_pack, dl_unpack
from tb.common.clock import ClockReset
from tb.common.seeds import announce_seed, named_rng


def dl_flit_int(value: object) -> int:
    """A DL flit read from the DUT. Slots its valid mask leaves empty carry no data (the packer's
    slot storage is not reset: X on a 4-state simulator) and read as 0; an X anywhere else fails."""
    bits = str(value)
    width = len(bits)
    vmask = int(bits[width - DL_VALID_LSB - UAL_DL_SLOTS:width - DL_VALID_LSB], 2)
    chars = list(bits)
    for i in range(UAL_DL_SLOTS):
        if not vmask >> i & 1:
            lo = BEAT_BITS * (i + 1)
            chars[width - lo - BEAT_BITS:width - lo] = "0" * BEAT_BITS
    return int("".join(chars), 2)


@cocotb.test(timeout_time=200, timeout_unit="us")
async def dl_rx_random(dut: object) -> None:
    """Random DL flits (1..9 slots, random last bits, sequence gaps) with stalls on both sides."""
    announce_seed()
    rng: random.Random = named_rng("dl_rx")
    dut.dl_valid.value = 0
    dut.tl_ready.value = 0
    await ClockReset(dut.clk, dut.rst).start()
    flits, expect, gaps, seq = [], [], 0, 0
    for _ in range(150):
        n = rng.randint(1, UAL_DL_SLOTS)
        slots = [(rng.getrandbits(512), rng.random() < 0.4) for _ in range(n)]
        if rng.random() < 0.05:
            seq = (seq + 1) & 0xFF
            gaps += 1
        flits.append(dl_pack(slots, seq))
        expect += slots
        seq = (seq + 1) & 0xFF
    got: list[tuple[int, bool]] = []
    i = 0
    holding = False                                # a presented flit stays until taken
    for _ in range(20000):
        await FallingEdge(dut.clk)
        if i < len(flits) and (holding or rng.random() < 0.8):
            dut.dl_valid.value = 1
            dut.dl_flit.value = flits[i]
            holding = True
        else:
            dut.dl_valid.value = 0
        dut.tl_ready.value = int(rng.random() < 0.7)
        await ReadOnly()
        if int(dut.tl_valid.value) and int(dut.tl_ready.value):
            got.append((int(dut.tl_data.value), bool(int(dut.tl_last.value))))
        if int(dut.dl_valid.value) and int(dut.dl_ready.value):
            i += 1
            holding = False
        if len(got) == len(expect):
            break
    assert got == expect, f"{len(got)}/{len(expect)} TL flits, first difference at " \
        f"{next((k for k, (a, b) in enumerate(zip(got, expect)) if a != b), len(got))}"
    await FallingEdge(dut.clk)
    assert int(dut.stat_seq_err.value) == gaps, f"seq errors {int(dut.stat_seq_err.value)} != {gaps}"


@cocotb.test(timeout_time=200, timeout_unit="us")
async def dl_tx_random(dut: object) -> None:
    """Random TL beats with idle gaps and DL back-pressure: DL flits carry them all, in order,
    with consecutive sequence numbers; continuous input yields full 9-slot flits."""
    announce_seed()
    rng: random.Random = named_rng("dl_tx")
    dut.tl_valid.value = 0
    dut.dl_ready.value = 0
    await ClockReset(dut.clk, dut.rst).start()
    beats = [(rng.getrandbits(512), rng.random() < 0.3) for _ in range(600)]
    sent, out = 0, []
    burst = 0
    for _ in range(20000):
        await FallingEdge(dut.clk)
        if sent < len(beats) and not (int(dut.tl_valid.value) and not int(dut.tl_ready.value)):
            if burst == 0 and rng.random() < 0.1:
                burst = rng.randint(1, 5)          # idle gap
            if burst:
                burst -= 1
                dut.tl_valid.value = 0
            else:
                dut.tl_valid.value = 1
                dut.tl_data.value, dut.tl_last.value = beats[sent][0], int(beats[sent][1])
        elif sent >= len(beats):
            dut.tl_valid.value = 0
        dut.dl_ready.value = int(rng.random() < 0.6)
        await ReadOnly()
        if int(dut.tl_valid.value) and int(dut.tl_ready.value):
            sent += 1
        if int(dut.dl_valid.value) and int(dut.dl_ready.value):
            out.append(dl_flit_int(dut.dl_flit.value))
        if sent == len(beats) and sum(len(dl_unpack(f)[0]) for f in out) == len(beats):
            break
    got = []
    full = 0
    for k, f in enumerate(out):
        slots, seq = dl_unpack(f)
        assert seq == k & 0xFF, f"DL flit {k} has sequence {seq}"
        assert slots, f"DL flit {k} is empty"
        full += len(slots) == UAL_DL_SLOTS
        got += slots
    assert got == beats, f"{len(got)}/{len(beats)} TL flits came back in order"
    assert full > len(out) // 3, f"only {full}/{len(out)} DL flits were full"
    dut._log.info(f"{len(out)} DL flits, {full} full, {len(beats) / len(out):.2f} slots/flit")
