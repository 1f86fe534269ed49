"""Our value for every target id, and the verdict against the paper value parsed from targets.md."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from sim.system.config import Config
from sim.system.latency import cxl_data_efficiency
from sim.system.model import SystemResult, speedups
from sim.report.targets import CASE_SECTION, POINT_TOLERANCE, Spec, Target, parse_values
from sim.system.cases import CASES_PREFIX, CaseResult, CaseValue, run_cases
from sim.traffic.cases import CASES_YAML, TIME_SUFFIX
from sim.traffic.schema import load_tree_into

COLUMNS = ("id", "what", "paper value", "our value", "unit", "ratio", "verdict", "note")


@dataclass(frozen=True)
class Ours:
    value: float | None
    unit: str
    note: str
    holds: bool | None = None      # for ordering rows


@dataclass(frozen=True)
class Row:
    id: str
    what: str
    paper: str
    ours: float | None
    unit: str
    ratio: float | None
    verdict: str
    note: str
    ours_lo: float | None = None   # set when our value is an interval [ours_lo, ours]
    section: int = 0

    def our_text(self) -> str:
        if self.ours is None:
            return ""
        if self.ours_lo is not None and f"{self.ours_lo:.3g}" != f"{self.ours:.3g}":
            return f"{self.ours_lo:.3g} to {self.ours:.3g}"
        return f"{self.ours:.3g}"

    def cells(self) -> list[str]:
        return [self.id, self.what, self.paper, self.our_text(), self.unit,
                "" if self.ratio is None else f"{self.ratio:.2f}", self.verdict, self.note]


def _tier_regions(res: SystemResult) -> tuple[np.ndarray, np.ndarray]:
    ws, t = res.tiering.ws_bytes, res.tiering
    return (ws > t.accel_bytes) & (ws <= t.cluster_bytes), ws > t.cluster_bytes


def _tier_ratio(res: SystemResult, pattern: str, versus: str, region: int) -> float:
    lat = res.tiering.latency[pattern]
    mask = _tier_regions(res)[region]
    return float(np.max(lat[versus][mask] / lat["scalepool"][mask]))


def _tier_note(res: SystemResult, versus: str, region: int) -> str:
    others = ", ".join(f"{p} {_tier_ratio(res, p, versus, region):.2f}x" for p in res.tiering.latency
                       if p != res.tiering.scored_pattern)
    return (f"max over the sweep points in the region, {res.tiering.scored_pattern} access (scored pattern); "
            f"other patterns: {others}")


def our_values(res: SystemResult, cfg: Config) -> dict[str, Callable[[], Ours]]:
    sp = speedups(res.training)
    p = res.paths
    tr = res.training
    comm = {k: v["baseline"].inter_cluster_comm / v["scalepool"].inter_cluster_comm for k, v in tr.items()
            if v["scalepool"].inter_cluster_comm > 0}
    ib_bw = cfg.get("ib.nic_gbps") * cfg.get("ib.efficiency")
    cxl_bw = cfg.get("topology.cxl_ports_per_gpu") * cfg.get("cxl.link_gbps") * cxl_data_efficiency(cfg)
    worst = min(sp, key=sp.get)
    off = {k: v["scalepool"].offload_exposed - v["baseline"].offload_exposed for k, v in tr.items()}
    t1_note = lambda: (f"ScalePool vs baseline; vs accelerator clusters {_tier_ratio(res, res.tiering.scored_pattern, 'acc_clusters', 0):.2f}x "
                       f"(identical inside a cluster). Gain = coherent hot-line placement; " + _tier_note(res, "baseline", 0))
    return {
        "SP-TRAIN-AVG": lambda: Ours(float(np.mean(list(sp.values()))), "x",
                                     "per model: " + ", ".join(f"{k} {v:.2f}" for k, v in sp.items())
                                     + f". Slowest: {worst}, whose optimizer offload moves from C2C CPU memory to a "
                                       f"{cxl_bw:.0f} GB/s CXL pool port (+{off[worst]:.2f} s exposed)"),
        "SP-TRAIN-MAX": lambda: Ours(float(max(sp.values())), "x", f"best model: {max(sp, key=sp.get)}"),
        "SP-COMM": lambda: Ours(float(np.mean(list(comm.values()))), "x",
                                f"PP+DP time crossing racks; bandwidth-bound, so close to the per-GPU bandwidth ratio "
                                f"CXL {cxl_bw:.0f} GB/s / IB {ib_bw:.0f} GB/s = {cxl_bw / ib_bw:.2f}x; NCCL software "
                                f"latency removal adds little at these message sizes"),
        "SP-TIER1": lambda: Ours(_tier_ratio(res, res.tiering.scored_pattern, "baseline", 0), "x", t1_note()),
        "SP-TIER2-BASE": lambda: Ours(_tier_ratio(res, res.tiering.scored_pattern, "baseline", 1), "x",
                                      f"RDMA read {p.rdma_read:.0f} ns vs tier-2 {p.sp_tier2_read:.0f} ns; " + _tier_note(res, "baseline", 1)),
        "SP-TIER2-ACC": lambda: Ours(_tier_ratio(res, res.tiering.scored_pattern, "acc_clusters", 1), "x",
                                     f"acc-cluster remote {p.acc_remote_read:.0f} ns vs tier-2 {p.sp_tier2_read:.0f} ns; " + _tier_note(res, "acc_clusters", 1)),
        "LAT-CXL": lambda: Ours(p.cxl_direct_read, "ns", f"coherent CXL read, direct attach, DDR5 media; through one switch {p.cxl_1sw_read:.0f} ns"),
        "LAT-NVLINK": lambda: Ours(p.nvlink_oneway_64b, "ns", "64 B GPU->NVSwitch->GPU; switch figure is a proxy (CXL-DMSim)"),
        "LAT-UALINK": lambda: Ours(p.ualink_oneway_64b, "ns", "one 640 B DL flit through one switch; switch figure is a proxy"),
        "LAT-RDMA": lambda: Ours(p.rdma_read, "ns", "RDMA READ = 2 x measured one-way + 3 IB switch hops + flight"),
        "LAT-TIER2": lambda: Ours(p.sp_tier2_read, "ns", f"{cfg.get('topology.tier2_switch_hops')} CXL switches each way "
                                  f"({2 * cfg.get('topology.tier2_switch_hops') * cfg.get('cxl.switch_latency_ns'):.0f} ns) + "
                                  f"{cfg.get('fabric.inter_rack_cable_m'):.0f} m inter-rack cables"),
        "ORDER-CXL-XLINK": lambda: Ours(p.cxl_oneway_1sw / p.nvlink_oneway_64b, "CXL/NVLink latency",
                                        f"CXL one-way {p.cxl_oneway_1sw:.0f} ns vs NVLink {p.nvlink_oneway_64b:.0f} ns; "
                                        f"bandwidth per GPU NVLink {cfg.get('nvlink.link_gbps') * cfg.get('nvlink.links_per_gpu'):.0f} "
                                        f"vs CXL {cfg.get('topology.cxl_ports_per_gpu') * cfg.get('cxl.link_gbps'):.0f} GB/s. "
                                        "Both paths use the same switch figure, so CXL's protocol layers make it slower",
                                        holds=bool(p.cxl_oneway_1sw < p.nvlink_oneway_64b and
                                                   cfg.get("nvlink.link_gbps") * cfg.get("nvlink.links_per_gpu") >
                                                   cfg.get("topology.cxl_ports_per_gpu") * cfg.get("cxl.link_gbps"))),
        "CAL-LOCAL-DRAM": lambda: Ours(p.ddr5_local, "ns", "DRAM timing only; CPU cache hierarchy / NoC not modelled (gpu.onchip_ns, ddr5.controller_ns = 0)"),
        "CAL-CXL-ASIC": lambda: Ours(p.cxl_direct_read, "ns", f"= local DDR5 {p.ddr5_local:.0f} + CXL adder {p.cxl_direct_adder:.0f} ns; misses by the unmodelled host path"),
        "CAL-CXL-SWITCH": lambda: Ours(p.cxl_1sw_read, "ns", f"switch adds {p.cxl_1sw_read - p.cxl_direct_read:.0f} ns (paper ~203 ns)"),
        "CAL-POND": lambda: Ours(p.cxl_direct_adder, "ns", "CXL direct-attach adder over local DRAM"),
        "CAL-UALINK-SWITCH": lambda: Ours(p.ualink_switch, "ns", "a parameter (CXL-DMSim proxy), not a measurement; RTL switch cycles will replace it via --latencies-from"),
        "CAL-CXL-CTRL": lambda: Ours(p.cxl_ctrl_roundtrip, "ns", "host + device protocol layers, both directions (CXL-DMSim)"),
    }


def verdict(spec: Spec, ours: Ours) -> tuple[float | None, str]:
    v = ours.value
    if spec.kind == "ordering":
        return None, "not modelled" if ours.holds is None else ("hit" if ours.holds else "miss")
    if v is None:
        return None, "not modelled"
    if spec.kind == "point":
        ratio = v / spec.lo
        return ratio, "hit" if abs(ratio - 1) <= POINT_TOLERANCE else "miss"
    if spec.kind == "range":
        nearest = spec.lo if v < spec.lo else spec.hi if v > spec.hi else v
        return v / nearest, "in" if spec.lo <= v <= spec.hi else "out"
    if spec.kind == "upper":
        ok = v <= spec.hi if spec.inclusive else v < spec.hi
        return v / spec.hi, "in" if ok else "out"
    if spec.kind == "lower":
        ok = v >= spec.lo if spec.inclusive else v > spec.lo
        return v / spec.lo, "in" if ok else "out"
    raise ValueError(spec.kind)


NOT_DERIVABLE = "not derivable"


def case_verdict(paper: float, ours: CaseValue) -> tuple[float | None, str]:
    """A determined value: hit/miss within the point tolerance. An interval (the report leaves inputs
    open): in/out, i.e. whether the paper's value is one the modelled fabric difference can give."""
    if not ours.derivable:
        return None, NOT_DERIVABLE
    if ours.is_point:
        ratio = ours.hi / paper
        return ratio, "hit" if abs(ratio - 1) <= POINT_TOLERANCE else "miss"
    nearest = min(max(paper, ours.lo), ours.hi)
    return nearest / paper, "in" if ours.lo <= paper <= ours.hi else "out"


