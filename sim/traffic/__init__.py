"""Workload generators: LLM training (per-layer operations, memory, traffic volumes), memory-tiering
access sweeps and case-study profiles. Workloads are YAML data files under `configs/` (every value
with its source); a bad file raises `ConfigError` naming the file and the field.
"""
from sim.config.domains import ConfigError
from sim.traffic.llm import IterationTraffic, iteration_traffic, layer_ops, load_workload_file, load_workloads, message_stream
from sim.traffic.tiering import access_cdf, load_tiering, sweep_bytes

__all__ = [
    "ConfigError", "IterationTraffic", "iteration_traffic", "layer_ops", "load_workload_file", "load_workloads",
    "message_stream", "access_cdf", "load_tiering", "sweep_bytes",
]
