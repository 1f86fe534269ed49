"""Running the system model on one configuration: the LLM workloads on the three systems, the
tiering sweep, and the speedups scored against the ScalePool paper."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from sim.config.build import CASES_YAML, DEFAULT_HARDWARE, TIERING_YAML, WORKLOAD_YAML, Config, load_config
from sim.config.schema import TieringSpec, Workload
from sim.system.latency import Paths, compute_paths
from sim.system.measured import Measured
from sim.system.tiering import CONFIGS, capacities, mean_latency
from sim.system.training import IterationTime, evaluate
from sim.traffic.tiering import PATTERNS, sweep_bytes


def build_config(config_file: Path | None = None, sets: Iterable[str] = (), workload_file: Path = WORKLOAD_YAML,
                 tiering_file: Path = TIERING_YAML, latencies_from: Path | None = None,
                 hardware: str = DEFAULT_HARDWARE, cases_file: Path | None = CASES_YAML) -> tuple[Config, Measured | None]:
    """The configuration of a system-model run and the RTL measurements it used (if any)."""
    cfg = load_config(hardware, config_file, sets, workload_file, tiering_file, cases_file, latencies_from)
    return cfg, cfg.measured


@dataclass
class TieringResult:
    ws_bytes: np.ndarray
    latency: dict[str, dict[str, np.ndarray]]   # pattern -> config -> mean ns
    accel_bytes: float
    cluster_bytes: float
    scored_pattern: str


@dataclass
class SystemResult:
    paths: Paths
    workloads: list[Workload]
    training: dict[str, dict[str, IterationTime]]
    tiering: TieringResult


def run_tiering(cfg: Config, spec: TieringSpec | None = None) -> TieringResult:
    spec = spec or cfg.tiering
    paths = compute_paths(cfg)
    acc, cl = capacities(cfg)
    ws = sweep_bytes(spec, acc, cl)
    lat = {p: mean_latency(ws, p, spec, paths, cfg) for p in PATTERNS}
    return TieringResult(ws, lat, acc, cl, spec.pattern)


def run_system(cfg: Config) -> SystemResult:
    workloads = list(cfg.workloads)
    return SystemResult(compute_paths(cfg), workloads, evaluate(workloads, cfg), run_tiering(cfg))


def speedups(training: dict[str, dict[str, IterationTime]], system: str = "scalepool") -> dict[str, float]:
    """baseline time / system time per model; models that do not fit on either side are left out."""
    out = {}
    for k, v in training.items():
        b, s = v["baseline"].total, v[system].total
        if math.isfinite(b) and math.isfinite(s):
            out[k] = b / s
    return out


__all__ = ["CONFIGS", "build_config", "run_system", "run_tiering", "speedups", "SystemResult", "TieringResult"]
