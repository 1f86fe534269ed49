"""`python -m sim.cosim.run`: co-simulate the rack edge (rtl/edge/sp_rack_edge).

    python -m sim.cosim.run --out results/cosim                 # reference: hop latencies -> latency.json
    python -m sim.cosim.run --requests 1000000 [--links 1]      # one long run at speed, progress bar
    python -m sim.cosim.run --sweep [--links 1]                 # load curves -> load_curve.csv + plot
    python -m sim.cosim.run --requests 20000 --save-trace t.npz # keep the stream (columnar)
    python -m sim.cosim.run --replay t.npz                      # one stream into the RTL and the models

Reference mode (what `make sim` runs first): the cycle-by-cycle harness (sim.cosim.harness) on the
message-level top times every block boundary; light load, one switch hop, is the reference for
the system model's hop parameters (latency.json); two switch hops and a loaded run are reported
under `runs`. `--requests`, `--sweep` and `--replay` use the bulk harness (sim.cosim.hil: streams
and time stamps stay in the RTL, records come back in bulk) on an optimized build cached by RTL
content (`--links 1`: cxl_link pairs on every hop, 68B flits; `--casc-flit 256`: 256B PBR flits on
the cascade).

Knobs: `--set name=value` for any knob of sim.cosim.knobs (domains there). Every knob and option is
checked before anything builds; a bad value is a one-line error and exit status 2.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path

from sim.cosim.knobs import CosimCfg, KnobError, apply, parse_sets
from tools.runner import REPO

TOP = "sp_rack_edge"
SOURCES = ("edge/sp_rack_edge.v",)
DETAIL_PARAMS = {"MN_AW": 18}
DETAIL_SOURCES = ("tiering", "llm")


class OneLineParser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2), no usage dump."""

    def error(self, message: str) -> None:   # type: ignore[override]
        sys.stderr.write(f"error: {message} (see --help)\n")
        raise SystemExit(2)


def run_sim(cfg: CosimCfg, seed: int | None = None, parameters: dict | None = None) -> dict:
    """One cycle-by-cycle (detail harness) simulation; returns the test's JSON."""
    from tools.runner import rtl_sources, run_cocotb
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cosim.json"
        try:
            run_cocotb(top=TOP, sources=rtl_sources(*SOURCES), test_module="sim.cosim.tb_edge",
                       parameters=DETAIL_PARAMS if parameters is None else parameters, name=TOP, seed=seed,
                       extra_env={"COSIM_CFG": cfg.to_json(), "COSIM_OUT": str(out)})
        finally:
            res = json.loads(out.read_text()) if out.exists() else None
        if res is None:
            raise RuntimeError("co-simulation wrote no results")
        return res


