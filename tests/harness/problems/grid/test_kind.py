"""The grid kind: its suite, instance ids, result documents and their re-verification."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from hopbench.harness.bench.suites import load_suite
from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.grid.competition import read_edges
from hopbench.harness.problems.grid.problem import GridProblem, GridSolution
from hopbench.harness.problems.registry import get_kind, kind_of_format, kind_of_objective, verify_document

from .test_problem import DATA


def _sample_solution() -> GridSolution:
    problem = GridProblem(5, 5, 4, 2)
    return GridSolution(problem, read_edges((DATA / "w5h5d4r2.edges").read_text(), problem), solver="odp-sample")


def test_the_kind_is_registered_with_its_objective_and_format():
    kind = get_kind("grid")
    assert kind_of_objective("grid-golf") is kind and kind_of_format("hopbench.grid/1") is kind
    assert len(kind.sample_problems()) >= 3


def test_the_suite_holds_the_eleven_featured_instances_with_their_references():
    suite = load_suite("graphgolf-grid")
    ids = [i.id for i in suite.instances]
    assert len(ids) == 11 and ids[0] == "grid:5x5/d4/r2" and ids[-1] == "grid:100x100/d8/r4"
    kind = get_kind("grid")
    for inst in suite.instances:
        problem = inst.problem()
        bound = {r["label"]: r for r in inst.references}["lower bound"]
        d, a = problem.lower_bounds()
        assert (bound["diameter"], bound["aspl"]) == (d, pytest.approx(a, abs=5e-5))
    samples = {i.id: r for i in suite.instances for r in i.references if r["label"] == "ODP sample"}
    assert {k: (r["diameter"], r["aspl"]) for k, r in samples.items()} == {
        "grid:5x5/d4/r2": (4, 2.2667), "grid:10x10/d6/r3": (6, 2.9030), "grid:10x10/d8/r4": (5, 2.4263)}


def test_a_document_verifies_and_a_tampered_one_does_not():
    doc = _sample_solution().to_dict()
    assert doc["format"] == "hopbench.grid/1" and doc["metrics"]["diameter"] == 4
    assert verify_document(doc).valid
    kind = get_kind("grid")
    assert kind.check_result(GridProblem(5, 5, 4, 2), doc).valid
    lying = copy.deepcopy(doc)
    lying["metrics"]["aspl"] = 2.2
    assert "does not match" in verify_document(lying).reason
    long_edge = copy.deepcopy(doc)
    long_edge["edges"][0] = [0, 24]
    assert "above the cable length 2" in verify_document(long_edge).reason
    other = kind.check_result(GridProblem(5, 5, 4, 3), doc)
    assert not other.valid and "length" in other.reason
    read = kind.read(doc)
    assert isinstance(read, GridSolution) and np.array_equal(read.edges, _sample_solution().edges)


def test_graph_of_gives_the_network_with_the_degree_as_radix():
    net = get_kind("grid").graph_of(_sample_solution().to_dict())
    assert net.graph.n == 25 and net.radix == 4 and net.graph.max_degree <= 4


def test_a_suite_instance_missing_a_key_is_refused(tmp_path):
    suite = tmp_path / "g.toml"
    suite.write_text('name = "g"\ndescription = "d"\n[[instances]]\nkind = "grid"\nwidth = 4\nheight = 4\ndegree = 3\n')
    with pytest.raises(HopbenchError, match="missing key 'length'"):
        load_suite(suite)


def test_reference_points_fall_back_to_the_computed_bound():
    kind = get_kind("grid")
    points = kind.reference_points(GridProblem(5, 5, 4, 2), [])
    assert points["lower bound"] == {"diameter": 4.0, "aspl": pytest.approx(2.2133333333333334)}


def test_hopbench_export_golf_writes_the_competitions_grid_format(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[4]
    doc = tmp_path / "g.json"
    doc.write_text(json.dumps(_sample_solution().to_dict()))
    env = {"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "hopbench.harness.cli", "export", str(doc), "--format", "golf"],
                         capture_output=True, text=True, cwd=root, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    problem = GridProblem(5, 5, 4, 2)
    edges = read_edges(out.stdout, problem)  # "x,y x,y" lines of this grid
    ev = problem.evaluate(edges)
    assert (ev.diameter, ev.total_distance) == (4, 680)
