"""Request streams as columnar traces: generated from the traffic generators, saved to and loaded
from `.npz`, replayed into the RTL (sim.cosim.hilrun) and into the models (sim.cosim.replay).

A trace is one table, one row per 64 B request, in each bridge's program order:

| column | type | meaning |
|---|---|---|
| bridge | uint8 | XLink port (0 UALink-style, 1 NVLink-style) |
| gap | uint32 | cycles after the previous request of the same bridge arrives (first: after the start) |
| write | bool | write (else read) |
| line | uint32 | line index in the bridge window (byte address = window base + 64 * line) |
| coherent | bool | line in the coherent sub-range (CXL.cache through the home agent) |
| kind | uint8 | traffic class, an index into `kinds` (e.g. llm_opt_rd, tier_zipf, hit) |

plus `meta` (JSON: sources, seed, offered load, window). Arrivals are open loop: the offered
load (requests per cycle per bridge) sets geometric inter-arrival gaps, independent of how fast the
fabric answers, so a load past saturation shows as queueing at the source.

Address map: the non-coherent range is split between the bridges (bridge b owns lines
[b*P, (b+1)*P), P = non-coherent lines / bridges: each rack's own allocations in the shared pool);
the coherent sub-range is shared by both bridges (their accesses are kept coherent by the home
agent). Sources (knob `sources`, one per bridge, cycled):
- tiering: the tiering pattern of tiering.yaml (uniform / zipf / streaming) over `ws_lines`
  lines, `read_share` reads, `coh_share` of the requests on `coh_lines` shared coherent lines;
- llm: the LLM's inter-cluster/offload mix (sim.traffic.llm.message_stream), each traffic class
  walking its own slice of the bridge's range;
- hit / miss / coh_read / write: one path each, for load curves: reads of 32 lines that stay in the
  bridge's hot-line cache / reads spread over the bridge's whole range (tier-2 misses) / reads of
  the coherent lines / posted writes spread over the bridge's range.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sim.cosim.knobs import CosimCfg
from sim.cosim.stream import LINE, Window, pattern_lines, tiering_spec
from sim.traffic.llm import LLM_YAML, iteration_traffic, load_workload_file, message_stream

COLUMNS = ("bridge", "gap", "write", "line", "coherent", "kind")
HIT_LINES = 32                # fit the bridge's hot-line cache (64 sets, direct mapped) without conflicts
FORMAT = "scalepool-cosim-trace/1"


@dataclass
class Trace:
    bridge: np.ndarray
    gap: np.ndarray
    write: np.ndarray
    line: np.ndarray
    coherent: np.ndarray
    kind: np.ndarray
    kinds: tuple[str, ...]
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.line)

    def bridges(self) -> list[int]:
        return sorted(int(b) for b in np.unique(self.bridge))

    def of(self, b: int) -> dict[str, np.ndarray]:
        sel = self.bridge == b
        return {c: getattr(self, c)[sel] for c in COLUMNS}

    def save(self, path: Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, **{c: getattr(self, c) for c in COLUMNS},
                            kinds=np.array(self.kinds, dtype=object).astype(str),
                            meta=np.array(json.dumps({"format": FORMAT, **self.meta})))
        return path

    @classmethod
    def load(cls, path: Path) -> "Trace":
        try:
            z = np.load(Path(path), allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path}: not a trace file ({exc})") from exc
        missing = [c for c in COLUMNS + ("kinds", "meta") if c not in z.files]
        if missing:
            raise ValueError(f"{path}: not a trace file (missing {', '.join(missing)})")
        meta = json.loads(str(z["meta"]))
        if meta.get("format") != FORMAT:
            raise ValueError(f"{path}: unknown trace format {meta.get('format')!r}")
        t = cls(*(z[c] for c in COLUMNS), kinds=tuple(str(k) for k in z["kinds"]), meta=meta)
        t.validate(str(path))
        return t

    def validate(self, where: str = "trace") -> None:
        n = len(self.line)
        if any(len(getattr(self, c)) != n for c in COLUMNS):
            raise ValueError(f"{where}: columns of different lengths")
        if n == 0:
            raise ValueError(f"{where}: no requests")
        if self.bridge.max() > 1 or self.gap.max() > 0xFFFF or self.line.max() >= Window().win_size // LINE:
            raise ValueError(f"{where}: bridge (0..1), gap (< 65536) or line (< window) out of range")
        if self.kind.max() >= len(self.kinds):
            raise ValueError(f"{where}: kind index beyond the kinds table")
        coh = Window().coh_off // LINE
        if np.any(self.coherent != (self.line >= coh)):
            raise ValueError(f"{where}: `coherent` disagrees with the line's place in the window")


def _geometric_gaps(rng: np.random.Generator, n: int, load: float) -> np.ndarray:
    """Bernoulli arrivals at `load` per cycle: gaps >= 1 with mean 1/load."""
    if load >= 1.0:
        return np.ones(n, np.uint32)
    return np.minimum(rng.geometric(load, n), 0xFFFF).astype(np.uint32)


def bridge_stream(src: str, b: int, nbr: int, n: int, seed: int, cfg: CosimCfg,
                  win: Window = Window()) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(write, line, kind names) for one bridge's `n` requests from source `src`."""
    rng = np.random.default_rng(seed)
    part = win.noncoh_lines // nbr
    base = b * part
    coh0 = win.coh_off // LINE
    if src == "tiering":
        spec = tiering_spec()
        pattern = cfg.pattern or spec.pattern
        lines = base + pattern_lines(pattern, n, min(cfg.ws_lines, part), rng, spec.zipf_alpha)
        clines = coh0 + pattern_lines(pattern, n, min(cfg.coh_lines, win.coh_lines), rng, spec.zipf_alpha)
        coh = rng.random(n) < cfg.coh_share
        wr = rng.random(n) >= cfg.read_share
        return wr, np.where(coh, clines, lines), [f"tier_{pattern}"] * n
    if src == "llm":
        wls = load_workload_file(LLM_YAML)
        w = wls[0] if cfg.model is None else next(x for x in wls if x.key == cfg.model)
        msgs = message_stream(iteration_traffic(w), n, seed, LINE)
        kinds = sorted(set(str(k) for k in msgs["kind"]))
        slice_lines = part // max(len(kinds), 1)
        kk = np.array([kinds.index(str(k)) for k in msgs["kind"]])
        off = (msgs["addr"].astype(np.uint64) & np.uint64((1 << 40) - 1)) // np.uint64(LINE) % np.uint64(slice_lines)
        lines = base + off.astype(np.int64) + kk * slice_lines
        wr = msgs["cxl_msg"] == "m2s_rwd"
        return wr, lines, [f"llm_{k}" for k in msgs["kind"]]
    if src == "hit":
        return np.zeros(n, bool), base + rng.integers(0, HIT_LINES, n), ["hit"] * n
    if src == "miss":
        return np.zeros(n, bool), base + rng.integers(0, part, n), ["miss"] * n
    if src == "write":
        return np.ones(n, bool), base + rng.integers(0, part, n), ["write"] * n
    if src == "coh_read":
        return np.zeros(n, bool), coh0 + rng.integers(0, min(cfg.coh_lines, win.coh_lines), n), ["coh_read"] * n
    raise ValueError(f"request source {src!r}")


