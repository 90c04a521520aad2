"""Each command imports only the heavy libraries it uses, so that ``hopbench`` starts fast.

Every case runs ``main([...])`` in a fresh interpreter and reads ``sys.modules``
afterwards: what the command imported, at the top of a module or inside a
function, on the path it really took.  ``tests/benchmarks/bench_cli.py``
measures the resulting start-up times.
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

HEAVY = ("numba", "matplotlib", "distributed", "ortools", "deap", "optuna", "pandas", "scipy", "sqlalchemy",
         "alembic")

_PROBE = """
import json, sys
from hopbench.harness.cli import main
try:
    code = main(json.loads(sys.argv[1]))
except SystemExit as exc:  # --help exits
    code = exc.code
loaded = sorted({name.partition(".")[0] for name in sys.modules} & set(json.loads(sys.argv[2])))
print(json.dumps({"code": code, "loaded": loaded}), file=sys.stderr)
"""


def imported(args: list[str], cwd, watch: tuple[str, ...] = HEAVY) -> set[str]:
    """The packages of ``watch`` that ``hopbench ARGS`` imports (the command must succeed)."""
    r = subprocess.run([sys.executable, "-c", _PROBE, json.dumps([str(a) for a in args]), json.dumps(watch)],
                       capture_output=True, text=True, cwd=cwd, timeout=300)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stderr.strip().splitlines()[-1])
    assert report["code"] in (0, None), (args, r.stdout, r.stderr)
    return set(report["loaded"])


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """A random 3-regular edge file of 300 vertices and a torus:8x8 solution file."""
    from hopbench.harness.documents import dumps
    from hopbench.harness.graphs.edge_list import edge_list_text
    from hopbench.harness.graphs.graph import Graph
    from hopbench.harness.graphs.topologies import parse_spec
    from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution
    from hopbench.harness.problems.shortcut.solution_file import solution_to_dict

    d = tmp_path_factory.mktemp("imports")
    rng = np.random.default_rng(3)
    while True:  # the pairing model, until it gives a simple graph
        e = rng.permutation(np.repeat(np.arange(300), 3)).reshape(-1, 2)
        if (e[:, 0] != e[:, 1]).all() and Graph(300, e).m == len(e):
            break
    (d / "r3.edges").write_text(edge_list_text(Graph(300, e)))
    problem = ShortcutProblem(parse_spec("torus:8x8"), 10, 16, base_spec="torus:8x8")
    (d / "sol.json").write_text(dumps(solution_to_dict(Solution(problem, [[0, 36], [9, 45], [18, 54], [27, 63]])))
                                + "\n")
    return d


def test_help_imports_nothing_heavy(tmp_path):
    # not even numpy: every command module must stay light at import, since --help imports them all
    assert imported(["--help"], tmp_path, HEAVY + ("numpy",)) == set()


@pytest.mark.parametrize("args", [["evaluate", "r3.edges"], ["evaluate", "--topology", "torus:16x16", "--json"],
                                  ["verify", "sol.json"], ["verify", "sol.json", "--json"]])
def test_small_evaluate_and_verify_load_no_numba_nor_scipy(inputs, args):
    unwanted = {"numba", "matplotlib", "pandas", "optuna", "ortools", "deap", "scipy"}
    assert not imported(args, inputs) & unwanted


@pytest.mark.parametrize("args", [["instances"], ["instances", "quick", "--json"]])
def test_instances_imports_nothing_heavy(tmp_path, args):
    assert imported(args, tmp_path) == set()


def test_solvers_loads_the_solver_modules_only(tmp_path):
    # listing the solvers imports their modules (numba kernels, DEAP, scipy), never the
    # optional back ends they load when they run (OR-Tools) nor the store, board or tuning
    assert not imported(["solvers"], tmp_path) & {"matplotlib", "distributed", "ortools", "optuna", "pandas",
                                                   "sqlalchemy", "alembic"}


def test_results_table_loads_no_pandas_nor_numba(tmp_path):
    url = f"sqlite:///{tmp_path / 'results.db'}"
    from hopbench.harness.bench.store import Store

    Store.open(url).close()  # an (empty) store to read
    assert not imported(["results", "--storage", url], tmp_path) & {"numba", "pandas", "matplotlib", "optuna"}


def test_a_small_edgecut_solve_loads_no_numba_nor_scipy(tmp_path):
    # issue 35, item 7: a 144-vertex EdgeCut solve keeps its distance matrix in numpy
    # (hopbench.harness.engine.small_state) instead of paying about a second to load numba
    args = ["solve", "--base", "torus:12x12", "--cap", "10", "--budget", "24", "--solver", "edgecut-full"]
    assert not imported(args, tmp_path) & {"numba", "scipy", "pandas", "matplotlib", "optuna", "sqlalchemy"}
    # a time limit warms the solver up first, which loads the numba state it then uses
    assert "numba" in imported(args + ["--time-limit", "5"], tmp_path)
