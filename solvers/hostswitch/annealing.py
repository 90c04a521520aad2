"""``hostswitch-annealing``: simulated annealing of host-switch graphs with SWAP and SWING moves.

The method of mnakao/ORP's host-switch annealing (Nakao et al., Parallel Computing 2022), written
for hopbench: a random connected switch graph with the hosts spread evenly, then SWAP (2-opt of two
switch links) and SWING (a link end moves to a switch that hands one host over) moves, every one
scored exactly (:mod:`hopbench.solvers.hostswitch._kernel`), the h-diameter rigid and Metropolis on the
distance sum, temperature falling geometrically over the run.

**The switch count** is the solver's to choose (unless the problem fixes it).  ``switches = 0``
(the default) starts from Yasudo et al.'s estimate ``m*`` (:func:`~hopbench.harness.problems.hostswitch.bounds.
best_switch_count`); with ``switch_search`` (default on) the first ``search_share`` of the budget
anneals short runs at ``m*``, ``(1 - switch_step) m*`` and ``(1 + switch_step) m*``, and the rest
of the budget continues from the best of them.  A positive ``switches`` fixes the count.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import math
import time
from dataclasses import dataclass

import numpy as np

from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.hostswitch import bounds
from hopbench.harness.problems.hostswitch._kernel import switch_sums, workspace
from hopbench.harness.problems.hostswitch.problem import HostSwitchProblem
from hopbench.harness.problems.hostswitch.solution import HostSwitchGraph
from hopbench.solvers.contract import Param, Solver, register
from hopbench.solvers.contract.budget import Budget, Reporter
from hopbench.solvers.hostswitch import _kernel as K

#: seconds one compiled chunk of moves aims at between two budget checks
CHUNK_SECONDS = 0.05
#: random moves sampled to set the starting temperature
CALIBRATION_MOVES = 64


@dataclass
class Run:
    """One annealing state at a fixed switch count, and its best state so far."""

    problem: HostSwitchProblem
    m: int
    rng: np.ndarray
    nbr: np.ndarray
    deg: np.ndarray
    hosts: np.ndarray
    cur: np.ndarray
    best: np.ndarray
    best_nbr: np.ndarray
    best_deg: np.ndarray
    best_hosts: np.ndarray
    work: tuple
    out: np.ndarray
    stats: np.ndarray
    temp_scale: float = 1.0
    optimal: bool = False

    @classmethod
    def start(cls, problem: HostSwitchProblem, m: int, rng: np.ndarray) -> "Run":
        n, r = problem.hosts, problem.radix
        hosts = np.full(m, n // m, dtype=np.int64)
        hosts[: n % m] += 1
        nbr = np.full((m, r), -1, dtype=np.int64)
        deg = np.zeros(m, dtype=np.int64)
        if not K.random_graph(rng, hosts, r, nbr, deg):
            raise HopbenchError(f"{m} switches of radix {r} cannot hold {n} hosts connected; use at least "
                                f"{bounds.min_switches(n, r)} switches")
        work = workspace(m)
        out = np.zeros(3, np.int64)
        run = cls(problem, m, rng, nbr, deg, hosts, np.zeros(3, np.int64), np.zeros(3, np.int64), nbr.copy(),
                  deg.copy(), hosts.copy(), work, out, np.zeros(K.N_STATS, np.int64))
        run.measure_current()
        run.best[:] = run.cur
        far, s_target = run.targets()
        # one switch holds every host 2 hops apart (the bound); a start may also meet the bound
        run.optimal = m == 1 or (run.cur[K.V_R] == 0 and run.cur[K.V_FAR] <= far and run.cur[K.V_S] <= s_target)
        return run

    def measure_current(self) -> None:
        switch_sums(self.nbr, self.deg, self.hosts, *self.work, self.out)
        n = self.problem.hosts
        apart = n * n - int((self.hosts * self.hosts).sum())
        self.cur[:] = (apart - int(self.out[1]), int(self.out[2]), int(self.out[0]))

    def calibrate(self, swing_share: float, should_stop=lambda: False) -> int:
        """Set the temperature scale from random moves, 8 at a time while ``should_stop()`` says go on (a large
        graph's move costs a tenth of a second); returns the moves evaluated."""
        if self.m == 1:
            return 0
        acc = np.zeros(2)
        done = 0
        while done < CALIBRATION_MOVES and not (done and should_stop()):
            K.sample_deltas(self.rng, self.nbr, self.deg, self.hosts, self.problem.radix, swing_share, 8, *self.work,
                            self.out, int(self.cur[K.V_S]), acc)
            done += 8
        self.temp_scale = float(acc[0] / acc[1]) if acc[1] else 1.0
        return done

    def targets(self) -> tuple[int, int]:
        """The best state's (far, S) at the lower bound: reaching both proves it optimal."""
        n = self.problem.hosts
        d_lb, _ = self.problem.lower_bounds()
        return d_lb - 2, 2 * bounds.lower_bound_sum(n, self.problem.radix) - 2 * n * (n - 1)

    def anneal(self, evals: int, *, golf: bool, swing_share: float, k0: int, k_total: int, p0: float, p1: float,
               t0: float, t1: float, bounded: bool = True) -> None:
        if self.m == 1 or self.optimal:
            return
        far, s_target = self.targets()
        temp0, temp1 = max(1e-9, t0 * self.temp_scale), max(1e-12, t1 * self.temp_scale)
        self.optimal = bool(K.anneal(self.rng, self.nbr, self.deg, self.hosts, self.problem.radix, golf, swing_share,
                                     evals, k0, k_total, p0, p1, temp0, temp1, far, s_target, *self.work, self.out,
                                     self.cur, self.best, self.best_nbr, self.best_deg, self.best_hosts, self.stats,
                                     bounded))

    def best_key(self, golf: bool) -> tuple:
        r, far, s = (int(x) for x in self.best)
        return (r, far, s) if golf else (r, s)

    def best_graph(self) -> HostSwitchGraph:
        links = [(a, int(b)) for a in range(self.m) for b in self.best_nbr[a, : self.best_deg[a]] if a < b]
        return HostSwitchGraph(self.problem, self.best_hosts.copy(), np.array(links, dtype=np.int64).reshape(-1, 2))

    def best_value(self) -> float:
        r, far, s = (int(x) for x in self.best)
        if r > 0:
            return math.inf
        n = self.problem.hosts
        diameter = far + 2 if self.m > 1 else 2
        return self.problem.objective_value(diameter, (s + 2 * n * (n - 1)) / (n * (n - 1)))


def candidate_counts(problem: HostSwitchProblem, fixed: int, search: bool, step: float) -> list[int]:
    """The switch counts to try, the estimate first."""
    low, high = problem.switch_range
    if problem.switches is not None:
        return [problem.switches]
    if fixed > 0:
        if not low <= fixed <= high:
            raise HopbenchError(f"switches = {fixed} is outside {low}..{high} for {problem.name}")
        return [fixed]
    m = min(high, max(low, bounds.best_switch_count(problem.hosts, problem.radix)))
    out = [m]
    if search:
        for factor in (1.0 - step, 1.0 + step):
            c = min(high, max(low, int(round(m * factor))))
            if c not in out:
                out.append(c)
    return out


@register
class HostSwitchAnnealing(Solver):
    name = "hostswitch-annealing"
    kinds = ("hostswitch",)
    description = ("simulated annealing of host-switch graphs with SWAP and SWING moves (as mnakao/ORP), switch count "
                   "from Yasudo et al.'s estimate")
    time_bound = True
    params = {
        "switches": Param(0, "switch count (0: Yasudo et al.'s estimate, searched around with switch_search)",
                          minimum=0, tunable=False),
        "switch_search": Param(True, "anneal short runs at the estimate and +-switch_step first, keep the best"),
        "switch_step": Param(0.1, "relative step of the switch counts searched", low=0.02, high=0.3, minimum=0.0,
                             maximum=0.9),
        "search_share": Param(0.2, "share of the budget the switch-count search takes", low=0.05, high=0.5,
                              minimum=0.0, maximum=0.9),
        "swing_share": Param(0.5, "share of SWING moves (ORP draws half and half)", low=0.1, high=0.9, minimum=0.0,
                             maximum=1.0),
        "t0": Param(1.0, "starting temperature, in mean worsening of a random move", low=0.05, high=20.0, log=True,
                    minimum=1e-6),
        "t1": Param(0.002, "final temperature, same unit", low=1e-4, high=0.1, log=True, minimum=1e-9),
    }

    def warm_up(self) -> None:
        # compile every kernel outside any clock: a short warm-up run may end before its first chunk
        for objective in ("h_golf", "h_aspl"):
            run = Run.start(HostSwitchProblem(16, 3, objective=objective), 14,
                            np.array([np.uint64(7)], dtype=np.uint64))
            run.calibrate(0.5)
            run.anneal(8, golf=objective == "h_golf", swing_share=0.5, k0=0, k_total=8, p0=0.0, p1=0.0, t0=1.0,
                       t1=0.01)
            run.anneal(8, golf=objective == "h_golf", swing_share=0.5, k0=0, k_total=0, p0=0.0, p1=1.0, t0=1.0,
                       t1=0.01, bounded=False)

    def solve(self, problem: HostSwitchProblem, *, seed: int, budget: Budget, report: Reporter) -> HostSwitchGraph:
        cfg = self.config
        golf = problem.objective == "h_golf"
        rng = np.array([(int(seed) * 0x9E3779B97F4A7C15 + 12345) % 2**64], dtype=np.uint64)
        counts = candidate_counts(problem, int(cfg["switches"]), bool(cfg["switch_search"]),
                                  float(cfg["switch_step"]))
        runs = [Run.start(problem, m, rng) for m in counts]
        for run in runs:
            report.count(1 + run.calibrate(float(cfg["swing_share"]), report.should_stop))
        best_seen = math.inf

        def note(run: Run) -> None:
            nonlocal best_seen
            value = run.best_value()
            if value < best_seen:
                best_seen = value
                report(value, switches=run.m)

        for run in runs:
            note(run)
        share = float(cfg["search_share"]) if len(runs) > 1 else 0.0
        common = dict(golf=golf, swing_share=float(cfg["swing_share"]), t0=float(cfg["t0"]), t1=float(cfg["t1"]))
        # the evaluation budget (clock-free: a seed then fixes the result) or the clock sets the schedule
        total_evals = budget.evaluations
        start = report.elapsed()
        total_time = budget.time_s - start if budget.time_s is not None else None

        def phase(run: Run, lo: float, hi: float) -> None:
            """Anneal ``run`` over the budget fractions lo..hi, in chunks, until the budget says stop."""
            rate = None
            k_total = int(total_evals * (hi - lo)) if total_evals is not None else 0
            done = 0
            while not run.optimal:
                if report.should_stop():
                    return
                if total_evals is not None:
                    left = int(total_evals * hi) - report.evaluations
                    if left <= 0:
                        return
                    chunk = max(1, min(left, 64 if rate is None else int(rate * CHUNK_SECONDS) + 1))
                    p0 = p1 = 0.0
                else:
                    now = report.elapsed() - start
                    t_hi = total_time * hi if total_time is not None else math.inf
                    if now >= t_hi:
                        return
                    chunk = 1 if rate is None else max(1, int(rate * min(CHUNK_SECONDS, t_hi - now)) + 1)
                    span = total_time * (hi - lo)
                    p0 = min(1.0, (now - total_time * lo) / span)
                    p1 = min(1.0, p0 + (chunk / rate if rate else 0.0) / span)
                before = int(run.stats[K.ST_EVALS])
                t = time.perf_counter()
                run.anneal(chunk, k0=done, k_total=k_total, p0=p0, p1=p1, **common)
                made = int(run.stats[K.ST_EVALS]) - before
                elapsed = time.perf_counter() - t
                done += chunk
                report.count(max(made, 1))
                note(run)
                if not made:
                    return  # no legal move in a whole chunk of draws: a graph too small to change
                if elapsed > 0:
                    rate = made / elapsed

        if share > 0:
            for i, run in enumerate(runs):
                phase(run, share * i / len(runs), share * (i + 1) / len(runs))
            runs.sort(key=lambda r: r.best_key(golf))
            winner = runs[0]
            # go on from the winner's best graph
            winner.nbr[:], winner.deg[:], winner.hosts[:] = winner.best_nbr, winner.best_deg, winner.best_hosts
            winner.cur[:] = winner.best
        else:
            winner = runs[0]
        phase(winner, share, 1.0)
        graph = winner.best_graph()
        graph.extra = {"switches": winner.m, "candidates": counts,
                       "evaluations": int(sum(r.stats[K.ST_EVALS] for r in runs)),
                       "accepted": int(sum(r.stats[K.ST_ACCEPTED] for r in runs)),
                       "optimal": bool(winner.optimal or winner.m == 1)}
        return graph
