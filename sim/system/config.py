"""Parameter trees with a cited source on every leaf, plus `--set` / `--config` overrides.

A parameter file is a YAML tree whose leaves are mappings ``{value: ..., source: "...", unit: "..."}``.
Dotted keys (``cxl.switch_latency_ns``) address leaves. Every leaf must say where its value comes
from; an override records its own origin as the new source, so the resolved tree written next to the
results says exactly what was used.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

import yaml

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
SYSTEM_YAML = CONFIG_DIR / "system.yaml"


class ConfigError(ValueError):
    """A parameter or workload file is malformed; the message names the file and the field."""


def is_leaf(node: Any) -> bool:
    return isinstance(node, Mapping) and "value" in node


def load_yaml(path: Path) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: file not found") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: top level must be a mapping")
    return data


def validate_tree(tree: Mapping, origin: str, prefix: str = "") -> None:
    """Every leaf needs a value and a non-empty source; intermediate nodes must be mappings."""
    for key, node in tree.items():
        name = f"{prefix}{key}"
        if is_leaf(node):
            src = node.get("source")
            if not isinstance(src, str) or not src.strip():
                raise ConfigError(f"{origin}: {name}: missing 'source' (every parameter must cite where it comes from)")
            if node["value"] is None:
                raise ConfigError(f"{origin}: {name}: 'value' is empty")
        elif isinstance(node, Mapping):
            validate_tree(node, origin, name + ".")
        else:
            raise ConfigError(f"{origin}: {name}: expected a mapping with 'value' and 'source', got {node!r}")


def flatten(tree: Mapping, prefix: str = "") -> dict[str, dict]:
    out: dict[str, dict] = {}
    for key, node in tree.items():
        name = f"{prefix}{key}"
        if is_leaf(node):
            out[name] = dict(node)
        elif isinstance(node, Mapping):
            out.update(flatten(node, name + "."))
    return out


def parse_scalar(text: str) -> Any:
    """Interpret a command-line value the way YAML would (numbers, booleans, lists)."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def _coerce(old: Any, new: Any, key: str, origin: str) -> Any:
    if isinstance(old, bool):
        if not isinstance(new, bool):
            raise ConfigError(f"{origin}: {key}: expected true/false, got {new!r}")
        return new
    if isinstance(old, (int, float)) and not isinstance(old, bool):
        if isinstance(new, bool) or not isinstance(new, (int, float)):
            raise ConfigError(f"{origin}: {key}: expected a number, got {new!r}")
        return float(new) if isinstance(old, float) else new
    return new


@dataclass
class Config:
    """Resolved parameters: dotted key -> leaf dict (value, source, unit...)."""

    leaves: dict[str, dict] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def get(self, key: str) -> Any:
        try:
            return self.leaves[key]["value"]
        except KeyError as exc:
            raise ConfigError(f"unknown parameter '{key}'") from exc

    def source(self, key: str) -> str:
        return str(self.leaves[key]["source"])

    def section(self, prefix: str) -> dict[str, Any]:
        """Values under ``prefix.`` with the prefix removed (one level of nesting kept dotted)."""
        p = prefix + "."
        return {k[len(p):]: v["value"] for k, v in self.leaves.items() if k.startswith(p)}

    def set(self, key: str, value: Any, origin: str) -> None:
        if key not in self.leaves:
            close = [k for k in self.leaves if k.split(".")[-1] == key.split(".")[-1]]
            hint = f" (did you mean {', '.join(sorted(close)[:3])}?)" if close else ""
            raise ConfigError(f"{origin}: unknown parameter '{key}'{hint}")
        leaf = self.leaves[key]
        leaf["value"] = _coerce(leaf["value"], value, key, origin)
        leaf["source"] = f"override ({origin}); default was: {leaf['source']}"

    def copy(self) -> "Config":
        return Config(copy.deepcopy(self.leaves), list(self.notes))

    def with_values(self, values: Mapping[str, Any], origin: str = "what-if") -> "Config":
        new = self.copy()
        for k, v in values.items():
            new.set(k, v, origin)
        return new

    def as_tree(self) -> dict:
        tree: dict = {}
        for key, leaf in self.leaves.items():
            node = tree
            parts = key.split(".")
            for p in parts[:-1]:
                node = node.setdefault(p, {})
            node[parts[-1]] = leaf
        return tree


def apply_sets(cfg: Config, sets: Iterable[str]) -> None:
    for item in sets:
        if "=" not in item:
            raise ConfigError(f"--set {item!r}: expected key=value")
        key, text = item.split("=", 1)
        cfg.set(key.strip(), parse_scalar(text.strip()), f"--set {item}")


def apply_config_file(cfg: Config, path: Path) -> None:
    """Overlay a user file: leaves may be plain values or {value, source} mappings."""
    data = load_yaml(path)
    if isinstance(data.get("parameters"), Mapping):   # an inputs.yaml written by sim.report.run
        data = data["parameters"]

    def walk(node: Mapping, prefix: str) -> None:
        for key, sub in node.items():
            name = f"{prefix}{key}"
            if is_leaf(sub):
                cfg.set(name, sub["value"], f"{path}")
                if sub.get("source"):
                    cfg.leaves[name]["source"] = f"{sub['source']} (from {path})"
            elif isinstance(sub, Mapping):
                walk(sub, name + ".")
            else:
                cfg.set(name, sub, f"{path}")

    walk(data, "")


def load_system_params(path: Path = SYSTEM_YAML) -> Config:
    tree = load_yaml(path)
    validate_tree(tree, str(path))
    return Config(flatten(tree))
