"""Building the one `Config` of a run: files -> parameter tree -> overrides -> typed, checked objects.

Order (last wins): system.yaml <- hardware preset <- workload, tiering and case files <- RTL-measured
hop latencies (`--latencies-from`) <- `--config FILE` <- `--set key=value`. The typed objects are
built once from the resolved tree; `Config.with_values` rebuilds them for a what-if.
"""
from __future__ import annotations

import dataclasses

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from sim.config.domains import ConfigError, build
from sim.config.schema import (HARDWARE_SECTIONS, SYSTEM_SECTIONS, Hardware, SystemParams, TieringSpec, Workload,
                               build_tiering, build_workload)
from sim.config.tree import ParamTree

SIM = Path(__file__).resolve().parents[1]
SYSTEM_DIR = SIM / "system" / "configs"
SYSTEM_YAML = SYSTEM_DIR / "system.yaml"
HARDWARE_DIR = SYSTEM_DIR / "hardware"
VALIDATION_DIR = SYSTEM_DIR / "validation"
TRAFFIC_DIR = SIM / "traffic" / "configs"
WORKLOAD_YAML = TRAFFIC_DIR / "llm_training.yaml"
TIERING_YAML = TRAFFIC_DIR / "tiering.yaml"
CASES_YAML = TRAFFIC_DIR / "case_studies.yaml"
DEFAULT_HARDWARE = "gb200"

WORKLOAD_PREFIX = "workload"
TIERING_PREFIX = "tiering"
CASES_PREFIX = "cases"
MODEL_FIELDS = ("display", "model", "layout")


def hardware_names() -> list[str]:
    return sorted(p.stem for p in HARDWARE_DIR.glob("*.yaml"))


def hardware_file(name: str) -> Path:
    path = HARDWARE_DIR / f"{name}.yaml"
    if not path.is_file():
        raise ConfigError(f"--hardware {name!r}: no such preset (one of {', '.join(hardware_names())})")
    return path


def _unknown_sections(tree: ParamTree, allowed: Iterable[str]) -> None:
    allowed = set(allowed) | {WORKLOAD_PREFIX, TIERING_PREFIX, CASES_PREFIX}
    for key in tree.leaves:
        top = key.split(".")[0]
        if top not in allowed:
            raise ConfigError(f"{tree.where(key)}: unknown parameter section '{top}'")


def _composed_values(tree: ParamTree, prefix: str) -> dict[str, Any]:
    """Section values with RTL-measured hops recomposed from their core time and the current values
    of the added parameters (sim/system/measured.py `plus`), unless the hop itself was overridden."""
    vals = tree.section(prefix)
    for key in tree.keys_under(prefix):
        leaf = tree.leaves[key]
        comp = leaf.get("rtl")
        if comp and not str(leaf["source"]).startswith("override"):
            node = vals
            parts = key[len(prefix) + 1:].split(".")
            for p in parts[:-1]:
                node = node[p]
            node[parts[-1]] = float(comp["core_ns"]) + sum(n * float(tree.get(k)) for k, n in comp["plus"].items())
    return vals


def hardware_from(tree: ParamTree) -> Hardware:
    return Hardware(**{name: build(cls, tree.section(name), name) for name, cls in HARDWARE_SECTIONS.items()})


def system_from(tree: ParamTree) -> SystemParams:
    return SystemParams(**{name: build(cls, _composed_values(tree, name), name) for name, cls in SYSTEM_SECTIONS.items()})


def workloads_from(tree: ParamTree, prefix: str = WORKLOAD_PREFIX) -> tuple[Workload, ...]:
    base = f"{prefix}.models"
    sec = tree.section(base)
    if not sec:
        raise ConfigError(f"{base}: no models defined")
    out = []
    for key, node in sec.items():
        where = f"{base}.{key}"
        if not isinstance(node, Mapping):
            raise ConfigError(f"{tree.where(where)}: expected a model with display, model and layout")
        for k in node:
            if k not in MODEL_FIELDS:
                leaf = next((x for x in tree.keys_under(f"{where}.{k}")), f"{where}.{k}")
                raise ConfigError(f"{tree.where(leaf)}: unknown field (allowed: {', '.join(MODEL_FIELDS)})")
        for k in MODEL_FIELDS:
            if k not in node:
                raise ConfigError(f"{where}.{k}: required field is missing")
        display = node["display"]
        if not isinstance(display, str) or not display.strip():
            raise ConfigError(f"{where}.display: expected a non-empty string, got {display!r}")
        try:
            out.append(build_workload(key, display, node["model"], node["layout"], where))
        except ConfigError as exc:
            raise ConfigError(_with_origin(tree, str(exc))) from None
    for k in tree.keys_under(prefix):
        if not k.startswith(base + "."):
            raise ConfigError(f"{tree.where(k)}: unknown field (a workload file holds 'models')")
    return tuple(out)


