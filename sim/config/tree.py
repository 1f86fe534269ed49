"""Parameter trees: YAML files whose leaves cite a source, addressed by dotted keys, with overrides.

A leaf is a mapping ``{value: ..., source: "...", unit: "...", range: [lo, hi], range_source: "..."}``;
`value` and a non-empty `source` are required. `range` (optional) is the plausible interval of an
assumption, used by the report's sensitivity rows; it needs `range_source` saying where the
interval comes from, and must contain the value (a categorical value lists its two alternatives). Overrides (`--set key=value`, `--config FILE`)
record their origin as the new source, so the resolved tree says exactly what was used.
"""
from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any, Iterable, Mapping

import yaml

from sim.config.domains import ConfigError

LEAF_KEYS = {"value", "source", "unit", "range", "range_source", "note", "origin", "rtl"}


def is_leaf(node: Any) -> bool:
    return isinstance(node, Mapping) and "value" in node


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)    # libyaml when present: same results, ~20x faster
_CACHE: dict[tuple[str, int, int], Any] = {}


def load_yaml(path: Path) -> Any:
    """Parsed YAML (safe loader); a file unchanged since its last read is parsed once."""
    try:
        st = Path(path).stat()
        key = (str(Path(path).resolve()), st.st_mtime_ns, st.st_size)
        if key not in _CACHE:
            with open(path, encoding="utf-8") as fh:
                _CACHE[key] = yaml.load(fh, Loader=_LOADER)
        return copy.deepcopy(_CACHE[key])
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: file not found") from exc
    except IsADirectoryError as exc:
        raise ConfigError(f"{path}: is a directory, expected a YAML file") from exc
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else "syntax error"
        raise ConfigError(f"{path}: not valid YAML: {first}") from exc


