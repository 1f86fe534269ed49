"""`make bench` figures of the rack-edge co-simulation (measured, never asserted).

    from sim.cosim.bench import bench
    bench()   # {"cosim.p50.read/bridge_hit": ..., "cosim.sim_cycles_per_second": ..., ...}

Runs the reference configuration (one switch hop) and the two-switch-hop cascade with a fixed seed.
Keys: cosim.p50.<path> / cosim.p99.<path> (cycles at 1 GHz, paths as in latency.json `paths`),
cosim.cascade.p50.<path> for the switch and miss paths, cosim.sim_cycles_per_second (simulated
cycles per wall second with the harness attached), cosim.cycles (length of the reference run).
"""
from __future__ import annotations

import json
import sys
from dataclasses import replace

from sim.cosim.harness import CosimCfg
from sim.cosim.stats import summary

BENCH_SEED = 1
CASCADE_PATHS = ("switch/m2s_req", "switch/s2m_drs", "read/miss_tier2_fabric")


def bench(n_per_bridge: int = 150) -> dict[str, float]:
    from sim.cosim.run import run_sim
    cfg = replace(CosimCfg(), n_per_bridge=n_per_bridge)
    ref = run_sim(replace(cfg, mode="direct"), BENCH_SEED)
    out: dict[str, float] = {}
    for k, v in sorted(ref["samples"].items()):
        if v:
            s = summary(v)
            out[f"cosim.p50.{k}"] = s["p50_cycles"]
            out[f"cosim.p99.{k}"] = s["p99_cycles"]
    out["cosim.cycles"] = float(ref["cycles"])
    out["cosim.sim_cycles_per_second"] = ref["cycles"] / ref["wall_s"] if ref["wall_s"] > 0 else 0.0
    cas = run_sim(replace(cfg, mode="cascade"), BENCH_SEED)
    for k in CASCADE_PATHS:
        if cas["samples"].get(k):
            out[f"cosim.cascade.p50.{k}"] = summary(cas["samples"][k])["p50_cycles"]
    return out


if __name__ == "__main__":
    json.dump(bench(), sys.stdout, indent=1)
    print()
