"""Memory-tiering workloads: working-set sweeps and access-pattern distributions.

`access_cdf(pattern, x, W)` is the fraction of accesses that fall on the hottest `x` bytes of a
working set of `W` bytes (x, W may be numpy arrays):
- uniform: every line equally likely -> x / W;
- zipf(alpha): line popularity ~ 1/rank^alpha -> H(x/line, alpha) / H(W/line, alpha);
- streaming: a cyclic sequential sweep has no hot subset (and defeats LRU reuse) -> x / W.
Generalized harmonic numbers use the Euler-Maclaurin expansion, so a 10^15-byte working set costs
the same as a small one (no per-line arrays).
"""
from __future__ import annotations

import numpy as np

from sim.config.schema import TIERING_PATTERNS, TieringSpec, build_tiering
from sim.config.tree import ParamTree

PATTERNS = TIERING_PATTERNS


def load_tiering(tree: ParamTree, prefix: str = "tiering") -> TieringSpec:
    """The checked tiering spec from the `prefix.*` leaves of a parameter tree."""
    return build_tiering(tree.section(prefix), prefix)


def sweep_bytes(spec: TieringSpec, accel_bytes: float, cluster_bytes: float) -> np.ndarray:
    lo = spec.min_fraction_of_accelerator * accel_bytes
    hi = spec.max_fraction_of_cluster * cluster_bytes
    return np.geomspace(lo, hi, spec.points)


def harmonic(n: np.ndarray, alpha: float) -> np.ndarray:
    """H(n, alpha) = sum_{k=1..n} k^-alpha for real n >= 1 (Euler-Maclaurin, exact to <1e-4 rel)."""
    n = np.maximum(np.asarray(n, dtype=float), 1.0)
    small = n < 64
    out = np.empty_like(n)
    if small.any():
        k = np.arange(1, 65, dtype=float)
        csum = np.cumsum(k ** -alpha)
        nn = n[small]
        fl = np.floor(nn).astype(int)
        out[small] = csum[fl - 1] + (nn - fl) * (fl + 1.0) ** -alpha
    big = ~small
    if big.any():
        nb = n[big]
        # sum_{k=1}^{N} = sum_{k=1}^{63} + integral_{64}^{N} + (f(64)+f(N))/2 + (f'(N)-f'(64))/12
        head = float(np.sum(np.arange(1, 64, dtype=float) ** -alpha))
        a = 64.0
        if abs(alpha - 1.0) < 1e-12:
            integral = np.log(nb / a)
        else:
            integral = (nb ** (1 - alpha) - a ** (1 - alpha)) / (1 - alpha)
        f = lambda x: x ** -alpha
        fp = lambda x: -alpha * x ** (-alpha - 1)
        out[big] = head + integral + (f(a) + f(nb)) / 2 + (fp(nb) - fp(a)) / 12
    return out


def access_cdf(pattern: str, x_bytes, ws_bytes, alpha: float = 0.99, granule: int = 64) -> np.ndarray:
    """Fraction of accesses to the hottest `x_bytes` of a `ws_bytes` working set."""
    x = np.minimum(np.asarray(x_bytes, dtype=float), np.asarray(ws_bytes, dtype=float))
    w = np.asarray(ws_bytes, dtype=float) * np.ones_like(x)
    if pattern in ("uniform", "streaming"):
        return np.clip(x / w, 0.0, 1.0)
    if pattern == "zipf":
        frac = harmonic(x / granule, alpha) / harmonic(w / granule, alpha)
        return np.where(x <= 0, 0.0, np.clip(frac, 0.0, 1.0))
    raise ValueError(f"unknown access pattern {pattern!r} (one of {', '.join(PATTERNS)})")
