"""``hopbench simulate``: latency and throughput of a network under traffic (cycle-level).

The network is a result file (a solution or a routing table, e.g. one a leaderboard links to), an
edge file, an Equality notation, or ``--topology SPEC``.  See docs/traffic.md.
"""
from __future__ import annotations

import argparse
import sys

from hopbench.harness.cli._common import add_force_option, seed_value
from hopbench.harness.errors import HopbenchError

#: :data:`hopbench.harness.traffic.patterns.PATTERNS` and :data:`hopbench.harness.traffic.study.ROUTINGS`, repeated so
#: that ``--help`` stays light (tests/harness/cli/test_simulate.py checks they agree)
PATTERNS = ("uniform", "randperm", "bitrev", "bitcomp", "transpose", "shuffle", "tornado", "neighbor", "hotspot")
ROUTINGS = ("updown", "adaptive-updown", "dor", "adaptive-dor", "hop-vc", "ugal", "bgal", "minimal", "table")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="cycle-level traffic simulation: latency and throughput per offered load",
                       description="Simulate a network with input-queued virtual-channel routers (BookSim's model "
                                   "and parameter names) under a traffic pattern: per offered load the accepted "
                                   "load, packet latency and hops; optionally the zero-load latency and the "
                                   "saturation throughput (bisection). Loads are in flits/cycle/host.")
    p.add_argument("file", nargs="?", metavar="FILE",
                   help="a solution or routing-table JSON, an edge file, or an Equality notation")
    p.add_argument("--topology", metavar="SPEC", help="a topology spec instead of FILE, e.g. torus:8x8")
    p.add_argument("--traffic", required=True, choices=PATTERNS, metavar="PATTERN",
                   help="traffic pattern: " + ", ".join(PATTERNS))
    p.add_argument("--routing", required=True, choices=ROUTINGS, metavar="R",
                   help="updown (any graph), adaptive-updown (minimal adaptive, up*/down* escape VC), dor "
                        "(mesh/torus, dateline VCs), hop-vc (minimal adaptive, VC k on hop k), ugal (minimal or "
                        "sub-shortest first hop by queue x hops, VC k on hop k), bgal (ugal, the sub-shortest hop only for "
                        "pairs with at most 2 shortest paths), minimal (unsafe on cyclic graphs), "
                        "table (a routing-table FILE)")
    p.add_argument("--loads", default=None, metavar="A:B:STEP",
                   help="offered loads, flits/cycle/host: A:B:STEP or A,B,C (default 0.1:0.5:0.1 unless "
                        "--saturation or --zero-load is the whole question)")
    p.add_argument("--endpoints", default=None, metavar="P",
                   help="hosts per switch: a number (default 1) or 'free' (cap - degree of a solution)")
    p.add_argument("--param", action="append", metavar="NAME=VALUE", default=[],
                   help="router parameter with BookSim's name, e.g. num_vcs=2, vc_buf_size=8, packet_size=4, "
                        "flow_control=vct, channel_latency=2 (repeatable)")
    p.add_argument("--zero-load", action="store_true", help="also measure the zero-load latency (load 0.01)")
    p.add_argument("--saturation", action="store_true", help="also find the saturation throughput (bisection)")
    p.add_argument("--faults", type=float, default=0.0, metavar="PCT",
                   help="remove this percentage of links (seeded) first; up*/down* is recomputed on what is left")
    p.add_argument("--allow-deadlock", action="store_true",
                   help="run a routing that the channel-dependency check refuses (a deadlock is then reported)")
    p.add_argument("--seed", type=seed_value, default=1, help="seed of traffic, patterns and faults (default 1)")
    p.add_argument("--cycle-ns", type=float, default=None, metavar="NS", help="also give latencies in ns")
    p.add_argument("--engine", choices=("hopbench", "booksim"), default="hopbench",
                   help="hopbench's simulator, or the BookSim2 binary of --booksim / HOPBENCH_BOOKSIM")
    p.add_argument("--booksim", metavar="PATH", default=None, help="the BookSim2 binary (--engine booksim)")
    p.add_argument("--json", action="store_true", help="print the simulation document (JSON)")
    p.add_argument("-o", "--output", metavar="OUT", help="write the simulation document here")
    add_force_option(p)
    p.add_argument("--plot", metavar="PNG", help="draw latency against accepted traffic (Koibuchi's Figs. 12-20)")
    p.set_defaults(func=run)


def _network(args: argparse.Namespace):
    from hopbench.harness.problems import networks

    if (args.file is None) == (args.topology is None):
        raise HopbenchError("give either a network FILE or --topology SPEC (exactly one)")
    if args.topology is not None:
        return networks.from_topology(args.topology)
    return networks.load_network(args.file, forms=("notation", "result", "edges"), action="simulate")


