"""Several SwitchModel instances joined port-to-port (e.g. two PBR switches over fabric links).

A message delivered to an external port is followed across links until it leaves the system on
ports that are not linked. Each switch keeps its own `streams`, so every RTL instance of a
cascade can be scoreboarded separately (link traffic included).
"""
from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from models.cxl.messages import CxlMessage
from models.switch.config import PortRole
from models.switch.errors import ConfigError
from models.switch.model import SwitchModel

PortRef = tuple[int, int]  # (switch index, port)


class SwitchFabric:
    """`links` pairs (switch, port) ends. PBR switches must link fabric ports; HBR switches a DSP
    to a USP (a plain HBR hierarchy, which the model also supports)."""

    def __init__(self, switches: Sequence[SwitchModel], links: Sequence[tuple[PortRef, PortRef]],
                 max_hops: int = 16) -> None:
        self.switches = list(switches)
        self.max_hops = max_hops
        self._peer: dict[PortRef, PortRef] = {}
        for a, b in links:
            for end in (a, b):
                self._check_end(end)
                if end in self._peer:
                    raise ConfigError(f"port {end} is linked twice")
            if a == b:
                raise ConfigError(f"port {a} is linked to itself")
            ma, mb = (self.switches[e[0]].config for e in (a, b))
            ra, rb = ma.ports[a[1]].role, mb.ports[b[1]].role
            if ma.mode != mb.mode:
                raise ConfigError(f"link {a}-{b} joins an HBR and a PBR switch")
            ok = {ra, rb} == {PortRole.FABRIC} if ma.mode == "pbr" else {ra, rb} == {PortRole.USP, PortRole.DSP}
            if not ok:
                raise ConfigError(f"link {a}-{b}: roles {ra.value}/{rb.value} cannot be linked in {ma.mode} mode")
            self._peer[a], self._peer[b] = b, a

    def external_ports(self) -> list[PortRef]:
        return [(s, p) for s, sw in enumerate(self.switches) for p in range(sw.n_ports)
                if (s, p) not in self._peer]

    def ingress(self, switch: int, port: int, msg: CxlMessage) -> list[tuple[int, int, CxlMessage]]:
        """Deliver msg at an external port; return the (switch, port, msg) leaving the system."""
        if (switch, port) in self._peer:
            raise ValueError(f"({switch}, {port}) is a linked port, not an external one")
        out: list[tuple[int, int, CxlMessage]] = []
        work: deque[tuple[int, int, CxlMessage, int]] = deque([(switch, port, msg, 0)])
        while work:
            s, p, m, hops = work.popleft()
            if hops > self.max_hops:
                raise RuntimeError(f"message exceeded {self.max_hops} switch hops (routing loop?): {m}")
            for eg, em in self.switches[s].ingress(p, m):
                peer = self._peer.get((s, eg))
                if peer is None:
                    out.append((s, eg, em))
                else:
                    work.append((peer[0], peer[1], em, hops + 1))
        return out

    def _check_end(self, end: PortRef) -> None:
        s, p = end
        if not 0 <= s < len(self.switches) or not 0 <= p < self.switches[s].n_ports:
            raise ConfigError(f"link end {end} does not exist")
