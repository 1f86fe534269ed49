"""RTL tests of rtl/common rr_arbiter, credit_counter, stat_counter, gt_tree and dn_floor via tb/common
pyuvm benches."""
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


# exhaustive at 1 and 5 bits, random pairs aimed at every tree level / borrow length at 13 and 64
@pytest.mark.rtl
@pytest.mark.parametrize("width", [1, 5, 13, 64])
def test_gt_tree(width: int) -> None:
    run_cocotb(top="gt_tree", sources=rtl_sources("common/gt_tree.v"),
               test_module="tb.common.tb_gt_tree", parameters={"WIDTH": width})


@pytest.mark.rtl
@pytest.mark.parametrize("width", [1, 5, 13, 64])
def test_dn_floor(width: int) -> None:
    run_cocotb(top="dn_floor", sources=rtl_sources("common/dn_floor.v"),
               test_module="tb.common.tb_dn_floor", parameters={"WIDTH": width})
