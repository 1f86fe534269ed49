"""Generate rtl/include/cxl_defs.vh from the message tables in models/cxl/messages.py.

Usage:  python -m models.cxl.gen_verilog [--check] [--out PATH]
  (no flag)  write the file
  --check    exit 1 if the file on disk differs from what would be generated
Output is a pure function of the tables (deterministic, no timestamps).
"""
from __future__ import annotations

import argparse
import sys
from enum import IntEnum
from pathlib import Path

from models.cxl import messages as msg
from models.cxl.flit256 import GROUP_LIMITS

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO_ROOT / "rtl" / "include" / "cxl_defs.vh"
GEN_COMMAND = "python -m models.cxl.gen_verilog"
FLAVOR_SUFFIX: tuple[tuple[str, str], ...] = (("68B", "68"), ("256B", "256"), ("PBR", "PBR"))

# Enums emitted besides the per-message opcodes: (prefix, enum, width)
EXTRA_ENUMS: tuple[tuple[str, type[IntEnum], int], ...] = (
    ("CXL_GO_STATE", msg.GOState, 4),
    ("CXL_SNPTYPE", msg.SnpType, 3),
    ("CXL_METAVALUE", msg.MetaValue, 2),
    ("CXL_DEVLOAD", msg.DevLoad, 2),
)


def _opcode_width(mid: str) -> int:
    spec = msg.SPECS[mid]
    names = dict(spec.canonical)
    return names["memop"] if "memop" in names else names["opcode"]


def _hex(width: int, value: int) -> str:
    return f"{width}'h{value:0{(width + 3) // 4}X}"


def _param_block() -> list[str]:
    out = [
        "localparam integer CXL_HDR_W = 128;  // canonical header width",
        "localparam integer CXL_DATA_W = 512; // one 64 B line, byte k = data[8*k +: 8]",
        "",
        "// Link classes (index into tx_valid/tx_hdr vectors) and endpoint roles",
    ]
    for i, name in enumerate(msg.CLASS_NAMES):
        out.append(f"localparam integer CXL_CLS_{name} = {i};")
    out += [f"localparam integer CXL_NCLS = {msg.NCLS};",
            f"localparam integer CXL_ROLE_DOWN = {msg.ROLE_DOWN};",
            f"localparam integer CXL_ROLE_UP = {msg.ROLE_UP};", ""]
    for prefix, enum, width in EXTRA_ENUMS:
        for m in enum:
            out.append(f"localparam [{width - 1}:0] {prefix}_{m.name} = {_hex(width, int(m))};")
        out.append("")
    return out


def _message_block(mid: str) -> list[str]:
    spec = msg.SPECS[mid]
    up = mid.upper()
    out = [f"// ---- {spec.title} ({mid}) ----"]
    for flavor, sfx in FLAVOR_SUFFIX:
        lay = spec.wire.get(flavor)
        note = f"  // {lay.origin}" if lay else "  // absent in this flavour"
        out.append(f"localparam integer CXL_{up}_W{sfx} = {spec.width(flavor)};{note}")
    for name, lsb, w in spec.canonical_offsets():
        out.append(f"localparam integer CXL_{up}_{name.upper()}_LSB = {lsb};")
        out.append(f"localparam integer CXL_{up}_{name.upper()}_W = {w};")
    if spec.opcodes is not None:
        ow = _opcode_width(mid)
        for m in spec.opcodes:
            out.append(f"localparam [{ow - 1}:0] CXL_{up}_OP_{m.name} = {_hex(ow, int(m))};")
    for flavor, sfx in FLAVOR_SUFFIX:
        lay = spec.wire.get(flavor)
        if lay is not None:
            out += _to_wire_fn(mid, sfx, lay) + _from_wire_fn(mid, sfx, lay)
    out.append("")
    return out


def _to_wire_fn(mid: str, sfx: str, lay: msg.WireLayout) -> list[str]:
    up = mid.upper()
    fn = f"cxl_{mid}_to_w{sfx.lower()}"
    canon = {n: (lsb, w) for n, lsb, w in msg.SPECS[mid].canonical_offsets()}
    parts: list[tuple[str, str]] = []
    for name, lsb, w in reversed(lay.offsets()):
        rng = f"[{lsb + w - 1}:{lsb}]"
        if name == "valid":
            parts.append(("1'b1", f"{rng} Valid"))
        elif name == msg.RSVD:
            parts.append((f"{w}'d0", f"{rng} RSVD"))
        else:
            clsb, cw = canon[name]
            parts.append((f"hdr[{clsb + cw - 1}:{clsb}]", f"{rng} {name.upper()}"))
    out = [f"function automatic [CXL_{up}_W{sfx}-1:0] {fn}(input [CXL_HDR_W-1:0] hdr);",
           f"  {fn} = {{"]
    for i, (expr, comment) in enumerate(parts):
        comma = "," if i < len(parts) - 1 else " "
        out.append(f"    {expr}{comma} // {comment}")
    out += ["  };", "endfunction"]
    return out


