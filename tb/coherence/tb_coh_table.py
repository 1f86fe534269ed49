"""cocotb tests of the home agent's two combinational tables, each its own top (no wrapper):
coh_snoop_plan (the table's `snoop` column) and coh_decide (every other column). Every row of the
expected-answer table (models/coherence/spec_table.yaml) is driven as a concrete scenario and the
outputs compared with the row. Combinational: no clock; each scenario settles in 1 ns."""
from __future__ import annotations

import cocotb
from cocotb.triggers import Timer

from models.coherence.protocol import REQUEST_OPS
from models.coherence.spec_table import DIRS, Scenario, keeps_copy, load, scenario
from models.cxl.messages import D2HRspOp, H2DRspOp


def is_plan(dut) -> bool:
    return hasattr(dut, "tgt")


def drive(dut, sc: Scenario) -> None:
    dut.op.value = sc.op
    dut.me.value = 1
    dut.st.value = sc.st
    dut.sh.value = sc.sharers
    dut.coh.value = int(sc.coherent)
    if is_plan(dut):
        return
    # the inputs coh_decide takes from the collected answers, by the L31 naming rule
    # Rsp<new state><Hit|Fwd><old state>: keeps a copy (new state S/V), keeps S, forwards M data
    names = {p: D2HRspOp(r).name for p, r in sc.rsps.items()}
    dut.snooped.value = sc.snooped
    dut.keepb.value = sum(1 << p for p, n in names.items() if keeps_copy("Rsp" + n[3:]))
    dut.dirty.value = int(any(n.endswith("FWDM") for n in names.values()))
    dut.keeps.value = int(any(n[3] == "S" for n in names.values()))
    dut.have_fwd.value = int(sc.have_fwd)


def compare(dut, sc: Scenario) -> list[str]:
    """Differences between the outputs of the top under test and the table's expectation."""
    t = load()
    e = t.expect(sc.op, 0, sc.st, sc.sharers, sc.rsps, sc.coherent)
    out = []
    if is_plan(dut):
        tgt = int(dut.tgt.value)
        got_snp = int(dut.snp.value) if tgt else None
        if (got_snp, tgt) != (e.snoop, e.targets):
            out.append(f"snoop {got_snp} to {tgt:#b}, table {e.snoop} to {e.targets:#b}")
        return out
    go_v, pull_v = int(dut.go_v.value), int(dut.pull_v.value)
    got = (H2DRspOp.GO, int(dut.go_st.value)) if go_v else ((int(dut.pull_op.value), None) if pull_v else (None, None))
    if go_v and pull_v:
        out.append("GO and pull at once")
    if got != (e.rsp, e.go_state):
        out.append(f"answer {got}, table {(e.rsp, e.go_state)}")
    data = "mem" if int(dut.src_mem.value) else ("fwd" if int(dut.src_fwd.value) else None)
    if data != e.data:
        out.append(f"data {data}, table {e.data}")
    w = ("fwd" if int(dut.wfwd.value) else None, bool(int(dut.acc_pull.value)), bool(int(dut.fwd_bk.value)))
    want_w = ("fwd" if e.write == "fwd" else None, e.write in ("pulled", "pulled|fwd"), e.write == "pulled|fwd")
    if w != want_w:
        out.append(f"memory write {w}, table {e.write}")
    after = None
    if int(dut.ga_v.value):
        after = (int(H2DRspOp.EXTCMP), None) if int(dut.ga_ext.value) else (int(H2DRspOp.GO), int(dut.ga_st.value))
    if after != ((e.after, e.after_state) if e.after is not None else None):
        out.append(f"after the write {after}, table {(e.after, e.after_state)}")
    if sc.coherent:
        got_dir = (int(dut.n_st.value), int(dut.n_sh.value))
        want_dir = (sc.st, sc.sharers) if e.dir_state is None else (e.dir_state, e.sharers)
        if got_dir != want_dir:
            out.append(f"directory {DIRS[got_dir[0]]} {got_dir[1]:#b}, table {sc.row.dir_after} "
                       f"{DIRS[want_dir[0]]} {want_dir[1]:#b}")
    return out


@cocotb.test(timeout_time=1, timeout_unit="ms")
async def table_rows(dut) -> None:
    t = load()
    n = len(dut.me)
    rows = [r for r in t.rows if r.peers is not None]
    bad, driven = [], 0
    for copies in (1, 2):
        for r in rows:
            sc = scenario(r, copies)
            if sc.ports > n:
                continue
            drive(dut, sc)
            await Timer(1, unit="ns")
            driven += 1
            bad += [f"{r.id} x{copies} ({r.req} {r.reg} dir {r.dir} self {r.self} peers {sorted(r.peers)}): {d}"
                    for d in compare(dut, sc)]
    dut._log.info(f"{'coh_snoop_plan' if is_plan(dut) else 'coh_decide'}: {driven} scenarios from "
                  f"{len(rows)} table rows driven, {len(bad)} differences")
    assert driven >= 2 * len(rows) - 10, f"only {driven} scenarios fit N={n}"
    assert not bad, "\n".join(bad)


@cocotb.test(timeout_time=1, timeout_unit="ms")
async def lineless_rows(dut) -> None:
    """CacheFlushed (GO-I, directory unchanged) and every opcode that is not a request (GO-Err); the
    snoop plan sends no snoop for them."""
    t = load()
    if is_plan(dut):
        bad = []
        for op in range(32):
            if t.lineless(op, op in {int(o) for o in REQUEST_OPS}) is not None:
                dut.op.value, dut.me.value, dut.st.value, dut.sh.value, dut.coh.value = op, 1, 2, 0b110, 1
                await Timer(1, unit="ns")
                if int(dut.tgt.value):
                    bad.append(f"opcode {op:#x} snoops {int(dut.tgt.value):#b}")
        assert not bad, bad
        return
    served = {int(o) for o in REQUEST_OPS}
    bad = []
    for op in range(32):
        r = t.lineless(op, op in served)
        if r is None:
            continue
        e = t.expect_lineless(op, op in served)
        dut.op.value, dut.me.value, dut.st.value, dut.sh.value = op, 1, 1, 0b110
        dut.snooped.value = dut.keepb.value = 0
        dut.dirty.value = dut.keeps.value = dut.have_fwd.value = 0
        for coh in (0, 1):
            dut.coh.value = coh
            await Timer(1, unit="ns")
            got = (int(dut.go_v.value), int(dut.go_st.value), int(dut.pull_v.value), int(dut.src_mem.value),
                   int(dut.ga_v.value))
            if got != (1, e.go_state, 0, 0, 0):
                bad.append(f"{r.id} opcode {op:#x} coh={coh}: (go_v, go_st, pull, mem, after) = {got}")
            if coh and (int(dut.n_st.value), int(dut.n_sh.value)) != (1, 0b110):
                bad.append(f"{r.id} opcode {op:#x}: directory changed")
    assert not bad, "\n".join(bad)
