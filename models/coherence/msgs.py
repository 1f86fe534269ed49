"""Message-level view of CXL.cache / CXL.mem used by the coherence model.

Opcodes and field names are those of `models.cxl.messages`; the dataclasses here are frozen (so a
whole system state can be hashed for exhaustive exploration), carry the port (= device index, the
CacheID of the link it travels on) explicitly, and hold a line's contents as one Python int
(`value`) instead of 64 bytes. `to_cxl` / `from_cxl` convert to and from the `models.cxl` wire
dataclasses, so a testbench monitor that unpacks RTL canonical headers can feed this model and its
checkers directly. A line value maps to bytes little-endian (byte k = bits [8k +: 8]).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from models.cxl.messages import (
    DATA_BYTES,
    CxlMessage,
    D2HData,
    D2HReq,
    D2HRsp,
    H2DData,
    H2DReq,
    H2DRsp,
    M2SReq,
    M2SRwD,
    S2MDRS,
    S2MNDR,
)


@dataclass(frozen=True)
class CD2HReq:
    """Device -> host request (D2H Req)."""

    port: int
    opcode: int
    cqid: int
    addr: int  # line address = Addr[51:6]


@dataclass(frozen=True)
class CD2HRsp:
    """Device -> host snoop response (D2H Rsp)."""

    port: int
    opcode: int
    uqid: int


@dataclass(frozen=True)
class CD2HData:
    """Device -> host data (forwarded snoop data or write-pull data)."""

    port: int
    uqid: int
    value: int
    bogus: int = 0
    bep: int = 0  # byte enables present (partial write); the enables themselves are not modelled


@dataclass(frozen=True)
class CH2DReq:
    """Host -> device snoop (H2D Req)."""

    port: int
    opcode: int
    addr: int
    uqid: int


@dataclass(frozen=True)
class CH2DRsp:
    """Host -> device response (GO / WritePull ...); rspdata = GO state or the pull's UQID."""

    port: int
    opcode: int
    rspdata: int
    cqid: int


@dataclass(frozen=True)
class CH2DData:
    """Host -> device data for a read request."""

    port: int
    cqid: int
    value: int
    goerr: int = 0


@dataclass(frozen=True)
class CM2SReq:
    """Home -> memory request (MemRd)."""

    memop: int
    tag: int
    addr: int


@dataclass(frozen=True)
class CM2SRwD:
    """Home -> memory write (MemWr)."""

    memop: int
    tag: int
    addr: int
    value: int


@dataclass(frozen=True)
class CS2MNDR:
    """Memory -> home completion without data (Cmp)."""

    memop: int
    tag: int


@dataclass(frozen=True)
class CS2MDRS:
    """Memory -> home data (MemData)."""

    memop: int
    tag: int
    value: int


CohMsg = Union[CD2HReq, CD2HRsp, CD2HData, CH2DReq, CH2DRsp, CH2DData, CM2SReq, CM2SRwD, CS2MNDR, CS2MDRS]

# Channel names (one FIFO per port for the six CXL.cache channels, one each for CXL.mem).
D2H_REQ, D2H_RSP, D2H_DATA = "d2h_req", "d2h_rsp", "d2h_data"
H2D_REQ, H2D_RSP, H2D_DATA = "h2d_req", "h2d_rsp", "h2d_data"
M2S_REQ, M2S_RWD, S2M_NDR, S2M_DRS = "m2s_req", "m2s_rwd", "s2m_ndr", "s2m_drs"
CHANNEL_OF: dict[type, str] = {
    CD2HReq: D2H_REQ, CD2HRsp: D2H_RSP, CD2HData: D2H_DATA,
    CH2DReq: H2D_REQ, CH2DRsp: H2D_RSP, CH2DData: H2D_DATA,
    CM2SReq: M2S_REQ, CM2SRwD: M2S_RWD, CS2MNDR: S2M_NDR, CS2MDRS: S2M_DRS,
}
LINE_MASK = (1 << (8 * DATA_BYTES)) - 1


