"""Parse the scoring targets from targets.md at run time (paper values are never typed into code).

Sections 1-4 are scored. Each value text becomes a `Spec`:
point ("2.0x", "130 ns") -> within the tolerance of the rules; range ("100-250 ns", "+70-90 ns",
"tens to hundreds of ns" = 10-1000 ns) -> inside; bound ("< 500 ns", "<= 150 ns (25.6T), ...": the
first bound, "> 1 us") -> satisfied; "ordering" -> a qualitative check. The verdict rules themselves
(the point tolerance, and whether a speedup target needs a value above 1.0) are read from the
file's "Rules" paragraph by `load_rules`; a file without a point tolerance cannot be scored. Section 4 (case studies) rows hold several
values ("<a>x / <b>x (<c> s / <d> s)"); `parse_values` splits them, each scored as its own row.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCORED_SECTIONS = (1, 2, 3, 4)
CASE_SECTION = 4
UNIT_NS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6}


@dataclass(frozen=True)
class Spec:
    kind: str                # point | range | upper | lower | ordering
    lo: float | None = None
    hi: float | None = None
    unit: str = ""
    inclusive: bool = False


@dataclass(frozen=True)
class Rules:
    """Verdict rules stated in targets.md."""

    point_tolerance: float          # |ours / paper - 1| allowed for a point value
    speedup_floor: float | None     # a speedup target ("Nx" above 1) needs ours above this, or None
    text: str                       # the sentences the rules were read from

    def describe(self) -> str:
        s = f"point value: hit within ±{self.point_tolerance * 100:g} %"
        if self.speedup_floor is not None:
            s += f", and a speedup target is met only by a value above {self.speedup_floor:g}"
        return s + "; range or bound: in/out"


def parse_rules(text: str, origin: str = "targets.md") -> Rules:
    flat = " ".join(text.split())
    m = re.search(r"within\s*(?:±|\+/?-)\s*([0-9]+(?:\.[0-9]+)?)\s*%", flat)
    if not m:
        raise ValueError(f"{origin}: no point-value tolerance ('within ±N%') found in the rules")
    floor = re.search(r"speedup target[^.]*?met only by a value above\s*([0-9]+(?:\.[0-9]+)?)", flat, re.I)
    sentences = [x.strip() for x in re.split(r"(?<=[.:])\s+", flat) if "within" in x or "speedup target" in x.lower()]
    return Rules(float(m.group(1)) / 100.0, float(floor.group(1)) if floor else None, " ".join(sentences))


def load_rules(path: Path | None = None) -> Rules:
    """The verdict rules of targets.md: the bullet list before the first numbered section."""
    path = path or targets_path()
    text = path.read_text(encoding="utf-8")
    head = re.split(r"^##\s+1\.", text, maxsplit=1, flags=re.M)[0]
    return parse_rules(head, str(path))


@dataclass(frozen=True)
class Target:
    id: str
    section: int
    what: str
    value_text: str
    spec: Spec


def targets_path() -> Path:
    env = os.environ.get("SCALEPOOL_TARGETS")
    candidates = [Path(env)] if env else []
    candidates += [REPO.parent / "shared" / "reference" / "targets.md", Path("/work/shared/reference/targets.md")]
    for c in candidates:
        if c.is_file():
            return c
    raise FileNotFoundError("targets.md not found (looked at: " + ", ".join(map(str, candidates)) + ")")


def _num_unit(text: str) -> tuple[float, str]:
    m = re.match(r"\s*([0-9.]+)\s*(x|ns|us|µs|ms)?", text)
    if not m:
        raise ValueError(f"no number in {text!r}")
    val, unit = float(m.group(1)), (m.group(2) or "")
    if unit in UNIT_NS:
        return val * UNIT_NS[unit], "ns"
    return val, unit


def parse_spec(text: str) -> Spec:
    t = text.strip()
    if t.lower().startswith("ordering"):
        return Spec("ordering")
    if re.match(r"tens to hundreds of ns", t):
        return Spec("range", 10.0, 1000.0, "ns")
    m = re.match(r"\s*(<=|≤|<|>=|≥|>)\s*(.*)", t)
    if m:
        val, unit = _num_unit(m.group(2))
        incl = m.group(1) in ("<=", "≤", ">=", "≥")
        return Spec("upper" if m.group(1) in ("<", "<=", "≤") else "lower", val if m.group(1)[0] in ">≥" else None,
                    val if m.group(1)[0] in "<≤" else None, unit, incl)
    m = re.match(r"\s*\+?([0-9.]+)\s*[-–]\s*([0-9.]+)\s*(x|ns|us|µs|ms)?", t)
    if m:
        f = UNIT_NS.get(m.group(3) or "", 1.0)
        unit = "ns" if (m.group(3) or "") in UNIT_NS else (m.group(3) or "")
        return Spec("range", float(m.group(1)) * f, float(m.group(2)) * f, unit)
    val, unit = _num_unit(t)
    return Spec("point", val, val, unit)


def parse_values(text: str) -> list[tuple[float, str]]:
    """Every number with a speedup ('x') or seconds ('s') unit, in order: '9x (2 s + 5 s)' -> [(9, 'x'), (2, 's'), (5, 's')]."""
    return [(float(m.group(1)), m.group(2)) for m in re.finditer(r"(?<![\w.])([0-9]+(?:\.[0-9]+)?)\s*(x|s)\b", text)]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def load_targets(path: Path | None = None) -> list[Target]:
    path = path or targets_path()
    out: list[Target] = []
    section = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        h = re.match(r"##\s+(\d+)\.", line)
        if h:
            section = int(h.group(1))
            continue
        if section not in SCORED_SECTIONS or not line.startswith("|"):
            continue
        cells = _cells(line)
        if len(cells) < 3 or cells[0] in ("id",) or set(cells[0]) <= set("-: "):
            continue
        if not re.match(r"^[A-Z][A-Z0-9-]+$", cells[0]):
            continue
        out.append(Target(cells[0], section, cells[1], cells[2], parse_spec(cells[2])))
    if not out:
        raise ValueError(f"{path}: no target rows found in sections {SCORED_SECTIONS}")
    return out
