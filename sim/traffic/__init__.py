"""Workload generators: LLM training traffic per iteration and memory-tiering access sweeps.

Workloads are YAML data files under `configs/` (every value with its source); a bad file raises
`ConfigError` naming the file and the field.
"""
from sim.system.config import ConfigError
from sim.traffic.llm import IterationTraffic, LLMWorkload, iteration_traffic, load_workloads, message_stream
from sim.traffic.tiering import TieringSpec, access_cdf, load_tiering, sweep_bytes

__all__ = [
    "ConfigError", "IterationTraffic", "LLMWorkload", "iteration_traffic", "load_workloads", "message_stream",
    "TieringSpec", "access_cdf", "load_tiering", "sweep_bytes",
]
