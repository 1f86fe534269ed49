"""Switch configuration: port roles, routing mode, HDM decoders, PBR routing table.

Everything the RTL's register interface can set, validated once here: a configuration that
constructs is one the hardware accepts; every refusal is a ConfigError with the reason.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Literal

from models.switch.errors import ConfigError
from models.switch.hdm import HdmDecoder, check_no_overlap
from models.switch.pbr import PID_COUNT, pid_in_range

Mode = Literal["hbr", "pbr"]


class PortRole(str, Enum):
    """USP: faces a host (M2S in, S2M out). DSP: faces a device (M2S out, S2M in).
    FABRIC: PBR link to another switch (both directions, messages stay in PBR form)."""

    USP = "usp"
    DSP = "dsp"
    FABRIC = "fabric"


@dataclass(frozen=True)
class PortConfig:
    role: PortRole
    pid: int | None = None  # PBR mode: the PID of an edge (USP/DSP) port; None for fabric ports
    enabled: bool = True

    @classmethod
    def usp(cls, pid: int | None = None, enabled: bool = True) -> PortConfig:
        return cls(PortRole.USP, pid, enabled)

    @classmethod
    def dsp(cls, pid: int | None = None, enabled: bool = True) -> PortConfig:
        return cls(PortRole.DSP, pid, enabled)

    @classmethod
    def fabric(cls, enabled: bool = True) -> PortConfig:
        return cls(PortRole.FABRIC, None, enabled)


@dataclass(frozen=True)
class SwitchConfig:
    """mode "hbr": decoders target DSP port numbers, responses go back by tag tracking.
    mode "pbr": edge ports have PIDs, decoders target DPIDs, `routes` maps DPID -> egress port
    (each edge port's own PID routes to that port implicitly and must not appear in `routes`)."""

    mode: Mode
    ports: tuple[PortConfig, ...]
    decoders: tuple[HdmDecoder, ...] = ()
    routes: Mapping[int, int] = field(default_factory=dict)
    poison_on_decode_error: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "ports", tuple(self.ports))
        object.__setattr__(self, "decoders", tuple(self.decoders))
        object.__setattr__(self, "routes", MappingProxyType(dict(self.routes)))
        if self.mode not in ("hbr", "pbr"):
            raise ConfigError(f"routing mode {self.mode!r}: expected 'hbr' or 'pbr'")
        if not self.ports:
            raise ConfigError("a switch needs at least one port")
        check_no_overlap(self.decoders)
        if self.mode == "hbr":
            self._check_hbr()
        else:
            self._check_pbr()

    @property
    def n_ports(self) -> int:
        return len(self.ports)

    def _check_hbr(self) -> None:
        for p, pc in enumerate(self.ports):
            if pc.role == PortRole.FABRIC:
                raise ConfigError(f"port {p}: fabric ports need PBR mode")
        if self.routes:
            raise ConfigError("a routing table needs PBR mode")
        for i, d in enumerate(self.decoders):
            for t in d.targets:
                if not 0 <= t < self.n_ports:
                    raise ConfigError(f"decoder {i}: target port {t} out of range 0..{self.n_ports - 1}")
                if self.ports[t].role != PortRole.DSP:
                    raise ConfigError(f"decoder {i}: target port {t} is not a downstream port")

    def _check_pbr(self) -> None:
        local: dict[int, int] = {}
        for p, pc in enumerate(self.ports):
            if pc.role == PortRole.FABRIC:
                if pc.pid is not None:
                    raise ConfigError(f"port {p}: a fabric port has no PID")
                continue
            if pc.pid is None or not pid_in_range(pc.pid):
                raise ConfigError(f"port {p}: edge PID {pc.pid!r} out of range 0..{PID_COUNT - 1}")
            if pc.pid in local:
                raise ConfigError(f"ports {local[pc.pid]} and {p} share PID {pc.pid:#x}")
            local[pc.pid] = p
        for dpid, port in self.routes.items():
            if not pid_in_range(dpid):
                raise ConfigError(f"route: DPID {dpid!r} out of range 0..{PID_COUNT - 1}")
            if not isinstance(port, int) or not 0 <= port < self.n_ports:
                raise ConfigError(f"route DPID {dpid:#x}: egress port {port!r} out of range 0..{self.n_ports - 1}")
            if dpid in local:
                raise ConfigError(f"route DPID {dpid:#x}: is the PID of local edge port {local[dpid]}")
            if self.ports[port].role != PortRole.FABRIC:
                raise ConfigError(f"route DPID {dpid:#x}: egress port {port} is an edge port with PID "
                                  f"{self.ports[port].pid:#x}, not a fabric port")
        for i, d in enumerate(self.decoders):
            for t in d.targets:
                if not pid_in_range(t):
                    raise ConfigError(f"decoder {i}: target DPID {t} out of range 0..{PID_COUNT - 1}")
                if t in local and self.ports[local[t]].role == PortRole.USP:
                    raise ConfigError(f"decoder {i}: target DPID {t:#x} is upstream port {local[t]}")

    def route_table(self) -> dict[int, int]:
        """Effective DPID -> egress port map (PBR): explicit routes plus the local edge PIDs."""
        table = dict(self.routes)
        for p, pc in enumerate(self.ports):
            if pc.role != PortRole.FABRIC and pc.pid is not None:
                table[pc.pid] = p
        return table


def hbr_config(roles: Sequence[PortRole], decoders: Sequence[HdmDecoder] = (), **kw: bool) -> SwitchConfig:
    """Shorthand for an HBR switch with all ports enabled."""
    return SwitchConfig("hbr", tuple(PortConfig(r) for r in roles), tuple(decoders), **kw)  # type: ignore[arg-type]
