"""The Angara routing graph (Mukosey et al. 2021, Sect. 3): vertex classes, Theorem 1, the Theorem 2 extension."""
from __future__ import annotations

import itertools
from collections import defaultdict

import networkx as nx
import numpy as np
import pytest

from hopbench.harness.problems.routing.candidates import CandidateRoutes
from hopbench.harness.problems.routing.deadlock import turn_cycle
from hopbench.harness.problems.routing.graph import RoutingGraph
from hopbench.harness.problems.routing.network import Torus

SMALL = [(5,), (4,), (2,), (3, 3), (4, 2), (2, 3), (3, 2, 2), (2, 2, 2), (4, 2, 2, 2), (2, 3, 2, 2)]


def graph(dims, extended=True):
    return RoutingGraph(Torus(dims), extended=extended)


# --------------------------------------------------------------------------- an independent reading of the rules


def legal(g: RoutingGraph, src: int, seq: list[int]) -> bool:
    """Angara rules read directly from Sect. 2.1/3.1/3.2, without the routing graph.

    A route is [FS] + DOR part + [LS]: the DOR part uses directions in the order
    +X+Y+Z+K-X-Y-Z-K and never both signs of a dimension; an optional first
    positive step must be followed by a larger direction (or end the route) unless
    Theorem 2 added that turn; an optional last negative step must follow a
    smaller direction unless Theorem 2 added that turn.
    """
    net, n = g.net, g.net.n
    nodes = [src]
    for d in seq:
        nxt = int(net.neighbor[nodes[-1], d])
        if nxt < 0:
            return False
        nodes.append(nxt)
    added = {tuple(t) for t in g.added_turns.tolist()}

    def turn_added(i: int) -> bool:  # the turn between step i-1 and step i
        return (nodes[i - 1] * net.ndir + seq[i - 1], nodes[i] * net.ndir + seq[i]) in added

    def dor(part: list[int]) -> bool:
        if any(b < a for a, b in zip(part, part[1:])):
            return False
        sign: dict[int, bool] = {}
        for d in part:
            if sign.setdefault(d % n, d < n) != (d < n):
                return False
        return True

    L = len(seq)
    if L == 0:
        return True
    for fs, ls in itertools.product((0, 1), repeat=2):
        if fs + ls > L or (fs and seq[0] >= n) or (ls and seq[-1] < n):
            continue
        mid = seq[fs:L - ls]
        if not mid:
            if fs and not ls:  # begin -> FS -> end
                return True
            continue
        if not dor(mid):
            continue
        if fs and not (seq[0] < mid[0] or turn_added(1)):
            continue
        if ls and not (mid[-1] < seq[-1] or turn_added(L - 1)):
            continue
        return True
    return False


def spelled_by_explicit_graph(adj: dict, g: RoutingGraph, src: int, seq: list[int]) -> bool:
    """Whether some path of the explicit RG from begin(src) spells ``seq`` and then ends."""
    live = {(src, g.begin)}
    for d in seq:
        live = {v for u in live for v, dd in adj[u] if dd == d}
        if not live:
            return False
    return any(((x, g.end), -1) in adj[(x, s)] for x, s in live)


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("dims", SMALL)
def test_vertex_classes_per_node(dims):
    g = graph(dims)
    n = len(dims)
    classes = [g.state_class(s) for s in range(g.states_per_node)]
    assert g.states_per_node == 3 ** n + 2 * n + 1
    assert classes.count("begin") == 1 and classes.count("end") == 1
    assert classes.count("FS") == n and classes.count("LS") == n
    assert classes.count("dirbit") == 3 ** n - 1


