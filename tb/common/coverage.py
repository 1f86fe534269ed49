"""Functional coverage: named covergroups with coverpoints (value / range / predicate bins) and
crosses, a text report, a JSON dump under results/coverage/, and a check that fails on missed bins.

    cg = Covergroup("fifo")
    cg.coverpoint("level", bins={"empty": 0, "mid": range(1, 15), "full": 15})
    cg.coverpoint("op", bins=["push", "pop", "both"])          # one bin per value
    cg.cross("level_x_op", ["level", "op"])                     # all bin pairs must be hit
    cg.sample(level=3, op="push")

:class:`CoverageCollector` is a pyuvm component holding covergroups: in ``check_phase`` it writes
``results/coverage/<build tag>__<test>__<group>.json`` and raises AssertionError listing missed bins
(``enforce=False`` only reports).
"""
from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyuvm import uvm_component

REPO = Path(__file__).resolve().parents[2]
COVERAGE_DIR = REPO / "results" / "coverage"

BinSpec = Any  # value | range | (lo, hi) inclusive tuple | set/frozenset | callable


def _matcher(spec: BinSpec) -> Callable[[Any], bool]:
    if callable(spec):
        return lambda v: bool(spec(v))
    if isinstance(spec, range):
        return lambda v: isinstance(v, int) and v in spec
    if isinstance(spec, tuple) and len(spec) == 2 and all(isinstance(x, int) for x in spec):
        lo, hi = spec
        return lambda v: isinstance(v, int) and lo <= v <= hi
    if isinstance(spec, (set, frozenset)):
        return lambda v: v in spec
    return lambda v: v == spec


