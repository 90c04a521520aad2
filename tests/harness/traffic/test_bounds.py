"""Throughput bounds: closed forms, the ordering channel-load <= max concurrent flow, and the errors."""
from __future__ import annotations

import subprocess
import sys

import networkx as nx
import numpy as np
import pytest

from hopbench.harness.engine.summary import summary
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.traffic import bounds
from hopbench.harness.traffic.bounds import channel_load_bound, channel_loads, demand_for, lp_size, max_concurrent_flow
from hopbench.harness.traffic.routing import SimRouting


# --------------------------------------------------------------------------- helpers


def bfs_distances(g: Graph) -> np.ndarray:
    """All-pairs hop distances by plain BFS (independent of the engine)."""
    return np.array([[d for _, d in sorted(nx.single_source_shortest_path_length(g.to_networkx(), s).items())]
                     for s in range(g.n)])


def shortest_path_routing(g: Graph, *, extra_escape: int | None = None, escape_only: bool = False) -> SimRouting:
    """Minimal routing with every shortest-path next hop a candidate (one state, one VC).

    ``extra_escape``: also list port ``extra_escape`` (when the switch has it) as an escape candidate
    at every key; ``escape_only``: mark the shortest-path candidates themselves as escape candidates.
    """
    n = g.n
    dist = bfs_distances(g)
    indptr, indices = g.csr
    ptr, port, esc = [0], [], []
    for r in range(n):
        nbrs = indices[indptr[r]:indptr[r + 1]]
        for t in range(n):
            if r != t:
                for k, v in enumerate(nbrs):
                    if dist[v, t] == dist[r, t] - 1:
                        port.append(k)
                        esc.append(1 if escape_only else 0)
                if extra_escape is not None and extra_escape < len(nbrs):
                    port.append(extra_escape)
                    esc.append(1)
            ptr.append(len(port))
    c = len(port)
    return SimRouting(name="test-minimal", n=n, num_vcs=1, num_states=1, init_state=0,
                      cand_ptr=np.array(ptr, np.int64), cand_port=np.array(port, np.int32),
                      cand_vc_lo=np.zeros(c, np.int32), cand_vc_hi=np.zeros(c, np.int32),
                      cand_state=np.zeros(c, np.int32), cand_escape=np.array(esc, np.uint8),
                      cand_random=np.zeros(n * n, np.uint8), deadlock_free=False)


def graph_of(nxg: nx.Graph) -> Graph:
    nxg = nx.convert_node_labels_to_integers(nxg)
    return Graph(nxg.number_of_nodes(), np.array(nxg.edges(), dtype=np.int64))


def pairs(n: int) -> np.ndarray:
    """One unit per ordered pair of distinct switches."""
    return np.ones((n, n)) - np.eye(n)


def closed_form(g: Graph) -> float:
    """capacity x directed links / (ordered pairs x ASPL): exact for all-to-all on edge-transitive graphs."""
    return 2 * g.m / (g.n * (g.n - 1) * summary(g).aspl)


BACKENDS = ["highs", "highs-scipy", "glop", "pdlp"]


def solve(g: Graph, demand: np.ndarray, backend: str, monkeypatch, **kw) -> bounds.FlowBound:
    if backend == "highs-scipy":  # HiGHS through scipy.optimize.linprog, as without highspy
        monkeypatch.setattr(bounds, "_highspy", lambda: None)
        backend = "highs"
    return max_concurrent_flow(g, demand, backend=backend, **kw)


# --------------------------------------------------------------------------- max concurrent flow: closed forms


EDGE_TRANSITIVE = {
    "petersen": lambda: graph_of(nx.petersen_graph()),
    "K7": lambda: graph_of(nx.complete_graph(7)),
    "Q6": lambda: parse_spec("hypercube:6"),
    "torus:8x8": lambda: parse_spec("torus:8x8"),
}
_SLOW = {("Q6", "glop"), ("torus:8x8", "glop"), ("Q6", "highs-scipy"), ("torus:8x8", "highs-scipy")}


@pytest.mark.parametrize("name,backend", [
    pytest.param(name, b, marks=pytest.mark.slow) if (name, b) in _SLOW else (name, b)
    for name in EDGE_TRANSITIVE for b in BACKENDS])
def test_all_to_all_on_edge_transitive_graphs_meets_the_closed_form(name, backend, monkeypatch):
    g = EDGE_TRANSITIVE[name]()
    r = solve(g, pairs(g.n), backend, monkeypatch)
    assert r.status == "optimal", r
    assert r.lam == pytest.approx(closed_form(g), rel=1e-6)
    assert r.variables == g.n * 2 * g.m + 1 and r.sources == g.n


