"""Load curves per path: offered load from light to past saturation, measured on the RTL.

`python -m sim.cosim.run --sweep [--links 0|1]` runs, for each path, one stream per offered load
(open-loop Bernoulli arrivals on both bridges at `load` requests per cycle per bridge) in one
simulator process, checks every response against the reference memory, and writes
`<out>/load_curve.csv` (one row per top, path and point), `<out>/load_curve.json` (knees and
saturation throughputs) and `<out>/load_curve.png`.

Paths (the stream that exercises each, and the routing):
| path | stream | routing |
|---|---|---|
| bridge_hit | reads of 32 lines kept in each bridge's hot-line cache | one switch (unused) |
| t2_read_1sw | reads spread over the bridge's range (tier-2 misses) | HBR, switch A -> node 0 |
| t2_read_2sw | the same | two switches (message level: PBR; flit links: HBR cascade) |
| coh_read | reads of the coherent lines | home agent (CXL.cache) |
| posted_write | writes spread over the bridge's range | write buffer, drained to node 0 |

Per point: achieved throughput (responses per cycle per bridge over the span from the first
arrival to the last response; as a fraction of the 64 B/cycle link rate), and latency p50 / p99 /
p99.9 from arrival to response (queueing at the XLink port included), plus the service part
(from issue). Knee: the last point before throughput stops following the offered load (achieved
< 95 % of offered) or the p99 latency exceeds twice its light-load value, whichever comes first.
Saturation throughput: the highest achieved throughput of the sweep.
"""
from __future__ import annotations

import csv
import json
import time
from dataclasses import replace
from pathlib import Path

from sim.cosim.knobs import CosimCfg

PATHS = ("bridge_hit", "t2_read_1sw", "t2_read_2sw", "coh_read", "posted_write")
SOURCE = {"bridge_hit": "hit", "t2_read_1sw": "miss", "t2_read_2sw": "miss", "coh_read": "coh_read",
          "posted_write": "write"}
LOADS = (0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2, 0.3, 0.5, 1.0)
PER_POINT = 3000
KNEE_TPUT = 0.95           # achieved / offered below this: no longer following the load
KNEE_LAT = 2.0             # p99 above this multiple of the lightest point's p99
CSV_COLS = ("top", "path", "offered_per_bridge", "achieved_per_bridge", "fraction_of_link_rate", "n",
            "p50", "p99", "p999", "mean", "svc_p50", "svc_p99", "knee")


def mode_for(path: str, links: int) -> str:
    if path == "t2_read_2sw":
        return "cascade_hbr" if links else "cascade"
    return "direct"


def specs_for(path: str, links: int, loads, per_point: int, base: CosimCfg, seed: int):
    from sim.cosim.hilrun import RunSpec
    from sim.cosim.trace import generate
    out = []
    for i, ld in enumerate(loads):
        cfg = replace(base, sources=(SOURCE[path],), mode=mode_for(path, links), load=ld, n_per_bridge=per_point,
                      coh_lines=max(base.coh_lines, 1024) if path == "coh_read" else base.coh_lines)
        out.append(RunSpec(f"{path}-{i}", cfg, generate(cfg, seed + i)))
    return out


def knee(rows: list[dict]) -> dict | None:
    """The knee row of one path's sorted points (see module doc)."""
    if not rows:
        return None
    p99_0 = rows[0]["p99"]
    k = rows[0]
    for r in rows:
        if r["achieved_per_bridge"] < KNEE_TPUT * r["offered_per_bridge"] or r["p99"] > KNEE_LAT * p99_0:
            break
        k = r
    return k


def rows_from(plan, path: str, top: str) -> list[dict]:
    rows = []
    for r in plan.runs:
        s = r.paths.get(path)
        if s is None or r.errors:
            continue
        rows.append({"top": top, "path": path, "offered_per_bridge": r.throughput["offered_per_bridge"],
                     "achieved_per_bridge": round(r.throughput["requests_per_cycle_per_bridge"], 5),
                     "fraction_of_link_rate": round(r.throughput["fraction_of_link_rate"], 5), "n": s["n"],
                     "p50": s["p50"], "p99": s["p99"], "p999": s["p999"], "mean": round(s["mean"], 2),
                     "svc_p50": s["svc_p50"], "svc_p99": s["svc_p99"], "knee": 0})
    rows.sort(key=lambda x: x["offered_per_bridge"])
    k = knee(rows)
    if k is not None:
        k["knee"] = 1
    return rows


def _run_point(task: tuple) -> PlanResult:
    """One load point in its own simulator process (a Ray task: the worker builds or reuses the top)."""
    from sim.cosim.hilrun import run_plan
    links, specs, opt = task
    return run_plan(specs, links=links, opt=opt, log=lambda *a, **k: None)


