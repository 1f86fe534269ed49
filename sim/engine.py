"""Run independent tasks here or on a Ray cluster: RTL tests, co-simulation load points, sweep points.

    from sim.engine import map_tasks
    results = map_tasks(run_point, points, engine=None, desc="load points")

``fn`` is a module-level function (Ray pickles it by reference and imports its module on the
worker from the shipped tree) taking one item and returning a picklable value; results come back
in the order of ``items``. ``engine``: ``"local"``, ``"ray"`` or None (``$ENGINE``, default local).

- local: one after another in this process (``jobs=1``, the default: right for millisecond model
  points) or a process pool of ``jobs`` workers (simulations: ``jobs=None`` means ``$JOBS`` or
  every core).
- ray: one Ray task per item (``num_cpus`` each). With ``RAY_ADDRESS=host:port`` it joins that
  cluster, otherwise it starts Ray on this machine. The working tree travels with Ray's runtime_env
  ``working_dir`` (without .venv, sim_build, results, .git: a few MB), ``../shared/reference`` as a
  py_module; the worker nodes need the same Python and packages as .venv (`pip install -r
  .venv/requirements.txt`). Each node builds its own simulators into a node-local build root
  (``SCALEPOOL_SIM_BUILD``: this checkout's sim_build/ when Ray runs here, else
  /tmp/scalepool-sim-build), where tools.runner reuses any build whose content key matches.
  A task whose worker or node dies is rerun (``max_retries``, Ray's retries for system failures); an
  exception raised by ``fn`` is never retried (``retry_exceptions=False``): it is a result.

``on_error="raise"`` raises :class:`TaskError` naming every failed item after all have finished;
``"return"`` puts the exception in that item's place. A progress bar (tqdm) goes to stderr.

``python -m sim.engine [--engine ray] [--probe N]`` prints where tasks would run (nodes, CPUs).
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED_REFERENCE = REPO.parent / "shared" / "reference"
ENGINES = ("local", "ray")
# Never shipped to Ray workers (Ray's own size limit is 500 MiB; the tree without these is a few MB).
EXCLUDES = [".venv", "sim_build", "results", ".git", "__pycache__", ".pytest_cache", ".hypothesis",
            "*.vcd", "*.fst", "*.pyc"]
MAX_RETRIES = 3
# Driver environment that stays on the driver's machine; every other variable (SEED, TESTCASE,
# WAVES, VL_CFLAGS, the testbenches' own knobs, ...) is passed to the tasks.
_LOCAL_ONLY = ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "HOSTNAME", "TMPDIR", "TERM",
               "DISPLAY", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "LD_LIBRARY_PATH", "VERILATOR_ROOT",
               "SHLVL", "_", "MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKE_TERMOUT", "MAKE_TERMERR", "COLUMNS",
               "LINES", "JOBS", "PYTEST_CURRENT_TEST", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER",
               "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID", "OMP_NUM_THREADS")
_LOCAL_PREFIXES = ("RAY_", "SSH_", "XDG_", "LC_", "LANG", "PYENV", "CONDA", "DBUS_", "TERM_",
                   "GITHUB_")


class TaskError(RuntimeError):
    """Some items failed; ``failures`` maps item index -> (item, formatted error)."""

    def __init__(self, failures: dict[int, tuple[Any, str]], n: int) -> None:
        self.failures = failures
        first = next(iter(failures.values()))
        super().__init__(f"{len(failures)} of {n} tasks failed; first: item {first[0]!r}:\n{first[1]}")


def engine_name(engine: str | None = None) -> str:
    name = (engine or os.environ.get("ENGINE") or "local").strip().lower()
    if name not in ENGINES:
        raise ValueError(f"engine {name!r}: use one of {', '.join(ENGINES)}")
    return name


def task_env(local_cluster: bool) -> dict[str, str]:
    """Environment variables of every Ray task."""
    env = {k: v for k, v in os.environ.items()
           if k not in _LOCAL_ONLY and not k.startswith(_LOCAL_PREFIXES)}
    if "SCALEPOOL_SIM_BUILD" not in env:
        env["SCALEPOOL_SIM_BUILD"] = str(REPO / "sim_build") if local_cluster else "/tmp/scalepool-sim-build"
    env.update(SCALEPOOL_ENGINE_WORKER="1", PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg")
    return env


def ray_connect(num_cpus: int | None = None, quiet: bool = False) -> dict:
    """Join RAY_ADDRESS's cluster or start Ray here (once per process); returns the cluster's size."""
    import ray

    if not ray.is_initialized():
        address = os.environ.get("RAY_ADDRESS") or None
        runtime_env: dict[str, Any] = {"working_dir": str(REPO), "excludes": EXCLUDES,
                                       "env_vars": task_env(local_cluster=address is None)}
        if SHARED_REFERENCE.is_dir():
            runtime_env["py_modules"] = [str(SHARED_REFERENCE)]
        # Ray prints a warning for each default exclude it applies (.git, .venv): ours already are.
        os.environ.setdefault("RAY_OVERRIDE_RUNTIME_ENV_DEFAULT_EXCLUDES", "")
        kw: dict[str, Any] = dict(runtime_env=runtime_env, logging_level=logging.WARNING,
                                  log_to_driver=False, configure_logging=True)
        if address:
            ray.init(address=address, **kw)
        else:
            jobs = num_cpus or int(os.environ.get("JOBS") or 0) or None
            ray.init(num_cpus=jobs, include_dashboard=False, **kw)
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    info = {"address": os.environ.get("RAY_ADDRESS") or "local", "nodes": len(nodes),
            "cpus": int(sum(n.get("Resources", {}).get("CPU", 0) for n in nodes))}
    if not quiet:
        print(f"ray: {'cluster ' + info['address'] if info['address'] != 'local' else 'Ray started on this machine'}"
              f": {info['nodes']} node(s), {info['cpus']} CPU(s)", file=sys.stderr, flush=True)
    return info


def snapshot_tree(dest: Path) -> Path:
    """Copy this checkout (without EXCLUDES) to ``dest/repo`` with ``dest/shared/reference`` beside it
    (a symlink): a tree to run a command in without touching this checkout's results/. Returns the copy."""
    import shutil

    repo = Path(dest) / "repo"
    shutil.copytree(REPO, repo, symlinks=True, ignore=shutil.ignore_patterns(*EXCLUDES))
    if SHARED_REFERENCE.is_dir():
        (Path(dest) / "shared").mkdir(exist_ok=True)
        (Path(dest) / "shared" / "reference").symlink_to(SHARED_REFERENCE)
    return repo


