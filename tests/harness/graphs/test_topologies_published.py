"""Fat tree, dragonfly and Slim Fly checked against the numbers their papers publish.

Each generator is also compared with an independent construction written here straight from the
paper's wording (tuples, not vertex arithmetic) and numbered as the generator's docstring says, so a
slip in the generator cannot hide behind a right vertex count.  Edge sets are compared exactly (VF2
isomorphism on these symmetric graphs can take minutes).
"""
import itertools
import json

import networkx as nx
import numpy as np
import pytest

from hopbench.harness.engine.summary import summary
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.bounds import cerf_bound, moore_bound
from hopbench.harness.graphs.topologies import dragonfly, fat_tree, parse_spec, slim_fly
from hopbench.harness.problems.registry import verify_document
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution

# --------------------------------------------------------------------------- fat tree (Al-Fares et al. 2008)


def _links(pairs) -> set[tuple[int, int]]:
    return {(min(u, v), max(u, v)) for u, v in pairs}


def _edge_set(g) -> set[tuple[int, int]]:
    return {(u, v) for u, v in g.edges.tolist()}


def _fat_tree_by_tuples(k: int) -> set[tuple[int, int]]:
    """Sect. 3.3 of Al-Fares et al. as written: pods of edge and aggregation switches, (k/2)^2 cores."""
    half = k // 2
    number = {"edge": lambda p, e: p * half + e, "agg": lambda p, j: k * half + p * half + j,
              "core": lambda j, i: k * k + j * half + i}
    links = [(number["edge"](pod, e), number["agg"](pod, a))
             for pod, e, a in itertools.product(range(k), range(half), range(half))]
    # core block j: one port to each pod's aggregation switch j
    links += [(number["core"](j, i), number["agg"](pod, j))
              for j, i, pod in itertools.product(range(half), range(half), range(k))]
    return _links(links)


@pytest.mark.parametrize("k", [2, 4, 6, 8, 12])
def test_fat_tree_published_numbers(k):
    g = fat_tree(k)
    half = k // 2
    assert g.n == 5 * k * k // 4  # k^2/2 edge + k^2/2 aggregation + k^2/4 core switches
    assert g.m == k**3 // 2
    # edge switches (numbered first) use k/2 ports up; aggregation and core switches all k ports
    assert set(g.degree[: k * half].tolist()) == {half}
    assert set(g.degree[k * half:].tolist()) == {k}
    s = summary(g)
    assert s.diameter == 4  # edge - aggregation - core - aggregation - edge
    assert _edge_set(g) == _fat_tree_by_tuples(k)


def test_fat_tree_levels_are_where_the_docstring_says():
    k, half = 6, 3
    g = fat_tree(k)
    edges = {tuple(e) for e in g.edges.tolist()}
    # pod 1's edge switch 2 reaches exactly pod 1's aggregation switches
    assert {v for u, v in edges if u == 1 * half + 2} == {k * half + 1 * half + j for j in range(half)}
    # core 0 of block 1 reaches aggregation switch 1 of every pod
    core = k * k + 1 * half + 0
    assert {u for u, v in edges if v == core} == {k * half + p * half + 1 for p in range(k)}
    # hosts hang on the edge switches: k/2 each, k^3/4 in all (Al-Fares: 16 hosts for k = 4)
    assert (k * half) * half == k**3 // 4


def test_fat_tree_edge_switches_are_four_hops_apart_across_pods():
    k, half = 4, 2
    d = nx.single_source_shortest_path_length(fat_tree(k).to_networkx(), 0)
    assert d[1] == 2  # the other edge switch of pod 0
    assert {d[p * half + e] for p in range(1, k) for e in range(half)} == {4}


# --------------------------------------------------------------------------- dragonfly (Kim et al. 2008)




@pytest.mark.parametrize("a, p, h", [(2, 1, 1), (4, 2, 2), (6, 3, 3), (8, 4, 4), (4, 1, 1), (3, 2, 2), (2, 1, 3)])
def test_dragonfly_published_numbers(a, p, h):
    g = dragonfly(a, p, h)
    groups = a * h + 1
    assert g.n == a * groups
    assert set(g.degree.tolist()) == {a - 1 + h}  # a - 1 local channels and h global ones
    grp = np.arange(g.n) // a  # router r of group i is i*a + r
    gu, gv = grp[g.edges[:, 0]], grp[g.edges[:, 1]]
    local = gu == gv
    # every group is fully connected inside
    assert local.sum() == groups * a * (a - 1) // 2
    # every pair of groups is joined by exactly one global link
    pairs = np.sort(np.stack([gu[~local], gv[~local]], axis=1), axis=1)
    assert len(pairs) == groups * (groups - 1) // 2 == len({tuple(x) for x in pairs.tolist()})
    # every router has exactly h global channels
    assert set(np.bincount(g.edges[~local].ravel(), minlength=g.n).tolist()) == {h}
    assert summary(g).diameter == 3  # local - global - local


def test_dragonfly_kim_example_and_balanced_shorthand():
    # Kim et al.: p = h = 2, a = 4 gives 9 groups, N = 72 terminals on radix-7 routers
    g = parse_spec("dragonfly:4:2:2")
    a, p, h = 4, 2, 2
    assert g.n // a == 9 and g.n * p == 72 and p + h + a - 1 == 7
    assert parse_spec("dragonfly:2") == g
    assert parse_spec("dragonfly:4") == parse_spec("dragonfly:8:4:4")
    # p (terminals) does not change the router graph
    assert parse_spec("dragonfly:4:1:2") == g


