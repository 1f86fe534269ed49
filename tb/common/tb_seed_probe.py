"""Seed probe on sync_fifo (tests/test_runner_ux.py): proves that the seed a run prints reproduces it.

``seeded_traffic`` pushes random data with random idles and back-pressure (drawn from cocotb's
per-test seed and from tb.common.seeds.named_rng), records the draws and what came out of the FIFO
to the JSON file named by SEED_PROBE_OUT, and fails on purpose when SEED_PROBE_FAIL=1 (a failing
test whose printed reproduce command is then checked). ``second_test`` lets TESTCASE pick one of two.
"""
from __future__ import annotations

import json
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.simtime import get_sim_time
from cocotb.triggers import ReadOnly, RisingEdge

from tb.common.seeds import announce_seed, base_seed, named_rng, test_seed


async def _traffic(dut, n: int) -> dict:
    Clock(dut.clk, 1, unit="ns").start()
    dut.rst.value = 1
    dut.in_valid.value = 0
    dut.out_ready.value = 0
    dut.in_data.value = 0
    for _ in range(2):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    rng = named_rng("probe")
    sent, got = [], []
    pending = [random.getrandbits(8) for _ in range(n)]   # cocotb's per-test seeded `random`
    while len(got) < n:
        dut.in_valid.value = int(bool(pending) and rng.random() < 0.7)
        dut.in_data.value = pending[0] if pending else 0
        dut.out_ready.value = int(rng.random() < 0.6)
        await ReadOnly()
        push = int(dut.in_valid.value) and int(dut.in_ready.value)
        pop = int(dut.out_valid.value) and int(dut.out_ready.value)
        if pop:
            got.append(int(dut.out_data.value))
        await RisingEdge(dut.clk)
        if push:
            sent.append(pending.pop(0))
    assert got == sent[:len(got)], "FIFO reordered or lost data"
    return {"base_seed": base_seed(), "test_seed": test_seed(), "data": got, "ns": get_sim_time("ns")}


@cocotb.test(timeout_time=50, timeout_unit="us")
async def seeded_traffic(dut) -> None:
    announce_seed(dut._log)
    rec = await _traffic(dut, 40)
    out = os.environ.get("SEED_PROBE_OUT")
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            json.dump(rec, fh)
    assert os.environ.get("SEED_PROBE_FAIL") != "1", "failing on purpose (SEED_PROBE_FAIL=1)"


@cocotb.test(timeout_time=50, timeout_unit="us")
async def second_test(dut) -> None:
    announce_seed(dut._log)
    await _traffic(dut, 8)
