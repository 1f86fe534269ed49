"""`python -m sim.sweep --grid FILE.yaml [--engine local|ray] [--out DIR]`: a design-space sweep.

Runs every point of a grid of ``--set`` keys through one target's public entry point and writes one
table (``sweep.parquet`` and ``sweep.csv``: the point's keys, its metrics, ``error``), a plot
(``sweep.png``) and ``sweep.yaml`` (the resolved grid and the command) into --out (default
``results/sweep/<grid file name>``), with a progress bar. Targets:

- ``system``: the system model through its documented API, ``sim.system.build_config(sets=...)``
  and ``run_system`` (the same ``--set`` keys as ``python -m sim.report.run``). Metrics:
  ``speedup.<model>`` (baseline / ScalePool iteration time), ``speedup.mean``, ``speedup.max``,
  ``iter_s.<model>.<system>``, ``path_ns.<path>`` (unloaded path latencies).
- ``report``: ``python -m sim.report.run --set ...`` per point (slow: the whole report); metrics
  ``ours.<id>``, ``ratio.<id>``, ``verdict.<id>`` from its scoreboard.csv.
- ``cosim``: ``python -m sim.cosim.run --seed S --set ...`` per point (an RTL co-simulation);
  metrics ``p50.<path>``, ``p99.<path>``, ``n.<path>`` (cycles) and ``hop_p50.<hop>`` from its
  latency.json.

Grid file::

    target: system                 # system | report | cosim
    grid:                          # cartesian product; keys are the target's --set keys
      cxl.switch_latency_ns: [100, 200, 400]
      topology.cxl_ports_per_gpu: [1, 2]
    points:                        # optional: more points, each a mapping of keys
      - {cxl.switch_latency_ns: 800, topology.cxl_ports_per_gpu: 1}
    set: {accelerator.hbm_gbps: 1600}   # optional: fixed for every point (also --set on the command line)
    latencies_from: results/cosim/latency.json   # optional (system): measured hop latencies
    seed: 1                        # cosim: one seed for every point (default 1)
    args: [--no-cascade, --no-loaded]    # optional: extra CLI arguments of the target's entry point
    plot: {x: cxl.switch_latency_ns, y: [speedup.mean, speedup.max]}   # optional

A point that fails has its message in ``error`` and empty metrics; the exit code is then 1.
``evaluate_point(task)`` is the function every engine runs (sim.engine.map_tasks).
"""
from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from sim.engine import ENGINES, map_tasks

REPO = Path(__file__).resolve().parents[1]
TARGETS = ("system", "report", "cosim")
DEFAULT_ARGS = {"system": [], "report": ["--no-whatif"], "cosim": ["--no-cascade", "--no-loaded"]}


class GridError(ValueError):
    pass


def set_text(key: str, value: Any) -> str:
    """One ``--set key=value`` argument (booleans as YAML, lists comma-separated)."""
    if isinstance(value, bool):
        v = "true" if value else "false"
    elif isinstance(value, (list, tuple)):
        v = ",".join(str(x) for x in value)
    else:
        v = str(value)
    return f"{key}={v}"


def load_grid(path: Path, extra_sets: Sequence[str] = ()) -> dict:
    """Read and check a grid file; returns it with ``points`` (list of key -> value) resolved."""
    doc = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    if not isinstance(doc, Mapping):
        raise GridError(f"{path}: expected a mapping")
    unknown = set(doc) - {"target", "grid", "points", "set", "latencies_from", "seed", "args", "plot", "name"}
    if unknown:
        raise GridError(f"{path}: unknown field(s) {', '.join(sorted(unknown))}")
    target = doc.get("target", "system")
    if target not in TARGETS:
        raise GridError(f"{path}: target {target!r}: one of {', '.join(TARGETS)}")
    grid = doc.get("grid") or {}
    if not isinstance(grid, Mapping) or not all(isinstance(v, list) and v for v in grid.values()):
        raise GridError(f"{path}: grid: a mapping of key -> non-empty list of values")
    keys = list(grid)
    points = [dict(zip(keys, combo)) for combo in itertools.product(*grid.values())] if keys else []
    for p in doc.get("points") or []:
        if not isinstance(p, Mapping):
            raise GridError(f"{path}: points: each point is a mapping of key -> value")
        points.append(dict(p))
        keys += [k for k in p if k not in keys]
    if not points:
        raise GridError(f"{path}: no points (give grid and/or points)")
    fixed = [set_text(k, v) for k, v in (doc.get("set") or {}).items()] + list(extra_sets)
    lat = doc.get("latencies_from")
    if lat and target != "system":
        raise GridError(f"{path}: latencies_from applies to target system only")
    return {"name": doc.get("name") or Path(path).stem, "target": target, "keys": keys, "points": points,
            "fixed": fixed, "latencies_from": str(lat) if lat else None, "seed": int(doc.get("seed", 1)),
            "args": list(doc.get("args", DEFAULT_ARGS[target])), "plot": doc.get("plot") or {}}


