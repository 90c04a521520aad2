"""Networks from Python: a topology from its spec, and the measures of any network."""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from typing import Any

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph


def topology(spec: str) -> Graph:
    """The graph a topology spec names (``"torus:8x8"``, ``"ring:64"``, ``"file:g.edges"``, ...).

    >>> topology("torus:4x4").max_degree
    4
    """
    from hopbench.harness.graphs.topologies import parse_spec

    return parse_spec(spec)


@dataclass(frozen=True)
class NetworkMetrics:
    """What ``hopbench evaluate`` prints: size, distances and the Moore / Cerf lower bounds for the
    network's own maximum degree.  Infinite diameter and ASPL mean a disconnected network."""

    n: int
    m: int
    max_degree: int
    connected: bool
    diameter: float
    aspl: float
    lower_bound_diameter: float
    lower_bound_aspl: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _graph_of(network: Any) -> Graph:
    if isinstance(network, Graph):
        return network
    graph = getattr(network, "graph", None)  # a Solution (base + shortcuts) or a loaded Network
    if isinstance(graph, Graph):
        return graph
    if isinstance(network, (str, os.PathLike)):
        from hopbench.harness.problems.networks import load_network

        return load_network(os.fspath(network), action="evaluate").graph
    if hasattr(network, "to_dict"):  # any kind's solution object: its result document names the network
        from hopbench.harness.problems.networks import from_document

        return from_document(network.to_dict(), type(network).__name__, action="evaluate").graph
    raise HopbenchError(f"cannot evaluate a {type(network).__name__}; give a Graph, a topology spec such as "
                        f"'torus:8x8', an edge or result file, or a solution")


def evaluate(network: Graph | str | os.PathLike | Any) -> NetworkMetrics:
    """Measure a network exactly: diameter, ASPL and the lower bounds for its size and maximum degree.

    ``network`` is a :class:`Graph`, a topology spec, a Graph Golf edge file or a result file's path,
    or a solution object (the base with its shortcuts; a routing table's torus).
    """
    from hopbench.harness.engine.summary import summary
    from hopbench.harness.graphs.bounds import lower_bounds

    g = _graph_of(network)
    s = summary(g)
    lb_d, lb_a = lower_bounds(g.n, g.max_degree)
    return NetworkMetrics(n=g.n, m=g.m, max_degree=int(g.max_degree), connected=bool(s.connected),
                          diameter=float(s.diameter), aspl=float(s.aspl), lower_bound_diameter=float(lb_d),
                          lower_bound_aspl=float(lb_a))
