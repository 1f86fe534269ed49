"""Traffic for the switch benches: configurations and host request streams (pure functions)."""
from __future__ import annotations

import random
from collections.abc import Sequence

from models.cxl.messages import CxlMessage, M2SReq, M2SReqOp, M2SRwD, M2SRwDOp
from models.switch import HDM_UNIT, HdmDecoder, PortConfig, PortRole, SwitchConfig, hbr_config

BASE = 0x10_0000_0000  # 64 GB, 256 MB aligned
PATTERNS = ("uniform", "hotspot", "permutation", "incast", "all_to_all")


def hbr_setup(n_ports: int, ways: int | None = None, gran: int = 1024) -> tuple[SwitchConfig, HdmDecoder]:
    """First half USPs (hosts), second half DSPs (devices), one decoder over all DSPs."""
    n_usp = n_ports // 2
    dsps = tuple(range(n_usp, n_ports))
    ways = ways or len(dsps)
    dec = HdmDecoder.make(BASE, 3 * HDM_UNIT * ways if ways % 3 == 0 else 2 * HDM_UNIT * ways, ways, gran,
                          dsps[:ways])
    roles = [PortRole.USP] * n_usp + [PortRole.DSP] * (n_ports - n_usp)
    return hbr_config(roles, [dec]), dec


def pbr_edge_setup(n_ports: int, gran: int = 1024) -> tuple[SwitchConfig, HdmDecoder]:
    """The same split in PBR mode: USP PIDs 0x100+p, DSP PIDs 0x200+p, decoder targets DSP PIDs."""
    n_usp = n_ports // 2
    ports = [PortConfig.usp(0x100 + p) if p < n_usp else PortConfig.dsp(0x200 + p) for p in range(n_ports)]
    tg = tuple(0x200 + p for p in range(n_usp, n_ports))
    ways = len(tg)
    dec = HdmDecoder.make(BASE, 3 * HDM_UNIT * ways if ways % 3 == 0 else 2 * HDM_UNIT * ways, ways, gran, tg)
    return SwitchConfig("pbr", ports, [dec]), dec


