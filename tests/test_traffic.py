"""Workload generators: file validation, traffic formulas, access-pattern distributions."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from sim.config import ConfigError
from sim.traffic.llm import LLM_YAML, iteration_traffic, layer_ops, load_workload_file, message_stream, stage_params
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

    def leaves(node, path):
        if isinstance(node, dict) and "value" in node:
            yield path, node
        elif isinstance(node, dict):
            for k, v in node.items():
                yield from leaves(v, f"{path}.{k}")
    for name, leaf in leaves(data["models"], "models"):
        assert leaf["source"].strip(), f"{name} has no source"


@pytest.mark.parametrize("edit,match", [
    (lambda d: d["models"]["gpt3_175b"]["layout"]["tp"].update(value="eight"), r"workload\.models\.gpt3_175b\.layout\.tp: expected an integer >= 1"),
    (lambda d: d["models"]["gpt3_175b"]["layout"]["dp"].update(value=15), r"gpt3_175b\.layout\.global_batch: 1536 is not a multiple of dp x micro_batch = 15"),
    (lambda d: d["models"]["palm_540b"]["layout"]["global_batch"].update(value=2047), r"palm_540b\.layout\.global_batch: 2047 is not a multiple"),
    (lambda d: d["models"]["llama3_405b"]["layout"]["tp"].pop("source"), r"models\.llama3_405b\.layout\.tp: missing 'source'"),
    (lambda d: d["models"]["gopher_280b"]["layout"].update(tpp={"value": 3, "source": "x"}), r"gopher_280b\.layout\.tpp: unknown field"),
    (lambda d: d["models"]["gopher_280b"].update(shape={"value": 3, "source": "x"}), r"gopher_280b\.shape: unknown field"),
    (lambda d: d["models"]["mtnlg_530b"]["model"].pop("layers"), r"mtnlg_530b\.model\.layers: required field is missing"),
    (lambda d: d["models"]["gpt3_175b"]["model"]["gated"].update(value="yes"), r"gpt3_175b\.model\.gated: expected true or false"),
    (lambda d: d["models"]["gpt3_175b"]["model"]["hidden"].update(value=-1), r"gpt3_175b\.model\.hidden: expected an integer >= 1"),
    (lambda d: d["models"]["gpt3_175b"]["layout"]["tp"].update(value=7), r"gpt3_175b\.layout\.tp: heads \(96\) not divisible by tp \(7\)"),
    (lambda d: d["models"]["gpt3_175b"]["model"]["kv_heads"].update(value=5), r"kv_heads: heads 96 is not a multiple of kv_heads 5"),
    (lambda d: d["models"]["gpt3_175b"]["layout"]["pp"].update(value=192), r"gpt3_175b\.layout\.pp: more pipeline stages"),
    (lambda d: d["models"]["gpt3_175b"]["layout"]["zero_stage"].update(value=4), r"zero_stage: expected an integer in \[0, 3\]"),
    (lambda d: d["models"]["gpt3_175b"]["layout"]["offload"]["weights"].update(value=1), r"offload\.weights: expected true or false"),
    (lambda d: d["models"]["gopher_280b"]["layout"]["micro_batch"].update(range=[2, 1]), r"micro_batch\.range: expected \[lo, hi\]"),
    (lambda d: d["models"]["gopher_280b"]["layout"]["micro_batch"].pop("range_source"), r"micro_batch: a 'range' needs a 'range_source'"),
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
    w = _models()["gpt3_175b"]
    tr = iteration_traffic(w)
    shard = stage_params(w)
    assert shard == pytest.approx(8 * 12 * 12288 ** 2 / 8 + 51200 * 12288 / 8)   # 8 layers + vocabulary shard
    assert tr.tp_allreduce_bytes == 2048 * 1 * 12288 * 2                          # s*b*h*r
    assert tr.tp_allreduces == 2 * 3 * 8                                          # 2 per pass x 3 passes x 8 layers
    assert tr.pp_p2p_bytes == 2048 * 12288 / 8 * 2                                # s*b*h/t*r per rank
    assert tr.pp_p2p_per_microbatch == 2
    assert tr.dp_allreduce_bytes == pytest.approx(4 * shard)                      # fp32 gradients
    assert tr.offload_weight_bytes == pytest.approx(3 * 2 * shard * 96)           # every pass of every micro-batch
    assert tr.offload_grad_bytes == 0                                             # gradients stay on the GPU
    assert tr.offload_optimizer_bytes == pytest.approx(2 * 12 * shard)            # ZeRO stage 0: not sharded
    ops = layer_ops(w)
    assert tr.flops_fwd_per_microbatch == pytest.approx(8 * 24 * 2048 * 12288 ** 2 * (1 + 2048 / (6 * 12288)) / 8)
    assert ops.fwd_flops * 8 == pytest.approx(tr.flops_fwd_per_microbatch)


def test_sharding_and_no_recompute_by_hand():
    m = _models()
    w = m["llama3_405b"]
    ll = iteration_traffic(w)                    # ZeRO-2-like, no recompute, interleave 8
    shard = stage_params(w)
    assert ll.offload_weight_bytes == pytest.approx(2 * 2 * shard * w.layout.microbatches)
    assert ll.offload_optimizer_bytes == pytest.approx(24 * shard / 128)
    assert ll.tp_allreduces == 2 * 2 * 8                                          # ceil(126/16) = 8 layers
    assert ll.pp_p2p_per_microbatch == 16                                         # 8 virtual stages
    assert layer_ops(w).params == pytest.approx(
        (16384 * (16 + 2) * 128 + 16 * 128 * 16384 + 3 * 16384 * 53248 / 8))    # 1 KV head per rank
    palm = iteration_traffic(m["palm_540b"])     # ZeRO-3: 1.5 x, no PP, MQA replicated on 12 ranks
    assert palm.dp_allreduce_bytes == pytest.approx(stage_params(m["palm_540b"]) * 4 * 1.5)
    assert palm.pp_p2p_bytes == 0 and palm.pp_p2p_per_microbatch == 0
    assert m["palm_540b"].layout.microbatches == 1 and m["gpt3_175b"].layout.microbatches == 96
    assert layer_ops(m["palm_540b"]).params == pytest.approx(18432 * (4 + 2) * 256 + 4 * 256 * 18432 + 3 * 18432 * 6144)


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
