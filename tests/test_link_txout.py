"""rtl/link/cxl_flit68_txout (68B flit output builder) on its own, against tb/link/txout_ref.py."""
from __future__ import annotations

import pytest

from tools.runner import rtl_sources, run_cocotb


@pytest.mark.rtl
@pytest.mark.parametrize("testcase", ["TxOutRandom", "TxOutReset", "TxOutAkThresholdCaught",
                                      "TxOutStuckRoundRobinCaught"])
def test_flit68_txout(testcase: str) -> None:
    run_cocotb(top="cxl_flit68_txout", sources=rtl_sources("link/cxl_flit68_txout.v"),
               test_module="tb.link.tb_flit68_txout", testcase=testcase)
