"""`make bench` figures of the rack-edge co-simulation (measured, never asserted).

    from sim.cosim.bench import bench
    bench()   # {"cosim.cycles_per_second": ..., "cosim.fraction_of_raw": ..., ...}

Speed (both tops, in this one bench run; builds are cached by RTL content, so a second run only
simulates):
- raw: the top under a bare C++ loop (tb/edge/raw_main.cpp, Verilator -O3, C++ -O2, clock only),
  over RAW_CYCLES cycles: `cosim.raw_cycles_per_second`;
- co-simulation under traffic: the bulk harness (sim.cosim.hil) on the same top built the same way,
  a tiering + LLM stream on the two bridges at SPEED_LOAD requests per cycle per bridge, at least
  MIN_CYCLES simulated cycles, every response checked: `cosim.cycles_per_second` (simulated cycles
  per wall second of the traffic loop, Python transfers included), `cosim.fraction_of_raw`,
  `cosim.requests_per_second`, and the wall-time split `cosim.wall_s.*` (build, simulate,
  python_in_loop, setup, check, stream_generation). On a shared machine wall-clock rates move with
  the other jobs; `*_cpu_second` rates (CPU time of the simulator process: C++ model and Python)
  and `fraction_of_raw_cpu` compare the two on the CPU time each actually got.
Keys without a prefix are for the top with flit links (`cosim.flit_links` = 1); `cosim.message.*`
repeats them for the message-level top. `cosim.saturation_throughput.<path>`: highest achieved
throughput of a short load sweep on the flit-link top (fraction of the 64 B/cycle link rate, per
bridge). `cosim.retries_at_ber` with `cosim.ber`: link-layer retries of a run with bit errors on
every link. `cosim.p50.<path>` / `cosim.p99.<path>`: the reference (cycle-by-cycle) harness, one
switch hop, light load, as before.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import replace

from sim.cosim.knobs import CosimCfg
from sim.cosim.stats import summary

BENCH_SEED = 1
RAW_CYCLES = 1_000_000
MIN_CYCLES = 1_000_000
SPEED_LOAD = 0.3
SPEED_REQUESTS = 200_000          # per bridge upper bound; the run stops at MIN_CYCLES worth of stream
BER = 1e-5
SWEEP_LOADS = (0.02, 0.05, 0.1, 0.15, 0.3, 1.0)
SWEEP_PER_POINT = 1500


def speed(links: int, log=print) -> dict[str, float]:
    from sim.cosim.build import raw_speed
    from sim.cosim.hilrun import RunSpec, run_plan
    from sim.cosim.trace import generate
    params = {"MN_AW": 18, **({"LINKS": 1} if links else {})}      # sp_rack_edge as the co-simulation builds it
    raw = raw_speed(params, RAW_CYCLES, log=log)
    # enough requests for MIN_CYCLES at the offered load (arrivals are open loop)
    n = min(SPEED_REQUESTS, int(MIN_CYCLES * SPEED_LOAD * 1.1) + 1000)
    cfg = CosimCfg(n_per_bridge=n, load=SPEED_LOAD, sources=("tiering", "llm"))
    t0 = time.perf_counter()
    tr = generate(cfg, BENCH_SEED)
    gen_s = time.perf_counter() - t0
    plan = run_plan([RunSpec("speed", cfg, tr)], links=links, log=log)
    r = plan.runs[0]
    cps = r.cycles_per_second
    return {"cycles_per_second": cps, "raw_cycles_per_second": raw["cycles_per_second"],
            "fraction_of_raw": cps / raw["cycles_per_second"] if raw["cycles_per_second"] else 0.0,
            "cycles_per_cpu_second": r.cycles_per_cpu_second,
            "raw_cycles_per_cpu_second": raw["cycles_per_cpu_second"],
            "fraction_of_raw_cpu": (r.cycles_per_cpu_second / raw["cycles_per_cpu_second"]
                                    if raw["cycles_per_cpu_second"] else 0.0),
            "requests_per_second": len(tr) / r.loop_s if r.loop_s else 0.0, "cycles": float(r.cycles),
            "requests": float(len(tr)), "data_errors": float(r.counts.get("errors", len(r.errors))),
            "reads_checked": float(r.counts.get("reads", 0)),
            "wall_s.build": plan.build_s + raw["build_seconds"], "wall_s.simulate": r.loop_s - r.python_s,
            "wall_s.python_in_loop": r.python_s, "wall_s.setup": r.setup_s, "wall_s.check": r.check_s,
            "wall_s.stream_generation": gen_s, "wall_s.simulator_process": plan.sim_process_s}


def bench() -> dict[str, float]:
    from sim.cosim.hilrun import RunSpec, run_plan
    from sim.cosim.loadcurve import sweep
    from sim.cosim.run import run_sim
    from sim.cosim.trace import generate
    out: dict[str, float] = {}
    for links, prefix in ((1, "cosim."), (0, "cosim.message.")):
        for k, v in speed(links).items():
            out[prefix + k] = v
    out["cosim.flit_links"] = 1.0
    # link-layer retries with bit errors on every hop
    cfg = CosimCfg(n_per_bridge=4000, load=0.3, ber=BER, mode="cascade_hbr")
    r = run_plan([RunSpec("ber", cfg, generate(cfg, BENCH_SEED))], links=1).runs[0]
    out["cosim.ber"] = BER
    out["cosim.retries_at_ber"] = float(r.retries)
    out["cosim.ber_flits_hit"] = float(sum(v["flits_hit"] for v in r.links.values()))
    out["cosim.ber_errors"] = float(len(r.errors))
    # saturation per path (short sweep, flit-link top)
    rows, summ = sweep(1, CosimCfg(), loads=SWEEP_LOADS, per_point=SWEEP_PER_POINT, seed=BENCH_SEED)
    for p, v in summ["paths"].items():
        if v["saturation_fraction_of_link_rate"] is not None:
            out[f"cosim.saturation_throughput.{p}"] = v["saturation_fraction_of_link_rate"]
        if v["knee_offered_per_bridge"] is not None:
            out[f"cosim.knee_offered_per_bridge.{p}"] = v["knee_offered_per_bridge"]
    # reference harness (hop latencies, light load, one switch)
    ref = run_sim(replace(CosimCfg(), mode="direct"), BENCH_SEED)
    for k, v in sorted(ref["samples"].items()):
        if v:
            s = summary(v)
            out[f"cosim.p50.{k}"] = s["p50_cycles"]
            out[f"cosim.p99.{k}"] = s["p99_cycles"]
    out["cosim.reference.cycles_per_second"] = ref["cycles"] / ref["wall_s"] if ref["wall_s"] > 0 else 0.0
    return out


if __name__ == "__main__":
    json.dump(bench(), sys.stdout, indent=1)
    print()
