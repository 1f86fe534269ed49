"""`python -m sim.report.run [--out results] [--set key=value ...] [--config file]`

Runs the system model for the five LLMs, the tiering sweep and the report's case studies, scores
them against targets.md sections 1-4, prints the scoreboard and writes into --out:
scoreboard.csv, report.md, inputs.yaml (the resolved configuration with every source),
training_breakdown.csv, tiering.csv and PNG plots.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import sys
import time
from pathlib import Path

import yaml

from sim.report import plots
from sim.report.score import COLUMNS, Row, score
from sim.report.targets import load_targets, targets_path
from sim.system.cases import CasePaths, CaseResult, build_case_config, run_cases
from sim.system.config import Config, ConfigError
from sim.system.model import TIERING_YAML, SystemResult, run_system, speedups
from sim.traffic.cases import CASES_YAML
from sim.system.training import SYSTEMS
from sim.traffic.llm import LLM_YAML

WHAT_IFS = [  # (label, overrides): sensitivity rows in the report, never used for scoring
    ("2 CXL x16 ports per GPU", {"topology.cxl_ports_per_gpu": 2}),
    ("4 CXL x16 ports per GPU", {"topology.cxl_ports_per_gpu": 4}),
    ("IB NIC 800 Gb/s per GPU", {"ib.nic_gbps": 100.0}),
    ("compute efficiency 0.5", {"gpu.compute_efficiency": 0.5}),
    ("CXL switch 200 ns", {"cxl.switch_latency_ns": 200.0}),
]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m sim.report.run", description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="results", help="output directory (default: results)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a parameter, e.g. --set cxl.switch_latency_ns=150 (repeatable)")
    ap.add_argument("--config", type=Path, help="YAML file of overrides (same tree as system.yaml)")
    ap.add_argument("--workload", type=Path, default=LLM_YAML, help="LLM workload YAML")
    ap.add_argument("--tiering", type=Path, default=TIERING_YAML, help="tiering sweep YAML")
    ap.add_argument("--cases", type=Path, default=CASES_YAML, help="case-study profiles YAML (targets.md section 4)")
    ap.add_argument("--latencies-from", type=Path, default=None,
                    help="co-simulation latency JSON (default: <out>/cosim/latency.json if it exists)")
    ap.add_argument("--no-whatif", action="store_true", help="skip the sensitivity runs")
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
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow(r.cells())


def write_inputs(cfg: Config, args: argparse.Namespace, tpath: Path, measured_path: Path | None, path: Path) -> None:
    doc = {
        "command": "python -m sim.report.run " + " ".join(sys.argv[1:]),
        "notes": cfg.notes,
        "targets_file": {"path": str(tpath), "sha256": hashlib.sha256(tpath.read_bytes()).hexdigest()},
        "workload_file": str(args.workload), "tiering_file": str(args.tiering), "cases_file": str(args.cases),
        "latencies_from": str(measured_path) if measured_path else None,
        "parameters": cfg.as_tree(),
    }
    path.write_text("# Resolved inputs of this run; reproduce with: python -m sim.report.run --config <this file>\n"
                    + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=140), encoding="utf-8")


def breakdown_rows(res: SystemResult) -> list[list[str]]:
    out = []
    for w in res.workloads:
        for s in SYSTEMS:
            it = res.training[w.key][s]
            out.append([w.display, s, f"{it.total:.3f}", f"{it.computation:.3f}", f"{it.communication:.3f}",
                        f"{it.other:.3f}", f"{it.tp:.3f}", f"{it.pp:.3f}", f"{it.dp_total:.3f}", f"{it.dp_exposed:.3f}",
                        f"{it.bubble:.3f}", f"{it.offload_exposed:.3f}", f"{it.inter_cluster_comm:.3f}"])
    return out


BREAKDOWN_HEADER = ["model", "system", "total s", "compute s", "comm s", "other s", "TP s", "PP s", "DP total s",
                    "DP exposed s", "bubble s", "offload exposed s", "inter-cluster comm s"]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    lat_path = args.latencies_from
    if lat_path is None and (out / "cosim" / "latency.json").is_file():
        lat_path = out / "cosim" / "latency.json"
    print(f"[1/5] configuration (workload {args.workload}, latencies: {lat_path or 'cited parameters'})", flush=True)
    try:
        cfg, measured = build_case_config(args.config, args.set, args.workload, args.tiering, lat_path, args.cases)
        print("[2/5] system model: 5 LLMs x 3 systems, tiering sweep, case studies", flush=True)
        res = run_system(cfg)
        case_paths, cases = run_cases(cfg)
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    tpath = targets_path()
    print(f"[3/5] scoring against {tpath}", flush=True)
    rows = score(load_targets(tpath), res, cfg, cases)
    whatif = []
    if not args.no_whatif:
        print(f"[4/5] what-if sensitivity ({len(WHAT_IFS)} runs)", flush=True)
        for label, vals in WHAT_IFS:
            r2 = run_system(cfg.with_values(vals))
            sp = speedups(r2.training)
            whatif.append([label, f"{sum(sp.values()) / len(sp):.2f}", f"{max(sp.values()):.2f}"])
    print("[5/5] writing report", flush=True)
    write_scoreboard(rows, out / "scoreboard.csv")
    write_inputs(cfg, args, tpath, lat_path, out / "inputs.yaml")
    with open(out / "training_breakdown.csv", "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([BREAKDOWN_HEADER] + breakdown_rows(res))
    with open(out / "tiering.csv", "w", newline="", encoding="utf-8") as fh:
        wr = csv.writer(fh)
        wr.writerow(["pattern", "working_set_bytes"] + list(SYSTEMS))
        for p, lat in res.tiering.latency.items():
            for i, ws in enumerate(res.tiering.ws_bytes):
                wr.writerow([p, f"{ws:.6g}"] + [f"{lat[s][i]:.2f}" for s in SYSTEMS])
    figs = [plots.plot_speedup(res, out), plots.plot_breakdown(res, out), plots.plot_tiering(res, out),
            plots.plot_cases(cases, case_paths, rows, out)]
    if measured is not None:
        f = plots.plot_cdfs(measured, out)
        if f:
            figs.append(f)
    write_report(out, rows, res, cfg, whatif, figs, lat_path, tpath, cases, case_paths)
    from sim.report.loadcurve import append_section   # RTL load curves, when the sweep has run
    append_section(out, res, cfg)
    header = ["id", "paper", "ours", "unit", "ratio", "verdict"]
    print()
    print(table([[r.id, r.paper[:28], c[3], r.unit, c[5], r.verdict] for r, c in ((r, r.cells()) for r in rows)], header))
    print(f"\nwrote {out}/scoreboard.csv, report.md, inputs.yaml ({time.perf_counter() - t0:.1f} s)")
    return 0


def case_section(rows: list[Row], cases: list[CaseResult], cp: CasePaths, fig: str | None) -> list[str]:
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
        "the value down, ±25 %; `not derivable` = the report lacks the inputs (sizes, compute rate).", "",
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


def write_report(out: Path, rows: list[Row], res: SystemResult, cfg: Config, whatif: list[list[str]],
                 figs: list[Path], lat_path: Path | None, tpath: Path, cases: list[CaseResult] | None = None,
                 case_paths: CasePaths | None = None) -> None:
    p = res.paths
    assumptions = [(k, v["value"], v["source"]) for k, v in cfg.leaves.items() if "[A]" in str(v["source"])]
    overrides = [(k, v["value"], v["source"]) for k, v in cfg.leaves.items() if str(v["source"]).startswith(("override", "measured"))]
    lines = [
        "# ScalePool system model: scoreboard and report", "",
        f"Targets parsed from `{tpath}`; verdict rules as stated there (point: within ±25 %; range/bound: in/out).",
        "Targets are never inputs: every parameter is listed with its source in `inputs.yaml`.", "",
        "## Scoreboard", "", md_table([r.cells() for r in rows], list(COLUMNS)), "",
        "## Inputs", "",
        f"- Fabric latencies: {'measured on RTL from `' + str(lat_path) + '`' if lat_path else 'cited parameters (no co-simulation results yet; `--latencies-from results/cosim/latency.json` replaces them)'}.",
        "- Full resolved configuration with sources: `inputs.yaml` (reproduce with `--config inputs.yaml`).",
        f"- Overrides in this run: {len(overrides)}" + ("" if not overrides else ": " + "; ".join(f"`{k}`={v}" for k, v, _ in overrides)),
        "- Assumptions where the corpus has no number ([A] in the source):", "",
        md_table([[k, str(v), s] for k, v, s in assumptions], ["parameter", "value", "source"]), "",
        "## Per-model training breakdown (seconds per iteration)", "",
        md_table(breakdown_rows(res), BREAKDOWN_HEADER), "",
        "Communication = TP + PP + exposed DP; other = pipeline bubble + exposed offload. Inter-cluster comm "
        "= PP and DP time that crosses racks (unoverlapped), the quantity scored as SP-COMM.", "",
        "## Path latencies (ns, unloaded)", "",
        md_table([[k, f"{v:.1f}"] for k, v in p.as_dict().items()], ["path", "ns"]), "",
    ]
    if cases is not None and case_paths is not None:
        fig = next((f.name for f in figs if f.name.startswith("case")), None)
        lines += case_section(rows, cases, case_paths, fig)
    if whatif:
        lines += ["## What-if sensitivity (not scored)", "",
                  md_table(whatif, ["change from defaults", "mean training speedup", "best model"]), ""]
    lines += ["## Plots", ""] + [f"![{f.stem}]({f.name})" for f in figs if not f.name.startswith("case")] + [""]
    if not any(f.name.startswith("cosim") for f in figs):
        lines += ["Latency CDFs from the co-simulation appear here once a latency file with samples exists.", ""]
    lines += ["## Known limitations", "",
              "- Unloaded latencies; no queuing or contention (offload and DP traffic share the CXL port in reality).",
              "- GPU/CPU on-chip paths are excluded (no source), so latency ratios are upper bounds and "
              "CAL-LOCAL-DRAM / CAL-CXL-ASIC land low.",
              "- NVSwitch and UALink switch latencies use the CXL-DMSim switch figure as a proxy.",
              "- Layouts the papers do not publish (GPT-3, Gopher degrees; micro-batches) are marked [A] in the workload file.",
              "- Case studies: the report gives almost no sizes, so most case rows are intervals or not derivable; the "
              "prototype's own link widths and switch count are unknown, so its paths use this system's CXL and IB "
              "parameters; storage and MPI/collective software layers are not modelled.", ""]
    (out / "report.md").write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
