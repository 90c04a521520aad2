"""Readings: named parameter sets that reproduce a paper's version of a method, named on boards."""
from __future__ import annotations

from hopbench import solvers
from hopbench.harness.bench.runner import _param_sets


def test_a_configuration_is_a_reading_only_with_exactly_its_values():
    assert solvers.create("vrs", order="sequential", distances="base").reading() == "paper"
    assert solvers.create("vrs").reading() is None
    assert solvers.create("vrs", order="sequential").reading() is None
    assert solvers.create("vrs", order="sequential", distances="base", k=3).reading() is None


def test_the_run_tag_names_the_reading_beside_its_values():
    sets = _param_sets("vrs", {"order": ["sequential", "random"], "distances": ["base"]})
    assert [tag for _params, tag in sets] == ["paper: distances=base,order=sequential",
                                              "distances=base,order=random"]
