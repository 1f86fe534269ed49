"""Co-simulation knobs with their domains, checked before anything builds.

`CosimCfg` is a checked dataclass of sim.config (every field declared with its domain through
`param`): constructing one, or `dataclasses.replace` on one, checks every value, and a value outside
its domain raises `ConfigError` with one line naming the knob and the domain. `parse_sets()` turns
`--set name=value` strings into typed, checked values (numbers as numbers, `none` for the optional
names, comma-separated lists for `sources`); an unknown knob is an error too. Nothing is defaulted
silently. `describe()` lists every knob with its domain (the CLI's `--knobs`).
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields, replace
from functools import lru_cache
from typing import Any

from sim.config.domains import (FRACTION, FRACTION0, Checked, ConfigError, Domain, describe as _describe, integer,
                                number, one_of, param)

MODES = ("direct", "cascade", "cascade_hbr")
SOURCES = ("tiering", "llm", "hit", "miss", "coh_read", "write")
PATTERNS = ("uniform", "zipf", "streaming")
LINE = 64
NONCOH_LINES = 0xF0_0000 // LINE          # Window() defaults (sim.cosim.stream): non-coherent lines
COH_LINES = 0x10_0000 // LINE              # coherent sub-range lines
MAX_PER_BRIDGE = 2**24 - 1                 # 24-bit request numbers in the RTL records

KnobError = ConfigError


@lru_cache(maxsize=1)
def llm_models() -> tuple[str, ...]:
    from sim.traffic.llm import LLM_YAML, load_workload_file
    return tuple(w.key for w in load_workload_file(LLM_YAML))


@lru_cache(maxsize=1)
def hop_names() -> tuple[str, ...]:
    from sim.cosim.hil import HOPS
    return HOPS


def _names(v: Any) -> tuple[str, ...] | None:
    items = v.split(",") if isinstance(v, str) else v if isinstance(v, (list, tuple)) else None
    if not items or any(not isinstance(s, str) for s in items):
        return None
    return tuple(s.strip() for s in items)


SOURCES_D = Domain("comma-separated names, each one of " + ", ".join(SOURCES),
                   lambda v: _names(v) is not None and all(s in SOURCES for s in _names(v)), _names)
PATTERN_D = Domain("none or one of " + ", ".join(PATTERNS), lambda v: v is None or v in PATTERNS)
MODEL_D = Domain("none or a model of llm_training.yaml", lambda v: v is None or (isinstance(v, str) and v in llm_models()))
BER_LINKS_D = Domain("all, or '+'-separated hop names (br0_mem, br1_mem, br0_cache, br1_cache, node0, home, "
                     "cascade, node1, node2)",
                     lambda v: isinstance(v, str) and bool(v) and all(p == "all" or p in hop_names() for p in v.split("+")))


@dataclass
class CosimCfg(Checked):
    n_per_bridge: int = param(integer(1, MAX_PER_BRIDGE), 150, doc="requests per bridge")
    nbr: int = param(integer(1, 2), 2, doc="bridges driven")
    sources: tuple[str, ...] = param(SOURCES_D, ("tiering", "llm"), doc="request source per bridge (cycled)")
    mode: str = param(one_of(*MODES), "direct",
                      doc="direct: one switch hop (HBR); cascade: two hops (PBR); cascade_hbr: two hops (HBR)")
    t2_lat: int = param(integer(1, 65535), 60, "cycles", "tier-2 memory node time, excluded from fabric hops")
    ha_lat: int = param(integer(1, 65535), 40, "cycles", "home agent memory time, excluded likewise")
    idle_p: float = param(number(0.0, 1.0, hi_open=True), 0.95,
                          doc="detail harness: idle cycle before presenting each request (1 would never send)")
    load: float = param(number(0.001, 1.0), 0.05, "requests/cycle/bridge",
                        doc="bulk harness: offered load (open loop; gaps are 16-bit)")
    ready_p: float = param(FRACTION, 1.0, doc="XLink response-side ready probability (0 would never take one)")
    peer_p: float = param(FRACTION0, 0.03, doc="detail harness: per-cycle probability that a peer issues a request")
    peer_write_p: float = param(FRACTION0, 0.3,
                                doc="detail harness: share of a peer's requests that write (a store to a line it "
                                    "holds in E/M, else a write request from I or an ownership upgrade from S)")
    peer_delay: int = param(integer(0, 10000), 4, "cycles", "detail harness: max snoop-answer delay of a peer")
    peer_ready_p: float = param(FRACTION, 1.0, doc="detail harness: ready probability on the peers' H2D channels")
    pattern: str | None = param(PATTERN_D, None, doc="tiering pattern (none: tiering.yaml's)")
    model: str | None = param(MODEL_D, None, doc="LLM key (none: the first in llm_training.yaml)")
    ws_lines: int = param(integer(1, NONCOH_LINES // 2), 2048, "lines", "tiering working set in the bridge's range")
    read_share: float = param(FRACTION0, 0.75)
    coh_share: float = param(FRACTION0, 0.2, doc="share of tiering requests on the coherent lines")
    coh_lines: int = param(integer(1, COH_LINES), 64, "lines", "coherent lines touched (shared by the bridges)")
    max_cycles: int = param(integer(1, 2**31 - 1), 400000, "cycles", "detail harness: give up after this many")
    ber: float = param(FRACTION0, 0.0, doc="bit error rate on the flit wires of the hops in ber_links, once every link is up")
    ber_links: str = param(BER_LINKS_D, "all")

    @classmethod
    def from_json(cls, text: str) -> "CosimCfg":
        d = json.loads(text) if text else {}
        unknown = set(d) - {f.name for f in fields(cls)}
        if unknown:
            raise ConfigError(f"{sorted(unknown)[0]}: unknown knob")
        return cls(**d)

    def to_json(self) -> str:
        return json.dumps(asdict(self))


def check(cfg: CosimCfg) -> CosimCfg:
    """Every field checked against its domain (construction already does; kept for clarity)."""
    return replace(cfg)


def parse_literal(text: str) -> Any:
    """A command-line value: int, float, true/false, none, or the text itself (1e-6 is a number)."""
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
    by_name = {f.name: f for f in fields(CosimCfg)}
    out: dict[str, Any] = {}
    for it in items:
        if "=" not in it:
            raise ConfigError(f"--set {it!r}: expected name=value")
        k, v = (t.strip() for t in it.split("=", 1))
        if k not in by_name:
            raise ConfigError(f"{k}: unknown knob (one of {', '.join(sorted(by_name))})")
        val = v if k in ("sources", "ber_links") else parse_literal(v)
        out[k] = by_name[k].metadata["domain"].check(k, val)
    return out


def apply(cfg: CosimCfg, sets: Mapping[str, Any]) -> CosimCfg:
    return replace(cfg, **dict(sets))


def describe() -> list[tuple[str, str, str, str]]:
    """(knob, domain, unit, doc) for every knob."""
    return _describe(CosimCfg)
