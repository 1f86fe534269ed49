"""Parameter limits of rtl/common, rtl/link, rtl/switch, rtl/edge and the bridge's cache-tag select stop elaboration and name the rule
(the `<module>_parameter_error_<rule>` idiom, rtl/common/README.md), also under -Wno-fatal as the
simulation builds run. Legal values next to each limit elaborate (the defaults: `make lint`)."""
from __future__ import annotations

import pytest

from tools.lint import elaborate

# (module, parameter overrides, rule named in the error)
ILLEGAL = [
    ("sync_fifo", {"DEPTH": 1}, "DEPTH_must_be_at_least_2"),
    ("sync_fifo", {"WIDTH": 0}, "WIDTH_must_be_at_least_1"),
    ("fifo_mw", {"W": 65}, "W_must_be_1_to_64"),
    ("fifo_mw", {"DEPTH": 1}, "DEPTH_must_be_at_least_2"),
    ("fifo_bank", {"W": 0}, "W_must_be_1_to_64"),
    ("fifo_bank", {"WIDTH": 0}, "WIDTH_must_be_at_least_1"),
    ("skid_buffer", {"WIDTH": 0}, "WIDTH_must_be_at_least_1"),
    ("rr_arbiter", {"N": 0}, "N_must_be_at_least_1"),
    ("credit_counter", {"WIDTH": 32}, "WIDTH_must_be_1_to_31"),
    ("stat_counter", {"WIDTH": 65}, "WIDTH_must_be_1_to_64"),
    ("ks_adder", {"WIDTH": 0}, "WIDTH_must_be_1_to_64"),
    ("gt_tree", {"WIDTH": 65}, "WIDTH_must_be_1_to_64"),
    ("dn_floor", {"WIDTH": 0}, "WIDTH_must_be_1_to_64"),
    ("stat_counter", {"WIDTH": 4, "AW": 5}, "AW_must_be_1_to_WIDTH"),
    ("cxl_link", {"REPLAY_DEPTH": 7}, "REPLAY_DEPTH_must_be_8_to_255"),
    ("cxl_link", {"RX_DEPTH": 256}, "RX_DEPTH_must_be_1_to_255"),
    ("cxl_link", {"PBR": 1}, "PBR_needs_FLIT_MODE_1"),
    ("cxl_link", {"MAX_RETRY": 32}, "MAX_RETRY_must_be_1_to_31"),
    ("cxl_link", {"FLIT_MODE": 1, "FLIT_W": 528}, "FLIT_W_must_be_derived"),
    ("cxl_flit256_rx", {"MAXM": 13}, "MAXM_must_be_1_to_12"),
    ("cxl_flit256_rxq", {"DEPTH": 0}, "DEPTH_must_be_1_to_255"),
    ("cxl_flit256_dec", {"CLS": 6}, "CLS_must_be_0_to_5"),
    ("cxl_flit68_rx", {"MAXM": 5}, "MAXM_must_be_1_to_4"),
    ("cxl_flit68_rx", {"SEQ_CRC": 2}, "SEQ_CRC_must_be_0_or_1"),
    ("cxl_switch_cfg", {"N": 17}, "N_must_be_2_to_16"),
    ("cxl_switch_cfg", {"NDEC": 9}, "NDEC_must_be_1_to_8"),
    ("cxl_switch_cfg", {"NRT": 257}, "NRT_must_be_1_to_256"),
    ("cxl_switch_core", {"VOQ_DEPTH": 1}, "VOQ_DEPTH_must_be_at_least_2"),
    ("cxl_hdm_decode", {"MAXW": 17}, "MAXW_must_be_1_to_16"),
    ("cxl_hdm_decode", {"TW": 11}, "TW_must_be_12_to_16"),
    ("cxl_switch", {"PBR_MASK": 2}, "PBR_MASK_needs_FLIT_MODE_1"),
    ("cxl_switch_lookup", {"NC": 0}, "NC_must_be_at_least_1"),
    ("cxl_switch_lookup", {"FW": 0}, "FW_must_be_at_least_1"),
    ("xb_lane_tg", {"SETS": 3}, "SETS_a_power_of_two_at_least_2_and_TW_at_least_1"),
    ("xb_lane_tg", {"SETS": 1}, "SETS_a_power_of_two_at_least_2_and_TW_at_least_1"),
    ("sp_mem_q", {"DEPTH": 2}, "DEPTH_must_be_at_least_3"),
    ("sp_mem_q", {"WIDTH": 0}, "WIDTH_must_be_at_least_1"),
    ("sp_mem_due", {"DEPTH": 1}, "DEPTH_must_be_at_least_2"),
    ("sp_mem_due", {"TW": 65}, "TW_must_be_2_to_64"),
    ("sp_mem_node", {"AW": 25}, "AW_must_be_1_to_24_and_LAT_W_1_to_31"),
    ("sp_mem_node", {"LAT_W": 32}, "AW_must_be_1_to_24_and_LAT_W_1_to_31"),
    ("sp_hop", {"LINKS": 2}, "LINKS_must_be_0_or_1"),
    ("sp_flit_wire", {"W": 1}, "W_must_be_2_to_4096_and_SEED_nonzero"),
    ("sp_rack_edge", {"NBR": 3}, "NBR_1_to_2_LINKS_and_CASC_FLIT_0_or_1"),
]


@pytest.mark.parametrize("top,params,rule", ILLEGAL,
                         ids=[f"{t}-{'-'.join(f'{k}{v}' for k, v in p.items())}" for t, p, _ in ILLEGAL])
def test_illegal_parameters_are_refused_at_elaboration(top: str, params: dict[str, int], rule: str) -> None:
    rc, out = elaborate(top, params)
    assert rc != 0 and f"{top}_parameter_error_{rule}" in out, out[-800:]


@pytest.mark.parametrize("top,params", [
    ("sync_fifo", {"DEPTH": 2}), ("fifo_bank", {"W": 64, "DEPTH": 64}), ("credit_counter", {"WIDTH": 31}),
    ("stat_counter", {"WIDTH": 64, "AW": 64}), ("stat_counter", {"WIDTH": 1}),
    ("ks_adder", {"WIDTH": 64}), ("ks_adder", {"WIDTH": 1}),
    ("gt_tree", {"WIDTH": 64}), ("gt_tree", {"WIDTH": 1}), ("dn_floor", {"WIDTH": 64}), ("dn_floor", {"WIDTH": 1}),
    ("cxl_flit256_rxq", {"DEPTH": 255}), ("cxl_switch_cfg", {"N": 16, "NDEC": 8, "NRT": 256}),
    ("cxl_switch_lookup", {"NC": 1, "FW": 1}), ("xb_lane_tg", {"SETS": 2}), ("sp_mem_q", {"DEPTH": 3}),
    ("sp_mem_due", {"DEPTH": 2, "TW": 64}), ("sp_mem_node", {"AW": 1}), ("sp_mem_node", {"LAT_W": 31}),
])
def test_limits_themselves_elaborate(top: str, params: dict[str, int]) -> None:
    rc, out = elaborate(top, params)
    assert "_parameter_error_" not in out, out[-800:]
