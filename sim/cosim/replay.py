"""Replay one saved stream (sim.cosim.trace, .npz) into the RTL and into the models, and compare.

    python -m sim.cosim.run --requests 20000 --save-trace results/cosim/trace.npz
    python -m sim.cosim.run --replay results/cosim/trace.npz [--links 1] [--set mode=...]

RTL: the bulk harness plays the stream at its recorded arrival times (gaps) and reads back every
response (data version, bridge line kind, time stamps).
Models, fed the same stream in each bridge's program order:
- the bridge reference model (models.bridge.BridgeRef, one per bridge, one shared line memory):
  the data every read returns when requests are taken one at a time, and which reads its hot-line
  cache answers. Non-coherent lines belong to one bridge, so their data must match the RTL exactly;
  coherent lines are shared, and there the RTL may return a concurrent write (the reference
  memory's ordering rules decide, sim.cosim.check). Hit/miss agrees exactly only when requests do
  not overlap (BridgeRef's own caveat): the agreement is reported, not asserted.
- the load curves (results/cosim/load_curve.csv, when present): the p50 latency each path would
  show at the stream's offered load, next to the RTL's.
The comparison goes to `<out>/replay.json` and the console.
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from models.bridge.convert import BridgeConfig
from models.bridge.packets import NVLINK, UALINK, Packet, XlHeader, XlOp, len_field_for
from models.bridge.buffer import BridgeRef
from sim.cosim.knobs import CosimCfg
from sim.cosim.stream import LINE, Window
from sim.cosim.trace import Trace

DATA_TAG = 0x3C0DE
WORD_MAGIC = 0xA
BR_SETS = 64                      # sp_rack_edge's bridge hot-line cache (BR_SETS)


def write_words(b: int, seq: int, line: int) -> bytes:
    """The data hil_port sends with write `seq` of bridge `b` to window line `line`."""
    words = [(WORD_MAGIC << 60) | (k << 57) | (b << 54) | ((seq & (2**30 - 1)) << 24) | (line & 0xFFFFFF)
             for k in range(8)]
    return b"".join(w.to_bytes(8, "little") for w in words)


def image(hpa_line: int) -> bytes:
    w = (DATA_TAG << 46) | hpa_line
    return w.to_bytes(8, "little") * 8


def version_of(data: bytes) -> tuple[int, int] | None:
    """(bridge, seq) of a written line's data, None for an unwritten image."""
    w0 = int.from_bytes(data[:8], "little")
    if w0 >> 60 == WORD_MAGIC:
        return (w0 >> 54) & 3, (w0 >> 24) & (2**30 - 1)
    return None


def model_replay(tr: Trace, win: Window = Window()) -> dict[int, dict[str, np.ndarray]]:
    """Per bridge: expected version (bridge, seq or -1 = image) of every read, and the model's hit flag."""
    shared: dict[int, bytes] = {}
    refs = {}
    for b in tr.bridges():
        fl = UALINK if b == 0 else NVLINK
        refs[b] = BridgeRef(BridgeConfig(flavor=fl, win_base=win.win_base, win_size=win.win_size,
                                         hpa_base=win.hpa_base, coh_off=win.coh_off, coh_size=win.coh_size),
                            default=image, mem=shared, sets=BR_SETS, write_alloc=True)
    out = {}
    # interleave the bridges by arrival time, as the RTL sees them (ties: bridge order)
    order = []
    for b in tr.bridges():
        s = tr.of(b)
        t = np.cumsum(s["gap"].astype(np.int64))
        order += [(int(t[i]), b, i) for i in range(len(t))]
        out[b] = {"ver_b": np.full(len(t), -1, np.int64), "ver_seq": np.full(len(t), -1, np.int64),
                  "hit": np.zeros(len(t), bool)}
    order.sort()
    cols = {b: tr.of(b) for b in tr.bridges()}
    for _, b, i in order:
        s = cols[b]
        fl = UALINK if b == 0 else NVLINK
        line = int(s["line"][i])
        addr = win.win_base + line * LINE
        if s["write"][i]:
            pkt = Packet(XlHeader(int(XlOp.WRITE), i % 1024, b, len_field_for(fl, LINE), addr),
                         (write_words(b, i, line),))
            refs[b].process(pkt)
        else:
            rsp, _, local = refs[b].process(Packet(XlHeader(int(XlOp.READ), i % 1024, b, len_field_for(fl, LINE), addr)))
            v = version_of(rsp.lines[0])
            if v is not None:
                out[b]["ver_b"][i], out[b]["ver_seq"][i] = v
            out[b]["hit"][i] = bool(local and local[0])
    return out


