"""Flit agent / FlitWire / ErrorInjector bench on a two-FIFO test top (tb/common/hdl/flit_pair.v)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tools.runner import rtl_sources, run_cocotb

HDL = Path(__file__).resolve().parents[1] / "tb" / "common" / "hdl"


@pytest.mark.rtl
@pytest.mark.parametrize("flit_w", [528, 2048])
def test_flit_wire(flit_w: int) -> None:
    run_cocotb(top="flit_pair", sources=rtl_sources("common/sync_fifo.v") + [HDL / "flit_pair.v"],
               test_module="tb.common.tb_flit", parameters={"FLIT_W": flit_w})