def _from_wire_fn(mid: str, sfx: str, lay: msg.WireLayout) -> list[str]:
    up = mid.upper()
    fn = f"cxl_{mid}_from_w{sfx.lower()}"
    spec = msg.SPECS[mid]
    wire = {n: (lsb, w) for n, lsb, w in lay.offsets() if n not in (msg.RSVD, "valid")}
    parts: list[tuple[str, str]] = []
    pad = msg.CXL_HDR_W - spec.canonical_width
    if pad:
        parts.append((f"{pad}'d0", f"[{msg.CXL_HDR_W - 1}:{spec.canonical_width}] unused"))
    for name, clsb, cw in reversed(spec.canonical_offsets()):
        rng = f"[{clsb + cw - 1}:{clsb}] {name.upper()}"
        if name in wire:
            wlsb, ww = wire[name]
            parts.append((f"bits[{wlsb + ww - 1}:{wlsb}]", rng))
        else:
            parts.append((f"{cw}'d0", rng + " (absent)"))
    out = [f"function automatic [CXL_HDR_W-1:0] {fn}(input [CXL_{up}_W{sfx}-1:0] bits);",
           f"  {fn} = {{"]
    for i, (expr, comment) in enumerate(parts):
        comma = "," if i < len(parts) - 1 else " "
        out.append(f"    {expr}{comma} // {comment}")
    out += ["  };", "endfunction"]
    return out


def _class_block() -> list[str]:
    """Per link class (role of the sender, class) lookups of the 256B tables."""
    out = ["// ---- per link class, as an endpoint of role `role` sends it (CONVENTIONS.md class table) ----"]
    for name, fn, doc in (("w256", lambda mid, pbr: msg.SPECS[mid].width("PBR" if pbr else "256B"),
                           "256B wire width (pbr: PBR layout)"),
                          ("glim256", lambda mid, pbr: GROUP_LIMITS[mid],
                           "max messages per rolling 128B group (cxl-flits.md 4.3)")):
        out += [f"// {doc}; 0 for a class the role does not send",
                f"function automatic integer cxl_cls_{name}(input integer role, input integer pbr, input integer cls);",
                "    begin",
                f"        cxl_cls_{name} = 0;"]
        for role in (msg.ROLE_DOWN, msg.ROLE_UP):
            for c in range(msg.NCLS):
                mid = msg.CLASS_OF.get((role, c))
                if mid is None:
                    continue
                a, b = fn(mid, False), fn(mid, True)
                val = f"{a}" if a == b else f"(pbr != 0) ? {b} : {a}"
                out.append(f"        if (role == {role} && cls == {c}) cxl_cls_{name} = {val};  // {mid}")
        out += ["    end", "endfunction", ""]
    out += ["// RSVD bits of the 256B wire layout (pbr: PBR layout), within the width; 0 for a class the",
            "// role does not send",
            "function automatic [123:0] cxl_cls_rsvd256(input integer role, input integer pbr, input integer cls);",
            "    begin",
            "        cxl_cls_rsvd256 = 124'd0;"]
    for role in (msg.ROLE_DOWN, msg.ROLE_UP):
        for c in range(msg.NCLS):
            mid = msg.CLASS_OF.get((role, c))
            if mid is None:
                continue
            masks = []
            for flavor in ("256B", "PBR"):
                m = 0
                for name, lsb, w in msg.SPECS[mid].wire[flavor].offsets():
                    if name == msg.RSVD:
                        m |= ((1 << w) - 1) << lsb
                masks.append(m)
            a, b = (f"124'h{m:031x}" for m in masks)
            out.append(f"        if (role == {role} && cls == {c}) cxl_cls_rsvd256 = (pbr != 0) ? {b} : {a};  // {mid}")
    out += ["    end", "endfunction", ""]
    return out


def generate() -> str:
    """Full text of cxl_defs.vh."""
    lines = [
        "// cxl_defs.vh: CXL message definitions for the ScalePool-HIL RTL.",
        f"// GENERATED by `{GEN_COMMAND}` from models/cxl/messages.py and flit256.py. DO NOT EDIT.",
        f"// `{GEN_COMMAND} --check` (make check-gen) fails when this file is stale.",
        "// Include inside a module body (no include guard). Contract: rtl/include/CONVENTIONS.md.",
        "// Canonical header: fields LSB-first from bit 0, no Valid; CXL_<M>_<F>_LSB/_W give positions.",
        "// Wire widths CXL_<M>_W68/_W256/_WPBR include Valid (bit 0); 0 = absent in that flavour.",
        "// cxl_<m>_to_w*: canonical -> wire (Valid=1; fields absent from the flavour are dropped).",
        "// cxl_<m>_from_w*: wire -> canonical (Valid and RSVD ignored; absent fields read 0).",
        "/* verilator lint_off UNUSEDPARAM */",
        "/* verilator lint_off UNUSEDSIGNAL */",
    ]
    lines += _param_block()
    for mid in msg.MESSAGE_IDS:
        lines += _message_block(mid)
    lines += _class_block()
    lines += ["/* verilator lint_on UNUSEDSIGNAL */", "/* verilator lint_on UNUSEDPARAM */"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the file on disk is stale")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output path")
    args = ap.parse_args(argv)
    text = generate()
    if args.check:
        old = args.out.read_text() if args.out.exists() else None
        if old != text:
            print(f"{args.out} is stale or missing: run `{GEN_COMMAND}`", file=sys.stderr)
            return 1
        print(f"{args.out} is up to date")
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
