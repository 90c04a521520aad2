"""Routing for simulation: every table walked, checked against definitions written out here."""
from __future__ import annotations

import dataclasses
import random

import networkx as nx
import numpy as np
import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.traffic import routing as R
from hopbench.harness.traffic.routing import SimRouting, build_routing, check_connected


def ring_with_shortcuts(n: int, extra: int, seed: int) -> Graph:
    rng = np.random.default_rng(seed)
    e = rng.integers(0, n, size=(extra, 2))
    return parse_spec(f"ring:{n}").with_edges(e[e[:, 0] != e[:, 1]])


def random_regular(n: int, d: int, seed: int) -> Graph:
    g = nx.random_regular_graph(d, n, seed=seed)
    return Graph(n, np.array(list(g.edges())))


def candidates(r: SimRouting, g: Graph, u: int, t: int, s: int) -> list[tuple[int, int, int, int, int]]:
    """(next switch, vc_lo, vc_hi, next state, escape) of every candidate at (u, t, s)."""
    indptr, indices = g.csr
    key = (u * r.n + t) * r.num_states + s
    out = []
    for i in range(int(r.cand_ptr[key]), int(r.cand_ptr[key + 1])):
        w = int(indices[indptr[u] + int(r.cand_port[i])])
        out.append((w, int(r.cand_vc_lo[i]), int(r.cand_vc_hi[i]), int(r.cand_state[i]), int(r.cand_escape[i])))
    return out


def reachable(r: SimRouting, g: Graph, t: int) -> dict[tuple[int, int], list]:
    """Every (switch, state) a packet bound for t can be in, with its candidates; asserts that no
    reachable state lacks a candidate and that the state graph has no cycle, so every walk ends at t."""
    seen: dict[tuple[int, int], list] = {}
    todo = [(u, r.init_state) for u in range(g.n) if u != t]
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        cands = candidates(r, g, node[0], t, node[1])
        assert cands, f"no candidate at switch {node[0]} for {t} in state {node[1]}"
        seen[node] = cands
        todo.extend((w, s2) for w, _, _, s2, _ in cands if w != t)
    # no cycle among reachable states: a walk cannot go round forever
    order = {}
    def depth(node, stack=()):
        if node in order:
            return order[node]
        assert node not in stack, f"routing loop through {node} toward {t}"
        best = 0
        for w, _, _, s2, _ in seen[node]:
            best = max(best, 1 + (0 if w == t else depth((w, s2), stack + (node,))))
        order[node] = best
        return best
    for node in seen:
        depth(node)
    return seen


GRAPHS = {
    "ring:9": lambda: parse_spec("ring:9"),
    "torus:4x4": lambda: parse_spec("torus:4x4"),
    "mesh:3x4": lambda: parse_spec("mesh:3x4"),
    "hypercube:4": lambda: parse_spec("hypercube:4"),
    "ring+shortcuts": lambda: ring_with_shortcuts(24, 8, 3),
    "rrg:20:3": lambda: random_regular(20, 3, 7),
}


# --------------------------------------------------------------------------- every walk arrives


@pytest.mark.parametrize("spec", sorted(GRAPHS))
@pytest.mark.parametrize("name", ["updown", "adaptive-updown", "minimal"])
def test_every_route_reaches_its_destination(spec, name):
    g = GRAPHS[spec]()
    r = build_routing(name, g, num_vcs=3)
    assert r.cand_ptr.shape == (g.n * g.n * r.num_states + 1,) and r.cand_random.shape == (g.n * g.n * r.num_states,)
    for t in range(g.n):
        reachable(r, g, t)


def test_minimal_is_the_lowest_id_shortest_next_hop():
    for g in (parse_spec("torus:5x4"), ring_with_shortcuts(30, 10, 1), random_regular(24, 4, 2)):
        r = build_routing("minimal", g, num_vcs=2)
        dist = dict(nx.all_pairs_shortest_path_length(g.to_networkx()))
        for u in range(g.n):
            for t in range(g.n):
                if u == t:
                    continue
                want = min(w for w in g.neighbours(u).tolist() if dist[w][t] == dist[u][t] - 1)
                assert candidates(r, g, u, t, 0) == [(want, 0, 1, 0, 0)]
        assert r.num_states == 1 and not r.escape_vcs


