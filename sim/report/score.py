"""Our value for every target id, and the verdict against the paper value parsed from targets.md
with the verdict rules stated in targets.md (`sim.report.targets.load_rules`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from sim.config.build import Config
from sim.report.names import SHORT, measured_by_rtl, origin
from sim.report.targets import CASE_SECTION, Rules, Spec, Target, load_rules, parse_values
from sim.system.cases import CaseResult, CaseValue, run_cases
from sim.system.model import SystemResult, speedups
from sim.system.training import cxl_bandwidth, scaleout_level
from sim.traffic.cases import TIME_SUFFIX

COLUMNS = ("id", "what", "paper value", "our value", "unit", "ratio", "verdict", "note", "range low", "range high")
RATIO_DEFINITION = ("ratio = our value / the paper's value, each taken at its point nearest the other where it is an "
                    "interval (a range, a bound, or our interval over inputs the paper leaves open), so 1.00 means "
                    "they meet; empty where the paper gives no number.")


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
    range_lo: float | None = None  # the value over the plausible range of every assumption that moves it
    range_hi: float | None = None

    def our_text(self) -> str:
        if self.ours is None:
            return ""
        if self.ours_lo is not None and f"{self.ours_lo:.3g}" != f"{self.ours:.3g}":
            return f"{self.ours_lo:.3g} to {self.ours:.3g}"
        return f"{self.ours:.3g}"

    def range_text(self) -> str:
        if self.range_lo is None:
            return ""
        return f"{self.range_lo:.3g} to {self.range_hi:.3g}"

    def cells(self) -> list[str]:
        return [self.id, self.what, self.paper, self.our_text(), self.unit,
                "" if self.ratio is None else f"{self.ratio:.2f}", self.verdict, self.note,
                "" if self.range_lo is None else f"{self.range_lo:.4g}",
                "" if self.range_hi is None else f"{self.range_hi:.4g}"]


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
    sysp = cfg.system
    n_models = len(sp)
    disp = {w.key: w.display for w in res.workloads}
    comm = {k: v["baseline"].inter_cluster_comm / v["scalepool"].inter_cluster_comm for k, v in tr.items()
            if v["scalepool"].inter_cluster_comm > 1e-9 and v["baseline"].inter_cluster_comm > 1e-9}
    ib_bw = scaleout_level(cfg.hardware).busbw / 1e9
    cxl_bw = cxl_bandwidth(cfg) / 1e9
    host_bw = cfg.hardware.offload_bytes_s / 1e9
    worst = min(sp, key=sp.get) if sp else None
    off = {k: v["scalepool"].offload_exposed - v["baseline"].offload_exposed for k, v in tr.items()}
    unfit = [k for k in tr if k not in sp]
    unfit_note = (f"; left out (layout does not fit): {', '.join(disp[k] for k in unfit)}" if unfit else "")
    t1_note = lambda: (f"ScalePool vs {SHORT['baseline']}; vs {SHORT['acc_clusters']} {_tier_ratio(res, res.tiering.scored_pattern, 'acc_clusters', 0):.2f}x "
                       f"(identical inside a cluster). Gain = coherent hot-line placement; " + _tier_note(res, "baseline", 0))
    mean = lambda d: float(np.mean(list(d.values()))) if d else None
    ualink_sw = _ualink_switch_note(cfg)

    def order_why() -> str:
        cxl_sw, nv_sw = sysp.cxl.switch_latency_ns, sysp.nvlink.switch_ns
        slower = "slower" if p.cxl_oneway_1sw > p.nvlink_oneway_64b else "not slower"
        if cxl_sw == nv_sw:
            return f"Both paths use the same switch figure ({cxl_sw:.0f} ns), so CXL's protocol layers make it {slower}"
        return (f"Switch figures differ: CXL {cxl_sw:.0f} ns ({origin(cfg, 'cxl.switch_latency_ns')}), NVSwitch "
                f"{nv_sw:.0f} ns ({origin(cfg, 'nvlink.switch_ns')}); CXL one-way is {slower}")
    return {
        "SP-TRAIN-AVG": lambda: Ours(mean(sp), "x",
                                     f"mean over {n_models} models: " + ", ".join(f"{disp[k]} {v:.2f}" for k, v in sp.items())
                                     + (f". Slowest: {disp[worst]}: offload exposed {tr[worst]['scalepool'].offload_exposed:.2f} s "
                                        f"on the {cxl_bw:.0f} GB/s CXL pool port vs {tr[worst]['baseline'].offload_exposed:.2f} s "
                                        f"on {host_bw:.0f} GB/s host memory ({off[worst]:+.2f} s)" if worst else "")
                                     + unfit_note),
        "SP-TRAIN-MAX": lambda: Ours(float(max(sp.values())) if sp else None, "x",
                                     f"best of {n_models} models: {disp[max(sp, key=sp.get)]}" if sp else "no model fits"),
        "SP-COMM": lambda: Ours(mean(comm), "x",
                                f"mean over the {len(comm)} of {len(tr)} models with pipeline or data-parallel traffic "
                                f"between racks (PP + DP time crossing racks); bandwidth-bound, so close to the per-GPU bandwidth ratio "
                                f"CXL {cxl_bw:.0f} GB/s / IB {ib_bw:.0f} GB/s = {cxl_bw / ib_bw:.2f}x; NCCL software "
                                f"latency removal adds little at these message sizes"),
        "SP-TIER1": lambda: Ours(_tier_ratio(res, res.tiering.scored_pattern, "baseline", 0), "x", t1_note()),
        "SP-TIER2-BASE": lambda: Ours(_tier_ratio(res, res.tiering.scored_pattern, "baseline", 1), "x",
                                      f"RDMA read {p.rdma_read:.0f} ns vs tier-2 {p.sp_tier2_read:.0f} ns; " + _tier_note(res, "baseline", 1)),
        "SP-TIER2-ACC": lambda: Ours(_tier_ratio(res, res.tiering.scored_pattern, "acc_clusters", 1), "x",
                                     f"acc-cluster remote {p.acc_remote_read:.0f} ns vs tier-2 {p.sp_tier2_read:.0f} ns; " + _tier_note(res, "acc_clusters", 1)),
        "LAT-CXL": lambda: Ours(p.cxl_direct_read, "ns", f"coherent CXL read, direct attach, DDR5 media; through one switch {p.cxl_1sw_read:.0f} ns"),
        "LAT-NVLINK": lambda: Ours(p.nvlink_oneway_64b, "ns", f"64 B GPU->NVSwitch->GPU; NVSwitch {sysp.nvlink.switch_ns:.0f} ns "
                                   f"({origin(cfg, 'nvlink.switch_ns')})"),
        "LAT-UALINK": lambda: Ours(p.ualink_oneway_64b, "ns", f"one {sysp.ualink.dl_flit_bytes:g} B DL flit through one switch; "
                                   f"switch {p.ualink_switch:.0f} ns ({ualink_sw})"),
        "LAT-RDMA": lambda: Ours(p.rdma_read, "ns", f"RDMA READ = {sysp.ib.rdma_read_factor:g} x one-way {sysp.ib.rdma_oneway_ns:.0f} ns "
                                 f"({origin(cfg, 'ib.rdma_oneway_ns')}) + {2 * sysp.ib.switch_hops} IB switch traversals x "
                                 f"{sysp.ib.switch_ns:.0f} ns + cable flight"),
        "LAT-TIER2": lambda: Ours(p.sp_tier2_read, "ns", f"{sysp.topology.tier2_switch_hops} CXL switches each way "
                                  f"({2 * sysp.topology.tier2_switch_hops * sysp.cxl.switch_latency_ns:.0f} ns) + "
                                  f"{sysp.fabric.inter_rack_cable_m:.0f} m inter-rack cables"),
        "ORDER-CXL-XLINK": lambda: Ours(p.cxl_oneway_1sw / p.nvlink_oneway_64b, "CXL/NVLink latency",
                                        f"CXL one-way {p.cxl_oneway_1sw:.0f} ns vs NVLink {p.nvlink_oneway_64b:.0f} ns; "
                                        f"bandwidth per GPU NVLink {sysp.nvlink.link_gbps * sysp.nvlink.links_per_gpu:.0f} "
                                        f"vs CXL {sysp.topology.cxl_ports_per_gpu * sysp.cxl.link_gbps:.0f} GB/s. " + order_why(),
                                        holds=bool(p.cxl_oneway_1sw < p.nvlink_oneway_64b and
                                                   sysp.nvlink.link_gbps * sysp.nvlink.links_per_gpu >
                                                   sysp.topology.cxl_ports_per_gpu * sysp.cxl.link_gbps)),
        "CAL-LOCAL-DRAM": lambda: Ours(p.ddr5_local, "ns", f"DRAM timing + ddr5.controller_ns {sysp.ddr5.controller_ns:g} ns ({origin(cfg, 'ddr5.controller_ns')})"
                                       + ("; CPU cache hierarchy / NoC not modelled" if sysp.ddr5.controller_ns == 0 else "")),
        "CAL-CXL-ASIC": lambda: Ours(p.cxl_direct_read, "ns", f"= local DDR5 {p.ddr5_local:.0f} + CXL adder {p.cxl_direct_adder:.0f} ns"
                                     + ("; the host path (ddr5.controller_ns = 0) is not modelled" if sysp.ddr5.controller_ns == 0 else "")),
        "CAL-CXL-SWITCH": lambda: Ours(p.cxl_1sw_read, "ns", f"switch adds {p.cxl_1sw_read - p.cxl_direct_read:.0f} ns (paper ~203 ns)"),
        "CAL-POND": lambda: Ours(p.cxl_direct_adder, "ns", "CXL direct-attach adder over local DRAM"),
        "CAL-UALINK-SWITCH": lambda: Ours(p.ualink_switch, "ns", ualink_sw),
        "CAL-CXL-CTRL": lambda: Ours(p.cxl_ctrl_roundtrip, "ns", "host + device protocol layers, both directions (CXL-DMSim)"),
    }


def _ualink_switch_note(cfg: Config) -> str:
    """What this run used for the UALink switch, and what would change it."""
    key = "ualink.switch_ns"
    if measured_by_rtl(cfg, key):
        return (f"measured on RTL: our CXL switch traversal + ports stands in for the UALink switch "
                f"({cfg.measured.path})")
    what = f"{origin(cfg, key)}: the CXL-DMSim switch figure stands in for the UALink switch"
    if str(cfg.tree.leaves[key]["source"]).startswith("override"):
        return what
    if cfg.measured is not None:
        return f"{what}; this run's latency file ({cfg.measured.path}) does not measure it"
    return f"{what}; no co-simulation latency file in this run (`make sim` measures it on RTL)"


def is_speedup_target(spec: Spec) -> bool:
    return spec.unit == "x" and spec.lo is not None and spec.lo > 1.0


def verdict(spec: Spec, ours: Ours, rules: Rules | None = None) -> tuple[float | None, str]:
    rules = rules or load_rules()
    v = ours.value
    if spec.kind == "ordering":
        return None, "not modelled" if ours.holds is None else ("hit" if ours.holds else "miss")
    if v is None:
        return None, "not modelled"
    if spec.kind == "point":
        ratio = v / spec.lo
        ok = abs(ratio - 1) <= rules.point_tolerance + 1e-12
        if rules.speedup_floor is not None and is_speedup_target(spec):
            ok = ok and v > rules.speedup_floor
        return ratio, "hit" if ok else "miss"
    if spec.kind == "range":
        nearest = spec.lo if v < spec.lo else spec.hi if v > spec.hi else v
        return v / nearest, "in" if spec.lo <= v <= spec.hi else "out"
    if spec.kind == "upper":          # the interval up to the bound: RATIO_DEFINITION's nearest point
        ok = v <= spec.hi if spec.inclusive else v < spec.hi
        return v / min(v, spec.hi), "in" if ok else "out"
    if spec.kind == "lower":
        ok = v >= spec.lo if spec.inclusive else v > spec.lo
        return v / max(v, spec.lo), "in" if ok else "out"
    raise ValueError(spec.kind)


NOT_DERIVABLE = "not derivable"


def case_verdict(paper: float, ours: CaseValue, rules: Rules | None = None, speedup: bool = False) -> tuple[float | None, str]:
    """A determined value: hit/miss by the point rule. An interval (the report leaves inputs open):
    in/out, i.e. whether the paper's value is one the modelled fabric difference can give."""
    rules = rules or load_rules()
    if not ours.derivable:
        return None, NOT_DERIVABLE
    if ours.is_point:
        ratio = ours.hi / paper
        ok = abs(ratio - 1) <= rules.point_tolerance + 1e-12
        if speedup and paper > 1.0 and rules.speedup_floor is not None:
            ok = ok and ours.hi > rules.speedup_floor
        return ratio, "hit" if ok else "miss"
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


