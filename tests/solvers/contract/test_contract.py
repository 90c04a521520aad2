"""The solver contract: the time-limit rule, the registry's notion of built-in, the one warm-up path."""
from __future__ import annotations

import pytest

from hopbench import solvers
from hopbench.solvers.contract import hard_limit, overrun_allowance
from hopbench.solvers.contract import warmup


@pytest.mark.parametrize("limit, allowed", [(1.0, 0.5), (2.0, 0.5), (10.0, 0.5), (20.0, 1.0), (120.0, 6.0)])
def test_the_overrun_allowance_is_the_larger_of_half_a_second_and_five_percent(limit, allowed):
    assert overrun_allowance(limit) == pytest.approx(allowed)


def test_the_hard_limit_is_the_safety_net_well_past_the_allowance():
    for limit in (0.5, 2.0, 60.0, 600.0):
        assert hard_limit(limit) == pytest.approx(1.2 * limit + 5.0)
        assert hard_limit(limit) > limit + overrun_allowance(limit)


def test_built_in_means_shipped_in_the_backend_packages():
    assert all(solvers.is_builtin(name) for name in solvers.names())
    assert not solvers.is_builtin("no-such-solver")


def test_a_solver_is_warmed_up_once_per_parameter_set_on_its_kinds_warm_up_problems(monkeypatch):
    calls = []
    monkeypatch.setattr(warmup, "_warmed", set())
    monkeypatch.setattr(warmup, "execute", lambda solver, problem, **kw: calls.append((solver.name, problem)))
    warmup.warm_up_solver("dor")
    warmup.warm_up_solver("dor")
    from hopbench.harness.problems.registry import get_kind

    assert len(calls) == len(get_kind("routing").warm_up_problems())
    warmup.warm_up_solver("dor", {"tie": "negative"})
    assert len(calls) == 2 * len(get_kind("routing").warm_up_problems())


def test_a_failing_warm_up_is_left_for_the_real_run_to_report(monkeypatch):
    monkeypatch.setattr(warmup, "_warmed", set())

    def boom(*args, **kwargs):
        raise RuntimeError("kernel failed to compile")

    monkeypatch.setattr(warmup, "execute", boom)
    warmup.warm_up_solver("random")  # no exception


def test_a_broken_plugin_entry_point_is_left_out_with_one_line_naming_it(monkeypatch):
    import importlib.metadata as md

    from hopbench.solvers.contract import registry

    solvers.names()
    monkeypatch.setattr(registry, "_FAILURES", {})
    broken = md.EntryPoint(name="broken", value="no_such_plugin_module", group=registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(md, "entry_points", lambda group=None: [broken] if group == registry.ENTRY_POINT_GROUP else [])
    registry._load_entry_points()  # no exception: the other solvers keep working
    (line,) = registry.plugin_failures()
    assert "entry point 'broken' (no_such_plugin_module)" in line and "ModuleNotFoundError" in line
    assert "random" in solvers.names()


def test_the_solver_warm_up_hook_runs_once_and_its_failure_is_strict_only(monkeypatch):
    from hopbench.solvers.routing.dor import DOR

    monkeypatch.setattr(warmup, "_warmed", set())
    monkeypatch.setattr(warmup, "_failed", {})
    monkeypatch.setattr(warmup, "execute", lambda solver, problem, **kw: None)
    hooks = []
    monkeypatch.setattr(DOR, "warm_up", lambda self: hooks.append(self.config), raising=False)
    warmup.warm_up_solver("dor")
    warmup.warm_up_solver("dor")
    assert len(hooks) == 1

    def boom(self):
        raise RuntimeError("kernel failed to load")

    monkeypatch.setattr(DOR, "warm_up", boom, raising=False)
    warmup.warm_up_solver("dor", {"tie": "negative"})  # lenient: left for the real run
    with pytest.raises(warmup.WarmUpFailed, match=r"^warm-up of solver dor failed in its warm_up\(\): RuntimeError"):
        warmup.warm_up_solver("dor", {"tie": "positive"}, strict=True)


@pytest.mark.parametrize("value", ["inf", "-inf", float("inf"), "1e400"])
def test_a_float_parameter_refuses_infinity_in_one_line(value):
    # a row records its parameters as JSON, where infinity becomes null: the row could not say what ran
    from hopbench.harness.errors import HopbenchError
    from hopbench.solvers.contract.solver import Param

    with pytest.raises(HopbenchError, match="temp1 must be a finite number") as info:
        Param(10.0).coerce("temp1", value)
    assert "\n" not in str(info.value)
    assert Param(10.0).coerce("temp1", "1e300") == 1e300
