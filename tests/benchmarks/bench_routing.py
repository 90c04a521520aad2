"""Speed of the Angara routing solvers (a script, not a timed test).

Prints, for angara-sssp on 4x4x4x4 (target <= 5 s) and 8x8x8 (target <= 30 s),
the time from scratch -- routing graph with the Theorem 2 extension, candidate
routes, Alg. 3 -- with compiled kernels already loaded, plus angara-bfs and dor
for scale; then the speed-up of our BUILD_SSSP (compiled, minimal-cone pruned,
non-crossing batches) over a plain reference on a smaller torus: the same
stage order with one networkx Dijkstra per pair on the explicit routing graph
(P^2-SSSP, weights |N|^2 + load).

    python tests/benchmarks/bench_routing.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402

from hopbench import solvers  # noqa: E402
from hopbench.harness.problems.routing import RoutingProblem, RoutingTable, make_problem  # noqa: E402
from hopbench.harness.problems.routing.graph import RoutingGraph  # noqa: E402
from hopbench.harness.problems.routing.network import Torus  # noqa: E402
from hopbench.solvers.contract.budget import Budget, Reporter  # noqa: E402
from hopbench.solvers.routing.angara_sssp import group_pairs  # noqa: E402


def fresh(spec: str) -> RoutingProblem:
    """A problem whose routing graph is not cached, so building it is part of the measured time."""
    net = Torus(spec)
    problem = make_problem(spec)
    graph = RoutingGraph(net)
    object.__setattr__(problem, "network", net)
    problem.__dict__["graph"] = graph
    return problem


def timed(name: str, spec: str) -> tuple[float, object]:
    solver = solvers.create(name)  # compiles / loads the kernels (warm-up on a tiny torus)
    start = time.perf_counter()
    problem = fresh(spec)
    table = solver.solve(problem, seed=0, budget=Budget(), report=Reporter())
    return time.perf_counter() - start, table


def reference_p2_sssp(problem: RoutingProblem) -> RoutingTable:
    """Unique routes, then the same pair order, one Dijkstra per pair in networkx."""
    g, net = problem.graph, problem.network
    big = problem.num_nodes ** 2
    G = nx.DiGraph()
    for (x, s), v, d in g.explicit_edges():
        G.add_edge((x, s), v, chan=x * net.ndir + d if d >= 0 else -1)
    load = np.zeros(net.num_channel_slots, dtype=np.int64)

    def weight(u, v, data):
        return 0 if data["chan"] < 0 else big + int(load[data["chan"]])

    cand = problem.candidates
    routes: list[list[int]] = [[] for _ in range(problem.num_pairs)]
    for p in np.flatnonzero(cand.counts == 1).tolist():
        routes[p] = cand.routes_of(p)[0]
        r = cand.pair_ptr[p]
        load[cand.channels[cand.offsets[r]:cand.offsets[r + 1]]] += 1
    rows, _, _, _ = group_pairs(problem, np.flatnonzero(cand.counts > 1))
    src, dst = problem.pairs
    for p in rows.tolist():
        path = nx.dijkstra_path(G, (int(src[p]), g.begin), (int(dst[p]), g.end), weight=weight)
        steps = [G.edges[a, b]["chan"] for a, b in zip(path, path[1:]) if G.edges[a, b]["chan"] >= 0]
        load[steps] += 1
        routes[p] = [c % net.ndir for c in steps]
    return RoutingTable.from_routes(problem, routes)


def main() -> None:
    print("angara routing solvers, time from scratch (routing graph + candidates + solve), kernels loaded")
    for spec, target in (("4x4x4x4", 5.0), ("8x8x8", 30.0)):
        for name in ("dor", "angara-bfs", "angara-sssp"):
            seconds, table = timed(name, spec)
            ev = table.evaluate()
            mark = f"  (target <= {target:g} s: {'met' if seconds <= target else 'NOT met'})" \
                if name == "angara-sssp" else ""
            print(f"  {spec:8s} {name:12s} {seconds:7.2f} s   max load {ev.max_load}{mark}")

    spec = "4x4x3"
    problem = make_problem(spec)
    problem.candidates
    solver = solvers.create("angara-sssp")
    start = time.perf_counter()
    ours = solver.solve(problem, seed=0, budget=Budget(), report=Reporter())
    t_ours = time.perf_counter() - start
    start = time.perf_counter()
    ref = reference_p2_sssp(problem)
    t_ref = time.perf_counter() - start
    print(f"BUILD_SSSP vs plain P^2-SSSP (networkx Dijkstra per pair) on {spec}: "
          f"{t_ref:.2f} s / {t_ours:.3f} s = {t_ref / t_ours:.0f}x faster "
          f"(max load {ours.evaluate().max_load} vs {ref.evaluate().max_load})")


if __name__ == "__main__":
    main()
