"""Fault soak through the switch (top tb/switch/hdl/soak_switch_tb.v), run by tb.soak.

Hosts, devices, faulty channels and checkers are HDL. Python sets the knobs, releases reset, waits
for every link to come up, programs the switch once through cfg_* (HBR: host ports USP, device
ports DSP, one HDM decoder interleaving the devices at 256 B), raises `go`, and then only wakes up
every `chunk` cycles to read the counters. The run ends when every host has sent its messages and
every message sent is accounted for at its checker (each request taken by a device answered and
each answer checked), on a fatal link error, when nothing is delivered for `stall_chunks` chunks,
or at `max_cycles` (so a hang fails instead of running forever); the counters, the switch's own
event counters and the verdict go to SOAK_OUT. Knobs come from SOAK_CFG (JSON, tb.soak.Point);
`expect` is "clean" (0 lost, duplicated, reordered, corrupted, no fatal link, the switch forwarded
exactly what the checkers counted and raised no error event) or a negative ("dup", "flip",
"skip": the fault injected past the link layer must show up at the checkers).
"""
from __future__ import annotations

import json
import os
import time

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, Timer

from tb.common.cfg_agent import CfgAgent
from tb.common.seeds import base_seed
from tb.link.tb_soak import check_negative, set_knobs, write_result
from tb.switch.regs import A_COUNT, COUNTERS as SW_COUNTERS, RESP_OK, ctrl, decoder, port

COUNTERS = ("q_sent", "q_ok", "q_uniq", "q_dup", "q_reord", "q_corrupt",
            "p_sent", "p_ok", "p_uniq", "p_dup", "p_reord", "p_corrupt",
            "c_flits", "c_err_flits", "c_bits", "c_bursts", "c_drops", "c_dups",
            "crc_err", "retry", "proto_err", "fatal", "overflow", "credit_err", "unsup", "hosts_done")
# switch events that must stay 0 in a clean soak (every message is legal and routable)
SW_ERRORS = ("nxm_read", "nxm_write", "nxm_no_response", "tag_conflict", "unknown_dpid",
             "unexpected_rsp", "misrouted", "bad_direction", "bad_opcode", "unsupported",
             "rx_disabled", "egress_disabled", "cfg_rejected")


def read(dut) -> dict[str, int]:
    return {k: int(getattr(dut, k).value) for k in COUNTERS}


def accounted(r: dict[str, int]) -> bool:
    """Every host is done, and every request and answer sent has reached its checker."""
    q_seen = r["q_uniq"] + r["q_dup"] + r["q_corrupt"]
    p_seen = r["p_uniq"] + r["p_dup"] + r["p_corrupt"]
    return bool(r["hosts_done"]) and q_seen >= r["q_sent"] and r["p_sent"] >= q_seen and p_seen >= r["p_sent"]


def verdict(r: dict[str, int], target: int) -> dict[str, int]:
    """`target` requests and as many answers are due; loss is what never arrived once."""
    return {"messages": r["q_uniq"] + r["p_uniq"], "requests": r["q_uniq"], "answers": r["p_uniq"],
            "sent": r["q_sent"] + r["p_sent"], "target": 2 * target,
            "lost": max(0, target - r["q_uniq"]) + max(0, target - r["p_uniq"]),
            "duplicated": r["q_dup"] + r["p_dup"], "reordered": r["q_reord"] + r["p_reord"],
            "corrupted": r["q_corrupt"] + r["p_corrupt"], "fatal": r["fatal"]}


def config(n: int, nh: int) -> list:
    """HBR, hosts on USPs 0..nh-1, devices on DSPs; one decoder, nd ways at 256 B over the DSPs."""
    nd = n - nh
    eiw = {1: 0, 2: 1, 4: 2}[nd]
    return ([ctrl(False)] + [port(p, 0 if p < nh else 1) for p in range(n)] +
            decoder(0, 0, nd, eiw, 0, tuple(range(nh, n))))


