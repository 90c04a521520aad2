"""A simulation as a user describes it: network, hosts, pattern, routing, router, loads.

:func:`prepare` turns those words into a checked :class:`~hopbench.harness.traffic.simulator.Network`
(refusing an unsound routing before anything runs, unless deadlock itself is the study);
:func:`run_study` simulates a load sweep and, on request, the zero-load latency and the saturation
throughput; :func:`study_document` is the JSON document ``hopbench simulate --json`` writes.
"""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.traffic.simulator import LoadPoint, Network, RouterConfig, Saturation

SIMULATION_FORMAT = "hopbench.simulation/1"
ROUTINGS = ("updown", "adaptive-updown", "dor", "adaptive-dor", "hop-vc", "ugal", "bgal", "minimal", "table")
#: at most this many load points in one sweep
MAX_LOADS = 200
_GRID = re.compile(r"(torus|mesh):(\d+(?:x\d+)*)")
_CUBE = re.compile(r"f?hypercube:(\d+)")


def parse_loads(text: str) -> list[float]:
    """``A:B:STEP`` (inclusive of B when it falls on the grid), ``A,B,C`` or one number; flits/cycle/host."""
    s = str(text).strip()
    try:
        if ":" in s:
            parts = [float(x) for x in s.split(":")]
            if len(parts) != 3:
                raise ValueError
            a, b, step = parts
            if not all(math.isfinite(x) for x in parts) or step <= 0 or b < a:
                raise HopbenchError(f"--loads {text!r}: write A:B:STEP with 0 < A <= B <= 1 and STEP > 0, "
                                    f"e.g. 0.05:0.5:0.05")
            count = int(math.floor((b - a) / step + 1e-9)) + 1
            if count > MAX_LOADS:
                raise HopbenchError(f"--loads {text!r} has {count} points, above the cap of {MAX_LOADS}; "
                                    f"use a larger STEP")
            loads = [round(a + i * step, 10) for i in range(count)]
        else:
            loads = [float(x) for x in s.split(",") if x.strip()]
            if len(loads) > MAX_LOADS:
                raise HopbenchError(f"--loads lists {len(loads)} points, above the cap of {MAX_LOADS}")
    except HopbenchError:
        raise
    except ValueError:
        raise HopbenchError(f"--loads {text!r} is not a load list; write A:B:STEP (e.g. 0.05:0.5:0.05) or "
                            f"A,B,C, in flits/cycle/host") from None
    if not loads:
        raise HopbenchError("--loads is empty; give e.g. 0.05:0.5:0.05")
    for x in loads:
        if not (0 < x <= 1) or not math.isfinite(x):
            raise HopbenchError(f"--loads: every load must be in (0, 1] flits/cycle/host, got {x}")
    return loads


def grid_dims(text: str | None) -> tuple[tuple[int, ...], bool] | None:
    """``(dims, is_torus)`` of a ``torus:AxB`` / ``mesh:AxB`` spec, else None."""
    if not text:
        return None
    m = _GRID.fullmatch(str(text).strip())
    if not m:
        return None
    return tuple(int(x) for x in m.group(2).split("x")), m.group(1) == "torus"


def escape_mesh(text: str | None) -> tuple[int, ...] | None:
    """The mesh whose dimension order ``adaptive-dor`` escapes along: a mesh's own, a hypercube's or a
    folded hypercube's 2x2x...x2 (its hypercube links); None for other networks."""
    if not text:
        return None
    m = _CUBE.fullmatch(str(text).strip())
    if m:
        return (2,) * int(m.group(1))
    grid = grid_dims(text)
    return grid[0] if grid is not None and not grid[1] else None


def pattern_dims(network: Any, hosts: Any) -> tuple[int, ...]:
    """The radices tornado and neighbor traffic use: a mesh's or torus's own (one host per switch), else
    one ring of all hosts (BookSim's k = hosts, n = 1)."""
    grid = grid_dims(network.meta.get("topology"))
    if grid is not None and int(hosts.count) == network.graph.n:
        return grid[0]
    return (int(hosts.count),)


