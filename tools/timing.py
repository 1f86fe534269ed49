"""Logic depth (levels of gates between registers) of synthesized modules, composed across the
module hierarchy. Used by tools/synth.py (`make synth`); the budget and its sources are in
rtl/README-timing.md.

Measure: after yosys `synth` (ABC maps every module to AND, NAND, OR, NOR, XOR, XNOR, ANDNOT, ORNOT,
MUX and NOT gates, each of delay 1 in the gate library yosys hands to ABC, so ABC's mapper
minimises exactly this depth), a path's depth is the number of those gates on it ($_BUF_ counts 0).
Paths start at flip-flop outputs, module inputs and submodule outputs and end at flip-flop inputs
(D, enable, set/reset: every pin but the clock), module outputs and submodule inputs.

Two steps, because tools/synth.py synthesizes each module alone with its submodules as black boxes:
1. `boundary_graph(netlist, module)` reduces one module's gate netlist (yosys `write_json`) to its
   boundary timing graph: the deepest register-to-register path inside it, and for every boundary
   bit (module ports and submodule pins) the deepest path from its own registers to it, from it to
   its own registers, and from each boundary start bit to each boundary end bit (combinational
   arcs). This is small next to the netlist, is cached with the cell counts and does not depend on
   the submodules.
2. `compose(name, graphs)` walks the hierarchy bottom-up and replaces every submodule instance by
   its composed abstraction (register-to-output, input-to-register and input-to-output depths per
   bit), so paths that cross module boundaries are measured end to end: the result equals the
   flattened netlist's depth except for logic ABC could have merged across a boundary (checked
   against a flattened `synth` on small tops in tests/test_timing.py).
A combinational loop through submodules (each module alone is loop-free: `check -assert`) is
reported in `loops` and cut there.
"""
from __future__ import annotations

from collections import defaultdict

