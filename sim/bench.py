"""`make bench`: measured performance figures into results/bench.json.

Each block contributes a ``bench() -> dict[str, float]`` function that runs real simulations (or the
system model) and returns measured numbers; nothing here is asserted or hard-coded. A block whose
bench fails is listed under "errors" with the reason, so a missing figure is visible, not silent.
"""
from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import platform
import sys
import time
import traceback
from pathlib import Path

# (key prefix, module with a bench() function)
BENCHES: list[tuple[str, str]] = [
    ("link", "tb.link.bench"),
    ("switch", "tb.switch.bench"),
    ("coherence", "tb.coherence.bench"),
    ("bridge", "tb.bridge.bench"),
    ("system", "sim.system"),
    ("cosim", "sim.cosim.bench"),
    ("synth", "tools.synth"),      # reads the last `make synth` (results/synth/timing.json)
    ("regression", "tools.ray_pytest"),
    ("sweep", "sim.sweep"),
    ("coverage", "tools.coverage"),   # reads the last `make coverage` (results/coverage/summary.json)
    ("formal", "tools.formal"),       # runs `make formal`'s proofs and broken variants
    ("signoff", "tools.signoff"),     # reads the last `make signoff` (results/signoff/summary.json)
    ("soak", "tb.soak"),
]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="results/bench.json")
    ap.add_argument("--only", action="append", help="run only these prefixes")
    ap.add_argument("--update", action="store_true",
                    help="keep the other prefixes' figures already in --out (re-measure one block)")
    args = ap.parse_args()
    known = {p for p, _ in BENCHES}
    if args.only and set(args.only) - known:
        ap.error(f"--only {sorted(set(args.only) - known)}: unknown prefix (known: {', '.join(p for p, _ in BENCHES)})")
    out: dict[str, object] = {
        "generated": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "host": {"python": platform.python_version(), "machine": platform.machine()},
        "clock_ghz": 1.0,
    }
    errors: dict[str, str] = {}
    for prefix, mod in BENCHES:
        if args.only and prefix not in args.only:
            continue
        t0 = time.perf_counter()
        print(f"== bench {prefix} ({mod})", flush=True)
        try:
            res = importlib.import_module(mod).bench()
        except Exception as exc:  # keep going: other blocks' figures are still worth having
            traceback.print_exc()
            errors[prefix] = f"{type(exc).__name__}: {exc}"
            continue
        for k, v in res.items():
            print(f"   {k:45s} {v}")
            out[k] = v
        out[f"bench_seconds.{prefix}"] = round(time.perf_counter() - t0, 2)
    path = Path(args.out)
    if args.update and path.exists():
        # figures of the prefixes not run now stay as they were measured (their generation time kept
        # per prefix under "measured_at"); the prefixes run now replace theirs
        old = json.loads(path.read_text())
        ran = [p for p, _ in BENCHES if not args.only or p in args.only]
        kept = {k.split(".", 1)[0] for k in old if "." in k and not k.startswith("bench_seconds.")}
        stamps = {p: old.get("measured_at", {}).get(p, old.get("generated")) for p, _ in BENCHES
                  if p not in ran and p in kept}   # only prefixes that have figures
        for k, v in old.items():
            head = k.split(".", 1)[0] if not k.startswith("bench_seconds.") else k.split(".")[1]
            if k in ("generated", "host", "clock_ghz", "errors", "measured_at") or head in ran:
                continue
            out.setdefault(k, v)
        errors = {**{p: e for p, e in old.get("errors", {}).items() if p not in ran}, **errors}
        out["measured_at"] = {**stamps, **{p: out["generated"] for p in ran}}
    if errors:
        out["errors"] = errors

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n")
    print(f"wrote {path}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
