"""Reader of spec_table.yaml: the expected home answers written from the reference text.

The table is data (models/coherence/spec_table.yaml, every row citing the lines it follows); this
module only parses it, checks its form, and turns a concrete situation (request, requester,
directory state and sharer vector, snoop answers) into the row that applies and the concrete answer
that row predicts. It does not import protocol.py: the table is the independent reference the RTL
scoreboard predicts from and protocol.py / coh_decide.v are checked against
(tests/test_coherence_table.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping

import yaml

from models.cxl.messages import D2HReqOp, D2HRspOp, GOState, H2DReqOp, H2DRspOp

TABLE = Path(__file__).with_name("spec_table.yaml")

COLUMNS = ("id", "req", "reg", "dir", "self", "peers", "snoop", "rsp", "data", "write", "after",
           "dir_after", "reach", "cite")
DIRS = ("I", "S", "E")  # snoop-filter states as the table writes them (E: one owner, E or M)
RSP_TOKENS = {  # H2D Rsp column -> (opcode, RspData for a GO)
    "GO-S": (H2DRspOp.GO, GOState.S), "GO-E": (H2DRspOp.GO, GOState.E), "GO-M": (H2DRspOp.GO, GOState.M),
    "GO-I": (H2DRspOp.GO, GOState.I), "GO-Err": (H2DRspOp.GO, GOState.ERR),
    "GO_WritePull": (H2DRspOp.GO_WRITEPULL, None), "WritePull": (H2DRspOp.WRITEPULL, None),
    "GO_WritePull_Drop": (H2DRspOp.GO_WRITEPULL_DROP, None),
    "Fast_GO_WritePull": (H2DRspOp.FAST_GO_WRITEPULL, None), "ExtCmp": (H2DRspOp.EXTCMP, None),
}
DATA = ("none", "mem", "fwd")
WRITES = ("none", "fwd", "pulled", "pulled|fwd")
AFTER = ("none", "GO-I", "ExtCmp")
DIR_AFTER = ("I", "E:R", "S:R+kept", "S:kept", "E:kept", "unchanged")
REACH = ("flow", "race", "decide")


def req_opcode(name: str) -> int:
    """D2H Req opcode of a table request name (spec spelling, e.g. RdOwnNoData)."""
    return int(D2HReqOp[name.upper()])


def rsp_opcode(name: str) -> int:
    return int(D2HRspOp[name.upper()])


def snoop_opcode(name: str) -> int:
    return int(H2DReqOp[name.upper()])


def keeps_copy(rsp_name: str) -> bool:
    """L31: Rsp<new state><Hit|Fwd><old state>: the snooped device keeps a copy if the new state is S or V."""
    assert rsp_name.startswith("Rsp"), rsp_name
    return rsp_name[3] in ("S", "V")


@dataclass(frozen=True)
class Row:
    id: str
    req: str
    reg: str
    dir: str
    self: str
    peers: frozenset[str] | None  # None = any
    snoop: str
    rsp: str
    data: str
    write: str
    after: str
    dir_after: str
    reach: str
    cite: str

    @property
    def key(self) -> tuple:
        return (self.req, self.reg, self.dir, self.self, self.peers)


@dataclass(frozen=True)
class Expect:
    """What the table predicts for one concrete request (ports are bit positions in vectors)."""

    row: str  # row id
    snoop: int | None  # H2D Req opcode sent to every other recorded holder, None = no snoop
    targets: int  # snooped ports
    rsp: int | None  # H2D Rsp opcode at the decision
    go_state: int | None  # RspData of that GO
    data: str | None  # "mem" / "fwd" / None
    write: str | None  # "fwd" / "pulled" / "pulled|fwd" / None
    after: int | None  # H2D Rsp opcode once the memory writes completed
    after_state: int | None  # its RspData (GO-I)
    dir_state: int | None  # new directory state (0 I, 1 S, 2 E); None = unchanged
    sharers: int | None


class SpecTable:
    def __init__(self, doc: Mapping) -> None:
        self.source = doc["source"]
        self.choices: dict[str, str] = dict(doc["choices"])
        self.snoop_answers: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in doc["snoop_answers"].items()}
        self.rows: list[Row] = []
        for r in doc["rows"]:
            if tuple(r) != COLUMNS:
                raise ValueError(f"row {r.get('id')}: columns {tuple(r)} != {COLUMNS}")
            peers = r["peers"]
            self.rows.append(Row(**{**r, "peers": None if peers == "any" else frozenset(peers)}))
        self.by_key = {row.key: row for row in self.rows}
        self.problems = self._check()
        if self.problems:
            raise ValueError("spec table: " + "; ".join(self.problems[:10]))

    # ------------------------------------------------------------------ form checks
    def _check(self) -> list[str]:
        out: list[str] = []
        ids = [r.id for r in self.rows]
        if len(set(ids)) != len(ids):
            out.append("duplicate row ids")
        if len(self.by_key) != len(self.rows):
            out.append("two rows for one scenario")
        for r in self.rows:
            where = f"row {r.id}"
            if r.req != "illegal":
                try:
                    req_opcode(r.req)
                except KeyError:
                    out.append(f"{where}: unknown request {r.req}")
            if r.reg not in ("coh", "nc", "any") or r.self not in ("y", "n", "any"):
                out.append(f"{where}: bad reg/self")
            if r.dir not in DIRS + ("any",):
                out.append(f"{where}: bad dir {r.dir}")
            if r.snoop != "none" and r.snoop not in self.snoop_answers:
                out.append(f"{where}: bad snoop {r.snoop}")
            if r.rsp != "none" and r.rsp not in RSP_TOKENS:
                out.append(f"{where}: bad rsp {r.rsp}")
            if r.data not in DATA or r.write not in WRITES or r.after not in AFTER:
                out.append(f"{where}: bad data/write/after")
            if r.dir_after not in DIR_AFTER or r.reach not in REACH:
                out.append(f"{where}: bad dir_after/reach")
            if not r.cite.strip():
                out.append(f"{where}: no citation")
            for c in r.cite.split():
                if c.startswith("C") and c not in self.choices:
                    out.append(f"{where}: unknown choice {c}")
            if r.peers is not None:
                for p in r.peers:
                    if p == "kept":
                        if r.snoop != "none":
                            out.append(f"{where}: a snooped holder cannot be `kept`")
                    elif r.snoop == "none" or p not in self.snoop_answers[r.snoop]:
                        out.append(f"{where}: {p} is not an answer to {r.snoop} (L32-33)")
                if r.snoop != "none" and not r.peers:
                    out.append(f"{where}: a snoop with nobody to snoop")
                if r.dir == "I" and (r.peers or r.self == "y"):
                    out.append(f"{where}: directory I has no holders")
                if r.dir == "E" and (len(r.peers) + (r.self == "y")) != 1 and "kept" not in r.peers:
                    out.append(f"{where}: directory E has exactly one owner")
                if "fwd" in (r.data, r.write.split("|")[-1]) and not any(p.endswith("FwdM") or p.endswith("FwdV")
                                                                          for p in r.peers):
                    out.append(f"{where}: forwarded data without a Fwd answer")
        # one snoop decision per (request, region, directory state, self, other holders present)
        plan: dict[tuple, str] = {}
        for r in self.rows:
            if r.peers is None:
                continue
            k = (r.req, r.reg, r.dir, r.self, bool(r.peers))
            if plan.setdefault(k, r.snoop) != r.snoop:
                out.append(f"row {r.id}: snoop {r.snoop} differs from another row of {k}")
        return out

    # ------------------------------------------------------------------ lookups
    def lineless(self, op: int, served: bool) -> Row | None:
        """Row of a request answered without a line (CacheFlushed) or not served (illegal opcode)."""
        for r in self.rows:
            if r.peers is None and ((r.req == "illegal" and not served) or
                                    (r.req != "illegal" and served and req_opcode(r.req) == op)):
                return r
        return None

    def row(self, op: int, coherent: bool, dir_state: int, self_rec: bool, peers: frozenset[str]) -> Row:
        name = D2HReqOp(op).name
        req = next((r.req for r in self.rows if r.req != "illegal" and r.req.upper() == name), None)
        if req is None:
            raise KeyError(f"no table rows for {name}")
        if not coherent:
            k = (req, "nc", "I", "n", frozenset())
        else:
            k = (req, "coh", DIRS[dir_state], "y" if self_rec else "n", peers)
        try:
            return self.by_key[k]
        except KeyError:
            raise KeyError(f"no table row for {k}") from None

    def snoop(self, op: int, coherent: bool, dir_state: int, sharers: int, requester: int) -> tuple[int | None, int]:
        """(snoop opcode or None, target vector) for a request starting in this directory state."""
        lr = self.lineless(op, True)
        if lr is not None or not coherent:
            return None, 0
        me = 1 << requester
        others = sharers & ~me
        cands = [r for r in self.rows if r.peers is not None and r.reg == "coh" and r.req.upper() == D2HReqOp(op).name
                 and r.dir == DIRS[dir_state] and r.self == ("y" if sharers & me else "n")
                 and bool(r.peers) == bool(others)]
        if not cands:
            raise KeyError(f"no table row for {D2HReqOp(op).name} in {DIRS[dir_state]} "
                           f"(self {bool(sharers & me)}, others {bool(others)})")
        s = cands[0].snoop
        return (None, 0) if s == "none" else (snoop_opcode(s), others)

    def expect(self, op: int, requester: int, dir_state: int, sharers: int, rsps: Mapping[int, int],
               coherent: bool = True) -> Expect:
        """The table's answer once every snoop answer (port -> D2H Rsp opcode) is in."""
        me = 1 << requester
        snp, targets = self.snoop(op, coherent, dir_state, sharers, requester)
        others = sharers & ~me if coherent else 0
        if snp is None:
            peers = frozenset({"kept"}) if others else frozenset()
            kept = others
        else:
            names = {p: D2HRspOp(r).name for p, r in rsps.items()}
            spelled = {p: next(a for a in self.snoop_answers[_snoop_name(snp)] if a.upper() == n)
                       for p, n in names.items()}
            peers = frozenset(spelled.values())
            kept = sum(1 << p for p, a in spelled.items() if keeps_copy(a))
        r = self.row(op, coherent, dir_state, bool(sharers & me), peers)
        return self._concrete(r, snp, targets, me, kept)

    def expect_lineless(self, op: int, served: bool) -> Expect:
        r = self.lineless(op, served)
        if r is None:
            raise KeyError(f"opcode {op:#x} has a line")
        return self._concrete(r, None, 0, 0, 0)

    @staticmethod
    def _concrete(r: Row, snp: int | None, targets: int, me: int, kept: int) -> Expect:
        rsp, st = RSP_TOKENS[r.rsp] if r.rsp != "none" else (None, None)
        after, ast = RSP_TOKENS[r.after] if r.after != "none" else (None, None)
        da = r.dir_after
        if da == "unchanged":
            ds, sh = None, None
        elif da == "I":
            ds, sh = 0, 0
        elif da == "E:R":
            ds, sh = 2, me
        elif da == "S:R+kept":
            ds, sh = 1, me | kept
        else:  # S:kept / E:kept
            ds, sh = (1 if da[0] == "S" else 2), kept
            if not kept:
                raise ValueError(f"row {r.id}: {da} with nobody kept")
        return Expect(r.id, snp, targets, None if rsp is None else int(rsp), None if st is None else int(st),
                      None if r.data == "none" else r.data, None if r.write == "none" else r.write,
                      None if after is None else int(after), None if ast is None else int(ast), ds, sh)


