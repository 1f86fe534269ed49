"""RTL tests of rtl/common FIFOs (sync_fifo, fifo_mw, skid_buffer, fifo_bank) via tb/common pyuvm
benches. The `full` cases run each FIFO with entries as wide as the header-sized instances in the
design (128-130 bits: cxl_link's queues, cxl_flit256_rxq's run lanes, cxl_switch_port's queues,
xb_lane's skid buffers) and random payloads, so every bit of those entries is stored with both
values and checked by the scoreboard (the design's own traffic leaves many header bits constant)."""
from __future__ import annotations

import pytest

from tools.runner import rtl_sources, run_cocotb


@pytest.mark.rtl
@pytest.mark.parametrize("width,depth", [(8, 4), (13, 5), pytest.param(130, 4, marks=pytest.mark.full)])
def test_sync_fifo(width: int, depth: int) -> None:
    run_cocotb(top="sync_fifo", sources=rtl_sources("common/sync_fifo.v"),
               test_module="tb.common.tb_sync_fifo",
               parameters={"WIDTH": width, "DEPTH": depth})


@pytest.mark.rtl
@pytest.mark.parametrize("width", [8, 33, pytest.param(128, marks=pytest.mark.full)])
def test_skid_buffer(width: int) -> None:
    run_cocotb(top="skid_buffer", sources=rtl_sources("common/skid_buffer.v"),
               test_module="tb.common.tb_skid_buffer", parameters={"WIDTH": width})


@pytest.mark.rtl
@pytest.mark.parametrize("width,depth,w", [(8, 16, 4), (10, 7, 3)])
def test_fifo_mw(width: int, depth: int, w: int) -> None:
    run_cocotb(top="fifo_mw", sources=rtl_sources("common/fifo_mw.v"),
               test_module="tb.common.tb_fifo_mw",
               parameters={"WIDTH": width, "DEPTH": depth, "W": w})


@pytest.mark.rtl
@pytest.mark.parametrize("width,depth,w", [(8, 16, 4), (10, 7, 3), (12, 16, 12), (9, 5, 1),
                                           pytest.param(128, 16, 12, marks=pytest.mark.full)])
def test_fifo_bank(width: int, depth: int, w: int) -> None:
    run_cocotb(top="fifo_bank", sources=rtl_sources("common/fifo_bank.v"),
               test_module="tb.common.tb_fifo_bank",
               parameters={"WIDTH": width, "DEPTH": depth, "W": w})
