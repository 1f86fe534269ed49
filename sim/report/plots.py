"""Matplotlib figures for the report (Agg backend, PNG). Every figure has a title, names the systems
as the report does (sim.report.names) and keeps labels off the curves: target and capacity labels
sit in a margin or on the axis edge, curves that can overlap differ in line style and marker."""
from __future__ import annotations

import base64
import io
import re
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from sim.system.model import SystemResult, speedups  # noqa: E402
from sim.system.measured import Measured  # noqa: E402
from sim.system.cases import CasePaths, CaseResult, fabric_speedup  # noqa: E402
from sim.report.sensitivity import Swing, movers  # noqa: E402

COLORS = {"baseline": "tab:blue", "acc_clusters": "tab:orange", "scalepool": "tab:green"}
# Line style and marker per system: the baseline and accelerator clusters coincide inside a rack.
STYLES = {"baseline": dict(ls="-", marker="o", lw=2.6, alpha=0.75, markevery=(0, 14)),
          "acc_clusters": dict(ls="--", marker="s", lw=1.5, markevery=(5, 14)),
          "scalepool": dict(ls="-.", marker="^", lw=1.5, markevery=(9, 14))}
TITLE = dict(fontsize=10, fontweight="bold")


def _finish(fig) -> None:
    fig.tight_layout()


def _save(fig, out: Path, name: str) -> Path:
    _finish(fig)
    path = out / name
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def data_uri(fig) -> str:
    """The figure as a PNG data URI (for a self-contained HTML page); closes it."""
    _finish(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def paper_number(text: str) -> float | None:
    m = re.match(r"\s*\+?([0-9.]+)", text)
    return float(m.group(1)) if m else None


def _spread(ys: list[float], gap: float, lo: float = 0.0, hi: float = 1.0) -> list[float]:
    """Label positions (axes fraction) near `ys`, at least `gap` apart, none above `hi`."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    pos = list(ys)
    last = -np.inf
    for i in order:                    # upwards: keep the gap
        pos[i] = max(ys[i], last + gap)
        last = pos[i]
    nxt = hi + gap
    for i in reversed(order):          # downwards: stay under the top
        pos[i] = min(pos[i], nxt - gap)
        nxt = pos[i]
    return pos


def margin_labels(ax, ys: list[float], texts: list[str], color: str = "0.3", fontsize: float = 7,
                  gap: float = 0.05) -> None:
    """Labels for horizontal lines at data heights `ys`, in the right margin, spread so they never
    overlap one another or a curve, each joined to its line's end by a short leader."""
    to_axes = ax.transAxes.inverted()
    fr = [float(to_axes.transform(ax.transData.transform((ax.get_xlim()[1], y)))[1]) for y in ys]
    pos = _spread(fr, gap)
    for y, p, t in zip(fr, pos, texts):
        ax.annotate(t, xy=(1.0, y), xycoords="axes fraction", xytext=(1.03, p), textcoords="axes fraction",
                    fontsize=fontsize, color=color, va="center", ha="left", annotation_clip=False,
                    arrowprops=dict(arrowstyle="-", color=color, lw=0.6, shrinkA=2, shrinkB=0, relpos=(0.0, 0.5)))


def plot_speedup(res: SystemResult, out: Path, names: dict[str, str], marks: list[tuple[str, float]] | None = None,
                 mean_range: tuple[float, float] | None = None) -> Path:
    """Speedup of accelerator clusters and ScalePool over the baseline per model and their mean;
    `marks`: the paper's targets (label, value) as dashed lines; `mean_range`: ScalePool's mean over
    the assumptions' plausible ranges (sensitivity), drawn as a whisker."""
    fits = [w for w in res.workloads if np.isfinite(res.training[w.key]["baseline"].total)]
    groups = [w.display for w in fits] + [f"mean over {len(fits)} models"]
    fig, ax = plt.subplots(figsize=(8.5, 4.2))
    x = np.arange(len(groups))
    width = 0.38
    for i, sys in enumerate(("acc_clusters", "scalepool")):
        spd = speedups(res.training, sys)
        vals = [spd.get(w.key, np.nan) for w in fits]
        vals.append(float(np.nanmean(vals)) if vals else np.nan)
        xs = x + (i - 0.5) * width
        bars = ax.bar(xs, vals, width, color=COLORS[sys], label=names[sys])
        bars[-1].set_hatch("//")
        whisker = sys == "scalepool" and mean_range is not None
        for j, (xx, v) in enumerate(zip(xs, vals)):
            if not np.isfinite(v):
                continue
            if whisker and j == len(vals) - 1:     # the range whisker stands above: label inside the bar
                ax.text(xx, v - 0.02, f"{v:.2f}", ha="center", va="top", fontsize=7, color="white", fontweight="bold")
            else:
                ax.text(xx, v, f"{v:.2f}", ha="center", va="bottom", fontsize=7)
        if whisker:
            m = vals[-1]
            ax.errorbar([xs[-1]], [m], yerr=[[m - mean_range[0]], [mean_range[1] - m]], fmt="none", ecolor="k",
                        capsize=4, lw=1.0, label="ScalePool mean over the assumptions' ranges")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xticks(x, [textwrap.fill(g, 16) for g in groups], fontsize=8)
    ax.set_ylabel("speedup = baseline time / system time")
    ax.set_title(f"Training speedup over {names['baseline']}", **TITLE)
    top = max([1.2] + [v for _, v in (marks or [])]) * 1.12
    ax.set_ylim(0, max(top, ax.get_ylim()[1]))
    for (label, v), ls in zip(marks or [], ("--", "-.", ":")):
        ax.axhline(v, color="tab:red", ls=ls, lw=1.0)
    if marks:
        margin_labels(ax, [v for _, v in marks], [lbl for lbl, _ in marks], color="tab:red", fontsize=7.5)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, frameon=False)
    return _save(fig, out, "speedup_per_model.png")


