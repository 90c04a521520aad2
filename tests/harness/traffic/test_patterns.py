"""Traffic patterns: BookSim2's definitions (traffic.cpp), on hosts numbered switch by switch."""
from __future__ import annotations

import numpy as np
import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.traffic.patterns import (KIND_FIXED, KIND_SHARED, KIND_UNIFORM, PATTERNS, Hosts, draw_destination,
                                      make_pattern)

PERMUTATIONS = ("randperm", "bitrev", "bitcomp", "transpose", "shuffle", "tornado", "neighbor")


def hosts64() -> Hosts:
    return Hosts.build(64, 1)


# --------------------------------------------------------------------------- hosts


def test_hosts_are_numbered_switch_by_switch():
    h = Hosts.build(4, [2, 0, 3, 1])
    assert h.count == 6
    assert h.host_switch.tolist() == [0, 0, 2, 2, 2, 3]
    assert h.first_host.tolist() == [0, 2, 2, 5, 6]
    assert h.per_switch.tolist() == [2, 0, 3, 1]
    assert h.host_switch.dtype == np.int32 and h.first_host.dtype == np.int64


@pytest.mark.parametrize("per, words", [([1, -1, 2], ">= 0"), ([1, 2], "3 switches"), ([0, 0, 0], "no hosts")])
def test_bad_host_counts_are_one_line_errors(per, words):
    with pytest.raises(HopbenchError, match=words) as e:
        Hosts.build(3, per)
    assert "\n" not in str(e.value)


# --------------------------------------------------------------------------- definitions


@pytest.mark.parametrize("name", PERMUTATIONS)
def test_permutation_patterns_are_permutations(name):
    p = make_pattern(name, hosts64(), seed=5, dims=(8, 8))
    assert p.kind == KIND_FIXED and p.dest.dtype == np.int32
    assert sorted(p.dest.tolist()) == list(range(64))


