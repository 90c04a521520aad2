"""``hopbench export``: write a result network for a simulator or another tool.

Formats: ``golf`` (Graph Golf edge list), ``graphml`` (with an integer
``endpoints`` node attribute, for SST Merlin's topoAny), ``anynet`` (BookSim)
and ``json`` (routing tables).  See :mod:`hopbench.harness.report.exports`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hopbench.harness.cli._common import add_force_option
from hopbench.harness.errors import HopbenchError

#: :data:`hopbench.harness.report.exports.FORMATS`, repeated here so that ``--help`` need not import numpy
#: (tests/harness/report/test_exports.py checks the two agree)
FORMATS = ("golf", "graphml", "anynet", "json")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="export a solution's network or a routing table (golf, graphml, anynet, json)",
                       description="Export the network of a hopbench solution file (base + shortcuts), the torus "
                                   "of a routing-table file, or a topology spec, for simulators; or a routing "
                                   "table as JSON.")
    p.add_argument("file", nargs="?", metavar="FILE",
                   help="a solution or routing-table JSON (.json or .json.gz), e.g. one a leaderboard links to")
    p.add_argument("--topology", metavar="SPEC", help="export a topology spec instead of a file, e.g. torus:8x8")
    p.add_argument("--format", required=True, choices=FORMATS,
                   help="golf: edge list; graphml: SST Merlin topoAny; anynet: BookSim; json: routing table")
    p.add_argument("--endpoints", metavar="P", default=None,
                   help="endpoints per router for graphml/anynet: a number (default 1) or 'free' (radix - degree, "
                        "the radix being the problem's degree cap); a host-switch result's own hosts by default "
                        "('hosts')")
    p.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")
    add_force_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hopbench.harness.cli._common import output_file, spec_file
    from hopbench.harness.documents import read_json
    from hopbench.harness.outputs import write_output_file
    from hopbench.harness.problems.networks import from_document
    from hopbench.harness.problems.registry import verify_document
    from hopbench.harness.problems.routing.kind import ROUTES_FORMAT
    from hopbench.harness.report.exports import export_text, load_network

    if (args.file is None) == (args.topology is None):
        raise HopbenchError("give either a result FILE or --topology SPEC to export")
    if args.endpoints is not None and args.format not in ("graphml", "anynet"):
        raise HopbenchError(f"--endpoints applies to graphml and anynet exports, not {args.format}")
    # -o is checked before the work, and never names the file exported (or the edge file of --topology file:)
    reads = {args.file: "the file exported"} if args.file is not None else spec_file(args.topology)
    out = output_file(args.output, reads, force=args.force) if args.output else None
    if args.file is not None:
        doc = read_json(args.file)
        if args.format == "json" and doc.get("format") == ROUTES_FORMAT:
            # the routes themselves are exported: the same checks as 'hopbench verify' first
            verdict = verify_document(doc)
            if not verdict.valid:
                raise HopbenchError(f"{args.file} is not a valid routing table ({verdict.reason}); "
                                    f"'hopbench verify {args.file}' says the same, fix or re-route it")
        network = from_document(doc, str(args.file), action="export", otherwise="or --topology SPEC")
    else:
        network = load_network(None, topology=args.topology)
    text = export_text(network, args.format, endpoints=args.endpoints)
    if out is not None:
        write_output_file(out, text, force=args.force)
        print(f"wrote {out} ({args.format}, {network.graph.n} routers, {network.graph.m} links)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
