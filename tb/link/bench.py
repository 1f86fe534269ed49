"""Link-layer measurements for `make bench`: short loopback simulations, numbers measured, not asserted.

    from tb.link.bench import measure
    results = measure()          # {"link.tx_flits_per_cycle": ..., ...}

or `python -m tb.link.bench` (prints JSON). Keys:
  link.tx_flits_per_cycle        message-carrying flits (protocol + all-data) A sends per cycle while
                                 both endpoints' class queues are saturated (68B, REPLAY_DEPTH 32)
  link.rx_flits_per_cycle        retryable flits B accepts per cycle in the same window
  link.msgs_per_cycle            messages B delivers per cycle in that window (extra)
  link.retry_recovery_cycles     mean cycles from a flit corrupted on A->B to the first flit B accepts
                                 again (5 x RETRY.Frame + Req, 5 x Frame + Ack, then the replay)
  link.retry_recovery_cycles_max worst of the 5 injections (extra)
  cosim.cycles_per_second        simulated cycles per wall second with the pyuvm env attached
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from tools.runner import run_cocotb

LOOPBACK = Path(__file__).resolve().parent / "hdl" / "cxl_link_loopback.v"


def measure(seed: int | None = 1, msgs: int = 200) -> dict[str, float]:
    """Run the BenchTest loopback simulation and return its measurements."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "link_bench.json"
        run_cocotb(top="cxl_link_loopback", sources=[LOOPBACK],
                   test_module="tb.link.tb_link_bench", testcase="BenchTest", seed=seed,
                   parameters={"FLIT_MODE": 0, "REPLAY_DEPTH": 32, "RX_DEPTH": 16,
                               "TIMEOUT_FLITS": 64},
                   extra_env={"LINK_BENCH_OUT": str(out), "LINK_BENCH_MSGS": str(msgs)})
        return {k: float(v) for k, v in json.loads(out.read_text()).items()}


if __name__ == "__main__":
    json.dump(measure(), sys.stdout, indent=1)
    print()


def bench() -> dict[str, float]:
    """Entry point for `make bench` (sim/bench.py)."""
    return measure()
