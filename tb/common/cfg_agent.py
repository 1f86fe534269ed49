"""Config-register agent: one request/response port of the form every register block here uses.

Port (the DUT's names, optionally with a select for tops that hold several register blocks):
    cfg_valid, cfg_write, cfg_addr, cfg_wdata   in   a request, held until taken
    cfg_ready                                   out  the request is taken at a rising edge with
                                                     cfg_valid && cfg_ready
    cfg_rvalid, cfg_resp, cfg_rdata             out  the answer: cfg_rvalid for one cycle, in a
                                                     cycle after the one that took the request
    cfg_sel                                     in   (optional) which register block answers

`CfgAgent.access` presents one access, holds it until cfg_ready takes it, then waits for cfg_rvalid
and returns (resp, rdata) of that answer; one access is outstanding at a time, so answers cannot be
confused. Neither wait is open-ended: a request not taken within `max_wait` cycles, or not answered
within `max_wait` cycles after it was taken, raises CfgAccessError (a missing answer is an error,
never a silent zero). Two ways to move one cycle:
  * default (edges): drive right after a falling edge, sample cfg_ready in ReadOnly of that phase
    (so a ready that depends on inputs just driven, e.g. through a cfg_sel mux, is read settled),
    let the rising edge take the access, look for the answer in ReadOnly after each later falling
    edge: tb/common's timing rule, safe at any call time;
  * `step=` a coroutine that advances exactly one clock cycle from the phase the caller keeps
    (the bulk co-simulation harness waits on timers, not edges, so it hands its own step in). In
    that phase the outputs are settled after the last rising edge; cfg_ready is read right after
    the request is driven, so it must not depend combinationally on what was just driven. It does
    through a cfg_sel mux, but with one access outstanding every block behind the mux is idle
    when an access starts, and a stale low ready only costs a cycle.
`program` writes a list of (addr, data) pairs and fails on the first rejected one; `check_reads`
reads a list of (addr, expected value) pairs and fails on the first that differs; `read_block`
reads consecutive registers into a dict of names. The register map itself (addresses, the "accepted"
response code `resp_ok`, counter names) belongs to the block's model (e.g. tb/switch/regs.py) and is
handed in, never kept here.
"""
from __future__ import annotations

from typing import Any, Awaitable, Callable, Iterable, Sequence

from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge


class CfgAccessError(RuntimeError):
    """A register access got no answer, or a write was rejected."""


class CfgAgent:
    def __init__(self, dut: Any, *, resp_ok: int, clk: Any = None, sel: str | None = None,
                 step: Callable[[], Awaitable[None]] | None = None, prefix: str = "cfg_",
                 max_wait: int = 64) -> None:
        self.dut = dut
        self.clk = clk if clk is not None else getattr(dut, "clk", None)
        self._step = step
        if step is None and self.clk is None:
            raise ValueError("CfgAgent: no clock (pass clk= or step=)")
        sig = lambda n: getattr(dut, prefix + n)   # noqa: E731
        self.valid, self.write, self.addr, self.wdata = sig("valid"), sig("write"), sig("addr"), sig("wdata")
        self.ready = sig("ready")
        self.rvalid, self.resp, self.rdata = sig("rvalid"), sig("resp"), sig("rdata")
        self.sel = getattr(dut, prefix + sel) if sel else None
        self.resp_ok = resp_ok
        self.max_wait = max_wait            # cycles to wait for cfg_ready, then for cfg_rvalid
        self.accesses = 0
        self.last_latency = 0               # cycles from the cycle that took the last access to its answer

    def idle(self) -> None:
        """Drive the request inputs to their idle values (call before reset)."""
        self.valid.value = 0
        self.write.value = 0
        self.addr.value = 0
        self.wdata.value = 0
        if self.sel is not None:
            self.sel.value = 0

    async def _cycle(self) -> None:
        """Move one clock cycle, to the phase where inputs may be driven."""
        if self._step is None:
            await RisingEdge(self.clk)
            await FallingEdge(self.clk)
        else:
            await self._step()

    async def _settle(self) -> None:
        if self._step is None:
            await ReadOnly()

    async def access(self, addr: int, data: int = 0, write: bool = True, sel: int = 0) -> tuple[int, int]:
        """One access; returns (resp, rdata) of its answer."""
        what = f"register {'write' if write else 'read'} {addr:#x} (sel {sel})"
        if self._step is None:
            await FallingEdge(self.clk)
        if self.sel is not None:
            self.sel.value = sel
        elif sel:
            raise ValueError(f"register access with sel={sel}: this port has no select")
        self.valid.value = 1
        self.write.value = int(write)
        self.addr.value = addr
        self.wdata.value = data
        # hold the request until a rising edge sees cfg_ready
        for _ in range(self.max_wait):
            await self._settle()
            taken = int(self.ready.value) == 1
            await self._cycle()
            if taken:
                break
        else:
            self.valid.value = 0
            raise CfgAccessError(f"{what}: not taken (cfg_ready low for {self.max_wait} cycles)")
        self.valid.value = 0
        self.accesses += 1
        # the answer: cfg_rvalid in this cycle or a later one (sampled once per cycle: it is a pulse)
        for n in range(1, self.max_wait + 1):
            await self._settle()
            if int(self.rvalid.value) == 1:
                self.last_latency = n
                return int(self.resp.value), int(self.rdata.value)
            await self._cycle()
        raise CfgAccessError(f"{what}: no response within {self.max_wait} cycles")

    async def program(self, writes: Iterable[Any], sel: int = 0) -> None:
        """Write every (addr, data) (or object with .addr and .data); fail on the first rejected one."""
        for w in writes:
            addr, data = (w.addr, w.data) if hasattr(w, "addr") else w
            resp, _ = await self.access(addr, data, True, sel)
            if resp != self.resp_ok:
                raise CfgAccessError(f"register write {addr:#x} <- {data:#x} (sel {sel}) rejected (resp {resp})")

    async def check_reads(self, expect: Iterable[tuple[int, int]], sel: int = 0) -> None:
        """Read every (addr, value) and fail on the first answer that is not accepted or differs."""
        for addr, value in expect:
            resp, rdata = await self.access(addr, write=False, sel=sel)
            if resp != self.resp_ok or rdata != value:
                raise CfgAccessError(f"register read {addr:#x} (sel {sel}): resp {resp}, {rdata:#x}, "
                                     f"expected {value:#x}")

    async def read_block(self, base: int, names: Sequence[str], sel: int = 0) -> dict[str, int]:
        """Read registers base, base+1, ... into {name: value}."""
        out = {}
        for k, name in enumerate(names):
            _, out[name] = await self.access(base + k, write=False, sel=sel)
        return out
