"""Fault soak of the link layer (top tb/link/hdl/soak_link_tb.v), run by tb.soak.

The generators, faulty channels and checkers are HDL: Python sets the knobs, releases reset and
then only wakes up every `chunk` cycles to read the counters, so the simulation runs at Verilator
speed. The run ends when every stream has sent its messages and the checkers hold them all (or on
link_fatal, or when nothing is delivered for `stall_chunks` chunks); the counters go to the JSON
file named by SOAK_OUT. Knobs come from SOAK_CFG (JSON, see tb.soak.LinkPoint); `expect` says what
the checkers must report: "clean" (0 lost, duplicated, reordered, corrupted, no fatal error) or a
negative test ("dup", "flip", "broken": the injected or unprotected fault must show up).
"""
from __future__ import annotations

import json
import os
import time

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Timer

from tb.common.seeds import base_seed

COUNTERS = ("t_sent", "t_ok", "t_uniq", "t_dup", "t_reord", "t_corrupt", "c_flits", "c_err_flits",
            "c_bits", "c_bursts", "c_drops", "c_dups", "a_crc_err", "b_crc_err", "a_retry", "b_retry",
            "a_proto_err", "b_proto_err", "a_fatal", "b_fatal", "a_overflow", "b_overflow",
            "a_credit_err", "b_credit_err")


def read(dut) -> dict[str, int]:
    return {k: int(getattr(dut, k).value) for k in COUNTERS}


def verdict(r: dict[str, int], target: int) -> dict[str, int]:
    """Loss, duplication, reordering and corruption as the soak reports them."""
    return {"messages": r["t_uniq"], "sent": r["t_sent"], "target": target,
            "lost": max(0, r["t_sent"] - r["t_uniq"]) + max(0, target - r["t_sent"]),
            "duplicated": r["t_dup"], "reordered": r["t_reord"], "corrupted": r["t_corrupt"],
            "fatal": r["a_fatal"] | r["b_fatal"]}


def set_knobs(dut, cfg: dict, seed: int, ints: tuple[str, ...] = ()) -> None:
    """Drive the soak top's knob inputs from SOAK_CFG (probabilities as fixed point: per cycle
    x 2^16, per flit x 2^32; BER as 1/BER); `ints` are integer knobs (negative-test injections).
    Shared by the link and switch soak tops, which name their knobs the same."""
    dut.seed.value = (seed * 0x9E3779B97F4A7C15) & (2**64 - 1) or 1
    for name, default in (("n_msgs", 1000), ("gen_p", 0.5), ("rdy_on_p", 0.05), ("rdy_off_p", 0.005),
                          ("stall_p", 0.0)):
        v = cfg.get(name, default)
        getattr(dut, name).value = int(v) if name == "n_msgs" else min(65535, int(round(v * 65536)))
    ber = cfg.get("ber", 0.0)
    dut.ber_inv.value = int(round(1.0 / ber)) if ber else 0
    for name in ("burst_p", "drop_p", "dup_p"):
        getattr(dut, name).value = min(2**32 - 1, int(round(cfg.get(name, 0.0) * 2**32)))
    for name in ints:
        getattr(dut, name).value = int(cfg.get(name, 0))


def write_result(dut, cfg: dict, res: dict) -> None:
    """Log the point's result and write it to SOAK_OUT (read by tb.soak)."""
    dut._log.info(f"soak {cfg.get('name')}: {json.dumps(res)}")
    out = os.environ.get("SOAK_OUT")
    if out:
        with open(out, "w") as f:
            json.dump(res, f, indent=1)


def check_negative(expect: str, res: dict, bad: dict) -> None:
    """A negative point: the fault injected past the link layer must show up at the checkers."""
    if expect == "dup":
        assert res["duplicated"] >= 1, f"an injected duplicate was not caught: {res}"
    elif expect == "flip":
        assert res["corrupted"] >= 1, f"an injected corruption was not caught: {res}"
    elif expect == "skip":
        assert res["lost"] >= 1 and res["reordered"] >= 1, f"an injected loss was not caught: {res}"
    elif expect == "broken":
        assert bad, f"an unprotected link with dropped/duplicated flits passed the checks: {res}"
    else:
        raise AssertionError(f"unknown expect {expect!r}")


@cocotb.test(timeout_time=int(os.environ.get("SOAK_TIMEOUT_US", "600000")), timeout_unit="us")
async def soak(dut):
    cfg = json.loads(os.environ["SOAK_CFG"])
    seed = int(cocotb.RANDOM_SEED)
    dut._log.info(f"soak {cfg.get('name')}: random seed: reproduce with SEED={base_seed()} (knobs {cfg})")
    Clock(dut.clk, 1, unit="ns").start()
    dut.rst.value = 1
    set_knobs(dut, cfg, seed, ("inj_dup_at", "inj_flip_at"))
    await ClockCycles(dut.clk, 8)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 2)
    n_streams = int(dut.n_streams.value)
    target = n_streams * int(cfg.get("n_msgs", 1000))
    chunk = int(cfg.get("chunk", 20000))
    stall_chunks = int(cfg.get("stall_chunks", 10))
    max_cycles = int(cfg.get("max_cycles", 10**9))
    t0 = time.perf_counter()
    cycles, last_uniq, idle = 0, -1, 0
    while True:
        await Timer(chunk, unit="ns")
        cycles += chunk
        r = read(dut)
        if r["t_sent"] >= target and r["t_uniq"] + r["t_corrupt"] >= r["t_sent"]:
            break
        if r["a_fatal"] or r["b_fatal"] or cycles >= max_cycles:
            break
        idle = idle + 1 if r["t_uniq"] == last_uniq else 0
        last_uniq = r["t_uniq"]
        if idle >= stall_chunks:
            break
    # let anything in flight land (duplicates arrive after the last unique message)
    await Timer(4 * chunk // 10 + 2000, unit="ns")
    cycles += 4 * chunk // 10 + 2000
    wall = time.perf_counter() - t0
    r = read(dut)
    res = {"name": cfg.get("name"), "seed": seed, "knobs": cfg, "streams": n_streams,
           "cycles": cycles, "wall_s": round(wall, 2), "counters": r, **verdict(r, target)}
    res["retries"] = r["a_retry"] + r["b_retry"]
    res["crc_errors"] = r["a_crc_err"] + r["b_crc_err"]
    res["msgs_per_s"] = round(res["messages"] / wall, 1) if wall > 0 else 0.0
    write_result(dut, cfg, res)
    expect = cfg.get("expect", "clean")
    bad = {k: res[k] for k in ("lost", "duplicated", "reordered", "corrupted", "fatal") if res[k]}
    if expect == "clean":
        assert not bad, f"soak {cfg.get('name')}: {bad}"
        assert r["a_proto_err"] == 0 and r["b_proto_err"] == 0, r
        assert not (r["a_overflow"] or r["b_overflow"] or r["a_credit_err"] or r["b_credit_err"]), r
    else:
        check_negative(expect, res, bad)
