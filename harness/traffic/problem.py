"""A traffic problem: one network under one traffic pattern and routing, measured by simulation.

It is what a ``traffic`` suite instance describes (see :mod:`hopbench.harness.traffic.kind`): the network
(a topology spec or a result file), the pattern, the routing, hosts per switch, the router's
parameters by BookSim's names, optional failed links, and a stated offered load at which latency is
reported.  Its objective, ``saturation``, is the saturation throughput in flits/cycle/host: the
only objective hopbench maximises.

The random parts of the *instance* (a random permutation's pairs, the failed links) are drawn from
``structure_seed``; a run's seed drives only the packets' arrivals, so every seed of a board row
measures the same network.

A :class:`TrafficResult` is a run's answer: every simulated load point, and the metrics derived
from them.  :meth:`TrafficResult.evaluate` re-derives those metrics from the points (the bisection
is replayed, so a saturation value the points do not support is refused); :func:`rerun` repeats the
whole simulation, which ``hopbench verify`` does.
"""
from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass, field
from typing import Any

from hopbench.harness.errors import HopbenchError, InvalidSolution
from hopbench.harness.problems.kind import SolverOutput, close_enough

TRAFFIC_FORMAT = "hopbench.traffic/1"
OBJECTIVES = ("saturation",)
#: the default offered loads of a problem's latency curve, as fractions of the measured saturation
DEFAULT_CURVE = 5


def is_spec(text: str) -> bool:
    """Whether ``text`` names a topology spec (``torus:8x8``) rather than a file."""
    from hopbench.harness.graphs.topologies import KINDS

    return ":" in text and text.split(":", 1)[0] in KINDS


@functools.lru_cache(maxsize=16)
def _network(text: str) -> Any:
    from hopbench.harness.problems.networks import load_network

    return load_network(text, action="simulate")


def describe_router(router: dict[str, Any]) -> dict[str, Any]:
    """The router overrides in canonical form: checked, typed as RouterConfig declares, keys sorted."""
    from hopbench.harness.traffic.simulator import router_config

    config = router_config(**router)
    return {k: getattr(config, k) for k in sorted(router)}


@dataclass
class TrafficProblem:
    """One network, pattern, routing and router, whose saturation throughput a run measures."""

    network: str
    traffic: str = "uniform"
    routing: str = "adaptive-updown"
    endpoints: str = "1"
    router: dict[str, Any] = field(default_factory=dict)
    faults: float = 0.0
    structure_seed: int = 1
    load: float | None = None
    #: where ``network`` (a file named relative to its suite) is on this machine; not part of the problem
    network_path: str | None = None
    #: packets the zero-load measurement averages over (its mean to a few tenths of a percent at 20,000)
    zero_load_packets: int = 20_000
    objective: str = "saturation"
    kind: str = "traffic"

    def __post_init__(self) -> None:
        if not isinstance(self.network, str) or not self.network.strip():
            raise HopbenchError("network must be a topology spec or a file path, e.g. \"torus:8x8\"")
        if self.objective not in OBJECTIVES:
            raise HopbenchError(f"objective {self.objective!r} is not a traffic objective; use "
                                f"{', '.join(OBJECTIVES)}")
        self.router = describe_router(dict(self.router))
        if self.load is not None and not (0 < float(self.load) <= 1):
            raise HopbenchError(f"load is an offered load in flits/cycle/host, 0 < load <= 1; got {self.load}")
        if not (100 <= int(self.zero_load_packets) <= 1_000_000):
            raise HopbenchError(f"zero_load_packets must be 100..1,000,000; got {self.zero_load_packets}")
        if not (0 <= float(self.faults) < 100):
            raise HopbenchError(f"faults is a percentage of links to remove, 0 <= faults < 100; got {self.faults}")
        self._prepared: tuple[Any, Any] | None = None

    # ------------------------------------------------------------------ the network

    @property
    def network_file(self) -> str:
        """Where the network is read from: the suite's resolved path; else the name itself (a spec, or a file
        from the current folder); else, for a relative name not found there, the shipped data file of that
        name (a result of a shipped suite verified from another folder or a wheel install)."""
        if self.network_path:
            return self.network_path
        if not is_spec(self.network) and not os.path.isfile(self.network):
            from hopbench.harness._paths import shipped_file

            shipped = shipped_file(self.network)
            if shipped is not None:
                return str(shipped)
        return self.network

    @property
    def source(self) -> Any:
        """The network as loaded (:class:`hopbench.harness.problems.networks.Network`)."""
        return _network(self.network_file)

    @property
    def switches(self) -> int:
        return int(self.source.graph.n)

    def prepared(self) -> tuple[Any, Any]:
        """``(network, spec)``: the checked simulation (:func:`hopbench.harness.traffic.study.prepare`), built once."""
        if self._prepared is None:
            from hopbench.harness.traffic.simulator import router_config
            from hopbench.harness.traffic.study import prepare

            self._prepared = prepare(self.source, pattern=self.traffic, routing=self.routing,
                                     endpoints=self.endpoints, config=router_config(**self.router),
                                     seed=self.structure_seed, faults=self.faults)
        return self._prepared

    def check_light(self) -> None:
        """Refuse what :meth:`prepared` would refuse, at the cost of the hosts and the pattern only (no
        routing table, no deadlock check): a suite checks every instance when it loads."""
        from hopbench.harness.problems.networks import endpoints_per_router
        from hopbench.harness.traffic import patterns
        from hopbench.harness.traffic.study import grid_dims, pattern_dims

        if not is_spec(self.network):
            # a file: only that it is there (reading a routing table loads the compiled routing modules,
            # which listing the suites must not); the rest is checked when a run prepares it
            from pathlib import Path

            if not Path(self.network_file).is_file():
                raise HopbenchError(f"network file {self.network!r} not found (a name is read from the suite's folder "
                                    f"or the folder above it); give a topology spec or an existing file")
            return
        net = self.source
        hosts = patterns.Hosts.build(net.graph.n, endpoints_per_router(net, self.endpoints))
        patterns.make_pattern(self.traffic, hosts, seed=self.structure_seed, dims=pattern_dims(net, hosts))
        if self.routing == "dor" and (grid_dims(net.meta.get("topology")) is None or self.faults):
            raise HopbenchError("routing dor needs a mesh or torus spec (mesh:AxB, torus:AxB) and no faults; use "
                                "updown or adaptive-updown on any other network")

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "network": self.network, "traffic": self.traffic, "routing": self.routing,
                "endpoints": self.endpoints, "router": dict(self.router), "faults": self.faults,
                "structure_seed": self.structure_seed, "load": self.load,
                "zero_load_packets": self.zero_load_packets, "objective": self.objective}

    def objective_lower_bound(self) -> float | None:
        return None


