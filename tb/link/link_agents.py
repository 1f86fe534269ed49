"""Per-endpoint message agent for cxl_link: all six classes of one endpoint in one coroutine.

Why local: the tb/common VRAgent (one driver + monitor + sink coroutine per class) costs ~40
coroutine wake-ups per clock for two endpoints and ran the loopback at ~900 cycles/s; this agent
does the same job (drive tx_* per class with idle cycles, drive rx_ready from a pattern, publish
every transferred beat per class) with one wake-up pair per clock.

Timing discipline as in tb.common.vr_agent: drive right after the falling edge, sample in ReadOnly
(the values the DUT sees at the next rising edge, where valid && ready transfers a beat).
"""
from __future__ import annotations

from collections import deque
from typing import Any

from cocotb.triggers import FallingEdge, ReadOnly
from pyuvm import uvm_analysis_port, uvm_component

from tb.common.clock import cycle_at
from tb.common.patterns import Pattern
from tb.common.signals import lane_int
from tb.common.vr_agent import Beat

DATA_LANE = {2: 0, 5: 1}


class EndpointAgent(uvm_component):
    """Drives ``<ep>_tx_*`` and ``<ep>_rx_ready``; publishes beats on ``ap_tx[c]`` / ``ap_rx[c]``.

    ``send(c, payloads)`` queues payload dicts ({"hdr": int, "data": int}) for class c;
    ``idle[c]`` gates presenting the next item per cycle, ``ready[c]`` is the consumer pattern.
    """

    def __init__(self, name: str, parent: uvm_component | None, dut: Any = None, ep: str = "a",
                 classes: list[int] | None = None, idle: dict[int, Pattern] | None = None,
                 ready: dict[int, Pattern] | None = None) -> None:
        super().__init__(name, parent)
        self.dut = dut
        self.ep = ep
        self.classes = list(classes or [])
        self.idle = idle or {}
        self.ready = ready or {}
        self.queues: dict[int, deque[dict[str, int]]] = {c: deque() for c in range(6)}
        self.ap_tx = {c: uvm_analysis_port(f"ap_tx{c}", self) for c in range(6)}
        self.ap_rx = {c: uvm_analysis_port(f"ap_rx{c}", self) for c in range(6)}
        self.cur: dict[int, dict[str, int] | None] = {c: None for c in range(6)}
        self.n_tx = [0] * 6
        self.n_rx = [0] * 6
        self.errors: list[str] = []

    def send(self, c: int, payloads: list[dict[str, int]]) -> None:
        if c not in self.classes:
            raise ValueError(f"{self.ep}: class {c} not driven by this agent")
        self.queues[c].extend(payloads)

    def pending(self) -> int:
        """Messages queued or presented but not yet accepted by the DUT."""
        return sum(len(q) for q in self.queues.values()) + sum(v is not None for v in self.cur.values())

    async def run_phase(self) -> None:
        d, ep = self.dut, self.ep
        tx_valid, tx_ready = getattr(d, f"{ep}_tx_valid"), getattr(d, f"{ep}_tx_ready")
        tx_hdr, tx_data = getattr(d, f"{ep}_tx_hdr"), getattr(d, f"{ep}_tx_data")
        rx_valid, rx_ready = getattr(d, f"{ep}_rx_valid"), getattr(d, f"{ep}_rx_ready")
        rx_hdr, rx_data = getattr(d, f"{ep}_rx_hdr"), getattr(d, f"{ep}_rx_data")
        cur = self.cur
        hdr_v = data_v = 0
        vmask = 0
        tx_valid.value = 0
        rx_ready.value = 0
        last_rdy = -1
        while True:
            await FallingEdge(d.clk)
            # ---- drive
            hdr_n, data_n, vmask = hdr_v, data_v, 0
            for c in self.classes:
                if cur[c] is None and self.queues[c] and self.idle.get(c, Pattern.always()).next():
                    cur[c] = self.queues[c].popleft()
                item = cur[c]
                if item is not None:
                    vmask |= 1 << c
                    hdr_n = (hdr_n & ~((2**128 - 1) << (128 * c))) | (item["hdr"] << (128 * c))
                    if c in DATA_LANE:
                        sh = 512 * DATA_LANE[c]
                        data_n = (data_n & ~((2**512 - 1) << sh)) | (item.get("data", 0) << sh)
            tx_valid.value = vmask
            if hdr_n != hdr_v:
                tx_hdr.value = hdr_v = hdr_n
            if data_n != data_v:
                tx_data.value = data_v = data_n
            rdy = 0
            for c in range(6):
                if self.ready.get(c, Pattern.always()).next():
                    rdy |= 1 << c
            if rdy != last_rdy:
                rx_ready.value = last_rdy = rdy
            # ---- sample
            await ReadOnly()
            if int(d.rst.value):
                continue
            cyc = cycle_at()
            fired = vmask & int(tx_ready.value)
            for c in self.classes:
                if fired >> c & 1:
                    item = cur[c]
                    assert item is not None
                    self.n_tx[c] += 1
                    self.ap_tx[c].write(Beat(payload=dict(item), cycle=cyc, source=f"{ep}_tx{c}"))
                    cur[c] = None
            got = int(rx_valid.value) & rdy
            if got:
                hv = rx_hdr.value
                dv = rx_data.value
                for c in range(6):
                    if got >> c & 1:
                        p = {"hdr": lane_int(hv, c, 128)}
                        if c in DATA_LANE:
                            p["data"] = lane_int(dv, DATA_LANE[c], 512)
                        self.n_rx[c] += 1
                        self.ap_rx[c].write(Beat(payload=p, cycle=cyc, source=f"{ep}_rx{c}"))
