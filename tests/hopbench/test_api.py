"""``import hopbench``: the public API a notebook uses, end to end, and its one-line errors."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

import hopbench

ROOT = Path(__file__).resolve().parents[2]


def test_every_public_name_resolves_and_import_stays_light():
    code = ("import sys, hopbench; heavy = [m for m in ('numba', 'pandas', 'scipy', 'sqlalchemy', 'hopbench.solvers') "
            "if m in sys.modules]; print(heavy); [getattr(hopbench, n) for n in hopbench.__all__]")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
                         env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"  # nothing heavy until a name that needs it is used
    assert set(hopbench.__all__) <= set(dir(hopbench))
    with pytest.raises(AttributeError):
        hopbench.no_such_name  # noqa: B018


def test_a_shortcut_problem_takes_a_spec_or_a_graph():
    from_spec = hopbench.ShortcutProblem("torus:6x6", degree_cap=6, budget=6)
    from_graph = hopbench.ShortcutProblem(hopbench.topology("torus:6x6"), 6, 6)
    assert from_spec.base == from_graph.base and from_spec.base.n == 36
    assert from_spec.base_spec == "torus:6x6" and from_graph.base_spec is None
    assert from_spec.describe()["base"] == "torus:6x6"


@pytest.mark.parametrize("base, words", [(36, "got int 36"), (None, "got NoneType"),
                                         ("torus6x6", "topology spec 'torus6x6' is malformed")])
def test_a_bad_base_is_one_clear_error(base, words):
    with pytest.raises(hopbench.HopbenchError, match=words) as info:
        hopbench.ShortcutProblem(base, 6, 6)
    assert "\n" not in str(info.value)


def test_a_spec_and_a_different_base_spec_are_refused():
    with pytest.raises(hopbench.HopbenchError, match="disagree"):
        hopbench.ShortcutProblem("torus:6x6", 6, 6, base_spec="ring:36")


def test_a_routing_problem_takes_a_spec_or_sizes_but_not_a_graph():
    a = hopbench.RoutingProblem("torus:4x3")
    assert a.network.dims == hopbench.RoutingProblem((4, 3)).network.dims == (4, 3)
    with pytest.raises(hopbench.HopbenchError, match="dimension sizes"):
        hopbench.RoutingProblem(hopbench.topology("torus:4x3"))


def test_evaluate_agrees_with_networkx():
    g = hopbench.topology("mesh:3x5")
    nxg = nx.Graph(g.edges.tolist())
    m = hopbench.evaluate("mesh:3x5")
    assert (m.n, m.m, m.max_degree) == (15, nxg.number_of_edges(), max(d for _, d in nxg.degree))
    assert m.diameter == nx.diameter(nxg)
    assert m.aspl == pytest.approx(nx.average_shortest_path_length(nxg), abs=1e-12)
    assert m.lower_bound_diameter <= m.diameter and m.lower_bound_aspl <= m.aspl
    assert hopbench.evaluate(g) == m
    empty = hopbench.evaluate("empty:3")
    assert not empty.connected and empty.diameter == float("inf")


def test_solve_returns_an_evaluated_solution_with_its_trace():
    problem = hopbench.ShortcutProblem("torus:6x6", degree_cap=6, budget=6)
    sol = hopbench.solve(problem, "edgecut-full", seed=3, evaluations=200)
    assert sol.solver == "edgecut-full" and sol.seed == 3 and len(sol.shortcuts) <= 6
    problem.validate(sol.shortcuts)  # a valid solution of the problem
    again = problem.evaluate(sol.shortcuts)
    assert sol.metrics == again.metrics() and sol.evaluation.objective == again.objective
    values = [p.value for p in sol.trace]
    assert values and values == sorted(values, reverse=True)  # improvements only
    assert min(values) == pytest.approx(sol.metrics["objective"])
    assert sol.evaluations >= sol.trace[-1].evaluations
    twin = hopbench.solve(problem, "edgecut-full", seed=3, evaluations=200)
    assert twin.shortcuts.tolist() == sol.shortcuts.tolist()


def test_solve_passes_parameters_and_routing_problems():
    problem = hopbench.ShortcutProblem("ring:16", 4, 4)
    sol = hopbench.solve(problem, "edgecut-full", seed=0, evaluations=50, t=3)
    assert sol.params["t"] == 3
    table = hopbench.solve(hopbench.RoutingProblem("4x3"), "dor")
    assert table.solver == "dor" and table.metrics["max_load"] >= 1


def test_solve_warms_up_through_the_one_warm_up_path_before_the_clock(monkeypatch):
    import hopbench.solvers.contract.execution as execution
    import hopbench.solvers.contract.warmup as warmup

    calls = []
    monkeypatch.setattr(warmup, "warm_up_solver", lambda name, params: calls.append(("warm", name)))
    real = execution.execute
    monkeypatch.setattr(execution, "execute", lambda *a, **k: calls.append(("run", a[0].name)) or real(*a, **k))
    problem = hopbench.ShortcutProblem("ring:16", 4, 4)
    hopbench.solve(problem, "random", seed=0)
    assert calls == [("warm", "random"), ("run", "random")]
    calls.clear()
    hopbench.solve(problem, "random", seed=0, warm_up=False)
    assert calls == [("run", "random")]


@pytest.mark.parametrize("call, words", [
    (lambda p: hopbench.solve(p, "dor"), "does not solve shortcut problems; use one of .*edgecut-full"),
    (lambda p: hopbench.solve(p, "no-such-solver"), "unknown solver 'no-such-solver'"),
    (lambda p: hopbench.solve(p, "random", time_limit=0), "time_limit must be a positive number"),
    (lambda p: hopbench.solve(p, "random", time_limit="1"), "time_limit must be a positive number"),
    (lambda p: hopbench.solve(p, "random", evaluations=0), "evaluations must be an integer >= 1"),
    (lambda p: hopbench.solve(p, "random", seed=-1), "seed must be a non-negative integer"),
    (lambda p: hopbench.solve("torus:4x4", "random"), "build a problem first"),
    (lambda p: hopbench.solve(p, 3), "solver must be a solver name"),
    (lambda p: hopbench.solve(p, "random", no_such_param=1), "no_such_param"),
])
def test_bad_solve_calls_are_one_line_errors(call, words):
    problem = hopbench.ShortcutProblem("ring:16", 4, 4)
    with pytest.raises(hopbench.HopbenchError, match=words) as info:
        call(problem)
    assert "\n" not in str(info.value)


def test_a_solver_object_with_separate_parameters_is_refused():
    from hopbench import solvers

    with pytest.raises(hopbench.HopbenchError, match="beside a solver object"):
        hopbench.solve(hopbench.ShortcutProblem("ring:16", 4, 4), solvers.create("random"), t=3)


def test_save_load_verify_round_trip(tmp_path):
    problem = hopbench.ShortcutProblem("torus:4x4", 6, 4, objective="golf")
    sol = hopbench.solve(problem, "random", seed=5)
    path = hopbench.save(sol, tmp_path / "sol.json")
    back = hopbench.load(path)
    assert back.shortcuts.tolist() == sol.shortcuts.tolist() and back.problem == problem
    assert (back.solver, back.seed, back.params) == ("random", 5, sol.params)
    for source in (path, str(path), json.loads(path.read_text()), back, sol):
        verdict = hopbench.verify(source)
        assert verdict.valid and verdict.metrics == sol.metrics
    doc = json.loads(path.read_text())
    doc["metrics"]["aspl"] += 0.5
    bad = hopbench.verify(doc)
    assert not bad.valid and "aspl" in bad.reason


def test_routing_tables_round_trip(tmp_path):
    table = hopbench.solve(hopbench.RoutingProblem("4x3"), "dor")
    back = hopbench.load(hopbench.save(table, tmp_path / "routes.json"))
    assert back.solver == "dor" and back.metrics == table.metrics
    assert hopbench.verify(tmp_path / "routes.json").valid


def test_file_errors_are_one_line(tmp_path):
    with pytest.raises(hopbench.HopbenchError, match="unsupported format"):
        hopbench.load({"format": "nope/1"})
    with pytest.raises(hopbench.HopbenchError, match="missing field 'format'"):
        hopbench.load({})
    with pytest.raises(hopbench.HopbenchError, match="does not exist"):
        hopbench.save(hopbench.solve(hopbench.ShortcutProblem("ring:16", 4, 4), "random"),
                      tmp_path / "missing" / "x.json")
    with pytest.raises(hopbench.HopbenchError, match="cannot save a dict"):
        hopbench.save({}, tmp_path / "x.json")


def test_suites_and_the_store_are_reachable():
    suite = hopbench.load_suite("quick")
    problem = suite.instances[0].problem()
    assert problem.kind in ("shortcut", "routing")
    store = hopbench.Store.open("sqlite://")
    try:
        assert len(store.dataframe()) == 0
    finally:
        store.close()


def test_the_readme_python_example_runs(capsys):
    readme = (ROOT / "README.md").read_text()
    step = readme[readme.index("**6. Work from Python**"):readme.index("**7. Add a solver**")]
    code = re.search(r"```python\n(.*?)```", step, re.S).group(1)
    scope: dict = {}
    exec(compile(code, "README.md (step 6)", "exec"), scope)  # noqa: S102 - our own README
    solution = scope["solution"]
    assert solution.solver == "edgecut-full" and len(solution.shortcuts) <= 16
    assert hopbench.verify(solution).valid
    aspl, points, valid = capsys.readouterr().out.split()
    assert float(aspl) == solution.metrics["aspl"] and int(points) == len(solution.trace) >= 1 and valid == "True"