def problem_from_fields(fields: dict[str, Any]) -> TrafficProblem:
    """The problem of a suite instance table (or of a result document's ``problem``)."""
    if "network" not in fields:
        raise HopbenchError("a traffic instance needs a 'network' key, e.g. network = \"torus:8x8\"")
    endpoints = fields.get("endpoints", 1)
    return TrafficProblem(network=str(fields["network"]), traffic=str(fields.get("traffic", "uniform")),
                          routing=str(fields.get("routing", "adaptive-updown")), endpoints=str(endpoints),
                          router=dict(fields.get("router") or {}), faults=float(fields.get("faults", 0.0)),
                          structure_seed=int(fields.get("structure_seed", 1)),
                          load=None if fields.get("load") is None else float(fields["load"]),
                          zero_load_packets=int(fields.get("zero_load_packets", 20_000)),
                          network_path=fields.get("network_path"),
                          objective=str(fields.get("objective", "saturation")))


# ---------------------------------------------------------------------- results


def replay_bisection(offered: list[float], saturated: list[bool], *, high: float,
                     tolerance: float) -> float:
    """The saturation throughput a bisection's points imply (the same steps as
    :func:`hopbench.harness.traffic.simulator.saturation_throughput`); points it would not have simulated are
    refused with :class:`InvalidSolution`."""
    lo, hi = 0.0, min(1.0, float(high))
    expected = [hi]
    k = 0

    def take(load: float) -> bool:
        nonlocal k
        if k >= len(offered):
            raise InvalidSolution(f"the saturation search stops after {len(offered)} loads, before it reached "
                                  f"its tolerance {tolerance:g}")
        if not close_enough(offered[k], load):
            raise InvalidSolution(f"saturation search point {k + 1} has offered load {offered[k]!r}; the "
                                  f"bisection would simulate {load!r}")
        k += 1
        return saturated[k - 1]

    if not take(hi):
        result = hi
    else:
        while hi - lo > tolerance:
            mid = (lo + hi) / 2
            expected.append(mid)
            if take(mid):
                hi = mid
            else:
                lo = mid
        result = lo
    if k != len(offered):
        raise InvalidSolution(f"the saturation search lists {len(offered)} loads; the bisection takes {k}")
    return result


@dataclass
class TrafficEvaluation:
    """The metrics of one traffic run."""

    objective: float
    values: dict[str, Any]

    def metrics(self) -> dict[str, float]:
        """The measured metrics; one not measured (no stated load, no LP) or not finished (a stated load
        past saturation has no latency) is left out, so a board shows it blank rather than infinite."""
        return {"objective": self.objective, **{k: v for k, v in self.values.items() if v is not None}}


