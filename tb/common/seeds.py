"""Random seeds: one test seed (cocotb's), one independent stream per component.

``component_rng`` derives a ``random.Random`` from the cocotb seed, the running test's name and the
component's name, so adding or removing a component never shifts another component's stream and a
run reproduces from the printed seed (``SEED=<n>`` with the project runner).
"""
from __future__ import annotations

import hashlib
import random
from typing import Any


def test_seed() -> int:
    """The cocotb seed of this simulation (set from SEED by tools.runner)."""
    import cocotb

    return int(cocotb.RANDOM_SEED)


test_seed.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def derive_seed(seed: int, *names: str) -> int:
    """Stable 64-bit seed from a base seed and names (sha256, independent of PYTHONHASHSEED)."""
    h = hashlib.sha256(":".join([str(seed), *names]).encode()).digest()
    return int.from_bytes(h[:8], "little")


def named_rng(name: str, seed: int | None = None) -> random.Random:
    """A Random for ``name`` derived from ``seed`` (default: the cocotb seed)."""
    base = test_seed() if seed is None else seed
    return random.Random(derive_seed(base, name))


def component_rng(component: Any, seed: int | None = None) -> random.Random:
    """A Random for a pyuvm component: derived from the seed, the test class and its full name."""
    top = component
    while top.get_parent() is not None and top.get_parent().get_parent() is not None:
        top = top.get_parent()
    return named_rng(f"{type(top).__name__}/{component.get_full_name()}", seed)


def base_seed() -> int:
    """The seed SEED sets: cocotb derives each test's seed (test_seed) from it and the test's name,
    so this one, not the test's, reproduces the run."""
    import os

    env = os.environ.get("COCOTB_RANDOM_SEED")
    if env:
        return int(env)
    import cocotb.regression

    return int(cocotb.regression._manager_inst._regression_seed)   # cocotb chose it (no SEED given)


def announce_seed(logger: Any | None = None) -> int:
    """Log (or print) the seed in the form that reproduces the run; returns this test's seed."""
    s = test_seed()
    b = base_seed()
    msg = f"random seed: reproduce with SEED={b} (this test's seed {s} derives from it and the test name)"
    if logger is not None:
        logger.info(msg)
    else:
        print(msg, flush=True)
    return s