def generate(cfg: CosimCfg, seed: int, n_per_bridge: int | None = None, load: float | None = None,
             win: Window = Window()) -> Trace:
    """A trace of `n_per_bridge` requests per bridge at `load` requests/cycle/bridge."""
    n = cfg.n_per_bridge if n_per_bridge is None else n_per_bridge
    load = cfg.load if load is None else load
    cols = {c: [] for c in COLUMNS}
    names: list[str] = []
    kinds: list[str] = []
    for b in range(cfg.nbr):
        src = cfg.sources[b % len(cfg.sources)]
        wr, lines, knames = bridge_stream(src, b, cfg.nbr, n, seed * 7 + b, cfg, win)
        gaps = _geometric_gaps(np.random.default_rng(seed * 7919 + b), n, load)
        for k in knames:
            if k not in kinds:
                kinds.append(k)
        kidx = {k: i for i, k in enumerate(kinds)}
        cols["bridge"].append(np.full(n, b, np.uint8))
        cols["gap"].append(gaps)
        cols["write"].append(np.asarray(wr, bool))
        cols["line"].append(np.asarray(lines, np.uint32))
        cols["coherent"].append(np.asarray(lines) >= win.coh_off // LINE)
        cols["kind"].append(np.array([kidx[k] for k in knames], np.uint8))
        names.append(src)
    t = Trace(*(np.concatenate(cols[c]) for c in COLUMNS), kinds=tuple(kinds),
              meta={"sources": names, "seed": seed, "load": load, "n_per_bridge": n,
                    "cfg": json.loads(cfg.to_json())})
    t.validate()
    return t
