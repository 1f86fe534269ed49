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

    # ---- writes (all bridges): identity -> (line, issue, ack); own latest write before each request
    w_line = [np.where(s["write"], s["line"], -1).astype(np.int64) for s in streams]
    own = [own_latest_write(np.asarray(s["write"], bool), np.asarray(s["line"], np.int64)) for s in streams]
    t_iss = [np.asarray(r["t_issue"], np.int64) for r in recs]
    t_ack = [np.asarray(r["t_rsp"], np.int64) for r in recs]
    vis = _CoherentVisibility(streams, t_iss, t_ack)
    for b in range(nb):
        s, r = streams[b], recs[b]
        lines = np.asarray(s["line"], np.int64)
        rd = np.flatnonzero(~np.asarray(s["write"], bool))
        c["reads"] += len(rd)
        c["writes"] += len(lines) - len(rd)
        if not len(rd):
            continue
        ln, ow = lines[rd], own[b][rd]
        ti, tr = t_iss[b][rd], t_ack[b][rd]
        cl = np.asarray(s["coherent"], bool)[rd]
        img = np.asarray(r["image"], bool)[rd]
        wb = np.asarray(r["ver_b"], np.int64)[rd]
        ws = np.asarray(r["ver_seq"], np.int64)[rd]
        c["coherent_reads"] += int(cl.sum())
        nvis, mx_issue, mx_seq = vis.at(ln, ti, cl, nb)       # coherent writes acked before each read's issue
        c["read_image"] += int(img.sum())

        def report(mask: np.ndarray, what) -> None:
            for k in np.flatnonzero(mask)[:5]:
                res.error(what(int(k)))
            res.n_errors += max(0, int(mask.sum()) - min(5, int(mask.sum())))

        report(img & (ow >= 0), lambda k: f"bridge {b} read {int(rd[k])} (line {int(ln[k]):#x}): unwritten image, but "
                                          f"request {int(ow[k])} wrote the line")
        report(img & (ow < 0) & (nvis > 0), lambda k: f"bridge {b} read {int(rd[k])} (coherent line {int(ln[k]):#x}): "
                                                       "unwritten image after an acknowledged write")
        ok = ~img
        bad_b = ok & (wb >= nb)
        report(bad_b, lambda k: f"bridge {b} read {int(rd[k])}: data names bridge {int(wb[k])}")
        ok &= ~bad_b
        # the named write: exists, is a write of this line, was issued before the read was answered
        exists = np.zeros(len(rd), bool)
        w_iss = np.zeros(len(rd), np.int64)
        w_ack = np.zeros(len(rd), np.int64)
        for x in range(nb):
            sel = ok & (wb == x)
            inr = sel & (ws < len(w_line[x]))
            idx = np.where(inr, ws, 0)
            exists |= inr & (w_line[x][idx] == ln)
            w_iss = np.where(inr, t_iss[x][idx], w_iss)
            w_ack = np.where(inr, t_ack[x][idx], w_ack)
        report(ok & ~exists, lambda k: f"bridge {b} read {int(rd[k])} (line {int(ln[k]):#x}): data of bridge {int(wb[k])} "
                                        f"request {int(ws[k])}, which is not a write of this line")
        ok &= exists
        future = ok & (w_iss >= tr)
        report(future, lambda k: f"bridge {b} read {int(rd[k])}: returned a write issued after the read was answered")
        ok &= ~future
        mine = ok & (wb == b)
        later = mine & (ws >= rd)
        report(later, lambda k: f"bridge {b} read {int(rd[k])}: returned its own later write {int(ws[k])}")
        stale_own = mine & ~later & (ws != ow)
        report(stale_own, lambda k: f"bridge {b} read {int(rd[k])} (line {int(ln[k]):#x}): stale, returned own write "
                                    f"{int(ws[k])}, latest is {int(ow[k])}")
        good_own = mine & ~later & ~stale_own
        other = ok & (wb != b)
        # another bridge's write older than the reader's own latest write (acknowledged before it was issued)
        ow_iss = np.where(ow >= 0, t_iss[b][np.maximum(ow, 0)], 0)
        older = other & (ow >= 0) & (w_ack < ow_iss)
        report(older, lambda k: f"bridge {b} read {int(rd[k])} (line {int(ln[k]):#x}): returned bridge {int(wb[k])} write "
                                f"{int(ws[k])}, older than its own write {int(ow[k])}")
        good_other = other & ~older
        # coherent: superseded by a write acknowledged before the read was issued
        cand = (good_own | good_other) & cl & (nvis > 0)
        sup = cand & ((mx_issue > w_ack) | (np.take_along_axis(mx_seq, np.clip(wb, 0, nb - 1)[:, None], 1)[:, 0] > ws))
        report(sup, lambda k: f"bridge {b} read {int(rd[k])} (coherent line {int(ln[k]):#x}): stale, bridge {int(wb[k])} "
                              f"write {int(ws[k])} was superseded by a write acknowledged before the read was issued")
        c["read_own_latest"] += int((good_own & ~sup).sum())
        c["read_other_bridge"] += int((good_other & ~sup).sum())
    c["errors"] = res.n_errors
    res.counts = dict(c)
    return res


