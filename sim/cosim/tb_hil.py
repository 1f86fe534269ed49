"""cocotb test module of the hardware-in-the-loop co-simulation (top: tb/edge/sp_edge_hil.v).

The plan comes from COSIM_PLAN (a JSON file written by sim.cosim.hilrun): a list of runs, each with
its knobs (sim.cosim.knobs.CosimCfg as JSON) and a request stream (npz: per bridge gap / write /
line). Each run resets the design, programs the switches, waits for the links, plays the streams
and reads back the records; records go to `<run>.rec.npz`, counters and timings to COSIM_OUT
(JSON). The reference-memory check and the statistics run afterwards in the host process
(sim.cosim.hilrun). The test fails on any block error counter, link failure or lost response;
every run is bounded (a fatal link, or no progress for 200k cycles beyond the longest arrival gap,
ends it with an error naming the lost requests; the records answered before are still checked).
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import cocotb
import numpy as np

from sim.cosim.hil import REC_FIELDS, Hil, HilStall, progress_bar
from sim.cosim.knobs import CosimCfg
from tb.common.seeds import announce_seed


@cocotb.test(timeout_time=50, timeout_unit="sec")      # simulated time: 5e10 cycles at 1 GHz
async def hil_run(dut) -> None:
    announce_seed(dut._log)          # the streams carry their own seeds (plan); printed for the record
    plan = json.loads(Path(os.environ["COSIM_PLAN"]).read_text())
    show = progress_bar() if plan.get("progress") else None
    hil = Hil(dut)
    out = {"runs": [], "ch": hil.ch, "nbr": hil.nbr, "links_in_top": hil.nlk}
    failures = []
    t_start = time.perf_counter()
    for run in plan["runs"]:
        cfg = CosimCfg.from_json(json.dumps(run["cfg"]))
        t0 = time.perf_counter()
        before = (hil.times.loop_s, hil.times.python_s, hil.times.setup_s, hil.times.cycles, hil.times.cpu_s)
        tr = np.load(run["trace"])
        per_bridge = []
        for b in range(hil.nbr):
            sel = tr["bridge"] == b
            per_bridge.append({"gap": tr["gap"][sel], "write": tr["write"][sel], "line": tr["line"][sel]})
        if show:
            dut._log.info(f"run {run['name']}: {int(sum(len(p['gap']) for p in per_bridge))} requests")
        stalled = []
        try:
            await hil.reset(cfg.t2_lat, cfg.ha_lat, cfg.ready_p, cfg.ber, cfg.ber_links, cfg.mode)
            hil.times.setup_s += time.perf_counter() - t0
            recs = await hil.run(per_bridge, progress=show)
        except HilStall as e:            # recorded as this run's error; the next run resets the top
            dut._log.error(f"run {run['name']}: {e}")
            recs, stalled = e.records, [str(e)]
        t_run = int(dut.t_run.value)
        errs, extra = await hil.errors(cfg.mode)
        errs = stalled + errs
        np.savez(run["records"], t_run=np.int64(t_run),
                 **{f"b{b}_{k}": recs[b][k] for b in range(hil.nbr) for k in REC_FIELDS})
        st = hil.status()
        out["runs"].append({
            "name": run["name"], "t_run": t_run, "errors": errs, **extra,
            "cycles": hil.times.cycles - before[3], "loop_s": hil.times.loop_s - before[0],
            "python_s": hil.times.python_s - before[1], "setup_s": hil.times.setup_s - before[2],
            "cpu_s": hil.times.cpu_s - before[4],
            "underrun_cycles": [s["underrun"] for s in st], "harness_stall_cycles": [s["cap_stall"] for s in st]})
        failures += [f"{run['name']}: {e}" for e in errs]
    out["sim_wall_s"] = time.perf_counter() - t_start
    Path(os.environ["COSIM_OUT"]).write_text(json.dumps(out))
    assert not failures, "co-simulation errors:\n  " + "\n  ".join(failures[:20])
