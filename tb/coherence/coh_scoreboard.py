"""Scoreboard of the home agent: expectations from the spec table, error rules from the model.

The RTL serializes transactions per line; the scoreboard keeps its own copy of the snoop filter
(`refdir`: line -> (state, sharers)) and, for every transaction the RTL starts (trace port),
predicts from the expected-answer table (models/coherence/spec_table.yaml, written from the
reference text, not from protocol.py) which snoops must go out, then, once the observed snoop
answers are in, what the answer must be (GO state or pull opcode, data source and value, memory
writes, the message after the writes). Requests without a line (CacheFlushed, opcodes that are not
requests) get the table's lineless rows. Bad input is classified with the model's own rules
(`models.coherence.home.classify_*`), and the error kinds are the model's `RTL_ERROR_KINDS`.

Nothing here looks inside the RTL except the trace port (which transaction started, and whether
it is a back-invalidation).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Callable

from models.coherence.home import RTL_ERROR_KINDS, UqView, classify_data, classify_rsp, classify_s2m
from models.coherence.msgs import (
    CD2HData,
    CD2HReq,
    CD2HRsp,
    CH2DData,
    CH2DReq,
    CH2DRsp,
    CM2SReq,
    CM2SRwD,
    CS2MDRS,
    CS2MNDR,
    CohMsg,
)
from models.coherence.protocol import FWD_RSPS, REQUEST_OPS, WRITE_OPS, DirState, holders
from models.coherence.spec_table import Expect, load
from models.cxl.messages import D2HReqOp, D2HRspOp, H2DReqOp, H2DRspOp

TABLE = load()
SERVED = frozenset(int(o) for o in REQUEST_OPS)


def _opname(op: int) -> str:
    return D2HReqOp(op).name if op in D2HReqOp._value2member_map_ else f"opcode {op:#x}"


@dataclass
class Txn:
    """One transaction on a line (a device request or a back-invalidation), or a lineless request."""

    line: int
    binv: bool = False
    lineless: bool = False
    port: int = -1
    op: int = 0
    cqid: int = 0
    coherent: bool = True
    t_arr: float = 0
    t_start: float | None = None
    st: DirState = DirState.I
    sh: int = 0
    snp_op: int | None = None
    targets: int = 0
    snooped: int = 0  # ports whose snoop went out
    done: int = 0  # ports whose snoop answer (and data) are in
    rsps: dict[int, int] = field(default_factory=dict)
    fwd: int | None = None
    exp: Expect | None = None  # the table's answer (None for a back-invalidation)
    decided: bool = False
    # outputs seen
    rsp_seen: int = 0
    data_seen: int = 0
    after_seen: int = 0
    pull_data: bool = False
    memval: int | None = None
    counted: bool = False

    @property
    def pull(self) -> bool:
        """The decision's H2D Rsp is a write-pull that brings data back."""
        e = self.exp
        return e is not None and e.rsp in (H2DRspOp.GO_WRITEPULL, H2DRspOp.WRITEPULL, H2DRspOp.FAST_GO_WRITEPULL)

    def outputs_done(self) -> bool:
        """Decided and every H2D answer (GO / pull / data / message after the write) was delivered."""
        e = self.exp
        if not self.decided:
            return False
        if self.binv or e is None:
            return True
        return (e.rsp is not None) == (self.rsp_seen == 1) and (e.data is not None) == (self.data_seen == 1) \
            and (e.after is not None) == (self.after_seen == 1)

    def h2d_done(self) -> bool:
        """Every H2D answer arrived (only the device's write-pull data may still be on its way, so the
        device may reuse the CQID)."""
        return self.outputs_done()

    def finished(self) -> bool:
        if not self.outputs_done():
            return False
        return self.binv or not self.pull or self.pull_data


@dataclass
class SnoopRec:
    port: int
    txn: Txn
    snp_op: int
    rsp: int | None = None
    data: int | None = None