def worker_setup() -> Path | None:
    """On a Ray worker: point SCALEPOOL_TARGETS at the shipped shared reference; returns its directory."""
    for p in sys.path:
        for cand in (Path(p), Path(p) / "reference"):
            if "py_modules_files" in str(cand) and (cand / "targets.md").is_file():
                os.environ.setdefault("SCALEPOOL_TARGETS", str(cand / "targets.md"))
                return cand
    return SHARED_REFERENCE if SHARED_REFERENCE.is_dir() else None


def _call(fn: Callable[[Any], Any], item: Any) -> Any:
    worker_setup()
    return fn(item)


def _progress(total: int, desc: str | None, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, disable=not enabled, file=sys.stderr, dynamic_ncols=True,
                mininterval=0.5)


def map_tasks(fn: Callable[[Any], Any], items: Iterable[Any], *, engine: str | None = None,
              desc: str | None = None, num_cpus: float = 1, jobs: int | None = 1, progress: bool = True,
              on_error: str = "raise", max_retries: int = MAX_RETRIES) -> list[Any]:
    """``[fn(item) for item in items]``, run by ``engine`` (see the module docstring)."""
    items = list(items)
    name = engine_name(engine)
    if on_error not in ("raise", "return"):
        raise ValueError("on_error: 'raise' or 'return'")
    results: list[Any] = [None] * len(items)
    failures: dict[int, tuple[Any, str]] = {}

    def done(i: int, value: Any = None, exc: BaseException | None = None) -> None:
        if exc is None:
            results[i] = value
        else:
            results[i] = exc
            failures[i] = (items[i], "".join(traceback.format_exception(exc)).strip())

    with _progress(len(items), desc, progress) as bar:
        if name == "local":
            n_jobs = jobs if jobs is not None else int(os.environ.get("JOBS") or 0) or os.cpu_count() or 1
            if n_jobs <= 1 or len(items) <= 1:
                for i, it in enumerate(items):
                    try:
                        done(i, fn(it))
                    except Exception as exc:   # a failed item is a result; the others still run
                        done(i, exc=exc)
                    bar.update()
            else:
                from concurrent.futures import ProcessPoolExecutor, as_completed
                with ProcessPoolExecutor(max_workers=n_jobs) as pool:
                    futs = {pool.submit(fn, it): i for i, it in enumerate(items)}
                    for f in as_completed(futs):
                        try:
                            done(futs[f], f.result())
                        except Exception as exc:
                            done(futs[f], exc=exc)
                        bar.update()
        else:
            import ray

            ray_connect()
            remote = ray.remote(num_cpus=num_cpus, max_retries=max_retries, retry_exceptions=False)(_call)
            pending = {remote.remote(fn, it): i for i, it in enumerate(items)}
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                i = pending.pop(ready[0])
                try:
                    done(i, ray.get(ready[0]))
                except ray.exceptions.RayTaskError as exc:     # fn raised: its own exception
                    done(i, exc=exc.as_instanceof_cause())
                except Exception as exc:                        # lost more often than max_retries
                    done(i, exc=exc)
                bar.update()
    if failures and on_error == "raise":
        raise TaskError(failures, len(items))
    return results


def probe(arg: tuple[int, float, str]) -> dict:
    """Diagnostic task: sleeps, then says where it ran. ``arg`` = (index, seconds, marker directory
    or ""): a marker file per attempt shows reruns after a lost node."""
    i, seconds, marker_dir = arg
    node = _node_id()
    if marker_dir:
        Path(marker_dir, f"{i}-{node}-{os.getpid()}").touch()
    time.sleep(seconds)
    return {"item": i, "node": node, "host": socket.gethostname(), "pid": os.getpid()}


def _node_id() -> str:
    try:
        import ray
        if ray.is_initialized():
            return ray.get_runtime_context().get_node_id()[:12]
    except Exception:
        pass
    return "local"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sim.engine", description="where tasks run: nodes and CPUs")
    ap.add_argument("--engine", choices=ENGINES, default=None, help="default: $ENGINE or local")
    ap.add_argument("--probe", type=int, default=0, help="run N probe tasks and print where each ran")
    ap.add_argument("--seconds", type=float, default=0.0, help="length of each probe task")
    ap.add_argument("--marker-dir", default="", help="probe tasks touch a file here per attempt")
    args = ap.parse_args(argv)
    name = engine_name(args.engine)
    if name == "ray":
        print(json.dumps(ray_connect(quiet=True)))
    if args.probe:
        res = map_tasks(probe, [(i, args.seconds, args.marker_dir) for i in range(args.probe)], engine=name,
                        desc="probe", progress=False, jobs=args.probe)
        print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
