"""``grid-annealing``: simulated annealing for Graph Golf's grid graphs.

From a random graph of short edges (every port filled where a cell within the cable length has one
free), it anneals with 2-opt swaps that keep every edge within the cable length (and, while ports are
free, shifts of an edge's end), optionally invariant under a rotation of the grid of order 2 or 4 as
ODP's grid programs offer (``symmetry``).  Energy, moves and evaluation: :mod:`hopbench.solvers.grid._kernel`.

The schedule runs on the run's clock: evaluations when the budget counts them (so a seed and an
evaluation budget fix the result), else time, else ``moves``.  The temperature falls geometrically
from ``temp0`` times the mean rise of random moves at the start to ``temp1``.  The target diameter of
the energy's far-pair term is the grid bound's diameter, or one below the best diameter reached while
the bound is out of reach.
"""
from __future__ import annotations

import math
import time

import numpy as np

from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.grid.problem import GridProblem, GridSolution, golf_value
from hopbench.solvers.contract import Budget, Param, Reporter, Solver
from hopbench.solvers.contract.registry import register

#: seconds of one kernel call between polls of the budget
TIME_SLICE = 0.05
#: random moves measured to set the starting temperature
CALIBRATION_MOVES = 32


def rotations(width: int, height: int, g: int) -> np.ndarray:
    """``rot[k, v]``: vertex v (= x * height + y) turned k times by the rotation of order g about the centre."""
    x, y = np.divmod(np.arange(width * height, dtype=np.int64), height)
    rot = np.empty((g, width * height), np.int64)
    rot[0] = x * height + y
    cx, cy = x, y
    for k in range(1, g):
        if g == 2:
            cx, cy = width - 1 - cx, height - 1 - cy
        else:  # a quarter turn of a square: (x, y) -> (y, W - 1 - x)
            cx, cy = cy, width - 1 - cx
        rot[k] = cx * height + cy
    return rot


def representatives(rot: np.ndarray) -> tuple[np.ndarray, int]:
    """(one vertex per orbit of full size, the centre cell fixed by the rotation or -1)."""
    smallest = rot.min(axis=0)
    n = rot.shape[1]
    fixed = np.flatnonzero((rot == np.arange(n)[None, :]).all(axis=0)) if rot.shape[0] > 1 else np.empty(0, np.int64)
    centre = int(fixed[0]) if fixed.size else -1
    reps = np.flatnonzero(smallest == np.arange(n))
    return reps[reps != centre].astype(np.int64), centre


def cells_near(problem: GridProblem) -> tuple[np.ndarray, np.ndarray]:
    """``near[v, :nnear[v]]``: the cells other than v within the cable length of v."""
    r = min(int(problem.length), problem.width + problem.height - 2)
    W, H = problem.width, problem.height
    offsets = [(dx, dy) for dx in range(-r, r + 1) for dy in range(-(r - abs(dx)), r - abs(dx) + 1) if dx or dy]
    x, y = np.divmod(np.arange(problem.n, dtype=np.int64), H)
    near = np.full((problem.n, max(len(offsets), 1)), -1, np.int64)
    nnear = np.zeros(problem.n, np.int64)
    for dx, dy in offsets:
        ok = (x + dx >= 0) & (x + dx < W) & (y + dy >= 0) & (y + dy < H)
        v = np.flatnonzero(ok)
        near[v, nnear[v]] = (x[v] + dx) * H + y[v] + dy
        nnear[v] += 1
    return near, nnear


def auto_symmetry(problem: GridProblem) -> int:
    """The default rotation order: none below AUTO_MIN_CELLS cells; above, 4 on a square grid, else 2."""
    if problem.n < AUTO_MIN_CELLS:
        return 1
    return 4 if problem.width == problem.height else 2


#: the smallest grid that gets a rotational symmetry by default (see docs/graphgolf.md, grid graphs)
AUTO_MIN_CELLS = 64


