"""Simulated annealing over the shortcut set.

The EdgeCut paper (Fuad et al. 2022) compares against an SA it never
specifies; its authors' code recomputes all-pairs shortest paths for every
step, returns its final state rather than the best one, and never removes
some shortcuts on meshes and tori.  This is the SA a careful practitioner
would write:

* **State**: the shortcut set (at most ``budget`` shortcuts, every degree
  within the cap).  While the budget has room, the move is an addition of a
  random feasible shortcut (never worse, so always accepted); afterwards
  the set keeps its size.
* **Moves** on a shortcut a--b: *relocate* (remove it, add a random feasible
  non-edge), *endpoint* (move one end to a neighbour of that end), *swap*
  (exchange ends with another shortcut: a--b, u--v -> a--u, b--v; degrees do
  not change, so this still moves when every port is taken).  The mix is
  ``p_endpoint`` / ``p_swap`` / the rest relocations (two shares adding up to
  more than 1 are scaled down to add up to 1); a move that is impossible
  falls back on the next kind.
* **Exact evaluation, incrementally**: each move is scored exactly (total
  distance, diameter, unreachable pairs) as one edge addition on the
  distance matrix of the graph *without* the moved shortcut.  That removal
  matrix comes from :func:`hopbench.harness.engine.dynamic.remove_edge_repair`
  (only the rows and entries that can change are recomputed; faster than
  rerunning the bit-parallel engine on the affected sources, see
  ``tests/benchmarks/bench_annealing.py``), is cached per shortcut, and stays
  valid until the state changes — and for the moved shortcut even after
  its move is accepted.  Proposals come in blocks of ``block`` moves of the
  same shortcut, so one removal serves a whole block.
* **Schedule**: T(t) = T0 (T1/T0)^(t/budget), with T0 = ``t0`` x E* and
  T1 = ``t1`` x E*, where E* is the best energy so far (the temperatures are
  relative to the objective's scale, so one setting fits ASPL 2 and ASPL 60);
  t/budget is the elapsed share of the evaluation budget if there is one (so
  a seeded run is reproducible), else of the time budget, else of ``moves``.
  Metropolis acceptance.  ``restarts`` splits the schedule into equal legs,
  each restarting hot from the best state.
* **Objectives**: aspl, golf and ad anneal their own value; ``diameter``
  anneals diameter + (pairs at the diameter)/(pairs + 1), which orders like
  the diameter and breaks its plateaus.  Disconnected states count an
  unreachable pair as n hops (and come after every connected state).
* **Returns the best state seen**, never merely the last one.
* ``channel-load`` (the throughput objective): every move is scored from scratch by the busiest channel
  under uniform traffic and minimal routing; relocations and swaps on a set filled to the budget
  (:mod:`hopbench.solvers.shortcut._load_annealing`).
* ``init``: ``empty``, ``random`` (random feasible shortcuts up to the
  budget) or another solver's solution, e.g. ``edgecut-full`` or
  ``edgecut-full:t=0`` (which gets ``init_share`` of the budget).

**Swap mode** (``swaps=auto``, the default, when the budget can fill every free port and
``init`` is empty or random — graph golf's order/degree problem is ``empty:n``, cap d, budget
n d / 2): the state is a random near-regular graph (every port taken; one left when their
number is odd) made connected by swaps, and the move is the degree-preserving 2-opt swap of two
shortcuts' endpoints, (a, b), (c, d) -> (a, d), (b, c), scored by an exact bit-parallel BFS
(:mod:`hopbench.solvers.shortcut._golf`, :mod:`hopbench.solvers.shortcut._golf_kernel`, which state the rules):
unreachable pairs first, the diameter rigid for golf and diameter (as ODP's SA), then
Metropolis on the total distance, with the uniform draw made *before* the BFS so that it stops
as soon as the move can be neither accepted nor a new best.  Temperatures are absolute, in
pair-distance units: ``swap_t0`` (0: ODP's calibration, the largest rise over 100 greedy moves /
ln 2) down to ``swap_t1`` (ODP's 0.217), geometric over the budget.  ``symmetry=g`` anneals
graphs invariant under v -> v + n/g (swaps act on orbits of g edges; BFS from the n/g sources of
one orbit, the rest by symmetry); ``symmetry=0``, the default, picks small orbits automatically,
which on the graph golf instances anneals much better (see :data:`hopbench.solvers.shortcut._golf.AUTO_ORBITS_PER_BIT`).
From degree cap 16 up, where n is within 9/8 of an Erdős–Rényi polarity graph's order (q^2 + q + 1
at q = cap - 1, or q^2 - 1 at q = cap with one closed neighbourhood cut out; q a prime power), the
first graph is that graph extended by edge splitting (``swap_start``, :mod:`hopbench.solvers.shortcut._polarity`),
and the schedule polishes it from ``swap_t1`` instead of melting it: on (1024, 32) that gives 2.0005
against 2.20 from a random start (best known 1.998).  Where neither applies but a plane of degree
q + 1 <= cap - 1 has at least 4/5 of n vertices, the extra vertices are grown onto its polar lines
(the ``grown`` base): (1560, 40) starts at 2.0428 and (3250, 57) at 2.0762 (best known 2.038 / 2.070).
Above 1,024 vertices, where n has no symmetry of at most 64 representatives but n + v (v <= 8) has
(Graph Golf's (4855, 15) and (1726, 30)), ``overbuild=auto`` anneals that symmetric graph on n + v
vertices for 80 % of the run, deletes v vertices, pairs their orphaned neighbours, mends the pairs
pushed past its diameter and polishes the result as it does the polarity start (ODP's ``-g`` / ``-v``;
:mod:`hopbench.solvers.shortcut._overbuild`).
Up to 64 vertices, where the symmetry saves no BFS work, a symmetric run ends with a *polish leg*
without it: the best symmetric graph, annealed on by unrestricted 2-opt swaps from :data:`POLISH_T0`
down to ``swap_t1`` for the last :data:`POLISH_SHARE` of the run (small dense graphs take orbits of 8
vertices for it; on the graph golf board (64, 8) went from 1.9666 to 1.9277, best known 1.927).
``swap_restart=random`` makes the ``restarts`` legs independent: each starts from a new random
graph (same symmetry) and the best graph of all legs is returned; with small symmetric orbits,
where a run settles within seconds, ten fresh legs beat one long schedule at 120 s (measured in
docs/graphgolf.md), so the default ``auto`` runs :data:`AUTO_FRESH_LEGS` of them whenever the graph
has rotational symmetry and the degree cap is below :data:`FRESH_LEGS_MAX_CAP` (and reheats the best
state otherwise).
A run stops early when its best graph meets the problem's lower bound (the Moore bound and
Cerf et al.'s ASPL bound): that graph is optimal (``extra["lower_bound_reached"]``).

Why a full BFS per swap rather than the incremental kernel above: on this problem almost every
pair's distance can change, and the removal repair works on dense n x n matrices.  Measured by
``tests/benchmarks/bench_golf_eval.py`` (greedy swaps from a random regular graph, moves per CPU
second on this project's shared 2-core machine; incremental kernel / one full BFS per move), one
full bit-parallel BFS beats the incremental kernel at every size measured, 2x to 8x, so there is
no crossover to switch at: d = 4: n = 16 334k / 868k, 64 53k / 444k, 256 5.9k / 33k, 1024 838 /
3.8k; d = 8: n = 16 285k / 628k, 64 95k / 200k, 256 9.8k / 51k, 1024 1.6k / 3.2k.  The swap
evaluation also keeps every BFS level of the current graph and recomputes, level by level, only
the rows a swap can change while they are few (1024 / 4: 4.4k moves/s; 256 / 8: 67k), and the
annealer's early exit cuts most rejected moves short.
"""
from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from hopbench.harness.engine.distances import (_pair_histogram, dense_matrix_refusal, dense_state_seconds_estimate,
                                      distance_dtype, distance_matrix, summary)
