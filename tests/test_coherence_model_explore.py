"""Exhaustive exploration of the coherence model (all interleavings of message deliveries and device
actions) for small configurations, plus negative tests proving the invariants/checkers are not vacuous.

Set COH_EXPLORE_BIG=1 to also run the larger configurations (minutes each)."""
from __future__ import annotations

import os

import pytest

from models.coherence import SysConfig, explore
from models.coherence.protocol import REQUEST_OPS
from models.coherence.stress import run_random
from models.cxl.messages import D2HReqOp as Op

READS_EVICTS = frozenset({Op.RDSHARED, Op.RDOWN, Op.RDANY, Op.RDCURR, Op.CLEANEVICT, Op.DIRTYEVICT,
                          Op.CLEANEVICTNODATA})
WRITES = frozenset({Op.RDOWN, Op.RDOWNNODATA, Op.ITOMWR, Op.WRCUR, Op.WRINV, Op.CLFLUSH, Op.DIRTYEVICT})

# name -> (config, coverage points that must be reached)
CONFIGS: dict[str, tuple[SysConfig, set[str]]] = {
    "2dev_1line_reads_evicts": (
        SysConfig(n_devices=2, lines=(0,), ops=READS_EVICTS, max_requests=2, max_writes=1, mem_atomic=True),
        {"cov:RDSHARED:E:RSPSFWDM", "cov:RDANY:E:RSPSHITSE", "cov:RDOWN:S:RSPIHITSE", "cov:RDOWN:E:RSPIFWDM",
         "cov:RDCURR:E:RSPVFWDV", "cov:DIRTYEVICT:E_self:none", "cov:CLEANEVICT:E_self:none",
         "cov:CLEANEVICTNODATA:S_self:none", "conflict_wait"}),
    "2dev_1line_writes": (
        SysConfig(n_devices=2, lines=(0,), ops=WRITES, max_requests=2, max_writes=2, mem_atomic=True),
        {"cov:ITOMWR:E:RSPIFWDM", "cov:WRCUR:E:RSPIHITSE", "cov:WRINV:E:RSPIFWDM", "cov:CLFLUSH:E:RSPIFWDM",
         "cov:RDOWNNODATA:E:RSPIFWDM", "cov:ITOMWR:I:none"}),
    "2dev_1line_all_snoop_answers": (
        SysConfig(n_devices=2, lines=(0,), ops=frozenset({Op.RDSHARED, Op.RDANY, Op.RDCURR, Op.RDOWN}),
                  max_requests=2, max_writes=1, snoop_choices=True, mem_atomic=True),
        {"cov:RDSHARED:E:RSPIFWDM", "cov:RDSHARED:E:RSPIHITI", "cov:RDANY:E:RSPIFWDM", "cov:RDCURR:E:RSPSFWDM",
         "cov:RDCURR:E:RSPIFWDM", "cov:RDCURR:E:RSPSHITSE", "cov:RDCURR:E:RSPVHITV"}),
    "3dev_1line_reads": (
        SysConfig(n_devices=3, lines=(0,), ops=frozenset({Op.RDSHARED, Op.RDOWN, Op.RDANY, Op.DIRTYEVICT,
                                                           Op.CLEANEVICTNODATA}),
                  max_requests=1, max_writes=1, mem_atomic=True),
        {"cov:RDOWN:S:RSPIHITSE", "conflict_wait"}),
    "3dev_1line_writes": (
        SysConfig(n_devices=3, lines=(0,), ops=frozenset({Op.RDSHARED, Op.ITOMWR, Op.WRINV, Op.CLFLUSH, Op.RDCURR}),
                  max_requests=1, max_writes=1, mem_atomic=True, silent_drop=False),
        {"cov:ITOMWR:S:RSPIHITSE", "cov:CLFLUSH:S:RSPIHITSE"}),
    "2dev_2lines_1way_back_invalidation": (
        SysConfig(n_devices=2, lines=(0, 1), sets=1, ways=1, ops=frozenset({Op.RDOWN, Op.DIRTYEVICT}),
                  max_requests=2, max_writes=1, mem_atomic=True, silent_drop=False),
        {"back_invalidations", "cov:DIRTYEVICT:I:none"}),
    "3dev_2lines_1way_back_invalidation": (
        SysConfig(n_devices=3, lines=(0, 1), sets=1, ways=1, ops=frozenset({Op.RDSHARED, Op.RDOWN}),
                  max_requests=1, max_writes=1, mem_atomic=True, silent_drop=False),
        {"back_invalidations"}),
    "2dev_selective_coherence": (
        SysConfig(n_devices=2, lines=(0, 0x100), coherent=((0, 0x100),), max_requests=1, max_writes=1,
                  mem_atomic=True),
        {"cov:ITOMWR:NC:none", "cov:RDCURR:NC:none", "cov:RDSHARED:E:RSPSFWDM"}),
    "2dev_1line_weak_writes_cacheflushed": (
        SysConfig(n_devices=2, lines=(0,), ops=frozenset({Op.RDSHARED, Op.RDOWN, Op.WOWRINV, Op.WOWRINVF,
                                                           Op.CACHEFLUSHED}),
                  max_requests=1, max_writes=2, mem_atomic=True),
        {"cov:WOWRINV:E:RSPIFWDM", "cov:WOWRINVF:S:RSPIHITSE", "cov:WOWRINV:I:none", f"req_{int(Op.CACHEFLUSHED)}"}),
    "2dev_1line_all_ops_memory_latency": (
        SysConfig(n_devices=2, lines=(0,), max_requests=1, max_writes=1, mem_atomic=False),
        {"cov:RDOWN:E:RSPIHITSE"}),
}