def _row(p: dict) -> str:
    """One load point (hopbench's or BookSim's row) as a table line."""
    def num(key, fmt="{:8.2f}"):
        x = p.get(key)
        return fmt.format(x) if x is not None else "       -"

    return (f"{num('offered', '{:8.4f}')} {num('injected', '{:8.4f}')} {num('accepted', '{:8.4f}')} "
            f"{num('latency_mean')} {num('latency_median')} {num('latency_p99')} {num('network_latency')} "
            f"{num('queueing_latency')} {num('hops', '{:6.3f}')} {num('escape_share', '{:6.3f}')}  {p.get('status', '')}")


HEADER = (" offered injected accepted  latency   median      p99  network queueing   hops escape  status\n"
          "                  (flits/cycle/host)  (cycles: packet latency, network part, source queue)"
          "  (escape: share of the hops on an escape VC)")


def run(args: argparse.Namespace) -> int:
    from hopbench.harness.cli._common import output_file, parse_assignments, print_json, spec_file
    from hopbench.harness.outputs import write_output_file
    from hopbench.harness.traffic.simulator import router_config
    from hopbench.harness.traffic.study import parse_loads, prepare, run_study, study_document

    if args.cycle_ns is not None and not (0 < args.cycle_ns < 1e6):
        raise HopbenchError(f"--cycle-ns must be a positive number of nanoseconds, got {args.cycle_ns}")
    if args.loads is None:
        loads = [] if (args.saturation or args.zero_load) else parse_loads("0.1:0.5:0.1")
    else:
        loads = parse_loads(args.loads)
    config = router_config(**parse_assignments(args.param))
    reads = {args.file: "the network simulated"} if args.file else spec_file(args.topology)
    out = output_file(args.output, reads, force=args.force) if args.output else None
    plot = output_file(args.plot, {**reads, **({out: "the simulation document"} if out else {})},
                       force=args.force) if args.plot else None
    network = _network(args)
    if args.engine == "booksim":
        from hopbench.harness.traffic.booksim_study import run_booksim_study

        doc = run_booksim_study(network, args, loads, config)
    else:
        net, spec = prepare(network, pattern=args.traffic, routing=args.routing, endpoints=args.endpoints,
                            config=config, seed=args.seed, faults=args.faults, allow_deadlock=args.allow_deadlock)
        # a terminal gets a progress bar; a log (nohup, a batch job) a line per finished point, since a point of
        # a 10,000-host network takes minutes; --json keeps stderr for errors
        bar = None
        log = not args.json and not sys.stderr.isatty()
        if not args.json:
            print(f"{spec.switches} switches, {spec.links} links, {spec.hosts} hosts; {spec.routing} routing, "
                  f"{spec.pattern} traffic; {spec.deadlock_check}", file=sys.stderr, flush=True)
        if not args.json and not log:
            from tqdm import tqdm

            bar = tqdm(total=len(loads) + bool(args.zero_load), unit="load", file=sys.stderr, leave=False)

        def progress(what: str, point) -> None:
            if bar is not None:
                bar.set_description(what)
                if point is not None and what != "saturation search":
                    bar.update(1)
                elif point is not None:
                    bar.set_postfix_str(f"{point.offered:.4f}: {point.status}")
            elif log and point is not None:
                latency = "none" if point.latency_mean is None else f"{point.latency_mean:.2f} cycles"
                print(f"{what}: offered {point.offered:.4f}, accepted {point.accepted:.4f}, mean latency {latency}, "
                      f"{point.status} ({point.wall_s:.0f} s)", file=sys.stderr, flush=True)

        result = run_study(net, spec, loads, zero_load=args.zero_load, saturation=args.saturation,
                           progress=progress)
        if bar is not None:
            bar.close()
        doc = study_document(result, cycle_ns=args.cycle_ns)
    if out is not None:
        import json

        write_output_file(out, json.dumps(doc, indent=1, allow_nan=False) + "\n", force=args.force)
        print(f"wrote {out}", file=sys.stderr)
    if plot is not None:
        from hopbench.harness.report.traffic_plots import write_latency_plot

        try:
            write_latency_plot([doc], plot, force=args.force)
        except OSError as exc:
            raise HopbenchError(f"cannot write the plot {plot}: {exc.strerror or exc}") from None
        print(f"wrote {plot}", file=sys.stderr)
    if args.json:
        print_json(doc)
        return 0
    print(f"{doc['source']}: {doc['switches']} switches, {doc['hosts']} hosts, {doc['routing']} routing, "
          f"{doc['pattern']} traffic, engine {doc['engine']}")
    if doc.get("zero_load"):
        z = doc["zero_load"]
        print(f"zero-load latency {z['latency_mean']:.2f} cycles" if z["latency_mean"] is not None
              else "zero-load latency: no packet arrived")
    if doc["points"]:
        print(HEADER)
        for d in doc["points"]:
            print(_row(d))
    if doc.get("saturation_throughput") is not None:
        print(f"saturation throughput {doc['saturation_throughput']:.4f} flits/cycle/host "
              f"({len(doc.get('saturation_points', []))} loads simulated)")
    return 0
