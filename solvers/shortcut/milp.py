"""Exact solutions of small shortcut problems with OR-Tools CP-SAT.

The model (:mod:`hopbench.solvers.shortcut._milp_model`): one Boolean per candidate shortcut,
budget and port constraints, and layered reachability r[s, v, k] ("d(s, v)
<= k") per pair and hop level, bounded above by the reachability
recursion, so that at an optimum the distances are exact.  Symmetry of the
base graph is broken soundly (:mod:`hopbench.solvers.shortcut._milp_symmetry`).

Objectives:

* ``aspl`` — minimise the total distance.
* ``diameter`` — the smallest feasible diameter: starting from a heuristic
  solution of diameter D, ask "is diameter D - 1 feasible?" until CP-SAT
  proves it is not (each question is a pure satisfiability model).
* ``golf`` — the smallest diameter as above, then the smallest total
  distance at that diameter (Graph Golf's order).
* ``ad`` is not linear in these variables and is skipped.

A heuristic solution (``warm_start``, by default a short ``annealing`` run)
is mapped into the symmetry-broken region by an automorphism and given to
CP-SAT as a complete hint.  Every improving incumbent goes to the reporter;
the solution's ``extra`` holds ``status`` (optimal / feasible / unknown),
``bound``, ``gap`` and how the run went.  A run that is out of time returns
its incumbent with its bound and gap.

Budgets: the time budget becomes CP-SAT's time limit (with a small margin
for building the model and evaluating the result).  Under an evaluation
budget CP-SAT runs single-threaded with a deterministic-time limit, one
evaluation = :data:`EVAL_UNIT` deterministic seconds, so a seed gives the
same answer on every run.
"""
from __future__ import annotations

import math
import os
import threading
from typing import Any

import numpy as np

from hopbench.harness.engine.distances import summary
from hopbench.harness.errors import SolverDeclined
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution
from hopbench.solvers.contract import Param, Solver, register
from hopbench.solvers.contract.budget import Budget, Reporter
from hopbench.solvers.shortcut._milp_model import OutOfTime, ShortcutModel, build, size_estimate
from hopbench.solvers.shortcut._milp_symmetry import symmetry as base_symmetry

#: deterministic CP-SAT seconds counted as one evaluation
EVAL_UNIT = 0.01
#: seconds CP-SAT may take to load a model before it honours its time limit: a constant plus a
#: share per Boolean (measured about 3.4 us per Boolean with both cores busy)
STARTUP_S = 0.2
STARTUP_S_PER_BOOLEAN = 4e-6
#: shortest search worth starting CP-SAT for (s)
MIN_SEARCH_S = 0.1


class _Incumbent:
    """The best solution so far; every strict improvement goes to the reporter."""

    def __init__(self, problem: ShortcutProblem, report: Reporter) -> None:
        self.problem = problem
        self.report = report
        self.shortcuts = np.empty((0, 2), np.int64)
        self.value = math.inf
        self.diameter = math.inf
        self.total = math.inf
        self.first_from_solver: float | None = None

    def offer(self, shortcuts: np.ndarray, source: str) -> bool:
        ev = self.problem.evaluate(shortcuts)
        if source == "cp-sat" and self.first_from_solver is None:
            self.first_from_solver = ev.objective
        better = ev.objective < self.value or (ev.objective == self.value and ev.total_distance < self.total)
        if not better:
            return False
        improved = ev.objective < self.value
        self.shortcuts = np.asarray(shortcuts, np.int64).reshape(-1, 2)
        self.value, self.diameter, self.total = ev.objective, ev.diameter, ev.total_distance
        if improved:
            self.report(ev.objective, source=source)
        return True


