"""Cycle-level measurement runs for tb/switch/bench.py (plain cocotb loops, no scoreboard: the
behaviour is verified by tb_switch; here only timing is counted). Results go to $BENCH_OUT (JSON).

Setup: every port is a PBR fabric port, DPID 0x100+k routes to port k, each source offers one
M2S Req per cycle (offered load 1.0, the next message is presented as soon as one is accepted),
every egress is always ready. Line rate = one message per cycle per port."""
from __future__ import annotations

import json
import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly

from models.cxl.messages import M2SReq, M2SReqOp
from models.switch import PortConfig, SwitchConfig
from tb.common.clock import ClockReset
from tb.common.seeds import test_seed
from tb.switch.env import program
from tb.switch.regs import config_writes

WARMUP = 300
WINDOW = int(os.environ.get("BENCH_WINDOW", "3000"))


def fabric_cfg(n: int) -> SwitchConfig:
    return SwitchConfig("pbr", [PortConfig.fabric() for _ in range(n)], [], routes={0x100 + k: k for k in range(n)})


def hdr_to(dest: int, tag: int) -> int:
    return M2SReq(memop=int(M2SReqOp.MEMRD), tag=tag & 0xFFFF, addr=tag, spid=0x0AA, dpid=0x100 + dest).to_canonical()


async def setup(dut, n: int) -> None:
    dut.in_valid.value = 0
    dut.out_ready.value = 0
    dut.cfg_valid.value = 0
    await ClockReset(dut.clk, dut.rst).start()
    await program(dut, config_writes(fabric_cfg(n), 4))


async def saturate(dut, n: int, pick) -> tuple[list[int], list[list[int]]]:
    """Drive every source at load 1.0 with destinations from pick(src, rng); return delivered
    messages per egress and per (src, egress) inside the measurement window."""
    rng = random.Random(test_seed())
    await FallingEdge(dut.clk)
    dut.out_ready.value = (1 << 4 * n) - 1
    cur = [pick(s, rng) for s in range(n)]
    tags = [s << 12 for s in range(n)]
    delivered = [0] * n
    per_src = [[0] * n for _ in range(n)]
    for cyc in range(WARMUP + WINDOW):
        await FallingEdge(dut.clk)
        valid, hdr = 0, 0
        for s in range(n):
            if cur[s] is not None:
                valid |= 1 << (4 * s)
                hdr |= hdr_to(cur[s], tags[s]) << (512 * s)
        dut.in_valid.value = valid
        dut.in_hdr.value = hdr
        await ReadOnly()
        acc = valid & int(dut.in_ready.value)
        out = int(dut.out_valid.value)
        if out and cyc >= WARMUP:
            oh = int(dut.out_hdr.value)
            for e in range(n):
                if out >> (4 * e) & 1:
                    delivered[e] += 1
                    tag = (oh >> (512 * e + 11)) & 0xFFFF  # M2S Req Tag[15:0] at bit 11
                    per_src[tag >> 12][e] += 1
        for s in range(n):
            if acc >> (4 * s) & 1:
                tags[s] = (s << 12) | ((tags[s] + 1) & 0xFFF)
                cur[s] = pick(s, rng)
    return delivered, per_src


def write(results: dict[str, float]) -> None:
    path = os.environ.get("BENCH_OUT")
    if path:
        old = json.loads(open(path).read()) if os.path.exists(path) else {}
        old.update(results)
        with open(path, "w") as f:
            json.dump(old, f, indent=1)


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def bench_latency(dut) -> None:
    n = len(dut.in_valid) // 4
    await setup(dut, n)
    lat = []
    for dest in range(1, n):
        await FallingEdge(dut.clk)
        dut.out_ready.value = (1 << 4 * n) - 1
        dut.in_valid.value = 1
        dut.in_hdr.value = hdr_to(dest, dest)
        t0 = None
        for cyc in range(40):
            await ReadOnly()
            if t0 is None:
                t0 = cyc
                accepted = int(dut.in_ready.value) & 1
            if int(dut.out_valid.value):
                lat.append(cyc - t0)
                break
            await FallingEdge(dut.clk)
            if accepted:
                dut.in_valid.value = 0
            else:
                accepted = int(dut.in_ready.value) & 1
        await FallingEdge(dut.clk)
        dut.in_valid.value = 0
        for _ in range(10):
            await FallingEdge(dut.clk)
    assert len(lat) == n - 1, f"some message never left: {lat}"
    write({"switch.zero_load_latency_cycles": float(max(lat)), "switch.zero_load_latency_ns": float(max(lat)) * 1.0})


@cocotb.test(timeout_time=20000, timeout_unit="us")
async def bench_uniform(dut) -> None:
    n = len(dut.in_valid) // 4
    await setup(dut, n)

    def pick(s: int, rng: random.Random) -> int:
        d = rng.randrange(n - 1)
        return d + (d >= s)  # uniform over the other ports (a U-turn is a misroute)
    delivered, _ = await saturate(dut, n, pick)
    frac = sum(delivered) / (n * WINDOW)
    key = "switch.saturation_throughput_uniform" + ("" if int(dut.VOQ.value) else "_novoq")
    write({key: round(frac, 4)})


@cocotb.test(timeout_time=20000, timeout_unit="us")
async def bench_incast(dut) -> None:
    n = len(dut.in_valid) // 4
    await setup(dut, n)

    def pick(s: int, rng: random.Random) -> int | None:
        return 0 if s != 0 else None
    delivered, per_src = await saturate(dut, n, pick)
    x = [per_src[s][0] for s in range(1, n)]
    jain = sum(x) ** 2 / (len(x) * sum(v * v for v in x)) if any(x) else 0.0
    write({"switch.incast_fairness_jain": round(jain, 4), "switch.incast_egress_utilization": round(delivered[0] / WINDOW, 4)})
