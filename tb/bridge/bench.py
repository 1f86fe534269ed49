"""`make bench` figures of the XLink-CXL bridge (issue 5), measured on xbridge_core in simulation.

bench() builds six configurations (UALink with/without the HBM buffer, NVLink with it, and the BIG
UALink variants), runs tb/bridge/tb_bench.py and returns:
* bridge.miss_conversion_latency_cycles: XLink 64 B read in -> response out, minus the far side's
  time (fixed FAR cycles in the CXL memory), header-table miss, cache miss.
* bridge.hdr_table_saving_cycles: the same with the pre-converted header found in the table.
* bridge.hit_latency_cycles: 64 B read answered from the hot-line cache (HBM timing included).
* bridge.throughput_bytes_per_cycle.*: XLink wire bytes per cycle for back-to-back 256 B requests:
  UALink in 640 B DL flits (9 TL slots each), NVLink in 272 B packets; with the link rates of
  targets.md at 1 GHz (UALink 100 B/cycle per x4 port, NVLink 50 B/cycle per link) and the
  datapath limit (one 64 B beat per cycle: 640/9 and 272/5 wire bytes) for comparison.
  Plain keys: a near-ideal far side (FAR_FAST cycles), 1000 requests each way (~5-7k cycles): a
  burst shorter than the HBM's refresh postponement allowance (REF_POSTPONE x tREFI = 31 us), so
  refreshes wait for idle time. ".sustained" keys: the stream kept up until refreshes are forced
  (postponement used up), measured over SUS_WINDOW cycles of that steady state. ".far284" keys:
  far side at 284 cycles: bounded by outstanding capacity (NROB requests, WB_DEPTH posted lines).
  BIG keys (".nrob16_wb32", ".nrob16_wb32_pc8", ".nrob64_wb32_pc8"): more outstanding requests /
  posted lines and 8 HBM pseudo-channels (a quarter of an HBM3 stack) instead of 2.
* bridge.hbm_hit_rate.* and bridge.latency_saved_cycles.*: tensor (reuse-heavy) and streaming
  traces, buffer on vs off (negative saved = the buffer made it worse).
* bridge.link_fraction.<ualink|nvlink>.<rd|wr>: the line-rate configuration (LINE_RATE, sized by
  models.bridge.lanes.size_for: two line lanes, 2-beat XLink port, reorder buffer / write buffer
  sized by Little's law for the FAR-cycle far side) moving request streams at saturation, far
  side FAR cycles: fraction of the link rate (targets.md) in the data direction, worst over 64 B
  and 256 B requests and hit / miss streams; each case under
  bridge.link_fraction.<flavour>.<rd|wr>.<size>.<hit|miss>, its bytes per cycle under
  bridge.link_bytes_per_cycle.*, its mean loaded latency under bridge.link_latency_cycles.*;
  bridge.lr.* the line-rate configuration's isolated latencies; bridge.link_fraction_sustained.*
  the HBM-bound case (UALink 256 B hits, near-ideal far side) once refreshes are forced.
"""
from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from models.bridge import NVLINK, UALINK
from models.bridge.lanes import LINK_RATE, size_for
from models.bridge.packets import NV_FLIT_BYTES, UAL_DL_BYTES, UAL_DL_SLOTS
from tb.bridge.env import TbConfig
from tb.bridge.tb_bench import SUS_WINDOW
from tools.runner import REPO, rtl_sources, run_cocotb

SOURCES = ("bridge/xbridge_core.v", "bridge/xb_lane.v", "bridge/xb_hbm_ctrl.v",
           "common/sync_fifo.v", "common/skid_buffer.v")
BENCH_SETS = 256                               # hot-line cache lines for the measurements (16 KB)
BENCH_INFLIGHT = 32                            # HBM accesses in flight: ~ latency x 2 pseudo-channels
FAR = 284                                      # far-side read latency, CAL-CXL-ASIC in targets.md
FAR_FAST = 8                                   # a near-ideal far side: exposes the datapath limit
# wire bytes per 64 B beat: UALink one TL slot's share of a 640 B DL flit, NVLink a 272 B packet
# is 5 beats (header + 4 data)
WIRE = {UALINK: UAL_DL_BYTES / UAL_DL_SLOTS, NVLINK: 17 * NV_FLIT_BYTES / 5}
# larger outstanding capacity (NROB requests, WB_DEPTH posted lines) and HBM pseudo-channels (NPC)
BIG = {"nrob16_wb32": {"nrob": 16, "wb_depth": 32},
       "nrob16_wb32_pc8": {"nrob": 16, "wb_depth": 32, "npc": 8},
       "nrob64_wb32_pc8": {"nrob": 64, "wb_depth": 32, "npc": 8}}


