"""Fault soak, CI version (`make soak` runs the 1,000,000-message one): 10,000 messages per flit
mode through two cxl_link endpoints joined by faulty channels, and 10,000 (requests and answers)
through the 4-port switch with a faulty channel on each direction of every link (bit errors at
BER 1e-6, 1e-5 and 1e-4, bursts, dropped and duplicated flits, wire stalls, consumer off periods
that starve the sender of credits); and negatives in which a duplicate, a corruption or (switch) a
lost request bypasses the link layer and the in-HDL checkers must report it. Each point prints
its seed (SEED=<n> reproduces it)."""
from __future__ import annotations

import pytest

from tb.soak import CI_OPT, ci_points, run_point

POINTS = [p for p in ci_points() if p.top == "link"]
SWITCH_POINTS = [p for p in ci_points() if p.top == "switch"]


def check(point) -> None:
    r = run_point(point, CI_OPT)
    assert r["passed"], r.get("failure", r)
    if point.expect == "clean":
        assert r["messages"] == r["target"] and r["lost"] == r["duplicated"] == r["reordered"] == r["corrupted"] == 0, r


# The 256B points are in the full tier (make sim, make test FULL=1): their -O1 build is about
# 3 CPU-minutes, and make test already runs 256B endpoints under bit errors (the link loopback's
# IdleBitErrorTest, the switch cascade); the 68B points and the negatives stay in make test.
@pytest.mark.rtl
@pytest.mark.parametrize("point", [pytest.param(p, id=p.name, marks=pytest.mark.full if p.name.startswith("link256")
                                                else ()) for p in POINTS])
def test_link_soak(point) -> None:
    check(point)


# full tier (make sim, make test FULL=1): the switch soak top's build is about 3.5 CPU-minutes
@pytest.mark.rtl
@pytest.mark.full
@pytest.mark.parametrize("point", SWITCH_POINTS, ids=[p.name for p in SWITCH_POINTS])
def test_switch_soak(point) -> None:
    check(point)
