"""`python -m sim.system.validate --runs FILE [--runs FILE ...] [--out DIR]`

Predicts every run of a runs file (published, measured training runs) with the system model on the
run's hardware preset and compares with what was measured: prints a table and writes
`validation.csv` (name, metric, predicted, measured, error; error = predicted / measured - 1) into
--out (one file per runs file after the first: `validation_<stem>.csv`). A run whose layout does
not fit in memory gets no prediction and says why. Exit 2 on a bad file (one line naming the run
and the field), never a traceback.

A runs file is a YAML list; each run has `name`, `hardware` (a preset of sim/system/configs/hardware),
`accelerators`, `model` {layers, hidden, heads, kv_heads, ffn, gated, vocab, seq, [head_dim,
dropout, parallel_block]}, `layout` {tp, pp, dp, micro_batch, global_batch, recompute, zero_stage,
[sp, interleave, attention, offload]}, optional `overrides` {key: value, as --set}, `measured` {any
of tflops_per_accelerator, mfu, iteration_s, tokens_per_s}, `source` and optional `notes`.
"""
from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.config.build import VALIDATION_DIR, Config, assemble, base_tree, hardware_names
from sim.config.domains import ConfigError
from sim.config.schema import Workload, build_workload
from sim.config.tree import load_yaml
from sim.system.training import IterationTime, iteration_time

SHIPPED_RUNS = VALIDATION_DIR / "megatron_a100.yaml"
HOLDOUT_RUNS = VALIDATION_DIR / "holdout.yaml"
METRICS = ("tflops_per_accelerator", "mfu", "iteration_s", "tokens_per_s")
RUN_FIELDS = ("name", "hardware", "accelerators", "model", "layout", "overrides", "measured", "source", "notes")
CSV_COLUMNS = ("name", "metric", "predicted", "measured", "error", "hardware", "note")


@dataclass(frozen=True)
class Run:
    name: str
    hardware: str
    workload: Workload
    cfg: Config
    measured: dict[str, float]
    source: str
    notes: str
    overrides: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Row:
    name: str
    metric: str
    predicted: float | None
    measured: float
    hardware: str
    note: str

    @property
    def error(self) -> float | None:
        return None if self.predicted is None else self.predicted / self.measured - 1.0

    def cells(self) -> list[str]:
        e = self.error
        return [self.name, self.metric, "" if self.predicted is None else f"{self.predicted:.4g}",
                f"{self.measured:.4g}", "" if e is None else f"{e:+.3f}", self.hardware, self.note]


def _run(item: Any, i: int, path: Path) -> Run:
    where = f"{path}: run {i + 1}"
    if not isinstance(item, dict):
        raise ConfigError(f"{where}: expected a mapping, got {item!r}")
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{where}.name: expected a non-empty string, got {name!r}")
    where = f"{path}: {name}"
    for k in item:
        if k not in RUN_FIELDS:
            raise ConfigError(f"{where}.{k}: unknown field (allowed: {', '.join(RUN_FIELDS)})")
    for k in ("hardware", "accelerators", "model", "layout", "measured", "source"):
        if k not in item:
            raise ConfigError(f"{where}.{k}: required field is missing")
    hw = item["hardware"]
    if hw not in hardware_names():
        raise ConfigError(f"{where}.hardware: {hw!r} is not a preset (one of {', '.join(hardware_names())})")
    src = item["source"]
    if not isinstance(src, str) or not src.strip():
        raise ConfigError(f"{where}.source: expected a non-empty string (where the measurement is published)")
    tree = base_tree(hw)
    overrides = item.get("overrides") or {}
    if not isinstance(overrides, dict):
        raise ConfigError(f"{where}.overrides: expected a mapping of parameter keys to values")
    for k, v in overrides.items():
        tree.set(str(k), v, f"{path}: {name}.overrides")
    try:
        cfg = assemble(tree, hw)
        w = build_workload(name, name, item["model"], item["layout"], "")
    except ConfigError as exc:
        raise ConfigError(f"{where}: {str(exc).lstrip('.')}") from None
    acc = item["accelerators"]
    if not isinstance(acc, int) or isinstance(acc, bool) or acc != w.accelerators:
        raise ConfigError(f"{where}.accelerators: {acc!r} does not equal tp x pp x dp = {w.accelerators}")
    meas = item["measured"]
    if not isinstance(meas, dict) or not meas:
        raise ConfigError(f"{where}.measured: expected a mapping with any of {', '.join(METRICS)}")
    for k, v in meas.items():
        if k not in METRICS:
            raise ConfigError(f"{where}.measured.{k}: unknown metric (one of {', '.join(METRICS)})")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise ConfigError(f"{where}.measured.{k}: expected a positive number, got {v!r}")
    notes = item.get("notes", "")
    return Run(name, hw, w, cfg, {k: float(v) for k, v in meas.items()}, src, str(notes), dict(overrides))


