"""Exports of result networks for simulators and other tools.

:func:`load_network` turns a hopbench result into a :class:`Network` (through the
one network loader, :mod:`hopbench.harness.problems.networks`, which asks the result's
problem kind): a shortcut solution (``hopbench.solution/1``) gives its augmented
graph (base plus shortcuts, validated first); a routing table
(``hopbench.routes/1``) gives its torus, with node ids as in the table (first
dimension fastest); a topology spec (``torus:8x8``, ...) gives that graph.  Writers:

``golf``     Graph Golf edge list, one ``u v`` line per edge (:func:`hopbench.harness.graphs.edge_list.edge_list_text`);
             for a grid graph (``hopbench.grid/1``), the grid category's ``x1,y1 x2,y2`` lines
             (:func:`hopbench.harness.problems.grid.competition.write_edges`);
             for a host-switch result, the competition's host-switch file (``hosts switches radix``, then
             host and switch links: :mod:`hopbench.harness.problems.hostswitch.golf_file`)
``graphml``  GraphML with an integer (``int``) ``endpoints`` node attribute, as SST
             Merlin's ``topoAny`` reads it; base edges and shortcuts are told apart
             by the boolean edge attribute ``shortcut``
``anynet``   BookSim's ``anynet`` file: one line per router,
             ``router R node E ... router S ...``, lowercase keywords, single spaces,
             router ids 0..N-1 and endpoint (node) ids 0..E-1 numbered router by
             router; every link appears on both of its routers' lines (BookSim
             stores links as sets, so this is the same network, and each line
             lists its router's whole port set)
``json``     routing tables: for a routing-table document, every route as its
             node path and output ports (``hopbench.routing-paths/1``); for a graph,
             a minimal next-hop table (``hopbench.next-hop/1``: towards each
             destination, the lowest-id neighbour on a shortest path)

Endpoints per router (``--endpoints``, see :func:`endpoints_per_router`): a
host-switch result's own hosts by default (``hosts``); an integer P (default 1
otherwise) gives every router P endpoints (for a routing table, every
routed node); ``free`` gives each router of a shortcut solution its unused
ports, ``cap - degree`` (the degree cap being the router radix).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.problems import networks
from hopbench.harness.problems.networks import Network, endpoints_per_router  # noqa: F401  (re-exported)

FORMATS = ("golf", "graphml", "anynet", "json")
PATHS_FORMAT = "hopbench.routing-paths/1"
NEXT_HOP_FORMAT = "hopbench.next-hop/1"


def load_network(source: str | Path | dict[str, Any], *, topology: str | None = None) -> Network:
    """A :class:`Network` from a result file (or its parsed document), or from a topology spec."""
    if topology is not None:
        return networks.from_topology(topology)
    if isinstance(source, dict):
        return networks.from_document(source, action="export", otherwise="or --topology SPEC")
    return networks.from_result_file(source, action="export", otherwise="or --topology SPEC")


# --------------------------------------------------------------------------- writers


def graphml_text(network: Network, endpoints: np.ndarray) -> str:
    """GraphML with node ids ``0..N-1``, an ``int`` ``endpoints`` key per node and a ``boolean``
    ``shortcut`` key per edge.

    Written directly (not with networkx, which types Python ints as ``long``)
    so that the attribute is declared ``attr.type="int"``.
    """
    import xml.etree.ElementTree as ET

    ns = "http://graphml.graphdrawing.org/xmlns"
    root = ET.Element("graphml", {"xmlns": ns})
    ET.SubElement(root, "key", {"id": "endpoints", "for": "node", "attr.name": "endpoints", "attr.type": "int"})
    ET.SubElement(root, "key", {"id": "shortcut", "for": "edge", "attr.name": "shortcut", "attr.type": "boolean"})
    name = str(network.meta.get("problem", {}).get("base") or network.meta.get("topology") or network.source)
    ET.SubElement(root, "key", {"id": "name", "for": "graph", "attr.name": "name", "attr.type": "string"})
    graph = ET.SubElement(root, "graph", {"id": "G", "edgedefault": "undirected"})
    ET.SubElement(graph, "data", {"key": "name"}).text = name
    for v in range(network.graph.n):
        node = ET.SubElement(graph, "node", {"id": str(v)})
        ET.SubElement(node, "data", {"key": "endpoints"}).text = str(int(endpoints[v]))
    added = set()
    if network.shortcut_edges is not None:
        added = {(min(u, v), max(u, v)) for u, v in network.shortcut_edges.tolist()}
    for u, v in network.graph.edges.tolist():
        edge = ET.SubElement(graph, "edge", {"source": str(u), "target": str(v)})
        ET.SubElement(edge, "data", {"key": "shortcut"}).text = "true" if (u, v) in added else "false"
    ET.indent(root, space=" ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def anynet_text(graph: Graph, endpoints: np.ndarray) -> str:
    """BookSim anynet: ``router R node E... router S...`` per router (see the module docstring); the one
    writer is :func:`hopbench.harness.traffic.booksim.anynet_text`, which ``--engine booksim`` runs on."""
    from hopbench.harness.traffic.booksim import anynet_text as booksim_anynet

    return booksim_anynet(graph, endpoints)


def routing_paths_doc(network: Network) -> dict[str, Any]:
    """Every route of a routing table as node path and output ports (``hopbench.routing-paths/1``)."""
    table = network.routes
    problem = table.problem
    net = problem.network
    names = net.direction_names()
    src, dst = problem.pairs
    routes = []
    nb = net.neighbor
    for p in range(problem.num_pairs):
        dirs = table.dirs[table.offsets[p]:table.offsets[p + 1]].tolist()
        path = [int(src[p])]
        for d in dirs:
            path.append(int(nb[path[-1], d]))
        routes.append({"src": int(src[p]), "dst": int(dst[p]), "path": path, "ports": dirs})
    return {
        "format": PATHS_FORMAT,
        "topology": {"kind": "torus", "dims": list(net.dims), "routers": net.num_nodes,
                     "numbering": "mixed radix, first dimension fastest",
                     "links": network.graph.edges.tolist()},
        "ports": {name: k for k, name in enumerate(names)},
        "port_neighbors": nb.tolist(),
        "nodes": list(problem.nodes),
        "problem": problem.describe(),
        "solver": network.meta.get("solver"),
        "seed": network.meta.get("seed"),
        "routes": routes,
    }


def next_hop_doc(network: Network) -> dict[str, Any]:
    """A minimal next-hop table for a graph (``hopbench.next-hop/1``).

    ``next_hop[u][d]`` is the lowest-id neighbour of u one hop closer to d
    (-1 for u = d or when d is unreachable): shortest-path routing, without any
    deadlock-avoidance claim.
    """
    from hopbench.harness.engine.distances import distance_matrix

    g = network.graph
    if g.n > 4096:
        raise HopbenchError(f"a next-hop table of {g.n} routers has {g.n * g.n} entries; export at most 4096 "
                            f"routers as json, or use golf/graphml/anynet")
    raw = distance_matrix(g)
    unreachable = int(np.iinfo(raw.dtype).max)
    D = raw.astype(np.int64)
    indptr, indices = g.csr
    table = np.full((g.n, g.n), -1, dtype=np.int64)
    for u in range(g.n):
        nbrs = np.sort(indices[indptr[u]:indptr[u + 1]])
        if not len(nbrs):
            continue
        # a neighbour w is on a shortest path to d when D[w, d] = D[u, d] - 1
        ok = D[nbrs] == (D[u] - 1)[None, :]
        ok &= (D[u] != unreachable)[None, :]
        has = ok.any(axis=0)
        table[u, has] = nbrs[np.argmax(ok[:, has], axis=0)]
    return {
        "format": NEXT_HOP_FORMAT,
        "routing": "minimal: towards each destination, the lowest-id neighbour on a shortest path",
        "routers": g.n,
        "links": g.edges.tolist(),
        "source": network.meta,
        "next_hop": table.tolist(),
    }


def export_text(network: Network, fmt: str, *, endpoints: str | int | None = None) -> str:
    """The exported file's text in format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt not in FORMATS:
        raise HopbenchError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    if fmt == "golf":
        from hopbench.harness.graphs.edge_list import edge_list_text

        if network.hosts is not None and network.radix is not None:
            from hopbench.harness.problems.hostswitch.golf_file import write_text

            return write_text(network.radix, network.hosts, network.graph.edges)

        problem = network.meta.get("problem") or {}
        if {"width", "height", "length"} <= set(problem):
            # a grid graph: the competition's own format for that category, one "x1,y1 x2,y2" line per edge
            from hopbench.harness.problems.grid.competition import write_edges
            from hopbench.harness.problems.grid.problem import GridProblem

            return write_edges(GridProblem(**problem), network.graph.edges)

        return edge_list_text(network.graph)
    if fmt == "graphml":
        return graphml_text(network, endpoints_per_router(network, endpoints))
    if fmt == "anynet":
        return anynet_text(network.graph, endpoints_per_router(network, endpoints))
    doc = routing_paths_doc(network) if network.routes is not None else next_hop_doc(network)
    return json.dumps(doc, separators=(",", ":")) + "\n"


def write_export(network: Network, fmt: str, path: str | Path, *, endpoints: str | int | None = None,
                 force: bool = False) -> None:
    """Write an export to ``path`` (never through a link, nor over a file hopbench did not write unless
    ``force``: :func:`hopbench.harness.outputs.write_output_file`)."""
    from hopbench.harness.outputs import write_output_file

    write_output_file(path, export_text(network, fmt, endpoints=endpoints), force=force)
