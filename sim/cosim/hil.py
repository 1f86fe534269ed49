"""In-simulator driver of the hardware-in-the-loop top (tb/edge/sp_edge_hil.v).

The RTL runs on its own clock; this driver wakes up every `period` cycles, tops up each bridge's
stimulus ring with whole rows of request records and takes the response records that are ready
(one row per cycle each way), then sleeps again. Signals are touched through cocotb's raw GPI
handles (one binary-string transfer per row), so the Python cost is per row of 64 requests, not
per cycle. Timing of every request (arrival, issue, response) and its check results come back in
the records (hil_port.v documents the layout); `decode_records` turns them into numpy columns.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from models.switch import HDM_UNIT, HdmDecoder, PortConfig, SwitchConfig
from sim.cosim.stream import Window
from tb.common.cfg_agent import CfgAgent
from tb.switch.regs import A_COUNT, COUNTERS, RESP_OK, config_writes, readback

# Hops of sp_rack_edge (NBR = 2, CASCADE = 1), in its lk_* bit order.
HOPS = ("br0_mem", "br1_mem", "br0_cache", "br1_cache", "node0", "home", "cascade", "node1", "node2")
KIND_NAMES = ("miss", "hit", "wbfwd", "coh_rd", "wr_wb", "wr", "wr_wb_hit", "coh_wr")
STATUS_W = 192                      # per bridge (hil_port `status`)
BAD_COUNTERS = ("nxm_read", "nxm_write", "nxm_no_response", "unknown_dpid", "unexpected_rsp", "misrouted",
                "bad_direction", "bad_opcode", "unsupported", "rx_disabled", "egress_disabled", "cfg_rejected")


def hop_index(nbr: int, cascade: bool) -> dict[str, int]:
    names = [f"br{b}_mem" for b in range(nbr)] + [f"br{b}_cache" for b in range(nbr)] + ["node0", "home"]
    if cascade:
        names += ["cascade", "node1", "node2"]
    return {n: i for i, n in enumerate(names)}


def ber_to_thresh(ber: float, flit_bits: int = 528) -> int:
    """Per-flit error probability (one flipped bit per hit flit) as a 32-bit threshold."""
    p = 1.0 - (1.0 - ber) ** flit_bits
    return min(int(round(p * 2**32)), 2**32 - 1)


def switch_configs(mode: str, win: Window, nmn: int) -> tuple[SwitchConfig, SwitchConfig | None]:
    """Switch A (and B) register images for a routing mode (sim.cosim.knobs.MODES)."""
    base = win.hpa_base // HDM_UNIT * HDM_UNIT
    if mode == "direct":
        dec = HdmDecoder.make(base, HDM_UNIT, 1, 256, (2,))
        ports = [PortConfig.usp(), PortConfig.usp(), PortConfig.dsp(), PortConfig.dsp(enabled=False)]
        return SwitchConfig("hbr", ports, [dec]), None
    if nmn < 3:
        raise ValueError(f"mode {mode} needs the RTL top built with CASCADE=1")
    if mode == "cascade":
        dec = HdmDecoder.make(base, 2 * HDM_UNIT, 2, 256, (0x21, 0x22))
        a = SwitchConfig("pbr", [PortConfig.usp(0x10), PortConfig.usp(0x11), PortConfig.dsp(0x12),
                                 PortConfig.fabric()], [dec], routes={0x21: 3, 0x22: 3})
        bsw = SwitchConfig("pbr", [PortConfig.fabric(), PortConfig.dsp(0x21), PortConfig.dsp(0x22)], [],
                           routes={0x10: 0, 0x11: 0, 0x12: 0})
        return a, bsw
    if mode == "cascade_hbr":
        a = SwitchConfig("hbr", [PortConfig.usp(), PortConfig.usp(), PortConfig.dsp(enabled=False), PortConfig.dsp()],
                         [HdmDecoder.make(base, 2 * HDM_UNIT, 1, 256, (3,))])
        bsw = SwitchConfig("hbr", [PortConfig.usp(), PortConfig.dsp(), PortConfig.dsp()],
                           [HdmDecoder.make(base, 2 * HDM_UNIT, 2, 256, (1, 2))])
        return a, bsw
    raise ValueError(f"switch mode {mode!r}")


async def program_switches(cfg: CfgAgent, mode: str, win: Window, nmn: int) -> None:
    """Write the switch register images of `mode` through the top's register agent (cfg_sel 0 = A, 1 = B),
    then read every written register back from the switch it was meant for: a run never starts on a
    configuration other than the one its model assumes."""
    a, bsw = switch_configs(mode, win, nmn)
    for sel, sc in ((0, a), (1, bsw)):
        if sc is not None:
            writes = config_writes(sc, 4)                       # cxl_switch_core has 4 decoder slots
            await cfg.program(writes, sel=sel)
            await cfg.check_reads(readback(writes), sel=sel)


async def read_counters(cfg: CfgAgent, sel: int) -> dict[str, int]:
    """Switch `sel`'s event counters (tb.switch.regs.COUNTERS) through the register agent."""
    return await cfg.read_block(A_COUNT, COUNTERS, sel=sel)


