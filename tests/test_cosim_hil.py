"""Hardware in the loop at speed (issue 12): knobs, traces, the reference-memory check, load
curves and their system-model hook (pure Python), and short runs of the flit-link top (RTL).

The RTL tests use one -O0 build of tb/edge/sp_edge_hil.v with cxl_link pairs on every hop
(LINKS=1; built once per RTL content, cached under sim_build/cosim) and check behaviour: every
request answered once, in order, with data the reference memory allows, retries under bit errors,
and the direction in which a knob moves latency. Speed is measured by `make bench`, not here.
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.cosim.check import check_run, own_latest_write
from sim.cosim.hil import REC_FIELDS, ber_to_thresh, decode_records, encode_rows, stim_records
from sim.cosim.knobs import CosimCfg, KnobError, check, parse_sets
from sim.cosim.replay import model_replay
from sim.cosim.trace import Trace, generate


# ------------------------------------------------------------------ inputs checked before anything builds
BAD = [
    ["--set", "idle_p=1.5"], ["--set", "idle_p=abc"], ["--set", "mode=bogus"], ["--n", "0"], ["--n", "-5"],
    ["--n", "abc"], ["--requests", "0"], ["--set", "load=0"], ["--set", "sources=tiering,foo"],
    ["--set", "no_such_knob=1"], ["--set", "model=nope"], ["--links", "2", "--requests", "10"],
    ["--requests", "10", "--set", "ber=1e-6"], ["--requests", "10", "--links", "1", "--set", "mode=cascade"],
    ["--set", "ready_p=0"], ["--set", "t2_lat=70000"], ["--set", "ber=-1"], ["--sweep", "--points", "0.5,7"],
    ["--sweep", "--paths", "bridge_hit,nowhere"], ["--replay", "/no/such/file.npz"], ["--set", "idle_p"],
    ["--requests", "5", "--sweep"], ["--set", "ber_links=cascade+nowhere"], ["--casc-flit", "128", "--requests", "9"],
    ["--set", "peer_write_p=1.5"], ["--set", "peer_write_p=-0.1"],
]


@pytest.mark.parametrize("argv", BAD, ids=[" ".join(a) for a in BAD])
def test_bad_input_is_one_line_exit_2(argv: list[str], capsys) -> None:
    from sim.cosim.run import main
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:"), err


def test_good_input_parses() -> None:
    from sim.cosim.run import parse_args
    args, cfg = parse_args(["--requests", "100", "--links", "1", "--set", "mode=cascade_hbr", "--set", "ber=1e-6",
                            "--set", "ber_links=br0_mem+cascade", "--set", "sources=miss,hit", "--set", "load=0.4"])
    assert (cfg.mode, cfg.ber, cfg.sources, cfg.load, args.requests) == ("cascade_hbr", 1e-6, ("miss", "hit"), 0.4, 100)
    assert parse_sets(["pattern=none"]) == {"pattern": None}
    with pytest.raises(KnobError):
        check(replace(CosimCfg(), coh_share=2.0))


# ------------------------------------------------------------------ traces
def test_trace_roundtrip_and_validation(tmp_path: Path) -> None:
    cfg = CosimCfg(n_per_bridge=500, load=0.25)
    t = generate(cfg, 7)
    assert t == t or True
    p = t.save(tmp_path / "t.npz")
    u = Trace.load(p)
    for c in ("bridge", "gap", "write", "line", "coherent", "kind"):
        assert np.array_equal(getattr(t, c), getattr(u, c)), c
    assert u.kinds == t.kinds and u.meta["load"] == 0.25
    assert abs(t.gap.mean() - 1 / 0.25) < 0.5                    # geometric arrivals at the offered load
    assert np.array_equal(generate(cfg, 7).line, t.line) and not np.array_equal(generate(cfg, 8).line, t.line)
    # each bridge's non-coherent lines are its own; the coherent lines are shared
    half = (0xF0_0000 // 64) // 2
    nc0 = t.line[(t.bridge == 0) & ~t.coherent]
    nc1 = t.line[(t.bridge == 1) & ~t.coherent]
    assert nc0.max() < half <= nc1.min()
    np.savez(tmp_path / "bad.npz", line=np.zeros(3))
    with pytest.raises(ValueError, match="not a trace"):
        Trace.load(tmp_path / "bad.npz")


def test_record_layouts() -> None:
    recs = stim_records(np.array([3, 65535]), np.array([True, False]), np.array([5, (1 << 24) - 1]))
    assert int(recs[0]) == 3 | 1 << 16 | 5 << 17 | 1 << 63
    rows = encode_rows(recs, 4)
    assert len(rows) == 1 and len(rows[0]) == 32 and rows[0][16:] == bytes(16)      # padding: valid bit clear
    lo = np.uint64(7 | (9 << 32))
    hi = np.uint64(5 | (0xABC << 24) | (1 << 48) | (3 << 50) | (1 << 53) | (1 << 55) | (1 << 56))
    d = decode_records(np.array([[lo, hi]], dtype=np.uint64))
    assert (d["t_issue"][0], d["t_rsp"][0], d["seq"][0], d["ver_seq"][0], d["ver_b"][0], d["kind"][0]) == (7, 9, 5, 0xABC, 1, 3)
    assert d["kind_seen"][0] and d["hdr_ok"][0] and d["data_ok"][0] and not d["write"][0] and not d["image"][0]
    assert set(d) == set(REC_FIELDS)
    assert ber_to_thresh(0.0) == 0 and 0 < ber_to_thresh(1e-6) < ber_to_thresh(1e-4) < 2**32


# ------------------------------------------------------------------ reference memory
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5)), min_size=1, max_size=60))
def test_own_latest_write_matches_brute_force(ops) -> None:
    w = np.array([o[0] for o in ops])
    ln = np.array([o[1] for o in ops])
    want = []
    for i in range(len(ops)):
        prev = [j for j in range(i) if w[j] and ln[j] == ln[i]]
        want.append(prev[-1] if prev else -1)
    assert list(own_latest_write(w, ln)) == want


def _sequential_records(t: Trace) -> dict[int, dict[str, np.ndarray]]:
    """Records of an ideal fabric that answers each request before the next arrives."""
    m = model_replay(t)
    out = {}
    clock = 0
    for b in t.bridges():
        s = t.of(b)
        n = len(s["line"])
        ti = np.arange(n, dtype=np.int64) * 10 + 1000 * b
        img = m[b]["ver_b"] < 0
        out[b] = {"t_issue": ti, "t_rsp": ti + 5, "seq": np.arange(n), "ver_seq": np.where(img, 0, m[b]["ver_seq"]),
                  "ver_b": np.where(img, 0, m[b]["ver_b"]).astype(np.int8), "kind": np.zeros(n, np.int8),
                  "kind_seen": np.ones(n, bool), "write": s["write"].copy(), "hdr_ok": np.ones(n, bool),
                  "data_ok": np.ones(n, bool), "image": img & ~s["write"]}
        clock += n
    return out


def _check(t: Trace, rec) -> object:
    return check_run([t.of(b) for b in t.bridges()], [rec[b] for b in t.bridges()])


def test_reference_memory_accepts_sequential_and_catches_faults() -> None:
    cfg = CosimCfg(n_per_bridge=400, nbr=1, sources=("tiering",), ws_lines=16, coh_lines=4, coh_share=0.3,
                   read_share=0.5)
    t = generate(cfg, 3)
    rec = _sequential_records(t)
    ok = _check(t, rec)
    assert ok.n_errors == 0, ok.errors
    assert ok.counts["read_own_latest"] > 20 and ok.counts["read_image"] > 0
    s = t.of(0)
    reads = np.flatnonzero(~s["write"] & ~rec[0]["image"])
    # a stale read: an older own write of the same line
    for i in reads:
        older = [j for j in range(i) if s["write"][j] and s["line"][j] == s["line"][i] and j != rec[0]["ver_seq"][i]]
        if older:
            bad = {k: v.copy() for k, v in rec[0].items()}
            bad["ver_seq"][i] = older[0]
            r = _check(t, {0: bad})
            assert r.n_errors == 1 and "stale" in r.errors[0]
            break
    else:
        pytest.fail("no read with an older write to corrupt")
    # a lost write: the unwritten image although the bridge wrote the line
    bad = {k: v.copy() for k, v in rec[0].items()}
    bad["image"][reads[-1]] = True
    assert "unwritten image" in _check(t, {0: bad}).errors[0]
    # responses out of order
    bad = {k: v.copy() for k, v in rec[0].items()}
    bad["seq"][[3, 4]] = bad["seq"][[4, 3]]
    assert "out of order" in _check(t, {0: bad}).errors[0]
    # corrupted data flagged by the RTL
    bad = {k: v.copy() for k, v in rec[0].items()}
    bad["data_ok"][reads[0]] = False
    assert "corrupted" in _check(t, {0: bad}).errors[0]


def test_reference_memory_coherent_ordering() -> None:
    """Bridge 1 writes a coherent line, bridge 0 reads it: concurrently either value is allowed;
    after the write was acknowledged, the old value is stale."""
    line = 0xF0_0000 // 64 + 3

    def trace(t_read_issue: int, version: tuple[int, int] | None):
        tr = Trace(np.array([1, 0], np.uint8), np.array([1, 1], np.uint32), np.array([True, False]),
                   np.array([line, line], np.uint32), np.array([True, True]), np.zeros(2, np.uint8), ("x",))
        rec = {1: {"t_issue": np.array([100]), "t_rsp": np.array([150]), "seq": np.array([0]), "ver_seq": np.array([0]),
                   "ver_b": np.array([0], np.int8), "kind": np.array([7], np.int8), "kind_seen": np.array([True]),
                   "write": np.array([True]), "hdr_ok": np.array([True]), "data_ok": np.array([True]),
                   "image": np.array([False])},
               0: {"t_issue": np.array([t_read_issue]), "t_rsp": np.array([t_read_issue + 40]), "seq": np.array([0]),
                   "ver_seq": np.array([0 if version is None else version[1]]),
                   "ver_b": np.array([0 if version is None else version[0]], np.int8), "kind": np.array([3], np.int8),
                   "kind_seen": np.array([True]), "write": np.array([False]), "hdr_ok": np.array([True]),
                   "data_ok": np.array([True]), "image": np.array([version is None])}}
        return check_run([{c: getattr(tr, c)[tr.bridge == b] for c in ("write", "line", "coherent")} for b in (0, 1)],
                         [rec[0], rec[1]])

    assert trace(120, None).n_errors == 0            # concurrent with the write: old value allowed
    assert trace(120, (1, 0)).n_errors == 0          # ... or the new one
    assert trace(200, (1, 0)).n_errors == 0          # after the acknowledgement: the new one
    r = trace(200, None)                             # after the acknowledgement, the old value is stale
    assert r.n_errors == 1 and "acknowledged" in r.errors[0]
    r = trace(50, (1, 0))                            # answered before the write was issued: impossible
    assert r.n_errors == 1


# ------------------------------------------------------------------ load curves and the system model hook
def _curve_csv(path: Path, slope: float) -> Path:
    from sim.cosim.loadcurve import CSV_COLS, knee, write_csv
    rows = []
    for p in ("t2_read_1sw", "posted_write", "bridge_hit"):
        pr = []
        for off in (0.02, 0.1, 0.2, 0.3, 0.4, 0.6):
            ach = min(off, 0.25)
            lat = 100 + slope * ach / (0.26 - ach) + (2000 if off > 0.25 else 0)
            pr.append(dict.fromkeys(CSV_COLS, 0) | {"top": "flit", "path": p, "offered_per_bridge": off,
                                                     "achieved_per_bridge": ach, "fraction_of_link_rate": ach,
                                                     "p50": lat, "p99": 2 * lat})
        k = knee(pr)
        k["knee"] = 1
        rows += pr
    write_csv(rows, path)
    return path


def test_switch_readback_image() -> None:
    """The read-back image the co-simulation checks after programming (tb.switch.regs.readback):
    every register of both switches' configurations once, at its last written value, a decoder's
    COMMIT as its valid bit; registers that do not read back what is written are refused."""
    from sim.cosim.hil import switch_configs
    from sim.cosim.stream import Window
    from tb.switch import regs
    n_commits = 0
    for mode in ("direct", "cascade", "cascade_hbr"):
        for sc in switch_configs(mode, Window(), 3):
            if sc is None:
                continue
            w = regs.config_writes(sc, 4)
            img = dict(regs.readback(w))
            assert len(img) == len({x.addr for x in w})
            commits = [x for x in w if regs.A_DEC <= x.addr < regs.A_ROUTE and (x.addr - regs.A_DEC) % 0x20 == 3]
            n_commits += len(commits)
            assert all(img[x.addr] == 1 for x in commits)
            assert all(img[x.addr] == x.data for x in w if x not in commits)
    assert n_commits == 4
    w = [regs.RegWrite(regs.A_DEC + 0x23, 1), regs.RegWrite(regs.A_DEC + 0x23, 0), regs.ctrl(True)]
    assert regs.readback(w) == [(regs.A_CTRL, 1), (regs.A_DEC + 0x23, 0)]
    for bad in (regs.A_INFO, regs.A_ERR, regs.A_COUNT + 3, regs.A_CLEAR):
        with pytest.raises(ValueError):
            regs.readback([regs.RegWrite(bad, 0)])


def test_knee_and_system_hook(tmp_path: Path) -> None:
    from sim.cosim.loadcurve import knee
    from sim.config.build import with_load_curves
    from sim.system.loadcurve import LoadCurves, loaded_iteration
    from sim.system.model import build_config, run_system
    from sim.system.training import iteration_time
    pts = [{"offered_per_bridge": o, "achieved_per_bridge": a, "p99": l} for o, a, l in
           [(0.1, 0.1, 50), (0.2, 0.2, 60), (0.3, 0.25, 500), (0.4, 0.25, 900)]]
    assert knee(pts)["offered_per_bridge"] == 0.2
    cfg, _ = build_config()
    lo = LoadCurves.from_csv(_curve_csv(tmp_path / "lo.csv", 10.0))
    hi = LoadCurves.from_csv(_curve_csv(tmp_path / "hi.csv", 400.0))
    assert lo.top == "flit" and lo.saturation == pytest.approx(0.25)
    checked = 0
    for w in cfg.workloads:
        base = iteration_time(w, cfg, "scalepool")
        if not np.isfinite(base.total):
            continue
        a, la = loaded_iteration(w, cfg, "scalepool", lo)
        b, lb = loaded_iteration(w, cfg, "scalepool", hi)
        bl, _ = loaded_iteration(w, cfg, "baseline", lo)
        assert bl.total == iteration_time(w, cfg, "baseline").total     # no CXL port: unchanged
        assert a.total >= base.total * (1 - 1e-5)                        # contention never speeds up
        assert la.util > 0 and lb.step_delay_ns >= la.step_delay_ns and b.total >= a.total * (1 - 1e-5)
        assert la.rounds < 40 and lb.rounds < 40                          # reached the fixed point
        assert la.offload_bw <= lo.saturation * 1e12 and la.collective_bw > 0
        checked += 1
    assert checked
    # the configuration carries the curves into the whole model (and into what-if variants)
    lcfg = with_load_curves(cfg, tmp_path / "hi.csv")
    assert lcfg.with_values({}).load_curves is lcfg.load_curves
    r0, r1 = run_system(cfg), run_system(lcfg)
    k = next(k for k, v in r0.training.items() if np.isfinite(v["scalepool"].total))
    assert r1.training[k]["scalepool"].total >= r0.training[k]["scalepool"].total
    assert r1.training[k]["baseline"].total == r0.training[k]["baseline"].total
    with pytest.raises(Exception, match="not found"):
        LoadCurves.from_csv(tmp_path / "missing.csv")


def test_coverage_build_is_separate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """COV=1 makes the co-simulation top a coverage build with the runner's flags, under its own tag
    and content hash (no build needed); an older-build lookup of one tag never takes the other's."""
    from sim.cosim import build as cb
    from tools import runner
    params = {"LINKS": 1, "CASC_FLIT": 0, "MN_AW": 18}
    monkeypatch.delenv("COV_FLAGS", raising=False)
    monkeypatch.delenv("COV", raising=False)
    assert not cb.coverage_build("cocotb")
    monkeypatch.setenv("COV", "1")
    assert cb.coverage_build("cocotb") and not cb.coverage_build("raw")      # raw: speed reference, no coverage.dat
    assert not cb.coverage_build("cocotb", False)
    with pytest.raises(ValueError, match="writes no coverage"):
        cb.build_flags("raw", "debug", True)
    plain, cov = cb.build_flags("cocotb", "debug", False), cb.build_flags("cocotb", "debug", True)
    assert plain == cb.OPT_FLAGS["debug"] and cov == plain + list(runner.COV_FLAGS)
    monkeypatch.setenv("COV_FLAGS", "--coverage-line")                    # the runner's knob, one owner
    assert cb.build_flags("cocotb", "debug", True) == plain + ["--coverage-line"]
    monkeypatch.delenv("COV_FLAGS")
    assert cb.content_hash("cocotb", "sp_edge_hil", params, plain) != cb.content_hash("cocotb", "sp_edge_hil", params, cov)
    tag, tag_cov = (cb.build_tag("cocotb", "sp_edge_hil", params, "debug", c) for c in (False, True))
    assert tag_cov == tag + "-cov" and cb.build_tag("cocotb", "x", {}, "fast", True, name="mine") == "mine-cov"
    monkeypatch.setattr(cb, "CACHE", tmp_path)
    for d in (f"{tag}-{'a' * 16}", f"{tag_cov}-{'b' * 16}", f"{tag}-{'c' * 15}"):
        (tmp_path / d).mkdir()
    assert [o.name for o in cb._same_tag(tag)] == [f"{tag}-{'a' * 16}"]
    assert [o.name for o in cb._same_tag(tag_cov)] == [f"{tag_cov}-{'b' * 16}"]


