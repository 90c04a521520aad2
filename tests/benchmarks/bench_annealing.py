"""Speed of the annealing solver and of the removal kernels behind it, plus its acceptance run.

    python tests/benchmarks/bench_annealing.py               # removal kernels + moves per second (about 1 min)
    python tests/benchmarks/bench_annealing.py acceptance    # SA 60 s x 5 seeds vs edgecut-full (about 11 min)

Removal kernels: distances of G - e for each of the 32 shortcuts of an
edgecut-full solution at N = 256, by

* ``repair`` — :func:`hopbench.harness.engine.dynamic.remove_edge_repair`
  (recompute only the entries that can change),
* ``bitparallel-affected`` — :func:`hopbench.harness.engine.dynamic.remove_edge_bitparallel`
  (the bit-parallel BFS rerun from the affected sources only),
* ``full engine`` — the all-sources bit-parallel BFS of :mod:`hopbench.harness.engine.distances`
  on G - e, writing the matrix (the reference a plain implementation would use).

Times are CPU seconds of this process (the machine is shared; CPU time is
steadier than wall time), median of 5 rounds over all 32 shortcuts.
"""
from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from hopbench import solvers
from hopbench.harness.bench.suites import load_suite
from hopbench.harness.engine.distances import WORDS, _bitbfs, distance_matrix
from hopbench.harness.engine.dynamic import DynamicDistances, remove_edge_bitparallel, remove_edge_repair, workspace
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute

INSTANCES = ("ring:256/cap10/b32/aspl", "torus:16x16/cap10/b32/aspl")


def _problem(instance_id: str) -> ShortcutProblem:
    return load_suite("edgecut2022").by_id[instance_id].problem()


def _cpu(fn, rounds: int = 5) -> float:
    fn()  # compile / warm caches
    times = []
    for _ in range(rounds):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def removal_kernels() -> None:
    print("## Removal kernels (distances of G - e, e one of 32 shortcuts; N = 256)\n")
    print("| instance | changed entries / removal | repair | bit-parallel, affected sources | full engine "
          "| full / repair |")
    print("|---|---|---|---|---|---|")
    for iid in INSTANCES:
        p = _problem(iid)
        sc = execute(solvers.create("edgecut-full"), p, seed=1, budget=Budget()).solution.shortcuts
        g = p.graph_with(sc)
        base_diam = int(distance_matrix(p.base).max())
        dd = DynamicDistances(g, max_distance=base_diam, width=p.degree_cap)
        D = dd.D.copy()
        h = dd.hist.copy()
        ws = workspace(g.n)
        changed = []
        for u, v in sc.tolist():
            c = dd.copy()
            c.remove_edge(u, v)
            changed.append(int((c.D != dd.D).sum()))

        def restore_only():
            for _ in sc:
                np.copyto(D, dd.D)
                np.copyto(h, dd.hist)

        def repair():
            for u, v in sc.tolist():
                np.copyto(D, dd.D)
                np.copyto(h, dd.hist)
                remove_edge_repair(D, dd.nbr, dd.nbc, u, v, dd.inf, h, ws)

        def bitparallel():
            for u, v in sc.tolist():
                np.copyto(D, dd.D)
                np.copyto(h, dd.hist)
                remove_edge_bitparallel(D, dd.nbr, dd.nbc, u, v, dd.inf, h)

        without = [g.without_edges((g.edges[:, 0] == min(u, v)) & (g.edges[:, 1] == max(u, v))).csr
                   for u, v in sc.tolist()]
        out = np.empty_like(D)

        def full():
            for indptr, indices in without:
                _bitbfs(indptr, indices, g.n, WORDS, out, dd.inf, True)

        base = _cpu(restore_only)
        t_rep = (_cpu(repair) - base) / len(sc)
        t_bit = (_cpu(bitparallel) - base) / len(sc)
        t_full = _cpu(full) / len(sc)
        print(f"| {iid} | {statistics.mean(changed):.0f} | {t_rep * 1e6:.0f} us | {t_bit * 1e6:.0f} us "
              f"| {t_full * 1e6:.0f} us | {t_full / t_rep:.1f}x |")
    print()


def moves_per_second(seconds: float = 10.0) -> None:
    print(f"## Annealing moves per second (N = 256, {seconds:g} s budget, seed 1; target >= 20,000)\n")
    print("| instance | moves | wall s | moves/s | CPU s | moves per CPU s | removals computed | accepted | ASPL |")
    print("|---|---|---|---|---|---|---|---|---|")
    for iid in INSTANCES:
        p = _problem(iid)
        execute(solvers.create("annealing"), p, seed=1, budget=Budget(time_s=0.5))  # load compiled kernels
        cpu = time.process_time()
        out = execute(solvers.create("annealing"), p, seed=1, budget=Budget(time_s=seconds))
        cpu = time.process_time() - cpu
        e = out.solution.extra
        print(f"| {iid} | {e['moves']:,} | {out.elapsed_s:.1f} | {e['moves'] / out.elapsed_s:,.0f} | {cpu:.1f} "
              f"| {e['moves'] / cpu:,.0f} | {e['removals']:,} | {e['accepted']:,} "
              f"| {out.solution.evaluation.aspl:.4f} |")
    print()


def acceptance(seconds: float = 60.0, seeds: tuple[int, ...] = (1, 2, 3, 4, 5)) -> None:
    print(f"## Annealing ({seconds:g} s) vs edgecut-full (t = 10), seeds {', '.join(map(str, seeds))}\n")
    print("| instance | ECF ASPL per seed | ECF mean | SA ASPL per seed | SA mean | SA < ECF |")
    print("|---|---|---|---|---|---|")
    for iid in INSTANCES:
        p = _problem(iid)
        ecf = [execute(solvers.create("edgecut-full", t=10), p, seed=s, budget=Budget()).solution.evaluation.aspl
               for s in seeds]
        sa = [execute(solvers.create("annealing"), p, seed=s, budget=Budget(time_s=seconds)).solution.evaluation.aspl
              for s in seeds]
        print(f"| {iid} | {', '.join(f'{v:.4f}' for v in ecf)} | {statistics.mean(ecf):.4f} "
              f"| {', '.join(f'{v:.4f}' for v in sa)} | {statistics.mean(sa):.4f} "
              f"| {'yes' if statistics.mean(sa) < statistics.mean(ecf) else 'NO'} |", flush=True)
    print()


if __name__ == "__main__":
    if sys.argv[1:] == ["acceptance"]:
        acceptance()
    else:
        removal_kernels()
        moves_per_second()