def updown_reference(g: Graph, root: int):
    """Up*/down* written out from the definition: levels by BFS from the root, a link goes up toward
    the lower (level, id); legal = ups then downs; shortest legal lengths by BFS over (switch, phase)."""
    G = g.to_networkx()
    level = nx.single_source_shortest_path_length(G, root)
    up = lambda a, b: (level[b], b) < (level[a], a)  # noqa: E731  moving a -> b goes up
    def moves(u, phase):
        for w in g.neighbours(u).tolist():
            if up(u, w) and phase == 0:
                yield w, 0
            elif not up(u, w):
                yield w, 1
    legal = {}
    for t in range(g.n):
        # backwards BFS: distance from (u, phase) to t over legal moves
        dist = {}
        frontier = [(t, 0), (t, 1)]
        for node in frontier:
            dist[node] = 0
        rev = {}
        for u in range(g.n):
            for phase in (0, 1):
                for w, p2 in moves(u, phase):
                    rev.setdefault((w, p2), []).append((u, phase))
        k = 0
        while frontier:
            k += 1
            nxt = []
            for node in frontier:
                for prev in rev.get(node, []):
                    if prev not in dist:
                        dist[prev] = k
                        nxt.append(prev)
            frontier = nxt
        legal[t] = dist
    return level, moves, legal


@pytest.mark.parametrize("spec", ["torus:4x4", "ring+shortcuts", "rrg:20:3", "hypercube:4"])
def test_updown_routes_are_legal_and_shortest_legal(spec):
    g = GRAPHS[spec]()
    r = build_routing("updown", g, num_vcs=2)
    ecc = nx.eccentricity(g.to_networkx())
    root = min(range(g.n), key=lambda v: (ecc[v], v))
    assert r.meta["root"] == root and "eccentricity" in r.meta["root_rule"]
    level, moves, legal = updown_reference(g, root)
    for t in range(g.n):
        for (u, s), cands in reachable(r, g, t).items():
            want = sorted((w, p2) for w, p2 in moves(u, s)
                          if legal[t].get((w, p2), 10**9) == legal[t][(u, s)] - 1)
            assert sorted((w, s2) for w, _, _, s2, _ in cands) == want
            assert all(lo == 0 and hi == 1 and e == 0 for _, lo, hi, _, e in cands)


def test_updown_root_can_be_given():
    g = parse_spec("ring:8")
    assert build_routing("updown", g, num_vcs=1, root=5).meta["root"] == 5
    with pytest.raises(HopbenchError, match="root"):
        build_routing("updown", g, num_vcs=1, root=8)


@pytest.mark.parametrize("spec", ["torus:4x4", "ring+shortcuts", "rrg:20:3"])
def test_adaptive_updown_candidates(spec):
    g = GRAPHS[spec]()
    V = 4
    r = build_routing("adaptive-updown", g, num_vcs=V)
    ud = build_routing("updown", g, num_vcs=V)
    dist = dict(nx.all_pairs_shortest_path_length(g.to_networkx()))
    assert r.escape_vcs == (0,) and r.num_states == 3 and r.init_state == 0
    for t in range(g.n):
        for (u, s), cands in reachable(r, g, t).items():
            adaptive = [c for c in cands if not c[4]]
            escape = [c for c in cands if c[4]]
            # from a fresh start / in the up phase / in the down phase: the up*/down* next hops, on VC 0
            phase = 0 if s <= 1 else 1
            assert sorted((w, s2 - 1) for w, _, _, s2, _ in escape) == \
                sorted((w, s2) for w, _, _, s2, _ in candidates(ud, g, u, t, phase))
            assert all(lo == hi == 0 for _, lo, hi, _, _ in escape)
            if s == 0:  # every minimal next hop on the adaptive VCs
                want = sorted(w for w in g.neighbours(u).tolist() if dist[w][t] == dist[u][t] - 1)
                assert sorted(w for w, *_ in adaptive) == want
                assert all((lo, hi, s2) == (1, V - 1, 0) for _, lo, hi, s2, _ in adaptive)
            else:  # on the escape VC a packet stays there
                assert not adaptive