def test_coverage_file_per_plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A passing plan's coverage.dat goes to results/coverage/<build tag>__tb_hil-<runs>-<digest>.dat:
    the runner's naming (run_label) and copy (keep_coverage), one name per pytest test and plan."""
    import hashlib

    from sim.cosim.hilrun import RunSpec, plan_digest
    from tools import runner
    cfg = CosimCfg(n_per_bridge=20, load=0.05, sources=("miss", "miss"))
    a, b = RunSpec("a", cfg, generate(cfg, 1)), RunSpec("a", cfg, generate(cfg, 2))
    params = {"LINKS": 1}
    assert plan_digest([a], params) == plan_digest([RunSpec("a", cfg, generate(cfg, 1))], params)
    assert len({plan_digest([a], params), plan_digest([b], params), plan_digest([a], {"LINKS": 0}),
                plan_digest([replace(a, name="b")], params)}) == 4
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/x.py::t (call)")
    n1, n2 = (runner.run_label("sim.cosim.tb_hil", "a", plan_digest([x], params)) for x in (a, b))
    assert n1.startswith("tb_hil-a-") and n1 != n2
    assert runner.run_label("sim.cosim.tb_hil", "a") == "tb_hil-a-" + hashlib.sha1(b"tests/x.py::t").hexdigest()[:8]
    monkeypatch.setattr(runner, "COV_DIR", tmp_path / "cov")
    assert runner.keep_coverage(tmp_path, "tag-cov", n1) is None                # no coverage.dat: nothing kept
    (tmp_path / "coverage.dat").write_text("C 'x' 1\n")
    assert runner.keep_coverage(tmp_path, "tag-cov", n1) == tmp_path / "cov" / f"tag-cov__{n1}.dat"
    assert (tmp_path / "cov" / f"tag-cov__{n1}.dat").read_text() == "C 'x' 1\n"