# ------------------------------------------------------------------------------ one point
def evaluate_point(task: Mapping[str, Any]) -> dict[str, Any]:
    """Metrics of one point: ``task`` = {target, sets (list of key=value), seed, args, latencies (JSON text or None)}."""
    target = task["target"]
    if target == "system":
        return _system_point(task["sets"], task.get("latencies"))
    with tempfile.TemporaryDirectory(prefix="scalepool-sweep-") as tmp:
        out = Path(tmp) / "out"
        cmd = [sys.executable, "-m", f"sim.{'report' if target == 'report' else 'cosim'}.run", "--out", str(out),
               *task["args"]]
        if target == "cosim":
            cmd += ["--seed", str(task["seed"])]
        for s in task["sets"]:
            cmd += ["--set", s]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO)] + [p for p in [os.environ.get("PYTHONPATH")] if p]),
                   MPLBACKEND="Agg")
        r = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd[2:4])} exited {r.returncode}: {(r.stderr or r.stdout).strip()[-1500:]}")
        return _report_metrics(out / "scoreboard.csv") if target == "report" else _cosim_metrics(out / "latency.json")


def _system_point(sets: Sequence[str], latencies: str | None) -> dict[str, Any]:
    from sim.system import build_config, run_system, speedups

    with tempfile.TemporaryDirectory(prefix="scalepool-sweep-") as tmp:
        lat = None
        if latencies is not None:
            lat = Path(tmp) / "latency.json"
            lat.write_text(latencies, encoding="utf-8")
        cfg, _ = build_config(sets=list(sets), latencies_from=lat)
    res = run_system(cfg)
    sp = speedups(res.training)
    out: dict[str, Any] = {f"speedup.{k}": v for k, v in sp.items()}
    out["speedup.mean"] = sum(sp.values()) / len(sp)
    out["speedup.max"] = max(sp.values())
    for model, systems in res.training.items():
        for system, it in systems.items():
            out[f"iter_s.{model}.{system}"] = it.total
    out.update({f"path_ns.{k}": v for k, v in res.paths.as_dict().items()})
    return out