@register
class GridAnnealing(Solver):
    name = "grid-annealing"
    kinds = ("grid",)
    time_bound = True
    description = ("Simulated annealing of a grid graph: 2-opt swaps that keep the cable length, exact bit-parallel "
                   "evaluation with an early stop, optional rotational symmetry of order 2 or 4 (ODP's grid SA)")
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
        "moves": Param(200_000, "evaluations of a run with neither a time limit nor an evaluation budget",
                       tunable=False, minimum=1, loop=True),
    }

    def skip(self, problem) -> tuple[bool, str]:
        skipped, reason = super().skip(problem)
        if skipped:
            return skipped, reason
        g = int(self.config["symmetry"])
        if g == 4 and problem.width != problem.height:
            return True, f"symmetry 4 (quarter turns) needs a square grid, not {problem.width} x {problem.height}"
        return False, ""

    def warm_up(self) -> None:
        from hopbench.harness.problems.grid.problem import GridProblem as P

        # enough evaluations for the temperature calibration too (short budgets skip it)
        budget = Budget(evaluations=8 * CALIBRATION_MOVES)
        for g in (1, 4):
            GridAnnealing(symmetry=g).solve(P(4, 4, 3, 2), seed=1, budget=budget, report=Reporter(budget))

    def solve(self, problem: GridProblem, *, seed: int, budget: Budget, report: Reporter) -> GridSolution:
        from hopbench.solvers.grid import _kernel as K

        cfg = self.config
        g = int(cfg["symmetry"]) or auto_symmetry(problem)
        if g == 4 and problem.width != problem.height:
            raise HopbenchError(f"{self.name}: symmetry 4 needs a square grid")
        n, cap, length = problem.n, int(problem.degree), int(problem.length)
        rot = rotations(problem.width, problem.height, g)
        reps, centre = representatives(rot)
        near, nnear = cells_near(problem)
        cx, cy = np.divmod(np.arange(n, dtype=np.int64), problem.height)
        rng = np.random.default_rng(seed)
        state = np.array([rng.integers(1, 2**63 - 1)], np.uint64)
        nbr = np.full((n, cap), -1, np.int64)
        deg = np.zeros(n, np.int64)
        order = np.arange(n, dtype=np.int64)
        scratch = (np.empty((2, 2), np.int64), np.empty((2, 2), np.int64), np.empty((K.MAXE, 2), np.int64),
                   np.empty((K.MAXE, 2), np.int64), np.zeros(n, np.int64), np.zeros(2, np.int64))
        K.fill(state, nbr, deg, cap, rot, g, cx, cy, length, near, nnear, order, *scratch)
        words = max(1, -(-len(reps) // 64))
        A = np.empty((n, words), np.uint64)
        B = np.empty((n, words), np.uint64)
        dist = np.empty(n, np.int64)
        queue = np.empty(n, np.int64)
        lb_d, _ = problem.lower_bounds()
        bound_d = int(lb_d) if math.isfinite(lb_d) else n
        ivars = np.zeros(K.N_IVARS, np.int64)
        fvars = np.zeros(K.N_FVARS, np.float64)
        fvars[K.F_LAM] = float(cfg["far_weight"])
        ivars[K.I_DSTAR] = ivars[K.I_BOUND] = bound_d
        weight = float(g)
        out = np.zeros(4, np.float64)

        def remeasure() -> None:
            K.measure(nbr, deg, reps, weight, centre, ivars[K.I_DSTAR], fvars[K.F_LAM], np.inf, A, B, dist, queue, out)
            fvars[K.F_E], fvars[K.F_S] = out[0], out[1]
            ivars[K.I_DIAM], ivars[K.I_UNREACHED] = int(out[2]), int(out[3])

        t0 = time.perf_counter()
        remeasure()
        per_eval = max(time.perf_counter() - t0, 1e-7)  # a full evaluation's seconds: sizes the first calls
        report.count(1)
        ivars[K.I_BEST_DIAM], fvars[K.F_BEST_S], ivars[K.I_BEST_UNREACHED] = ivars[K.I_DIAM], fvars[K.F_S], \
            ivars[K.I_UNREACHED]
        best_nbr, best_deg = nbr.copy(), deg.copy()
        if not ivars[K.I_UNREACHED] and ivars[K.I_DIAM] - 1 > bound_d:
            # the far-pair term aims one below the best diameter while the bound is out of reach
            ivars[K.I_DSTAR] = ivars[K.I_DIAM] - 1
            remeasure()
        pairs = n * (n - 1)

        def best_value() -> float:
            if ivars[K.I_BEST_UNREACHED]:
                return math.inf
            return golf_value(float(ivars[K.I_BEST_DIAM]), fvars[K.F_BEST_S] / pairs)

        reported = math.inf

        def offer() -> None:
            nonlocal reported
            value = best_value()
            if value < reported or not report.trace:
                reported = value
                report(value, diameter=int(ivars[K.I_BEST_DIAM]))

        offer()
        # the starting temperature: temp0 x the mean energy rise of random moves
        calib = 0 if budget.evaluations is not None and budget.evaluations <= CALIBRATION_MOVES * 4 \
            else CALIBRATION_MOVES
        # on a large grid the calibration gets at most 5 % of the time limit (an evaluation may take a second)
        if budget.evaluations is None and budget.time_s is not None:
            calib = min(calib, int(0.05 * report.remaining_time() / per_eval))
        rises = np.zeros(max(calib, 1), np.float64)
        k = K.sample_rises(state, calib, nbr, deg, cap, rot, g, cx, cy, length, near, nnear, reps, weight, centre,
                           float(cfg["shift_share"]), A, B, dist, queue, ivars, fvars, rises) if calib else 0
        report.count(calib)
        t_end = float(cfg["temp1"])
        t_start = max(float(cfg["temp0"]) * (float(rises[:k].mean()) if k else 1.0), t_end)
        clock, horizon = _schedule_clock(budget, report, int(cfg["moves"]))
        start_evals, start_time = report.evaluations, report.elapsed()
        if clock != "time":  # the kernel sets the temperature move by move (chunk sizes change nothing)
            ivars[K.I_CLOCK], ivars[K.I_START] = 1, ivars[K.I_TRIED]
            fvars[K.F_T0], fvars[K.F_T1], fvars[K.F_HORIZON] = t_start, t_end, float(horizon)
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
            fvars[K.F_TEMP] = t_start * (t_end / t_start) ** done_frac if t_start > 0 else 0.0
            if budget.evaluations is not None:
                chunk = min(chunk, max(budget.evaluations - report.evaluations, 1))
            t0 = time.perf_counter()
            done = K.run(state, chunk, nbr, deg, best_nbr, best_deg, cap, rot, g, cx, cy, length, near, nnear, reps,
                         weight, centre, float(cfg["shift_share"]), order, A, B, dist, queue, ivars, fvars)
            report.count(int(done))
            offer()
            if ivars[K.I_BEST_UNREACHED] == 0 and ivars[K.I_BEST_DIAM] <= bound_d and \
                    fvars[K.F_BEST_S] <= problem._bounds[2] * 2:
                break  # the grid bound is met: optimal
            spent = time.perf_counter() - t0
            rate = done / spent if spent > 0 else done * 100.0
            chunk = int(max(1, min(rate * TIME_SLICE, rate * report.remaining_time() + 1, 1_000_000)))
        edges = _edges_of(best_nbr, best_deg)
        extra = {"symmetry": g, "moves": int(ivars[K.I_TRIED]), "accepted": int(ivars[K.I_ACCEPTED]),
                 "improvements": int(ivars[K.I_IMPROVED]), "start_temperature": round(t_start, 6)}
        return GridSolution(problem, edges, extra=extra)


def _edges_of(nbr: np.ndarray, deg: np.ndarray) -> np.ndarray:
    n = nbr.shape[0]
    u = np.repeat(np.arange(n, dtype=np.int64), deg)
    v = np.concatenate([nbr[i, :deg[i]] for i in range(n)]) if n else np.empty(0, np.int64)
    keep = u < v
    return np.stack([u[keep], v[keep]], axis=1)


def _schedule_clock(budget: Budget, report: Reporter, moves: int) -> tuple[str, float]:
    """The schedule's clock and horizon: evaluations if counted (reproducible), else time, else ``moves``."""
    if budget.evaluations is not None:
        return "evals", max(budget.evaluations - report.evaluations, 1)
    if budget.time_s is not None:
        return "time", max(report.remaining_time(), 1e-9)
    return "moves", moves


__all__ = ["GridAnnealing", "auto_symmetry", "cells_near", "representatives", "rotations"]