def test_run_as_planned() -> None:
    """A run without `expect` passes only without errors; a run planned to fail passes only when its
    first error is the planned one (the coverage of a fault-injection plan is kept on that)."""
    from sim.cosim.hilrun import RunSpec, as_planned
    cfg = CosimCfg(n_per_bridge=2, load=0.05, sources=("miss", "miss"))
    tr = generate(cfg, 1)
    want = r"^run stopped at cycle \d+: link\(s\) br0_mem went fatal"
    plain, fatal = RunSpec("a", cfg, tr), RunSpec("f", cfg, tr, expect=want)
    stop = "run stopped at cycle 2193: link(s) {} went fatal (link_fatal: what they held is lost); bridge 0: ..."
    assert as_planned(plain, []) and not as_planned(plain, ["x"])
    assert as_planned(fatal, [stop.format("br0_mem"), "link br0_mem: link_fatal"])
    assert not as_planned(fatal, [])
    assert not as_planned(fatal, ["bridge 0: data mismatch", stop.format("br0_mem")])
    assert not as_planned(fatal, [stop.format("br0_mem, br1_mem")])


def test_repeated_runs_keep_their_own_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """One pytest test running the same cocotb module on the same build several times (test_cosim's
    runs of several configurations) gets one run name per run, so no run's coverage.dat, XML or
    functional-coverage dump overwrites an earlier one's; another build or name starts its own count."""
    from tools import runner
    monkeypatch.setattr(runner, "_RUNS_SEEN", {})
    names = [runner.repeat_label("top-cov", "tb_edge-1234abcd") for _ in range(3)]
    assert names == ["tb_edge-1234abcd", "tb_edge-1234abcd-r2", "tb_edge-1234abcd-r3"]
    assert runner.repeat_label("other-cov", "tb_edge-1234abcd") == "tb_edge-1234abcd"
    assert runner.repeat_label("top-cov", "tb_edge-99999999") == "tb_edge-99999999"


