"""Reference memory for the co-simulation: is every read's data allowed by the fabric's ordering?

Every write carries self-identifying data (writer bridge and request number, see
tb/edge/hil_port.v), so each read response names the write it returned (or the memory image of a
line never written). The check applies the writes in an order the fabric allows:

- Per bridge, requests are answered in order, exactly once (seq = 0, 1, 2, ...), with the right
  opcode, status, tag and address, and the data words are consistent (checked in RTL per record).
- Own writes (program order): a read returns the latest earlier write of its own bridge to the line
  (write buffer forwarding, hot-line cache, memory), never an older one, never a later one, never
  the unwritten image once the bridge wrote the line.
- Writes of the other bridge (the coherent range, which both bridges share; in the non-coherent
  range each bridge has its own lines): a read may return a write W of another bridge if W was
  issued before the read was answered and W is not older than what the read must already see.
  "W happens before W2" when both are from one bridge in program order, or W was acknowledged
  before W2 was issued. In the coherent range an acknowledged write is globally ordered (the
  bridge acknowledges after the home agent's GO, and the home keeps the line until the data is
  written), so a write acknowledged before the read was issued must be seen: the read may not
  return the image, or a write that happens before such a write.

Pure numpy/Python: used by the hil harness (records read back in bulk) and by the tests.
"""
from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

SEQ_BITS = 24


@dataclass
class CheckResult:
    counts: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    n_errors: int = 0

    def error(self, msg: str, limit: int = 50) -> None:
        self.n_errors += 1
        if len(self.errors) < limit:
            self.errors.append(msg)


def own_latest_write(write: np.ndarray, line: np.ndarray) -> np.ndarray:
    """For each request, the index of the latest earlier write to its line by the same bridge (-1)."""
    n = len(line)
    if n == 0:
        return np.zeros(0, np.int64)
    order = np.lexsort((np.arange(n), line))              # by line, then program order
    ls = line[order]
    ws = write[order]
    pos = np.where(ws, order, -1)
    # previous write strictly before each position within the same line group
    prev = np.empty(n, np.int64)
    prev[0] = -1
    prev[1:] = pos[:-1]
    grp_start = np.ones(n, bool)
    grp_start[1:] = ls[1:] != ls[:-1]
    prev[grp_start] = -1
    # running maximum that restarts at each group: positions are increasing within a group
    gid = np.cumsum(grp_start) - 1
    big = np.int64(n + 1)
    acc = np.maximum.accumulate(np.where(prev >= 0, prev + gid * big, gid * big - 1))
    last = acc - gid * big
    last[last < 0] = -1
    out = np.empty(n, np.int64)
    out[order] = last
    return out