def value_to_bytes(value: int) -> bytes:
    """A model line value as the 64-byte line (little-endian)."""
    return (value & LINE_MASK).to_bytes(DATA_BYTES, "little")


def bytes_to_value(data: bytes) -> int:
    return int.from_bytes(data, "little")


def to_cxl(msg: CohMsg) -> CxlMessage:
    """The `models.cxl` dataclass for a model message (port -> cacheid where the message has one)."""
    if isinstance(msg, CD2HReq):
        return D2HReq(opcode=msg.opcode, cqid=msg.cqid, addr=msg.addr, cacheid=msg.port)
    if isinstance(msg, CD2HRsp):
        return D2HRsp(opcode=msg.opcode, uqid=msg.uqid)
    if isinstance(msg, CD2HData):
        return D2HData(uqid=msg.uqid, bogus=msg.bogus, bep=msg.bep, data=value_to_bytes(msg.value))
    if isinstance(msg, CH2DReq):
        return H2DReq(opcode=msg.opcode, addr=msg.addr, uqid=msg.uqid, cacheid=msg.port)
    if isinstance(msg, CH2DRsp):
        return H2DRsp(opcode=msg.opcode, rspdata=msg.rspdata, cqid=msg.cqid, cacheid=msg.port)
    if isinstance(msg, CH2DData):
        return H2DData(cqid=msg.cqid, goerr=msg.goerr, cacheid=msg.port, data=value_to_bytes(msg.value))
    if isinstance(msg, CM2SReq):
        return M2SReq(memop=msg.memop, tag=msg.tag, addr=msg.addr)
    if isinstance(msg, CM2SRwD):
        return M2SRwD(memop=msg.memop, tag=msg.tag, addr=msg.addr, data=value_to_bytes(msg.value))
    if isinstance(msg, CS2MNDR):
        return S2MNDR(memop=msg.memop, tag=msg.tag)
    if isinstance(msg, CS2MDRS):
        return S2MDRS(memop=msg.memop, tag=msg.tag, data=value_to_bytes(msg.value))
    raise TypeError(f"not a coherence-model message: {msg!r}")


def from_cxl(msg: CxlMessage, port: int = 0) -> CohMsg:
    """Model message for a `models.cxl` dataclass observed on device port `port`.

    D2H Rsp/Data carry no CacheID on the wire, so the port the monitor saw them on is used; for the
    other CXL.cache messages `port` is used too (a 68B link has no CacheID field either).
    """
    if isinstance(msg, D2HReq):
        return CD2HReq(port, msg.opcode, msg.cqid, msg.addr)
    if isinstance(msg, D2HRsp):
        return CD2HRsp(port, msg.opcode, msg.uqid)
    if isinstance(msg, D2HData):
        return CD2HData(port, msg.uqid, bytes_to_value(msg.data), msg.bogus, msg.bep)
    if isinstance(msg, H2DReq):
        return CH2DReq(port, msg.opcode, msg.addr, msg.uqid)
    if isinstance(msg, H2DRsp):
        return CH2DRsp(port, msg.opcode, msg.rspdata, msg.cqid)
    if isinstance(msg, H2DData):
        return CH2DData(port, msg.cqid, bytes_to_value(msg.data), msg.goerr)
    if isinstance(msg, M2SReq):
        return CM2SReq(msg.memop, msg.tag, msg.addr)
    if isinstance(msg, M2SRwD):
        return CM2SRwD(msg.memop, msg.tag, msg.addr, bytes_to_value(msg.data))
    if isinstance(msg, S2MNDR):
        return CS2MNDR(msg.memop, msg.tag)
    if isinstance(msg, S2MDRS):
        return CS2MDRS(msg.memop, msg.tag, bytes_to_value(msg.data))
    raise TypeError(f"no coherence-model equivalent for {type(msg).__name__}")