# ------------------------------------------------------------------ RTL: flit-link top
def _flit_plan(specs):
    from sim.cosim.hilrun import run_plan
    return run_plan(specs, links=1, opt="debug")


@pytest.mark.rtl
def test_flit_links_in_the_loop_with_bit_errors() -> None:
    """Every hop through cxl_link pairs; bit errors on every link; memory that remembers. Every request
    answered once, in order, with data the reference memory allows; retries happen; a second switch
    hop and XLink back-pressure raise latency."""
    from sim.cosim.hilrun import RunSpec
    mix = CosimCfg(n_per_bridge=700, load=0.08, ber=2e-5, ws_lines=64, coh_lines=16, coh_share=0.25,
                   read_share=0.6, sources=("tiering", "tiering"))
    light = CosimCfg(n_per_bridge=120, load=0.01, sources=("miss", "miss"))
    specs = [RunSpec("mix_ber", mix, generate(mix, 11)),
             RunSpec("direct", light, generate(light, 12)),
             RunSpec("cascade", replace(light, mode="cascade_hbr"), generate(light, 12)),
             RunSpec("backpressure", replace(light, ready_p=0.2, load=0.05), generate(replace(light, load=0.05), 12))]
    plan = _flit_plan(specs)
    runs = {r.name: r for r in plan.runs}
    for r in plan.runs:
        assert not r.errors, (r.name, r.errors[:5])
        assert r.counts["responses"] == r.counts["requests"] == len(specs[[s.name for s in specs].index(r.name)].trace)
    m = runs["mix_ber"]
    assert m.retries > 0 and sum(v["flits_hit"] for v in m.links.values()) > 0
    assert all(v["up"] and not v["fatal"] for v in m.links.values())
    c = m.counts
    assert c["read_own_latest"] > 50 and c["coherent_reads"] > 20 and c["read_image"] > 0
    assert c["line_kinds"]["hit"] > 0 and c["line_kinds"]["miss"] > 0 and c["line_kinds"]["coh_wr"] > 0
    assert runs["cascade"].paths["t2_read_2sw"]["p50"] > runs["direct"].paths["t2_read_1sw"]["p50"]
    assert runs["backpressure"].paths["t2_read_1sw"]["mean"] > runs["direct"].paths["t2_read_1sw"]["mean"]
    # every hop's link layer is in the measured path: a miss crosses 4 links each way
    assert runs["direct"].paths["t2_read_1sw"]["svc_p50"] > 60 + 4 * 2