def test_known_values_of_the_closed_form():
    # guards closed_form itself: Q6 has 384 directed links and ASPL 6 * 32 / 63; Petersen 30 and 5/3
    assert closed_form(parse_spec("hypercube:6")) == pytest.approx(1 / 32)
    assert closed_form(graph_of(nx.petersen_graph())) == pytest.approx(30 / (90 * 5 / 3))
    assert closed_form(graph_of(nx.complete_graph(7))) == pytest.approx(1.0)


def test_capacity_and_demand_scale_the_bound_linearly(monkeypatch):
    g = graph_of(nx.petersen_graph())
    base = max_concurrent_flow(g, pairs(g.n)).lam
    assert max_concurrent_flow(g, pairs(g.n), capacity=2.5).lam == pytest.approx(2.5 * base, rel=1e-9)
    assert max_concurrent_flow(g, 4.0 * pairs(g.n)).lam == pytest.approx(base / 4, rel=1e-9)
    d = pairs(g.n) + 7 * np.eye(g.n)  # the diagonal never uses a link
    assert max_concurrent_flow(g, d).lam == pytest.approx(base, rel=1e-9)


def test_a_single_pair_gets_the_min_cut():
    # one commodity: max flow = min cut; on a 3-regular graph between two vertices that is 3 (Menger)
    g = graph_of(nx.petersen_graph())
    d = np.zeros((10, 10))
    d[0, 7] = 1.0
    assert max_concurrent_flow(g, d).lam == pytest.approx(3.0, rel=1e-7)
    ring = parse_spec("ring:6")
    d = np.zeros((6, 6))
    d[0, 3] = 2.0  # two disjoint paths of capacity 1 carry 2 flits/cycle, i.e. lam = 1
    assert max_concurrent_flow(ring, d).lam == pytest.approx(1.0, rel=1e-7)


@pytest.mark.parametrize("backend", ["highs", "glop", "pdlp"])
def test_a_time_limit_stops_the_solver(backend):
    g = parse_spec("hypercube:6")  # about 2 s for the fastest backend
    r = max_concurrent_flow(g, pairs(64), backend=backend, time_limit=0.05)
    assert r.status == "time_limit" and np.isnan(r.lam)


def test_no_traffic_over_links_is_unbounded():
    g = parse_spec("ring:5")
    r = max_concurrent_flow(g, np.eye(5))
    assert r.lam == np.inf and r.variables == 0


