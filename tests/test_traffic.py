"""Workload generators: file validation, traffic formulas, access-pattern distributions."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from sim.system.config import ConfigError
from sim.traffic.llm import LLM_YAML, iteration_traffic, load_workload_file, message_stream
from sim.traffic.tiering import access_cdf, harmonic

EXPECTED_MODELS = ["gpt3_175b", "gopher_280b", "llama3_405b", "palm_540b", "mtnlg_530b"]


def _models() -> dict:
    return {w.key: w for w in load_workload_file()}


def _write_variant(tmp_path: Path, edit) -> Path:
    data = yaml.safe_load(LLM_YAML.read_text())
    edit(data)
    p = tmp_path / "bad.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


def test_five_models_with_sources():
    ws = load_workload_file()
    assert [w.key for w in ws] == EXPECTED_MODELS
    data = yaml.safe_load(LLM_YAML.read_text())
    for name, model in data["models"].items():
        for field, leaf in model.items():
            assert leaf["source"].strip(), f"{name}.{field} has no source"


@pytest.mark.parametrize("edit,match", [
    (lambda d: d["models"]["gpt3_175b"]["tp"].update(value="eight"), r"workload\.models\.gpt3_175b\.tp: expected a positive integer"),
    (lambda d: d["models"]["gpt3_175b"]["dp"].update(value=15), r"workload\.models\.gpt3_175b\.gpus: tp\*pp\*dp = 1440"),
    (lambda d: d["models"]["palm_540b"]["global_batch"].update(value=2047), r"palm_540b\.global_batch: 2047 is not a multiple"),
    (lambda d: d["models"]["llama3_405b"]["tp"].pop("source"), r"models\.llama3_405b\.tp: missing 'source'"),
    (lambda d: d["models"]["gopher_280b"].update(tpp={"value": 3, "source": "x"}), r"gopher_280b\.tpp: unknown field"),
    (lambda d: d["models"]["mtnlg_530b"].pop("layers"), r"mtnlg_530b\.layers: required field is missing"),
    (lambda d: d["models"]["gpt3_175b"]["recompute"].update(value="yes"), r"gpt3_175b\.recompute: expected true or false"),
    (lambda d: d["common"]["bytes_per_element"].update(value=0), r"common\.bytes_per_element: expected a positive integer"),
])
def test_bad_workload_file_names_field(tmp_path, edit, match):
    with pytest.raises(ConfigError, match=match):
        load_workload_file(_write_variant(tmp_path, edit))


def test_not_yaml_and_missing_file(tmp_path):
    bad = tmp_path / "x.yaml"
    bad.write_text("models: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_workload_file(bad)
    with pytest.raises(ConfigError, match="file not found"):
        load_workload_file(tmp_path / "missing.yaml")


def test_gpt3_traffic_by_hand():
    tr = iteration_traffic(_models()["gpt3_175b"])
    psi = 174.6e9
    assert tr.tp_allreduce_bytes == 2048 * 1 * 12288 * 2                 # s*b*h*r
    assert tr.tp_allreduces == 2 * 3 * 8                                 # 2 syncs x 3 passes x 8 layers/stage
    assert tr.pp_p2p_bytes == 2048 * 12288 / 8 * 2                       # s*b*h/t*r
    assert tr.pp_p2p_per_microbatch == 2
    assert tr.dp_allreduce_bytes == pytest.approx(psi / 96 * 2)
    assert tr.offload_weight_bytes == pytest.approx(3 * 2 * psi / 96)      # fwd, bwd, recompute loads
    assert tr.offload_grad_bytes == pytest.approx(2 * psi / 96)
    assert tr.offload_optimizer_bytes == pytest.approx(32 * psi / 96)      # ZeRO stage 0: not sharded
    assert tr.flops_fwd_per_microbatch == pytest.approx(2 * 2048 * psi * 8 / 96 / 8)


def test_sharding_and_no_recompute_by_hand():
    m = _models()
    ll = iteration_traffic(m["llama3_405b"])     # ZeRO-2-like, no recompute
    shard = 405e9 / (8 * 16)
    assert ll.offload_weight_bytes == pytest.approx(2 * 2 * shard)
    assert ll.offload_grad_bytes == pytest.approx(2 * shard / 128)
    assert ll.offload_optimizer_bytes == pytest.approx(32 * shard / 128)
    assert ll.tp_allreduces == 2 * 2 * 8                                   # ceil(126/16) = 8 layers
    palm = iteration_traffic(m["palm_540b"])     # ZeRO-3: 3 Psi, no PP
    assert palm.dp_allreduce_bytes == pytest.approx(540.35e9 / 12 * 2 * 1.5)
    assert palm.pp_p2p_bytes == 0 and palm.pp_p2p_per_microbatch == 0
    assert m["palm_540b"].microbatches == 1 and m["gpt3_175b"].microbatches == 96


def test_harmonic_matches_direct_sum():
    for alpha in (0.5, 0.99, 1.0, 1.3):
        for n in (1, 7, 63, 64, 1000, 123457):
            exact = np.sum(np.arange(1, n + 1, dtype=float) ** -alpha)
            assert harmonic(np.array([n]), alpha)[0] == pytest.approx(exact, rel=1e-6)


def test_access_cdf_patterns():
    ws = 64 * 1000.0
    x = np.array([0.0, 64 * 10, 64 * 500, ws, 2 * ws])
    assert np.allclose(access_cdf("uniform", x, ws), [0, 0.01, 0.5, 1, 1])
    assert np.allclose(access_cdf("streaming", x, ws), access_cdf("uniform", x, ws))
    z = access_cdf("zipf", x, ws, alpha=0.99, granule=64)
    ranks = np.arange(1, 1001, dtype=float) ** -0.99
    assert z[1] == pytest.approx(ranks[:10].sum() / ranks.sum(), rel=1e-6)
    assert z[0] == 0 and z[3] == pytest.approx(1.0)
    assert np.all(z >= access_cdf("uniform", x, ws) - 1e-12)   # a hot set is hotter than uniform
    with pytest.raises(ValueError, match="unknown access pattern"):
        access_cdf("gaussian", x, ws)


def test_message_stream_reproducible():
    seed = 1234
    print(f"seed={seed}")
    tr = iteration_traffic(_models()["gpt3_175b"])
    a, b = message_stream(tr, 20000, seed), message_stream(tr, 20000, seed)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, message_stream(tr, 20000, seed + 1))
    # the sampled class mix follows the byte mix (optimizer reads are 16/ (all) of the bytes)
    total = tr.pp_p2p_bytes * 2 + tr.dp_allreduce_bytes + tr.offload_weight_bytes + tr.offload_grad_bytes + tr.offload_optimizer_bytes
    share = np.mean(a["kind"] == "opt_rd")
    assert share == pytest.approx(tr.offload_optimizer_bytes / 2 / total, abs=0.02)
    assert set(np.unique(a["cxl_msg"])) <= {"m2s_req", "m2s_rwd"}
    assert np.all(a["addr"] % 64 == 0)
