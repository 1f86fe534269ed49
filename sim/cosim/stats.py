"""Turning co-simulation samples into `latency.json` for the system model (pure functions).

Mapping (README.md): the RTL measures only the digital core of a hop. A system parameter that
means a whole traversal gets the measured p50 plus the per-port figures it also includes, named as
parameter keys of sim/system/configs/system.yaml in the hop's `plus` map (key -> how many times);
sim/system/measured.py adds them when it loads the file.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

CLOCK_MHZ = 1000.0          # documented core clock (CONVENTIONS / every block README: 1 GHz)
PORT_PLUS = {"cxl.port_phy_ns": 2, "cxl.port_link_layer_ns": 2}   # ingress + egress port of one hop
SWITCH_RT = ("switch/round_trip_rd", "switch/round_trip_wr")   # per request: M2S + S2M traversal
BRIDGE_RT = ("bridge/round_trip_rd",)                            # per miss: request + response crossing
MAX_SAMPLES = 4000


def percentile(xs: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (a value that occurred)."""
    if not xs:
        raise ValueError("no samples")
    s = sorted(xs)
    k = max(1, math.ceil(p / 100.0 * len(s)))
    return float(s[k - 1])


def summary(xs: Sequence[float]) -> dict[str, float]:
    return {"p50_cycles": percentile(xs, 50), "p99_cycles": percentile(xs, 99), "n": len(xs),
            "mean_cycles": round(sum(xs) / len(xs), 3), "min_cycles": float(min(xs)), "max_cycles": float(max(xs))}


def pooled(samples: Mapping[str, Sequence[float]], keys: Sequence[str]) -> list[float]:
    return [v for k in keys for v in samples.get(k, [])]


def thin(xs: Sequence[float], n: int = MAX_SAMPLES) -> list[float]:
    """At most n samples, evenly spaced in sorted order (keeps the CDF shape)."""
    s = sorted(xs)
    if len(s) <= n:
        return s
    return [s[int(i * (len(s) - 1) / (n - 1))] for i in range(n)]


def latency_json(samples: Mapping[str, Sequence[float]], source: str, notes: Sequence[str] = (),
                 runs: Mapping[str, Mapping[str, Sequence[float]]] | None = None) -> dict:
    """measured.py's format from the samples of the reference run (one switch hop, direct mode).

    `runs` (optional): other runs' samples by name, reported under `runs` (paths only, not hops).
    """
    sw = [v / 2 for v in pooled(samples, SWITCH_RT)]     # one-way = half the per-request round trip
    br = [v / 2 for v in pooled(samples, BRIDGE_RT)]
    if not sw or not br:
        raise ValueError("the reference run has no switch or bridge samples (no tier-2 traffic?)")
    s_sw, s_br = summary(sw), summary(br)
    hops = {
        "cxl.switch_latency_ns": {
            "p50_cycles": s_sw["p50_cycles"], "p99_cycles": s_sw["p99_cycles"], "plus": dict(PORT_PLUS),
            "what": "cxl_switch_core one-way traversal = half of each request's M2S + S2M traversal (valid at "
                    "ingress -> valid at egress; reads and posted writes) + ingress and egress port (PHY, link "
                    "layer) from system.yaml"},
        "ualink.switch_ns": {
            "p50_cycles": s_sw["p50_cycles"], "p99_cycles": s_sw["p99_cycles"], "plus": dict(PORT_PLUS),
            "what": "proxy, as system.yaml already does: our CXL switch traversal + ports stands for the "
                    "UALink switch port-to-port latency"},
        "cxl.bridge_ns": {
            "p50_cycles": s_br["p50_cycles"], "p99_cycles": s_br["p99_cycles"], "plus": dict(PORT_PLUS),
            "what": "xbridge_core one-way crossing = half of each miss's (XLink request valid -> M2S Req valid) + "
                    "(S2M DRS valid -> XLink response valid) + its XLink-side and CXL-side port"},
    }
    paths = {k: summary(v) for k, v in sorted(samples.items()) if v}
    out = {
        "source": source,
        "clock_mhz": CLOCK_MHZ,
        "hops": hops,
        "samples_cycles": {
            "switch traversal (RTL core)": thin(sw),
            "bridge crossing (RTL core)": thin(br),
            **{k: thin(samples[k]) for k in ("read/bridge_hit", "read/miss_tier2_fabric", "coh_read/fabric")
               if samples.get(k)},
        },
        "paths": paths,
        "notes": list(notes),
    }
    if runs:
        out["runs"] = {name: {k: summary(v) for k, v in sorted(s.items()) if v} for name, s in runs.items()}
    return out