@dataclass(kw_only=True)
class TrafficResult(SolverOutput):
    """A run's measurements: the zero-load point, the saturation search, the latency curve, bounds."""

    problem: TrafficProblem
    zero_load: dict[str, Any]
    saturation_points: list[dict[str, Any]]
    curve: list[dict[str, Any]] = field(default_factory=list)
    at_load: dict[str, Any] | None = None
    tolerance: float = 0.005
    lp_bound: float | None = None
    lp_note: str = ""
    routing_bound: float | None = None
    engine: str = "hopbench"

    def evaluate(self) -> TrafficEvaluation:
        """Re-derive every metric from the recorded points (no simulation)."""
        points = self.saturation_points
        if not points:
            raise InvalidSolution("a traffic result needs its saturation search's points")
        for p in [self.zero_load, *points, *self.curve, *([self.at_load] if self.at_load else [])]:
            for key in ("offered", "accepted", "saturated", "status"):
                if key not in p:
                    raise InvalidSolution(f"a load point lacks {key!r}")
        saturation = replay_bisection([float(p["offered"]) for p in points], [bool(p["saturated"]) for p in points],
                                      high=1.0, tolerance=self.tolerance)
        n = len(self.curve)
        for i, p in enumerate(self.curve):
            # the curve's loads are fractions of the saturation throughput the points imply
            if not close_enough(float(p["offered"]), round(saturation * (i + 1) / n, 6)):
                raise InvalidSolution(f"latency-curve point {i + 1} has offered load {p['offered']!r}, not "
                                      f"{i + 1}/{n} of the saturation throughput {saturation!r}")
        if self.problem.load is not None and (self.at_load is None or
                                              not close_enough(float(self.at_load["offered"]), self.problem.load)):
            raise InvalidSolution(f"the problem states load {self.problem.load}; the result has no point there")
        zl = self.zero_load
        at = self.at_load
        values: dict[str, float | None] = {
            "saturation": saturation,
            "zero_load_latency": zl.get("latency_mean"),
            "zero_load_hops": zl.get("hops"),
            "latency_at_load": None if at is None else at.get("latency_mean"),
            "accepted_at_load": None if at is None else at.get("accepted"),
            "lp_bound": self.lp_bound,
            "lp_gap": (None if self.lp_bound is None or not self.lp_bound > 0
                       else (self.lp_bound - saturation) / self.lp_bound),
            "routing_bound": self.routing_bound,
            # the latency-accepted curve boards draw: zero load, then the curve's loads, (offered,
            # accepted, mean latency); a point that did not finish has no latency and is left out
            "curve": [[float(p["offered"]), float(p["accepted"]), float(p["latency_mean"])]
                      for p in [zl, *self.curve] if p.get("latency_mean") is not None],
        }
        self.evaluation = TrafficEvaluation(saturation, values)
        return self.evaluation

    def to_dict(self) -> dict[str, Any]:
        """The self-contained ``hopbench.traffic/1`` document: the problem, the run and every point."""
        from hopbench.harness import __version__

        ev = self.evaluation or self.evaluate()
        doc: dict[str, Any] = {
            "format": TRAFFIC_FORMAT, "problem": self.problem.describe(), "engine": self.engine,
            "solver": {"name": self.solver, "params": dict(self.params)}, "seed": self.seed,
            "metrics": ev.metrics(), "elapsed_s": round(float(self.elapsed_s), 6), "tolerance": self.tolerance,
            "zero_load": self.zero_load, "saturation_points": self.saturation_points, "curve": self.curve,
            "at_load": self.at_load, "lp_bound": self.lp_bound, "lp_note": self.lp_note,
            "routing_bound": self.routing_bound,
        }
        if self.extra:
            doc["extra"] = self.extra
        doc["hopbench"] = __version__
        return doc


def result_from_dict(doc: dict[str, Any]) -> TrafficResult:
    """A :class:`TrafficResult` from its document (its metrics re-derived, not read)."""
    def need(key: str, types: type | tuple) -> Any:
        if key not in doc or not isinstance(doc[key], types):
            raise InvalidSolution(f"a {TRAFFIC_FORMAT} document needs {key!r}")
        return doc[key]

    problem = problem_from_fields(need("problem", dict))
    solver = doc.get("solver") if isinstance(doc.get("solver"), dict) else {}
    result = TrafficResult(problem=problem, zero_load=need("zero_load", dict),
                           saturation_points=need("saturation_points", list), curve=need("curve", list),
                           at_load=doc.get("at_load") if isinstance(doc.get("at_load"), dict) else None,
                           tolerance=float(need("tolerance", (int, float))),
                           lp_bound=doc.get("lp_bound"), lp_note=str(doc.get("lp_note") or ""),
                           routing_bound=doc.get("routing_bound"), engine=str(doc.get("engine", "hopbench")),
                           solver=str(solver.get("name", "")), params=dict(solver.get("params") or {}),
                           seed=doc.get("seed"))
    for p in [*result.saturation_points, *result.curve]:
        if not isinstance(p, dict):
            raise InvalidSolution("every load point is a table of measurements")
    result.evaluate()
    return result


def finite_or_none(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)
