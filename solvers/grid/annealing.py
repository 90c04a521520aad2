"""``grid-annealing``: simulated annealing for Graph Golf's grid graphs.

From a random graph of short edges (every port filled where a cell within the cable length has one
free), it anneals with 2-opt swaps that keep every edge within the cable length (and, while ports are
free, shifts of an edge's end), optionally invariant under a rotation of the grid of order 2 or 4 as
ODP's grid programs offer (``symmetry``).  Energy, moves and evaluation: :mod:`hopbench.solvers.grid._kernel`.

With ``replicas`` >= 2 it runs replica exchange instead (parallel tempering): that many walkers at fixed
temperatures, neighbours swapping graphs between rounds, so that a graph frozen in a cold walker can climb
to a temperature where it leaves its basin (:meth:`GridAnnealing._temper`).

The schedule of one annealing run runs on the run's clock: evaluations when the budget counts them (so a seed and an
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
        "replicas": Param(1, "1 = one annealing run; k >= 2 = replica exchange (parallel tempering): k copies at "
                             "fixed temperatures from temp_low to temp_high (geometric), neighbours swapping graphs "
                             "by the Metropolis rule", low=1, high=16, minimum=1, maximum=64, tunable=False),
        "temp_low": Param(3.0, "replica exchange: the coldest temperature (energy units, as temp1)",
                          low=0.5, high=10.0, log=True, minimum=0.0, tunable=False),
        "temp_high": Param(14.0, "replica exchange: the hottest temperature (energy units)",
                           low=5.0, high=100.0, log=True, minimum=0.0, tunable=False),
        "sweep": Param(2000, "replica exchange: moves of each replica between two rounds of swaps",
                       low=100, high=20_000, log=True, minimum=1, maximum=1_000_000, tunable=False),
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
        cfg = self.config
        g = int(cfg["symmetry"]) or auto_symmetry(problem)
        if g == 4 and problem.width != problem.height:
            raise HopbenchError(f"{self.name}: symmetry 4 needs a square grid")
        rng = np.random.default_rng(seed)
        space = _Space(problem, g, float(cfg["far_weight"]), float(cfg["shift_share"]))
        if int(cfg["replicas"]) > 1:
            return self._temper(space, rng, budget, report)
        return self._anneal(space, rng, budget, report)

    def _anneal(self, space: "_Space", rng: np.random.Generator, budget: Budget, report: Reporter) -> GridSolution:
        """One annealing run: geometric schedule on the run's clock."""
        from hopbench.solvers.grid import _kernel as K

        cfg = self.config
        walker = _Walker(space, rng)
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
        best = _BestOffer(space, report)
        best.offer(walker)
        # the starting temperature: temp0 x the mean energy rise of random moves
        calib = 0 if budget.evaluations is not None and budget.evaluations <= CALIBRATION_MOVES * 4 \
            else CALIBRATION_MOVES
        # on a large grid the calibration gets at most 5 % of the time limit (an evaluation may take a second)
        if budget.evaluations is None and budget.time_s is not None:
            calib = min(calib, int(0.05 * report.remaining_time() / per_eval))
        rises = np.zeros(max(calib, 1), np.float64)
        k = K.sample_rises(walker.state, calib, walker.nbr, walker.deg, *space.moves, *space.measuring,
                           space.shift_share, walker.A, walker.B, walker.dist, walker.queue, iv, fv,
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
                 "improvements": int(iv[K.I_IMPROVED]), "start_temperature": round(t_start, 6)}
        return GridSolution(space.problem, _edges_of(walker.best_nbr, walker.best_deg), extra=extra)

    def _temper(self, space: "_Space", rng: np.random.Generator, budget: Budget, report: Reporter) -> GridSolution:
        """Replica exchange: ``replicas`` walkers at fixed temperatures (geometric from ``temp_low`` to
        ``temp_high``); after each round of ``sweep`` moves apiece, neighbouring temperatures swap their
        graphs with probability min(1, exp((E_i - E_j)(1/T_i - 1/T_j))), alternately the even and the odd
        pairs.  A graph that freezes in a cold walker is carried up to where it can leave its basin, which
        one falling temperature cannot do (docs/graphgolf.md, grid graphs).  Rounds have a fixed size when
        the budget counts evaluations, so a seed fixes the result."""
        from hopbench.solvers.grid import _kernel as K

        cfg = self.config
        count = int(cfg["replicas"])
        temps = np.geomspace(max(float(cfg["temp_low"]), 1e-9), max(float(cfg["temp_high"]), 1e-9), count)
        walkers = [_Walker(space, rng) for _ in range(count)]
        t0 = time.perf_counter()
        for walker in walkers:
            walker.remeasure()
            walker.keep_as_best()
        per_eval = max((time.perf_counter() - t0) / count, 1e-7)
        report.count(count)
        best = _BestOffer(space, report)
        dstar = space.bound_d
        sweep = int(cfg["sweep"])
        swaps, tries = np.zeros(count - 1, np.int64), np.zeros(count - 1, np.int64)
        rounds = 0
        while not report.should_stop() and not best.optimal():
            # one target diameter for all, so that their energies compare
            reached = [w for w in walkers if w.ivars[K.I_BEST_UNREACHED] == 0]
            if reached:
                dstar = max(space.bound_d, min(int(w.ivars[K.I_BEST_DIAM]) for w in reached) - 1)
            for k, walker in enumerate(walkers):
                if walker.ivars[K.I_DSTAR] != dstar:
                    walker.ivars[K.I_DSTAR] = dstar
                    walker.remeasure()
                walker.fvars[K.F_TEMP] = temps[k]
                chunk = sweep
                if budget.evaluations is not None:
                    chunk = min(chunk, max(budget.evaluations - report.evaluations, 1))
                else:  # a time limit: each call at most TIME_SLICE, so the run can stop on time
                    chunk = int(max(1, min(chunk, TIME_SLICE / per_eval)))
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
                 "accepted": int(sum(w.ivars[K.I_ACCEPTED] for w in walkers))}
        return GridSolution(space.problem, _edges_of(winner.best_nbr, winner.best_deg), extra=extra)