from hopbench.harness.engine.dynamic import padded_adjacency, workspace
from hopbench.harness.errors import HopbenchError, SolverDeclined
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution
from hopbench.solvers.contract import Param, Solver, register
from hopbench.solvers.contract.budget import Budget, Reporter
from hopbench.solvers.shortcut import _annealing_kernel as K
from hopbench.solvers.shortcut import _golf, _overbuild, _polarity
from hopbench.solvers.shortcut.feasible import FeasiblePairs

#: evaluations per kernel call when the schedule follows an evaluation count (fixed, so runs are reproducible)
EVAL_CHUNK = 1024
#: wall time one kernel call aims at under a time budget (seconds): the budget is polled between calls
TIME_SLICE = 0.02
#: greedy moves that calibrate the swap mode's start temperature (ODP's SA uses 100)
CALIBRATION_MOVES = 100
#: swap_start=auto takes the polarity start from this degree cap up.  Measured at 120 s, seeds 1-2:
#: (1024, 32) from it 2.00045 (best known 1.998), from a random graph 2.20 at every orbit size; but
#: (64, 8) from it 1.9623 / 1.9643 annealed hot, 1.989 / 1.992 polished cold (30 s), from a random
#: graph 1.9646: at low degree swaps find as good graphs, and the cut plane is a poor basin
POLARITY_MIN_AUTO_CAP = 16
#: swap_restart=auto with symmetric orbits and restarts=0: the schedule runs this many fresh legs.
#: Measured at 120 s, seed 1-3 means for 5 / 10 / 20 legs: (1024, 4) 5.47124 / 5.46391 / 5.46424,
#: (512, 8) 3.14367 / 3.14106 / 3.13960; one leg 5.49951 and 3.14351 (docs/graphgolf.md)
AUTO_FRESH_LEGS = 10
#: swap_restart=auto runs fresh legs only below this degree cap.  One 300 s run per pair, the two
#: graph golf boards (one schedule at 319395c, ten legs at f1ba13b): from degree 20 up one schedule
#: ended better on all six symmetric pairs, (4896, 24) 4.5818 / 4.5821, (10000, 20) 4.6779 / 4.6783,
#: (1344, 30) 3.5955 / 3.5981, (1726, 30), (1560, 40) and (3250, 57) by 0.2-0.4 %: at high degree a
#: move costs more and a 30 s leg does not settle; below degree 12 the legs won or tied
FRESH_LEGS_MAX_CAP = 16
#: the polish leg (see _polishes): the share of the run given to the final leg without symmetry, and its start
#: temperature (pair-distance units, cooling to swap_t1).  Measured on (64, 8) (prototype, one core):
#: ten symmetric legs (m = 8) then a polish from 1.0 ended at 113 / 117 pairs at distance 3 (best
#: known 109); polishing from 0.3 / 2.0 ended higher (seeds 1-4 means 118 / 133 against 111 at 1.0)
POLISH_SHARE = 0.4
POLISH_T0 = 1.0


