"""The channel-load objective (the throughput bound of minimal routing) through the shortcut solvers that take it:
annealing optimises it, edgecut-full ranks by it, random measures it, and every other solver declines it."""
from __future__ import annotations

import math

import pytest

from hopbench import solvers
from hopbench.harness.engine.channel_load import max_channel_load
from hopbench.harness.problems.shortcut.names import OPT_IN_OBJECTIVES
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute


def run(name: str, problem: ShortcutProblem, evaluations: int, seed: int = 1, **params):
    budget = Budget(time_s=120, evaluations=evaluations)
    return execute(solvers.create(name, **params), problem, seed=seed, budget=budget)


def test_the_takers_named_in_the_refusal_are_the_solvers_that_opt_in():
    takers = sorted(n for n in solvers.names("shortcut") if "channel-load" in solvers.get(n).opt_in_objectives)
    assert takers == ["annealing", "edgecut-full", "random"]
    assert OPT_IN_OBJECTIVES["channel-load"] == "annealing, edgecut-full and random"
    p = ShortcutProblem("torus:4x4", 6, 6, "channel-load")
    for name in set(solvers.names("shortcut")) - set(takers):
        skipped, why = solvers.create(name).skip(p)
        assert skipped and "channel-load" in why and "annealing, edgecut-full and random do" in why, name


def test_annealing_on_channel_load_beats_the_hop_count_optimum_on_load():
    # ring:32, cap 4, 16 shortcuts: the ASPL optimum concentrates traffic on its long shortcuts
    by_aspl = run("annealing", ShortcutProblem("ring:32", 4, 16, "aspl"), 3000)
    load_problem = ShortcutProblem("ring:32", 4, 16, "channel-load")
    by_load = run("annealing", load_problem, 3000)
    baseline = run("random", load_problem, 1)
    l_aspl = max_channel_load(by_aspl.solution.graph)
    l_load = by_load.solution.evaluate().objective
    assert l_load == pytest.approx(max_channel_load(by_load.solution.graph), rel=1e-12)
    assert l_load < l_aspl < baseline.solution.evaluate().objective
    assert by_aspl.solution.evaluate().aspl < by_load.solution.evaluate().aspl  # and each wins its own objective
    assert l_load >= load_problem.objective_lower_bound()


def test_annealing_on_channel_load_is_deterministic_per_seed_and_keeps_the_budget():
    p = ShortcutProblem("mesh:4x4", 5, 6, "channel-load")
    a, b = run("annealing", p, 400, seed=3), run("annealing", p, 400, seed=3)
    assert sorted(map(tuple, a.solution.shortcuts.tolist())) == sorted(map(tuple, b.solution.shortcuts.tolist()))
    assert a.evaluations <= 400 and len(a.solution.shortcuts) <= 6
    p.validate(a.solution.shortcuts)


def test_edgecut_full_returns_the_best_graph_of_its_sequence():
    p = ShortcutProblem("ring:32", 4, 16, "channel-load")
    out = run("edgecut-full", p, 10_000, t=10)
    value = out.solution.evaluate().objective
    assert value < max_channel_load(p.base)  # the ring itself carries 4.13
    assert value == pytest.approx(min(point.value for point in out.trace), rel=1e-12)
    # the kept prefix is the best of all prefixes of the greedy's additions
    assert len(out.solution.shortcuts) <= 16


def test_the_objective_needs_the_graph_and_has_a_sound_lower_bound():
    from hopbench.harness.problems.shortcut.problem import objective_value

    with pytest.raises(Exception, match="not a function of the diameter and the ASPL"):
        objective_value("channel-load", 3, 2.0)
    p = ShortcutProblem("empty:10", 3, 15, "channel-load")
    assert math.isinf(p.evaluate([]).objective)  # disconnected
    # a Petersen graph: 3-regular, ASPL 5/3 at the Moore bound, vertex- and edge-transitive -> every channel
    # carries the same load, which is exactly the bound
    petersen = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (0, 5), (1, 6), (2, 7), (3, 8), (4, 9),
                (5, 7), (7, 9), (9, 6), (6, 8), (8, 5)]
    assert p.evaluate(petersen).objective == pytest.approx(p.objective_lower_bound(), rel=1e-12)
