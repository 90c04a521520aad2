"""Speed of edgecut-full (a script, not a test).

    python tests/benchmarks/bench_greedy.py [--quick]

Prints, measured in this run (objective ASPL, degree cap 10, seed 1, wall time
of ``hopbench.solvers.contract.execution.execute``: distance matrix, rounds, final evaluation;
numba compilation excluded by a warm-up run; the CPU time over all threads is
printed too, because the machine may be shared):

1. ECF t = 10 on torus:16x16, budget 32               (target <= 0.1 s)
2. exhaustive ECF (t = 0) on ring:256, budget 32      (target <= 2 s)
3. ECF t = 10 on torus:64x64, budget 128              (target <= 30 s)

and, for each, the ratio to a plain numpy implementation of the same
algorithm (same draws, so the same shortcuts): every candidate scored by a
full ``min(D, D[:,x]+1+D[y,:], D[:,y]+1+D[x,:])`` over the matrix.  The numpy
version runs the whole of case 1 and the first ``--rounds`` rounds of cases 2
and 3 (their full runs would take minutes); those ratios compare the same
rounds of both implementations.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

from hopbench import harness  # noqa: E402,F401  (threading defaults before numba)
from hopbench.harness.engine.distances import distance_matrix  # noqa: E402
from hopbench.harness.graphs.topologies import parse_spec  # noqa: E402
from hopbench.harness.problems.shortcut.problem import ShortcutProblem  # noqa: E402
from hopbench.solvers.contract.execution import execute  # noqa: E402


def numpy_ecf(problem: ShortcutProblem, t: int, seed: int) -> list[tuple[int, int]]:
    """EdgeCut-Full for the ASPL objective in plain numpy (the paper's own formulation)."""
    from hopbench.solvers.shortcut.edgecut import candidates
    from hopbench.solvers.shortcut.feasible import FeasiblePairs

    rng = np.random.default_rng(seed)
    pairs = FeasiblePairs(problem.base, problem.degree_cap)
    D = distance_matrix(problem.base).astype(np.int32)
    total = int(D.sum()) // 2
    chosen = []
    while len(chosen) < problem.budget:
        cand = candidates(pairs, t, rng)
        if not len(cand):
            break
        best, best_total = None, total
        for x, y in cand.tolist():  # the reference: one full-matrix pass per candidate
            new = np.minimum(D, np.minimum(D[:, x, None] + 1 + D[None, y, :], D[:, y, None] + 1 + D[None, x, :]))
            s = int(new.sum()) // 2
            if s < best_total:
                best, best_total = (x, y), s
        if best is None:
            break
        x, y = best
        D = np.minimum(D, np.minimum(D[:, x, None] + 1 + D[None, y, :], D[:, y, None] + 1 + D[None, x, :]))
        total = best_total
        pairs.add(x, y)
        chosen.append((x, y))
    return chosen


def timed(fn, repeat: int = 1):
    """Best wall time over ``repeat`` calls, the CPU time (all threads) of that call, and its result."""
    best, cpu, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        res = fn()
        wall = time.perf_counter() - t0
        if wall < best:
            best, cpu, out = wall, time.process_time() - c0, res
    return best, cpu, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=2, help="rounds of the numpy reference in cases 2 and 3")
    ap.add_argument("--quick", action="store_true", help="skip case 3 (torus:64x64)")
    args = ap.parse_args()

    import numba

    from hopbench import solvers

    print(f"machine: {os.cpu_count()} cores, numba threads {numba.get_num_threads()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    # warm-up: compile (or load from numba's cache) the serial and the parallel kernels
    for spec, t in (("torus:6x6", 0), ("torus:6x6", 10), ("ring:256", 0), ("torus:40x40", 10)):
        execute(solvers.create("edgecut-full", t=t), ShortcutProblem(parse_spec(spec), 10, 2, "aspl"), seed=0)

    cases = [("torus:16x16", 10, 32, 0.1, 5), ("ring:256", 0, 32, 2.0, 2)]
    if not args.quick:
        cases.append(("torus:64x64", 10, 128, 30.0, 1))
    for spec, t, budget, target, repeat in cases:
        problem = ShortcutProblem(parse_spec(spec), 10, budget, "aspl", base_spec=spec)
        ours_s, ours_cpu, out = timed(lambda: execute(solvers.create("edgecut-full", t=t), problem, seed=1),
                                      repeat)
        ev = out.solution.evaluation
        verdict = "met" if ours_s <= target else "NOT met"
        print(f"ECF t={t:<2} {spec:<12} budget {budget:<3}: {ours_s:8.3f} s wall, {ours_cpu:7.3f} s CPU "
              f"(target <= {target:g} s: {verdict})  diameter {ev.diameter:.0f}, ASPL {ev.aspl:.4f}")
        full = spec == "torus:16x16"
        rounds = budget if full else args.rounds
        part = problem if full else ShortcutProblem(problem.base, 10, rounds, "aspl", base_spec=spec)
        ours_part = ours_s if full else timed(
            lambda: execute(solvers.create("edgecut-full", t=t), part, seed=1), repeat)[0]
        np_s, _, np_edges = timed(lambda: numpy_ecf(part, t, seed=1))
        ours_edges = [tuple(map(int, e)) for e in out.solution.shortcuts[:rounds].tolist()]
        same = "same shortcuts" if ours_edges == np_edges else "DIFFERENT shortcuts"
        scope = "whole run" if full else f"first {rounds} rounds"
        print(f"    plain numpy, {scope}: {np_s:8.3f} s vs ours {ours_part:.3f} s -> "
              f"ours is {np_s / ours_part:.0f}x faster ({same})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