@pytest.mark.parametrize("dims", SMALL)
def test_theorem1_sequences(dims):
    """A direction sequence is a legal route iff a routing-graph path spells it (both automaton and
    explicit graph), for every sequence up to 4 steps from a few sources."""
    g = graph(dims)
    adj = defaultdict(set)
    for u, v, d in g.explicit_edges():
        adj[u].add((v, d))
    net = g.net
    steps = 4 if net.n <= 2 else 3
    sources = sorted({0, net.num_nodes // 2, net.num_nodes - 1})
    agree = 0
    for src in sources:
        for L in range(steps + 1):
            for seq in itertools.product(range(net.ndir), repeat=L):
                seq = list(seq)
                walk = net.walk(src, seq)
                expected = legal(g, src, seq)
                assert spelled_by_explicit_graph(adj, g, src, seq) == expected, (dims, src, seq)
                if walk[-1] >= 0:
                    assert g.accepts(src, seq) == expected, (dims, src, seq)
                agree += expected
    assert agree > 0


@pytest.mark.parametrize("dims", [(5,), (3, 3), (4, 2), (3, 2, 2), (2, 2, 2, 2)])
def test_theorem1_pairs(dims):
    """Every ordered pair has an RG path begin(u) -> end(v), and a legal route (DOR)."""
    g = graph(dims)
    G = nx.DiGraph()
    G.add_edges_from((u, v) for u, v, _ in g.explicit_edges())
    for u in range(g.net.num_nodes):
        reach = nx.descendants(G, (u, g.begin))
        for v in range(g.net.num_nodes):
            if v != u:
                assert (v, g.end) in reach


def cdg_edges(g: RoutingGraph) -> np.ndarray:
    """The final channel dependency graph: every DOR turn (incl. straight steps) plus the added turns."""
    net = g.net
    out = []
    for u in range(net.num_nodes):
        for d1 in range(net.ndir):
            v = int(net.neighbor[u, d1])
            if v < 0:
                continue
            for d2 in range(d1, net.ndir):
                if net.neighbor[v, d2] >= 0:
                    out.append((u * net.ndir + d1, v * net.ndir + d2))
    out.extend(g.added_turns.tolist())
    return np.array(out, dtype=np.int64)


@pytest.mark.parametrize("dims", SMALL + [(3, 4, 2), (2, 5, 2)])
def test_extended_cdg_is_deadlock_free_and_covers_the_graph(dims):
    g = graph(dims)
    net = g.net
    edges = cdg_edges(g)
    # Theorem 2 keeps every cycle a same-direction ring
    assert turn_cycle(edges, net.num_channel_slots, net.ndir) is None
    # every dependency a routing-graph path can create is a CDG edge
    cdg = {tuple(e) for e in edges.tolist()}
    assert {tuple(t) for t in g.rg_turns().tolist()} <= cdg
    # the used-direction sets B are exact after the incremental updates
    G = nx.DiGraph()
    G.add_nodes_from(np.flatnonzero(net.channel_exists).tolist())
    G.add_edges_from(edges.tolist())
    for c in G.nodes:
        dirs = {x % net.ndir for x in nx.descendants(G, c)} | {c % net.ndir}
        assert g.used_directions[c] == sum(1 << d for d in dirs), net.channel_name(c)


@pytest.mark.parametrize("dims", [(3, 3), (5, 4), (3, 3, 3), (4, 3, 5, 3)])
def test_no_extension_on_tori_without_mesh_dimensions(dims):
    # B(u, D) holds every direction >= D on such a torus, so Theorem 2 can add nothing
    assert len(graph(dims).added_turns) == 0


@pytest.mark.parametrize("dims", [(4, 2), (2, 2), (3, 2, 2), (4, 2, 2, 2)])
def test_extension_turns_are_first_or_last_steps_against_the_order(dims):
    g = graph(dims)
    nd, n = g.net.ndir, g.net.n
    assert len(g.added_turns)
    for c1, c2 in g.added_turns.tolist():
        d1, d2 = c1 % nd, c2 % nd
        assert d2 < d1 and (d1 < n) == (d2 < n)  # same sign, against the direction order
        assert g.net.neighbor[c1 // nd, d1] == c2 // nd  # consecutive channels


def brute_force_minimal(g: RoutingGraph, src: int, dst: int) -> set[tuple[int, ...]]:
    net = g.net
    L = int(net.distance[src, dst])
    return {seq for seq in itertools.product(range(net.ndir), repeat=L)
            if net.walk(src, seq)[-1] == dst and legal(g, src, list(seq))}


@pytest.mark.parametrize("dims, nodes", [((4, 4), None), ((4, 2), None), ((3, 2, 2), None),
                                         ((4, 2, 2, 2), [0, 3, 5, 10, 30]), ((2, 2, 2, 2), None)])
def test_candidate_routes_are_exactly_the_minimal_legal_routes(dims, nodes):
    g = graph(dims)
    nodes = np.arange(g.net.num_nodes) if nodes is None else np.array(nodes)
    cand = CandidateRoutes(g, nodes)
    p = 0
    for s in nodes.tolist():
        for d in nodes.tolist():
            if s == d:
                continue
            got = [tuple(r) for r in cand.routes_of(p)]
            assert len(got) == len(set(got))  # one entry per distinct direction sequence
            assert set(got) == brute_force_minimal(g, s, d), (s, d)
            p += 1


def test_unique_route_share_on_2d_tori_matches_the_paper():
    """Seed 003 (Sect. 4.3): on the 49 2D tori with sizes 2..8, 81.6% of the source-destination pairs
    have a single minimal route, on average -- a check of the routing graph and its extension."""
    shares = []
    for dims in itertools.product(range(2, 9), repeat=2):
        g = graph(dims)
        cand = CandidateRoutes(g, np.arange(g.net.num_nodes))
        shares.append(np.mean(cand.counts == 1))
    assert round(100 * float(np.mean(shares)), 1) == 81.6
