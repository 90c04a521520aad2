"""vrs: vertex-based random shortcuts keeping the y farthest of k*y random destinations."""
from __future__ import annotations

import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.engine import distances as metrics
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.shortcut.feasible import FeasiblePairs


def problem(spec: str, cap: int, budget: int, objective: str = "aspl") -> ShortcutProblem:
    return ShortcutProblem(parse_spec(spec), cap, budget, objective, base_spec=spec)


def edges(out) -> list[tuple[int, int]]:
    return [tuple(map(int, e)) for e in out.solution.shortcuts.tolist()]


def test_same_seed_same_edges_valid_within_budget_and_monotone():
    p = problem("torus:8x8", 10, 20)
    a = execute(solvers.create("vrs"), p, seed=9)
    b = execute(solvers.create("vrs"), p, seed=9)
    assert edges(a) == edges(b) and len(edges(a)) == 20
    p.validate(a.solution.shortcuts)
    values = [pt.value for pt in a.trace]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)
    assert values[-1] == pytest.approx(a.solution.evaluation.objective)
    assert edges(execute(solvers.create("vrs"), p, seed=10)) != edges(a)


def test_with_every_destination_drawn_it_links_the_farthest_vertices():
    # k*y covers every feasible destination, so the y picks are the y farthest (ring:20: distance 10, 9, 9)
    p = problem("ring:20", 5, 3)
    out = execute(solvers.create("vrs", k=50, y=3), p, seed=4)
    hub = {v for e in edges(out) for v in e}
    centre = [v for v in hub if sum(v in e for e in edges(out)) == 3]
    assert len(centre) == 1
    D = metrics.distance_matrix(p.base)
    v = centre[0]
    dists = sorted((int(D[v, w]) for e in edges(out) for w in e if w != v), reverse=True)
    assert dists == [10, 9, 9]


def test_distances_are_current_unless_asked_for_base():
    # with y = 1 and every destination drawn, the visited endpoint's partner is its farthest
    # feasible vertex in the *current* graph; ranking by base distances picks differently
    p = problem("ring:60", 4, 10)
    cur = execute(solvers.create("vrs", k=100, y=1), p, seed=2)
    pairs = FeasiblePairs(p.base, p.degree_cap)
    g = p.base
    for x, y in edges(cur):
        D = metrics.distance_matrix(g)
        farthest = [int(D[v, pairs.pairs_with(v)].max()) for v in (x, y)]
        assert int(D[x, y]) in farthest
        pairs.add(x, y)
        g = g.with_edges([[x, y]])
    base = execute(solvers.create("vrs", k=100, y=1, distances="base"), p, seed=2)
    assert edges(base) != edges(cur)


def test_sequential_order_starts_at_vertex_zero():
    out = execute(solvers.create("vrs", order="sequential", y=2), problem("ring:30", 4, 4), seed=1)
    firsts = edges(out)[:2]
    assert all(0 in e for e in firsts) and sum(1 in e for e in edges(out)[2:]) == 2


def test_more_passes_when_one_pass_cannot_spend_the_budget():
    # y = 1 and one pass visits 12 vertices: at most 12 shortcuts in a pass, budget 12 needs more
    # because partners also use ports; the run keeps going until the cap stops it
    p = problem("ring:12", 4, 12)
    out = execute(solvers.create("vrs", y=1), p, seed=0)
    assert len(edges(out)) == 12
    assert out.solution.extra["passes"] >= 1
    assert out.solution.graph.max_degree <= 4


def test_stops_when_nothing_is_feasible():
    out = execute(solvers.create("vrs"), problem("ring:6", 3, 10), seed=0)
    assert out.solution.extra["stopped"] == "no feasible pair left"
    assert out.solution.graph.max_degree <= 3


def test_budgets_are_respected():
    p = problem("torus:30x30", 10, 2000)  # far more shortcuts than 0.05 s allow
    out = execute(solvers.create("vrs"), p, seed=0, budget=Budget(evaluations=7))
    assert len(edges(out)) <= 9  # the vertex in progress may finish its y = 3 shortcuts
    out = execute(solvers.create("vrs"), p, seed=0, budget=Budget(time_s=0.05))
    assert out.solution.extra["stopped"] == "time or evaluation budget"
    p.validate(out.solution.shortcuts)


def test_parameters_are_checked():
    with pytest.raises(HopbenchError):
        solvers.create("vrs", k=0)
    with pytest.raises(HopbenchError):
        solvers.create("vrs", order="backwards")
    assert set(solvers.get("vrs").search_space()) == {"k", "y"}


def test_vrs_beats_random_shortcuts_on_a_torus():
    p = problem("torus:10x10", 10, 30)
    vrs = np.mean([execute(solvers.create("vrs"), p, seed=s).solution.evaluation.aspl for s in range(3)])
    rnd = np.mean([execute(solvers.create("random"), p, seed=s).solution.evaluation.aspl for s in range(3)])
    assert vrs < rnd
