"""Sensitivity of the headline rows: every parameter whose leaf carries a plausible `range` (an
assumption, or a setup detail the paper leaves open) is moved to each end of its range, one at a
time, and the headline values are recomputed. A row's interval is the envelope of those values
and its point value; the tornado plot shows each parameter's swing."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sim.config.build import Config
from sim.config.domains import ConfigError
from sim.report.score import headline_values
from sim.system.model import run_system


@dataclass(frozen=True)
class Swing:
    key: str
    default: Any
    lo: Any                         # the low end of the range (or the first alternative)
    hi: Any
    source: str                     # the parameter's own source (assumption or citation)
    range_source: str
    at_lo: dict[str, float | None]  # id -> value with the parameter at the low end
    at_hi: dict[str, float | None]
    error: str = ""                 # an end of the range that is not a valid configuration


def ranged_parameters(cfg: Config) -> list[tuple[str, dict]]:
    return [(k, leaf) for k, leaf in cfg.tree.leaves.items() if "range" in leaf]


def _values(cfg: Config, key: str, value: Any, ids: list[str]) -> dict[str, float | None]:
    c = cfg.with_values({key: value}, "sensitivity")
    return headline_values(run_system(c), c, ids)


def sensitivity(cfg: Config, ids: list[str]) -> list[Swing]:
    out = []
    for key, leaf in ranged_parameters(cfg):
        lo, hi = leaf["range"]
        if isinstance(leaf["value"], int) and not isinstance(leaf["value"], bool):
            lo, hi = int(lo), int(hi)
        try:
            at_lo, at_hi, err = _values(cfg, key, lo, ids), _values(cfg, key, hi, ids), ""
        except ConfigError as exc:
            at_lo, at_hi, err = {}, {}, str(exc)
        out.append(Swing(key, leaf["value"], lo, hi, str(leaf["source"]), str(leaf.get("range_source", "")),
                         at_lo, at_hi, err))
    return out


def envelope(base: dict[str, float | None], swings: list[Swing]) -> dict[str, tuple[float, float]]:
    """id -> (lowest, highest) of the point value and every one-at-a-time swing."""
    out = {}
    for i, v in base.items():
        vals = [x for x in [v] + [s.at_lo.get(i) for s in swings] + [s.at_hi.get(i) for s in swings] if x is not None]
        if vals:
            out[i] = (min(vals), max(vals))
    return out


def movers(swings: list[Swing], rid: str, base: float | None, rel: float = 1e-3) -> list[Swing]:
    """Swings that move row `rid` by more than `rel`, largest first."""
    if base is None:
        return []

    def width(s: Swing) -> float:
        a, b = s.at_lo.get(rid), s.at_hi.get(rid)
        return 0.0 if a is None or b is None else abs(b - a)
    return sorted((s for s in swings if width(s) > rel * abs(base)), key=width, reverse=True)
