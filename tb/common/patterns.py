"""Per-cycle on/off patterns: valid gating for drivers (idle insertion) and ready for sinks.

``Pattern.next()`` is called once per cycle and says whether the driver may present a beat
(or the sink is ready) in that cycle.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass
class Pattern:
    """One of: always, never, random(p), bursts(on, off), random_bursts, cyclic(seq).

    Build with the class methods; each instance keeps its own state (no shared streams).
    """

    kind: str = "always"
    p: float = 1.0
    on: int = 1
    off: int = 0
    seq: tuple[bool, ...] = ()
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    _pos: int = 0
    _left: int = 0
    _state: bool = True

    @classmethod
    def always(cls) -> "Pattern":
        return cls(kind="always")

    @classmethod
    def never(cls) -> "Pattern":
        return cls(kind="never")

    @classmethod
    def random(cls, p: float, rng: random.Random) -> "Pattern":
        """True with probability ``p`` each cycle, independently."""
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"probability {p} outside [0, 1]")
        return cls(kind="random", p=p, rng=rng)

    @classmethod
    def bursts(cls, on: int, off: int) -> "Pattern":
        """``on`` cycles True then ``off`` cycles False, repeating."""
        if on < 0 or off < 0 or on + off == 0:
            raise ValueError("bursts needs on, off >= 0 and on + off > 0")
        return cls(kind="cyclic", seq=(True,) * on + (False,) * off)

    @classmethod
    def random_bursts(cls, max_on: int, max_off: int, rng: random.Random) -> "Pattern":
        """Alternating True/False runs of uniform random length 1..max_on / 0..max_off."""
        if max_on < 1 or max_off < 0:
            raise ValueError("random_bursts needs max_on >= 1 and max_off >= 0")
        return cls(kind="random_bursts", on=max_on, off=max_off, rng=rng, _state=False)

    @classmethod
    def cyclic(cls, seq: list[bool] | tuple[bool, ...]) -> "Pattern":
        """Repeat an explicit per-cycle sequence."""
        if not seq:
            raise ValueError("cyclic needs a non-empty sequence")
        return cls(kind="cyclic", seq=tuple(bool(s) for s in seq))

    @classmethod
    def from_spec(cls, spec: str | float | None, rng: random.Random) -> "Pattern":
        """Parse 'always' | 'never' | 'random:P' | 'bursts:ON:OFF' | 'rbursts:ON:OFF' | a float P."""
        if spec is None or spec == "always":
            return cls.always()
        if isinstance(spec, (int, float)):
            return cls.random(float(spec), rng)
        parts = spec.split(":")
        if parts[0] == "never":
            return cls.never()
        if parts[0] == "random":
            return cls.random(float(parts[1]), rng)
        if parts[0] == "bursts":
            return cls.bursts(int(parts[1]), int(parts[2]))
        if parts[0] == "rbursts":
            return cls.random_bursts(int(parts[1]), int(parts[2]), rng)
        raise ValueError(f"unknown pattern spec {spec!r}")

    def next(self) -> bool:
        """The value for the next cycle."""
        if self.kind == "always":
            return True
        if self.kind == "never":
            return False
        if self.kind == "random":
            return self.rng.random() < self.p
        if self.kind == "cyclic":
            v = self.seq[self._pos % len(self.seq)]
            self._pos += 1
            return v
        if self.kind == "random_bursts":
            while self._left == 0:
                self._state = not self._state
                self._left = (self.rng.randint(1, self.on) if self._state
                              else self.rng.randint(0, self.off))
            self._left -= 1
            return self._state
        raise ValueError(f"unknown pattern kind {self.kind!r}")
