"""lift-tabu: tabu search over cyclic lifts, and the voltage-mask evaluation it runs on."""
from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.engine.distances import summary
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.shortcut import _lift_kernel as K
from hopbench.solvers.shortcut import _golf
from hopbench.solvers.shortcut.lift_tabu import (LiftPlan, LiftSearch, auto_order, lift_edges, measure_work, quotient_edges,
                                        quotient_loops)

GRAPHGOLF = Path(__file__).parents[2] / "data" / "graphgolf"


def problem(spec: str, cap: int, budget: int | None = None, objective: str = "golf", **kw) -> ShortcutProblem:
    base = parse_spec(spec)
    if budget is None:
        budget = (base.n * cap - 2 * base.edges.shape[0]) // 2
    return ShortcutProblem(base, cap, budget, objective, base_spec=spec, **kw)


def measured(q: np.ndarray, m: int, g: int, *, far_level: int, wf: float = 0.0, limit: float = np.inf,
             src_lb: int = 0, cap: int = 64):
    work = measure_work(m, cap)
    e = K.measure(q[:, 0].copy(), q[:, 1].copy(), q[:, 2].copy(), m, g, far_level, wf, limit, src_lb, *work)
    return e, work[-1]


def random_quotient(m: int, g: int, cap: int, seed: int) -> np.ndarray:
    ne = m * cap // 2
    edges = np.zeros((3, ne), np.int64)
    rng = np.random.default_rng(seed).integers(1, 2**62, size=4, dtype=np.uint64)
    assert K.random_quotient(rng, *edges, 0, np.full(m, cap, np.int64), g, True, 1000)
    return edges.T.copy()


def test_the_best_known_512_4_graph_is_a_z64_lift_and_measures_exactly():
    edges = parse_spec(f"file:{GRAPHGOLF / 'topology_512_4.bst.edges'}").edges
    q, halved = quotient_edges(edges, 512, 64)
    assert not halved and q.shape == (16, 3)
    lifted = {tuple(e) for e in lift_edges(q[:, 0], q[:, 1], q[:, 2], 8, 64)}
    assert lifted == {tuple(e) for e in np.sort(edges, axis=1)}
    _, out = measured(q, 8, 64, far_level=7)
    s = summary(parse_spec(f"file:{GRAPHGOLF / 'topology_512_4.bst.edges'}"))
    assert (out[K.M_ECC], out[K.M_FAR], out[K.M_LOST]) == (s.diameter, 0, 0) == (6, 0, 0)
    # the representatives' distance sums, times g, are every ordered pair's
    assert out[K.M_S] * 64 == round(s.aspl * 512 * 511) == 19502 * 64


# m = 9, 12, 17, 20: the representatives take more than one group of LANES
@pytest.mark.parametrize("m, g, cap", [(8, 64, 4), (5, 7, 4), (12, 1, 3), (6, 10, 5), (4, 33, 3), (9, 64, 4),
                                       (17, 4, 4), (20, 3, 3)])
def test_measure_matches_a_bfs_of_the_lift(m, g, cap):
    n = m * g
    for seed in range(4):
        q = random_quotient(m, g, cap, seed)
        graph = nx.Graph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from(map(tuple, lift_edges(q[:, 0], q[:, 1], q[:, 2], m, g)))
        assert all(d == cap for _, d in graph.degree())
        dist = [nx.single_source_shortest_path_length(graph, r) for r in range(m)]
        far_level = 3
        e, out = measured(q, m, g, far_level=far_level, wf=2.0, cap=cap)
        lost = sum(n - len(d) for d in dist)
        assert out[K.M_LOST] == lost
        assert out[K.M_S] == sum(sum(d.values()) for d in dist)
        assert out[K.M_FAR] == lost + sum(1 for d in dist for x in d.values() if x >= far_level)
        assert out[K.M_ECC] == max(max(d.values()) for d in dist)
        assert e == 2.0 * out[K.M_FAR] + out[K.M_S] + lost * n


def test_a_disconnected_lift_counts_its_unreachable_vertices():
    # one quotient edge (0, 1, 0) per orbit: the lift is a perfect matching of 8 vertices
    q = np.array([[0, 1, 0]], np.int64)
    e, out = measured(q, 2, 4, far_level=2)
    assert out[K.M_LOST] == 2 * 6 and out[K.M_S] == 2
    assert e == 2 + 12 * 8


