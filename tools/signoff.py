"""`make signoff`: every block's testplan against the last regression's own results.

A testplan (``tb/<block>/testplan.yaml``) lists the features its block's README claims, each a
testpoint citing the README that claims it (``source: path``, whose text holds ``claim``; or
``path:line`` to pin the line), mapped to tests and covergroups::

    block: link
    code_coverage: link              # block key in results/coverage/summary.json (make coverage)
    testpoints:
      - name: replay
        claim: "go-back-N replay"    # text the cited README holds (a stale citation fails)
        source: rtl/link/README.md
        tests: [tests/test_link.py::test_link_fault, tb_link:FaultTest]
        covergroups: [tb_link:cov.a2b]
    ignore_covergroups:              # dumps that are not sign-off coverage, each with its reason
      - {group: tb_credit_counter:cov.probe, reason: deliberately incomplete (negative test)}

Tests are pytest node ids (``tests/f.py::name`` also matches its parametrizations; fnmatch
wildcards allowed) or cocotb tests as ``<module>:<test>`` (module by its last dotted name).
Covergroups are ``<module>:<collector>.<group>`` as dumped by tb.common.coverage.

Results read, never rerun: pytest's junit xml (``results/regression/junit.xml``, written by
`make test`; a rerun of some tests may add ``junit-<name>.xml``: a test failed in any file fails,
make test clears the extra files), the runner's cocotb results (``results/regression/xml/*.xml``), the functional
coverage dumps (``results/coverage/*__*.json``, one per test and covergroup; dumps of a failed
pytest test are not counted) and the code coverage summary of the last `make coverage`
(``results/coverage/summary.json``, shown when present).

Fails (exit 1, one-line reason last) on: a testpoint with no passing test (none ran, or one of its
tests failed), a test of the regression mapped to no testpoint, a covergroup bin missed by the
whole regression, a planned covergroup never dumped, a dumped covergroup in no plan, or a plan
whose README citation does not hold. Writes ``results/signoff/summary.json`` and ``summary.md``
(read by `make bench`: signoff.testpoints_passing / signoff.testpoints_total).
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]


@dataclass
class Testpoint:
    name: str
    claim: str
    source: str
    tests: list[str]
    covergroups: list[str] = field(default_factory=list)
    feature: str = ""


@dataclass
class Plan:
    block: str
    path: Path
    testpoints: list[Testpoint]
    code_coverage: str | None = None
    ignore_covergroups: dict[str, str] = field(default_factory=dict)


@dataclass
class Case:
    """One test of the regression: a pytest node id or a cocotb ``module:test``."""
    id: str
    kind: str                      # pytest / cocotb
    status: str                    # PASS / FAIL / SKIP (several runs: FAIL wins, then PASS)


# ------------------------------------------------------------------------------ loading
def load_plans(root: Path = REPO) -> list[Plan]:
    plans = []
    for path in sorted((root / "tb").glob("*/testplan.yaml")):
        d = yaml.safe_load(path.read_text()) or {}
        tps = [Testpoint(**tp) for tp in d.get("testpoints", [])]
        ign = {e["group"]: e["reason"] for e in d.get("ignore_covergroups", []) or []}
        plans.append(Plan(block=d["block"], path=path, testpoints=tps,
                          code_coverage=d.get("code_coverage"), ignore_covergroups=ign))
    return plans


def check_plans(plans: list[Plan], root: Path = REPO) -> list[str]:
    """Static faults: citations that do not hold, duplicate or empty testpoints."""
    faults = []
    seen: set[str] = set()
    for p in plans:
        rel = p.path.relative_to(root) if p.path.is_relative_to(root) else p.path
        if not p.testpoints:
            faults.append(f"{rel}: no testpoints")
        for tp in p.testpoints:
            key = f"{p.block}/{tp.name}"
            if key in seen:
                faults.append(f"{rel}: duplicate testpoint {tp.name}")
            seen.add(key)
            if not tp.tests:
                faults.append(f"testpoint {key}: maps no test")
            # `source` is a file (the claim must be in it) or file:line (the claim must be on that line)
            fname, _, line = tp.source.rpartition(":")
            if not line.isdigit():
                fname, line = tp.source, ""
            src = root / fname
            if not fname or not src.is_file():
                faults.append(f"testpoint {key}: source {tp.source!r} is not <file> or <file>:<line>")
                continue
            lines = src.read_text().splitlines()
            where = [lines[int(line) - 1]] if line and 1 <= int(line) <= len(lines) else [] if line else lines
            if not any(tp.claim.lower() in ln.lower() for ln in where):
                faults.append(f"testpoint {key}: {tp.source} does not say {tp.claim!r}")
    return faults


def defined_tests(root: Path = REPO) -> tuple[set[str], set[str]]:
    """Tests as the sources define them, without running anything: pytest ``tests/f.py::test_x``
    (top-level test functions) and cocotb ``module:name`` (top-level functions and classes of the
    testbench modules under tb/ and sim/ named tb_*.py: a class may register as a pyuvm test)."""
    import ast
    pytest_ids, cocotb_ids = set(), set()
    for f in sorted((root / "tests").glob("test_*.py")):
        for node in ast.parse(f.read_text()).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_"):
                pytest_ids.add(f"tests/{f.name}::{node.name}")
    for f in sorted([*(root / "tb").rglob("tb_*.py"), *(root / "sim").rglob("tb_*.py")]):
        for node in ast.parse(f.read_text()).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                cocotb_ids.add(f"{f.stem}:{node.name}")
    return pytest_ids, cocotb_ids


def check_mapping(plans: list[Plan], root: Path = REPO) -> list[str]:
    """Static faults: a planned test that no source defines, a pytest test function in no plan."""
    pytest_ids, cocotb_ids = defined_tests(root)
    pats = [(p.block, tp.name, t) for p in plans for tp in p.testpoints for t in tp.tests]
    faults = []
    for block, tp, t in pats:
        pool = pytest_ids if "::" in t else cocotb_ids
        if not any(matches(t, x) for x in pool):
            faults.append(f"testpoint {block}/{tp}: {t} names no test in the sources")
    for x in sorted(pytest_ids):
        if not any(matches(t, x) for _, _, t in pats):
            faults.append(f"test {x} is mapped to no testpoint")
    return faults


def _nodeid(classname: str, name: str, root: Path) -> str:
    """pytest junit classname 'tests.test_x[.TestC]' + name -> 'tests/test_x.py[::TestC]::name'."""
    parts = classname.split(".")
    for i in range(len(parts), 0, -1):
        f = "/".join(parts[:i]) + ".py"
        if (root / f).is_file() or i == 1:
            return "::".join([f, *parts[i:], name])
    return f"{classname}::{name}"


def _status(tc: ET.Element) -> str:
    if tc.find("failure") is not None or tc.find("error") is not None:
        return "FAIL"
    return "SKIP" if tc.find("skipped") is not None else "PASS"


def _merge(cases: dict[str, Case], c: Case) -> None:
    old = cases.get(c.id)
    if old is None:
        cases[c.id] = c
    elif c.status == "FAIL" or (c.status == "PASS" and old.status == "SKIP"):
        old.status = c.status


def load_cases(results: Path, root: Path = REPO) -> dict[str, Case]:
    cases: dict[str, Case] = {}
    for junit in sorted((results / "regression").glob("junit*.xml")):
        for tc in ET.parse(junit).getroot().iter("testcase"):
            nid = _nodeid(tc.get("classname", ""), tc.get("name", "?"), root)
            _merge(cases, Case(nid, "pytest", _status(tc)))
    for f in sorted((results / "regression" / "xml").glob("*.xml")):
        for tc in ET.parse(f).getroot().iter("testcase"):
            mod = tc.get("classname", "").rsplit(".", 1)[-1]
            _merge(cases, Case(f"{mod}:{tc.get('name', '?')}", "cocotb", _status(tc)))
    return cases


def load_bins(results: Path, cases: dict[str, Case]) -> dict[str, dict[str, int]]:
    """Covergroup id -> bin -> hits summed over the regression's dumps (failed tests excluded).
    The bins of a group are those of its enforced dumps (tests that fail on a missed bin); a test
    that samples the group without enforcing it (e.g. a directed test over a few routes) adds hits
    only. A group no test enforces keeps every bin it was dumped with."""
    groups: dict[str, dict[str, int]] = defaultdict(dict)
    enforced: dict[str, set[str]] = defaultdict(set)
    for f in sorted((results / "coverage").glob("*__*.json")):
        collector_group = f.stem.rsplit("__", 1)[-1]           # e.g. cov.a2b
        for rec in json.loads(f.read_text()):
            node = rec.get("pytest", "")
            if node and node in cases and cases[node].status == "FAIL":
                continue
            mod = rec.get("module", "").rsplit(".", 1)[-1]
            if not mod:                                        # run-<module>-... (older dumps)
                mod = f.stem.split("__", 1)[0].removeprefix("run-").split("-", 1)[0]
            gid = f"{mod}:{collector_group}"
            bins = groups[gid]
            named = [(f"{point}.{b}", n) for point, hits in rec.get("points", {}).items()
                     for b, n in hits.items()]
            named += [(f"{cross}.<{b}>", n) for cross, hits in rec.get("crosses", {}).items()
                      for b, n in hits.items()]
            for b, n in named:
                bins[b] = bins.get(b, 0) + int(n)
            if rec.get("enforced", True):
                enforced[gid].update(b for b, _ in named)
    return {g: ({b: n for b, n in bins.items() if b in enforced[g]} if enforced[g] else bins)
            for g, bins in groups.items()}


# ------------------------------------------------------------------------------ matching
def matches(pattern: str, case_id: str) -> bool:
    if case_id == pattern or case_id.startswith(pattern + "["):
        return True
    return any(ch in pattern for ch in "*?[") and fnmatch.fnmatchcase(case_id, pattern)


def evaluate(plans: list[Plan], cases: dict[str, Case], bins: dict[str, dict[str, int]],
             code: dict | None) -> dict:
    """Per-block figures and the list of faults (empty: signed off)."""
    faults: list[str] = []
    mapped: set[str] = set()
    blocks = {}
    planned_groups: set[str] = set()
    for p in plans:
        tps = []
        for tp in p.testpoints:
            hit = [c for c in cases.values() if any(matches(t, c.id) for t in tp.tests)]
            mapped.update(c.id for c in hit)
            passed = [c.id for c in hit if c.status == "PASS"]
            failed = [c.id for c in hit if c.status == "FAIL"]
            ok = bool(passed) and not failed
            if not ok:
                why = (f"failed: {', '.join(failed[:3])}" if failed else
                       "no mapped test ran" if not hit else "its tests were all skipped")
                faults.append(f"testpoint {p.block}/{tp.name} has no passing test ({why})")
            tps.append({"name": tp.name, "source": tp.source, "passing": ok, "tests_run": len(hit),
                        "tests_passed": len(passed), "tests_failed": failed,
                        "covergroups": tp.covergroups})
        groups = sorted({g for tp in p.testpoints for g in tp.covergroups})
        planned_groups.update(groups)
        planned_groups.update(p.ignore_covergroups)
        gres = {}
        for g in groups:
            if g not in bins:
                faults.append(f"covergroup {g} ({p.block}): no dump in the regression")
                gres[g] = {"hit": 0, "total": 0, "missed": []}
                continue
            missed = sorted(b for b, n in bins[g].items() if n == 0)
            for b in missed:
                faults.append(f"covergroup {g} ({p.block}): bin {b} missed by the whole regression")
            gres[g] = {"hit": len(bins[g]) - len(missed), "total": len(bins[g]), "missed": missed}
        cc = None
        if code is not None and p.code_coverage in code.get("blocks", {}):
            b = code["blocks"][p.code_coverage]
            cc = {k: b[k]["pct"] for k in ("line", "branch", "toggle") if k in b}
        blocks[p.block] = {
            "plan": str(p.path.relative_to(REPO)) if p.path.is_relative_to(REPO) else str(p.path),
            "testpoints_total": len(tps), "testpoints_passing": sum(t["passing"] for t in tps),
            "tests_mapped": len({c for t in p.testpoints for c in cases
                                 if any(matches(x, c) for x in t.tests)}),
            "bins_hit": sum(g["hit"] for g in gres.values()),
            "bins_total": sum(g["total"] for g in gres.values()),
            "covergroups": gres, "code_coverage": cc, "testpoints": tps,
            "ignored_covergroups": p.ignore_covergroups,
        }
    for cid in sorted(set(cases) - mapped):
        faults.append(f"test {cid} is mapped to no testpoint")
    for g in sorted(set(bins) - planned_groups):
        faults.append(f"covergroup {g} is dumped but in no testplan")
    return {"blocks": blocks, "faults": faults, "tests": len(cases),
            "testpoints_total": sum(b["testpoints_total"] for b in blocks.values()),
            "testpoints_passing": sum(b["testpoints_passing"] for b in blocks.values())}


# ------------------------------------------------------------------------------ report
def table(res: dict) -> str:
    def pct(cc: dict | None, k: str) -> str:
        return "-" if not cc or cc.get(k) is None else f"{cc[k]:.1f}"
    lines = ["| block | testpoints passing / planned | tests mapped | functional bins hit | "
             "line % | branch % | toggle % |", "|---|---|---|---|---|---|---|"]
    for name, b in res["blocks"].items():
        bins = f"{b['bins_hit']}/{b['bins_total']}" if b["bins_total"] else "- (no covergroups)"
        lines.append(f"| {name} | {b['testpoints_passing']}/{b['testpoints_total']} | "
                     f"{b['tests_mapped']} | {bins} | {pct(b['code_coverage'], 'line')} | "
                     f"{pct(b['code_coverage'], 'branch')} | {pct(b['code_coverage'], 'toggle')} |")
    return "\n".join(lines)


def run(results: Path, out: Path, root: Path = REPO) -> tuple[int, dict]:
    plans = load_plans(root)
    faults = check_plans(plans, root)
    faults += [f for f in check_mapping(plans, root) if f.startswith("testpoint")]
    cases = load_cases(results, root)
    if not cases:
        reason = (f"no regression results under {results}/regression "
                  "(run `make test` first; signoff reruns nothing)")
        return 1, {"faults": [reason], "reason": reason}
    bins = load_bins(results, cases)
    summary = results / "coverage" / "summary.json"
    code = json.loads(summary.read_text()) if summary.exists() else None
    res = evaluate(plans, cases, bins, code)
    res["faults"] = faults + res["faults"]
    res["code_coverage_from"] = str(summary) if code is not None else None
    n = len(res["faults"])
    res["reason"] = ("signed off" if not n else
                     f"{n} fault(s), first: {res['faults'][0]}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(res, indent=1, sort_keys=True) + "\n")
    md = ["# Sign-off (make signoff)", "", table(res), "",
          f"{res['tests']} tests in the regression; code coverage "
          f"{'from ' + res['code_coverage_from'] if code else 'not available (run make coverage)'}.",
          ""] + (["## Faults", ""] + [f"- {f}" for f in res["faults"]] if n else ["Signed off."])
    (out / "summary.md").write_text("\n".join(md) + "\n")
    return (1 if n else 0), res


def bench(summary: Path = REPO / "results" / "signoff" / "summary.json") -> dict[str, float]:
    """`make bench` figures from the last `make signoff` (not rerun here)."""
    if not summary.exists():
        raise FileNotFoundError(f"{summary} is missing: run `make test` then `make signoff`")
    d = json.loads(summary.read_text())
    out = {"signoff.testpoints_passing": float(d["testpoints_passing"]),
           "signoff.testpoints_total": float(d["testpoints_total"])}
    for name, b in d["blocks"].items():
        if b["bins_total"]:
            out[f"signoff.{name}.bins_hit_pct"] = round(100.0 * b["bins_hit"] / b["bins_total"], 2)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--results", type=Path, default=REPO / "results")
    ap.add_argument("--out", type=Path, default=None, help="default: <results>/signoff")
    args = ap.parse_args(argv)
    rc, res = run(args.results, args.out or args.results / "signoff")
    if "blocks" in res:
        print(table(res))
        for f in res["faults"]:
            print(f"FAULT: {f}")
    print(f"signoff: {'PASS' if rc == 0 else 'FAIL'}: {res['reason']}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
