"""`python -m sim.report.html --results DIR [--out FILE]`: one self-contained page over a results
directory, to open in a browser.

Every figure is embedded (PNG data URIs), the style sheet is inline and the page has no script and
no network reference, so the file can be mailed or archived alone; links to the files behind each
section are relative, so they work beside the results directory. Each section is drawn from its own
input file when it exists and otherwise says which command writes it:

| section | input (in DIR) | written by |
|---|---|---|
| scoreboard | scoreboard.csv (+ inputs.yaml, report.md) | `make sim` (sim.report.run) |
| system model | training_breakdown.csv, tiering.csv, speedup / breakdown / tiering / case PNGs | `make sim` |
| sensitivity | sensitivity.csv, tornado.png | `make sim` |
| validation | validation.csv, validation_holdout.csv, validation.png | `make sim` |
| latency CDFs | cosim/latency.json (samples_cycles, hops, paths) | `make sim` (sim.cosim.run) |
| load curves | cosim/load_curve.csv (+ cosim/load_curve.json) | `make sim` (sim.cosim.run --sweep) |
| regression | regression/summary.csv (+ junit.xml) | `make sim` (tools.summary) |
| coverage | coverage/summary.json (+ summary.md, rtl.info, html/) | `make coverage` |
| soak | soak.json | `make soak` |

`python -m sim.report.run` writes the page at its end; `make report` rebuilds it from whatever DIR
holds (after `make coverage` or `make soak`, for instance).
"""
from __future__ import annotations

import argparse
import base64
import csv
import html
import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
GOOD, BAD, NEUTRAL, WARN = "good", "bad", "neutral", "warn"
VERDICT_CLASS = {"hit": GOOD, "in": GOOD, "miss": BAD, "out": BAD}
VALIDATION_GOAL = 0.15          # sim.system.validate: each run within ±15 %


@dataclass
class Part:
    present: bool                                   # its input file exists
    body: str
    files: list[str] = field(default_factory=list)  # paths relative to the results directory


@dataclass
class Section(Part):
    id: str = ""
    title: str = ""


class Page:
    """Results directory, the page's own location (for relative links) and the sections built."""

    def __init__(self, results: Path, out: Path):
        self.results = results
        self.out = out
        self.sections: list[Section] = []

    def file(self, rel: str) -> Path:
        return self.results / rel

    def has(self, rel: str) -> bool:
        return self.file(rel).is_file()

    def link(self, rel: str, text: str | None = None) -> str:
        href = os.path.relpath(self.file(rel), self.out.parent).replace(os.sep, "/")
        return f'<a href="{esc(href)}">{esc(text or rel)}</a>'


