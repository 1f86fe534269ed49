"""Measurement runs of xbridge_core for tb/bridge/bench.py (cycle counts from the simulation).

One falling-edge loop drives the XLink side (XW beats per transfer), sinks responses (always ready)
and plays a CXL memory with a fixed far-side latency FAR on every lane (always ready), so every
number is a property of the bridge. Results go to $XB_BENCH_OUT/<test>.json.
"""
from __future__ import annotations

import heapq
import json
import os
from pathlib import Path

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly

from models.bridge import Packet, XlHeader, XlOp, len_field_for
from models.bridge.lanes import LINK_RATE
from models.cxl.messages import D2HReq, H2DData, M2SReq, M2SRwD, S2MDRS, S2MNDR
from tb.bridge.env import TbConfig, default_line
from tb.common.clock import ClockReset
from tb.common.seeds import announce_seed, named_rng

FAR = int(os.environ.get("XB_FAR", "284"))   # CAL-CXL-ASIC (targets.md): far-side read latency
NREQ = int(os.environ.get("XB_NREQ", "1000"))  # requests per direction in the throughput runs
SUS_WINDOW = 12000                             # cycles measured once refreshes are forced
LR_WINDOW = int(os.environ.get("XB_LR_WINDOW", "3000"))  # cycles of steady state per link-rate case
M128 = (1 << 128) - 1
M512 = (1 << 512) - 1


