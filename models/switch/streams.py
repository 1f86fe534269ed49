"""Expected per-egress message streams for a funnel / match-window scoreboard.

Ordering rule the switch promises (see README.md "Ordering"): messages of one class (message id)
that enter on one port and leave on one port leave in the order they entered. Nothing is promised
across classes or across sources, so an egress stream is a merge ("funnel") of per-(class, source)
FIFOs. `match` accepts an observed message iff it equals the head of one of the FIFOs of its class;
with `window` it must also be among the `window` oldest pending messages of that (egress, class),
which bounds how far the allocator may let one source overtake another.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from models.cxl.messages import CxlMessage
from models.switch.errors import OrderingError

SWITCH_SRC = -1  # source id of responses the switch generates itself (decode errors, conflicts)


@dataclass(frozen=True)
class Expected:
    seq: int  # global push order, used for window ranking and tie-breaks
    src: int
    msg: CxlMessage


class ExpectedStreams:
    """Per egress port, per class, per source FIFOs of expected messages."""

    def __init__(self, n_ports: int) -> None:
        self.n_ports = n_ports
        self._fifos: dict[tuple[int, str, int], deque[Expected]] = {}
        self._seq = 0

    def push(self, egress: int, src: int, msg: CxlMessage) -> None:
        self._check_port(egress)
        key = (egress, msg.MID, src)
        self._fifos.setdefault(key, deque()).append(Expected(self._seq, src, msg))
        self._seq += 1

    def match(self, egress: int, msg: CxlMessage, window: int | None = None) -> int:
        """Consume the expected message equal to `msg` observed on `egress`; return its source.

        Raises OrderingError if no per-source head of that class equals msg, or if the match lies
        outside the window. If several heads are equal the oldest is taken (documented limitation:
        exact duplicates from different sources can be misattributed)."""
        self._check_port(egress)
        heads = [(q[0], key) for key, q in self._fifos.items()
                 if key[0] == egress and key[1] == msg.MID and q]
        hits = sorted((e.seq, key) for e, key in heads if e.msg == msg)
        if not hits:
            pend = ", ".join(f"src {e.src}: {e.msg}" for e, _ in sorted(heads, key=lambda h: h[0].seq)[:4])
            raise OrderingError(f"egress {egress}: unexpected {msg} (heads: {pend or 'none pending'})")
        seq, key = hits[0]
        if window is not None:
            rank = sum(1 for k, q in self._fifos.items() if k[0] == egress and k[1] == msg.MID
                       for e in q if e.seq < seq)
            if rank >= window:
                raise OrderingError(f"egress {egress}: {msg} matched at rank {rank}, outside window {window}")
        return self._fifos[key].popleft().src

    def pending(self, egress: int | None = None) -> list[Expected]:
        """Expected messages not yet matched (all egresses if egress is None), oldest first."""
        out = [e for (eg, _, _), q in self._fifos.items() if egress is None or eg == egress for e in q]
        return sorted(out, key=lambda e: e.seq)

    def _check_port(self, port: int) -> None:
        if not 0 <= port < self.n_ports:
            raise ValueError(f"egress port {port} out of range 0..{self.n_ports - 1}")