def git_rev() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def print_paths(name: str, res: dict) -> None:
    from sim.cosim.stats import summary
    print(f"== {name}: {res['cycles']} cycles, {res['wall_s']:.1f} s wall, seed {res['seed']}")
    for k, v in sorted(res["samples"].items()):
        if v:
            s = summary(v)
            print(f"   {k:34s} p50 {s['p50_cycles']:6.0f}  p99 {s['p99_cycles']:6.0f}  n {s['n']}")


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, CosimCfg]:
    ap = OneLineParser(prog="python -m sim.cosim.run", description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("results/cosim"))
    ap.add_argument("--seed", type=int, default=None, help="reproduce a run (default: SEED or random)")
    ap.add_argument("--n", type=int, default=None, help="reference mode: requests per bridge (>= 1)")
    ap.add_argument("--set", action="append", default=[], help="knob name=value (sim.cosim.knobs)")
    ap.add_argument("--no-cascade", action="store_true", help="reference mode: skip the two-switch-hop run")
    ap.add_argument("--no-loaded", action="store_true", help="reference mode: skip the loaded run")
    ap.add_argument("--requests", type=int, default=None, help="bulk harness: total requests (>= 1)")
    ap.add_argument("--sweep", action="store_true", help="bulk harness: load curve per path")
    ap.add_argument("--replay", type=Path, default=None, help="bulk harness: replay this trace (.npz)")
    ap.add_argument("--save-trace", type=Path, default=None, help="write the generated stream (.npz)")
    ap.add_argument("--links", type=int, default=None, help="bulk harness: 0 message-level top, 1 cxl_link hops "
                    "(default 0; the sweep runs both unless given)")
    ap.add_argument("--casc-flit", type=int, default=68, help="flit size on the cascade hop with --links 1: 68 or 256")
    ap.add_argument("--opt", default="fast", help="bulk harness build: fast (-O2, cached) or debug (-O0)")
    ap.add_argument("--points", type=str, default=None, help="sweep: comma-separated offered loads")
    ap.add_argument("--paths", type=str, default=None, help="sweep: comma-separated paths")
    ap.add_argument("--per-point", type=int, default=None, help="sweep: requests per bridge per point (>= 1)")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--knobs", action="store_true", help="list every knob with its domain and exit")
    args = ap.parse_args(argv)
    if args.knobs:
        from sim.cosim.knobs import describe
        for k, dom, unit, doc in describe():
            print(f"{k:14} {dom}" + (f" [{unit}]" if unit else "") + (f": {doc}" if doc else ""))
        raise SystemExit(0)
    try:
        cfg = apply(CosimCfg(), parse_sets(args.set))
    except KnobError as exc:
        ap.error(str(exc))
    for name in ("n", "requests", "per_point"):
        v = getattr(args, name)
        if v is not None and v < 1:
            ap.error(f"--{name.replace('_', '-')} {v}: must be >= 1")
    if args.requests is not None and args.requests > 2 * 16_777_215:
        ap.error(f"--requests {args.requests}: at most {2 * 16_777_215} (24-bit request numbers per bridge)")
    if args.links not in (None, 0, 1):
        ap.error(f"--links {args.links}: 0 or 1")
    if args.casc_flit not in (68, 256):
        ap.error(f"--casc-flit {args.casc_flit}: 68 or 256")
    if args.opt not in ("fast", "debug"):
        ap.error(f"--opt {args.opt!r}: fast or debug")
    modes = [m for m in ("requests", "sweep", "replay") if getattr(args, m) not in (None, False)]
    if len(modes) > 1:
        ap.error(f"--{' and --'.join(modes)}: choose one")
    if args.save_trace is not None and args.requests is None:
        ap.error("--save-trace goes with --requests (the stream it generates)")
    if args.replay is not None and not args.replay.exists():
        ap.error(f"--replay {args.replay}: no such file")
    if args.n is not None:
        cfg = replace(cfg, n_per_bridge=args.n)
    links = args.links or 0
    if cfg.mode == "cascade" and links == 1 and args.casc_flit == 68 and (modes or args.links is not None):
        ap.error("mode=cascade (PBR) needs PBR fields on the cascade hop, which 68B flits lack: "
                 "use mode=cascade_hbr, --casc-flit 256, or --links 0")
    if cfg.ber > 0 and links == 0 and (modes or args.links is not None):
        ap.error(f"ber={cfg.ber}: bit errors need flit links (--links 1)")
    if not modes and any(s not in DETAIL_SOURCES for s in cfg.sources):
        ap.error(f"sources={','.join(cfg.sources)}: the reference harness takes {', '.join(DETAIL_SOURCES)}")
    if args.points:
        try:
            pts = [float(x) for x in args.points.split(",")]
        except ValueError:
            ap.error(f"--points {args.points!r}: comma-separated numbers")
        bad = [p for p in pts if not 0.001 <= p <= 1.0]
        if bad:
            ap.error(f"--points: {bad[0]} outside [0.001, 1] requests per cycle per bridge")
    if args.paths:
        from sim.cosim.loadcurve import PATHS
        bad = [p for p in args.paths.split(",") if p not in PATHS]
        if bad:
            ap.error(f"--paths: {bad[0]!r} is not one of {', '.join(PATHS)}")
    return args, cfg


def reference(args: argparse.Namespace, cfg: CosimCfg) -> int:
    from sim.cosim.stats import latency_json
    args.out.mkdir(parents=True, exist_ok=True)
    ref = run_sim(replace(cfg, mode="direct"), args.seed)
    (args.out / "run_direct.json").write_text(json.dumps(ref))
    print_paths("direct (one switch hop)", ref)
    runs = {}
    extra = [] if args.no_cascade else [("cascade", "two switch hops, PBR", {"mode": "cascade"})]
    if not args.no_loaded:
        extra.append(("loaded", "one switch hop, busy sources and XLink back-pressure",
                      {"mode": "direct", "idle_p": 0.3, "ready_p": 0.7}))
    for name, what, knobs in extra:
        res = run_sim(replace(cfg, **knobs), ref["seed"])
        (args.out / f"run_{name}.json").write_text(json.dumps(res))
        print_paths(f"{name} ({what})", res)
        runs[name] = res["samples"]
    notes = [f"seed {ref['seed']}; knobs {json.dumps(asdict(replace(cfg, mode='direct')))}",
             "hop p50/p99 are RTL core cycles; measured.py adds the `plus` port figures from system.yaml",
             "far/* paths are the memory nodes' own time and peer/* the testbench devices' answer time: "
             "both excluded from the fabric paths"]
    lj = latency_json(ref["samples"], f"sp_rack_edge co-simulation (git {git_rev()}, seed {ref['seed']})",
                      notes, runs)
    path = args.out / "latency.json"
    path.write_text(json.dumps(lj, indent=1) + "\n")
    for k, h in lj["hops"].items():
        print(f"   hop {k:24s} p50 {h['p50_cycles']:.0f} / p99 {h['p99_cycles']:.0f} cycles + ports {h['plus']}")
    print(f"wrote {path}")
    return 0


