"""Matplotlib figures for the report (Agg backend, PNG)."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from sim.system.model import SystemResult, speedups  # noqa: E402
from sim.system.measured import Measured  # noqa: E402
from sim.system.cases import CasePaths, CaseResult, fabric_speedup  # noqa: E402
from sim.report.sensitivity import Swing, movers  # noqa: E402

def _save(fig, out: Path, name: str) -> Path:
    fig.tight_layout()
    path = out / name
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


LABELS = {"baseline": "baseline (NVL72 + IB)", "acc_clusters": "accelerator clusters", "scalepool": "ScalePool"}


def plot_speedup(res: SystemResult, out: Path) -> Path:
    names = [w.display for w in res.workloads]
    fig, ax = plt.subplots(figsize=(7, 3.6))
    x = np.arange(len(names))
    for i, sys in enumerate(("acc_clusters", "scalepool")):
        spd = speedups(res.training, sys)
        sp = [spd.get(w.key, np.nan) for w in res.workloads]
        ax.bar(x + (i - 0.5) * 0.38, sp, 0.38, label=LABELS[sys])
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xticks(x, names, rotation=15, fontsize=8)
    ax.set_ylabel("training speedup vs baseline")
    ax.legend(fontsize=8)
    return _save(fig, out, "speedup_per_model.png")


def plot_breakdown(res: SystemResult, out: Path) -> Path:
    fig, ax = plt.subplots(figsize=(8, 3.8))
    labels, comp, comm, other = [], [], [], []
    for w in res.workloads:
        base = res.training[w.key]["baseline"].total
        if not np.isfinite(base):
            continue
        for sys in ("baseline", "scalepool"):
            it = res.training[w.key][sys]
            labels.append(f"{w.key.split('_')[0]}\n{'base' if sys == 'baseline' else 'SP'}")
            comp.append(it.computation / base)
            comm.append(it.communication / base)
            other.append(it.other / base)
    x = np.arange(len(labels))
    ax.bar(x, comp, label="computation")
    ax.bar(x, comm, bottom=comp, label="communication")
    ax.bar(x, other, bottom=np.add(comp, comm), label="other (bubble, offload)")
    ax.set_xticks(x, labels, fontsize=7)
    ax.set_ylabel("time / baseline total")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _save(fig, out, "time_breakdown.png")


def plot_tiering(res: SystemResult, out: Path) -> Path:
    t = res.tiering
    fig, axes = plt.subplots(1, len(t.latency), figsize=(11, 3.5), sharey=True)
    for ax, (pattern, lat) in zip(axes, t.latency.items()):
        for cfg, y in lat.items():
            ax.loglog(t.ws_bytes / 1e12, y, label=LABELS[cfg])
        for b in (t.accel_bytes, t.cluster_bytes):
            ax.axvline(b / 1e12, color="grey", ls=":", lw=0.8)
        ax.set_title(f"{pattern} access", fontsize=9)
        ax.set_xlabel("working set (TB)")
    axes[0].set_ylabel("mean access latency (ns)")
    axes[0].legend(fontsize=7)
    return _save(fig, out, "latency_vs_working_set.png")


def plot_cdfs(m: Measured, out: Path) -> Path | None:
    if not m.samples_ns:
        return None
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for name, s in m.samples_ns.items():
        v = np.sort(np.asarray(s))
        ax.plot(v, np.arange(1, len(v) + 1) / len(v), label=name)
    ax.set_xlabel("latency (ns)")
    ax.set_ylabel("CDF")
    ax.legend(fontsize=7)
    return _save(fig, out, "cosim_latency_cdf.png")


def plot_cases(cases: list[CaseResult], cp: CasePaths, rows: list, out: Path) -> Path:
    """Fabric speedup (RDMA / CXL time) vs transfer size for each (traversals, copies) the profiles
    use, with the paper's speedups of the case rows as dotted lines (scored values, not inputs)."""
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    s = np.geomspace(8, 1e12, 200)
    combos = sorted({(ph.cxl_traversals, ph.rdma_copies) for c in cases for ph in c.profile.phases
                     if ph.compute_share != (1.0, 1.0)})
    for n, k in combos:
        users = ", ".join(sorted({c.profile.key for c in cases for ph in c.profile.phases
                                  if (ph.cxl_traversals, ph.rdma_copies) == (n, k) and ph.compute_share != (1.0, 1.0)}))
        ax.semilogx(s, fabric_speedup(s, n, k, cp), label=f"{n} CXL traversal(s), {k:g} RDMA copies ({users})")
    fabric_rows = [r for r in rows if getattr(r, "section", 0) == 4 and r.unit == "x" and r.paper.endswith("x")
                   and not (r.ours_lo == 1.0 and r.ours == 1.0)]          # computation-only rows have no curve
    for i, r in enumerate(sorted(fabric_rows, key=lambda r: float(r.paper[:-1]))):
        v = float(r.paper[:-1])
        ax.axhline(v, color="grey", ls=":", lw=0.8)
        ax.text(s[(i % 3) * 60], v, f" {r.id} {r.paper}", fontsize=6, va="bottom", color="grey")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xlabel("bytes per transfer")
    ax.set_ylabel("fabric speedup RDMA / CXL")
    ax.legend(fontsize=7, loc="upper right")
    return _save(fig, out, "case_study_fabric_speedup.png")


def plot_tornado(swings: list[Swing], base: dict, rows: list, out: Path) -> Path:
    """One panel per headline row: each ranged parameter's value of the row at the low (blue) and
    high (orange) end of its range, around the point value; the paper's value dotted."""
    import re
    panels = [r for r in rows if base.get(r.id) is not None]
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.0 + 1.3 * len(panels)), squeeze=False)
    for ax, r in zip(axes[:, 0], panels):
        b = base[r.id]
        ms = movers(swings, r.id, b)[:8]
        y = np.arange(len(ms))
        for j, s in enumerate(ms):
            lo, hi = s.at_lo[r.id], s.at_hi[r.id]
            ax.barh(j, lo - b, left=b, color="tab:blue", height=0.4)
            ax.barh(j, hi - b, left=b, color="tab:orange", height=0.4)
        ax.axvline(b, color="k", lw=0.8)
        m = re.match(r"\s*([0-9.]+)", r.paper)
        if m:
            ax.axvline(float(m.group(1)), color="grey", ls=":", lw=1.0)
        ax.set_yticks(y, [f"{s.key} [{s.lo}, {s.hi}]" for s in ms], fontsize=6)
        ax.set_title(f"{r.id}: {b:.3g} {r.unit} (paper {r.paper}, dotted)", fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        if not ms:
            ax.text(0.5, 0.5, "no ranged assumption moves this row", transform=ax.transAxes, ha="center", fontsize=7)
    return _save(fig, out, "tornado.png")


def plot_validation(vrows: list, hrows: list, out: Path) -> Path:
    """Predicted vs measured for the shipped and held-out runs (relative error per run)."""
    fig, ax = plt.subplots(figsize=(8, 3.8))
    for rows, color, label in ((vrows, "tab:blue", "shipped"), (hrows, "tab:orange", "held out")):
        pts = [r for r in rows if r.error is not None]
        ax.scatter(range(len(pts)), [100 * r.error for r in pts], color=color, label=label, s=14)
    ax.axhspan(-15, 15, color="green", alpha=0.08)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_ylabel("error (predicted / measured - 1), %")
    ax.set_xlabel("run")
    ax.set_yscale("symlog", linthresh=30)
    ax.legend(fontsize=8)
    return _save(fig, out, "validation.png")
