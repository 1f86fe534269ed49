"""cocotb/pyuvm tests of xbridge_core, and of xbridge_top through its CXL links with XB_TOP set
(tb/bridge/hdl/xbridge_top_tb.v; entry point: tests/test_bridge.py)."""
from __future__ import annotations

import os
import random
from collections import Counter, deque

import cocotb
import pyuvm
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly
from pyuvm import uvm_test

from models.bridge import NVLINK, UALINK, Packet, XlHeader, XlOp, XlStatus
from models.bridge.convert import FULL_MASK, line_masks
from models.cxl.messages import D2HData, D2HReq, D2HReqOp, D2HRsp, D2HRspOp
from tb.bridge.env import (BridgeEnv, Faults, TbConfig, beats_payloads, make_packet, new_ref,
                           outcome, size_bins)
from tb.common.clock import ClockReset
from tb.common.patterns import Pattern
from tb.common.seeds import announce_seed, component_rng

HOT_LINES = 32


class BridgeBase(uvm_test):
    """Builds the env; subclasses define traffic() and the patterns."""

    enforce_cov = False
    wd_bound = 4000          # cycles: every accepted request answered within (watchdog)
    sb_timeout = 20000       # cycles an expected response may wait for the bridge's (scoreboard)
    top = bool(os.environ.get("XB_TOP"))     # xbridge_top_tb: the bridge behind its CXL links

    def faults(self) -> Faults | None:
        return None

    def link_knobs(self) -> dict[str, int]:
        """xbridge_top_tb's test inputs: perfect wires (no bit errors, no stalls), no unexpected
        messages from the device side."""
        return {"ber_en": 0, "ber_thresh": 0, "bp_seed": 0, "bp_thresh": 0, "unexp_valid": 0}

    def patterns(self, rng: random.Random) -> tuple[Pattern, Pattern, Pattern, tuple[int, int]]:
        return (Pattern.random(0.8, rng), Pattern.random(0.7, rng), Pattern.random(0.6, rng),
                (10, 120))

    def build_phase(self) -> None:
        self.cfg = TbConfig.from_env()
        self.rng = component_rng(self)
        idle, sink, rdy, lat = self.patterns(self.rng)
        self.env = BridgeEnv("env", self, self.cfg, idle, sink, rdy, lat, cov=self.enforce_cov,
                             faults=self.faults(), wd_bound=self.wd_bound, sb_timeout=self.sb_timeout)
        self.sent: list[tuple[Packet, Packet, list[bool], list]] = []
        self.tag = 0
        # requests handed to the XLink driver, not yet taken by the bridge: (packet, the status
        # the test means it to get or None)
        self.unsent: deque[tuple[Packet, XlStatus | None]] = deque()
        # answers that have left: (cycle of the last beat, src, tag), freed in the model before
        # the first header taken in a later cycle
        self.answered: deque[tuple[int, int, int]] = deque()
        self.model_errors: list[str] = []

    def connect_phase(self) -> None:
        self.env.asm.listeners.append(lambda pkt: self.answered.append(
            (self.env.asm.packets[-1][2], pkt.hdr.src, pkt.hdr.tag)))
        self.env.reqmon.listeners.append(self.header_taken)

    def header_taken(self, hdr: XlHeader, cycle: int) -> None:
        """The bridge took a request's header: the model processes it now. A (src, tag) pair is
        outstanding from the cycle its header is taken until its answer's last beat has left, that
        cycle included (the requester cannot have seen the answer when it sent the header), so
        the duplicate verdict is the XLink port's, whatever the request then waits inside."""
        while self.answered and self.answered[0][0] < cycle:
            _, src, tag = self.answered.popleft()
            self.ref.retire(src, tag)
        if not self.unsent:
            self.model_errors.append(f"cycle {cycle}: header {hdr} taken, none was sent")
            return
        pkt, status = self.unsent.popleft()
        if (hdr.src, hdr.tag, hdr.opcode) != (pkt.hdr.src, pkt.hdr.tag, pkt.hdr.opcode):
            self.model_errors.append(f"cycle {cycle}: header {hdr} taken, {pkt.hdr} was sent next")
        exp, ops, local = self.ref.process(pkt)
        # a random (src, tag) that is still outstanding is legal input: BAD_TAG wins over the
        # error the test meant
        if status is not None and exp.hdr.status not in (status, XlStatus.BAD_TAG):
            self.model_errors.append(f"model says {exp.hdr.status}, test meant {status} for {pkt.hdr}")
        self.env.sb.write_expected(exp)
        self.sent.append((pkt, exp, local, ops))

    def end_of_elaboration_phase(self) -> None:
        cg = self.env.cov.group("xbridge")
        cg.coverpoint("op", ["read", "write"])
        cg.coverpoint("size", size_bins())
        buf = self.cfg.buf_en
        cg.coverpoint("res", ["hit", "miss", "coh"] if buf else ["miss", "coh"])
        cg.cross("op_x_size_x_res", ["op", "size", "res"])
        if self.cfg.flavor == NVLINK:
            # partial lines (16 B granularity): reads return the bytes, writes read-modify-write
            cg.coverpoint("shape", ["full", "head", "tail", "both"])
            cg.cross("op_x_shape", ["op", "shape"])
        if self.cfg.xw > 1:
            # responses end in every beat lane of a transfer
            cg.coverpoint("last_lane", list(range(self.cfg.xw)))
            self.env.asm.listeners.append(self.sample_last_lane)
        self.cg = cg
        self.eg = None

    def sample_last_lane(self, pkt: Packet) -> None:
        self.cg.sample(last_lane=(len(pkt.beats(self.cfg.flavor)) - 1) % self.cfg.xw)

    # ------------------------------------------------------------------ traffic helpers
    def base(self) -> int:
        return self.cfg.bridge.win_base

    def pkt(self, op: int, off: int, nbytes: int) -> Packet:
        # tags and sources over their full 10-bit ranges; a (src, tag) pair still outstanding is
        # legal input that the model answers BAD_TAG
        self.tag = self.rng.randrange(1024)
        return make_packet(self.cfg, self.rng, op, self.base() + off, nbytes, self.tag,
                           self.rng.randrange(1024))

    def shape(self, full: bool = False) -> tuple[int, int, int]:
        """Random legal (byte offset inside the first line, bytes, lines touched) of the flavour."""
        r = self.rng
        if self.cfg.flavor == UALINK or full:
            nl = r.randint(1, 4)
            return 0, 64 * nl, nl
        nfl = r.randint(2, 16)
        s = r.randint(0, 16 - nfl)
        s = min(s, 3)
        return 16 * s, 16 * nfl, len(line_masks(16 * s, 16 * nfl))

    def far_off(self, nl: int) -> int:
        """Offset of a random line anywhere in the window (its whole address width) whose nl
        lines stay outside the coherent sub-range."""
        b, r = self.cfg.bridge, self.rng
        while True:
            off = 64 * r.randrange(b.win_size // 64 - nl + 1)
            if off + 64 * nl <= b.coh_off or off >= b.coh_off + b.coh_size:
                return off

    def random_req(self, p_hot: float = 0.65, lines: int = 16384, p_far: float = 0.3) -> Packet:
        """A random request: coherent sub-range, the hot lines, one of the first `lines` lines,
        or (share p_far of the non-hot ones) anywhere in the window."""
        r = self.rng
        u = r.random()
        if u < 0.12:
            # coherent sub-range: reads of any shape, full-line writes (ItoMWr); half on its first
            # 64 lines (reuse: a line the home agent has seen), half anywhere in it, so the D2H
            # address carries every bit the sub-range spans
            op = XlOp.READ if u < 0.08 else XlOp.WRITE
            lead, nb, nl = self.shape(full=(op == XlOp.WRITE))
            span = 64 if r.random() < 0.5 else self.cfg.bridge.coh_size // 64
            return self.pkt(op, self.cfg.bridge.coh_off + 64 * r.randrange(span - nl + 1) + lead, nb)
        lead, nb, nl = self.shape()
        op = XlOp.READ if r.random() < 0.65 else XlOp.WRITE
        if u < 0.12 + p_hot:
            off = 64 * r.randrange(HOT_LINES - nl + 1)
        elif r.random() < p_far:
            off = self.far_off(nl)
        else:
            off = 64 * r.randrange(lines - nl + 1)
        return self.pkt(op, off + lead, nb)

    async def send(self, pkt: Packet) -> None:
        """Drive `pkt`; the model answers it when its header is taken (header_taken)."""
        self.unsent.append((pkt, None))
        await self.env.xl.send(beats_payloads(self.cfg, pkt))

    async def send_raw(self, pkt: Packet, beats: list[dict[str, int]], status: XlStatus | None) -> None:
        """A malformed packet: expected answer is ERR with `status` (checked against the model;
        None: whatever the model says)."""
        self.unsent.append((pkt, status))
        await self.env.xl.send(beats)

    async def send_dup(self) -> None:
        """A read miss, then at once a request with the same (src, tag). The first is outstanding
        when the second's header is taken unless the bridge holds the second back for the first's
        whole far-side round trip, so the model answers the second BAD_TAG nearly always (the
        errors covergroup requires it to happen); the model decides each case."""
        r = self.rng
        first = self.pkt(XlOp.READ, 64 * r.randrange(40000, 60000), 64)
        await self.send(first)
        op = r.choice([XlOp.READ, XlOp.WRITE, 7])
        lead, nb, _ = self.shape()
        second = make_packet(self.cfg, r, XlOp.WRITE if op == XlOp.WRITE else XlOp.READ,
                             self.base() + 64 * r.randrange(64) + lead, nb, first.hdr.tag, first.hdr.src)
        if op == 7:                     # a duplicate that is malformed as well: BAD_TAG wins
            second = Packet(XlHeader(7, first.hdr.tag, first.hdr.src, second.hdr.len, second.hdr.addr))
        await self.send_raw(second, beats_payloads(self.cfg, second), None)

    async def wait_responses(self, max_cycles: int = 50000) -> None:
        clk = cocotb.top.clk
        for _ in range(max_cycles):
            if len(self.env.asm.packets) >= len(self.sent):
                return
            await FallingEdge(clk)
        raise AssertionError(f"only {len(self.env.asm.packets)}/{len(self.sent)} responses arrived")

    async def wait_wb_empty(self, max_cycles: int = 20000) -> None:
        dut = cocotb.top
        for _ in range(max_cycles):
            await FallingEdge(dut.clk)
            if int(dut.wb_empty.value) and not int(dut.m2s_rwd_valid.value):
                await ClockCycles(dut.clk, 200)     # let the last NDRs land in memory
                return
        raise AssertionError("write buffer did not drain")

    # ------------------------------------------------------------------ run
    async def traffic(self) -> None:
        raise NotImplementedError

    async def run_phase(self) -> None:
        self.raise_objection()
        announce_seed(self.logger)
        dut = cocotb.top
        if self.top:
            for k, v in self.link_knobs().items():
                getattr(dut, k).value = v
        await ClockReset(dut.clk, dut.rst).start()
        self.ref = new_ref(self.cfg)
        self.ref.nxm = self.env.mem.nxm
        await self.traffic()
        await self.wait_responses()
        await self.wait_wb_empty()
        await self.env.mem.quiesce()
        self.final_checks()
        self.drop_objection()

    def final_checks(self) -> None:
        dut = cocotb.top
        assert not self.model_errors, "\n".join(self.model_errors[:5])
        assert not self.unsent, f"{len(self.unsent)} requests sent but never taken"
        dbg = os.environ.get("XB_DEBUG_ADDR")
        if dbg:
            a0 = int(dbg, 0)
            for k, (pkt, exp, _, ops) in enumerate(self.sent):
                if any(o.xl_addr == a0 for o in ops):
                    self.logger.info(f"DBG req {k} {XlOp(pkt.hdr.opcode).name} addr {pkt.hdr.addr:#x} len {pkt.hdr.len} "
                                     f"masks {[hex(o.mask) for o in ops]} lanes {[ (o.hpa>>6)%self.cfg.lanes for o in ops]} "
                                     f"kinds {self.env.dbg.request_kinds(k, ops)} st {exp.hdr.status} "
                                     f"enter {self.env.dbg.enter_cycle.get(k)}")
        mem, ref = self.env.mem, self.ref
        bad = [ln for ln, d in ref.mem.items() if mem.read(ln) != d]
        for ln in bad[:3]:
            self.logger.error(f"line {ln:#x}: cxl {mem.read(ln).hex()[:32]} in_mem={ln in mem.mem} "
                              f"ref {ref.mem[ln].hex()[:32]}")
        assert not bad, f"{len(bad)} CXL lines differ from the reference after drain, e.g. {bad[0]:#x}"
        extra = [ln for ln in mem.mem if ln not in ref.mem]
        assert not extra, f"bridge wrote lines the reference never wrote: {extra[:4]}"
        n_err = sum(1 for _, e, _, _ in self.sent if e.hdr.opcode == XlOp.ERR)
        assert int(dut.stat_err.value) == n_err, f"stat_err {int(dut.stat_err.value)} != {n_err}"
        n_proto = self.env.mem.proto_faults()
        assert int(dut.stat_proto_err.value) == n_proto, \
            f"stat_proto_err {int(dut.stat_proto_err.value)}, {n_proto} faulty CXL responses injected"
        assert self.env.dbg.hbm_checked > 0 or not self.cfg.buf_en or self.ref.cache is None \
            or self.ref.cache.hits == 0, "HBM accesses happened but none was checked"
        for k, (pkt, exp, _, ops) in enumerate(self.sent):
            kinds = self.env.dbg.request_kinds(k, ops)
            masks = [o.mask for o in ops]
            if exp.hdr.opcode == XlOp.ERR:
                if self.eg is not None:
                    self.eg.sample(status=XlStatus(exp.hdr.status).name)
                if exp.hdr.status != XlStatus.CXL_ERR:
                    n = self.env.dbg.n_kinds(k)
                    assert n == 0, f"request {k} answered with error but issued {n} lines"
                continue
            nl = len(kinds)
            assert nl == len(masks), f"request {k}: {nl} lines issued, the request touches {len(masks)}"
            op = "read" if pkt.hdr.opcode == XlOp.READ else "write"
            self.cg.sample(op=op, size=64 * nl, res=outcome(kinds))
            if self.cfg.flavor == NVLINK:
                head, tail = masks[0] & 1 == 0, masks[-1] & 8 == 0
                self.cg.sample(op=op, shape={(False, False): "full", (True, False): "head",
                                             (False, True): "tail", (True, True): "both"}[(head, tail)])
        # partial write lines: each reads its line unless it coalesces into the write buffer
        n_part = sum(1 for p, e, _, ops in self.sent if p.hdr.opcode == XlOp.WRITE
                     and e.hdr.status in (XlStatus.OK, XlStatus.CXL_ERR) for o in ops
                     if o.mask != FULL_MASK)
        rmw = int(dut.stat_rmw.value)
        if self.cfg.buf_en:
            assert rmw <= n_part, f"{rmw} read-modify-writes for {n_part} partial lines"
        else:
            assert rmw == n_part, f"{rmw} read-modify-writes for {n_part} partial lines"
        # the line counters count the lanes' issue events, which the debug monitor saw one by one
        seen = Counter(k for ks in self.env.dbg.kinds.values() for k in ks)
        for stat, kind in (("stat_hit", "hit"), ("stat_fwd", "fwd"), ("stat_miss", "memrd")):
            got = int(getattr(dut, stat).value)
            assert got == seen[kind], f"{stat} {got}, {seen[kind]} {kind} lines issued"
        self.logger.info(f"{len(self.sent)} requests, stats hit={int(dut.stat_hit.value)} "
                         f"rmw={int(dut.stat_rmw.value)} "
                         f"fwd={int(dut.stat_fwd.value)} miss={int(dut.stat_miss.value)} "
                         f"ht_hit={int(dut.stat_ht_hit.value)} err={int(dut.stat_err.value)} "
                         f"cxl={self.env.mem.counts} hbm_checked={self.env.dbg.hbm_checked} "
                         f"faults={self.env.mem.injected} wd_max_latency={self.env.wd.max_latency}")


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class BridgeRandomTest(BridgeBase):
    """Random sizes/addresses (NVLink: every 16 B size and offset), hot-set reuse, coherent reads
    and writes, back-pressure on both sides and out-of-order CXL completions; coverage of opcode x
    size x hit/miss/coherent (and NVLink partial-line shapes) must be complete."""

    enforce_cov = True
    n_req = 260 * (10 if os.environ.get("SOAK") else 1)

    async def traffic(self) -> None:
        for _ in range(self.n_req):
            await self.send(self.random_req())
        # make sure every (op, size) meets a warm line at least once: the random traffic drains
        # first and the last write waits for the reads, so no request still in flight can evict
        # the line in between (seed 864205654 missed <write,64,hit> that way)
        await self.wait_responses()
        for nl in range(1, 5):
            for op in (XlOp.WRITE, XlOp.READ, XlOp.READ):
                await self.send(self.pkt(op, 64 * 4 * nl, 64 * nl))
            await self.wait_responses()
            await self.send(self.pkt(XlOp.WRITE, 64 * 4 * nl, 64 * nl))
            await self.wait_responses()
        for nl in range(1, 5):
            await self.send(self.pkt(XlOp.READ, self.cfg.bridge.coh_off + 64 * 8 * nl, 64 * nl))
            await self.send(self.pkt(XlOp.WRITE, self.cfg.bridge.coh_off + 64 * 8 * nl, 64 * nl))
            await self.send(self.pkt(XlOp.READ, 64 * (20000 + 8 * nl), 64 * nl))
            await self.send(self.pkt(XlOp.WRITE, 64 * (30000 + 8 * nl), 64 * nl))


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class BridgeSequentialTest(BridgeBase):
    """One request at a time: the RTL's cache hit/miss per line and its header-table hits must be
    exactly what the policy model predicts."""

    def patterns(self, rng: random.Random) -> tuple[Pattern, Pattern, Pattern, tuple[int, int]]:
        return Pattern.always(), Pattern.always(), Pattern.always(), (30, 30)

    async def traffic(self) -> None:
        # tensor-tile reuse: a few request shapes recur (header-table hits), the rest is random
        tiles = []
        for _ in range(6):
            nl = self.rng.randint(1, 4)
            tiles.append((self.rng.choice([XlOp.READ, XlOp.READ, XlOp.WRITE]),
                          64 * self.rng.randrange(HOT_LINES - nl + 1), 64 * nl))
        for _ in range(140):
            if self.rng.random() < 0.5:
                op, off, nb = self.rng.choice(tiles)
                await self.send(self.pkt(op, off, nb))
            else:
                await self.send(self.random_req(p_hot=0.8))
            await self.wait_responses()

    def final_checks(self) -> None:
        super().final_checks()
        dut = cocotb.top
        hits = 0
        for k, (pkt, exp, local, ops) in enumerate(self.sent):
            if pkt.hdr.opcode != XlOp.READ or exp.hdr.opcode == XlOp.ERR:
                continue
            kinds = self.env.dbg.request_kinds(k, ops)
            got = [kd == "hit" for kd in kinds]
            assert got == local, f"request {k} {pkt.hdr}: RTL lines {kinds}, model hits {local}"
            hits += sum(local)
        assert int(dut.stat_hit.value) == hits
        if self.cfg.buf_en:
            assert hits > 20, f"reuse-heavy traffic gave only {hits} hits"
        assert self.ref.htab is not None
        assert int(dut.stat_ht_hit.value) == self.ref.htab.hits, \
            f"header-table hits {int(dut.stat_ht_hit.value)} vs model {self.ref.htab.hits}"
        assert self.ref.htab.hits > 10


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class BridgeErrorTest(BridgeBase):
    """Malformed packets (bad opcode, bad length, wrong data-beat count, misaligned, outside the
    window, partial write to the coherent range, a (src, tag) that is still outstanding) and
    far-side errors (NXM / poison on reads and on the read of a partial write), mixed with good
    traffic: each gets one error response, the count matches, good requests are unaffected. The
    NXM lines are never written, so they are never cached."""

    enforce_cov = True

    def end_of_elaboration_phase(self) -> None:
        super().end_of_elaboration_phase()
        self.env.cov.groups.pop("xbridge")     # only the error bins are this test's goal
        self.eg = self.env.cov.group("errors")
        # UALink has no partial lines, so a partial coherent write cannot be expressed
        self.eg.coverpoint("status", [s.name for s in XlStatus if s != XlStatus.OK
                                      and not (s == XlStatus.COH_PTL and self.cfg.flavor == UALINK)])

    def bad_len_field(self) -> int:
        if self.cfg.flavor == UALINK:
            return self.rng.choice([0, 32, 100, 320, 511])
        return self.rng.choice([0, 1, 17, 31, 100])

    async def traffic(self) -> None:
        r, b = self.rng, self.cfg.bridge
        nxm_line = (b.hpa_base >> 6) + 40000
        self.env.mem.nxm.add(nxm_line)
        nxm_off = (nxm_line - (b.hpa_base >> 6)) * 64
        nv = self.cfg.flavor == NVLINK
        for _ in range(160):
            u = r.random()
            if u < 0.5:
                await self.send(self.random_req())
                continue
            kind = r.randrange(8)
            if kind == 7:
                await self.send_dup()
            elif kind == 0:
                op = r.choice([0, 3, 7, 8, 0xF])
                pkt = self.pkt(XlOp.READ, 0, 64)
                pkt = Packet(XlHeader(op, pkt.hdr.tag, pkt.hdr.src, pkt.hdr.len, pkt.hdr.addr))
                await self.send_raw(pkt, beats_payloads(self.cfg, pkt), XlStatus.BAD_OP)
            elif kind == 1:
                h = self.pkt(XlOp.READ, 0, 64).hdr
                pkt = Packet(XlHeader(XlOp.READ, h.tag, h.src, self.bad_len_field(), h.addr))
                await self.send_raw(pkt, beats_payloads(self.cfg, pkt), XlStatus.BAD_LEN)
            elif kind == 2:
                lead, nb, _ = self.shape()
                good = self.pkt(XlOp.WRITE, 64 * r.randrange(16) + lead, nb)
                lines = good.lines[:-1] if r.random() < 0.5 else good.lines + (r.randbytes(64),)
                pkt = Packet(good.hdr, lines)
                await self.send_raw(pkt, beats_payloads(self.cfg, pkt), XlStatus.BAD_LEN)
            elif kind == 3:
                if nv and r.random() < 0.5:     # 16 B aligned but spilling into a fifth line
                    lead = 16 * r.randint(1, 3)
                    pkt = self.pkt(r.choice([XlOp.READ, XlOp.WRITE]), 64 * r.randrange(16) + lead,
                                   256 - 16 * r.randint(0, lead // 16 - 1))
                else:
                    pkt = self.pkt(XlOp.READ, 64 * r.randrange(16) + r.choice([8, 4, 40] if nv else [8, 16, 32]), 64)
                await self.send_raw(pkt, beats_payloads(self.cfg, pkt), XlStatus.BAD_ALIGN)
            elif kind == 4:
                off = r.choice([-64, -4096, b.win_size, b.win_size - 64])
                nb = 128 if off == b.win_size - 64 else 64
                pkt = self.pkt(XlOp.READ, off, nb)
                await self.send_raw(pkt, beats_payloads(self.cfg, pkt), XlStatus.BAD_ADDR)
            elif kind == 5 and nv:
                # a write whose partial line lies in the coherent range (full lines there are fine)
                lead = 16 * r.randint(0, 3)
                nb = 16 * r.randint(2, 16 - lead // 16)
                while lead == 0 and nb % 64 == 0:
                    nb = 16 * r.randint(2, 15)
                pkt = self.pkt(XlOp.WRITE, b.coh_off + 64 * r.randrange(8) + lead, nb)
                await self.send_raw(pkt, beats_payloads(self.cfg, pkt), XlStatus.COH_PTL)
            elif kind == 6 and nv and r.random() < 0.4:
                # partial write of an NXM line: its read fails, the line is not written
                await self.send(self.pkt(XlOp.WRITE, nxm_off + 16 * r.randint(0, 2), 16 * r.randint(2, 4 - 1)))
            else:
                await self.send(self.pkt(XlOp.READ, nxm_off - 64 * r.randint(0, 1), 128))


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class BridgeWriteBurstTest(BridgeBase):
    """Back-to-back write bursts into a few lines against a slow far side (writes coalesce in the
    write buffer, reads are forwarded from it), then read-back of everything."""

    def patterns(self, rng: random.Random) -> tuple[Pattern, Pattern, Pattern, tuple[int, int]]:
        return Pattern.always(), Pattern.random(0.8, rng), Pattern.random(0.3, rng), (100, 200)

    async def traffic(self) -> None:
        r = self.rng
        for _ in range(3):
            for _ in range(30):
                lead, nb, nl = self.shape()
                await self.send(self.pkt(XlOp.WRITE, 64 * r.randrange(24 - nl + 1) + lead, nb))
            for _ in range(10):
                lead, nb, nl = self.shape()
                await self.send(self.pkt(XlOp.READ, 64 * r.randrange(24 - nl + 1) + lead, nb))
        for k in range(6):
            await self.send(self.pkt(XlOp.READ, 256 * k, 256))


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class BridgeHazardPileUpTest(BridgeBase):
    """Every hazard counter of every lane (a line's lane index modulo 2*NLINE/LANES, README
    "Ordering inside a lane") is loaded as far as the request limit allows against a slow far side:
    for each counter, NROB one-line reads of distinct lines that share it, then NROB one-line writes
    to the same lines (each waits for the reads of its counter, README rule 5); then every line is
    read again. First on non-coherent lines, then on coherent ones (the write counter holds
    coherent writes, and direct ones only without the HBM buffer). Every answer is checked against
    the model (data, order), so a counter that lost or double-counted a completion shows up as a
    wrong value or a request past the watchdog."""

    def patterns(self, rng: random.Random) -> tuple[Pattern, Pattern, Pattern, tuple[int, int]]:
        return Pattern.always(), Pattern.always(), Pattern.always(), (100, 200)

    async def traffic(self) -> None:
        lanes, nrob, b = self.cfg.lanes, self.cfg.nrob, self.cfg.bridge
        hz = 2 * self.cfg.line_slots // lanes
        # lines j + lanes * hz * k (k < NROB) share a lane and a counter; j runs over every
        # (lane, counter) pair
        groups = [[j + lanes * hz * k for k in range(nrob)] for j in range(lanes * hz)]
        assert 64 * (groups[-1][-1] + 1) <= min(b.coh_off, b.coh_size)
        # non-coherent lines from offset 0, then coherent ones (CXL.cache: RdCurr, and ItoMWr,
        # which the write counter holds until GO_WritePull, with or without the HBM buffer)
        for base in (0, b.coh_off):
            for group in groups:
                for op in (XlOp.READ, XlOp.WRITE):
                    for line in group:
                        await self.send(self.pkt(op, base + 64 * line, 64))
            await self.wait_responses()
            for group in groups:
                for line in group:
                    await self.send(self.pkt(XlOp.READ, base + 64 * line, 64))
            await self.wait_responses()


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class BridgeFillBackPressureTest(BridgeBase):
    """Read-miss fills arrive faster than the HBM takes them: the CXL agent holds the answers to
    every outstanding MemRd and then releases them at once, so each lane receives its S2M DRS back
    to back. A fill waits for room in the lane's HBM write queue (S2M DRS ready low) and is never
    dropped: the DRS must be seen waiting, every read is answered with the far-side data, and the
    same lines read again afterwards are HBM hits with that data (scoreboard and final memory
    against the model). Full-line writes to the filled lines follow, so write updates and fills
    share the queue. Meaningful on a configuration whose write queue and HBM slots are smaller
    than a lane's outstanding lines (test_bridge_write_queue_full)."""

    enforce_cov = True
    rounds = 6

    def patterns(self, rng: random.Random) -> tuple[Pattern, Pattern, Pattern, tuple[int, int]]:
        return Pattern.always(), Pattern.always(), Pattern.always(), (2, 6)

    def end_of_elaboration_phase(self) -> None:
        super().end_of_elaboration_phase()
        self.env.cov.groups.pop("xbridge")     # the burst shapes are fixed: the hold-back is the goal
        self.wq = self.env.cov.group("write_queue")
        self.wq.coverpoint("drs_wait", ["waited"])

    async def burst(self, offs: list[int], nbytes: int) -> None:
        """Reads of `offs` with every answer withheld until all their lines are issued."""
        mem, clk = self.env.mem, cocotb.top.clk
        mem.hold_all = True
        want = len(mem.held) + len(offs) * (nbytes // 64)
        for off in offs:
            await self.send(self.pkt(XlOp.READ, off, nbytes))
        for _ in range(2000):
            if len(mem.held) >= want:
                break
            await FallingEdge(clk)
        assert len(mem.held) == want, f"{len(mem.held)} of {want} MemRd issued while answers were held"
        mem.release()
        await self.wait_responses()

    async def traffic(self) -> None:
        r, slots = self.rng, self.cfg.line_slots
        per = max(1, slots // 4)               # 256 B reads that fill every line slot
        for _ in range(self.rounds):
            base = self.far_off(4 * per)
            offs = [base + 256 * k for k in range(per)]
            before = self.env.mem.wait_cycles["drs"]
            await self.burst(offs, 256)
            self.logger.info(f"burst of {per * 4} lines: DRS waited "
                             f"{self.env.mem.wait_cycles['drs'] - before} cycles")
            for off in offs:                    # hits: the fills reached the HBM
                await self.send(self.pkt(XlOp.READ, off, 256))
            for off in offs[: per // 2]:        # write updates of cached lines share the queue
                await self.send(self.pkt(XlOp.WRITE, off, 256))
            await self.wait_responses()

    def final_checks(self) -> None:
        super().final_checks()
        waited = self.env.mem.wait_cycles["drs"]
        assert waited > 0, ("no S2M DRS ever waited: the HBM write queue never filled, so this run "
                            "did not test the hold-back")
        self.wq.sample(drs_wait="waited")
        hits = int(cocotb.top.stat_hit.value)
        assert hits >= self.rounds * (self.cfg.line_slots // 4) * 4, \
            f"only {hits} HBM hits: the filled lines were not all read back from the cache"


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class BridgeProtocolFaultTest(BridgeBase):
    """Illegal input from the CXL side mixed with random traffic: responses with tags / CQIDs the
    bridge never issued (DRS, NDR, H2D Data, H2D Rsp), DRS answered twice, NDR carrying a read's
    tag; coherent lines whose home answers with errors (H2D Data GO-Err, GO-Err without data,
    GO_ERR_WritePull); duplicate XLink tags. Every fault is dropped and counted (stat_proto_err
    equals the faults injected), never holds a port (the core takes every NDR / H2D Data at once),
    every request is answered (watchdog) exactly as the model says."""

    enforce_cov = True

    def faults(self) -> Faults:
        return Faults(stray=0.01, dup_drs=0.15, ndr_on_rd=0.01)

    def end_of_elaboration_phase(self) -> None:
        super().end_of_elaboration_phase()
        self.env.cov.groups.pop("xbridge")
        self.eg = self.env.cov.group("errors")
        self.eg.coverpoint("status", ["BAD_TAG", "CXL_ERR"])
        self.fg = self.env.cov.group("cxl_faults")
        self.fg.coverpoint("fault", ["stray_drs", "stray_ndr", "stray_h2d", "stray_rsp", "dup_drs",
                                     "ndr_on_rd"])

    async def traffic(self) -> None:
        r, b = self.rng, self.cfg.bridge
        hpa_l = b.hpa_base >> 6
        # error lines in the coherent range (reads and full-line writes) and outside it
        coh_bad = [hpa_l + (b.coh_off >> 6) + 200 + 4 * i for i in range(4)]
        mem_bad = [hpa_l + 45000 + i for i in range(4)]
        self.env.mem.nxm.update(coh_bad + mem_bad)
        for _ in range(220):
            u = r.random()
            if u < 0.06:
                await self.send_dup()
            elif u < 0.12:
                ln = r.choice(coh_bad)
                await self.send(self.pkt(r.choice([XlOp.READ, XlOp.WRITE]), 64 * (ln - hpa_l), 64))
            elif u < 0.16:
                await self.send(self.pkt(XlOp.READ, 64 * (r.choice(mem_bad) - hpa_l), 64))
            else:
                await self.send(self.random_req())

    def final_checks(self) -> None:
        super().final_checks()
        for kind, n in self.env.mem.injected.items():
            for _ in range(n):
                self.fg.sample(fault=kind)


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class BridgeWatchdogSelfTest(BridgeBase):
    """The watchdog must catch a hang: the CXL agent withholds the answer to one MemRd, so that
    request (and every response behind it, in order) stays unanswered. The watchdog has to report
    it within its bound; then the answer is released and everything must complete normally."""

    wd_bound = 300

    def patterns(self, rng: random.Random) -> tuple[Pattern, Pattern, Pattern, tuple[int, int]]:
        return Pattern.random(0.8, rng), Pattern.always(), Pattern.always(), (20, 40)

    async def traffic(self) -> None:
        self.env.mem.withhold = 3

        async def sender() -> None:        # blocks once the reorder buffer is full behind the hang
            for k in range(12):
                await self.send(self.pkt(XlOp.READ, 64 * (50000 + 8 * k), 64))

        task = cocotb.start_soon(sender())
        clk = cocotb.top.clk
        wd = self.env.wd
        waited = 0
        while not any("unanswered" in e for e in wd.errors):
            await FallingEdge(clk)
            waited += 1
            assert waited < 3 * self.wd_bound, \
                f"watchdog did not report the withheld request in {waited} cycles (bound {self.wd_bound})"
        hung = [e for e in wd.errors if "unanswered" in e]
        self.logger.info(f"watchdog reported {len(hung)} hung request(s) after {waited} cycles: {hung[0]}")
        assert self.env.mem.held, "the CXL agent withheld nothing"
        self.env.mem.release()
        await task
        await self.wait_responses()
        # the reports were the expected outcome of this test; late answers are reported as well
        assert all("unanswered" in e or "answered at" in e for e in wd.errors), wd.errors[:4]
        wd.errors.clear()


@pyuvm.test(timeout_time=2000, timeout_unit="us")
class BridgeLinkErrorTest(BridgeRandomTest):
    """xbridge_top only (XB_TOP): BridgeRandomTest's traffic and checks through CXL links whose
    wires flip a bit in a random share of the flits (per-flit probability 1/1500 .. 1/600, both
    directions of both lanes) and stall each link's flit output at random (5-30 % of the cycles).
    Every error must be caught by the link CRC and retried away: the scoreboard must see every
    response exactly as the model says, the memory must end as the model's. Then the link
    statistics must show it: on each lane, the bridge's link counted exactly the flits the wire
    hit toward it as CRC errors and sent RETRY.Req, the device's link likewise, and no link went
    fatal. Bit errors stay on until every lane and direction has had MIN_FLIPS hits (idle flits
    flow every cycle), then stop so that the last retries finish before the counts are read.
    Meanwhile the device side sends, now and then, CXL.cache messages a memory device must not
    send (D2H Req / Rsp / Data, each lane and class at least once): the bridge must take them
    without effect on the traffic and count each one (stat_link_unexp)."""

    MIN_FLIPS = 3
    P_UNEXP = 0.002          # per cycle, lane and class: an unexpected message is offered
    # a retry whose RETRY.Req or RETRY.Ack is itself hit waits out the link's retry timeout (4096
    # transmitted flits, xb_cxl_port keeps cxl_link's default), longer under stalls: the bounds
    # allow a few of them
    wd_bound = 24000
    sb_timeout = 48000

    def link_knobs(self) -> dict[str, int]:
        assert self.top, "BridgeLinkErrorTest needs xbridge_top_tb (XB_TOP=1)"
        r = self.rng
        self.p_flit = r.uniform(1 / 1500, 1 / 600)
        self.p_stall = r.uniform(0.05, 0.30)
        self.logger.info(f"flit error probability {self.p_flit:.5f}, flit stall probability {self.p_stall:.3f}")
        # ber_en is gated at random every cycle (ber_gate) at twice the threshold: the same rate,
        # but which cycles hit follows this test's seed, not only the wires' fixed SEED parameters
        return {**super().link_knobs(), "ber_en": 0, "ber_thresh": int(2 * self.p_flit * 2**32),
                "bp_seed": r.getrandbits(64) | 1, "bp_thresh": int(self.p_stall * 2**16)}

    def unexp_msg(self, cls: int) -> tuple[int, int]:
        """(canonical header, data) of a random D2H Req (class 0), D2H Rsp (1) or D2H Data (2)."""
        r = self.unexp_rng
        if cls == 0:
            m = D2HReq(opcode=r.choice(list(D2HReqOp)), cqid=r.randrange(4096), addr=r.getrandbits(46))
            return m.to_canonical(), 0
        if cls == 1:
            return D2HRsp(opcode=r.choice(list(D2HRspOp)), uqid=r.randrange(4096)).to_canonical(), 0
        d = D2HData(uqid=r.randrange(4096), data=r.randbytes(64))
        return d.to_canonical(), int.from_bytes(d.data, "little")

    async def ber_gate(self) -> None:
        """Bit errors on in a random half of the cycles while `self.ber_on` is set, then off."""
        dut = cocotb.top
        r = random.Random(self.rng.getrandbits(64))
        while self.ber_on:
            dut.ber_en.value = int(r.random() < 0.5)
            await FallingEdge(dut.clk)
        dut.ber_en.value = 0

    async def unexpected_sender(self) -> None:
        """Offer D2H messages on the device side of every lane (P_UNEXP per cycle and lane and
        class, or at once where `self.unexp_owed` still lists the pair) until `self.unexp_on`
        drops and nothing is offered; a message stays offered until taken."""
        dut, nl = cocotb.top, self.cfg.lanes
        cur: dict[tuple[int, int], tuple[int, int]] = {}
        while self.unexp_on or cur:
            await FallingEdge(dut.clk)
            for g in range(nl):
                for c in range(3):
                    if (g, c) not in cur and self.unexp_on and \
                            ((g, c) in self.unexp_owed or self.unexp_rng.random() < self.P_UNEXP):
                        cur[(g, c)] = self.unexp_msg(c)
            dut.unexp_valid.value = sum(1 << (3 * g + c) for g, c in cur)
            dut.unexp_hdr.value = sum(h << (128 * (3 * g + c)) for (g, c), (h, _) in cur.items())
            dut.unexp_data.value = sum(d << (512 * g) for (g, c), (_, d) in cur.items())
            await ReadOnly()
            rdy = int(dut.unexp_ready.value)
            for g, c in list(cur):
                if rdy >> (3 * g + c) & 1:
                    del cur[(g, c)]
                    self.unexp_sent += 1
                    self.unexp_owed.discard((g, c))
        await FallingEdge(dut.clk)
        dut.unexp_valid.value = 0

    def lanes_of(self, sig: str, width: int) -> list[int]:
        v = int(getattr(cocotb.top, sig).value)
        return [v >> (width * g) & ((1 << width) - 1) for g in range(self.cfg.lanes)]

    async def traffic(self) -> None:
        self.unexp_rng = random.Random(self.rng.getrandbits(64))
        self.unexp_on, self.unexp_sent = True, 0
        self.unexp_owed: set[tuple[int, int]] = set()
        sender = cocotb.start_soon(self.unexpected_sender())
        self.ber_on = True
        gate = cocotb.start_soon(self.ber_gate())
        await super().traffic()
        await self.wait_responses()
        # every lane and class at least once
        self.unexp_owed = {(g, c) for g in range(self.cfg.lanes) for c in range(3)}
        dut = cocotb.top
        for _ in range(20000):
            if not self.unexp_owed:
                break
            await FallingEdge(dut.clk)
        else:
            raise AssertionError(f"unexpected messages not taken by the device link: {sorted(self.unexp_owed)}")
        self.unexp_on = False
        await sender
        for _ in range(200000):
            if min(self.lanes_of("flips_hd", 32) + self.lanes_of("flips_dh", 32)) >= self.MIN_FLIPS:
                break
            await FallingEdge(dut.clk)
        else:
            raise AssertionError(f"bit errors on: fewer than {self.MIN_FLIPS} flits hit on some wire "
                                 f"in 200000 cycles: {self.lanes_of('flips_hd', 32)} {self.lanes_of('flips_dh', 32)}")
        self.ber_on = False
        await gate
        # the last hit flits and unexpected messages reach their receivers (a retry under way may
        # still wait out its timeout)
        for _ in range(20000):
            if (self.lanes_of("stat_crc_host", 16) == self.lanes_of("flips_dh", 32)
                    and self.lanes_of("stat_crc_dev", 16) == self.lanes_of("flips_hd", 32)
                    and int(dut.stat_link_unexp.value) >= self.unexp_sent):
                break
            await FallingEdge(dut.clk)

    def final_checks(self) -> None:
        super().final_checks()
        dut = cocotb.top
        flips_hd, flips_dh = self.lanes_of("flips_hd", 32), self.lanes_of("flips_dh", 32)
        crc_h, crc_d = self.lanes_of("stat_crc_host", 16), self.lanes_of("stat_crc_dev", 16)
        rty_h, rty_d = self.lanes_of("stat_retry_host", 16), self.lanes_of("stat_retry_dev", 16)
        stalls = self.lanes_of("stalls_host", 32)
        n_unexp = int(dut.stat_link_unexp.value)
        self.logger.info(f"per lane: flits hit bridge->device {flips_hd}, device->bridge {flips_dh}; "
                         f"bridge link CRC errors {crc_h} retries {rty_h}; device link CRC errors "
                         f"{crc_d} retries {rty_d}; bridge flit stall cycles {stalls}; unexpected "
                         f"messages sent {self.unexp_sent}, counted {n_unexp}")
        assert n_unexp == self.unexp_sent, \
            f"stat_link_unexp {n_unexp}, the device side sent {self.unexp_sent} unexpected messages"
        assert int(dut.link_fatal_host.value) == 0 and int(dut.link_fatal_dev.value) == 0, \
            f"link fatal: bridge {int(dut.link_fatal_host.value):#x}, device {int(dut.link_fatal_dev.value):#x}"
        ones = (1 << self.cfg.lanes) - 1
        assert int(dut.link_up_host.value) == ones and int(dut.link_up_dev.value) == ones, "a link is down"
        for g in range(self.cfg.lanes):
            # 68B links (SEQ_CRC 0): every flit that arrives with a flipped bit fails the CRC and is
            # counted, whatever the receiver's retry state
            assert crc_h[g] == flips_dh[g] > 0, \
                f"lane {g}: the bridge's link counted {crc_h[g]} CRC errors, the wire hit {flips_dh[g]} flits toward it"
            assert crc_d[g] == flips_hd[g] > 0, \
                f"lane {g}: the device's link counted {crc_d[g]} CRC errors, the wire hit {flips_hd[g]} flits toward it"
            assert rty_h[g] > 0 and rty_d[g] > 0, \
                f"lane {g}: retries bridge {rty_h[g]}, device {rty_d[g]} after CRC errors on both sides"
            assert stalls[g] > 0, f"lane {g}: the bridge's flit output never stalled"