def _with_origin(tree: ParamTree, msg: str) -> str:
    """Prefix an error with the file of the key it names."""
    key = msg.split(":", 1)[0]
    origin = tree.leaves.get(key, {}).get("origin")
    return f"{origin}: {msg}" if origin and not msg.startswith(str(origin)) else msg


@dataclass(frozen=True)
class Config:
    """Every input of a run, typed and checked, plus the tree it came from (values and sources)."""

    tree: ParamTree
    hardware_name: str
    hardware: Hardware
    system: SystemParams
    workloads: tuple[Workload, ...]
    tiering: TieringSpec
    cases: Any = None                       # (CaseCommon, [CaseProfile]) when a case file was loaded
    measured: Any = None                    # sim.system.measured.Measured when RTL latencies were used
    files: dict = field(default_factory=dict)
    load_curves: Any = None                 # sim.system.loadcurve.LoadCurves when RTL load curves are used

    def get(self, key: str) -> Any:
        return self.tree.get(key)

    def source(self, key: str) -> str:
        return self.tree.source(key)

    @property
    def leaves(self) -> dict[str, dict]:
        return self.tree.leaves

    @property
    def notes(self) -> list[str]:
        return self.tree.notes

    def with_values(self, values: Mapping[str, Any], origin: str = "what-if") -> "Config":
        cfg = assemble(self.tree.with_values(values, origin), self.hardware_name, self.measured, self.files)
        return dataclasses.replace(cfg, load_curves=self.load_curves) if self.load_curves is not None else cfg


def assemble(tree: ParamTree, hardware_name: str, measured: Any = None, files: dict | None = None) -> Config:
    """Typed objects from a resolved tree (every domain and cross-field rule checked)."""
    _unknown_sections(tree, list(HARDWARE_SECTIONS) + list(SYSTEM_SECTIONS))
    try:
        hw = hardware_from(tree)
        sysp = system_from(tree)
        tier = build_tiering(tree.section(TIERING_PREFIX)) if tree.keys_under(TIERING_PREFIX) else None
    except ConfigError as exc:
        raise ConfigError(_with_origin(tree, str(exc))) from None
    wls = workloads_from(tree) if tree.keys_under(WORKLOAD_PREFIX) else ()
    cases = None
    if tree.keys_under(CASES_PREFIX):
        from sim.traffic.cases import load_cases
        cases = load_cases(tree, CASES_PREFIX)
    return Config(tree, hardware_name, hw, sysp, wls, tier, cases, measured, dict(files or {}))


def base_tree(hardware: str = DEFAULT_HARDWARE) -> ParamTree:
    tree = ParamTree()
    tree.load_into(SYSTEM_YAML)
    tree.load_into(hardware_file(hardware))
    return tree


def load_config(hardware: str = DEFAULT_HARDWARE, config_file: Path | None = None, sets: Iterable[str] = (),
                workload_file: Path | None = WORKLOAD_YAML, tiering_file: Path | None = TIERING_YAML,
                cases_file: Path | None = CASES_YAML, latencies_from: Path | None = None,
                load_curves_from: Path | None = None) -> Config:
    """The run's configuration, built once. A file argument of None leaves that part out."""
    tree = base_tree(hardware)
    files = {"hardware": str(hardware_file(hardware))}
    for path, prefix, name in ((workload_file, WORKLOAD_PREFIX, "workload"), (tiering_file, TIERING_PREFIX, "tiering"),
                               (cases_file, CASES_PREFIX, "cases")):
        if path is not None:
            tree.load_into(Path(path), prefix)
            files[name] = str(path)
    measured = None
    if latencies_from is not None:
        from sim.system.measured import apply_measured, load_measured
        measured = load_measured(Path(latencies_from))
        apply_measured(tree, measured)
        tree.notes.append(f"fabric hop latencies measured on RTL: {latencies_from}")
    else:
        tree.notes.append("fabric hop latencies: cited parameters (no co-simulation latency file)")
    if config_file is not None:
        tree.apply_file(Path(config_file))
    tree.apply_sets(sets)
    cfg = assemble(tree, hardware, measured, files)
    return with_load_curves(cfg, load_curves_from) if load_curves_from is not None else cfg


def with_load_curves(cfg: Config, path: Path) -> Config:
    """`cfg` whose CXL-port flows take bandwidth and latency from RTL load curves
    (sim/system/loadcurve.py; a co-simulation sweep's load_curve.csv)."""
    from sim.system.loadcurve import LoadCurves
    curves = LoadCurves.from_csv(Path(path))
    cfg.tree.notes.append(f"CXL port contention from RTL load curves ({curves.top} top): {path}")
    return dataclasses.replace(cfg, load_curves=curves)