def test_bit_patterns_on_64_hosts_match_hand_computed_values():
    h = hosts64()
    transpose = make_pattern("transpose", h).dest
    # 6 bits: the high and low halves swap, i.e. (row, col) of an 8x8 grid -> (col, row)
    assert transpose[1] == 8 and transpose[8] == 1 and transpose[9] == 9 and transpose[10] == 17
    assert transpose.tolist() == [(x % 8) * 8 + x // 8 for x in range(64)]
    bitrev = make_pattern("bitrev", h).dest
    assert bitrev[1] == 32 and bitrev[3] == 48 and bitrev[6] == 24 and bitrev[63] == 63 and bitrev[0] == 0
    assert bitrev.tolist() == [int(f"{x:06b}"[::-1], 2) for x in range(64)]
    assert make_pattern("bitcomp", h).dest.tolist() == [63 - x for x in range(64)]
    shuffle = make_pattern("shuffle", h).dest
    assert shuffle[33] == 3 and shuffle[1] == 2 and shuffle[32] == 1  # rotate left by one bit
    assert shuffle.tolist() == [((x << 1) & 63) | (x >> 5) for x in range(64)]


def test_tornado_and_neighbor_follow_booksim_digits():
    h = hosts64()
    tornado = make_pattern("tornado", h, dims=(8, 8)).dest
    # BookSim: digit x -> (x + (k + 1) / 2 - 1) mod k, i.e. +3 on a radix-8 ring, every dimension
    assert tornado[0] == 27 and tornado[63] == 18 and tornado[9] == 36
    neighbor = make_pattern("neighbor", h, dims=(8, 8)).dest
    assert neighbor[0] == 9 and neighbor[7] == 8 and neighbor[63] == 0
    # odd radix: +2 on a 5-ring; a ring of hosts is dims=(H,)
    assert make_pattern("tornado", Hosts.build(5, 1), dims=(5,)).dest.tolist() == [2, 3, 4, 0, 1]
    # mixed radices, LAST axis fastest (BookSim's dimension 0): 2x4, host 1 = (0, 1) -> (0, 2) / (1, 2)
    assert make_pattern("tornado", Hosts.build(8, 1), dims=(2, 4)).dest[1] == 2
    assert make_pattern("neighbor", Hosts.build(8, 1), dims=(2, 4)).dest[1] == 6


def test_digit_patterns_with_several_hosts_per_switch_move_switch_coordinates():
    h = Hosts.build(16, 2)
    dest = make_pattern("tornado", h, dims=(4, 4)).dest
    # host 0 = switch 0 local 0 -> switch (1, 1) = 5 local 0 = host 10; host 3 = switch 1 local 1 -> switch 6
    assert dest[0] == 10 and dest[1] == 11 and dest[3] == 13
    assert sorted(dest.tolist()) == list(range(32))


def test_uniform_may_pick_the_source_itself():
    h = Hosts.build(2, 1)
    p = make_pattern("uniform", h)
    assert p.kind == KIND_UNIFORM
    draws = p.sample(np.zeros(2000, dtype=np.int64), np.random.default_rng(0))
    assert set(draws.tolist()) == {0, 1}  # BookSim's RandomInt(nodes - 1) is inclusive
    assert draw_destination(p.kind, p.dest, p.cdf, 2, 0, 0.0) == 0
    assert draw_destination(p.kind, p.dest, p.cdf, 2, 0, 0.999) == 1


def test_randperm_is_seeded():
    h = hosts64()
    a, b, c = (make_pattern("randperm", h, seed=s).dest for s in (1, 1, 2))
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_hotspot_default_and_rates():
    h = hosts64()
    p = make_pattern("hotspot", h)
    assert p.kind == KIND_SHARED and p.meta["hotspots"] == [0]
    assert draw_destination(p.kind, p.dest, p.cdf, 64, 17, 0.999999) == 0
    q = make_pattern("hotspot", h, params={"hotspots": [3, 5], "rates": [1, 3]})
    probs = q.host_probabilities()
    assert probs[3] == pytest.approx(0.25) and probs[5] == pytest.approx(0.75) and probs.sum() == pytest.approx(1)
    assert draw_destination(q.kind, q.dest, q.cdf, 64, 0, 0.2) == 3
    assert draw_destination(q.kind, q.dest, q.cdf, 64, 0, 0.3) == 5
    # BookSim pads missing rates with the last one, and draws a negative hotspot at random (seeded)
    r = make_pattern("hotspot", h, params={"hotspots": [1, 2, 4], "rates": [2]})
    assert r.meta["rates"] == [2.0, 2.0, 2.0]
    s1 = make_pattern("hotspot", h, seed=3, params={"hotspots": [-1]}).meta["hotspots"]
    assert s1 == make_pattern("hotspot", h, seed=3, params={"hotspots": [-1]}).meta["hotspots"]
    with pytest.raises(HopbenchError, match="does not exist"):
        make_pattern("hotspot", h, params={"hotspots": [64]})
    with pytest.raises(HopbenchError, match="positive"):
        make_pattern("hotspot", h, params={"hotspots": [1], "rates": [0]})


# --------------------------------------------------------------------------- demand


@pytest.mark.parametrize("name", PATTERNS)
def test_demand_rows_sum_to_one_per_host(name):
    per = [1, 2, 0, 1] * 4  # 16 hosts on 16 switches, uneven
    h = Hosts.build(16, per)
    p = make_pattern(name, h, seed=2, dims=(16,))
    d = p.demand_matrix(h, 16)
    assert d.shape == (16, 16)
    assert np.allclose(d.sum(axis=1), per)


def test_demand_matrix_values():
    h = Hosts.build(4, [1, 2, 0, 1])
    u = make_pattern("uniform", h).demand_matrix(h, 4)
    assert u[1, 3] == pytest.approx(2 * 1 / 4) and u[1, 1] == pytest.approx(2 * 2 / 4)
    b = make_pattern("bitcomp", h).demand_matrix(h, 4)  # hosts 0..3 on switches 0,1,1,3 -> 3,2,1,0
    assert b[0, 3] == 1 and b[1, 1] == 2 and b[3, 0] == 1 and b.sum() == 4
    hs = make_pattern("hotspot", h, params={"hotspots": [3]}).demand_matrix(h, 4)
    assert np.allclose(hs[:, 3], [1, 2, 0, 1]) and hs[:, :3].sum() == 0
    with pytest.raises(HopbenchError, match="switches"):
        make_pattern("uniform", h).demand_matrix(h, 5)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("name", ["bitrev", "bitcomp", "shuffle", "transpose"])
def test_bit_patterns_need_a_power_of_two(name):
    with pytest.raises(HopbenchError, match="48 hosts") as e:
        make_pattern(name, Hosts.build(48, 1))
    assert "power-of-two" in str(e.value) and "\n" not in str(e.value)


def test_transpose_needs_an_even_number_of_bits():
    with pytest.raises(HopbenchError, match="32 hosts") as e:
        make_pattern("transpose", Hosts.build(32, 1))
    assert "4^b" in str(e.value)
    make_pattern("bitrev", Hosts.build(32, 1))  # the other bit patterns take 2^5


def test_digit_patterns_refuse_dims_that_do_not_fit():
    with pytest.raises(HopbenchError, match="needs dims"):
        make_pattern("tornado", hosts64())
    with pytest.raises(HopbenchError, match="56 nodes but there are 64 hosts"):
        make_pattern("neighbor", hosts64(), dims=(8, 7))
    with pytest.raises(HopbenchError, match="dims"):  # switch count fits but hosts per switch differ
        make_pattern("tornado", Hosts.build(4, [1, 2, 1, 1]), dims=(2, 2))


def test_unknown_pattern_and_parameters():
    with pytest.raises(HopbenchError, match="known: uniform, randperm") as e:
        make_pattern("zipf", hosts64())
    assert "\n" not in str(e.value)
    with pytest.raises(HopbenchError, match="takes no parameters"):
        make_pattern("bitrev", hosts64(), params={"hotspots": [1]})
    with pytest.raises(HopbenchError, match="made for 64 hosts"):
        make_pattern("uniform", hosts64()).demand_matrix(Hosts.build(8, 1))
