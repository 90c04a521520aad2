"""A small results store made of real runs, for the board, writer, markdown, plot, site and export tests.

Cells are planned by the runner and run in this process (:func:`hopbench.harness.bench.cells.run_cell`,
no sandbox processes) so that building the store takes about a second; rows for
failures and timeouts are recorded the way the runner records them.
"""
from __future__ import annotations

from pathlib import Path

SUITE_TOML = """
name = "tiny"
description = "A tiny test suite: rings and a torus with published references, and two routing tori."
seeds = 3
time_limit = 5
evaluations = 200

[[grid]]
vars = { n = [16, 25, 36] }
bases = ["ring:{n}"]
caps = [4]
budgets = ["n // 4"]
objectives = ["aspl"]

[[instances]]
base = "torus:4x4"
cap = 6
budget = 4
objective = "golf"
optimum = 3.4
best_known = 3.45
reference = [{ source = "Made-up et al. 2020, Table 1", label = "X", solver = "random", diameter = 3, aspl = 1.8 },
             { source = "Made-up et al. 2020, Table 1", label = "Y", diameter = 4, aspl = 1.7, note = "a note" }]

[[instances]]
# no shortcut can connect six isolated vertices with two edges: every run is disconnected (inf)
base = "empty:6"
cap = 2
budget = 2

[[instances]]
kind = "routing"
torus = "3x3"

[[instances]]
kind = "routing"
torus = "4x2x2"
reference = [{ source = "Made-up et al. 2021", label = "Z", solver = "dor", max_load = 11, sigma4 = 1.5 }]

[[annotations]]
id = "ring:25/cap4/b6/aspl"
reference = [{ source = "Made-up et al. 2020, Table 1", label = "X", solver = "vrs", diameter = 6 },
             { source = "Made-up et al. 2020, Table 1", label = "Y", diameter = 5 }]
"""

SHORTCUT_SOLVERS = ["random", "vrs"]
ROUTING_SOLVERS = ["dor", "angara-bfs"]


def make_store(tmp_path: Path) -> tuple[str, object, Path]:
    """Write the suite file and a store of its runs; returns ``(store URL, Suite, suite path)``.

    Every (instance, solver) gets seeds 1-3; on top of that the store holds a
    ``random`` run on ``ring:16`` that errored and a ``vrs`` run on ``ring:36``
    that timed out (seed 4), like the runner records them, and one Optuna trial
    (``study`` set), which boards leave out.
    """
    from hopbench.harness.bench.cells import run_cell
    from hopbench.harness.bench.runner import plan_matrix, result_row
    from hopbench.harness.bench.store import Store
    from hopbench.harness.bench.suites import load_suite

    path = tmp_path / "tiny.toml"
    path.write_text(SUITE_TOML)
    suite = load_suite(path)
    url = f"sqlite:///{tmp_path / 'tiny.db'}"
    store = Store.open(url)
    plan = plan_matrix(suite, solver_names=SHORTCUT_SOLVERS + ROUTING_SOLVERS, seeds=[1, 2, 3])
    for cell in plan.todo:
        result = run_cell(cell)
        store.record(result_row(cell, result, "0123456789abcdef"), result.get("trace") or [])
    failures = plan_matrix(suite, solver_names=SHORTCUT_SOLVERS, seeds=[4], instances="ring:*")
    for cell in failures.todo:
        if cell["instance"] == "ring:16/cap4/b4/aspl" and cell["solver"] == "random":
            result = {"status": "error", "error": "RuntimeError: boom"}
        elif cell["instance"] == "ring:36/cap4/b9/aspl" and cell["solver"] == "vrs":
            result = {"status": "timeout", "error": "killed at the hard limit", "elapsed_s": 11.0}
        else:
            continue
        store.record(result_row(cell, result, "0123456789abcdef"))
    # an Optuna trial (hopbench tune) on the same suite: recorded, but not a leaderboard run
    trial = dict(failures.todo[0], params={"x": 1}, params_tag="x=1")
    trial["key"] += "|study=tune-x|trial=0"
    store.record(result_row(trial, run_cell(dict(trial, params={})), "0123456789abcdef",
                            {"study": "tune-x", "trial": 0}))
    store.close()
    return url, suite, path


def shared_board(tmp_path_factory) -> dict:
    """The tiny store and its written board, built once per test session and shared by the
    board, writer, markdown, plot and site tests (tests must not modify these files; copy them first)."""
    import json

    root = tmp_path_factory.getbasetemp() / "tiny-board"
    done = root / "done.json"
    if not done.exists():
        from hopbench.harness.bench.store import Store
        from hopbench.harness.report.board import build_board
        from hopbench.harness.report.site import write_site
        from hopbench.harness.report.writer import write_board

        root.mkdir(parents=True, exist_ok=True)
        url, suite, path = make_store(root)
        store = Store.open(url)
        board = build_board(store, suite.name, suite=suite)
        write_board(board, store, root / "leaderboards")
        write_site(root / "leaderboards")
        store.close()
        done.write_text(json.dumps({"url": url, "suite_path": str(path)}))
    info = json.loads(done.read_text())
    from hopbench.harness.bench.suites import load_suite

    return {"url": info["url"], "suite": load_suite(info["suite_path"]), "suite_path": Path(info["suite_path"]),
            "out": root / "leaderboards", "db": Path(info["url"][len("sqlite:///"):])}
