"""``grid-tempering``: replica exchange (parallel tempering) for Graph Golf's grid graphs.

One annealing run (``grid-annealing``) freezes: its falling temperature settles in one basin and the
rest of the schedule finds nothing (docs/graphgolf.md, grid graphs).  Here ``replicas`` walkers, each
from its own random graph of short edges, search at fixed temperatures, geometric from ``temp_low`` to
``temp_high``, with the same moves, energy and evaluation as ``grid-annealing``
(:mod:`hopbench.solvers.grid._kernel`).  After each round of ``sweep`` moves apiece, neighbouring
temperatures swap their graphs by the Metropolis rule (:func:`exchange_probability`), the even pairs and
the odd pairs in turn, so a graph frozen in a cold walker can climb to where it moves again.  All
walkers aim at one target diameter, so their energies compare; the answer is the best graph any walker
held.  Rounds have a fixed size when the budget counts evaluations, so a seed then fixes the result.
"""
from __future__ import annotations

import math
import time

import numpy as np

from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.grid.problem import GridProblem, GridSolution
from hopbench.solvers.contract import Budget, Param, Reporter
from hopbench.solvers.contract.registry import register
from hopbench.solvers.grid._search import TIME_SLICE, BestOffer, GridSolver, Space, Walker, edges_of
from hopbench.solvers.grid.annealing import GridAnnealing

#: the most memory the walkers' BFS state may take
WALKER_MEMORY_CAP = 2 * 2**30


def exchange_probability(e_i: float, e_j: float, t_i: float, t_j: float) -> float:
    """The probability that walkers at temperatures t_i and t_j, holding energies e_i and e_j, swap graphs:
    min(1, exp((e_i - e_j)(1/t_i - 1/t_j))), the rule that keeps every walker's graphs Boltzmann-distributed
    at its own temperature.  A colder walker holding the higher energy always swaps."""
    x = (e_i - e_j) * (1.0 / t_i - 1.0 / t_j)
    return 1.0 if x >= 0 else math.exp(x)


@register
class GridTempering(GridSolver):
    name = "grid-tempering"
    description = ("Replica exchange (parallel tempering) of grid graphs: walkers at fixed temperatures with "
                   "grid-annealing's moves and evaluation, neighbours swapping graphs by the Metropolis rule")
    warm_up_params = {"replicas": 2, "sweep": 50}
    warm_up_evaluations = 400
    params = {
        "symmetry": GridAnnealing.params["symmetry"],
        "far_weight": GridAnnealing.params["far_weight"],
        "shift_share": GridAnnealing.params["shift_share"],
        "turn_share": GridAnnealing.params["turn_share"],
        "replicas": Param(8, "walkers, one per temperature", low=2, high=16, minimum=2, maximum=64),
        "temp_low": Param(3.0, "the coldest temperature (energy units: one ordered pair one hop longer is 1)",
                          low=0.5, high=10.0, log=True, minimum=1e-6, maximum=1e9),
        "temp_high": Param(14.0, "the hottest temperature (energy units)", low=5.0, high=100.0, log=True,
                           minimum=1e-6, maximum=1e9),
        "sweep": Param(2000, "moves of each walker between two rounds of swaps", low=100, high=20_000, log=True,
                       minimum=1, maximum=1_000_000),
        "moves": Param(2_000_000, "evaluations of a run with neither a time limit nor an evaluation budget",
                       tunable=False, minimum=1, loop=True),
        "start": GridAnnealing.params["start"],
    }

    def solve(self, problem: GridProblem, *, seed: int, budget: Budget, report: Reporter) -> GridSolution:
        from hopbench.solvers.grid import _kernel as K

        cfg = self.config
        space = Space.of(self, problem)
        rng = np.random.default_rng(seed)
        count = int(cfg["replicas"])
        # each walker holds two bit-parallel BFS frontiers of n x words 64-bit words: refuse before allocating
        need = count * 2 * problem.n * space.words * 8
        if need > WALKER_MEMORY_CAP:
            raise HopbenchError(f"{self.name}: {count} replicas of a {problem.width} x {problem.height} grid need "
                                f"{need / 2**30:.1f} GiB of BFS state (cap {WALKER_MEMORY_CAP / 2**30:g} GiB); "
                                "use fewer replicas or a rotational symmetry")
        temps = np.geomspace(float(cfg["temp_low"]), float(cfg["temp_high"]), count)
        walkers = [Walker(space, rng) for _ in range(count)]
        t0 = time.perf_counter()
        for walker in walkers:
            walker.remeasure()
            walker.keep_as_best()
        per_eval = max((time.perf_counter() - t0) / count, 1e-7)
        report.count(count)
        best = BestOffer(space, report)
        limit = budget.evaluations if budget.evaluations is not None else \
            (None if budget.time_s is not None else int(cfg["moves"]))
        sweep = int(cfg["sweep"])
        swaps, tries = np.zeros(count - 1, np.int64), np.zeros(count - 1, np.int64)
        rounds = 0
        while not (report.should_stop() or best.optimal() or (limit is not None and report.evaluations >= limit)):
            # one target diameter for all, so that their energies compare
            reached = [w.ivars[K.I_BEST_DIAM] for w in walkers if w.ivars[K.I_BEST_UNREACHED] == 0]
            dstar = max(space.bound_d, int(min(reached)) - 1) if reached else space.bound_d
            for k, walker in enumerate(walkers):
                if walker.ivars[K.I_DSTAR] != dstar:
                    walker.ivars[K.I_DSTAR] = dstar
                    walker.remeasure()
                walker.fvars[K.F_TEMP] = temps[k]
                if limit is not None:
                    chunk = min(sweep, max(limit - report.evaluations, 1))
                else:  # on the clock: each call at most TIME_SLICE, so the run stops on time
                    chunk = int(max(1, min(sweep, TIME_SLICE / per_eval)))
                t1 = time.perf_counter()
                done = walker.run(chunk)
                per_eval = max((time.perf_counter() - t1) / max(done, 1), 1e-7)
                report.count(done)
                best.offer(walker)
                if report.should_stop() or best.optimal():
                    break
            else:
                for k in range(rounds % 2, count - 1, 2):
                    tries[k] += 1
                    if rng.random() < exchange_probability(walkers[k].fvars[K.F_E], walkers[k + 1].fvars[K.F_E],
                                                           temps[k], temps[k + 1]):
                        walkers[k], walkers[k + 1] = walkers[k + 1], walkers[k]
                        swaps[k] += 1
                rounds += 1
        winner = best.walker or walkers[0]
        extra = {"symmetry": space.g, "replicas": count, "rounds": rounds,
                 "temperatures": [round(float(t), 6) for t in temps],
                 "swap_rates": [round(float(s / t), 4) if t else 0.0 for s, t in zip(swaps, tries)],
                 "moves": int(sum(w.ivars[K.I_TRIED] for w in walkers)),
                 "accepted": int(sum(w.ivars[K.I_ACCEPTED] for w in walkers)), **space.start_extra()}
        return GridSolution(problem, edges_of(winner.best_nbr, winner.best_deg), extra=extra)


__all__ = ["GridTempering", "exchange_probability"]