BREAKDOWN_PARTS = (("computation", "computation", "tab:blue"), ("tp", "tensor-parallel comm.", "tab:cyan"),
                   ("pp", "pipeline comm.", "tab:purple"), ("dp_exposed", "data-parallel comm. (exposed)", "tab:orange"),
                   ("bubble", "pipeline bubble", "tab:gray"), ("offload_exposed", "offload (exposed)", "tab:red"))


def plot_breakdown(res: SystemResult, out: Path, names: dict[str, str], short: dict[str, str]) -> Path:
    """Time per iteration split into its parts, per model and system, relative to the baseline."""
    systems = ("baseline", "acc_clusters", "scalepool")
    fits = [w for w in res.workloads if np.isfinite(res.training[w.key]["baseline"].total)]
    fig, ax = plt.subplots(figsize=(12, 4.6))
    xs, ticks = [], []
    for g, w in enumerate(fits):
        for j, s in enumerate(systems):
            xs.append(g * (len(systems) + 1) + j)
            ticks.append(short[s])
    bottom = np.zeros(len(xs))
    for attr, label, color in BREAKDOWN_PARTS:
        vals = np.array([getattr(res.training[w.key][s], attr) / res.training[w.key]["baseline"].total
                         for w in fits for s in systems])
        ax.bar(xs, vals, 0.85, bottom=bottom, label=label, color=color)
        bottom += np.nan_to_num(vals)
    ax.set_xticks(xs, ticks, fontsize=7, rotation=30, ha="right", rotation_mode="anchor")
    groups = ax.secondary_xaxis(-0.25)
    groups.set_xticks([g * (len(systems) + 1) + (len(systems) - 1) / 2 for g in range(len(fits))],
                      [w.display for w in fits], fontsize=9, fontweight="bold")
    groups.tick_params(length=0)
    groups.spines["bottom"].set_visible(False)
    ax.axhline(1.0, color="k", lw=0.6, ls=":")
    ax.set_ylabel("time per iteration / baseline's")
    base = names["baseline"].replace(" (baseline)", "")
    ax.set_title(f"Where the iteration time goes, relative to the baseline ({base})", **TITLE)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _save(fig, out, "time_breakdown.png")


def plot_tiering(res: SystemResult, out: Path, names: dict[str, str], hbm_gb: float, per_domain: int) -> Path:
    """Mean access latency vs working set, one panel per access pattern; the capacity of one
    accelerator's HBM and of one scale-up domain marked and labelled."""
    t = res.tiering
    fig, axes = plt.subplots(1, len(t.latency), figsize=(12, 4.0), sharey=True)
    for ax, (pattern, lat) in zip(np.atleast_1d(axes), t.latency.items()):
        for sys in ("baseline", "acc_clusters", "scalepool"):
            ax.loglog(t.ws_bytes / 1e12, lat[sys], color=COLORS[sys], label=names[sys], ms=4, **STYLES[sys])
        caps = ((t.accel_bytes, f"one accelerator's HBM\n({hbm_gb:g} GB)"),
                (t.cluster_bytes, f"one scale-up domain\n({per_domain} x {hbm_gb:g} GB = {t.cluster_bytes / 1e12:.1f} TB)"))
        for b, text in caps:
            ax.axvline(b / 1e12, color="0.4", ls=":", lw=1.0)
            ax.text(b / 1e12, 0.98, " " + text, transform=ax.get_xaxis_transform(), rotation=90, va="top",
                    ha="right", fontsize=6.5, color="0.3")
        scored = " (scored)" if pattern == t.scored_pattern else ""
        ax.set_title(f"{pattern} access{scored}", fontsize=9)
        ax.set_xlabel("working set (TB)")
        ax.grid(True, which="major", alpha=0.25)
    np.atleast_1d(axes)[0].set_ylabel("mean access latency (ns)")
    fig.suptitle("Mean memory-access latency vs working set", **TITLE)
    h, lab = np.atleast_1d(axes)[0].get_legend_handles_labels()
    fig.legend(h, lab, loc="lower center", ncol=3, fontsize=8, frameon=False, bbox_to_anchor=(0.5, -0.06))
    return _save(fig, out, "latency_vs_working_set.png")


