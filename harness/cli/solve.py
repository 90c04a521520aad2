"""``hopbench solve``: run one solver on one shortcut problem."""
from __future__ import annotations

import argparse

from harness.cli._common import add_solver_options, fmt_number, output_file, parse_assignments, print_json, run_solver


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("solve", help="run one solver on one shortcut problem",
                       description="Add shortcuts to a base topology with one solver and report the result.")
    p.add_argument("--base", required=True, metavar="SPEC", help="base topology spec, e.g. torus:8x8")
    p.add_argument("--cap", required=True, type=int, metavar="D", help="degree cap per switch")
    p.add_argument("--budget", required=True, type=int, metavar="C", help="maximum number of shortcuts")
    p.add_argument("--objective", default="aspl", choices=["aspl", "diameter", "golf", "ad"])
    p.add_argument("--family", default=None, metavar="NAME", help="problem family, e.g. equality")
    p.add_argument("--solver", required=True, metavar="NAME", help="solver name (see 'hopbench solvers')")
    add_solver_options(p, output="solution", json_help="print the solution JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import solvers
    from harness.documents import dumps
    from harness.graphs.topologies import parse_spec
    from harness.problems.shortcut.problem import ShortcutProblem
    from harness.problems.shortcut.solution_file import solution_to_dict

    solver = solvers.create(args.solver, **parse_assignments(args.param))
    problem = ShortcutProblem(parse_spec(args.base), args.cap, args.budget, args.objective, args.family,
                              base_spec=args.base)
    out = output_file(args.output) if args.output else None
    outcome = run_solver(solver, problem, args)
    doc = solution_to_dict(outcome.solution)
    if out is not None:
        out.write_text(dumps(doc, indent=1) + "\n")
    if args.json:
        print_json(doc)
        return 0
    ev = outcome.solution.evaluation
    print(f"{solver.name} (seed {args.seed}) on {args.base}, cap {args.cap}, budget {args.budget}, "
          f"objective {args.objective}")
    print(f"shortcuts {len(outcome.solution.shortcuts)}  diameter {fmt_number(ev.diameter)}  "
          f"ASPL {fmt_number(ev.aspl, 6)}  objective {fmt_number(ev.objective, 6)}")
    print(f"lower bounds: diameter {fmt_number(ev.lower_bound_diameter)}, ASPL {fmt_number(ev.lower_bound_aspl, 6)}"
          f"  |  elapsed {outcome.elapsed_s:.3f} s" + (f"  |  written to {args.output}" if args.output else ""))
    return 0