class _CoherentVisibility:
    """Coherent writes of all bridges grouped by line and sorted by acknowledgement time, with running
    maxima of issue time and (per writer bridge) request number: what a read issued at time t must
    already see."""

    def __init__(self, streams, t_iss, t_ack) -> None:
        ln, ack, iss, br, sq = [], [], [], [], []
        for b, s in enumerate(streams):
            idx = np.flatnonzero(np.asarray(s["write"], bool) & np.asarray(s["coherent"], bool))
            ln.append(np.asarray(s["line"], np.int64)[idx])
            ack.append(t_ack[b][idx])
            iss.append(t_iss[b][idx])
            br.append(np.full(len(idx), b, np.int64))
            sq.append(idx.astype(np.int64))
        self.nb = len(streams)
        ln, ack, iss, br, sq = (np.concatenate(v) if v else np.zeros(0, np.int64) for v in (ln, ack, iss, br, sq))
        order = np.lexsort((ack, ln))
        self.ln, self.ack = ln[order], ack[order]
        iss, br, sq = iss[order], br[order], sq[order]
        n = len(self.ln)
        start = np.ones(n, bool)
        start[1:] = self.ln[1:] != self.ln[:-1]
        gid = np.cumsum(start) - 1
        big = np.int64(1) << np.int64(40)                  # above any time stamp or request number
        self.mx_issue = np.maximum.accumulate(iss + gid * big) - gid * big if n else iss
        self.mx_seq = np.full((n, self.nb), -1, np.int64)
        for x in range(self.nb):
            v = np.where(br == x, sq, -1)
            self.mx_seq[:, x] = np.maximum.accumulate(v + 1 + gid * big) - gid * big - 1 if n else v

    def at(self, line: np.ndarray, t: np.ndarray, coherent: np.ndarray, nb: int):
        """Per read: number of writes to its line acknowledged before t, and the running maxima there."""
        m = len(line)
        nvis = np.zeros(m, np.int64)
        mx_i = np.full(m, -1, np.int64)
        mx_s = np.full((m, nb), -1, np.int64)
        if not len(self.ln) or not coherent.any():
            return nvis, mx_i, mx_s
        big = np.int64(1) << np.int64(33)                  # time stamps are 32-bit
        keys = self.ln * big + self.ack                    # sorted: by line, then acknowledgement time
        lo = np.searchsorted(keys, line * big, side="left")
        pos = np.searchsorted(keys, line * big + t, side="left")
        nvis = np.where(coherent, pos - lo, 0)
        last = np.maximum(pos - 1, 0)
        has = nvis > 0
        mx_i = np.where(has, self.mx_issue[last] if len(self.mx_issue) else -1, -1)
        mx_s = np.where(has[:, None], self.mx_seq[last], -1)
        return nvis, mx_i, mx_s
