"""`make bench` figures of the home coherence agent (issue 4), measured in simulation.

bench() builds coh_home_agent (N=4, 16 sets x 4 ways, 16 transaction entries), runs
tb.coherence.tb_coh.CohBenchTest and returns what it measured (cycle counts of handshakes):
  coherence.hit_go_latency_cycles     D2H Req handshake -> GO handshake, no snoop needed (RdOwnNoData
                                      / CleanEvictNoData on lines nobody else holds), devices always ready
  coherence.snoop_go_latency_cycles   same with one sharer to invalidate (RdOwnNoData, dev1 in S),
                                      minus the sharer's answer time (snoop handshake -> D2H Rsp handshake)
  coherence.device_answer_cycles      that answer time (for reference)
  coherence.requests_per_cycle        4 devices streaming RdCurr to distinct lines: accepted requests
                                      per cycle between the first and the last acceptance
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

from tools.runner import rtl_sources, run_cocotb

SOURCES = ("coherence/coh_home_agent.v", "coherence/coh_decide.v", "common/fifo_mw.v", "common/rr_arbiter.v")
PARAMS = {"N": 4, "SETS": 16, "WAYS": 4, "NTXN": 16}


def bench() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "coh_bench.json"
        run_cocotb(top="coh_home_agent", sources=rtl_sources(*SOURCES), test_module="tb.coherence.tb_coh",
                   parameters=PARAMS, name="coh_bench", testcase="CohBenchTest", seed=1,
                   build_args=("--output-split", "0"), extra_env={"COH_BENCH_OUT": str(out)})
        res = json.loads(out.read_text())
    return {k: float(v) for k, v in res.items()}


if __name__ == "__main__":
    print(json.dumps(bench(), indent=1))
