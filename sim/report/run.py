"""`python -m sim.report.run [--out results] [--hardware NAME] [--set key=value ...] [--config file]`

Runs the system model on the LLM workloads (however many the workload file holds), the tiering
sweep and the report's case studies, scores them against targets.md sections 1-4 with the verdict
rules stated there, moves every ranged assumption to both ends of its range (sensitivity), predicts
the published validation runs, prints the scoreboard and writes into --out: scoreboard.csv,
report.md, inputs.yaml (the resolved configuration with every source), training_breakdown.csv,
tiering.csv, sensitivity.csv, validation.csv, validation_holdout.csv and PNG plots.
"""
from __future__ import annotations

import argparse
import hashlib
import math
import sys
import time
from pathlib import Path

import yaml

from sim.config.build import CASES_YAML, DEFAULT_HARDWARE, TIERING_YAML, WORKLOAD_YAML, Config, hardware_names
from sim.config.domains import ConfigError
from sim.report import plots
from sim.report.names import SHORT, legend_names, origin, system_names
from sim.report.score import COLUMNS, RATIO_DEFINITION, Row, headline_values, score
from sim.report.sensitivity import Swing, envelope, movers, sensitivity
from sim.report.targets import Rules, load_rules, load_targets, targets_path
from sim.system.cases import CasePaths, CaseResult, build_case_config, run_cases
from sim.system.model import SystemResult, run_system
from sim.system.training import SYSTEMS
from sim.system.validate import (HOLDOUT_RUNS, SHIPPED_RUNS, Row as VRow, load_runs, summary, validate_runs, write_csv,
                                 write_rows)

HEADLINE_SECTION = 1
CXL_KEYS = ("cxl.", "topology.", "fabric.")     # used by accelerator clusters and ScalePool alike


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m sim.report.run", description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="results", help="output directory (default: results)")
    ap.add_argument("--hardware", default=DEFAULT_HARDWARE,
                    help=f"hardware preset of sim/system/configs/hardware ({', '.join(hardware_names())}; default {DEFAULT_HARDWARE})")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a parameter, e.g. --set cxl.switch_latency_ns=150 (repeatable)")
    ap.add_argument("--config", type=Path, help="YAML file of overrides (same tree as system.yaml)")
    ap.add_argument("--workload", type=Path, default=WORKLOAD_YAML, help="LLM workload YAML")
    ap.add_argument("--tiering", type=Path, default=TIERING_YAML, help="tiering sweep YAML")
    ap.add_argument("--cases", type=Path, default=CASES_YAML, help="case-study profiles YAML (targets.md section 4)")
    ap.add_argument("--runs", type=Path, default=SHIPPED_RUNS, help="validation runs file (measured training runs)")
    ap.add_argument("--holdout", type=Path, default=HOLDOUT_RUNS, help="held-out validation runs file")
    ap.add_argument("--latencies-from", type=Path, default=None,
                    help="co-simulation latency JSON (default: <out>/cosim/latency.json if it exists)")
    ap.add_argument("--load-curves-from", type=Path, default=None,
                    help="co-simulation load curves CSV (default: <out>/cosim/load_curve.csv if it exists)")
    ap.add_argument("--no-whatif", "--no-sensitivity", dest="no_whatif", action="store_true",
                    help="skip the sensitivity runs and the validation")
    return ap.parse_args(argv)


def table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths))
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def md_table(rows: list[list[str]], header: list[str]) -> str:
    esc = lambda c: str(c).replace("|", "\\|")
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def write_scoreboard(rows: list[Row], path: Path) -> None:
    write_rows(path, COLUMNS, [r.cells() for r in rows])


def write_inputs(cfg: Config, args: argparse.Namespace, tpath: Path, measured_path: Path | None, path: Path) -> None:
    doc = {
        "command": "python -m sim.report.run " + " ".join(sys.argv[1:]),
        "notes": cfg.notes,
        "hardware": cfg.hardware_name,
        "systems": system_names(cfg),
        "targets_file": {"path": str(tpath), "sha256": hashlib.sha256(tpath.read_bytes()).hexdigest()},
        "workload_file": str(args.workload), "tiering_file": str(args.tiering), "cases_file": str(args.cases),
        "latencies_from": str(measured_path) if measured_path else None,
        "parameters": cfg.tree.as_tree(),
    }
    path.write_text("# Resolved inputs of this run; reproduce with: python -m sim.report.run --config <this file>\n"
                    + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=140), encoding="utf-8")


