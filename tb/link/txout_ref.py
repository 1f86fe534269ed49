"""Reference for rtl/link/cxl_flit68_txout (the 68B flit output builder): the flit the link sends
for one cycle's inputs, built with models/cxl/flit68's encoders (control flits, credit field
values, header bit positions), and the output builder's credit-field round robin.

Rules it encodes (rtl/link/README.md, "68B" and "Ack policy"; cxl-flits.md 1.7):
  * ctl_kind selects a RETRY.Idle / Frame / Req / Ack or INIT.Param flit; RETRY.* are not
    retryable, INIT.Param is. RETRY.Req carries ESeq and NUM_RETRY (NUM_PHY_REINIT 0), RETRY.Ack
    Empty, NUM_RETRY and the ESeq echo (WrPtr, NumFreeBuf, Viral 0), INIT.Param version 2 and the
    LLR wrap value. Any other ctl_kind value builds an all-zero flit and reports nothing.
  * With no control flit: the prepared flit if pk_send (a protocol flit gets the credit fields,
    and Ak when >= 8 acks are pending; an all-data flit is sent as it is), else an
    LLCRD.Acknowledge when credits may be returned and some are pending or acks are returned,
    else RETRY.Idle.
  * Credit field f returns class f (cache) or f + 3 (mem): mem when only mem has credits pending,
    or both have and the field's round-robin bit prefers mem; the value is the largest encodable
    count not above the pending count. The round-robin bit of a field with credits pending flips
    away from the class just chosen when the flit that carried the fields is taken.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from models.cxl import flit68 as f68

K_NONE, K_IDLE, K_FRAME, K_REQ, K_ACK, K_INIT = range(6)
CTL_KINDS = {"none": K_NONE, "idle": K_IDLE, "frame": K_FRAME, "req": K_REQ, "ack": K_ACK, "init": K_INIT}
INIT_VERSION = f68.INIT_VERSION_CXL2
FIELD_NAMES = ("req", "rsp", "data")      # credit field f carries class f or f + 3 (flit68.CRD_FIELD_CLASSES)
M512 = (1 << f68.FLIT_BITS) - 1


@dataclass
class TxOutIn:
    """One cycle's inputs of cxl_flit68_txout."""

    ctl_kind: int = K_NONE
    pk_send: bool = False
    pk_flit: int = 0
    pk_adf: bool = False
    crd_pend: tuple[int, ...] = (0,) * 6
    crd_en: bool = False
    ack_pend: int = 0
    ack_en: bool = False
    ctl_eseq: int = 0
    ctl_num_retry: int = 0
    ctl_empty: bool = False
    fire: bool = False


@dataclass
class TxOutOut:
    flit: int = 0
    retryable: bool = False
    crd_mem: int = 0
    crd_used: bool = False
    ack_all: bool = False
    ack_8: bool = False
    kind: str = "zero"                   # what was built (coverage and messages)


@dataclass
class TxOutRef:
    """The output builder: `build` is combinational, `step` the clock edge (round-robin bits)."""

    prefer_mem: list[bool] = field(default_factory=lambda: [False, False, False])
    ak_threshold: int = 8                # acks pending for Ak on a protocol flit (README: >= 8)

    def reset(self) -> None:
        self.prefer_mem = [False, False, False]

    def credit_fields(self, pend: tuple[int, ...]) -> tuple[dict[str, int], int]:
        """({field name: 4-bit value}, crd_mem bits) for the pending counts and the round robin."""
        vals: dict[str, int] = {}
        mem_bits = 0
        for fi, name in enumerate(FIELD_NAMES):
            c_cache, c_mem = f68.CRD_FIELD_CLASSES[name]
            pc, pm = pend[c_cache], pend[c_mem]
            use_mem = pm > 0 and (self.prefer_mem[fi] or pc == 0)
            n = f68.credit_chunk(pm if use_mem else pc)
            vals[name] = f68.encode_credit(n, use_mem)
            mem_bits |= int(use_mem) << fi
        return vals, mem_bits

    @staticmethod
    def _hdr_credits(vals: dict[str, int]) -> int:
        return (vals["rsp"] << f68.HDR_RSPCRD) | (vals["req"] << f68.HDR_REQCRD) | (vals["data"] << f68.HDR_DATACRD)

    def build(self, i: TxOutIn) -> TxOutOut:
        vals, mem_bits = self.credit_fields(i.crd_pend)
        if not i.crd_en:
            vals = {k: 0 for k in vals}
        out = TxOutOut(crd_mem=mem_bits)
        if i.ctl_kind == K_IDLE:
            cf, out.kind = f68.retry_idle(), "idle"
        elif i.ctl_kind == K_FRAME:
            cf, out.kind = f68.retry_frame(), "frame"
        elif i.ctl_kind == K_REQ:
            cf, out.kind = f68.retry_req(i.ctl_eseq, i.ctl_num_retry), "req"
        elif i.ctl_kind == K_ACK:
            cf, out.kind = f68.retry_ack(i.ctl_eseq, i.ctl_num_retry, empty=int(i.ctl_empty)), "ack"
        elif i.ctl_kind == K_INIT:
            cf, out.kind = f68.init_param(i.ctl_eseq, INIT_VERSION), "init"
        elif i.ctl_kind != K_NONE:
            return out                   # undefined kind: all-zero flit, nothing reported
        elif i.pk_send:
            out.retryable = True
            if i.pk_adf:
                out.flit, out.kind = i.pk_flit & M512, "adf"
                return out
            bits = i.pk_flit & M512 & ~(0xFFF << f68.HDR_RSPCRD)
            bits |= self._hdr_credits(vals)
            out.crd_used = i.crd_en
            if i.ack_pend >= self.ak_threshold:
                bits |= 1 << f68.HDR_AK
                out.ack_8 = True
            out.flit, out.kind = bits, "protocol"
            return out
        elif (i.crd_en and any(i.crd_pend)) or (i.ack_en and i.ack_pend):
            full_ack = i.ack_pend if i.ack_en else 0
            cf = f68.llcrd_ack(full_ack, vals["rsp"], vals["req"], vals["data"])
            out.kind, out.crd_used, out.ack_all = "llcrd", i.crd_en, i.ack_en
        else:
            cf, out.kind = f68.retry_idle(), "idle_none"
        out.flit = cf.bits512()
        out.retryable = cf.retryable
        return out

    def step(self, i: TxOutIn, o: TxOutOut) -> None:
        """Clock edge: a taken flit that returned credits moves each active field's preference."""
        if not (i.fire and i.ctl_kind == K_NONE and o.crd_used):
            return
        for fi, name in enumerate(FIELD_NAMES):
            c_cache, c_mem = f68.CRD_FIELD_CLASSES[name]
            if i.crd_pend[c_cache] or i.crd_pend[c_mem]:
                self.prefer_mem[fi] = not (o.crd_mem >> fi) & 1