def compare(tr: Trace, rec: dict[int, dict[str, np.ndarray]], model: dict[int, dict[str, np.ndarray]]) -> dict:
    c = {"reads": 0, "noncoherent_reads": 0, "noncoherent_data_agree": 0, "coherent_reads": 0,
         "coherent_data_agree": 0, "model_hits": 0, "rtl_hits": 0, "hit_agree": 0}
    for b in tr.bridges():
        s, r, m = tr.of(b), rec[b], model[b]
        rd = ~s["write"]
        rtl_b = np.where(r["image"], -1, r["ver_b"].astype(np.int64))
        rtl_s = np.where(r["image"], -1, r["ver_seq"].astype(np.int64))
        same = (rtl_b == m["ver_b"]) & ((rtl_s == (m["ver_seq"] & (2**24 - 1))) | (m["ver_seq"] < 0))
        coh = s["coherent"]
        c["reads"] += int(rd.sum())
        c["noncoherent_reads"] += int((rd & ~coh).sum())
        c["noncoherent_data_agree"] += int((rd & ~coh & same).sum())
        c["coherent_reads"] += int((rd & coh).sum())
        c["coherent_data_agree"] += int((rd & coh & same).sum())
        rtl_hit = r["kind"] == 1
        c["model_hits"] += int((rd & m["hit"]).sum())
        c["rtl_hits"] += int((rd & rtl_hit).sum())
        c["hit_agree"] += int((rd & ~coh & (rtl_hit == m["hit"])).sum())
    return c


def curve_prediction(out_dir: Path, load: float, paths: list[str], top: str) -> dict[str, float]:
    """p50 at `load` for each path from a load-curve CSV next to the output, if there is one."""
    import csv
    f = out_dir / "load_curve.csv"
    if not f.exists():
        return {}
    rows = [r for r in csv.DictReader(open(f, newline="")) if r["top"] == top]
    pred = {}
    for p in paths:
        pr = sorted((r for r in rows if r["path"] == p), key=lambda r: float(r["offered_per_bridge"]))
        if pr:
            x = [float(r["offered_per_bridge"]) for r in pr]
            y = [float(r["p50"]) for r in pr]
            pred[p] = float(np.interp(load, x, y))
    return pred


def replay_main(args, cfg: CosimCfg) -> int:
    from sim.cosim.hilrun import RunSpec, run_plan
    tr = Trace.load(args.replay)
    nbr = len(tr.bridges())
    cfg = replace(cfg, nbr=nbr, load=float(tr.meta.get("load", cfg.load)))
    plan = run_plan([RunSpec("replay", cfg, tr)], links=args.links or 0, casc_flit=1 if args.casc_flit == 256 else 0,
                    opt=args.opt, progress=not args.no_progress, seed=args.seed)
    r = plan.runs[0]
    from sim.cosim.run import print_run
    print_run(r, plan)
    import time
    t0 = time.perf_counter()
    model = model_replay(tr)
    cmp_ = compare(tr, r.records, model) if r.records else {}
    model_s = time.perf_counter() - t0
    top = "flit" if args.links else "message"
    pred = curve_prediction(args.out, cfg.load, sorted(r.paths), top)
    rows = {p: {"rtl_p50": s["p50"], "rtl_p99": s["p99"], "n": s["n"], "curve_p50": pred.get(p)}
            for p, s in r.paths.items()}
    print(f"   models ({model_s:.1f} s): {json.dumps(cmp_)}")
    for p, v in sorted(rows.items()):
        cp = "-" if v["curve_p50"] is None else f"{v['curve_p50']:.0f}"
        print(f"   {p:<15} RTL p50 {v['rtl_p50']:6.0f}  load-curve p50 at {cfg.load:g}: {cp}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "replay.json").write_text(json.dumps({"trace": str(args.replay), "requests": len(tr),
                                                      "compare": cmp_, "paths": rows, "errors": r.errors[:50]},
                                                     indent=1) + "\n")
    nc_ok = cmp_.get("noncoherent_data_agree") == cmp_.get("noncoherent_reads")
    return 1 if r.errors or not nc_ok else 0
