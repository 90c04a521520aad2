"""Yasudo et al.'s lower bounds and switch-count estimate, against the values mnakao/ORP prints."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.hostswitch import bounds

DATA = Path(__file__).resolve().parents[3] / "data" / "graphgolf"

#: (hosts, radix) -> (h-diameter bound, h-ASPL bound, best switch count) as mnakao/ORP @ ba463f7c prints them
#: (ORP_Set_lbounds and ORP_Optimize_switches, run on the 13 featured pairs on 2026-11-27; the h-ASPL to the
#: 10 decimals ORP prints).  Our functions are written from the paper, not from ORP's code.
ORP_VALUES = {
    (32, 4): (5, 4.1935483871, 26), (80, 6): (4, 3.8607594937, 33), (128, 24): (3, 2.8582677165, 8),
    (432, 12): (4, 3.7911832947, 101), (1281, 21): (4, 3.7242187500, 138), (3800, 30): (4, 3.8065280337, 297),
    (1024, 5): (6, 6.0000000000, 1250), (1024, 10): (5, 4.3235581623, 400), (4608, 36): (4, 3.7558063816, 243),
    (8208, 48): (4, 3.7468015109, 328), (10000, 10): (6, 5.3868386839, 5051),
    (10000, 100): (4, 3.0201020102, 196), (65536, 64): (4, 3.9545891508, 3045),
}


def featured() -> list[tuple[int, int]]:
    with open(DATA / "hostswitch_featured.csv", newline="") as f:
        return [(int(r["hosts"]), int(r["radix"])) for r in csv.DictReader(f)]


def test_the_featured_pairs_are_the_ones_checked():
    assert sorted(featured()) == sorted(ORP_VALUES)


@pytest.mark.parametrize("pair", sorted(ORP_VALUES))
def test_bounds_and_switch_count_match_orp(pair):
    n, r = pair
    d, aspl, m = ORP_VALUES[pair]
    got_d, got_aspl = bounds.lower_bounds(n, r)
    assert got_d == d
    assert got_aspl == pytest.approx(aspl, abs=1e-10)
    assert bounds.best_switch_count(n, r) == m


def test_the_bound_by_hand():
    # 32 hosts, radix 4: from one host, 3 ports, 9, 27 at 1, 2, 3 switch hops; 31 others need 2 of the 27
    # level-3 ports to hold switches: 25 hosts at distance 4, 6 at distance 5 -> 130 / 31
    assert bounds.lower_bounds(32, 4) == (5, 130 / 31)
    assert bounds.lower_bound_sum(32, 4) == 130 * 32 // 2
    # exactly full levels: 1 + 3 + 9 ... 10 hosts on radix 4 -> the 9 others at distance 3
    assert bounds.lower_bounds(10, 4) == (3, 3.0)
    # one switch holds them all
    assert bounds.lower_bounds(5, 6) == (2, 2.0)
    assert bounds.min_switches(5, 6) == 1 and bounds.best_switch_count(5, 6) == 1


def test_min_switches_is_the_tree_condition():
    for n, r in [(32, 4), (16, 3), (1024, 5), (100, 10)]:
        m = bounds.min_switches(n, r)
        assert m * r - 2 * (m - 1) >= n
        assert (m - 1) * r - 2 * (m - 2) < n


@pytest.mark.parametrize("n, r", [(1, 4), (10, 2), (10, True)])
def test_impossible_pairs_are_one_line_errors(n, r):
    with pytest.raises(HopbenchError):
        bounds.lower_bounds(n, r)


def test_moore_aspl():
    assert bounds.moore_aspl(11, 10) == 1.0
    # Petersen-like: 10 vertices of degree 3 -> 3 at distance 1, 6 at 2 -> 15 / 9
    assert bounds.moore_aspl(10, 3) == pytest.approx(15 / 9)