def sweep(links: int, base: CosimCfg, paths=PATHS, loads=LOADS, per_point: int = PER_POINT, seed: int = 1,
          opt: str = "fast", log=print, engine: str | None = None) -> tuple[list[dict], dict]:
    """All paths on one top; returns (rows, summary with knees, saturation and speed).

    Local engine: every point in one simulator process (one start-up). Ray (`engine="ray"` or
    $ENGINE=ray, as `make sim ENGINE=ray` sets): one task per load point, the plans joined in order."""
    from sim.cosim.hilrun import PlanResult, run_plan
    from sim.engine import engine_name, map_tasks
    top = "flit" if links else "message"
    specs = []
    for p in paths:
        specs += specs_for(p, links, loads, per_point, base, seed)
    t0 = time.perf_counter()
    if engine_name(engine) == "ray":
        plans = map_tasks(_run_point, [(links, [sp], opt) for sp in specs], engine="ray",
                          desc=f"load points ({top} top)")
        plan = PlanResult([r for pl in plans for r in pl.runs], max(pl.build_s for pl in plans),
                          all(pl.build_cached for pl in plans), sum(pl.build_made_s for pl in plans),
                          sum(pl.sim_process_s for pl in plans), plans[0].params)
    else:
        plan = run_plan(specs, links=links, opt=opt, log=log)
    rows, summ = [], {"top": top, "paths": {}, "errors": []}
    for p in paths:
        pr = rows_from(type(plan)([r for r in plan.runs if r.name.startswith(p + "-")], plan.build_s,
                                  plan.build_cached, plan.build_made_s, plan.sim_process_s, plan.params), p, top)
        rows += pr
        k = knee(pr)
        summ["paths"][p] = {
            "knee_offered_per_bridge": k["offered_per_bridge"] if k else None,
            "knee_p50": k["p50"] if k else None, "knee_p99": k["p99"] if k else None,
            "unloaded_p50": pr[0]["p50"] if pr else None,
            "saturation_per_bridge": max((r["achieved_per_bridge"] for r in pr), default=None),
            "saturation_fraction_of_link_rate": max((r["fraction_of_link_rate"] for r in pr), default=None)}
    for r in plan.runs:
        summ["errors"] += [f"{r.name}: {e}" for e in r.errors[:5]]
    cyc = sum(r.cycles for r in plan.runs)
    loop = sum(r.loop_s for r in plan.runs)
    summ.update({"cycles": cyc, "loop_s": loop, "cycles_per_second": cyc / loop if loop else 0.0,
                 "requests": sum(r.counts.get("requests", 0) for r in plan.runs),
                 "reads_checked": sum(r.counts.get("reads", 0) for r in plan.runs),
                 "build_s": plan.build_s, "wall_s": time.perf_counter() - t0})
    return rows, summ


def write_csv(rows: list[dict], path: Path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r[k] for k in CSV_COLS})


def plot(rows: list[dict], path: Path) -> Path | None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if not rows:
        return None
    tops = sorted({r["top"] for r in rows})
    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    for top in tops:
        ls = "-" if top == "message" else "--"
        for i, p in enumerate(PATHS):
            pr = [r for r in rows if r["top"] == top and r["path"] == p]
            if not pr:
                continue
            col = f"C{i}"
            lab = f"{p} ({top})"
            axes[0].plot([r["offered_per_bridge"] for r in pr], [r["achieved_per_bridge"] for r in pr], ls,
                         color=col, marker="o", ms=3, label=lab)
            axes[1].plot([r["achieved_per_bridge"] for r in pr], [r["p99"] for r in pr], ls, color=col, marker="o",
                         ms=3, label=lab)
            k = [r for r in pr if r["knee"]]
            if k:
                axes[1].plot([k[0]["achieved_per_bridge"]], [k[0]["p99"]], "x", color=col, ms=9)
    axes[0].plot([0, 1], [0, 1], ":", color="grey", lw=0.8)
    axes[0].set_xlabel("offered load (requests / cycle / bridge)")
    axes[0].set_ylabel("achieved (requests / cycle / bridge)")
    axes[0].set_title("throughput")
    axes[1].set_xlabel("achieved (requests / cycle / bridge)")
    axes[1].set_ylabel("p99 latency from arrival (cycles = ns)")
    axes[1].set_yscale("log")
    axes[1].set_title("p99 latency vs throughput (x = knee)")
    axes[1].legend(fontsize=6, ncol=2)
    fig.suptitle("sp_rack_edge load curves (RTL co-simulation, 64 B requests, 1 GHz)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def sweep_main(args, cfg: CosimCfg) -> int:
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    tops = [args.links] if args.links is not None else [0, 1]
    paths = tuple(args.paths.split(",")) if args.paths else PATHS
    loads = tuple(float(x) for x in args.points.split(",")) if args.points else LOADS
    per_point = args.per_point or PER_POINT
    seed = args.seed if args.seed is not None else 1
    rows, summary = [], {}
    rc = 0
    for links in tops:
        r, s = sweep(links, cfg, paths, loads, per_point, seed, args.opt)
        rows += r
        summary["flit" if links else "message"] = s
        print(f"== load curves, {s['top']} top: {s['requests']} requests, {s['cycles']} cycles, "
              f"{s['cycles_per_second']:,.0f} cycles/s, {len(s['errors'])} errors")
        for p, v in s["paths"].items():
            print(f"   {p:<15} knee at {v['knee_offered_per_bridge']} req/cycle/bridge (p50 {v['knee_p50']}, "
                  f"p99 {v['knee_p99']}); saturation {v['saturation_per_bridge']} req/cycle/bridge "
                  f"= {v['saturation_fraction_of_link_rate']} of link rate; unloaded p50 {v['unloaded_p50']}")
        for e in s["errors"][:10]:
            print(f"   ERROR {e}")
        rc |= 1 if s["errors"] else 0
    write_csv(rows, out / "load_curve.csv")
    (out / "load_curve.json").write_text(json.dumps(summary, indent=1) + "\n")
    png = plot(rows, out / "load_curve.png")
    print(f"wrote {out / 'load_curve.csv'}, {out / 'load_curve.json'}" + (f", {png}" if png else ""))
    return rc
