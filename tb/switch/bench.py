"""Switch performance figures for `make bench` (measured by short simulations, never asserted).

bench() -> {
  switch.zero_load_latency_cycles / _ns (1 GHz core clock): ingress message valid -> egress
      message valid, one hop, no contention, cxl_switch_core N=8;
  switch.saturation_throughput_uniform: delivered fraction of line rate per port, N=8, every
      source at offered load 1.0, uniform random destinations (VOQ=1, iSLIP 1 iteration);
  switch.saturation_throughput_uniform_novoq: the same with VOQ=0 (one FIFO per class per ingress,
      same total buffer): the input-queued HOL-blocking comparison point;
  switch.incast_fairness_jain: Jain index of per-source delivered messages, 7 sources -> 1 port;
  switch.cells_per_port: yosys cells of cxl_switch_port at N=8 (the per-port share of the switch;
      the crossbar mux and allocator are not in it), if yosys finishes in time.
}"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from tb.common.runner import REPO, rtl_sources, run_cocotb

SRC = ["common/sync_fifo.v", "common/skid_buffer.v", "common/rr_arbiter.v", "switch/cxl_hdm_decode.v",
       "switch/cxl_switch_port.v", "switch/cxl_switch_alloc.v", "switch/cxl_switch_cfg.v",
       "switch/cxl_switch_core.v"]
BUILD_ARGS = ("--output-split", "0")
N = 8
VOQ_DEPTH = 8


def _run(out: Path, voq: int, tests: list[str]) -> None:
    run_cocotb(top="cxl_switch_core", sources=rtl_sources(*SRC), test_module="tb.switch.tb_bench",
               parameters={"N": N, "VOQ": voq, "VOQ_DEPTH": VOQ_DEPTH}, name="cxl_switch_core_bench",
               testcase=tests, extra_env={"BENCH_OUT": str(out)}, build_args=BUILD_ARGS)


def cells_per_port() -> float | None:
    from tb.common.lint import rtl_files
    from tb.common.synth import synth_one
    out = REPO / "results" / "synth"
    out.mkdir(parents=True, exist_ok=True)
    _, ok, _, summ = synth_one("cxl_switch_port", {"N": N, "VOQ_DEPTH": VOQ_DEPTH}, rtl_files(), out)
    return float(summ["cells"]) if ok else None


def bench() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "bench.json"
        _run(out, 1, ["bench_latency", "bench_uniform", "bench_incast"])
        _run(out, 0, ["bench_uniform"])
        res = json.loads(out.read_text())
    if os.environ.get("SWITCH_BENCH_SYNTH", "1") != "0":
        cells = cells_per_port()
        if cells is not None:
            res["switch.cells_per_port"] = cells
    return res


if __name__ == "__main__":
    print(json.dumps(bench(), indent=1))
