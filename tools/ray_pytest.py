"""pytest on Ray (`make test ENGINE=ray`, `make sim ENGINE=ray`): collected here, run as Ray tasks.

    .venv/bin/python -m pytest -p tools.ray_pytest [pytest options] tests
    RAY_ADDRESS=host:port .venv/bin/python -m pytest -p tools.ray_pytest -m rtl tests

Every RTL test (marker ``rtl``) is one Ray task; the model tests of one file are one task (each is
milliseconds: a task per test would cost more in start-up than it runs). A task copies the tree Ray
shipped (runtime_env working_dir, see sim.engine) to a private directory with ``../shared`` beside
it, runs pytest on its node ids there with the node's build root (``SCALEPOOL_SIM_BUILD``; builds
are reused by content key, tools.runner) and returns pytest's reports, serialized the way
pytest-xdist does, plus every file the tests wrote under results/. The reports go through this
session's hooks, so terminal output, ``-x``, ``--junitxml`` and the exit code are pytest's own and
results/ holds the same files as a local run; each test's junit entry names the node it ran on.

A task lost with its worker or node is rerun by Ray (max_retries); a failing test is a report, never
retried. ``bench()`` gives the ``make bench`` figures regression.seconds_local and
regression.seconds_ray_two_nodes (the same subset, cold builds, both on this machine).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_WORKER_OPT = "--ray-worker-report"


def pytest_addoption(parser) -> None:
    parser.getgroup("ray").addoption(_WORKER_OPT, default=None, metavar="FILE",
                                     help="(inside a Ray task) write this run's serialized reports to FILE")


def pytest_configure(config) -> None:
    if config.getoption("ray_worker_report"):
        config.pluginmanager.register(WorkerReports(config), "ray-worker-reports")
        return
    if getattr(config.option, "numprocesses", None):
        raise pytest.UsageError("-p tools.ray_pytest runs tests on Ray: drop -n (pytest-xdist)")
    config.pluginmanager.register(RayDriver(config), "ray-driver")


# --------------------------------------------------------------------------- worker side
class WorkerReports:
    """Collects this (task-local) session's reports in pytest-xdist's serialized form."""

    def __init__(self, config) -> None:
        self.config = config
        self.reports: list[dict] = []

    def pytest_runtest_logreport(self, report) -> None:
        self.reports.append(self.config.hook.pytest_report_to_serializable(config=self.config, report=report))

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.reports.append(self.config.hook.pytest_report_to_serializable(config=self.config, report=report))

    def pytest_sessionfinish(self, session, exitstatus) -> None:
        Path(self.config.getoption("ray_worker_report")).write_text(
            json.dumps({"reports": self.reports, "exitstatus": int(exitstatus)}, default=str))


def run_items(nodeids: list[str], args: list[str]) -> dict:
    """The Ray task: pytest on ``nodeids`` in a private copy of the shipped tree."""
    from sim.engine import worker_setup

    shared = worker_setup()
    src = Path.cwd()                                   # Ray's working_dir package on this node
    base = Path(tempfile.mkdtemp(prefix="scalepool-task-"))
    t0 = time.perf_counter()
    try:
        repo = base / "repo"
        shutil.copytree(src, repo, symlinks=True,
                        ignore=shutil.ignore_patterns("sim_build", "results", "__pycache__", ".pytest_cache"))
        if shared is not None:
            (base / "shared").mkdir()
            (base / "shared" / "reference").symlink_to(shared)
        report = base / "reports.json"
        env = dict(os.environ, PYTHONPATH=str(repo), PYTHONDONTWRITEBYTECODE="1")
        cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "tools.ray_pytest",
               f"{_WORKER_OPT}={report}", "-q", *args, *nodeids]
        proc = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True)
        data = json.loads(report.read_text()) if report.is_file() else {"reports": [], "exitstatus": None}
        results = repo / "results"
        files = {str(p.relative_to(repo)): p.read_bytes()
                 for p in sorted(results.rglob("*")) if p.is_file()} if results.is_dir() else {}
        return {"reports": data["reports"], "exitstatus": data["exitstatus"], "returncode": proc.returncode,
                "output": (proc.stdout + proc.stderr)[-6000:], "files": files, "node": _node_name(),
                "seconds": time.perf_counter() - t0}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _node_name() -> str:
    import ray

    return f"{ray.util.get_node_ip_address()}/{ray.get_runtime_context().get_node_id()[:8]}"


# --------------------------------------------------------------------------- driver side
def task_groups(items) -> list[list]:
    """One group per RTL test; one per file of the other tests; in collection order."""
    groups: list[list] = []
    by_file: dict[str, list] = {}
    for it in items:
        if it.get_closest_marker("rtl") is not None:
            groups.append([it])
        else:
            f = it.nodeid.split("::", 1)[0]
            if f not in by_file:
                by_file[f] = []
                groups.append(by_file[f])
            by_file[f].append(it)
    return groups


def worker_args(config) -> list[str]:
    """Options that shape the reports a task sends back."""
    out = []
    tb = getattr(config.option, "tbstyle", "auto")
    if tb and tb != "auto":
        out.append(f"--tb={tb}")
    if getattr(config.option, "showlocals", False):
        out.append("-l")
    return out


class RayDriver:
    def __init__(self, config) -> None:
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session) -> bool:
        if session.testsfailed and not session.config.option.continue_on_collection_errors:
            raise session.Interrupted(f"{session.testsfailed} error(s) during collection")
        if session.config.option.collectonly or not session.items:
            return True
        import ray

        from sim.engine import MAX_RETRIES, ray_connect

        groups = task_groups(session.items)
        info = ray_connect()
        n_rtl = sum(1 for g in groups if g[0].get_closest_marker("rtl") is not None)
        self._line(f"ray: {len(session.items)} tests in {len(groups)} tasks ({n_rtl} RTL tests, "
                   f"{len(groups) - n_rtl} files of model tests) on {info['nodes']} node(s), {info['cpus']} CPU(s)")
        remote = ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)(run_items)
        args = worker_args(self.config)
        pending = {remote.remote([it.nodeid for it in g], args): g for g in groups}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            group = pending.pop(ready[0])
            try:
                res = ray.get(ready[0])
            except Exception as exc:     # the task itself failed (not a test): every test in it fails
                res = {"reports": [], "node": "?", "returncode": None, "files": {},
                       "output": f"Ray task failed: {type(exc).__name__}: {exc}"}
            self._report(session, group, res)
            if session.shouldfail or session.shouldstop:
                for ref in pending:
                    ray.cancel(ref, force=True)
                break
        return True

    def _line(self, text: str) -> None:
        tr = self.config.pluginmanager.get_plugin("terminalreporter")
        if tr is not None:
            tr.write_line(text)

    def _report(self, session, group, res: dict) -> None:
        hook = self.config.hook
        for rel, data in res.get("files", {}).items():
            dest = REPO / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
        by_id: dict[str, list] = {}
        for d in res.get("reports", []):
            rep = hook.pytest_report_from_serializable(config=self.config, data=d)
            if getattr(rep, "when", None) is None:      # a collect report: shown with the failure below
                continue
            by_id.setdefault(rep.nodeid, []).append(rep)
        for item in group:
            reps = by_id.get(item.nodeid)
            if not reps:
                reps = [self._missing(item, res)]
            hook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
            for rep in reps:
                rep.user_properties = list(getattr(rep, "user_properties", [])) + [("ray_node", res.get("node", "?"))]
                hook.pytest_runtest_logreport(report=rep)
            hook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)

    @staticmethod
    def _missing(item, res: dict):
        from _pytest.reports import TestReport

        text = (f"no result for this test from its Ray task on node {res.get('node', '?')} "
                f"(pytest exit code {res.get('returncode')}); end of the task's output:\n{res.get('output', '')}")
        return TestReport(item.nodeid, item.location, {k: 1 for k in item.keywords}, "failed", text, "call")


# --------------------------------------------------------------------------- make bench
BENCH_SUBSET = ("tests/test_common_misc.py", "tests/test_cxl_crc.py")


def _timed(cmd: list[str], env: dict, cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - t0, proc


def bench() -> dict[str, float]:
    """Wall seconds of the same regression subset (BENCH_SUBSET, fixed SEED, cold builds): locally
    with pytest-xdist on 2 workers, and as Ray tasks on a two-node cluster on this machine (one CPU
    per node); plus the cluster's start-up time."""
    from ray.cluster_utils import Cluster

    from sim.engine import snapshot_tree

    pytest_cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *BENCH_SUBSET]
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="scalepool-bench-") as tmp:
        tree = snapshot_tree(Path(tmp))         # this checkout's results/ stays untouched
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "PYTEST_"))}
        env.update(SEED="1", SCALEPOOL_SIM_BUILD=str(Path(tmp) / "local-build"))
        secs, proc = _timed(pytest_cmd + ["-n", "2"], env, tree)
        if proc.returncode != 0:
            raise RuntimeError(f"local subset failed:\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}")
        out["regression.seconds_local"] = round(secs, 2)
        t0 = time.perf_counter()
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
        try:
            cluster.add_node(num_cpus=1)
            cluster.wait_for_nodes()
            out["regression.seconds_ray_cluster_start"] = round(time.perf_counter() - t0, 2)
            env.update(RAY_ADDRESS=cluster.address, SCALEPOOL_SIM_BUILD=str(Path(tmp) / "ray-build"))
            secs, proc = _timed(pytest_cmd + ["-p", "tools.ray_pytest"], env, tree)
            if proc.returncode != 0:
                raise RuntimeError(f"Ray subset failed:\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}")
            out["regression.seconds_ray_two_nodes"] = round(secs, 2)
        finally:
            cluster.shutdown()
    return out