def check_run(streams: Sequence[dict[str, np.ndarray]], recs: Sequence[dict[str, np.ndarray]]) -> CheckResult:
    """streams[b]: write, line, coherent arrays (program order); recs[b]: hil_port records."""
    res = CheckResult()
    c: dict[str, int] = defaultdict(int)
    nb = len(streams)
    ok_streams = []
    for b in range(nb):
        s, r = streams[b], recs[b]
        n = len(s["line"])
        c["requests"] += n
        c["responses"] += len(r["seq"])
        if len(r["seq"]) != n:
            res.error(f"bridge {b}: {n} requests, {len(r['seq'])} responses")
            ok_streams.append(False)
            continue
        expect = np.arange(n) & ((1 << SEQ_BITS) - 1)
        bad = np.flatnonzero(r["seq"] != expect)
        if len(bad):
            res.error(f"bridge {b}: responses out of order / repeated / missing from request {bad[0]} "
                      f"(got seq {int(r['seq'][bad[0]])}); {len(bad)} positions differ")
            ok_streams.append(False)
            continue
        for name, what in (("hdr_ok", "response header (opcode, status, tag, address) wrong"),
                           ("kind_seen", "bridge issued no line for the request"),
                           ("data_ok", "read data corrupted (words inconsistent or another line's)")):
            badk = np.flatnonzero(~r[name])
            if len(badk):
                res.error(f"bridge {b}: {what} on {len(badk)} requests, first request {int(badk[0])}")
        wmis = np.flatnonzero(r["write"] != s["write"])
        if len(wmis):
            res.error(f"bridge {b}: response type differs from the request on {len(wmis)}, first {int(wmis[0])}")
        ok_streams.append(True)
    if not all(ok_streams):
        res.counts = dict(c)
        return res

    # ---- writes (all bridges): identity -> (line, issue, ack)
    w_line = [np.where(s["write"], s["line"], -1).astype(np.int64) for s in streams]
    own = [own_latest_write(np.asarray(s["write"], bool), np.asarray(s["line"], np.int64)) for s in streams]
    # coherent lines: per line, writes sorted by acknowledgement time with prefix maxima
    coh_w: dict[int, list[tuple[int, int, int, int]]] = defaultdict(list)    # line -> (t_ack, t_issue, bridge, seq)
    for b in range(nb):
        s, r = streams[b], recs[b]
        idx = np.flatnonzero(np.asarray(s["write"]) & np.asarray(s["coherent"]))
        for i in idx:
            coh_w[int(s["line"][i])].append((int(r["t_rsp"][i]), int(r["t_issue"][i]), b, int(i)))
    coh_tab = {}
    for ln, ws in coh_w.items():
        ws.sort()
        acks = [w[0] for w in ws]
        mx_issue, mx_seq = [], []
        m = -1
        ms = [-1] * nb
        for w in ws:
            m = max(m, w[1])
            ms = list(ms)
            ms[w[2]] = max(ms[w[2]], w[3])
            mx_issue.append(m)
            mx_seq.append(tuple(ms))
        coh_tab[ln] = (acks, mx_issue, mx_seq)

    def hb(wb: int, ws_: int, w2b: int, w2s: int) -> bool:
        """Write (wb, ws_) happens before write (w2b, w2s)."""
        if wb == w2b:
            return ws_ < w2s
        return int(recs[wb]["t_rsp"][ws_]) < int(recs[w2b]["t_issue"][w2s])

    for b in range(nb):
        s, r = streams[b], recs[b]
        rd = np.flatnonzero(~np.asarray(s["write"], bool))
        c["reads"] += len(rd)
        c["writes"] += len(s["line"]) - len(rd)
        lines = np.asarray(s["line"], np.int64)
        coh = np.asarray(s["coherent"], bool)
        img = r["image"]
        vb = r["ver_b"].astype(np.int64)
        vs_lo = r["ver_seq"].astype(np.int64)
        for i in rd:
            i = int(i)
            ln = int(lines[i])
            ow = int(own[b][i])
            ti, tr = int(r["t_issue"][i]), int(r["t_rsp"][i])
            cl = bool(coh[i])
            if cl:
                c["coherent_reads"] += 1
            tab = coh_tab.get(ln) if cl else None
            nvis = bisect_left(tab[0], ti) if tab else 0       # coherent writes acked before issue
            if img[i]:
                c["read_image"] += 1
                if ow >= 0:
                    res.error(f"bridge {b} read {i} (line {ln:#x}): unwritten image, but request {ow} wrote the line")
                elif nvis:
                    res.error(f"bridge {b} read {i} (coherent line {ln:#x}): unwritten image after an acknowledged write")
                continue
            wb = int(vb[i])
            if wb >= nb:
                res.error(f"bridge {b} read {i}: data names bridge {wb}")
                continue
            # full request number of the writer from its low SEQ_BITS bits (closest to the reader's era)
            ws_ = int(vs_lo[i])
            nw = len(streams[wb]["line"])
            if ws_ >= nw or int(w_line[wb][ws_]) != ln:
                res.error(f"bridge {b} read {i} (line {ln:#x}): data of bridge {wb} request {ws_}, "
                          f"which {'does not exist' if ws_ >= nw else 'is not a write of this line'}")
                continue
            if int(recs[wb]["t_issue"][ws_]) >= tr:
                res.error(f"bridge {b} read {i}: returned a write issued after the read was answered")
                continue
            if wb == b:
                if ws_ >= i:
                    res.error(f"bridge {b} read {i}: returned its own later write {ws_}")
                    continue
                if ws_ != ow:
                    res.error(f"bridge {b} read {i} (line {ln:#x}): stale, returned own write {ws_}, latest is {ow}")
                    continue
                c["read_own_latest"] += 1
            else:
                if ow >= 0 and hb(wb, ws_, b, ow):
                    res.error(f"bridge {b} read {i} (line {ln:#x}): returned bridge {wb} write {ws_}, "
                              f"older than its own write {ow}")
                    continue
                c["read_other_bridge"] += 1
            if tab and nvis:
                acks, mx_issue, mx_seq = tab
                k = nvis - 1
                if mx_issue[k] > int(recs[wb]["t_rsp"][ws_]) or mx_seq[k][wb] > ws_:
                    res.error(f"bridge {b} read {i} (coherent line {ln:#x}): stale, bridge {wb} write {ws_} "
                              f"was superseded by a write acknowledged before the read was issued")
                    continue
    c["errors"] = res.n_errors
    res.counts = dict(c)
    return res