class Harness:
    def __init__(self, dut: object, cfg: TbConfig) -> None:
        self.dut, self.cfg = dut, cfg
        self.cyc = 0
        self.q: list[list[tuple[int, int, str, tuple]]] = [[] for _ in range(cfg.lanes)]
        self.n = 0
        self.rx_hdr_cycle: list[int] = []
        self.tx_last_cycle: list[int] = []
        self.tx_beats = 0
        self.rx_beats = 0
        self.mem: dict[int, bytes] = {}
        self.forced: list[int] = []          # cycles of forced HBM refreshes (when probed)

    async def run(self, pkts: list[Packet], gap: int = 0, max_cycles: int = 200000,
                  probe: object | None = None, window: int = 0) -> None:
        """Send pkts, play the far side, wait for the answers. With probe (the HBM controller's
        ref_forced, sampled every cycle) and window: no new packet from `window` cycles after the
        first forced refresh on."""
        stop_cycle: int | None = None
        dut, fl, xw, nl = self.dut, self.cfg.flavor, self.cfg.xw, self.cfg.lanes
        xfers = [p.transfers(fl, xw) for p in pkts]
        pi = bi = 0
        wait = 0
        cur: list[dict[str, tuple | None]] = [{"drs": None, "ndr": None, "h2d": None} for _ in range(nl)]
        ones = (1 << nl) - 1
        for s in ("m2s_req_ready", "m2s_rwd_ready", "d2h_req_ready", "d2h_data_ready"):
            getattr(dut, s).value = ones
        dut.xl_tx_ready.value = 1
        rdy_sig = {"drs": "s2m_drs_ready", "ndr": "s2m_ndr_ready", "h2d": "h2d_data_ready"}
        while self.cyc < max_cycles:
            await FallingEdge(dut.clk)
            self.cyc += 1
            stopping = stop_cycle is not None and self.cyc >= stop_cycle and bi == 0
            if pi < len(xfers) and wait <= 0 and not stopping:
                dut.xl_rx_valid.value = 1
                dut.xl_rx_data.value, dut.xl_rx_last.value = xfers[pi][bi]
            else:
                dut.xl_rx_valid.value = 0
                wait -= 1
            # a presented response stays until the bridge takes it (DRS may wait for the HBM queue)
            for ln in range(nl):
                q = self.q[ln]
                while q and q[0][0] <= self.cyc and cur[ln][q[0][2]] is None:
                    _, _, ch, it = heapq.heappop(q)
                    cur[ln][ch] = it
            self._drive(cur)
            await ReadOnly()
            for ch, sig in rdy_sig.items():
                rv = int(getattr(dut, sig).value)
                for ln in range(nl):
                    if cur[ln][ch] is not None and rv >> ln & 1:
                        cur[ln][ch] = None
            if int(dut.xl_rx_valid.value) and int(dut.xl_rx_ready.value):
                self.rx_beats += (int(dut.xl_rx_last.value) or (1 << xw) >> 1).bit_length()
                if bi == 0:
                    self.rx_hdr_cycle.append(self.cyc)
                bi += 1
                if bi == len(xfers[pi]):
                    pi, bi, wait = pi + 1, 0, gap
            if int(dut.xl_tx_valid.value):
                last = int(dut.xl_tx_last.value)
                self.tx_beats += last.bit_length() if last else xw
                if last:
                    self.tx_last_cycle.append(self.cyc)
            self._sample_cxl()
            if probe is not None and int(probe.value):
                self.forced.append(self.cyc)
                if window and stop_cycle is None:
                    stop_cycle = self.cyc + window
            if (pi == len(xfers) or (stopping and pi > 0)) and len(self.tx_last_cycle) >= pi:
                break
        assert len(self.tx_last_cycle) >= pi and (pi == len(pkts) or stop_cycle is not None), \
            "bench run did not finish"

    def _sample_cxl(self) -> None:
        dut, nl = self.dut, self.cfg.lanes
        rv, wv, dv = int(dut.m2s_req_valid.value), int(dut.m2s_rwd_valid.value), int(dut.d2h_req_valid.value)
        if rv:
            hdrs = int(dut.m2s_req_hdr.value)
            for ln in range(nl):
                if rv >> ln & 1:
                    r = M2SReq.from_canonical(hdrs >> (128 * ln) & M128)
                    self._push(ln, FAR, "drs", (r.tag, r.addr))
        if wv:
            hdrs, datas = int(dut.m2s_rwd_hdr.value), int(dut.m2s_rwd_data.value)
            for ln in range(nl):
                if wv >> ln & 1:
                    w = M2SRwD.from_canonical(hdrs >> (128 * ln) & M128)
                    self.mem[w.addr] = (datas >> (512 * ln) & M512).to_bytes(64, "little")
                    self._push(ln, FAR, "ndr", (w.tag,))
        if dv:
            hdrs = int(dut.d2h_req_hdr.value)
            for ln in range(nl):
                if dv >> ln & 1:
                    self._push(ln, FAR, "h2d", (D2HReq.from_canonical(hdrs >> (128 * ln) & M128).cqid,))

    def _push(self, ln: int, lat: int, ch: str, it: tuple) -> None:
        self.n += 1
        heapq.heappush(self.q[ln], (self.cyc + lat, self.n, ch, it))

    def _drive(self, cur: list[dict]) -> None:
        dut = self.dut
        v = {"drs": 0, "ndr": 0, "h2d": 0}
        drs_h = drs_d = ndr_h = h2d_h = 0
        for ln, c in enumerate(cur):
            if c["drs"] is not None:
                tag, line = c["drs"]
                v["drs"] |= 1 << ln
                drs_h |= S2MDRS(tag=tag).to_canonical() << (128 * ln)
                drs_d |= int.from_bytes(self.mem.get(line, default_line(line)), "little") << (512 * ln)
            if c["ndr"] is not None:
                v["ndr"] |= 1 << ln
                ndr_h |= S2MNDR(tag=c["ndr"][0]).to_canonical() << (128 * ln)
            if c["h2d"] is not None:
                v["h2d"] |= 1 << ln
                h2d_h |= H2DData(cqid=c["h2d"][0]).to_canonical() << (128 * ln)
        dut.s2m_drs_valid.value = v["drs"]
        dut.s2m_ndr_valid.value = v["ndr"]
        dut.h2d_data_valid.value = v["h2d"]
        if v["drs"]:
            dut.s2m_drs_hdr.value, dut.s2m_drs_data.value = drs_h, drs_d
        if v["ndr"]:
            dut.s2m_ndr_hdr.value = ndr_h
        if v["h2d"]:
            dut.h2d_data_hdr.value = h2d_h

    def latencies(self) -> list[int]:
        return [t - h for h, t in zip(self.rx_hdr_cycle, self.tx_last_cycle)]