# ---------------------------------------------------------------------------------------------
# Budget: gate levels that fit between two flip-flops at the project's 1 GHz clock. Cell figures from
# the Nangate 45 nm Open Cell Library, typical corner (1.1 V, 25 C), NangateOpenCellLibrary_typical.lib
# (NLDM tables; input slew 17.2 ps, the third index, close to an FO4 stage's output slew). The
# derivation and what changes it: rtl/README-timing.md.
CLOCK_PS = 1000.0                # 1 GHz: the project's clock (README.md, "Performance figures")
FO4_PS = 23.7                    # INV_X1 driving 4 x its input (4 x 1.70 fF): (18.0 fall + 29.4 rise) / 2
DFF_CLK_TO_Q_PS = 93.3           # DFF_X1 CK -> Q at 3.8 fF: (89.9 fall + 96.7 rise) / 2
DFF_SETUP_PS = 39.8              # DFF_X1 setup_rising, D and CK slews 45 ps: the larger of rise / fall
CLOCK_UNCERTAINTY_PS = 100.0     # skew + jitter: 10 % of the cycle, our planning assumption (not sourced)
LEVEL_PS = 38.0                  # one ABC level: AND2_X1 A1 -> ZN at 3.8 fF (2 loads): (36.6 + 39.4) / 2
BUDGET_LEVELS = int((CLOCK_PS - DFF_CLK_TO_Q_PS - DFF_SETUP_PS - CLOCK_UNCERTAINTY_PS) // LEVEL_PS)


# Sequential cell families in yosys' internal gate library: every pin except the clock is a path
# end, the Q output a path start.
SEQ_PREFIXES = ("$_DFF", "$_SDFF", "$_ALDFF", "$_DLATCH", "$_SR_", "$_FF_")
CLOCK_PINS = {"C", "E_latch"}            # "C" is the clock of every $_*DFF*_ cell
ZERO_DELAY = {"$_BUF_"}
NEG = -1                                  # "no path" depth


def _is_seq(typ: str) -> bool:
    return typ.startswith(SEQ_PREFIXES)


def _bit_names(mod: dict, regs: set[int]) -> dict[int, str]:
    """bit id -> readable name. Preference: a public net whose bits are all flip-flop outputs (a
    register's own name, not an alias a combinational variable happens to share), then other
    public nets, then ports, then private nets; the shortest name within a rank."""
    names: dict[int, tuple[int, int, str]] = {}
    for net, info in mod.get("netnames", {}).items():
        bits = info["bits"]
        off = info.get("offset", 0)
        upto = info.get("upto", 0)
        if info.get("hide_name", 0):
            rank = 3
        elif net in mod.get("ports", {}):
            rank = 2
        else:
            rank = 0 if all(b in regs for b in bits) else 1
        for i, b in enumerate(bits):
            if not isinstance(b, int):
                continue
            idx = (off + len(bits) - 1 - i) if upto else (off + i)
            nm = net.lstrip("\\") + (f"[{idx}]" if len(bits) > 1 or off else "")
            key = (rank, len(nm), nm)
            if b not in names or key < names[b]:
                names[b] = key
    return {b: k[2] for b, k in names.items()}


def _pin_key(port: str, idx: int, width: int) -> str:
    return f"{port}[{idx}]" if width > 1 else port


def boundary_graph(netlist: dict, name: str) -> dict:
    """Boundary timing graph of module `name` in a yosys JSON netlist (its submodules black boxes).

    Keys: port pins "port[i]" (or "port" when 1 bit wide), instance pins "inst/port[i]".
      r2r   [levels, start, end, nets]: deepest path from a flip-flop to a flip-flop of this module
            (nets: the public nets on it, for reading) or None
      r2e   {end pin: [levels, start flip-flop]}: own flip-flops -> module outputs, instance inputs
      s2r   {start pin: [levels, end flip-flop]}: module inputs, instance outputs -> own flip-flops
      pairs {end pin: {start pin: levels}}: combinational arcs between boundary pins
      insts {inst: module type}; inputs / outputs {port: width}; ffs: flip-flop bits
    """
    mod = netlist["modules"].get(name) or netlist["modules"]["\\" + name]
    q_bits = {b for c in mod.get("cells", {}).values() if _is_seq(c["type"])
              for p, bits in c["connections"].items() if c["port_directions"].get(p) == "output"
              for b in bits if isinstance(b, int)}
    names = _bit_names(mod, q_bits)
    inputs: dict[str, int] = {}
    outputs: dict[str, int] = {}
    starts: dict[int, list[str]] = defaultdict(list)     # bit -> boundary start pins on it
    ends: dict[int, list[str]] = defaultdict(list)       # bit -> boundary end pins on it
    for p, info in mod.get("ports", {}).items():
        bits = info["bits"]
        d = info["direction"]
        (inputs if d == "input" else outputs)[p] = len(bits)
        for i, b in enumerate(bits):
            if not isinstance(b, int):
                continue
            if d in ("input", "inout"):
                starts[b].append(_pin_key(p, i, len(bits)))
            if d in ("output", "inout"):
                ends[b].append(_pin_key(p, i, len(bits)))
    fanin: dict[int, list[tuple[int, int]]] = {}          # gate output bit -> [(input bit, delay)]
    reg_q: dict[int, str] = {}                            # flip-flop output bit -> its name
    reg_d: dict[int, str] = {}                            # bit -> a flip-flop it feeds (any pin but clock)
    insts: dict[str, str] = {}
    ffs = 0
    for cname, c in mod.get("cells", {}).items():
        typ = c["type"]
        dirs = c.get("port_directions", {})
        conns = c.get("connections", {})
        if typ.startswith("$_") and not _is_seq(typ):
            outs = [b for p, bits in conns.items() if dirs.get(p) == "output" for b in bits if isinstance(b, int)]
            ins = [b for p, bits in conns.items() if dirs.get(p) == "input" for b in bits if isinstance(b, int)]
            w = 0 if typ in ZERO_DELAY else 1
            for o in outs:
                fanin[o] = [(i, w) for i in ins]
        elif _is_seq(typ):
            ffs += 1
            q = [b for p, bits in conns.items() if dirs.get(p) == "output" for b in bits if isinstance(b, int)]
            qn = names.get(q[0], cname.lstrip("\\")) if q else cname.lstrip("\\")
            for b in q:
                reg_q[b] = names.get(b, qn)
            for p, bits in conns.items():
                if p in CLOCK_PINS or dirs.get(p) == "output":
                    continue
                for b in bits:
                    if isinstance(b, int):
                        if b not in reg_d or p == "D":
                            reg_d[b] = qn if p == "D" else f"{qn} ({p} pin)"
        elif typ.startswith("$") and not typ.startswith("$paramod") and typ not in netlist["modules"]:
            # other internal cells ($print, $check, $scopeinfo ...): inputs are ends, outputs starts
            for p, bits in conns.items():
                for b in bits:
                    if isinstance(b, int) and dirs.get(p) == "output":
                        reg_q[b] = f"{cname.lstrip(chr(92))}.{p}"
        else:
            inst = cname.lstrip("\\")
            insts[inst] = typ.lstrip("\\")
            for p, bits in conns.items():
                for i, b in enumerate(bits):
                    if not isinstance(b, int):
                        continue
                    key = f"{inst}/{_pin_key(p, i, len(bits))}"
                    if dirs.get(p) == "output":
                        starts[b].append(key)
                    else:
                        ends[b].append(key)
    order = _topo(fanin)
    # forward: deepest path from an own flip-flop
    arr: dict[int, int] = {b: 0 for b in reg_q}
    pred: dict[int, int] = {}
    for o in order:
        best, arg = NEG, None
        for i, w in fanin[o]:
            a = arr.get(i, NEG)
            if a != NEG and a + w > best:
                best, arg = a + w, i
        if best != NEG:
            arr[o] = best
            pred[o] = arg

    def chain(b: int) -> list[int]:
        out = [b]
        while out[-1] in pred:
            out.append(pred[out[-1]])
        return out[::-1]

    r2r = None
    for b, reg in reg_d.items():
        a = arr.get(b, NEG)
        if a != NEG and (r2r is None or a > r2r[0]):
            c = chain(b)
            r2r = [a, reg_q.get(c[0], names.get(c[0], "?")), reg,
                   [names[x] for x in c[1:-1] if x in names and not names[x].startswith("$")]]
    r2e = {}
    for b, pins in ends.items():
        a = arr.get(b, NEG)
        if a != NEG:
            st = reg_q.get(chain(b)[0], "?")
            for p in pins:
                r2e[p] = [a, st]
    # backward: deepest path to an own flip-flop
    req: dict[int, int] = {b: 0 for b in reg_d}
    succ_end: dict[int, str] = dict(reg_d)
    for o in reversed(order):
        r = req.get(o, NEG)
        if r == NEG:
            continue
        for i, w in fanin[o]:
            if r + w > req.get(i, NEG):
                req[i] = r + w
                succ_end[i] = succ_end[o]
    s2r = {}
    for b, pins in starts.items():
        r = req.get(b, NEG)
        if r != NEG:
            for p in pins:
                s2r[p] = [r, succ_end[b]]
    # combinational arcs between boundary pins: propagate {start bit: depth} forward, only on bits
    # that reach a boundary end
    useful: set[int] = set(ends)
    for o in reversed(order):
        if o in useful:
            useful.update(i for i, _ in fanin[o])
    sup: dict[int, dict[int, int]] = {b: {b: 0} for b in starts if b in useful}
    for o in order:
        if o not in useful:
            continue
        acc: dict[int, int] = {}
        for i, w in fanin[o]:
            for s, d in sup.get(i, {}).items():
                if d + w > acc.get(s, NEG):
                    acc[s] = d + w
        if acc:
            sup[o] = acc
    pairs: dict[str, dict[str, int]] = {}
    for b, pins in ends.items():
        if b not in sup:
            continue
        arcs = {}
        for s, d in sup[b].items():
            for sp in starts[s]:
                arcs[sp] = d
        for p in pins:
            own = {k: v for k, v in arcs.items() if k != p}
            if own:
                pairs[p] = own
    return {"module": name, "inputs": inputs, "outputs": outputs, "insts": insts, "ffs": ffs,
            "r2r": r2r, "r2e": r2e, "s2r": s2r, "pairs": pairs}


def _topo(fanin: dict[int, list[tuple[int, int]]]) -> list[int]:
    """Gate output bits in topological order (inputs before outputs); a loop (never inside one
    checked module) would leave bits out, and they are then simply not timed."""
    indeg = {o: sum(1 for i, _ in ins if i in fanin) for o, ins in fanin.items()}
    users: dict[int, list[int]] = defaultdict(list)
    for o, ins in fanin.items():
        for i, _ in ins:
            if i in fanin:
                users[i].append(o)
    ready = [o for o, d in indeg.items() if d == 0]
    order = []
    while ready:
        o = ready.pop()
        order.append(o)
        for u in users.get(o, ()):
            indeg[u] -= 1
            if indeg[u] == 0:
                ready.append(u)
    return order


# ---------------------------------------------------------------------------------------------
# Composition across the hierarchy. A path is a list of hops (instance path, from, to, levels);
# its depth is the sum of the hops' levels.

def _prefix(path: list, inst: str) -> list:
    return [(f"{inst}/{h[0]}" if h[0] else inst, h[1], h[2], h[3]) for h in path]


def _pins(ports: dict[str, int]) -> list[str]:
    return [_pin_key(p, i, w) for p, w in ports.items() for i in range(w)]


def compose(name: str, graphs: dict[str, dict], memo: dict | None = None) -> dict:
    """Abstraction of module `name` with every submodule composed in:
      r2r  [levels, path] deepest flip-flop to flip-flop path anywhere inside (or None)
      r2o  {output pin: [levels, path]}   i2r {input pin: [levels, path]}
      i2o  {output pin: {input pin: levels}}   loops: [pins on a cut combinational loop]
    graphs: module name -> boundary_graph(); memo: shared between calls."""
    memo = {} if memo is None else memo
    if name in memo:
        return memo[name]
    g = graphs[name]
    subs = {inst: compose(typ, graphs, memo) for inst, typ in g["insts"].items()}
    loops: list[str] = []
    # nodes: boundary pins of this module, "port[i]" and "inst/port[i]"; an edge carries the hop it
    # stands for: ("", from, to, levels) for this module's logic, (inst, in, out, levels) through one
    succ: dict[str, list[tuple[str, tuple]]] = defaultdict(list)
    for e, arcs in g["pairs"].items():
        for s, d in arcs.items():
            succ[s].append((e, ("", s, e, d)))
    for inst, a in subs.items():
        for o, arcs in a["i2o"].items():
            for i, d in arcs.items():
                succ[f"{inst}/{i}"].append((f"{inst}/{o}", (inst, i, o, d)))
        loops += [f"{inst}/{x}" for x in a["loops"]]
    preds: dict[str, list[tuple[str, tuple]]] = defaultdict(list)
    for n, lst in succ.items():
        for m, hop in lst:
            preds[m].append((n, hop))
    nodes = set(succ) | set(preds) | set(g["r2e"]) | set(g["s2r"])
    for inst, a in subs.items():
        nodes |= {f"{inst}/{o}" for o in a["r2o"]} | {f"{inst}/{i}" for i in a["i2r"]}
    order, cut = _topo_nodes(nodes, succ)
    loops += cut

    # forward: deepest path from any flip-flop (own or inside an instance) to each node, as
    # node -> [depth, previous node or None, hops from there]
    arr: dict[str, list] = {}

    def offer(tab: dict, node: str, d: int, other: str | None, hops: list) -> None:
        if node not in tab or d > tab[node][0]:
            tab[node] = [d, other, hops]
    for e, (lv, st) in g["r2e"].items():
        offer(arr, e, lv, None, [("", st, e, lv)])
    for inst, a in subs.items():
        for o, (lv, p) in a["r2o"].items():
            offer(arr, f"{inst}/{o}", lv, None, _prefix(p, inst))
    for n in order:
        if n in arr:
            for m, hop in succ.get(n, ()):
                offer(arr, m, arr[n][0] + hop[3], n, [hop])

    def back(n: str) -> list:
        out: list = []
        while n is not None:
            d, prev, hops = arr[n]
            out = hops + out
            n = prev
        return out
    cands = []
    if g["r2r"]:
        lv, st, en, _ = g["r2r"]
        cands.append((lv, lambda lv=lv, st=st, en=en: [("", st, en, lv)]))
    for inst, a in subs.items():
        if a["r2r"]:
            cands.append((a["r2r"][0], lambda a=a, inst=inst: _prefix(a["r2r"][1], inst)))
        for i, (lv, p) in a["i2r"].items():
            n = f"{inst}/{i}"
            if n in arr:
                cands.append((arr[n][0] + lv, lambda n=n, p=p, inst=inst: back(n) + _prefix(p, inst)))
    for s, (lv, en) in g["s2r"].items():
        if s in arr:
            cands.append((arr[s][0] + lv, lambda s=s, lv=lv, en=en: back(s) + [("", s, en, lv)]))
    r2r = None
    if cands:
        d, mk = max(cands, key=lambda c: c[0])
        r2r = [d, mk()]
    r2o = {o: [arr[o][0], back(o)] for o in _pins(g["outputs"]) if o in arr}

    # backward: deepest path from each node to any flip-flop, node -> [depth, next node, hops]
    req: dict[str, list] = {}
    for s, (lv, en) in g["s2r"].items():
        offer(req, s, lv, None, [("", s, en, lv)])
    for inst, a in subs.items():
        for i, (lv, p) in a["i2r"].items():
            offer(req, f"{inst}/{i}", lv, None, _prefix(p, inst))
    for m in reversed(order):
        if m in req:
            for n, hop in preds.get(m, ()):
                offer(req, n, req[m][0] + hop[3], m, [hop])

    def fwd(n: str) -> list:
        out: list = []
        while n is not None:
            d, nxt, hops = req[n]
            out += hops
            n = nxt
        return out
    i2r = {i: [req[i][0], fwd(i)] for i in _pins(g["inputs"]) if i in req}

    # input -> output arcs through the whole hierarchy
    outs = set(_pins(g["outputs"]))
    useful = set(outs)
    for m in reversed(order):
        if m in useful:
            useful.update(n for n, _ in preds.get(m, ()))
    sup: dict[str, dict[str, int]] = {i: {i: 0} for i in _pins(g["inputs"]) if i in useful}
    for n in order:
        if n not in sup:
            continue
        for m, hop in succ.get(n, ()):
            if m in useful:
                acc = sup.setdefault(m, {})
                for s, d in sup[n].items():
                    if d + hop[3] > acc.get(s, NEG):
                        acc[s] = d + hop[3]
        if n not in outs:
            del sup[n]                      # consumed: keep memory to the live frontier
    i2o = {o: {s: d for s, d in sup[o].items() if s != o} for o in outs if o in sup}
    i2o = {o: a for o, a in i2o.items() if a}
    res = {"r2r": r2r, "r2o": r2o, "i2r": i2r, "i2o": i2o, "loops": loops}
    memo[name] = res
    return res


def _topo_nodes(nodes: set[str], succ: dict[str, list]) -> tuple[list[str], list[str]]:
    """Topological order of a boundary graph; nodes left on a cycle are returned separately."""
    indeg = {n: 0 for n in nodes}
    for n, lst in succ.items():
        for m, _ in lst:
            indeg[m] += 1
    ready = sorted((n for n, d in indeg.items() if d == 0), reverse=True)
    order = []
    while ready:
        n = ready.pop()
        order.append(n)
        for m, _ in succ.get(n, ()):
            indeg[m] -= 1
            if indeg[m] == 0:
                ready.append(m)
    cut = sorted(n for n, d in indeg.items() if d > 0)
    return order, cut


def _fmt(path: list) -> list:
    return [{"in": h[0] or ".", "from": h[1], "to": h[2], "levels": h[3]} for h in path]


def _end(hop: tuple, k: int) -> str:
    return f"{hop[0]}/{hop[k]}" if hop[0] else hop[k]


def summary(a: dict) -> dict:
    """What results/synth/<top>.json keeps of a composed abstraction."""
    def best(d: dict) -> dict | None:
        if not d:
            return None
        k = max(d, key=lambda x: d[x][0])
        return {"levels": d[k][0], "pin": k, "path": _fmt(d[k][1])}
    i2o = None
    for o, arcs in a["i2o"].items():
        for i, lv in arcs.items():
            if i2o is None or lv > i2o["levels"]:
                i2o = {"levels": lv, "from": i, "to": o}
    r2r = a["r2r"]
    return {
        "logic_levels": r2r[0] if r2r else 0,
        "within": _within(r2r[1]) if r2r else None,
        "start": _end(r2r[1][0], 1) if r2r else None,
        "end": _end(r2r[1][-1], 2) if r2r else None,
        "path": _fmt(r2r[1]) if r2r else None,
        "reg_to_output": best(a["r2o"]),
        "input_to_reg": best(a["i2r"]),
        "input_to_output": i2o,
        "comb_loops": a["loops"][:20],
    }


def _within(path: list) -> str:
    """The innermost instance that holds the whole path ("" = it crosses this module's own logic)."""
    insts = [h[0] for h in path]
    if any(i == "" for i in insts):
        return ""
    parts = [i.split("/") for i in insts]
    common = []
    for seg in zip(*parts):
        if len(set(seg)) != 1:
            break
        common.append(seg[0])
    return "/".join(common)


def path_text(t: dict) -> str:
    """One line per path: start -> end, and the modules it crosses with their levels."""
    if not t.get("path"):
        return "-"
    hops = " + ".join(f"{h['levels']} in {h['in']}" if h["in"] != "." else f"{h['levels']} here"
                      for h in t["path"])
    return f"`{t['start']}` -> `{t['end']}` ({hops})"


def table(tops: dict, budget: int = BUDGET_LEVELS) -> str:
    """Markdown table of results/synth/timing.json's tops."""
    rows = ["| top | levels | vs budget | deepest register-to-register path | reg->out | in->reg | in->out |",
            "|---|---:|---|---|---:|---:|---:|"]
    for tag in sorted(tops, key=lambda t: (-tops[t]["logic_levels"], t)):
        t = tops[tag]
        lv = t["logic_levels"]
        io = [str((t.get(k) or {}).get("levels", "-")) for k in ("reg_to_output", "input_to_reg", "input_to_output")]
        verdict = f"**over by {lv - budget}**" if lv > budget else "ok"
        rows.append(f"| {tag} | {lv} | {verdict} | {path_text(t)} | " + " | ".join(io) + " |")
    return "\n".join(rows) + "\n"