def test_the_highs_banner_does_not_reach_stdout():
    code = ("import numpy as np\n"
            "from hopbench.harness.graphs.topologies import parse_spec\n"
            "from hopbench.harness.traffic.bounds import max_concurrent_flow\n"
            "g = parse_spec('ring:5')\n"
            "r = max_concurrent_flow(g, np.ones((5, 5)) - np.eye(5), backend='highs')\n"
            "assert r.status == 'optimal'\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""


# --------------------------------------------------------------------------- channel-load bound: closed forms


@pytest.mark.parametrize("N", [5, 9, 12, 16])
def test_uniform_on_a_ring_with_minimal_routing(N):
    g = parse_spec(f"ring:{N}")
    bound = channel_load_bound(shortest_path_routing(g), g, pairs(N))
    # a clockwise link carries the pairs 1..k-1 hops apart that cross it, plus half of those k apart
    # when N = 2k (the half-way pair splits evenly): k(k+1)/2 for N = 2k + 1, k^2/2 for N = 2k
    k = N // 2
    expected = 2 / (k * (k + 1)) if N % 2 else 2 / k**2
    assert bound == pytest.approx(expected, rel=1e-12)
    assert 8 / (N * N - (N % 2)) == pytest.approx(expected)


def test_uniform_on_a_ring_per_host():
    N, h = 9, 3
    g = parse_spec(f"ring:{N}")
    d = demand_for("all-to-all", g, hosts_per_switch=h)
    hosts = N * h
    # per ordered switch pair the rate is lam * h^2 / (hosts - 1); the pair bound is 2 / (k (k+1))
    per_pair = 2 / (4 * 5)
    assert channel_load_bound(shortest_path_routing(g), g, d) == pytest.approx(per_pair * (hosts - 1) / h**2)


@pytest.mark.parametrize("N", [7, 9, 11])
def test_tornado_and_neighbour_on_a_ring(N):
    g = parse_spec(f"ring:{N}")
    routing = shortest_path_routing(g)
    k = N // 2
    tornado = np.zeros((N, N))
    tornado[np.arange(N), (np.arange(N) + k) % N] = 1.0  # every flit k hops clockwise: k flows per link
    assert channel_load_bound(routing, g, tornado) == pytest.approx(1 / k)
    neighbour = np.zeros((N, N))
    neighbour[np.arange(N), (np.arange(N) + 1) % N] = 1.0
    assert channel_load_bound(routing, g, neighbour) == pytest.approx(1.0)
    assert channel_load_bound(routing, g, neighbour, capacity=3.0) == pytest.approx(3.0)


def test_tornado_lp_sends_flits_both_ways():
    # on a ring of N = 2k + 1, tornado (k hops clockwise) can also go k + 1 hops the other way:
    # splitting x clockwise, 1 - x anticlockwise, link loads k x and (k + 1)(1 - x) balance at
    # x = (k + 1) / (2k + 1), so lam = (2k + 1) / (k (k + 1))
    N, k = 9, 4
    g = parse_spec(f"ring:{N}")
    tornado = np.zeros((N, N))
    tornado[np.arange(N), (np.arange(N) + k) % N] = 1.0
    assert max_concurrent_flow(g, tornado).lam == pytest.approx(N / (k * (k + 1)), rel=1e-7)


def test_channel_loads_of_a_hypercube_are_even_and_optimal():
    g = parse_spec("hypercube:4")
    loads = channel_loads(shortest_path_routing(g), g, pairs(g.n))
    # every link of Q4 carries the same: total hops / links = n (n-1) ASPL / 2m
    assert np.allclose(loads, loads[0])
    assert loads.sum() == pytest.approx(g.n * (g.n - 1) * summary(g).aspl)
    assert channel_load_bound(shortest_path_routing(g), g, pairs(g.n)) == pytest.approx(closed_form(g))


def test_escape_candidates_carry_traffic_only_where_nothing_else_is_listed():
    g = parse_spec("torus:4x4")
    plain = channel_loads(shortest_path_routing(g), g, pairs(16))
    with_escape = channel_loads(shortest_path_routing(g, extra_escape=0), g, pairs(16))
    np.testing.assert_allclose(with_escape, plain)
    # a table made of escape candidates only routes on them
    only = channel_loads(shortest_path_routing(g, escape_only=True), g, pairs(16))
    np.testing.assert_allclose(only, plain)


def test_random_keys_split_evenly_too():
    g = parse_spec("torus:4x4")
    r = shortest_path_routing(g)
    rnd = SimRouting(**{**r.__dict__, "cand_random": np.ones(16 * 16, np.uint8)})
    np.testing.assert_allclose(channel_loads(rnd, g, pairs(16)), channel_loads(r, g, pairs(16)))


def test_states_are_followed():
    # the same minimal routing spread over two states (a packet flips state at every hop) loads alike
    g = parse_spec("ring:7")
    r = shortest_path_routing(g)
    n, S = 7, 2
    counts = np.diff(r.cand_ptr)
    ptr = np.zeros(n * n * S + 1, np.int64)
    per_key = np.repeat(counts, S)  # key (r, t) -> keys (r, t, 0) and (r, t, 1)
    ptr[1:] = np.cumsum(per_key)
    port = np.concatenate([np.tile(r.cand_port[r.cand_ptr[k]:r.cand_ptr[k + 1]], S) for k in range(n * n)])
    state = np.concatenate([np.repeat([1, 0], counts[k]) for k in range(n * n)]).astype(np.int32)
    c = len(port)
    two = SimRouting(name="two-state", n=n, num_vcs=1, num_states=S, init_state=1, cand_ptr=ptr,
                     cand_port=port.astype(np.int32), cand_vc_lo=np.zeros(c, np.int32),
                     cand_vc_hi=np.zeros(c, np.int32), cand_state=state, cand_escape=np.zeros(c, np.uint8),
                     cand_random=np.zeros(n * n * S, np.uint8), deadlock_free=False)
    np.testing.assert_allclose(channel_loads(two, g, pairs(n)), channel_loads(r, g, pairs(n)))


# --------------------------------------------------------------------------- ordering: any routing is a flow


ORDER_GRAPHS = {
    "torus:4x4": lambda: parse_spec("torus:4x4"),
    "mesh:3x4": lambda: parse_spec("mesh:3x4"),
    "petersen": lambda: graph_of(nx.petersen_graph()),
    "rrg:16:3": lambda: graph_of(nx.random_regular_graph(3, 16, seed=3)),
    "ring:10": lambda: parse_spec("ring:10"),
}


@pytest.mark.parametrize("name", list(ORDER_GRAPHS))
@pytest.mark.parametrize("pattern", ["all-to-all", "permutation", "longest-matching"])
def test_channel_load_bound_never_exceeds_the_lp_bound(name, pattern):
    g = ORDER_GRAPHS[name]()
    d = demand_for(pattern, g, hosts_per_switch=2, seed=5)
    lp = max_concurrent_flow(g, d)
    routed = channel_load_bound(shortest_path_routing(g), g, d)
    assert lp.status == "optimal"
    assert routed <= lp.lam * (1 + 1e-7)
    assert routed > 0


def test_routings_from_the_routing_module_stay_below_the_lp_bound():
    from hopbench.harness.traffic import routing as rt

    g = parse_spec("torus:4x4")
    d = demand_for("all-to-all", g)
    lp = max_concurrent_flow(g, d).lam
    built = []
    for make in ("minimal", "updown", "adaptive_updown"):
        if hasattr(rt, make):
            built.append(getattr(rt, make)(g, num_vcs=2))
    if hasattr(rt, "dimension_order"):
        built.append(rt.dimension_order((4, 4), torus=True, num_vcs=2, graph=g))
    if not built:
        pytest.skip("routing.py has no builders yet")
    for r in built:
        assert 0 < channel_load_bound(r, g, d) <= lp * (1 + 1e-7), r.name


# --------------------------------------------------------------------------- patterns


def test_all_to_all_demand():
    g = parse_spec("ring:6")
    d = demand_for("all-to-all", g, hosts_per_switch=3)
    np.testing.assert_allclose(d.sum(axis=1), 3.0)  # every host injects 1 flit/cycle
    assert d[0, 1] == pytest.approx(9 / 17) and d[0, 0] == pytest.approx(6 / 17)
    np.testing.assert_allclose(demand_for("uniform", g), (np.ones((6, 6)) - np.eye(6)) / 5)


def test_permutation_demand_is_a_seeded_derangement():
    g = parse_spec("torus:4x4")
    a = demand_for("permutation", g, seed=3)
    np.testing.assert_array_equal(a, demand_for("permutation", g, seed=3))
    assert not np.array_equal(a, demand_for("permutation", g, seed=4))
    assert np.trace(a) == 0  # one host per switch: no host sends to itself
    np.testing.assert_array_equal(a.sum(axis=0), 1)
    np.testing.assert_array_equal(a.sum(axis=1), 1)
    b = demand_for("permutation", g, hosts_per_switch=4, seed=3)
    np.testing.assert_array_equal(b.sum(axis=0), 4)
    np.testing.assert_array_equal(b.sum(axis=1), 4)


def test_longest_matching_pairs_far_switches():
    g = parse_spec("torus:8x8")
    d = demand_for("longest-matching", g, hosts_per_switch=2)
    np.testing.assert_array_equal(d, d.T)
    np.testing.assert_array_equal((d > 0).sum(axis=1), 1)  # a perfect matching
    dist = bfs_distances(g)
    assert (dist[d > 0] == 8).all()  # every switch has an antipode 8 hops away
    assert d.max() == 2
    odd = demand_for("matching", parse_spec("ring:9"))
    assert (odd.sum(axis=1) == 0).sum() == 1  # one switch left out
    assert (bfs_distances(parse_spec("ring:9"))[odd > 0] == 4).all()


# --------------------------------------------------------------------------- errors


def one_line(excinfo) -> str:
    text = str(excinfo.value)
    assert "\n" not in text
    return text


def test_a_disconnected_graph_is_one_line():
    g = Graph(6, [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)])
    with pytest.raises(HopbenchError) as e:
        max_concurrent_flow(g, pairs(6))
    assert "disconnected (2 parts)" in one_line(e)
    d = np.zeros((6, 6))
    d[0, 1] = d[3, 4] = 1.0  # traffic within the parts is fine
    assert max_concurrent_flow(g, d).lam == pytest.approx(2.0, rel=1e-7)
    with pytest.raises(HopbenchError) as e:
        demand_for("longest-matching", g)
    assert "disconnected" in one_line(e)