def remove_links(graph: Graph, percent: float, seed: int) -> tuple[Graph, np.ndarray]:
    """The graph less ``percent`` % of its links (rounded to the nearest link), chosen by ``seed``."""
    if not (0 <= percent < 100) or not math.isfinite(percent):
        raise HopbenchError(f"--faults is a percentage of links to remove, 0 <= x < 100; got {percent}")
    k = int(round(graph.m * percent / 100.0))
    rng = np.random.default_rng(seed)
    drop = np.sort(rng.choice(graph.m, size=k, replace=False)) if k else np.zeros(0, dtype=np.int64)
    keep = np.ones(graph.m, dtype=bool)
    keep[drop] = False
    return Graph(graph.n, graph.edges[keep]), graph.edges[drop]


def is_connected(graph: Graph) -> bool:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    indptr, indices = graph.csr
    a = csr_matrix((np.ones(len(indices), dtype=np.int8), indices, indptr), shape=(graph.n, graph.n))
    return connected_components(a, directed=False)[0] == 1


@dataclass
class StudySpec:
    """Everything that defines a simulation, as recorded in its document (re-runnable from it)."""

    source: str
    switches: int
    links: int
    hosts: int
    endpoints: str
    pattern: str
    routing: str
    seed: int
    faults: float = 0.0
    removed_links: list[list[int]] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    routing_meta: dict[str, Any] = field(default_factory=dict)
    deadlock_check: str = ""
    allow_deadlock: bool = False


def prepare(network: Any, *, pattern: str, routing: str, endpoints: str | int | None = None,
            config: RouterConfig | None = None, seed: int = 1, faults: float = 0.0,
            allow_deadlock: bool = False, pattern_params: dict | None = None) -> tuple[Network, StudySpec]:
    """A checked simulation of ``network`` (a :class:`hopbench.harness.problems.networks.Network`)."""
    from hopbench.harness.problems.networks import endpoints_per_router
    from hopbench.harness.traffic import patterns
    from hopbench.harness.traffic.routing import build_routing

    config = config or RouterConfig()
    config.check()
    graph = network.graph
    removed = np.zeros((0, 2), dtype=np.int64)
    if faults:
        graph, removed = remove_links(graph, faults, seed)
        if not is_connected(graph):
            raise HopbenchError(f"removing {faults:g} % of the links ({len(removed)} of {network.graph.m}, seed "
                                f"{seed}) disconnects the network; no routing can reach every host (try another "
                                f"--seed or fewer faults)")
    elif graph.n > 1 and not is_connected(graph):
        raise HopbenchError(f"{network.source}: the network is disconnected; every host must reach every other")
    per_switch = endpoints_per_router(network, endpoints)
    hosts = patterns.Hosts.build(graph.n, per_switch)
    source = str(network.meta.get("topology") or network.source)
    grid = grid_dims(network.meta.get("topology"))
    if routing not in ROUTINGS:
        raise HopbenchError(f"unknown routing {routing!r}; choose one of {', '.join(ROUTINGS)}")
    if routing == "dor":
        if grid is None or faults:
            raise HopbenchError("--routing dor needs a mesh or torus given as --topology mesh:AxB or torus:AxB "
                                "(without --faults); use updown or adaptive-updown on any other network")
    if routing == "table" and network.routes is None:
        raise HopbenchError("--routing table needs a routing-table file written by 'hopbench route'")
    dims = grid[0] if grid else None
    if routing == "adaptive-dor":
        dims = escape_mesh(network.meta.get("topology"))
        if dims is None or faults:
            raise HopbenchError("--routing adaptive-dor needs a mesh, hypercube or folded hypercube given as a spec "
                                "(mesh:AxB, hypercube:n, fhypercube:n) and no --faults; use adaptive-updown on any "
                                "other network")
    pat = patterns.make_pattern(pattern, hosts, seed=seed, dims=pattern_dims(network, hosts), params=pattern_params)
    sim_routing = build_routing(routing, graph, num_vcs=config.num_vcs, dims=dims,
                                torus=grid[1] if grid else None,
                                table=network.routes if routing == "table" else None)
    # every builder ran the channel-dependency check (hopbench.harness.traffic.deadlock) on what it built
    reason = str(sim_routing.meta.get("deadlock_check", ""))
    if not sim_routing.deadlock_free and not allow_deadlock:
        raise HopbenchError(f"routing {routing} with {config.num_vcs} VC(s) can deadlock on this network "
                            f"({reason}); choose --routing updown or adaptive-updown, or pass "
                            f"--allow-deadlock to study deadlock itself")
    net = Network(graph, hosts, sim_routing, pat, config)
    spec = StudySpec(source=source, switches=graph.n, links=graph.m, hosts=int(hosts.count),
                     endpoints=str(endpoints if endpoints is not None else 1), pattern=pattern, routing=routing,
                     seed=int(seed), faults=float(faults), removed_links=removed.tolist(), config=asdict(config),
                     routing_meta=dict(getattr(sim_routing, "meta", {}) or {}),
                     deadlock_check="deadlock-free" if sim_routing.deadlock_free else f"can deadlock: {reason}",
                     allow_deadlock=allow_deadlock)
    return net, spec


