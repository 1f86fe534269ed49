"""Transaction-level CXL link endpoint model: credits + go-back-N link-layer retry.

Written from /work/shared/reference/cxl-flits.md sections 1.3, 1.7, 3 (68B) and 4.4 and the
"Flit wire" part of rtl/include/CONVENTIONS.md (256B replay scheme, ours).

Step API (one flit per call, no clock): ``tx_flit()`` returns the next flit to put on the wire,
``rx_flit(bits)`` takes one flit from the wire, ``send(c, msg)`` queues a message of class c,
``received(c)`` lists what sits in RX buffer c, ``consume(c, n)`` frees RX buffers (their credits
go back to the peer).

68B behaviour, in the words of cxl-flits.md section 3 (our choices where it is open are marked *):
  * LLRB of ``replay_depth`` entries (<= 256); sequence numbers are LLRB indices mod depth.
    INIT.Param advertises LLR Wrap Value = depth - 1 (*"value after which the counter wraps");
    the receiver counts ESeq mod (wrap + 1), default wrap 9 until INIT.Param arrives.
  * Retryable: protocol flits, all-data flits (ADF), LLCRD, INIT.Param. RETRY.* are not stored.
  * NumFreeBuf starts at depth, -1 per stored flit, +8 per received Ak, +Full_Ack per LLCRD.
    With 1 entry left nothing retryable is sent; with 2 left only an LLCRD carrying Ack >= 1.
    * A protocol flit needs >= 7 free entries: itself + up to 4 ADFs it may force + 2 reserved.
  * Ak=1 on a new protocol flit when >= 8 acks are pending (-8); replays keep their stored Ak.
    LLCRD returns min(pending, 255) acks. LLCRD is forced when acks >= ack_force_threshold or
    the flush timer (flits sent without returning while acks > 1 or credits pending) expires;
    * when the link is otherwise idle an LLCRD is sent at once if acks > 1 or credits are pending.
  * Credits: after INIT.Param, all RX buffers are returned; per flit each of ReqCrd/RspCrd/
    DataCrd returns cache or mem credits (* the class with more pending wins, cache on a tie) as
    the largest of 0/1/2/4/8/16/32/64 not above the pending count. TX counters saturate at
    ``credit_max``. A message is sent only with a credit of its class.
  * Retry: CRC error (or an illegal CRC-clean flit, counted as a CRC error) in NORMAL ->
    LLRREQ -> 5 x RETRY.Frame + RETRY.Req(ESeq, NUM_RETRY, NUM_PHY_REINIT) -> LOCAL_IDLE.
    * The Req carries NUM_RETRY before the increment; the RETRY.Ack must echo that value.
    A good framed RETRY.Req (>= 5 consecutive clean RETRY.Frame right before it) puts the RRSM in
    LLRACK: the TX sends 5 x Frame + RETRY.Ack(Empty = nothing to replay, NUM_RETRY echo, WrPtr,
    ESeq echo, NumFreeBuf: the values when the Ack flit is built) and replays from ESeq.
    TIMEOUT counts transmitted flits in LOCAL_IDLE; at ``retry_timeout`` the Req is re-sent.
    NUM_RETRY == max -> (instant, modelled) PHY re-init; both at max -> ABORT.
  * Priority: a started RETRY sequence finishes; the next stream flit is sent first if it is
    an ADF (new or replayed: nothing may be interleaved while the peer expects an ADF); then
    RETRY.Ack sequence, RETRY.Req sequence, replay, INIT/RETRY.Idle, LLCRD/protocol flits.
  * Init: RETRY.Idle until one CRC-clean flit was received, then INIT.Param once.

256B behaviour (CONVENTIONS.md; slot packing by models.cxl.flit256): payload flits (type 10b)
are retryable and carry Replay Cmd 01 = ACK with the count of acknowledged flits (all pending,
<= 1023) or 00; NOP flits (type 00b) are idle (00), RETRY.Req (10, field = ESeq) or RETRY.Ack
(11, field = ESeq echo) and are not stored. One Req NOP per request, one Ack NOP per answer (no
framing); an Ack is accepted in LOCAL_IDLE when its echo equals our ESeq. Sequence numbers are
10 bits (mod 1024); * replay_depth must be a power of two so LLRB index = seq mod depth.
* No INIT.Param in 256B: NOP idle until one CRC-clean flit was received, then credits flow.
* Ack/credit-only payload flits use the same forcing/eager rules as the 68B LLCRD; with 2 free
entries only a flit carrying ACK >= 1 is sent. Data rollover needs no all-data flits in 256B.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Callable, Sequence

from models.cxl import flit68 as f68
from models.cxl import flit256 as f256
from models.cxl.crc import flit68_crc_ok, flit256_crc_ok
from models.cxl.flit68 import LinkMsg, as_link_msg
from models.cxl.messages import CLASS_INDEX, CLASS_OF, NCLS, ROLE_DOWN, ROLE_UP, SPECS, CxlMessage

SEQ_MOD_256 = 1 << f256.SEQ_FIELD_W
MIN_DEPTH_68B = 22  # 16 forced acks + 4 ADF + 2 (cxl-flits.md 3)
NORMAL, LLRREQ, LOCAL_IDLE, ABORT = "NORMAL", "LLRREQ", "LOCAL_IDLE", "ABORT"
RRSM_NORMAL, LLRACK = "REMOTE_NORMAL", "LLRACK"
FRAMES_PER_SEQ = 5
MAX_ADF_RUN = 4
PROTOCOL_MIN_FREE = 1 + MAX_ADF_RUN + 2
LLRB_MAX = 256
ACK_MAX_68B = 255


# Flits that must all arrive CRC-clean for one 68B retry attempt to end the retry: our
# FRAMES_PER_SEQ RETRY.Frame + RETRY.Req reach the peer, its Frames + RETRY.Ack come back (a Frame
# hit breaks the run of consecutive Frames that frames the Req/Ack, cxl-flits.md), and the first
# replayed flit arrives (a CRC error on it starts the next attempt with NUM_RETRY not reset:
# NUM_RETRY returns to 0 only on a good retryable flit or an Ack with Empty set).
RETRY_ATTEMPT_FLITS_68B = 2 * (FRAMES_PER_SEQ + 1) + 1


def retry_attempt_failure_68b(ber: float, flit_bits: int = f68.FLIT_W) -> float:
    """Probability that one 68B retry attempt fails under independent bit errors at ``ber``.

    Any of the RETRY_ATTEMPT_FLITS_68B flits hit fails the attempt (a lost Req or Ack ends in
    the retry timeout, a hit replayed flit in a new Req): 1 - (1 - q)^13 with q the probability
    that a flit of ``flit_bits`` has at least one error. At BER 1e-4 q is 5.1 % and an attempt
    fails about half the time; at 1e-5, 6.6 %.
    """
    if not 0.0 <= ber < 1.0:
        raise ValueError("ber is a probability in [0, 1)")
    q = 1.0 - (1.0 - ber) ** flit_bits
    return 1.0 - (1.0 - q) ** RETRY_ATTEMPT_FLITS_68B


def retry_exhaustion_68b(ber: float, max_retry: int, flit_bits: int = f68.FLIT_W) -> float:
    """Probability that one retry episode (a CRC error in NORMAL) sends ``max_retry`` Reqs and
    every one fails: the chance per episode that a link without PHY re-init (cxl_link's
    link_fatal at MAX_RETRY) gives up, attempts taken as independent."""
    if not 0 < max_retry < 32:
        raise ValueError("NUM_RETRY is a 5-bit counter: max_retry is 1..31")
    return retry_attempt_failure_68b(ber, flit_bits) ** max_retry


class LinkError(RuntimeError):
    """A link protocol violation seen by the model (overflow, bad sequence, second INIT...)."""


@dataclass
class LinkStats:
    """Counters for tests and reports."""

    tx_flits: int = 0
    tx_new: int = 0  # new retryable flits stored in the LLRB
    tx_replayed: int = 0
    tx_adf: int = 0
    tx_llcrd: int = 0
    tx_idle: int = 0
    tx_retry_req: int = 0  # RETRY.Req flits (one per sequence)
    tx_retry_ack: int = 0
    rx_flits: int = 0
    rx_crc_errors: int = 0
    rx_illegal: int = 0  # CRC-clean but illegal flits (treated as CRC errors)
    rx_discarded: int = 0  # clean flits dropped while waiting for RETRY.Ack
    timeouts: int = 0
    phy_reinits: int = 0
    msgs_sent: int = 0
    msgs_received: int = 0


def _role(role: int | str) -> int:
    return f68.tx_role(role)


def _per_class(value: int | Sequence[int], name: str) -> list[int]:
    if isinstance(value, int):
        return [value] * NCLS
    if len(value) != NCLS:
        raise ValueError(f"{name} needs 6 entries")
    return [int(v) for v in value]


class LinkEndpoint:
    """One end of a CXL link (see the module docstring).

    Parameters: ``mode`` "68B" or "256B"; ``role`` ROLE_DOWN/ROLE_UP (or "down"/"up");
    ``replay_depth`` LLRB entries; ``rx_credits`` RX buffers per class (int or 6 ints; classes that
    do not exist in the mode get none).
    """

    def __init__(self, mode: str = "68B", role: int | str = ROLE_DOWN, replay_depth: int = 32,
                 rx_credits: int | Sequence[int] = 8, *, retry_timeout: int = 4096, ack_force_threshold: int = 16,
                 flush_timer: int = 32, max_num_retry: int = 16, max_num_phy_reinit: int = 16,
                 credit_max: int = 255, mdh: bool = False, max_per_class: int | Sequence[int] | None = None) -> None:
        if mode not in ("68B", "256B"):
            raise ValueError("mode is '68B' or '256B'")
        self.mode = mode
        self.role = _role(role)
        self.peer_role = ROLE_UP if self.role == ROLE_DOWN else ROLE_DOWN
        if mode == "68B" and not MIN_DEPTH_68B <= replay_depth <= LLRB_MAX:
            raise ValueError(f"68B replay_depth must be {MIN_DEPTH_68B}..{LLRB_MAX}")
        if mode == "256B" and (replay_depth not in [1 << k for k in range(3, 11)]):
            raise ValueError("256B replay_depth must be a power of two 8..1024 (it divides the 10-bit sequence space)")
        if not 0 < max_num_retry < 32 or not 0 < max_num_phy_reinit < 32:
            raise ValueError("NUM_RETRY / NUM_PHY_REINIT are 5-bit counters")
        self.depth = replay_depth
        # sequence numbers: LLRB index mod depth (68B); 10-bit header field (256B)
        self.seq_mod = replay_depth if mode == "68B" else SEQ_MOD_256
        self.retry_timeout = retry_timeout
        self.ack_force_threshold = ack_force_threshold
        self.flush_timer = flush_timer
        self.max_num_retry = max_num_retry
        self.max_num_phy_reinit = max_num_phy_reinit
        self.credit_max = credit_max
        self.stats = LinkStats()
        flavor = "68B" if mode == "68B" else "256B"
        self._tx_ok = [SPECS[CLASS_OF[(self.role, c)]].width(flavor) > 0 for c in range(NCLS)]
        rx_ok = [SPECS[CLASS_OF[(self.peer_role, c)]].width(flavor) > 0 for c in range(NCLS)]
        self.rx_cap = [n if ok else 0 for n, ok in zip(_per_class(rx_credits, "rx_credits"), rx_ok)]
        # TX side
        self.tx_q: list[deque[LinkMsg]] = [deque() for _ in range(NCLS)]
        self.tx_crd = [0] * NCLS
        self.llrb: list[tuple[int, bool] | None] = [None] * replay_depth  # (flit, is_adf)
        self.wr = 0
        self.rd = 0
        self.nfb = replay_depth
        self.num_ack = 0  # acks owed to the peer
        self.crd_pending = list(self.rx_cap)  # credits owed to the peer
        self.flush_count = 0
        self.init_sent = False
        self._ctl_seq: deque[str] = deque()
        self.rrsm = RRSM_NORMAL
        self._ack_eseq = 0
        self._ack_num_retry = 0
        # RX side
        self.rx_buf: list[deque[LinkMsg]] = [deque() for _ in range(NCLS)]
        self.lrsm = NORMAL
        self.eseq = 0
        self.rx_mod = (f68.LLR_WRAP_DEFAULT + 1) if mode == "68B" else SEQ_MOD_256
        self.rx_clean_seen = False
        self.init_rcvd = False
        self.num_retry = 0
        self.num_phy_reinit = 0
        self._last_req_num_retry = 0
        self.timeout = 0
        self.frame_count = 0
        if mode == "68B":
            self.packer = f68.Flit68Packer(self.role, max_per_class, mdh)
            self.unpacker = f68.Flit68Unpacker(self.peer_role, mdh)
        else:
            self.packer256 = f256.Flit256Packer(self.role, False, max_per_class)
            self.rx256 = f256.Flit256RxState()

    # ------------------------------------------------------------------ user side
    def send(self, class_idx: int, msg: CxlMessage | LinkMsg) -> None:
        """Queue ``msg`` on TX class ``class_idx`` (checked against the role and the mode)."""
        item = as_link_msg(msg)
        expect = CLASS_OF[(self.role, class_idx)]
        if item.mid != expect:
            raise ValueError(f"class {class_idx} of role {self.role} carries {expect}, not {item.mid}")
        if not self._tx_ok[class_idx]:
            raise ValueError(f"{expect} does not exist in {self.mode} flits")
        if self.mode == "68B":
            f68.check_link_msg(item, self.role)
        elif item.be is not None or item.sz32:
            raise ValueError("be/sz32 are 68B-only options")
        self.tx_q[class_idx].append(item)

    def received(self, class_idx: int) -> list[CxlMessage]:
        """Messages waiting in RX buffer ``class_idx``, oldest first (not removed)."""
        return [it.msg for it in self.rx_buf[class_idx]]

    def received_items(self, class_idx: int) -> list[LinkMsg]:
        """As :meth:`received` but with the transfer options (BE, 32B)."""
        return list(self.rx_buf[class_idx])

    def consume(self, class_idx: int, n: int = 1) -> list[CxlMessage]:
        """Remove the ``n`` oldest messages of RX buffer ``class_idx``; their credits go back."""
        if n > len(self.rx_buf[class_idx]):
            raise ValueError(f"only {len(self.rx_buf[class_idx])} messages in RX buffer {class_idx}")
        out = [self.rx_buf[class_idx].popleft().msg for _ in range(n)]
        self.crd_pending[class_idx] += n
        return out

    def idle(self) -> bool:
        """Nothing queued, no retry or replay in progress, at most one flit unacknowledged.

        (One can stay unacknowledged: a lone received LLCRD leaves acks == 1, which does not
        start the flush timer, so LLCRDs do not ping-pong on an idle link.)
        """
        return (not any(self.tx_q) and self.nfb >= self.depth - 1 and self.lrsm == NORMAL
                and self.rrsm == RRSM_NORMAL and not self._ctl_seq and self.rd == self.wr)

    @property
    def aborted(self) -> bool:
        return self.lrsm == ABORT

    # ------------------------------------------------------------------ TX
    def tx_flit(self) -> int:
        """The next flit for the wire (68B: 528-bit int, 256B: 2048-bit int)."""
        self.stats.tx_flits += 1
        if self.lrsm == LOCAL_IDLE:
            self.timeout += 1
            if self.timeout >= self.retry_timeout:
                self.stats.timeouts += 1
                self.lrsm = LLRREQ
                self.timeout = 0
        if self.mode == "256B":
            return self._tx256()
        return self._tx68()

    def _tx68(self) -> int:
        if self._ctl_seq:
            return self._ctl_step()
        if self.rd != self.wr and self._entry(self.rd)[1]:
            return self._replay_one()
        if self.rd == self.wr and self.packer.adf_due:
            res = self.packer.pack_adf()
            self.stats.tx_adf += 1
            return self._store(res.flit, True)
        if self.rrsm == LLRACK:
            self._ctl_seq.extend(["frame"] * FRAMES_PER_SEQ + ["ack"])
            return self._ctl_step()
        if self.lrsm == LLRREQ:
            if self._start_req():
                self._ctl_seq.extend(["frame"] * FRAMES_PER_SEQ + ["req"])
                return self._ctl_step()
        if self.lrsm == ABORT:
            return self._idle_flit()
        if self.rd != self.wr:
            return self._replay_one()
        if not self.rx_clean_seen:
            return self._idle_flit()
        if not self.init_sent:
            self.init_sent = True
            return self._store(f68.init_param(self.depth - 1).encode(), False)
        return self._new_flit68()

    def _idle_flit(self) -> int:
        self.stats.tx_idle += 1
        self._tick_flush(False)
        return f68.retry_idle().encode()

    def _start_req(self) -> bool:
        """Checks before a RETRY.Req sequence; False when the link aborted."""
        if self.num_retry >= self.max_num_retry:
            if self.num_phy_reinit >= self.max_num_phy_reinit:
                self.lrsm = ABORT
                return False
            self.num_phy_reinit += 1  # the PHY retrain is modelled as instantaneous
            self.stats.phy_reinits += 1
            self.num_retry = 0
        return True

    def _ctl_step(self) -> int:
        step = self._ctl_seq.popleft()
        if step == "frame":
            return f68.retry_frame().encode()
        if step == "req":
            self.stats.tx_retry_req += 1
            flit = f68.retry_req(self.eseq, self.num_retry, self.num_phy_reinit).encode()
            self._last_req_num_retry = self.num_retry
            self.num_retry += 1
            self.lrsm = LOCAL_IDLE
            self.timeout = 0
            return flit
        # RETRY.Ack: replay from the requested ESeq
        self.stats.tx_retry_ack += 1
        self.rd = self._ack_eseq
        empty = int(self.rd == self.wr)
        flit = f68.retry_ack(self._ack_eseq, self._ack_num_retry, empty, 0, self.wr % 256, min(self.nfb, 255)).encode()
        self.rrsm = RRSM_NORMAL
        return flit

    def _replay_one(self) -> int:
        entry = self._entry(self.rd)
        self.rd = (self.rd + 1) % self.seq_mod
        self.stats.tx_replayed += 1
        self._tick_flush(False)
        return entry[0]

    def _store(self, flit: int, is_adf: bool) -> int:
        if self.nfb <= 1:
            raise LinkError("internal: LLRB full")
        if self.rd != self.wr:
            raise LinkError("internal: new flit while replaying")
        self.llrb[self.wr % self.depth] = (flit, is_adf)
        self.wr = (self.wr + 1) % self.seq_mod
        self.rd = self.wr
        self.nfb -= 1
        self.stats.tx_new += 1
        return flit

    def _entry(self, seq: int) -> tuple[int, bool]:
        entry = self.llrb[seq % self.depth]
        assert entry is not None
        return entry

    def _tick_flush(self, returned: bool) -> None:
        if not returned and (self.num_ack > 1 or any(self.crd_pending)):
            self.flush_count += 1
        else:
            self.flush_count = 0

    def _take_credit_fields(self) -> tuple[int, int, int]:
        fields = f68.credit_fields_for(self.crd_pending)
        for c, n in enumerate(f68.credits_from_fields(*fields)):
            self.crd_pending[c] -= n
        return fields

    def _llcrd68(self) -> int:
        full_ack = min(self.num_ack, ACK_MAX_68B)
        self.num_ack -= full_ack
        fields = self._take_credit_fields()
        self.stats.tx_llcrd += 1
        self._tick_flush(True)
        return self._store(f68.llcrd_ack(full_ack, *fields).encode(), False)

    def _sendable(self) -> bool:
        """Messages with credits are queued, or rollover data waits for the next protocol flit."""
        return self.packer.rollover > 0 or any(self.tx_q[c] and self.tx_crd[c] > 0 for c in range(NCLS))

    def _new_flit68(self) -> int:
        want_return = self.num_ack > 1 or any(self.crd_pending)
        force = self.flush_count >= self.flush_timer or self.num_ack >= self.ack_force_threshold
        if self.nfb <= 1 or (self.nfb == 2 and self.num_ack == 0):
            return self._idle_flit()
        if self.nfb == 2 or force:
            return self._llcrd68()
        if self._sendable() and self.nfb >= PROTOCOL_MIN_FREE:
            ak = 1 if self.num_ack >= 8 else 0
            self.num_ack -= 8 * ak
            fields = self._take_credit_fields()
            res = self.packer.pack(self.tx_q, self.tx_crd, ak, *fields)
            for c, n in enumerate(res.counts()):
                for _ in range(n):
                    self.tx_q[c].popleft()
                self.tx_crd[c] -= n
                self.stats.msgs_sent += n
            self._tick_flush(bool(ak) or any(fields))
            return self._store(res.flit, False)
        if want_return:
            return self._llcrd68()
        return self._idle_flit()

    # ------------------------------------------------------------------ RX
    def rx_flit(self, bits: int) -> None:
        """Take one flit from the wire."""
        self.stats.rx_flits += 1
        if self.mode == "256B":
            self._rx256(bits)
            return
        if self.lrsm == ABORT:
            return
        if not flit68_crc_ok(bits):
            self._rx_error(crc=True)
            return
        self.rx_clean_seen = True
        if self.lrsm != NORMAL:
            ctl = f68.parse_control(bits)
            if ctl is not None and ctl.is_retry:
                self._rx_retry_ctl(ctl.subtype, ctl.eseq, ctl.num_retry, ctl.empty)
            else:
                self.frame_count = 0
                self.stats.rx_discarded += 1
            return
        try:
            rx = self.unpacker.unpack(bits)
        except f68.FlitError:
            self._rx_error(crc=False)
            return
        if rx.kind == "control" and rx.control is not None and rx.control.is_retry:
            c = rx.control
            self._rx_retry_ctl(c.subtype, c.eseq, c.num_retry, c.empty)
            return
        self.frame_count = 0
        is_init = rx.kind == "control" and rx.control is not None and rx.control.name == "INIT.Param"
        if is_init:
            if self.init_rcvd:
                raise LinkError("second INIT.Param received")
            self.init_rcvd = True
            self.rx_mod = rx.control.wrap_value + 1  # type: ignore[union-attr]
        elif not self.init_rcvd:
            raise LinkError(f"{rx.kind} flit received before INIT.Param")
        self._accept_retryable(rx.acks, rx.credits, rx.messages)

    def _accept_retryable(self, acks: int, credits: Sequence[int], messages: Sequence[tuple[int, LinkMsg]]) -> None:
        """Bookkeeping of one good retryable flit in NORMAL (both modes)."""
        self.eseq = (self.eseq + 1) % self.rx_mod
        self.num_ack += 1
        self.num_retry = 0
        self.num_phy_reinit = 0
        self.nfb += acks
        if self.nfb > self.depth:
            raise LinkError(f"peer acknowledged more flits than were sent (NumFreeBuf {self.nfb} > {self.depth})")
        for c, n in enumerate(credits):
            if n and self._tx_ok[c]:
                self.tx_crd[c] = min(self.credit_max, self.tx_crd[c] + n)
        for c, item in messages:
            if len(self.rx_buf[c]) >= self.rx_cap[c]:
                raise LinkError(f"RX buffer overflow on class {c} (capacity {self.rx_cap[c]})")
            self.rx_buf[c].append(item)
            self.stats.msgs_received += 1

    def _rx_error(self, crc: bool) -> None:
        if crc:
            self.stats.rx_crc_errors += 1
        else:
            self.stats.rx_illegal += 1
        self.frame_count = 0
        if self.lrsm == NORMAL:
            self.lrsm = LLRREQ
        else:
            self.stats.rx_discarded += 1

    def _rx_retry_ctl(self, subtype: int, eseq: int, num_retry: int, empty: int) -> None:
        """RETRY.* handling shared by all LRSM states (68B framing)."""
        if subtype == f68.SUB_RETRY_FRAME:
            self.frame_count += 1
            return
        framed = self.frame_count >= FRAMES_PER_SEQ
        self.frame_count = 0
        if not framed:
            return
        if subtype == f68.SUB_RETRY_REQ:
            self._peer_retry_req(eseq, num_retry)
        elif subtype == f68.SUB_RETRY_ACK and self.lrsm == LOCAL_IDLE and num_retry == self._last_req_num_retry:
            self.lrsm = NORMAL
            self.timeout = 0
            if empty:
                self.num_retry = 0
                self.num_phy_reinit = 0

    def _peer_retry_req(self, eseq: int, num_retry: int) -> None:
        """The peer asks for a replay from ``eseq`` (must be inside the unacknowledged window)."""
        unacked = self.depth - self.nfb
        back = (self.wr - eseq) % self.seq_mod
        if back > unacked:
            raise LinkError(f"RETRY.Req ESeq {eseq} outside the replay window (WrPtr {self.wr}, {unacked} unacked)")
        self.rrsm = LLRACK
        self._ack_eseq = eseq
        self._ack_num_retry = num_retry

    # ------------------------------------------------------------------ 256B mode
    def _nop256(self, cmd: int = f256.REPLAY_NONE, field10: int = 0) -> int:
        return f256.flit_bytes_to_int(f256.make_nop_flit(cmd, field10))

    def _tx256(self) -> int:
        if self.rrsm == LLRACK:  # RETRY.Ack NOP, then replay from the requested ESeq
            self.stats.tx_retry_ack += 1
            self.rd = self._ack_eseq
            self.rrsm = RRSM_NORMAL
            return self._nop256(f256.REPLAY_RETRY_ACK, self._ack_eseq)
        if self.lrsm == LLRREQ and self._start_req():
            self.stats.tx_retry_req += 1
            self._last_req_num_retry = self.num_retry
            self.num_retry += 1
            self.lrsm = LOCAL_IDLE
            self.timeout = 0
            return self._nop256(f256.REPLAY_RETRY_REQ, self.eseq)
        if self.lrsm == ABORT or (self.rd == self.wr and not self.rx_clean_seen):
            self.stats.tx_idle += 1
            return self._nop256()
        if self.rd != self.wr:
            return self._replay_one()
        sendable = self.packer256.rollover > 0 or any(self.tx_q[c] and self.tx_crd[c] > 0 for c in range(NCLS))
        want_return = self.num_ack > 1 or any(self.crd_pending)
        force = self.flush_count >= self.flush_timer or self.num_ack >= self.ack_force_threshold
        if self.nfb <= 1 or (self.nfb == 2 and self.num_ack == 0) or not (sendable or want_return or force):
            self.stats.tx_idle += 1
            self._tick_flush(False)
            return self._nop256()
        ack = min(self.num_ack, SEQ_MOD_256 - 1)
        self.num_ack -= ack
        credits = self._take_crd256()
        queues = [[it.msg for it in list(self.tx_q[c])[:self.tx_crd[c]]] for c in range(NCLS)]
        before = [len(q) for q in queues]
        raw = self.packer256.pack(queues, credits, f256.REPLAY_ACK if ack else f256.REPLAY_NONE, ack)
        for c in range(NCLS):
            n = before[c] - len(queues[c])
            for _ in range(n):
                self.tx_q[c].popleft()
            self.tx_crd[c] -= n
            self.stats.msgs_sent += n
        if not sendable:
            self.stats.tx_llcrd += 1  # an ack/credit-only payload flit
        self._tick_flush(bool(ack) or bool(credits))
        return self._store(f256.flit_bytes_to_int(raw), False)

    def _take_crd256(self) -> dict[str, int]:
        """Per CRD field, the RX class with most credits owed returns the largest encodable amount."""
        out: dict[str, int] = {}
        for fidx in range(3):
            best = None
            for c in range(NCLS):
                mid = CLASS_OF[(self.peer_role, c)]
                if self.rx_cap[c] and f256.crd_channel(mid)[0] == fidx and self.crd_pending[c] > 0:
                    if best is None or self.crd_pending[c] > self.crd_pending[best]:
                        best = c
            if best is None:
                continue
            n = max(v for v in f256.CRD_VALUES if v <= self.crd_pending[best])
            self.crd_pending[best] -= n
            out[CLASS_OF[(self.peer_role, best)]] = n
        return out

    def _rx256(self, bits: int) -> None:
        if self.lrsm == ABORT:
            return
        raw = bits.to_bytes(f256.FLIT_BYTES, "little")
        if not flit256_crc_ok(raw):
            self._rx_error(crc=True)
            return
        self.rx_clean_seen = True
        try:
            hdr = f256.FlitHeader256.decode(int.from_bytes(raw[0:2], "little"))
        except f256.FlitError:
            self._rx_error(crc=False)
            return
        if hdr.flit_type == f256.FLIT_TYPE_NOP:
            if hdr.replay_cmd == f256.REPLAY_RETRY_REQ:
                self._peer_retry_req(hdr.field10, 0)
            elif (hdr.replay_cmd == f256.REPLAY_RETRY_ACK and self.lrsm == LOCAL_IDLE
                  and hdr.field10 == self.eseq):
                self.lrsm = NORMAL
                self.timeout = 0
                self.num_retry = 0
                self.num_phy_reinit = 0
            return
        if self.lrsm != NORMAL:
            self.stats.rx_discarded += 1
            return
        try:
            res = f256.unpack_flit256(self.peer_role, False, raw, self.rx256)
        except f256.FlitError:
            self._rx_error(crc=False)
            return
        credits = [0] * NCLS
        for mid, n in res.credits.items():
            role, c = CLASS_INDEX[mid]
            if role == self.role:
                credits[c] += n
        acks = res.header.field10 if res.header is not None and res.header.replay_cmd == f256.REPLAY_ACK else 0
        self._accept_retryable(acks, credits, [(c, LinkMsg(m)) for c, m in res.order])


WireFn = Callable[[int], "int | None"]


def run_pair(a: LinkEndpoint, b: LinkEndpoint, steps: int, wire_ab: WireFn | None = None,
             wire_ba: WireFn | None = None) -> None:
    """Exchange ``steps`` flits each way; ``wire_*(flit) -> flit | None`` may corrupt or drop."""
    for _ in range(steps):
        fa, fb = a.tx_flit(), b.tx_flit()
        fa = wire_ab(fa) if wire_ab else fa
        fb = wire_ba(fb) if wire_ba else fb
        if fa is not None:
            b.rx_flit(fa)
        if fb is not None:
            a.rx_flit(fb)


__all__ = ["LinkEndpoint", "LinkError", "LinkStats", "run_pair", "retry_attempt_failure_68b", "retry_exhaustion_68b",
           "RETRY_ATTEMPT_FLITS_68B", "NORMAL", "LLRREQ", "LOCAL_IDLE", "ABORT",
           "LLRACK", "RRSM_NORMAL"]