def _f(x: float, fmt: str = ".3f") -> str:
    return "" if x is None or not math.isfinite(x) else format(x, fmt)


def breakdown_rows(res: SystemResult) -> list[list[str]]:
    out = []
    for w in res.workloads:
        for s in SYSTEMS:
            it = res.training[w.key][s]
            out.append([w.display, SHORT[s], _f(it.total), _f(it.tokens_per_s, ".4g"), _f(it.tflops_per_accelerator, ".1f"),
                        _f(it.mfu), _f(it.hfu), _f(it.computation), _f(it.tp), _f(it.pp), _f(it.dp_exposed),
                        _f(it.offload_exposed), _f(it.bubble), _f(it.dp_total), _f(it.inter_cluster_comm),
                        f"{it.memory.total / 1e9:.1f}", "yes" if it.fits else "no: " + it.memory.why_not()])
    return out


BREAKDOWN_HEADER = ["model", "system", "s/iteration", "tokens/s", "TFLOP/s per accel.", "MFU", "HFU", "compute s",
                    "TP s", "PP s", "DP exposed s", "offload exposed s", "bubble s", "DP total s",
                    "inter-cluster comm s", "memory GB", "fits"]


def validation_rows(rows: list[VRow]) -> list[list[str]]:
    return [[r.name, r.metric, "" if r.predicted is None else f"{r.predicted:.4g}", f"{r.measured:.4g}",
             "" if r.error is None else f"{r.error * 100:+.1f} %", r.note] for r in rows]


def validation_summary(rows: list[VRow]) -> str:
    s = summary(rows)
    return (f"mean |error| {s['mean_abs_error'] * 100:.1f} %, max |error| {s['max_abs_error'] * 100:.1f} %, "
            f"{int(s['within_15pct'])} of {int(s['runs'])} within ±15 %"
            + (f", {int(s['not_predicted'])} not predicted (does not fit)" if s["not_predicted"] else ""))


