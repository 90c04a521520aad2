"""The swap mode's algebraic start: finite fields, Erdős–Rényi polarity graphs, and their
extension to n vertices by edge splitting."""
from __future__ import annotations

import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.engine.summary import summary
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.shortcut import _polarity as P


@pytest.mark.parametrize("q", [2, 3, 4, 5, 8, 9, 16, 25, 27])
def test_field_tables_form_a_field(q):
    add, mul = P.field_tables(q)
    e = np.arange(q)
    assert np.array_equal(add[0], e) and np.array_equal(mul[1], e) and not mul[0].any()
    assert np.array_equal(add, add.T) and np.array_equal(mul, mul.T)
    for row in mul[1:]:
        assert sorted(row[1:]) == list(range(1, q))  # every nonzero element has an inverse
    for row in add:
        assert sorted(row) == list(range(q))  # every element has a negative
    a, b, c = np.meshgrid(e, e, e, indexing="ij")
    assert np.array_equal(mul[a, add[b, c]], add[mul[a, b], mul[a, c]])  # distributive
    assert np.array_equal(mul[mul[a, b], c], mul[a, mul[b, c]])  # associative


@pytest.mark.parametrize("q", [6, 10, 12, 1, 0])
def test_field_tables_refuse_other_orders(q):
    assert P.prime_power(q) is None
    with pytest.raises(ValueError):
        P.field_tables(q)


@pytest.mark.parametrize("q", [2, 3, 4, 7, 8, 9])
def test_polarity_graph_is_a_projective_plane(q):
    O = P.polarity_adjacency(q).astype(np.int64)
    N = q * q + q + 1
    assert O.shape == (N, N)
    # any two points have exactly one common orthogonal point (the pole of the line through them)
    common = O @ O
    assert np.all(common[~np.eye(N, dtype=bool)] == 1)
    assert np.all(O.sum(axis=1) == q + 1)
    assert int(np.trace(O)) == q + 1  # the absolute points (a conic, or a line for q even)


@pytest.mark.parametrize("q", [3, 4, 5, 7, 8, 9])
def test_cut_base_is_regular_of_degree_q(q):
    A = P.base_graph("cut", q)
    assert A.shape == (q * q - 1, q * q - 1)
    assert not np.diag(A).any() and np.array_equal(A, A.T)
    degrees = A.sum(axis=1)
    assert degrees.max() == q
    # q even: every absolute point was on the removed line; q odd: q - 1 of them are left, one port short
    assert int((degrees < q).sum()) == (0 if q % 2 == 0 else q - 1)
    e = np.argwhere(np.triu(A, 1))
    s = summary(Graph(A.shape[0], e))
    assert s.unreachable_pairs == 0 and s.max_finite <= 3


def test_full_base_has_diameter_two():
    A = P.base_graph("full", 7)
    s = summary(Graph(57, np.argwhere(np.triu(A, 1))))
    assert s.max_finite == 2 and s.unreachable_pairs == 0


@pytest.mark.parametrize("n, d, expected", [
    (1024, 32, ("cut", 32, 1023)), (64, 8, ("cut", 8, 63)), (57, 8, ("full", 7, 57)), (993, 32, ("full", 31, 993)),
    (62, 8, ("full", 7, 57)), (1344, 30, None), (40, 5, None), (100, 8, None), (56, 8, None), (5, 2, None),
    # grown: no plane of degree d or d + 1, the largest of degree <= d - 1 holds at least 4/5 of n
    (1560, 40, ("grown", 37, 1407)), (3250, 57, ("grown", 53, 2863)), (38, 7, ("grown", 5, 31)),
    (39, 7, None),  # 8 extra vertices: more than 31 / 4
    (38, 8, None),  # 7 extra vertices cannot take the 68 free ports of ER_5 at degree 8
    (1726, 30, None), (4896, 24, None)])
def test_plan_takes_the_base_with_fewest_extra_vertices(n, d, expected):
    assert P.plan(n, d) == expected


@pytest.mark.parametrize("n, d", [(64, 8), (62, 8), (26, 5), (33, 6), (1024, 32), (38, 7), (70, 10), (220, 16)])
def test_polarity_start_is_a_simple_graph_filling_every_port(n, d):
    table = P.polarity_start(n, d, np.random.default_rng(3))
    assert table.shape == (n, d)
    u = np.repeat(np.arange(n), d)
    v = table.ravel()
    edges = np.stack([u[v >= 0], v[v >= 0]], axis=1)
    assert not np.any(edges[:, 0] == edges[:, 1])
    ordered = {tuple(e) for e in edges.tolist()}
    assert len(ordered) == edges.shape[0] and all((b, a) in ordered for a, b in ordered)  # simple, symmetric
    assert (n * d) - edges.shape[0] <= 1  # every port taken (one stays free when n d is odd)
    s = summary(Graph(n, edges[edges[:, 0] < edges[:, 1]]))
    assert s.unreachable_pairs == 0
    assert np.array_equal(table, P.polarity_start(n, d, np.random.default_rng(3)))