BIG: dict[str, SysConfig] = {
    "2dev_1line_all_ops_r2w2": SysConfig(n_devices=2, lines=(0,), max_requests=2, max_writes=2, mem_atomic=True),
    "3dev_1line_all_ops_r1w1": SysConfig(n_devices=3, lines=(0,), max_requests=1, max_writes=1, mem_atomic=True),
    "2dev_2lines_1way_r2": SysConfig(n_devices=2, lines=(0, 1), sets=1, ways=1,
                                     ops=frozenset({Op.RDSHARED, Op.RDOWN, Op.DIRTYEVICT}), max_requests=2,
                                     max_writes=1, mem_atomic=True, silent_drop=False),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_explore_no_deadlock_no_violation(name: str) -> None:
    cfg, must_cover = CONFIGS[name]
    r = explore(cfg)
    print(f"\nexplore {name}: {r.summary()}")
    assert r.ok, f"{r.violations[:3]} counterexample={r.counterexample}"
    assert r.terminal > 0 and r.truncated == 0
    assert r.states > 100
    missing = must_cover - r.coverage
    assert not missing, f"coverage holes: {sorted(missing)}"


def test_explore_covers_every_request_type() -> None:
    ops: set[int] = set()
    for cfg, _ in CONFIGS.values():
        ops |= set(cfg.ops)
    assert ops == set(REQUEST_OPS)


def test_explore_depth_bound() -> None:
    cfg = SysConfig(n_devices=2, lines=(0,), ops=REQUEST_OPS - {Op.WOWRINV, Op.WOWRINVF, Op.CACHEFLUSHED},
                    max_requests=None, max_writes=None, mem_atomic=True)
    r = explore(cfg, max_depth=8)
    print(f"\nexplore unbounded budgets, depth 8: {r.summary()}")
    assert r.ok and r.truncated > 0 and r.max_depth == 8


@pytest.mark.skipif(not os.environ.get("COH_EXPLORE_BIG"), reason="set COH_EXPLORE_BIG=1 (minutes per config)")
@pytest.mark.parametrize("name", sorted(BIG))
def test_explore_big(name: str) -> None:
    r = explore(BIG[name])
    print(f"\nexplore {name}: {r.summary()}")
    assert r.ok, f"{r.violations[:3]} counterexample={r.counterexample}"


# ------------------------------------------------------------------ negative: broken protocol variants
NEG_CFG = SysConfig(n_devices=2, lines=(0,), ops=frozenset({Op.RDSHARED, Op.RDOWN, Op.RDANY, Op.DIRTYEVICT}),
                    max_requests=2, max_writes=1, mem_atomic=True)


@pytest.mark.parametrize("fault,invariant", [
    ("skip_sharer_inv", "SWMR"),  # RdOwn does not invalidate the sharers
    ("early_go", "SWMR"),  # GO before the snoop responses
    ("no_fwd_writeback", "memory"),  # dirty data that becomes shared never reaches memory
    ("no_fwd_writeback", "data"),  # ... so a later read from memory returns a stale value
])
def test_explore_finds_broken_variant(fault: str, invariant: str) -> None:
    from dataclasses import replace
    r = explore(replace(NEG_CFG, fault=fault), only=frozenset({invariant}))
    print(f"\nexplore fault={fault} checking {invariant}: {r.summary()} -> {r.violations[:1]}")
    assert not r.ok
    assert r.violations[0].startswith(invariant)
    assert r.counterexample


@pytest.mark.parametrize("fault,checker", [
    ("skip_sharer_inv", "swmr"), ("early_go", "ordering"), ("early_go", "swmr"), ("no_fwd_writeback", "data"),
])
def test_trace_checkers_catch_broken_variant(fault: str, checker: str) -> None:
    """The trace checkers alone (what the RTL testbench will run) catch each broken variant."""
    cfg = SysConfig(n_devices=4, lines=(0, 1), sets=2, ways=2, max_requests=None, max_writes=None, loads=True,
                    fault=fault)
    hits = 0
    for seed in range(1, 6):
        print(f"seed={seed} fault={fault}")
        r = run_random(cfg, seed, steps=1500, check_every=0)
        hits += bool(r.trace_violations[checker])
    assert hits > 0


def test_trace_checkers_quiet_on_correct_protocol() -> None:
    cfg = SysConfig(n_devices=4, lines=(0, 1), sets=2, ways=2, max_requests=None, max_writes=None, loads=True)
    for seed in range(1, 4):
        print(f"seed={seed}")
        r = run_random(cfg, seed, steps=1500, check_every=0)
        assert r.ok, (r.violations[:3], r.trace_violations)