def _case_parts(cr: CaseResult, name: str) -> list[str]:
    stem = name[:-len(TIME_SUFFIX)] if name.endswith(TIME_SUFFIX) else name
    comp = next((c for c in cr.profile.composites if c.name == stem), None)
    return list(comp.parts) if comp else [stem]


def _case_note(cr: CaseResult, name: str, ours: CaseValue, paper: float, v: str) -> str:
    parts = [cr.profile.phase(p) for p in _case_parts(cr, name)]
    excluded = "; ".join(sorted({p.excluded for p in parts if p.excluded.strip().lower() != "none named"}))
    if v == NOT_DERIVABLE:
        return ours.note
    if v in ("hit", "in"):
        tail = "" if ours.is_point else (" Consistent, not a prediction: any value in the interval fits what the "
                                        "report gives.")
        return ours.note + "." + tail
    side = "above" if paper > ours.hi else "below"
    why = ((f" The paper's value is {side} the modelled one" if ours.is_point else
            f" The paper's value lies {side} every case the modelled fabric difference allows")
           + (f"; the report also names effects not modelled: {excluded}." if excluded else "."))
    return ours.note + "." + why


def default_cases(cfg: Config) -> list[CaseResult]:
    """Case results for a config built without case profiles (the shipped profile file)."""
    if not any(k.startswith(CASES_PREFIX + ".") for k in cfg.leaves):
        cfg = cfg.copy()
        load_tree_into(cfg, CASES_YAML, CASES_PREFIX)
    return run_cases(cfg)[1]


