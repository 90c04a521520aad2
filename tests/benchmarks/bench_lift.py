"""What one evaluation of a cyclic lift costs in lift-tabu, against annealing's symmetric swap mode.

    python tests/benchmarks/bench_lift.py [--evals 20000] [--pairs 512x4,256x8,1024x8,4096x4]

On ``empty:n``, cap d, budget n d / 2, at the lift order g that lift-tabu picks (the graph is
invariant under v -> v + n/g, so m = n/g BFS sources give every distance), it measures

* ``lift-tabu`` — evaluations per CPU second of the solver (each a voltage-mask BFS of the quotient
  from the m representatives, one g-bit word per quotient vertex; most stop early, once the move
  cannot be the step's best);
* ``measure`` — the same evaluation run to the end (:func:`hopbench.solvers.shortcut._lift_kernel.measure`
  with no limit), called from Python on one random quotient;
* ``annealing`` — moves per CPU second of the annealing solver in swap mode at the same symmetry
  (bit-parallel BFS of the whole lift from the m sources, with its stored levels and early exit).

CPU seconds of this process, best of 3.  The ratios are lift-tabu's rates over annealing's.
"""
from __future__ import annotations

import argparse

import numpy as np

from hopbench import solvers
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.shortcut import _lift_kernel as K
from hopbench.solvers.shortcut.lift_tabu import auto_order, measure_work

# run as a script, this directory is on the path: the shared problem and timing helpers
from bench_golf_eval import _problem, _rate  # isort: skip


def _solver_rate(name: str, problem: ShortcutProblem, evals: int, **params) -> float:
    def run() -> int:
        return execute(solvers.create(name, **params), problem, seed=1, budget=Budget(evaluations=evals)).evaluations
    return _rate(run)


def _measure_rate(n: int, d: int, g: int, calls: int) -> float:
    m = n // g
    edges = np.zeros((3, m * d // 2), np.int64)
    rng = np.random.default_rng(1).integers(1, 2**62, size=4, dtype=np.uint64)
    K.random_quotient(rng, *edges, 0, np.full(m, d, np.int64), g, True, 1000)
    work = measure_work(m, d)

    def run() -> int:
        for _ in range(calls):
            K.measure(*edges, m, g, n, 0.0, np.inf, 0, *work)
        return calls
    return _rate(run)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--evals", type=int, default=20000, help="evaluations per timed solver run")
    ap.add_argument("--pairs", default="512x4,256x8,1024x8,4096x4", help="n x d pairs, comma-separated")
    args = ap.parse_args()
    print(f"{'(n, d)':>12} {'g':>3} {'m':>5} {'lift-tabu/s':>12} {'measure/s':>11} {'annealing/s':>12} "
          f"{'tabu/anneal':>12} {'measure/anneal':>15}")
    for pair in args.pairs.split(","):
        n, d = (int(x) for x in pair.split("x"))
        problem = _problem(n, d)
        g = auto_order(problem).g
        tabu = _solver_rate("lift-tabu", problem, args.evals)
        full = _measure_rate(n, d, g, max(args.evals // 10, 100))
        anneal = _solver_rate("annealing", problem, args.evals, symmetry=g)
        print(f"{f'({n}, {d})':>12} {g:>3} {n // g:>5} {tabu:>12.0f} {full:>11.0f} {anneal:>12.0f} "
              f"{tabu / anneal:>12.2f} {full / anneal:>15.2f}")


if __name__ == "__main__":
    main()
