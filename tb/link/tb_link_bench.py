"""Measurement run for tb/link/bench.py (not a pass/fail test of behaviour; it still fails if the
link loses or reorders messages). Writes a JSON dict to $LINK_BENCH_OUT."""
from __future__ import annotations

import json
import os
import time

import cocotb
import pyuvm
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

from tb.common.clock import cycle_at
from tb.link.link_env import LinkCfg
from tb.link.tb_link import LinkBaseTest


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class BenchTest(LinkBaseTest):
    """Saturating traffic both ways, then single bit flips A->B to time the retry recovery."""

    def make_cfg(self) -> LinkCfg:
        n = int(os.environ.get("LINK_BENCH_MSGS", "200"))
        return LinkCfg(n_msgs=n, tx_idle_p=1.0, cover_formats=False, drain_cycles=40000)

    async def body(self) -> None:
        dut = cocotb.top
        fm_a = self.env.fmon["a"]
        self.send_all()
        t0, c0 = time.perf_counter(), cycle_at()
        # Saturation window: skip the start-up, stop before the queues run dry.
        for _ in range(20):
            await RisingEdge(dut.clk)
        k0, rx0, m0 = dict(fm_a.kinds), fm_a.n_commit, self.env.agent["b"].n_rx[:]
        w0 = cycle_at()
        window = int(self.cfg.n_msgs * 0.6)
        for _ in range(window):
            await RisingEdge(dut.clk)
        w1 = cycle_at()
        k1, rx1, m1 = dict(fm_a.kinds), fm_a.n_commit, self.env.agent["b"].n_rx[:]
        payload = sum(k1.get(k, 0) - k0.get(k, 0) for k in ("protocol", "adf"))
        cycles = w1 - w0
        # Retry recovery: one flipped bit on A->B, cycles until B commits a flit again.
        rec: list[int] = []
        for _ in range(5):
            await FallingEdge(dut.clk)
            t_err = cycle_at()
            dut.ab_flip.value = 1 << 100
            await FallingEdge(dut.clk)
            dut.ab_flip.value = 0
            for _ in range(2000):
                await ReadOnly()
                if int(dut.b_rx_commit.value):
                    rec.append(cycle_at() - t_err)
                    break
                await FallingEdge(dut.clk)
            for _ in range(30):
                await RisingEdge(dut.clk)
        drained = await self.env.drain(self.cfg.drain_cycles)
        wall = time.perf_counter() - t0
        total_cycles = cycle_at() - c0
        assert drained, "messages lost or stuck during the benchmark"
        msgs = sum(m1) - sum(m0)
        res = {
            "link.tx_flits_per_cycle": payload / cycles,
            "link.rx_flits_per_cycle": (rx1 - rx0) / cycles,
            "link.msgs_per_cycle": msgs / cycles,
            "link.retry_recovery_cycles": sum(rec) / len(rec) if rec else float("nan"),
            "link.retry_recovery_cycles_max": max(rec) if rec else float("nan"),
            "cosim.cycles_per_second": total_cycles / wall,
        }
        self.logger.info(f"bench: {res}")
        out = os.environ.get("LINK_BENCH_OUT")
        if out:
            with open(out, "w") as f:
                json.dump(res, f, indent=1)
