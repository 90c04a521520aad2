"""``grid-annealing``: simulated annealing for Graph Golf's grid graphs.

From a random graph of short edges (every port filled where a cell within the cable length has one
free), it anneals with 2-opt swaps that keep every edge within the cable length (and, while ports are
free, shifts of an edge's end), optionally invariant under a rotation of the grid of order 2 or 4 as
ODP's grid programs offer (``symmetry``; with it, ``turn_share`` of the swaps join the second pair through a
turned copy of its end).  Energy, moves and evaluation: :mod:`hopbench.solvers.grid._kernel`.

The schedule runs on the run's clock: evaluations when the budget counts them (so a seed and an
evaluation budget fix the result), else time, else ``moves``.  The temperature falls geometrically
from ``temp0`` times the mean rise of random moves at the start to ``temp1``.  The target diameter of
the energy's far-pair term is the grid bound's diameter, or one below the best diameter reached while
the bound is out of reach.
"""
from __future__ import annotations

import time

import numpy as np

from hopbench.harness.problems.grid.problem import GridProblem, GridSolution
from hopbench.solvers.contract import Budget, Param, Reporter
from hopbench.solvers.contract.registry import register
from hopbench.solvers.grid._search import (AUTO_MIN_CELLS, TIME_SLICE, BestOffer, GridSolver, Space, Walker,
                                           auto_symmetry, cells_near, edges_of, representatives, rotations)

#: random moves measured to set the starting temperature
CALIBRATION_MOVES = 32


