"""The problem-kind registry: lookups by name, objective and document format, and its refusals."""
from __future__ import annotations

import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems import registry
from hopbench.harness.problems.registry import all_kinds, get_kind, kind_names, kind_of_format, kind_of_objective


def test_the_built_in_kinds_are_known_without_importing_their_heavy_modules():
    assert kind_names()[:2] == ["shortcut", "routing"]
    assert get_kind("shortcut").name == "shortcut" and get_kind("routing").name == "routing"


def test_objectives_and_formats_name_their_kind():
    assert kind_of_objective("golf").name == "shortcut"
    assert kind_of_objective("max_load").name == "routing"
    assert kind_of_format("hopbench.solution/1").name == "shortcut"
    assert kind_of_format("hopbench.routes/1").name == "routing"
    objectives = [o for k in all_kinds() for o in k.objectives]
    assert len(objectives) == len(set(objectives))


def test_unknown_names_are_one_line_errors_listing_the_known_ones():
    with pytest.raises(HopbenchError, match="unknown problem kind 'flow'; use one of shortcut, routing"):
        get_kind("flow")
    with pytest.raises(HopbenchError, match="unknown objective 'apsl'"):
        kind_of_objective("apsl")
    with pytest.raises(HopbenchError, match="unsupported format 'x/1'; expected one of .*hopbench.routes/1"):
        kind_of_format("x/1")
    with pytest.raises(HopbenchError, match="missing field 'format'"):
        registry.verify_document({})


def test_a_kind_may_not_take_another_kinds_name_or_objective():
    shortcut = type(get_kind("shortcut"))

    class Impostor(shortcut):  # same name, another class
        pass

    with pytest.raises(TypeError, match="problem kind 'shortcut' is taken"):
        registry.register_kind(Impostor())

    class Thief(shortcut):
        name = "thief"
        objectives = ("aspl",)

    with pytest.raises(TypeError, match="objective 'aspl' of kind 'thief' is taken by kind 'shortcut'"):
        registry.register_kind(Thief())
    assert "thief" not in kind_names()


def test_a_plug_in_module_that_cannot_be_imported_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("HOPBENCH_KIND_MODULES", "no_such_kind_module")
    with pytest.raises(HopbenchError, match="cannot import problem-kind module 'no_such_kind_module'"):
        get_kind("nope")