def cdf_figure(samples_ns: dict[str, list[float]], title: str = "Co-simulation latency CDFs (RTL)"):
    """One CDF per sample set, distinct line styles, p50 marked; x on a log scale when the sets span
    more than a decade."""
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    styles = ("-", "--", "-.", ":")
    lo, hi = np.inf, 0.0
    for i, (name, s) in enumerate(samples_ns.items()):
        v = np.sort(np.asarray(s, dtype=float))
        if not len(v):
            continue
        lo, hi = min(lo, v[0]), max(hi, v[-1])
        y = np.arange(1, len(v) + 1) / len(v)
        line, = ax.step(v, y, where="post", ls=styles[i % len(styles)], lw=1.5,
                        label=f"{name} (p50 {np.median(v):.0f} ns, n={len(v)})")
        ax.plot([np.median(v)], [0.5], "o", color=line.get_color(), ms=4)
    if hi > 0 and lo > 0 and hi / lo > 10:
        ax.set_xscale("log")
    ax.set_xlabel("latency (ns)")
    ax.set_ylabel("fraction of requests ≤ latency")
    ax.set_ylim(0, 1.02)
    ax.grid(True, alpha=0.25)
    ax.set_title(title, **TITLE)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def plot_cdfs(m: Measured, out: Path) -> Path | None:
    if not m.samples_ns:
        return None
    return _save(cdf_figure(m.samples_ns, f"Co-simulation latency CDFs (RTL, {m.path.name})"), out,
                 "cosim_latency_cdf.png")


def plot_cases(cases: list[CaseResult], cp: CasePaths, rows: list, out: Path) -> Path:
    """Fabric speedup (RDMA / CXL time) vs transfer size for each (traversals, copies) the profiles
    use, with the paper's speedups of the case rows as dotted lines (scored values, not inputs)
    labelled in the right margin."""
    fig, ax = plt.subplots(figsize=(9, 4.4))
    s = np.geomspace(8, 1e12, 200)
    combos = sorted({(ph.cxl_traversals, ph.rdma_copies) for c in cases for ph in c.profile.phases
                     if ph.compute_share != (1.0, 1.0)})
    styles = ("-", "--", "-.", ":")
    for i, (n, k) in enumerate(combos):
        users = ", ".join(sorted({c.profile.display for c in cases for ph in c.profile.phases
                                  if (ph.cxl_traversals, ph.rdma_copies) == (n, k) and ph.compute_share != (1.0, 1.0)}))
        ax.semilogx(s, fabric_speedup(s, n, k, cp), ls=styles[i % len(styles)], lw=1.8,
                    label=f"{n} CXL traversal{'s' if n != 1 else ''}, {k:g} RDMA cop{'ies' if k != 1 else 'y'}: {users}")
    fabric_rows = [r for r in rows if getattr(r, "section", 0) == 4 and r.unit == "x" and r.paper.endswith("x")
                   and not (r.ours_lo == 1.0 and r.ours == 1.0)]          # computation-only rows have no curve
    fabric_rows.sort(key=lambda r: float(r.paper[:-1]))
    for r in fabric_rows:
        ax.axhline(float(r.paper[:-1]), color="0.55", ls=":", lw=0.9)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_ylim(0, max([4.0] + [float(r.paper[:-1]) for r in fabric_rows]) * 1.06)
    margin_labels(ax, [float(r.paper[:-1]) for r in fabric_rows], [f"{r.id} {r.paper}" for r in fabric_rows],
                  fontsize=7, gap=0.045)
    ax.set_xlabel("bytes per transfer")
    ax.set_ylabel("fabric speedup = RDMA time / CXL time")
    ax.set_title("Case studies: fabric speedup vs transfer size (dotted: the paper's speedups, labelled right)",
                 **TITLE)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1, frameon=False)
    return _save(fig, out, "case_study_fabric_speedup.png")


