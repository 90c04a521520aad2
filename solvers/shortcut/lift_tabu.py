"""Tabu search over cyclic lifts (voltage graphs), for problems whose budget fills every free port.

The graph is searched as a cyclic lift of order g: an m-vertex quotient multigraph (n = m g) whose
edges carry voltages in Z_g, lifted to a graph invariant under v -> v + m (see
:mod:`hopbench.solvers.shortcut._lift_kernel`).  This is the space that annealing's symmetric swap mode
walks by random 2-opt moves; here every move of one step is evaluated and the best one taken:

* a move changes one free quotient edge's voltage, or (in a share ``swap_share`` of the steps) swaps
  the endpoints of two free edges, voltages kept;
* the energy is ``far_weight x far + S``: S sums the distances from the m representatives and far
  counts those beyond the Moore bound's diameter, which presses the search towards that diameter;
* a moved edge is tabu for ``tenure`` to ``tenure + 2`` steps unless the move beats the walk's best
  energy;
* every ``walk_steps`` (600) steps a new walk starts from random voltages on a new quotient: the
  evenest of ``screen`` (16) random ones by non-backtracking walk counts, without loops when the
  quotient has more vertices than the degree cap.  On (512, 4) these short walks on even quotients
  reach diameter 6 about five times as often per step as long walks that also swap the quotient.

The best graph by the problem's objective is returned.  It was written for Graph Golf's (512, 4),
whose best-known graph (Team RK) is a Z_64 lift of an 8-vertex quotient that annealing's symmetric
mode does not find (docs/graphgolf.md).  Evaluations are counted one per lift measured, and a scan cut
by the budget resumes where it stopped, so a seed and an evaluation budget fix the result.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import math
import time

import numpy as np

from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution
from hopbench.solvers.contract import Param, Solver, register
from hopbench.solvers.contract.budget import Budget, Reporter
from hopbench.solvers.shortcut import _golf
from hopbench.solvers.shortcut import _lift_kernel as K
from hopbench.solvers.shortcut._greedy import Progress
from hopbench.solvers.shortcut.annealing import _next_chunk

#: the largest lift order: one uint64 word holds the voltages reached at a quotient vertex
MAX_ORDER = 64
#: the automatic order keeps at least this many quotient vertices (fewer leave too few edges to move)
MIN_QUOTIENT = 8
#: the largest quotient searched: a step costs (quotient edges x g) evaluations of m word-BFS each, about
#: m^3 d^2 g x diameter / 2 word operations (1 ms at (512, 4), m = 8; 0.6 s at m = 64)
MAX_QUOTIENT = 64


class LiftPlan:
    """The quotient of a problem at order g: the base's edge orbits (fixed) and each representative's
    free ports; ``error`` says why this order does not work (empty when it does)."""

    def __init__(self, problem: ShortcutProblem, g: int) -> None:
        n = problem.n
        self.g, self.m = g, n // g
        self.error = ""
        if g < 1 or g > MAX_ORDER or n % g:
            self.error = f"lift order {g} must divide n = {n} and be at most {MAX_ORDER}"
            return
        m = self.m
        if m > MAX_QUOTIENT:
            self.error = (f"order {g} leaves {m} representatives, more than the {MAX_QUOTIENT} a tabu step can "
                          f"afford (orders go up to {MAX_ORDER}); use annealing")
            return
        if g > 1 and not _golf._rotation_invariant(problem, g):
            self.error = f"the base is not invariant under v -> v + {m} (mod {n})"
            return
        self.fixed, halved = quotient_edges(problem.base.edges, n, g)
        if halved:
            self.error = f"the base has an edge orbit that is its own reverse at order {g}"
            return
        qdeg = np.bincount(self.fixed[:, :2].ravel(), minlength=m).astype(np.int64)
        self.free = int(problem.degree_cap) - qdeg
        if int(self.free.sum()) % 2:
            self.error = (f"the {int(self.free.sum())} free ports of one orbit of {m} vertices are an odd number; "
                          "choose an order g with (n/g) x (free ports per vertex) even")
            return
        if int(self.free.sum()) == 0:
            self.error = "no free port to connect"

    @property
    def edges(self) -> int:
        return self.fixed.shape[0] + int(self.free.sum()) // 2


def quotient_edges(edges: np.ndarray, n: int, g: int) -> tuple[np.ndarray, bool]:
    """One quotient edge (a, b, t) per orbit of ``edges`` under v -> v + n/g (the rows of a graph invariant
    under it), and True when an orbit is its own reverse (a half orbit of g/2 edges, no quotient edge)."""
    m = n // g
    e = np.asarray(edges, np.int64).reshape(-1, 2)
    a, b = e[:, 0] % m, e[:, 1] % m
    t = (e[:, 1] // m - e[:, 0] // m) % g
    # each orbit is met g times (as (a, b, t) or its reverse (b, a, -t)): keep one canonical form
    flip = (b < a) | ((a == b) & ((-t) % g < t))
    key = np.where(flip[:, None], np.stack([b, a, (-t) % g], axis=1), np.stack([a, b, t], axis=1))
    orbits = np.unique(key, axis=0)
    halved = bool(np.any((orbits[:, 0] == orbits[:, 1]) & ((2 * orbits[:, 2]) % g == 0)))
    return orbits, halved


def auto_order(problem: ShortcutProblem) -> LiftPlan:
    """The largest order g <= MAX_ORDER that leaves at least min(MIN_QUOTIENT, n) representatives and
    works (see :class:`LiftPlan`); the order-1 plan (the whole graph) when none does."""
    n = problem.n
    for g in range(min(MAX_ORDER, n // min(MIN_QUOTIENT, n)), 1, -1):
        if n % g == 0:
            plan = LiftPlan(problem, g)
            if not plan.error:
                return plan
    plan = LiftPlan(problem, 1)
    if plan.error:
        plan.error = (f"no lift order g <= {MAX_ORDER} gives a valid quotient of at most {MAX_QUOTIENT} "
                      f"representatives for {n} vertices; use annealing")
    return plan


def quotient_loops(setting: str, plan: LiftPlan, cap: int) -> bool:
    """Whether the quotient may have loops: ``setting`` on/off, or auto: only when it has at most ``cap``
    representatives (with more, a loop-free quotient exists, and loops waste ports inside one orbit)."""
    if setting == "auto":
        return plan.m <= cap
    return setting == "on"


def measure_work(m: int, cap: int) -> tuple:
    """The trailing arguments of :func:`hopbench.solvers.shortcut._lift_kernel.measure` for m representatives of
    degree at most ``cap``: the degree minus one, three m x LANES word arrays, the lane counters, the output."""
    words = m * K.LANES
    return (max(cap - 1, 0), np.zeros(words, np.uint64), np.zeros(words, np.uint64), np.zeros(words, np.uint64),
            np.zeros((4, K.LANES), np.int64), np.zeros(4, np.int64))


def lift_edges(ea: np.ndarray, eb: np.ndarray, et: np.ndarray, m: int, g: int) -> np.ndarray:
    """The (|edges| x g, 2) edge list of the lift of quotient edges (a, b, t)."""
    i = np.arange(g, dtype=np.int64)
    u = ea[:, None] + m * i[None, :]
    v = eb[:, None] + m * ((i[None, :] + et[:, None]) % g)
    return np.sort(np.stack([u.ravel(), v.ravel()], axis=1), axis=1)


@register
class LiftTabu(Solver):
    """Tabu search over the cyclic lifts of order g of a quotient multigraph (every free port used)."""

    name = "lift-tabu"
    supports_regular = True  # every free port is used
    description = ("tabu search over cyclic lifts (voltage graphs): best single-voltage change or 2-opt swap "
                   "of the quotient per step, energy far_weight x (pairs beyond the Moore diameter) + distance sum")
    params = {
        "symmetry": Param(0, "lift order g (n = m g, g <= 64): the graph is invariant under v -> v + n/g; "
                             "0 = the largest order leaving at least 8 representatives", minimum=0,
                          maximum=MAX_ORDER, tunable=False),
        "tenure": Param(4, "steps a moved edge stays tabu (plus 0-2 at random)", low=1, high=20, minimum=0,
                        maximum=10**6),
        "far_weight": Param(2.0, "energy weight of a distance beyond the Moore bound's diameter",
                            low=0.0, high=20.0, minimum=0.0, maximum=1e6),
        "swap_share": Param(0.0, "share of the steps that also scan every 2-opt swap of two quotient edges "
                                 "(0: a walk keeps its quotient; at order 1 every step scans them)",
                            low=0.0, high=1.0, minimum=0.0, maximum=1.0),
        "walk_steps": Param(600, loop=True, help="steps of one walk, from fresh random voltages on a new quotient (0: one walk)",
                            low=100, high=20000, log=True, minimum=0, maximum=10**9, also=(0,)),
        "screen": Param(16, "random quotients drawn per walk; the walk takes the one whose non-backtracking "
                            "walks reach the quotient vertices most evenly (1: the first)",
                        low=1, high=256, log=True, minimum=1, maximum=256),
        "loops": Param("auto", "quotient loops (an edge between two vertices of one orbit, v and v + j n/g): on, "
                               "off, or auto: off when the quotient has more representatives than the degree cap",
                       choices=("auto", "on", "off"), tunable=False),
        "steps": Param(200000, loop=True, help="most tabu steps of a run", minimum=1, maximum=10**12, tunable=False),
    }

    def plan(self, problem: ShortcutProblem) -> LiftPlan:
        g = int(self.config["symmetry"])
        return auto_order(problem) if g == 0 else LiftPlan(problem, g)

    def skip(self, problem: ShortcutProblem) -> tuple[bool, str]:
        skipped, reason = super().skip(problem)
        if skipped:
            return skipped, reason
        if not _golf.applies(problem):
            return True, (f"{self.name} uses every free port: it needs a budget of at least (free ports)/2 = "
                          f"{int(problem.free_ports.sum()) // 2} (the order/degree problem: empty:n, cap d, "
                          "budget n d/2)")
        plan = self.plan(problem)
        if plan.error:
            return True, f"{self.name}: {plan.error}"
        return False, ""

    def solve(self, problem: ShortcutProblem, *, seed: int, budget: Budget, report: Reporter) -> Solution:
        plan = self.plan(problem)
        if plan.error:
            raise HopbenchError(f"{self.name}: {plan.error}")
        search = LiftSearch(problem, plan, self.config, seed)
        report.count(1)
        progress = Progress(report)

        def offer() -> None:
            if search.connected:
                progress.offer(search.best_value, step=search.steps)

        offer()
        steps_left = int(self.config["steps"])
        chunk = 64
        while steps_left > 0 and not report.should_stop():
            if budget.evaluations is not None:
                chunk = min(chunk, max(budget.evaluations - report.evaluations, 1))
            t0 = time.perf_counter()
            evals, steps = search.run(chunk, steps_left)
            report.count(evals)
            steps_left -= steps
            offer()
            chunk = _next_chunk(evals, time.perf_counter() - t0, report)
        shortcuts = search.best_shortcuts()
        progress.close(search.best_value, shortcuts=len(shortcuts))
        return Solution(problem, shortcuts, extra=search.summary())


class LiftSearch:
    """One tabu run's arrays (see :func:`hopbench.solvers.shortcut._lift_kernel.run`), from a random quotient."""

    def __init__(self, problem: ShortcutProblem, plan: LiftPlan, cfg: dict, seed: int) -> None:
        self.m, self.g, n = plan.m, plan.g, problem.n
        cap = int(problem.degree_cap)
        lb_d, _ = problem.lower_bounds()
        self.far_level = (int(lb_d) if math.isfinite(lb_d) else n) + 1
        rng = np.random.default_rng(seed)
        self.rng = rng.integers(1, np.iinfo(np.uint64).max, size=4, dtype=np.uint64)
        self.seed_word = np.uint64(rng.integers(0, np.iinfo(np.uint64).max, dtype=np.uint64))
        ne = plan.edges
        self.nfixed = nfixed = plan.fixed.shape[0]
        self.free = plan.free
        self.edges = np.zeros((3, ne), np.int64)  # rows: a, b, t
        self.edges[:, :nfixed] = plan.fixed.T
        pk, pl = np.triu_indices(ne - nfixed, k=1)
        self.pairs = (pk.astype(np.int64), pl.astype(np.int64))
        self.until = np.zeros(ne, np.int64)
        self.ivars = np.zeros(K.N_IVARS, np.int64)
        self.fvars = np.zeros(K.N_FVARS, np.float64)
        self.best = self.edges.copy()
        self.work = measure_work(self.m, cap)
        self.obj = K.OBJ_CODES[problem.objective]
        self.src_lb = _golf.moore_source_sum(n, cap)
        self.wf = float(cfg["far_weight"])
        self.tenure, self.swap_share = int(cfg["tenure"]), float(cfg["swap_share"])
        self.walk_steps = int(cfg["walk_steps"])
        self.loops = quotient_loops(str(cfg["loops"]), plan, cap)
        self.screen = int(cfg["screen"])
        if not K.start(self.rng, *self.edges, nfixed, self.free, self.obj, self.m, self.g, self.loops, self.screen,
                       self.far_level, self.wf, self.src_lb, self.until, self.ivars, self.fvars, *self.best,
                       *self.work):
            hint = "" if self.loops else " or loops=on"
            raise HopbenchError(f"lift-tabu: no valid random quotient of order {self.g} found (too few "
                                f"representatives for the free ports); choose a smaller symmetry{hint}")

    def run(self, max_evals: int, max_steps: int) -> tuple[int, int]:
        """Tabu steps until ``max_steps`` steps are done or ``max_evals`` evaluations spent: (evals, steps)."""
        evals, steps = K.run(int(max_evals), int(max_steps), self.rng, self.seed_word, *self.edges, self.nfixed,
                             self.free, *self.pairs, self.obj, self.m, self.g, self.loops, self.screen,
                             self.far_level, self.wf, self.src_lb, self.tenure, self.swap_share, self.walk_steps,
                             self.until, self.ivars, self.fvars, *self.best, *self.work)
        return int(evals), int(steps)

    @property
    def connected(self) -> bool:
        return bool(self.ivars[K.I_BEST_LOST] == 0)

    @property
    def best_value(self) -> float:
        return float(self.fvars[K.F_BEST_VAL])

    @property
    def steps(self) -> int:
        return int(self.ivars[K.I_STEP])

    def best_shortcuts(self) -> np.ndarray:
        return lift_edges(*self.best[:, self.nfixed:], self.m, self.g)

    def summary(self) -> dict:
        return {"symmetry": self.g, "representatives": self.m, "steps": self.steps,
                "restarts": int(self.ivars[K.I_RESTARTS]), "best_step": int(self.ivars[K.I_BEST_STEP]),
                "quotient_loops": self.loops,
                "pairs_beyond_moore_diameter": int(self.ivars[K.I_BEST_FAR]) * self.g // 2}


__all__ = ["LiftTabu", "LiftPlan", "LiftSearch", "auto_order", "lift_edges", "measure_work", "quotient_edges",
           "quotient_loops"]
