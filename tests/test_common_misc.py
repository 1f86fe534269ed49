"""RTL tests of rtl/common rr_arbiter, credit_counter and stat_counter via tb/common pyuvm benches."""
from __future__ import annotations

import pytest

from tools.runner import rtl_sources, run_cocotb


@pytest.mark.rtl
@pytest.mark.parametrize("n", [4, 5])
def test_rr_arbiter(n: int) -> None:
    run_cocotb(top="rr_arbiter", sources=rtl_sources("common/rr_arbiter.v"),
               test_module="tb.common.tb_rr_arbiter", parameters={"N": n})


@pytest.mark.rtl
@pytest.mark.parametrize("width,init", [(8, 0), (4, 9)])
def test_credit_counter(width: int, init: int) -> None:
    run_cocotb(top="credit_counter", sources=rtl_sources("common/credit_counter.v"),
               test_module="tb.common.tb_credit_counter",
               parameters={"WIDTH": width, "INIT": init})


@pytest.mark.rtl
@pytest.mark.parametrize("width,aw", [(32, 32), (7, 3), (6, 1)])
def test_stat_counter(width: int, aw: int) -> None:
    run_cocotb(top="stat_counter", sources=rtl_sources("common/stat_counter.v"),
               test_module="tb.common.tb_stat_counter",
               parameters={"WIDTH": width, "AW": aw})
