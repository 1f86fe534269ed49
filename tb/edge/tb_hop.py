"""pyuvm bench of rtl/edge/sp_hop (LINKS = 1): the hop's error statistics under a lossy wire.

The hop is a cxl_link pair joined by two sp_flit_wire stages. Its outputs `stat_crc` and
`stat_retry` are the saturating 16-bit sums of its two endpoints' counters, and `stat_flips`
counts the flits the two wires hit. Checked:
- every cycle, stat_crc = min(host + device CRC errors, 0xFFFF) and likewise stat_retry, the
  endpoints' counters read inside the hop (tb/edge/hdl/sp_hop_public.vlt);
- after each error phase, once the wires are quiet and the retries done, the CRC errors grew by
  exactly the flits the wires hit (every hit flit fails its CRC, rtl/link/README.md);
- the links never go fatal, and retries happen.
The first phases run from reset (sums below the limit). Then, with the wires quiet, the bench loads
both endpoints' counters so that each sum lies a random distance below 0xFFFF, and runs further
phases until both sums have saturated: a counter never wraps and the sum stays at 0xFFFF. (Reaching
the limit from reset takes about 2^16 corrupted flits: two minutes of simulation.)
"""
from __future__ import annotations

import random

import cocotb
import pyuvm
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly
from pyuvm import uvm_component, uvm_env, uvm_test

from tb.common.clock import ClockReset
from tb.common.coverage import CoverageCollector
from tb.common.seeds import announce_seed, component_rng

SAT = 0xFFFF


def sat_sum(a: int, b: int) -> int:
    return min(a + b, SAT)


class HopStats(uvm_component):
    """Checks the hop's summed statistics against its endpoints' counters every cycle."""

    def __init__(self, name: str, parent) -> None:
        super().__init__(name, parent)
        self.errors: list[str] = []
        self.cycles = 0
        self.sat_seen = {"crc": False, "retry": False}

    def counters(self) -> dict[str, int]:
        g = cocotb.top.g_link
        return {"h_crc": int(g.u_host.stat_crc_err.value), "d_crc": int(g.u_dev.stat_crc_err.value),
                "h_retry": int(g.u_host.stat_retry.value), "d_retry": int(g.u_dev.stat_retry.value)}

    def load(self, c: dict[str, int]) -> None:
        g = cocotb.top.g_link
        g.u_host.stat_crc_err.value, g.u_dev.stat_crc_err.value = c["h_crc"], c["d_crc"]
        g.u_host.stat_retry.value, g.u_dev.stat_retry.value = c["h_retry"], c["d_retry"]

    async def run_phase(self) -> None:
        dut = cocotb.top
        while True:
            await FallingEdge(dut.clk)
            await ReadOnly()
            if int(dut.rst.value):
                continue
            self.cycles += 1
            c = self.counters()
            for kind in ("crc", "retry"):
                got = int(getattr(dut, f"stat_{kind}").value)
                exp = sat_sum(c[f"h_{kind}"], c[f"d_{kind}"])
                if got != exp and len(self.errors) < 20:
                    self.errors.append(f"cycle {self.cycles}: stat_{kind} {got:#x}, endpoints "
                                       f"{c[f'h_{kind}']:#x} + {c[f'd_{kind}']:#x}: expected {exp:#x}")
                if exp == SAT:
                    self.sat_seen[kind] = True
            if int(dut.link_fatal.value) and len(self.errors) < 20:
                self.errors.append(f"cycle {self.cycles}: a link went fatal")


class HopEnv(uvm_env):
    def build_phase(self) -> None:
        self.stats = HopStats("stats", self)
        self.cov = CoverageCollector("cov", self, enforce=True)