@dataclass
class Coverpoint:
    """Named bins over one sampled variable; a value may hit several bins."""

    name: str
    bins: dict[str, BinSpec]
    hits: dict[str, int] = field(default_factory=dict)
    _match: dict[str, Callable[[Any], bool]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.bins:
            raise ValueError(f"coverpoint {self.name}: no bins")
        self.hits = {b: 0 for b in self.bins}
        self._match = {b: _matcher(s) for b, s in self.bins.items()}

    def bins_of(self, value: Any) -> list[str]:
        return [b for b, m in self._match.items() if m(value)]

    def sample(self, value: Any) -> list[str]:
        hit = self.bins_of(value)
        for b in hit:
            self.hits[b] += 1
        return hit


@dataclass
class Cross:
    """Cross of coverpoints: one bin per combination of their bins (minus ``ignore``)."""

    name: str
    points: list[str]
    hits: dict[tuple[str, ...], int] = field(default_factory=dict)

    def init(self, cps: dict[str, Coverpoint], ignore: Callable[[tuple[str, ...]], bool] | None
             ) -> None:
        for combo in itertools.product(*(list(cps[p].bins) for p in self.points)):
            if ignore is None or not ignore(combo):
                self.hits[combo] = 0


class Covergroup:
    """A named set of coverpoints and crosses, sampled together."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.points: dict[str, Coverpoint] = {}
        self.crosses: dict[str, Cross] = {}
        self.samples = 0

    def coverpoint(self, name: str, bins: dict[str, BinSpec] | Iterable[Any]) -> Coverpoint:
        """Add a coverpoint; ``bins`` is {bin name: spec} or an iterable of values (one bin each)."""
        if name in self.points:
            raise ValueError(f"{self.name}: duplicate coverpoint {name}")
        if not isinstance(bins, dict):
            bins = {str(v): v for v in bins}
        cp = Coverpoint(name, dict(bins))
        self.points[name] = cp
        return cp

    def cross(self, name: str, points: list[str],
              ignore: Callable[[tuple[str, ...]], bool] | None = None) -> Cross:
        """Cross of existing coverpoints; ``ignore(combo)`` drops impossible bin combinations."""
        missing = [p for p in points if p not in self.points]
        if missing or len(points) < 2:
            raise ValueError(f"{self.name}: cross {name} needs >= 2 known points ({missing})")
        cr = Cross(name, list(points))
        cr.init(self.points, ignore)
        self.crosses[name] = cr
        return cr

    def sample(self, **values: Any) -> None:
        """Sample the coverpoints named in ``values``; a cross counts when all its points are
        given (every combination of the bins hit is counted)."""
        unknown = set(values) - set(self.points)
        if unknown:
            raise KeyError(f"{self.name}: unknown coverpoints {sorted(unknown)}")
        self.samples += 1
        hit = {n: self.points[n].sample(v) for n, v in values.items()}
        for cr in self.crosses.values():
            if all(p in hit for p in cr.points):
                for combo in itertools.product(*(hit[p] for p in cr.points)):
                    if combo in cr.hits:
                        cr.hits[combo] += 1

    def all_bins(self) -> list[tuple[str, int]]:
        """(full bin name, hits) for every bin of every point and cross."""
        out = [(f"{p.name}.{b}", n) for p in self.points.values() for b, n in p.hits.items()]
        out += [(f"{c.name}.<{','.join(k)}>", n) for c in self.crosses.values()
                for k, n in c.hits.items()]
        return out

    def missed(self) -> list[str]:
        return [b for b, n in self.all_bins() if n == 0]

    def percent(self) -> float:
        bins = self.all_bins()
        return 100.0 * sum(1 for _, n in bins if n) / len(bins) if bins else 100.0

    def to_dict(self) -> dict[str, Any]:
        bins = self.all_bins()
        return {
            "group": self.name,
            "samples": self.samples,
            "bins_total": len(bins),
            "bins_hit": sum(1 for _, n in bins if n),
            "percent": round(self.percent(), 2),
            "points": {p.name: dict(p.hits) for p in self.points.values()},
            "crosses": {c.name: {",".join(k): n for k, n in c.hits.items()}
                        for c in self.crosses.values()},
            "missed": self.missed(),
        }

    def report(self) -> str:
        d = self.to_dict()
        lines = [f"covergroup {self.name}: {d['bins_hit']}/{d['bins_total']} bins "
                 f"({d['percent']:.1f}%), {self.samples} samples"]
        for b, n in self.all_bins():
            lines.append(f"  {'MISS' if n == 0 else '    '} {b}: {n}")
        return "\n".join(lines)

    def check(self) -> None:
        """Raise AssertionError naming every missed bin."""
        m = self.missed()
        assert not m, f"covergroup {self.name}: {len(m)} bin(s) missed: {', '.join(m)}"


def write_json(groups: Iterable[Covergroup], path: Path, meta: dict[str, Any] | None = None) -> Path:
    """Dump the groups' bins; ``meta`` (e.g. run_meta()) is added to every record."""
    path.parent.mkdir(parents=True, exist_ok=True)
    recs = [{**g.to_dict(), **(meta or {})} for g in groups]
    path.write_text(json.dumps(recs, indent=1, sort_keys=True) + "\n")
    return path


def run_meta(test_name: str, enforced: bool = True) -> dict[str, Any]:
    """Who sampled a dump, for `make signoff` (tools/signoff.py) to merge a regression's bins: the
    cocotb test and module, the pytest node id the runner hands over (PYTEST_NODE), and whether
    the test fails on a missed bin (only such tests define the bins a block must hit)."""
    return {"test": test_name, "module": os.environ.get("COCOTB_TEST_MODULES", ""),
            "pytest": os.environ.get("PYTEST_NODE", ""), "enforced": enforced}


def dump(cg: Covergroup, test_name: str, collector: str = "cov") -> Path:
    """Dump a covergroup sampled outside a CoverageCollector to the same place and schema."""
    return write_json([cg], default_json_path(test_name, f"{collector}.{cg.name}"), run_meta(test_name))


def default_json_path(test_name: str, group: str) -> Path:
    """results/coverage/<build tag>__<test>__<group>.json; the simulator's cwd is the build dir,
    whose name (tools.runner) identifies top + parameter set."""
    tag = Path.cwd().name
    return COVERAGE_DIR / f"{tag}__{test_name}__{group}.json"


class CoverageCollector(uvm_component):
    """Holds covergroups; check_phase writes JSON and fails the test on missed bins."""

    def __init__(self, name: str, parent: uvm_component | None, enforce: bool = True,
                 json_dir: Path | None = None) -> None:
        super().__init__(name, parent)
        self.groups: dict[str, Covergroup] = {}
        self.enforce = enforce
        self.json_dir = json_dir
        self.json_paths: list[Path] = []

    def group(self, name: str) -> Covergroup:
        """Get or create the covergroup ``name``."""
        if name not in self.groups:
            self.groups[name] = Covergroup(name)
        return self.groups[name]

    def _test_name(self) -> str:
        top = self
        while top.get_parent() is not None and top.get_parent().get_parent() is not None:
            top = top.get_parent()
        return type(top).__name__

    def write(self) -> list[Path]:
        test = self._test_name()
        self.json_paths = []
        for g in self.groups.values():
            p = default_json_path(test, f"{self.get_name()}.{g.name}")
            if self.json_dir is not None:
                p = self.json_dir / p.name
            self.json_paths.append(write_json([g], p, run_meta(test, self.enforce)))
        return self.json_paths

    def missed(self) -> list[str]:
        return [f"{g.name}:{b}" for g in self.groups.values() for b in g.missed()]

    def check(self) -> None:
        m = self.missed()
        assert not m, f"{self.get_full_name()}: {len(m)} coverage bin(s) missed: {', '.join(m)}"

    def check_phase(self) -> None:
        self.write()
        for g in self.groups.values():
            self.logger.info(g.report())
        if self.enforce:
            self.check()