def esc(x) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def rich(text: str) -> str:
    """Escaped text with `code` spans."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", esc(text))


def table(header: list[str], rows: list[list[str]], classes: list[list[str]] | None = None,
          cls: str = "") -> str:
    """An HTML table; cells are already-escaped HTML; classes[i][j] styles cell (i, j)."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = []
    for i, r in enumerate(rows):
        cells = []
        for j, c in enumerate(r):
            k = classes[i][j] if classes and j < len(classes[i]) and classes[i][j] else ""
            cells.append(f'<td class="{k}">{c}</td>' if k else f"<td>{c}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def png_figure(page: Page, rel: str, caption: str) -> str:
    data = page.file(rel).read_bytes()
    if not data.startswith(PNG_MAGIC):
        raise ValueError(f"{rel} is not a PNG file")
    uri = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
    return uri_figure(uri, caption, page.link(rel))


def uri_figure(uri: str, caption: str, link: str = "") -> str:
    return (f'<figure><img src="{uri}" alt="{esc(caption)}"><figcaption>{esc(caption)}'
            f'{" (" + link + ")" if link else ""}</figcaption></figure>')


def not_run(command: str, what: str, then_rebuild: bool = False) -> str:
    tail = "; then `make report` rebuilds this page" if then_rebuild else ""
    return f'<p class="notrun">Not run in this results directory (run {rich("`" + command + "`")}{rich(tail)}): {rich(what)}</p>'


def files_line(page: Page, rels: list[str]) -> str:
    present = [r for r in rels if page.has(r) or page.file(r).is_dir()]
    if not present:
        return ""
    return '<p class="files">Files: ' + ", ".join(page.link(r) for r in present) + "</p>"


def num(x: str) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


# ---------------------------------------------------------------- sections

def sec_scoreboard(page: Page) -> Section:
    rel = "scoreboard.csv"
    files = [rel, "report.md", "inputs.yaml"]
    if not page.has(rel):
        return Part(False, not_run("make sim", "the system model scored against "
                                                                   "targets.md (`python -m sim.report.run`)"), files)
    from sim.report.score import RATIO_DEFINITION
    rows = read_csv(page.file(rel))
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    header = ["id", "what", "paper value", "our value", "unit", "ratio", "verdict", "range over the assumptions",
              "note"]
    body, classes = [], []
    for r in rows:
        lo, hi = num(r.get("range low", "")), num(r.get("range high", ""))
        rng = f"{lo:.3g} to {hi:.3g}" if lo is not None and hi is not None else ""
        body.append([f"<b>{esc(r['id'])}</b>", esc(r["what"]), esc(r["paper value"]), esc(r["our value"]),
                     esc(r["unit"]), esc(r["ratio"]), esc(r["verdict"]), rng, rich(r["note"])])
        v = VERDICT_CLASS.get(r["verdict"], NEUTRAL)
        classes.append(["", "", "", "", "", v if r["ratio"] else "", v, "", "note"])
    order = ["hit", "in", "miss", "out"]
    summary = " ".join(f'<span class="pill {VERDICT_CLASS.get(k, NEUTRAL)}">{esc(k)} {n}</span>'
                       for k, n in sorted(counts.items(), key=lambda kv: (order + [kv[0]]).index(kv[0])))
    rules = ""
    try:
        from sim.report.targets import load_rules
        rules = f"<p>Verdict rules, read from targets.md: {esc(load_rules().describe())}.</p>"
    except (OSError, ValueError):
        pass
    body_html = (f"<p>{len(rows)} rows: {summary}.</p>{rules}"
                 f'<p class="definition"><b>Ratio column.</b> {esc(RATIO_DEFINITION)}</p>'
                 '<p class="legend"><span class="pill good">hit / in</span> the paper\'s value is met '
                 '<span class="pill bad">miss / out</span> it is not (the note says why) '
                 '<span class="pill neutral">not modelled / not derivable</span> no value</p>'
                 + table(header, body, classes, "scoreboard"))
    return Part(True, body_html, files)


def run_header(page: Page) -> str:
    """What produced this directory (inputs.yaml's command, hardware and notes), when known."""
    p = page.file("inputs.yaml")
    if not p.is_file():
        return "<p>No <code>inputs.yaml</code> here: the system model has not run in this directory.</p>"
    import yaml
    try:
        doc = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        return f'<p class="warn">inputs.yaml could not be read: {esc(exc)}</p>'
    items = [f"<li>Command: <code>{esc(doc.get('command', '?'))}</code></li>",
             f"<li>Hardware preset: <code>{esc(doc.get('hardware', '?'))}</code></li>"]
    systems = doc.get("systems") or {}
    if systems:
        items.append("<li>Systems compared: " + "; ".join(esc(v) for v in systems.values()) + "</li>")
    items += [f"<li>{rich(n)}</li>" for n in doc.get("notes") or []]
    return "<ul>" + "".join(items) + "</ul>"


SYSTEM_FIGS = (("speedup_per_model.png", "Training speedup per model, with the paper's targets"),
               ("time_breakdown.png", "Where the iteration time goes, per model and system"),
               ("latency_vs_working_set.png", "Mean access latency vs working set (capacity lines labelled)"),
               ("case_study_fabric_speedup.png", "Case studies: fabric speedup vs transfer size"))


def sec_system(page: Page) -> Section:
    files = ["training_breakdown.csv", "tiering.csv", "report.md"]
    figs = [png_figure(page, f, c) for f, c in SYSTEM_FIGS if page.has(f)]
    tb = ""
    if page.has("training_breakdown.csv"):
        rows = read_csv(page.file("training_breakdown.csv"))
        if rows:
            keep = [k for k in rows[0] if k in ("model", "system", "s/iteration", "tokens/s", "TFLOP/s per accel.",
                                                "MFU", "compute s", "TP s", "PP s", "DP exposed s",
                                                "offload exposed s", "bubble s", "memory GB", "fits")]
            tb = ("<h3>Training breakdown</h3>"
                  + table([esc(k) for k in keep], [[esc(r[k]) for k in keep] for r in rows],
                          [[(BAD if k == "fits" and not r[k].startswith("yes") else "") for k in keep] for r in rows],
                          "compact"))
    if not figs and not tb:
        return Part(False, not_run("make sim", "training, tiering and case-study plots"),
                       files)
    return Part(True, "".join(figs) + tb, files + [f for f, _ in SYSTEM_FIGS])


def sec_sensitivity(page: Page) -> Section:
    files = ["sensitivity.csv", "tornado.png"]
    if not page.has("sensitivity.csv") and not page.has("tornado.png"):
        return Part(False, not_run("make sim", "every ranged assumption at both ends of its range; "
                                           "`--no-sensitivity` skips it"), files)
    parts = []
    if page.has("tornado.png"):
        parts.append(png_figure(page, "tornado.png", "Headline rows with each assumption at the ends of its range"))
    if page.has("sensitivity.csv"):
        rows = read_csv(page.file("sensitivity.csv"))
        if rows:
            keys = list(rows[0])
            parts.append(f"<details><summary>All {len(rows)} ranged parameters (sensitivity.csv)</summary>"
                         + table([esc(k) for k in keys], [[rich(r[k]) for k in keys] for r in rows], cls="compact")
                         + "</details>")
    return Part(True, "".join(parts), files)


def _validation_table(rows: list[dict[str, str]]) -> tuple[str, str]:
    body, classes, errs, unfit = [], [], [], 0
    for r in rows:
        e = num(r.get("error", ""))
        if e is None:
            unfit += 1
        else:
            errs.append(e)
        k = NEUTRAL if e is None else (GOOD if abs(e) <= VALIDATION_GOAL + 1e-12 else BAD)
        body.append([esc(r.get("name")), esc(r.get("hardware", "")), esc(r.get("metric")), esc(r.get("predicted")),
                     esc(r.get("measured")), esc("" if e is None else f"{e * 100:+.1f} %"), rich(r.get("note", ""))])
        classes.append(["", "", "", "", "", k, "note"])
    within = sum(abs(e) <= VALIDATION_GOAL + 1e-12 for e in errs)
    summ = (f"mean |error| {100 * sum(map(abs, errs)) / len(errs):.1f} %, max |error| {100 * max(map(abs, errs)):.1f} %, "
            f"{within} of {len(rows)} within ±{VALIDATION_GOAL:.0%}" if errs else "no run predicted")
    if unfit:
        summ += f", {unfit} not predicted (does not fit)"
    return table(["run", "hardware", "metric", "predicted", "measured", "error", "breakdown / reason"], body, classes,
                 "compact"), summ


def sec_validation(page: Page) -> Section:
    files = ["validation.csv", "validation_holdout.csv", "validation.png"]
    if not page.has("validation.csv"):
        return Part(False, not_run("make sim", "measured training runs predicted by the system model "
                                           "(`python -m sim.system.validate --runs FILE --out DIR`)"), files)
    parts = ["<p>Error = predicted / measured - 1; green within the goal of ±15 % per run. Nothing is fitted to "
             "these runs; the held-out set was never used to build the model.</p>"]
    if page.has("validation.png"):
        parts.append(png_figure(page, "validation.png", "Error per validation run"))
    for rel, title in (("validation.csv", "Shipped set"), ("validation_holdout.csv", "Held-out set")):
        if page.has(rel):
            t, summ = _validation_table(read_csv(page.file(rel)))
            parts.append(f"<h3>{title} ({page.link(rel)})</h3><p>{esc(summ)}.</p>"
                         f"<details {'open' if rel == 'validation.csv' else ''}><summary>Runs</summary>{t}</details>")
    return Part(True, "".join(parts), files)


def sec_cdf(page: Page) -> Section:
    rel = "cosim/latency.json"
    if not page.has(rel):
        return Part(False, not_run("make sim", "the composed RTL top's latencies (`python -m sim.cosim.run`)"), [rel])
    data = json.loads(page.file(rel).read_text(encoding="utf-8"))
    clock = float(data.get("clock_mhz") or 1000.0)
    ns = 1000.0 / clock
    parts = [f"<p>Source: {esc(data.get('source', 'unspecified'))}; clock {clock:g} MHz "
             f"(1 cycle = {ns:g} ns).</p>"]
    hops = data.get("hops") or {}
    if hops:
        rows = []
        def q_ns(h: dict, q: str) -> float | None:
            return h[f"{q}_ns"] if f"{q}_ns" in h else h[f"{q}_cycles"] * ns if f"{q}_cycles" in h else None
        for k, h in hops.items():
            p50, p99 = q_ns(h, "p50"), q_ns(h, "p99")
            plus = ", ".join(f"{n:g} x {p}" for p, n in (h.get("plus") or {}).items())
            rows.append([f"<code>{esc(k)}</code>", esc("" if p50 is None else f"{p50:.1f}"),
                         esc("" if p99 is None else f"{p99:.1f}"), esc(plus), rich(h.get("what", ""))])
        parts.append("<h3>Hops that replace system-model parameters</h3>"
                     + table(["parameter", "RTL p50 ns", "RTL p99 ns", "plus cited parameters", "what"], rows,
                             cls="compact"))
    samples = {k: [float(c) * ns for c in v] for k, v in (data.get("samples_cycles") or {}).items() if v}
    if samples:
        from sim.report.plots import cdf_figure, data_uri
        parts.append(uri_figure(data_uri(cdf_figure(samples, f"Co-simulation latency CDFs ({rel})")),
                                "Latency CDF per path (RTL)", page.link(rel)))
    else:
        parts.append(f"<p>{page.link(rel)} holds no latency samples (<code>samples_cycles</code>), so no CDF.</p>")
    paths = data.get("paths") or {}
    if paths:
        cols = sorted({c for v in paths.values() for c in v})
        parts.append("<details><summary>Per-path summary</summary>"
                     + table(["path"] + [esc(c) for c in cols],
                             [[esc(p)] + [esc(v.get(c, "")) for c in cols] for p, v in paths.items()], cls="compact")
                     + "</details>")
    return Part(True, "".join(parts), [rel])


# load_curve.csv columns, by meaning: the first name present is used.
LC_COLUMNS = {"path": ("path",), "top": ("top",),
              "offered": ("offered_per_bridge", "offered_load", "offered"),
              "throughput": ("achieved_per_bridge", "throughput", "achieved"),
              "p50": ("p50",), "p99": ("p99",), "p999": ("p999", "p99.9"), "knee": ("knee",)}
LC_REQUIRED = ("path", "offered", "throughput")


def load_curve_columns(header: list[str]) -> dict[str, str]:
    cols = {m: next((c for c in names if c in header), None) for m, names in LC_COLUMNS.items()}
    missing = [m for m in LC_REQUIRED if cols[m] is None]
    if missing:
        raise ValueError(f"load_curve.csv has columns {', '.join(header)}; it needs "
                         + ", ".join("/".join(LC_COLUMNS[m]) for m in missing))
    return {m: c for m, c in cols.items() if c is not None}


def load_curve_figure(curves: dict[tuple[str, str], list[dict[str, float]]], unit: str):
    import matplotlib.pyplot as plt
    tops = sorted({t for t, _ in curves})
    paths = sorted({p for _, p in curves})
    lats = [q for q in ("p50", "p99", "p999") if any(q in pt for pts in curves.values() for pt in pts)]
    fig, axes = plt.subplots(len(tops), 2, figsize=(12, 3.8 * len(tops)), squeeze=False)
    markers, styles = "osD^vP*X", ("-", "--", "-.", ":")
    for r, top in enumerate(tops):
        a_tp, a_lat = axes[r]
        for i, p in enumerate(paths):
            pts = curves.get((top, p))
            if not pts:
                continue
            kw = dict(marker=markers[i % len(markers)], ls=styles[i % len(styles)], color=f"C{i}", ms=4)
            off = [pt["offered"] for pt in pts]
            a_tp.plot(off, [pt["throughput"] for pt in pts], label=p, **kw)
            q = "p99" if "p99" in lats else (lats[0] if lats else None)
            if q:
                a_lat.plot(off, [pt.get(q, float("nan")) for pt in pts], label=f"{p} {q}", **kw)
            knee = [pt for pt in pts if pt.get("knee")]
            if knee and q:
                a_lat.plot([knee[0]["offered"]], [knee[0].get(q, float("nan"))], "X", color=f"C{i}", ms=10,
                           mec="k", zorder=5)
        lim = max([pt["offered"] for pts in curves.values() for pt in pts] + [0.0])
        a_tp.plot([0, lim], [0, lim], color="0.6", ls=":", lw=0.8, label="throughput = offered")
        name = f" ({top} top)" if top else ""
        a_tp.set_title(f"Throughput vs offered load{name}", fontsize=9, fontweight="bold")
        a_tp.set_xlabel(f"offered load ({unit})")
        a_tp.set_ylabel(f"achieved throughput ({unit})")
        a_tp.legend(fontsize=7)
        a_tp.grid(True, alpha=0.25)
        a_lat.set_title(f"Tail latency vs offered load{name} (X = knee)", fontsize=9, fontweight="bold")
        a_lat.set_xlabel(f"offered load ({unit})")
        a_lat.set_ylabel("latency from arrival (cycles)")
        a_lat.set_yscale("log")
        a_lat.legend(fontsize=7)
        a_lat.grid(True, which="both", alpha=0.25)
    fig.suptitle("RTL load curves (co-simulation)", fontsize=10, fontweight="bold")
    return fig


def sec_load_curves(page: Page) -> Section:
    rel = "cosim/load_curve.csv"
    files = [rel, "cosim/load_curve.json"]
    if not page.has(rel):
        return Part(False, not_run("make sim", "offered load swept per path on the RTL "
                                           "(`python -m sim.cosim.run --sweep`)"), files)
    raw = read_csv(page.file(rel))
    if not raw:
        return Part(True, f"<p>{page.link(rel)} has no rows.</p>", files)
    cols = load_curve_columns(list(raw[0]))
    curves: dict[tuple[str, str], list[dict[str, float]]] = {}
    for r in raw:
        pt = {m: num(r[c]) for m, c in cols.items() if m not in ("path", "top")}
        if pt.get("offered") is None or pt.get("throughput") is None:
            continue
        pt = {k: v for k, v in pt.items() if v is not None}
        curves.setdefault((r.get(cols.get("top", ""), "") or "", r[cols["path"]]), []).append(pt)
    for pts in curves.values():
        pts.sort(key=lambda pt: pt["offered"])
    unit = "requests / cycle / bridge" if cols["offered"] == "offered_per_bridge" else "as in load_curve.csv"
    from sim.report.plots import data_uri
    parts = [f"<p>Per path: offered load against achieved throughput and latency, from {page.link(rel)} "
             f"(columns {', '.join(f'<code>{esc(c)}</code>' for c in cols.values())}). Knee: the point the "
             "co-simulation marks (the last before throughput stops following the load or the tail latency "
             "grows).</p>",
             uri_figure(data_uri(load_curve_figure(curves, unit)), "Throughput and tail latency vs offered load",
                        page.link(rel))]
    rows = []
    for (top, p), pts in sorted(curves.items()):
        knee = next((pt for pt in pts if pt.get("knee")), None)
        f = lambda v, fmt="{:g}": "" if v is None else fmt.format(v)
        rows.append([esc(top), esc(p), esc(f(pts[0].get("p50"))), esc(f(pts[0].get("p99"))),
                     esc(f(knee["offered"]) if knee else "none marked"), esc(f(knee.get("p99")) if knee else ""),
                     esc(f(max(pt["throughput"] for pt in pts)))])
    hdr = ["top", "path", "light-load p50", "light-load p99", "knee (offered)", "p99 at knee", "saturation throughput"]
    if not any(t for t, _ in curves):
        hdr, rows = hdr[1:], [r[1:] for r in rows]
    parts.append(table(hdr, rows, cls="compact"))
    return Part(True, "".join(parts), files)


def sec_regression(page: Page) -> Section:
    rel = "regression/summary.csv"
    files = [rel, "regression/junit.xml"]
    if not page.has(rel):
        return Part(False, not_run("make sim", "the RTL regression with its summary (`python -m tools.summary`)"), files)
    rows = read_csv(page.file(rel))
    status: dict[str, int] = {}
    builds: dict[str, dict[str, float]] = {}
    for r in rows:
        s = r.get("status", "?")
        status[s] = status.get(s, 0) + 1
        b = builds.setdefault(r.get("build", "?"), {"tests": 0, "PASS": 0, "FAIL": 0, "SKIP": 0, "wall": 0.0})
        b["tests"] += 1
        b[s] = b.get(s, 0) + 1
        b["wall"] += num(r.get("wall_s", "")) or 0.0
    pills = " ".join(f'<span class="pill {GOOD if s == "PASS" else BAD if s == "FAIL" else NEUTRAL}">{esc(s)} {n}</span>'
                     for s, n in sorted(status.items()))
    fails = [r for r in rows if r.get("status") == "FAIL"]
    parts = [f"<p>{len(rows)} tests in {len(builds)} builds: {pills}; wall time summed over tests "
             f"{sum(b['wall'] for b in builds.values()):.0f} s.</p>"]
    if fails:
        parts.append("<h3>Failures</h3>" + table(["build", "test"], [[esc(r["build"]), esc(r["test"])] for r in fails],
                                                 [[BAD, BAD] for _ in fails], "compact"))
    body = [[esc(k), str(int(b["tests"])), str(int(b["PASS"])), str(int(b["FAIL"])), str(int(b["SKIP"])),
             f"{b['wall']:.1f}"] for k, b in sorted(builds.items())]
    cls = [["", "", "", BAD if b["FAIL"] else "", "", ""] for _, b in sorted(builds.items())]
    parts.append(f"<details {'open' if fails else ''}><summary>Per build</summary>"
                 + table(["build", "tests", "pass", "fail", "skip", "wall s"], body, cls, "compact") + "</details>")
    return Part(True, "".join(parts), files)


COVERAGE_KINDS = ("line", "branch", "toggle")


def sec_coverage(page: Page) -> Section:
    rel = "coverage/summary.json"
    files = [rel, "coverage/summary.md", "coverage/rtl.info", "coverage/html/index.html"]
    if not page.has(rel):
        return Part(False, not_run("make coverage", "Verilator line / branch / toggle coverage merged per block",
                               then_rebuild=True), files)
    data = json.loads(page.file(rel).read_text(encoding="utf-8"))
    blocks = data.get("blocks") or {}
    goals = data.get("goals") or {}
    body, classes = [], []
    for name, b in sorted(blocks.items()):
        row, cl = [esc(name)], [""]
        for k in COVERAGE_KINDS:
            e = b.get(k) or {}
            pct = e.get("pct")
            goal = e.get("goal", goals.get(k))
            row.append("-" if pct is None else f"{pct:.1f} ({e.get('hit', '?')}/{e.get('total', '?')})")
            cl.append(NEUTRAL if pct is None else (GOOD if goal is None or pct >= goal else BAD))
        met = b.get("meets_goal")
        row.append("met" if met else "below: " + esc(", ".join(b.get("below_goal") or [])) if met is not None else "")
        cl.append(GOOD if met else BAD if met is not None else "")
        body.append(row)
        classes.append(cl)
    goal_txt = ", ".join(f"{k} ≥ {goals[k]:g} %" for k in COVERAGE_KINDS if k in goals)
    parts = [f"<p>{len(blocks)} blocks; runs merged: {esc(data.get('runs', '?'))}; build flags "
             f"<code>{esc(' '.join(data.get('flags') or []))}</code>" + (f"; goals: {esc(goal_txt)}" if goal_txt else "")
             + ". Uncovered regions per file: " + (page.link("coverage/summary.md") if page.has("coverage/summary.md")
                                                   else "summary.md (not here)")
             + "; line-by-line: " + (page.link("coverage/html/index.html", "genhtml report")
                                     if page.has("coverage/html/index.html") else "genhtml report (not here)") + ".</p>",
             table(["block", "line %", "branch %", "toggle %", "goal"], body, classes, "compact")]
    return Part(True, "".join(parts), files)


SOAK_INTEGRITY = ("lost", "duplicated", "reordered", "corrupted")


def flatten(d, prefix: str = "") -> list[tuple[str, object]]:
    out = []
    if isinstance(d, dict):
        for k, v in d.items():
            out += flatten(v, f"{prefix}{k}.")
    elif isinstance(d, list) and all(not isinstance(x, (dict, list)) for x in d):
        out.append((prefix[:-1], ", ".join(map(str, d))))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            out += flatten(v, f"{prefix}{i}.")
    else:
        out.append((prefix[:-1], d))
    return out


def sec_soak(page: Page) -> Section:
    rel = "soak.json"
    if not page.has(rel):
        return Part(False, not_run("make soak", "messages through the link layer and the switch under injected "
                                            "errors, counted for loss, duplication, reordering and corruption",
                               then_rebuild=True), [rel])
    flat = flatten(json.loads(page.file(rel).read_text(encoding="utf-8")))
    head, rows, classes = [], [], []
    for k, v in flat:
        leaf = k.rsplit(".", 1)[-1].lower()
        bad = next((w for w in SOAK_INTEGRITY if w in leaf), None)
        if bad and isinstance(v, (int, float)) and not isinstance(v, bool):
            head.append(f'<span class="pill {GOOD if v == 0 else BAD}">{esc(k)} {esc(v)}</span>')
            classes.append(["", GOOD if v == 0 else BAD])
        else:
            classes.append(["", ""])
        rows.append([f"<code>{esc(k)}</code>", esc(v)])
    msgs = [(k, v) for k, v in flat if k.rsplit(".", 1)[-1].lower() in ("messages", "messages_total", "total_messages")]
    fmt = lambda v: f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)
    parts = [f"<p>Messages: {'; '.join(f'{esc(k)} {esc(fmt(v))}' for k, v in msgs)}.</p>" if msgs else "",
             f"<p>Integrity counters (0 is a pass): {' '.join(head)}</p>" if head else
             "<p>No loss / duplication / reordering / corruption counters found in soak.json.</p>",
             f"<details><summary>Every value in soak.json ({len(rows)})</summary>"
             + table(["key", "value"], rows, classes, "compact") + "</details>"]
    return Part(True, "".join(parts), [rel])


