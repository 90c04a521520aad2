"""Koibuchi's random shortcut topology DLN-2-y (``dlnr:N:y[:seed]``)."""
from __future__ import annotations

import numpy as np
import pytest

from hopbench.harness.engine.summary import summary
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.topologies import parse_spec


@pytest.mark.parametrize("n, y", [(16, 2), (64, 4), (256, 6), (512, 8), (10, 4), (64, 31)])
def test_it_is_the_ring_plus_y_perfect_matchings_and_regular(n, y):
    g = parse_spec(f"dlnr:{n}:{y}")
    assert g.n == n and g.m == n + y * n // 2
    assert set(g.degree.tolist()) == {2 + y}
    edges = {tuple(e) for e in g.edges.tolist()}
    assert all((min(i, (i + 1) % n), max(i, (i + 1) % n)) in edges for i in range(n))  # the ring is kept
    assert summary(g).diameter < n // 2 or y == 0


def test_the_seed_names_one_graph():
    a, b, c = parse_spec("dlnr:64:4"), parse_spec("dlnr:64:4:1"), parse_spec("dlnr:64:4:2")
    assert np.array_equal(a.edges, b.edges) and not np.array_equal(a.edges, c.edges)


def test_random_shortcuts_shrink_the_diameter_as_the_paper_reports():
    # Koibuchi Fig. 3 / Sect. III: DLN-2-2 at 1,024 switches has a diameter near 11, far below the ring's 512
    assert summary(parse_spec("dlnr:1024:2")).diameter <= 13


@pytest.mark.parametrize("spec, fragment", [
    ("dlnr:15:2", "N must be even"), ("dlnr:8:6", "y shortcuts per switch must be 0..N/2-1"),
    ("dlnr:2000:1990", "y shortcuts per switch must be 0..N/2-1"),
    ("dlnr:64", "expected dlnr:N:y"), ("dlnr:64:x", "y must be an integer"), ("dlnr:64:2:-1", "seed must be >= 0"),
])
def test_bad_specs_are_one_line_errors(spec, fragment):
    with pytest.raises(HopbenchError, match=fragment) as info:
        parse_spec(spec)
    assert "\n" not in str(info.value)