def _solution_callback(sm: ShortcutModel, incumbent: _Incumbent, report: Reporter):
    from ortools.sat.python import cp_model

    class _Callback(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.solutions = 0

        def on_solution_callback(self) -> None:
            self.solutions += 1
            incumbent.offer(sm.shortcuts(self.BooleanValue), "cp-sat")
            if report.should_stop():
                self.StopSearch()

    return _Callback()


@register
class Milp(Solver):
    """Exact CP-SAT model for small shortcut problems (see the module docstring)."""

    name = "milp"
    description = ("exact model (OR-Tools CP-SAT): a Boolean per candidate shortcut, layered reachability "
                   "distances, sound symmetry breaking; proves optima of small aspl/golf/diameter problems "
                   "and reports status, bound and gap")
    supports_regular = True
    params = {
        "warm_start": Param("annealing", "heuristic solution hinted to CP-SAT",
                            choices=("annealing", "edgecut-full", "none"), tunable=False),
        "warm_share": Param(0.05, "largest share of the budget the warm start may use", minimum=0.0, maximum=0.5,
                            tunable=False),
        "warm_max_s": Param(2.0, "largest time (s) the warm start may use", minimum=0.0, tunable=False),
        "warm_moves": Param(20_000, loop=True, help="largest number of moves (annealing) or evaluations the warm start may use",
                            minimum=1, tunable=False),
        "workers": Param(8, "CP-SAT search workers (0 = the CPUs this process may use); its portfolio needs about "
                            "8 to be diverse and proves these models faster with 8 than with 2, even on 2 cores",
                         minimum=0, tunable=False),
        "symmetry": Param(True, "break the base graph's symmetry (sound: keeps an optimum)", tunable=False),
        "max_terms": Param(3_000_000, "largest model built (Boolean terms); larger problems are skipped",
                           minimum=1, tunable=False),
    }

    def skip(self, problem: Any) -> tuple[bool, str]:
        skipped, reason = super().skip(problem)
        if skipped:
            return skipped, reason
        if problem.objective == "ad":
            return True, "ASPL x diameter is not linear in the model's variables; use aspl, golf or diameter"
        n = problem.n
        if n * (n - 1) // 2 > self.config["max_terms"]:  # cheap check first: never list the pairs of a huge graph
            return True, (f"{n} vertices: the model would have more than max_terms={self.config['max_terms']:,} "
                          "Boolean terms; raise max_terms to try anyway")
        if not summary(problem.base).connected:
            return True, "the distance model needs a connected base graph"
        terms = size_estimate(problem)
        if terms > self.config["max_terms"]:
            return True, (f"the model would have about {terms:,} Boolean terms, above max_terms="
                          f"{self.config['max_terms']:,}; raise max_terms to try anyway")
        return False, ""

    # ------------------------------------------------------------------ helpers

    def _workers(self) -> int:
        w = int(self.config["workers"])
        if w > 0:
            return w
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # pragma: no cover - not Linux
            return max(1, os.cpu_count() or 1)

    def _warm_start(self, problem: ShortcutProblem, seed: int, budget: Budget,
                    report: Reporter) -> np.ndarray | None:
        kind = self.config["warm_start"]
        if kind == "none" or problem.budget == 0:
            return None
        from hopbench import solvers
        from hopbench.solvers.contract.execution import execute

        share = float(self.config["warm_share"])
        if budget.evaluations is not None:
            sub = Budget(evaluations=max(1, int(share * max(budget.evaluations - report.evaluations, 1))))
        else:
            seconds = float(self.config["warm_max_s"])
            if budget.time_s is not None:
                seconds = min(seconds, share * report.remaining_time())
            # a move count ends the warm start early on tiny problems (where 2 s would dominate the run)
            sub = Budget(time_s=max(seconds, 1e-3), evaluations=int(self.config["warm_moves"]))
        solver = solvers.create("annealing") if kind == "annealing" else solvers.create("edgecut-full", t=0)
        try:
            outcome = execute(solver, problem, seed=seed, budget=sub)
        except SolverDeclined:
            return None  # e.g. a regular problem: CP-SAT starts without a hint
        report.count(outcome.evaluations)
        return problem.validate(outcome.solution.shortcuts)

    # ------------------------------------------------------------------ solve

    def solve(self, problem: ShortcutProblem, *, seed: int, budget: Budget, report: Reporter) -> Solution:
        from ortools.sat.python import cp_model

        n = problem.n
        pairs = n * (n - 1) // 2
        deterministic = budget.evaluations is not None
        deadline = None
        if budget.time_s is not None:
            margin = min(5.0, 0.03 * budget.time_s) + 0.2
            deadline = report.elapsed() + max(report.remaining_time() - margin, 0.05)
        incumbent = _Incumbent(problem, report)

        def seconds_left() -> float | None:
            return None if deadline is None else deadline - report.elapsed()

        def out_of_time() -> bool:
            left = seconds_left()
            return left is not None and left <= 0.01

        # on the wall clock only: under an evaluation budget every step finishes, so a seed keeps its answer
        should_stop = None if deterministic else out_of_time
        heuristic = self._warm_start(problem, seed, budget, report)
        if heuristic is not None:
            incumbent.offer(heuristic, "warm start")
        elif not problem.regular:
            incumbent.offer(np.empty((0, 2), np.int64), "warm start")  # the base itself is a solution
        hint_value = incumbent.value
        sym = base_symmetry(problem.base, should_stop=should_stop) if self.config["symmetry"] else None
        info: dict[str, Any] = {"hint_objective": hint_value, "symmetry_group": None if sym is None else sym.order,
                                "phases": []}


        def make(label: str, **kwargs: Any) -> ShortcutModel | None:
            """Build a model, or None when the time ran out while building it."""
            try:
                return build(problem, symmetry=sym, should_stop=should_stop, **kwargs)
            except OutOfTime:
                info["phases"].append({"phase": label, "status": "out of time while building the model",
                                       "solutions": 0, "bound": None})
                return None

        def run(sm: ShortcutModel, label: str) -> tuple[str, float | None]:
            """Solve one model; returns (CP-SAT status name, objective bound or None)."""
            if math.isfinite(incumbent.value):  # before the clock is read: hinting a large model takes time
                hint = incumbent.shortcuts
                if sym is not None and sm.symmetry_used:
                    hint = sym.canonical(hint, sm.base_dist)
                sm.hint(hint)
            left = seconds_left()
            booleans = len(sm.x) + len(sm.r) + len(sm.z)
            # CP-SAT needs time to load a model before it looks at its clock (about 0.65 s for 200k
            # Booleans on a busy core): starting it without that much left would overrun the limit
            startup = STARTUP_S + STARTUP_S_PER_BOOLEAN * booleans
            if left is not None and not deterministic and left <= startup + MIN_SEARCH_S:
                info["phases"].append({"phase": label, "status": "no time left to start CP-SAT", "solutions": 0,
                                       "bound": None, "booleans": booleans})
                return "UNKNOWN", None
            if deterministic and report.should_stop():
                return "UNKNOWN", None
            solver = cp_model.CpSolver()
            prm = solver.parameters
            prm.random_seed = int(seed) % (2**31 - 1)
            prm.num_workers = 1 if deterministic else self._workers()
            search_s = None
            if left is not None:
                # the loading time comes on top of CP-SAT's own limit (0.6-0.9 s past a 1 s limit for
                # 190k Booleans with both cores busy): the search gets what is left after it
                search_s = max(left - startup, 0.01) if not deterministic else max(left, 0.01)
                prm.max_time_in_seconds = search_s
            if deterministic:
                units = max(budget.evaluations - report.evaluations, 1)
                prm.max_deterministic_time = units * EVAL_UNIT
            callback = _solution_callback(sm, incumbent, report)
            # CP-SAT honours its time limit loosely when its workers share busy cores: stop it at the deadline
            watchdog = threading.Timer(search_s, solver.StopSearch) if search_s is not None else None
            if watchdog is not None:
                watchdog.daemon = True
                watchdog.start()
            try:
                status = solver.Solve(sm.model, callback)
            finally:
                if watchdog is not None:
                    watchdog.cancel()
            name = solver.StatusName(status)
            report.count(max(1, math.ceil(solver.response_proto.deterministic_time / EVAL_UNIT)))
            bound = None
            if sm.model.HasObjective() and name in ("OPTIMAL", "FEASIBLE", "UNKNOWN"):
                bound = float(solver.BestObjectiveBound())
            # no timings in `extra`: a seeded run under an evaluation budget must give the same document twice
            info["phases"].append({"phase": label, "status": name.lower(), "solutions": callback.solutions,
                                   "bound": bound, "booleans": booleans})
            return name, bound

        weak_total = 2 * pairs - min(pairs, problem.base.m + problem.budget)  # non-adjacent pairs are >= 2 apart
        if problem.objective == "aspl":
            sm = make("total distance")
            name, bound = run(sm, "total distance") if sm is not None else ("UNKNOWN", None)
            total_lb = max(weak_total, math.ceil(bound - 1e-6) if bound is not None else 0)
            if name == "OPTIMAL":
                total_lb = max(total_lb, int(incumbent.total))
            bound_value = max(total_lb / pairs if pairs else 0.0, problem.lower_bounds()[1])
            proven = name == "OPTIMAL"
        else:
            d_lb = max(1 if n > 1 else 0, math.ceil(problem.lower_bounds()[0] - 1e-9))
            if not math.isfinite(incumbent.value):
                sm = make("a first solution", minimise_total=False)
                if sm is not None:
                    run(sm, "a first solution")
            proven_diameter = incumbent.diameter <= d_lb
            while not proven_diameter and math.isfinite(incumbent.value):
                target = int(incumbent.diameter) - 1
                sm = make(f"diameter <= {target}", diameter_limit=target, minimise_total=False)
                if sm is None:
                    break
                if sm.infeasible:
                    name = "INFEASIBLE"
                    info["phases"].append({"phase": f"diameter <= {target}", "status": "infeasible",
                                           "solutions": 0, "bound": None})
                else:
                    name, _ = run(sm, f"diameter <= {target}")
                if name == "INFEASIBLE":
                    d_lb = target + 1
                    proven_diameter = True
                elif name not in ("OPTIMAL", "FEASIBLE") or incumbent.diameter > target:
                    break  # out of time (or the solution was not better: never loop)
                proven_diameter = proven_diameter or incumbent.diameter <= d_lb
            diameter = int(incumbent.diameter) if math.isfinite(incumbent.diameter) else d_lb
            if problem.objective == "diameter":
                proven = proven_diameter
                bound_value = float(diameter if proven else d_lb)
            else:
                total_lb = weak_total
                phase2 = "UNKNOWN"
                if proven_diameter:
                    label = f"total distance at diameter {diameter}"
                    sm = make(label, diameter_limit=diameter)
                    phase2, bound = ("UNKNOWN", None) if sm is None else run(sm, label)
                    if bound is not None:
                        total_lb = max(total_lb, math.ceil(bound - 1e-6))
                    if phase2 == "OPTIMAL":
                        total_lb = max(total_lb, int(incumbent.total))
                proven = proven_diameter and phase2 == "OPTIMAL"
                d = diameter if proven_diameter else d_lb
                bound_value = d + min(total_lb / pairs, d) / (d + 1.0) if pairs else 0.0
        value = incumbent.value
        bound_value = min(bound_value, value)
        status = "optimal" if proven else ("feasible" if math.isfinite(value) else "unknown")
        gap = 0.0 if proven else ((value - bound_value) / abs(value) if math.isfinite(value) and value else math.inf)
        if proven:
            bound_value = value
        info.update(status=status, bound=bound_value, gap=gap, first_incumbent=incumbent.first_from_solver)
        return Solution(problem, incumbent.shortcuts, extra=info)


__all__ = ["EVAL_UNIT", "Milp"]
