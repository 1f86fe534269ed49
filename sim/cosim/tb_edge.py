"""cocotb test module of the rack-edge co-simulation (top: sp_rack_edge).

Knobs come from the environment: COSIM_CFG (JSON of sim.cosim.harness.CosimCfg), results go to
COSIM_OUT (JSON: samples per path, counts, cycles, wall time). The seed is cocotb's (printed; SEED=
reproduces it through tools.runner). End-of-test checks: every XLink request answered exactly
once, in order, with its tag/address; every memory-node request answered
once; every read, a bridge's or a peer's, returned a value it may legally return (the memory image
or a peer's write that was not overwritten before the read began: harness.LineHistory); no error
counter set in the bridges, the home agent, the switches or the memory nodes (store aliasing);
peers finished with no protocol error; every hop traced.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import cocotb

from sim.cosim.harness import CosimCfg, EdgeHarness
from tb.common.seeds import announce_seed

BAD_COUNTERS = ("nxm_read", "nxm_write", "nxm_no_response", "unknown_dpid", "unexpected_rsp", "misrouted",
                "bad_direction", "bad_opcode", "unsupported", "rx_disabled", "egress_disabled", "cfg_rejected")


@cocotb.test(timeout_time=3000, timeout_unit="us")
async def cosim_run(dut) -> None:
    seed = announce_seed(dut._log)          # cocotb's per-test seed, derived from the base seed
    base_seed = int(os.environ.get("COCOTB_RANDOM_SEED", seed))
    dut._log.info(f"base seed {base_seed}: reproduce with SEED={base_seed}")
    cfg = CosimCfg.from_json(os.environ.get("COSIM_CFG", ""))
    dut._log.info(f"cosim config: {cfg.to_json()}")
    h = EdgeHarness(dut, cfg, seed)
    h.build_streams()
    await h.start()
    t0 = time.perf_counter()
    c0 = h.cyc
    cycles = await h.run()
    wall = time.perf_counter() - t0
    samples, counts, trace_err = h.collect()
    errors = list(h.errors) + trace_err

    # every request answered exactly once (responses are matched in order; leftovers are errors)
    n_req = sum(len(r) for r in h.reqs)
    n_rsp = sum(1 for r in h.reqs for x in r if x.t_rsp >= 0)
    if n_rsp != n_req or any(h.outst) or any(h.pending):
        errors.append(f"{n_req} requests, {n_rsp} answered, {sum(map(len, h.outst))} outstanding")
    for b in range(h.nbr):
        if (int(dut.br_stat_err.value) >> (16 * b)) & 0xFFFF:
            errors.append(f"bridge {b}: stat_err set")
        if (int(dut.br_stat_proto_err.value) >> (16 * b)) & 0xFFFF:
            errors.append(f"bridge {b}: stat_proto_err set")
    if int(dut.ha_err_count.value):
        errors.append(f"home agent error counters {int(dut.ha_err_count.value):#x}")
    if int(dut.err_bridge_h2d.value):
        errors.append("home agent snooped a bridge")
    if int(dut.mn_alias.value):
        errors.append(f"memory node store aliasing (MN_AW too small): {int(dut.mn_alias.value):#x}")
    for i, p in enumerate(h.peers):
        if any(p.dev.errors.values()) or p.dev.txns:
            errors.append(f"peer {i}: errors {p.dev.errors}, open transactions {p.dev.txns}")
    sw = {"A": await h.counters(0)}
    if cfg.mode == "cascade":
        sw["B"] = await h.counters(1)
    for name, c in sw.items():
        bad = {k: c[k] for k in BAD_COUNTERS if c[k]}
        if bad:
            errors.append(f"switch {name} error counters: {bad}")
    m2s = sum(len(h.taps[6 * b + k].events) for b in range(h.nbr) for k in (0, 1))
    if sw["A"]["forwarded_req"] != m2s:
        errors.append(f"switch A forwarded {sw['A']['forwarded_req']} requests, bridges sent {m2s}")

    counts.update({"requests": n_req, "responses": n_rsp, "switch_a_forwarded_req": sw["A"]["forwarded_req"]})
    counts.update(h.peer_counts())
    # every read (bridges' and peers') against the values it may legally return (harness.LineHistory)
    val_err, n_reads, n_peer_vals = h.hist.check()
    errors.extend(val_err[:20])
    counts.update({"reads_value_checked": n_reads, "reads_saw_peer_write": n_peer_vals})
    out = {"seed": base_seed, "test_seed": seed, "cfg": json.loads(cfg.to_json()), "cycles": cycles - c0, "wall_s": wall,
           "samples": samples, "counts": counts, "errors": errors}
    path = os.environ.get("COSIM_OUT")
    if path:
        Path(path).write_text(json.dumps(out))
    summary = {k: (min(v), sorted(v)[len(v) // 2], max(v), len(v)) for k, v in sorted(samples.items())}
    for k, v in summary.items():
        dut._log.info(f"{k:32s} min/p50/max/n {v}")
    dut._log.info(f"{cycles - c0} cycles in {wall:.1f} s; counts {counts}")
    assert not errors, "co-simulation checks failed:\n  " + "\n  ".join(errors[:20])