@dataclass(frozen=True)
class Scenario:
    """A row made concrete: requester port 0, one port per distinct answer of the other holders
    (`copies` ports per answer), the directory state and sharer vector the row names."""

    row: Row
    op: int
    coherent: bool
    st: int
    sharers: int
    snooped: int
    rsps: dict[int, int]
    have_fwd: bool

    @property
    def ports(self) -> int:
        return max(self.sharers.bit_length(), 1)


def scenario(row: Row, copies: int = 1) -> Scenario:
    if row.peers is None:
        raise ValueError(f"row {row.id} has no line")
    op = req_opcode(row.req)
    coherent = row.reg == "coh"
    sh, rsps, port = 0, {}, 1
    if coherent:
        if row.self == "y":
            sh |= 1
        for tok in sorted(row.peers):
            for _ in range(copies):
                sh |= 1 << port
                if tok != "kept":
                    rsps[port] = rsp_opcode(tok)
                port += 1
    st = DIRS.index(row.dir) if coherent else 0
    fwd = any(tok.endswith("FwdM") or tok.endswith("FwdV") for tok in row.peers)
    return Scenario(row, op, coherent, st, sh, sum(1 << p for p in rsps), rsps, fwd)


def _snoop_name(op: int) -> str:
    return {int(H2DReqOp.SNPDATA): "SnpData", int(H2DReqOp.SNPINV): "SnpInv", int(H2DReqOp.SNPCUR): "SnpCur"}[op]


@lru_cache(maxsize=1)
def load(path: str | None = None) -> SpecTable:
    """The table (parsed and checked once per process)."""
    with open(path or TABLE) as f:
        return SpecTable(yaml.safe_load(f))
