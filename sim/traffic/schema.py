"""Field-by-field validation of workload files (types, ranges, cross-field consistency)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

from sim.system.config import Config, ConfigError, flatten, load_yaml, validate_tree

CONFIG_DIR = Path(__file__).resolve().parent / "configs"


def load_tree_into(cfg: Config, path: Path, prefix: str) -> None:
    """Validate that every leaf of `path` cites a source and merge it under `prefix.`."""
    tree = load_yaml(path)
    validate_tree(tree, str(path))
    for key, leaf in flatten(tree).items():
        leaf["origin"] = str(path)
        cfg.leaves[f"{prefix}.{key}"] = leaf


def _where(cfg: Config, key: str) -> str:
    origin = cfg.leaves.get(key, {}).get("origin", "config")
    return f"{origin}: {key}"


def _positive_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


def _positive_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0


CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "int>0": (_positive_int, "a positive integer"),
    "num>0": (_positive_number, "a positive number"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "str": (lambda v: isinstance(v, str) and bool(v.strip()), "a non-empty string"),
    "zero": (lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 3, "an integer 0..3"),
}


def get_field(cfg: Config, key: str, kind: str) -> Any:
    if key not in cfg.leaves:
        raise ConfigError(f"{key}: required field is missing")
    value = cfg.leaves[key]["value"]
    ok, what = CHECKS[kind]
    if not ok(value):
        raise ConfigError(f"{_where(cfg, key)}: expected {what}, got {value!r}")
    return value


def check_known(cfg: Config, prefix: str, allowed: Mapping[str, str]) -> None:
    """Reject misspelt fields instead of silently ignoring them."""
    p = prefix + "."
    for key in cfg.leaves:
        if key.startswith(p):
            name = key[len(p):]
            if "." not in name and name not in allowed:
                raise ConfigError(f"{_where(cfg, key)}: unknown field (allowed: {', '.join(sorted(allowed))})")


def fail(cfg: Config, key: str, msg: str) -> None:
    raise ConfigError(f"{_where(cfg, key)}: {msg}")
