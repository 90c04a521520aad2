"""Speed of the Equality evaluator and of the equality-ga solver (a script, not a test).

    python tests/benchmarks/bench_equality.py [--seconds S]

Prints, measured in this run:

1. the evaluation of E806 (N = 64000, K = 64) by the bit-parallel BFS from router 0
   (target <= 0.05 s), against a plain queue BFS on the same construction rule and
   against building the graph plus one BFS of the general distance engine;
2. the GA's evaluations per second at N = 2048, K = 28 (target >= 10,000/s): the
   whole loop (selection, crossover, mutation, evaluation) over a time budget, and
   the batch kernel alone.
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


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=10.0, help="GA run length for the evaluations/s figure")
    args = ap.parse_args()

    import numba

    from hopbench.harness.engine.distances import bfs_distances
    from hopbench.harness.problems.shortcut import equality as eq

    print(f"machine: {os.cpu_count()} cores, numba threads {numba.get_num_threads()}, "
          f"load average {os.getloadavg()[0]:.2f}")

    # -- 1. E806 -------------------------------------------------------------
    net = eq.published_network("E806")
    net.metrics()  # compile
    eq.reference_distances(net)
    m = net.metrics()
    t_fast = best_of(net.metrics, 20)
    t_full = best_of(lambda: (net.metrics(), net.bisection_ratio()), 20)
    t_ref = best_of(lambda: eq.reference_distances(net), 5)
    t_graph = best_of(lambda: bfs_distances(net.graph(), 0), 3)
    print(f"E806 N={net.n} K={net.k}: a={m.aspl:.4f} d={m.diameter} (Table 2: a=3.224, d=4)")
    print(f"  bit-parallel BFS from router 0     {t_fast * 1e3:8.2f} ms   (target <= 50 ms: "
          f"{'met' if t_fast <= 0.05 else 'NOT met'})")
    print(f"  ... plus B_r                       {t_full * 1e3:8.2f} ms")
    print(f"  plain queue BFS on the rule        {t_ref * 1e3:8.2f} ms   ({t_ref / t_fast:5.1f}x slower)")
    print(f"  build Graph + engine BFS           {t_graph * 1e3:8.2f} ms   ({t_graph / t_fast:5.1f}x slower)")

    # -- 2. GA throughput at N=2048, K=28 ------------------------------------
    from hopbench import solvers
    from hopbench.harness.graphs.topologies import ring
    from hopbench.harness.problems.shortcut.problem import ShortcutProblem
    from hopbench.solvers.contract.budget import Budget, Reporter
    from hopbench.solvers.shortcut.equality_ga import _evaluate_batch, _Space

    n, k = 2048, 28
    problem = ShortcutProblem(ring(n), k, n * (k - 2) // 2, "ad", "equality", base_spec=f"ring:{n}")
    warm = solvers.create("equality-ga", generations=3)
    warm.solve(problem, seed=0, budget=Budget(), report=Reporter())
    solver = solvers.create("equality-ga")
    report = Reporter(Budget(time_s=args.seconds))
    t = time.perf_counter()
    solution = solver.solve(problem, seed=1, budget=Budget(time_s=args.seconds), report=report)
    elapsed = time.perf_counter() - t
    rate = report.evaluations / elapsed
    print(f"equality-ga N={n} K={k}, defaults, {elapsed:.1f} s: {report.evaluations} distinct evaluations, "
          f"{rate:,.0f}/s (target >= 10,000/s: {'met' if rate >= 10_000 else 'NOT met'}); best a*d "
          f"{report.best:.4f} (E361: {eq.published_network('E361').metrics().ad:.4f}), "
          f"{solution.extra['generations']} generations")

    import random

    space = _Space(n, k, None, random.Random(0))
    genomes = [sorted(space.random_genome(0.3)) for _ in range(400)]
    width = max(map(len, genomes))
    values = np.zeros((len(genomes), width), dtype=np.int64)
    for i, g in enumerate(genomes):
        values[i, :len(g)] = g
    lengths = np.array([len(g) for g in genomes], dtype=np.int64)
    total = np.empty(len(genomes), dtype=np.int64)
    diam = np.empty(len(genomes), dtype=np.int64)
    none = np.zeros(0, dtype=np.int64)
    _evaluate_batch(n, values, lengths, none, total, diam)
    for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        numba.set_num_threads(threads)
        tk = best_of(lambda: _evaluate_batch(n, values, lengths, none, total, diam), 5)
        print(f"  batch kernel alone, {threads} thread(s): {len(genomes) / tk:,.0f} evaluations/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
