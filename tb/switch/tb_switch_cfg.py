"""pyuvm test of cxl_switch_cfg as the top (only its ports and `cnt` public:
tb/switch/hdl/cxl_switch_cfg_public.vlt): the 16 event counters through every carry length and the wrap.

A 32-bit counter cannot count to 2^32 in a simulation, so its upper bits and the prefix-AND carry
network above bit 5 never run in the switch benches. Here each episode loads every counter
(through the simulator, into `cnt`) with a random value whose bits 5..b-1 are all ones for a
carry length b of 5..32 (b = 32: the counter wraps) and whose bits above b are random or all ones,
then drives random per-port events (`ev`, `ev_unsup`) and rejected register writes, and reads
every counter through the register port: each must equal its loaded value plus the events counted
by the test, modulo 2^32 (counter k sums bit k of every port's `ev`, counter 12 `ev_unsup`
instead, counter 15 rejected writes; bits 12 and 15 of `ev` are driven too and must not count).
Each counter goes through every carry length over the episodes. A clear at the end must read 0
everywhere."""
from __future__ import annotations

import cocotb
import pyuvm
from cocotb.triggers import FallingEdge
from pyuvm import uvm_test

from tb.common.cfg_agent import CfgAgent
from tb.common.clock import ClockReset
from tb.common.seeds import announce_seed, component_rng
from tb.switch.regs import A_CLEAR, A_COUNT, A_ERR, A_PORT, COUNTERS, ERR, RESP_OK, RESP_REJ

NCNT = 16
MASK = (1 << 32) - 1


@pyuvm.test(timeout_time=500, timeout_unit="us")
class CfgCounterCarry(uvm_test):
    min_b, max_b = 5, 32           # carry lengths: into bit b (32: past the top, the wrap)

    def build_phase(self) -> None:
        self.rng = component_rng(self)

    async def quiet(self, cycles: int = 4) -> None:
        """No events for `cycles` cycles: the event and sum registers are empty after 2."""
        dut = cocotb.top
        for _ in range(cycles):
            await FallingEdge(dut.clk)
            dut.ev.value = 0
            dut.ev_unsup.value = 0

    async def events(self, cycles: int, p: float) -> None:
        """Random events (each bit set with probability p) for `cycles` cycles, counted here."""
        dut, rng, n = cocotb.top, self.rng, self.n
        for _ in range(cycles):
            await FallingEdge(dut.clk)
            ev = sum(1 << i for i in range(16 * n) if rng.random() < p)
            un = sum(1 << q for q in range(n) if rng.random() < p)
            dut.ev.value = ev
            dut.ev_unsup.value = un
            for q in range(n):
                for c in range(15):
                    if c != 12:
                        self.want[c] += (ev >> (q * 16 + c)) & 1
            self.want[12] += bin(un).count("1")

    def load(self, k: int) -> None:
        """Counter c gets carry length b = min_b + (k + 3c) mod span: bits 5..b-1 ones, bit b zero
        (so the carry stops there; b = 32 wraps), random bits below, random or all-ones bits
        above. Counter 15 counts only the few rejected writes of an episode, so its ones start at
        bit 0."""
        span = self.max_b - self.min_b + 1
        rng, v = self.rng, 0
        for c in range(NCNT):
            b = self.min_b + (k + 3 * c) % span
            ones = ((1 << b) - 1) & ~(0 if c == 15 else 31)
            # above bit b: random, or (odd episodes) all ones, where a carry that leaks past the
            # zero at bit b would flip every bit above it
            above = (MASK if k % 2 else rng.getrandbits(32)) & ~((2 << b) - 1) & MASK
            low = 0 if c == 15 else rng.getrandbits(5)
            self.want[c] = above | ones | low
            v |= self.want[c] << (32 * c)
        cocotb.top.cnt.value = v

    async def check(self, what: str) -> None:
        got = await self.agent.read_block(A_COUNT, COUNTERS)
        want = {name: self.want[c] & MASK for c, name in enumerate(COUNTERS)}
        diffs = {k: (hex(got[k]), hex(want[k])) for k in want if got[k] != want[k]}
        assert not diffs, f"{what}: counters differ (rtl, expected): {diffs}"
        self.want = [want[name] for name in COUNTERS]

    async def run_phase(self) -> None:
        self.raise_objection()
        dut, rng = cocotb.top, self.rng
        announce_seed(self.logger)
        self.n = len(dut.ev_unsup)
        dut.cfg_valid.value = 0
        dut.ev.value = 0
        dut.ev_unsup.value = 0
        await ClockReset(dut.clk, dut.rst).start()
        self.agent = CfgAgent(dut, resp_ok=RESP_OK)
        self.want = [0] * NCNT
        await self.check("after reset")
        episodes = self.max_b - self.min_b + 1
        for k in range(episodes):
            await self.quiet()
            self.load(k)
            await self.quiet(1)
            await self.events(rng.randint(24, 48), rng.choice((0.2, 0.5, 0.9)))
            await self.quiet()
            for _ in range(3):      # role 3 is reserved: rejected, counted in counter 15
                resp, _ = await self.agent.access(A_PORT + rng.randrange(self.n), 3 << 1)
                assert resp == RESP_REJ, f"write of role 3 answered {resp}, expected rejection"
                self.want[15] += 1
            _, err = await self.agent.access(A_ERR, write=False)
            assert err == ERR["role"], f"ERR {err} after a role-3 write"
            await self.check(f"episode {k}")
        await self.events(16, 0.5)
        await self.quiet()
        resp, _ = await self.agent.access(A_CLEAR, 0)
        assert resp == RESP_OK, f"counter clear answered {resp}"
        self.want = [0] * NCNT
        await self.check("after clear")
        self.logger.info(f"counters: {episodes} episodes, carry lengths {self.min_b}..{self.max_b} on every counter")
        self.drop_objection()
