"""What one traffic run measures, in one place: the ``simulator`` solver runs it, ``verify`` re-runs it.

:func:`measure` simulates a :class:`~hopbench.harness.traffic.problem.TrafficProblem` with one seed:
the zero-load latency, the saturation throughput by bisection, the problem's stated load, a
latency curve at fractions of the saturation throughput, and (on request) the all-paths LP bound
and the routing's channel-load bound.  Every number is counted in cycles, so the same seed gives
the same result on any machine under any load; a run that its ``stop`` callback ends has no result
(:class:`RunOutOfTime`).
"""
from __future__ import annotations

import math
from typing import Any, Callable

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError
from hopbench.harness.traffic.problem import TrafficProblem, TrafficResult


class RunOutOfTime(HopbenchError):
    """The time budget ended before the measurement did (a simulation has no partial answer)."""


def _point(p: Any) -> dict[str, Any]:
    d = p.as_dict()
    d.pop("wall_s", None)  # the only number that depends on the machine
    return d


def throughput_bound(problem: TrafficProblem, *, time_limit: float | None = None,
                     backend: str = "auto") -> tuple[float | None, str]:
    """The all-paths bound (max concurrent flow, capped by the busiest host's ejection link) of the
    problem's pattern on its (possibly faulty) network, with a note when it was not computed."""
    from hopbench.harness.traffic import bounds
    from hopbench.harness.traffic.study import ejection_bound

    sim, _spec = problem.prepared()
    demand = sim.pattern.demand_matrix(sim.hosts, sim.graph.n)
    variables, _ = bounds.lp_size(sim.graph, demand)
    if variables > caps.LP_VARIABLES.limit():
        return None, (f"not computed: the LP would have {variables:,} variables, above the cap of "
                      f"{caps.LP_VARIABLES.limit():,} ({caps.LP_VARIABLES.env})")
    flow = bounds.max_concurrent_flow(sim.graph, demand, backend=backend, time_limit=time_limit)
    if flow.status == "time_limit":
        raise RunOutOfTime("the time limit ended while the LP bound was being solved; give a longer time limit "
                           "or run with bound=false")
    if flow.status != "optimal" or not (flow.lam == flow.lam):
        return None, f"not computed: the LP ended {flow.status} ({flow.solver})"
    # the note names the LP solver, never its time: the same seed must give the same document
    return min(float(flow.lam), ejection_bound(sim.pattern)), f"max concurrent flow, {flow.solver}"


def routing_bound(problem: TrafficProblem) -> float:
    """1 / the busiest channel's load under the problem's routing (its paths split as it splits them)."""
    from hopbench.harness.traffic import bounds

    from hopbench.harness.traffic.study import ejection_bound

    sim, _spec = problem.prepared()
    demand = sim.pattern.demand_matrix(sim.hosts, sim.graph.n)
    # the host links bound every routing alike (as they cap the LP bound)
    return min(float(bounds.channel_load_bound(sim.routing, sim.graph, demand)), ejection_bound(sim.pattern))


def measure(problem: TrafficProblem, *, seed: int, curve: int = 5, tolerance: float = 0.005, bound: bool = True,
            stop: Callable[[], bool] | None = None, remaining: Callable[[], float] | None = None,
            count: Callable[[int], None] | None = None) -> TrafficResult:
    """Simulate ``problem`` with ``seed`` (see the module docstring).

    ``stop`` is polled between sample periods; ``remaining`` (seconds left) bounds the LP;
    ``count`` is told of every simulated load point (a solver's evaluation count).
    """
    from hopbench.harness.traffic.simulator import (
        SimulationStopped,
        saturation_throughput,
        simulate_load,
        zero_load_latency,
    )

    if not (0 <= int(curve) <= 50):
        raise HopbenchError(f"curve is a number of latency-curve points, 0..50; got {curve}")
    if not (0 < float(tolerance) <= 0.5):
        raise HopbenchError(f"tolerance is the bisection's width in flits/cycle/host, 0 < tolerance <= 0.5; "
                            f"got {tolerance}")
    sim, _spec = problem.prepared()

    def counted(p: Any) -> dict[str, Any]:
        if count is not None:
            count(1)
        return _point(p)

    try:
        lp_bound, lp_note = None, "not asked (bound=false)"
        if bound:
            left = remaining() if remaining is not None else math.inf
            if left <= 0:
                raise SimulationStopped
            lp_bound, lp_note = throughput_bound(problem, time_limit=None if math.isinf(left) else left)
        zero = counted(zero_load_latency(sim, seed=seed, packets=problem.zero_load_packets, stop=stop))
        sat = saturation_throughput(sim, seed=seed, tolerance=tolerance, stop=stop,
                                    progress=lambda p: count(1) if count is not None else None)
        points = [_point(p) for p in sat.points]
        at_load = None
        if problem.load is not None:
            at_load = counted(simulate_load(sim, float(problem.load), seed=seed, stop=stop))
        loads = [round(sat.throughput * (i + 1) / curve, 6) for i in range(curve)] if sat.throughput > 0 else []
        line = [counted(simulate_load(sim, x, seed=seed, stop=stop)) for x in loads if x > 0]
    except SimulationStopped:
        raise RunOutOfTime("the time limit ended before the simulation did (a simulation has no partial "
                           "result); give a longer time limit") from None
    return TrafficResult(problem=problem, zero_load=zero, saturation_points=points, curve=line, at_load=at_load,
                         tolerance=float(tolerance), lp_bound=lp_bound, lp_note=lp_note,
                         routing_bound=routing_bound(problem))


def rerun(doc: dict[str, Any]) -> TrafficResult:
    """The run a ``hopbench.traffic/1`` document describes, simulated again with its seed and parameters."""
    from hopbench.harness.traffic.problem import result_from_dict

    recorded = result_from_dict(doc)
    params = recorded.params
    seed = recorded.seed
    if not isinstance(seed, int):
        raise HopbenchError("the document has no integer seed; it cannot be re-run")
    return measure(recorded.problem, seed=seed, curve=int(params.get("curve", len(recorded.curve))),
                   tolerance=recorded.tolerance, bound=bool(params.get("bound", recorded.lp_bound is not None)))