def _swap_legs(swap_restart: str, restarts: int, symmetry: int, cap: int) -> tuple[bool, int]:
    """(fresh legs?, number of legs) of a swap-mode schedule.  With small symmetric orbits a leg
    settles within seconds and its end depends mostly on the basin it falls into, so ``auto`` runs
    independent legs there; without symmetry (measured on (64, 8) and (64, 4) unsymmetric) or from degree cap
    :data:`FRESH_LEGS_MAX_CAP` up one long schedule does better."""
    auto_fresh = swap_restart == "auto" and symmetry > 1 and cap < FRESH_LEGS_MAX_CAP
    if auto_fresh and restarts == 0:
        return True, AUTO_FRESH_LEGS
    return swap_restart == "random" or auto_fresh, restarts + 1


def parse_init(text: str) -> tuple[str, dict[str, str]]:
    """``"name"`` or ``"name:k=v,k=v"`` -> (name, params)."""
    name, _, rest = text.partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise HopbenchError(f"init {text!r}: write solver parameters as name:key=value,key=value")
        params[key.strip()] = value.strip()
    return name.strip(), params


class _State:
    """The arrays :func:`hopbench.solvers.shortcut._annealing_kernel.run_moves` works on."""

    def __init__(self, problem: ShortcutProblem, shortcuts: np.ndarray, buffers: int) -> None:
        base = problem.base
        n = base.n
        s = summary(base)
        # every state contains the base, so no distance ever exceeds the base's (n - 1 if disconnected)
        self.bound = int(s.max_finite) if s.connected else max(n - 1, 1)
        self.dtype = distance_dtype(max(self.bound, 1))
        self.inf = int(np.iinfo(self.dtype).max)
        self.cap = int(problem.degree_cap)
        self.budget = int(problem.budget)
        self.pool = np.zeros((buffers, n, n), self.dtype)
        self.hpool = np.zeros((buffers, self.bound + 2), np.int64)
        self.sc = np.zeros((max(self.budget, 1), 2), np.int64)
        self.best_sc = np.zeros_like(self.sc)
        self.slot_buf = np.full(max(self.budget, 1), -1, np.int64)
        self.buf_slot = np.full(buffers, -1, np.int64)
        self.free = np.full(buffers, -1, np.int64)
        self.ivars = np.zeros(K.N_IVARS, np.int64)
        self.fvars = np.zeros(K.N_FVARS, np.float64)
        self.stats = np.zeros(K.N_STATS, np.int64)
        self.ws = workspace(n)
        self.dh = np.zeros(self.bound + 2, np.int64)
        self.problem = problem
        self.load(shortcuts)

    def load(self, shortcuts: np.ndarray) -> None:
        """Make ``shortcuts`` the current (and best) state; drop every cached matrix."""
        p = self.problem
        sc = np.asarray(shortcuts, np.int64).reshape(-1, 2)
        g = p.graph_with(sc)
        self.nbr, self.nbc = padded_adjacency(g, self.cap)
        self.adj = np.zeros((g.n, g.n), np.uint8)
        if g.m:
            self.adj[g.edges[:, 0], g.edges[:, 1]] = 1
            self.adj[g.edges[:, 1], g.edges[:, 0]] = 1
        self.open_list = np.zeros(g.n, np.int64)
        self.open_pos = np.full(g.n, -1, np.int64)
        opened = np.flatnonzero(self.nbc < self.cap)
        self.open_list[:opened.size] = opened
        self.open_pos[opened] = np.arange(opened.size)
        k = sc.shape[0]
        self.sc[:k] = sc
        self.best_sc[:k] = sc
        D = distance_matrix(g, dtype=self.dtype)
        self.pool[0] = D
        self.hpool[0] = _pair_histogram(D, self.inf, self.bound + 1)
        self.slot_buf[:] = -1
        self.buf_slot[:] = -1
        self.free[:] = -1
        self.free[:self.pool.shape[0] - 1] = np.arange(1, self.pool.shape[0])
        e, q = K._hist_energy(K.OBJ_CODES[p.objective], g.n, self.hpool[0])
        self.ivars[:] = 0
        self.ivars[K.I_K] = k
        self.ivars[K.I_BEST_K] = k
        self.ivars[K.I_CUR] = 0
        self.ivars[K.I_OPEN] = opened.size
        self.ivars[K.I_CAN_ADD] = 1
        self.ivars[K.I_BEST_Q] = q
        self.ivars[K.I_CUR_Q] = q
        self.fvars[K.F_CUR_E] = e
        self.fvars[K.F_BEST_E] = e

    def run(self, evals: int, cfg: dict[str, Any], frac0: float, dfrac: float, rng: np.ndarray) -> int:
        return int(K.run_moves(
            int(evals), K.OBJ_CODES[self.problem.objective], self.cap, self.budget, self.inf, int(cfg["block"]),
            float(cfg["p_endpoint"]), float(cfg["p_swap"]), float(cfg["t0"]), float(cfg["t1"]), float(frac0),
            float(dfrac), 1e-12, self.nbr, self.nbc, self.adj, self.sc, self.best_sc, self.open_list,
            self.open_pos, self.pool, self.hpool, self.slot_buf, self.buf_slot, self.free, self.ivars,
            self.fvars, self.stats, rng, self.ws, self.dh))

    @property
    def best(self) -> tuple[int, float]:
        return int(self.ivars[K.I_BEST_Q]), float(self.fvars[K.F_BEST_E])

    def best_shortcuts(self) -> np.ndarray:
        return self.best_sc[:self.ivars[K.I_BEST_K]].copy()


