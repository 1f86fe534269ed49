"""The browser report (sim/report/html.py): every section drawn from its own file or saying which
command writes it, links relative, nothing fetched from the network; and the page as headless
Chromium renders it (tools/browser.py): no console error, every figure loaded."""
from __future__ import annotations

import csv
import html
import json
import random
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sim.report import html as page
from tools import browser

SECTION_IDS = [sid for sid, _, _ in page.SECTIONS]


class Parsed(HTMLParser):
    """Tags, sections and the attributes a self-contained page must get right."""

    def __init__(self, text: str):
        super().__init__()
        self.sections: dict[str, str] = {}
        self.imgs: list[str] = []
        self.hrefs: list[str] = []
        self.srcs: list[str] = []
        self._sec: str | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self._sec = a["id"]
            self.sections[self._sec] = ""
        if tag == "img":
            self.imgs.append(a["src"])
        if "href" in a:
            self.hrefs.append(a["href"])
        if "src" in a:
            self.srcs.append(a["src"])

    def handle_data(self, data):
        if self._sec:
            self.sections[self._sec] += data


def write_inputs(out: Path, load_curve_columns: tuple[str, str] = ("offered_per_bridge", "achieved_per_bridge"),
                 lost: int = 0) -> None:
    """Inputs of the sections the system-model run does not write, in the formats their tools write:
    cosim/latency.json (sim/cosim/stats.py), cosim/load_curve.csv (sim/cosim/loadcurve.py),
    regression/summary.csv (tools/summary.py), coverage/summary.json (tools/coverage.py), soak.json."""
    rng = random.Random(7)
    (out / "cosim").mkdir(parents=True, exist_ok=True)
    samples = lambda mu: [max(1, round(rng.gauss(mu, mu / 10))) for _ in range(200)]
    (out / "cosim" / "latency.json").write_text(json.dumps({
        "source": "test", "clock_mhz": 1000.0,
        "hops": {"cxl.switch_latency_ns": {"p50_cycles": 60, "p99_cycles": 70, "what": "switch"},
                 "ualink.switch_ns": {"p50_cycles": 60, "p99_cycles": 70, "what": "proxy"}},
        "samples_cycles": {"switch traversal (RTL core)": samples(60), "read/miss_tier2_fabric": samples(400)},
        "paths": {"read/miss_tier2_fabric": {"n": 200, "p50_cycles": 400}}}))
    offered, achieved = load_curve_columns
    with open(out / "cosim" / "load_curve.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["top", "path", offered, achieved, "fraction_of_link_rate", "n", "p50", "p99", "p999", "mean",
                    "svc_p50", "svc_p99", "knee"])
        for path, sat in (("bridge_hit", 0.9), ("t2_read_1sw", 0.5), ("t2_read_2sw", 0.45), ("coh_read", 0.4),
                          ("posted_write", 0.7)):                           # the co-simulation's five paths
            for ld in (0.1, 0.3, 0.5, 0.7, 0.9):
                lat = 50 / max(0.05, 1 - ld / (sat * 1.1))
                w.writerow(["message", path, ld, min(ld, sat), min(ld, sat), 1000, round(lat), round(2 * lat),
                            round(3 * lat), round(lat, 2), 40, 60, int(abs(ld - 0.9 * sat) < 0.11)])
    (out / "regression").mkdir(exist_ok=True)
    with open(out / "regression" / "summary.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["build", "test", "status", "sim_time_ns", "wall_s"])
        w.writerows([["cxl_switch_core-N4", "SwitchRandom", "PASS", "1000", "2.0"],
                     ["cxl_switch_core-N4", "SwitchErrors", "PASS", "800", "1.0"],
                     ["pytest:tests.test_link", "test_broken", "FAIL", "", "0.5"]])
    (out / "coverage").mkdir(exist_ok=True)
    kind = lambda pct, goal: {"hit": int(pct), "total": 100, "pct": float(pct), "goal": goal}
    (out / "coverage" / "summary.json").write_text(json.dumps({
        "runs": 3, "flags": ["--coverage-line", "--coverage-toggle"], "goals": {"line": 90.0, "branch": 90.0, "toggle": 80.0},
        "blocks": {"bridge": {"line": kind(95, 90.0), "branch": kind(93, 90.0), "toggle": kind(85, 80.0),
                              "meets_goal": True, "below_goal": [], "files": {}},
                   "switch": {"line": kind(80, 90.0), "branch": kind(91, 90.0), "toggle": kind(60, 80.0),
                              "meets_goal": False, "below_goal": ["line", "toggle"], "files": {}}},
        "exclusions": []}))
    (out / "coverage" / "summary.md").write_text("# coverage\n")
    (out / "soak.json").write_text(json.dumps({"messages": 10000, "link68": {"messages": 10000, "lost": lost,
                                                                           "duplicated": 0, "retries": 17}}))


def test_empty_directory_says_what_to_run_for_every_section(tmp_path):
    text, sections = page.build(tmp_path)
    doc = Parsed(text)
    assert list(doc.sections) == SECTION_IDS and not doc.imgs
    for s in sections:
        assert not s.present
        body = doc.sections[s.id]
        assert body.startswith(f"{s.title}Not run in this results directory (run make "), s.id
    assert "(run make coverage; then make report rebuilds this page)" in doc.sections["coverage"]
    assert "(run make soak; then make report rebuilds this page)" in doc.sections["soak"]
    assert "(run make sim)" in doc.sections["loadcurves"] and "(run make sim)" in doc.sections["regression"]


def test_sections_drawn_from_their_files(tmp_path):
    write_inputs(tmp_path, lost=3)
    with open(tmp_path / "scoreboard.csv", "w", newline="") as fh:      # the columns sim.report.run writes
        from sim.report.score import COLUMNS
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        w.writerow(["SP-X", "a speedup", "1.5x", "1.6", "x", "1.07", "hit", "note with `code`", "1.2", "1.9"])
        w.writerow(["LAT-Y", "a latency", "< 1 us", "3e3", "ns", "3.00", "out", "too slow", "", ""])
        w.writerow(["J-Z.t", "a time", "1 s", "", "s", "", "not derivable", "no sizes", "", ""])
    out = tmp_path / "site" / "index.html"                                  # a page elsewhere: links still resolve
    out.parent.mkdir()
    text, sections = page.build(tmp_path, out)
    doc = Parsed(text)
    present = {s.id for s in sections if s.present}
    assert present == {"scoreboard", "cdf", "loadcurves", "regression", "coverage", "soak"}
    # scoreboard: verdict colours and the ratio definition
    from sim.report.score import RATIO_DEFINITION
    assert RATIO_DEFINITION in html.unescape(text)
    assert re.search(r'<td class="good">hit</td>', text) and re.search(r'<td class="bad">out</td>', text)
    assert re.search(r'<td class="neutral">not derivable</td>', text) and "<code>code</code>" in text
    # figures are embedded PNGs; nothing is fetched: links are relative and point at existing files
    assert len(doc.imgs) == 2 and all(s.startswith("data:image/png;base64,") for s in doc.srcs)
    rel = [h for h in doc.hrefs if not h.startswith(("#", "data:"))]
    assert rel and all(not re.match(r"[a-z]+:", h) for h in rel)
    assert all((out.parent / h).exists() for h in rel), [h for h in rel if not (out.parent / h).exists()]
    assert "../cosim/load_curve.csv" in rel and "../coverage/summary.json" in rel
    # regression, coverage, soak: failures and holes in red
    assert "FAIL 1" in doc.sections["regression"] and "test_broken" in doc.sections["regression"]
    assert '<td class="bad">80.0 (80/100)</td>' in text and '<td class="good">95.0 (95/100)</td>' in text
    assert '<span class="pill bad">link68.lost 3</span>' in text and "10,000" in doc.sections["soak"]
    assert "knee" in doc.sections["loadcurves"] and "t2_read_1sw" in doc.sections["loadcurves"]


def test_load_curve_columns_follow_the_file(tmp_path):
    write_inputs(tmp_path, load_curve_columns=("offered_load", "throughput"))
    lc = page.sec_load_curves(page.Page(tmp_path, tmp_path / "report.html"))
    assert lc.present and "<img" in lc.body and "<code>offered_load</code>" in lc.body
    with pytest.raises(ValueError, match="needs offered_per_bridge/offered_load/offered"):
        page.load_curve_columns(["top", "path", "load", "rate", "p99"])
    write_inputs(tmp_path, load_curve_columns=("load", "rate"))             # unknown columns: said in place
    (tmp_path / "soak.json").write_text("{not json")                        # unreadable file: said in place
    (tmp_path / "cosim" / "latency.json").unlink()
    _, sections = page.build(tmp_path)
    body = {s.id: s.body for s in sections}
    assert "could not be read" in body["loadcurves"] and "offered_per_bridge/offered_load/offered" in body["loadcurves"]
    assert "could not be read: JSONDecodeError" in body["soak"]


def test_cli(tmp_path, capsys):
    assert page.main(["--results", str(tmp_path / "nope")]) == 2
    assert "is not a directory" in capsys.readouterr().err
    write_inputs(tmp_path)
    assert page.main(["--results", str(tmp_path)]) == 0
    assert (tmp_path / "report.html").is_file()
    assert "5 of 9 sections; not run here: Scoreboard, System model, Sensitivity (tornado), Validation" \
        in capsys.readouterr().out


CHROMIUM = browser.find_chromium()
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is missing: the page is rendered in headless "
                                                             "Chromium (Debian package `chromium`; make test requires it)")


