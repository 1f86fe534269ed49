"""`python -m sim.cosim.run --out results/cosim`: co-simulate the rack edge, write latency.json.

Runs the reference configuration (one switch hop, light load: the system model is unloaded) and,
unless told not to, the same traffic through two switch hops and under load with back-pressure
(reported under `runs`, not used for the hops); writes `<out>/latency.json` (sim/system/measured.py format, picked
up by `python -m sim.report.run`), `<out>/run_<name>.json` (raw samples) and prints p50/p99 per path.
Knobs: `--set name=value` for any CosimCfg field (e.g. --set ready_p=0.5 --set pattern=uniform).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import asdict, fields, replace
from pathlib import Path

from sim.cosim.harness import CosimCfg
from sim.cosim.stats import latency_json
from sim.system.config import parse_scalar
from tools.runner import REPO, rtl_sources, run_cocotb

TOP = "sp_rack_edge"
SOURCES = ("edge/sp_rack_edge.v",)


def run_sim(cfg: CosimCfg, seed: int | None = None, parameters: dict | None = None) -> dict:
    """One simulation; returns the test's JSON (samples, counts, cycles, wall_s, seed, errors)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cosim.json"
        try:
            run_cocotb(top=TOP, sources=rtl_sources(*SOURCES), test_module="sim.cosim.tb_edge",
                       parameters=parameters or {}, name=TOP, seed=seed,
                       extra_env={"COSIM_CFG": cfg.to_json(), "COSIM_OUT": str(out)})
        finally:
            res = json.loads(out.read_text()) if out.exists() else None
        if res is None:
            raise RuntimeError("co-simulation wrote no results")
        return res


def parse_sets(items: list[str]) -> dict:
    """`name=value` knobs of CosimCfg; values parsed like YAML, `sources` comma-separated."""
    names = {f.name for f in fields(CosimCfg)}
    out: dict = {}
    for it in items:
        if "=" not in it:
            raise SystemExit(f"--set {it!r}: expected name=value")
        k, v = (t.strip() for t in it.split("=", 1))
        if k not in names:
            raise SystemExit(f"--set {k}: unknown knob (one of {', '.join(sorted(names))})")
        out[k] = tuple(v.split(",")) if k == "sources" else parse_scalar(v)
    return out


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("results/cosim"))
    ap.add_argument("--seed", type=int, default=None, help="reproduce a run (default: SEED or random)")
    ap.add_argument("--n", type=int, default=None, help="requests per bridge")
    ap.add_argument("--set", action="append", default=[], help="CosimCfg knob name=value")
    ap.add_argument("--no-cascade", action="store_true", help="skip the two-switch-hop run")
    ap.add_argument("--no-loaded", action="store_true", help="skip the loaded (back-pressure) run")
    args = ap.parse_args(argv)
    cfg = replace(CosimCfg(), **parse_sets(args.set))
    if args.n:
        cfg = replace(cfg, n_per_bridge=args.n)
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


if __name__ == "__main__":
    sys.exit(main())