def hpa_for_way(dec: HdmDecoder, way: int, rng: random.Random, align: int = 64) -> int:
    """A random HPA inside `dec` that the decoder sends to way `way`."""
    share = dec.size // dec.ways
    return dec.dpa_to_hpa(way, rng.randrange(share // align) * align)


def dest_ways(pattern: str, host_idx: int, n_hosts: int, ways: int, count: int,
              rng: random.Random) -> list[int]:
    """Destination way of each of `count` requests of host `host_idx` under a traffic pattern."""
    if pattern == "uniform":
        return [rng.randrange(ways) for _ in range(count)]
    if pattern == "hotspot":
        return [0 if rng.random() < 0.5 else rng.randrange(ways) for _ in range(count)]
    if pattern == "permutation":
        perm = list(range(ways))
        random.Random(rng.getrandbits(32) if host_idx < 0 else 12345).shuffle(perm)
        return [perm[host_idx % ways]] * count
    if pattern == "incast":
        return [0] * count
    if pattern == "all_to_all":
        return [(host_idx + k) % ways for k in range(count)]
    raise ValueError(f"unknown pattern {pattern}")


def host_requests(host_idx: int, ways_seq: Sequence[int], dec: HdmDecoder, rng: random.Random,
                  ldid: int = 0, p_write: float = 0.4, p_noresp: float = 0.05,
                  tag_base: int | None = None) -> list[CxlMessage]:
    """Reads (MemRd, some MemSpecRd), writes (MemWr with random data, some poisoned) and
    invalidations; host h owns tags h<<12 .. (h<<12)+4095 (disjoint tag spaces)."""
    base = (host_idx << 12) if tag_base is None else tag_base
    out: list[CxlMessage] = []
    for k, way in enumerate(ways_seq):
        tag = base + (k % 4096)
        r = rng.random()
        if r < p_write:
            hpa = hpa_for_way(dec, way, rng)
            out.append(M2SRwD(memop=int(M2SRwDOp.MEMWR), tag=tag, addr=hpa >> 6, ldid=ldid,
                              poison=int(rng.random() < 0.05), data=rng.randbytes(64)))
        elif r < p_write + p_noresp:
            hpa = hpa_for_way(dec, way, rng)
            out.append(M2SReq(memop=int(M2SReqOp.MEMSPECRD), tag=tag, addr=hpa >> 6, ldid=ldid))
        elif r < p_write + p_noresp + 0.05:
            hpa = hpa_for_way(dec, way, rng)
            out.append(M2SReq(memop=int(M2SReqOp.MEMINV), tag=tag, addr=hpa >> 6, ldid=ldid))
        else:
            hpa = hpa_for_way(dec, way, rng, align=32)
            out.append(M2SReq(memop=int(M2SReqOp.MEMRD), tag=tag, addr=hpa >> 6, addr5=(hpa >> 5) & 1,
                              ldid=ldid, metafield=rng.randrange(4)))
    return out


HDM_SPACE = 1 << 24  # the decoder registers' HPA space in HDM_UNIT (256 MB) units: 2^52 B


def random_decoder_ranges(ndec: int, big: int, rng: random.Random) -> list[tuple[int, int]]:
    """(base, size) in HDM_UNIT units for decoder slots 0..ndec-1, anywhere in the 52-bit HPA space
    and pairwise disjoint: a random number of live slots (always `big`, whose size has bit 22 or 23
    as its top bit, so every size bit of every slot is set and cleared over rounds that move `big`),
    the other live sizes of a random bit length, placed in a random order with random gaps; slots
    left out get size 0 at a random base (legal, they decode nothing)."""
    while True:
        live = [big] + [d for d in range(ndec) if d != big and rng.random() < 0.6]
        sizes = {}
        for d in live:
            bits = rng.randint(23, 24) if d == big else rng.randint(1, 22)
            # a multiple of 3 units, so any way count (3/6/12 included) is legal for every range
            sizes[d] = 3 * -(-rng.randrange(1 << (bits - 1), 1 << bits) // 3)
        free = HDM_SPACE - sum(sizes.values())
        if free >= 0:
            break
    rng.shuffle(live)
    cuts = sorted(rng.randrange(free + 1) for _ in live)
    out = {d: (rng.randrange(HDM_SPACE), 0) for d in range(ndec)}
    pos = 0
    for d, cut in zip(live, cuts):
        base = cut + pos
        out[d] = (base, sizes[d])
        pos += sizes[d]
    return [out[d] for d in range(ndec)]


def random_pbr_config(n_ports: int, ndec: int, nrt: int, big: int, rng: random.Random,
                      ways_all: Sequence[int] = (1, 2, 4, 8, 16, 3, 6, 12)) -> SwitchConfig:
    """A random legal PBR configuration over the full field widths: port 0 a USP and port 1 a DSP
    with random 12-bit PIDs, the other ports fabric ports; `nrt` routes for random distinct DPIDs
    to random fabric ports; `ndec` decoders with random_decoder_ranges, random ways and granularity,
    targets drawn from the DSP's PID and the routed DPIDs."""
    pids = rng.sample(range(1 << 12), 2 + nrt)
    usp_pid, dsp_pid, dpids = pids[0], pids[1], pids[2:]
    ports = [PortConfig.usp(usp_pid), PortConfig.dsp(dsp_pid)] + [PortConfig.fabric() for _ in range(n_ports - 2)]
    routes = {d: rng.randrange(2, n_ports) for d in dpids}
    decs = []
    for base, size in random_decoder_ranges(ndec, big, rng):
        ways = rng.choice([w for w in ways_all if w <= 1 + nrt])
        tg = rng.sample([dsp_pid] + dpids, ways)
        decs.append(HdmDecoder.make(base * HDM_UNIT, size * HDM_UNIT, ways, 256 << rng.randrange(7), tg))
    return SwitchConfig("pbr", ports, decs, routes, poison_on_decode_error=rng.random() < 0.5)