def score_case_target(t: Target, cases: list[CaseResult]) -> list[Row]:
    """One row per value of a targets.md section-4 row, named <id>.<quantity>."""
    cr = next((c for c in cases if c.profile.target == t.id), None)
    paper = parse_values(t.value_text)
    if cr is None or len(cr.profile.target_values) != len(paper):
        why = ("no case profile targets this id" if cr is None else
               f"targets.md has {len(paper)} values, profile '{cr.profile.key}' lists {len(cr.profile.target_values)} target_values")
        return [Row(t.id, t.what, t.value_text, None, "", None, "not modelled", why, section=t.section)]
    rows = []
    for name, (pv, unit) in zip(cr.profile.target_values, paper):
        ours = cr.values[name]
        what = (f"{cr.profile.display}: CXL-path time of {name[:-len(TIME_SUFFIX)]}" if name.endswith(TIME_SUFFIX)
                else f"{cr.profile.display}: {name} speedup (RDMA / CXL time)")
        if ours.unit != unit:
            rows.append(Row(f"{t.id}.{name}", what, f"{pv:g} {unit}", None, ours.unit, None, "not modelled",
                            f"unit mismatch: targets.md gives '{unit}', the profile's '{name}' is in '{ours.unit}'",
                            section=t.section))
            continue
        ratio, v = case_verdict(pv, ours)
        rows.append(Row(f"{t.id}.{name}", what, f"{pv:g}{unit}" if unit == "x" else f"{pv:g} {unit}", ours.hi,
                        unit, ratio, v, _case_note(cr, name, ours, pv, v), ours_lo=ours.lo, section=t.section))
    return rows


def score(targets: list[Target], res: SystemResult, cfg: Config, cases: list[CaseResult] | None = None) -> list[Row]:
    """One row per target id of sections 1-3 and one per value of each section-4 id, in targets.md
    order; ids we do not model say so."""
    funcs = our_values(res, cfg)
    rows = []
    seen = set()
    for t in targets:
        if t.id in seen:
            continue
        seen.add(t.id)
        if t.section == CASE_SECTION:
            if cases is None:
                cases = default_cases(cfg)
            rows += score_case_target(t, cases)
            continue
        ours = funcs[t.id]() if t.id in funcs else Ours(None, t.spec.unit, "not modelled by the system model")
        ratio, v = verdict(t.spec, ours)
        rows.append(Row(t.id, t.what, t.value_text, ours.value, ours.unit or t.spec.unit, ratio, v, ours.note,
                        section=t.section))
    return rows
