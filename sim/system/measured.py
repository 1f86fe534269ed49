"""Hook for fabric latencies measured on our RTL (co-simulation), replacing cited parameters.

File format (JSON, written by the co-simulation, e.g. results/cosim/latency.json):

    {
      "source": "free text: which RTL top / commit / run",
      "clock_mhz": 1000.0,                       # documented RTL clock, converts cycles to ns
      "hops": {                                  # keys are parameter keys of system.yaml
        "cxl.switch_latency_ns": {"p50_cycles": 42, "p99_cycles": 61},
        "cxl.bridge_ns":         {"p50_ns": 18.0},
        "cxl.switch_latency_ns": {"p50_cycles": 4, "p99_cycles": 9,        # RTL core only, plus
                                  "plus": {"cxl.port_phy_ns": 2}}          # 2 x a cited parameter
      },
      "samples_cycles": {"switch m2s_req": [40, 41, 44, ...]}   # optional: latency CDF plots
    }

Each hop's p50 becomes the parameter value (ns); p99 is kept for the report. Unknown keys are an
error (naming the key), so a renamed parameter cannot be silently ignored. A hop may name other
parameters in `plus` ({key: count}): the value is then p50 + sum(count x parameter), for an RTL
core measurement that a parameter meaning a whole hop (e.g. "per traversal incl. ports") needs the
cited port figures added to. The composition is kept on the leaf (`rtl`), so a later --set of an
added parameter still counts (sim.config.build); a --set of the hop itself wins.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from sim.config.domains import ConfigError
from sim.config.tree import ParamTree


@dataclass
class Measured:
    path: Path
    source: str
    clock_mhz: float
    hops: dict[str, dict[str, float]] = field(default_factory=dict)   # key -> {p50_ns, p99_ns}
    samples_ns: dict[str, list[float]] = field(default_factory=dict)
    plus: dict[str, dict[str, float]] = field(default_factory=dict)   # key -> {added parameter: count}


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
    plus: dict[str, dict[str, float]] = {}
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
        add = h.get("plus", {})
        if not isinstance(add, dict) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                for v in add.values()):
            raise ConfigError(f"{path}: hops.{key}.plus: expected {{parameter key: count}}")
        if add:
            plus[key] = {str(k): float(v) for k, v in add.items()}
    samples = {str(k): [float(c) * ns_per_cycle for c in v] for k, v in data.get("samples_cycles", {}).items()}
    return Measured(Path(path), str(data.get("source", "unspecified")), float(clock), hops, samples, plus)


def apply_measured(cfg: ParamTree, m: Measured) -> None:
    for key, h in m.hops.items():
        add = m.plus.get(key, {})
        for k in add:
            if k not in cfg.leaves:
                raise ConfigError(f"{m.path}: hops.{key}.plus: unknown parameter '{k}'")
        value = h["p50_ns"] + sum(n * float(cfg.get(k)) for k, n in add.items())
        cfg.set(key, value, f"RTL measurement {m.path}")
        comp = "".join(f" + {n:g} x {k}" for k, n in add.items())
        cfg.leaves[key]["source"] = (f"measured on RTL, p50 at {m.clock_mhz:g} MHz ({m.source}; {m.path})"
                                     + (f"; RTL core {h['p50_ns']:.1f} ns{comp}" if add else "")
                                     + (f"; p99 {h['p99_ns']:.1f} ns (core)" if "p99_ns" in h else ""))
        if add:
            cfg.leaves[key]["rtl"] = {"core_ns": h["p50_ns"], "plus": dict(add)}