def test_measure_stops_once_the_energy_must_exceed_the_limit():
    q = random_quotient(8, 64, 4, 1)
    exact, _ = measured(q, 8, 64, far_level=7, wf=3.0)
    assert measured(q, 8, 64, far_level=7, wf=3.0, limit=exact)[0] == exact
    assert measured(q, 8, 64, far_level=7, wf=3.0, limit=exact - 1)[0] == np.inf


@pytest.mark.parametrize("m, g, cap, far_level", [(8, 64, 4, 7), (8, 9, 4, 5), (16, 64, 8, 4), (12, 8, 4, 5),
                                                  (20, 3, 3, 4)])
def test_a_measure_cut_by_its_limit_is_never_below_it(m, g, cap, far_level):
    # the level bounds prune only moves that are worse than the limit, and what they let through is exact;
    # a third of the quotients lose some voltages (0: a lift with short cycles or disconnected)
    n = m * g
    src_lb = _golf.moore_source_sum(n, cap)
    zero = np.random.default_rng(m * g)
    cut = 0
    for seed in range(60):
        q = random_quotient(m, g, cap, seed)
        if seed % 3 == 0:
            q[zero.random(q.shape[0]) < 0.4, 2] = 0
        exact, _ = measured(q, m, g, far_level=far_level, wf=2.0, src_lb=src_lb, cap=cap)
        for limit in (exact - 40, exact - 1, exact, exact + 0.5, exact * 0.97):
            e, _ = measured(q, m, g, far_level=far_level, wf=2.0, limit=limit, src_lb=src_lb, cap=cap)
            assert e == exact or (e == np.inf and exact > limit)
            cut += e == np.inf
    assert cut > 0  # the bounds do prune


def test_quotient_edges_find_half_orbits():
    # ring:8 at order 2 (v -> v + 4): no edge maps to its own reverse
    q, halved = quotient_edges(parse_spec("ring:8").edges, 8, 2)
    assert not halved and sorted(map(tuple, q)) == [(0, 1, 0), (0, 3, 1), (1, 2, 0), (2, 3, 0)]
    # the edge (0, 4) of 8 vertices at order 2 is its own image: a half orbit
    assert quotient_edges(np.array([[0, 4], [1, 5], [2, 6], [3, 7]]), 8, 2)[1]


def state(search: LiftSearch) -> list:
    return [search.edges.copy(), search.best.copy(), search.until.copy(), search.ivars.copy(), search.fvars.copy(),
            search.rng.copy()]


def test_a_scan_cut_anywhere_resumes_to_the_same_walk():
    p = problem("empty:128", 4)
    plan = LiftPlan(p, 16)
    cfg = dict(solvers.create("lift-tabu", walk_steps=3, swap_share=0.5).config)
    whole, cut = LiftSearch(p, plan, cfg, 7), LiftSearch(p, plan, cfg, 7)
    total, _ = whole.run(6000, 10**9)
    # cuts of 1 to 3 evaluations also fall where one step ends and the next has not evaluated anything
    sizes = np.random.default_rng(0).choice([1, 2, 3, 50, 299], size=100_000)
    spent = 0
    for size in sizes:
        if spent >= total:
            break
        spent += cut.run(min(int(size), total - spent), 10**9)[0]
    assert spent == total and whole.ivars[K.I_RESTARTS] > 0
    for a, b in zip(state(whole), state(cut)):
        np.testing.assert_array_equal(a, b)


def test_finds_the_optimum_of_16_3():
    out = execute(solvers.create("lift-tabu", symmetry=1), problem("empty:16", 3), seed=1,
                  budget=Budget(evaluations=20000))
    ev = out.solution.evaluate()
    assert (ev.diameter, ev.aspl) == (ev.lower_bound_diameter, ev.lower_bound_aspl) == (3, 2.2)


def test_the_solution_is_regular_and_invariant_under_the_rotation():
    p = problem("ring:64", 5)
    out = execute(solvers.create("lift-tabu"), p, seed=2, budget=Budget(evaluations=3000))
    assert out.solution.extra["symmetry"] == 8 and out.solution.extra["representatives"] == 8
    p.validate(out.solution.shortcuts)
    assert (out.solution.graph.degree == 5).all()
    edges = {tuple(e) for e in out.solution.shortcuts}
    assert {tuple(sorted(((u + 8) % 64, (v + 8) % 64))) for u, v in edges} == edges


