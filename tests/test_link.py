"""CXL link layer (68B): two cxl_link endpoints in loopback, pyuvm env in tb/link."""
from __future__ import annotations

from pathlib import Path

import pytest

from tools.runner import rtl_sources, run_cocotb

# The runner finds the submodules of a top in the rtl/ libraries; the loopback top is test-only HDL.
LOOPBACK = Path(__file__).resolve().parents[1] / "tb" / "link" / "hdl" / "cxl_link_loopback.v"


def run_loopback(testcase: str, **params: int) -> None:
    p = {"FLIT_MODE": 0, "REPLAY_DEPTH": 32, "RX_DEPTH": 16, "TIMEOUT_FLITS": 64}
    p.update(params)
    run_cocotb(top="cxl_link_loopback", sources=[LOOPBACK],
               test_module="tb.link.tb_link", parameters=p, testcase=testcase)


@pytest.mark.rtl
@pytest.mark.parametrize("depth", [22, 32])
def test_link_loopback(depth: int) -> None:
    run_loopback("LoopbackTest", REPLAY_DEPTH=depth)


@pytest.mark.rtl
def test_link_backpressure() -> None:
    run_loopback("BackpressureTest")


@pytest.mark.rtl
@pytest.mark.parametrize("rx_depth", [2, pytest.param(3, marks=pytest.mark.full)])
def test_link_credit_starvation(rx_depth: int) -> None:
    run_loopback("StarvationTest", RX_DEPTH=rx_depth)


@pytest.mark.rtl
@pytest.mark.parametrize("depth", [22, 32])
def test_link_fault_injection(depth: int) -> None:
    run_loopback("FaultTest", REPLAY_DEPTH=depth)


@pytest.mark.rtl
def test_link_idle_bit_errors() -> None:
    """More bit errors than MAX_RETRY on an idle link (nothing to replay) never make it fatal."""
    run_loopback("IdleBitErrorTest")


@pytest.mark.rtl
def test_link_fatal_after_retry_limit() -> None:
    run_loopback("FatalTest", MAX_RETRY=4)


@pytest.mark.rtl
@pytest.mark.parametrize("role", [0, 1])
def test_link_rx_model_flits(role: int) -> None:
    """Model-packed flits into the RTL RX, retry handshake against model control flits, and
    illegal flits -> proto_err; DUT ROLE_DOWN and ROLE_UP."""
    run_cocotb(top="cxl_link", sources=rtl_sources("link/cxl_link.v"), test_module="tb.link.tb_link_rx",
               parameters={"FLIT_MODE": 0, "ROLE": role, "REPLAY_DEPTH": 32, "RX_DEPTH": 16})


@pytest.mark.rtl
def test_link_bench_line_rate() -> None:
    """The measurement run: one message-carrying flit per cycle under saturation, bounded retry
    recovery (5 + 1 flits each way plus pipeline), and no loss (BenchTest drains its scoreboards)."""
    from tb.link.bench import measure

    r = measure(seed=None, msgs=120)
    assert r["link.tx_flits_per_cycle"] >= 0.95 and r["link.rx_flits_per_cycle"] >= 0.95, r
    assert r["link.retry_recovery_cycles"] < 40, r


@pytest.mark.rtl
@pytest.mark.parametrize("testcase", ["LoopbackTest", "FaultTest", "IdleBitErrorTest"])
def test_link256_loopback(testcase: str) -> None:
    """FLIT_MODE=1: the same controller with engineer link256's 256B formatters (all 6 classes)."""
    run_cocotb(top="cxl_link_loopback", sources=[LOOPBACK],
               test_module="tb.link.tb_link", testcase=testcase,
               parameters={"FLIT_MODE": 1, "REPLAY_DEPTH": 32, "RX_DEPTH": 16, "TIMEOUT_FLITS": 64})
