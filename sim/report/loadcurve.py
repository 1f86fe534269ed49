"""Report section: RTL load curves (results/cosim/load_curve.*) and the contention they put on the
CXL port in the system model (sim/system/loadcurve.py). Appended to report.md when the co-simulation
sweep has run (`python -m sim.cosim.run --sweep`, part of `make sim`)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from sim.system.config import Config, ConfigError


def _md(rows: list[list[str]], header: list[str]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]


def section(out: Path, res, cfg: Config) -> list[str]:
    from sim.system.loadcurve import evaluate_loaded, LoadCurves
    csvp = out / "cosim" / "load_curve.csv"
    if not csvp.is_file():
        return []
    try:
        curves = LoadCurves.from_csv(csvp)
    except ConfigError as exc:
        return ["## Load curves (RTL co-simulation)", "", f"Not used: {exc}", ""]
    lines = ["## Load curves (RTL co-simulation)", "",
             f"Measured on `sp_rack_edge` ({curves.top} top) by `python -m sim.cosim.run --sweep`: per path, offered "
             "load (requests per cycle per bridge, open-loop arrivals on both bridges) against achieved throughput "
             "and latency from arrival (cycles = ns at 1 GHz); knee = last point before throughput stops following "
             "the load or p99 doubles; saturation as a fraction of the 64 B/cycle link rate.", ""]
    js = out / "cosim" / "load_curve.json"
    if js.is_file():
        summ = json.loads(js.read_text())
        rows = []
        for top, s in summ.items():
            for p, v in s.get("paths", {}).items():
                rows.append([top, p, str(v["unloaded_p50"]), str(v["knee_offered_per_bridge"]), str(v["knee_p99"]),
                             str(v["saturation_fraction_of_link_rate"])])
        lines += _md(rows, ["top", "path", "light-load p50", "knee (req/cycle/bridge)", "p99 at knee",
                            "saturation (of link rate)"]) + [""]
    png = out / "cosim" / "load_curve.png"
    if png.is_file():
        shutil.copyfile(png, out / "cosim_load_curve.png")
        lines += ["![load curves](cosim_load_curve.png)", ""]
    loaded = evaluate_loaded(res.workloads, cfg, curves, ("acc_clusters", "scalepool"))
    rows = []
    for w in res.workloads:
        for s in ("acc_clusters", "scalepool"):
            ld = loaded[w.key][s]
            rows.append([w.key, s, f"{ld.unloaded.total:.3f}", f"{ld.it.total:.3f}", f"{ld.util:.3f}",
                         f"{ld.step_delay_ns:.0f}", f"{ld.offload_bw / 1e9:.1f}", f"{ld.collective_bw / 1e9:.1f}"])
    lines += ["### Contention on the CXL port (not scored)", "",
              "Each flow's bandwidth and the collective step latency read from the curves at the load the "
              "iteration offers (offload and inter-rack collectives sharing each GPU's CXL port; "
              "sim/system/README.md, 'Load curves').", ""]
    lines += _md(rows, ["model", "system", "unloaded s", "loaded s", "port load", "step delay ns",
                        "offload GB/s", "collective GB/s"]) + [""]
    return lines


def append_section(out: Path, res, cfg: Config) -> None:
    lines = section(out, res, cfg)
    if lines:
        rep = out / "report.md"
        rep.write_text(rep.read_text(encoding="utf-8") + "\n" + "\n".join(lines), encoding="utf-8")
