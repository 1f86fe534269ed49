"""One typed, checked configuration for the system model, traffic generators, report and co-simulation.

Built once at the edge (a command line, a test, a bench) and passed down; nothing below the edge
reads files or parses keys.

Public API (small on purpose):

- Domains and checked dataclasses (`sim.config.domains`), reusable for any knob set:
  `param(domain, default, unit=, doc=)` declares a field; a dataclass deriving from `Checked`
  checks every such field when constructed; `build(cls, mapping, where)` builds one from a mapping
  and also refuses unknown and missing keys. Domains: `POSITIVE`, `NONNEG`, `FRACTION` (0, 1],
  `FRACTION0` [0, 1], `COUNT` (int >= 1), `COUNT0` (int >= 0), `BOOL`, `TEXT`, `number(lo, hi, ...)`,
  `integer(lo, hi)`, `one_of(*names)`. NaN and inf are never in a numeric domain. Errors are one-line
  `ConfigError`s naming the key and the domain.
- Parameter trees (`sim.config.tree.ParamTree`): YAML leaves `{value, source, unit, range,
  range_source}` addressed by dotted keys, `--set` / `--config` overrides with provenance.
- The run's configuration: `load_config(hardware=, config_file=, sets=, workload_file=,
  tiering_file=, cases_file=, latencies_from=) -> Config` with `.hardware` (preset: accelerator,
  scale-up, scale-out, host), `.system` (ScalePool fabric), `.workloads`, `.tiering`, `.cases`,
  `.tree` (values and sources) and `.with_values({key: value})` for what-ifs.
"""
from sim.config.build import (CASES_YAML, DEFAULT_HARDWARE, HARDWARE_DIR, SYSTEM_YAML, TIERING_YAML, VALIDATION_DIR,
                              WORKLOAD_YAML, Config, assemble, base_tree, hardware_file, hardware_names, load_config)
from sim.config.domains import (BOOL, COUNT, COUNT0, FRACTION, FRACTION0, NONNEG, POSITIVE, TEXT, Checked, ConfigError,
                                Domain, build, describe, integer, number, one_of, param)
from sim.config.schema import Hardware, Layout, ModelShape, Offload, SystemParams, TieringSpec, Workload
from sim.config.tree import ParamTree, parse_scalar

__all__ = [
    "BOOL", "CASES_YAML", "COUNT", "COUNT0", "Checked", "Config", "ConfigError", "DEFAULT_HARDWARE", "Domain", "FRACTION",
    "FRACTION0", "HARDWARE_DIR", "Hardware", "Layout", "ModelShape", "NONNEG", "Offload", "POSITIVE", "ParamTree",
    "SYSTEM_YAML", "SystemParams", "TEXT", "TIERING_YAML", "TieringSpec", "VALIDATION_DIR", "WORKLOAD_YAML", "Workload",
    "assemble", "base_tree", "build", "describe", "hardware_file", "hardware_names", "integer", "load_config", "number",
    "one_of", "param", "parse_scalar",
]
