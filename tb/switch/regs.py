"""Register map of cxl_switch_cfg and the translation of a models.switch.SwitchConfig into writes.

The RTL checks each write against the configuration already programmed, so `config_writes` orders
them: mode, ports, routes, then decoders (stage, then commit)."""
from __future__ import annotations

from dataclasses import dataclass

from models.switch import HDM_UNIT, PortRole, SwitchConfig

A_CTRL, A_INFO, A_ERR = 0x000, 0x001, 0x002
A_PORT = 0x010
A_DEC = 0x100
A_ROUTE = 0x200
A_COUNT = 0x300
A_CLEAR = 0x3FF
RESP_OK, RESP_ADDR, RESP_REJ = 0, 1, 2
ROLE_CODE = {PortRole.USP: 0, PortRole.DSP: 1, PortRole.FABRIC: 2}
# counter index -> models.switch.SwitchCounters field (15: rejected configuration writes)
COUNTERS = ("forwarded_req", "forwarded_rsp", "poisoned", "nxm_read", "nxm_write", "nxm_no_response",
            "tag_conflict", "unknown_dpid", "unexpected_rsp", "misrouted", "bad_direction", "bad_opcode",
            "unsupported", "rx_disabled", "egress_disabled", "cfg_rejected")
# reasons in the ERR register
ERR = {"pid_range": 2, "pid_shared": 3, "role": 4, "eiw": 5, "eig": 6, "wrap": 7, "size3": 8, "overlap": 9,
       "tgt_dup": 10, "tgt_port": 11, "tgt_range": 12, "tgt_usp": 13, "rt_dpid": 14, "rt_port": 15,
       "rt_local": 16, "rt_mode": 17, "dec_range": 18, "fab_hbr": 19, "rt_dup": 20}


@dataclass(frozen=True)
class RegWrite:
    addr: int
    data: int


def ctrl(pbr: bool, poison: bool = False) -> RegWrite:
    return RegWrite(A_CTRL, int(pbr) | int(poison) << 1)


def port(p: int, role: PortRole | int, pid: int = 0, enable: bool = True) -> RegWrite:
    code = ROLE_CODE[role] if isinstance(role, PortRole) else role
    return RegWrite(A_PORT + p, int(enable) | code << 1 | pid << 16)


def route(e: int, dpid: int, egress: int, valid: bool = True) -> RegWrite:
    return RegWrite(A_ROUTE + e, int(valid) | egress << 8 | dpid << 16)


def decoder(d: int, base_units: int, size_units: int, eiw: int, eig: int,
            targets: tuple[int, ...], commit: bool = True) -> list[RegWrite]:
    a = A_DEC + 0x20 * d
    w = [RegWrite(a, base_units), RegWrite(a + 1, size_units), RegWrite(a + 2, eiw | eig << 4)]
    w += [RegWrite(a + 0x10 + i, t) for i, t in enumerate(targets)]
    return w + [RegWrite(a + 3, int(commit))]


def config_writes(cfg: SwitchConfig, ndec: int) -> list[RegWrite]:
    """Writes that program `cfg` into a freshly reset switch (decoder slots 0..)."""
    if len(cfg.decoders) > ndec:
        raise ValueError(f"{len(cfg.decoders)} decoders, the RTL has {ndec}")
    out = [ctrl(cfg.mode == "pbr", cfg.poison_on_decode_error)]
    out += [port(p, pc.role, pc.pid or 0, pc.enabled) for p, pc in enumerate(cfg.ports)]
    out += [route(e, dpid, eg) for e, (dpid, eg) in enumerate(sorted(cfg.routes.items()))]
    for d, dec in enumerate(cfg.decoders):
        out += decoder(d, dec.base // HDM_UNIT, dec.size // HDM_UNIT, dec.eiw, dec.eig, dec.targets)
    return out


def readback(writes: list[RegWrite]) -> list[tuple[int, int]]:
    """(addr, value) a read returns after `writes` were all accepted, for the registers
    config_writes produces: CTRL, PORT, ROUTE and a decoder's staging BASE, SIZE, CTRL and TARGETs
    read back the last value written to them (their fields are as wide as the values config_writes
    forms); a decoder's COMMIT reads its valid bit, 1 after an accepted commit, 0 after a disable."""
    last: dict[int, int] = {}
    for w in writes:
        if w.addr in (A_INFO, A_ERR, A_CLEAR) or A_COUNT <= w.addr < A_CLEAR:
            raise ValueError(f"register {w.addr:#x} does not read back what is written")
        last[w.addr] = (w.data & 1) if A_DEC <= w.addr < A_ROUTE and (w.addr - A_DEC) % 0x20 == 3 else w.data
    return sorted(last.items())
