"""pytest configuration shared by all tests."""
from __future__ import annotations

import os

import pytest
from hypothesis import settings

# Property tests check behaviour, not speed: a loaded CI machine must not turn a slow example into
# a failure (hypothesis' default deadline is 200 ms per example). The database is off so runs do
# not depend on earlier runs; failing examples are printed with their reproduction blob.
settings.register_profile("project", deadline=None, database=None, print_blob=True)
settings.load_profile("project")


# Verilator C++ builds dominate the regression: start RTL tests first (heaviest files first) so that
# the quick model tests fill the workers' idle time at the end instead of a long build starting last.
_RTL_FILE_ORDER = ("test_cosim_hil", "test_cosim", "test_switch", "test_link256", "test_bridge", "test_coherence",
                   "test_link")


def _order_key(item) -> tuple[int, int]:
    if item.get_closest_marker("rtl") is None:
        return (1, 0)
    name = item.path.stem if hasattr(item, "path") else ""
    rank = _RTL_FILE_ORDER.index(name) if name in _RTL_FILE_ORDER else len(_RTL_FILE_ORDER)
    return (0, rank)


def pytest_collection_modifyitems(session, config, items) -> None:
    items.sort(key=_order_key)   # stable: order inside a file is kept
    # TESTCASE picks cocotb tests (tools.runner checks it in each RTL test): say so for the others.
    tc = os.environ.get("TESTCASE", "").strip()
    if tc:
        skip = pytest.mark.skip(reason=f"TESTCASE={tc} selects cocotb tests; this test runs no simulation")
        for item in items:
            if item.get_closest_marker("rtl") is None:
                item.add_marker(skip)
    # The Ray cluster test runs a Ray cluster of its own: start it first (it is long), never nested.
    items.sort(key=lambda it: it.get_closest_marker("ray_cluster") is None)
