import numpy as np

from hopbench.harness.graphs.topologies import parse_spec
from hopbench.solvers.shortcut.feasible import FeasiblePairs


def brute_force(pairs: FeasiblePairs) -> set[tuple[int, int]]:
    return {(u, v) for u in range(pairs.n) for v in range(u + 1, pairs.n) if pairs.is_feasible(u, v)}


def test_all_pairs_matches_the_definition():
    pairs = FeasiblePairs(parse_spec("torus:4x4"), 6)
    pairs.add(0, 5)
    pairs.add(0, 10)  # vertex 0 is now full
    got = set(map(tuple, pairs.all_pairs().tolist()))
    assert got == brute_force(pairs)
    assert all(0 not in p for p in got)


def test_draws_are_feasible_distinct_and_seeded():
    pairs = FeasiblePairs(parse_spec("ring:30"), 4)
    a = pairs.draw(20, np.random.default_rng(5))
    b = pairs.draw(20, np.random.default_rng(5))
    assert np.array_equal(a, b)
    keys = {tuple(p) for p in a.tolist()}
    assert len(keys) == 20 and all(pairs.is_feasible(u, v) for u, v in keys)


def test_draw_falls_back_when_few_pairs_remain():
    pairs = FeasiblePairs(parse_spec("ring:8"), 3)
    for u, v in [(0, 2), (1, 3), (4, 6), (5, 7)]:
        pairs.add(u, v)
    left = brute_force(pairs)
    got = pairs.draw(10, np.random.default_rng(0))
    assert set(map(tuple, got.tolist())) == left


def test_draws_are_uniform():
    pairs = FeasiblePairs(parse_spec("ring:6"), 3)
    rng = np.random.default_rng(1)
    counts = {}
    for _ in range(6000):
        p = tuple(pairs.draw(1, rng)[0].tolist())
        counts[p] = counts.get(p, 0) + 1
    assert set(counts) == brute_force(pairs)
    expected = 6000 / len(counts)
    assert all(abs(c - expected) < 5 * expected ** 0.5 for c in counts.values())


def test_the_open_vertices_follow_every_add_and_remove():
    # the open-vertex array is cached between draws: it must be rebuilt whenever a vertex fills up or
    # frees a port, and only then
    pairs = FeasiblePairs(parse_spec("ring:10"), 4)
    rng = np.random.default_rng(3)
    added = []
    for step in range(200):
        if added and (rng.random() < 0.3 or not len(pairs.draw(1, rng))):
            u, v = added.pop(int(rng.integers(len(added))))
            pairs.remove(u, v)
        else:
            pick = pairs.draw(1, rng)
            if len(pick):
                u, v = map(int, pick[0])
                pairs.add(u, v)
                added.append((u, v))
        assert np.array_equal(pairs.open_vertices(), np.flatnonzero(pairs.degree < pairs.cap)), step


def test_all_pairs_in_chunks_is_all_pairs_cut_at_every_multiple_of_the_size():
    # exhaustive EdgeCut lists its candidates chunk by chunk (polling its time limit between them); the
    # chunks must be all_pairs exactly, in order, so that a seeded run and its evaluation stops do not change
    rng = np.random.default_rng(4)
    for spec, cap in (("torus:10x10", 6), ("ring:30", 4), ("mesh:7x9", 5)):
        fp = FeasiblePairs(parse_spec(spec), cap)
        while True:
            whole = fp.all_pairs()
            for size in (1, 7, 100, 8192):
                chunks = list(fp.all_pairs_in_chunks(size))
                assert all(c.shape == (size, 2) for c in chunks[:-1])
                assert not chunks or 0 < chunks[-1].shape[0] <= size
                joined = np.concatenate(chunks) if chunks else np.empty((0, 2), np.int64)
                assert np.array_equal(joined, whole)
            if len(whole) == 0:
                break
            x, y = whole[rng.integers(len(whole))]
            fp.add(int(x), int(y))
            if rng.random() < 0.2:  # a port freed again reopens its vertex
                fp.remove(int(x), int(y))


def test_all_pairs_in_chunks_lists_only_what_is_asked_for():
    fp = FeasiblePairs(parse_spec("torus:40x40"), 10)  # 1,279,200 feasible pairs
    first = next(fp.all_pairs_in_chunks(8192))
    assert first.shape == (8192, 2) and first[0].tolist() == [0, 2]
