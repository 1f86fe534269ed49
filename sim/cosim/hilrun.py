"""Host side of the hardware-in-the-loop co-simulation: build (cached), run a plan of streams in one
simulator process, check every response against the reference memory, and summarize.

    from sim.cosim.hilrun import RunSpec, run_plan
    res = run_plan([RunSpec("ref", cfg, trace)], links=1)
    res.runs[0].paths["t2_read_1sw"]["p99"]

Latency of a request, in cycles at the 1 GHz core clock: `lat` from its arrival (the stream's
offered time: includes waiting at the XLink port when the bridge is busy) to the first cycle its
response header is valid; `svc` from the first cycle its header was valid on the XLink port
(issue) to the same point. Paths come from the bridge's own classification of each request's line
(hit, miss to tier-2 over one or two switches, coherent read through the home agent, posted write).

Under ``COV=1`` the top is a coverage build (sim.cosim.build). A plan whose cocotb test and
reference-memory checks all passed leaves its ``coverage.dat`` as
``results/coverage/<build tag>__tb_hil-<runs>-<digest>.dat`` (tools.runner.keep_coverage; the
digest covers the pytest test and the plan, so every plan has its own file); a failing plan's
coverage is not kept, as for every RTL test. A run planned to fail (``RunSpec.expect``, fault
injection) passes for this when it fails as planned, so the fault paths count.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sim.cosim.build import build
from sim.cosim.check import check_run
from sim.cosim.hil import KIND_NAMES, REC_FIELDS
from sim.cosim.knobs import CosimCfg
from sim.cosim.trace import Trace
from tools.runner import REPO, failed_tests, keep_coverage, pick_seed, run_label, setup_verilator_env

TOP = "sp_edge_hil"
LINE_BYTES = 64
LINK_BYTES_PER_CYCLE = 64.0      # one 64 B line per cycle: XLink beat and cxl_link 68B flit payload (rtl/link README)


@dataclass
class RunSpec:
    name: str
    cfg: CosimCfg
    trace: Trace
    # a run planned to fail (a fault-injection test): regex its first error must match. Such a run
    # counts as passing for keeping the plan's coverage when it fails that way and only that way is
    # asked of it; the test that planned it checks the rest of its outcome.
    expect: str | None = None


def as_planned(sp: RunSpec, errors: list[str]) -> bool:
    """Whether a run ended as planned: no error, or, for a run planned to fail, a first error
    matching its `expect`."""
    if sp.expect is None:
        return not errors
    return bool(errors) and re.search(sp.expect, errors[0]) is not None


@dataclass
class RunResult:
    name: str
    cfg: CosimCfg
    cycles: int
    loop_s: float
    python_s: float
    setup_s: float
    check_s: float
    cpu_s: float
    counts: dict
    errors: list[str]
    paths: dict[str, dict[str, float]]
    throughput: dict[str, float]
    links: dict
    underrun_cycles: list[int]
    harness_stall_cycles: list[int]
    samples: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    records: dict[int, dict[str, np.ndarray]] = field(default_factory=dict, repr=False)   # per bridge (hil_port)

    @property
    def cycles_per_second(self) -> float:
        return self.cycles / self.loop_s if self.loop_s > 0 else 0.0

    @property
    def cycles_per_cpu_second(self) -> float:
        return self.cycles / self.cpu_s if self.cpu_s > 0 else 0.0

    @property
    def retries(self) -> int:
        return sum(v["retry"] for v in self.links.values())


@dataclass
class PlanResult:
    runs: list[RunResult]
    build_s: float
    build_cached: bool
    build_made_s: float
    sim_process_s: float           # wall time of the simulator process (start-up included)
    params: dict


def path_of(kind: np.ndarray, mode: str) -> np.ndarray:
    t2 = "t2_read_1sw" if mode == "direct" else "t2_read_2sw"
    names = np.array([t2, "bridge_hit", "read_wbfwd", "coh_read", "posted_write", "posted_write",
                      "posted_write", "coh_write"])
    return names[kind.astype(np.int64)]


def pct(x: np.ndarray, p: float) -> float:
    """Nearest-rank percentile (a value that occurred)."""
    s = np.sort(x)
    k = max(1, int(np.ceil(p / 100.0 * len(s))))
    return float(s[k - 1])


def summarize(x: np.ndarray) -> dict[str, float]:
    return {"n": int(len(x)), "p50": pct(x, 50), "p99": pct(x, 99), "p999": pct(x, 99.9),
            "mean": float(np.mean(x)), "max": float(np.max(x))}


def analyse(spec: RunSpec, rec: dict[str, dict[str, np.ndarray]], t_run: int) -> tuple[dict, dict, dict]:
    """Per-path latency summaries, throughput and raw samples of one run."""
    lat_all, svc_all, path_all = [], [], []
    span_lo, span_hi, n_done = [], [], 0
    for b in spec.trace.bridges():
        s = spec.trace.of(b)
        r = rec[b]
        arrival = t_run + np.cumsum(s["gap"].astype(np.int64))
        lat_all.append(r["t_rsp"] - arrival)
        svc_all.append(r["t_rsp"] - r["t_issue"])
        path_all.append(path_of(r["kind"], spec.cfg.mode))
        span_lo.append(int(arrival[0]))
        span_hi.append(int(r["t_rsp"].max()))
        n_done += len(r["t_rsp"])
    lat, svc, path = np.concatenate(lat_all), np.concatenate(svc_all), np.concatenate(path_all)
    paths, samples = {}, {}
    for p in sorted(set(path.tolist())):
        sel = path == p
        paths[p] = {**summarize(lat[sel]), **{f"svc_{k}": v for k, v in summarize(svc[sel]).items() if k != "n"}}
        samples[p] = lat[sel]
    cycles = max(span_hi) - min(span_lo) + 1
    nb = len(spec.trace.bridges())
    per_bridge = n_done / cycles / nb
    thr = {"requests_per_cycle": n_done / cycles, "requests_per_cycle_per_bridge": per_bridge,
           "offered_per_bridge": float(spec.trace.meta.get("load", spec.cfg.load)),
           "fraction_of_link_rate": per_bridge * LINE_BYTES / LINK_BYTES_PER_CYCLE, "span_cycles": cycles}
    return paths, thr, samples


def plan_digest(specs: list[RunSpec], params: dict) -> str:
    """Digest of what a plan runs (parameters, each run's name, knobs and stream; not the cocotb seed,
    which the streams do not use), so the same plan keeps the same coverage file name."""
    h = hashlib.sha1(f"{sorted(params.items())}".encode())
    for sp in specs:
        h.update(f"\0{sp.name}\0{sp.cfg.to_json()}\0".encode())
        for c in ("bridge", "gap", "write", "line", "coherent", "kind"):
            h.update(np.ascontiguousarray(getattr(sp.trace, c)).tobytes())
    return h.hexdigest()


def run_plan(specs: list[RunSpec], links: int = 0, casc_flit: int = 0, opt: str = "fast",
             progress: bool = False, keep: Path | None = None, seed: int | None = None,
             log=print) -> PlanResult:
    """Build (cached) and run `specs` in one simulator process; check and summarize each run."""
    from cocotb_tools.runner import get_runner

    params = {"LINKS": links, "CASC_FLIT": casc_flit, "MN_AW": 18}
    b = build("cocotb", TOP, params, opt, log=log)
    setup_verilator_env()
    work = Path(tempfile.mkdtemp(prefix="hil-", dir=keep)) if keep else Path(tempfile.mkdtemp(prefix="hil-"))
    try:
        plan = {"progress": progress, "runs": []}
        for sp in specs:
            tpath = sp.trace.save(work / f"{sp.name}.trace.npz")
            plan["runs"].append({"name": sp.name, "cfg": json.loads(sp.cfg.to_json()), "trace": str(tpath),
                                 "records": str(work / f"{sp.name}.rec.npz")})
        (work / "plan.json").write_text(json.dumps(plan))
        out = work / "out.json"
        runner = get_runner("verilator")
        t0 = time.perf_counter()
        env = {"COSIM_PLAN": str(work / "plan.json"), "COSIM_OUT": str(out),
               "COCOTB_LOG_LEVEL": os.environ.get("COCOTB_LOG_LEVEL", "WARNING")}
        saved = os.environ.pop("PYTEST_CURRENT_TEST", None)
        try:
            runner.test(test_module="sim.cosim.tb_hil", hdl_toplevel=TOP, hdl_toplevel_lang="verilog",
                        build_dir=str(b.dir), test_dir=str(work),
                        seed=pick_seed(seed), extra_env=env, results_xml=str(work / "results.xml"),
                        timescale=("1ns", "1ps"))
        finally:
            if saved is not None:
                os.environ["PYTEST_CURRENT_TEST"] = saved
        sim_s = time.perf_counter() - t0
        if not out.exists():
            raise RuntimeError(f"co-simulation wrote no results (simulator crash?), see {work}")
        res = json.loads(out.read_text())
        runs = []
        for sp, rr in zip(specs, res["runs"]):
            t1 = time.perf_counter()
            z = np.load(work / f"{sp.name}.rec.npz")
            rec = {bb: {k: z[f"b{bb}_{k}"] for k in REC_FIELDS} for bb in range(res["nbr"])}
            bridges = sp.trace.bridges()
            chk = check_run([sp.trace.of(bb) for bb in bridges], [rec[bb] for bb in bridges])
            paths, thr, samples = analyse(sp, rec, int(z["t_run"])) if not chk.n_errors else ({}, {}, {})
            kinds = {KIND_NAMES[k]: int(np.sum(np.concatenate([rec[bb]["kind"] for bb in bridges]) == k))
                     for k in range(8)}
            runs.append(RunResult(sp.name, sp.cfg, rr["cycles"], rr["loop_s"], rr["python_s"], rr["setup_s"],
                                  time.perf_counter() - t1, rr["cpu_s"], {**chk.counts, "line_kinds": kinds},
                                  rr["errors"] + chk.errors, paths, thr, rr["links"], rr["underrun_cycles"],
                                  rr["harness_stall_cycles"], samples, {bb: rec[bb] for bb in bridges}))
        n, failed = failed_tests(work / "results.xml") if (work / "results.xml").exists() else (0, ["?"])
        planned = all(as_planned(sp, r.errors) for sp, r in zip(specs, runs))
        # the cocotb test fails on any run's error, so a plan with a run planned to fail passes when
        # every run ended as planned and only runs planned to fail have errors
        passed = not failed or (planned and any(sp.expect is not None for sp in specs))
        if b.coverage and n and passed and planned:
            # passing: the cocotb test (in-RTL checks, error counters, links) and the reference-memory
            # check of every run, or every run ending as planned. cocotb's C++ main writes
            # coverage.dat into the run directory (`work`) when the simulation ends.
            name = run_label("sim.cosim.tb_hil", "+".join(sp.name for sp in specs), plan_digest(specs, params))
            if keep_coverage(work, b.tag, name) is None:
                raise RuntimeError(f"coverage build {b.tag}: the passing run wrote no coverage.dat, see {work}")
        if failed and not any(r.errors for r in runs):
            raise RuntimeError(f"co-simulation test failed ({', '.join(failed)}), see {work}")
        return PlanResult(runs, b.seconds, b.cached, b.build_seconds, sim_s, params)
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


def main() -> int:     # pragma: no cover - manual smoke entry
    from sim.cosim.trace import generate
    cfg = CosimCfg(n_per_bridge=int(sys.argv[1]) if len(sys.argv) > 1 else 2000, load=0.2)
    r = run_plan([RunSpec("smoke", cfg, generate(cfg, 1))], progress=True)
    for run in r.runs:
        print(run.name, run.cycles, f"{run.cycles_per_second:.0f} cyc/s", run.counts, run.errors[:5])
        for p, s in run.paths.items():
            print(f"  {p:<15} {s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