@register
class GridAnnealing(GridSolver):
    name = "grid-annealing"
    description = ("Simulated annealing of a grid graph: 2-opt swaps that keep the cable length, exact bit-parallel "
                   "evaluation with an early stop, optional rotational symmetry of order 2 or 4 (ODP's grid SA)")
    #: enough evaluations for the temperature calibration too (short budgets skip it)
    warm_up_evaluations = 8 * CALIBRATION_MOVES
    params = {
        "symmetry": Param(0, "rotation order the graph keeps: 1, 2, 4 (4 needs a square grid), 0 = automatic "
                             "(none below 64 cells, else 4 on a square grid and 2 otherwise)",
                          choices=(0, 1, 2, 4)),
        "far_weight": Param(4.0, "energy per ordered pair beyond the target diameter, on top of its distance",
                            low=0.5, high=64.0, log=True, minimum=0.0),
        "temp0": Param(1.0, "starting temperature, in units of the mean energy rise of a random move",
                       low=0.1, high=10.0, log=True, minimum=0.0),
        "temp1": Param(0.3, "final temperature (energy units: one ordered pair one hop longer is 1)",
                       low=0.01, high=3.0, log=True, minimum=0.0),
        "shift_share": Param(0.2, "share of moves that shift an edge's end to a free port, while ports are free",
                             low=0.0, high=0.5, minimum=0.0, maximum=1.0),
        "turn_share": Param(0.0, "share of 2-opt swaps that join the second pair through a turned copy of its end "
                                 "(a change of the rotation's orbits that no plain swap makes; only with a symmetry)",
                            low=0.0, high=0.8, minimum=0.0, maximum=1.0, recorded_at_default=False),
        "moves": Param(200_000, "evaluations of a run with neither a time limit nor an evaluation budget",
                       tunable=False, minimum=1, loop=True),
        "start": Param("", "search from this graph instead of a random one: a hopbench.grid/1 result document "
                           "or a competition edge file of the same grid, invariant under the run's symmetry "
                           "(empty: a random graph)", tunable=False, recorded_at_default=False),
    }

    def solve(self, problem: GridProblem, *, seed: int, budget: Budget, report: Reporter) -> GridSolution:
        space = Space.of(self, problem)
        return self._anneal(space, np.random.default_rng(seed), budget, report)

    def _anneal(self, space: Space, rng: np.random.Generator, budget: Budget, report: Reporter) -> GridSolution:
        """One annealing run: geometric schedule on the run's clock."""
        from hopbench.solvers.grid import _kernel as K

        cfg = self.config
        walker = Walker(space, rng)
        t0 = time.perf_counter()
        walker.remeasure()
        per_eval = max(time.perf_counter() - t0, 1e-7)  # a full evaluation's seconds: sizes the first calls
        report.count(1)
        walker.keep_as_best()
        iv, fv = walker.ivars, walker.fvars
        if not iv[K.I_UNREACHED] and iv[K.I_DIAM] - 1 > space.bound_d:
            # the far-pair term aims one below the best diameter while the bound is out of reach
            iv[K.I_DSTAR] = iv[K.I_DIAM] - 1
            walker.remeasure()
        best = BestOffer(space, report)
        best.offer(walker)
        # the starting temperature: temp0 x the mean energy rise of random moves
        calib = 0 if budget.evaluations is not None and budget.evaluations <= CALIBRATION_MOVES * 4 \
            else CALIBRATION_MOVES
        # on a large grid the calibration gets at most 5 % of the time limit (an evaluation may take a second)
        if budget.evaluations is None and budget.time_s is not None:
            calib = min(calib, int(0.05 * report.remaining_time() / per_eval))
        rises = np.zeros(max(calib, 1), np.float64)
        k = K.sample_rises(walker.state, calib, walker.nbr, walker.deg, *space.moves, *space.measuring,
                           space.shift_share, space.turn_share, walker.A, walker.B, walker.dist, walker.queue, iv, fv,
                           rises) if calib else 0
        report.count(calib)
        t_end = float(cfg["temp1"])
        t_start = max(float(cfg["temp0"]) * (float(rises[:k].mean()) if k else 1.0), t_end)
        clock, horizon = _schedule_clock(budget, report, int(cfg["moves"]))
        start_evals, start_time = report.evaluations, report.elapsed()
        if clock != "time":  # the kernel sets the temperature move by move (chunk sizes change nothing)
            iv[K.I_CLOCK], iv[K.I_START] = 1, iv[K.I_TRIED]
            fv[K.F_T0], fv[K.F_T1], fv[K.F_HORIZON] = t_start, t_end, float(horizon)
        chunk = int(max(1, min(16, TIME_SLICE / per_eval)))
        while not report.should_stop():
            if clock == "evals":
                done_frac = (report.evaluations - start_evals) / horizon
            elif clock == "time":
                done_frac = (report.elapsed() - start_time) / horizon
            else:
                done_frac = (report.evaluations - start_evals) / horizon
                if done_frac >= 1:
                    break
            done_frac = min(max(done_frac, 0.0), 1.0)
            fv[K.F_TEMP] = t_start * (t_end / t_start) ** done_frac if t_start > 0 else 0.0
            if budget.evaluations is not None:
                chunk = min(chunk, max(budget.evaluations - report.evaluations, 1))
            t0 = time.perf_counter()
            done = walker.run(chunk)
            report.count(done)
            best.offer(walker)
            if best.optimal():
                break  # the grid bound is met: optimal
            spent = time.perf_counter() - t0
            rate = done / spent if spent > 0 else done * 100.0
            chunk = int(max(1, min(rate * TIME_SLICE, rate * report.remaining_time() + 1, 1_000_000)))
        extra = {"symmetry": space.g, "moves": int(iv[K.I_TRIED]), "accepted": int(iv[K.I_ACCEPTED]),
                 "improvements": int(iv[K.I_IMPROVED]), "start_temperature": round(t_start, 6), **space.start_extra()}
        return GridSolution(space.problem, edges_of(walker.best_nbr, walker.best_deg), extra=extra)

def _schedule_clock(budget: Budget, report: Reporter, moves: int) -> tuple[str, float]:
    """The schedule's clock and horizon: evaluations if counted (reproducible), else time, else ``moves``."""
    if budget.evaluations is not None:
        return "evals", max(budget.evaluations - report.evaluations, 1)
    if budget.time_s is not None:
        return "time", max(report.remaining_time(), 1e-9)
    return "moves", moves


__all__ = ["AUTO_MIN_CELLS", "GridAnnealing", "auto_symmetry", "cells_near", "representatives", "rotations"]
