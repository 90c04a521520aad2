"""Every graph the three Graph Golf boards publish, re-measured by a second engine written here.

``hopbench verify`` (tests/test_published_boards.py) re-evaluates a published solution with
hopbench's own distance engine; a bug in that engine would pass its own check.  This module counts
the distances again from the definitions, with an all-sources breadth-first search in plain numpy
(sources packed 64 to a word, one sparse gather and OR per level) that shares no code with
hopbench: not the engine, not the problem classes, not the document readers beyond
decompression.  It also re-checks each category's rules from the raw edge lists (degrees, the
cable length, the host ports).  The engine itself is checked against networkx on small graphs.

Nothing is skipped: every solution file linked from ``graphgolf``, ``graphgolf-grid`` and
``graphgolf-hostswitch``'s ``board.csv`` gets a test id, and a board that is not committed yet is
named by a single id that checks it is indeed absent.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
BOARDS = ROOT / "leaderboards"
SUITES = ("graphgolf", "graphgolf-grid", "graphgolf-hostswitch")
#: sources per block of the search: 16 words (the gather of a 10,000-vertex, degree-20 graph is
#: then 25 MB)
BLOCK = 1024


def distance_profile(n: int, edges: np.ndarray, weight: np.ndarray | None = None) -> tuple[int, float, bool]:
    """(eccentricity max, sum over ordered pairs s != t of weight[s] weight[t] d(s, t), connected)
    of the simple graph on n vertices with these undirected edges; weight None counts every pair once."""
    w = np.ones(n) if weight is None else np.asarray(weight, float)
    # edges as (target u, neighbour v), sorted by target: a level ORs the neighbours' frontier bits
    u = np.concatenate([edges[:, 0], edges[:, 1]]).astype(np.int64)
    v = np.concatenate([edges[:, 1], edges[:, 0]]).astype(np.int64)
    order = np.argsort(u, kind="stable")
    u, v = u[order], v[order]
    worst, total, connected = 0, 0.0, True
    for lo in range(0, n, BLOCK):
        sources = np.arange(lo, min(lo + BLOCK, n))
        words = (sources.size + 63) // 64
        reach = np.zeros((n, words), np.uint64)
        reach[sources, (sources - lo) // 64] = np.left_shift(np.uint64(1), ((sources - lo) % 64).astype(np.uint64))
        frontier = reach.copy()
        ws = w[sources]
        level = 0
        while True:
            # only the edges out of the frontier: on a grid of diameter 100 it is a thin ring
            sel = frontier.any(axis=1)[v]
            if not sel.any():
                break
            us, vs = u[sel], v[sel]
            starts = np.flatnonzero(np.r_[True, us[1:] != us[:-1]])
            targets = us[starts]
            new = np.bitwise_or.reduceat(frontier[vs], starts, axis=0) & ~reach[targets]
            keep = new.any(axis=1)
            targets, new = targets[keep], new[keep]
            if targets.size == 0:
                break
            level += 1
            reach[targets] |= new
            frontier = np.zeros_like(reach)
            frontier[targets] = new
            if weight is None:
                total += level * float(np.bitwise_count(new).sum(dtype=np.int64))
            else:
                # weighted count of the new (target, source) pairs: unpack their bits
                bits = np.unpackbits(new.view(np.uint8), axis=1, bitorder="little")[:, :sources.size]
                total += level * float(w[targets] @ (bits @ ws))
        worst = max(worst, level)
        connected &= bool(np.all(np.bitwise_count(reach).sum(axis=1) == sources.size))
    return worst, total, connected


def _read(path: Path) -> dict:
    raw = path.read_bytes()
    return json.loads(gzip.decompress(raw) if path.name.endswith(".gz") else raw)


def _simple(edges: np.ndarray, n: int) -> None:
    assert edges.ndim == 2 and edges.shape[1] == 2
    assert edges.min(initial=0) >= 0 and edges.max(initial=0) < n
    assert not np.any(edges[:, 0] == edges[:, 1]), "a loop"
    key = np.minimum(edges[:, 0], edges[:, 1]) * n + np.maximum(edges[:, 0], edges[:, 1])
    assert np.unique(key).size == key.size, "a repeated edge"


def _assert_distances(n: int, edges: np.ndarray, metrics: dict) -> None:
    diameter, total, connected = distance_profile(n, edges)
    assert connected, "the graph is not connected"
    assert diameter == metrics["diameter"]
    assert total / (n * (n - 1)) == pytest.approx(metrics["aspl"], rel=1e-12)


def check_order_degree(doc: dict) -> None:
    problem = doc["problem"]
    assert problem["base"].startswith("empty:"), problem["base"]
    n, cap = int(problem["base"].split(":")[1]), int(problem["degree_cap"])
    edges = np.array(doc["shortcuts"], np.int64).reshape(-1, 2)
    _simple(edges, n)
    assert edges.shape[0] <= int(problem["budget"])
    assert np.bincount(edges.ravel(), minlength=n).max() <= cap
    _assert_distances(n, edges, doc["metrics"])


def check_grid(doc: dict) -> None:
    p = doc["problem"]
    width, height, degree, length = (int(p[k]) for k in ("width", "height", "degree", "length"))
    n = width * height
    edges = np.array(doc["edges"], np.int64).reshape(-1, 2)
    _simple(edges, n)
    x, y = edges // height, edges % height  # vertex x * H + y: column x, row y
    assert np.all(np.abs(x[:, 0] - x[:, 1]) + np.abs(y[:, 0] - y[:, 1]) <= length), "an edge past the cable length"
    assert np.bincount(edges.ravel(), minlength=n).max() <= degree
    _assert_distances(n, edges, doc["metrics"])


def check_hostswitch(doc: dict) -> None:
    """Two hosts on one switch are 2 hops apart, on switches a != b d(a, b) + 2 (host links both ways)."""
    hosts, radix = int(doc["problem"]["hosts"]), int(doc["problem"]["radix"])
    h = np.array(doc["hosts_per_switch"], np.int64)
    m = h.size
    links = np.array(doc["links"], np.int64).reshape(-1, 2)
    _simple(links, m)
    assert h.min() >= 0 and h.sum() == hosts
    assert np.all(h + np.bincount(links.ravel(), minlength=m) <= radix), "a switch past its ports"
    diameter, total, connected = distance_profile(m, links, weight=h)
    assert connected or np.count_nonzero(h) <= 1
    pairs = hosts * (hosts - 1)  # ordered host pairs
    total += 2 * pairs  # the two host links of every pair
    h_diameter = diameter + 2 if np.count_nonzero(h) > 1 else 2
    assert h_diameter == doc["metrics"]["h_diameter"]
    assert total / pairs == pytest.approx(doc["metrics"]["h_aspl"], rel=1e-12)


CHECKS = {"hopbench.solution/1": check_order_degree, "hopbench.grid/1": check_grid,
          "hopbench.hostswitch/1": check_hostswitch}


def published() -> list[tuple[str, Path | None]]:
    found: list[tuple[str, Path | None]] = []
    for suite in SUITES:
        board = BOARDS / suite / "board.csv"
        if not board.exists():
            found.append((suite, None))
            continue
        rows = pd.read_csv(board, dtype={"solution": str}, keep_default_na=False, na_values=[""])
        files = sorted({(board.parent / rel).resolve() for rel in rows["solution"].dropna()})
        assert files, f"{board} links no solution"
        found += [(suite, f) for f in files]
    return found


CASES = published()


@pytest.mark.parametrize("suite, path", CASES,
                         ids=[f"{s}/{p.name}" if p else f"{s}-not-published" for s, p in CASES])
def test_published_graph_re_measured_independently(suite, path):
    if path is None:
        assert not (BOARDS / suite).exists(), f"{suite}'s board is there but has no board.csv"
        return
    doc = _read(path)
    CHECKS[doc["format"]](doc)


@pytest.mark.parametrize("seed", range(4))
def test_the_second_engine_agrees_with_networkx(seed):
    rng = np.random.default_rng(seed)
    n = 2 * int(rng.integers(35, 80))  # more than 64 sources: several words per block (and n d even)
    g = nx.random_regular_graph(3 + seed, n, seed=seed)
    edges = np.array(g.edges(), np.int64)
    diameter, total, connected = distance_profile(n, edges)
    assert connected and diameter == nx.diameter(g)
    assert total == sum(sum(d.values()) for _, d in nx.all_pairs_shortest_path_length(g))
    # host weights: the weighted sum over ordered pairs of distinct vertices
    w = rng.integers(0, 4, n)
    dist = dict(nx.all_pairs_shortest_path_length(g))
    expected = sum(w[s] * w[t] * d for s in range(n) for t, d in dist[s].items())
    assert distance_profile(n, edges, weight=w)[1] == pytest.approx(expected, rel=1e-12)


def test_the_second_engine_sees_a_disconnected_graph():
    edges = np.array([[0, 1], [2, 3]])
    assert distance_profile(4, edges)[2] is False
