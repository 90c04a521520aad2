"""Instance facts (:mod:`hopbench.harness.report.facts`): objectives derived from published values, and the
like-with-like published comparison."""
from __future__ import annotations

from hopbench.harness.report.facts import published_comparison, reference_values


def test_reference_values_derive_the_objective():
    assert reference_values({"diameter": 3, "aspl": 2.0, "label": "x"}, "shortcut", "golf")["objective"] == 3.5
    assert reference_values({"diameter": 3, "aspl": 2.0}, "shortcut", "ad")["objective"] == 6.0
    assert reference_values({"aspl": 2.0}, "shortcut", "aspl")["objective"] == 2.0
    assert "objective" not in reference_values({"diameter": 3}, "shortcut", "aspl")
    assert reference_values({"max_load": 4, "sigma4": 1.0}, "routing", "max_load")["objective"] == 4.5
    assert reference_values({"objective": 7.1, "diameter": 3}, "shortcut", "ad")["objective"] == 7.1


def test_published_comparison_is_like_with_like():
    refs = [{"diameter": 5}, {"diameter": 4}]
    assert published_comparison(refs, "shortcut", "aspl") == ("diameter", 4.0)
    refs = [{"diameter": 3, "aspl": 2.5}, {"diameter": 4, "aspl": 2.2}]
    assert published_comparison(refs, "shortcut", "aspl") == ("aspl", 2.2)
    assert published_comparison(refs, "shortcut", "golf")[0] == "objective"
    assert published_comparison([{"max_load": 9, "sigma4": 2.0}], "routing", "max_load") == ("max_load", 9.0)
    assert published_comparison([], "shortcut", "aspl") == (None, None)
