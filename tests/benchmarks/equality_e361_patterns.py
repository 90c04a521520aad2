"""Liang et al. 2022, Fig. 5: the 16,384-host Equality network E361 under its three routings and several patterns.

Fig. 5 compares E361's throughput under ``amin``, ``ugal`` and ``bgal`` with the best results of other topologies
(from its ref. [7], values in the figure only), and says ``ugal`` carries bit complement "akin to FlatFly", where
the others fail.  This script offers every host the same load (default 1.0 flit/cycle, all it can inject) and
prints the traffic the network accepts per routing and pattern: the throughput at full injection, the measure of
a throughput chart.  Network, hosts and router are those of E361's cell in the suite ``equality2022-10k-traffic`` (the
paper's router, internal speedup 2, with a 2,000-cycle drain limit).  A load point of E361 takes 2 to 11 minutes and a
few GB (``bgal``'s run took 6.4 GB at most); run the routings in separate processes to use several cores:

    python tests/benchmarks/equality_e361_patterns.py --routings adaptive-updown &
    python tests/benchmarks/equality_e361_patterns.py --routings ugal
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

SUITE = "equality2022-10k-traffic"
PATTERNS = ("uniform", "bitcomp", "bitrev", "shuffle", "transpose")
ROUTINGS = ("adaptive-updown", "ugal", "bgal")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--load", type=float, default=1.0, help="offered load, flits/cycle/host (default 1.0)")
    ap.add_argument("--routings", default=",".join(ROUTINGS), help=f"comma-separated, of {', '.join(ROUTINGS)}")
    ap.add_argument("--patterns", default=",".join(PATTERNS), help=f"comma-separated (default {','.join(PATTERNS)})")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    routings, patterns = args.routings.split(","), args.patterns.split(",")
    from hopbench.harness.traffic.patterns import PATTERNS as KNOWN_PATTERNS

    if not set(routings) <= set(ROUTINGS) or not set(patterns) <= set(KNOWN_PATTERNS) or not 0 < args.load <= 1:
        ap.error(f"--routings takes some of {', '.join(ROUTINGS)}; --patterns some of {', '.join(KNOWN_PATTERNS)}; "
                 f"--load is in (0, 1]")

    from hopbench.harness.bench.suites import load_suite
    from hopbench.harness.problems.networks import load_network
    from hopbench.harness.traffic.simulator import router_config, simulate_load
    from hopbench.harness.traffic.study import prepare

    # E361's cell of the suite: its network, hosts a switch and router, as the board simulated them
    from hopbench.harness.errors import HopbenchError

    (cell,) = [i.fields for i in load_suite(SUITE).instances if i.fields["network"].startswith("equality:N2048K28")]
    network = load_network(cell["network"])
    config = router_config(**cell["router"])
    print("| routing | pattern | offered | injected | accepted | accepted / offered | status | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for routing in routings:
        for pattern in patterns:
            started = time.perf_counter()
            try:
                sim, _ = prepare(network, pattern=pattern, routing=routing, endpoints=cell["endpoints"],
                                 config=config, seed=args.seed)
            except HopbenchError as exc:  # e.g. an unknown pattern: one line, before anything is simulated
                print(f"error: {exc}", file=sys.stderr)
                return 2
            p = simulate_load(sim, args.load, seed=args.seed)
            print(f"| {routing} | {pattern} | {p.offered:.3f} | {p.injected:.4f} | {p.accepted:.4f} | "
                  f"{p.accepted / p.offered:.3f} | {p.status} | {time.perf_counter() - started:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
