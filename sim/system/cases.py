"""Case studies (CXL-over-XLink report section 5.2) on the CXL prototype path vs the RDMA path.

Both paths come from the system model's machinery (`latency.compute_paths`, `training.fabric`)
evaluated on the prototype's topology (`cases.common`: switch traversals and cable length):
- CXL: a read of the pool through `switch_hops` CXL switches (ScalePool tier-2 path), bandwidth of
  the accelerator's CXL ports at the CXL flit data efficiency;
- RDMA: an RDMA READ through as many IB switches (measured verbs latency + switch hops + flight),
  bandwidth of the NIC at its measured efficiency, plus `rdma_copies` staging copies per byte.

One phase, for a transfer of S bytes (ns; 1 GB/s = 1 B/ns):
  CXL:  t_c(S) = n * (L_cxl + S / B_cxl)              n = cxl_traversals
  RDMA: t_r(S) = L_rdma + S * (1 / B_ib + k / B_copy)  k = rdma_copies
  fabric speedup s(S) = t_r / t_c, monotonic in S from L_rdma / (n L_cxl) (S -> 0, latency-bound)
  to (1/B_ib + k/B_copy) * B_cxl / n (S -> inf, bandwidth-bound);
  phase speedup = 1 / (f + (1 - f) / s), f = compute share of the baseline's phase time.
With data_bytes D and compute_s C known, times are explicit: T = C + (D / S) * L + D * per-byte cost.
Every expression is monotonic in each unknown separately, so evaluating the corners of the box of
unknowns gives the exact interval of results (vectorized over all corners at once). An unknown the
report does not bound spans its physical range (share 0..1, transfer size 0..inf). Nothing is fitted:
the paper's speedups are never inputs.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from sim.config.build import CASES_YAML, DEFAULT_HARDWARE, TIERING_YAML, WORKLOAD_YAML, Config, load_config
from sim.system.latency import Paths, compute_paths
from sim.system.measured import Measured
from sim.system.training import cxl_bandwidth, scaleout_level
from sim.traffic.cases import TIME_SUFFIX, CaseCommon, CaseProfile, Phase, load_case_file


@dataclass(frozen=True)
class CasePaths:
    cxl_lat_ns: float      # one pool read round trip through the prototype's CXL switches
    rdma_lat_ns: float     # one RDMA READ through the same number of IB switches
    cxl_gbps: float        # per-accelerator CXL data bandwidth
    rdma_gbps: float       # per-accelerator NIC bandwidth achieved
    copy_gbps: float       # one staging copy on the RDMA path
    switch_hops: int
    cable_m: float


@dataclass(frozen=True)
class CaseValue:
    """One scored quantity: an interval (lo == hi when the report pins it down) or no value."""

    name: str
    unit: str                  # "x" (speedup RDMA/CXL) or "s" (seconds on the CXL path)
    lo: float | None
    hi: float | None
    note: str

    @property
    def derivable(self) -> bool:
        return self.lo is not None

    @property
    def is_point(self) -> bool:
        return self.lo is not None and bool(np.isclose(self.lo, self.hi, rtol=1e-3))   # spread below display precision


@dataclass(frozen=True)
class CaseResult:
    profile: CaseProfile
    values: dict[str, CaseValue]   # every phase, composite and <phase>_time


def build_case_config(config_file: Path | None = None, sets: Iterable[str] = (), workload_file: Path = WORKLOAD_YAML,
                      tiering_file: Path = TIERING_YAML, latencies_from: Path | None = None,
                      cases_file: Path = CASES_YAML, hardware: str = DEFAULT_HARDWARE) -> tuple[Config, Measured | None]:
    """The run's configuration with the case profiles under `cases.*` (same override order as every
    run: defaults <- measured RTL latencies <- --config file <- --set), so `--set cases....` works."""
    cfg = load_config(hardware, config_file, sets, workload_file, tiering_file, cases_file, latencies_from)
    return cfg, cfg.measured


def case_paths(cfg: Config, common: CaseCommon) -> CasePaths:
    """System-model paths on the prototype topology: same hop count and cable length on both paths."""
    k, m = common.switch_hops, common.cable_m
    sub = cfg.with_values({"topology.tier2_switch_hops": k, "ib.switch_hops": k,
                           "fabric.intra_rack_cable_m": m, "fabric.inter_rack_cable_m": m}, "case-study topology")
    p: Paths = compute_paths(sub)
    cxl_bw = cxl_bandwidth(sub) / 1e9
    ib_bw = scaleout_level(sub.hardware).busbw / 1e9
    return CasePaths(p.sp_tier2_read, p.rdma_read, cxl_bw, ib_bw, common.rdma_copy_gbps, k, m)


def fabric_speedup(op_bytes, traversals, copies, cp: CasePaths) -> np.ndarray:
    """RDMA/CXL time of one transfer of `op_bytes` (array; 0 and inf allowed), vectorized."""
    s = np.asarray(op_bytes, dtype=float)
    n = np.asarray(traversals, dtype=float)
    per_byte_r = 1.0 / cp.rdma_gbps + np.asarray(copies, dtype=float) / cp.copy_gbps
    per_byte_c = n / cp.cxl_gbps
    lat_c = n * cp.cxl_lat_ns
    with np.errstate(invalid="ignore", over="ignore"):
        finite = (cp.rdma_lat_ns + s * per_byte_r) / (lat_c + s * per_byte_c)
    return np.where(np.isinf(s), per_byte_r / per_byte_c * np.ones_like(s), finite)


def _corners(*ivals: tuple[float, float]) -> np.ndarray:
    """All corners of a box, shape (2**d, d)."""
    return np.array(list(itertools.product(*[(a, b) for a, b in ivals])), dtype=float)


def _phase_values(ph: Phase, cp: CasePaths, line_bytes: float) -> tuple[CaseValue, CaseValue]:
    """(speedup, CXL-path time) of one phase."""
    n, k = ph.cxl_traversals, ph.rdma_copies
    explicit = ph.data_bytes is not None and ph.compute_s is not None
    lat_r = cp.rdma_lat_ns
    lat_c = n * cp.cxl_lat_ns
    pb_r = 1.0 / cp.rdma_gbps + k / cp.copy_gbps
    pb_c = n / cp.cxl_gbps
    if explicit:
        d_lo, d_hi = ph.data_bytes
        op = ph.op_bytes or (line_bytes, d_hi)          # a transfer is at least one line, at most all data
        box = _corners(ph.compute_s, ph.data_bytes, op)
        c_ns, d, s = box[:, 0] * 1e9, box[:, 1], np.minimum(box[:, 2], box[:, 1])
        t_r = c_ns + d / s * lat_r + d * pb_r
        t_c = c_ns + d / s * lat_c + d * pb_c
        sp = t_r / t_c
        how = (f"explicit: compute {ph.compute_s[0]:g}-{ph.compute_s[1]:g} s, data {d_lo:.3g}-{d_hi:.3g} B, "
               f"transfers {op[0]:.3g}-{op[1]:.3g} B")
        return (CaseValue(ph.name, "x", float(sp.min()), float(sp.max()), how),
                CaseValue(ph.name + TIME_SUFFIX, "s", float(t_c.min() / 1e9), float(t_c.max() / 1e9), how))
    share = ph.compute_share or (0.0, 1.0)
    op = ph.op_bytes or (0.0, np.inf)
    box = _corners(share, op)
    f = box[:, 0]
    s_fab = fabric_speedup(box[:, 1], n, k, cp)
    sp = 1.0 / (f + (1.0 - f) / s_fab)
    unknown = [u for u in ("compute_share", "op_bytes") if getattr(ph, u) is None]
    if share == (1.0, 1.0):
        how = "computation only: the same processors in both setups, no fabric term"
    else:
        lim = fabric_speedup(np.array([0.0, np.inf]), n, k, cp)
        how = (f"fabric {n}x CXL {cp.cxl_lat_ns:.0f} ns / {cp.cxl_gbps:.0f} GB/s vs RDMA {lat_r:.0f} ns / "
               f"{cp.rdma_gbps:.0f} GB/s" + (f" + {k:g} copy at {cp.copy_gbps:.0f} GB/s" if k else "")
               + f": latency-bound {lim[0]:.2f}x, bandwidth-bound {lim[1]:.2f}x")
        if ph.op_bytes is not None:
            how += f"; transfers of {op[0]:.3g}-{op[1]:.3g} B (report)"
        if ph.compute_share is not None:
            how += "; compute share " + (f"{share[0]:g}" if share[0] == share[1] else f"{share[0]:g}-{share[1]:g}")
        if unknown:
            how += "; unknown in the report: " + ", ".join(unknown)
    missing = [u for u in ("data_bytes", "compute_s") if getattr(ph, u) is None]
    t = CaseValue(ph.name + TIME_SUFFIX, "s", None, None,
                  "not derivable: the report gives no " + " or ".join(missing)
                  + " for this phase (and nothing about the prototype's compute rate)")
    return CaseValue(ph.name, "x", float(sp.min()), float(sp.max()), how), t


def evaluate_case(profile: CaseProfile, cp: CasePaths, line_bytes: float = 64.0) -> CaseResult:
    vals: dict[str, CaseValue] = {}
    for ph in profile.phases:
        sp, t = _phase_values(ph, cp, line_bytes)
        vals[sp.name], vals[t.name] = sp, t
    for c in profile.composites:
        parts = [vals[p] for p in c.parts]
        lo_i = np.array([v.lo for v in parts])
        hi_i = np.array([v.hi for v in parts])
        if c.shares is None:
            lo, hi = float(lo_i.min()), float(hi_i.max())
            how = "baseline time split between " + ", ".join(c.parts) + " not given: any mix of the parts' intervals"
        else:
            w = np.array(c.shares)
            lo, hi = float(1.0 / np.sum(w / lo_i)), float(1.0 / np.sum(w / hi_i))
            how = "baseline time shares " + ", ".join(f"{p} {x:g}" for p, x in zip(c.parts, c.shares))
        vals[c.name] = CaseValue(c.name, "x", lo, hi, how)
        times = [vals[p + TIME_SUFFIX] for p in c.parts]
        if all(t.derivable for t in times):
            vals[c.name + TIME_SUFFIX] = CaseValue(c.name + TIME_SUFFIX, "s", sum(t.lo for t in times),
                                                    sum(t.hi for t in times), "sum of the parts' CXL-path times")
        else:
            vals[c.name + TIME_SUFFIX] = CaseValue(c.name + TIME_SUFFIX, "s", None, None,
                                                    "not derivable: a part's time is not derivable")
    return CaseResult(profile, vals)


def run_cases(cfg: Config) -> tuple[CasePaths, list[CaseResult]]:
    """Every case profile of a configuration (the shipped profile file when it was built without one)."""
    common, profiles = cfg.cases if cfg.cases is not None else load_case_file(CASES_YAML)
    cp = case_paths(cfg, common)
    return cp, [evaluate_case(p, cp, float(cfg.system.fabric.line_bytes)) for p in profiles]


__all__ = ["CasePaths", "CaseResult", "CaseValue", "build_case_config", "case_paths", "evaluate_case",
           "fabric_speedup", "run_cases"]