def line_rate_config(flavor: str) -> TbConfig:
    """The line-rate configuration: models.bridge.lanes.size_for (both flavours, 64 and 256 B, far
    side FAR) and a hot-line cache of 1024 lines (64 KB; the hit streams use half of it)."""
    sz = size_for(far=FAR)
    return TbConfig(flavor=flavor, buf_en=1, sets=1024, wq_depth=8, lq_depth=4, **sz.params())


def _run(cfg: TbConfig, tests: list[str], out: Path, far: int = FAR, tag: str = "") -> None:
    cfg = replace(cfg, bridge=replace(cfg.bridge, flavor=cfg.flavor))
    # throughput_sustained watches the HBM controller's forced-refresh flag inside the lane: the
    # design must be public for it (the runner makes only the top level public), a build of its own
    pub = "throughput_sustained" in tests
    run_cocotb(top="xbridge_core", sources=rtl_sources(*SOURCES), test_module="tb.bridge.tb_bench",
               parameters=cfg.params(),
               name=f"xbridge_bench_{cfg.flavor}_{cfg.buf_en}{tag}" + ("_pub" if pub else ""),
               testcase=tests, seed=1,
               build_args=("--output-split", "0", *(("--public-flat-rw",) if pub else ())),
               extra_env={"XB_CFG": cfg.to_json(), "XB_BENCH_OUT": str(out), "XB_FAR": str(far),
                          "XB_TAG": tag})


def bench(line_rate_only: bool = False) -> dict[str, float]:
    """Every bridge figure; with `line_rate_only` only the line-rate configuration's
    (bridge.link_fraction*, bridge.link_*, bridge.lr.*: three of the twelve builds)."""
    # cocotb's runner hands sys.path to the simulator as PYTHONPATH; under `python -c` its first
    # entry is '' (the simulator's own directory), so the repo root must be there explicitly
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    with tempfile.TemporaryDirectory() as td:
        out = Path(td)
        if not line_rate_only:
            _run_other(out)
        _run_line_rate(out)
        r = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}
    res: dict[str, float] = {}
    if not line_rate_only:
        _other_figures(r, res)
    _line_rate_figures(r, res)
    return res


def _run_other(out: Path) -> None:
    """Every configuration but the line-rate one."""
    ual = TbConfig(flavor=UALINK, buf_en=1, sets=BENCH_SETS, hbm_inflight=BENCH_INFLIGHT)
    nv = TbConfig(flavor=NVLINK, buf_en=1, sets=BENCH_SETS, hbm_inflight=BENCH_INFLIGHT)
    _run(ual, ["latency", "throughput", "traces"], out)
    _run(ual, ["throughput", "throughput_sustained"], out, far=FAR_FAST)
    _run(TbConfig(flavor=UALINK, buf_en=0, sets=BENCH_SETS, hbm_inflight=BENCH_INFLIGHT),
         ["latency", "traces"], out)
    _run(nv, ["throughput"], out)
    _run(nv, ["throughput", "throughput_sustained"], out, far=FAR_FAST)
    for tag, cfg in BIG.items():
        _run(replace(ual, **cfg), ["throughput", "throughput_sustained"], out, far=FAR_FAST, tag=tag)


def _put(res: dict[str, float], key: str, t: dict, fl: str) -> None:
    """Wire bytes per cycle of a throughput result `t` in both directions."""
    for d in ("wr", "rd"):
        res[f"bridge.throughput_bytes_per_cycle{key}{fl}_{d}"] = t[f"{d}_beats_per_cycle"] * WIRE[fl]


