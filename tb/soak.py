"""Fault soak: messages through the link layer (68B and 256B) and through the switch under bit
errors, burst errors, dropped and duplicated flits, wire stalls and credit starvation.

    python -m tb.soak --messages 1000000 --switch-messages 1000000 --out results/soak.json  (`make soak`)
    python -m tb.soak --ci --out results/soak_ci.json                 (the size CI runs)
    SEED=<n> python -m tb.soak --only <point name> --out /tmp/p.json  (one point again)

Each configuration is one simulation of test-only HDL; generators, faulty channels and in-order
checkers run in the simulator, Python only sets knobs (and, for the switch, programs it once) and
reads counters:
  link    tb/link/hdl/soak_link_tb.v (tb/link/tb_soak.py): two cxl_link endpoints joined by two
          faulty channels, a generator and checker per class and direction.
  switch  tb/switch/hdl/soak_switch_tb.v (tb/switch/tb_switch_soak.py): cxl_switch N=4 with 68B
          links, a partner endpoint and a faulty channel each way on every port; 2 hosts send
          MemRd / MemWr that the switch routes by HDM decode (2-way interleave over the 2 devices),
          the devices answer each (DRS / NDR) and the switch routes the answers back through its
          outstanding-request table. Checked per flow (host, device, class) at the device and at
          the host: the order the switch guarantees (per class, per ingress-egress pair); no order
          across flows is assumed. A clean point also requires the switch's forwarded counters to
          equal the checkers' and every switch error counter to be 0.
Every point prints its seed; SEED=<n> reproduces it. The JSON holds per point the knobs, the
counters (messages, lost, duplicated, reordered, corrupted, CRC errors, retries, injected faults)
and the wall time, and the totals (messages per scope: link68, link256, switch).

Fault model per point (channel knobs, both directions of every link):
  ber      random bit errors per transmitted bit (1e-6, 1e-5, 1e-4)
  burst_p  probability per flit of a burst (2..64 bits, random pattern)
  drop_p   probability per flit that the flit is lost
  dup_p    probability per flit that the flit is delivered twice
  stall_p  probability per cycle that the wire does not take a flit
  rdy_*    consumer on/off Markov chain: off periods of ~1/rdy_on_p cycles starve the sender of
           credits (every receive buffer fills and credits stop)
The 68B link with the spec CRC (SEQ_CRC=0) cannot detect a silently dropped or repeated
retryable flit (implicit sequence numbers; the spec leaves that to the PHY), so its points carry
no drops or duplicates; the `broken` negative test shows what happens when they do. The switch's
68B links use the spec CRC unless built with SEQ_CRC=1: the switch points with every fault use
SEQ_CRC=1 on all 8 link endpoints; `switch68-speccrc` is the switch as built by default, without
drops and duplicates. Every link of both tops runs with TIMEOUT_FLITS=64 (spec minimum 4096): a
retry that waits for the timeout costs 64 flits, not 4096. MAX_RETRY is 31 on every link of both
tops: at BER 1e-4 half the 68B retry attempts fail (13 flits must arrive clean,
models.cxl.link.retry_attempt_failure_68b), and 16 failures in a row end a link with MAX_RETRY 16.

Negatives (the checkers must report the fault): a duplicate and a corruption injected past the
link layer (link), a spec-CRC link with drops and duplicates (link), and through the switch a
request sent twice, a request with a flipped bit and a request never sent (neg-switch-*).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.runner import REPO, pick_seed, run_cocotb

LINK_HDL = REPO / "tb" / "link" / "hdl"
SWITCH_HDL = REPO / "tb" / "switch" / "hdl"
BERS = (1e-6, 1e-5, 1e-4)
FAULTS = {"burst_p": 1e-4, "drop_p": 1e-4, "dup_p": 1e-4, "stall_p": 0.05,
          "rdy_on_p": 0.02, "rdy_off_p": 0.002}
KEYS = ("messages", "lost", "duplicated", "reordered", "corrupted")
CI_MESSAGES = 10_000
OPT = "-O2"   # C++ optimisation of the soak builds: -O0 simulates about 50x slower
CI_OPT = "-O1"  # the CI points' builds: 10,000 messages run in seconds, so compile time rules


@dataclass
class Point:
    name: str
    top: str                       # "link" (soak_link_tb) or "switch" (soak_switch_tb)
    params: dict[str, int]         # RTL parameters (one build per distinct set)
    knobs: dict[str, Any]          # SOAK_CFG for the cocotb test
    expect: str = "clean"

    def cfg(self) -> dict[str, Any]:
        return {"name": self.name, **self.knobs, "expect": self.expect}


def link_points(messages: int, spec_crc: bool = True) -> list[Point]:
    """`messages` per flit mode, split over the BER points (68B and 256B with the sequence CRC),
    plus (spec_crc) the 68B spec-CRC link without drops and duplicates."""
    pts: list[Point] = []
    for mode, streams in ((0, 10), (1, 12)):
        per = max(1, messages // (len(BERS) * streams))
        for ber in BERS:
            pts.append(Point(f"link{'256' if mode else '68'}-ber{ber:.0e}", "link",
                             {"FLIT_MODE": mode, "SEQ_CRC": 1},
                             {"n_msgs": per, "ber": ber, **FAULTS}))
    if spec_crc:
        per = max(1, messages // (4 * 10))
        for ber in (1e-6, 1e-4):
            pts.append(Point(f"link68-speccrc-ber{ber:.0e}", "link", {"FLIT_MODE": 0, "SEQ_CRC": 0},
                             {"n_msgs": per, "ber": ber, **FAULTS, "drop_p": 0.0, "dup_p": 0.0}))
    return pts


SWITCH_FLOWS = 2 * 2 * 2          # soak_switch_tb N=4: (2 hosts) x (2 devices) x (Req, RwD)


def switch_points(messages: int, spec_crc: bool = True) -> list[Point]:
    """At least `messages` through the switch (requests plus answers; each of the SWITCH_FLOWS
    flows sends n_msgs requests and gets n_msgs answers), split over the BER points, on 68B links
    with the sequence CRC; plus (spec_crc) a quarter as many through the switch as built by
    default (68B spec CRC) at BER 1e-4 without drops and duplicates."""
    pts: list[Point] = []
    per = max(1, -(-messages // (len(BERS) * 2 * SWITCH_FLOWS)))
    # a short run is checked every 2,000 cycles (it ends within a few thousand cycles)
    chunk = {"chunk": 2000} if per <= 1000 else {}
    for ber in BERS:
        pts.append(Point(f"switch68-ber{ber:.0e}", "switch", {"SEQ_CRC": 1},
                         {"n_msgs": per, "ber": ber, **FAULTS, **chunk}))
    if spec_crc:
        per = max(1, -(-messages // (4 * 2 * SWITCH_FLOWS)))
        pts.append(Point("switch68-speccrc-ber1e-04", "switch", {"SEQ_CRC": 0},
                         {"n_msgs": per, "ber": 1e-4, **FAULTS, "drop_p": 0.0, "dup_p": 0.0}))
    return pts


def soak_points(messages: int, switch_messages: int) -> list[Point]:
    """`make soak` / `make bench`: the link layer per flit mode and the switch, clean points."""
    return link_points(messages) + switch_points(switch_messages)


def ci_points() -> list[Point]:
    """The CI version (tests/test_link_soak.py, `--ci`): 10,000 messages per flit mode and through
    the switch, and the checker negatives, on the sequence-CRC builds only (the spec-CRC builds
    are `make soak`'s)."""
    return (link_points(CI_MESSAGES, spec_crc=False) + switch_points(CI_MESSAGES, spec_crc=False) +
            [p for p in negative_points() if p.params.get("SEQ_CRC") == 1])


def negative_points() -> list[Point]:
    """The checkers must fail: a duplicate and a corruption that bypass the link layer, and a
    spec-CRC link (no sequence check) with dropped and duplicated flits."""
    base = {"n_msgs": 300, "ber": 0.0, **FAULTS, "drop_p": 0.0, "dup_p": 0.0}
    return [
        Point("neg-bypass-dup", "link", {"FLIT_MODE": 0, "SEQ_CRC": 1}, {**base, "inj_dup_at": 9}, "dup"),
        Point("neg-bypass-flip", "link", {"FLIT_MODE": 0, "SEQ_CRC": 1}, {**base, "inj_flip_at": 7}, "flip"),
        Point("neg-speccrc-drop-dup", "link", {"FLIT_MODE": 0, "SEQ_CRC": 0},
              {**base, "n_msgs": 2000, "drop_p": 2e-3, "dup_p": 2e-3, "max_cycles": 200000}, "broken"),
        # through the switch (host 0 -> device 0, MemRd flow): a request sent twice (after its
        # answer, so the switch forwards it), a flipped MetaField bit, a request never sent
        Point("neg-switch-dup", "switch", {"SEQ_CRC": 1},
              {**base, "n_msgs": 40, "chunk": 2000, "inj_dup_at": 9}, "dup"),
        Point("neg-switch-flip", "switch", {"SEQ_CRC": 1},
              {**base, "n_msgs": 40, "chunk": 2000, "inj_flip_at": 7}, "flip"),
        Point("neg-switch-skip", "switch", {"SEQ_CRC": 1},
              {**base, "n_msgs": 40, "chunk": 2000, "inj_skip_at": 5}, "skip"),
    ]


def run_point(p: Point, opt: str, seed: int | None = None) -> dict[str, Any]:
    """Build (once per parameter set and optimisation) and run one point; returns its results."""
    if p.top == "switch":
        top, hdl, mod = "soak_switch_tb", SWITCH_HDL, "tb.switch.tb_switch_soak"
        sources = [hdl / f"{m}.v" for m in ("soak_switch_tb", "soak_sw_host", "soak_sw_dev",
                                            "soak_sw_chk", "soak_sw_msg")] + [LINK_HDL / "soak_chan.v"]
    else:
        top, hdl, mod = "soak_link_tb", LINK_HDL, "tb.link.tb_soak"
        sources = [hdl / "soak_link_tb.v", hdl / "soak_stream.v", hdl / "soak_chan.v"]
    seed = pick_seed(seed)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "soak.json"
        env = {"SOAK_CFG": json.dumps(p.cfg()), "SOAK_OUT": str(out)}
        try:
            run_cocotb(top=top, sources=sources, test_module=mod, parameters=p.params, includes=[LINK_HDL],
                       name=f"{top}-{opt.lstrip('-')}", seed=seed, extra_env=env,
                       build_args=["-y", str(hdl), "-y", str(LINK_HDL), "-CFLAGS", opt])
            ok, err = True, ""
        except AssertionError as exc:
            ok, err = False, str(exc)
        res = json.loads(out.read_text()) if out.exists() else {"name": p.name, "error": err}
    res["seed"] = seed            # SEED=<seed> with --only <name> reproduces the point
    res["expect"] = p.expect
    res["passed"] = ok
    if err:
        res["failure"] = err
    return res


def run(points: list[Point], opt: str, out: Path | None) -> dict[str, Any]:
    t0 = time.perf_counter()
    results = []
    for p in points:
        print(f"== soak {p.name} ({p.top}, {p.params}, expect {p.expect})", flush=True)
        r = run_point(p, opt)
        keys = ("messages", "lost", "duplicated", "reordered", "corrupted", "retries", "wall_s")
        print("   " + ", ".join(f"{k} {r.get(k)}" for k in keys) + f", passed {r['passed']}", flush=True)
        results.append(r)
    clean = [r for r in results if r["expect"] == "clean"]
    total = {k: sum(int(r.get(k, 0)) for r in clean) for k in KEYS}
    total["retries"] = sum(int(r.get("retries", 0)) for r in clean)
    total["crc_errors"] = sum(int(r.get("crc_errors", 0)) for r in clean)
    total["fatal"] = sum(int(r.get("fatal", 0)) for r in clean)
    for scope in ("link68", "link256", "switch"):
        sel = [r for r in clean if str(r.get("name", "")).startswith(scope)]
        total[f"messages.{scope}"] = sum(int(r.get("messages", 0)) for r in sel)
    total["wall_s"] = round(time.perf_counter() - t0, 1)
    sim_s = sum(float(r.get("wall_s", 0.0)) for r in clean)
    total["msgs_per_s"] = round(total["messages"] / sim_s, 1) if sim_s else 0.0
    # Negative points must show faults: their checker counts go under neutral names, so a reader
    # of soak.json (sim/report) sees loss / duplication / reordering / corruption only where 0 is
    # the pass.
    negs = [{"name": r.get("name"), "expect": r["expect"], "passed": r["passed"], "seed": r.get("seed"),
             "checker": {"dup": r.get("duplicated"), "late_or_ahead": r.get("reordered"),
                         "bad_content": r.get("corrupted"), "missing": r.get("lost"), "fatal": r.get("fatal")}}
            for r in results if r["expect"] != "clean"]
    doc = {"generated_by": "python -m tb.soak", "opt": opt, "bers": list(BERS), "faults": FAULTS,
           "total": total, "points": clean, "negatives": negs,
           "all_passed": all(r["passed"] for r in results)}
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {out}")
    return doc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=1_000_000,
                    help="messages per flit mode through the link layer")
    ap.add_argument("--switch-messages", type=int, default=1_000_000,
                    help="messages through the switch (requests and answers)")
    ap.add_argument("--ci", action="store_true",
                    help="the CI version: 10,000 messages per flit mode and through the switch")
    ap.add_argument("--only", action="append", help="run only points whose name starts with this")
    ap.add_argument("--no-negative", action="store_true")
    ap.add_argument("--opt", default=OPT, help=f"C++ optimisation of the builds (default {OPT})")
    ap.add_argument("--out", type=Path, default=REPO / "results" / "soak.json")
    args = ap.parse_args(argv)
    if args.ci:
        pts = ci_points()
    else:
        pts = soak_points(args.messages, args.switch_messages) + (
            [] if args.no_negative else negative_points())
    if args.only:
        pts = [p for p in pts if any(p.name.startswith(o) for o in args.only)]
    doc = run(pts, args.opt, args.out)
    t = doc["total"]
    print(f"soak: {t['messages']} messages, lost {t['lost']}, duplicated {t['duplicated']}, "
          f"reordered {t['reordered']}, corrupted {t['corrupted']}, retries {t['retries']}, "
          f"{t['wall_s']} s; all points as expected: {doc['all_passed']}")
    return 0 if doc["all_passed"] else 1


def bench() -> dict[str, float]:
    """`make bench` (sim/bench.py): the full soak; figures measured, not asserted."""
    doc = run(soak_points(1_000_000, 1_000_000), OPT,
              REPO / "results" / "soak.json")
    t = doc["total"]
    return {"soak.messages": float(t["messages"]), "soak.lost": float(t["lost"]),
            "soak.duplicated": float(t["duplicated"]), "soak.reordered": float(t["reordered"]),
            "soak.corrupted": float(t["corrupted"]), "soak.retries": float(t["retries"]),
            "soak.msgs_per_s": float(t["msgs_per_s"])}


if __name__ == "__main__":
    sys.exit(main())
