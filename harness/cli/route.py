"""``hopbench route``: build a routing table for a torus (node subset) with one solver.

Prints the table's metrics; ``-o FILE`` writes the ``hopbench.routes/1``
document that ``hopbench verify`` re-checks.  Ctrl-C (or SIGTERM) once the solver runs keeps its
best table, as ``hopbench solve`` does (written marked ``"interrupted": true``, exit code 130).
"""
from __future__ import annotations

import argparse
from types import SimpleNamespace

import sys

from hopbench.harness.cli._common import (INTERRUPTED_EXIT, add_solver_options, fmt_number, interrupted_note, output_file,
                                 parse_assignments, print_json, rechecked, run_solver)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("route", help="build a deadlock-free routing table for a torus",
                       description="Route every ordered pair of (a subset of) the nodes of a torus with the "
                                   "Angara routing rules, and print the channel-load metrics.")
    p.add_argument("--torus", required=True, metavar="DIMS", help="dimension sizes, e.g. 4x2x2x2 (1-4 dims, 2..8)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--nodes", metavar="LIST", help="node ids to route between, e.g. 0-7,16 (default: all)")
    which.add_argument("--subset", metavar="NAME", help="a named node subset: all, desmos2, desmos4, desmos8, desmos16")
    p.add_argument("--rules", default="angara", choices=["angara", "minimal"],
                   help="angara: routes follow the Angara routing graph; minimal: any shortest walk")
    p.add_argument("--objective", default="max_load", choices=["max_load", "sigma4"])
    p.add_argument("--solver", required=True, metavar="NAME", help="dor, angara-bfs, angara-sssp, angara-ga")
    add_solver_options(p, output="routing table", json_help="print the metrics as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hopbench import solvers
    from hopbench.harness.documents import dumps
    from hopbench.harness.errors import HopbenchError
    from hopbench.harness.problems.routing import make_problem

    solver = solvers.create(args.solver, **parse_assignments(args.param))
    if "routing" not in solver.kinds:
        raise HopbenchError(f"solver {args.solver} does not build routing tables; use one of "
                            f"{', '.join(solvers.names('routing'))}")
    problem = make_problem(args.torus, nodes=args.nodes, subset=args.subset, rules=args.rules,
                           objective=args.objective)
    out = output_file(args.output, force=args.force) if args.output else None
    # what a plug-in's sandbox builds the same problem from (run_solver)
    fields = {k: v for k, v in (("torus", args.torus), ("nodes", args.nodes), ("subset", args.subset),
                                ("rules", args.rules), ("objective", args.objective)) if v is not None}
    sandbox = dict(kind="routing", fields=fields)
    if not args.json and sys.stderr.isatty():
        from hopbench.harness.cli.solve import LiveLine

        with LiveLine(sys.stderr, solver.name, None) as line:
            outcome = run_solver(solver, problem, args, on_report=line.report, on_start=line.start, **sandbox)
    else:
        outcome = run_solver(solver, problem, args, **sandbox)
    # what is written and printed is what hopbench re-verified (the solver's own numbers were a hint)
    doc, metrics = rechecked("routing", problem, outcome.solution, solver.name)
    code = INTERRUPTED_EXIT if outcome.interrupted else 0
    if outcome.interrupted:
        doc["interrupted"] = True  # the best table found when Ctrl-C came
    if out is not None:
        from hopbench.harness.outputs import write_output_file

        write_output_file(out, dumps(doc, indent=1) + "\n", force=args.force)
    if outcome.interrupted:
        print(interrupted_note(args.output, "routing table"), file=sys.stderr)
    if args.json:
        print_json({"problem": problem.describe(), "solver": {"name": solver.name, "params": dict(solver.config)},
                    "seed": args.seed, "metrics": metrics, "elapsed_s": round(outcome.elapsed_s, 6),
                    "extra": doc.get("extra", {}), "output": args.output, "interrupted": outcome.interrupted})
        return code
    ev = SimpleNamespace(**metrics)  # the recomputed metrics, never the solver's own
    label = problem.subset if problem.subset else f"nodes {args.nodes}"
    print(f"{solver.name} (seed {args.seed}) on torus {problem.network.spec}, {problem.num_nodes} nodes ({label}), "
          f"rules {problem.rules}")
    print(f"max load {ev.max_load}  min load {ev.min_load}  sigma(4,R) {fmt_number(ev.sigma4, 3)}  "
          f"gamma_perfect {fmt_number(ev.gamma_perfect, 3)}  |C| {ev.channels}")
    print(f"route length max {ev.max_length} mean {fmt_number(ev.mean_length, 3)}  "
          f"alpha_sat {fmt_number(ev.alpha_sat, 4)}  objective {fmt_number(ev.objective, 4)}"
          f"  |  elapsed {outcome.elapsed_s:.3f} s" + (f"  |  written to {args.output}" if args.output else ""))
    return code
