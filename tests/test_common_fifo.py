"""RTL tests of rtl/common FIFOs (sync_fifo, fifo_mw, skid_buffer) via tb/common pyuvm benches."""
from __future__ import annotations

import pytest

from tools.runner import rtl_sources, run_cocotb


@pytest.mark.rtl
@pytest.mark.parametrize("width,depth", [(8, 4), (13, 5)])
def test_sync_fifo(width: int, depth: int) -> None:
    run_cocotb(top="sync_fifo", sources=rtl_sources("common/sync_fifo.v"),
               test_module="tb.common.tb_sync_fifo",
               parameters={"WIDTH": width, "DEPTH": depth})


@pytest.mark.rtl
@pytest.mark.parametrize("width", [8, 33])
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
@pytest.mark.parametrize("width,depth,w", [(8, 16, 4), (10, 7, 3), (12, 16, 12), (9, 5, 1)])
def test_fifo_bank(width: int, depth: int, w: int) -> None:
    run_cocotb(top="fifo_bank", sources=rtl_sources("common/fifo_bank.v"),
               test_module="tb.common.tb_fifo_bank",
               parameters={"WIDTH": width, "DEPTH": depth, "W": w})
