"""``angara-bfs`` (Mukosey et al. 2021, Alg. 1-2)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.problems.routing import make_problem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.routing.angara_bfs import max_remote_order

ROOT = Path(__file__).resolve().parents[3]


def run(problem, name="angara-bfs", **budget):
    return execute(solvers.create(name), problem, seed=0, budget=Budget(**budget)).solution


def reference_bfs(problem):
    """Alg. 1-2 in plain Python on the explicit routing graph (no minimal-cone pruning): per level,
    the frontier's outgoing edges in ascending channel load (ties: queue order) claim new vertices;
    end(dst) hangs off the first vertex of dst in the last level."""
    g, net = problem.graph, problem.network
    adj = {}
    for (x, s), (y, s2), d in g.explicit_edges():
        if d >= 0:
            adj.setdefault((x, s), []).append(((y, s2), d))
    load = np.zeros(net.num_channel_slots, dtype=int)
    routes = {}
    for si in max_remote_order(problem):
        src = problem.nodes[si]
        parent = {(src, 0): None}
        frontier = [(src, 0)]
        first_at = {}
        while frontier:
            cand = [(load[u[0] * net.ndir + d], qi, u, v, d)
                    for qi, u in enumerate(frontier) for v, d in adj.get(u, [])]
            cand.sort(key=lambda t: (t[0], t[1]))
            nxt = []
            for _, _, u, v, d in cand:
                if v not in parent:
                    parent[v] = (u, d)
                    nxt.append(v)
                    first_at.setdefault(v[0], v)
            frontier = nxt
        for dst in problem.nodes:
            if dst == src:
                continue
            v, route = first_at[dst], []
            while parent[v] is not None:
                v, d = parent[v]
                route.append(d)
            routes[(src, dst)] = route[::-1]
        for dst in problem.nodes:
            if dst != src:
                x = src
                for d in routes[(src, dst)]:
                    load[x * net.ndir + d] += 1
                    x = net.neighbor[x, d]
    return routes


@pytest.mark.parametrize("spec, subset", [("4x4", None), ("4x2", None), ("3x2x4", None), ("6", None),
                                          ("4x2x2x2", "desmos8"), ("2x2x2x4", "desmos16")])
def test_matches_a_plain_python_reference(spec, subset):
    problem = make_problem(spec, subset=subset)
    table = run(problem)
    ref = reference_bfs(problem)
    for (s, d), route in ref.items():
        assert table.route(s, d) == route, (s, d)


def test_get_max_remote_order():
    problem = make_problem("5x4", nodes=[0, 3, 7, 12, 19])
    order = max_remote_order(problem)
    assert order[0] == 0 and sorted(order) == list(range(5))
    dist = problem.network.distance[np.ix_(problem.node_array, problem.node_array)]
    for a, b in zip(order, order[1:]):
        rest = [i for i in range(5) if i not in order[:order.index(b)]]
        assert dist[a, b] == max(dist[a, i] for i in rest)


@pytest.mark.parametrize("spec, subset", [("8", None), ("5x5", None), ("2x2x2x2", None), ("3x2x5", None),
                                          ("4x2x2x2", "desmos4"), ("7x3", None)])
def test_tables_are_valid_and_deadlock_free(spec, subset):
    problem = make_problem(spec, subset=subset)
    ev = run(problem).evaluate()  # raises on any rule, minimality or deadlock violation
    assert ev.max_load >= problem.load_lower_bound()


def test_reproduces_table2_on_the_mirrored_desmos_torus():
    """Table 2 (BFS, 32 nodes): max γ 48, min γ 3 -- reproduced on 2x2x2x4, where the 4-ring is the
    last dimension of the direction order; the reference is read from the suite file."""
    suite = tomllib.loads((ROOT / "instances" / "angara2021.toml").read_text())
    inst = next(i for i in suite["instances"] if i["torus"] == "2x2x2x4" and i.get("subset") == "all")
    ref = next(r for r in inst["reference"] if r["label"] == "BFS")
    ev = run(make_problem("2x2x2x4")).evaluate()
    assert (ev.max_load, ev.min_load, ev.max_length) == (ref["max_load"], ref["min_load"], ref["max_length"])


def test_budget_exhausted_falls_back_to_dor():
    problem = make_problem("4x4")
    table = run(problem, time_s=1e-9)
    assert table.extra["truncated_sources"] == 16
    table.evaluate()
