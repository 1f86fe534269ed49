"""`make signoff` logic (tools/signoff.py) without a simulator: the shipped testplans cite their
READMEs and map every test function, and a small synthetic regression signs off when complete and
fails on each fault (a testpoint with no passing test, a test in no testpoint, a missed bin)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools import signoff

PLAN = """
block: demo
code_coverage: demo
testpoints:
  - name: feature_a
    claim: "does A"
    source: README.md:2
    tests: [tests/test_demo.py::test_a, tb_demo:ATest]
    covergroups: [tb_demo:cov.g]
  - name: feature_b
    claim: "does B"
    source: README.md:3
    tests: [tests/test_demo.py::test_b]
ignore_covergroups:
  - {group: tb_demo:cov.probe, reason: expect-fail probe}
"""


def _junit(cases: dict[str, str]) -> str:
    out = ['<testsuites><testsuite name="pytest">']
    for name, status in cases.items():
        body = {"FAIL": "<failure message='x'/>", "SKIP": "<skipped/>"}.get(status, "")
        out.append(f'<testcase classname="tests.test_demo" name="{name}">{body}</testcase>')
    return "".join(out + ["</testsuite></testsuites>"])


def _cocotb(cases: dict[str, str]) -> str:
    out = ['<testsuites><testsuite name="tb.demo.tb_demo">']
    for name, status in cases.items():
        body = "<failure/>" if status == "FAIL" else ""
        out.append(f'<testcase classname="tb.demo.tb_demo" name="{name}">{body}</testcase>')
    return "".join(out + ["</testsuite></testsuites>"])


def _dump(results: Path, node: str, hits: dict[str, int], group: str = "g",
          enforced: bool = True) -> None:
    rec = {"group": group, "module": "tb.demo.tb_demo", "test": "ATest", "pytest": node,
           "points": {"p": hits}, "crosses": {}, "enforced": enforced}
    cov = results / "coverage"
    cov.mkdir(parents=True, exist_ok=True)
    tag = node.rsplit("::", 1)[-1]
    (cov / f"run-tb_demo-{tag}__ATest__cov.{group}.json").write_text(json.dumps([rec]))


@pytest.fixture()
def demo(tmp_path: Path) -> tuple[Path, Path]:
    """A repository root with one testplan and a complete, passing regression."""
    root, results = tmp_path / "repo", tmp_path / "results"
    (root / "tb" / "demo").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "tests" / "test_demo.py").write_text("def test_a():\n    pass\n\n\ndef test_b():\n    pass\n")
    (root / "tb" / "demo" / "tb_demo.py").write_text("class ATest:\n    pass\n")
    (root / "README.md").write_text("# demo\nThe block does A.\nIt also does B.\n")
    (root / "tb" / "demo" / "testplan.yaml").write_text(PLAN)
    (results / "regression" / "xml").mkdir(parents=True)
    (results / "regression" / "junit.xml").write_text(
        _junit({"test_a[1]": "PASS", "test_a[2]": "PASS", "test_b": "PASS"}))
    (results / "regression" / "xml" / "demo.xml").write_text(_cocotb({"ATest": "PASS"}))
    _dump(results, "tests/test_demo.py::test_a[1]", {"lo": 3, "hi": 0})
    _dump(results, "tests/test_demo.py::test_a[2]", {"lo": 0, "hi": 2})
    _dump(results, "tests/test_demo.py::test_a[2]", {"never": 0}, group="probe")
    (results / "coverage" / "summary.json").write_text(json.dumps(
        {"blocks": {"demo": {k: {"pct": 95.0} for k in ("line", "branch", "toggle")}}}))
    return root, results


def _run(demo: tuple[Path, Path]) -> tuple[int, dict]:
    root, results = demo
    return signoff.run(results, results / "signoff", root)


def test_shipped_testplans_cite_readmes_and_map_every_test() -> None:
    plans = signoff.load_plans()
    assert {p.block for p in plans} >= {"common", "link", "link256", "switch", "coherence",
                                        "bridge", "edge"}
    assert signoff.check_plans(plans) == []
    assert signoff.check_mapping(plans) == []


def test_complete_regression_signs_off(demo: tuple[Path, Path]) -> None:
    rc, res = _run(demo)
    assert rc == 0, res["faults"]
    b = res["blocks"]["demo"]
    assert (b["testpoints_passing"], b["testpoints_total"]) == (2, 2)
    assert (b["bins_hit"], b["bins_total"]) == (2, 2)          # lo and hi merged over two tests
    assert b["code_coverage"] == {"line": 95.0, "branch": 95.0, "toggle": 95.0}
    out = demo[1] / "signoff"
    assert json.loads((out / "summary.json").read_text())["testpoints_passing"] == 2
    assert "| demo | 2/2 |" in (out / "summary.md").read_text()
    bench = signoff.bench(out / "summary.json")
    assert bench["signoff.testpoints_passing"] == bench["signoff.testpoints_total"] == 2.0


def test_fails_on_testpoint_without_passing_test(demo: tuple[Path, Path]) -> None:
    root, results = demo
    (results / "regression" / "junit.xml").write_text(
        _junit({"test_a[1]": "PASS", "test_a[2]": "PASS", "test_b": "FAIL"}))
    rc, res = _run(demo)
    assert rc == 1
    assert "testpoint demo/feature_b has no passing test" in res["reason"]
    assert res["blocks"]["demo"]["testpoints_passing"] == 1
    # a test that did not run at all leaves its testpoint without a passing test too
    (results / "regression" / "junit.xml").write_text(_junit({"test_a[1]": "PASS"}))
    rc, res = _run(demo)
    assert rc == 1 and "feature_b has no passing test (no mapped test ran)" in res["reason"]


def test_a_rerun_adds_results_and_a_failure_anywhere_fails(demo: tuple[Path, Path]) -> None:
    root, results = demo
    (results / "regression" / "junit-rerun.xml").write_text(_junit({"test_b": "FAIL"}))
    rc, res = _run(demo)
    assert rc == 1 and "feature_b has no passing test (failed: tests/test_demo.py::test_b)" in res["reason"]


def test_fails_on_unmapped_test(demo: tuple[Path, Path]) -> None:
    root, results = demo
    (results / "regression" / "xml" / "extra.xml").write_text(_cocotb({"StrayTest": "PASS"}))
    rc, res = _run(demo)
    assert rc == 1 and res["reason"].endswith("test tb_demo:StrayTest is mapped to no testpoint")
    # and statically: a test function no plan maps
    (root / "tests" / "test_demo.py").write_text("def test_a():\n    pass\n\n\ndef test_b():\n"
                                                 "    pass\n\n\ndef test_c():\n    pass\n")
    assert signoff.check_mapping(signoff.load_plans(root), root) == [
        "test tests/test_demo.py::test_c is mapped to no testpoint"]


def test_fails_on_bin_missed_by_whole_regression(demo: tuple[Path, Path]) -> None:
    root, results = demo
    for f in (results / "coverage").glob("*test_a[[]2[]]__ATest__cov.g.json"):
        f.unlink()
    rc, res = _run(demo)
    assert rc == 1
    assert res["reason"].endswith("covergroup tb_demo:cov.g (demo): bin p.hi missed by the whole regression")
    assert (res["blocks"]["demo"]["bins_hit"], res["blocks"]["demo"]["bins_total"]) == (1, 2)


def test_bins_come_from_tests_that_enforce_them(demo: tuple[Path, Path]) -> None:
    root, results = demo
    # a test sampling the group without failing on holes adds hits, not bins it never claimed
    _dump(results, "tests/test_demo.py::test_b", {"lo": 1, "other": 0}, enforced=False)
    rc, res = _run(demo)
    assert rc == 0, res["faults"]
    assert res["blocks"]["demo"]["bins_total"] == 2


def test_bins_of_a_failed_test_do_not_count(demo: tuple[Path, Path]) -> None:
    root, results = demo
    (results / "regression" / "junit.xml").write_text(
        _junit({"test_a[1]": "PASS", "test_a[2]": "FAIL", "test_b": "PASS"}))
    rc, res = _run(demo)
    assert rc == 1 and any("bin p.hi missed" in f for f in res["faults"])


def test_bad_citation_and_no_results(demo: tuple[Path, Path], tmp_path: Path) -> None:
    root, results = demo
    (root / "README.md").write_text("# demo\nThe block does nothing.\nIt also does B.\n")
    rc, res = _run(demo)
    assert rc == 1 and "README.md:2 does not say 'does A'" in res["reason"]
    rc, res = signoff.run(tmp_path / "empty", tmp_path / "out", root)
    assert rc == 1 and "run `make test` first" in res["reason"]
