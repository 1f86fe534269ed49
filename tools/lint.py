"""`make lint`: verilator --lint-only -Wall on every RTL module (one file = one module = one top)."""
from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tools.runner import RTL, INCLUDE, setup_verilator_env


# the lint check itself; the cache key below hashes it, so a changed flag lints everything again
LINT_FLAGS = ("--lint-only", "-Wall")


def rtl_files() -> list[Path]:
    return sorted(p for p in RTL.rglob("*.v") if INCLUDE not in p.parents)


def lint_targets() -> list[Path]:
    """Every RTL module except test-only *_tb wrappers: those are compiled by their own tests, and
    cxl_switch_cascade_tb (12 x 256B link endpoints) takes minutes to elaborate."""
    return [p for p in rtl_files() if not p.stem.endswith("_tb")]


def lint_one(path: Path, libdirs: list[Path]) -> tuple[Path, int, str]:
    cmd = ["verilator", *LINT_FLAGS, f"-I{INCLUDE}", "--top-module", path.stem]
    for d in libdirs:
        cmd += ["-y", str(d)]
    cmd.append(str(path))
    r = subprocess.run(cmd, capture_output=True, text=True)
    # Keep diagnostics, drop Verilator's statistics report ("- V e r i l a t i o n ...").
    lines = [ln for ln in (r.stdout + r.stderr).splitlines() if not ln.startswith("- ")]
    return path, r.returncode, "\n".join(lines).strip()


def elaborate(top: str, params: dict[str, int] | None = None) -> tuple[int, str]:
    """Lint-elaborate RTL module `top` (found in the rtl/ libraries) with parameter overrides, under
    -Wno-fatal as the simulation builds run; returns (exit code, diagnostics)."""
    setup_verilator_env()
    path = next(p for p in rtl_files() if p.stem == top)
    cmd = ["verilator", *LINT_FLAGS, "-Wno-fatal", f"-I{INCLUDE}", "--top-module", top]
    for d in sorted({p.parent for p in rtl_files()}):
        cmd += ["-y", str(d)]
    cmd += [f"-G{k}={v}" for k, v in (params or {}).items()]
    r = subprocess.run(cmd + [str(path)], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


# Modules found clean, each keyed by a hash of its own source set (below), the lint command and the
# Verilator version: an edit lints again exactly the modules whose source set holds the edited file.
# Only clean results are kept; a failing module is linted again on every run.
CACHE = RTL.parent / "results" / "lint_cache.json"

_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_$]*\b")
_INCLUDE = re.compile(r'`include\s+"([^"]+)"')


def source_sets(files: list[Path]) -> dict[str, list[Path]]:
    """Every file Verilator can read when it lints each module: the module's file, every module
    file whose name (one module per file, named after it) appears as a word in a file of the set,
    and every include they name, closed transitively. A name in a comment adds its file too, so the
    set errs on the side of linting again."""
    by_name = {p.stem: p for p in files}
    words: dict[Path, set[Path]] = {}

    def refs(path: Path) -> set[Path]:
        if path not in words:
            text = path.read_text(errors="replace")
            found = {by_name[w] for w in set(_IDENT.findall(text)) if w in by_name}
            found |= {INCLUDE / name for name in _INCLUDE.findall(text) if (INCLUDE / name).is_file()}
            words[path] = found - {path}
        return words[path]

    sets = {}
    for top in files:
        seen, todo = {top}, [top]
        while todo:
            for ref in refs(todo.pop()):
                if ref not in seen:
                    seen.add(ref)
                    todo.append(ref)
        sets[top.stem] = sorted(seen)
    return sets


def module_keys(files: list[Path]) -> dict[str, str]:
    ver = subprocess.run(["verilator", "--version"], capture_output=True, text=True).stdout
    keys = {}
    for name, paths in source_sets(rtl_files()).items():
        h = hashlib.sha256(ver.encode())
        h.update(" ".join(LINT_FLAGS).encode())
        for p in paths:
            h.update(str(p.relative_to(RTL)).encode())
            h.update(p.read_bytes())
        keys[name] = h.hexdigest()
    return {p.stem: keys[p.stem] for p in files}


def main() -> int:
    setup_verilator_env()
    files = lint_targets()
    if not files:
        print("lint: no RTL files found")
        return 1
    libdirs = sorted({p.parent for p in rtl_files()})
    keys = module_keys(files)
    try:
        cached = json.loads(CACHE.read_text())
        clean = dict(cached["clean"])
    except (OSError, ValueError, KeyError, TypeError):
        clean = {}
    todo = [p for p in files if clean.get(p.stem) != keys[p.stem]]
    bad = 0
    with ThreadPoolExecutor(max_workers=2) as ex:
        for path, rc, out in ex.map(lambda p: lint_one(p, libdirs), todo):
            rel = path.relative_to(RTL.parent)
            if rc != 0 or out:
                bad += 1
                clean.pop(path.stem, None)
                print(f"FAIL {rel}\n{out}")
            else:
                clean[path.stem] = keys[path.stem]
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    CACHE.write_text(json.dumps({"clean": {k: v for k, v in sorted(clean.items()) if k in keys}},
                                indent=1))
    reused = len(files) - len(todo)
    print(f"lint: {len(files) - bad}/{len(files)} modules clean under verilator -Wall"
          + (f" ({reused} unchanged since their last clean lint)" if reused else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
