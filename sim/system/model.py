"""Assembling one resolved configuration (system + workloads + tiering + overrides) and running it."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from sim.system.config import Config, apply_config_file, apply_sets, load_system_params
from sim.system.latency import Paths, compute_paths
from sim.system.measured import Measured, apply_measured, load_measured
from sim.system.tiering import CONFIGS, capacities, mean_latency
from sim.system.training import IterationTime, evaluate
from sim.traffic.llm import LLM_YAML, LLMWorkload, load_workloads
from sim.traffic.schema import CONFIG_DIR, load_tree_into
from sim.traffic.tiering import PATTERNS, TieringSpec, load_tiering, sweep_bytes

TIERING_YAML = CONFIG_DIR / "tiering.yaml"


def build_config(config_file: Path | None = None, sets: Iterable[str] = (), workload_file: Path = LLM_YAML,
                 tiering_file: Path = TIERING_YAML, latencies_from: Path | None = None) -> tuple[Config, Measured | None]:
    """Defaults <- measured RTL latencies (if given) <- --config file <- --set (last wins)."""
    cfg = load_system_params()
    load_tree_into(cfg, Path(workload_file), "workload")
    load_tree_into(cfg, Path(tiering_file), "tiering")
    measured = None
    if latencies_from is not None:
        measured = load_measured(Path(latencies_from))
        apply_measured(cfg, measured)
        cfg.notes.append(f"fabric hop latencies measured on RTL: {latencies_from}")
    else:
        cfg.notes.append("fabric hop latencies: cited parameters (no co-simulation latency file)")
    if config_file is not None:
        apply_config_file(cfg, Path(config_file))
    apply_sets(cfg, sets)
    return cfg, measured


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
    workloads: list[LLMWorkload]
    training: dict[str, dict[str, IterationTime]]
    tiering: TieringResult


def run_tiering(cfg: Config, spec: TieringSpec | None = None) -> TieringResult:
    spec = spec or load_tiering(cfg)
    paths = compute_paths(cfg)
    acc, cl = capacities(cfg)
    ws = sweep_bytes(spec, acc, cl)
    lat = {p: mean_latency(ws, p, spec, paths, cfg) for p in PATTERNS}
    return TieringResult(ws, lat, acc, cl, spec.pattern)


def run_system(cfg: Config) -> SystemResult:
    workloads = load_workloads(cfg)
    return SystemResult(compute_paths(cfg), workloads, evaluate(workloads, cfg), run_tiering(cfg))


def speedups(training: dict[str, dict[str, IterationTime]], system: str = "scalepool") -> dict[str, float]:
    return {k: v["baseline"].total / v[system].total for k, v in training.items()}


__all__ = ["CONFIGS", "build_config", "run_system", "run_tiering", "speedups", "SystemResult", "TieringResult"]
