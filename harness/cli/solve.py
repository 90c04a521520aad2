"""``hopbench solve``: run one solver on one shortcut problem."""
from __future__ import annotations

import argparse

from harness.cli._common import fmt_number, output_file, parse_assignments, positive_seconds, print_json, seed_value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("solve", help="run one solver on one shortcut problem",
                       description="Add shortcuts to a base topology with one solver and report the result.")
    p.add_argument("--base", required=True, metavar="SPEC", help="base topology spec, e.g. torus:8x8")
    p.add_argument("--cap", required=True, type=int, metavar="D", help="degree cap per switch")
    p.add_argument("--budget", required=True, type=int, metavar="C", help="maximum number of shortcuts")
    p.add_argument("--objective", default="aspl", choices=["aspl", "diameter", "golf", "ad"])
    p.add_argument("--family", default=None, metavar="NAME", help="problem family, e.g. equality")
    p.add_argument("--solver", required=True, metavar="NAME", help="solver name (see 'hopbench solvers')")
    p.add_argument("--seed", type=seed_value, default=0)
    p.add_argument("--time-limit", type=str, default=None, metavar="SEC", help="wall-clock budget in seconds")
    p.add_argument("--param", action="extend", nargs="+", default=[], metavar="K=V", help="solver parameters")
    p.add_argument("-o", "--output", metavar="FILE", help="write the solution JSON here")
    p.add_argument("--json", action="store_true", help="print the solution JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import solvers
    from harness.documents import dumps
    from harness.graphs.topologies import parse_spec
    from harness.problems.shortcut.problem import ShortcutProblem
    from harness.problems.shortcut.solution_file import solution_to_dict
    from solvers.contract.budget import Budget
    from solvers.contract.execution import execute
    from solvers.contract.warmup import warm_up_solver

    solver = solvers.create(args.solver, **parse_assignments(args.param))
    budget = Budget(time_s=positive_seconds(args.time_limit) if args.time_limit is not None else None)
    problem = ShortcutProblem(parse_spec(args.base), args.cap, args.budget, args.objective, args.family,
                              base_spec=args.base)
    out = output_file(args.output) if args.output else None
    if budget.time_s is not None and solvers.is_builtin(solver.name):
        warm_up_solver(solver.name, dict(solver.config))  # compile kernels before the clock starts
    outcome = execute(solver, problem, seed=args.seed, budget=budget)
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
