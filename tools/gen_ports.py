"""Port lists of test-only wrappers, generated from the RTL module whose ports they repeat.

A wrapper under tb/*/hdl that exposes a design module's ports under the same names (so that one
bench drives the module and the wrapper) marks that part of its port list::

    // ports xl_rx_valid .. hbm_iss_idx of rtl/bridge/xbridge_core.v (make gen)
    ...                                   <- written by this tool
    // end of generated ports

and this tool writes, between the two lines, the module's port declarations from the first named
port to the last, in the module's order, with its comments: `output reg` becomes `output wire`
(a wrapper's port is driven by an instance), every line ends in a comma (the generated block is
never the wrapper's last port), and `; N as M` after the path renames a parameter in the widths
(`..., rtl/switch/cxl_switch_core.v; N as M (make gen)`). The module file owns the list: when a
port changes there, `make gen` rewrites every wrapper and `make check-gen` (part of `make test`)
fails until it has.

Usage:  python -m tools.gen_ports [--check] [files...]   (default: every tb/*/hdl/*.v)
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GEN_COMMAND = "make gen"

BEGIN = re.compile(r"^(?P<ind>\s*)// ports (?P<first>\w+) \.\. (?P<last>\w+) of (?P<src>\S+?)"
                   r"(?P<ren>(?:; \w+ as \w+)*) \(make gen\)\s*$")
END = re.compile(r"^\s*// end of generated ports\s*$")
PORT = re.compile(r"^\s*(?P<dir>input|output|inout)\s+(?:(?P<kind>wire|reg)\s+)?"
                  r"(?P<rng>\[[^\]]*\])?\s*(?P<name>\w+)\s*,?\s*(?://\s?(?P<com>.*?))?\s*$")
COMMENT = re.compile(r"^\s*//\s?(?P<com>.*?)\s*$")


class GenError(Exception):
    pass


@dataclass
class Line:
    """A port declaration (name set) or a comment line of a port list."""

    dir: str = ""
    rng: str = ""
    name: str = ""
    com: str = ""


def port_lines(src: Path, first: str, last: str) -> list[Line]:
    """The declarations of `src`'s ports `first` .. `last` and the comment lines among them."""
    out: list[Line] = []
    inside = False
    for no, text in enumerate(src.read_text().splitlines(), 1):
        m = PORT.match(text)
        if not inside:
            if m and m["name"] == first:
                inside = True
            else:
                continue
        if m:
            out.append(Line(m["dir"], (m["rng"] or "").replace(" ", ""), m["name"], m["com"] or ""))
            if m["name"] == last:
                return out
        elif (c := COMMENT.match(text)):
            out.append(Line(com=c["com"]))
        else:
            raise GenError(f"{src}:{no}: not a port declaration between {first} and {last}: {text.strip()!r}")
    raise GenError(f"{src}: no port list from {first} to {last}" if inside else f"{src}: no port {first}")


def render(lines: list[Line], indent: str, renames: dict[str, str]) -> list[str]:
    """The wrapper's text for `lines`, aligned in columns."""
    def ren(rng: str) -> str:
        for a, b in renames.items():
            rng = re.sub(rf"\b{a}\b", b, rng)
        return rng
    ports = [ln for ln in lines if ln.name]
    rw = max(len(ren(p.rng)) for p in ports)
    nw = max(len(p.name) for p in ports) + 1
    out = []
    for ln in lines:
        if not ln.name:
            out.append(f"{indent}// {ln.com}".rstrip())
            continue
        text = f"{indent}{ln.dir:<6} wire {ren(ln.rng):<{rw}} {ln.name + ',':<{nw}}"
        out.append((f"{text} // {ln.com}" if ln.com else text).rstrip())
    return out


def generate(wrapper: Path, root: Path = REPO) -> str:
    """`wrapper`'s text with every marked port block regenerated from its module."""
    lines = wrapper.read_text().splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = BEGIN.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        j = i
        while j < len(lines) and not END.match(lines[j]):
            if BEGIN.match(lines[j]):
                raise GenError(f"{wrapper}:{j + 1}: generated port block opened inside another")
            j += 1
        if j == len(lines):
            raise GenError(f"{wrapper}:{i}: '// end of generated ports' missing")
        renames = dict(r.split(" as ") for r in m["ren"].split("; ") if r)
        src = root / m["src"]
        if not src.is_file():
            raise GenError(f"{wrapper}:{i}: {m['src']} does not exist")
        out += render(port_lines(src, m["first"], m["last"]), m["ind"], renames)
        out.append(lines[j])
        i = j + 1
    return "\n".join(out) + ("\n" if wrapper.read_text().endswith("\n") else "")


def wrappers(root: Path = REPO) -> list[Path]:
    return sorted(p for p in (root / "tb").glob("*/hdl/*.v")
                  if any(BEGIN.match(ln) for ln in p.read_text().splitlines()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a wrapper's generated ports are stale")
    ap.add_argument("files", nargs="*", type=Path, help="wrappers (default: every tb/*/hdl/*.v with a marked block)")
    args = ap.parse_args(argv)
    files = args.files or wrappers()
    stale = []
    try:
        for f in files:
            text = generate(f)
            if f.read_text() == text:
                continue
            if args.check:
                stale.append(f)
            else:
                f.write_text(text)
                print(f"wrote {f}")
    except GenError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if stale:
        for f in stale:
            print(f"{f}: generated ports are stale: run `{GEN_COMMAND}`", file=sys.stderr)
        return 1
    if args.check:
        print(f"{len(files)} wrapper(s) with generated ports up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
