"""hopbench.harness.bench.cells.run_cell: one cell's outcome, a solver's decline recorded as 'skipped'."""
from __future__ import annotations

from hopbench import solvers
from hopbench.harness.bench.cells import run_cell
from hopbench.harness.bench.runner import plan_matrix
from hopbench.harness.bench.suites import load_suite


def one_cell(tmp_path, body: str, solver: str) -> dict:
    path = tmp_path / "one.toml"
    path.write_text(body)
    plan = plan_matrix(load_suite(path), solver_names=[solver], seeds=[1])
    assert len(plan.todo) == 1
    return plan.todo[0]


def count_skip_calls(monkeypatch, solver: str) -> list:
    cls = type(solvers.create(solver))
    calls: list = []
    original = cls.skip
    monkeypatch.setattr(cls, "skip", lambda self, problem: calls.append(1) or original(self, problem))
    return calls


def test_a_declined_problem_is_skipped_with_the_solvers_reason(tmp_path, monkeypatch):
    cell = one_cell(tmp_path, '[[instances]]\nbase = "ring:8"\ncap = 4\nbudget = 2\nobjective = "ad"\n', "milp")
    calls = count_skip_calls(monkeypatch, "milp")
    result = run_cell(cell)
    assert result["status"] == "skipped"
    assert result["error"].startswith("ASPL x diameter is not linear")
    assert len(calls) == 1


def test_skip_is_asked_once_per_solved_cell(tmp_path, monkeypatch):
    # milp's check sizes the model from the base distances: a cell must not pay for it twice
    cell = one_cell(tmp_path, '[[instances]]\nbase = "ring:8"\ncap = 4\nbudget = 2\n', "milp")
    cell["params"] = {"warm_start": "none"}
    calls = count_skip_calls(monkeypatch, "milp")
    result = run_cell(cell)
    assert result["status"] == "ok", result["error"]
    assert len(calls) == 1


def test_a_solved_cell_reports_its_metrics(tmp_path):
    cell = one_cell(tmp_path, '[[instances]]\nbase = "ring:12"\ncap = 4\nbudget = 3\n', "edgecut-full")
    result = run_cell(cell)
    assert result["status"] == "ok" and result["error"] is None
    assert result["objective"] == result["aspl"] < 3.2727  # ring:12's own ASPL is 36/11
    assert len(result["solution"]["shortcuts"]) == 3