def _number(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return text


def _report_metrics(path: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            out[f"ours.{row['id']}"] = _number(row["our value"])
            out[f"ratio.{row['id']}"] = _number(row["ratio"])
            out[f"verdict.{row['id']}"] = row["verdict"]
    return out


def _cosim_metrics(path: Path) -> dict[str, Any]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, Any] = {}
    for name, s in sorted(doc.get("paths", {}).items()):
        out[f"p50.{name}"] = s["p50_cycles"]
        out[f"p99.{name}"] = s["p99_cycles"]
        out[f"n.{name}"] = s["n"]
    for hop, h in sorted(doc.get("hops", {}).items()):
        out[f"hop_p50.{hop}"] = h["p50_cycles"]
    return out


# ------------------------------------------------------------------------------ the sweep
def tasks_of(g: Mapping[str, Any]) -> list[dict[str, Any]]:
    lat = Path(g["latencies_from"]).read_text(encoding="utf-8") if g["latencies_from"] else None
    return [{"target": g["target"], "sets": g["fixed"] + [set_text(k, v) for k, v in p.items()], "seed": g["seed"],
             "args": g["args"], "latencies": lat} for p in g["points"]]


def check_keys(g: Mapping[str, Any]) -> None:
    """Refuse an unknown --set key or a badly typed value before any point runs (target system)."""
    if g["target"] == "system":
        from sim.system import ConfigError, build_config
        try:
            build_config(sets=g["fixed"] + [set_text(k, v) for p in g["points"] for k, v in p.items()])
        except ConfigError as exc:
            raise GridError(str(exc)) from None


def run_sweep(g: Mapping[str, Any], engine: str | None = None, jobs: int | None = None,
              progress: bool = True) -> list[dict[str, Any]]:
    """Rows (point keys, metrics, error) in point order."""
    tasks = tasks_of(g)
    if jobs is None:      # model points take milliseconds: in this process; simulations: every core
        jobs = 1 if g["target"] == "system" else None
    results = map_tasks(evaluate_point, tasks, engine=engine, jobs=jobs, progress=progress, on_error="return",
                        desc=f"sweep {g['name']} ({g['target']})")
    rows = []
    for i, (p, r) in enumerate(zip(g["points"], results)):
        row: dict[str, Any] = {"point": i, **{k: p.get(k) for k in g["keys"]}}
        if isinstance(r, BaseException):
            row["error"] = f"{type(r).__name__}: {r}".strip()[:2000]
        else:
            row.update(r)
            row["error"] = ""
        rows.append(row)
    return rows


def write_table(rows: list[dict[str, Any]], keys: Sequence[str], out: Path) -> "Any":
    import pandas as pd

    df = pd.DataFrame(rows)
    metric_cols = sorted(c for c in df.columns if c not in ("point", "error", *keys))
    df = df[["point", *keys, *metric_cols, "error"]]
    for c in keys:   # one type per column (Parquet): numbers stay numbers, anything mixed becomes text
        if not pd.api.types.is_numeric_dtype(df[c]) or df[c].map(lambda v: isinstance(v, bool)).any():
            df[c] = df[c].map(lambda v: "" if v is None else str(v))
    df.to_csv(out / "sweep.csv", index=False)
    df.to_parquet(out / "sweep.parquet", index=False)
    return df


def plot(df, g: Mapping[str, Any], out: Path) -> Path | None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    keys = list(g["keys"])
    spec = g["plot"]
    x = spec.get("x") or (keys[0] if keys else "point")
    metrics = [c for c in df.columns if c not in ("point", "error", *keys) and pd.api.types.is_numeric_dtype(df[c])]
    default_y = "speedup.mean" if "speedup.mean" in metrics else (metrics[0] if metrics else None)
    ys = spec.get("y") or default_y
    ys = [ys] if isinstance(ys, str) else list(ys or [])
    ys = [y for y in ys if y in df.columns]
    if not ys:
        return None
    hue = [k for k in keys if k != x]
    ok = df[df["error"] == ""]
    fig, axes = plt.subplots(1, len(ys), figsize=(6.0 * len(ys), 4.2), squeeze=False)
    for ax, y in zip(axes[0], ys):
        groups = ok.groupby(hue, sort=True) if hue else [((), ok)]
        for n, (label, part) in enumerate(groups):
            if n >= 12:
                break
            label = label if isinstance(label, tuple) else (label,)
            part = part.sort_values(x)
            ax.plot(part[x], part[y], marker="o",
                    label=", ".join(f"{k}={v}" for k, v in zip(hue, label)) if hue else None)
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        ax.set_title(f"{y} vs {x}")
        ax.grid(True, alpha=0.3)
        if hue:
            ax.legend(fontsize=7, title=None)
    fig.suptitle(f"sweep {g['name']} ({g['target']}, {len(df)} points)")
    fig.tight_layout()
    path = out / "sweep.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sim.sweep", description=__doc__.splitlines()[0])
    ap.add_argument("--grid", type=Path, required=True, help="grid YAML (see the module docstring)")
    ap.add_argument("--engine", choices=ENGINES, default=None, help="default: $ENGINE or local")
    ap.add_argument("--out", type=Path, default=None, help="default: results/sweep/<grid name>")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="fixed override for every point")
    ap.add_argument("--jobs", type=int, default=None,
                    help="local processes (default: 1 for system points, every core for simulations)")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    try:
        g = load_grid(args.grid, args.set)
        check_keys(g)
    except (GridError, OSError, yaml.YAMLError) as exc:
        print(f"sweep: {exc}", file=sys.stderr)
        return 2
    out = args.out or REPO / "results" / "sweep" / g["name"]
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    rows = run_sweep(g, args.engine, args.jobs, progress=not args.no_progress)
    secs = time.perf_counter() - t0
    df = write_table(rows, g["keys"], out)
    fig = plot(df, g, out)
    doc = {"command": "python -m sim.sweep " + " ".join(sys.argv[1:] if argv is None else argv),
           "engine": args.engine or os.environ.get("ENGINE") or "local", "seconds": round(secs, 2),
           "points_per_second": round(len(rows) / secs, 3) if secs > 0 else math.nan, **g}
    (out / "sweep.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    bad = [r for r in rows if r["error"]]
    print(f"sweep {g['name']}: {len(rows)} points ({len(bad)} failed) in {secs:.1f} s "
          f"({len(rows) / secs:.2f} points/s) -> {out}/sweep.parquet, sweep.csv" + (", sweep.png" if fig else ""))
    for r in bad[:5]:
        print(f"  point {r['point']}: {r['error'][:300]}", file=sys.stderr)
    return 1 if bad else 0


BENCH_GRID = {"cxl.switch_latency_ns": [100, 150, 200, 300, 400, 600], "topology.cxl_ports_per_gpu": [1, 2, 4, 8]}


def bench() -> dict[str, float]:
    """sweep.points_per_second: a 24-point system-model grid, local engine, one process."""
    g = {"name": "bench", "target": "system", "keys": list(BENCH_GRID), "fixed": [], "latencies_from": None,
         "seed": 1, "args": [], "plot": {},
         "points": [dict(zip(BENCH_GRID, c)) for c in itertools.product(*BENCH_GRID.values())]}
    t0 = time.perf_counter()
    rows = run_sweep(g, "local", 1, progress=False)
    secs = time.perf_counter() - t0
    if any(r["error"] for r in rows):
        raise RuntimeError(next(r["error"] for r in rows if r["error"]))
    return {"sweep.points_per_second": round(len(rows) / secs, 3)}


if __name__ == "__main__":
    sys.exit(main())