def test_polarity_start_far_better_than_random_at_high_degree():
    """(1024, 32): the start is within 0.2 % of the best-known ASPL 1.998 (a random 32-regular
    graph: about 2.32)."""
    n, d = 1024, 32
    table = P.polarity_start(n, d, np.random.default_rng(1))
    u = np.repeat(np.arange(n), d)
    v = table.ravel()
    edges = np.stack([u, v], axis=1)
    s = summary(Graph(n, edges[edges[:, 0] < edges[:, 1]]))
    assert s.max_finite == 3
    assert s.total / (n * (n - 1) / 2) < 1.998 * 1.002


def test_grown_start_keeps_the_plane_and_joins_extra_vertices_to_line_points():
    """(220, 16): ER_13 (183 vertices, degree 14) keeps every edge; each of the 37 extra vertices
    takes the old vertices' free ports on one polar line, so the start is far better than random."""
    n, d = 220, 16
    base, q, order = P.plan(n, d)
    assert (base, q, order) == ("grown", 13, 183)
    A = P.base_graph("full", q)
    table = P.polarity_start(n, d, np.random.default_rng(2))
    nb = [set(row[row >= 0].tolist()) for row in table]
    assert all(set(np.flatnonzero(A[v]).tolist()) <= nb[v] for v in range(order))  # the plane intact
    on_line = total = 0
    with_pole = A | np.eye(order, dtype=bool)  # an absolute pole lies on its own line
    for v in range(order, n):
        old = [y for y in nb[v] if y < order]
        assert old, "every extra vertex reaches the plane"
        # the most of its old neighbours that one polar line holds
        on_line += int(with_pole[old].sum(axis=0).max())
        total += len(old)
    assert on_line >= 0.75 * total  # the rest: ports a used-up line could not take
    u = np.repeat(np.arange(n), d)
    v = table.ravel()
    edges = np.stack([u, v], axis=1)[u < v]
    grown = summary(Graph(n, edges)).total
    rng = np.random.default_rng(2)
    state = solvers_random_regular(n, d, rng)
    assert grown < summary(Graph(n, state)).total


def solvers_random_regular(n, d, rng):
    import networkx as nx
    g = nx.random_regular_graph(d, n, seed=int(rng.integers(1 << 30)))
    return np.array(list(g.edges()))


def test_grown_start_at_graph_golf_high_degree():
    """(1560, 40) before any annealing: within 0.5 % of the best-known 2.038 (and the issue's
    target 2.058); a random 40-regular graph is near 2.32."""
    n, d = 1560, 40
    table = P.polarity_start(n, d, np.random.default_rng(1))
    u = np.repeat(np.arange(n), d)
    v = table.ravel()
    s = summary(Graph(n, np.stack([u, v], axis=1)[u < v]))
    assert s.max_finite == 3 and s.total / (n * (n - 1) / 2) < 2.038 * 1.005


def golf(n, d):
    spec = f"empty:{n}"
    return ShortcutProblem(parse_spec(spec), d, n * d // 2, "golf", base_spec=spec)


def test_annealing_starts_from_the_polarity_graph_where_it_applies():
    p = golf(64, 8)
    out = execute(solvers.create("annealing", swap_start="polarity"), p, seed=1, budget=Budget(evaluations=300))
    assert out.solution.extra["start"] == "polarity" and out.solution.extra["symmetry"] == 1
    start = P.polarity_start(64, 8, np.random.default_rng(1))  # the solver's first draws build it
    u = np.repeat(np.arange(64), 8)
    start_value = p.evaluate(np.stack([u, start.ravel()], axis=1)[u < start.ravel()]).objective
    assert out.solution.evaluation.objective <= start_value  # the best state is never worse than the first one
    # polished from the final temperature, not melted at ODP's calibrated start
    assert out.solution.extra["start_temperature"] == pytest.approx(0.217)
    # auto: below cap 16 swaps from a random graph do as well, so the random start stays
    auto = execute(solvers.create("annealing"), p, seed=1, budget=Budget(evaluations=300))
    assert auto.solution.extra["start"] == "random"
    high = execute(solvers.create("annealing"), golf(1024, 32), seed=1, budget=Budget(evaluations=20))
    assert high.solution.extra["start"] == "polarity" and high.solution.evaluation.aspl < 1.998 * 1.002
    # a symmetric request keeps the random symmetric start
    sym = execute(solvers.create("annealing", symmetry=8), p, seed=1, budget=Budget(evaluations=300))
    assert sym.solution.extra["start"] == "random" and sym.solution.extra["symmetry"] == 8


def test_polarity_start_gives_way_to_the_time_limit():
    calls = []

    def stop_after(k):
        def should_stop():
            calls.append(1)
            return len(calls) > k
        return should_stop
    assert P.polarity_start(70, 8, np.random.default_rng(1), stop_after(0)) is None  # before any extension
    calls.clear()
    assert P.polarity_start(70, 8, np.random.default_rng(1), stop_after(3)) is None  # during it
    calls.clear()
    assert P.polarity_start(70, 8, np.random.default_rng(1), stop_after(10**6)) is not None


def test_annealing_polarity_start_refuses_what_it_cannot_do():
    with pytest.raises(HopbenchError, match="swap_start=polarity needs"):
        execute(solvers.create("annealing", swap_start="polarity"), golf(64, 4), seed=1, budget=Budget(evaluations=10))
    with pytest.raises(HopbenchError, match="no rotational symmetry"):
        execute(solvers.create("annealing", swap_start="polarity", symmetry=8), golf(64, 8), seed=1,
                budget=Budget(evaluations=10))
