"""Trust: only the solvers shipped with hopbench are trusted to keep their budgets, however a solver is found.

Shipped means named in ``hopbench.solvers.contract.registry.SHIPPED`` and being the very class its
module defines; a solver whose module merely lives in (or claims to live in)
``hopbench.solvers.shortcut`` is a plug-in.  The limits that apply to plug-ins are stated in
``hopbench.solvers.contract.limits``; the strict warm-up in ``hopbench.solvers.contract.warmup``.
"""
from __future__ import annotations

import importlib.metadata as md
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.shortcut.problem import Solution
from hopbench.solvers.contract import Solver, registry, warmup
from hopbench.solvers.contract.limits import (
    BUILTIN_WARMUP_LIMIT,
    DEFAULT_PLUGIN_WARMUP_LIMIT,
    PLUGIN_WARMUP_LIMIT_ENV,
    hard_limit,
    plugin_warm_up_limit,
    warm_up_limit,
)

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def scratch_registry(monkeypatch):
    """A copy of the registry for the test to register into; the real one is left as it was."""
    solvers.names()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_plugins", set(registry._plugins))
    return registry._REGISTRY


def _solver_class(name: str, module: str, qualname: str = "Rogue") -> type[Solver]:
    """A solver class that says it was defined in ``module`` (as a file dropped there would)."""
    def solve(self, problem, *, seed, budget, report):
        return Solution(problem, np.empty((0, 2), dtype=np.int64))

    cls = type(qualname, (Solver,), {"name": name, "description": "a plug-in", "solve": solve, "__module__": module})
    cls.__qualname__ = qualname
    return cls


def _tracked_solver_modules() -> list[str]:
    """The solver modules the repository tracks (what a hopbench release ships), by git.  Import names and
    folders differ (``hopbench.solvers.grid`` lives in ``solvers/grid/``), so each package's folder comes from
    importing it."""
    import importlib

    folders = {package: Path(importlib.import_module(package).__path__[0]).resolve() for package in registry.BUILTIN_PACKAGES}
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", *(str(f.relative_to(ROOT)) for f in folders.values())],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        pytest.skip("git is not available")
    if out.returncode != 0 or not out.stdout.strip():
        pytest.skip("not a git checkout")
    modules = []
    for line in out.stdout.split():
        path = (ROOT / line).resolve()
        if path.suffix != ".py" or path.name.startswith("_"):
            continue
        package = next(p for p, folder in folders.items() if path.parent == folder)
        modules.append(f"{package}.{path.stem}")
    return sorted(modules)


def test_builtin_lists_exactly_the_solvers_the_tracked_modules_register():
    """The static table (name -> module:Class, kinds) that lets a lookup import one module is what the modules
    themselves register, so it cannot drift from them."""
    import importlib

    modules = _tracked_solver_modules()
    for module in modules:
        importlib.import_module(module)
    registry.load_all()
    found = {cls.name: (registry.qualified_name(cls), tuple(cls.kinds)) for cls in registry._REGISTRY.values()
             if cls.__module__ in modules}
    assert found == registry.BUILTIN, ("add a new shipped solver to BUILTIN, or fix or drop a stale row: "
                                       f"missing {sorted(found.items() - registry.BUILTIN.items())}, "
                                       f"stale {sorted(registry.BUILTIN.items() - found.items())}")
    assert registry.SHIPPED == {where for where, _ in found.values()}


