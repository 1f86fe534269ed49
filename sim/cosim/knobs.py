"""Co-simulation knobs with their domains, checked before anything builds.

`CosimCfg` holds every knob of both harnesses (the cycle-by-cycle `detail` harness and the bulk
`hil` harness); `DOMAINS` declares each knob's domain once. `parse_sets()` turns `--set name=value`
strings into typed values and `check()` validates a whole configuration: a bad value raises
`KnobError` with one line that names the knob, the value and the domain (the CLI prints it and
exits 2). Nothing is defaulted silently: an unknown knob, a value of the wrong type or outside its
domain is an error.
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields, replace
from functools import lru_cache
from typing import Any

MODES = ("direct", "cascade", "cascade_hbr")
SOURCES = ("tiering", "llm", "hit", "miss", "coh_read", "write")
LINE = 64
NONCOH_LINES = 0xF0_0000 // LINE          # Window() defaults (sim.cosim.stream): non-coherent lines
COH_LINES = 0x10_0000 // LINE              # coherent sub-range lines


class KnobError(ValueError):
    """A knob value outside its domain; the message is one line."""


@dataclass
class CosimCfg:
    n_per_bridge: int = 150
    nbr: int = 2
    sources: tuple[str, ...] = ("tiering", "llm")   # per bridge (cycled)
    mode: str = "direct"          # direct: one switch hop (HBR); cascade: two hops (PBR); cascade_hbr: two hops (HBR)
    t2_lat: int = 60              # tier-2 memory node time (cycles), excluded from fabric hops
    ha_lat: int = 40              # home agent memory time (cycles), excluded likewise
    idle_p: float = 0.95          # detail harness: idle cycle before presenting each request
    load: float = 0.05            # hil harness: offered requests per cycle per bridge (open loop)
    ready_p: float = 1.0          # XLink response-side ready probability (back-pressure)
    peer_p: float = 0.03          # detail harness: per-cycle probability that a peer issues a request
    peer_delay: int = 4           # detail harness: max snoop-answer delay of a peer (cycles)
    peer_ready_p: float = 1.0     # detail harness: ready probability on the peers' H2D channels
    pattern: str | None = None    # tiering pattern (default: tiering.yaml's)
    model: str | None = None      # LLM key (default: first in llm_training.yaml)
    ws_lines: int = 2048          # tiering working set (lines, in the bridge's own range)
    read_share: float = 0.75
    coh_share: float = 0.2
    coh_lines: int = 64           # coherent lines touched (shared by the bridges)
    max_cycles: int = 400000      # detail harness: give up after this many cycles
    ber: float = 0.0              # bit error rate on the flit wires of the links in `ber_links`
    ber_links: str = "all"        # "all" or '+'-separated hop names (sim.cosim.hil.HOPS)

    @classmethod
    def from_json(cls, text: str) -> "CosimCfg":
        d = json.loads(text) if text else {}
        if "sources" in d:
            d["sources"] = tuple(d["sources"])
        return check(cls(**d))

    def to_json(self) -> str:
        return json.dumps(asdict(self))


@dataclass(frozen=True)
class Domain:
    kind: str                                  # "int", "float", "str", "sources"
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False
    choices: tuple[str, ...] = ()
    optional: bool = False                     # None allowed (meaning: the workload file's default)
    what: str = ""

    def describe(self) -> str:
        if self.kind in ("int", "float"):
            fmt = (lambda v: str(int(v))) if self.kind == "int" else (lambda v: f"{v:g}")
            lo = "-inf" if self.lo is None else fmt(self.lo)
            hi = "inf" if self.hi is None else fmt(self.hi)
            kind = "an integer" if self.kind == "int" else "a number"
            return f"{kind} in {'(' if self.lo_open else '['}{lo}, {hi}{')' if self.hi_open else ']'}"
        if self.kind == "sources":
            return f"comma-separated, each one of {', '.join(self.choices)}"
        return "one of " + ", ".join(self.choices)


PROB = Domain("float", 0.0, 1.0, what="probability")
DOMAINS: dict[str, Domain] = {
    "n_per_bridge": Domain("int", 1, 2**24 - 1),           # 24-bit request numbers in the RTL records
    "nbr": Domain("int", 1, 2),
    "sources": Domain("sources", choices=SOURCES),
    "mode": Domain("str", choices=MODES),
    "t2_lat": Domain("int", 1, 65535),
    "ha_lat": Domain("int", 1, 65535),
    "idle_p": Domain("float", 0.0, 1.0, hi_open=True, what="probability; 1 would never send"),
    "load": Domain("float", 0.001, 1.0, what="requests per cycle per bridge; gaps are 16-bit"),
    "ready_p": Domain("float", 0.0, 1.0, lo_open=True, what="0 would never take a response"),
    "peer_p": PROB,
    "peer_delay": Domain("int", 0, 10000),
    "peer_ready_p": Domain("float", 0.0, 1.0, lo_open=True),
    "pattern": Domain("str", choices=("uniform", "zipf", "streaming"), optional=True),
    "model": Domain("str", optional=True),                  # choices: llm_training.yaml's keys
    "ws_lines": Domain("int", 1, NONCOH_LINES // 2),        # one bridge's half of the window
    "read_share": PROB,
    "coh_share": PROB,
    "coh_lines": Domain("int", 1, COH_LINES),
    "max_cycles": Domain("int", 1, 2**31 - 1),
    "ber": PROB,
    "ber_links": Domain("str"),                             # checked against the hop names
}


@lru_cache(maxsize=1)
def llm_models() -> tuple[str, ...]:
    from sim.traffic.llm import LLM_YAML, load_workload_file
    return tuple(w.key for w in load_workload_file(LLM_YAML))


def hop_names() -> tuple[str, ...]:
    from sim.cosim.hil import HOPS
    return HOPS


def _num(name: str, d: Domain, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and math.isnan(v)):
        raise KnobError(f"{name}={v!r}: expected {d.describe()}")
    if d.kind == "int" and (isinstance(v, float) and not v.is_integer()):
        raise KnobError(f"{name}={v!r}: expected {d.describe()}")
    below = d.lo is not None and (v <= d.lo if d.lo_open else v < d.lo)
    above = d.hi is not None and (v >= d.hi if d.hi_open else v > d.hi)
    if below or above:
        extra = f" ({d.what})" if d.what else ""
        raise KnobError(f"{name}={v!r}: outside its domain, {d.describe()}{extra}")
    return int(v) if d.kind == "int" else float(v)


def check_value(name: str, v: Any) -> Any:
    """The value, typed, or KnobError."""
    if name not in DOMAINS:
        raise KnobError(f"{name}: unknown knob (one of {', '.join(sorted(DOMAINS))})")
    d = DOMAINS[name]
    if v is None and d.optional:
        return None
    if d.kind in ("int", "float"):
        return _num(name, d, v)
    if d.kind == "sources":
        items = tuple(v.split(",")) if isinstance(v, str) else tuple(v) if isinstance(v, (list, tuple)) else None
        if not items or any(not isinstance(s, str) or s.strip() not in d.choices for s in items):
            raise KnobError(f"{name}={v!r}: expected {d.describe()}")
        return tuple(s.strip() for s in items)
    if not isinstance(v, str):
        raise KnobError(f"{name}={v!r}: expected a name")
    choices = d.choices
    if name == "model":
        choices = llm_models()
    elif name == "ber_links":
        parts = v.split("+")
        bad = [p for p in parts if p != "all" and p not in hop_names()]
        if bad or not v:
            raise KnobError(f"ber_links={v!r}: expected 'all' or '+'-separated hop names: {', '.join(hop_names())}")
        return v
    if choices and v not in choices:
        raise KnobError(f"{name}={v!r}: expected one of {', '.join(choices)}")
    return v


def check(cfg: CosimCfg) -> CosimCfg:
    """Every field checked against its domain (and cross-field rules); returns cfg."""
    for f in fields(cfg):
        check_value(f.name, getattr(cfg, f.name))
    if cfg.coh_share > 0 and "tiering" in cfg.sources and cfg.coh_lines < 1:
        raise KnobError("coh_lines must be >= 1 when tiering traffic has a coherent share")
    return cfg


def parse_literal(text: str) -> Any:
    """A command-line value: int, float, true/false, none, or the text itself."""
    t = text.strip()
    if t.lower() in ("none", "null", "~"):
        return None
    if t.lower() in ("true", "false"):
        return t.lower() == "true"
    for conv in (int, float):
        try:
            return conv(t)
        except ValueError:
            pass
    return t


def parse_sets(items: Iterable[str]) -> dict[str, Any]:
    """`name=value` strings -> {name: typed, checked value}."""
    out: dict[str, Any] = {}
    for it in items:
        if "=" not in it:
            raise KnobError(f"--set {it!r}: expected name=value")
        k, v = (t.strip() for t in it.split("=", 1))
        out[k] = check_value(k, v if k in ("sources", "ber_links", "pattern", "model", "mode") and
                             v.lower() not in ("none", "null") else parse_literal(v))
    return out


def apply(cfg: CosimCfg, sets: Mapping[str, Any]) -> CosimCfg:
    return check(replace(cfg, **dict(sets)))
