"""Hook for fabric latencies measured on our RTL (co-simulation), replacing cited parameters.

File format (JSON, written by the co-simulation, e.g. results/cosim/latency.json):

    {
      "source": "free text: which RTL top / commit / run",
      "clock_mhz": 1000.0,                       # documented RTL clock, converts cycles to ns
      "hops": {                                  # keys are parameter keys of system.yaml
        "cxl.switch_latency_ns": {"p50_cycles": 42, "p99_cycles": 61},
        "cxl.bridge_ns":         {"p50_ns": 18.0}
      },
      "samples_cycles": {"switch m2s_req": [40, 41, 44, ...]}   # optional: latency CDF plots
    }

Each hop's p50 becomes the parameter value (ns); p99 is kept for the report. Unknown keys are an
error (naming the key), so a renamed parameter cannot be silently ignored.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from sim.system.config import Config, ConfigError


@dataclass
class Measured:
    path: Path
    source: str
    clock_mhz: float
    hops: dict[str, dict[str, float]] = field(default_factory=dict)   # key -> {p50_ns, p99_ns}
    samples_ns: dict[str, list[float]] = field(default_factory=dict)


def load_measured(path: Path) -> Measured:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: latency file not found") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: top level must be an object")
    clock = data.get("clock_mhz")
    if not isinstance(clock, (int, float)) or clock <= 0:
        raise ConfigError(f"{path}: clock_mhz: expected a positive number, got {clock!r}")
    ns_per_cycle = 1000.0 / clock
    hops_in = data.get("hops", {})
    if not isinstance(hops_in, dict):
        raise ConfigError(f"{path}: hops: expected an object")
    hops: dict[str, dict[str, float]] = {}
    for key, h in hops_in.items():
        if not isinstance(h, dict):
            raise ConfigError(f"{path}: hops.{key}: expected an object with p50_cycles or p50_ns")
        conv = {}
        for q in ("p50", "p99"):
            if f"{q}_ns" in h:
                conv[f"{q}_ns"] = float(h[f"{q}_ns"])
            elif f"{q}_cycles" in h:
                conv[f"{q}_ns"] = float(h[f"{q}_cycles"]) * ns_per_cycle
        if "p50_ns" not in conv:
            raise ConfigError(f"{path}: hops.{key}: needs p50_cycles or p50_ns")
        hops[key] = conv
    samples = {str(k): [float(c) * ns_per_cycle for c in v] for k, v in data.get("samples_cycles", {}).items()}
    return Measured(Path(path), str(data.get("source", "unspecified")), float(clock), hops, samples)


def apply_measured(cfg: Config, m: Measured) -> None:
    for key, h in m.hops.items():
        cfg.set(key, h["p50_ns"], f"RTL measurement {m.path}")
        cfg.leaves[key]["source"] = (f"measured on RTL, p50 at {m.clock_mhz:g} MHz ({m.source}; {m.path})"
                                     + (f"; p99 {h['p99_ns']:.1f} ns" if "p99_ns" in h else ""))
