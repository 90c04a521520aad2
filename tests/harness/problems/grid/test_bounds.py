"""The grid bound (Graph Golf, 2019-07-29) against the published table, and against brute force."""
from __future__ import annotations

import csv
import itertools
from pathlib import Path

import numpy as np
import pytest

from hopbench.harness.problems.grid.bounds import cells_within, grid_lower_bounds, moore_counts

DATA = Path(__file__).resolve().parents[3] / "data" / "graphgolf" / "grid"
ROWS = list(csv.DictReader((DATA / "grid_featured.csv").open()))


def test_the_table_holds_the_eleven_featured_instances():
    assert len(ROWS) == 11


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r['width']}x{r['height']}/d{r['degree']}/r{r['length']}")
def test_every_featured_bound_matches_the_published_table(row):
    w, h, d, r = (int(row[k]) for k in ("width", "height", "degree", "length"))
    diameter, aspl, total = grid_lower_bounds(w, h, d, r)
    assert diameter == int(row["lb_diameter"])
    assert round(aspl, 4) == pytest.approx(float(row["lb_aspl"]), abs=1e-12)
    assert total * 2 == pytest.approx(aspl * w * h * (w * h - 1))


def test_odp_sample_values_sit_on_or_above_the_bound_with_its_full_digits():
    # ODP's sample/graph/grid/ASPL.txt prints the bound with 10 decimals
    assert grid_lower_bounds(4, 4, 3, 2)[:2] == (3, pytest.approx(2.2))
    assert grid_lower_bounds(5, 5, 4, 2)[1] == pytest.approx(2.2133333333, abs=1e-10)
    assert grid_lower_bounds(10, 10, 6, 3)[1] == pytest.approx(2.8387878788, abs=1e-10)
    assert grid_lower_bounds(10, 10, 8, 4)[1] == pytest.approx(2.3511111111, abs=1e-10)


@pytest.mark.parametrize("w, h", [(5, 7), (1, 4), (6, 1), (3, 3)])
def test_cells_within_a_radius_match_a_direct_count(w, h):
    for radius in range(-1, w + h + 1):
        direct = np.array([[sum(abs(a - x) + abs(b - y) <= radius for a in range(w) for b in range(h))
                            for y in range(h)] for x in range(w)])
        assert (cells_within(w, h, radius) == direct).all(), radius


def _brute_bound(w, h, d, r):
    """The definition, source by source and hop by hop."""
    n = w * h
    moore = moore_counts(n, d, n + w + h)
    total, diameter = 0, 0
    for x, y in itertools.product(range(w), range(h)):
        k = 0
        while True:
            reach = min(int(moore[k]), sum(abs(a - x) + abs(b - y) <= k * r for a in range(w) for b in range(h)))
            if reach == n:
                break
            total += n - reach
            k += 1
        diameter = max(diameter, k)
    return diameter, total / (n * (n - 1))


@pytest.mark.parametrize("w, h, d, r", [(4, 3, 3, 1), (6, 5, 3, 2), (7, 7, 5, 3), (2, 9, 4, 4), (8, 3, 2, 5)])
def test_the_vectorised_bound_is_the_definition(w, h, d, r):
    diameter, aspl, _ = grid_lower_bounds(w, h, d, r)
    assert (diameter, aspl) == pytest.approx(_brute_bound(w, h, d, r))


def test_a_degree_that_cannot_connect_the_grid_has_no_finite_bound():
    assert grid_lower_bounds(3, 1, 1, 5)[1] == float("inf")
    assert grid_lower_bounds(2, 1, 1, 1)[:2] == (1, 1.0)
