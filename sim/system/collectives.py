"""Collective and point-to-point times on a two-level network (scale-up domain, scale-out between).

Cost model (NCCL's, llm-configs §7): time = base latency + steps x step latency + volume / bus
bandwidth, with the volume factors of nccl-tests (PERFORMANCE.md): all-reduce 2(n-1)/n x V,
reduce-scatter and all-gather (n-1)/n x V, where V is the full buffer and the bus bandwidth is the
measured `busbw` of that level. A group of n ranks has g ranks in each of N domains (n = g x N).
Algorithms, the fastest is taken:
- flat ring over all n ranks: every step crosses the slower level's bandwidth, 2(N-1) of its steps
  cross domains (NCCL ring latency model);
- hierarchical: reduce-scatter inside each domain, the collective across domains on V/g per rank
  (each of the g ranks uses its own scale-out port), all-gather inside; the cross-domain part runs
  as a ring or as a tree (latency 2 log2 N steps; bandwidth derated by NCCL's tree factor 0.92,
  llm-configs §7);
- torus (TPU ICI): a group spanning k of the torus's D dimensions gets k/D of the per-chip
  all-reduce bandwidth, and (n^(1/k) - 1) x k steps per phase.
Point-to-point: latency + bytes / link bandwidth.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

TREE_BW_DERATE = 0.92      # NCCL tuner derates Tree bandwidth by 0.92 (llm-configs §7)
KINDS = ("all_reduce", "reduce_scatter", "all_gather")


@dataclass(frozen=True)
class Level:
    """One network level as seen by one rank."""

    busbw: float           # bytes/s, bus bandwidth of a collective on this level
    base: float            # s, fixed latency per collective
    step: float            # s, latency per algorithm step
    p2p_bw: float          # bytes/s, one-direction point-to-point bandwidth
    torus_dims: int = 1    # >1: a direct torus (the group's bandwidth depends on the dimensions it spans)
    torus_dim_size: int = 1


def _factor(kind: str, n: int) -> float:
    if kind == "all_reduce":
        return 2.0 * (n - 1) / n
    if kind in ("reduce_scatter", "all_gather"):
        return (n - 1) / n
    raise ValueError(f"unknown collective {kind!r} (one of {', '.join(KINDS)})")


def _steps(kind: str, n: int) -> int:
    return 2 * (n - 1) if kind == "all_reduce" else n - 1


def ring(kind: str, v: float, n: int, lvl: Level) -> float:
    if n <= 1 or v <= 0:
        return 0.0
    if lvl.torus_dims > 1:
        return torus(kind, v, n, lvl)
    return lvl.base + _steps(kind, n) * lvl.step + _factor(kind, n) * v / lvl.busbw


def tree(kind: str, v: float, n: int, lvl: Level) -> float:
    """Double binary tree (all-reduce only; other kinds fall back to the ring)."""
    if n <= 1 or v <= 0:
        return 0.0
    if kind != "all_reduce" or lvl.torus_dims > 1:
        return ring(kind, v, n, lvl)
    return lvl.base + 2 * math.ceil(math.log2(n)) * lvl.step + _factor(kind, n) * v / (lvl.busbw * TREE_BW_DERATE)


def torus_dims_spanned(n: int, lvl: Level) -> int:
    """Dimensions a group of n chips occupies in a D-dimensional torus with `torus_dim_size` per side."""
    if n <= 1:
        return 1
    return max(1, min(lvl.torus_dims, math.ceil(math.log(n) / math.log(max(lvl.torus_dim_size, 2)) - 1e-9)))


def torus(kind: str, v: float, n: int, lvl: Level) -> float:
    if n <= 1 or v <= 0:
        return 0.0
    k = torus_dims_spanned(n, lvl)
    bw = lvl.busbw * k / lvl.torus_dims
    side = n ** (1.0 / k)
    steps = (2 if kind == "all_reduce" else 1) * k * (side - 1)
    return lvl.base + steps * lvl.step + _factor(kind, n) * v / bw


def collective(kind: str, v: float, g: int, domains: int, up: Level, out: Level) -> float:
    """Fastest of flat ring and hierarchical (ring or tree across domains) for g ranks in each of
    `domains` domains; `v` is the full buffer per rank."""
    n = g * domains
    if n <= 1 or v <= 0:
        return 0.0
    if domains <= 1:
        return min(ring(kind, v, g, up), tree(kind, v, g, up))
    if g <= 1:
        return min(ring(kind, v, domains, out), tree(kind, v, domains, out))
    # flat ring: bandwidth of the slower level, NCCL's step latencies (2(N-1) steps cross domains)
    steps = _steps(kind, n)
    cross = (2 if kind == "all_reduce" else 1) * (domains - 1)
    flat = (max(up.base, out.base) + (steps - cross) * up.step + cross * out.step
            + _factor(kind, n) * v / min(up.busbw, out.busbw))
    # hierarchical
    inner = ring("reduce_scatter", v, g, up) + ring("all_gather", v, g, up) if kind == "all_reduce" \
        else ring(kind, v, g, up)
    across = min(ring(kind, v / g, domains, out), tree(kind, v / g, domains, out))
    return min(flat, inner + across)


def p2p(nbytes: float, lvl: Level) -> float:
    if nbytes <= 0:
        return 0.0
    return lvl.base + lvl.step + nbytes / lvl.p2p_bw