def encode_rows(recs: np.ndarray, ch: int) -> list[bytes]:
    """uint64 records -> rows of `ch` records (little-endian bytes), the last padded with zeros
    (valid bit 63 clear: the RTL skips padding)."""
    n = len(recs)
    rows = -(-n // ch)
    buf = np.zeros(rows * ch, dtype="<u8")
    buf[:n] = recs
    raw = buf.tobytes()
    return [raw[i * ch * 8:(i + 1) * ch * 8] for i in range(rows)]


def stim_records(gap: np.ndarray, write: np.ndarray, line: np.ndarray) -> np.ndarray:
    """hil_port stimulus record: [15:0] gap, [16] write, [40:17] line, [63] valid."""
    if len(gap) and (gap.max() > 0xFFFF or line.max() >= 1 << 24):
        raise ValueError("gap must fit 16 bits and line 24 bits")
    return (gap.astype(np.uint64) | (write.astype(np.uint64) << np.uint64(16))
            | (line.astype(np.uint64) << np.uint64(17)) | np.uint64(1 << 63))


REC_FIELDS = ("t_issue", "t_rsp", "seq", "ver_seq", "ver_b", "kind", "kind_seen", "write", "hdr_ok",
              "data_ok", "image")


def decode_records(raw: np.ndarray) -> dict[str, np.ndarray]:
    """(n, 2) uint64 capture records -> columns (hil_port.v header)."""
    lo, hi = raw[:, 0], raw[:, 1]
    m = lambda v, s, w: ((v >> np.uint64(s)) & np.uint64((1 << w) - 1))   # noqa: E731
    return {
        "t_issue": m(lo, 0, 32).astype(np.int64), "t_rsp": m(lo, 32, 32).astype(np.int64),
        "seq": m(hi, 0, 24).astype(np.int64), "ver_seq": m(hi, 24, 24).astype(np.int64),
        "ver_b": m(hi, 48, 2).astype(np.int8), "kind": m(hi, 50, 3).astype(np.int8),
        "kind_seen": m(hi, 53, 1).astype(bool), "write": m(hi, 54, 1).astype(bool),
        "hdr_ok": m(hi, 55, 1).astype(bool), "data_ok": m(hi, 56, 1).astype(bool),
        "image": m(hi, 57, 1).astype(bool),
    }


class HilStall(RuntimeError):
    """A run that cannot finish: a link went fatal (its requests are lost) or nothing moved for the
    stall bound. Carries the records answered so far (decoded, per bridge) for the check."""

    def __init__(self, msg: str, records: list[dict[str, np.ndarray]]) -> None:
        super().__init__(msg)
        self.records = records


@dataclass
class PortState:
    rows: list[bytes]
    n: int
    pushed: int = 0                 # rows written
    taken: int = 0                  # records read back
    recs: list[np.ndarray] = field(default_factory=list)


@dataclass
class RunTimes:
    loop_s: float = 0.0             # wall time of the traffic loop (simulator + in-loop Python)
    python_s: float = 0.0           # in-loop Python (bulk transfer, decoding, bookkeeping)
    setup_s: float = 0.0            # reset, switch programming, link training, first fill
    cycles: int = 0                 # cycles of the traffic loop
    cpu_s: float = 0.0              # CPU time of the simulator process during the traffic loop


class Hil:
    def __init__(self, dut: Any, win: Window = Window()) -> None:
        self.dut = dut
        self.win = win
        self.nbr = len(dut.stim_wvalid)
        geom = int(dut.geom.value)                  # {CAW, SAW, CH} of sp_edge_hil
        self.ch = geom & 0xFFFF
        self.stim_slots = 1 << ((geom >> 16) & 0xFF)
        self.nlk = len(dut.lk_up)
        self.cascade = self.nlk > 2 * self.nbr + 2
        self.nmn = 3 if self.cascade else 1
        self.h = {name: getattr(dut, name)._handle for name in (
            "stim_wvalid", "stim_wdata", "stim_more", "cap_take", "cap_win", "cap_pos", "status", "now", "t_run",
            "lk_fatal")}
        self.times = RunTimes()
        self._timer = None
        # register accesses keep this harness's timer phase (the agent steps one clock cycle at a time
        # while it waits for cfg_ready and then for cfg_rvalid)
        self.cfg = CfgAgent(dut, resp_ok=RESP_OK, sel="sel", step=self.cycles)

    # ------------------------------------------------------------------ raw access
    def _get(self, name: str) -> int:
        return int(self.h[name].get_signal_val_binstr(), 2)

    def _set(self, name: str, value: int, width: int) -> None:
        if width <= 32:
            self.h[name].set_signal_val_int(0, value)
        else:
            self.h[name].set_signal_val_binstr(0, format(value, f"0{width}b"))

    def status(self) -> list[dict[str, int]]:
        v = self._get("status")
        out = []
        for b in range(self.nbr):
            s = v >> (STATUS_W * b)
            out.append({"stim": s & 0xFFFF, "cap": (s >> 16) & 0xFFFF, "sent": (s >> 32) & 0xFFFFFFFF,
                        "captured": (s >> 64) & 0xFFFFFFFF, "underrun": (s >> 96) & 0xFFFFFFFF,
                        "cap_stall": (s >> 128) & 0xFFFFFFFF, "extra_beats": (s >> 161) & 1,
                        "unexpected": (s >> 162) & 1, "outstanding": (s >> 176) & 0x7F})
        return out

    # ------------------------------------------------------------------ setup
    async def cycles(self, n: int = 1) -> None:
        if self._timer is None:
            from cocotb.triggers import Timer
            self._timer = Timer
        await self._timer(n, unit="ns")

    async def program(self, mode: str) -> None:
        await program_switches(self.cfg, mode, self.win, self.nmn)

    async def counters(self, sel: int) -> dict[str, int]:
        return await read_counters(self.cfg, sel)

    async def reset(self, t2_lat: int, ha_lat: int, ready_p: float, ber: float, ber_links: str,
                    mode: str) -> None:
        d = self.dut
        for s in ("run", "cfg_valid", "cfg_sel", "cfg_write", "cfg_addr", "cfg_wdata", "stim_wvalid", "stim_more",
                  "cap_take"):
            getattr(d, s).value = 0
        d.t2_lat.value = t2_lat
        d.ha_lat.value = ha_lat
        d.ready_thr.value = min(int(round(ready_p * 65536)), 65536)
        clo, chi = self.win.coh_hpa_range()
        d.coh_en.value = 1
        d.coh_lo.value = clo
        d.coh_hi.value = chi
        idx = hop_index(self.nbr, self.cascade)
        mask = 0
        if ber > 0:
            names = idx if ber_links == "all" else ber_links.split("+")
            for n in names:
                if n not in idx:
                    raise ValueError(f"ber_links: hop {n!r} is not in this top ({', '.join(idx)})")
                mask |= 1 << idx[n]
        # bit errors start once every link is up: the BER knob is about traffic, and a link that
        # cannot train is a different failure (reported below)
        d.ber_thresh.value = 0
        d.ber_mask.value = mask
        d.rst.value = 1
        await self.cycles(8)
        d.rst.value = 0
        await self.cycles(2)
        await self.program(mode)
        for _ in range(2000):                     # link training (INIT.Param) when links are in
            if all(int(d.lk_up.value) >> i & 1 for i in range(self.nlk)):
                break
            if int(d.lk_fatal.value):
                break
            await self.cycles(10)
        if not all(int(d.lk_up.value) >> i & 1 for i in range(self.nlk)):
            raise HilStall(f"links not up (training, at most 20000 cycles): lk_up={int(d.lk_up.value):#x}, "
                           f"lk_fatal={int(d.lk_fatal.value):#x}, links {self.link_stats()}",
                           [decode_records(np.zeros((0, 2), np.uint64)) for _ in range(self.nbr)])
        d.ber_thresh.value = ber_to_thresh(ber) if ber > 0 else 0

    # ------------------------------------------------------------------ traffic
    async def run(self, per_bridge: list[dict[str, np.ndarray]], period: int = 2048,
                  progress: Any = None, stall_limit: int = 200_000) -> list[dict[str, np.ndarray]]:
        """Play each bridge's stream (gap, write, line arrays) and return its decoded records.
        Raises HilStall (with the records answered so far) at the first check after a link went
        fatal (a fatal link drops what it holds), or when nothing was sent or answered for
        `stall_limit` cycles beyond the longest possible gap between two arrivals (65535). A period
        without progress also takes partially filled record rows, so answers are never left
        unread while the fabric is quiet."""
        t_setup = time.perf_counter()
        ch = self.ch
        ports = []
        for b in range(self.nbr):
            s = per_bridge[b] if b < len(per_bridge) else {"gap": np.zeros(0), "write": np.zeros(0, bool),
                                                            "line": np.zeros(0, np.uint32)}
            recs = stim_records(np.asarray(s["gap"]), np.asarray(s["write"]), np.asarray(s["line"]))
            ports.append(PortState(encode_rows(recs, ch), len(recs)))
        row_bits = ch * 64
        more = sum(1 << b for b, p in enumerate(ports) if p.rows)
        self._set("stim_more", more, self.nbr)
        # first fill before the clock of the stream starts
        while await self._service(ports, row_bits, fill_only=True):
            pass
        self.dut.run.value = 1
        await self.cycles(1)
        t0 = time.perf_counter()
        cpu0 = time.process_time()
        self.times.setup_s += t0 - t_setup
        c0 = self._get("now")
        py = 0.0
        total = sum(p.n for p in ports)
        last_prog = 0.0
        idle, got = 0, 0
        while True:
            await self.cycles(period)
            t1 = time.perf_counter()
            busy = True
            while busy:
                busy = await self._service(ports, row_bits, drain=idle > 0)
            done = all(p.taken >= p.n for p in ports)
            st = self.status()
            progress_mark = sum(x["captured"] + x["sent"] for x in st)
            idle = 0 if progress_mark != got else idle + period
            got = progress_mark
            fatal = self._get("lk_fatal")
            if (fatal or idle > stall_limit + 0xFFFF) and not done:
                self.dut.run.value = 0
                raise await self._stall(ports, row_bits, idle, fatal)
            now = time.perf_counter()
            py += now - t1
            if progress is not None and (done or now - last_prog > 0.5):
                progress(sum(p.taken for p in ports), total, self._get("now") - c0, now - t0)
                last_prog = now
            if done:
                break
        c1 = self._get("now")
        self.dut.run.value = 0
        self.times.loop_s += time.perf_counter() - t0
        self.times.cpu_s += time.process_time() - cpu0
        self.times.python_s += py
        self.times.cycles += c1 - c0
        out = []
        for p in ports:
            raw = np.concatenate(p.recs) if p.recs else np.zeros((0, 2), np.uint64)
            out.append(decode_records(raw))
        return out

    async def _stall(self, ports: list[PortState], row_bits: int, idle: int, fatal: int) -> HilStall:
        """The failure of a run that cannot finish: every answer captured so far is read back, and
        the message names the fatal links, each bridge's first unanswered request and the link
        counters."""
        while await self._service(ports, row_bits, drain=True):
            pass
        st = self.status()
        names = list(hop_index(self.nbr, self.cascade))
        why = (f"link(s) {', '.join(n for i, n in enumerate(names) if fatal >> i & 1)} went fatal (link_fatal: "
               f"what they held is lost)" if fatal else f"nothing sent or answered for {idle} cycles")
        bridges = "; ".join(
            f"bridge {b}: {p.taken}/{p.n} answered, {st[b]['sent']} sent, {st[b]['outstanding']} outstanding"
            + (f" from request {p.taken}" if st[b]["outstanding"] else "") for b, p in enumerate(ports))
        links = {n: s for n, s in self.link_stats().items() if s["retry"] or s["crc_err"] or s["fatal"]}
        recs = [decode_records(np.concatenate(p.recs) if p.recs else np.zeros((0, 2), np.uint64)) for p in ports]
        return HilStall(f"run stopped at cycle {self._get('now')}: {why}; {bridges}; links {links}", recs)

    async def _service(self, ports: list[PortState], row_bits: int, fill_only: bool = False,
                       drain: bool = False) -> bool:
        """One cycle of bulk transfer (a stimulus row and a record take per bridge, as needed; with
        `drain`, partially filled record rows too). Returns whether anything was transferred."""
        st = self.status()
        wv, take, data = 0, 0, 0
        for b, p in enumerate(ports):
            if p.pushed < len(p.rows) and self.stim_slots - st[b]["stim"] >= self.ch:
                wv |= 1 << b
                data |= int.from_bytes(p.rows[p.pushed], "little") << (row_bits * b)
                p.pushed += 1
            if not fill_only and st[b]["cap"] and (st[b]["cap"] >= self.ch or st[b]["sent"] >= p.n or drain):
                take |= 1 << b
        if not (wv or take):
            return False
        if wv:
            self._set("stim_wdata", data, row_bits * self.nbr)
            self._set("stim_wvalid", wv, self.nbr)
        if take:
            self._set("cap_take", take, self.nbr)
        more = sum(1 << b for b, p in enumerate(ports) if p.pushed < len(p.rows))
        self._set("stim_more", more, self.nbr)
        await self.cycles(1)
        if wv:
            self._set("stim_wvalid", 0, self.nbr)
        if take:
            self._set("cap_take", 0, self.nbr)
            win = self._get("cap_win")
            pos = self._get("cap_pos")
            rec_bits = 128 * self.ch
            for b, p in enumerate(ports):
                if not take >> b & 1:
                    continue
                off = (pos >> (32 * b)) & 0xFFFF
                n = (pos >> (32 * b + 16)) & 0xFFFF
                row = (win >> (rec_bits * b)) & ((1 << rec_bits) - 1)
                arr = np.frombuffer(row.to_bytes(rec_bits // 8, "little"), dtype="<u8").reshape(self.ch, 2)
                p.recs.append(arr[off:off + n].copy())
                p.taken += n
        return True

    # ------------------------------------------------------------------ end-of-run state
    def link_stats(self) -> dict[str, dict[str, int]]:
        d = self.dut
        up, fat = int(d.lk_up.value), int(d.lk_fatal.value)
        rt, crc, fl = int(d.lk_retry.value), int(d.lk_crc.value), int(d.lk_flips.value)
        out = {}
        for name, i in hop_index(self.nbr, self.cascade).items():
            out[name] = {"up": up >> i & 1, "fatal": fat >> i & 1, "retry": (rt >> (16 * i)) & 0xFFFF,
                         "crc_err": (crc >> (16 * i)) & 0xFFFF, "flits_hit": (fl >> (32 * i)) & 0xFFFFFFFF}
        return out

    async def errors(self, mode: str) -> tuple[list[str], dict[str, Any]]:
        """Block error counters after a run: any nonzero one is an error."""
        d = self.dut
        errs: list[str] = []
        for b in range(self.nbr):
            if (int(d.br_stat_err.value) >> (16 * b)) & 0xFFFF:
                errs.append(f"bridge {b}: stat_err {(int(d.br_stat_err.value) >> (16 * b)) & 0xFFFF}")
            if (int(d.br_stat_proto_err.value) >> (16 * b)) & 0xFFFF:
                errs.append(f"bridge {b}: stat_proto_err set")
        if int(d.ha_err_count.value):
            errs.append(f"home agent error counters {int(d.ha_err_count.value):#x}")
        if int(d.err_bridge_h2d.value):
            errs.append("home agent snooped a bridge")
        alias = int(d.mn_alias.value)
        if alias:
            errs.append(f"memory node store aliasing (MN_AW too small): {alias:#x}")
        for b, s in enumerate(self.status()):
            if s["unexpected"]:
                errs.append(f"bridge {b}: response with no outstanding request")
            if s["extra_beats"]:
                errs.append(f"bridge {b}: read response with more than one data beat")
        sw = {"A": await self.counters(0)}
        if mode != "direct":
            sw["B"] = await self.counters(1)
        for name, c in sw.items():
            bad = {k: c[k] for k in BAD_COUNTERS if c[k]}
            if bad:
                errs.append(f"switch {name} error counters: {bad}")
        links = self.link_stats()
        for name, s in links.items():
            if s["fatal"]:
                errs.append(f"link {name}: link_fatal")
        return errs, {"switch": sw, "links": links}


def progress_bar(stream: Any = None):
    """A one-line progress bar on stderr (requests answered, simulated cycles, cycles/s)."""
    out = stream or sys.__stderr__

    def show(done: int, total: int, cycles: int, secs: float) -> None:
        frac = done / total if total else 1.0
        bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
        rate = cycles / secs if secs > 0 else 0.0
        out.write(f"\r[{bar}] {done}/{total} requests  {cycles} cycles  {rate:,.0f} cycles/s  {secs:5.1f} s")
        if done >= total:
            out.write("\n")
        out.flush()
    return show
