"""Simulator-free tests of the sign-off tools: the coverage merge (tools/coverage.py), the formal
runner's bind splice and mutations (tools/formal.py) and the runner's simulator selection."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tools import coverage as cov
from tools import formal
from tools.runner import icarus_build_args, sim_name

REPO = Path(__file__).resolve().parents[1]


def _pt(f: str, t: str, line: int, col: int, o: str, span: str | None, h: str = "top") -> str:
    keys = {"f": f, "l": str(line), "n": str(col), "t": t, "page": f"v_{t}/m", "o": o}
    if span is not None:
        keys["S"] = span
    keys["h"] = h
    return "".join(f"\x01{k}\x02{v}" for k, v in keys.items())


def _dat(path: Path, points: list[tuple[str, int]]) -> Path:
    path.write_text("# SystemC::Coverage-3\n" + "".join(f"C '{k}' {n}\n" for k, n in points))
    return path


F = str(REPO / "rtl" / "common" / "x.v")


def test_coverage_merge_and_lcov(tmp_path: Path) -> None:
    a = _dat(tmp_path / "a.dat", [
        (_pt(F, "line", 10, 5, "block", "10-11"), 3),
        (_pt(F, "branch", 12, 9, "if", "12-13"), 0),
        (_pt(F, "branch", 12, 10, "else", None), 3),
        (_pt(F, "branch", 14, 55, "cond_then", "14"), 0),
        (_pt(F, "branch", 14, 56, "cond_else", "14"), 0),
        (_pt(F, "line", 16, 22, "case", "16"), 0),
        (_pt(F, "toggle", 2, 4, "q[0]:0->1", None), 1),
        (_pt(F, "toggle", 2, 4, "q[0]:1->0", None), 0),
        (_pt(F, "toggle", 2, 4, "q[1]:0->1", None), 0),
        (_pt(F, "toggle", 2, 4, "q[1]:1->0", None), 0),
    ])
    # a second run and another instance of the same module: counts add up per point
    b = _dat(tmp_path / "b.dat", [
        (_pt(F, "branch", 12, 9, "if", "12-13", h="top.u2"), 2),
        (_pt(F, "toggle", 2, 4, "q[1]:1->0", None), 4),
    ])
    points = cov.merge([a, b])
    files, _ = cov.build_files(points, [])
    fc = files["rtl/common/x.v"]
    assert fc.lines == {10: 3, 11: 3, 12: 2, 13: 2, 14: 0, 16: 0}
    assert fc.branches[12] == [[("if", 2), ("else", 3)]]
    assert fc.branches[14] == [[("cond_then", 0), ("cond_else", 0)]]
    c = fc.counts()
    assert c["line"] == (4, 6) and c["branch"] == (2, 4) and c["toggle"] == (2, 4)
    u = cov.uncovered(fc)
    assert u["lines"] == ["14", "16"]
    assert u["toggles"] == ["q[0] 1->0", "q[1] 0->1"]
    info = tmp_path / "rtl.info"
    cov.write_info(files, info)
    text = info.read_text()
    assert "BRDA:12,0,0,2\nBRDA:12,0,1,3\nBRDA:14,0,0,-\nBRDA:14,0,1,-" in text
    assert "LF:6\nLH:4" in text and "BRF:4\nBRH:2" in text
    s = cov.summarize(files)["common"]
    assert s["line"]["pct"] == pytest.approx(66.67) and not s["meets_goal"]
    assert s["below_goal"] == ["line", "branch", "toggle"]


def test_coverage_exclusions(tmp_path: Path) -> None:
    a = _dat(tmp_path / "a.dat", [
        (_pt(F, "line", 10, 5, "block", "10"), 0),
        (_pt(F, "line", 20, 5, "block", "20"), 1),
        (_pt(str(REPO / "tb" / "common" / "hdl" / "p.v"), "line", 3, 5, "block", "3"), 0),
        (_pt(F, "toggle", 2, 4, "dbg[0]:0->1", None), 0),
    ])
    y = tmp_path / "ex.yaml"
    y.write_text("- {files: 'tb/*', reason: test HDL}\n"
                 "- {files: rtl/common/x.v, kind: line, lines: [10], reason: unreachable default}\n"
                 "- {files: rtl/common/x.v, signal: 'dbg', reason: debug port}\n"
                 "- {files: rtl/nowhere.v, reason: stale}\n")
    ex = cov.load_exclusions(y)
    files, n = cov.build_files(cov.merge([a]), ex)
    assert n == 3 and files["rtl/common/x.v"].lines == {20: 1} and not files["rtl/common/x.v"].toggles
    assert [e.matched for e in ex] == [1, 1, 1, 0]      # the stale one is reported by main()
    y.write_text("- {files: 'tb/*'}\n")
    with pytest.raises(SystemExit, match="no reason"):
        cov.load_exclusions(y)


def test_coverage_exclusion_bits(tmp_path: Path) -> None:
    """`bits` narrows a signal entry to bit indices (a point's last index); it needs a signal."""
    a = _dat(tmp_path / "a.dat", [
        (_pt(F, "toggle", 2, 4, f"hdr[{b}]:{d}", None), 0) for b in range(4) for d in ("0->1", "1->0")
    ] + [(_pt(F, "toggle", 3, 4, "bk[2][1]:0->1", None), 0), (_pt(F, "toggle", 3, 4, "bk[1][2]:0->1", None), 0)])
    y = tmp_path / "ex.yaml"
    y.write_text("- {files: rtl/common/x.v, signal: 'hdr', bits: [0, 2-3], reason: tied fields}\n"
                 "- {files: rtl/common/x.v, signal: 'bk', bits: [1], reason: top bit}\n")
    ex = cov.load_exclusions(y)
    files, n = cov.build_files(cov.merge([a]), ex)
    assert n == 7 and sorted(files["rtl/common/x.v"].toggles) == ["bk[1][2]:0->1", "hdr[1]:0->1", "hdr[1]:1->0"]
    assert [e.matched for e in ex] == [6, 1]
    assert cov.exclusion_what(cov.exclusion_entry(ex[0])) == "all; signal /hdr/ bits 0,2-3"
    y.write_text("- {files: rtl/common/x.v, bits: [1], reason: no signal}\n")
    with pytest.raises(SystemExit, match="bits needs a signal"):
        cov.load_exclusions(y)
    y.write_text("- {files: rtl/common/x.v, signal: hdr, bits: [1], index: '\\[1\\]', reason: both}\n")
    with pytest.raises(SystemExit, match="use one"):
        cov.load_exclusions(y)


def test_coverage_exclusion_index(tmp_path: Path) -> None:
    """`index` narrows a `signal` entry to some indices of the signal (and needs a signal)."""
    a = _dat(tmp_path / "a.dat", [
        (_pt(F, "toggle", 2, 4, "op[0][4]:0->1", None), 0),
        (_pt(F, "toggle", 2, 4, "op[1][4]:1->0", None), 0),
        (_pt(F, "toggle", 2, 4, "op[1][3]:0->1", None), 0),
        (_pt(F, "toggle", 3, 4, "g[1].dh[5]:0->1", None), 0),
        (_pt(F, "toggle", 3, 4, "g[1].dq[5]:0->1", None), 0),
    ])
    y = tmp_path / "ex.yaml"
    y.write_text("- {files: rtl/common/x.v, signal: op, index: '\\[\\d+\\]\\[4\\]', reason: tied 0}\n"
                 "- {files: rtl/common/x.v, signal: g, index: '\\[\\d+\\]\\.dh\\[\\d+\\]', reason: constant}\n")
    ex = cov.load_exclusions(y)
    files, n = cov.build_files(cov.merge([a]), ex)
    assert [e.matched for e in ex] == [2, 1]
    assert cov.uncovered(files["rtl/common/x.v"])["toggles"] == ["g[1].dq[5] 0->1", "op[1][3] 0->1"]
    y.write_text("- {files: rtl/common/x.v, index: '\\[4\\]', reason: no signal}\n")
    with pytest.raises(SystemExit, match="index needs a signal"):
        cov.load_exclusions(y)


def test_coverage_exclusion_claims_checked(tmp_path: Path) -> None:
    """An exclusion claims its code cannot run or its bits cannot move; the regression's counts
    check the claim. A line or branch point that counted refutes it, so does a toggle bit counted
    in both directions; one 0->1 alone is a constant 1 settling from the simulator's initial 0.
    `moves: true` (test-only HDL, an unread input) is not checked; `arm` narrows a branch entry
    to one arm of its decision."""
    a = _dat(tmp_path / "a.dat", [
        (_pt(F, "line", 10, 5, "block", "10"), 3),               # 'cannot run', but ran
        (_pt(F, "toggle", 2, 4, "k[0]:0->1", None), 2),          # constant 1: 0->1 only
        (_pt(F, "toggle", 2, 4, "k[0]:1->0", None), 0),
        (_pt(F, "toggle", 2, 4, "k[1]:0->1", None), 5),          # moved both ways
        (_pt(F, "toggle", 2, 4, "k[1]:1->0", None), 4),
        (_pt(F, "toggle", 3, 4, "u[0]:0->1", None), 7),          # an input the block ignores
        (_pt(F, "toggle", 3, 4, "u[0]:1->0", None), 7),
        (_pt(F, "branch", 30, 9, "if", "31"), 0),                # a checker's raising arm
        (_pt(F, "branch", 30, 9, "else", None), 9),
    ])
    y = tmp_path / "ex.yaml"
    y.write_text("- {files: rtl/common/x.v, kind: line, lines: [10], reason: unreachable}\n"
                 "- {files: rtl/common/x.v, signal: k, reason: constant}\n"
                 "- {files: rtl/common/x.v, signal: u, moves: true, reason: input not read}\n"
                 "- {files: rtl/common/x.v, kind: branch, arm: if, lines: [30], reason: checker}\n")
    ex = cov.load_exclusions(y)
    files, n = cov.build_files(cov.merge([a]), ex)
    assert [e.matched for e in ex] == [1, 4, 2, 1] and n == 8
    assert [len(e.moved) for e in ex] == [1, 2, 0, 0]
    assert ex[1].moved[0][0].endswith("k[1]:0->1")
    assert [o for g in files["rtl/common/x.v"].branches[30] for o, _ in g] == ["else"]
    d = tmp_path / "dat"
    d.mkdir()
    a.rename(d / "a.dat")
    assert cov.main(["--dat", str(d), "--out", str(tmp_path / "out"), "--exclusions", str(y),
                     "--no-html", "--flags=--coverage-line"]) == 1
    y.write_text("- {files: rtl/common/x.v, kind: line, arm: if, lines: [10], reason: x}\n")
    with pytest.raises(SystemExit, match="arm needs kind: branch"):
        cov.load_exclusions(y)
    y.write_text("- {files: rtl/common/x.v, signal: k, moves: 1, reason: x}\n")
    with pytest.raises(SystemExit, match="moves must be true or false"):
        cov.load_exclusions(y)


def test_coverage_exclusion_message(tmp_path: Path) -> None:
    """`message` excludes, per 128-bit lane, the bits above that lane's message's canonical
    fields, widths read from models.cxl.messages (the one owner of the layouts); lanes repeat
    the list, and the signal regex matches a generate block's full name."""
    from models.cxl.messages import SPECS
    wr, wd = SPECS["m2s_req"].canonical_width, SPECS["m2s_rwd"].canonical_width
    bits = [wr - 1, wr, 127, 128 + wd - 1, 128 + wd, 255, 256 + wr - 1, 256 + wr]
    a = _dat(tmp_path / "a.dat", [
        (_pt(F, "toggle", 2, 4, f"g_b[1].m2s_hdr[{b}]:0->1", None), 0) for b in bits
    ] + [(_pt(F, "toggle", 2, 4, f"g_b[1].other[{wr}]:0->1", None), 0)])
    y = tmp_path / "ex.yaml"
    y.write_text("- {files: rtl/common/x.v, signal: 'g_b\\[\\d+\\]\\.m2s_hdr', "
                 "message: [m2s_req, m2s_rwd], reason: padding}\n")
    ex = cov.load_exclusions(y)
    files, _ = cov.build_files(cov.merge([a]), ex)
    assert sorted(files["rtl/common/x.v"].toggles) == sorted(
        [f"g_b[1].m2s_hdr[{b}]:0->1" for b in (wr - 1, 128 + wd - 1, 256 + wr - 1)]
        + [f"g_b[1].other[{wr}]:0->1"])
    assert ex[0].matched == 5 and ex[0].pad_from == [wr, wd]
    # padding is claimed 0 in every message: one 0->1 is already a moved bit
    b = _dat(tmp_path / "b.dat", [(_pt(F, "toggle", 2, 4, f"g_b[1].m2s_hdr[{wr}]:0->1", None), 1)])
    cov.build_files(cov.merge([b]), ex)
    assert [w for w, _ in ex[0].moved] == [f"rtl/common/x.v:2 toggle g_b[1].m2s_hdr[{wr}]:0->1"]
    assert "bits above the m2s_req/m2s_rwd fields" in cov.exclusion_what(cov.exclusion_entry(ex[0]))
    # `bits` narrows it (a FIFO word: the header in bits 0-127, the destination above); a lane
    # that carries either of two messages keeps the wider one's fields
    y.write_text("- {files: rtl/common/x.v, signal: 'g_b\\[\\d+\\]\\.m2s_hdr', bits: [0-127], "
                 "message: ['m2s_req|m2s_rwd'], reason: padding}\n")
    ex = cov.load_exclusions(y)
    files, _ = cov.build_files(cov.merge([a]), ex)
    assert ex[0].pad_from == [max(wr, wd)] and ex[0].matched == len([b for b in bits if max(wr, wd) <= b < 128])
    for bad, err in (("signal: x, message: [m2s_nope]", "unknown message"),
                     ("message: [m2s_req]", "message needs a signal"),
                     ("signal: x, message: [m2s_req], index: '1'", "message needs a signal")):
        y.write_text(f"- {{files: rtl/common/x.v, {bad}, reason: x}}\n")
        with pytest.raises(SystemExit, match=err):
            cov.load_exclusions(y)


def test_coverage_main_writes_outputs(tmp_path: Path) -> None:
    d = tmp_path / "dat"
    d.mkdir()
    _dat(d / "a.dat", [(_pt(F, "line", 10, 5, "block", "10"), 1)])
    ex = tmp_path / "none.yaml"
    rc = cov.main(["--dat", str(d), "--out", str(tmp_path / "out"), "--exclusions", str(ex),
                   "--no-html", "--flags=--coverage-line"])
    assert rc == 0
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["blocks"]["common"]["line"] == {"hit": 1, "total": 1, "pct": 100.0, "goal": 90.0}
    assert cov.bench(tmp_path / "out" / "summary.json")["coverage.common.line"] == 100.0
    assert cov.main(["--dat", str(tmp_path), "--out", str(tmp_path / "o2"), "--no-html"]) == 1


# A Verilog source with the function/task forms tools/coverage.py must find. `# name` markers
# are stripped before use; each gives the line a test looks up (so no line number is typed in).
_SNIPPET = """\
// function in_line_comment(input x); endfunction
/* function in_block_comment;
   endfunction */
module a #(parameter W = 8) (input clk);
    localparam [8*24-1:0] S = "function in_string(x);";
    wire my_function = 1'b0, task_done = 1'b1;   // identifiers that contain the keywords
    function automatic [511:0] crc_mask(input [3:0] j);  # crc_mask.0
        integer i;
        begin
            for (i = 0; i < 4; i = i + 1) begin
                if (j[i]) begin
                    crc_mask = 512'd0;  // endfunction in a comment
                end
            end
        end
    endfunction  # crc_mask.1
    function integer wid;  # wid.0
        input integer c;
        wid = c;
    endfunction  # wid.1
    function [(W*2)-1:0] dbl (input [W-1:0] x);  # dbl.0
        dbl = {x, x};
    endfunction : dbl  # dbl.1
    function automatic signed [7:0] sgn(input x); sgn = x; endfunction  # sgn.0 sgn.1
    task automatic pulse(input integer n);  # pulse.0
        begin
            repeat (n) @(posedge clk);
        end
    endtask  # pulse.1
    function automatic [2:0] pick(input [2:0] i);  # pick.0
        case (i)
            3'd0: pick = 3'd1;
            default: pick = 3'd0;  # pick.default
        endcase
    endfunction  # pick.1
endmodule
"""


def _snippet() -> tuple[str, dict[str, int]]:
    marks: dict[str, int] = {}
    lines = []
    for n, raw in enumerate(_SNIPPET.splitlines(), 1):
        code, _, tags = raw.partition("  # ")
        for t in tags.split():
            marks[t] = n
        lines.append(code)
    return "\n".join(lines) + "\n", marks


def test_coverage_finds_verilog_functions() -> None:
    text, m = _snippet()
    subs = cov.verilog_subprograms(text)
    assert subs == {name: [(m[f"{name}.0"], m[f"{name}.1"])]
                    for name in ("crc_mask", "wid", "dbl", "sgn", "pulse", "pick")}
    # several modules in one file defining the same name: both ranges, so the caller can refuse
    twice = text + text.replace("module a", "module b")
    assert len(cov.verilog_subprograms(twice)["wid"]) == 2
    with pytest.raises(ValueError, match="has no endfunction before the function on line 2"):
        cov.verilog_subprograms("function f;\nfunction g;\nendfunction\n")
    with pytest.raises(ValueError, match="has no endtask"):
        cov.verilog_subprograms("task t;\nbegin end\n")
    with pytest.raises(ValueError, match="endfunction on line 2 closes no function"):
        cov.verilog_subprograms("task t;\nendfunction\n")


def _src_tree(root: Path) -> dict[str, int]:
    text, marks = _snippet()
    (root / "rtl" / "blk").mkdir(parents=True)
    (root / "rtl" / "blk" / "a.v").write_text(text)
    (root / "rtl" / "blk" / "b.v").write_text("module b;\n  function integer wid;\n"
                                              "    input c; wid = c;\n  endfunction\nendmodule\n")
    return marks


def _load(root: Path, entry: str) -> list[cov.Exclusion]:
    y = root / "ex.yaml"
    y.write_text(entry)
    return cov.load_exclusions(y, root)


def test_coverage_exclusion_by_function(tmp_path: Path) -> None:
    m = _src_tree(tmp_path)
    (e,) = _load(tmp_path, "- {files: rtl/blk/a.v, functions: [crc_mask, pulse], reason: r}\n")
    crc = list(range(m["crc_mask.0"], m["crc_mask.1"] + 1))
    pulse = list(range(m["pulse.0"], m["pulse.1"] + 1))
    assert e.resolved == [("rtl/blk/a.v", "crc_mask", crc), ("rtl/blk/a.v", "pulse", pulse)]
    assert e.by_file == {"rtl/blk/a.v": set(crc + pulse)}
    # the range decides which points go: inside crc_mask, outside it, and another file
    pts = {cov.Point("rtl/blk/a.v", "line", m["crc_mask.0"] + 5, 5, "block", ""): 0,
           cov.Point("rtl/blk/a.v", "line", m["wid.0"] + 2, 5, "block", ""): 1,
           cov.Point("rtl/blk/b.v", "line", m["crc_mask.0"] + 5, 5, "block", ""): 1}
    files, n = cov.build_files(pts, [e])
    assert n == 1 and e.matched == 1
    assert files["rtl/blk/a.v"].lines == {m["wid.0"] + 2: 1} and "rtl/blk/b.v" in files
    (s,) = _load(tmp_path, "- {files: rtl/blk/b.v, functions: wid, reason: r}\n")   # one name
    assert s.by_file == {"rtl/blk/b.v": {2, 3, 4}}
    # a glob: each matched file must define the name (wid is in both, crc_mask only in a.v)
    (g,) = _load(tmp_path, "- {files: 'rtl/blk/*', functions: [wid], reason: r}\n")
    assert g.by_file == {"rtl/blk/a.v": set(range(m["wid.0"], m["wid.1"] + 1)),
                         "rtl/blk/b.v": {2, 3, 4}}
    with pytest.raises(SystemExit,
                       match=r"rtl/blk/b\.v: no function or task named crc_mask \(it defines: wid\)"):
        _load(tmp_path, "- {files: 'rtl/blk/*', functions: [crc_mask], reason: r}\n")
    # the summary lists what each entry resolved to
    entry = cov.exclusion_entry(e)
    assert entry["resolved"][0] == {"file": "rtl/blk/a.v", "function": "crc_mask",
                                    "lines": [f"{crc[0]}-{crc[-1]}"]}
    assert cov.exclusion_what(entry) == (f"all; crc_mask() lines {crc[0]}-{crc[-1]}, "
                                         f"pulse() lines {pulse[0]}-{pulse[-1]}")
    assert "rtl/blk/b.v wid() lines 2-4" in cov.exclusion_what(cov.exclusion_entry(g))


def test_coverage_exclusion_by_function_fails_loudly(tmp_path: Path) -> None:
    _src_tree(tmp_path)
    for entry, msg in [
        ("functions: [nope]", r"rtl/blk/a\.v: no function or task named nope \(it defines: "
                                r"crc_mask, dbl, pick, pulse, sgn, wid\)"),
        ("functions: [in_line_comment]", "no function or task named in_line_comment "),
        ("functions: [in_block_comment]", "no function or task named in_block_comment "),
        ("functions: [in_string]", "no function or task named in_string "),
        ("function: [crc_mask]", r"unknown key\(s\) function"),
        ("functions: [wid], lines: [3]", "lines or functions, not both"),
        ("match: x", "match needs lines or functions"),
        ("lines: [3], match: ''", "match must be a non-empty regex"),
        ("functions: [wid], match: 'default'", r"no line of function wid \(\d+-\d+\) matches"),
    ]:
        with pytest.raises(SystemExit, match=msg):
            _load(tmp_path, f"- {{files: rtl/blk/a.v, {entry}, reason: r}}\n")
    with pytest.raises(SystemExit, match="names no Verilog source"):
        _load(tmp_path, "- {files: rtl/blk/gone.v, functions: [wid], reason: r}\n")
    a = tmp_path / "rtl" / "blk" / "a.v"
    a.write_text(a.read_text() + a.read_text().replace("module a", "module c"))
    with pytest.raises(SystemExit, match=r"wid is defined 2 times \(lines \d+-\d+, \d+-\d+\): "
                                         r"ambiguous"):
        _load(tmp_path, "- {files: rtl/blk/a.v, functions: [wid], reason: r}\n")


def test_coverage_exclusion_match(tmp_path: Path) -> None:
    m = _src_tree(tmp_path)
    d = m["pick.default"]
    # functions + match: only the function's lines whose code matches
    (e,) = _load(tmp_path, "- {files: rtl/blk/a.v, functions: [pick], match: '^\\s*default\\s*:', "
                           "reason: r}\n")
    assert e.by_file == {"rtl/blk/a.v": {d}}
    what = cov.exclusion_what(cov.exclusion_entry(e))
    assert what.startswith(f"all; pick() line {d} (lines matching")
    # lines + match: the listed line must hold that code ...
    (e,) = _load(tmp_path, f"- {{files: rtl/blk/a.v, lines: [{d}], match: 'default', reason: r}}\n")
    assert e.by_file == {"rtl/blk/a.v": {d}} and e.resolved == [("rtl/blk/a.v", None, [d])]
    # ... so once the code moves the entry fails instead of excluding whatever is there now
    a = tmp_path / "rtl" / "blk" / "a.v"
    a.write_text("// a new first line\n" + a.read_text())
    with pytest.raises(SystemExit, match=rf"line {d} does not match /default/ \(it is now: "
                                         r"\"3'd0: pick = 3'd1;\"\)"):
        _load(tmp_path, f"- {{files: rtl/blk/a.v, lines: [{d}], match: 'default', reason: r}}\n")
    # the functions form follows it
    (e,) = _load(tmp_path, "- {files: rtl/blk/a.v, functions: [pick], match: default, reason: r}\n")
    assert e.by_file == {"rtl/blk/a.v": {d + 1}}
    # a comment does not count as the line's code (the line shifted by one above)
    line = m["crc_mask.0"] + 1 + 5
    assert "endfunction in a comment" in a.read_text().splitlines()[line - 1]
    with pytest.raises(SystemExit, match=f"line {line} does not match /endfunction/"):
        _load(tmp_path,
              f"- {{files: rtl/blk/a.v, lines: [{line}], match: endfunction, reason: r}}\n")


def test_toggle_const_proves_bits_no_input_or_state_moves(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """tools.toggle_const on tb/common/hdl/cov_const_bits.v: the bits no input or flop value can
    move are proven (a count's high bit, a | ~a, a & ~a), a free bit and a flop that only reset
    keeps at 0 are not, a grid keeps the bits constant in every combination, and the second call
    reads the cache."""
    from tools import toggle_const as tc
    monkeypatch.setattr(tc, "ROOTS", [tc.RTL, REPO / "tb" / "common" / "hdl"])
    monkeypatch.setattr(tc, "CACHE", tmp_path / "const")
    got = tc.prove("cov_const_bits", {"W": 2}, r"cnt|one|mix|held")
    assert got == {"cnt[2]": 0, "mix[1]": 0, "one": 1, "one[0]": 1}
    assert tc.prove_grid("cov_const_bits", {"W": [1, 2, 3]}, r"cnt|mix") == {"cnt[2]", "mix[1]"}
    assert tc.prove_grid("cov_const_bits", {"W": [3, 4]}, r"cnt|mix") == {"mix[1]"}
    # one proof per (parameters, pattern): W 2 with the first pattern, W 1..4 with the second
    assert len(list((tmp_path / "const").glob("cov_const_bits-*.json"))) == 5
    monkeypatch.setattr(tc, "_model", lambda *a: pytest.fail("cached proof recomputed"))
    assert tc.prove("cov_const_bits", {"W": 2}, r"cnt|one|mix|held") == got


def test_toggle_const_cache_keyed_on_the_modules_sources(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The proof cache key covers the module's source set (tools.lint.source_sets: its file, the
    module files its text names, transitively, and the include files they name): editing a
    submodule changes it, editing an unrelated module does not."""
    from tools import toggle_const as tc
    root = tmp_path / "hdl"
    root.mkdir()
    (root / "top.v").write_text('`include "cxl_defs.vh"\nmodule top(input a, output y);\n'
                                " mid u(.a(a), .y(y));\nendmodule\n")
    (root / "mid.v").write_text("module mid(input a, output y);\n leaf u(.a(a), .y(y));\nendmodule\n")
    (root / "leaf.v").write_text("module leaf(input a, output y); assign y = a; endmodule\n")
    (root / "other.v").write_text("module other(input a, output y); assign y = a; endmodule\n")
    monkeypatch.setattr(tc, "ROOTS", [root])
    assert sorted(p.name for p in tc._sources("top")) == ["cxl_defs.vh", "leaf.v", "mid.v", "top.v"]
    k0 = tc._key("top", {}, "y")
    (root / "other.v").write_text((root / "other.v").read_text() + "// edited\n")
    assert tc._key("top", {}, "y") == k0
    (root / "leaf.v").write_text((root / "leaf.v").read_text() + "// edited\n")
    k1 = tc._key("top", {}, "y")
    assert k1 != k0
    assert tc._key("top", {"W": 1}, "y") != k1 and tc._key("top", {}, "a") != k1


def test_toggle_conn_finds_the_compositions_connections(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """tools.toggle_conn on tb/common/hdl/cov_conn_top.v: a submodule's output (and the nets an
    assign joins to it), a constant tie and an input that only feeds the submodule are
    connections; an input an AND gate reads, the gate's output and a flop are the module's own;
    over a grid, a bit counts as a connection only if it is one in every combination that has it,
    and the second call reads the cache."""
    from tools import toggle_conn as tn
    monkeypatch.setattr(tn, "ROOTS", [tn.RTL, REPO / "tb" / "common" / "hdl"])
    monkeypatch.setattr(tn, "CACHE", tmp_path / "conn")
    got = tn.classes("cov_conn_top", {"W": 2})
    assert {b: c for b, c in got.items() if not b.endswith("]")} == {
        "clk": "logic", "s": "logic", "y": "logic", "r": "logic", "m": "logic", "g_w.q": "port"}
    assert [got[f"x[{i}]"] for i in range(2)] == ["port", "port"]
    assert [got[f"z[{i}]"] for i in range(2)] == ["port", "port"]
    assert [got[f"lane[{i}]"] for i in range(4)] == ["port", "port", "tie", "tie"]
    assert [got[f"a[{i}]"] for i in range(2)] == ["input", "input"]
    conn = {"a[0]", "a[1]", "x[0]", "x[1]", "z[0]", "z[1]", "lane[0]", "lane[1]", "lane[2]",
            "lane[3]"}
    # m is x[0] itself for W 1 and an inverter's output for W 2; g_w.q exists only for W 2
    assert tn.connections_grid("cov_conn_top", {"W": [1]}) == conn | {"m", "m[0]"}
    assert tn.connections_grid("cov_conn_top", {"W": [1, 2]}) == conn | {"g_w.q", "g_w.q[0]"}
    assert len(list((tmp_path / "conn").glob("cov_conn_top-*.json"))) == 2
    monkeypatch.setattr(tn, "_netlist", lambda *a: pytest.fail("cached netlist recomputed"))
    assert tn.classes("cov_conn_top", {"W": 2}) == got


def test_coverage_exclusion_connection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `connection` entry excludes only the connection bits of its signals (whether they moved
    or not: they count at the submodule's ports); a malformed entry, one without moves: true, or
    one whose signals hold no connection is an error."""
    from tools import toggle_conn as tn
    monkeypatch.setattr(tn, "ROOTS", [tn.RTL, REPO / "tb" / "common" / "hdl"])
    monkeypatch.setattr(tn, "CACHE", tmp_path / "conn")
    pts = [(_pt(F, "toggle", 9, 4, f"{n}:{d}", None), 1 if n == "x[1]" else 0)
           for n in ("x[0]", "x[1]", "lane[3]", "m", "y") for d in ("0->1", "1->0")]
    y = tmp_path / "ex.yaml"
    y.write_text("- {files: rtl/common/x.v, kind: toggle, signal: 'x|lane|m|y', moves: true,\n"
                 "   reason: joins, connection: {module: cov_conn_top, params: {W: [1, 2]}}}\n")
    ex = cov.load_exclusions(y)
    files, n = cov.build_files(cov.merge([_dat(tmp_path / "a.dat", pts)]), ex)
    assert n == 6 and ex[0].matched == 6 and not ex[0].moved
    assert cov.uncovered(files["rtl/common/x.v"])["toggles"] == ["m 0->1", "m 1->0", "y 0->1",
                                                                 "y 1->0"]
    assert "connection bits of cov_conn_top over W [1, 2]" in \
        cov.exclusion_what(cov.exclusion_entry(ex[0]))
    for bad, msg in [("connection: {module: cov_conn_top, params: {W: 1}}", "connection must be"),
                     ("connection: {module: cov_conn_top, grid: {}}", "connection must be"),
                     ("kind: line, moves: true, connection: {module: cov_conn_top}", "needs kind: toggle"),
                     ("kind: toggle, connection: {module: cov_conn_top}", "moves: true"),
                     ("kind: toggle, moves: true, bits: [1], connection: {module: cov_conn_top}",
                      "not with bits")]:
        y.write_text(f"- {{files: rtl/common/x.v, signal: x, reason: r, {bad}}}\n")
        with pytest.raises(SystemExit, match=msg):
            cov.load_exclusions(y)
    y.write_text("- {files: rtl/common/x.v, kind: toggle, signal: 'y|r', moves: true, reason: r,\n"
                 "   connection: {module: cov_conn_top}}\n")
    with pytest.raises(SystemExit, match=r"no bit of /y\|r/ in cov_conn_top is a connection"):
        cov.build_files(cov.merge([_dat(tmp_path / "a.dat", pts)]), cov.load_exclusions(y))


def test_coverage_exclusion_proven(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `proven` entry excludes only the bits of its signals the proof finds constant over its
    parameter grid; the regression still checks the claim; a malformed entry or one that proves
    nothing is an error."""
    from tools import toggle_const as tc
    monkeypatch.setattr(tc, "ROOTS", [tc.RTL, REPO / "tb" / "common" / "hdl"])
    monkeypatch.setattr(tc, "CACHE", tmp_path / "const")
    pts = [(_pt(F, "toggle", 9, 4, f"{n}:{d}", None), 0)
           for n in ("cnt[1]", "cnt[2]", "mix[0]", "mix[1]", "one", "held") for d in ("0->1", "1->0")]
    y = tmp_path / "ex.yaml"
    y.write_text("- {files: rtl/common/x.v, kind: toggle, signal: 'cnt|mix|one|held', reason: const,\n"
                 "   proven: {module: cov_const_bits, params: {W: [1, 2, 3]}}}\n")
    ex = cov.load_exclusions(y)
    files, n = cov.build_files(cov.merge([_dat(tmp_path / "a.dat", pts)]), ex)
    assert n == 6 and ex[0].matched == 6 and not ex[0].moved
    assert cov.uncovered(files["rtl/common/x.v"])["toggles"] == [
        "cnt[1] 0->1", "cnt[1] 1->0", "held 0->1", "held 1->0", "mix[0] 0->1", "mix[0] 1->0"]
    assert "the 3 bits proven constant in cov_const_bits over W [1, 2, 3]" in \
        cov.exclusion_what(cov.exclusion_entry(ex[0]))
    # a proven bit that moved both ways in the regression refutes the entry
    moved = [(k, 1 if "cnt[2]" in k else c) for k, c in pts]
    ex = cov.load_exclusions(y)
    cov.build_files(cov.merge([_dat(tmp_path / "b.dat", moved)]), ex)
    assert [w for w, _ in ex[0].moved] == ["rtl/common/x.v:9 toggle cnt[2]:0->1",
                                           "rtl/common/x.v:9 toggle cnt[2]:1->0"]
    for bad, msg in [("proven: {module: cov_const_bits, params: {W: 2}}", "proven must be"),
                     ("proven: {module: cov_const_bits, grid: {}}", "proven must be"),
                     ("kind: line, proven: {module: cov_const_bits}", "needs kind: toggle"),
                     ("kind: toggle, bits: [2], proven: {module: cov_const_bits}", "not with bits")]:
        y.write_text(f"- {{files: rtl/common/x.v, signal: cnt, reason: r, {bad}}}\n")
        with pytest.raises(SystemExit, match=msg):
            cov.load_exclusions(y)
    y.write_text("- {files: rtl/common/x.v, kind: toggle, signal: held, reason: r,\n"
                 "   proven: {module: cov_const_bits}}\n")
    with pytest.raises(SystemExit, match="no bit of /held/ in cov_const_bits is proven constant"):
        cov.build_files(cov.merge([_dat(tmp_path / "a.dat", pts)]), cov.load_exclusions(y))


def test_coverage_exclusions_yaml_resolves_on_the_rtl() -> None:
    """tools/coverage_exclusions.yaml against the RTL of this checkout: every named function is
    found once per matched file, its range runs from its `function` line to its `endfunction`
    line, and a `match` entry picks lines holding that code."""
    excl = cov.load_exclusions(REPO / "tools" / "coverage_exclusions.yaml")
    named = [e for e in excl if e.functions]
    assert named, "the yaml names no functions"
    for e in named:
        got = [(f, fn) for f, fn, _ in e.resolved]
        assert got == [(f, fn) for f in cov.source_files(e.files) for fn in e.functions]
        for f, fn, lines in e.resolved:
            code = cov.blank_comments((REPO / f).read_text()).splitlines()
            if e.match is None:
                assert lines == list(range(lines[0], lines[-1] + 1)), (f, fn)
                assert re.search(rf"\bfunction\b.*\b{fn}\s*[(;]", code[lines[0] - 1]), (f, fn)
                assert re.search(r"\bendfunction\b", code[lines[-1] - 1]), (f, fn)
                body = code[lines[0]:lines[-1] - 1]
                assert not any(re.search(r"\bendfunction\b", c) for c in body), (f, fn)
            else:
                sub = cov.verilog_subprograms((REPO / f).read_text())[fn][0]
                assert all(sub[0] <= n <= sub[1] and re.search(e.match, code[n - 1]) for n in lines)


def test_coverage_exclusions_derived_bits_match_their_rule() -> None:
    """The toggle exclusions of cxl_flit256_rx's successor matrices and cxl_flit256_rx_slot's
    per-position message bits list bit indices in the yaml; recompute them here from the rule
    the yaml states (successor t > s, k-fold composition t >= s + k or the sink 15) and from the
    message tables the RTL's widths are generated from, so an edit to either shows up."""
    from models.cxl.flit256 import SLOT_FORMATS
    from models.cxl.messages import SPECS
    excl = cov.load_exclusions(REPO / "tools" / "coverage_exclusions.yaml")

    def zero_bits(k: int, rows: int, transposed: bool) -> list[int]:
        return sorted((t * 16 + s) if transposed else (s * 16 + t)
                      for s in range(rows) for t in range(15) if s == 15 or t < s + k)
    rx = {e.signal: e for e in excl if e.files == "rtl/link/cxl_flit256_rx.v" and e.signal
          and e.signal.startswith("m")}
    want = {"m1r|s1_m1": (1, 15, False), "m1": (1, 16, False), "m1t": (1, 16, True),
            "m2": (2, 16, False), "m2t": (2, 16, True), "m4": (4, 16, False), "m4t": (4, 16, True),
            "m8|s2_m8": (8, 16, False), "m8t": (8, 16, True)}
    assert sorted(rx) == sorted(want)
    for sig, (k, rows, tr) in want.items():
        assert rx[sig].bits == zero_bits(k, rows, tr), sig

    width: dict[tuple[int, int], int] = {}
    for (_kind, pbr), table in SLOT_FORMATS.items():
        for f, mids in table.items():
            for q, mid in enumerate(mids):
                w = SPECS[mid].width("PBR" if pbr else "256B")
                width[(f, q)] = max(width.get((f, q), 0), w)
    got: dict[tuple[int, int], list[int]] = {}
    for e in excl:
        if e.files == "rtl/link/cxl_flit256_rx_slot.v" and e.signal and e.signal.endswith("raw"):
            for (f, q) in width:
                if re.fullmatch(e.signal, f"g_f[{f}].g_q[{q}].g_on.raw"):
                    assert (f, q) not in got, (f, q)
                    got[(f, q)] = e.bits
    assert got == {fq: list(range(w, 124)) for fq, w in width.items() if w < 124}


def test_formal_bind_and_mutation(tmp_path: Path) -> None:
    text = "module a(input x);\nendmodule\nmodule b(input y);\n  wire z = y;\nendmodule\n"
    out = formal.splice_bind(text, "b", "b.props.svh")
    assert out.endswith('  wire z = y;\n`include "b.props.svh"\nendmodule\n')
    assert formal.splice_bind(text, "a", "a.svh").startswith('module a(input x);\n`include "a.svh"\nendmodule')
    with pytest.raises(ValueError, match="defined 0 times"):
        formal.splice_bind(text, "c", "c.svh")
    # every property names a broken variant whose mutation applies exactly once to today's RTL
    for p in formal.load_spec():
        for b in p.broken:
            src = (REPO / b["file"]).read_text()
            assert src.count(b["from"]) == 1, f"{p.name}/{b['name']}: mutation does not apply once"
        for module, inc in p.bind.items():
            assert (REPO / inc).exists(), inc


def test_formal_prepare_writes_sby(tmp_path: Path) -> None:
    p = next(p for p in formal.load_spec() if p.name == "sync_fifo")
    sby = formal.prepare(p, formal.Variant(p.name, ""), tmp_path / "w")
    text = sby.read_text()
    assert "proof: mode prove" in text and "cover: mode cover" in text and "smtbmc z3" in text
    assert f"prep -flatten -top {p.top}" in text
    assert '`include "sync_fifo.props.svh"\nendmodule' in (tmp_path / "w" / "sync_fifo.v").read_text()
    b = p.broken[0]
    sby = formal.prepare(p, formal.Variant(p.name, b["name"], b), tmp_path / "m")
    assert "bmc: mode bmc" in sby.read_text()
    assert b["to"] in (tmp_path / "m" / Path(b["file"]).name).read_text()
    # extra Yosys commands of a property run right after prep
    ha = next(p for p in formal.load_spec() if p.name == "home_agent")
    text = formal.prepare(ha, formal.Variant(ha.name, ""), tmp_path / "h").read_text()
    assert f"prep -flatten -top {ha.top}\nmemory_map\nopt_clean\n" in text


def test_formal_sat_engine(tmp_path: Path) -> None:
    """engine: sat (combinational properties): the spec refuses it on a property with state, the
    runner writes a Yosys script for it, and run_sat tells a proven assertion from a broken one."""
    spec = tmp_path / "p.yaml"
    spec.write_text("- {name: x, what: x, top: t, files: [a.v], engine: sat, mode: prove, depth: 20,\n"
                    "   broken: [{name: b, file: a.v, from: a, to: b}]}\n")
    with pytest.raises(SystemExit, match="combinational"):
        formal.load_spec(spec)
    hd = next(p for p in formal.load_spec() if p.name == "hdm_decode")
    assert hd.engine == "sat"
    ys = formal.prepare(hd, formal.Variant(hd.name, ""), tmp_path / "hd")
    text = ys.read_text()
    assert ys.suffix == ".ys" and "chformal -lower" in text and "sat -prove-asserts -set-assumes -verify" in text
    for name, expr, want in (("good", "a + b == b + a", "PASS"), ("bad", "a + b == a", "FAIL")):
        d = tmp_path / name
        d.mkdir()
        (d / "t.sv").write_text("module t(input wire [7:0] a, input wire [7:0] b);\n"
                                f"  always @* begin assume (a != 8'd0); assert ({expr}); end\nendmodule\n")
        (d / "t.ys").write_text("read -formal -sv t.sv\nprep -flatten -top t\nchformal -lower\n"
                                "sat -prove-asserts -set-assumes -verify -timeout 60\n")
        status, _, _ = formal.run_sat(d / "t.ys", 120)
        assert status == want, name


# About 3 minutes of z3 (170 s of a 2-core CI run), so the full regression's: `make formal` runs the
# same broken variants with the intact proof.
@pytest.mark.full
def test_formal_home_agent_broken_variants_caught(tmp_path: Path) -> None:
    """The home agent's depth-20 proof runs for over half an hour, so this test runs only its
    broken variants: each bounded search (three entries, FV_HA_NTXN; two free line bits,
    FV_HA_LINE_BITS) must end in a counterexample. The intact design's proof keeps two entries and
    every line bit. binv_busy_line's counterexample is 11 steps deep (the agent's stages), about
    10 minutes of z3 on a shared machine, hence the timeout."""
    ha = next(p for p in formal.load_spec() if p.name == "home_agent")
    intact = formal.prepare(ha, formal.Variant(ha.name, ""), tmp_path / "intact").read_text()
    assert "FV_HA_NTXN" not in intact and "FV_HA_LINE_BITS" not in intact
    for b in ha.broken:
        v = formal.Variant(ha.name, b["name"], b)
        sby = formal.prepare(ha, v, tmp_path / v.tag)
        assert "-DFV_HA_NTXN=3" in sby.read_text() and "-DFV_HA_LINE_BITS=2" in sby.read_text()
        status, secs, tail = formal.run_sby(sby, "bmc", 1800)
        print(f"{v.tag}: {status} in {secs:.1f} s")
        assert status == "FAIL", f"{v.tag} not caught ({status}): {tail}"


def test_runner_sim_selection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SIM", raising=False)
    assert sim_name() == "verilator"
    monkeypatch.setenv("SIM", "Icarus")
    assert sim_name() == "icarus"
    monkeypatch.setenv("SIM", "xcelium")
    with pytest.raises(ValueError, match="supported"):
        sim_name()
    assert icarus_build_args(["--output-split", "0", "-CFLAGS", "-O1", "-Wno-WIDTH", "-DFOO=1"]) == ["-DFOO=1"]
    # a bench that reaches inside the design asks Verilator for public signals; Icarus needs nothing
    assert icarus_build_args(["--public-flat-rw", "-DFOO=1"]) == ["-DFOO=1"]
    assert icarus_build_args(["--public-depth", "0", "-DFOO=1"]) == ["-DFOO=1"]


def test_formal_runs_with_a_relative_out_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`make formal` passes results/formal (relative); sby runs in the property's own directory,
    so every proof errored before the runner resolved the path. One small property end to end:
    proven, both broken variants caught."""
    monkeypatch.chdir(tmp_path)
    assert formal.main(["--out", "rel/formal", "--only", "credit_counter"]) == 0
    s = json.loads((tmp_path / "rel" / "formal" / "summary_quick.json").read_text())
    assert s["properties_proven"] == 1 and s["broken_caught"] == s["broken_total"] == 2


def test_coverage_header_fix_idempotent_and_refuses_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fix_cov_header bounds Verilator 5.48's two wide toggle loops, leaves a fixed header alone and
    refuses a header with neither form."""
    from tools import runner
    h = tmp_path / "verilated_cov.h"
    monkeypatch.setattr(runner, "cov_header", lambda: h)
    body = "static void f() {\n    %s\n    }\n}\n"
    h.write_text(body % runner._COV_LOOP_BUG * 2)
    before = runner.cov_toolchain_id()
    runner.fix_cov_header()
    assert h.read_text() == body % runner._COV_LOOP_FIX * 2 and runner.cov_toolchain_id() != before
    runner.fix_cov_header()
    assert h.read_text() == body % runner._COV_LOOP_FIX * 2
    h.write_text(body % "for (;;) {")
    with pytest.raises(RuntimeError, match="wide toggle loops"):
        runner.fix_cov_header()


def test_coverage_wide_toggle_counted_per_bit(tmp_path: Path) -> None:
    """A coverage build after cov_flags() (which fixes the header) counts a toggle of bit 70 of a
    128-bit register at bit 70 only; Verilator 5.48 unfixed also counts it at bit 102."""
    import re
    import subprocess

    from tools import runner
    runner.cov_flags()
    runner.setup_verilator_env()
    src = REPO / "tb" / "common" / "hdl" / "cov_wide_toggle.sv"
    subprocess.run(["verilator", "--binary", "--coverage-toggle", "-Wno-fatal", "-CFLAGS", "-std=c++20",
                    "-Mdir", str(tmp_path / "obj"), str(src)], check=True, capture_output=True, timeout=600)
    subprocess.run([str(tmp_path / "obj" / "Vcov_wide_toggle")], cwd=tmp_path, check=True,
                   capture_output=True, timeout=60)
    counts = {}
    for line in (tmp_path / "coverage.dat").read_text(errors="replace").splitlines():
        m = re.search(r"\x01o\x02r\[(\d+)\]:([01]->[01]).*' (\d+)$", line)
        if m:
            counts[(int(m.group(1)), m.group(2))] = int(m.group(3))
    assert len(counts) == 256
    assert counts[(70, "0->1")] == counts[(70, "1->0")] == 5
    assert {k: v for k, v in counts.items() if v and k[0] != 70} == {}


def test_gen_ports_writes_and_checks_wrapper_port_lists(tmp_path: Path) -> None:
    """tools.gen_ports copies a module's port declarations into a wrapper's marked block (reg ->
    wire, renamed widths, a comma on every line, comments kept) and --check fails once the module
    changes."""
    from tools import gen_ports

    (tmp_path / "rtl").mkdir()
    mod = tmp_path / "rtl" / "m.v"
    mod.write_text("module m #(parameter integer N = 2) (\n"
                   "    input  wire         clk,\n"
                   "    // lanes\n"
                   "    input  wire [N-1:0] a_valid,   // one per lane\n"
                   "    output reg  [N*8-1:0] a_data\n"
                   ");\nendmodule\n")
    wr = tmp_path / "w.v"
    wr.write_text("module w #(parameter integer M = 3) (\n"
                  "    input wire clk,\n"
                  "    // ports a_valid .. a_data of rtl/m.v; N as M (make gen)\n"
                  "    // end of generated ports\n"
                  "    output wire done\n"
                  ");\nendmodule\n")
    text = gen_ports.generate(wr, root=tmp_path)
    assert "    // lanes\n" not in text                      # only the named range
    assert "    input  wire [M-1:0]   a_valid, // one per lane\n" in text
    assert "    output wire [M*8-1:0] a_data,\n" in text
    wr.write_text(text)
    assert gen_ports.generate(wr, root=tmp_path) == text     # stable
    mod.write_text(mod.read_text().replace("a_data\n", "a_data,\n    output wire a_last\n"))
    assert gen_ports.generate(wr, root=tmp_path) == text     # outside the range: unchanged
    mod.write_text(mod.read_text().replace("[N*8-1:0]", "[N*16-1:0]"))
    assert "[M*16-1:0] a_data," in gen_ports.generate(wr, root=tmp_path)
    wr.write_text(text.replace("a_valid .. a_data", "a_valid .. a_nope"))
    with pytest.raises(gen_ports.GenError, match="between a_valid and a_nope"):
        gen_ports.generate(wr, root=tmp_path)
