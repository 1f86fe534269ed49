"""Contention on the accelerators' CXL port from RTL load curves (results/cosim/load_curve.csv).

The unloaded model (training.py) gives every flow the whole CXL port and the unloaded fabric
latency. Here each flow's bandwidth and latency are read from the load curves the co-simulation
measured on our RTL (sim/cosim/loadcurve.py: achieved throughput and latency against offered load,
per path), at the load the iteration's traffic offers:

- Flows on the port: in `scalepool`, weight/gradient/optimizer offload to the tier-2 pool and the
  inter-rack collectives (DP all-reduce across racks, PP transfers that leave a rack) share each
  GPU's CXL port; in `acc_clusters` only the collectives use it (offload goes to CPU memory);
  `baseline` (InfiniBand) has no CXL port and is unchanged.
- Offered load: bytes per iteration of each flow / iteration time, as a fraction of the port's
  data bandwidth (training.fabric's `cxl_bw`). The curves' x axis is the same quantity measured on
  the RTL port (achieved requests x 64 B per cycle / 64 B per cycle).
- Capacity: the port carries at most `saturation` x its bandwidth, the lower of the measured
  saturation throughputs of the tier-2 read and posted-write paths. A flow gets the capacity minus
  the other flow's offered rate (both flows are taken as spread over the whole iteration: an
  average, not a schedule), at least 5 % of it.
- Latency: the hardware step of an inter-rack collective gets the queueing delay the curves show:
  p50 of the tier-2 read path at the port's total load minus its light-load p50 (cycles = ns at
  1 GHz), added to the unloaded step (paths.cxl_gpu_step / acc_gpu_step).
- The iteration time depends on the rates it sets, so the calculation is repeated to a fixed point
  (a handful of rounds).

Hook into the current model without changing training.py: `iteration_time` is evaluated twice with
the flows' bandwidths (each through `cxl.link_gbps`) and the loaded step latency (through `Paths`),
and the documented sum `total = computation + communication + other` is recombined from the two
(offload terms from one, collective terms from the other).
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from sim.system.config import Config, ConfigError
from sim.system.latency import Paths, compute_paths
from sim.system.training import IterationTime, iteration_time, placement
from sim.traffic.llm import LLMWorkload, iteration_traffic

READ_PATH = "t2_read_1sw"
WRITE_PATH = "posted_write"
MIN_SHARE = 0.05


@dataclass(frozen=True)
class Curve:
    offered: np.ndarray         # requests / cycle / bridge
    achieved: np.ndarray        # fraction of link rate
    p50: np.ndarray             # cycles (= ns at 1 GHz) from arrival
    p99: np.ndarray

    @property
    def saturation(self) -> float:
        return float(self.achieved.max())

    def delay_at(self, util: float, q: str = "p50") -> float:
        """Queueing delay (ns) over the light-load latency at port utilization `util` (clamped to the
        measured range; past saturation the last point before it)."""
        lat = self.p50 if q == "p50" else self.p99
        k = int(np.argmax(self.achieved)) + 1          # rising part up to saturation
        x, y = self.achieved[:k], lat[:k]
        order = np.argsort(x)
        return float(np.interp(min(util, x.max()), x[order], y[order]) - lat[0])


@dataclass(frozen=True)
class LoadCurves:
    path: Path
    top: str
    curves: dict[str, Curve]

    @classmethod
    def from_csv(cls, path: Path, top: str | None = None) -> "LoadCurves":
        try:
            rows = list(csv.DictReader(open(path, newline="")))
        except FileNotFoundError as exc:
            raise ConfigError(f"{path}: load-curve file not found") from exc
        tops = sorted({r["top"] for r in rows})
        if not rows or not tops:
            raise ConfigError(f"{path}: no load-curve rows")
        use = top or ("flit" if "flit" in tops else tops[0])
        if use not in tops:
            raise ConfigError(f"{path}: no rows for top {use!r} (has {', '.join(tops)})")
        cur: dict[str, Curve] = {}
        for p in sorted({r["path"] for r in rows if r["top"] == use}):
            pr = sorted((r for r in rows if r["top"] == use and r["path"] == p), key=lambda r: float(r["offered_per_bridge"]))
            f = lambda k: np.array([float(r[k]) for r in pr])   # noqa: E731
            cur[p] = Curve(f("offered_per_bridge"), f("fraction_of_link_rate"), f("p50"), f("p99"))
        for need in (READ_PATH, WRITE_PATH):
            if need not in cur:
                raise ConfigError(f"{path}: top {use!r} has no {need!r} curve")
        return cls(Path(path), use, cur)

    @property
    def saturation(self) -> float:
        return min(self.curves[READ_PATH].saturation, self.curves[WRITE_PATH].saturation)


@dataclass(frozen=True)
class Loaded:
    it: IterationTime
    unloaded: IterationTime
    util: float                 # offered port load / port bandwidth (may exceed the capacity)
    step_delay_ns: float
    offload_bw: float           # bytes/s per GPU
    collective_bw: float
    rounds: int


def _port_bytes(w: LLMWorkload, cfg: Config, system: str) -> tuple[float, float]:
    """(offload, collective) bytes per iteration per GPU on the CXL port."""
    tr = iteration_traffic(w)
    pl = placement(w, cfg.get("gpu.gpus_per_rack"))
    coll = 0.0
    if pl.pp_cross_rack and tr.pp_p2p_per_microbatch:
        coll += w.microbatches * tr.pp_p2p_per_microbatch * tr.pp_p2p_bytes
    if pl.dp_nodes > 1 and w.dp > 1:
        coll += 2 * (w.dp - 1) / w.dp * tr.dp_allreduce_bytes
    off = tr.offload_overlappable_bytes + tr.offload_optimizer_bytes if system == "scalepool" else 0.0
    return off, coll


def _port_bw(cfg: Config) -> float:
    from sim.system.latency import cxl_data_efficiency
    g = cfg.get
    return g("topology.cxl_ports_per_gpu") * g("cxl.link_gbps") * cxl_data_efficiency(cfg) * 1e9


def _with_bw(cfg: Config, bw: float) -> Config:
    """The config whose CXL port data bandwidth is `bw` bytes/s (through cxl.link_gbps)."""
    return cfg.with_values({"cxl.link_gbps": cfg.get("cxl.link_gbps") * bw / _port_bw(cfg)}, "load curve")


def iteration_time_loaded(w: LLMWorkload, cfg: Config, system: str, curves: LoadCurves,
                          paths: Paths | None = None, rounds: int = 12) -> Loaded:
    paths = paths or compute_paths(cfg)
    base = iteration_time(w, cfg, system, paths)
    if system == "baseline":
        return Loaded(base, base, 0.0, 0.0, 0.0, 0.0, 0)
    off_b, coll_b = _port_bytes(w, cfg, system)
    bw = _port_bw(cfg)
    cap = curves.saturation * bw
    t = base.total
    it, util, delay, bw_off, bw_coll, k = base, 0.0, 0.0, bw, bw, 0
    for k in range(1, rounds + 1):
        r_off, r_coll = off_b / t, coll_b / t
        util = (r_off + r_coll) / bw
        delay = curves.curves[READ_PATH].delay_at(util)
        bw_off = max(cap - r_coll, MIN_SHARE * cap)
        bw_coll = max(cap - r_off, MIN_SHARE * cap)
        step = "cxl_gpu_step" if system == "scalepool" else "acc_gpu_step"
        p_l = replace(paths, **{step: getattr(paths, step) + delay})
        a = iteration_time(w, _with_bw(cfg, bw_off), system, p_l)      # offload terms
        b = iteration_time(w, _with_bw(cfg, bw_coll), system, p_l)     # collective terms
        comm = b.tp + b.pp + b.dp_exposed
        other = b.bubble + a.offload_exposed
        it = replace(b, total=b.computation + comm + other, communication=comm, other=other,
                     offload_exposed=a.offload_exposed)
        if abs(it.total - t) <= 1e-6 * t:
            t = it.total
            break
        t = it.total
    return Loaded(it, base, util, delay, bw_off, bw_coll, k)


def evaluate_loaded(workloads: list[LLMWorkload], cfg: Config, curves: LoadCurves,
                    systems: tuple[str, ...] = ("baseline", "acc_clusters", "scalepool")) -> dict[str, dict[str, Loaded]]:
    paths = compute_paths(cfg)
    return {w.key: {s: iteration_time_loaded(w, cfg, s, curves, paths) for s in systems} for w in workloads}