@cocotb.test(timeout_time=int(os.environ.get("SOAK_TIMEOUT_US", "600000")), timeout_unit="us")
async def soak(dut):
    cfg = json.loads(os.environ["SOAK_CFG"])
    seed = int(cocotb.RANDOM_SEED)
    dut._log.info(f"soak {cfg.get('name')}: random seed: reproduce with SEED={base_seed()} (knobs {cfg})")
    n, nh = len(dut.link_up.value), int(cfg.get("hosts", 2))
    Clock(dut.clk, 1, unit="ns").start()
    agent = CfgAgent(dut, resp_ok=RESP_OK)
    agent.idle()
    dut.rst.value = 1
    dut.go.value = 0
    set_knobs(dut, cfg, seed, ("inj_dup_at", "inj_flip_at", "inj_skip_at"))
    await ClockCycles(dut.clk, 8)
    dut.rst.value = 0
    # every link up (bounded), then the configuration, then traffic
    for _ in range(int(cfg.get("link_up_cycles", 20000)) // 100):
        await ClockCycles(dut.clk, 100)
        if int(dut.link_up.value) == int(dut.partner_up.value) == (1 << n) - 1:
            break
    else:
        raise AssertionError(f"links not up: switch {int(dut.link_up.value):#x}, partners {int(dut.partner_up.value):#x}")
    await agent.program(config(n, nh))
    await FallingEdge(dut.clk)          # the agent returns in ReadOnly
    dut.go.value = 1
    flows = int(dut.n_flows.value)
    target = flows * int(cfg.get("n_msgs", 1000))
    chunk = int(cfg.get("chunk", 20000))
    stall_chunks = int(cfg.get("stall_chunks", 10))
    max_cycles = int(cfg.get("max_cycles", 2_000_000 + 400 * target))
    t0 = time.perf_counter()
    cycles, last, idle, why = 0, -1, 0, "accounted"
    while True:
        await Timer(chunk, unit="ns")
        cycles += chunk
        r = read(dut)
        if accounted(r):
            break
        if r["fatal"]:
            why = "fatal link error"
            break
        if cycles >= max_cycles:
            why = f"cycle bound {max_cycles} reached"
            break
        moved = r["q_uniq"] + r["p_uniq"] + r["q_dup"] + r["p_dup"] + r["q_corrupt"] + r["p_corrupt"]
        idle = idle + 1 if moved == last else 0
        last = moved
        if idle >= stall_chunks:
            why = f"nothing delivered for {stall_chunks * chunk} cycles"
            break
    # let anything in flight land (duplicates arrive after the last unique message)
    await Timer(4 * chunk // 10 + 2000, unit="ns")
    cycles += 4 * chunk // 10 + 2000
    wall = time.perf_counter() - t0
    r = read(dut)
    sw = await agent.read_block(A_COUNT, SW_COUNTERS)
    res = {"name": cfg.get("name"), "seed": seed, "knobs": cfg, "flows": flows, "cycles": cycles,
           "end": why, "wall_s": round(wall, 2), "counters": r, "switch": sw, **verdict(r, target)}
    res["retries"] = r["retry"]
    res["crc_errors"] = r["crc_err"]
    res["msgs_per_s"] = round(res["messages"] / wall, 1) if wall > 0 else 0.0
    write_result(dut, cfg, res)
    expect = cfg.get("expect", "clean")
    bad = {k: res[k] for k in ("lost", "duplicated", "reordered", "corrupted", "fatal") if res[k]}
    if expect == "clean":
        assert not bad, f"soak {cfg.get('name')}: {bad} (run ended: {why})"
        assert r["proto_err"] == 0 and not (r["overflow"] or r["credit_err"] or r["unsup"]), r
        errs = {k: sw[k] for k in SW_ERRORS if sw[k]}
        assert not errs, f"switch error events in a clean soak: {errs}"
        # the switch forwarded exactly the requests and answers the checkers counted
        assert sw["forwarded_req"] == r["q_uniq"] and sw["forwarded_rsp"] == r["p_uniq"], (sw, r)
    else:
        check_negative(expect, res, bad)