def _matrix_buffers(problem: ShortcutProblem, cache_mb: int) -> int:
    """Distance matrices the shortcut moves cache: what ``cache_mb`` holds, at least 4."""
    n = problem.n
    itemsize = np.dtype(distance_dtype(n)).itemsize
    return int(min(problem.budget + 3, max(4, cache_mb * 2**20 // max(n * n * itemsize, 1))))


def _shortcut_moves_refusal(problem: ShortcutProblem, cache_mb: int) -> str:
    """Why the shortcut moves' dense matrices (the cached ones and a byte adjacency matrix) do not fit; ''."""
    return dense_matrix_refusal(problem.n, _matrix_buffers(problem, cache_mb) + 0.5,
                                "use a budget that fills every free port (swap mode), random or random-matching "
                                "for graphs this large")


def _objective_of(objective: str, q: int, energy: float) -> float:
    """The problem's objective from the kernel's energy (exact: same formula as hopbench.harness.problems.shortcut.problem)."""
    if q > 0:
        return math.inf
    return float(math.floor(energy)) if objective == "diameter" else energy


@register
class Annealing(Solver):
    """Simulated annealing with exact incremental move evaluation (see the module docstring)."""

    name = "annealing"
    opt_in_objectives = ("channel-load",)
    time_bound = True  # it searches until its budget ends
    description = ("simulated annealing over the shortcut set: relocate / move-one-end / swap moves scored "
                   "exactly through cached removal matrices, geometric time-budgeted schedule, best state returned")
    params = {
        "t0": Param(3e-3, "start temperature as a fraction of the best energy so far", low=1e-5, high=1e-1,
                    log=True, minimum=1e-12),
        "t1": Param(1e-5, "final temperature as a fraction of the best energy so far", low=1e-7, high=1e-2,
                    log=True, minimum=1e-15),
        "p_endpoint": Param(0.3, "share of moves that move one end of a shortcut to a neighbour of that end "
                                 "(with p_swap: scaled down together when they add up to more than 1)",
                            low=0.0, high=1.0, minimum=0.0, maximum=1.0),
        "p_swap": Param(0.0, "share of moves that exchange ends of two shortcuts (degree-neutral)",
                        low=0.0, high=0.5, minimum=0.0, maximum=1.0),
        "block": Param(16, "consecutive proposals for the same shortcut (one removal matrix serves them)",
                       low=1, high=256, log=True, minimum=1),
        "restarts": Param(0, loop=True, help="reheats: the schedule runs restarts+1 times, each from the best state",
                          low=0, high=8, minimum=0),
        "init": Param("empty", "start from: empty, random, or a solver's solution (e.g. edgecut-full, "
                               "edgecut-full:t=0)", tunable=False),
        "init_share": Param(0.25, "largest share of the budget an init solver may use", minimum=0.0, maximum=1.0,
                            tunable=False),
        "moves": Param(200_000, loop=True, help="schedule length in moves when the run has neither a time nor an evaluation budget",
                       minimum=1, tunable=False),
        "cache_mb": Param(512, "memory for cached removal matrices (MB)", minimum=1, tunable=False),
        # ---- swap mode (the budget fills every port: graph golf's order/degree problem)
        "swaps": Param("auto", "auto: when the budget can fill every free port (and init is empty or random), "
                               "anneal a random near-regular graph with degree-preserving 2-opt swaps scored by a "
                               "full bit-parallel BFS; off: always the shortcut-set moves", choices=("auto", "off"),
                       tunable=False),
        "symmetry": Param(0, "swap mode: g-fold rotational symmetry (v -> v + n/g): n divisible by g, the base "
                             "invariant; evaluation cost / g.  0 (default): automatic (small orbits: the smallest "
                             "m = n/g >= 4 with m x cap / 2 >= 1.25 log2(n) edge orbits and m (cap - 1) >= 20; none "
                             "when n has no such m, or n <= 64 with a Moore diameter below 5); 1: none", minimum=0, tunable=False),
        "swap_start": Param("auto", "swap mode: the first graph.  random: a random fill of every port; polarity: the "
                                    "Erdos-Renyi polarity graph of PG(2, q) (q = cap - 1 a prime power, q^2 + q + 1 "
                                    "vertices; or q = cap without one point's closed neighbourhood, q^2 - 1), extended "
                                    "by edge splitting (an empty base, n within 9/8 of that order; no symmetry); else "
                                    "the plane of the largest prime power q <= cap - 2 with extra vertices joined to "
                                    "points of its lines (n within 5/4 of its order); "
                                    "polished from swap_t1 rather than melted at ODP's start temperature; auto: "
                                    "polarity where it applies, cap >= 16 and symmetry is 0 or 1, else random",
                            choices=("auto", "random", "polarity"), tunable=False),
        "swap_t0": Param(0.0, "swap mode: start temperature in pair-distance units (0: swap_t1 from a polarity "
                              "start, else calibrated like ODP's SA, "
                              "the largest rise over 100 greedy moves / ln 2)", minimum=0.0, tunable=False),
        "swap_t1": Param(0.217, "swap mode: final temperature in pair-distance units (0.217 = 2 / ln 1e4: a "
                                "one-pair, one-hop rise accepted 1 time in 100; ODP's value)",
                         low=0.02, high=2.0, log=True, minimum=1e-6),
        "swap_restart": Param("auto", "swap mode: where each leg after the first (see restarts) starts.  best: the "
                                      "best state, reheated; random: a new random graph (a fresh fill; independent "
                                      "legs, the best of all returned); auto: random when the graph has rotational "
                                      "symmetry and the degree cap is below 16 (then restarts=0 means 10 legs), "
                                      "else best",
                              choices=("auto", "best", "random"), tunable=False),
        "overbuild": Param("auto", "swap mode: auto: above 1,024 vertices on an empty base, where n has no rotational "
                                   "symmetry of at most 64 representatives but n + v (v <= 8) has, anneal that "
                                   "symmetric graph on n + v vertices for 80 % of the run, delete v vertices, pair "
                                   "their orphaned neighbours and polish the result without symmetry (ODP's -g/-v; "
                                   "(4855, 15) and (1726, 30)); off: never",
                           choices=("auto", "off"), tunable=False),
        "diameter_weight": Param(0.0, "swap mode, golf: extra energy per pair at the current diameter while it is "
                                      "above the Moore bound (0: the diameter only by the lexicographic rule)",
                                 low=0.0, high=4.0, minimum=0.0),
    }

    # ------------------------------------------------------------------ init

    def _initial(self, problem: ShortcutProblem, seed: int, rng: np.random.Generator, budget: Budget,
                 report: Reporter) -> np.ndarray:
        init = str(self.config["init"]).strip()
        if init == "empty" or problem.budget == 0:
            return np.empty((0, 2), np.int64)
        if init == "random":
            pairs = FeasiblePairs(problem.base, problem.degree_cap)
            chosen = []
            while len(chosen) < problem.budget:
                pick = pairs.draw(1, rng)
                if pick.shape[0] == 0:
                    break
                u, v = map(int, pick[0])
                pairs.add(u, v)
                chosen.append((u, v))
            return np.asarray(chosen, np.int64).reshape(-1, 2)
        from hopbench import solvers
        from hopbench.solvers.contract.execution import execute

        name, params = parse_init(init)
        if name == self.name:
            raise HopbenchError("init=annealing would start annealing from annealing; name another solver")
        solver = solvers.create(name, **params)
        share = float(self.config["init_share"])
        sub = Budget(
            time_s=None if budget.time_s is None else max(1e-3, share * report.remaining_time()),
            evaluations=None if budget.evaluations is None
            else max(1, int(share * max(budget.evaluations - report.evaluations, 1))))
        try:
            outcome = execute(solver, problem, seed=seed, budget=sub)
        except SolverDeclined as exc:
            raise HopbenchError(f"init solver {name} cannot solve this problem: {exc.reason}") from None
        report.count(outcome.evaluations)
        return problem.validate(outcome.solution.shortcuts)

    # ------------------------------------------------------------------ solve

    def _swap_mode(self, problem: ShortcutProblem) -> bool:
        """True when the run anneals a full graph with degree-preserving swaps (no dense matrices)."""
        return (self.config["swaps"] == "auto" and str(self.config["init"]).strip() in ("empty", "random")
                and _golf.applies(problem))

    def skip(self, problem: ShortcutProblem) -> tuple[bool, str]:
        skipped, reason = super().skip(problem)
        if skipped or self._swap_mode(problem) or problem.objective == "channel-load":
            return skipped, reason
        why = _shortcut_moves_refusal(problem, int(self.config["cache_mb"]))
        return bool(why), why

    def solve(self, problem: ShortcutProblem, *, seed: int, budget: Budget, report: Reporter) -> Solution:
        cfg = dict(self.config)
        share = cfg["p_endpoint"] + cfg["p_swap"]
        if share > 1.0:
            # the two shares are a mix: past 1 they are scaled to add up to 1 (no relocations), so
            # every point of the search space (where each is drawn on its own) is a valid setting
            cfg["p_endpoint"], cfg["p_swap"] = cfg["p_endpoint"] / share, cfg["p_swap"] / share
        rng = np.random.default_rng(seed)
        if problem.objective == "channel-load":
            from hopbench.solvers.shortcut._load_annealing import anneal_channel_load

            start = self._initial(problem, seed, rng, budget, report)
            return anneal_channel_load(problem, start, cfg, rng, budget, report, _schedule_clock)
        if self._swap_mode(problem):
            solution = self._solve_swaps(problem, cfg, rng, budget, report)
            if solution is not None:
                return solution
        elif int(cfg["symmetry"]) > 1:
            raise HopbenchError("symmetry applies to swap mode only: a budget that fills every free port, "
                                "swaps=auto and init empty or random")
        why = _shortcut_moves_refusal(problem, int(cfg["cache_mb"]))
        if why:  # (reached when swap mode's random fill got stuck, which skip cannot foresee)
            raise HopbenchError(f"annealing's shortcut moves: {why}")
        start = self._initial(problem, seed, rng, budget, report)
        if report.remaining_time() < dense_state_seconds_estimate(problem.n, 1.4):  # (and its adjacency matrix)
            return Solution(problem, start, extra={"stopped": "time limit before the distance matrix", "moves": 0})
        kernel_rng = rng.integers(1, np.iinfo(np.uint64).max, size=4, dtype=np.uint64)
        state = _State(problem, start, _matrix_buffers(problem, int(cfg["cache_mb"])))
        objective = problem.objective
        best_value = _objective_of(objective, *state.best)
        report(best_value, moves=0, shortcuts=int(start.shape[0]))
        legs = int(cfg["restarts"]) + 1
        mode, horizon = _schedule_clock(budget, report, int(cfg["moves"]))
        t_start = report.elapsed()
        done_total = 0
        leg = 0
        chunk = 1  # one move first: on ring:10000 one addition takes 0.06 s, and 64 of them overran 2 s by 2 s
        while not report.should_stop() and problem.budget > 0:
            if mode == "time":
                frac = (report.elapsed() - t_start) / horizon
            else:
                frac = done_total / horizon
            if frac >= 1.0:
                break
            this_leg = min(int(frac * legs), legs - 1)
            if this_leg > leg:
                leg = this_leg
                state.load(state.best_shortcuts())  # reheat from the best state
            local = frac * legs - leg
            if mode == "time":
                want, dfrac = chunk, 0.0
            else:
                to_leg_end = math.ceil((leg + 1) * horizon / legs) - done_total
                want = max(1, min(EVAL_CHUNK, to_leg_end, horizon - done_total))
                if budget.evaluations is not None:
                    want = max(1, min(want, budget.evaluations - report.evaluations))
                dfrac = legs / horizon
            t0 = time.perf_counter()
            done = state.run(want, cfg, local, dfrac, kernel_rng)
            spent = time.perf_counter() - t0
            done_total += done
            report.count(done)
            value = _objective_of(objective, *state.best)
            if value < best_value:
                best_value = value
                report(value, moves=done_total)
            if done < want:
                break  # no feasible move is left (or nothing to move)
            if mode == "time" and spent > 0:
                chunk = _next_chunk(done, spent, report)
        stats = dict(zip(("moves", "accepted", "improved", "removals", "failed", "additions", "relocations",
                          "endpoint_moves", "swaps"), map(int, state.stats)))
        stats["final_objective"] = _objective_of(objective, int(state.ivars[K.I_CUR_Q]), float(state.fvars[K.F_CUR_E]))
        # no timings here: a seeded run under an evaluation budget must give the same document twice
        return Solution(problem, state.best_shortcuts(), extra=stats)

    # ------------------------------------------------------------------ swap mode

    def _solve_swaps(self, problem: ShortcutProblem, cfg: dict[str, Any], rng: np.random.Generator,
                     budget: Budget, report: Reporter) -> Solution | None:
        """Anneal a random near-regular graph with 2-opt swaps (:mod:`hopbench.solvers.shortcut._golf`);
        None when no random fill of every port was found (the caller falls back on shortcut moves)."""
        start = _polarity_start(problem, cfg, rng, report)
        start_kind = "random" if start is None else "polarity"
        overbuilt: dict[str, Any] = {}
        target = (_overbuild.plan(problem) if start is None and int(cfg["symmetry"]) == 0
                  and cfg["overbuild"] == "auto" and report.remaining_time() >= _overbuild.MIN_SECONDS else None)
        if target is not None:
            edges, overbuilt = _overbuild.overbuilt_start(problem, target, self._symmetric_stage(target[1]), rng,
                                                          budget, report)
            if edges is not None:
                start, start_kind = _golf.neighbour_table(problem, edges), "overbuild"
        g = 1 if start is not None else _golf.symmetry_for(problem, int(cfg["symmetry"]))
        kernel_rng = rng.integers(1, np.iinfo(np.uint64).max, size=4, dtype=np.uint64)
        weight = float(cfg["diameter_weight"])
        try:
            state = _golf.SwapState(problem, g, kernel_rng, diameter_weight=weight, start=start)
        except _golf.FillFailed:
            if g == 1:
                return None
            if int(cfg["symmetry"]) != 0:
                raise HopbenchError(f"symmetry={g}: no random symmetric graph filling every port was found; "
                                    "try another symmetry") from None
            # the automatic choice is only a speed-up: without a symmetric fill, anneal without symmetry
            g = 1
            try:
                state = _golf.SwapState(problem, g, kernel_rng, diameter_weight=weight)
            except _golf.FillFailed:
                return None
        fresh_legs, legs = _swap_legs(str(cfg["swap_restart"]), int(cfg["restarts"]), g,
                                       int(problem.degree_cap))
        kept = None  # fresh legs: the best graph of the legs already ended (each leg is a new SwapState)
        fresh_started = 1  # legs begun from a fresh graph
        carried = np.zeros_like(state.stats)  # fresh legs: the move counters of the legs already ended
        objective = problem.objective
        best_value = _objective_of(objective, *state.best)
        report(best_value, moves=0, shortcuts=int(state.deg.sum() - problem.base.degree.sum()) // 2)
        # a graph that meets the problem's lower bound is optimal: nothing is left to search for
        # (graph golf's small pairs, e.g. (16, 3) and (72, 4), meet it)
        bound = problem.objective_lower_bound()

        def optimal() -> bool:  # (an infinite bound: no connected graph exists, nothing is optimal)
            return math.isfinite(bound) and best_value <= bound + 1e-9 * max(1.0, abs(bound))
        done_total = 0

        def counted(k: int) -> None:
            nonlocal done_total, best_value
            done_total += k
            report.count(k)
            value = _objective_of(objective, *state.best)
            if value < best_value:
                best_value = value
                report(value, moves=done_total)

        def allowance() -> int:
            return budget.evaluations - report.evaluations if budget.evaluations is not None else 1 << 62

        # the start temperature: ODP's calibration (greedy moves, the largest rise / ln 2)
        t1 = float(cfg["swap_t1"])
        t0 = float(cfg["swap_t0"])
        if t0 <= 0.0 and start is not None:
            # a constructed start is polished, not melted: ODP's calibration (334 on (1024, 32)) would
            # randomise it at once, and a random 32-regular graph is 10 % worse than the polarity one
            # (an over-built start has been annealed already)
            t0 = t1
        if t0 <= 0.0:
            # one move per call: the run stops at the very move that meets the lower bound, so a seed
            # gives the same run on an idle and a busy machine (clock-sized calls ran on past it by as
            # many moves as the clock allowed); a hundred calls cost under a millisecond more
            left = min(CALIBRATION_MOVES, allowance())
            while left > 0 and not report.should_stop() and not optimal():
                k = state.run(1, 0.0, 0.0, 0.0, 0.0, kernel_rng, calibrate=True)
                counted(k)
                left -= 1
                if k == 0:
                    break
            t0 = max(float(state.fvars[_golf.G.F_MAXDIFF]) / math.log(2.0), t1)
        t0 = max(t0, t1)
        mode, horizon = _schedule_clock(budget, report, int(cfg["moves"]))
        polish_share = POLISH_SHARE if _polishes(g, problem.n) else 0.0
        span = horizon * (1.0 - polish_share)  # the symmetric legs' part of the schedule
        polish_from = None  # the objective the polish leg started from
        t_start = report.elapsed()
        run_total = 0
        leg = 0
        chunk = 1
        while not report.should_stop() and not optimal():
            frac = (report.elapsed() - t_start) / horizon if mode == "time" else run_total / horizon
            if frac >= 1.0:
                break
            if polish_share and polish_from is None and frac * horizon >= span:
                # the polish leg: the best symmetric graph, annealed on without symmetry
                kept = _keep_better(state, kept)
                polish_from = _objective_of(objective, *kept[0])
                carried += state.stats
                edges = _golf.orbit_edges(state.n, state.g, kept[1], kept[2])
                state = _golf.SwapState(problem, 1, kernel_rng, diameter_weight=weight,
                                        start=_golf.neighbour_table(problem, edges))
                chunk = 1
            if polish_from is not None:
                hot = max(POLISH_T0, t1)
                local = (frac * horizon - span) / (horizon - span)
                leg_end = stage_end = horizon
                per_eval = 1.0 / (horizon - span)
            else:
                frac = frac * horizon / span
                this_leg = min(int(frac * legs), legs - 1)
                if this_leg > leg:
                    leg = this_leg
                    if fresh_legs:
                        kept = _keep_better(state, kept)
                        try:
                            fresh = _golf.SwapState(problem, g, kernel_rng, diameter_weight=weight)
                            carried += state.stats
                            state = fresh
                            fresh_started += 1
                        except _golf.FillFailed:
                            state.reload_best()  # no new fill was found: this leg reheats instead
                    else:
                        state.reload_best()
                hot = t0
                local = frac * legs - leg
                leg_end, stage_end = math.ceil((leg + 1) * span / legs), math.ceil(span)
                per_eval = legs / span
            if mode == "time":
                want, dfrac = chunk, 0.0
            else:
                want = max(1, min(EVAL_CHUNK, leg_end - run_total, stage_end - run_total, allowance()))
                dfrac = per_eval
            began = time.perf_counter()
            done = state.run(want, hot, t1, local, dfrac, kernel_rng)
            run_total += done
            counted(done)
            if done < want:
                break  # no valid swap can be drawn (a tiny or complete graph)
            if mode == "time":
                chunk = _next_chunk(done, time.perf_counter() - began, report)
        names = ("moves", "accepted", "improved", "early_exits", "too_long", "invalid_draws", "rotations")
        stats = dict(zip(names, map(int, state.stats + carried)))
        if polish_from is not None:
            stats.update(polish_share=polish_share, polish_from=polish_from)
        stats.update(overbuilt)
        stats.update(mode="swaps", symmetry=g, start=start_kind,
                     start_temperature=round(t0, 6),
                     final_objective=_objective_of(objective, *state.current), lower_bound_reached=optimal(),
                     # legs begun (a short leg can be skipped over entirely)
                     legs=fresh_started if fresh_legs else leg + 1, leg_start="random" if fresh_legs else "best")
        # (a polish leg began from the best symmetric graph: its own best is at least as good)
        if fresh_legs and polish_from is None:
            _, slots, radj = _keep_better(state, kept)
            return Solution(problem, _golf.orbit_edges(state.n, state.g, slots, radj), extra=stats)
        return Solution(problem, state.best_shortcuts(), extra=stats)


    def _symmetric_stage(self, g: int):
        """The over-build's first stage (:mod:`hopbench.solvers.shortcut._overbuild`): this solver's swap mode with
        symmetry ``g`` and no over-build, as a function of (problem, seed, budget, reporter)."""
        config = {**self.config, "symmetry": g, "overbuild": "off"}

        def stage(problem: ShortcutProblem, seed: int, budget: Budget, report: Reporter) -> Solution:
            return type(self)(**config).solve(problem, seed=seed, budget=budget, report=report)
        return stage


def _polishes(g: int, n: int) -> bool:
    """Whether a swap-mode run with symmetry ``g`` on ``n`` vertices ends with a polish leg without
    symmetry: up to AUTO_SMALL_N vertices, where one word holds every BFS source, so the symmetry
    shapes the search without saving work.  (Not a parameter: a board's cells are keyed by every
    parameter, and the leg changes nothing above that size.  symmetry=1 runs without either.)"""
    return g > 1 and n <= _golf.AUTO_SMALL_N


def _polarity_start(problem: ShortcutProblem, cfg: dict[str, Any], rng: np.random.Generator,
                    report: Reporter) -> np.ndarray | None:
    """The swap mode's algebraic first graph (:mod:`hopbench.solvers.shortcut._polarity`) when ``swap_start``
    asks for it or (auto) it applies; None for a random fill (also when the time budget runs out
    while the graph is built)."""
    kind = str(cfg["swap_start"])
    if kind == "random":
        return None
    n, cap = problem.n, int(problem.degree_cap)
    q = _polarity.plan(n, cap) if problem.base.m == 0 else None
    symmetry = int(cfg["symmetry"])
    if kind == "polarity":
        if not q:
            raise HopbenchError(f"swap_start=polarity needs an empty base and n within 9/8 of q^2 + q + 1 (q = cap - 1) "
                                f"or of q^2 - 1 (q = cap), or within 5/4 of q^2 + q + 1 (q <= cap - 2), q a prime "
                                f"power; n = {n}, cap = {cap} is none of these (use swap_start=random)")
        if symmetry > 1:
            raise HopbenchError("swap_start=polarity has no rotational symmetry; use symmetry=0 or 1 with it")
    elif not q or symmetry > 1 or cap < POLARITY_MIN_AUTO_CAP:
        return None
    return _polarity.polarity_start(n, cap, rng, report.should_stop)


def _next_chunk(done: int, spent: float, report: Reporter) -> int:
    """Evaluations for the next kernel call: about TIME_SLICE seconds, never past the time budget."""
    if spent <= 0:
        return max(1, done * 2)
    rate = done / spent
    return int(max(1, min(rate * TIME_SLICE, rate * report.remaining_time() + 1, 1_000_000)))


__all__ = ["Annealing", "parse_init"]


def _keep_better(state: "_golf.SwapState", kept: tuple | None) -> tuple:
    """The better of a kept best graph and ``state``'s best (a :meth:`~hopbench.solvers.shortcut._golf.SwapState.best_snapshot`),
    ranked by (unreachable pairs, energy) as the kernel ranks states; ties keep the earlier one."""
    if kept is None or state.best < kept[0]:
        return state.best_snapshot()
    return kept


def _schedule_clock(budget: Budget, report: Reporter, moves: int) -> tuple[str, float]:
    """The annealing schedule's clock and its horizon: evaluations if counted (reproducible), else
    time, else ``moves``."""
    if budget.evaluations is not None:
        return "evals", max(budget.evaluations - report.evaluations, 1)
    if budget.time_s is not None:
        return "time", max(report.remaining_time(), 1e-9)
    return "moves", moves
