"""The ``equality`` problem family: its shape rules, its solutions validate like any other, and
Equality networks are recognised among ring shortcuts."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec, ring
from hopbench.harness.problems.shortcut import equality as eq
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from tests.harness.equality_networks import random_network


def test_family_problem_rules():
    ok = ShortcutProblem(ring(14), 6, 28, "ad", "equality")
    assert ok.budget == 14 * 4 // 2
    with pytest.raises(HopbenchError, match="budget N\\(K-2\\)/2 = 28"):
        ShortcutProblem(ring(14), 6, 27, "ad", "equality")
    with pytest.raises(HopbenchError, match="even"):
        ShortcutProblem(ring(15), 6, 30, "ad", "equality")
    with pytest.raises(HopbenchError, match="ring:16"):
        ShortcutProblem(parse_spec("dln:16:3"), 6, 32, "ad", "equality")
    relabelled = Graph(14, [(i, (i + 3) % 14) for i in range(14)])  # a 14-cycle, but not 0-1-2-...
    with pytest.raises(HopbenchError, match="ring:14"):
        ShortcutProblem(relabelled, 6, 28, "ad", "equality")


def test_family_solution_validates_like_any_other():
    net = eq.parse("N14K6[-1,1,3,9](4)")
    problem = ShortcutProblem(ring(14), 6, 28, "ad", "equality")
    ev = problem.evaluate(net.shortcuts())
    m = net.metrics()
    assert ev.diameter == m.diameter and math.isclose(ev.objective, m.ad)


@pytest.mark.parametrize("seed", range(40))
def test_from_shortcuts_recognises_every_network(seed):
    net = random_network(np.random.default_rng(seed), cls=eq.EqualityNetwork)
    assert eq.from_shortcuts(net.n, net.shortcuts()) == net