@pytest.mark.rtl
def test_replay_rtl_against_models(tmp_path: Path) -> None:
    """One saved stream replayed: non-coherent read data equal to the bridge reference model's."""
    from sim.cosim.hilrun import RunSpec
    from sim.cosim.replay import compare
    cfg = CosimCfg(n_per_bridge=300, load=0.03, ws_lines=32, sources=("tiering", "llm"))
    t = generate(cfg, 21)
    u = Trace.load(t.save(tmp_path / "s.npz"))
    r = _flit_plan([RunSpec("replay", cfg, u)]).runs[0]
    assert not r.errors, r.errors[:5]
    c = compare(u, r.records, model_replay(u))
    assert c["noncoherent_reads"] > 100 and c["noncoherent_data_agree"] == c["noncoherent_reads"]
    json.dumps(c)


@pytest.mark.rtl
def test_fatal_link_ends_the_run_and_the_next_run_recovers() -> None:
    """A link forced fatal mid-run (nearly every flit on one bridge's memory hop corrupted, so its
    retries run out): the run stops within its bound and names the fatal link and each bridge's
    unanswered requests, no other link goes fatal, and the next run, after the reset every run
    starts with, answers every request with the data the reference memory allows."""
    from sim.cosim.hilrun import RunSpec
    light = CosimCfg(n_per_bridge=120, load=0.01, sources=("miss", "miss"))
    fatal = replace(light, ber=0.01, ber_links="br0_mem")
    tr = generate(light, 13)
    planned = r"^run stopped at cycle \d+: link\(s\) br0_mem went fatal"       # the run's stall message
    plan = _flit_plan([RunSpec("fatal", fatal, tr, expect=planned),
                       RunSpec("after", light, tr)])
    f, a = plan.runs
    assert f.errors and "went fatal" in f.errors[0] and "br0_mem" in f.errors[0], f.errors[:3]
    assert "bridge 0:" in f.errors[0] and "outstanding" in f.errors[0], f.errors[0]
    assert f.links["br0_mem"]["fatal"] == 1 and f.links["br0_mem"]["retry"] > 0, f.links["br0_mem"]
    assert not any(v["fatal"] for k, v in f.links.items() if k != "br0_mem"), f.links
    assert f.counts["responses"] < f.counts["requests"], f.counts
    assert not a.errors, a.errors[:5]
    assert a.counts["responses"] == a.counts["requests"] == len(tr)
    assert all(v["up"] and not v["fatal"] for v in a.links.values()), a.links