def write_sensitivity(swings: list[Swing], ids: list[str], path: Path) -> None:
    write_rows(path, ["parameter", "default", "low", "high", "range source"] + [f"{i} at low" for i in ids]
               + [f"{i} at high" for i in ids] + ["error"],
               [[s.key, s.default, s.lo, s.hi, s.range_source] + [_f(s.at_lo.get(i), ".4g") for i in ids]
                + [_f(s.at_hi.get(i), ".4g") for i in ids] + [s.error] for s in swings])


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    lat_path = args.latencies_from
    if lat_path is None and (out / "cosim" / "latency.json").is_file():
        lat_path = out / "cosim" / "latency.json"
    print(f"[1/6] configuration (hardware {args.hardware}, workload {args.workload}, "
          f"latencies: {lat_path or 'cited parameters'})", flush=True)
    tpath = targets_path()
    try:
        rules = load_rules(tpath)
        targets = load_targets(tpath)
        cfg, measured = build_case_config(args.config, args.set, args.workload, args.tiering, lat_path, args.cases,
                                          args.hardware)
        lc_path = args.load_curves_from or (out / "cosim" / "load_curve.csv")
        if args.load_curves_from or lc_path.is_file():     # CXL-port contention from the RTL sweep
            from sim.config.build import with_load_curves
            cfg = with_load_curves(cfg, lc_path)
            print(f"      CXL port contention from RTL load curves: {lc_path}", flush=True)
        print(f"[2/6] system model: {len(cfg.workloads)} LLMs x {len(SYSTEMS)} systems, tiering sweep, case studies",
              flush=True)
        res = run_system(cfg)
        case_paths, cases = run_cases(cfg)
        head_ids = [t.id for t in targets if t.section == HEADLINE_SECTION]
        swings: list[Swing] = []
        vrows: list[VRow] = []
        hrows: list[VRow] = []
        if not args.no_whatif:
            print("[3/6] sensitivity: every ranged assumption at both ends of its range", flush=True)
            swings = sensitivity(cfg, head_ids)
            print(f"[4/6] validation: {args.runs} and held-out {args.holdout}", flush=True)
            vrows = validate_runs(load_runs(args.runs))
            hrows = validate_runs(load_runs(args.holdout))
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:          # targets.md without parsable rules or rows
        print(f"targets error: {exc}", file=sys.stderr)
        return 2
    base = headline_values(res, cfg, head_ids)
    ranges = envelope(base, swings) if swings else {}
    print(f"[5/6] scoring against {tpath} ({rules.describe()})", flush=True)
    rows = score(targets, res, cfg, cases, rules, ranges)
    print("[6/6] writing report", flush=True)
    write_scoreboard(rows, out / "scoreboard.csv")
    write_inputs(cfg, args, tpath, lat_path, out / "inputs.yaml")
    write_rows(out / "training_breakdown.csv", BREAKDOWN_HEADER, breakdown_rows(res))
    write_rows(out / "tiering.csv", ["pattern", "working_set_bytes"] + list(SYSTEMS),
               [[p, f"{ws:.6g}"] + [f"{lat[s][i]:.2f}" for s in SYSTEMS]
                for p, lat in res.tiering.latency.items() for i, ws in enumerate(res.tiering.ws_bytes)])
    if swings:
        write_sensitivity(swings, head_ids, out / "sensitivity.csv")
    if vrows:
        write_csv(vrows, out / "validation.csv")
        write_csv(hrows, out / "validation_holdout.csv")
    names = legend_names(cfg)
    by_id = {r.id: r for r in rows}
    marks = [(f"paper: {what} {r.paper} ({r.id})", plots.paper_number(r.paper))
             for what, r in (("mean", by_id.get("SP-TRAIN-AVG")), ("best model", by_id.get("SP-TRAIN-MAX")))
             if r is not None and plots.paper_number(r.paper) is not None]
    avg = by_id.get("SP-TRAIN-AVG")
    figs = [plots.plot_speedup(res, out, names, marks,
                               (avg.range_lo, avg.range_hi) if avg is not None and avg.range_lo is not None else None),
            plots.plot_breakdown(res, out, names, SHORT),
            plots.plot_tiering(res, out, names, cfg.hardware.accelerator.hbm_gb, cfg.hardware.accelerator.per_domain),
            plots.plot_cases(cases, case_paths, rows, out)]
    if swings:
        figs.append(plots.plot_tornado(swings, base, [r for r in rows if r.id in head_ids], out))
    if vrows:
        figs.append(plots.plot_validation(vrows, hrows, out))
    if measured is not None:
        f = plots.plot_cdfs(measured, out)
        if f:
            figs.append(f)
    write_report(out, rows, res, cfg, swings, base, figs, lat_path, tpath, rules, cases, case_paths, vrows, hrows, args)
    from sim.report.loadcurve import append_section   # RTL load curves, when the sweep has run
    append_section(out, res, cfg)
    header = ["id", "paper", "ours", "unit", "ratio", "verdict", "range"]
    print()
    print(table([[r.id, r.paper[:28], c[3], r.unit, c[5], r.verdict, r.range_text()] for r, c in ((r, r.cells()) for r in rows)],
                header))
    if vrows:
        print(f"\nvalidation ({args.runs.name}): {validation_summary(vrows)}")
        print(f"held-out ({args.holdout.name}): {validation_summary(hrows)}")
    from sim.report import html               # the browser page over everything in --out
    html.write(out)
    print(f"\nwrote {out}/scoreboard.csv, report.md, report.html, inputs.yaml ({time.perf_counter() - t0:.1f} s)")
    return 0


