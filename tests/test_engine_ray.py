"""The Ray engine for real: a two-node Ray cluster on this machine (ray.cluster_utils: a head and one
worker node, one CPU each) runs a small regression and a small sweep whose results must equal the
local run's; a failing test is reported once, never retried; a node lost mid-task has its task rerun.

Both runs happen in a copy of the checkout (sim.engine.snapshot_tree), so this checkout's results/
is untouched. The local run builds into this checkout's sim_build (builds reused by content key);
the Ray run into an empty build root, so the cluster's workers build their own simulators.
Ray binds the machine's own address, not 127.0.0.1: it rewrites loopback addresses to it
(ray._private.services.resolve_ip_for_localhost).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from sim.engine import snapshot_tree

pytestmark = pytest.mark.ray_cluster

RTL_TESTS = ["tests/test_common_misc.py::test_rr_arbiter[4]", "tests/test_common_misc.py::test_credit_counter[4-9]"]
MODEL_TESTS = ["tests/test_cxl_crc.py"]
FAILING = "tests/test_zz_fails_on_purpose.py::test_fails_on_purpose"
FAILING_SRC = '''import os
from pathlib import Path

import pytest


@pytest.mark.rtl
def test_fails_on_purpose() -> None:
    Path(os.environ["ATTEMPTS_DIR"], f"attempt-{os.getpid()}").touch()
    assert False, "fails on purpose"
'''
GRID = '''target: system
grid:
  topology.cxl_ports_per_gpu: [1, 2]
  scaleout.nic_gbps: [50.0, 100.0]
'''
TIMEOUT = 900


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "RAY_")) and k not in ("SEED", "TESTCASE", "WAVES", "COV")}
    env.update(SEED="7", PYTHONDONTWRITEBYTECODE="1", **extra)
    return env


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)


def _outcomes(junit: Path) -> dict[str, tuple[str, list[str]]]:
    """test -> (outcome, ray nodes) from pytest's junit XML."""
    out = {}
    for tc in ET.parse(junit).getroot().iter("testcase"):
        outcome = "failed" if tc.find("failure") is not None or tc.find("error") is not None else \
            "skipped" if tc.find("skipped") is not None else "passed"
        nodes = [p.get("value") for p in tc.iter("property") if p.get("name") == "ray_node"]
        out[f"{tc.get('classname')}::{tc.get('name')}"] = (outcome, nodes)
    return out


def _cocotb(xml_dir: Path) -> dict[str, list[tuple]]:
    """file -> [(test, failed, seed, simulated ns)] of the cocotb results copied to results/."""
    out = {}
    for f in sorted(xml_dir.glob("*.xml")):
        rows = []
        for tc in ET.parse(f).getroot().iter("testcase"):
            props = {p.get("name"): p.get("value") for p in tc.iter("property")}
            rows.append((tc.get("name"), tc.find("failure") is not None, props.get("random_seed"),
                         props.get("sim_time_stop")))
        out[f.name] = rows
    return out


