"""System model: baseline NVL72+IB, accelerator clusters (CXL between clusters) and ScalePool.

Public API:
- `build_config(config_file=None, sets=(), workload_file=..., tiering_file=..., latencies_from=None)`
- `run_system(cfg) -> SystemResult` (training breakdowns for every model and system, tiering sweep)
- `bench() -> {"system.seconds_for_5_models": s, "system.seconds_10k_accelerators": s}`
"""
from __future__ import annotations

import time

from sim.system.config import Config, ConfigError
from sim.system.model import SystemResult, build_config, run_system, run_tiering, speedups
from sim.traffic.schema import CONFIG_DIR


def bench() -> dict:
    """Wall time (time.perf_counter) of the 5-model evaluation and of a 10,000-GPU layout."""
    cfg, _ = build_config()
    t0 = time.perf_counter()
    run_system(cfg)
    t1 = time.perf_counter()
    cfg10k, _ = build_config(workload_file=CONFIG_DIR / "scale_10k.yaml")
    t2 = time.perf_counter()
    res = run_system(cfg10k)
    t3 = time.perf_counter()
    assert res.workloads[0].gpus == 10000
    return {"system.seconds_for_5_models": t1 - t0, "system.seconds_10k_accelerators": t3 - t2}


__all__ = ["Config", "ConfigError", "SystemResult", "bench", "build_config", "run_system", "run_tiering", "speedups"]