def test_demand_shape_and_values_are_checked():
    g = parse_spec("ring:5")
    with pytest.raises(HopbenchError) as e:
        max_concurrent_flow(g, np.ones((4, 4)))
    assert "shape (4, 4)" in one_line(e) and "5 switches" in one_line(e)
    with pytest.raises(HopbenchError) as e:
        channel_load_bound(shortest_path_routing(g), g, np.ones((5, 6)))
    assert "shape (5, 6)" in one_line(e)
    bad = pairs(5)
    bad[1, 2] = -1
    with pytest.raises(HopbenchError, match="negative"):
        max_concurrent_flow(g, bad)
    bad[1, 2] = np.nan
    with pytest.raises(HopbenchError, match="NaN"):
        max_concurrent_flow(g, bad)
    with pytest.raises(HopbenchError, match="numpy array"):
        max_concurrent_flow(g, [[0.0]])


def test_the_lp_is_capped_before_it_is_built(monkeypatch):
    g = parse_spec("torus:8x8")
    assert lp_size(g, pairs(64)) == (64 * 256 + 1, 64 * 63 + 256)
    monkeypatch.setenv("HOPBENCH_MAX_LP_VARIABLES", "10000")
    monkeypatch.setattr(bounds, "_build_lp", lambda *a: pytest.fail("built before the cap check"))
    with pytest.raises(HopbenchError) as e:
        max_concurrent_flow(g, pairs(64))
    text = one_line(e)
    assert "16,385" in text and "10,000" in text and "HOPBENCH_MAX_LP_VARIABLES" in text