SECTIONS: tuple[tuple[str, str, Callable[["Page"], Part]], ...] = (
    ("scoreboard", "Scoreboard", sec_scoreboard), ("system", "System model", sec_system),
    ("sensitivity", "Sensitivity (tornado)", sec_sensitivity), ("validation", "Validation", sec_validation),
    ("cdf", "Latency CDFs (co-simulation)", sec_cdf), ("loadcurves", "Load curves (co-simulation)", sec_load_curves),
    ("regression", "RTL regression", sec_regression), ("coverage", "Code coverage", sec_coverage),
    ("soak", "Fault soak", sec_soak))

CSS = """
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d2125;background:#fafafa}
header{background:#1f3b57;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
header ul{margin:6px 0 0;padding-left:18px;font-size:13px}header code{color:#ffe9a8;background:transparent}
nav{position:sticky;top:0;background:#fff;border-bottom:1px solid #ccc;padding:6px 24px;z-index:2;font-size:13px}
nav a{margin-right:12px;text-decoration:none}nav a.missing{color:#888}
main{padding:0 24px 40px;max-width:1500px}
section{background:#fff;border:1px solid #ddd;border-radius:6px;margin:18px 0;padding:4px 18px 14px}
h2{font-size:17px;border-bottom:1px solid #eee;padding-bottom:4px}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0;font-size:12.5px}th,td{border:1px solid #ddd;padding:3px 6px;vertical-align:top;text-align:left}
th{background:#f0f2f4;position:sticky;top:34px}table.compact{font-size:12px}
td.note{font-size:11.5px;color:#444;max-width:520px}
.good{background:#d7f0dc}.bad{background:#f7d4d7}.neutral{background:#e6e7e9}.warn{background:#fff1c2}
.pill{display:inline-block;border-radius:9px;padding:0 7px;margin:0 2px;font-size:12px}
p.notrun{background:#f3f3f3;border-left:4px solid #999;padding:8px 10px;color:#333}
p.definition{background:#eef4fb;border-left:4px solid #4a78a8;padding:6px 10px}
p.files{font-size:12.5px;color:#555}
figure{margin:12px 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:12px;color:#555}code{font-size:12px;background:#f3f3f3;padding:0 3px}
details summary{cursor:pointer;color:#1f3b57;margin:6px 0}
"""