def load_runs(path: Path) -> list[Run]:
    data = load_yaml(Path(path))
    if not isinstance(data, list) or not data:
        raise ConfigError(f"{path}: expected a non-empty YAML list of runs")
    runs = [_run(item, i, Path(path)) for i, item in enumerate(data)]
    names = [r.name for r in runs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ConfigError(f"{path}: run names must be unique ({', '.join(dup)})")
    return runs


def predict(run: Run) -> IterationTime:
    return iteration_time(run.workload, run.cfg, "baseline")


def metric_value(it: IterationTime, metric: str) -> float:
    return {"tflops_per_accelerator": it.tflops_per_accelerator, "mfu": it.mfu, "iteration_s": it.total,
            "tokens_per_s": it.tokens_per_s}[metric]


def validate_runs(runs: list[Run]) -> list[Row]:
    rows = []
    for r in runs:
        it = predict(r)
        for metric, meas in r.measured.items():
            if not it.fits:
                rows.append(Row(r.name, metric, None, meas, r.hardware, "does not fit: " + it.memory.why_not()))
                continue
            note = (f"{it.total:.2f} s/iter; MFU {it.mfu:.3f}, HFU {it.hfu:.3f}; compute {it.computation:.2f} s, "
                    f"TP {it.tp:.2f}, PP {it.pp:.2f}, DP {it.dp_exposed:.2f}, bubble {it.bubble:.2f}, "
                    f"offload {it.offload_exposed:.2f}; memory {it.memory.total / 1e9:.1f} GB")
            rows.append(Row(r.name, metric, metric_value(it, metric), meas, r.hardware, note))
    return rows


def summary(rows: list[Row]) -> dict[str, float]:
    """Mean and max |error| over predicted rows; runs without a prediction count as misses."""
    errs = [abs(r.error) for r in rows if r.error is not None]
    return {"runs": float(len(rows)), "predicted": float(len(errs)),
            "mean_abs_error": float(sum(errs) / len(errs)) if errs else float("nan"),
            "max_abs_error": float(max(errs)) if errs else float("nan"),
            "within_15pct": float(sum(e <= 0.15 for e in errs)), "not_predicted": float(len(rows) - len(errs))}


def write_rows(path: Path, header, rows) -> None:
    """A CSV file: one header line, then the rows."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def write_csv(rows: list[Row], path: Path) -> None:
    write_rows(path, CSV_COLUMNS, [r.cells() for r in rows])


def format_table(rows: list[Row]) -> str:
    header = ["name", "metric", "predicted", "measured", "error"]
    body = [r.cells()[:5] + ([r.note] if r.predicted is None else []) for r in rows]
    widths = [max(len(str(x[i])) for x in [header] + [b[:5] for b in body]) for i in range(5)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()
    out = [line(header), line(["-" * w for w in widths])]
    for b in body:
        out.append(line(b[:5]) + (f"  ({b[5]})" if len(b) > 5 else ""))
    s = summary(rows)
    out.append(f"mean |error| {s['mean_abs_error']:.3f}, max |error| {s['max_abs_error']:.3f}, "
               f"{int(s['within_15pct'])} of {int(s['runs'])} within 15 %"
               + (f", {int(s['not_predicted'])} not predicted" if s["not_predicted"] else ""))
    return "\n".join(out)


def csv_name(index: int, path: Path) -> str:
    return "validation.csv" if index == 0 else f"validation_{Path(path).stem}.csv"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sim.system.validate", description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=Path, action="append", default=None,
                    help=f"runs file (repeatable; default {SHIPPED_RUNS.relative_to(VALIDATION_DIR.parents[2])})")
    ap.add_argument("--out", type=Path, default=None, help="directory for validation.csv")
    args = ap.parse_args(argv)
    files = args.runs or [SHIPPED_RUNS]
    t0 = time.perf_counter()
    try:
        results = [(f, validate_runs(load_runs(f))) for f in files]
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    for i, (f, rows) in enumerate(results):
        print(f"== {f}")
        print(format_table(rows))
        if args.out is not None:
            args.out.mkdir(parents=True, exist_ok=True)
            write_csv(rows, args.out / csv_name(i, f))
            print(f"wrote {args.out / csv_name(i, f)}")
    print(f"({time.perf_counter() - t0:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