class _Space:
    """What every walker of one run shares: the grid, its rotations, the cells within reach, the bound."""

    def __init__(self, problem: GridProblem, g: int, far_weight: float, shift_share: float) -> None:
        self.problem, self.g, self.far_weight, self.shift_share = problem, g, far_weight, shift_share
        n = problem.n
        self.cap, self.length = int(problem.degree), int(problem.length)
        rot = rotations(problem.width, problem.height, g)
        self.reps, self.centre = representatives(rot)
        near, nnear = cells_near(problem)
        cx, cy = np.divmod(np.arange(n, dtype=np.int64), problem.height)
        #: the kernel's move arguments (cap, rot, g, cx, cy, length, near, nnear)
        self.moves = (self.cap, rot, g, cx, cy, self.length, near, nnear)
        self.weight = float(g)
        #: the kernel's measuring arguments (reps, weight, centre)
        self.measuring = (self.reps, self.weight, self.centre)
        self.words = max(1, -(-len(self.reps) // 64))
        lb_d, _ = problem.lower_bounds()
        self.bound_d = int(lb_d) if math.isfinite(lb_d) else n
        self.pairs = n * (n - 1)


class _Walker:
    """One graph under search: a random start of short edges, its kernel state and its best graph."""

    def __init__(self, space: _Space, rng: np.random.Generator) -> None:
        from hopbench.solvers.grid import _kernel as K

        self.space = space
        n, cap = space.problem.n, space.cap
        self.state = np.array([rng.integers(1, 2**63 - 1)], np.uint64)
        self.nbr = np.full((n, cap), -1, np.int64)
        self.deg = np.zeros(n, np.int64)
        self.order = np.arange(n, dtype=np.int64)
        scratch = (np.empty((2, 2), np.int64), np.empty((2, 2), np.int64), np.empty((K.MAXE, 2), np.int64),
                   np.empty((K.MAXE, 2), np.int64), np.zeros(n, np.int64), np.zeros(2, np.int64))
        K.fill(self.state, self.nbr, self.deg, *space.moves, self.order, *scratch)
        self.A = np.empty((n, space.words), np.uint64)
        self.B = np.empty((n, space.words), np.uint64)
        self.dist = np.empty(n, np.int64)
        self.queue = np.empty(n, np.int64)
        self.ivars = np.zeros(K.N_IVARS, np.int64)
        self.fvars = np.zeros(K.N_FVARS, np.float64)
        self.fvars[K.F_LAM] = space.far_weight
        self.ivars[K.I_DSTAR] = self.ivars[K.I_BOUND] = space.bound_d
        self.best_nbr, self.best_deg = self.nbr.copy(), self.deg.copy()
        self._out = np.zeros(4, np.float64)

    def remeasure(self) -> None:
        """The current graph's energy, sum, diameter and unreached pairs, measured in full."""
        from hopbench.solvers.grid import _kernel as K

        iv, fv, out = self.ivars, self.fvars, self._out
        K.measure(self.nbr, self.deg, *self.space.measuring, iv[K.I_DSTAR], fv[K.F_LAM], np.inf, self.A, self.B,
                  self.dist, self.queue, out)
        fv[K.F_E], fv[K.F_S] = out[0], out[1]
        iv[K.I_DIAM], iv[K.I_UNREACHED] = int(out[2]), int(out[3])

    def keep_as_best(self) -> None:
        from hopbench.solvers.grid import _kernel as K

        iv, fv = self.ivars, self.fvars
        iv[K.I_BEST_DIAM], fv[K.F_BEST_S], iv[K.I_BEST_UNREACHED] = iv[K.I_DIAM], fv[K.F_S], iv[K.I_UNREACHED]
        self.best_nbr[:, :] = self.nbr
        self.best_deg[:] = self.deg

    def run(self, moves: int) -> int:
        """``moves`` evaluated moves at the kernel's temperature; returns the evaluations made."""
        from hopbench.solvers.grid import _kernel as K

        s = self.space
        return int(K.run(self.state, moves, self.nbr, self.deg, self.best_nbr, self.best_deg, *s.moves, *s.measuring,
                         s.shift_share, self.order, self.A, self.B, self.dist, self.queue, self.ivars, self.fvars))

    def best_key(self) -> tuple[int, int, float]:
        """(unreached pairs, diameter, sum) of the best graph: lower is better."""
        from hopbench.solvers.grid import _kernel as K

        return int(self.ivars[K.I_BEST_UNREACHED]), int(self.ivars[K.I_BEST_DIAM]), float(self.fvars[K.F_BEST_S])


class _BestOffer:
    """The run's best graph over its walkers, reported to the trace whenever it improves."""

    def __init__(self, space: _Space, report: Reporter) -> None:
        self.space, self.report = space, report
        self.walker: _Walker | None = None
        self.key: tuple[int, int, float] | None = None
        self.reported = math.inf

    def offer(self, walker: _Walker) -> None:
        key = walker.best_key()  # a walker's best only improves, so the run's best is the least of theirs
        if self.key is None or key < self.key:
            self.walker, self.key = walker, key
        unreached, diameter, total = self.key
        value = math.inf if unreached else golf_value(float(diameter), total / self.space.pairs)
        if value < self.reported or not self.report.trace:
            self.reported = value
            self.report(value, diameter=diameter)

    def optimal(self) -> bool:
        """The grid bound is met: nothing can be better."""
        if self.key is None:
            return False
        unreached, diameter, total = self.key
        return unreached == 0 and diameter <= self.space.bound_d and total <= self.space.problem._bounds[2] * 2


def exchange_probability(e_i: float, e_j: float, t_i: float, t_j: float) -> float:
    """The probability that walkers at temperatures t_i and t_j, holding energies e_i and e_j, swap graphs:
    min(1, exp((e_i - e_j)(1/t_i - 1/t_j))), the rule that keeps every walker's graphs Boltzmann-distributed
    at its own temperature.  A colder walker holding the higher energy always swaps."""
    x = (e_i - e_j) * (1.0 / t_i - 1.0 / t_j)
    return 1.0 if x >= 0 else math.exp(x)


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


__all__ = ["GridAnnealing", "auto_symmetry", "cells_near", "exchange_probability", "representatives", "rotations"]