@pytest.mark.parametrize("spec, dims", [("mesh:3x4", (3, 4)), ("hypercube:4", (2, 2, 2, 2)),
                                        ("fhypercube:4", (2, 2, 2, 2)), ("mesh:2x3x2", (2, 3, 2))])
def test_adaptive_dor_is_minimal_adaptive_with_a_dimension_order_escape(spec, dims):
    g = parse_spec(spec)
    V = 3
    r = build_routing("adaptive-dor", g, num_vcs=V, dims=dims)
    mesh_dor = build_routing("dor", parse_spec("mesh:" + "x".join(map(str, dims))), num_vcs=V, dims=dims,
                             torus=False)
    dist = dict(nx.all_pairs_shortest_path_length(g.to_networkx()))
    assert r.deadlock_free and r.escape_vcs == (0,) and r.num_states == 2
    for t in range(g.n):
        for (u, s), cands in reachable(r, g, t).items():
            adaptive = [c for c in cands if not c[4]]
            escape = [c for c in cands if c[4]]
            # the escape: the mesh's dimension-order hop (the folded hypercube's complement links unused), VC 0
            want = [w for w, *_ in candidates(mesh_dor, parse_spec("mesh:" + "x".join(map(str, dims))), u, t, 0)]
            assert [(w, lo, hi, s2) for w, lo, hi, s2, _ in escape] == [(want[0], 0, 0, 1)]
            if s == 0:
                assert sorted(w for w, *_ in adaptive) == sorted(
                    w for w in g.neighbours(u).tolist() if dist[w][t] == dist[u][t] - 1)
                assert all((lo, hi) == (1, V - 1) for _, lo, hi, _, _ in adaptive)
            else:
                assert not adaptive  # once escaped, always escaped


def test_adaptive_dor_refuses_a_network_without_its_mesh_and_one_vc():
    with pytest.raises(HopbenchError, match="not a subgraph"):
        build_routing("adaptive-dor", parse_spec("ring:16"), num_vcs=2, dims=(4, 4))
    with pytest.raises(HopbenchError, match="num_vcs >= 2"):
        build_routing("adaptive-dor", parse_spec("mesh:4x4"), num_vcs=1, dims=(4, 4))
    with pytest.raises(HopbenchError, match="needs a mesh, hypercube or folded hypercube"):
        build_routing("adaptive-dor", parse_spec("ring:16"), num_vcs=2)


@pytest.mark.parametrize("spec", ["ring:9", "ring+shortcuts", "rrg:20:3", "hypercube:4"])
def test_hop_vc_takes_every_minimal_hop_on_the_vc_of_its_hop_count(spec):
    g = GRAPHS[spec]()
    dist = dict(nx.all_pairs_shortest_path_length(g.to_networkx()))
    diameter = max(max(d.values()) for d in dist.values())
    r = build_routing("hop-vc", g, num_vcs=diameter)
    assert r.deadlock_free and r.num_states == diameter
    for t in range(g.n):
        for (u, s), cands in reachable(r, g, t).items():
            assert s + dist[u][t] <= diameter  # a minimal route never runs out of VCs
            assert sorted(w for w, *_ in cands) == sorted(w for w in g.neighbours(u).tolist()
                                                          if dist[w][t] == dist[u][t] - 1)
            assert all((lo, hi) == (s, s) for _, lo, hi, _, _ in cands)
    with pytest.raises(HopbenchError, match=f"diameter is {diameter}, so it needs num_vcs >= {diameter}"):
        build_routing("hop-vc", g, num_vcs=diameter - 1)


# --------------------------------------------------------------------------- dimension order


