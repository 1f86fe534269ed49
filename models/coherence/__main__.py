"""`python -m models.coherence`: exhaustive exploration of one small configuration from the command line."""
from __future__ import annotations

from models.coherence.explore import explore
from models.coherence.system import SysConfig


def main(argv: list[str] | None = None) -> int:
    """CLI: python -m models.coherence --devices 2 --lines 1 --requests 2 --writes 1."""
    import argparse

    ap = argparse.ArgumentParser(description="Exhaustively explore the coherence model")
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--lines", type=int, default=1)
    ap.add_argument("--sets", type=int, default=2)
    ap.add_argument("--ways", type=int, default=2)
    ap.add_argument("--requests", type=int, default=2, help="requests per device")
    ap.add_argument("--writes", type=int, default=1, help="new values in total")
    ap.add_argument("--depth", type=int, default=None)
    ap.add_argument("--snoop-choices", action="store_true")
    ap.add_argument("--fault", default=None)
    a = ap.parse_args(argv)
    cfg = SysConfig(n_devices=a.devices, lines=tuple(range(a.lines)), sets=a.sets, ways=a.ways,
                    max_requests=a.requests, max_writes=a.writes, snoop_choices=a.snoop_choices,
                    fault=a.fault, mem_atomic=True)
    r = explore(cfg, max_depth=a.depth)
    print(r.summary())
    for v in r.violations[:5]:
        print("violation:", v)
    if r.counterexample:
        print("counterexample:", r.counterexample)
    return 0 if r.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
