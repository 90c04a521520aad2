"""``simulator``: hopbench's cycle-level simulator as the solver of traffic problems.

It "solves" a :class:`~hopbench.harness.traffic.problem.TrafficProblem` by measuring it
(:func:`hopbench.harness.traffic.measure.measure`): zero-load latency, saturation throughput by bisection,
the stated load, a latency curve, the LP bound.  The seed drives the packets' arrivals only.  A
simulation has no partial answer: when the time budget ends first the run is an error saying so.
The evaluation budget is not a stopping rule here; it counts simulated load points.
"""
from __future__ import annotations

from typing import Any

from hopbench.solvers.contract.budget import Budget, Reporter
from hopbench.solvers.contract.registry import register
from hopbench.solvers.contract.solver import Param, Solver


@register
class TrafficSimulator(Solver):
    name = "simulator"
    kinds = ("traffic",)
    description = ("hopbench's cycle-level simulator (BookSim2's input-queued router and measurement): "
                   "zero-load latency, saturation throughput by bisection, a latency curve and the LP bound")
    params = {
        "curve": Param(5, "latency-curve points, at 1/curve .. 1 of the saturation throughput (0: none)",
                       minimum=0, maximum=50, tunable=False),
        "tolerance": Param(0.005, "the saturation bisection's width, flits/cycle/host", minimum=0.001,
                           maximum=0.1, tunable=False),
        "bound": Param(True, "also solve the all-paths LP bound (max concurrent flow) of the pattern",
                       tunable=False),
    }

    def solve(self, problem: Any, *, seed: int, budget: Budget, report: Reporter) -> Any:
        from hopbench.harness.traffic.measure import measure

        from hopbench.solvers.contract.limits import overrun_allowance

        # a measurement has no partial result to return at the limit: it spends most of the grace the
        # time-limit rule allows (T + max(0.5 s, 5 % of T)) before it gives up
        grace = 0.8 * overrun_allowance(budget.time_s) if budget.time_s is not None else 0.0
        has_clock = budget.time_s is not None

        def left() -> float:
            return budget.time_s + grace - report.elapsed() if has_clock else float("inf")

        result = measure(problem, seed=seed, curve=self.config["curve"], tolerance=self.config["tolerance"],
                         bound=self.config["bound"],
                         stop=(lambda: left() <= 0) if has_clock else None, remaining=left, count=report.count)
        ev = result.evaluate()
        report(ev.objective)
        return result
