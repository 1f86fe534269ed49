"""Report section: RTL load curves (results/cosim/load_curve.*) and the contention they put on the
CXL port in the system model (sim/system/loadcurve.py). Appended to report.md when the co-simulation
sweep has run (`python -m sim.cosim.run --sweep`, part of `make sim`)."""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

from sim.config import Config, ConfigError


def _md(rows: list[list[str]], header: list[str]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]


def section(out: Path, res, cfg: Config) -> list[str]:
    from sim.system.loadcurve import LoadCurves, loaded_iteration
    from sim.system.training import iteration_time
    csvp = out / "cosim" / "load_curve.csv"
    curves = getattr(cfg, "load_curves", None)
    if curves is None and not csvp.is_file():
        return []
    if curves is None:
        try:
            curves = LoadCurves.from_csv(csvp)
        except ConfigError as exc:
            return ["## Load curves (RTL co-simulation)", "", f"Not used: {exc}", ""]
    lines = ["## Load curves (RTL co-simulation)", "",
             f"Measured on `sp_rack_edge` by `python -m sim.cosim.run --sweep` (`{curves.path}`; the model uses the "
             f"{curves.top} top): per path, offered load (requests per cycle per bridge, open-loop arrivals on both "
             "bridges) against achieved throughput and latency from arrival (cycles = ns at 1 GHz); knee = last point "
             "before throughput stops following the load or p99 doubles; saturation as a fraction of the 64 B/cycle "
             "link rate.", ""]
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
    rows = []
    for w in res.workloads:
        for s in ("acc_clusters", "scalepool"):
            base = iteration_time(w, cfg, s)
            it, ld = loaded_iteration(w, cfg, s, curves)
            if not math.isfinite(base.total):
                continue
            rows.append([w.key, s, f"{base.total:.3f}", f"{it.total:.3f}", f"{ld.util:.3f}",
                         f"{ld.step_delay_ns:.0f}", f"{ld.offload_bw / 1e9:.1f}", f"{ld.collective_bw / 1e9:.1f}"])
    used = "the scored results above use these loaded times" if getattr(cfg, "load_curves", None) is not None else \
        "not used by the scored results (no curves given to the configuration)"
    lines += ["### Contention on the CXL port", "",
              "Each flow's bandwidth and the collective step latency read from the curves at the load the "
              "iteration offers (offload and collectives across domains sharing each accelerator's CXL port; "
              f"sim/system/README.md, 'RTL load curves'); {used}.", ""]
    lines += _md(rows, ["model", "system", "unloaded s", "loaded s", "port load", "step delay ns",
                        "offload GB/s", "collective GB/s"]) + [""]
    return lines


def append_section(out: Path, res, cfg: Config) -> None:
    lines = section(out, res, cfg)
    if lines:
        rep = out / "report.md"
        rep.write_text(rep.read_text(encoding="utf-8") + "\n" + "\n".join(lines), encoding="utf-8")
