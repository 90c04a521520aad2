"""grid-annealing: valid graphs under every symmetry, rotation-invariant when asked, the exact evaluation
behind its moves, and the ODP sample's value on (5 x 5, 4, 2)."""
from __future__ import annotations

import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.problems.grid.problem import GridProblem
from hopbench.solvers.contract import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.grid import _kernel as K
from hopbench.solvers.grid.annealing import cells_near, representatives, rotations
from tests.harness.problems.grid.test_problem import networkx_metrics


def _run(problem, *, seed=1, evaluations=3000, **params):
    return execute(solvers.create("grid-annealing", **params), problem, seed=seed,
                   budget=Budget(time_s=60, evaluations=evaluations)).solution


def _edge_set(edges):
    return {tuple(sorted(e)) for e in np.asarray(edges).tolist()}


def _table(edges, n, cap):
    nbr = np.full((n, cap), -1, np.int64)
    deg = np.zeros(n, np.int64)
    for u, v in edges:
        nbr[u, deg[u]], nbr[v, deg[v]] = v, u
        deg[u] += 1
        deg[v] += 1
    return nbr, deg


def _table_edges(nbr, deg):
    return {tuple(sorted((u, int(v)))) for u in range(nbr.shape[0]) for v in nbr[u, :deg[u]]}


@pytest.mark.parametrize("g", [2, 4])
def test_rotations_have_the_order_asked_and_keep_manhattan_lengths(g):
    rot = rotations(5, 5, g)
    assert (rot[0] == np.arange(25)).all()
    turned = rot[1]
    for _ in range(g - 1):
        turned = rot[1][turned]
    assert (turned == np.arange(25)).all()  # the g-th power is the identity
    reps, centre = representatives(rot)
    assert centre == 12 and len(reps) * g + 1 == 25
    p = GridProblem(5, 5, 4, 2)
    pairs = np.array([(u, v) for u in range(25) for v in range(25)])
    assert (p.edge_lengths(pairs) == p.edge_lengths(rot[1][pairs])).all()


def test_cells_near_are_exactly_the_cells_within_the_length():
    p = GridProblem(6, 4, 3, 2)
    near, nnear = cells_near(p)
    for v in range(p.n):
        got = set(near[v, :nnear[v]].tolist())
        want = {u for u in range(p.n) if u != v and p.edge_lengths(np.array([[u, v]]))[0] <= 2}
        assert got == want


@pytest.mark.parametrize("g, turn_share", [(1, 0.0), (2, 0.0), (4, 0.0), (2, 0.5), (4, 0.5)])
def test_solutions_are_valid_and_measured_exactly_under_every_symmetry(g, turn_share):
    p = GridProblem(6, 6, 4, 2)
    sol = _run(p, symmetry=g, turn_share=turn_share)
    ev = sol.evaluate()  # validates: lengths, degrees, repeats
    assert ev.diameter < float("inf")
    assert networkx_metrics(p, sol.edges) == pytest.approx((ev.diameter, ev.aspl), abs=1e-12)
    if g > 1:
        rot = rotations(6, 6, g)
        assert _edge_set(rot[1][sol.edges]) == _edge_set(sol.edges)  # invariant under the rotation
    # the ports are filled: 6 x 6 at degree 4 is regular without symmetry; with it, a free port and its
    # image may be left too far apart to join (their edge's orbit would be too long)
    assert len(sol.edges) == 72 if g == 1 else len(sol.edges) >= 70
    assert sol.extra["symmetry"] == g


def test_symmetry_four_is_declined_on_a_non_square_grid():
    skipped, reason = solvers.create("grid-annealing", symmetry=4).skip(GridProblem(6, 4, 3, 2))
    assert skipped and "square" in reason


