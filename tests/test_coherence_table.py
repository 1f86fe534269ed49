"""The expected-answer table (models/coherence/spec_table.yaml, written from the reference text)
against the protocol model (models/coherence/protocol.py), every row, and against the RTL
(coh_snoop_plan and coh_decide, each its own top, every row: tb/coherence/tb_coh_table.py).

Each row becomes a concrete scenario: requester port 0, one port per distinct answer of the other
holders (and, in a second variant, two ports per answer, since the table abstracts the number of
holders), the directory state and sharer vector the row names.
"""
from __future__ import annotations

import pytest

from models.coherence.home import HomeAgent, HomeConfig
from models.coherence.msgs import CD2HReq, CH2DRsp
from models.coherence.protocol import LEGAL_SNOOP_RSPS, REQUEST_OPS, DirState, decide, snoop_plan
from models.coherence.spec_table import (
    DIRS,
    Scenario,
    keeps_copy,
    load,
    req_opcode,
    rsp_opcode,
    scenario,
    snoop_opcode,
)
from models.cxl.messages import D2HReqOp, GOState, H2DRspOp

TABLE = load()


LINE_ROWS = [r for r in TABLE.rows if r.peers is not None]


def test_table_form_and_size() -> None:
    assert not TABLE.problems
    assert len(TABLE.rows) >= 150
    served = {req_opcode(r.req) for r in TABLE.rows if r.req != "illegal"}
    assert served == {int(o) for o in REQUEST_OPS}, "the table and the model serve different requests"
    # the snoop answer sets in the table are the model's (both from L32-33)
    assert {snoop_opcode(k): {rsp_opcode(a) for a in v} for k, v in TABLE.snoop_answers.items()} == \
        {int(k): {int(a) for a in v} for k, v in LEGAL_SNOOP_RSPS.items()}


def test_table_is_exhaustive_over_reachable_directory_situations() -> None:
    """Every (request, directory state, self, answer set) a legal directory can present has a row."""
    missing = []
    for req in sorted({r.req for r in LINE_ROWS if r.reg == "coh"}):
        snoop_s = {r.snoop for r in LINE_ROWS if r.req == req and r.dir == "S" and r.peers and r.reg == "coh"}
        snoop_e = {r.snoop for r in LINE_ROWS if r.req == req and r.dir == "E" and r.self == "n" and r.reg == "coh"}
        combos = [("I", "n", frozenset())]
        (ss,) = snoop_s
        (se,) = snoop_e
        if ss == "none":
            combos += [("S", "n", frozenset({"kept"})), ("S", "y", frozenset({"kept"})), ("S", "y", frozenset())]
        else:  # S holders are clean: SnpInv finds them in S (RspIHitSE) or dropped (RspIHitI)
            sets = [frozenset({"RspIHitSE"}), frozenset({"RspIHitI"}), frozenset({"RspIHitSE", "RspIHitI"})]
            combos += [("S", "n", s) for s in sets] + [("S", "y", s) for s in sets] + [("S", "y", frozenset())]
        combos.append(("E", "y", frozenset()))
        if se == "none":
            combos.append(("E", "n", frozenset({"kept"})))
        else:
            combos += [("E", "n", frozenset({a})) for a in TABLE.snoop_answers[se]]
        for d, s, p in combos:
            if (req, "coh", d, s, p) not in TABLE.by_key:
                missing.append((req, d, s, sorted(p)))
    assert not missing, missing


def _compare_with_protocol(sc: Scenario) -> list[str]:
    r, out = sc.row, []
    snp, tg = snoop_plan(sc.op, DirState(sc.st), sc.sharers, 0) if sc.coherent else (None, 0)
    want_snp = None if r.snoop == "none" else snoop_opcode(r.snoop)
    want_tg = sc.sharers & ~1 if want_snp is not None else 0
    if (snp, tg) != (want_snp, want_tg):
        out.append(f"snoop: protocol {snp} to {tg:#b}, table {r.snoop} to {want_tg:#b}")
    d = decide(sc.op, 0, DirState(sc.st), sc.sharers, sc.rsps, sc.have_fwd, sc.coherent)
    e = TABLE.expect(sc.op, 0, sc.st, sc.sharers, sc.rsps, sc.coherent)
    if e.rsp == H2DRspOp.GO:
        got = (d.go, d.pull)
        want = (e.go_state, None)
    else:
        got = (d.go, d.pull)
        want = (None, e.rsp)
    if got != want:
        out.append(f"answer: protocol GO {d.go} pull {d.pull}, table {r.rsp}")
    if d.data_src != e.data:
        out.append(f"data: protocol {d.data_src}, table {r.data}")
    got_w = ("fwd" if d.write_fwd and sc.have_fwd else None, "pulled" if d.accept_pull else None,
             d.fwd_if_no_pull)
    want_w = ("fwd" if e.write == "fwd" else None, "pulled" if e.write in ("pulled", "pulled|fwd") else None,
              e.write == "pulled|fwd")
    if got_w != want_w:
        out.append(f"memory write: protocol {got_w}, table {r.write}")
    got_a = (d.go_after_cmp, d.extcmp)
    want_a = (e.after_state if e.after == H2DRspOp.GO else None, e.after == H2DRspOp.EXTCMP)
    if got_a != want_a:
        out.append(f"after the write: protocol {got_a}, table {r.after}")
    if sc.coherent and e.dir_state is not None and (int(d.state), d.sharers) != (e.dir_state, e.sharers):
        out.append(f"directory: protocol {d.state.name} {d.sharers:#b}, table {r.dir_after} "
                   f"= {DIRS[e.dir_state]} {e.sharers:#b}")
    if sc.coherent and e.dir_state is None and (int(d.state), d.sharers) != (sc.st, sc.sharers):
        out.append(f"directory: protocol changes it, table {r.dir_after}")
    return out


