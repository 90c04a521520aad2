"""Sound where BookSim is not: minimal adaptive routing with an up*/down* escape VC, 10^6 cycles past saturation.

    python tests/benchmarks/acceptance_traffic.py [--cycles 1000000] [--time-limit 30]

On three networks with cycles everywhere, where BookSim's anynet ``min`` routing deadlocks:

* ``ring:256`` plus 512 shortcuts found by ``annealing`` (cap 6, ASPL objective, ``--time-limit`` s);
* the published Equality network E369 (200 switches, 12 links each);
* ``torus:8x8x8``,

it finds the saturation throughput of ``adaptive-updown`` (2 VCs, 4-flit packets, uniform traffic,
one host per switch) by bisection, then runs ``--cycles`` cycles at 1.2x that load with the sources
dropping what they cannot queue, and prints whether flits kept moving to the end (no deadlock:
no cycle of ``deadlock_cycles`` without a flit moving while flits are queued), the accepted load,
and the all-paths LP bound that no routing can beat.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hopbench.harness.problems import networks  # noqa: E402
from hopbench.harness.traffic.bounds import max_concurrent_flow  # noqa: E402
from hopbench.harness.traffic.patterns import Hosts, make_pattern  # noqa: E402
from hopbench.harness.traffic.routing import build_routing  # noqa: E402
from hopbench.harness.traffic.simulator import Network, router_config, saturation_throughput, soak  # noqa: E402


def annealed_ring(time_limit: float) -> networks.Network:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "ring256.json"
        subprocess.run([sys.executable, "-m", "hopbench.harness.cli", "solve", "--base", "ring:256", "--cap", "6", "--budget",
                        "512", "--solver", "annealing", "--seed", "1", "--time-limit", str(time_limit), "-o", str(out)],
                       check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        return networks.from_result_file(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cycles", type=int, default=1_000_000)
    ap.add_argument("--time-limit", type=float, default=30.0, help="annealing's seconds for the ring's shortcuts")
    ap.add_argument("--only", choices=("ring", "equality", "torus"), action="append",
                    help="run only these networks (repeatable)")
    ap.add_argument("--lp-max-switches", type=int, default=256,
                    help="skip the all-paths LP above this many switches (torus:8x8x8's takes HiGHS tens of minutes)")
    args = ap.parse_args()
    builders = {"ring": ("ring:256 + 512 annealing shortcuts", lambda: annealed_ring(args.time_limit)),
                "equality": ("Equality E369", lambda: networks.from_notation("E369")),
                "torus": ("torus:8x8x8", lambda: networks.from_topology("torus:8x8x8"))}
    cases = [(builders[key][0], builders[key][1]()) for key in (args.only or list(builders))]
    cfg = router_config(num_vcs=2, packet_size=4, deadlock_cycles=5000)
    print(f"adaptive-updown, 2 VCs, 4-flit packets, uniform traffic, 1 host per switch; {args.cycles:,} cycles at "
          f"1.2x saturation")
    failures = 0
    for name, network in cases:
        g = network.graph
        hosts = Hosts.build(g.n, 1)
        pattern = make_pattern("uniform", hosts, seed=1)
        net = Network(g, hosts, build_routing("adaptive-updown", g, num_vcs=2), pattern, cfg)
        started = time.perf_counter()
        sat = saturation_throughput(net, seed=1, tolerance=0.01)
        bound = max_concurrent_flow(g, pattern.demand_matrix(hosts)).lam if g.n <= args.lp_max_switches \
            else float("inf")
        load = min(1.0, 1.2 * sat.throughput)

        def tick(done: int) -> None:
            if done % 100_000 == 0:
                print(f"    {done:,} cycles, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)

        run = soak(net, load, args.cycles, seed=2, progress=tick)
        ok = not run.deadlock and run.cycles == args.cycles and run.accepted <= bound * 1.02
        failures += not ok
        print(f"{name}: {g.n} switches, {g.m} links; saturation {sat.throughput:.4f}, LP bound "
              f"{'(skipped)' if bound == float('inf') else f'{bound:.4f}'} "
              f"flits/cycle/host; at {load:.4f}: {run.cycles:,} cycles, deadlock {run.deadlock}, accepted "
              f"{run.accepted:.4f}, {run.dropped_packets:,} packets refused by full source queues, "
              f"{run.in_network:,} flits in the network at the end; {time.perf_counter() - started:.0f} s "
              f"{'ok' if ok else 'FAILED'}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
