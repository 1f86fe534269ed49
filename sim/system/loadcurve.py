"""Contention on the accelerators' CXL port from RTL load curves (results/cosim/load_curve.csv).

Unloaded, the model (training.networks) gives every flow the whole CXL port and the unloaded
fabric latency. With load curves (`load_config(..., load_curves_from=...)`, the report's
`--load-curves-from`, default `<out>/cosim/load_curve.csv` when the co-simulation sweep has run),
each flow's bandwidth and the collective step latency are read from the curves our RTL showed
(sim/cosim/loadcurve.py: achieved throughput and latency against offered load, per path) at the
load the iteration's traffic offers:

- Flows on the port (sim.traffic.llm.iteration_traffic volumes, per accelerator and iteration): in
  `scalepool`, weight / gradient / optimizer offload to the tier-2 pool and the collectives that
  leave the scale-up domain (pipeline transfers across domains, the data-parallel reduction across
  domains: 2(n-1)/n of its buffer) share each accelerator's CXL port; in `acc_clusters` only the
  collectives use it (offload goes to host memory); `baseline` has no CXL port and is unchanged.
- Offered load: each flow's bytes / iteration time, as a fraction of the port's data bandwidth
  (training.cxl_bandwidth). The curves' x axis is the same quantity on the RTL port (achieved
  64 B requests per cycle / one 64 B line per cycle).
- Capacity: the port carries at most `saturation` x its bandwidth, the lower of the measured
  saturation throughputs of the tier-2 read and posted-write paths. A flow gets the capacity minus
  the other flow's offered rate (both taken as spread over the iteration: an average, not a
  schedule), at least 5 % of the capacity.
- Latency: each step of a collective across domains (training.Network.out.step) gets the queueing
  delay of the tier-2 read curve at the port's total load: its p50 there minus its light-load p50
  (cycles = ns at the 1 GHz RTL clock), added to the unloaded step.
- The iteration time sets the rates and the rates set the iteration time: repeated (damped) to a
  fixed point within 1e-6 (a few rounds; at most 40).
The curves' top: the flit-link top when the file has it (every hop through cxl_link), else the
message-level top.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from sim.config.domains import ConfigError

READ_PATH = "t2_read_1sw"
WRITE_PATH = "posted_write"
MIN_SHARE = 0.05
ROUNDS = 40
TOL = 1e-6


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
        """Queueing delay (ns) over the light-load latency at port load `util` (a fraction of link
        rate), on the rising part of the curve (up to its highest throughput); clamped there."""
        lat = self.p50 if q == "p50" else self.p99
        k = int(np.argmax(self.achieved)) + 1
        x, y = self.achieved[:k], lat[:k]
        order = np.argsort(x, kind="stable")
        return max(0.0, float(np.interp(min(util, float(x.max())), x[order], y[order]) - lat[0]))


@dataclass(frozen=True)
class LoadCurves:
    path: str
    top: str
    curves: dict[str, Curve]

    @classmethod
    def from_csv(cls, path: Path, top: str | None = None) -> "LoadCurves":
        try:
            with open(path, newline="", encoding="utf-8") as fh:
                rows = list(csv.DictReader(fh))
        except FileNotFoundError as exc:
            raise ConfigError(f"{path}: load-curve file not found") from exc
        need = {"top", "path", "offered_per_bridge", "fraction_of_link_rate", "p50", "p99"}
        if not rows or not need <= set(rows[0]):
            raise ConfigError(f"{path}: not a load-curve file (columns {', '.join(sorted(need))})")
        tops = sorted({r["top"] for r in rows})
        use = top or ("flit" if "flit" in tops else tops[0])
        if use not in tops:
            raise ConfigError(f"{path}: no rows for top {use!r} (has {', '.join(tops)})")
        cur: dict[str, Curve] = {}
        for p in sorted({r["path"] for r in rows if r["top"] == use}):
            pr = sorted((r for r in rows if r["top"] == use and r["path"] == p),
                        key=lambda r: float(r["offered_per_bridge"]))
            try:
                cols = {k: np.array([float(r[k]) for r in pr]) for k in ("offered_per_bridge", "fraction_of_link_rate",
                                                                         "p50", "p99")}
            except ValueError as exc:
                raise ConfigError(f"{path}: path {p}: {exc}") from None
            if not all(np.all(np.isfinite(v)) for v in cols.values()) or cols["fraction_of_link_rate"].max() <= 0:
                raise ConfigError(f"{path}: path {p}: values must be finite, throughput positive")
            cur[p] = Curve(cols["offered_per_bridge"], cols["fraction_of_link_rate"], cols["p50"], cols["p99"])
        for need_p in (READ_PATH, WRITE_PATH):
            if need_p not in cur:
                raise ConfigError(f"{path}: top {use!r} has no {need_p!r} curve")
        return cls(str(path), use, cur)

    @property
    def saturation(self) -> float:
        return min(self.curves[READ_PATH].saturation, self.curves[WRITE_PATH].saturation)


@dataclass(frozen=True)
class PortLoad:
    """What the curves gave one (workload, system)."""

    util: float                 # offered port load / port bandwidth (may exceed the capacity)
    step_delay_ns: float
    offload_bw: float           # bytes/s per accelerator
    collective_bw: float
    rounds: int


def port_bytes(w, pl, system: str) -> tuple[float, float]:
    """(offload, collective) bytes per iteration per accelerator on its CXL port."""
    from sim.traffic.llm import iteration_traffic
    tr = iteration_traffic(w)
    coll = 0.0
    if pl.pp_cross and tr.pp_p2p_per_microbatch:
        coll += w.layout.microbatches * tr.pp_p2p_per_microbatch * tr.pp_p2p_bytes
    if pl.dp_domains > 1 and w.layout.dp > 1:
        coll += 2 * (w.layout.dp - 1) / w.layout.dp * tr.dp_allreduce_bytes
    off = tr.offload_weight_bytes + tr.offload_grad_bytes + tr.offload_optimizer_bytes if system == "scalepool" else 0.0
    return off, coll


def loaded_iteration(w, cfg, system: str, curves: LoadCurves, net=None, pl=None):
    """(IterationTime with the port's contention, PortLoad); baseline and layouts that do not fit
    are returned unloaded."""
    from sim.system.training import cxl_bandwidth, iteration_time, networks, placement
    net = net or networks(cfg)[system]
    pl = pl or placement(w, cfg.hardware.accelerator.per_domain)
    it = iteration_time(w, cfg, system, net, pl)
    if system == "baseline" or not math.isfinite(it.total):
        return it, PortLoad(0.0, 0.0, net.offload_bw, net.out.busbw, 0)
    off_b, coll_b = port_bytes(w, pl, system)
    bw = cxl_bandwidth(cfg)
    cap = curves.saturation * bw
    t = it.total
    load = PortLoad(0.0, 0.0, net.offload_bw, net.out.busbw, 0)
    for k in range(1, ROUNDS + 1):
        r_off, r_coll = off_b / t, coll_b / t
        util = (r_off + r_coll) / bw
        delay = curves.curves[READ_PATH].delay_at(util)
        bw_coll = max(cap - r_off, MIN_SHARE * cap)
        bw_off = max(cap - r_coll, MIN_SHARE * cap) if system == "scalepool" else net.offload_bw
        out = replace(net.out, busbw=bw_coll, p2p_bw=bw_coll, step=net.out.step + delay * 1e-9)
        it = iteration_time(w, cfg, system, replace(net, out=out, offload_bw=bw_off), pl)
        load = PortLoad(util, delay, bw_off, bw_coll, k)
        if not math.isfinite(it.total) or abs(it.total - t) <= TOL * t:
            break
        t = 0.5 * (t + it.total)                # damped: the rates depend on the time they set
    return it, load


def evaluate_loaded(workloads, cfg, curves: LoadCurves, systems=("baseline", "acc_clusters", "scalepool")):
    """model key -> system -> (IterationTime, PortLoad)."""
    from sim.system.training import networks, placement
    nets = networks(cfg)
    out = {}
    for w in workloads:
        pl = placement(w, cfg.hardware.accelerator.per_domain)
        out[w.key] = {s: loaded_iteration(w, cfg, s, curves, nets[s], pl) for s in systems}
    return out