def _g(x) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x).lower()


def plot_tornado(swings: list[Swing], base: dict, rows: list, out: Path) -> Path:
    """One panel per headline row: each ranged parameter's value of the row at the low (blue) and
    high (orange) end of its range, around the point value, largest swing on top; the paper's
    value dotted."""
    panels = [r for r in rows if base.get(r.id) is not None]
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 2.2 + 1.35 * len(panels)), squeeze=False)
    for ax, r in zip(axes[:, 0], panels):
        b = base[r.id]
        ms = movers(swings, r.id, b)[:8]
        y = np.arange(len(ms))
        for j, s in enumerate(ms):
            lo, hi = s.at_lo[r.id], s.at_hi[r.id]
            ax.barh(j, lo - b, left=b, color="tab:blue", height=0.4, label="parameter at the low end" if j == 0 else None)
            ax.barh(j, hi - b, left=b, color="tab:orange", height=0.4, label="parameter at the high end" if j == 0 else None)
        ax.axvline(b, color="k", lw=0.8, label="this run's value")
        pv = paper_number(r.paper)
        if pv is not None:
            ax.axvline(pv, color="tab:red", ls=":", lw=1.2, label="paper value")
        ax.set_yticks(y, [f"{s.key} [{_g(s.lo)}, {_g(s.hi)}]" for s in ms], fontsize=6.5)
        ax.invert_yaxis()
        here = f"{b:.3g}x" if r.unit == "x" else f"{b:.3g} {r.unit}"
        ax.set_title(f"{r.id}: {here} in this run, paper {r.paper} (red dotted)", fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        if not ms:
            ax.text(0.5, 0.5, "no ranged assumption moves this row", transform=ax.transAxes, ha="center", fontsize=7)
    fig.suptitle("Sensitivity of the headline rows: each assumption at both ends of its plausible range", **TITLE)
    h, lab = axes[0, 0].get_legend_handles_labels()
    if h:
        fig.legend(h, lab, loc="lower center", ncol=4, fontsize=8, frameon=False, bbox_to_anchor=(0.5, -0.02))
    return _save(fig, out, "tornado.png")


def plot_validation(vrows: list, hrows: list, out: Path, tolerance: float = 0.15) -> Path:
    """Error per validation run (predicted / measured - 1), one row per run, shipped and held-out
    sets apart; the goal band shaded and labelled; runs the model cannot place (they do not fit)
    marked as such."""
    runs = [(r, "shipped") for r in vrows] + [(r, "held-out") for r in hrows]
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.2 * len(runs)))
    ax.axvspan(-100 * tolerance, 100 * tolerance, color="green", alpha=0.1, label=f"goal: within ±{tolerance:.0%}")
    ax.axvline(0, color="k", lw=0.8)
    errs = [100 * r.error for r, _ in runs if r.error is not None]
    left = min(errs + [-100 * tolerance]) - 10
    for kind, color, marker in (("shipped", "tab:blue", "o"), ("held-out", "tab:orange", "s")):
        pts = [(i, r) for i, (r, k) in enumerate(runs) if k == kind and r.error is not None]
        ax.scatter([100 * r.error for _, r in pts], [i for i, _ in pts], color=color, marker=marker, s=22,
                   label=f"{kind} set", zorder=3)
        miss = [i for i, (r, k) in enumerate(runs) if k == kind and r.error is None]
        if miss:
            ax.scatter([left + 4] * len(miss), miss, color=color, marker="x", s=30, zorder=3,
                       label=f"{kind}: not predicted (does not fit)")
            for i in miss:
                ax.text(left + 7, i, "not predicted: does not fit in memory", fontsize=6.5, va="center", color="0.3")
    ax.set_yticks(range(len(runs)), [r.name for r, _ in runs], fontsize=6.5)
    ax.invert_yaxis()
    if vrows and hrows:
        ax.axhline(len(vrows) - 0.5, color="0.5", lw=0.6)
    ax.set_xlim(left, max(errs + [100 * tolerance]) + 10)
    ax.set_xlabel("error = predicted / measured - 1 (%)")
    ax.grid(True, axis="x", alpha=0.25)
    ax.set_title("Validation: the model's prediction vs published measured training runs", **TITLE)
    ax.legend(fontsize=7, loc="lower right")
    return _save(fig, out, "validation.png")
