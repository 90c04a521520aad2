"""The import names (docs/architecture.md, "Import names"): the code is ``hopbench.harness`` and ``hopbench.solvers``,
found in the checkout's ``harness/`` and ``solvers/`` folders beside ``hopbench/``; the old top-level names
``harness`` and ``solvers`` are deprecated aliases of the very same modules.

Each check runs in a fresh process (what a user's session sees first), with the checkout's root on the path as
a clone or this test suite has it, so the real ``harness/`` folder is importable as a top-level package too.
The old names appear only inside strings here: the project itself never imports them
(tests/test_architecture.py checks that).  The wheel's side of it is in tests/test_packaging.py.
"""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str, cwd: Path = ROOT, *args: str):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONWARNINGS", "HOPBENCH_SOLVER_MODULES")}
    env["PYTHONPATH"] = str(ROOT)
    run = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return run


#: imports the same modules under both names, in the order given, and reports what it saw
BOTH_WAYS = """
import json, sys, warnings
order = sys.argv[1]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    def new():
        import hopbench.harness.problems.shortcut.problem as problem
        from hopbench.solvers.contract import Solver
        from hopbench import solvers
        return problem, Solver, solvers
    def old():
        import harness.problems.shortcut.problem as problem
        from solvers.contract import Solver
        import solvers
        return problem, Solver, solvers
    first, second = (new, old) if order == "new-first" else (old, new)
    a, b = first(), second()
    import harness, solvers
    import hopbench.harness, hopbench.solvers
print(json.dumps({
    "same": [x is y for x, y in zip(a, b)],
    "packages": [harness is hopbench.harness, solvers is hopbench.solvers],
    "warnings": [str(w.message) for w in caught if w.category is DeprecationWarning],
    "files": [a[0].__file__, b[0].__file__],
    "names": [a[0].__name__, a[1].__module__],
}))
"""


def test_both_names_give_the_very_same_modules_with_one_warning_each_in_either_order():
    for order in ("new-first", "old-first"):
        got = json.loads(_python(BOTH_WAYS, ROOT, order).stdout)
        assert got["same"] == [True, True, True], order
        assert got["packages"] == [True, True], order
        assert got["names"] == ["hopbench.harness.problems.shortcut.problem", "hopbench.solvers.contract.solver"]
        assert got["files"][0] == got["files"][1] == str(ROOT / "harness" / "problems" / "shortcut" / "problem.py")
        # one warning per old name, naming the new one
        assert len(got["warnings"]) == 2, got["warnings"]
        for old in ("harness", "solvers"):
            assert [w for w in got["warnings"] if f"{old!r} is deprecated: use 'hopbench.{old}'" in w], got["warnings"]


def test_the_warning_points_at_the_line_that_imports_the_old_name():
    """Python shows a DeprecationWarning by default only when it is raised from ``__main__``: a script or a
    notebook importing the old name sees it, at its own line."""
    run = _python("import os\nimport harness.graphs.graph\n")
    assert "<string>:2: DeprecationWarning: the import name 'harness' is deprecated: use 'hopbench.harness'" \
        in run.stderr
    assert run.stderr.count("DeprecationWarning") == 1
    assert "DeprecationWarning" not in _python("import hopbench.harness.graphs.graph").stderr


#: every module of the project, imported under its new name and under the old one; a module whose file is
#: loaded twice (two module objects, one per name) is listed
NO_DUPLICATES = """
import json, os, pkgutil, sys, warnings, importlib
root = sys.argv[1]
warnings.simplefilter("ignore", DeprecationWarning)
import hopbench.harness, hopbench.solvers
names = []
for package in (hopbench.harness, hopbench.solvers):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if not info.name.endswith(("__main__", ".migrations.env")):
            names.append(info.name)
for name in names:
    importlib.import_module(name)
    importlib.import_module(name.removeprefix("hopbench."))
by_file = {}
for key, module in list(sys.modules.items()):
    path = getattr(module, "__file__", None)
    # the project's own folders only: scipy registers one of its .so twice, and a venv may live inside the checkout
    if path and os.path.realpath(path).startswith(tuple(os.path.join(root, p) + os.sep for p in
                                                        ("hopbench", "harness", "solvers", "aliases"))):
        by_file.setdefault(os.path.realpath(path), set()).add(id(module))
print(json.dumps({"count": len(names), "twice": sorted(p for p, ids in by_file.items() if len(ids) > 1),
                  "old": sorted(k for k in sys.modules if k.partition(".")[0] in ("harness", "solvers"))[:3]}))
"""


