"""What the report calls things: the three systems of the comparison and where a parameter's value
came from in this run. Plots, report.md and report.html take their labels from here."""
from __future__ import annotations

from sim.config.build import Config
from sim.system.training import SYSTEMS

SHORT = {"baseline": "baseline", "acc_clusters": "accelerator clusters", "scalepool": "ScalePool"}


def rack_name(cfg: Config) -> str:
    """The preset's accelerator as a reader names the rack: 'GB200 (NVL72)' -> 'GB200 NVL72'."""
    return cfg.hardware.accelerator.name.replace(" (", " ").replace(")", "")


def system_names(cfg: Config) -> dict[str, str]:
    """Full names, in SYSTEMS order: the baseline names its preset and scale-out network."""
    full = {"baseline": f"{rack_name(cfg)} + InfiniBand (baseline)",
            "acc_clusters": "accelerator clusters (CXL between racks via bridges)",
            "scalepool": "ScalePool (CXL from every accelerator, tier-2 pool)"}
    return {s: full[s] for s in SYSTEMS}


def legend_names(cfg: Config) -> dict[str, str]:
    """Names short enough for a legend: the baseline's hardware, the other two as the paper says."""
    return {"baseline": f"{rack_name(cfg)} + InfiniBand (baseline)", "acc_clusters": SHORT["acc_clusters"],
            "scalepool": SHORT["scalepool"]}


def origin(cfg: Config, key: str) -> str:
    """Where this run's value of `key` came from, in words: measured on RTL, set by the user, or cited
    (an [A] proxy said as such)."""
    leaf = cfg.tree.leaves[key]
    src = str(leaf["source"])
    if src.startswith("measured on RTL"):
        return "measured on RTL" + (f" ({cfg.measured.path})" if cfg.measured is not None else "")
    if src.startswith("override"):
        return f"set by `{leaf.get('origin', 'an override')}`"
    if "[A]" in src and "proxy" in src:
        return "an assumed proxy, not a measurement"
    if "[A]" in src:
        return "an assumption"
    return "cited"


def measured_by_rtl(cfg: Config, key: str) -> bool:
    return str(cfg.tree.leaves[key]["source"]).startswith("measured on RTL")
