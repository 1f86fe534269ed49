"""Request streams for the co-simulation, sampled from the workload generators in sim/traffic.

Two sources, both reproducible from a seed:
- `llm_requests`: the per-iteration inter-cluster/offload byte mix of one LLM from
  sim/traffic/configs/llm_training.yaml (`sim.traffic.llm.message_stream`): M2S Req reads become
  XLink reads, M2S RwD writes become XLink writes; each traffic kind walks its own slice of the
  bridge window line by line (streaming, as the generator does).
- `tiering_requests`: the tiering access pattern of sim/traffic/configs/tiering.yaml (uniform, zipf
  with the file's alpha, streaming) over a working set of `ws_lines` lines, with a read share and a
  coherent share (lines in the bridge's CXL.cache sub-range = tier-1 coherent memory).
Every request is one 64 B line (the co-simulation measures per-line hops).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from sim.system.config import Config
from sim.traffic.llm import LLM_YAML, iteration_traffic, load_workload_file, message_stream
from sim.traffic.schema import CONFIG_DIR, load_tree_into
from sim.traffic.tiering import PATTERNS, load_tiering

TIERING_YAML = CONFIG_DIR / "tiering.yaml"
LINE = 64


@dataclass(frozen=True)
class Window:
    """Bridge address map (must match the RTL parameters of sp_rack_edge)."""

    win_base: int = 0x1_0000_0000
    win_size: int = 0x100_0000
    hpa_base: int = 0x40_0000_0000
    coh_off: int = 0xF0_0000
    coh_size: int = 0x10_0000

    @property
    def noncoh_lines(self) -> int:
        return self.coh_off // LINE

    @property
    def coh_lines(self) -> int:
        return self.coh_size // LINE

    def hpa_line(self, xaddr: int) -> int:
        return (self.hpa_base + xaddr - self.win_base) >> 6

    def coh_hpa_range(self) -> tuple[int, int]:
        lo = (self.hpa_base + self.coh_off) >> 6
        return lo, lo + self.coh_lines


@dataclass(frozen=True)
class Request:
    """One 64 B XLink request: `kind` is the workload's traffic class (for the report)."""

    write: bool
    addr: int          # XLink byte address
    coherent: bool
    kind: str

    def as_dict(self) -> dict:
        return asdict(self)


def _zipf_ranks(rng: np.random.Generator, n: int, size: int, alpha: float) -> np.ndarray:
    """Ranks 0..size-1 with P(k) ~ 1/(k+1)^alpha (finite support, any alpha > 0)."""
    w = 1.0 / np.arange(1, size + 1, dtype=float) ** alpha
    return rng.choice(size, size=n, p=w / w.sum())


def pattern_lines(pattern: str, n: int, size: int, rng: np.random.Generator, alpha: float,
                  start: int = 0) -> np.ndarray:
    """`n` line indices in [0, size) for an access pattern (streaming: cyclic sequential sweep)."""
    if pattern not in PATTERNS:
        raise ValueError(f"access pattern {pattern!r}: one of {', '.join(PATTERNS)}")
    if size <= 0:
        raise ValueError("working set must hold at least one line")
    if pattern == "uniform":
        return rng.integers(0, size, n)
    if pattern == "zipf":
        ranks = _zipf_ranks(rng, n, size, alpha)
        # scatter ranks over the set (a fixed permutation) so hot lines are not all neighbours
        perm = np.random.default_rng(12345).permutation(size)
        return perm[ranks]
    return (start + np.arange(n)) % size


def tiering_spec(path: Path = TIERING_YAML):
    cfg = Config()
    load_tree_into(cfg, Path(path), "tiering")
    return load_tiering(cfg)


def tiering_requests(n: int, seed: int, win: Window, pattern: str | None = None, ws_lines: int = 2048,
                     read_share: float = 0.75, coh_share: float = 0.2, coh_lines: int = 64,
                     tiering_file: Path = TIERING_YAML) -> list[Request]:
    """Tiering access stream; `pattern` defaults to the workload file's scored pattern."""
    spec = tiering_spec(tiering_file)
    pattern = pattern or spec.pattern
    rng = np.random.default_rng(seed)
    lines = pattern_lines(pattern, n, min(ws_lines, win.noncoh_lines), rng, spec.zipf_alpha)
    clines = pattern_lines(pattern, n, min(coh_lines, win.coh_lines), rng, spec.zipf_alpha)
    coh = rng.random(n) < coh_share
    wr = rng.random(n) >= read_share
    out = []
    for i in range(n):
        if coh[i]:
            addr = win.win_base + win.coh_off + int(clines[i]) * LINE
        else:
            addr = win.win_base + int(lines[i]) * LINE
        out.append(Request(bool(wr[i]), addr, bool(coh[i]), f"tier_{pattern}"))
    return out


def llm_requests(n: int, seed: int, win: Window, model: str | None = None,
                 workload_file: Path = LLM_YAML) -> list[Request]:
    """The LLM's inter-cluster/offload mix (first model of the file by default)."""
    wls = load_workload_file(Path(workload_file))
    keys = [w.key for w in wls]
    if model is None:
        w = wls[0]
    elif model in keys:
        w = wls[keys.index(model)]
    else:
        raise ValueError(f"model {model!r} not in {workload_file}: {', '.join(keys)}")
    msgs = message_stream(iteration_traffic(w), n, seed, LINE)
    kinds = sorted(set(str(k) for k in msgs["kind"]))
    slice_lines = win.noncoh_lines // max(len(kinds), 1)
    out = []
    for m in msgs:
        k = str(m["kind"])
        line = (int(m["addr"]) & ((1 << 40) - 1)) // LINE % slice_lines + kinds.index(k) * slice_lines
        out.append(Request(str(m["cxl_msg"]) == "m2s_rwd", win.win_base + line * LINE, False, f"llm_{k}"))
    return out
