"""The ``graphgolf`` suite: every featured order/degree pair with n <= 10,000, with the competition's bounds."""
from __future__ import annotations

import math

import pytest

from hopbench.harness.bench.suites import load_suite
from hopbench.harness.problems.shortcut.problem import objective_value

SUITE = load_suite("graphgolf")


def _reference(inst, label: str) -> dict:
    (row,) = [r for r in inst.references if r.get("label") == label]
    return row


def test_every_featured_pair_up_to_10000_as_an_empty_base_golf_instance():
    assert len(SUITE.instances) == 36
    pairs = set()
    for inst in SUITE.instances:
        f = inst.fields
        n = int(f["base"].removeprefix("empty:"))
        assert f["base"] == f"empty:{n}" and f["objective"] == "golf"
        assert f["budget"] == n * f["cap"] // 2
        assert inst.split == ("tune" if n <= 300 else "test")
        pairs.add((n, f["cap"]))
    assert max(n for n, _ in pairs) == 10000 and len(pairs) == 36
    assert {(72, 4), (256, 8), (512, 6), (512, 8), (1024, 4), (1024, 8)} <= pairs


@pytest.mark.parametrize("inst", SUITE.instances, ids=lambda i: i.id)
def test_the_lower_bound_row_is_the_bound_hopbench_computes(inst):
    lb_diameter, lb_aspl = inst.problem().lower_bounds()
    row = _reference(inst, "lower bound")
    assert row["diameter"] == lb_diameter
    assert row["aspl"] == pytest.approx(lb_aspl, abs=1e-9)


@pytest.mark.parametrize("inst", SUITE.instances, ids=lambda i: i.id)
def test_best_known_values_are_consistent(inst):
    best = _reference(inst, "best known")
    lower = _reference(inst, "lower bound")
    assert best["diameter"] >= lower["diameter"]
    assert "source" in best and best["source"]
    if "aspl" in best:
        assert best["aspl"] >= lower["aspl"] - 5e-6  # rounded to the digits it was published with
        assert inst.best_known == pytest.approx(objective_value("golf", best["diameter"], best["aspl"]), abs=1e-5)
    if inst.optimum is not None:  # an optimum is a best known that meets a proof
        assert inst.best_known == inst.optimum and math.isfinite(inst.optimum)