def load_mapping(path: Path) -> dict:
    data = load_yaml(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: top level must be a mapping")
    return data


def _check_range(origin: str, name: str, node: Mapping) -> None:
    """A numeric value's range is [lo, hi] with lo <= value <= hi; a categorical value's (true/false,
    a name) lists the two alternatives, one of them the value."""
    if "range" not in node:
        return
    r, v = node["range"], node["value"]
    if not isinstance(r, list) or len(r) != 2:
        raise ConfigError(f"{origin}: {name}.range: expected [lo, hi], got {r!r}")
    if not str(node.get("range_source", "")).strip():
        raise ConfigError(f"{origin}: {name}: a 'range' needs a 'range_source' (where the interval comes from)")
    numeric = lambda x: isinstance(x, (int, float)) and not isinstance(x, bool)
    if numeric(v):
        if not (all(numeric(x) and math.isfinite(x) for x in r) and r[0] <= r[1]):
            raise ConfigError(f"{origin}: {name}.range: expected [lo, hi] with finite lo <= hi, got {r!r}")
        if not r[0] <= v <= r[1]:
            raise ConfigError(f"{origin}: {name}: value {v!r} lies outside its range {r}")
    elif v not in r or r[0] == r[1] or not all(type(x) is type(v) for x in r):
        raise ConfigError(f"{origin}: {name}.range: expected the two alternatives of {v!r}, one of them the value, got {r!r}")


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
            extra = set(node) - LEAF_KEYS
            if extra:
                raise ConfigError(f"{origin}: {name}: unknown leaf field(s) {', '.join(sorted(extra))} "
                                  f"(allowed: {', '.join(sorted(LEAF_KEYS - {'origin', 'rtl'}))})")
            _check_range(origin, name, node)
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
    """Keep the type family of the default (a number stays a number); domains are checked later."""
    if isinstance(old, bool):
        if not isinstance(new, bool):
            raise ConfigError(f"{origin}: {key}: expected true or false, got {new!r}")
        return new
    if isinstance(old, (int, float)):
        if isinstance(new, bool) or not isinstance(new, (int, float)):
            raise ConfigError(f"{origin}: {key}: expected a number, got {new!r}")
        if isinstance(new, float) and not math.isfinite(new):
            raise ConfigError(f"{origin}: {key}: expected a finite number, got {new!r}")
        return float(new) if isinstance(old, float) and not isinstance(new, float) else new
    return new


class ParamTree:
    """Resolved parameter leaves: dotted key -> leaf dict (value, source, unit, range, ...)."""

    def __init__(self, leaves: dict[str, dict] | None = None, notes: list[str] | None = None):
        self.leaves: dict[str, dict] = leaves if leaves is not None else {}
        self.notes: list[str] = notes if notes is not None else []

    def __contains__(self, key: str) -> bool:
        return key in self.leaves

    def get(self, key: str) -> Any:
        try:
            return self.leaves[key]["value"]
        except KeyError as exc:
            raise ConfigError(f"unknown parameter '{key}'") from exc

    def source(self, key: str) -> str:
        return str(self.leaves[key]["source"])

    def section(self, prefix: str) -> dict[str, Any]:
        """Values under ``prefix.`` as a nested mapping (for typed building)."""
        p = prefix + "."
        out: dict[str, Any] = {}
        for k, leaf in self.leaves.items():
            if not k.startswith(p):
                continue
            node = out
            parts = k[len(p):].split(".")
            for part in parts[:-1]:
                node = node.setdefault(part, {})
            node[parts[-1]] = leaf["value"]
        return out

    def keys_under(self, prefix: str) -> list[str]:
        p = prefix + "."
        return [k for k in self.leaves if k.startswith(p)]

    def where(self, key: str) -> str:
        """'file: key' for error messages."""
        origin = self.leaves.get(key, {}).get("origin")
        return f"{origin}: {key}" if origin else key

    def set(self, key: str, value: Any, origin: str) -> None:
        if key not in self.leaves:
            close = [k for k in self.leaves if k.split(".")[-1] == key.split(".")[-1]]
            hint = f" (did you mean {', '.join(sorted(close)[:3])}?)" if close else ""
            raise ConfigError(f"{origin}: unknown parameter '{key}'{hint}")
        leaf = self.leaves[key]
        leaf["value"] = _coerce(leaf["value"], value, key, origin)
        leaf["source"] = f"override ({origin}); default was: {leaf['source']}"
        leaf["origin"] = origin

    def copy(self) -> "ParamTree":
        return ParamTree(copy.deepcopy(self.leaves), list(self.notes))

    def with_values(self, values: Mapping[str, Any], origin: str = "what-if") -> "ParamTree":
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
            node[parts[-1]] = {k: v for k, v in leaf.items() if k != "origin"}
        return tree

    def load_into(self, path: Path, prefix: str = "") -> None:
        """Validate that every leaf of `path` cites a source and merge it (under `prefix.`)."""
        tree = load_mapping(Path(path))
        validate_tree(tree, str(path))
        for key, leaf in flatten(tree).items():
            leaf["origin"] = str(path)
            self.leaves[f"{prefix}.{key}" if prefix else key] = leaf

    def apply_sets(self, sets: Iterable[str]) -> None:
        for item in sets:
            if "=" not in item:
                raise ConfigError(f"--set {item!r}: expected key=value")
            key, text = item.split("=", 1)
            self.set(key.strip(), parse_scalar(text.strip()), f"--set {item}")

    def apply_file(self, path: Path) -> None:
        """Overlay a user file: leaves may be plain values or {value, source} mappings. An inputs.yaml
        written by sim.report.run (top-level `parameters`) is accepted as is."""
        data = load_mapping(Path(path))
        if isinstance(data.get("parameters"), Mapping):
            data = data["parameters"]

        def walk(node: Mapping, prefix: str) -> None:
            for key, sub in node.items():
                name = f"{prefix}{key}"
                if is_leaf(sub):
                    self.set(name, sub["value"], str(path))
                    if sub.get("source"):
                        self.leaves[name]["source"] = f"{sub['source']} (from {path})"
                elif isinstance(sub, Mapping) and name not in self.leaves:
                    walk(sub, name + ".")
                else:
                    self.set(name, sub, str(path))

        walk(data, "")