def test_no_module_is_loaded_twice_when_both_names_import_everything():
    got = json.loads(_python(NO_DUPLICATES, ROOT, str(ROOT.resolve()) + os.sep).stdout)
    assert got["count"] > 100  # every module was reached
    assert got["old"]  # and the old names were really used
    assert got["twice"] == []


def test_a_pickle_made_under_either_name_loads_the_same_class():
    from hopbench.harness.graphs.graph import Graph

    new = pickle.dumps(Graph, protocol=0)
    assert b"hopbench.harness.graphs.graph" in new
    old = new.replace(b"hopbench.harness.graphs.graph", b"harness.graphs.graph")
    code = ("import pickle, sys\nfrom hopbench.harness.graphs.graph import Graph\n"
            f"print(pickle.loads({old!r}) is Graph is pickle.loads({new!r}))")
    assert _python(code).stdout.strip() == "True"


def test_a_worktree_runs_its_own_code_and_exposes_no_other_folder(tmp_path):
    """hopbench.harness resolves to the folder beside the hopbench/ that was imported, even when an editable
    install of another checkout is on the path; the checkout's other folders do not become subpackages."""
    code = ("import json, importlib.util, hopbench, hopbench.harness.cli, hopbench.solvers\n"
            "print(json.dumps([hopbench.__file__, hopbench.harness.cli.__file__, hopbench.solvers.__file__,\n"
            "                  importlib.util.find_spec('hopbench.tests') is None,\n"
            "                  importlib.util.find_spec('hopbench.scripts') is None]))")
    got = json.loads(_python(code, cwd=tmp_path).stdout)
    assert got[:3] == [str(ROOT / "hopbench" / "__init__.py"), str(ROOT / "harness" / "cli" / "__init__.py"),
                       str(ROOT / "solvers" / "__init__.py")]
    assert got[3:] == [True, True]


OLD_NAMES_PLUGIN = '''
"""A third-party plug-in written before the move, against the old import names."""
from harness.problems.shortcut.problem import Solution
from solvers.contract import register
from solvers.shortcut.random_shortcuts import RandomShortcuts

import hopbench.harness.problems.shortcut.problem as new


@register
class OldNames(RandomShortcuts):
    name = "old-names"
    description = "the shipped random solver, imported under the deprecated names"

    def solve(self, problem, *, seed, budget, report):
        assert Solution is new.Solution  # one copy of the module, whichever name imported it
        return super().solve(problem, seed=seed, budget=budget, report=report)
'''


def test_a_plugin_written_against_the_old_names_registers_and_solves(tmp_path):
    (tmp_path / "old_names_plugin.py").write_text(OLD_NAMES_PLUGIN)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    env.update(HOPBENCH_SOLVER_MODULES="old_names_plugin", PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path)]))
    out = tmp_path / "s.json"
    run = subprocess.run([sys.executable, "-m", "hopbench.harness.cli", "solve", "--base", "ring:16", "--cap", "3",
                          "--budget", "2", "--solver", "old-names", "--seed", "1", "-o", out], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "not loaded" not in run.stderr
    doc = json.loads(out.read_text())
    assert doc["solver"]["name"] == "old-names"
    assert len(doc["shortcuts"]) == 2


def test_python_dash_m_under_the_old_name_still_runs_the_command(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    env["PYTHONPATH"] = str(ROOT)
    run = subprocess.run([sys.executable, "-W", "default", "-m", "harness.cli", "evaluate", "--topology", "ring:10",
                          "--json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["diameter"] == 5
    assert "'harness' is deprecated: use 'hopbench.harness'" in run.stderr