def test_quotient_loops_are_off_by_default_when_a_loop_free_quotient_exists():
    assert not quotient_loops("auto", auto_order(problem("empty:512", 4)), 4)  # 8 representatives > 4
    assert quotient_loops("auto", LiftPlan(problem("empty:64", 8), 8), 8)  # 8 representatives <= 8
    assert quotient_loops("on", auto_order(problem("empty:512", 4)), 4)
    assert not quotient_loops("off", LiftPlan(problem("empty:64", 8), 8), 8)
    q = np.array([[0, 0, 3], [0, 1, 0]]).T.copy()
    assert K.edge_ok(*q, 8, True, 0) and not K.edge_ok(*q, 8, False, 0) and K.edge_ok(*q, 8, False, 1)


@pytest.mark.parametrize("loops, expect_loop", [("off", False), ("on", True)])
def test_a_run_without_loops_never_visits_one(loops, expect_loop):
    p = problem("empty:128", 4)
    search = LiftSearch(p, LiftPlan(p, 16), dict(solvers.create("lift-tabu", loops=loops, walk_steps=20,
                                                                swap_share=0.5).config), 3)
    seen = False
    for _ in range(150):
        search.run(10**9, 1)
        for edges in (search.edges, search.best):
            seen |= bool((edges[0] == edges[1]).any())
    assert search.ivars[K.I_RESTARTS] > 0
    # with loops allowed, random quotients of 8 representatives x 4 ports have some (about 1.5 each)
    assert seen == expect_loop


def nonbacktracking_walks(ea, eb, m: int, length: int) -> np.ndarray:
    """Walks of at most ``length`` arcs between quotient vertices that never take an edge straight back,
    counted one by one."""
    arcs = [(a, b, k) for k, (a, b) in enumerate(zip(ea, eb))] + [(b, a, k) for k, (a, b) in enumerate(zip(ea, eb))]
    counts = np.eye(m)
    stack = [(s, s, -1, 0) for s in range(m)]
    while stack:
        s, v, last, steps = stack.pop()
        if steps == length:
            continue
        for i, (a, b, k) in enumerate(arcs):
            if a == v and not (last >= 0 and arcs[last][2] == k and i != last):
                counts[s, b] += 1
                stack.append((s, b, i, steps + 1))
    return counts


@pytest.mark.parametrize("m, cap, length", [(8, 4, 5), (6, 3, 4), (5, 4, 3)])
def test_coverage_spread_counts_the_nonbacktracking_walks(m, cap, length):
    for seed in range(3):
        q = random_quotient(m, 16, cap, seed)
        counts = nonbacktracking_walks(q[:, 0], q[:, 1], m, length)
        assert K.coverage_spread(q[:, 0].copy(), q[:, 1].copy(), m, length) == pytest.approx(counts.var())


def test_screening_picks_evener_quotients():
    p = problem("empty:512", 4)
    plan = auto_order(p)

    def first_spread(screen: int, seed: int) -> float:
        search = LiftSearch(p, plan, dict(solvers.create("lift-tabu", screen=screen).config), seed)
        return K.coverage_spread(search.edges[0], search.edges[1], plan.m, search.far_level - 2)

    one = [first_spread(1, seed) for seed in range(12)]
    best_of_16 = [first_spread(16, seed) for seed in range(12)]
    assert np.median(best_of_16) < np.median(one) and max(best_of_16) <= np.percentile(one, 75)


def test_auto_order_keeps_at_least_eight_representatives():
    assert auto_order(problem("empty:512", 4)).g == 64
    assert auto_order(problem("empty:96", 3)).g == 12
    assert auto_order(problem("ring:12", 3)).g == 1  # 12 / 8 leaves no order above 1
    # 10 x 3 ports: at order 2 the 5 representatives have 15 free ports, an odd number
    assert auto_order(problem("empty:10", 3)).g == 1


@pytest.mark.parametrize("p, params, reason", [
    (problem("ring:16", 4, 4), {}, "budget of at least"),
    (problem("empty:10", 3), {"symmetry": 2}, "odd number"),
    (problem("empty:16", 3), {"symmetry": 3}, "must divide"),
    (problem("mesh:4x4", 4), {"symmetry": 2}, "not invariant"),
    (problem("empty:100000", 8, 400_000), {}, "use annealing"),
])
def test_declines_what_it_cannot_search_and_says_why(p, params, reason):
    skipped, why = solvers.create("lift-tabu", **params).skip(p)
    assert skipped and reason in why
