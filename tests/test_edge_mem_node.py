"""sp_mem_node (rtl/edge) on its own: the CXL.mem memory node against its reference model
(models/edge/mem_node.py) in tb/edge/tb_mem_node.py, with every header field bit, the line data and
`lat` driven over their full width. AW 4 / DEPTH 4 and the smallest store and queues (AW 1, DEPTH 3:
two entries, so lines alias all the time, and a queue of a head register and a 2-entry FIFO). The
long-time test (the node's time stamp past 2^21) runs on one build; the model's own rules are
checked without a simulator."""
from __future__ import annotations

import random

import pytest

from models.edge.mem_node import MemNodeModel, line_of, with_line
from tools.runner import rtl_sources, run_cocotb

NODE = dict(top="sp_mem_node", sources=rtl_sources("edge/sp_mem_node.v"), test_module="tb.edge.tb_mem_node")
AW4 = {"AW": 4, "DEPTH": 4, "LAT_W": 16}
AW1 = {"AW": 1, "DEPTH": 3, "LAT_W": 16}
# The AW 4 build also runs the long-time test, 2.4 x 10^6 cycles that are nearly all idle: 1.3 s per
# 10^6 idle cycles at C++ -O2 against 15 s at the regression's -O0 (measured on the shared 2-core
# machine). So that build is -O2, for both of its pytest tests (one build); AW 1 stays at -O0.
BUILD_ARGS = {"aw4_d4": ["-CFLAGS", "-O2"], "aw1_d3": []}


@pytest.mark.rtl
@pytest.mark.parametrize("build,params", [pytest.param("aw4_d4", AW4, id="aw4_d4"),
                                          pytest.param("aw1_d3", AW1, id="aw1_d3")])
def test_mem_node_random(build: str, params: dict[str, int]) -> None:
    run_cocotb(**NODE, parameters=params, build_args=BUILD_ARGS[build],
               testcase=["MemNodeRandomTest", "MemNodeCorruptionCaught"])


@pytest.mark.rtl
def test_mem_node_long_time() -> None:
    run_cocotb(**NODE, parameters=AW4, build_args=BUILD_ARGS["aw4_d4"], testcase="MemNodeLongTimeTest")


def test_mem_node_model_rules() -> None:
    """The model's store and timing rules on a few hand-made cases (AW 2: lines 0x5 and 0x9 share
    index 1)."""
    m = MemNodeModel(aw=2, depth=3, lat_w=4)
    rng = random.Random(7)

    def req(line: int) -> int:
        return with_line(rng.getrandbits(128), "req", line)

    def rwd(line: int) -> int:
        return with_line(rng.getrandbits(128), "rwd", line)

    assert line_of(req(0x5), "req") == 0x5
    word = (0x3C0DE << 46) | 0x5
    assert m.image(0x5) == sum(word << (64 * i) for i in range(8))
    r = m.read(req(0x5), cycle=10, lat=0)
    assert (r.data, r.outcome, r.earliest) == (m.image(0x5), "never_written", 11)   # lat 0 answers like 1
    w = m.write(rwd(0x5), 0xAB, cycle=10, lat=7)
    assert (w.outcome, w.earliest, w.data) == ("fresh", 17, None)
    assert m.read(req(0x5), cycle=11, lat=1).data == 0xAB                          # later read: hit
    m.write(rwd(0x5), 0xCD, cycle=12, lat=1)
    r = m.read(req(0x5), cycle=12, lat=2)                                          # same cycle: old data
    assert (r.data, r.outcome) == (0xAB, "hit")
    w = m.write(rwd(0x9), 0xEF, cycle=13, lat=1)
    assert (w.outcome, m.alias_before(13), m.alias_before(14)) == ("alias", 0, 1)
    r = m.read(req(0x5), cycle=14, lat=1)
    assert (r.data, r.outcome) == (m.image(0x5), "evicted")
    # queue rules: held answers, in_ready, valid from the earliest cycle
    q = m.drs
    assert [x.accepted for x in q.q] == [10, 11, 12, 14] and q.held(12) == 2 and q.ready(12)
    assert not q.ready(13) and q.valid(11) and q.next_valid(11) == 11
    q.take(11)
    assert q.head(12).accepted == 11 and q.valid(12)
    m.reset()
    assert m.read(req(0x9), cycle=20, lat=0).outcome == "never_written" and m.alias == 0
