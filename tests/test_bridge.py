"""Bridge RTL regression: xbridge_core against models.bridge through the pyuvm bench."""
from __future__ import annotations

import json
import re
import subprocess
from dataclasses import replace

import pytest

from models.bridge import NVLINK, UALINK, BridgeConfig
from tb.bridge.env import TbConfig
from tb.bridge.tb_hbm import HbmTbCfg
from tools.runner import INCLUDE, REPO, RTL, rtl_sources, run_cocotb, setup_verilator_env

CORE_SOURCES = ("bridge/xbridge_core.v", "bridge/xb_lane.v", "bridge/xb_hbm_ctrl.v",
                "common/sync_fifo.v", "common/skid_buffer.v")

# illegal parameters are refused at elaboration (a missing module named after the rule)
BUILD_ARGS: tuple[str, ...] = ()

# Directly on the core: NVLink with the buffer (no write-allocate) on two line lanes and a 2-beat
# XLink port, and NVLink without the buffer on the original one-lane, one-beat interface (every
# partial write reads its line over CXL.mem: the read-modify-write count is exact there).
# UALink with the buffer runs through the CXL link layer (test_bridge_through_cxl_link).
# TAG_BASE just below a carry on both, so that the 16-bit CXL.mem tags carry through every bit
# within a run: nv_buf 0xFFF8 (line tags wrap past 0xFFFF after slot 7, write-buffer tags
# TAG_BASE + 0x8000 + entry cross 0x8000), nv_nobuf 0x7FFC (line tags cross 0x8000 after slot 3).
# nv_nobuf and the UALink top translate a 2^51-byte window (XLink addresses 2^50 .. 3 x 2^50, so
# address bits 50 and 51 change inside the window) to HPAs that carry through bit 51 (nv_nobuf) or
# start at 0 (top): the translation is checked over the full 52-bit address width. nv_nobuf's
# coherent sub-range is window offsets 2^49 .. 3 x 2^49 (HPAs 2^51 .. 3 x 2^50), so the D2H
# requests' line address changes in every bit up to HPA bit 50 as well.
# nv_buf refreshes its HBM on the plain schedule (REF_POSTPONE=0: forced refresh cycles block HBM
# accesses), the UALink top postpones them (default 8) and refreshes when idle.
WIDE = BridgeConfig(win_base=1 << 50, win_size=1 << 51)
# ua_edge: the rack edge's bridge parameters (rtl/edge/sp_rack_edge.v: SETS 64, NROB 8, WB_DEPTH 8,
# write-allocate, UALink on bridge 0) on the wide window, so that the cache's set-select tree, the
# hazard counters and the line slots the edge builds, which the co-simulation drives only with
# addresses inside its 16 MB window, see every tag and address bit; line tags cross 0x4000.
CONFIGS = {
    "nv_buf": TbConfig(flavor=NVLINK, buf_en=1, wr_alloc=0, ref_postpone=0, tag_base=0xFFF8,
                       lanes=2, xw=2, npc=4),
    "nv_nobuf": TbConfig(flavor=NVLINK, buf_en=0, tag_base=0x7FFC,
                         bridge=replace(WIDE, hpa_base=3 << 49, coh_off=1 << 49, coh_size=1 << 50)),
    "ua_edge": TbConfig(flavor=UALINK, buf_en=1, wr_alloc=1, sets=64, nrob=8, wb_depth=8,
                        tag_base=0x3FE8,
                        bridge=replace(WIDE, hpa_base=5 << 48, coh_off=3 << 48, coh_size=1 << 49)),
}
# through the link layer: two lanes (two CXL links), 2-beat XLink port, the wide window, tags that
# wrap; everything else default
TOP_CONFIG = TbConfig(flavor=UALINK, buf_en=1, lanes=2, xw=2, npc=4, tag_base=0xFFF8,
                      bridge=replace(WIDE, hpa_base=0))
TOP_PARAMS = ("FLAVOR", "LANES", "XW", "NPC", "TAG_BASE", "WIN_BASE", "WIN_SIZE", "HPA_BASE")
# (what tb/bridge/hdl/xbridge_top_tb.v forwards)
TESTS = ["BridgeRandomTest", "BridgeSequentialTest", "BridgeErrorTest", "BridgeWriteBurstTest",
         "BridgeHazardPileUpTest", "BridgeProtocolFaultTest", "BridgeWatchdogSelfTest"]
# through the links: the write bursts and the watchdog self-test run on the core configurations
TOP_TESTS = ["BridgeRandomTest", "BridgeSequentialTest", "BridgeErrorTest", "BridgeProtocolFaultTest"]


