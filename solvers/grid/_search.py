"""What the grid solvers share: the grid's rotations and reach, and a walker, one graph under search
with its kernel state (:mod:`hopbench.solvers.grid._kernel`) and its best graph."""
from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.grid.problem import GridProblem, golf_value
from hopbench.solvers.contract import Budget, Reporter, Solver

#: seconds of one kernel call between polls of the budget
TIME_SLICE = 0.05


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


def symmetry_declined(problem: GridProblem, g: int) -> tuple[bool, str]:
    """(declined, why) for a rotation order the grid cannot keep."""
    if g == 4 and problem.width != problem.height:
        return True, f"symmetry 4 (quarter turns) needs a square grid, not {problem.width} x {problem.height}"
    return False, ""


class GridSolver(Solver):
    """What the grid solvers share as solvers: their kind, the rotation orders they decline, their warm-up."""

    kinds = ("grid",)
    time_bound = True
    #: the warm-up runs' settings besides the rotation order, and their evaluations
    warm_up_params: ClassVar[dict[str, Any]] = {}
    warm_up_evaluations: ClassVar[int] = 256

    def skip(self, problem) -> tuple[bool, str]:
        skipped, reason = super().skip(problem)
        if skipped:
            return skipped, reason
        return symmetry_declined(problem, int(self.config["symmetry"]))

    def warm_up(self) -> None:
        budget = Budget(evaluations=self.warm_up_evaluations)
        for g in (1, 4):  # without and with the symmetry: the kernels' two paths
            type(self)(symmetry=g, **self.warm_up_params).solve(GridProblem(4, 4, 3, 2), seed=1, budget=budget,
                                                                report=Reporter(budget))


class Space:
    """What every walker of one run shares: the grid, its rotations, the cells within reach, the bound."""

    @classmethod
    def of(cls, solver: Any, problem: GridProblem) -> "Space":
        """The space of a grid solver's run: its ``symmetry`` (0 = :func:`auto_symmetry`), ``far_weight``,
        ``shift_share`` and ``turn_share``."""
        cfg = solver.config
        g = int(cfg["symmetry"]) or auto_symmetry(problem)
        declined, why = symmetry_declined(problem, g)
        if declined:
            raise HopbenchError(f"{solver.name}: {why}")
        start = None
        path = str(cfg.get("start", "")).strip()
        if path:
            from hopbench.solvers.grid.start import check_order, read_start

            start = read_start(path, problem)
            check_order(start, g, lambda k: rotations(problem.width, problem.height, k), path)
        return cls(problem, g, float(cfg["far_weight"]), float(cfg["shift_share"]), start,
                   float(cfg["turn_share"]))

    def __init__(self, problem: GridProblem, g: int, far_weight: float, shift_share: float,
                 start: np.ndarray | None = None, turn_share: float = 0.0) -> None:
        self.problem, self.g, self.far_weight, self.shift_share = problem, g, far_weight, shift_share
        #: share of 2-opt moves that join the second pair through a turned copy (only under a rotation)
        self.turn_share = turn_share
        #: the edges every walker starts from (the ``start`` parameter), else None: a random graph each
        self.start = start
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

    def start_extra(self) -> dict[str, str]:
        """What a result records of its start graph: the SHA-256 of its sorted edges (none for a random start)."""
        if self.start is None:
            return {}
        from hopbench.solvers.grid.start import fingerprint

        return {"start_sha256": fingerprint(self.start)}


class Walker:
    """One graph under search (the space's start graph, else a random one of short edges, with every free port
    that can be filled filled), its kernel state and its best graph."""

    def __init__(self, space: Space, rng: np.random.Generator) -> None:
        from hopbench.solvers.grid import _kernel as K

        self.space = space
        n, cap = space.problem.n, space.cap
        self.state = np.array([rng.integers(1, 2**63 - 1)], np.uint64)
        self.nbr = np.full((n, cap), -1, np.int64)
        self.deg = np.zeros(n, np.int64)
        self.order = np.arange(n, dtype=np.int64)
        scratch = (np.empty((2, 2), np.int64), np.empty((2, 2), np.int64), np.empty((K.MAXE, 2), np.int64),
                   np.empty((K.MAXE, 2), np.int64), np.zeros(n, np.int64), np.zeros(2, np.int64))
        if space.start is not None:
            for u, v in space.start.tolist():
                self.nbr[u, self.deg[u]], self.nbr[v, self.deg[v]] = v, u
                self.deg[u] += 1
                self.deg[v] += 1
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
        self.kernel = K  # imported when a run starts, so that listing the solvers loads no numba

    def remeasure(self) -> None:
        """The current graph's energy, sum, diameter and unreached pairs, measured in full."""
        K = self.kernel

        iv, fv, out = self.ivars, self.fvars, self._out
        K.measure(self.nbr, self.deg, *self.space.measuring, iv[K.I_DSTAR], fv[K.F_LAM], np.inf, self.A, self.B,
                  self.dist, self.queue, out)
        fv[K.F_E], fv[K.F_S] = out[0], out[1]
        iv[K.I_DIAM], iv[K.I_UNREACHED] = int(out[2]), int(out[3])

    def keep_as_best(self) -> None:
        K = self.kernel

        iv, fv = self.ivars, self.fvars
        iv[K.I_BEST_DIAM], fv[K.F_BEST_S], iv[K.I_BEST_UNREACHED] = iv[K.I_DIAM], fv[K.F_S], iv[K.I_UNREACHED]
        self.best_nbr[:, :] = self.nbr
        self.best_deg[:] = self.deg

    def run(self, moves: int) -> int:
        """``moves`` evaluated moves at the kernel's temperature; returns the evaluations made."""
        s = self.space
        return int(self.kernel.run(self.state, moves, self.nbr, self.deg, self.best_nbr, self.best_deg, *s.moves,
                                   *s.measuring, s.shift_share, s.turn_share, self.order, self.A, self.B, self.dist,
                                   self.queue, self.ivars, self.fvars))

    def best_key(self) -> tuple[int, int, float]:
        """(unreached pairs, diameter, sum) of the best graph: lower is better."""
        K = self.kernel

        return int(self.ivars[K.I_BEST_UNREACHED]), int(self.ivars[K.I_BEST_DIAM]), float(self.fvars[K.F_BEST_S])


class BestOffer:
    """The run's best graph over its walkers, reported to the trace whenever it improves."""

    def __init__(self, space: Space, report: Reporter) -> None:
        self.space, self.report = space, report
        self.walker: Walker | None = None
        self.key: tuple[int, int, float] | None = None
        self.reported = math.inf

    def offer(self, walker: Walker) -> None:
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


def edges_of(nbr: np.ndarray, deg: np.ndarray) -> np.ndarray:
    """The edges (u < v) of a padded neighbour table."""
    n = nbr.shape[0]
    u = np.repeat(np.arange(n, dtype=np.int64), deg)
    v = np.concatenate([nbr[i, :deg[i]] for i in range(n)]) if n else np.empty(0, np.int64)
    keep = u < v
    return np.stack([u[keep], v[keep]], axis=1)
