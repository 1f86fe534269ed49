"""sp_hop (rtl/edge) on its own: the statistics it sums from its two cxl_link endpoints."""
from __future__ import annotations

import pytest

from tools.runner import REPO, rtl_sources, run_cocotb

HOP_SOURCES = ("edge/sp_hop.v", "edge/sp_flit_wire.v", "link/cxl_link.v", "link/cxl_flit68_tx.v",
               "link/cxl_flit68_rx.v", "link/cxl_crc16_68b.v", "link/cxl_flit256_tx.v",
               "link/cxl_flit256_rx.v", "link/cxl_flit256_rx_slot.v", "link/cxl_flit256_enc.v",
               "link/cxl_flit256_dec.v", "link/cxl_crc64_256b.v", "common/fifo_mw.v",
               "common/credit_counter.v", "common/rr_arbiter.v", "common/stat_counter.v",
               "common/ks_adder.v")


@pytest.mark.rtl
def test_hop_stats_saturate() -> None:
    run_cocotb(top="sp_hop", sources=[REPO / "tb/edge/hdl/sp_hop_public.vlt", *rtl_sources(*HOP_SOURCES)], test_module="tb.edge.tb_hop",
               parameters={"LINKS": 1, "FLIT_MODE": 0}, name="sp_hop_68b")
