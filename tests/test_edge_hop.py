"""sp_hop (rtl/edge) on its own: the statistics it sums from its two cxl_link endpoints."""
from __future__ import annotations

import pytest

from tools.runner import REPO, rtl_sources, run_cocotb


@pytest.mark.rtl
def test_hop_stats_saturate() -> None:
    # the endpoints, wires and their submodules come from the rtl/ module libraries (tools.runner)
    run_cocotb(top="sp_hop", sources=[REPO / "tb/edge/hdl/sp_hop_public.vlt", *rtl_sources("edge/sp_hop.v")],
               test_module="tb.edge.tb_hop",
               parameters={"LINKS": 1, "FLIT_MODE": 0}, name="sp_hop_68b")