def run_core(cfg: TbConfig, name: str, testcase: str | list[str] | None = None) -> None:
    cfg = replace(cfg, bridge=replace(cfg.bridge, flavor=cfg.flavor))
    run_cocotb(top="xbridge_core", sources=rtl_sources(*CORE_SOURCES), test_module="tb.bridge.tb_bridge",
               parameters=cfg.params(), name=f"xbridge_{name}", testcase=testcase,
               extra_env={"XB_CFG": cfg.to_json()}, build_args=BUILD_ARGS)


@pytest.mark.rtl
@pytest.mark.parametrize("name", list(CONFIGS))
def test_bridge_core(name: str) -> None:
    run_core(CONFIGS[name], name, TESTS)


# a write queue and HBM slots smaller than the lane's outstanding lines: a burst of fills must wait
# for the queue (S2M DRS ready low), never be dropped; random traffic on the same small queue
WQ_CONFIG = TbConfig(flavor=UALINK, buf_en=1, wq_depth=2, hbm_inflight=2)


@pytest.mark.rtl
def test_bridge_write_queue_full() -> None:
    run_core(WQ_CONFIG, "ua_wq", ["BridgeFillBackPressureTest", "BridgeRandomTest"])


LINK_SOURCES = ("link/cxl_link.v", "link/cxl_flit68_tx.v", "link/cxl_flit68_txout.v",
                "link/cxl_flit68_rx.v",
                "link/cxl_crc16_68b.v", "link/cxl_flit256_tx.v", "link/cxl_flit256_rx.v",
                "link/cxl_flit256_rx_slot.v",
                "link/cxl_flit256_enc.v", "link/cxl_flit256_dec.v", "link/cxl_crc64_256b.v",
                "common/fifo_mw.v", "common/credit_counter.v", "common/rr_arbiter.v",
                "edge/sp_flit_wire.v", "common/stat_counter.v", "common/ks_adder.v")


def run_top(testcase: list[str]) -> None:
    """`testcase` of tb_bridge on xbridge_top_tb (one build shared by every caller)."""
    cfg = replace(TOP_CONFIG, bridge=replace(TOP_CONFIG.bridge, flavor=TOP_CONFIG.flavor))
    # the wrapper forwards TOP_PARAMS only: the rest of the configuration must be the default
    full, dflt = cfg.params(), replace(TbConfig(), bridge=cfg.bridge).params()
    changed = {k for k in full if full[k] != dflt[k]}
    assert changed <= set(TOP_PARAMS), f"xbridge_top_tb does not forward {changed - set(TOP_PARAMS)}"
    run_cocotb(top="xbridge_top_tb",
               sources=[*rtl_sources(*CORE_SOURCES, *LINK_SOURCES, "bridge/xbridge_top.v",
                                     "bridge/xb_cxl_port.v"),
                        REPO / "tb" / "bridge" / "hdl" / "xbridge_top_tb.v"],
               test_module="tb.bridge.tb_bridge", parameters={k: full[k] for k in TOP_PARAMS},
               name="xbridge_top_tb", testcase=testcase,
               extra_env={"XB_CFG": cfg.to_json(), "XB_TOP": "1"},
               # C++ -O0 (BUILD_ARGS): measured with two tests at once on 2 cores, -O0 162 s for the
               # whole test (36 s of simulation), -O1 170 s (9 s); -O2 took 219 s in CI
               build_args=BUILD_ARGS)


@pytest.mark.rtl
def test_bridge_through_cxl_link() -> None:
    """The same bench through xbridge_top (core + one ROLE_DOWN cxl_link per lane, 68B) and a
    device-side link per lane (tb/bridge/hdl/xbridge_top_tb.v), over perfect flit wires."""
    run_top(TOP_TESTS)


@pytest.mark.rtl
def test_bridge_link_errors() -> None:
    """Random traffic through xbridge_top's links with bit errors and flit stalls on the wires
    (BridgeLinkErrorTest): every response still exactly as the model says, and each link's CRC
    error count equals the flits its wire hit, with retries on both sides."""
    run_top(["BridgeLinkErrorTest"])


@pytest.mark.rtl
@pytest.mark.parametrize("xw", [1, 2])
@pytest.mark.parametrize("top", ["xb_ual_dl_rx", "xb_ual_dl_tx"])
def test_bridge_ual_dl(top: str, xw: int) -> None:
    run_cocotb(top=top, sources=rtl_sources(f"bridge/{top}.v"), test_module="tb.bridge.tb_ual_dl",
               testcase=["dl_rx_random" if top.endswith("rx") else "dl_tx_random", "dl_rate"],
               parameters={"XW": xw}, build_args=BUILD_ARGS)