def case_section(rows: list[Row], cases: list[CaseResult], cp: CasePaths, fig: str | None, rules: Rules) -> list[str]:
    """Report text for targets.md section 4: the paths used, one explained row per value, and what
    each profile takes from the report and what the report does not give."""
    lines = [
        "## Case studies (targets.md §4, CXL-over-XLink report §5.2)", "",
        f"Both paths come from the system model on the prototype topology (`cases.common`: {cp.switch_hops} switch "
        f"traversals per direction, {cp.cable_m:g} m links; the report gives neither): CXL pool read "
        f"{cp.cxl_lat_ns:.0f} ns and {cp.cxl_gbps:.0f} GB/s per accelerator; RDMA READ {cp.rdma_lat_ns:.0f} ns and "
        f"{cp.rdma_gbps:.0f} GB/s; a staging copy on the RDMA path {cp.copy_gbps:.0f} GB/s.", "",
        "How to read a row: where the report leaves an input open (transfer size, compute share), our value is the "
        "interval of every result consistent with what it does give. `in` = the paper's value is one the modelled "
        "fabric difference can produce (consistent, not a prediction); `out` = no setting of the open inputs gives "
        "it, so the gain needs something the model leaves out (named in the note); `hit`/`miss` = the report pins "
        f"the value down ({rules.describe()}); `not derivable` = the report lacks the inputs (sizes, compute rate).", "",
        md_table([[r.id, r.paper, r.our_text(), r.verdict, r.note] for r in rows if r.section == 4],
                 ["id", "paper", "ours", "verdict", "explanation"]), "",
    ]
    for c in cases:
        p = c.profile
        lines.append(f"- **{p.display}** (profile `{p.key}`, {p.target}): " + "; ".join(
            f"{ph.name}: {ph.pattern}, {ph.cxl_traversals} CXL traversal(s), {ph.rdma_copies:g} RDMA copies"
            + (f", open: {', '.join(ph.unknowns)}" if ph.unknowns else "") for ph in p.phases)
            + f". Not in the report: {p.not_given}.")
    lines.append("")
    if fig:
        lines += [f"![case study envelopes]({fig})", ""]
    return lines


def sensitivity_section(rows: list[Row], swings: list[Swing], base: dict[str, float | None], fig: str | None,
                        pattern: str = "zipf") -> list[str]:
    lines = ["## Sensitivity of the headline rows (targets.md: setup details the paper leaves open)", "",
             "Every parameter whose input leaf carries a plausible `range` (with `range_source`) is moved to each end "
             "of it, one at a time; a row's `range low` / `range high` in the scoreboard is the envelope. The verdict "
             "is on the point value; where the paper's setup is unknown, read the interval.", ""]
    if fig:
        lines += [f"![tornado]({fig})", ""]
    for r in rows:
        ms = movers(swings, r.id, base.get(r.id))
        if r.ours is None:
            continue
        inside = ("inside" if r.range_lo is not None and r.range_lo <= _paper_number(r) <= r.range_hi else "outside")
        lines += [f"**{r.id}** = {r.ours:.3g} {r.unit} (paper {r.paper}; over the ranges {r.range_text()}: the paper's "
                  f"value is {inside} it)", ""]
        if not ms:
            lines += ["No ranged assumption moves this row.", ""]
            continue
        lines += [md_table([[s.key, f"{_g(s.lo)} -> {s.at_lo.get(r.id):.3g}", f"{_g(s.hi)} -> {s.at_hi.get(r.id):.3g}",
                             s.range_source] for s in ms],
                           ["parameter", "low end -> row", "high end -> row", "range source"]), ""]
    acc = [s for s in swings if s.key.startswith(CXL_KEYS) and "SP-TIER2-ACC" in s.at_lo and s.at_lo.get("SP-TIER2-ACC") is not None]
    lines += ["**Against accelerator clusters (SP-TIER2-ACC, and SP-TIER1's note).** Unlike the baseline, which "
              "uses no CXL (so a slower CXL part can only lower a speedup over it), accelerator clusters reach other "
              "racks over CXL too: NVLink to a rack-edge bridge, two bridges and `topology.inter_cluster_switch_hops` "
              "CXL switches each way, where ScalePool's tier-2 read crosses `topology.tier2_switch_hops` switches "
              "each way without bridges. A CXL parameter therefore lengthens both remote paths, and the ratio of "
              "the mean latencies moves by which side it weighs on more: accelerator clusters place data "
              "statically, so a share 1 - C_rack/W of their accesses goes remote, while ScalePool's coherent hot-line "
              "placement sends only the accesses beyond the hottest C_rack bytes (1 - CDF(C_rack)) to tier 2. "
              + (f"With the skewed ({pattern}) scored pattern accelerator clusters go remote more often, so an equal "
                 "added latency usually raises the ratio" if pattern == "zipf" else
                 f"This run scores the {pattern} pattern, which has no hot lines to place, so which way an equal "
                 "added latency moves the ratio is read from the measurements below")
              + "; a parameter that only one path uses (bridges: accelerator clusters; tier-2 hops: ScalePool) moves "
              "it away from that side. Measured here:", ""]
    for s in acc:
        a, b = s.at_lo["SP-TIER2-ACC"], s.at_hi["SP-TIER2-ACC"]
        way = "falls" if b < a - 1e-9 else "rises" if b > a + 1e-9 else "does not move"
        lines.append(f"- `{s.key}` {_g(s.lo)} -> {_g(s.hi)}: SP-TIER2-ACC {a:.3g} -> {b:.3g} ({way})")
    lines.append("")
    return lines


