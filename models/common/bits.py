"""Small pure bit-field helpers (LSB-first fields inside Python ints)."""
from __future__ import annotations

import operator


def bit_mask(width: int) -> int:
    """All-ones mask of `width` bits (0 for width 0)."""
    if width < 0:
        raise ValueError(f"negative width {width}")
    return (1 << width) - 1


def get_field(value: int, lsb: int, width: int) -> int:
    """Bits [lsb +: width] of value."""
    return (value >> lsb) & bit_mask(width)


def set_field(value: int, lsb: int, width: int, field: int) -> int:
    """Return value with bits [lsb +: width] replaced by field (field must fit)."""
    if field < 0 or field >> width:
        raise ValueError(f"value {field:#x} does not fit in {width} bits")
    m = bit_mask(width) << lsb
    return (value & ~m) | (field << lsb)


def check_field(name: str, value: object, width: int) -> int:
    """Return int(value); raise ValueError naming `name` unless 0 <= value < 2**width."""
    try:
        v = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"field {name}: expected an integer, got {type(value).__name__}") from None
    if v < 0 or v >> width:
        raise ValueError(f"field {name}: value {v:#x} out of range for {width} bits")
    return v
