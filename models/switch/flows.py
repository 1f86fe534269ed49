"""Which response a CXL.mem request expects, and the response the switch makes for a request it
cannot deliver.

Sources: cxl-protocol.md "CXL.mem" (an HDM-H read returns only a DRS MemData; every write completes
with NDR Cmp; MemSpecRd gets no completion; MemData-NXM answers an access to no existing memory);
CXL r3.x 8.2.4.20.2 note: "Writes to addresses that are not positively decoded shall be dropped and
a No Data Response shall be sent" and the Poison On Decode Error Enable bit (poisoned read data on a
decode error). MemRdFwd/MemWrFwd carry no completion to the host (HDM-D flows), so none is expected.
"""
from __future__ import annotations

from typing import Literal

from models.cxl.messages import (DATA_BYTES, M2SReq, M2SReqOp, M2SRwD, M2SRwDOp, S2MDRS, S2MDRSOp,
                                 S2MNDR, S2MNDROp)

Expect = Literal["drs", "ndr", "none"]

# MetaField No-Op (11b): the switch has no metadata to report. CXL r3.x MetaField encoding
# (00b Meta0-State, 11b No-Op); not listed in cxl-protocol.md.
META_FIELD_NO_OP = 0b11

_REQ_EXPECT: dict[int, Expect] = {
    M2SReqOp.MEMINV: "ndr", M2SReqOp.MEMRD: "drs", M2SReqOp.MEMRDDATA: "drs",
    M2SReqOp.MEMRDFWD: "none", M2SReqOp.MEMWRFWD: "none", M2SReqOp.MEMSPECRD: "none",
    M2SReqOp.MEMINVNT: "ndr", M2SReqOp.MEMCLNEVCT: "ndr",
}
_RWD_EXPECT: dict[int, Expect] = {M2SRwDOp.MEMWR: "ndr", M2SRwDOp.MEMWRPTL: "ndr", M2SRwDOp.BICONFLICT: "ndr"}


def expected_response(req: M2SReq | M2SRwD) -> Expect | None:
    """The completing response of a request ("drs", "ndr", "none"); None for a reserved opcode.

    Reads complete with DRS (an HDM-D/DB device may add an NDR Cmp-E/S before or after it: the
    model forwards such an NDR without completing the read); writes and invalidations with NDR."""
    table = _REQ_EXPECT if isinstance(req, M2SReq) else _RWD_EXPECT
    return table.get(req.memop)


def decode_error_response(req: M2SReq | M2SRwD, poison: bool = False) -> S2MDRS | S2MNDR | None:
    """The switch's own answer to a request it cannot deliver (no decoder hit, tag conflict).

    Reads: S2M DRS MemData-NXM, data all zero (ours: the spec figure for the payload is not
    available), Poison = the Poison On Decode Error Enable setting. Writes/invalidations: the write
    is dropped and S2M NDR Cmp is returned (BI-ConflictAck for BIConflict): CXL NDR has no error
    encoding, the error is visible in the switch's counters only. No response if none is expected."""
    exp = expected_response(req)
    if exp == "drs":
        return S2MDRS(memop=int(S2MDRSOp.MEMDATA_NXM), metafield=META_FIELD_NO_OP, metavalue=0, tag=req.tag,
                      poison=int(poison), ldid=req.ldid, data=bytes(DATA_BYTES))
    if exp == "ndr":
        op = S2MNDROp.BI_CONFLICTACK if isinstance(req, M2SRwD) and req.memop == M2SRwDOp.BICONFLICT \
            else S2MNDROp.CMP
        return S2MNDR(memop=int(op), metafield=META_FIELD_NO_OP, metavalue=0, tag=req.tag, ldid=req.ldid)
    return None