@dataclass
class StudyResult:
    spec: StudySpec
    points: list[LoadPoint]
    zero_load: LoadPoint | None = None
    saturation: Saturation | None = None


def run_study(net: Network, spec: StudySpec, loads: list[float], *, zero_load: bool = False,
              saturation: bool = False, progress: Callable[[str, LoadPoint | None], None] | None = None) -> StudyResult:
    """Simulate every load, and the zero-load latency / saturation throughput when asked."""
    from hopbench.harness.traffic.simulator import saturation_throughput, simulate_load, zero_load_latency

    def tell(what: str, point: LoadPoint | None) -> None:
        if progress:
            progress(what, point)

    result = StudyResult(spec, [])
    if zero_load:
        result.zero_load = zero_load_latency(net, seed=spec.seed)
        tell("zero-load", result.zero_load)
    for load in loads:
        tell(f"load {load:g}", None)
        point = simulate_load(net, load, seed=spec.seed)
        result.points.append(point)
        tell(f"load {load:g}", point)
    if saturation:
        result.saturation = saturation_throughput(net, seed=spec.seed,
                                                  progress=lambda p: tell("saturation search", p))
    return result


def study_document(result: StudyResult, *, cycle_ns: float | None = None) -> dict[str, Any]:
    from hopbench.harness import __version__

    def point(p: LoadPoint) -> dict[str, Any]:
        d = p.as_dict()
        d.pop("wall_s", None)
        if cycle_ns is not None:
            for key in ("latency_mean", "latency_median", "latency_p99", "network_latency", "queueing_latency"):
                if d[key] is not None:
                    d[key + "_ns"] = d[key] * cycle_ns
        return d

    doc: dict[str, Any] = {"format": SIMULATION_FORMAT, "engine": "hopbench", **asdict(result.spec),
                           "cycle_ns": cycle_ns, "points": [point(p) for p in result.points]}
    if result.zero_load is not None:
        doc["zero_load"] = point(result.zero_load)
    if result.saturation is not None:
        doc["saturation_throughput"] = result.saturation.throughput
        doc["saturation_points"] = [point(p) for p in result.saturation.points]
    doc["hopbench"] = __version__
    return doc


