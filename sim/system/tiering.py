"""Mean memory-access latency vs working set for baseline, accelerator clusters and ScalePool.

Capacities: one accelerator's HBM (C_acc) and one rack's (C_cl = 72 * C_acc); beyond that the
data lives in other racks (baseline: reached by RDMA; accelerator clusters: by CXL between
clusters through the rack-edge bridges and the remote rack's NVLink) or in the tier-2 pool
(ScalePool). Placement:
- baseline / accelerator clusters: XLink memory is statically partitioned and non-coherent, so
  data sits by address: the share served locally is C_acc / W, whatever the access pattern;
- ScalePool: tier-1 is coherent (CXL.cache), so hot lines can live in the accessor's memory;
  the share served locally is the access CDF of the hottest C_acc bytes (equal to C_acc / W for
  uniform and streaming patterns). Misses to peers pay the XLink path plus a CXL coherence check.
Unloaded latencies (no queuing).
"""
from __future__ import annotations

import numpy as np

from sim.config.build import Config
from sim.system.latency import Paths
from sim.traffic.tiering import TieringSpec, access_cdf

CONFIGS = ("baseline", "acc_clusters", "scalepool")


def capacities(cfg: Config) -> tuple[float, float]:
    acc = cfg.hardware.accelerator.hbm_gb * 1e9
    return acc, acc * cfg.hardware.accelerator.per_domain


def mean_latency(ws: np.ndarray, pattern: str, spec: TieringSpec, paths: Paths, cfg: Config) -> dict[str, np.ndarray]:
    ws = np.asarray(ws, dtype=float)
    c_acc, c_cl = capacities(cfg)
    s_loc = np.minimum(1.0, c_acc / ws)
    s_cl = np.minimum(1.0, c_cl / ws)
    d_loc = access_cdf(pattern, c_acc, ws, spec.zipf_alpha, spec.granule_bytes)
    d_cl = access_cdf(pattern, c_cl, ws, spec.zipf_alpha, spec.granule_bytes)
    base = s_loc * paths.hbm_local + (s_cl - s_loc) * paths.nvlink_peer_read + (1 - s_cl) * paths.rdma_read
    acc = s_loc * paths.hbm_local + (s_cl - s_loc) * paths.nvlink_peer_read + (1 - s_cl) * paths.acc_remote_read
    sp = d_loc * paths.hbm_local + (d_cl - d_loc) * paths.sp_tier1_peer_read + (1 - d_cl) * paths.sp_tier2_read
    return {"baseline": base, "acc_clusters": acc, "scalepool": sp}
