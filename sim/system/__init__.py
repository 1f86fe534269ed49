"""System model: LLM training time on a hardware preset (validated against measured runs), the
baseline NVL72+IB / accelerator clusters / ScalePool comparison, memory tiering, case studies.

Public API:
- `build_config(config_file=None, sets=(), workload_file=..., tiering_file=..., latencies_from=None,
  hardware="gb200") -> (Config, Measured | None)` (see `sim.config.load_config`)
- `run_system(cfg) -> SystemResult` (training breakdowns for every model and system, tiering sweep)
- `iteration_time(workload, cfg, system)` (sim.system.training), `validate` (sim.system.validate)
- `bench()` -> timings of the 5-model evaluation, a 10,000-accelerator layout and the validation,
  plus the validation's mean and max |error| on the shipped runs
"""
from __future__ import annotations

import time

from sim.config.build import TRAFFIC_DIR, VALIDATION_DIR
from sim.config.domains import ConfigError
from sim.system.model import SystemResult, build_config, run_system, run_tiering, speedups


def bench() -> dict:
    """Wall time (time.perf_counter) of the 5-model evaluation, of a 10,000-GPU layout and of the
    shipped validation (reading the runs file, building each run's configuration, predicting);
    the validation's mean and max |relative error| (fractions)."""
    from sim.system.validate import load_runs, summary, validate_runs
    cfg, _ = build_config()
    t0 = time.perf_counter()
    run_system(cfg)
    t1 = time.perf_counter()
    cfg10k, _ = build_config(workload_file=TRAFFIC_DIR / "scale_10k.yaml")
    t2 = time.perf_counter()
    res = run_system(cfg10k)
    t3 = time.perf_counter()
    assert res.workloads[0].accelerators == 10000
    t4 = time.perf_counter()
    rows = validate_runs(load_runs(VALIDATION_DIR / "megatron_a100.yaml"))
    t5 = time.perf_counter()
    stats = summary(rows)
    return {"system.seconds_for_5_models": t1 - t0, "system.seconds_10k_accelerators": t3 - t2,
            "system.seconds_for_validation": t5 - t4,
            "system.validation_mean_abs_error": stats["mean_abs_error"],
            "system.validation_max_abs_error": stats["max_abs_error"]}


__all__ = ["ConfigError", "SystemResult", "bench", "build_config", "run_system", "run_tiering", "speedups"]
