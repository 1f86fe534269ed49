"""Random stress of the coherence model: many devices on few addresses (heavy conflicts), directory
capacity pressure, error injection. Every run prints its seed; COH_SEED=<n> (or SEED=<n>) reruns one seed and
COH_STRESS_STEPS=<n> changes the run length."""
from __future__ import annotations

import os

import pytest

from models.coherence import SysConfig
from models.coherence.protocol import REQUEST_OPS
from models.coherence.stress import run_random
from models.cxl.messages import D2HReqOp

STEPS = int(os.environ.get("COH_STRESS_STEPS", "4000"))


def _seeds(n: int, base: int) -> list[int]:
    for var in ("COH_SEED", "SEED"):
        if os.environ.get(var):
            return [int(os.environ[var])]
    return [base + i for i in range(n)]


HEAVY = SysConfig(n_devices=8, lines=(0, 1, 0x200), sets=2, ways=2, coherent=((0, 0x100),),
                  max_requests=None, max_writes=None, n_cqid=4, loads=True)
PRESSURE = SysConfig(n_devices=4, lines=(0, 1, 2, 3, 4, 5), sets=2, ways=1, max_requests=None,
                     max_writes=None, n_cqid=3, loads=True)
FOUR = SysConfig(n_devices=4, lines=(0, 1), sets=4, ways=2, max_requests=None, max_writes=None, loads=True,
                 snoop_choices=True)


def _run(cfg: SysConfig, seed: int, **kw: object):
    print(f"\ncoherence stress seed={seed} (rerun: COH_SEED={seed})")
    r = run_random(cfg, seed, steps=STEPS, **kw)  # type: ignore[arg-type]
    print(f"  steps={r.steps} drained={r.drained} errors={ {k: v for k, v in r.errors.items() if v} }")
    assert r.ok, (r.violations[:5], {k: v[:3] for k, v in r.trace_violations.items() if v})
    return r


@pytest.mark.parametrize("seed", _seeds(3, 100))
def test_stress_heavy_conflicts_8_devices(seed: int) -> None:
    r = _run(HEAVY, seed)
    assert r.stats.get("conflict_wait", 0) > 50
    assert r.stats.get("snoops", 0) > 20
    assert not any(r.errors.values())


@pytest.mark.parametrize("seed", _seeds(3, 200))
def test_stress_directory_pressure(seed: int) -> None:
    r = _run(PRESSURE, seed)
    assert r.stats.get("back_invalidations", 0) > 10
    assert not any(r.errors.values())


@pytest.mark.parametrize("seed", _seeds(2, 300))
def test_stress_random_snoop_answers(seed: int) -> None:
    """Devices answer snoops with a random legal answer for their state (snoop_choices=True)."""
    r = _run(FOUR, seed)
    answers = {k.rsplit(":", 1)[1] for k in r.stats if k.startswith("cov:RDCURR:E:")}
    assert len(answers) >= 3, answers


@pytest.mark.parametrize("seed", _seeds(3, 400))
def test_stress_error_injection(seed: int) -> None:
    r = _run(HEAVY, seed, error_rate=0.03)
    assert sum(r.injected.values()) > 20
    for kind, n in r.injected.items():
        assert r.errors[kind] == n, (kind, n, r.errors)
    assert sum(v for k, v in r.errors.items() if k not in r.injected) == 0


def test_stress_issues_every_request_type() -> None:
    """Every request type goes through the home under heavy conflicts. The run chases opcodes not
    yet issued (run_random chase_ops): plain random issue misses CacheFlushed, legal only while a
    device holds and awaits nothing, in 33 of 40 seeds (SEED=1 among them)."""
    seed = _seeds(1, 500)[0]
    r = _run(HEAVY, seed, chase_ops=True)
    seen = {int(k[4:]) for k in r.stats if k.startswith("req_")}
    assert seen == {int(op) for op in REQUEST_OPS}, sorted(D2HReqOp(o).name for o in set(map(int, REQUEST_OPS)) - seen)
