"""UGAL for simulation (the Equality paper's Sect. 3.5.2): its tables against the definition written out
here, its VC rule through the channel-dependency check, and the router's choice under load."""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.networks import load_network
from hopbench.harness.traffic import deadlock
from hopbench.harness.traffic.patterns import Hosts, make_pattern
from hopbench.harness.traffic.routing import build_routing
from hopbench.harness.traffic.simulator import Network, _State, router_config, simulate_load, with_config

SHORT = dict(warmup_periods=1, sample_period=400, max_samples=5)
EQ14 = "equality:N14K6[-1,1,3,9](4)"


def _graph(spec: str) -> Graph:
    return load_network(spec).graph if spec.startswith("equality:") else parse_spec(spec)


def _random_regular(n: int, d: int, seed: int) -> Graph:
    g = nx.random_regular_graph(d, n, seed=seed)
    return Graph(n, np.array(list(g.edges())))


def _net(g: Graph, num_vcs: int, pattern: str = "uniform", hosts: int = 1, **config) -> Network:
    cfg = router_config(**{"num_vcs": num_vcs, **SHORT, **config})
    h = Hosts.build(g.n, hosts)
    return Network(g, h, build_routing("ugal", g, num_vcs=num_vcs), make_pattern(pattern, h, seed=1, dims=(h.count,)),
                   cfg)


@pytest.mark.parametrize("graph", [EQ14, "ring:9", "torus:4x4", "rr"])
def test_tables_are_the_papers_minimal_and_sub_shortest_first_hops(graph):
    g = _random_regular(16, 3, 2) if graph == "rr" else _graph(graph)
    D = dict(nx.all_pairs_shortest_path_length(g.to_networkx()))
    r = build_routing("ugal", g, num_vcs=8)
    S = r.num_states
    indptr, indices = g.csr
    longest = 0
    for u in range(g.n):
        nbrs = [int(w) for w in indices[indptr[u]:indptr[u + 1]]]
        for t in range(g.n):
            if t == u:
                continue
            minimal = sorted(w for w in nbrs if D[w][t] + 1 == D[u][t])
            off = [w for w in nbrs if D[w][t] >= D[u][t]]
            m = min((D[w][t] for w in off), default=None)
            sub = sorted(w for w in off if D[w][t] == m)
            longest = max(longest, D[u][t], (m + 1) if m is not None else 0)
            for s in range(S):
                key = (u * g.n + t) * S + s
                cands = range(int(r.cand_ptr[key]), int(r.cand_ptr[key + 1]))
                nxt = [int(indices[indptr[u] + r.cand_port[i]]) for i in cands]
                if s + D[u][t] > S:
                    assert not nxt  # no packet gets here: no entry
                    continue
                # every hop on VC s (one per hop, as the paper's Sect. 3.6.2), then the next state
                assert all(r.cand_vc_lo[i] == r.cand_vc_hi[i] == s for i in cands)
                assert all(r.cand_state[i] == min(s + 1, S - 1) and not r.cand_escape[i] for i in cands)
                k = len(minimal)
                assert sorted(nxt[:k]) == minimal and all(r.cand_hops[i] == D[u][t] for i in cands[:k])
                if s == 0:
                    # the source: the sub-shortest first hops follow, with their path lengths
                    assert sorted(nxt[k:]) == sub
                    assert all(r.cand_hops[i] == m + 1 for i in cands[k:])
                    assert r.cand_random[key] == (2 if sub else 0)
                else:
                    assert len(nxt) == k and r.cand_random[key] == 0
    assert r.meta["longest"] == longest == S


@pytest.mark.parametrize("graph", [EQ14, "ring:8", "torus:4x4", "hypercube:3"])
def test_one_vc_per_hop_passes_the_dependency_check_and_fewer_vcs_are_refused(graph):
    g = _graph(graph)
    longest = build_routing("ugal", g, num_vcs=8).meta["longest"]
    ok = build_routing("ugal", g, num_vcs=longest)
    assert ok.deadlock_free and deadlock.check(ok, g).method == "acyclic"
    # one VC short: the later hops share the last VC and the check finds the cycle they close
    short = build_routing("ugal", g, num_vcs=longest - 1)
    report = deadlock.check(short, g)
    assert not short.deadlock_free and not report.deadlock_free and report.method == "cycle"
    with pytest.raises(HopbenchError, match="can deadlock"):
        deadlock.require_deadlock_free(short, g)


def test_a_simulation_with_too_few_vcs_is_refused_in_one_line():
    from hopbench.harness.traffic.study import simulate

    with pytest.raises(HopbenchError) as err:
        simulate(EQ14, routing="ugal", loads=[0.1], num_vcs=2)
    assert "can deadlock" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("graph,vcs,hosts,pattern", [(EQ14, 3, 2, "uniform"), ("torus:4x4", 5, 1, "tornado"),
                                                     ("rr", 6, 2, "randperm")])