@dataclass
class CohPredictor:
    """Pure-Python scoreboard state; `feed_*` methods are called in observation order."""

    n_ports: int
    coherent: Callable[[int], bool]
    refdir: dict[int, tuple[DirState, int]] = field(default_factory=dict)
    arrivals: dict[int, deque] = field(default_factory=dict)
    reqs: dict[tuple[int, int], Txn] = field(default_factory=dict)
    cur: dict[int, Txn] = field(default_factory=dict)
    snoops: dict[int, SnoopRec] = field(default_factory=dict)  # uqid -> snoop
    pulls: dict[int, tuple[int, Txn]] = field(default_factory=dict)  # uqid -> (port, txn)
    exp_rd: dict[int, deque] = field(default_factory=dict)  # line -> txns expecting a MemRd
    exp_wr: dict[int, deque] = field(default_factory=dict)  # line -> values expected on MemWr
    mem_tags: dict[int, Txn] = field(default_factory=dict)
    mem_out: dict[int, str] = field(default_factory=dict)  # outstanding memory tags: "rd" / "wr"
    errors: dict[str, int] = field(default_factory=lambda: {k: 0 for k in RTL_ERROR_KINDS})
    mismatches: list[str] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    decisions: list[Txn] = field(default_factory=list)  # decided transactions, for coverage
    commits: list[tuple[float, int, int]] = field(default_factory=list)  # write-throughs (t, line, value)
    latencies: dict[str, list[float]] = field(default_factory=dict)
    completed: int = 0
    arrival_times: list[float] = field(default_factory=list)

    # ------------------------------------------------------------------ helpers
    def _bad(self, text: str) -> None:
        self.mismatches.append(text)

    def _count(self, k: str) -> None:
        self.stats[k] = self.stats.get(k, 0) + 1

    def dir_of(self, line: int) -> tuple[DirState, int]:
        return self.refdir.get(line, (DirState.I, 0))

    def _set_dir(self, line: int, st: int, sh: int) -> None:
        if sh:
            self.refdir[line] = (DirState(st), sh)
        else:
            self.refdir.pop(line, None)

    # ------------------------------------------------------------------ inputs to the home
    def feed_req(self, t: float, m: CD2HReq) -> bool:
        """A D2H Req was accepted; returns whether the home owes it an answer."""
        k = (m.port, m.cqid)
        old = self.reqs.get(k)
        if old is not None:
            if old.h2d_done():
                del self.reqs[k]  # its pull data is still tracked through self.pulls
            else:
                self.errors["illegal_request"] += 1  # CQID still owed an answer: dropped
                self._count("dup_cqid")
                return False
        served = m.opcode in SERVED
        if not served:
            self.errors["illegal_request"] += 1
        lineless = TABLE.lineless(m.opcode, served)
        tx = Txn(m.addr, port=m.port, op=m.opcode, cqid=m.cqid, coherent=self.coherent(m.addr), t_arr=t,
                 lineless=lineless is not None)
        self.reqs[k] = tx
        self.arrival_times.append(t)
        if tx.lineless:
            tx.exp = TABLE.expect_lineless(m.opcode, served)
            tx.decided = True
            tx.t_start = t
            self.decisions.append(tx)
            self._count(f"row:{tx.exp.row}")
            return True
        if m.addr in self.cur or self.arrivals.get(m.addr):
            self._count("conflict_wait")
        self.arrivals.setdefault(m.addr, deque()).append(tx)
        return True

    def feed_start(self, t: float, binv: bool, line: int, port: int, cqid: int) -> Txn | None:
        prev = self.cur.get(line)
        if prev is not None:
            self._bad(f"t={t}: line {line:#x} started a new transaction before the previous one decided")
        if binv:
            st, sh = self.dir_of(line)
            if not sh:
                self._bad(f"t={t}: back-invalidation of line {line:#x} that the snoop filter does not hold")
            if self.arrivals.get(line):
                self._bad(f"t={t}: back-invalidation of line {line:#x} with requests waiting for it")
            tx = Txn(line, binv=True, t_start=t, st=st, sh=sh, snp_op=int(H2DReqOp.SNPINV), targets=sh)
            self._count("back_invalidations")
        else:
            q = self.arrivals.get(line)
            if not q or (q[0].port, q[0].cqid) != (port, cqid):
                head = (q[0].port, q[0].cqid) if q else None
                self._bad(f"t={t}: line {line:#x} started dev{port} CQID {cqid}, arrival order says {head}")
                tx = self.reqs.get((port, cqid))
                if tx is None:
                    return None
                if q and tx in q:
                    q.remove(tx)
            else:
                tx = q.popleft()
            if not q:
                self.arrivals.pop(line, None)
            tx.t_start = t
            tx.st, tx.sh = self.dir_of(line) if tx.coherent else (DirState.I, 0)
            try:
                snp, tg = TABLE.snoop(tx.op, tx.coherent, int(tx.st), tx.sh, tx.port)
            except KeyError as e:
                self._bad(f"t={t}: {_opname(tx.op)} dev{port} line {line:#x}: {e}")
                snp, tg = None, 0
            tx.snp_op, tx.targets = snp, tg
        self.cur[line] = tx
        if not tx.targets:
            self._decide(t, tx)
        return tx

    def feed_snoop(self, t: float, m: CH2DReq) -> None:
        tx = self.cur.get(m.addr)
        if tx is None:
            self._bad(f"t={t}: snoop {H2DReqOp(m.opcode).name} to dev{m.port} for idle line {m.addr:#x}")
            return
        if m.opcode != tx.snp_op or not tx.targets >> m.port & 1 or tx.snooped >> m.port & 1:
            self._bad(f"t={t}: snoop {H2DReqOp(m.opcode).name} to dev{m.port} line {m.addr:#x}: expected "
                      f"{tx.snp_op} to {holders(tx.targets)} (already {holders(tx.snooped)})")
        if m.uqid in self.snoops or m.uqid in self.pulls:
            self._bad(f"t={t}: snoop UQID {m.uqid} reused while outstanding")
        tx.snooped |= 1 << m.port
        self.snoops[m.uqid] = SnoopRec(m.port, tx, m.opcode)
        self._count("snoops")

    def _view(self, uqid: int) -> UqView | None:
        s = self.snoops.get(uqid)
        if s is not None:
            return UqView("snp", s.port, s.snp_op, s.rsp, s.data is not None)
        p = self.pulls.get(uqid)
        return None if p is None else UqView("pull", p[0])

    def feed_rsp(self, t: float, m: CD2HRsp) -> None:
        errs, taken = classify_rsp(self._view(m.uqid), m.port, m.opcode)
        for k in errs:
            self.errors[k] += 1
        if taken is None:
            return
        s = self.snoops[m.uqid]
        if taken not in FWD_RSPS:
            s.data = None
        s.rsp = taken
        self._progress(t, m.uqid, s)

    def feed_data(self, t: float, m: CD2HData) -> None:
        err, ok = classify_data(self._view(m.uqid), m.port, m.bep)
        if err is not None:
            self.errors[err] += 1
        if not ok:
            return
        p = self.pulls.pop(m.uqid, None)
        if p is not None:
            tx = p[1]
            tx.pull_data = True
            e = tx.exp
            assert e is not None
            if e.write in ("pulled", "pulled|fwd") and not m.bogus and not m.bep:
                self.exp_wr.setdefault(tx.line, deque()).append(m.value)
                if tx.op in WRITE_OPS:
                    self.commits.append((t, tx.line, m.value))
            elif e.write == "pulled|fwd" and tx.fwd is not None:
                self.exp_wr.setdefault(tx.line, deque()).append(tx.fwd)
            self._retire(tx)
            return
        s = self.snoops[m.uqid]
        s.data = m.value
        self._progress(t, m.uqid, s)

    def _progress(self, t: float, uqid: int, s: SnoopRec) -> None:
        if s.rsp is None or (s.rsp in FWD_RSPS and s.data is None):
            return
        del self.snoops[uqid]
        tx = s.txn
        tx.rsps[s.port] = s.rsp
        if s.data is not None:
            tx.fwd = s.data
        tx.done |= 1 << s.port
        if tx.done == tx.targets:
            self._decide(t, tx)

    def _decide(self, t: float, tx: Txn) -> None:
        if self.cur.get(tx.line) is tx:
            del self.cur[tx.line]
        if tx.binv:
            tx.decided = True
            self._set_dir(tx.line, 0, 0)
            dirty = tx.fwd is not None and any(r in (D2HRspOp.RSPSFWDM, D2HRspOp.RSPIFWDM)
                                               for r in tx.rsps.values())
            if dirty:
                self.exp_wr.setdefault(tx.line, deque()).append(tx.fwd)
                self._count("dirty_binv")
            return
        try:
            e = TABLE.expect(tx.op, tx.port, int(tx.st), tx.sh, dict(tx.rsps), tx.coherent)
        except KeyError as err:
            self._bad(f"t={t}: {_opname(tx.op)} dev{tx.port} line {tx.line:#x}: {err}")
            return
        tx.exp = e
        tx.decided = True
        if tx.coherent and e.dir_state is not None:
            self._set_dir(tx.line, e.dir_state, e.sharers or 0)
        if e.write == "fwd" and tx.fwd is not None:
            self.exp_wr.setdefault(tx.line, deque()).append(tx.fwd)
        if e.data == "mem":
            self.exp_rd.setdefault(tx.line, deque()).append(tx)
        self.decisions.append(tx)
        self._count(f"row:{e.row}")
        self._retire(tx)

    def _retire(self, tx: Txn) -> None:
        if tx.finished() and not tx.binv and not tx.counted:
            tx.counted = True
            self.completed += 1
            if self.reqs.get((tx.port, tx.cqid)) is tx:
                del self.reqs[(tx.port, tx.cqid)]

    # ------------------------------------------------------------------ outputs of the home
    def feed_h2d_rsp(self, t: float, m: CH2DRsp) -> None:
        tx = self.reqs.get((m.port, m.cqid))
        if tx is None or tx.exp is None:
            self._bad(f"t={t}: {H2DRspOp(m.opcode).name} to dev{m.port} CQID {m.cqid} for no decided request")
            return
        e = tx.exp
        name = f"dev{m.port} CQID {m.cqid} {_opname(tx.op)} line {tx.line:#x} (row {e.row})"
        if tx.rsp_seen == 0 and e.rsp == m.opcode:
            tx.rsp_seen = 1
            if m.opcode == H2DRspOp.GO and m.rspdata != e.go_state:
                self._bad(f"t={t}: {name}: GO state {m.rspdata}, table says {e.go_state} "
                          f"(dir {tx.st.name} {holders(tx.sh)}, rsps {tx.rsps})")
            if m.opcode == H2DRspOp.GO:
                self.latencies.setdefault("go_snoop" if tx.targets else "go_hit", []).append(t - tx.t_arr)
            if tx.pull and m.opcode != H2DRspOp.GO:
                self.pulls[m.rspdata] = (m.port, tx)
        elif tx.after_seen == 0 and e.after == m.opcode and (e.rsp is None or tx.rsp_seen == 1):
            tx.after_seen = 1
            if m.opcode == H2DRspOp.GO and m.rspdata != e.after_state:
                self._bad(f"t={t}: {name}: GO state {m.rspdata} after the write, table says {e.after_state}")
            if tx.pull and not tx.pull_data:
                self._bad(f"t={t}: {name}: {H2DRspOp(m.opcode).name} before the pulled data arrived")
        else:
            self._bad(f"t={t}: {name}: unexpected {H2DRspOp(m.opcode).name} {m.rspdata} (table: {e})")
            return
        self._retire(tx)

    def feed_h2d_data(self, t: float, m: CH2DData) -> None:
        tx = self.reqs.get((m.port, m.cqid))
        if tx is None or tx.exp is None or tx.exp.data is None or tx.data_seen:
            self._bad(f"t={t}: H2D Data to dev{m.port} CQID {m.cqid} not expected")
            return
        tx.data_seen = 1
        want = tx.fwd if tx.exp.data == "fwd" else tx.memval
        if want is None or m.value != want:
            self._bad(f"t={t}: dev{m.port} CQID {m.cqid} {_opname(tx.op)} line {tx.line:#x}: data "
                      f"{m.value:#x}, expected {tx.exp.data} value {want}")
        self._retire(tx)

    def feed_m2s_req(self, t: float, m: CM2SReq) -> None:
        q = self.exp_rd.get(m.addr)
        if not q:
            self._bad(f"t={t}: MemRd line {m.addr:#x} not expected")
            return
        self.mem_tags[m.tag] = q.popleft()
        self.mem_out[m.tag] = "rd"

    def feed_m2s_rwd(self, t: float, m: CM2SRwD) -> None:
        self.mem_out[m.tag] = "wr"
        q = self.exp_wr.get(m.addr)
        if not q:
            self._bad(f"t={t}: MemWr line {m.addr:#x} value {m.value:#x} not expected")
            return
        want = q.popleft()
        if m.value != want:
            self._bad(f"t={t}: MemWr line {m.addr:#x} value {m.value:#x}, expected {want:#x}")

    def feed_s2m(self, t: float, m: CS2MDRS | CS2MNDR) -> None:
        err = classify_s2m(self.mem_out.get(m.tag), m)
        if err is not None:
            self.errors[err] += 1
            return
        del self.mem_out[m.tag]
        tx = self.mem_tags.pop(m.tag, None)
        if isinstance(m, CS2MDRS) and tx is not None:
            tx.memval = m.value

    def feed(self, t: float, msg: CohMsg) -> None:
        """Dispatch one observed message (not the trace port)."""
        if isinstance(msg, CD2HReq):
            self.feed_req(t, msg)
        elif isinstance(msg, CD2HRsp):
            self.feed_rsp(t, msg)
        elif isinstance(msg, CD2HData):
            self.feed_data(t, msg)
        elif isinstance(msg, CH2DReq):
            self.feed_snoop(t, msg)
        elif isinstance(msg, CH2DRsp):
            self.feed_h2d_rsp(t, msg)
        elif isinstance(msg, CH2DData):
            self.feed_h2d_data(t, msg)
        elif isinstance(msg, CM2SReq):
            self.feed_m2s_req(t, msg)
        elif isinstance(msg, CM2SRwD):
            self.feed_m2s_rwd(t, msg)
        elif isinstance(msg, (CS2MDRS, CS2MNDR)):
            self.feed_s2m(t, msg)

    def idle(self) -> bool:
        return not self.reqs and not self.cur and not self.snoops and not self.pulls and \
            not any(self.exp_rd.values()) and not any(self.exp_wr.values()) and not self.mem_out

    def final_errors(self) -> list[str]:
        out = list(self.mismatches)
        for (p, c), tx in self.reqs.items():
            out.append(f"end: dev{p} CQID {c} {_opname(tx.op)} line {tx.line:#x} not completed "
                       f"(table {tx.exp})")
        for line, tx in self.cur.items():
            out.append(f"end: line {line:#x} transaction still collecting snoops ({holders(tx.done)} of "
                       f"{holders(tx.targets)})")
        for line, q in self.exp_wr.items():
            if q:
                out.append(f"end: line {line:#x}: {len(q)} expected MemWr never seen")
        for line, q in self.exp_rd.items():
            if q:
                out.append(f"end: line {line:#x}: {len(q)} expected MemRd never seen")
        return out
