"""``hopbench evaluate``: diameter, ASPL and lower bounds of one graph."""
from __future__ import annotations

import argparse
import sys

from harness.cli._common import fmt_number, interruptible, print_json, sample_count, seed_value


#: an evaluation estimated to take longer than this is announced on stderr first
LONG_EVALUATION_SECONDS = 30.0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("evaluate", help="diameter, ASPL and lower bounds of a graph",
                       description="Measure a graph given as a Graph Golf edge list or a topology spec.")
    p.add_argument("edgefile", nargs="?", help="Graph Golf edge list ('u v' per line)")
    p.add_argument("--topology", metavar="SPEC", help="a topology spec instead of a file, e.g. torus:8x8")
    p.add_argument("--fault-tolerance", type=sample_count, metavar="SAMPLES", default=0,
                   help="also measure Koibuchi's fault tolerance with this many samples")
    p.add_argument("--seed", type=seed_value, default=0, help="seed of the fault-tolerance samples")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.engine.summary import seconds_estimate, summary  # numpy below 1,000 vertices: no numba
    from harness.errors import HopbenchError
    from harness.graphs.bounds import lower_bounds
    from harness.problems import networks

    if (args.edgefile is None) == (args.topology is None):
        raise HopbenchError("give either an edge file or --topology SPEC (exactly one)")
    g = (networks.from_edge_file(args.edgefile) if args.edgefile else networks.from_topology(args.topology)).graph
    expected = seconds_estimate(g)
    if expected > LONG_EVALUATION_SECONDS:  # say so before a wait of minutes (a ring of 200,000 takes about 4)
        print(f"note: measuring all {g.n:,} x {g.n:,} distances may take up to {expected / 60:.0f} min here "
              f"(a graph of large diameter costs n (n + 2m) BFS steps); Ctrl-C stops it", file=sys.stderr, flush=True)
    with interruptible():  # evaluate records nothing: Ctrl-C may end it inside the numba kernels
        s = summary(g)
    lb_d, lb_a = lower_bounds(g.n, g.max_degree)
    doc = {"n": g.n, "m": g.m, "max_degree": g.max_degree, "connected": s.connected,
           "diameter": s.diameter, "aspl": s.aspl, "lower_bound": {"diameter": lb_d, "aspl": lb_a}}
    if args.fault_tolerance:
        from harness.analysis.fault_tolerance import fault_tolerance

        ft = fault_tolerance(g, samples=args.fault_tolerance, seed=args.seed)
        doc["fault_tolerance"] = {"mean_percent": ft.mean_percent, "ci95": ft.ci95, "samples": args.fault_tolerance}
    if args.json:
        print_json(doc)
        return 0
    print(f"n {g.n}  m {g.m}  max degree {g.max_degree}" + ("" if s.connected else "  (disconnected)"))
    print(f"diameter {fmt_number(s.diameter)}  (lower bound {fmt_number(lb_d)})")
    print(f"ASPL     {fmt_number(s.aspl, 10)}  (lower bound {fmt_number(lb_a, 10)})")
    if "fault_tolerance" in doc:
        ft = doc["fault_tolerance"]
        print(f"fault tolerance {ft['mean_percent']:.2f}% +- {ft['ci95']:.2f} ({args.fault_tolerance} samples)")
    return 0
