"""Port-based routing (CXL 3.x PBR): 12-bit port IDs and the HBR <-> PBR edge conversion.

Source: cxl-protocol.md "Switches and routing" (every fabric port has a 12-bit PID; an edge port
turns HBR traffic into PBR messages carrying DPID, plus SPID for requests; fabric switches forward
by DPID lookup) and cxl-flits.md section 5 (which fields each flavour carries): PBR M2S Req/RwD have
SPID and DPID but no LD-ID and no Addr[5]; PBR S2M NDR/DRS have DPID but no LD-ID and no SPID.
So converting to PBR zeroes the fields the PBR flit cannot carry, and converting back zeroes the
PBR-only ones: LD-ID does not survive a PBR fabric (a PBR fabric names an LD by its own PID).
"""
from __future__ import annotations

from typing import TypeVar

from models.cxl.messages import M2SReq, M2SRwD, S2MDRS, S2MNDR

PID_BITS = 12
PID_COUNT = 1 << PID_BITS

Request = M2SReq | M2SRwD
Response = S2MNDR | S2MDRS
R = TypeVar("R", M2SReq, M2SRwD)
S = TypeVar("S", S2MNDR, S2MDRS)


def pid_in_range(pid: int) -> bool:
    return isinstance(pid, int) and 0 <= pid < PID_COUNT


def request_to_pbr(msg: R, spid: int, dpid: int) -> R:
    """HBR M2S request as it leaves an upstream edge port into the PBR fabric."""
    if isinstance(msg, M2SReq):
        return msg.replace(spid=spid, dpid=dpid, ldid=0, addr5=0)
    return msg.replace(spid=spid, dpid=dpid, ldid=0)


def request_to_hbr(msg: R) -> R:
    """PBR M2S request as it leaves a downstream edge port toward an HBR device."""
    return msg.replace(spid=0, dpid=0)


def response_to_pbr(msg: S, dpid: int) -> S:
    """HBR S2M response entering the PBR fabric, addressed to the requester's PID."""
    return msg.replace(dpid=dpid, ldid=0)


def response_to_hbr(msg: S) -> S:
    """PBR S2M response as it leaves an upstream edge port toward the HBR host."""
    return msg.replace(dpid=0)