def booksim_dor_path(dims_ours, cur, dest, torus, coin):
    """BookSim's dor_next_mesh / dor_next_torus written out: node ids coincide with ours (BookSim's
    dimension 0 = our last axis); returns [(switch, partition)] hops; ``coin`` breaks half-way ties."""
    k_of = list(reversed(dims_ours))
    strides = [1]
    for k in k_of[:-1]:
        strides.append(strides[-1] * k)
    digit = lambda x, d: (x // strides[d]) % k_of[d]  # noqa: E731
    hops = []
    in_dim = None
    ph = 0
    while cur != dest:
        d = next(d for d in range(len(k_of)) if digit(cur, d) != digit(dest, d))
        k, c, t = k_of[d], digit(cur, d), digit(dest, d)
        if not torus:
            step = 1 if c < t else -1
        elif in_dim != d:
            dist2 = k - 2 * ((t - c + k) % k)
            right = dist2 > 0 or (dist2 == 0 and coin())
            step = 1 if right else -1
            ph = 1 if ((right and c > t) or (not right and t < c)) else 0
        # else: keep going the same way (in_port ^ 1), partition kept
        nxt_digit = (c + step) % k
        cur = cur + (nxt_digit - c) * strides[d]
        hops.append((cur, ph))
        in_dim = d
    return hops


def dor_walk(r, g, src, dst, coin):
    s, u, out = r.init_state, src, []
    while u != dst:
        cands = candidates(r, g, u, dst, s)
        key = (u * g.n + dst) * r.num_states + s
        if len(cands) > 1:
            assert r.cand_random[key] == 1
            c = cands[0] if coin() else cands[1]  # the kernel lists Right (+1) first, then Left
        else:
            assert r.cand_random[key] == 0
            c = cands[0]
        w, lo, hi, s, _ = c
        out.append((w, lo, hi))
        u = w
    return out


@pytest.mark.parametrize("spec, torus", [("torus:8x8", True), ("torus:5x5", True), ("torus:4x4x4", True),
                                         ("mesh:4x4", False), ("mesh:5x5", False), ("torus:6", True)])
def test_dor_paths_equal_booksim(spec, torus):
    dims = tuple(int(x) for x in spec.split(":")[1].split("x"))
    g = parse_spec(spec)
    V = 4
    r = build_routing("dor", g, num_vcs=V, dims=dims)
    assert r.meta["torus"] is torus
    rng = random.Random(1)
    pairs = [(a, b) for a in range(g.n) for b in range(g.n) if a != b]
    for a, b in rng.sample(pairs, min(len(pairs), 400)):
        bits = [rng.random() < 0.5 for _ in range(8)]
        ref = booksim_dor_path(dims, a, b, torus, iter(bits).__next__)
        got = dor_walk(r, g, a, b, iter(bits).__next__)
        assert [w for w, _ in ref] == [w for w, _, _ in got]
        for (_, ph), (_, lo, hi) in zip(ref, got):
            if torus:  # BookSim: partition 0 -> lower half of the VCs, 1 -> upper half
                assert (lo, hi) == ((0, V // 2 - 1) if ph == 0 else (V // 2, V - 1))
            else:
                assert (lo, hi) == (0, V - 1)
    for t in range(g.n):
        reachable(r, g, t)


def test_dor_hand_checked_cases_on_8x8_torus():
    g = parse_spec("torus:8x8")
    r = build_routing("dor", g, num_vcs=2, dims=(8, 8))
    assert r.num_states == 3
    # 0 -> 36 = (4, 4): half-way tie in both dimensions, BookSim flips a coin: two candidates at random
    key = (0 * 64 + 36) * 3 + 0
    assert r.cand_random[key] == 1
    assert sorted(candidates(r, g, 0, 36, 0)) == [(1, 0, 0, 1, 0), (7, 0, 0, 1, 0)]
    up = dor_walk(r, g, 0, 36, iter([True, True]).__next__)
    assert [w for w, _, _ in up] == [1, 2, 3, 4, 12, 20, 28, 36]
    down = dor_walk(r, g, 0, 36, iter([False, False]).__next__)
    assert [w for w, _, _ in down] == [7, 6, 5, 4, 60, 52, 44, 36]
    assert all((lo, hi) == (0, 0) for _, lo, hi in up + down)  # cur < dest: partition 0 either way
    # 6 -> 1: the short way crosses the dateline going up: partition 1, kept after the wrap
    assert dor_walk(r, g, 6, 1, lambda: False) == [(7, 1, 1), (0, 1, 1), (1, 1, 1)]
    # 1 -> 6: down through 0 and 7, partition 0 (BookSim: dest < cur is false)
    assert dor_walk(r, g, 1, 6, lambda: False) == [(0, 0, 0), (7, 0, 0), (6, 0, 0)]
    # the last axis goes first: 0 -> 9 = (1, 1) steps to 1, then 9
    assert [w for w, _, _ in dor_walk(r, g, 0, 9, lambda: False)] == [1, 9]


def test_dor_on_a_size_two_torus_dimension_is_one_link():
    g = parse_spec("torus:2x4")
    r = build_routing("dor", g, num_vcs=2, dims=(2, 4), torus=True)
    # 0 -> 4 differ in the size-2 axis only: one link, one candidate, no coin
    assert candidates(r, g, 0, 4, 0) == [(4, 0, 0, 0, 0)]
    assert candidates(r, g, 4, 0, 0) == [(0, 1, 1, 0, 0)]  # cur > dest: partition 1
    for t in range(g.n):
        reachable(r, g, t)


def test_dor_detects_mesh_or_torus_and_refuses_other_networks():
    assert build_routing("dor", parse_spec("mesh:3x4"), num_vcs=1, dims=(3, 4)).meta["torus"] is False
    assert build_routing("dor", parse_spec("torus:3x4"), num_vcs=2, dims=(3, 4)).meta["torus"] is True
    with pytest.raises(HopbenchError, match="not torus:4x4") as e:
        build_routing("dor", parse_spec("hypercube:4"), num_vcs=2, dims=(4, 4), torus=True)
    assert "updown" in str(e.value)
    with pytest.raises(HopbenchError, match="needs the grid's dims"):
        build_routing("dor", parse_spec("torus:4x4"), num_vcs=2)
    with pytest.raises(HopbenchError, match="even num_vcs"):
        build_routing("dor", parse_spec("torus:4x4"), num_vcs=3, dims=(4, 4))
    with pytest.raises(HopbenchError, match="even num_vcs"):
        build_routing("dor", parse_spec("torus:4x4"), num_vcs=1, dims=(4, 4))


# --------------------------------------------------------------------------- errors


def test_entry_point_errors_are_one_line():
    g = parse_spec("ring:8")
    cases = [
        (lambda: build_routing("ecube", g, num_vcs=2), "unknown routing 'ecube'; choose one of updown"),
        (lambda: build_routing("updown", g, num_vcs=0), "num_vcs must be 1..64"),
        (lambda: build_routing("updown", g, num_vcs=65), "num_vcs must be 1..64"),
        (lambda: build_routing("adaptive-updown", g, num_vcs=1), "num_vcs >= 2"),
        (lambda: build_routing("table", g, num_vcs=2), "routing table needs"),
        (lambda: build_routing("minimal", Graph(4, [(0, 1), (2, 3)]), num_vcs=1), "network is disconnected"),
    ]
    for make, words in cases:
        with pytest.raises(HopbenchError, match=words) as e:
            make()
        assert "\n" not in str(e.value)


@pytest.mark.parametrize("routing", ["updown", "adaptive-updown", "minimal", "hop-vc", "ugal", "bgal"])
def test_tables_above_the_caps_are_refused_before_allocating(monkeypatch, routing):
    # ring:8 has 64 switch pairs: at one key a pair the table is over a cap of 63 keys, whatever the state count;
    # under a key cap that admits it, its candidates (at least one a key) are over a cap of 10
    g = parse_spec("ring:8")
    monkeypatch.setenv("HOPBENCH_MAX_SIM_ROUTING_KEYS", "63")
    with pytest.raises(HopbenchError, match="table-key count of .* is .*above the cap of 63 .*HOPBENCH_MAX_SIM_ROUTING_KEYS") as e:
        build_routing(routing, g, num_vcs=4)
    assert "\n" not in str(e.value)
    monkeypatch.setenv("HOPBENCH_MAX_SIM_ROUTING_KEYS", "1000")
    monkeypatch.setenv("HOPBENCH_MAX_SIM_ROUTING_CANDIDATES", "10")
    with pytest.raises(HopbenchError, match="candidate next-hop count of .* is .*HOPBENCH_MAX_SIM_ROUTING_CANDIDATES"):
        build_routing(routing, g, num_vcs=4)
    monkeypatch.delenv("HOPBENCH_MAX_SIM_ROUTING_CANDIDATES")
    assert build_routing(routing, g, num_vcs=4).n == 8  # within both caps it builds


def test_check_connected():
    check_connected(parse_spec("ring:5"))
    check_connected(Graph(1, []))
    with pytest.raises(HopbenchError, match="network is disconnected: 2 components"):
        check_connected(Graph(5, [(0, 1), (1, 2), (3, 4)]))


def test_tables_are_read_only_and_typed():
    r = build_routing("adaptive-updown", parse_spec("ring:6"), num_vcs=2)
    for name in ("cand_port", "cand_vc_lo", "cand_vc_hi", "cand_state"):
        assert getattr(r, name).dtype == np.int32
    assert r.cand_ptr.dtype == np.int64 and r.cand_escape.dtype == np.uint8 and r.cand_random.dtype == np.uint8
    with pytest.raises(ValueError):
        r.cand_port[0] = 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.n = 3  # type: ignore[misc]


# --------------------------------------------------------------------------- Angara tables


def angara_table(spec, solver="angara-sssp", **problem):
    from hopbench import solvers
    from hopbench.harness.problems.routing import make_problem
    from hopbench.solvers.contract.budget import Budget
    from hopbench.solvers.contract.execution import execute

    return execute(solvers.create(solver), make_problem(spec, **problem), seed=0, budget=Budget(time_s=60)).solution


@pytest.mark.parametrize("spec, solver", [("4x4", "angara-sssp"), ("5x3x2", "angara-sssp"), ("4x4", "dor"),
                                          ("5x5", "angara-bfs"), ("3x3x3", "angara-sssp")])
def test_table_routing_follows_every_route_exactly(spec, solver):
    table = angara_table(spec, solver)
    net = table.problem.network
    r = build_routing("table", R._table_graph(net), num_vcs=2, table=table)
    g = R._table_graph(net)
    src, dst = table.problem.pairs
    for p, (a, b) in enumerate(zip(src.tolist(), dst.tolist())):
        route = table.dirs[table.offsets[p]:table.offsets[p + 1]].tolist()
        u, s, prev, crossed = a, r.init_state, None, False
        for d in route:
            cands = candidates(r, g, u, b, s)
            assert len(cands) == 1 and r.cand_random[(u * g.n + b) * r.num_states + s] == 0
            w, lo, hi, s, esc = cands[0]
            assert w == int(net.neighbor[u, d]) and esc == 0
            # dateline class: a same-direction run that crossed its ring's wrap-around link
            j = d % net.n
            c = (u // int(net.strides[j])) % net.dims[j]
            wrap = net.dims[j] >= 3 and (c == net.dims[j] - 1 if d < net.n else c == 0)
            crossed = (crossed and d == prev) or wrap
            assert (lo, hi) == ((1, 1) if crossed else (0, 0))
            u, prev = w, d
        assert u == b
    assert r.deadlock_free


def test_table_routing_refuses_subsets_and_other_networks():
    sub = angara_table("4x2x2x2", subset="desmos8")
    with pytest.raises(HopbenchError, match="routes 8 of the torus's 32 nodes"):
        build_routing("table", R._table_graph(sub.problem.network), num_vcs=2, table=sub)
    full = angara_table("4x2x2")
    with pytest.raises(HopbenchError, match="X fastest"):
        build_routing("table", parse_spec("torus:4x2x2"), num_vcs=2, table=full)
    # the same torus in our numbering (last axis fastest) is the table's with the axes reversed
    build_routing("table", parse_spec("torus:2x2x4"), num_vcs=2, table=full)
