"""The equality family refuses a network above the edge cap when the problem is made, before any solver runs."""
from __future__ import annotations

import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.topologies import ring
from hopbench.harness.problems.shortcut.problem import ShortcutProblem


def test_n_times_k_over_2_above_the_edge_cap_is_a_one_line_error(monkeypatch):
    ShortcutProblem(ring(200), 10, 800, "ad", "equality")  # 1,000 links: at the cap below
    monkeypatch.setenv("HOPBENCH_MAX_EDGES", "1000")
    ShortcutProblem(ring(200), 10, 800, "ad", "equality")
    with pytest.raises(HopbenchError) as info:
        ShortcutProblem(ring(200), 12, 1000, "ad", "equality")
    text = str(info.value)
    assert "\n" not in text
    assert "ring:200 with cap K=12" in text and "N*K/2 is 1,200, above the cap of 1,000" in text
    assert "HOPBENCH_MAX_EDGES" in text


def test_the_cap_is_checked_before_the_budget(monkeypatch):
    # the default cap: ring:200000 with K=60 (the probe's case) has 6,000,000 links
    with pytest.raises(HopbenchError, match="N\\*K/2 is 6,000,000, above the cap of 4,000,000"):
        ShortcutProblem(ring(200_000), 60, 5_800_000, "ad", "equality")
