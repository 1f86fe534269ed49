"""sp_mem_q (rtl/edge) on its own: the memory node's response queue claims the accept and output
cycles and the capacity of a sync_fifo of DEPTH entries, so it runs sync_fifo's bench unchanged:
the cycle-accurate FIFO model (tb.common.common_models.FifoModel) checks in_ready, out_valid and
out_data every cycle, the scoreboard the stream, coverage every fill level and push/pop/stall
combination, and the expect-fail test a corrupted item. DEPTH 3 is the smallest legal queue (a
2-entry FIFO behind the head); 4 and 8 leave the FIFO a middle level."""
from __future__ import annotations

import pytest

from tools.runner import rtl_sources, run_cocotb


@pytest.mark.rtl
@pytest.mark.parametrize("width,depth", [(8, 3), (13, 4), (8, 8)])
def test_mem_q_is_a_sync_fifo(width: int, depth: int) -> None:
    run_cocotb(top="sp_mem_q", sources=rtl_sources("edge/sp_mem_q.v"),
               test_module="tb.common.tb_sync_fifo",
               parameters={"WIDTH": width, "DEPTH": depth})