def build(results: Path, out: Path | None = None) -> tuple[str, list[Section]]:
    """The page's HTML and its sections. A section whose input cannot be read says so in place."""
    results = Path(results)
    page = Page(results, Path(out) if out else results / "report.html")
    for sid, title, make in SECTIONS:
        try:
            part = make(page)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, csv.Error) as exc:
            part = Part(True, f'<p class="warn">Its input could not be read: {esc(type(exc).__name__)}: {esc(exc)}</p>')
        page.sections.append(Section(part.present, part.body, part.files, sid, title))
    nav = "".join(f'<a href="#{s.id}" class="{"" if s.present else "missing"}">{esc(s.title)}'
                  f'{"" if s.present else " (not run)"}</a>' for s in page.sections)
    secs = "".join(f'<section id="{s.id}"><h2>{esc(s.title)}</h2>{s.body}{files_line(page, s.files)}</section>'
                   for s in page.sections)
    doc = ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
           "<link rel=\"icon\" href=\"data:,\">"
           f"<title>ScalePool-HIL report: {esc(results.resolve().name)}</title><style>{CSS}</style></head><body>"
           f"<header><h1>ScalePool-HIL report</h1>{run_header(page)}</header>"
           f"<nav>{nav}</nav><main>{secs}"
           "<p class=\"files\">Written by <code>python -m sim.report.html</code> from this results directory; "
           "rebuild with <code>make report</code>.</p></main></body></html>\n")
    return doc, page.sections


def write(results: Path, out: Path | None = None) -> Path:
    out = Path(out) if out else Path(results) / "report.html"
    doc, _ = build(Path(results), out)
    out.write_text(doc, encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sim.report.html", description=__doc__.split("\n")[0])
    ap.add_argument("--results", type=Path, default=Path("results"), help="results directory (default: results)")
    ap.add_argument("--out", type=Path, default=None, help="page to write (default: <results>/report.html)")
    args = ap.parse_args(argv)
    if not args.results.is_dir():
        print(f"error: {args.results} is not a directory (run `make sim` first)", file=sys.stderr)
        return 2
    out = args.out or args.results / "report.html"
    doc, sections = build(args.results, out)
    out.write_text(doc, encoding="utf-8")
    missing = [s.title for s in sections if not s.present]
    print(f"wrote {out} ({len(sections) - len(missing)} of {len(sections)} sections"
          + (f"; not run here: {', '.join(missing)}" if missing else "") + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