def test_bad_parameters():
    g = parse_spec("ring:5")
    with pytest.raises(HopbenchError, match="unknown LP backend"):
        max_concurrent_flow(g, pairs(5), backend="cplex")
    with pytest.raises(HopbenchError, match="time_limit"):
        max_concurrent_flow(g, pairs(5), time_limit=0)
    with pytest.raises(HopbenchError, match="capacity"):
        max_concurrent_flow(g, pairs(5), capacity=-1)
    with pytest.raises(HopbenchError, match="unknown traffic pattern"):
        demand_for("bitrev", g)
    with pytest.raises(HopbenchError, match="hosts_per_switch"):
        demand_for("all-to-all", g, hosts_per_switch=0)
    with pytest.raises(HopbenchError, match="HOPBENCH_MAX_VERTICES"):
        demand_for("permutation", g, hosts_per_switch=10**9)


def test_broken_routings_are_refused():
    g = parse_spec("ring:6")
    r = shortest_path_routing(g)
    with pytest.raises(HopbenchError, match="routing is for 6 switches but the graph has 7"):
        channel_loads(r, parse_spec("ring:7"), pairs(7))
    # a dead end: drop the candidates of key (0 -> 3)
    ptr = r.cand_ptr.copy()
    key = 0 * 6 + 3
    gone = ptr[key + 1] - ptr[key]
    keep = np.ones(len(r.cand_port), bool)
    keep[ptr[key]:ptr[key + 1]] = False
    ptr[key + 1:] -= gone
    dead = SimRouting(**{**r.__dict__, "cand_ptr": ptr, "cand_port": r.cand_port[keep],
                         "cand_vc_lo": r.cand_vc_lo[keep], "cand_vc_hi": r.cand_vc_hi[keep],
                         "cand_state": r.cand_state[keep], "cand_escape": r.cand_escape[keep]})
    with pytest.raises(HopbenchError) as e:
        channel_loads(dead, g, pairs(6))
    assert "no candidate at switch 0 for destination 3" in one_line(e)
    # a cycle: every switch forwards traffic for 3 clockwise, and switch 3's neighbour 2 sends it back
    port = r.cand_port.copy()
    indptr, indices = g.csr
    for s in range(6):
        k = s * 6 + 3
        nxt = (s + 1) % 6
        port[r.cand_ptr[k]:r.cand_ptr[k + 1]] = int(np.flatnonzero(indices[indptr[s]:indptr[s + 1]] == nxt)[0])
    k = 2 * 6 + 3
    port[r.cand_ptr[k]:r.cand_ptr[k + 1]] = int(np.flatnonzero(indices[indptr[2]:indptr[3]] == 1)[0])
    cyc = SimRouting(**{**r.__dict__, "cand_port": port})
    with pytest.raises(HopbenchError) as e:
        channel_loads(cyc, g, pairs(6))
    assert "cycle" in one_line(e)
    bad = SimRouting(**{**r.__dict__, "cand_port": np.full_like(r.cand_port, 5)})
    with pytest.raises(HopbenchError, match="port or state that does not exist"):
        channel_loads(bad, g, pairs(6))
