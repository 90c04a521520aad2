"""The grid solvers' ``start`` parameter: a run searches from the graph given (never ending worse than it),
records which graph that was, refuses in one line a graph it cannot search from, and leaves the cells of runs
without a start as they were recorded."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.grid.competition import read_edges, write_edges
from hopbench.harness.problems.grid.problem import GridProblem, GridSolution, solution_to_dict
from hopbench.solvers.contract import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.grid.annealing import rotations
from hopbench.solvers.grid.start import fingerprint, kept_order

DATA = Path(__file__).resolve().parents[2] / "data" / "graphgolf" / "grid"
ODP_84 = DATA / "w10h10d8r4.edges"  # total distance 12,010, invariant under quarter turns
ODP_63 = DATA / "w10h10d6r3.edges"  # total distance 14,370, no rotational symmetry
SOLVERS = ["grid-annealing", "grid-tempering"]


def _run(name, problem, *, seed=1, evaluations=3000, **params):
    return execute(solvers.create(name, **params), problem, seed=seed,
                   budget=Budget(time_s=60, evaluations=evaluations)).solution


def _edge_set(edges):
    return {tuple(sorted(e)) for e in np.asarray(edges).tolist()}


@pytest.mark.parametrize("name", SOLVERS)
def test_a_run_from_odps_sample_keeps_it_or_better_and_records_it(name):
    p = GridProblem(10, 10, 8, 4)
    start = read_edges(ODP_84.read_text(), p)
    assert p.evaluate(start).total_distance == 12_010
    sol = _run(name, p, evaluations=4000, start=str(ODP_84))
    assert sol.evaluate().total_distance <= 12_010  # the walkers start there, and the best is kept
    assert sol.extra["symmetry"] == 4 and sol.extra["start_sha256"] == fingerprint(start)
    assert _edge_set(rotations(10, 10, 4)[1][sol.edges]) == _edge_set(sol.edges)


@pytest.mark.parametrize("name", SOLVERS)
def test_a_run_continues_from_a_result_document(tmp_path, name):
    p = GridProblem(6, 6, 4, 2)
    first = _run(name, p, evaluations=500, symmetry=1)
    doc = tmp_path / "first.json"
    doc.write_text(json.dumps(solution_to_dict(GridSolution(p, first.edges))))
    before = first.evaluate()
    again = _run(name, p, evaluations=2000, symmetry=1, start=str(doc))
    after = again.evaluate()
    assert (after.diameter, after.total_distance) <= (before.diameter, before.total_distance)
    assert again.extra["start_sha256"] == fingerprint(first.edges)
    # a seed still fixes the run
    assert _edge_set(_run(name, p, evaluations=2000, symmetry=1, start=str(doc)).edges) == _edge_set(again.edges)


def test_a_start_graph_with_free_ports_gets_them_filled(tmp_path):
    # a 4 x 4 mesh of unit cables (degree <= 4) given with one edge missing: the walker fills the two free ports
    p = GridProblem(4, 4, 4, 1)
    mesh = [(u, u + 1) for u in range(16) if u % 4 < 3] + [(u, u + 4) for u in range(12)]
    path = tmp_path / "mesh.edges"
    path.write_text(write_edges(p, np.array(mesh[1:])))
    sol = _run("grid-annealing", p, evaluations=1, symmetry=1, start=str(path))
    assert _edge_set(sol.edges) == _edge_set(mesh)


def test_a_graph_without_the_runs_symmetry_is_refused_with_the_order_to_use():
    p = GridProblem(10, 10, 6, 3)
    with pytest.raises(HopbenchError, match=r"not invariant under quarter turns \(symmetry 4\); run with symmetry=1$"):
        _run("grid-tempering", p, start=str(ODP_63))
    # without symmetry it runs
    assert _run("grid-tempering", p, evaluations=200, symmetry=1, start=str(ODP_63)).evaluate().total_distance \
        <= 14_370


def test_a_half_turn_graph_under_quarter_turns_is_told_to_use_half_turns(tmp_path):
    p = GridProblem(6, 6, 4, 2)
    half = _run("grid-annealing", p, evaluations=500, symmetry=2, seed=3).edges
    assert kept_order(half, rotations(6, 6, 2)) and not kept_order(half, rotations(6, 6, 4))
    path = tmp_path / "half.edges"
    path.write_text(write_edges(p, half))
    with pytest.raises(HopbenchError, match=r"quarter turns \(symmetry 4\); run with symmetry=2 or symmetry=1$"):
        _run("grid-annealing", p, symmetry=4, start=str(path))


@pytest.mark.parametrize("case, message", [
    ("missing", "does not exist; check the path"),
    ("other problem", "is a graph of 6x6/d4/r2, not of 10x10/d8/r4; give a graph of this problem"),
    ("too long", r"is not a valid graph of 10x10/d8/r4: edge #0 \(0,0\)-\(5,0\) has length 5, above the cable"),
    ("outside", "x = 12 lies outside the 10 x 10 grid"),
    ("not edges", "line 1: 'hello' is not an edge"),
])
def test_a_bad_start_graph_is_one_line_naming_it(tmp_path, case, message):
    path = tmp_path / "start"
    if case == "other problem":
        small = GridProblem(6, 6, 4, 2)
        path.write_text(json.dumps(solution_to_dict(GridSolution(small, np.array([[0, 1]])))))
    elif case == "too long":
        path.write_text("0,0 5,0\n")
    elif case == "outside":
        path.write_text("0,0 12,0\n")
    elif case == "not edges":
        path.write_text("hello\n")
    with pytest.raises(HopbenchError, match=message) as err:
        _run("grid-tempering", GridProblem(10, 10, 8, 4), start=str(path))
    assert "\n" not in str(err.value) and str(path) in str(err.value)


@pytest.mark.parametrize("name", SOLVERS)
def test_a_run_without_a_start_records_the_parameters_it_always_did(name):
    # the cell key is made of the recorded parameters: an empty start stays out, so the cells published before
    # the parameter existed keep their identity (tests/test_published_boards.py checks the shipped runs)
    assert "start" not in solvers.create(name).recorded_config()
    assert solvers.create(name, start="g.edges").recorded_config()["start"] == "g.edges"


RESULTS = Path(__file__).resolve().parents[3] / "docs" / "results"
KEPT = {  # file in docs/results -> (width, height, degree, length, diameter, total distance, rotation order kept)
    "grid_10x10-d8-r4.grid-tempering.s11.7200s.json": (10, 10, 8, 4, 5, 12_016, 4),
    "grid_10x10-d6-r3.grid-tempering.s9.720s.json": (10, 10, 6, 3, 6, 14_372, 4),
    "grid_10x10-d8-r4.grid-tempering.s201.turn.4500s.json": (10, 10, 8, 4, 5, 12_012, 4),
    "grid_10x10-d8-r4.grid-tempering.s202.turn.4500s.json": (10, 10, 8, 4, 5, 12_012, 4),
    "grid_10x10-d8-r4.grid-tempering.s204.turn.1200s.json": (10, 10, 8, 4, 5, 12_010, 4),
    "grid_10x10-d6-r3.grid-tempering.s10.800s.json": (10, 10, 6, 3, 6, 14_374, 4),
    "grid_10x10-d6-r3.grid-tempering.s402.half.5000s.json": (10, 10, 6, 3, 6, 14_369, 2),
}


def test_the_kept_runs_that_meet_odps_samples_went_on_from_the_kept_graphs_they_name():
    # (10x10, 8, 4): 12,016 (s11) -> 12,012 (s202, start=s11) -> 12,010 (s204, start=s202);
    # (10x10, 6, 3): 14,374 (s10, quarter turns) -> 14,369 (s402, half turns, start=s10): each start is a kept file
    d8 = "grid_10x10-d8-r4.grid-tempering.{}.json".format
    d6 = "grid_10x10-d6-r3.grid-tempering.{}.json".format
    chain = [(d8("s202.turn.4500s"), d8("s11.7200s")), (d8("s204.turn.1200s"), d8("s202.turn.4500s")),
             (d6("s402.half.5000s"), d6("s10.800s"))]
    for result, start in chain:
        want = fingerprint(np.array(json.loads((RESULTS / start).read_text())["edges"]))
        assert json.loads((RESULTS / result).read_text())["extra"]["start_sha256"] == want


def test_every_kept_result_is_checked():
    assert sorted(path.name for path in RESULTS.glob("*.json")) == sorted(KEPT)


@pytest.mark.parametrize("file_name", sorted(KEPT))
def test_a_kept_long_run_graph_is_what_it_says_and_a_run_goes_on_from_it(file_name):
    from tests.harness.problems.grid.test_problem import networkx_metrics

    width, height, degree, length, want_diameter, want_total, order = KEPT[file_name]
    kept = RESULTS / file_name
    doc = json.loads(kept.read_text())
    p = GridProblem(width, height, degree, length)
    edges = np.array(doc["edges"])
    diameter, aspl = networkx_metrics(p, edges)  # an independent check: lengths, degrees, distances
    assert diameter == want_diameter and round(aspl * p.n * (p.n - 1) / 2) == want_total
    assert doc["metrics"]["aspl"] == pytest.approx(aspl, abs=1e-12)
    assert kept_order(edges, rotations(width, height, order))
    if order == 2:  # kept only under half turns: not a quarter-turn graph
        assert not kept_order(edges, rotations(width, height, 4))
    run = _run("grid-tempering", p, evaluations=2000, start=str(kept), symmetry=order)
    assert run.evaluate().total_distance <= want_total


@pytest.mark.parametrize("sample, spec", [(ODP_63, (10, 10, 6, 3)), (ODP_84, (10, 10, 8, 4))], ids=["d6r3", "d8r4"])
def test_a_kept_graph_reaches_odps_sample(sample, spec):
    # the target: ASPL at or below ODP's sample graph on its instance, both measured by networkx
    from tests.harness.problems.grid.test_problem import networkx_metrics

    p = GridProblem(*spec)
    _, theirs = networkx_metrics(p, read_edges(sample.read_text(), p))
    ours = [networkx_metrics(p, np.array(json.loads((RESULTS / name).read_text())["edges"]))[1]
            for name, values in KEPT.items() if values[:4] == spec]
    assert min(ours) <= theirs + 1e-12