def test_looking_up_a_shipped_solver_imports_only_its_module():
    # a fresh process: this one has imported every solver already
    code = ("import json, sys; from hopbench import solvers; solvers.create('edgecut-full'); "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('hopbench.solvers.', 'hopbench.harness.problems.routing', "
            "'scipy.sparse')))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    loaded = json.loads(out.stdout)
    assert "hopbench.solvers.shortcut.edgecut" in loaded
    assert not [m for m in loaded if m.startswith(("hopbench.solvers.routing", "hopbench.solvers.traffic", "hopbench.harness.problems.routing",
                                                   "scipy.sparse", "hopbench.solvers.shortcut.annealing"))], loaded


def test_a_plugin_cannot_take_the_name_of_a_shipped_solver_not_imported_yet(scratch_registry):
    scratch_registry.pop("milp", None)  # as if hopbench.solvers.shortcut.milp had not been imported
    with pytest.raises(TypeError, match="solver name 'milp' is taken by hopbench.solvers.shortcut.milp:Milp"):
        registry.register(_solver_class("milp", "elsewhere.module", "Milp"))
    assert solvers.get("milp").__module__ == "hopbench.solvers.shortcut.milp"


def test_every_shipped_solver_is_trusted_and_unknown_names_are_not():
    shipped = [name for name in solvers.names() if registry.qualified_name(solvers.get(name)) in registry.SHIPPED]
    assert len(shipped) == len(registry.SHIPPED)
    assert all(solvers.is_builtin(name) for name in shipped)
    assert not solvers.is_builtin("no-such-solver")


def test_a_solver_whose_module_is_in_the_solvers_package_but_not_shipped_is_a_plugin(scratch_registry):
    # what a file dropped into solvers/shortcut/ defines (issue 15, class 5: trusted by its module's name)
    registry.register(_solver_class("rogue", "hopbench.solvers.shortcut.rogue"))
    assert solvers.get("rogue").__module__ == "hopbench.solvers.shortcut.rogue"
    assert not solvers.is_builtin("rogue")


def test_a_class_borrowing_a_shipped_name_is_not_trusted(scratch_registry):
    fake = _solver_class("annealing-lookalike", "hopbench.solvers.shortcut.annealing", "Annealing")
    assert registry.qualified_name(fake) in registry.SHIPPED  # the name alone would pass
    registry.register(fake)
    assert not solvers.is_builtin("annealing-lookalike")
    assert solvers.is_builtin("annealing")


def test_another_class_cannot_take_a_shipped_solvers_name(scratch_registry):
    with pytest.raises(TypeError, match="solver name 'annealing' is taken by hopbench.solvers.shortcut.annealing:Annealing"):
        registry.register(_solver_class("annealing", "hopbench.solvers.shortcut.zzz_rogue", "Annealing"))


def test_entry_point_and_environment_plugins_are_not_trusted(scratch_registry, monkeypatch, tmp_path):
    cls = _solver_class("from-an-entry-point", "some_package.solver")
    point = md.EntryPoint(name="x", value="some_package.solver:Rogue", group=registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(md.EntryPoint, "load", lambda self: cls)
    monkeypatch.setattr(md, "entry_points", lambda group=None: [point] if group == registry.ENTRY_POINT_GROUP else [])
    registry._load_entry_points()
    assert solvers.get("from-an-entry-point") is cls and not solvers.is_builtin("from-an-entry-point")

    (tmp_path / "trust_env_plugin.py").write_text(
        "import numpy as np\nfrom hopbench.harness.problems.shortcut.problem import Solution\n"
        "from hopbench.solvers.contract import Solver, register\n\n\n@register\nclass EnvPlugin(Solver):\n"
        "    name = 'from-the-environment'\n    description = 'x'\n\n"
        "    def solve(self, problem, *, seed, budget, report):\n"
        "        return Solution(problem, np.empty((0, 2), dtype=np.int64))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("HOPBENCH_SOLVER_MODULES", "trust_env_plugin")
    monkeypatch.delitem(sys.modules, "trust_env_plugin", raising=False)
    try:
        assert "from-the-environment" in solvers.names() and not solvers.is_builtin("from-the-environment")
    finally:
        sys.modules.pop("trust_env_plugin", None)


def test_the_warm_up_limit_is_generous_for_shipped_solvers_and_60_s_for_plugins(monkeypatch):
    monkeypatch.delenv(PLUGIN_WARMUP_LIMIT_ENV, raising=False)
    assert warm_up_limit(1.0, trusted=True) == BUILTIN_WARMUP_LIMIT
    assert warm_up_limit(1000.0, trusted=True) == hard_limit(1000.0)
    assert warm_up_limit(1000.0, trusted=False) == DEFAULT_PLUGIN_WARMUP_LIMIT == 60.0
    monkeypatch.setenv(PLUGIN_WARMUP_LIMIT_ENV, "2.5")
    assert warm_up_limit(1.0, trusted=False) == plugin_warm_up_limit() == 2.5


@pytest.mark.parametrize("value", ["0", "-3", "soon", "nan", "inf"])
def test_a_malformed_plugin_warm_up_limit_is_a_one_line_error_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv(PLUGIN_WARMUP_LIMIT_ENV, value)
    with pytest.raises(HopbenchError, match=f"{PLUGIN_WARMUP_LIMIT_ENV}=.* positive number of seconds") as info:
        plugin_warm_up_limit()
    assert "\n" not in str(info.value)


def test_a_strict_warm_up_raises_the_first_failure_every_time_and_declines_are_no_failure(monkeypatch):
    from hopbench.harness.errors import SolverDeclined

    monkeypatch.setattr(warmup, "_warmed", set())
    monkeypatch.setattr(warmup, "_failed", {})
    calls = []

    def run(solver, problem, *, seed, budget):
        calls.append(budget)
        if len(calls) == 1:
            raise SolverDeclined(solver.name, "not this one")
        raise RuntimeError("kernel failed")

    from hopbench.harness.problems.registry import get_kind

    count = len(get_kind("shortcut").warm_up_problems())
    monkeypatch.setattr(warmup, "execute", run)
    with pytest.raises(warmup.WarmUpFailed, match=f"warm-up problem 2/{count} of kind shortcut: RuntimeError") as first:
        warmup.warm_up_solver("random", time_s=10.0, strict=True)
    assert first.value.index == 2 and first.value.kind == "shortcut"
    assert calls[0].time_s == pytest.approx(10.0 / 4 / count)  # a quarter of 10 s shared by the warm-up problems
    with pytest.raises(warmup.WarmUpFailed):
        warmup.warm_up_solver("random", time_s=10.0, strict=True)
    assert len(calls) == 2  # not tried again
    warmup.warm_up_solver("random")  # the lenient warm-up of a shipped solver never raises


def test_the_warm_up_budget_shares_the_time_and_never_exceeds_the_usual_one():
    assert warmup.warm_up_budget(None, 6) == warmup.WARM_UP_BUDGET
    assert warmup.warm_up_budget(60.0, 6).time_s == 2.5
    assert warmup.warm_up_budget(6000.0, 2).time_s == warmup.WARM_UP_BUDGET.time_s
    assert warmup.warm_up_budget(60.0, 6).evaluations == warmup.WARM_UP_BUDGET.evaluations
