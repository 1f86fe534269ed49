"""Domains of configuration values and typed, checked dataclasses built from them.

A *domain* says which values a field accepts (a positive number, an integer >= 0, a fraction in
(0, 1], a choice among names, ...). Numbers are always finite: NaN and +/-inf are refused by every
numeric domain, and booleans never count as numbers. A value outside its domain raises `ConfigError`
with one line naming the key and the domain, e.g.::

    cxl.switch_latency_ns: expected a positive number (> 0), got -50

Declaring a checked dataclass::

    @dataclass(frozen=True)
    class Knobs(Checked):
        n_per_bridge: int = param(COUNT, 150, doc="requests per bridge")
        idle_p: float = param(FRACTION0, 0.95, doc="probability of an idle cycle")
        mode: str = param(one_of("direct", "cascade"), "direct")

    Knobs(idle_p=1.5)            # ConfigError: idle_p: expected a fraction in [0, 1], got 1.5
    build(Knobs, {"mode": "x"}, "cosim")   # ConfigError: cosim.mode: expected one of direct, cascade ...

`build(cls, mapping, where)` checks unknown and missing keys too and recurses into fields whose type
is itself a `Checked` dataclass (given as a nested mapping).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Callable, Mapping


class ConfigError(ValueError):
    """A configuration value or file is invalid; the message names the key (and file) in one line."""


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


@dataclass(frozen=True)
class Domain:
    """A named set of accepted values. `convert` maps an accepted raw value to the stored one."""

    text: str                                  # shown in errors: "a positive number (> 0)"
    accepts: Callable[[Any], bool]
    convert: Callable[[Any], Any] = lambda v: v
    numeric: bool = False

    def check(self, key: str, value: Any) -> Any:
        if self.numeric and (not _is_number(value) or not math.isfinite(value)):
            raise ConfigError(f"{key}: expected {self.text}, got {value!r}")
        if not self.accepts(value):
            raise ConfigError(f"{key}: expected {self.text}, got {value!r}")
        return self.convert(value)


def number(lo: float = -math.inf, hi: float = math.inf, lo_open: bool = False, hi_open: bool = False,
           text: str | None = None) -> Domain:
    """A finite real number in an interval."""
    def ok(v: Any) -> bool:
        above = v > lo if lo_open else v >= lo
        below = v < hi if hi_open else v <= hi
        return above and below
    if text is None:
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        text = f"a number in {left}{lo:g}, {hi:g}{right}"
    return Domain(text, ok, float, numeric=True)


def integer(lo: int = 0, hi: int | None = None, text: str | None = None) -> Domain:
    """An integer in [lo, hi]; 8.0 is not an integer value here (a typo guard)."""
    def ok(v: Any) -> bool:
        return isinstance(v, int) and v >= lo and (hi is None or v <= hi)
    text = text or (f"an integer >= {lo}" if hi is None else f"an integer in [{lo}, {hi}]")
    return Domain(text, ok, int, numeric=True)


def one_of(*names: str) -> Domain:
    return Domain("one of " + ", ".join(names), lambda v: isinstance(v, str) and v in names)


POSITIVE = number(0.0, lo_open=True, text="a positive number (> 0)")
NONNEG = number(0.0, text="a number >= 0")
FRACTION = number(0.0, 1.0, lo_open=True, text="a fraction in (0, 1]")
FRACTION0 = number(0.0, 1.0, text="a fraction in [0, 1]")
COUNT = integer(1, text="an integer >= 1")
COUNT0 = integer(0, text="an integer >= 0")
BOOL = Domain("true or false", lambda v: isinstance(v, bool))
TEXT = Domain("a non-empty string", lambda v: isinstance(v, str) and bool(v.strip()))


def param(domain: Domain, default: Any = MISSING, unit: str = "", doc: str = "") -> Any:
    """A dataclass field whose value must lie in `domain` (checked by `Checked.__post_init__`)."""
    meta = {"domain": domain, "unit": unit, "doc": doc}
    if default is MISSING:
        return field(metadata=meta)
    return field(default=default, metadata=meta)


def domain_of(f: dataclasses.Field) -> Domain | None:
    return f.metadata.get("domain")


class Checked:
    """Mixin for dataclasses: every field declared with `param` is checked at construction.
    Subclasses set `_where` (a class attribute or via `build`) to prefix keys in errors."""

    _where: str = ""

    def __post_init__(self) -> None:
        prefix = self._where + "." if self._where else ""
        for f in fields(self):  # type: ignore[arg-type]
            dom = domain_of(f)
            if dom is None:
                continue
            value = dom.check(prefix + f.name, getattr(self, f.name))
            object.__setattr__(self, f.name, value)


def _is_checked_type(tp: Any) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp) and issubclass(tp, Checked)


def build(cls: type, values: Mapping[str, Any], where: str = "") -> Any:
    """An instance of the checked dataclass `cls` from `values`: unknown keys, missing required
    keys and out-of-domain values are `ConfigError`s naming `where.key`. Nested checked dataclasses
    are built from nested mappings."""
    prefix = where + "." if where else ""
    if not isinstance(values, Mapping):
        raise ConfigError(f"{where or cls.__name__}: expected a mapping, got {values!r}")
    known = {f.name: f for f in fields(cls) if f.init}
    for k in values:
        if k not in known:
            raise ConfigError(f"{prefix}{k}: unknown field (allowed: {', '.join(sorted(known))})")
    kwargs: dict[str, Any] = {}
    hints = _resolved_types(cls)
    for name, f in known.items():
        if name not in values:
            if f.default is MISSING and f.default_factory is MISSING:  # type: ignore[misc]
                raise ConfigError(f"{prefix}{name}: required field is missing")
            continue
        v = values[name]
        tp = hints.get(name)
        if _is_checked_type(tp):
            kwargs[name] = build(tp, v, prefix + name)
        else:
            dom = domain_of(f)
            kwargs[name] = dom.check(prefix + name, v) if dom is not None else v
    obj = cls.__new__(cls)
    object.__setattr__(obj, "_where", where)      # keys in __post_init__ errors carry the full prefix
    cls.__init__(obj, **kwargs)
    return obj


def _resolved_types(cls: type) -> dict[str, Any]:
    import typing
    try:
        return typing.get_type_hints(cls)
    except Exception:  # unresolved forward references: nested building is then by mapping only
        return {}


def describe(cls: type, prefix: str = "") -> list[tuple[str, str, str, str]]:
    """(key, domain text, unit, doc) for every field of a checked dataclass, nested ones flattened."""
    out = []
    hints = _resolved_types(cls)
    for f in fields(cls):
        tp = hints.get(f.name)
        key = prefix + f.name
        if _is_checked_type(tp):
            out += describe(tp, key + ".")
        elif domain_of(f) is not None:
            out.append((key, domain_of(f).text, f.metadata.get("unit", ""), f.metadata.get("doc", "")))
    return out