def test_dragonfly_global_links_follow_the_absolute_arrangement():
    a, h = 4, 2
    g = dragonfly(a, 2, h)
    edges = {tuple(e) for e in g.edges.tolist()}
    for i, t in itertools.combinations(range(a * h + 1), 2):
        # port t-1 of group i, port i of group t; port j is on router j // h
        assert (i * a + (t - 1) // h, t * a + i // h) in edges


def test_dragonfly_with_one_router_per_group_is_complete():
    g = parse_spec("dragonfly:1:1:4")
    assert g.n == 5 and g.m == 10 and summary(g).diameter == 1


# --------------------------------------------------------------------------- Slim Fly (Besta and Hoefler 2014)

#: q -> (routers, network degree) from Besta and Hoefler's construction: 2q^2, (3q - delta)/2
SLIM_FLY = {3: (18, 5), 5: (50, 7), 7: (98, 11), 11: (242, 17), 13: (338, 19), 17: (578, 25), 19: (722, 29)}


@pytest.mark.parametrize("q", list(SLIM_FLY))
def test_slim_fly_published_numbers(q):
    g = slim_fly(q)
    routers, degree = SLIM_FLY[q]
    delta = 1 if q % 4 == 1 else -1
    assert (g.n, degree) == (2 * q * q, (3 * q - delta) // 2)
    assert g.n == routers and set(g.degree.tolist()) == {degree}
    s = summary(g)
    assert s.diameter == 2 == moore_bound(g.n, degree)  # the lowest diameter that many routers allow
    # diameter 2 and regular: every non-neighbour is at distance 2, which is the Cerf bound exactly
    assert s.aspl == pytest.approx(cerf_bound(g.n, degree), abs=1e-12)
    # closeness to the Moore bound d^2 + 1: 1 for q = 5, about 8/9 for large q (above for delta = 1)
    ratio = g.n / (degree * degree + 1)
    assert abs(ratio - 8 / 9) < 1 / q and (ratio > 8 / 9) == (delta == 1)


def test_slim_fly_5_is_the_hoffman_singleton_graph():
    g = parse_spec("slimfly:5")
    assert g.n == 50 == 7 * 7 + 1  # meets the Moore bound
    assert nx.is_isomorphic(g.to_networkx(), nx.hoffman_singleton_graph())


def _mms_by_tuples(q: int, xi: int) -> set[tuple[int, int]]:
    """The MMS graph from the set definitions, with X' built from its own exponent list (not as xi*X)."""
    delta = 1 if q % 4 == 1 else -1
    w = (q - delta) // 4
    if delta == 1:
        xs, x2s = range(0, q - 2, 2), range(1, q - 1, 2)
    else:
        xs = [*range(0, 2 * w - 1, 2), *range(2 * w - 1, 4 * w - 2, 2)]
        x2s = [*range(1, 2 * w, 2), *range(2 * w, 4 * w - 1, 2)]
    X, X2 = {pow(xi, e, q) for e in xs}, {pow(xi, e, q) for e in x2s}
    assert len(X) == len(X2) == (q - delta) // 2
    F = range(q)

    def r0(x, y):
        return x * q + y

    def r1(m, c):
        return q * q + m * q + c

    links = []
    for x, y, y2 in itertools.product(F, F, F):
        if (y - y2) % q in X:
            links.append((r0(x, y), r0(x, y2)))
        if (y - y2) % q in X2:
            links.append((r1(x, y), r1(x, y2)))
    links += [(r0(x, (m * x + c) % q), r1(m, c)) for x, m, c in itertools.product(F, F, F)]
    return _links(links)


@pytest.mark.parametrize("q, xi", [(3, 2), (5, 2), (7, 3), (11, 2), (13, 2)])
def test_slim_fly_matches_the_set_definitions(q, xi):
    # xi is the smallest primitive root of q, the one the generator documents
    assert sorted(pow(xi, e, q) for e in range(q - 1)) == list(range(1, q))
    assert _edge_set(slim_fly(q)) == _mms_by_tuples(q, xi)


# --------------------------------------------------------------------------- specs


@pytest.mark.parametrize("spec, fragment", [
    ("fattree:5", "even k >= 2"),
    ("fattree:0", "even k >= 2"),
    ("fattree:4:2", "malformed"),
    ("dragonfly:0:1:1", "a, p, h >= 1"),
    ("dragonfly:4:2", "malformed"),
    ("dragonfly:0", "p >= 1"),
    ("dragonfly:x", "must be an integer"),
    ("slimfly:9", "q must be a prime"),
    ("slimfly:2", "prime q >= 3"),
    ("slimfly:", "malformed"),
])
def test_bad_specs_are_one_line_errors(spec, fragment):
    with pytest.raises(HopbenchError, match=fragment) as info:
        parse_spec(spec)
    assert "\n" not in str(info.value)


def test_a_composite_q_is_told_the_nearby_primes():
    with pytest.raises(HopbenchError, match="nearby primes: 7 and 11"):
        parse_spec("slimfly:9")


@pytest.mark.parametrize("spec", ["fattree:4", "dragonfly:2", "slimfly:5"])
def test_a_solution_on_the_new_bases_round_trips_and_verifies(spec):
    base = parse_spec(spec)
    u = 0
    v = next(x for x in range(1, base.n) if not base.has_edge(u, x))
    problem = ShortcutProblem(base, base.max_degree + 1, 1, "aspl", base_spec=spec)
    doc = json.loads(json.dumps(Solution(problem, [[u, v]]).to_dict()))
    assert doc["problem"]["base"] == spec
    report = verify_document(doc)
    assert report.valid, report
