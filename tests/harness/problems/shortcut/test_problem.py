import math

import numpy as np
import pytest

from hopbench.harness.errors import HopbenchError, InvalidSolution
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution, objective_value


def problem(spec="ring:12", cap=4, budget=3, objective="aspl"):
    return ShortcutProblem(parse_spec(spec), cap, budget, objective, base_spec=spec)


@pytest.mark.parametrize("shortcuts, message", [
    ([[0, 6], [1, 7], [2, 8], [3, 9]], "budget exceeded: 4 shortcuts, budget is 3"),
    ([[0, 6], [1, 12]], r"shortcut #1 \(1, 12\) has a vertex out of range 0..11"),
    ([[0, 6], [-1, 3]], r"shortcut #1 \(-1, 3\) has a vertex out of range"),
    ([[4, 4]], r"shortcut #0 \(4, 4\) is a self-loop"),
    ([[0, 6], [5, 4]], r"shortcut #1 \(5, 4\) is already an edge of the base graph"),
    ([[0, 6], [6, 0]], r"shortcut #1 \(6, 0\) duplicates shortcut #0"),
    ([[0, 6], [0, 5], [0, 4]], None),  # 4 is a base neighbour of 5? no: (0,4) fine; cap checked below
])
def test_validate_names_the_first_violation(shortcuts, message):
    p = problem()
    if message is None:
        with pytest.raises(InvalidSolution, match=r"degree cap exceeded at vertex 0: degree 5 > cap 4"):
            p.validate(shortcuts)
    else:
        with pytest.raises(InvalidSolution, match=message):
            p.validate(shortcuts)


def test_degree_cap_names_where_it_was_first_crossed():
    p = problem(cap=3, budget=4)
    with pytest.raises(InvalidSolution, match=r"vertex 0: degree 4 > cap 3 \(first crossed by shortcut #1 \(0, 3\)\)"):
        p.validate([[0, 6], [0, 3]])


def test_validate_accepts_empty_and_returns_array():
    p = problem()
    assert p.validate([]).shape == (0, 2)
    assert p.validate([[0, 6]]).tolist() == [[0, 6]]


def test_bad_shapes():
    with pytest.raises(InvalidSolution, match="pairs"):
        problem().validate([[0, 1, 2]])


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(cap=1), "degree cap 1 is below the base graph's degree 2"),
    (dict(budget=-1), "budget must be >= 0"),
    (dict(objective="speed"), "unknown objective"),
])
def test_impossible_problems(kwargs, fragment):
    with pytest.raises(HopbenchError, match=fragment):
        problem(**kwargs)


def test_unknown_family():
    with pytest.raises(HopbenchError, match="unknown problem family"):
        ShortcutProblem(parse_spec("ring:8"), 4, 2, "aspl", "dragonfly")


def test_evaluate_reports_values_bounds_and_gaps():
    p = problem("ring:12", cap=3, budget=6)
    ev = p.evaluate([[i, i + 6] for i in range(6)])  # all diameters of the ring: a Moebius ladder
    assert ev.diameter == 3
    assert ev.lower_bound_diameter == 3 and ev.lower_bound_aspl == pytest.approx((3 * 1 + 6 * 2 + 2 * 3) / 11)
    assert ev.gap_diameter == 0.0
    assert ev.objective == ev.aspl and ev.gap_objective >= 0


def test_golf_objective_orders_like_diameter_then_aspl():
    pairs = [(3, 2.9), (4, 1.5), (4, 2.0), (5, 1.0), (5, 5.0)]
    values = [objective_value("golf", d, a) for d, a in pairs]
    assert values == sorted(values)
    assert int(objective_value("golf", 7, 6.5)) == 7
    assert objective_value("ad", 4, 2.5) == 10.0
    assert objective_value("diameter", math.inf, 3.0) == math.inf


def test_solution_evaluates_and_serialises():
    p = problem()
    s = Solution(p, [[0, 6]], solver="x", seed=3)
    doc = s.to_dict()
    assert doc["format"] == "hopbench.solution/1"
    assert doc["shortcuts"] == [[0, 6]] and doc["metrics"]["diameter"] == s.evaluation.diameter
    assert "base_edges" not in doc


def test_free_ports():
    assert problem(cap=5).free_ports.tolist() == [3] * 12
    assert isinstance(np.sum(problem().free_ports), np.integer)