def _other_figures(r: dict, res: dict[str, float]) -> None:
    """The figures of every configuration but the line-rate one, from their results `r`."""
    lb, ln = r["latency_buf1_ualink"], r["latency_buf0_ualink"]
    res.update({
        "bridge.miss_conversion_latency_cycles": ln["miss_conversion_latency_cycles"],
        "bridge.miss_conversion_latency_ht_hit_cycles": ln["miss_conversion_latency_ht_hit_cycles"],
        "bridge.hdr_table_saving_cycles": ln["hdr_table_saving_cycles"],
        "bridge.miss_conversion_latency_cycles_buf_on": lb["miss_conversion_latency_cycles"],
        "bridge.hit_latency_cycles": lb["hit_latency_cycles"],
        "bridge.far_side_cycles": float(lb["far_cycles"]),
    })
    for fl in (UALINK, NVLINK):
        _put(res, ".", r[f"throughput_buf1_{fl}_far{FAR_FAST}"], fl)
        _put(res, ".far284.", r[f"throughput_buf1_{fl}_far{FAR}"], fl)
        sus = r[f"sustained_buf1_{fl}_far{FAR_FAST}"]
        _put(res, ".sustained.", sus, fl)
        for d in ("wr", "rd"):
            res[f"bridge.refresh_forced_per_kcycle.sustained.{fl}_{d}"] = \
                1000 * sus[f"{d}_forced_in_window"] / SUS_WINDOW
    for tag in BIG:
        _put(res, f".{tag}.", r[f"throughput_buf1_ualink_far{FAR_FAST}_{tag}"], UALINK)
        _put(res, f".sustained.{tag}.", r[f"sustained_buf1_ualink_far{FAR_FAST}_{tag}"], UALINK)
    for name in ("", ".sustained"):
        res[f"bridge.throughput_bytes_per_cycle{name.replace('.', '_')}"] = min(
            res[f"bridge.throughput_bytes_per_cycle{name}.ualink_wr"],
            res[f"bridge.throughput_bytes_per_cycle{name}.ualink_rd"])
    for fl in (UALINK, NVLINK):
        res[f"bridge.datapath_limit_bytes_per_cycle.{fl}"] = WIRE[fl]   # one 64 B beat per cycle
        res[f"bridge.link_rate_bytes_per_cycle.{fl}"] = LINK_RATE[fl]
        for name in ("", ".sustained"):
            res[f"bridge.throughput_vs_link{name}.{fl}"] = min(
                res[f"bridge.throughput_bytes_per_cycle{name}.{fl}_wr"],
                res[f"bridge.throughput_bytes_per_cycle{name}.{fl}_rd"]) / LINK_RATE[fl]
    on, off = r["traces_buf1_ualink"], r["traces_buf0_ualink"]
    for t in ("tensor", "stream"):
        res[f"bridge.hbm_hit_rate.{t}"] = on[t]["hit_rate"]
        res[f"bridge.mean_read_latency_cycles.{t}.buf_on"] = on[t]["mean_read_latency"]
        res[f"bridge.mean_read_latency_cycles.{t}.buf_off"] = off[t]["mean_read_latency"]
        res[f"bridge.latency_saved_cycles.{t}"] = off[t]["mean_read_latency"] - on[t]["mean_read_latency"]
    res["bridge.hbm_hit_rate"] = res["bridge.hbm_hit_rate.tensor"]


def _run_line_rate(out: Path) -> None:
    for fl in (UALINK, NVLINK):
        _run(line_rate_config(fl), ["latency", "link_rate"], out, tag="lr")
    # the HBM-bound case (UALink 256 B hits) with refreshes forced
    _run(line_rate_config(UALINK), ["throughput_sustained"], out, far=FAR_FAST, tag="lr")


def _line_rate_figures(r: dict, res: dict[str, float]) -> None:
    """The line-rate configuration's figures from its runs' results `r`, into `res`."""
    sz = size_for(far=FAR)
    for k, v in sz.params().items():
        res[f"bridge.lr.param.{k}"] = float(v)
    for fl in (UALINK, NVLINK):
        lr = r[f"linkrate_{fl}_far{FAR}_lr"]
        for d in ("rd", "wr"):
            cases = {k: v for k, v in lr.items() if k.startswith(d + ".")}
            res[f"bridge.link_fraction.{fl}.{d}"] = min(c["fraction"] for c in cases.values())
            for k, c in cases.items():
                res[f"bridge.link_fraction.{fl}.{k}"] = c["fraction"]
                res[f"bridge.link_bytes_per_cycle.{fl}.{k}"] = c["bytes_per_cycle"]
                res[f"bridge.link_latency_cycles.{fl}.{k}"] = c["mean_latency"]
        if fl == UALINK:
            _put(res, ".sustained.lr.", r[f"sustained_buf1_ualink_far{FAR_FAST}_lr"], UALINK)
            for d in ("wr", "rd"):
                res[f"bridge.link_fraction_sustained.ualink.{d}.256.hit"] = \
                    res[f"bridge.throughput_bytes_per_cycle.sustained.lr.ualink_{d}"] / LINK_RATE[UALINK]
        lat = r[f"latency_buf1_{fl}_lr"]
        res[f"bridge.lr.miss_conversion_latency_cycles.{fl}"] = lat["miss_conversion_latency_cycles"]
        res[f"bridge.lr.hit_latency_cycles.{fl}"] = lat["hit_latency_cycles"]


if __name__ == "__main__":
    for k, v in bench(line_rate_only="--line-rate" in sys.argv[1:]).items():
        print(f"{k:55s} {v:10.3f}")