@pyuvm.test(timeout_time=1000, timeout_unit="us")
class HopStatSaturationTest(uvm_test):
    """Bit errors on both wires in phases of random length and rate; the summed statistics are
    exact below 0xFFFF and stay at 0xFFFF above it."""

    def build_phase(self) -> None:
        self.env = HopEnv("env", self)
        self.rng = component_rng(self)

    def end_of_elaboration_phase(self) -> None:
        self.cg = self.env.cov.group("hop_stats")
        self.cg.coverpoint("crc", ["exact", "saturated"])
        self.cg.coverpoint("retry", ["exact", "saturated"])

    async def errors_phase(self, n: int) -> int:
        """One phase of bit errors, then quiet until the retries are done: the flits hit."""
        dut, r = cocotb.top, self.rng
        f0 = int(dut.stat_flips.value)
        c0 = self.env.stats.counters()
        # per-flit error probability 1/64 .. 1/8: most retry sequences get through, and the idle
        # flits the links exchange carry the errors
        dut.ber_thresh.value = r.randint(1 << 26, 1 << 29)
        dut.ber_en.value = 1
        await ClockCycles(dut.clk, r.randint(500, 2500))
        dut.ber_en.value = 0
        await ClockCycles(dut.clk, 300)
        await FallingEdge(dut.clk)
        hit = int(dut.stat_flips.value) - f0
        c1 = self.env.stats.counters()
        grew = c1["h_crc"] - c0["h_crc"] + c1["d_crc"] - c0["d_crc"]
        capped = SAT in (c1["h_crc"], c1["d_crc"])
        if not capped:
            assert grew == hit, f"phase {n}: the endpoints counted {grew} CRC errors, the wires hit {hit} flits"
        for kind in ("crc", "retry"):
            s = sat_sum(c1[f"h_{kind}"], c1[f"d_{kind}"])
            self.cg.sample(**{kind: "saturated" if s == SAT else "exact"})
        self.logger.info(f"phase {n}: {hit} flits hit, endpoints {c1}, stat_crc "
                         f"{int(dut.stat_crc.value):#x}, stat_retry {int(dut.stat_retry.value):#x}")
        return hit

    async def run_phase(self) -> None:
        self.raise_objection()
        announce_seed(self.logger)
        dut, r, st = cocotb.top, self.rng, self.env.stats
        for s in ("h_tx_valid", "d_tx_valid", "h_tx_hdr", "d_tx_hdr", "h_tx_data", "d_tx_data",
                  "ber_en", "ber_thresh"):
            getattr(dut, s).value = 0
        dut.h_rx_ready.value = (1 << 6) - 1
        dut.d_rx_ready.value = (1 << 6) - 1
        await ClockReset(dut.clk, dut.rst).start()
        for _ in range(2000):
            if int(dut.link_up.value):
                break
            await FallingEdge(dut.clk)
        assert int(dut.link_up.value), "the hop's links did not come up"
        n = 0
        for _ in range(3):                       # from reset: exact sums
            n += 1
            await self.errors_phase(n)
        c = st.counters()
        assert c["h_retry"] + c["d_retry"] > 0, f"no retry after {n} error phases"
        # both sums a random distance below the limit, split at random between the endpoints
        load = {}
        for kind, room in (("crc", r.randint(50, 1500)), ("retry", r.randint(1, 12))):
            total = SAT - room
            h = r.randint(total // 4, 3 * total // 4)
            load[f"h_{kind}"], load[f"d_{kind}"] = h, total - h
        st.load(load)
        self.logger.info(f"loaded {load}")
        await ClockCycles(dut.clk, 2)
        while not all(st.sat_seen.values()):
            n += 1
            assert n < 60, f"sums not saturated after {n} phases: {st.counters()}"
            await self.errors_phase(n)
        for kind in ("crc", "retry"):
            assert int(getattr(dut, f"stat_{kind}").value) == SAT, f"stat_{kind} left 0xFFFF"
        await ClockCycles(dut.clk, 2)
        assert not st.errors, "; ".join(st.errors[:4])
        self.logger.info(f"{st.cycles} cycles checked, {n} phases")
        self.drop_objection()
