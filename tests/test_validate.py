"""Validation against published, measured training runs: the runs files, the CLI, errors."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest
import yaml

from sim.config import ConfigError
from sim.system import validate
from sim.system.validate import HOLDOUT_RUNS, SHIPPED_RUNS, load_runs, predict, summary, validate_runs
from sim.traffic.llm import narayanan_flops


def test_shipped_runs_are_the_four_narayanan_runs():
    runs = load_runs(SHIPPED_RUNS)
    assert [(r.workload.accelerators, r.measured["tflops_per_accelerator"]) for r in runs] == \
        [(384, 153), (768, 149), (1536, 141), (3072, 163)]
    assert all(r.hardware == "a100_80gb" and "Narayanan" in r.source and not r.overrides for r in runs)
    one_t = runs[3].workload
    assert (one_t.layout.tp, one_t.layout.pp, one_t.layout.global_batch) == (8, 64, 3072)
    for r in runs:                                   # the TFLOP/s convention is the paper's eq. 3
        it = predict(r)
        assert it.hardware_flops == pytest.approx(narayanan_flops(r.workload), rel=1e-12)
        assert it.tflops_per_accelerator == pytest.approx(narayanan_flops(r.workload) / it.total / it.accelerators / 1e12)


def test_validation_rows_and_summary():
    rows = validate_runs(load_runs(SHIPPED_RUNS))
    assert len(rows) == 4 and all(r.predicted is not None for r in rows)
    for r in rows:
        assert r.error == pytest.approx(r.predicted / r.measured - 1)
    s = summary(rows)
    assert s["mean_abs_error"] == pytest.approx(sum(abs(r.error) for r in rows) / 4)
    assert s["max_abs_error"] == pytest.approx(max(abs(r.error) for r in rows))


def test_holdout_runs_cite_sources_and_not_fitting_is_not_a_number():
    runs = load_runs(HOLDOUT_RUNS)
    assert len(runs) >= 20
    assert {r.hardware for r in runs} >= {"a100_80gb", "h100_80gb", "tpu_v4"}
    for r in runs:
        assert r.source.strip() and r.notes.strip(), r.name
    names = {r.name for r in runs} & {r.name for r in load_runs(SHIPPED_RUNS)}
    assert not names                                  # held out means disjoint
    rows = validate_runs(runs)
    for r in rows:
        if r.predicted is None:
            assert r.error is None and r.note.startswith("does not fit")
    assert summary(rows)["not_predicted"] == sum(r.predicted is None for r in rows)


def test_cli_prints_and_writes_csv(tmp_path, capsys):
    assert validate.main(["--runs", str(SHIPPED_RUNS), "--runs", str(HOLDOUT_RUNS), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "gpt3-175b-384gpu" in out and "mean |error|" in out and "within 15 %" in out
    with open(tmp_path / "validation.csv") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == list(validate.CSV_COLUMNS) and len(rows) == 5
    assert (tmp_path / "validation_holdout.csv").is_file()


def _runs_file(tmp_path: Path, edit) -> Path:
    data = yaml.safe_load(SHIPPED_RUNS.read_text())
    edit(data)
    p = tmp_path / "runs.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


@pytest.mark.parametrize("edit,text", [
    (lambda d: d[0].update(hardware="a200"), "gpt3-175b-384gpu.hardware: 'a200' is not a preset"),
    (lambda d: d[0].update(accelerators=385), "accelerators: 385 does not equal tp x pp x dp = 384"),
    (lambda d: d[0]["layout"].update(tp=-8), "layout.tp: expected an integer >= 1, got -8"),
    (lambda d: d[0]["model"].update(hidden=float("nan")), "model.hidden: expected an integer >= 1, got nan"),
    (lambda d: d[0].update(measured={"tflops_per_accelerator": 0}), "measured.tflops_per_accelerator: expected a positive number"),
    (lambda d: d[0].update(measured={"speed": 1}), "measured.speed: unknown metric"),
    (lambda d: d[0].update(overrides={"accelerator.gemm_efficiency": 2.0}),
     "accelerator.gemm_efficiency: expected a fraction in (0, 1]"),
    (lambda d: d[0].update(overrides={"accelerator.no_such": 2.0}), "unknown parameter 'accelerator.no_such'"),
    (lambda d: d[0].pop("source"), "gpt3-175b-384gpu.source: required field is missing"),
    (lambda d: d[1].update(name="gpt3-175b-384gpu"), "run names must be unique"),
    (lambda d: d[0].update(layouts={}), "layouts: unknown field"),
])
def test_bad_runs_file_is_one_line_and_exit_2(tmp_path, capsys, edit, text):
    p = _runs_file(tmp_path, edit)
    with pytest.raises(ConfigError):
        load_runs(p)
    assert validate.main(["--runs", str(p)]) == 2
    err = capsys.readouterr().err
    assert text in err and err.count("\n") == 1 and "Traceback" not in err


def test_missing_and_malformed_runs_file(tmp_path, capsys):
    assert validate.main(["--runs", str(tmp_path / "none.yaml")]) == 2
    assert "file not found" in capsys.readouterr().err
    (tmp_path / "x.yaml").write_text("{a: 1}\n")
    assert validate.main(["--runs", str(tmp_path / "x.yaml")]) == 2
    assert "expected a non-empty YAML list of runs" in capsys.readouterr().err