def score_case_target(t: Target, cases: list[CaseResult], rules: Rules | None = None) -> list[Row]:
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
        ratio, v = case_verdict(pv, ours, rules, speedup=unit == "x")
        rows.append(Row(f"{t.id}.{name}", what, f"{pv:g}{unit}" if unit == "x" else f"{pv:g} {unit}", ours.hi,
                        unit, ratio, v, _case_note(cr, name, ours, pv, v), ours_lo=ours.lo, section=t.section))
    return rows


def score(targets: list[Target], res: SystemResult, cfg: Config, cases: list[CaseResult] | None = None,
          rules: Rules | None = None, ranges: dict[str, tuple[float, float]] | None = None) -> list[Row]:
    """One row per target id of sections 1-3 and one per value of each section-4 id, in targets.md
    order; ids we do not model say so. `ranges`: id -> (low, high) over the assumptions' ranges."""
    rules = rules or load_rules()
    funcs = our_values(res, cfg)
    ranges = ranges or {}
    rows = []
    seen = set()
    for t in targets:
        if t.id in seen:
            continue
        seen.add(t.id)
        if t.section == CASE_SECTION:
            if cases is None:
                cases = run_cases(cfg)[1]
            rows += score_case_target(t, cases, rules)
            continue
        ours = funcs[t.id]() if t.id in funcs else Ours(None, t.spec.unit, "not modelled by the system model")
        ratio, v = verdict(t.spec, ours, rules)
        lo, hi = ranges.get(t.id, (None, None))
        rows.append(Row(t.id, t.what, t.value_text, ours.value, ours.unit or t.spec.unit, ratio, v, ours.note,
                        section=t.section, range_lo=lo, range_hi=hi))
    return rows


def headline_values(res: SystemResult, cfg: Config, ids: list[str]) -> dict[str, float | None]:
    """Our values of the given target ids (the sensitivity runs need numbers only)."""
    funcs = our_values(res, cfg)
    return {i: funcs[i]().value if i in funcs else None for i in ids}
