"""``dor``: closed forms for the channel loads of direction-order routing."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.problems.routing import make_problem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute


def dor(spec, tie="positive", **kw):
    problem = make_problem(spec, **kw)
    return execute(solvers.create("dor", tie=tie), problem, seed=0, budget=Budget(time_s=60)).solution


def loads(table):
    net = table.problem.network
    return table.loads()[net.channel_exists]


@pytest.mark.parametrize("k", [3, 5, 7])
def test_odd_ring_loads_every_channel_k2_minus_1_over_8(k):
    table = dor(str(k))
    assert set(loads(table).tolist()) == {(k * k - 1) // 8}
    assert table.evaluate().sigma4 == 0.0


@pytest.mark.parametrize("k, n", [(3, 2), (5, 2), (7, 2), (3, 3), (5, 3), (3, 4)])
def test_odd_k_ary_n_cube_loads_every_channel_k_to_the_n_minus_1_times_ring_load(k, n):
    table = dor("x".join([str(k)] * n))
    assert set(loads(table).tolist()) == {k ** (n - 1) * (k * k - 1) // 8}
    # which is also gamma_perfect: DOR is perfectly balanced there
    ev = table.evaluate()
    assert ev.gamma_perfect == ev.max_load and ev.sigma4 == 0.0


@pytest.mark.parametrize("dims", [(3, 5), (5, 3, 7), (7, 3)])
def test_odd_mixed_radix_torus(dims):
    # a dimension-j channel carries (d_j^2 - 1)/8 ring pairs times N/d_j choices of the other coordinates
    table = dor("x".join(map(str, dims)))
    net = table.problem.network
    lo = table.loads().reshape(net.num_nodes, net.ndir)
    N = math.prod(dims)
    for j, d in enumerate(dims):
        want = (d * d - 1) // 8 * (N // d)
        assert set(lo[:, j].tolist()) == {want} and set(lo[:, net.n + j].tolist()) == {want}


@pytest.mark.parametrize("k", [4, 6, 8])
def test_even_ring_with_positive_ties(k):
    # + channels carry the ties too: sum_{1..k/2} = k(k+2)/8; - channels k(k-2)/8
    table = dor(str(k))
    lo = table.loads().reshape(k, 2)
    assert set(lo[:, 0].tolist()) == {k * (k + 2) // 8}
    assert set(lo[:, 1].tolist()) == {k * (k - 2) // 8}


@pytest.mark.parametrize("k", [4, 8])
def test_alternating_ties_balance_rings_of_size_divisible_by_4(k):
    # ties split by source parity: every channel gets k(k-2)/8 + k/4 = k^2/8 = gamma_perfect
    table = dor(str(k), tie="alternate")
    assert set(loads(table).tolist()) == {k * k // 8}
    sq = dor(f"{k}x{k}", tie="alternate")
    assert set(loads(sq).tolist()) == {k * k * k // 8}
    assert sq.evaluate().sigma4 == 0.0


def test_ring_of_six_with_alternating_ties():
    # k = 6: 3 non-tie routes per channel, plus 1 or 2 tie routes depending on the channel's parity
    table = dor("6", tie="alternate")
    assert sorted(set(loads(table).tolist())) == [4, 5]


@pytest.mark.parametrize("spec", ["4x2x2x2", "2x3", "5x4x2", "3x2x2x2"])
def test_total_load_is_the_sum_of_distances(spec):
    # per dimension, the sum of ring distances over all offsets is k^2/4 (even) or (k^2-1)/4 (odd)
    table = dor(spec)
    dims = table.problem.network.dims
    N = math.prod(dims)
    ring_sum = [(d * d) // 4 for d in dims]  # floor(k^2/4) covers both parities
    assert int(table.loads().sum()) == N * sum(N // d * s for d, s in zip(dims, ring_sum))


def test_size_two_dimension_loads_each_mesh_channel_half_the_nodes():
    # on a k x 2 torus with odd k, a Y channel carries the pairs differing in Y whose
    # route takes its Y step there: N/2 of them per channel
    for k in (3, 5):
        table = dor(f"{k}x2")
        net = table.problem.network
        lo = table.loads().reshape(net.num_nodes, net.ndir)
        y = np.concatenate([lo[net.coords[:, 1] == 0, 1], lo[net.coords[:, 1] == 1, 3]])
        assert set(y.tolist()) == {net.num_nodes // 2}


def test_dor_obeys_the_angara_rules_everywhere():
    for spec in ("4x2x2x2", "2x2x2x4", "6x5", "8"):
        dor(spec).evaluate()  # validation: routing-graph paths, minimal, deadlock-free
    dor("4x4", rules="minimal").evaluate()