def throughput_bounds(network: Any, pattern: str, *, routing: str | None = None, endpoints: str | int | None = None,
                      seed: int = 0, backend: str = "auto", num_vcs: int = 2) -> dict[str, Any]:
    """Both throughput bounds of ``network`` under ``pattern`` (flits/cycle/host), as ``evaluate`` prints them.

    ``pattern``: a bound pattern (``all-to-all``, ``permutation``, ``longest-matching``) or any
    simulation pattern (its host-level definition, e.g. BookSim's ``uniform``, which may pick the
    source itself).  ``routing`` adds the channel-load bound of that routing.
    """
    from hopbench.harness.problems.networks import endpoints_per_router
    from hopbench.harness.traffic import bounds, patterns
    from hopbench.harness.traffic.routing import build_routing

    graph = network.graph
    per_switch = endpoints_per_router(network, endpoints)
    key = pattern.strip().lower()
    grid = grid_dims(network.meta.get("topology"))
    if key in bounds.PATTERNS or key in ("alltoall", "random-permutation", "matching"):
        if len(set(per_switch.tolist())) != 1 or per_switch[0] < 1:
            raise HopbenchError(f"pattern {pattern} needs the same number (>= 1) of hosts on every switch; "
                                f"give --endpoints N")
        demand = bounds.demand_for(key, graph, int(per_switch[0]), seed)
        ejection = None
    else:
        hosts = patterns.Hosts.build(graph.n, per_switch)
        sim_pattern = patterns.make_pattern(key, hosts, seed=seed, dims=pattern_dims(network, hosts))
        demand = sim_pattern.demand_matrix(hosts)
        ejection = ejection_bound(sim_pattern)
    flow = bounds.max_concurrent_flow(graph, demand, backend=backend)
    out: dict[str, Any] = {
        "pattern": pattern, "hosts": int(per_switch.sum()), "seed": int(seed),
        "lp": {"bound": flow.lam, "backend": flow.backend, "solver": flow.solver, "status": flow.status,
               "seconds": flow.seconds, "variables": flow.variables, "constraints": flow.constraints},
        "routing": routing, "channel_load": None,
        # the LP models switch-to-switch channels only; a host's own link ejects one flit a cycle too
        "ejection": ejection,
    }
    if routing is not None:
        sim_routing = build_routing(routing, graph, num_vcs=num_vcs, dims=grid[0] if grid else None,
                                    torus=grid[1] if grid else None)
        out["channel_load"] = bounds.channel_load_bound(sim_routing, graph, demand)
    return out


def ejection_bound(pattern: Any) -> float:
    """The load (flits/cycle/host) at which the busiest host's ejection link (1 flit/cycle) is full."""
    hosts = int(pattern.hosts)      # the pattern's host count
    if pattern.kind == 0:          # uniform: every host receives as much as it sends
        incoming = np.ones(hosts)
    elif pattern.kind == 1:        # a fixed destination per source
        incoming = np.bincount(np.asarray(pattern.dest, dtype=np.int64), minlength=hosts).astype(float)
    else:                          # one distribution shared by all sources
        incoming = hosts * np.asarray(pattern.host_probabilities(), dtype=float)
    peak = float(incoming.max()) if incoming.size else 0.0
    return 1.0 / peak if peak > 0 else math.inf


def simulate(network: Any, *, traffic: str = "uniform", routing: str = "adaptive-updown",
             loads: list[float] | str = "0.1:0.5:0.1", endpoints: str | int | None = None, seed: int = 1,
             zero_load: bool = False, saturation: bool = False, faults: float = 0.0,
             allow_deadlock: bool = False, **params: Any) -> StudyResult:
    """Simulate from Python: ``network`` is a topology spec (``"torus:8x8"``), a result file's path,
    a :class:`~hopbench.harness.graphs.graph.Graph` or a loaded :class:`hopbench.harness.problems.networks.Network`;
    ``params`` are router parameters by BookSim's names (``num_vcs=2, packet_size=4``).

    >>> r = simulate("torus:4x4", traffic="uniform", routing="dor", loads=[0.1], num_vcs=2)  # doctest: +SKIP
    >>> r.points[0].latency_mean  # doctest: +SKIP
    """
    from hopbench.harness.problems import networks
    from hopbench.harness.traffic.simulator import router_config

    if isinstance(network, Graph):
        net_in = networks.Network(network, source="graph")
    elif isinstance(network, networks.Network):
        net_in = network
    else:
        net_in = networks.load_network(str(network))
    config = router_config(**params)
    sim, spec = prepare(net_in, pattern=traffic, routing=routing, endpoints=endpoints, config=config, seed=seed,
                        faults=faults, allow_deadlock=allow_deadlock)
    load_list = parse_loads(loads) if isinstance(loads, str) else [float(x) for x in loads]
    for x in load_list:
        if not (0 < x <= 1):
            raise HopbenchError(f"every load must be in (0, 1] flits/cycle/host, got {x}")
    return run_study(sim, spec, load_list, zero_load=zero_load, saturation=saturation)
