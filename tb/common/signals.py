"""Bus binding: one object per signal or per slice of a flattened vector.

Several agents often share one vector (valid bit ``c`` of ``tx_valid``, header
``tx_hdr[c*128 +: 128]``). In cocotb 2 a write is applied only in the next ReadWrite phase, so two
agents doing read-modify-write in the same timestep would read the same old value and the last
write would erase the other's slice. :class:`SignalPool` avoids that: it keeps one shadow integer per
driven signal; every slice write updates the shadow and writes the *whole* shadow to the signal, so
the last write of a timestep always carries every slice written so far.

Rule: all writes to a shared signal must go through one pool (create one per test, e.g. in the
env's ``build_phase``, and hand it to the agents, or use :func:`pool_from_config`).
Reads (``Bind.read``) return the simulator value of the slice.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from models.common.bits import bit_mask

CONFIG_KEY = "signal_pool"


@dataclass
class SignalPool:
    """Per-signal shadow registers for slice writes (one pool per test)."""

    _shadow: dict[int, tuple[Any, int]] = field(default_factory=dict)

    def _entry(self, sig: Any) -> int:
        key = id(sig)
        if key not in self._shadow:
            try:
                init = int(sig.value)
            except ValueError:  # X/Z (4-state simulators): start from zero
                init = 0
            # Keep a reference to the handle so id() cannot be reused while the pool lives.
            self._shadow[key] = (sig, init)
        return self._shadow[key][1]

    def write_slice(self, sig: Any, lsb: int, width: int, value: int) -> None:
        """Set bits [lsb +: width] of ``sig`` to ``value``, keeping the other bits."""
        if value < 0 or value >> width:
            raise ValueError(f"{_name(sig)}[{lsb}+:{width}]: value {value:#x} does not fit")
        cur = self._entry(sig)
        m = bit_mask(width) << lsb
        new = (cur & ~m) | (value << lsb)
        self._shadow[id(sig)] = (sig, new)
        sig.value = new

    def shadow(self, sig: Any) -> int:
        """The value this pool last wrote (or found) on ``sig``."""
        return self._entry(sig)

    def bind(self, sig: Any, index: int | None = None, width: int | None = None,
             lsb: int | None = None) -> "Bind":
        """Binding to a whole signal, or to lane ``index`` of ``width`` bits, or to ``lsb``+``width``.

        ``bind(dut.tx_valid, index=c)`` is bit c; ``bind(dut.tx_hdr, index=c, width=128)`` is
        ``tx_hdr[c*128 +: 128]``; ``bind(dut.x)`` is the whole signal.
        """
        total = len(sig)
        if lsb is None:
            if index is None:
                lsb, width = 0, total if width is None else width
            else:
                width = 1 if width is None else width
                lsb = index * width
        elif width is None:
            raise ValueError("bind(): lsb given without width")
        assert width is not None
        if lsb < 0 or width <= 0 or lsb + width > total:
            raise ValueError(f"{_name(sig)}: slice [{lsb}+:{width}] outside a {total}-bit signal")
        return Bind(pool=self, sig=sig, lsb=lsb, width=width)


@dataclass(frozen=True)
class Bind:
    """A slice [lsb +: width] of one simulator signal, written through a :class:`SignalPool`."""

    pool: SignalPool
    sig: Any
    lsb: int
    width: int

    def read(self) -> int:
        """Current simulator value of the slice (2-state: X reads as 0 under Verilator)."""
        v = self.sig.value
        try:
            iv = int(v)
        except ValueError:
            iv = 0
        return (iv >> self.lsb) & bit_mask(self.width)

    def write(self, value: int) -> None:
        """Write the slice (read-modify-write on the pool's shadow of the whole vector)."""
        self.pool.write_slice(self.sig, self.lsb, self.width, int(value))

    @property
    def name(self) -> str:
        n = _name(self.sig)
        if self.lsb == 0 and self.width == len(self.sig):
            return n
        return f"{n}[{self.lsb}+:{self.width}]"


@dataclass(frozen=True)
class FnBind:
    """Read-only binding computed from other bindings, e.g. a ready that is
    ``grant[c] & advance``: ``FnBind(lambda: g.read() & adv.read(), "grant&advance")``."""

    fn: Any
    label: str = "fn"
    width: int = 1

    def read(self) -> int:
        return int(self.fn())

    def write(self, value: int) -> None:
        raise TypeError(f"{self.label}: computed binding is read-only")

    @property
    def name(self) -> str:
        return self.label


def _name(sig: Any) -> str:
    return str(getattr(sig, "_name", None) or getattr(sig, "_path", None) or repr(sig))


def pool_from_config(component: Any) -> SignalPool:
    """The test's shared pool from pyuvm's ConfigDB (created on first use).

    pyuvm clears ConfigDB at the start of every test, so each test gets a fresh pool.
    """
    from pyuvm import ConfigDB

    try:
        pool = ConfigDB().get(None, "", CONFIG_KEY)
    except Exception:  # UVMConfigItemNotFound
        pool = SignalPool()
        ConfigDB().set(None, "*", CONFIG_KEY, pool)
    return pool


def lane_int(value: Any, index: int, width: int) -> int:
    """Lane ``index`` (``width`` bits) of a flattened vector's value, e.g. ``sig.value``. Read only
    lanes whose valid is set: the others may hold X on a 4-state simulator (Icarus), where
    ``int()`` of the whole vector fails; an X inside the lane read still fails."""
    bits = str(value)
    return int(bits[len(bits) - (index + 1) * width:len(bits) - index * width], 2)