# xb_hbm_ctrl alone, cycle-exact against models.bridge.HbmModel: short refresh interval so that
# refreshes run idle and forced (postponement exhausted) within a few thousand cycles.
HBM_CONFIGS = {
    "postpone1": HbmTbCfg(),
    "postpone0_pc4": HbmTbCfg(npc=4, nbank=2, row_lines=2, inflight=16, postpone=0, t_rfc=60),
}


@pytest.mark.rtl
@pytest.mark.parametrize("name", list(HBM_CONFIGS))
def test_bridge_hbm_ctrl(name: str) -> None:
    cfg = HBM_CONFIGS[name]
    run_cocotb(top="xb_hbm_ctrl", sources=rtl_sources("bridge/xb_hbm_ctrl.v"),
               test_module="tb.bridge.tb_hbm", parameters=cfg.params(), name=f"xb_hbm_{name}",
               extra_env={"XB_HBM": json.dumps(cfg.__dict__)}, build_args=BUILD_ARGS)


# ------------------------------------------------------------------ elaboration-time checks
def _elaborate(top: str, params: dict[str, int]) -> subprocess.CompletedProcess:
    setup_verilator_env()
    cmd = ["verilator", "--lint-only", "-Wno-fatal", f"-I{INCLUDE}",
           "-y", str(RTL / "bridge"), "-y", str(RTL / "common"), "-y", str(RTL / "link"),
           "--top-module", top, *[f"-G{k}={v}" for k, v in params.items()],
           str(RTL / "bridge" / f"{top}.v")]
    return subprocess.run(cmd, capture_output=True, text=True)


ILLEGAL = [
    ("xbridge_core", {"NROB": 3}), ("xbridge_core", {"LANES": 3}), ("xbridge_core", {"XW": 4}),
    ("xbridge_core", {"LANES": 2, "NPC": 2}), ("xbridge_core", {"SETS": 12}),
    ("xbridge_core", {"WB_DEPTH": 6}), ("xbridge_core", {"NLINE": 8192}),
    ("xbridge_core", {"HT_ENTRIES": 1}), ("xbridge_core", {"FLAVOR": 2}),
    ("xb_hbm_ctrl", {"NPC": 3}), ("xb_hbm_ctrl", {"T_REFI": 40}), ("xb_hbm_ctrl", {"INFLIGHT": 1}),
    ("xb_hbm_ctrl", {"T_RFC": 4000}), ("xb_hbm_ctrl", {"T_BURST": 1}), ("xb_hbm_ctrl", {"T_CL": 1, "T_BURST": 2}),
    ("xb_lane", {"LANES": 2, "NLL": 4}), ("xb_cxl_port", {"FLIT_MODE": 2}),
    ("xb_ual_dl_rx", {"XW": 3}), ("xb_ual_dl_tx", {"XW": 0}),
]


@pytest.mark.parametrize("top,params", ILLEGAL, ids=[f"{t}-{'-'.join(f'{k}{v}' for k, v in p.items())}"
                                                     for t, p in ILLEGAL])
def test_bridge_illegal_params_refused(top: str, params: dict[str, int]) -> None:
    r = _elaborate(top, params)
    assert r.returncode != 0 and f"{top}_parameter_error_" in r.stderr + r.stdout, \
        f"{top} {params} elaborated: {r.stdout[-400:]} {r.stderr[-400:]}"


@pytest.mark.parametrize("top,params", [("xbridge_core", {}), ("xbridge_core", {"LANES": 2, "XW": 2, "NPC": 4}),
                                        ("xb_hbm_ctrl", {}), ("xb_lane", {})])
def test_bridge_legal_params_elaborate(top: str, params: dict[str, int]) -> None:
    r = _elaborate(top, params)
    assert r.returncode == 0, r.stderr[-2000:]


def test_bridge_tb_defaults_match_rtl() -> None:
    """TbConfig()'s parameters are xbridge_core's defaults (a cut wrapper relies on it)."""
    text = (RTL / "bridge" / "xbridge_core.v").read_text()
    rtl = {}
    for name, val in re.findall(r"parameter\s+(?:integer|\[\d+:0\])\s+(\w+)\s*=\s*([^,/\n]+)", text):
        val = val.strip()
        m = re.fullmatch(r"(\d+)'h([0-9a-fA-F_]+)", val)
        if m:
            rtl[name] = int(m.group(2).replace("_", ""), 16)
        elif val.isdigit():
            rtl[name] = int(val)
    tb = TbConfig().params()
    for k, v in tb.items():
        if k in rtl:
            got = int(v[4:], 16) if isinstance(v, str) else v
            assert got == rtl[k], f"{k}: TbConfig {got}, RTL default {rtl[k]}"
    assert {"NROB", "SETS", "LANES", "XW", "T_REFI", "WIN_BASE"} <= rtl.keys()
