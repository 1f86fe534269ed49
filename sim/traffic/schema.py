"""Loading workload and profile files into a parameter tree (every leaf cites its source)."""
from __future__ import annotations

from pathlib import Path

from sim.config.build import TRAFFIC_DIR
from sim.config.tree import ParamTree

CONFIG_DIR = TRAFFIC_DIR


def load_tree_into(tree: ParamTree, path: Path, prefix: str) -> None:
    """Validate that every leaf of `path` cites a source and merge it under `prefix.`."""
    tree.load_into(Path(path), prefix)
