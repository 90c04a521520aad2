"""``hopbench evaluate``: diameter, ASPL and lower bounds of one graph."""
from __future__ import annotations

import argparse
import sys

from hopbench.harness.cli._common import fmt_number, interruptible, print_json, sample_count, seed_value


#: an evaluation estimated to take longer than this is announced on stderr first
LONG_EVALUATION_SECONDS = 30.0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("evaluate", help="diameter, ASPL and lower bounds of a graph",
                       description="Measure a graph given as a Graph Golf edge list or a topology spec.")
    p.add_argument("edgefile", nargs="?", help="Graph Golf edge list ('u v' per line)")
    p.add_argument("--topology", metavar="SPEC", help="a topology spec instead of a file, e.g. torus:8x8")
    p.add_argument("--fault-tolerance", type=sample_count, metavar="SAMPLES", default=0,
                   help="also measure Koibuchi's fault tolerance with this many samples")
    p.add_argument("--seed", type=seed_value, default=0, help="seed of the fault-tolerance samples and of "
                                                                  "random traffic patterns")
    p.add_argument("--throughput", metavar="PATTERN", default=None,
                   help="also bound the throughput (flits/cycle/host) under a traffic pattern: all-to-all, "
                        "permutation, longest-matching, or a simulation pattern (uniform, bitrev, transpose, ...): "
                        "the maximum concurrent flow over all paths (an LP), and with --routing the channel-load "
                        "bound of that routing")
    p.add_argument("--routing", metavar="R", default=None,
                   help="with --throughput: also the channel-load bound of this routing (updown, adaptive-updown, "
                        "minimal, dor)")
    p.add_argument("--endpoints", metavar="P", default=None, help="with --throughput: hosts per switch (default 1)")
    p.add_argument("--lp-backend", choices=("auto", "highs", "glop", "pdlp"), default="auto",
                   help="with --throughput: the LP solver (auto = HiGHS, chosen by measurement; docs/traffic.md)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hopbench.harness.engine.summary import seconds_estimate, summary  # numpy below 1,000 vertices: no numba
    from hopbench.harness.errors import HopbenchError
    from hopbench.harness.graphs.bounds import lower_bounds
    from hopbench.harness.problems import networks

    if (args.edgefile is None) == (args.topology is None):
        raise HopbenchError("give either an edge file or --topology SPEC (exactly one)")
    if args.throughput is None and (args.routing or args.endpoints or args.lp_backend != "auto"):
        raise HopbenchError("--routing, --endpoints and --lp-backend go with --throughput PATTERN")
    if args.edgefile is None:
        network = networks.from_topology(args.topology)
    elif networks.is_result_file(args.edgefile):  # a solution or routing-table file: its network
        network = networks.from_result_file(args.edgefile, action="evaluate")
    else:
        network = networks.from_edge_file(args.edgefile)
    g = network.graph
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
        from hopbench.harness.analysis.fault_tolerance import fault_tolerance

        ft = fault_tolerance(g, samples=args.fault_tolerance, seed=args.seed)
        doc["fault_tolerance"] = {"mean_percent": ft.mean_percent, "ci95": ft.ci95, "samples": args.fault_tolerance}
    if args.throughput is not None:
        from hopbench.harness.traffic.study import throughput_bounds

        doc["throughput"] = throughput_bounds(network, args.throughput, routing=args.routing,
                                              endpoints=args.endpoints, seed=args.seed, backend=args.lp_backend)
    if args.json:
        print_json(doc)
        return 0
    print(f"n {g.n}  m {g.m}  max degree {g.max_degree}" + ("" if s.connected else "  (disconnected)"))
    print(f"diameter {fmt_number(s.diameter)}  (lower bound {fmt_number(lb_d)})")
    print(f"ASPL     {fmt_number(s.aspl, 10)}  (lower bound {fmt_number(lb_a, 10)})")
    if "fault_tolerance" in doc:
        ft = doc["fault_tolerance"]
        print(f"fault tolerance {ft['mean_percent']:.2f}% +- {ft['ci95']:.2f} ({args.fault_tolerance} samples)")
    if "throughput" in doc:
        tp = doc["throughput"]
        print(f"throughput bound, {tp['pattern']} traffic, {tp['hosts']} hosts (flits/cycle/host):")
        print(f"  any routing (max concurrent flow LP, {tp['lp']['solver']}, {tp['lp']['seconds']:.2f} s): "
              f"{fmt_number(tp['lp']['bound'], 6)}")
        if tp.get("ejection") is not None:
            print(f"  host links (the busiest host ejects 1 flit/cycle): {fmt_number(tp['ejection'], 6)}")
        if tp.get("channel_load") is not None:
            print(f"  {tp['routing']} routing (1 / max channel load): {fmt_number(tp['channel_load'], 6)}")
    return 0