def test_two_node_cluster_regression_sweep_and_lost_node(tmp_path: Path) -> None:
    if os.environ.get("SCALEPOOL_ENGINE_WORKER"):
        pytest.skip("starts a Ray cluster of its own: not run inside an ENGINE=ray task")
    from ray.cluster_utils import Cluster

    from tools.runner import SIM_BUILD

    repo = snapshot_tree(tmp_path / "tree")
    (repo / FAILING.split("::")[0]).write_text(FAILING_SRC)
    (tmp_path / "grid.yaml").write_text(GRID)
    pytest_cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--junitxml=results/junit.xml",
                  *RTL_TESTS, *MODEL_TESTS, FAILING]

    # ---- local: pytest-xdist, this checkout's builds
    local_env = _env(SCALEPOOL_SIM_BUILD=str(SIM_BUILD), ATTEMPTS_DIR=str(tmp_path / "attempts-local"))
    (tmp_path / "attempts-local").mkdir()
    local = _run(pytest_cmd + ["-n", "2"], repo, local_env)
    assert local.returncode == 1, local.stdout[-3000:]              # exactly the test that fails on purpose
    (repo / "results").rename(tmp_path / "results-local")
    sweep_local = _run([sys.executable, "-m", "sim.sweep", "--grid", str(tmp_path / "grid.yaml"), "--engine", "local",
                        "--out", str(tmp_path / "sweep-local"), "--no-progress"], repo, local_env)
    assert sweep_local.returncode == 0, sweep_local.stderr[-3000:]

    t0 = time.perf_counter()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        worker = cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        start_s = time.perf_counter() - t0
        ray_env = _env(RAY_ADDRESS=cluster.address, SCALEPOOL_SIM_BUILD=str(tmp_path / "ray-build"),
                       ATTEMPTS_DIR=str(tmp_path / "attempts-ray"))
        (tmp_path / "attempts-ray").mkdir()

        # ---- the same regression as Ray tasks on the two nodes
        t1 = time.perf_counter()
        dist = _run(pytest_cmd + ["-p", "tools.ray_pytest"], repo, ray_env)
        ray_s = time.perf_counter() - t1
        assert dist.returncode == 1, dist.stdout[-3000:] + dist.stderr[-3000:]
        assert "fails on purpose" in dist.stdout
        lo, ra = _outcomes(tmp_path / "results-local" / "junit.xml"), _outcomes(repo / "results" / "junit.xml")
        assert {k: v[0] for k, v in lo.items()} == {k: v[0] for k, v in ra.items()}
        assert sum(v[0] == "passed" for v in ra.values()) >= 10 and len(ra) == len(lo)
        nodes = {n for _, ns in ra.values() for n in ns}
        assert len(nodes) == 2, nodes                                   # both nodes ran tests
        # same cocotb results files, same tests, seeds and simulated end times
        assert _cocotb(tmp_path / "results-local" / "regression" / "xml") == _cocotb(repo / "results" / "regression" / "xml")
        assert len(_cocotb(repo / "results" / "regression" / "xml")) == len(RTL_TESTS)
        # the failing test ran once on Ray (no retry of a failure)
        assert len(list((tmp_path / "attempts-ray").iterdir())) == 1
        # the workers built their own simulators, with the same content keys as the local builds
        for tag in ("rr_arbiter-N4", "credit_counter-INIT9-WIDTH4"):
            key = (tmp_path / "ray-build" / tag / ".build_key").read_text()
            assert key == (SIM_BUILD / tag / ".build_key").read_text()

        # ---- the same sweep as Ray tasks
        sweep_ray = _run([sys.executable, "-m", "sim.sweep", "--grid", str(tmp_path / "grid.yaml"), "--engine", "ray",
                          "--out", str(tmp_path / "sweep-ray"), "--no-progress"], repo, ray_env)
        assert sweep_ray.returncode == 0, sweep_ray.stderr[-3000:]
        import pandas as pd
        a = pd.read_parquet(tmp_path / "sweep-local" / "sweep.parquet")
        b = pd.read_parquet(tmp_path / "sweep-ray" / "sweep.parquet")
        assert len(a) == 4 and a.equals(b)
        assert (tmp_path / "sweep-ray" / "sweep.csv").read_text() == (tmp_path / "sweep-local" / "sweep.csv").read_text()

        # ---- a node lost mid-task: its task reruns on the surviving node
        marks = tmp_path / "marks"
        marks.mkdir()
        probe = subprocess.Popen([sys.executable, "-m", "sim.engine", "--engine", "ray", "--probe", "2", "--seconds", "6",
                                  "--marker-dir", str(marks)], cwd=repo, env=ray_env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 300
            while len(list(marks.iterdir())) < 2 and time.monotonic() < deadline and probe.poll() is None:
                time.sleep(0.2)
            first = sorted(p.name for p in marks.iterdir())
            assert len(first) == 2, (first, probe.poll())
            lost = worker.node_id[:12]
            assert any(lost in m for m in first), (first, lost)          # one task was on the worker node
            cluster.remove_node(worker)
            out, err = probe.communicate(timeout=TIMEOUT)
        finally:
            if probe.poll() is None:
                probe.kill()
        assert probe.returncode == 0, err[-3000:]
        res = json.loads(out.strip().splitlines()[-1])
        assert [r["item"] for r in res] == [0, 1] and all(lost not in r["node"] for r in res)
        assert len(list(marks.iterdir())) == 3                         # the lost task's second attempt
    finally:
        cluster.shutdown()
    print(f"\n[ray] cluster start {start_s:.1f} s; regression on Ray {ray_s:.1f} s")
