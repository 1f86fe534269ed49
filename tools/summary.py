"""Regression summary: merge pytest's junit.xml with the per-build cocotb XMLs.

Writes <results>/summary.csv (one row per cocotb test, plus one per pytest test that ran no cocotb)
and prints a table. Exit code 1 if anything failed.
"""
from __future__ import annotations

import argparse
import csv
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def cocotb_rows(xml_dir: Path) -> list[dict[str, str]]:
    rows = []
    for f in sorted(xml_dir.glob("*.xml")):
        for tc in ET.parse(f).getroot().iter("testcase"):
            failed = tc.find("failure") is not None or tc.find("error") is not None
            skipped = tc.find("skipped") is not None
            rows.append({
                "build": f.stem,
                "test": tc.get("name", "?"),
                "status": "FAIL" if failed else ("SKIP" if skipped else "PASS"),
                "sim_time_ns": f"{float(tc.get('sim_time_ns', 0) or 0):.0f}",
                "wall_s": f"{float(tc.get('time', 0) or 0):.2f}",
            })
    return rows


def pytest_rows(junit: Path) -> list[dict[str, str]]:
    rows = []
    if not junit.exists():
        return rows
    for tc in ET.parse(junit).getroot().iter("testcase"):
        failed = tc.find("failure") is not None or tc.find("error") is not None
        skipped = tc.find("skipped") is not None
        rows.append({"build": tc.get("classname", ""), "test": tc.get("name", "?"),
                     "status": "FAIL" if failed else ("SKIP" if skipped else "PASS"),
                     "sim_time_ns": "", "wall_s": f"{float(tc.get('time', 0) or 0):.2f}"})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", default="results/regression")
    args = ap.parse_args()
    res = Path(args.results)
    rows = cocotb_rows(res / "xml")
    py = pytest_rows(res / "junit.xml")
    # pytest failures that never produced a cocotb XML (build errors, crashes) must show up too.
    py_fail = [r for r in py if r["status"] == "FAIL"]
    all_rows = rows + [dict(r, build="pytest:" + r["build"]) for r in py_fail]
    res.mkdir(parents=True, exist_ok=True)
    with open(res / "summary.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["build", "test", "status", "sim_time_ns", "wall_s"])
        w.writeheader()
        w.writerows(all_rows)
    wb = max([len(r["build"]) for r in all_rows] + [5])
    wt = max([len(r["test"]) for r in all_rows] + [4])
    print(f"\n{'build':{wb}}  {'test':{wt}}  status  sim_time_ns    wall_s")
    print("-" * (wb + wt + 32))
    for r in all_rows:
        print(f"{r['build']:{wb}}  {r['test']:{wt}}  {r['status']:6}  {r['sim_time_ns']:>11}  {r['wall_s']:>8}")
    n_fail = sum(r["status"] == "FAIL" for r in all_rows)
    n_pass = sum(r["status"] == "PASS" for r in all_rows)
    print(f"\n{n_pass} passed, {n_fail} failed  (cocotb tests: {len(rows)}; summary: {res / 'summary.csv'})")
    if not rows and not py_fail:
        print("error: no RTL test results found")
        return 1
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
