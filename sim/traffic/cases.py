"""Case-study traffic profiles (CXL-over-XLink report section 5.2): RAG, Graph-RAG, DLRM, MPI.

A profile says what the report says a workload does, phase by phase: what moves, its access
pattern, how often each byte crosses the CXL fabric, extra copies on the RDMA path, and the sizes
and compute shares the report gives. Fields the report does not give are `unknown`; they become
`None` here and the system model (`sim/system/cases.py`) then returns the whole interval of results
consistent with the known fields. Validation names the file and the field, like `schema.py`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.config.build import CASES_YAML
from sim.config.domains import ConfigError
from sim.config.tree import ParamTree



def fail(cfg: ParamTree, key: str, msg: str) -> None:
    raise ConfigError(f"{cfg.where(key)}: {msg}")


def check_known(cfg: ParamTree, prefix: str, allowed) -> None:
    """Reject misspelt fields instead of silently ignoring them."""
    p = prefix + "."
    for key in cfg.leaves:
        if key.startswith(p):
            name = key[len(p):]
            if "." not in name and name not in allowed:
                fail(cfg, key, f"unknown field (allowed: {', '.join(sorted(allowed))})")

PATTERNS = ("streaming", "gather", "dependent", "exchange", "compute", "unknown")
UNKNOWN = "unknown"
TIME_SUFFIX = "_time"

COMMON_FIELDS = ("switch_hops", "cable_m", "rdma_copy_gbps")
PROFILE_FIELDS = ("display", "target", "target_values", "not_given", "phases", "composites")
PHASE_FIELDS = ("what", "pattern", "compute_share", "op_bytes", "data_bytes", "compute_s", "cxl_traversals",
                "rdma_copies", "excluded")
COMPOSITE_FIELDS = ("parts", "shares")

Interval = tuple[float, float]   # (lo, hi), lo == hi for a known point


@dataclass(frozen=True)
class CaseCommon:
    switch_hops: int          # switch traversals per direction on both paths
    cable_m: float            # length of every link
    rdma_copy_gbps: float     # bandwidth of one staging copy on the RDMA path


@dataclass(frozen=True)
class Phase:
    name: str
    what: str
    pattern: str
    compute_share: Interval | None
    op_bytes: Interval | None
    data_bytes: Interval | None
    compute_s: Interval | None
    cxl_traversals: int
    rdma_copies: float
    excluded: str

    @property
    def unknowns(self) -> list[str]:
        return [f for f in ("compute_share", "op_bytes", "data_bytes", "compute_s") if getattr(self, f) is None]


@dataclass(frozen=True)
class Composite:
    name: str
    parts: tuple[str, ...]
    shares: tuple[float, ...] | None   # baseline time shares of the parts, None = unknown


@dataclass(frozen=True)
class CaseProfile:
    key: str
    display: str
    target: str
    target_values: tuple[str, ...]
    not_given: str
    phases: tuple[Phase, ...]
    composites: tuple[Composite, ...]

    def phase(self, name: str) -> Phase:
        return next(p for p in self.phases if p.name == name)


def _value(cfg: ParamTree, key: str) -> Any:
    if key not in cfg.leaves:
        raise ConfigError(f"{key}: required field is missing")
    return cfg.leaves[key]["value"]


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _text(cfg: ParamTree, key: str) -> str:
    v = _value(cfg, key)
    if not isinstance(v, str) or not v.strip():
        fail(cfg, key, f"expected a non-empty string, got {v!r}")
    return v


def _number(cfg: ParamTree, key: str, lo: float, hi: float = math.inf, integer: bool = False) -> float:
    v = _value(cfg, key)
    ok = _is_num(v) and lo <= v <= hi and (not integer or isinstance(v, int))
    if not ok:
        kind = "an integer" if integer else "a number"
        rng = f">= {lo:g}" if hi == math.inf else f"in [{lo:g}, {hi:g}]"
        fail(cfg, key, f"expected {kind} {rng}, got {v!r}")
    return v


def _interval(cfg: ParamTree, key: str, lo: float, hi: float = math.inf, positive: bool = False) -> Interval | None:
    """A number, a [lo, hi] list or `unknown` (-> None)."""
    v = _value(cfg, key)
    if v == UNKNOWN:
        return None
    vals = v if isinstance(v, list) else [v]
    if not (1 <= len(vals) <= 2) or not all(_is_num(x) for x in vals):
        fail(cfg, key, f"expected a number, a [lo, hi] list of numbers or '{UNKNOWN}', got {v!r}")
    a, b = float(vals[0]), float(vals[-1])
    if a > b:
        fail(cfg, key, f"range [{a:g}, {b:g}] has lo > hi")
    if a < lo or b > hi or (positive and a <= 0):
        bound = f"> 0" if positive else (f">= {lo:g}" if hi == math.inf else f"in [{lo:g}, {hi:g}]")
        fail(cfg, key, f"values must be {bound}, got {v!r}")
    return (a, b)


def _names(cfg: ParamTree, key: str) -> tuple[str, ...]:
    v = _value(cfg, key)
    if not isinstance(v, list) or not v or not all(isinstance(x, str) and x.strip() for x in v):
        fail(cfg, key, f"expected a non-empty list of names, got {v!r}")
    return tuple(v)


def _subkeys(cfg: ParamTree, prefix: str) -> list[str]:
    p = prefix + "."
    return list(dict.fromkeys(k[len(p):].split(".")[0] for k in cfg.leaves if k.startswith(p)))


def _check_fields(cfg: ParamTree, prefix: str, allowed: tuple[str, ...]) -> None:
    check_known(cfg, prefix, {f: "" for f in allowed})
    for name in _subkeys(cfg, prefix):
        if name not in allowed:
            fail(cfg, next(k for k in cfg.leaves if k.startswith(f"{prefix}.{name}.")),
                 f"unknown field '{name}' (allowed: {', '.join(sorted(allowed))})")


def _phase(cfg: ParamTree, base: str, name: str) -> Phase:
    _check_fields(cfg, base, PHASE_FIELDS)
    pattern = _text(cfg, f"{base}.pattern")
    if pattern not in PATTERNS:
        fail(cfg, f"{base}.pattern", f"{pattern!r} is not one of {', '.join(PATTERNS)}")
    ph = Phase(
        name=name, what=_text(cfg, f"{base}.what"), pattern=pattern,
        compute_share=_interval(cfg, f"{base}.compute_share", 0.0, 1.0),
        op_bytes=_interval(cfg, f"{base}.op_bytes", 0.0, positive=True),
        data_bytes=_interval(cfg, f"{base}.data_bytes", 0.0, positive=True),
        compute_s=_interval(cfg, f"{base}.compute_s", 0.0),
        cxl_traversals=int(_number(cfg, f"{base}.cxl_traversals", 1, integer=True)),
        rdma_copies=float(_number(cfg, f"{base}.rdma_copies", 0.0)),
        excluded=_text(cfg, f"{base}.excluded"),
    )
    if ph.data_bytes is not None and ph.compute_s is not None and ph.compute_share is not None:
        fail(cfg, f"{base}.compute_share", "must be 'unknown' when data_bytes and compute_s are given (it follows from them)")
    if ph.op_bytes is not None and ph.data_bytes is not None and ph.op_bytes[1] > ph.data_bytes[1]:
        fail(cfg, f"{base}.op_bytes", f"largest transfer {ph.op_bytes[1]:g} B exceeds data_bytes {ph.data_bytes[1]:g} B")
    return ph


def _composite(cfg: ParamTree, base: str, name: str, phases: dict[str, Phase]) -> Composite:
    _check_fields(cfg, base, COMPOSITE_FIELDS)
    parts = _names(cfg, f"{base}.parts")
    for p in parts:
        if p not in phases:
            fail(cfg, f"{base}.parts", f"'{p}' is not a phase of this profile (phases: {', '.join(phases)})")
    raw = _value(cfg, f"{base}.shares")
    shares = None
    if raw != UNKNOWN:
        if not isinstance(raw, list) or len(raw) != len(parts) or not all(_is_num(x) and x >= 0 for x in raw):
            fail(cfg, f"{base}.shares", f"expected '{UNKNOWN}' or {len(parts)} non-negative numbers, got {raw!r}")
        if abs(sum(raw) - 1.0) > 1e-6:
            fail(cfg, f"{base}.shares", f"shares must sum to 1, got {sum(raw):g}")
        shares = tuple(float(x) for x in raw)
    return Composite(name, parts, shares)


def load_cases(cfg: ParamTree, prefix: str = "cases") -> tuple[CaseCommon, list[CaseProfile]]:
    """Validated case profiles from the `prefix.*` leaves of a resolved config."""
    _check_fields(cfg, f"{prefix}.common", COMMON_FIELDS)
    common = CaseCommon(
        switch_hops=int(_number(cfg, f"{prefix}.common.switch_hops", 1, integer=True)),
        cable_m=float(_number(cfg, f"{prefix}.common.cable_m", 0.0)),
        rdma_copy_gbps=float(_number(cfg, f"{prefix}.common.rdma_copy_gbps", 1e-9)),
    )
    keys = _subkeys(cfg, f"{prefix}.profiles")
    if not keys:
        raise ConfigError(f"{prefix}.profiles: no case profiles defined")
    out = []
    targets: dict[str, str] = {}
    for key in keys:
        base = f"{prefix}.profiles.{key}"
        _check_fields(cfg, base, PROFILE_FIELDS)
        phase_names = _subkeys(cfg, f"{base}.phases")
        if not phase_names:
            raise ConfigError(f"{base}.phases: required field is missing")
        phases = {n: _phase(cfg, f"{base}.phases.{n}", n) for n in phase_names}
        comps = {n: _composite(cfg, f"{base}.composites.{n}", n, phases) for n in _subkeys(cfg, f"{base}.composites")}
        clash = set(phases) & set(comps)
        if clash:
            fail(cfg, f"{base}.composites.{sorted(clash)[0]}.parts", "a composite may not share a phase's name")
        tv = _names(cfg, f"{base}.target_values")
        for name in tv:
            stem = name[:-len(TIME_SUFFIX)] if name.endswith(TIME_SUFFIX) else name
            if stem not in phases and stem not in comps:
                fail(cfg, f"{base}.target_values", f"'{name}' names no phase or composite "
                     f"(phases: {', '.join(phases)}; composites: {', '.join(comps) or 'none'}; '<name>{TIME_SUFFIX}' = CXL-path seconds)")
        target = _text(cfg, f"{base}.target")
        if target in targets:
            fail(cfg, f"{base}.target", f"{target} is already the target of profile '{targets[target]}'")
        targets[target] = key
        out.append(CaseProfile(key, _text(cfg, f"{base}.display"), target, tv, _text(cfg, f"{base}.not_given"),
                               tuple(phases.values()), tuple(comps.values())))
    return common, out


def load_case_file(path: Path = CASES_YAML, prefix: str = "cases") -> tuple[CaseCommon, list[CaseProfile]]:
    """Stand-alone loader (no system parameters needed)."""
    cfg = ParamTree()
    cfg.load_into(Path(path), prefix)
    return load_cases(cfg, prefix)


__all__ = ["CASES_YAML", "CaseCommon", "CaseProfile", "Composite", "Phase", "PATTERNS", "TIME_SUFFIX",
           "load_case_file", "load_cases"]