@needs_chromium
def test_page_renders_in_chromium(tmp_path):
    """The page of a full run (system model, sensitivity, validation, RTL latencies) with every other
    section's input present: no console error, no request leaving the file, every figure loaded."""
    from sim.report import run
    write_inputs(tmp_path)
    assert run.main(["--out", str(tmp_path)]) == 0                          # writes report.html at its end
    html_text = (tmp_path / "report.html").read_text()
    n_img = html_text.count("<img ")
    assert n_img == 8                       # 4 system-model plots, tornado, validation, latency CDF, load curves
    res = browser.check(tmp_path / "report.html")
    assert res.problems() == []
    assert res.sections == len(SECTION_IDS) and len(res.images) == n_img
    assert all(i["width"] > 100 and i["height"] > 100 for i in res.images)
    assert res.requests[0].startswith("file:") and not res.external_requests


@needs_chromium
def test_chromium_check_catches_a_broken_page(tmp_path):
    """The check can fail: a missing image, a console error, an exception, a request off the machine."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><head><link rel="icon" href="data:,"><title>t</title></head><body>'
                   '<img src="missing.png" alt="missing"><img src="http://127.0.0.1:9/x.png" alt="remote">'
                   '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="5" height="5"/></svg>'
                   '<script>console.error("boom"); throw new Error("uncaught");</script></body></html>')
    res = browser.check(bad)
    assert {i["alt"] for i in res.broken_images} == {"missing", "remote"}
    assert any("boom" in m for m in res.console_errors) and any("uncaught" in e for e in res.exceptions)
    assert res.external_requests == ["http://127.0.0.1:9/x.png"]
    assert len(res.svgs) == 1 and not res.broken_svgs