def test_every_packet_arrives_after_a_run_past_saturation(graph, vcs, hosts, pattern):
    g = _random_regular(12, 3, 5) if graph == "rr" else _graph(graph)
    net = _net(g, vcs, pattern, hosts, vc_buf_size=2, packet_size=2, deadlock_cycles=300)
    st = _State(net, 3)
    from hopbench.harness.traffic import _router_kernel as k

    assert st.run(4000, 1.0, False) == k.RUNNING  # overloaded: the queues fill, UGAL misroutes
    st.run(20000, 1e-12, False)                  # then no new packets: everything must drain
    created = int(st.stats[k.S_CREATED_FLITS])
    assert created > 1000
    assert int(st.stats[k.S_EJECTED_FLITS]) == created
    assert int(st.stats[k.S_FLITS_IN_NETWORK]) == 0 and int(st.sq_count.sum()) == 0


def test_same_seed_same_numbers_other_seed_other_numbers():
    net = _net(_graph(EQ14), 3, hosts=2)
    a, b, c = (simulate_load(net, 0.5, seed=s).as_dict() for s in (5, 5, 6))
    for d in (a, b, c):
        d.pop("wall_s")
    assert a == b and a != c


def test_misroutes_follow_the_queues():
    # idle network: every packet stays minimal (ties keep it minimal); heavy load: queues build up and
    # some packets take the sub-shortest hop, so the mean path grows past the minimal one
    g = _graph("torus:4x4")
    D = nx.floyd_warshall_numpy(g.to_networkx())
    net = _net(g, 5, "uniform", 1)
    minimal_mean = D.sum() / (g.n * g.n)  # uniform over all hosts, the source itself included
    idle = simulate_load(with_config(net, sample_period=20000), 0.002, seed=1)
    assert idle.packets > 500 and idle.hops == pytest.approx(minimal_mean, rel=0.05)
    busy = simulate_load(net, 0.45, seed=1)
    hop_vc = Network(g, net.hosts, build_routing("hop-vc", g, num_vcs=5), net.pattern, net.config)
    plain = simulate_load(hop_vc, 0.45, seed=1)
    assert busy.hops > plain.hops * 1.03


def test_suite_loads_with_its_networks_and_routings():
    from pathlib import Path

    from hopbench.harness.bench.suites import load_suite

    suite = load_suite(Path(__file__).resolve().parents[3] / "instances" / "equality2022-traffic.toml")
    fields = [inst.fields for inst in suite.instances]
    assert {f.get("routing") for f in fields} == {"adaptive-updown", "ugal", "bgal"}
    assert any(str(f["network"]).startswith("equality:N200K24") for f in fields)


def _shortest_path_count(G: nx.Graph, u: int, t: int) -> int:
    return sum(1 for _ in nx.all_shortest_paths(G, u, t))


@pytest.mark.parametrize("graph", [EQ14, "torus:4x4", "rr"])
def test_bgal_is_ugal_with_sub_shortest_hops_only_for_pairs_of_at_most_two_shortest_paths(graph):
    # the Equality paper's Sect. 3.5.3: bgal keeps ugal's sub-shortest paths only where the pair has at most
    # 2 shortest paths (its bottleneck); counted here by networkx's path enumeration, not hopbench's
    from hopbench.harness.traffic.routing import BGAL_SHORTEST_PATHS

    g = _random_regular(16, 3, 2) if graph == "rr" else _graph(graph)
    G = g.to_networkx()
    u_tab = build_routing("ugal", g, num_vcs=8)
    b_tab = build_routing("bgal", g, num_vcs=8)
    assert b_tab.name == "bgal" and b_tab.deadlock_free
    indptr, indices = g.csr
    kept = dropped = 0
    for u in range(g.n):
        for t in range(g.n):
            if t == u:
                continue

            def first_hops(r, S):
                key = (u * g.n + t) * S
                cands = range(int(r.cand_ptr[key]), int(r.cand_ptr[key + 1]))
                return [(int(indices[indptr[u] + r.cand_port[i]]), int(r.cand_hops[i])) for i in cands]

            ug, bg = first_hops(u_tab, u_tab.num_states), first_hops(b_tab, b_tab.num_states)
            minimal = [c for c in ug if c[1] == nx.shortest_path_length(G, u, t)]
            if _shortest_path_count(G, u, t) <= BGAL_SHORTEST_PATHS:
                assert bg == ug
                kept += len(ug) > len(minimal)
            else:
                assert bg == minimal  # the minimal first hops only, in ugal's order
                dropped += len(ug) > len(minimal)
    assert kept and dropped  # both sides of the threshold occur on these graphs


def test_bgal_on_a_ring_misroutes_where_ugal_does():
    # a ring pair has 1 or 2 shortest paths: every pair is a bottleneck, so bgal's tables are ugal's
    g = _graph("ring:9")
    u_tab, b_tab = build_routing("ugal", g, num_vcs=8), build_routing("bgal", g, num_vcs=8)
    assert np.array_equal(u_tab.cand_ptr, b_tab.cand_ptr) and np.array_equal(u_tab.cand_port, b_tab.cand_port)
