"""One loader for every way a user names a network.

``hopbench evaluate``, ``hopbench export`` and ``hopbench equality cost`` all
turn user input into a router graph; they differ only in which forms they
accept.  The forms:

``topology``  a topology spec (``torus:8x8``, ``file:g.edges``, ``equality:N14K6[-1,1,3,9](4)``, ...)
``edges``     a Graph Golf edge-list file
``result``    a hopbench result document of any problem kind (a ``.json`` or
              ``.json.gz`` file, or the parsed document): its kind's
              :meth:`~hopbench.harness.problems.kind.ProblemKind.graph_of` gives the
              network, so this module names no kind
``notation``  an Equality notation (``N14K6[-1,1,3,9](4)``) or a published id (``E361``)

Nothing heavy is imported until a form needs it: loading a small graph stays
free of numba.
"""
from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError, InvalidSolution
from hopbench.harness.graphs.graph import Graph

#: every input form, in the order :func:`load_network` tries them
FORMS = ("notation", "result", "edges", "topology")

_ID = re.compile(r"[eE]\d{3}")
_NOTATION = re.compile(r"[nN]\d+[kK]\d+")


@dataclass
class Network:
    """A router graph and what is known about where it came from.

    ``p`` (endpoints per router) is set from an Equality notation; :func:`from_topology` leaves an
    ``equality:`` spec's p to callers that want it, since reading it loads the Equality package
    (numba included) and ``hopbench evaluate`` must stay light.
    """

    graph: Graph
    source: str
    radix: int | None = None                 #: ports per router (a shortcut problem's degree cap)
    shortcut_edges: Any = None               #: ``(k, 2)`` edges a solution added to its base
    routes: Any = None                       #: the routing table, when the input was one
    meta: dict[str, Any] = field(default_factory=dict)
    p: int | None = None                     #: endpoints per router, when an Equality notation gives them
    hosts: Any = None                        #: hosts per router, when the input places them (a host-switch graph)


def from_topology(spec: str) -> Network:
    """The graph a topology spec names."""
    from hopbench.harness.graphs.topologies import parse_spec

    return Network(parse_spec(spec), source=spec, meta={"topology": spec})


def from_edge_file(path: str | Path) -> Network:
    """A Graph Golf edge list (``u v`` per line)."""
    from hopbench.harness.graphs.topologies import read_edge_file

    return Network(read_edge_file(path), source=str(path))


def from_notation(text: str) -> Network:
    """An Equality network from its notation or published id (``E361``)."""
    from hopbench.harness.problems.shortcut import equality as eq

    s = text.strip()
    net = eq.parse(s)
    return Network(net.graph(), source=s, meta={"notation": s}, p=net.p)


def from_document(doc: dict[str, Any], name: str = "document", *, action: str = "load",
                  otherwise: str = "") -> Network:
    """The network of a result document of any kind.

    ``action`` (export, cost, ...) and ``otherwise`` (what else the command takes, e.g. ``or
    --topology SPEC``) word the error for a document of no known format.
    """
    from hopbench.harness.problems.registry import all_kinds, kind_of_format

    fmt = doc.get("format")
    known = [f for kind in all_kinds() for f in kind.formats]
    if fmt not in known:
        raise HopbenchError(f"{name}: cannot {action} format {fmt!r}; give a hopbench result document "
                            f"({' or '.join(known)})" + (f", {otherwise}" if otherwise else ""))
    try:
        result = kind_of_format(fmt).graph_of(doc)
    except InvalidSolution as exc:
        raise HopbenchError(f"{name} is not a valid solution ({exc}); 'hopbench verify' says more") from None
    return Network(result.graph, source=name, radix=result.radix, shortcut_edges=result.shortcut_edges,
                   routes=result.routes, hosts=result.hosts,
                   meta={"problem": result.problem, "solver": doc.get("solver"), "seed": doc.get("seed")})


def from_result_file(path: str | Path, *, action: str = "load", otherwise: str = "") -> Network:
    """The network of a result file (``.json`` or gzipped); see :func:`from_document`."""
    from hopbench.harness.documents import read_json

    return from_document(read_json(path), str(path), action=action, otherwise=otherwise)


def is_result_file(text: str) -> bool:
    """Whether ``text`` names an existing ``.json`` or ``.json.gz`` file."""
    lower = text.lower()
    return (lower.endswith(".json") or lower.endswith(".json.gz")) and Path(text).is_file()


def load_network(text: str, *, forms: Collection[str] = FORMS, action: str = "load",
                 example: str = "torus:8x8") -> Network:
    """A network from one string, trying the accepted ``forms`` in the order of :data:`FORMS`.

    A notation or id is recognised by its shape, a result by an existing
    ``.json``/``.json.gz`` file, an edge list by any other existing path (the
    edge-list reader refuses a directory or a device in one line), and a
    topology spec by its ``:``.  ``example`` is what the error suggests.
    """
    unknown = set(forms) - set(FORMS)
    if unknown:
        raise ValueError(f"unknown network forms {sorted(unknown)}; use {FORMS}")
    s = text.strip()
    if "notation" in forms and (_ID.fullmatch(s) or _NOTATION.match(s)):
        return from_notation(s)
    if "result" in forms and is_result_file(s):
        return from_result_file(s, action=action)
    if "edges" in forms and Path(s).exists():
        return from_edge_file(s)  # a directory, FIFO or device is refused there, in one line
    if "topology" in forms and ":" in s:
        return from_topology(s)
    raise HopbenchError(f"{text!r} is neither a file nor a topology spec; give e.g. {example}")


def endpoints_per_router(network: Network, spec: str | int | None) -> "np.ndarray":
    """Endpoints of every router.

    ``hosts`` (the default for a network that places its hosts: a host-switch graph) gives each router
    its own hosts; ``P`` (an integer >= 0, default 1 otherwise) gives each router P endpoints -- for a
    routing table only the routed (subset) nodes get them, the other routers
    just forward; ``free`` gives each router its unused ports, radix - degree,
    the radix being a shortcut problem's degree cap.
    """
    import numpy as np

    n = network.graph.n
    text = ("hosts" if network.hosts is not None else "1") if spec is None else str(spec).strip().lower()
    if text == "hosts":
        if network.hosts is None:
            raise HopbenchError("--endpoints hosts needs a network that places its hosts (a host-switch result); "
                                "pass a number instead, e.g. --endpoints 4")
        return np.asarray(network.hosts, dtype=np.int64).copy()
    if text == "free":
        if network.radix is None or network.routes is not None:
            raise HopbenchError("--endpoints free needs a router radix, which only a shortcut solution (its degree "
                                "cap) gives; pass a number instead, e.g. --endpoints 4")
        free = np.maximum(network.radix - network.graph.degree.astype(np.int64), 0)
        caps.HOSTS.check(int(free.sum()), "--endpoints free: the hosts it gives (the routers' free ports)")
        return free
    try:
        p = int(text)
    except ValueError:
        raise HopbenchError(f"--endpoints must be a number of endpoints per router or 'free', got {spec!r}") from None
    if p < 0:
        raise HopbenchError(f"--endpoints must be >= 0, got {p}")
    caps.HOSTS.check(p * n, f"--endpoints {p}: the hosts it gives ({n} routers x {p})")  # before any allocation
    out = np.full(n, p, dtype=np.int64)
    if network.routes is not None:
        routed = np.zeros(n, dtype=bool)
        routed[list(network.routes.problem.nodes)] = True
        out[~routed] = 0
    return out
