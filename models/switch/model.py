"""Transaction-level CXL.mem switch model: ingress(port, msg) -> [(egress port, msg), ...].

Written from cxl-protocol.md (switching, HDM decoders, PBR) and the issue text, not from any RTL.
Routing:
  * M2S Req/RwD entering a USP: HDM decode of the HPA. HBR: the decoder target is the egress port.
    PBR: the target is a DPID; the message becomes PBR (SPID = this USP's PID) and is routed by DPID.
  * M2S entering a fabric port (PBR): routed by its DPID.
  * A request leaving a DSP is recorded under (DSP, LD-ID, Tag) with its requester (ingress port in
    HBR, SPID in PBR); in PBR it is turned back into HBR first.
  * S2M NDR/DRS entering a DSP: looked up by (DSP, LD-ID, Tag) and sent to the requester (PBR:
    DPID = requester's SPID, then routed by DPID). S2M entering a fabric port: routed by DPID.
  * A message leaving a USP edge in PBR mode is turned back into HBR.
Errors (each counted in `counters`, nothing is dropped silently):
  * no decoder hit -> the switch answers itself (flows.decode_error_response): DRS MemData-NXM for
    reads, NDR Cmp for writes; requests that expect no response are dropped.
  * a request whose (DSP, LD-ID, Tag) is still outstanding (two requesters chose the same tag for
    one device) -> answered like a decode miss, counted as tag_conflict.
  * unknown DPID, response nobody asked for, wrong direction, reserved opcode, disabled port,
    misroute (egress = ingress, request routed to a USP, response routed to a DSP) -> dropped.
Poison and every other field pass through unchanged (only the HBR <-> PBR edge fields change).
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from models.cxl.messages import CxlMessage, M2SReq, M2SRwD, S2MDRS, S2MNDR
from models.switch.config import PortRole, SwitchConfig
from models.switch.errors import ConfigError
from models.switch.flows import Expect, decode_error_response, expected_response
from models.switch.hdm import HdmDecoder, find_decoder
from models.switch.pbr import request_to_hbr, request_to_pbr, response_to_hbr, response_to_pbr
from models.switch.streams import SWITCH_SRC, ExpectedStreams

Out = list[tuple[int, CxlMessage]]
Hop = tuple[int, CxlMessage, int]  # (egress port, message, stream source)


@dataclass
class SwitchCounters:
    """Event counters; every field except forwarded_* and poisoned counts an error."""

    forwarded_req: int = 0
    forwarded_rsp: int = 0
    poisoned: int = 0  # messages forwarded with Poison set (not an error of the switch)
    nxm_read: int = 0  # decode miss answered with DRS MemData-NXM
    nxm_write: int = 0  # decode miss answered with NDR (write dropped)
    nxm_no_response: int = 0  # decode miss of a request that expects no response (dropped)
    tag_conflict: int = 0
    unknown_dpid: int = 0
    unexpected_rsp: int = 0
    misrouted: int = 0
    bad_direction: int = 0
    bad_opcode: int = 0
    unsupported: int = 0  # not an M2S Req/RwD or S2M NDR/DRS
    rx_disabled: int = 0
    egress_disabled: int = 0

    def errors(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self)
                   if f.name not in ("forwarded_req", "forwarded_rsp", "poisoned"))

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Outstanding:
    """A request forwarded to a device and not yet completed."""

    dsp: int
    ldid: int
    tag: int
    expect: Expect
    requester: int  # HBR: ingress port; PBR: SPID
    request: CxlMessage  # as it left the DSP


class SwitchModel:
    """One switch. `ingress` returns the messages the switch emits because of one accepted
    message, and appends them to `streams` (source = ingress port, SWITCH_SRC for its own)."""

    def __init__(self, n_ports: int, config: SwitchConfig) -> None:
        if n_ports != config.n_ports:
            raise ConfigError(f"n_ports={n_ports} but the configuration has {config.n_ports} ports")
        self.n_ports = n_ports
        self.config = config
        self.counters = SwitchCounters()
        self.streams = ExpectedStreams(n_ports)
        self._routes = config.route_table() if config.mode == "pbr" else {}
        self._outstanding: dict[tuple[int, int, int], Outstanding] = {}

    # ---- queries -------------------------------------------------------------------------
    def decode(self, hpa: int) -> tuple[HdmDecoder, int] | None:
        """(decoder, target) for an HPA, None on a decode miss."""
        d = find_decoder(self.config.decoders, hpa)
        return None if d is None else (d, d.target(hpa))

    def route(self, dpid: int) -> int | None:
        """PBR egress port of a DPID, None if unknown."""
        return self._routes.get(dpid)

    def outstanding(self) -> list[Outstanding]:
        return list(self._outstanding.values())

    # ---- the transfer function -----------------------------------------------------------
    def ingress(self, port: int, msg: CxlMessage) -> Out:
        if not 0 <= port < self.n_ports:
            raise ValueError(f"ingress port {port} out of range 0..{self.n_ports - 1}")
        if not self.config.ports[port].enabled:
            hops = self._drop("rx_disabled")
        elif isinstance(msg, (M2SReq, M2SRwD)):
            hops = self._request(port, msg)
        elif isinstance(msg, (S2MNDR, S2MDRS)):
            hops = self._response(port, msg)
        else:
            hops = self._drop("unsupported")
        for egress, m, src in hops:
            self.streams.push(egress, src, m)
        return [(egress, m) for egress, m, _ in hops]

    # ---- requests ------------------------------------------------------------------------
    def _request(self, port: int, msg: M2SReq | M2SRwD) -> list[Hop]:
        pc = self.config.ports[port]
        if pc.role == PortRole.DSP:
            return self._drop("bad_direction")
        expect = expected_response(msg)
        if expect is None:
            return self._drop("bad_opcode")
        if pc.role == PortRole.USP:
            hit = self.decode((msg.addr << 6) | (getattr(msg, "addr5", 0) << 5))
            if hit is None:
                name = {"drs": "nxm_read", "ndr": "nxm_write", "none": "nxm_no_response"}[expect]
                return self._switch_answer(port, msg, name, requester=pc.pid)
            if self.config.mode == "hbr":
                return self._to_dsp(hit[1], msg, expect, requester=port, ingress=port)
            assert pc.pid is not None
            msg = request_to_pbr(msg, spid=pc.pid, dpid=hit[1])
        egress = self.route(msg.dpid)
        if egress is None:
            return self._drop("unknown_dpid")
        role = self.config.ports[egress].role
        if egress == port or role == PortRole.USP:
            return self._drop("misrouted")
        if role == PortRole.FABRIC:
            return self._emit(egress, msg, port)
        return self._to_dsp(egress, request_to_hbr(msg), expect, requester=msg.spid, ingress=port)

    def _to_dsp(self, dsp: int, msg: M2SReq | M2SRwD, expect: Expect, requester: int, ingress: int) -> list[Hop]:
        if not self.config.ports[dsp].enabled:
            return self._drop("egress_disabled")
        if expect != "none":
            key = (dsp, msg.ldid, msg.tag)
            if key in self._outstanding:
                return self._switch_answer(ingress, msg, "tag_conflict", requester)
            self._outstanding[key] = Outstanding(dsp, msg.ldid, msg.tag, expect, requester, msg)
        return self._emit(dsp, msg, ingress)

    def _switch_answer(self, ingress: int, msg: M2SReq | M2SRwD, counter: str,
                       requester: int | None) -> list[Hop]:
        """Answer a request from the switch itself (decode miss or tag conflict). HBR: back to
        the ingress port; PBR: to the requester's PID (requester = SPID)."""
        self._count(counter)
        rsp = decode_error_response(msg, self.config.poison_on_decode_error)
        if rsp is None:
            return []
        if self.config.mode == "hbr":
            return self._emit(ingress, rsp, SWITCH_SRC)
        assert requester is not None
        return self._route_response(response_to_pbr(rsp, requester), SWITCH_SRC)

    # ---- responses -----------------------------------------------------------------------
    def _response(self, port: int, msg: S2MNDR | S2MDRS) -> list[Hop]:
        role = self.config.ports[port].role
        if role == PortRole.USP:
            return self._drop("bad_direction")
        if role == PortRole.FABRIC:
            return self._route_response(msg, port)
        key = (port, msg.ldid, msg.tag)
        entry = self._outstanding.get(key)
        kind = "drs" if isinstance(msg, S2MDRS) else "ndr"
        if entry is None or (entry.expect == "ndr" and kind == "drs"):
            return self._drop("unexpected_rsp")
        if kind == entry.expect:
            del self._outstanding[key]
        if self.config.mode == "hbr":
            return self._emit(entry.requester, msg, port)
        return self._route_response(response_to_pbr(msg, entry.requester), port)

    def _route_response(self, msg: S2MNDR | S2MDRS, src: int) -> list[Hop]:
        """PBR: send a response toward its DPID; src = ingress port or SWITCH_SRC."""
        egress = self.route(msg.dpid)
        if egress is None:
            return self._drop("unknown_dpid")
        role = self.config.ports[egress].role
        if role == PortRole.DSP or egress == src:
            return self._drop("misrouted")
        if role == PortRole.USP:
            msg = response_to_hbr(msg)
        return self._emit(egress, msg, src)

    # ---- helpers -------------------------------------------------------------------------
    def _emit(self, egress: int, msg: CxlMessage, src: int) -> list[Hop]:
        if not self.config.ports[egress].enabled:
            return self._drop("egress_disabled")
        if src != SWITCH_SRC:
            if isinstance(msg, (M2SReq, M2SRwD)):
                self.counters.forwarded_req += 1
            else:
                self.counters.forwarded_rsp += 1
            self.counters.poisoned += int(getattr(msg, "poison", 0))
        return [(egress, msg, src)]

    def _count(self, counter: str) -> None:
        setattr(self.counters, counter, getattr(self.counters, counter) + 1)

    def _drop(self, counter: str) -> list[Hop]:
        self._count(counter)
        return []
