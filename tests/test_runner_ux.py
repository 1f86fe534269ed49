"""Reproduce-and-debug behaviour of tools.runner, make list, make help and make waves, as a user meets it.

The RTL tests use tb/common/tb_seed_probe.py on the sync_fifo build that tests/test_common_fifo.py
also uses (same parameters: one build, reused by content key).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tools.cocotb_tests import all_tests, module_names
from tools.runner import REPO, TestcaseRefused, fst_available, rtl_sources, run_cocotb, select_testcases

PROBE = dict(top="sync_fifo", sources=rtl_sources("common/sync_fifo.v"), test_module="tb.common.tb_seed_probe",
             parameters={"WIDTH": 8, "DEPTH": 4})
KNOBS = ("SEED", "TESTCASE", "COV", "WAVES", "VL_CFLAGS", "SIM", "ENGINE", "RAY_ADDRESS")


@pytest.fixture
def clean_env(monkeypatch):
    for k in ("SEED", "TESTCASE", "WAVES", "COV"):
        monkeypatch.delenv(k, raising=False)
    return monkeypatch


@pytest.mark.rtl
def test_printed_seed_reproduces_a_failing_test(tmp_path: Path, clean_env) -> None:
    first = tmp_path / "first.json"
    with pytest.raises(AssertionError) as err:
        run_cocotb(**PROBE, testcase="seeded_traffic",
                   extra_env={"SEED_PROBE_OUT": str(first), "SEED_PROBE_FAIL": "1"})
    msg = str(err.value)
    # the failure message itself (what pytest shows, with or without -s) carries the command
    m = re.search(r"reproduce: SEED=(\d+) \.venv/bin/python -m pytest (\S+)", msg)
    assert m, msg
    assert "test_printed_seed_reproduces_a_failing_test" in m.group(2)
    assert "seeded_traffic" in msg        # the failing cocotb test is named, with TESTCASE= to run it alone
    seed = int(m.group(1))
    rec = json.loads(first.read_text())
    assert rec["base_seed"] == seed
    again = tmp_path / "again.json"
    clean_env.setenv("SEED", str(seed))
    with pytest.raises(AssertionError):
        run_cocotb(**PROBE, testcase="seeded_traffic",
                   extra_env={"SEED_PROBE_OUT": str(again), "SEED_PROBE_FAIL": "1"})
    assert json.loads(again.read_text()) == rec        # same draws, same data, same end time
    # The test's own seed (cocotb.RANDOM_SEED inside a test) is derived from SEED and the test name:
    # given as SEED it is derived again, so it cannot reproduce the run. The testbench prints SEED.
    other = tmp_path / "other.json"
    clean_env.setenv("SEED", str(rec["test_seed"]))
    run_cocotb(**PROBE, testcase="seeded_traffic", extra_env={"SEED_PROBE_OUT": str(other)})
    assert json.loads(other.read_text())["data"] != rec["data"]


@pytest.mark.rtl
def test_testcase_runs_exactly_the_named_test(clean_env) -> None:
    clean_env.setenv("TESTCASE", "second_test")
    xml = run_cocotb(**PROBE)
    names = [tc.get("name") for tc in ET.parse(xml).getroot().iter("testcase")]
    assert names == ["second_test"]


@pytest.mark.rtl
def test_waves_are_fst_when_lz4_is_installed(clean_env, capsys) -> None:
    xml = run_cocotb(**PROBE, testcase="second_test", waves=True)
    want = "dump.fst" if fst_available() else "dump.vcd"
    wave = xml.parent / want
    assert wave.is_file() and wave.stat().st_size > 0
    if want == "dump.fst":
        assert not (xml.parent / "dump.vcd").exists()
    assert f"[run_cocotb] waves: {wave}" in capsys.readouterr().out


def test_testcase_typo_is_an_error_that_names_the_tests(clean_env) -> None:
    clean_env.setenv("TESTCASE", "seeded_trafic")
    with pytest.raises(ValueError, match=r"did you mean seeded_traffic.*tb\.common\.tb_seed_probe has: seeded_traffic, second_test"):
        select_testcases("tb.common.tb_seed_probe", None)


def test_testcase_of_another_module_is_refused_with_the_reason(clean_env) -> None:
    clean_env.setenv("TESTCASE", "LoopbackTest")
    with pytest.raises(TestcaseRefused, match="not a cocotb test of tb.common.tb_seed_probe"):
        select_testcases("tb.common.tb_seed_probe", None)


def test_testcase_outside_a_tests_own_choice_is_refused(clean_env) -> None:
    clean_env.setenv("TESTCASE", "second_test")
    with pytest.raises(TestcaseRefused, match="runs only seeded_traffic"):
        select_testcases("tb.common.tb_seed_probe", "seeded_traffic")
    assert select_testcases("tb.common.tb_seed_probe", ["seeded_traffic", "second_test"]) == ["second_test"]
    assert select_testcases("tb.common.tb_seed_probe", None) == ["second_test"]
    clean_env.delenv("TESTCASE")
    assert select_testcases("tb.common.tb_seed_probe", "seeded_traffic") == ["seeded_traffic"]


def test_make_list_names_every_cocotb_test_of_every_module() -> None:
    found = all_tests()
    assert set(found) == set(module_names())
    broken = {m: v for m, v in found.items() if isinstance(v, str)}
    assert not broken, broken
    assert found["tb.common.tb_seed_probe"] == ["seeded_traffic", "second_test"]
    assert all(found[m] for m in found), [m for m in found if not found[m]]
    out = subprocess.run(["make", "-s", "list"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    for mod, tests in found.items():
        assert mod in out
        assert all(f"    {t}\n" in out for t in tests), mod


def test_make_help_lists_every_target_and_knob() -> None:
    out = subprocess.run(["make", "-s", "help"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    targets = re.findall(r"^([a-zA-Z][a-zA-Z0-9_-]*):(?!=)", (REPO / "Makefile").read_text(), re.M)
    assert targets
    for t in targets:
        assert re.search(rf"^  make {re.escape(t)} ", out, re.M), t
    assert "(no description)" not in out
    for k in KNOBS:
        assert re.search(rf"^  {k}=", out, re.M), k


def test_make_waves_fails_clearly_when_test_matches_nothing() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "MAKE"))}
    r = subprocess.run(["make", "-s", "waves", "TEST=no_such_test_xyz"], cwd=REPO, env=env,
                       capture_output=True, text=True)
    assert r.returncode != 0
    assert "TEST='no_such_test_xyz' matches no RTL test" in r.stdout + r.stderr


def test_long_first_order_names_collected_tests() -> None:
    """Every test tests/conftest.py starts first exists (a renamed test would silently start late)
    and the collection begins with them; the Ray cluster test comes last."""
    import sys

    from tests.conftest import _LONG_FIRST
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "tests"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    ids = [line.split("tests/", 1)[1] for line in out.splitlines() if line.startswith("tests/")]
    missing = [t for t in _LONG_FIRST if t not in ids]
    assert not missing, f"tests/conftest.py _LONG_FIRST names tests that do not exist: {missing}"
    assert ids[:len(_LONG_FIRST)] == list(_LONG_FIRST), ids[:len(_LONG_FIRST)]
    assert ids[-1].startswith("test_engine_ray.py"), ids[-1]