def print_run(r, plan) -> None:
    print(f"== {r.name}: {r.counts.get('requests', 0)} requests, {r.cycles} cycles in {r.loop_s:.1f} s "
          f"({r.cycles_per_second:,.0f} cycles/s, {r.cycles_per_cpu_second:,.0f} per CPU second; "
          f"in-loop Python {r.python_s:.1f} s, setup {r.setup_s:.1f} s, "
          f"check {r.check_s:.1f} s); build {'cached' if plan.build_cached else f'{plan.build_s:.0f} s'}")
    c = r.counts
    print(f"   data check: {c.get('reads', 0)} reads ({c.get('read_image', 0)} unwritten, {c.get('read_own_latest', 0)} "
          f"own latest write, {c.get('read_other_bridge', 0)} other bridge's write, {c.get('coherent_reads', 0)} "
          f"coherent), {c.get('writes', 0)} writes, {c.get('errors', len(r.errors))} errors")
    print(f"   retries {r.retries}, underrun cycles {r.underrun_cycles}, harness stall cycles {r.harness_stall_cycles}")
    for p, s in sorted(r.paths.items()):
        print(f"   {p:<15} n {s['n']:8d}  p50 {s['p50']:6.0f}  p99 {s['p99']:6.0f}  p99.9 {s['p999']:6.0f}  "
              f"(service p50 {s['svc_p50']:.0f})")
    for e in r.errors[:10]:
        print(f"   ERROR {e}")


def bulk(args: argparse.Namespace, cfg: CosimCfg) -> int:
    from sim.cosim.hilrun import RunSpec, run_plan
    from sim.cosim.trace import generate
    seed = args.seed if args.seed is not None else int(time.time()) % 100000
    per_bridge = -(-args.requests // cfg.nbr)
    t0 = time.perf_counter()
    tr = generate(replace(cfg, n_per_bridge=per_bridge), seed)
    gen_s = time.perf_counter() - t0
    if args.save_trace:
        tr.save(args.save_trace)
        print(f"wrote {args.save_trace} ({len(tr)} requests)")
    casc = 1 if args.casc_flit == 256 else 0
    plan = run_plan([RunSpec("run", cfg, tr)], links=args.links or 0, casc_flit=casc, opt=args.opt,
                    progress=not args.no_progress, seed=seed)
    r = plan.runs[0]
    print(f"seed {seed}; stream generation {gen_s:.1f} s")
    print_run(r, plan)
    args.out.mkdir(parents=True, exist_ok=True)
    summary = {"seed": seed, "requests": len(tr), "links": args.links or 0,
               "cascade_flit": (256 if casc else 68) if args.links else None, "retries": r.retries, "cycles": r.cycles,
               "cycles_per_second": r.cycles_per_second, "cycles_per_cpu_second": r.cycles_per_cpu_second, "requests_per_second": len(tr) / r.loop_s if r.loop_s else 0,
               "wall_s": {"build": plan.build_s, "stream_generation": gen_s, "simulate": r.loop_s - r.python_s,
                          "python_in_loop": r.python_s, "setup": r.setup_s, "check": r.check_s,
                          "simulator_process": plan.sim_process_s},
               "paths": r.paths, "throughput": r.throughput, "counts": r.counts, "links": r.links,
               "errors": r.errors[:50], "cfg": asdict(cfg)}
    (args.out / "run_requests.json").write_text(json.dumps(summary, indent=1, default=str) + "\n")
    return 1 if r.errors else 0


def main(argv: list[str] | None = None) -> int:
    args, cfg = parse_args(argv)
    if args.sweep:
        from sim.cosim.loadcurve import sweep_main
        return sweep_main(args, cfg)
    if args.replay is not None:
        from sim.cosim.replay import replay_main
        return replay_main(args, cfg)
    if args.requests is not None:
        return bulk(args, cfg)
    return reference(args, cfg)


if __name__ == "__main__":
    sys.exit(main())
