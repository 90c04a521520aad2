"""grid-tempering against grid-annealing at equal evaluations, on Graph Golf's grid instances.

    python tests/benchmarks/grid_tempering.py [--instances 10x10:8:4,10x10:6:3] [--evaluations 400000]
        [--seeds 3] [--config replicas=10,temp_high=30]

Both solvers get the same evaluation budget (so a seed fixes each result and the machine's load changes
nothing) and the same seeds.  Per instance and seed it prints the total distance over all pairs of each
solver's graph (lower is better; both are re-evaluated from their edges), then the means and their
difference.  ``--config`` sets grid-tempering's parameters (docs/graphgolf.md, "grid-tempering").
"""
from __future__ import annotations

import argparse
import statistics

from hopbench import solvers
from hopbench.harness.problems.grid.problem import GridProblem
from hopbench.solvers.contract import Budget
from hopbench.solvers.contract.execution import execute


def total_distance(name: str, problem: GridProblem, seed: int, evaluations: int, **params) -> int:
    outcome = execute(solvers.create(name, **params), problem, seed=seed, budget=Budget(evaluations=evaluations))
    return int(problem.evaluate(outcome.solution.edges).total_distance)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--instances", default="10x10:8:4,10x10:6:3", help="WxH:degree:length, comma-separated")
    ap.add_argument("--evaluations", type=int, default=400_000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--config", default="", help="grid-tempering parameters, e.g. replicas=10,temp_high=30")
    args = ap.parse_args()
    config = {}
    for item in filter(None, args.config.split(",")):
        key, value = item.split("=", 1)
        config[key] = float(value) if "." in value else int(value)
    for spec in args.instances.split(","):
        size, degree, length = spec.split(":")
        width, height = map(int, size.split("x"))
        problem = GridProblem(width, height, int(degree), int(length))
        rows = []
        for seed in range(1, args.seeds + 1):
            one = total_distance("grid-annealing", problem, seed, args.evaluations)
            exchanged = total_distance("grid-tempering", problem, seed, args.evaluations, **config)
            rows.append((one, exchanged))
            print(f"{spec} seed {seed}: grid-annealing {one}, grid-tempering {exchanged}", flush=True)
        mean_one = statistics.mean(r[0] for r in rows)
        mean_ex = statistics.mean(r[1] for r in rows)
        better = sum(r[1] < r[0] for r in rows)
        print(f"{spec} at {args.evaluations:,} evaluations: mean {mean_one:.1f} against {mean_ex:.1f} "
              f"(grid-tempering {mean_ex - mean_one:+.1f}, better on {better} of {len(rows)} seeds)")


if __name__ == "__main__":
    main()