@pytest.mark.parametrize("copies", [1, 2])
def test_every_row_against_protocol(copies: int) -> None:
    bad = []
    for r in LINE_ROWS:
        sc = scenario(r, copies)
        for text in _compare_with_protocol(sc):
            bad.append(f"{r.id} ({r.req} {r.reg} dir {r.dir} self {r.self} peers {sorted(r.peers or ())}): {text}")
    assert not bad, "\n".join(bad)


def test_lineless_rows_against_the_home_model() -> None:
    """CacheFlushed and an illegal opcode: the table's answer is what HomeAgent sends."""
    for op in range(32):
        served = op in {int(o) for o in REQUEST_OPS}
        r = TABLE.lineless(op, served)
        if served and r is None:
            continue
        h = HomeAgent(HomeConfig(n_ports=2))
        h.receive(CD2HReq(1, op, 7, 0x40))
        e = TABLE.expect_lineless(op, served)
        assert h.out == [CH2DRsp(1, e.rsp, e.go_state, 7)], (op, h.out, e)
        assert h.idle() and h.entries() == []
    assert TABLE.expect_lineless(int(D2HReqOp.CACHEFLUSHED), True).go_state == GOState.I
    assert TABLE.expect_lineless(0x1F, False).go_state == GOState.ERR


def test_keep_rule_from_the_answer_name() -> None:
    """L31 naming rule as the table reader applies it."""
    assert [keeps_copy(a) for a in ("RspIHitI", "RspIHitSE", "RspSHitSE", "RspSFwdM", "RspIFwdM", "RspVHitV",
                                    "RspVFwdV")] == [False, False, True, True, False, True, True]


def test_a_misread_table_fails_the_cross_check() -> None:
    """The cross-check is not vacuous: one flipped cell in a copy of the table is reported."""
    import yaml

    from models.coherence.spec_table import SpecTable, TABLE as PATH
    doc = yaml.safe_load(open(PATH))
    for row in doc["rows"]:
        if row["id"] == "RA09":
            row["rsp"] = "GO-E"  # RdAny after a RspIFwdM: GO-E instead of GO-M
            row["write"] = "fwd"
    bad_table = SpecTable(doc)
    r = next(r for r in bad_table.rows if r.id == "RA09")
    sc = scenario(r)
    import models.coherence.spec_table as st_mod
    saved = globals()["TABLE"]
    try:
        globals()["TABLE"] = bad_table
        assert _compare_with_protocol(sc), "a wrong table row passed the cross-check"
    finally:
        globals()["TABLE"] = saved
    del st_mod


@pytest.mark.rtl
@pytest.mark.parametrize("top", ["coh_snoop_plan", "coh_decide"])
def test_every_row_against_rtl(top: str) -> None:
    """coh_snoop_plan / coh_decide (N=8, each its own top) driven with every row's scenario, with one
    and with two holders per answer."""
    from tools.runner import rtl_sources, run_cocotb
    run_cocotb(top=top, sources=rtl_sources(f"coherence/{top}.v"), test_module="tb.coherence.tb_coh_table",
               parameters={"N": 8})


def _lint(top: str, *extra: str):
    import subprocess

    from tools.runner import INCLUDE, RTL, setup_verilator_env
    setup_verilator_env()
    cmd = ["verilator", "--lint-only", "-Wall", "-Wno-fatal", f"-I{INCLUDE}", "-y", str(RTL / "common"),
           "-y", str(RTL / "coherence"), "--top-module", top, str(RTL / "coherence" / f"{top}.v"), *extra]
    return subprocess.run(cmd, capture_output=True, text=True)


@pytest.mark.parametrize("top,param,value", [
    ("coh_home_agent", "N", 17), ("coh_home_agent", "SETS", 6), ("coh_home_agent", "WAYS", 0),
    ("coh_home_agent", "NTXN", 1), ("coh_home_agent", "NTXN", 1024), ("coh_home_agent", "NRANGE", 0),
    ("coh_home_agent", "QDEPTH", 2), ("coh_home_agent", "CNT_W", 1), ("coh_decide", "N", 0),
    ("coh_snoop_plan", "N", 17),
])
def test_illegal_parameters_are_refused_at_elaboration(top: str, param: str, value: int) -> None:
    """Each parameter limit stops elaboration, naming the rule, also under -Wno-fatal as the
    simulation builds run (the defaults elaborate cleanly: `make lint`)."""
    bad = _lint(top, f"-G{param}={value}")
    assert bad.returncode != 0 and f"{top}_parameter_error_{param}" in bad.stdout + bad.stderr, bad.stderr[-500:]