def limitations_of_this_run(cfg: Config) -> list[str]:
    """Limitations whose truth depends on this run's inputs, stated only where they hold."""
    out = []
    if getattr(cfg, "load_curves", None) is None:
        out.append("- Unloaded latencies; no queuing or contention (offload and DP traffic share the CXL port in "
                   "reality).")
    zero = [k for k in ("fabric.onchip_ns", "ddr5.controller_ns") if not cfg.get(k)]
    if zero:
        out.append(f"- {' and '.join(f'`{k}`' for k in zero)} = 0 (no source): GPU/CPU on-chip paths are left out, "
                   "so latency ratios are upper bounds and CAL-LOCAL-DRAM / CAL-CXL-ASIC land low.")
    proxies = [f"`{k}` ({origin(cfg, k)})" for k in ("nvlink.switch_ns", "ualink.switch_ns")]
    out.append("- Switch latencies standing in for NVSwitch and UALink switches: " + "; ".join(proxies) + ".")
    return out


def _g(x) -> str:
    """A range end: numbers compactly, alternatives (names, true/false) as they are."""
    return f"{x:g}" if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x).lower()


def _paper_number(r: Row) -> float:
    import re
    m = re.match(r"\s*([0-9.]+)", r.paper)
    return float(m.group(1)) if m else float("nan")


def validation_section(vrows: list[VRow], hrows: list[VRow], runs: Path, holdout: Path, fig: str | None) -> list[str]:
    header = ["run", "metric", "predicted", "measured", "error", "breakdown / reason"]
    lines = ["## Validation against measured training runs", "",
             f"The model predicts published, measured runs on their own hardware preset (`python -m sim.system.validate "
             f"--runs FILE`); error = predicted / measured - 1. Nothing is fitted to them: every constant comes from a "
             f"datasheet, a published microbenchmark or the run's paper (see the presets' `source` fields).", "",
             f"### Shipped set (`{runs}`)", "", md_table(validation_rows(vrows), header), "",
             validation_summary(vrows) + ".", "",
             f"### Held-out set (`{holdout}`), never used to build the model", "",
             md_table(validation_rows(hrows), header), "", validation_summary(hrows) + ".", "",
             "Reading the errors: the model is built from best-case measured rates (the maximum achievable matmul "
             "rate, nccl-tests bus bandwidth, measured HBM bandwidth), so it is an optimistic estimate of a given "
             "software stack: it lands within a few percent of Megatron-LM 2022 (Korthikanti et al.), 10-15 % above "
             "Megatron-LM 2021 (Narayanan et al.), and far above stacks that do not reach those rates (DeepSpeed "
             "ZeRO-3 2021 without model parallelism, whose per-parameter all-gathers did not overlap or reach link "
             "bandwidth; DeepSpeed MT-NLG). A run that does not fit in memory under the modelled schedule is "
             "reported as such, not given a time.", ""]
    if fig:
        lines += [f"![validation]({fig})", ""]
    return lines


