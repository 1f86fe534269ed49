"""Time of one matrix product on an accelerator: roofline with tile and wave quantization.

A GPU GEMM splits its m x n output into thread-block tiles of Tm x Tn; a tile is computed whole even
where it overhangs the matrix (tile quantization), and the tiles run in waves of as many tiles as the
GPU holds at once: a wave costs the same whether it is full or not (wave quantization). Both from
NVIDIA's "Matrix Multiplication Background User's Guide" (Deep Learning Performance documentation,
§3.1-3.2: on A100, 108 SMs each run one 256x128 thread block, a wave is 108 tiles) and Anthony et
al., "The Case for Co-Designing Model Architectures with Hardware" (arXiv:2401.14489), which
measures the staircase on transformer GEMMs; the block count C = batch x ceil(m/Tm) x ceil(n/Tn) and
waves W = ceil(C / units) as in stas00/ml-engineering training/performance ("Tile and wave
quantization"). The fraction of the tile slots doing useful work is

    wave_efficiency = batch x m x n / (W x units x Tm x Tn)

taking the better of the two tile orientations (Tm x Tn or Tn x Tm), both in the library's kernel set.

The accelerator's `gemm_efficiency` is a maximum-achievable-matmul (MAMF) measurement on one shape;
that shape has its own wave efficiency, so the rate of a full tile slot is gemm_efficiency /
wave_efficiency(MAMF shape) and a GEMM of shape (m, n) achieves

    peak x min(1, gemm_efficiency x wave_efficiency(m, n) / wave_efficiency(MAMF shape))

and takes max(FLOPs / that rate, bytes / achievable HBM bandwidth) (roofline). A preset with
`gemm_units` 0 has no wave model (every GEMM at gemm_efficiency).
"""
from __future__ import annotations

import math

from sim.config.schema import Accelerator, Hardware
from sim.traffic.llm import Gemm


def wave_efficiency(m: float, n: float, batch: float, units: int, tile_m: int, tile_n: int) -> float:
    """Useful fraction of the tile slots a (batched) m x n output occupies; 1.0 without a wave model."""
    if units <= 0:
        return 1.0
    best = 0.0
    for tm, tn in ((tile_m, tile_n), (tile_n, tile_m)):
        blocks = math.ceil(batch) * math.ceil(m / tm) * math.ceil(n / tn)
        waves = math.ceil(blocks / units)
        best = max(best, batch * m * n / (waves * units * tm * tn))
    return best


def shape_efficiency(acc: Accelerator, m: float, n: float, batch: float = 1.0) -> float:
    """Achievable fraction of peak for an m x n output: the MAMF fraction scaled by this shape's wave
    efficiency relative to the MAMF measurement's own shape."""
    if acc.gemm_units <= 0:
        return acc.gemm_efficiency
    eff = wave_efficiency(m, n, batch, acc.gemm_units, acc.gemm_tile_m, acc.gemm_tile_n)
    ref = 1.0
    if acc.gemm_ref_m and acc.gemm_ref_n:
        ref = wave_efficiency(acc.gemm_ref_m, acc.gemm_ref_n, 1, acc.gemm_units, acc.gemm_tile_m, acc.gemm_tile_n)
    return min(1.0, acc.gemm_efficiency * eff / ref)


def gemm_time(g: Gemm, hw: Hardware) -> float:
    """Roofline time of one GEMM (all its batch) at the shape's achievable rate."""
    if g.flops <= 0:
        return 0.0
    rate = hw.peak_flops * shape_efficiency(hw.accelerator, g.m, g.n, g.batch)
    return max(g.flops / rate, g.bytes / hw.hbm_bytes_s)
