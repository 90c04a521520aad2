"""Grid problems: validation, exact evaluation (checked against networkx), the competition's edge files."""
from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from hopbench.harness.errors import HopbenchError, InvalidSolution
from hopbench.harness.problems.grid.competition import grid_size, read_edges, write_edges
from hopbench.harness.problems.grid.problem import GridProblem, golf_value

DATA = Path(__file__).resolve().parents[3] / "data" / "graphgolf" / "grid"
#: ODP's sample graphs and the values its sample/graph/grid/ASPL.txt states (diameter, sum over unordered pairs)
ODP_SAMPLES = {"w4h4d3r2": ((4, 4, 3, 2), 3, 264), "w5h5d4r2": ((5, 5, 4, 2), 4, 680),
               "w10h10d6r3": ((10, 10, 6, 3), 6, 14370), "w10h10d8r4": ((10, 10, 8, 4), 5, 12010)}


def networkx_metrics(problem: GridProblem, edges: np.ndarray) -> tuple[float, float]:
    """Diameter and ASPL by networkx, on a graph built from cell coordinates (an independent check)."""
    g = nx.Graph()
    g.add_nodes_from((x, y) for x in range(problem.width) for y in range(problem.height))
    for u, v in np.asarray(edges).tolist():
        (xu, yu), (xv, yv) = divmod(u, problem.height), divmod(v, problem.height)
        assert abs(xu - xv) + abs(yu - yv) <= problem.length
        g.add_edge((xu, yu), (xv, yv))
    assert max(dict(g.degree).values()) <= problem.degree
    if not nx.is_connected(g):
        return float("inf"), float("inf")
    return float(nx.diameter(g)), nx.average_shortest_path_length(g)


@pytest.mark.parametrize("name", sorted(ODP_SAMPLES))
def test_odp_sample_graphs_read_validate_and_evaluate_exactly(name):
    (w, h, d, r), diameter, total = ODP_SAMPLES[name]
    text = (DATA / f"{name}.edges").read_text()
    assert grid_size(text) == (w, h)
    problem = GridProblem(w, h, d, r)
    edges = read_edges(text, problem)
    ev = problem.evaluate(edges)
    pairs = w * h * (w * h - 1) // 2
    assert (ev.diameter, ev.total_distance) == (diameter, total)
    assert ev.aspl == pytest.approx(total / pairs, abs=1e-15)
    assert networkx_metrics(problem, edges) == pytest.approx((ev.diameter, ev.aspl), abs=1e-12)
    assert ev.objective == golf_value(diameter, total / pairs)
    # the competition's format round-trips, edge for edge
    assert (read_edges(write_edges(problem, edges), problem) == edges).all()


def test_vertex_numbering_is_column_major_like_odp():
    p = GridProblem(3, 4, 2, 1)
    assert p.vertex(2, 1) == 9 and tuple(int(c) for c in p.coordinates(9)) == (2, 1)
    assert write_edges(p, np.array([[0, 9]])) == "0,0 2,1\n"


@pytest.mark.parametrize("edges, message", [
    ([[0, 16]], "out of range 0..15"),
    ([[3, 3]], "self-loop"),
    ([[0, 15]], r"edge #0 \(0,0\)-\(3,3\) has length 6, above the cable length 2"),
    ([[0, 1], [1, 0]], r"edge #1 \(1, 0\) repeats edge #0"),
    ([[0, 1], [0, 4], [0, 2], [0, 5]], r"vertex 0 \(0,0\) has degree 4, above the degree 3"),
])
def test_invalid_graphs_are_refused_naming_the_first_fault(edges, message):
    with pytest.raises(InvalidSolution, match=message):
        GridProblem(4, 4, 3, 2).validate(edges)


def test_a_disconnected_graph_scores_infinity():
    ev = GridProblem(4, 4, 3, 2).evaluate([[0, 1]])
    assert ev.diameter == ev.aspl == ev.objective == float("inf")


@pytest.mark.parametrize("args, message", [
    ((0, 5, 4, 2), "width = 0 is out of range"),
    ((1, 1, 4, 2), "at least two cells"),
    ((5, 5, 0, 2), "degree = 0 is out of range"),
    ((5, 5, 4, 0), "length = 0 is out of range"),
    ((5, 5, 4.0, 2), "degree must be an integer"),
    ((1000, 1000, 4, 2), "cell count"),
])
def test_bad_problems_are_one_line_errors(args, message):
    with pytest.raises(HopbenchError, match=message):
        GridProblem(*args)


def test_bad_competition_files_are_one_line_errors():
    p = GridProblem(4, 4, 3, 2)
    with pytest.raises(HopbenchError, match="line 2: '1 2' is not an edge"):
        read_edges("0,0 1,0\n1 2\n", p)
    with pytest.raises(HopbenchError, match="x = 4 lies outside the 4 x 4 grid"):
        read_edges("0,0 4,0\n", p)
