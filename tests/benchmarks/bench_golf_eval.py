"""How the annealing solver should score a degree-preserving swap: incremental or one full BFS.

    python tests/benchmarks/bench_golf_eval.py [--evals 3000] [--sizes 16,32,...] [--degrees 4,8]

On ``empty:n``, cap d, budget n d / 2 (graph golf's order/degree problem), for each (n, d) it times

* ``incremental`` — the shortcut-set kernel (``swaps=off``, ``init=random``, only swap moves:
  ``p_swap=1``): each swap is scored exactly through cached removal matrices
  (:func:`hopbench.harness.engine.dynamic.remove_edge_repair` twice, then two edge additions, on dense
  n x n distance matrices);
* ``full BFS`` — swap mode's exact bit-parallel BFS from every source per move
  (:mod:`hopbench.harness.engine.bitparallel`), nothing saved between moves (the greedy calibration moves,
  stored levels off);
* ``stored levels`` — the same moves, each BFS level recomputed only for the rows the swap can
  change while they are few (:func:`hopbench.solvers.shortcut._golf_kernel.evaluate_inc`);
* ``solver`` — the annealing solver in swap mode (stored levels and the early exit, which stops
  the BFS once the move can be neither accepted nor a new best; its real cost per move);
* ``symmetric`` — the solver with the automatic symmetry (BFS from one orbit's sources).

CPU seconds of this process (the machine is shared; CPU time is steadier than wall time), best
of 3; moves per CPU second.  The crossover it finds is the one quoted in
:mod:`hopbench.solvers.shortcut.annealing`.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from hopbench import solvers
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.shortcut import _golf


def _problem(n: int, d: int) -> ShortcutProblem:
    return ShortcutProblem(parse_spec(f"empty:{n}"), d, n * d // 2, "golf", base_spec=f"empty:{n}")


def _rate(fn, rounds: int = 3) -> float:
    fn()  # compile / warm caches
    best = 0.0
    for _ in range(rounds):
        t = time.process_time()
        moves = fn()
        spent = max(time.process_time() - t, 1e-9)
        best = max(best, moves / spent)
    return best


def incremental(p: ShortcutProblem, evals: int) -> int:
    out = execute(solvers.create("annealing", swaps="off", init="random", p_swap=1.0, p_endpoint=0.0), p,
                  seed=1, budget=Budget(evaluations=evals))
    return int(out.solution.extra["moves"])


def swap_mode(p: ShortcutProblem, evals: int, symmetry: int = 1) -> int:
    out = execute(solvers.create("annealing", symmetry=symmetry), p, seed=1, budget=Budget(evaluations=evals))
    return int(out.solution.extra["moves"])


def greedy(p: ShortcutProblem, evals: int, incremental: bool) -> int:
    rng = np.random.default_rng(1).integers(1, 2**63, size=4, dtype=np.uint64)
    state = _golf.SwapState(p, 1, rng, diameter_weight=0.0)
    return state.run(evals, 0.0, 0.0, 0.0, 0.0, rng, calibrate=True, incremental=incremental)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--evals", type=int, default=3000, help="moves per measurement at n = 256 (scaled by 256/n)")
    ap.add_argument("--sizes", default="16,32,64,128,256,512,1024")
    ap.add_argument("--degrees", default="4,8")
    args = ap.parse_args()
    print("moves per CPU second\n")
    print("| n | d | incremental | full BFS | stored levels | solver | symmetric (g) | full BFS / incremental |")
    print("|---|---|---|---|---|---|---|---|")
    for d in map(int, args.degrees.split(",")):
        for n in map(int, args.sizes.split(",")):
            if n <= d or (n * d) % 2:
                continue
            p = _problem(n, d)
            evals = max(200, min(args.evals, int(args.evals * 256 / n)))
            inc = _rate(lambda p=p, evals=evals: incremental(p, evals))
            full = _rate(lambda p=p, evals=evals: greedy(p, evals, False))
            levels = _rate(lambda p=p, evals=evals: greedy(p, evals, True))
            ex = _rate(lambda p=p, evals=evals: swap_mode(p, evals))
            g = _golf.auto_symmetry(n, d)
            sym = f"{_rate(lambda p=p, evals=evals, g=g: swap_mode(p, evals, g)):,.0f} ({g})" if g > 1 else "(none)"
            print(f"| {n} | {d} | {inc:,.0f} | {full:,.0f} | {levels:,.0f} | {ex:,.0f} | {sym} | {full / inc:.1f}x |",
                  flush=True)


if __name__ == "__main__":
    main()