def cfg_and_out() -> tuple[TbConfig, Path]:
    out = Path(os.environ["XB_BENCH_OUT"])
    out.mkdir(parents=True, exist_ok=True)
    return TbConfig.from_env(), out


def req(cfg: TbConfig, op: int, line_off: int, nlines: int, tag: int = 0) -> Packet:
    """Request k uses tag k % 1024 and src (k // 1024) % 1024: no (src, tag) pair is reused while
    a previous one can still be outstanding."""
    n = nlines if op == XlOp.WRITE else 0
    return Packet(XlHeader(op, tag % 1024, (tag // 1024) % 1024, len_field_for(cfg.flavor, 64 * nlines),
                           cfg.bridge.win_base + 64 * line_off),
                  tuple(bytes([tag & 0xFF]) * 64 for _ in range(n)))


async def fresh(dut: object, first: bool = False) -> None:
    """Reset the DUT between runs (the clock is started once per test)."""
    if not first:
        await FallingEdge(dut.clk)
    for s in ("xl_rx_valid", "s2m_drs_valid", "s2m_ndr_valid", "h2d_data_valid", "h2d_rsp_valid"):
        getattr(dut, s).value = 0
    cr = ClockReset(dut.clk, dut.rst)
    await (cr.start() if first else cr.reset())


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def latency(dut: object) -> None:
    """Isolated 64 B reads: cold (table miss, cache miss), repeated shape (table hit), and hits."""
    cfg, out = cfg_and_out()
    await fresh(dut, first=True)
    h = Harness(dut, cfg)
    cold = [req(cfg, XlOp.READ, 1000 + 37 * k, 1, k) for k in range(8)]       # distinct shapes
    await h.run(cold, gap=FAR + 100)
    miss = [lat - FAR for lat in h.latencies()]
    h2 = Harness(dut, cfg)
    await fresh(dut)
    again = [req(cfg, XlOp.READ, 2000, 1, k) for k in range(8)]               # same shape 8x
    await h2.run(again, gap=FAR + 100)
    lats = h2.latencies()
    res = {"miss_conversion_latency_cycles": sum(miss) / len(miss),
           "far_cycles": FAR, "raw_first": lats[0]}
    if cfg.buf_en:
        res["hit_latency_cycles"] = sum(lats[1:]) / len(lats[1:])             # cache hits
    else:
        ht = [lat - FAR for lat in lats[1:]]                                    # table hits, no cache
        res["miss_conversion_latency_ht_hit_cycles"] = sum(ht) / len(ht)
        res["hdr_table_saving_cycles"] = res["miss_conversion_latency_cycles"] - sum(ht) / len(ht)
        res["stat_ht_hit"] = int(dut.stat_ht_hit.value)
    tag = os.environ.get("XB_TAG", "")
    (out / f"latency_buf{cfg.buf_en}_{cfg.flavor}{'_' + tag if tag else ''}.json").write_text(json.dumps(res))


@cocotb.test(timeout_time=20000, timeout_unit="us")
async def throughput(dut: object) -> None:
    """Back-to-back 256 B writes (request direction) and 256 B reads (response direction).

    NREQ requests each way over 64 distinct 4-line blocks (256 lines, all cacheable): long enough
    for a few dozen HBM refresh intervals. Writes: header-to-header rate at the input. Reads: the
    response rate after the first 64 requests (the cold misses that fill the cache)."""
    cfg, out = cfg_and_out()
    await fresh(dut, first=True)
    h = Harness(dut, cfg)
    wr = [req(cfg, XlOp.WRITE, 4 * (k % 64), 4, k) for k in range(NREQ)]
    await h.run(wr, max_cycles=400 * NREQ)
    wr_cycles = h.rx_hdr_cycle[-1] - h.rx_hdr_cycle[0]
    wr_pkts = len(wr) - 1
    await fresh(dut)
    h2 = Harness(dut, cfg)
    rd = [req(cfg, XlOp.READ, 4 * (k % 64), 4, k) for k in range(NREQ)]
    await h2.run(rd, max_cycles=400 * NREQ)
    rd_cycles = h2.tx_last_cycle[-1] - h2.tx_last_cycle[64]
    rd_pkts = len(rd) - 1 - 64
    res = {"wr_pkts_per_cycle": wr_pkts / wr_cycles, "rd_pkts_per_cycle": rd_pkts / rd_cycles,
           "wr_beats_per_cycle": 5 * wr_pkts / wr_cycles, "rd_beats_per_cycle": 5 * rd_pkts / rd_cycles,
           "nreq": NREQ, "wr_cycles": wr_cycles, "rd_cycles": rd_cycles}
    tag = os.environ.get("XB_TAG", "")
    (out / f"throughput_buf{cfg.buf_en}_{cfg.flavor}_far{FAR}{'_' + tag if tag else ''}.json").write_text(
        json.dumps(res))


def _in_window(cycles: list[int], lo: int, hi: int) -> int:
    return sum(1 for c in cycles if lo <= c < hi)


@cocotb.test(timeout_time=60000, timeout_unit="us")
async def throughput_sustained(dut: object) -> None:
    """The same streams kept up until the HBM's refresh postponement is used up: once a refresh is
    forced (every bank REF_POSTPONE behind) the stream runs another SUS_WINDOW cycles, and the rate
    is measured over that window, in which every timer refresh is forced (steady state)."""
    cfg, out = cfg_and_out()
    probe = dut.g_lane[0].u_lane.g_hbm.hbm_ref_f
    res: dict[str, float] = {}
    for k, op in enumerate((XlOp.WRITE, XlOp.READ)):
        await fresh(dut, first=(k == 0))
        h = Harness(dut, cfg)
        # more requests than the run can take: the XLink input takes a request in no fewer cycles
        # than it has transfers (5 beats: 5 at XW 1, 3 at XW 2)
        bound = (cfg.ref_postpone + 2) * cfg.timing().tREFI + SUS_WINDOW
        per = len(req(cfg, op, 0, 4, 0).transfers(cfg.flavor, cfg.xw))
        pkts = [req(cfg, op, 4 * (i % 64), 4, i) for i in range(bound // per + 1)]
        await h.run(pkts, max_cycles=20 * bound, probe=probe, window=SUS_WINDOW)
        assert h.forced, f"no forced refresh in {h.cyc} cycles: the stream did not saturate the HBM"
        assert len(h.rx_hdr_cycle) < len(pkts), \
            f"all {len(pkts)} requests were taken before the window closed: the rate would count idle cycles"
        lo, hi = h.forced[0], h.forced[0] + SUS_WINDOW
        d = "wr" if op == XlOp.WRITE else "rd"
        n = _in_window(h.rx_hdr_cycle if op == XlOp.WRITE else h.tx_last_cycle, lo, hi)
        res[f"{d}_pkts_per_cycle"] = n / SUS_WINDOW
        res[f"{d}_beats_per_cycle"] = 5 * n / SUS_WINDOW
        res[f"{d}_first_forced_cycle"] = lo
        res[f"{d}_forced_in_window"] = _in_window(h.forced, lo, hi)
    tag = os.environ.get("XB_TAG", "")
    (out / f"sustained_buf{cfg.buf_en}_{cfg.flavor}_far{FAR}{'_' + tag if tag else ''}.json").write_text(
        json.dumps(res))


@cocotb.test(timeout_time=20000, timeout_unit="us")
async def traces(dut: object) -> None:
    """Reuse-heavy tensor trace and streaming trace: hit rate and mean request latency."""
    announce_seed()
    cfg, out = cfg_and_out()
    rng = named_rng("bench_traces", 1)          # fixed seed: same trace for every configuration
    res = {}
    # tensor: 12 weight tiles of 4 lines re-read across 6 passes, activations written each pass
    tensor = []
    for p in range(6):
        order = list(range(12))
        rng.shuffle(order)
        for t in order:
            tensor.append(req(cfg, XlOp.READ, 4 * t, 4, len(tensor)))
            if rng.random() < 0.25:
                tensor.append(req(cfg, XlOp.WRITE, 4096 + 4 * rng.randrange(64), 4, len(tensor)))
    stream = [req(cfg, XlOp.READ, 8192 + 4 * k, 4, k) for k in range(96)]
    for k, (name, trace) in enumerate((("tensor", tensor), ("stream", stream))):
        await fresh(dut, first=(k == 0))
        h = Harness(dut, cfg)
        await h.run(trace, gap=16)
        lats = [lat for lat, p in zip(h.latencies(), trace) if p.hdr.opcode == XlOp.READ]
        hit, fwd, miss = (int(dut.stat_hit.value), int(dut.stat_fwd.value), int(dut.stat_miss.value))
        res[name] = {"mean_read_latency": sum(lats) / len(lats), "hits": hit, "fwd": fwd,
                     "misses": miss, "hit_rate": (hit + fwd) / max(1, hit + fwd + miss),
                     "cycles": h.cyc}
    (out / f"traces_buf{cfg.buf_en}_{cfg.flavor}.json").write_text(json.dumps(res))


def _rate(cycles: list[int], nbytes: list[float], skip: int) -> tuple[float, int]:
    """Bytes per cycle from event `skip` to the last event (steady state after warm-up)."""
    n = len(cycles)
    span = cycles[-1] - cycles[skip]
    return sum(nbytes[skip + 1:n]) / span, span


@cocotb.test(timeout_time=200000, timeout_unit="us")
async def link_rate(dut: object) -> None:
    """Fraction of the link rate the bridge moves, per (read / write) x (64 B / 256 B) x (hit /
    miss stream), far side FAR cycles. Reads: response link bytes per cycle; writes: request link
    bytes per cycle; both in steady state (the first quarter of the stream skipped, then at least
    LR_WINDOW cycles at the link rate's packet rate). Miss stream: every line new. Hit stream: a
    working set of half the hot-line cache, warmed by one pass, then re-read / re-written."""
    cfg, out = cfg_and_out()
    rate = LINK_RATE[cfg.flavor]
    res: dict[str, dict[str, float]] = {}
    first = True
    for d, op in (("rd", XlOp.READ), ("wr", XlOp.WRITE)):
        for size in (64, 256):
            nl = size // 64
            probe_pkt = req(cfg, XlOp.WRITE if op == XlOp.WRITE else XlOp.READ, 0, nl)
            data_pkt = probe_pkt if op == XlOp.WRITE else Packet(
                XlHeader(XlOp.RD_DATA, 0, 0, probe_pkt.hdr.len, 0), probe_pkt.lines or
                tuple(bytes(64) for _ in range(nl)))
            lbytes = data_pkt.link_bytes(cfg.flavor)
            n_meas = int(LR_WINDOW * rate / lbytes) + 1
            for stream in ("hit", "miss"):
                await fresh(dut, first=first)
                first = False
                h = Harness(dut, cfg)
                if stream == "miss":
                    n = n_meas * 4 // 3 + 1
                    pkts = [req(cfg, op, 200000 + nl * k, nl, k) for k in range(n)]
                    skip = n - n_meas
                else:
                    ws = max(nl, cfg.sets // 2) // nl          # requests in one pass of the set
                    warm = [req(cfg, op, nl * (k % ws), nl, k) for k in range(ws)]
                    n = ws + n_meas * 4 // 3 + 1
                    pkts = warm + [req(cfg, op, nl * (k % ws), nl, k) for k in range(ws, n)]
                    skip = ws + n_meas // 3
                hit0 = int(dut.stat_hit.value)
                await h.run(pkts, max_cycles=60 * n + 20 * FAR + 5000)
                if op == XlOp.READ:
                    bpc, span = _rate(h.tx_last_cycle, [lbytes] * n, skip)
                else:
                    bpc, span = _rate(h.rx_hdr_cycle, [lbytes] * n, skip)
                lat = h.latencies()
                res[f"{d}.{size}.{stream}"] = {
                    "bytes_per_cycle": bpc, "fraction": bpc / rate, "span_cycles": span,
                    "requests": n, "measured": n - skip - 1,
                    "hits": int(dut.stat_hit.value) - hit0, "stat_miss": int(dut.stat_miss.value),
                    "mean_latency": sum(lat[skip:]) / len(lat[skip:]), "max_latency": max(lat)}
    tag = os.environ.get("XB_TAG", "")
    (out / f"linkrate_{cfg.flavor}_far{FAR}{'_' + tag if tag else ''}.json").write_text(json.dumps(res))