def test_the_kernel_energy_is_the_sum_of_distances_over_ordered_pairs():
    # measure() from the representatives (with weights and the centre's own BFS) = the whole graph's sum
    p = GridProblem(5, 5, 4, 2)
    sol = _run(p, symmetry=4, evaluations=500)
    ev = sol.evaluate()
    n = p.n
    rot = rotations(5, 5, 4)
    reps, centre = representatives(rot)
    nbr, deg = _table(sol.edges.tolist(), n, 4)
    out = np.zeros(4)
    A, B = np.empty((n, 1), np.uint64), np.empty((n, 1), np.uint64)
    assert K.measure(nbr, deg, reps, 4.0, centre, 100, 0.0, np.inf, A, B, np.empty(n, np.int64), np.empty(n, np.int64),
                     out)
    assert out[1] == 2 * ev.total_distance and out[2] == ev.diameter and out[3] == 0
    # an evaluation that cannot be accepted stops early and says so
    assert not K.measure(nbr, deg, reps, 4.0, centre, 100, 0.0, out[0] - 1, A, B, np.empty(n, np.int64),
                         np.empty(n, np.int64), out)


def test_the_five_by_five_instance_reaches_the_odp_sample():
    # ODP's sample graph: diameter 4 (the bound), ASPL 2.2666666667 (680 / 300)
    sol = _run(GridProblem(5, 5, 4, 2), symmetry=1, evaluations=300_000)
    ev = sol.evaluate()
    assert ev.diameter == 4 and ev.total_distance <= 680


def _plain_swaps(edges, rot, p):
    """Every edge set one plain 2-opt swap of two orbits (each edge within the length) makes from ``edges``."""
    orbit = {e: frozenset(tuple(sorted((int(r[e[0]]), int(r[e[1]])))) for r in rot) for e in edges}
    reach = set()
    for (a, b) in edges:
        for (c, e) in edges:
            for c2, e2 in ((c, e), (e, c)):
                new = [tuple(sorted(x)) for x in ((a, c2), (b, e2))]
                if len({a, b, c2, e2}) < 4 or any(x in edges for x in new):
                    continue
                if p.edge_lengths(np.array(new)).max() > p.length:
                    continue
                added = {tuple(sorted((int(r[x[0]]), int(r[x[1]])))) for x in new for r in rot}
                reach.add(frozenset((edges - orbit[(a, b)] - orbit[tuple(sorted((c, e)))]) | added))
    return reach


def test_a_turned_swap_keeps_the_symmetry_and_degrees_and_reaches_what_no_plain_swap_does():
    p = GridProblem(6, 6, 4, 2)
    sol = _run(p, symmetry=4, evaluations=2000)
    g, n, cap = 4, p.n, 4
    rot = rotations(6, 6, g)
    near, nnear = cells_near(p)
    cx, cy = np.divmod(np.arange(n, dtype=np.int64), 6)
    edges = _edge_set(sol.edges)
    nbr, deg = _table(sorted(edges), n, cap)
    plain = _plain_swaps(edges, rot, p)
    state = np.array([12345], np.uint64)
    rem, add = np.empty((2, 2), np.int64), np.empty((2, 2), np.int64)
    R, A = np.empty((K.MAXE, 2), np.int64), np.empty((K.MAXE, 2), np.int64)
    delta, counts = np.zeros(n, np.int64), np.zeros(2, np.int64)
    made = beyond = 0
    for _ in range(400):
        if not K.propose(state, nbr, deg, cap, rot, g, cx, cy, 2, near, nnear, 0.0, 1.0, 0, rem, add, R, A, delta,
                         counts, 64):
            continue  # on a small grid most turned copies are beyond the length
        made += 1
        after = _table_edges(nbr, deg)
        assert np.array_equal(np.bincount(np.array(sorted(after)).ravel(), minlength=n),
                              np.bincount(np.array(sorted(edges)).ravel(), minlength=n))  # every degree kept
        assert {tuple(sorted((int(rot[1][u]), int(rot[1][v])))) for u, v in after} == after  # still invariant
        assert p.edge_lengths(np.array(sorted(after))).max() <= 2
        assert add[1, 1] != rem[1, 1] and add[1, 1] in rot[:, rem[1, 1]]  # b joined a turned copy of e
        beyond += frozenset(after) not in plain
        K.undo(nbr, deg, R, A, counts)
        assert _table_edges(nbr, deg) == edges
    assert made >= 20 and beyond >= made // 2
