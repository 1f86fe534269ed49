"""Second simulator in CI: a short test of every RTL block on Icarus Verilog (4-state).

`make test SIM=icarus` runs the whole regression on Icarus; CI (`make test`, Verilator) runs these
few so that a change that only works on a 2-state simulator (X read as 0, uninitialised storage,
out-of-range reads) or on one simulator's scheduling is caught on every commit. Each test reuses
the block's own test entry point with SIM=icarus; the choice favours the benches whose X handling
differed (see tools/README.md, "Icarus").
"""
from __future__ import annotations

import os
import shutil

import pytest

import tests.test_bridge as bridge
import tests.test_coherence as coherence
import tests.test_common_fifo as common_fifo
import tests.test_common_misc as common_misc
import tests.test_link as link
import tests.test_link256 as link256
from tools.runner import env_flag, run_cocotb

pytestmark = [
    pytest.mark.rtl,
    pytest.mark.skipif(shutil.which("iverilog") is None,
                       reason="iverilog is missing (apt-get install iverilog)"),
    pytest.mark.skipif(env_flag("COV"), reason="code coverage (COV=1) is collected with Verilator"),
    pytest.mark.skipif(os.environ.get("SIM", "").lower() == "icarus",
                       reason="SIM=icarus: the whole regression runs on Icarus already"),
]


@pytest.fixture(autouse=True)
def icarus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIM", "icarus")


def test_icarus_common() -> None:
    common_fifo.test_fifo_mw(8, 16, 4)
    common_misc.test_credit_counter(4, 9)


def test_icarus_link() -> None:
    link.run_loopback("FaultTest", REPLAY_DEPTH=22)


def test_icarus_link256() -> None:
    link256.test_link256_tx(1, 1)


def test_icarus_switch() -> None:
    import tests.test_switch as switch
    run_cocotb(top="cxl_switch_core", sources=switch.core_sources(), test_module="tb.switch.tb_switch",
               parameters={"N": 4, "NRT": 16, "VOQ_DEPTH": 4}, testcase="ErrorTrafficHBR")


def test_icarus_bridge() -> None:
    bridge.test_bridge_ual_dl("xb_ual_dl_tx", 2)


def test_icarus_coherence() -> None:
    coherence.test_coherence_negative_and_watchdog()


# The composed top on a 4-state simulator: every request is answered with defined data. State that
# reset does not define reads as X here where Verilator's 2-state model shows zeros, so this is the
# test that finds a read of it (the memory nodes' line store is gated by valid bits reset clears).
def test_icarus_edge() -> None:
    from sim.cosim.harness import CosimCfg
    from sim.cosim.run import run_sim
    cfg = CosimCfg(n_per_bridge=8, idle_p=0.9, peer_p=0.1)
    res = run_sim(cfg, seed=5)
    assert not res["errors"], res["errors"]
    assert res["counts"]["requests"] == res["counts"]["responses"] == 2 * cfg.n_per_bridge