def write_report(out: Path, rows: list[Row], res: SystemResult, cfg: Config, swings: list[Swing],
                 base: dict[str, float | None], figs: list[Path], lat_path: Path | None, tpath: Path, rules: Rules,
                 cases: list[CaseResult] | None = None, case_paths: CasePaths | None = None,
                 vrows: list[VRow] | None = None, hrows: list[VRow] | None = None,
                 args: argparse.Namespace | None = None) -> None:
    p = res.paths
    leaves = cfg.tree.leaves
    assumptions = [(k, v["value"], v["source"]) for k, v in leaves.items() if "[A]" in str(v["source"])]
    ranged = [(k, v["value"], v["range"], v.get("range_source", "")) for k, v in leaves.items() if "range" in v]
    overrides = [(k, v["value"], v["source"]) for k, v in leaves.items() if str(v["source"]).startswith(("override", "measured"))]
    figname = lambda prefix: next((f.name for f in figs if f.name.startswith(prefix)), None)
    n = len(res.workloads)
    lines = [
        "# ScalePool system model: scoreboard and report", "",
        f"Hardware preset `{cfg.hardware_name}` ({cfg.hardware.accelerator.name}); {n} LLM workloads. Targets parsed "
        f"from `{tpath}`; verdict rules read from it: {rules.describe()}.",
        "Targets are never inputs: every parameter is listed with its source in `inputs.yaml`.", "",
        "## Scoreboard", "", RATIO_DEFINITION, "", md_table([r.cells() for r in rows], list(COLUMNS)), "",
        "Systems: " + "; ".join(f"{SHORT[k]} = {v}" for k, v in system_names(cfg).items()) + ".", "",
    ]
    if swings:
        lines += sensitivity_section([r for r in rows if r.section == HEADLINE_SECTION], swings, base, figname("tornado"),
                                     res.tiering.scored_pattern)
    if vrows:
        lines += validation_section(vrows, hrows or [], args.runs if args else Path("runs"),
                                    args.holdout if args else Path("holdout"), figname("validation"))
    lines += [
        "## Inputs", "",
        "- Fabric latencies: " + (f"measured on RTL from `{lat_path}` ({', '.join(sorted(cfg.measured.hops))})"
                                   if lat_path and cfg.measured is not None else
                                   f"cited parameters: this run read no co-simulation latency file (none at "
                                   f"`{out / 'cosim' / 'latency.json'}`; `make sim` writes it, or pass `--latencies-from FILE`)") + ".",
        "- Full resolved configuration with sources: `inputs.yaml` (reproduce with `--config inputs.yaml`).",
        f"- Overrides in this run: {len(overrides)}" + ("" if not overrides else ": " + "; ".join(f"`{k}`={v}" for k, v, _ in overrides)),
        "- Parameters with a plausible range (sensitivity):", "",
        md_table([[k, str(v), f"{_g(r[0])} to {_g(r[1])}", s] for k, v, r, s in ranged], ["parameter", "value", "range", "range source"]), "",
        "- Assumptions where the corpus has no number ([A] in the source):", "",
        md_table([[k, str(v), s] for k, v, s in assumptions], ["parameter", "value", "source"]), "",
        f"## Per-model training breakdown on `{cfg.hardware_name}` (seconds per iteration)", "",
        md_table(breakdown_rows(res), BREAKDOWN_HEADER), "",
        "TFLOP/s per accelerator counts hardware FLOPs (recomputation included, Narayanan et al.'s convention); "
        "MFU counts model FLOPs only (PaLM appendix B), HFU hardware FLOPs. Inter-cluster comm = PP and DP time that "
        "crosses racks (the quantity scored as SP-COMM). Offload: the baseline and accelerator clusters offload to "
        "host memory, ScalePool to the CXL pool.", "",
        "## Path latencies (ns, unloaded)", "",
        md_table([[k, f"{v:.1f}"] for k, v in p.as_dict().items()], ["path", "ns"]), "",
    ]
    if cases is not None and case_paths is not None:
        lines += case_section(rows, cases, case_paths, figname("case"), rules)
    shown = ("case", "tornado", "validation")
    lines += ["## Plots", ""] + [f"![{f.stem}]({f.name})" for f in figs if not f.name.startswith(shown)] + [""]
    if not any(f.name.startswith("cosim") for f in figs):
        lines += ["Latency CDFs from the co-simulation appear here once a latency file with samples exists.", ""]
    lines += ["## Known limitations", "",
              "- Training: no kernel-launch or framework overheads, no straggler or failure time; collectives run at "
              "measured nccl-tests bus bandwidth, compute at the measured maximum achievable matmul rate (optimistic "
              "for older software stacks, see the validation); context and expert parallelism are not modelled.",
              *limitations_of_this_run(cfg),
              "- Layouts the papers do not publish (Gopher degrees; micro-batches) are marked [A] in the workload file.",
              "- Case studies: the report gives almost no sizes, so most case rows are intervals or not derivable; the "
              "prototype's own link widths and switch count are unknown, so its paths use this system's CXL and IB "
              "parameters; storage and MPI/collective software layers are not modelled.", ""]
    (out / "report.md").write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
