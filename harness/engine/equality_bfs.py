"""The bit-parallel BFS of Equality networks (Liang et al. 2022): numba kernels on link values.

An Equality network on N routers (N even) is given here by its link values only:
the odd values S_A (in 1..N-1, the ring's -1 written N-1) and the even values S_B
(see :mod:`hopbench.harness.graphs.equality` for the construction rule).  Translation by 2
and the mirror i -> 1 - i are automorphisms (the paper's Remark 2), so one BFS from
router 0 gives the diameter d and the distance sum exactly.

The BFS runs on two bitsets of N/2 bits (the even and the odd routers): one BFS level
is one cyclic bit rotation per link value and per parity, so a level costs
O(K N / 64) word operations.  :func:`bfs_levels` is the kernel (also called from
numba code, e.g. the ``equality-ga`` solver's batch evaluation); :func:`bfs_from_router_0`
and :func:`distances` wrap it for Python callers, and :func:`queue_distances` is a
plain queue BFS on the same rule for cross-checks.  No validation here: the link
values are trusted (validate them with :class:`hopbench.harness.graphs.equality.EqualityLinks`).
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

from typing import Sequence

import numba as nb
import numpy as np

from hopbench.harness.engine.bitops import popcount64, trailing_zeros64

__all__ = ["bfs_levels", "scratch_buffers", "link_shifts", "bfs_from_router_0", "distances", "queue_distances"]


#: the ``dist`` of a :func:`bfs_levels` call that wants no distances.  Pass it rather than omitting the
#: argument: numba keys an omitted argument by its default array, which differs in every process, so the
#: omitted signature was never found in the on-disk cache and was compiled again in every process (3 s each)
NO_DIST = np.empty(0, np.int64)


@nb.njit(cache=True)
def bfs_levels(m, shifts_a, shifts_b, levels, scratch, dist=NO_DIST):
    """BFS from router 0 on the even/odd bitsets; fills ``levels`` and returns (total, diameter).

    Router 2x is bit x of the even set, router 2x+1 bit x of the odd set (m = N/2
    bits each).  ``shifts_a[i] = (s-1)/2`` for an odd value s: an even router 2x
    reaches the odd router 2(x+t)+1 and an odd router 2x+1 the even router 2(x-t).
    ``shifts_b`` holds +-s/2 (mod m) for the even values.  A rotation by t is a
    window read at bit offset m - t of the frontier written twice in a row
    (``de``/``do``).  ``diameter`` is -1 when some router is unreachable.
    ``scratch`` is an (8, 2*words+2) uint64 work array.  When ``dist`` has N
    entries it receives d(0, j) for every router j (unreached ones keep their value).
    """
    words = (m + 63) >> 6
    r = m & 63
    full = np.uint64(0xFFFFFFFFFFFFFFFF)
    lastmask = full if r == 0 else (np.uint64(1) << np.uint64(r)) - np.uint64(1)
    fe = scratch[0]; fo = scratch[1]; ve = scratch[2]; vo = scratch[3]
    ne = scratch[4]; no = scratch[5]; de = scratch[6]; do = scratch[7]
    na = shifts_a.shape[0]; nbb = shifts_b.shape[0]
    # rotation plans: word offset q and bit b for each shift (dst |= rot(src, t))
    qa = np.empty(na, np.int64); ba = np.empty(na, np.int64)
    qa2 = np.empty(na, np.int64); ba2 = np.empty(na, np.int64)
    for i in range(na):
        t = shifts_a[i]
        o = m - t
        qa[i] = o >> 6; ba[i] = o & 63
        o2 = m - ((m - t) % m)
        qa2[i] = o2 >> 6; ba2[i] = o2 & 63
    qb = np.empty(nbb, np.int64); bb = np.empty(nbb, np.int64)
    for i in range(nbb):
        o = m - shifts_b[i]
        qb[i] = o >> 6; bb[i] = o & 63
    for w in range(words):
        fe[w] = 0; fo[w] = 0; ve[w] = 0; vo[w] = 0
    fe[0] = 1; ve[0] = 1
    levels[0] = 1
    reached = 1
    n = 2 * m
    total = 0
    level = 0
    q0 = m >> 6
    r0 = np.uint64(m & 63)
    rc = np.uint64(64 - (m & 63))
    while reached < n:
        level += 1
        for w in range(2 * words + 2):
            de[w] = 0; do[w] = 0
        for w in range(words):
            de[w] = fe[w]; do[w] = fo[w]
            ne[w] = 0; no[w] = 0
        for w in range(words):
            de[q0 + w] |= fe[w] << r0
            do[q0 + w] |= fo[w] << r0
            if r0 != 0:
                de[q0 + w + 1] |= fe[w] >> rc
                do[q0 + w + 1] |= fo[w] >> rc
        for i in range(na):
            q = qa[i]; b = ba[i]
            if b == 0:
                for w in range(words):
                    no[w] |= de[q + w]
            else:
                sb = np.uint64(b); cb = np.uint64(64 - b)
                for w in range(words):
                    no[w] |= (de[q + w] >> sb) | (de[q + w + 1] << cb)
            q = qa2[i]; b = ba2[i]
            if b == 0:
                for w in range(words):
                    ne[w] |= do[q + w]
            else:
                sb = np.uint64(b); cb = np.uint64(64 - b)
                for w in range(words):
                    ne[w] |= (do[q + w] >> sb) | (do[q + w + 1] << cb)
        for i in range(nbb):
            q = qb[i]; b = bb[i]
            if b == 0:
                for w in range(words):
                    ne[w] |= de[q + w]
                    no[w] |= do[q + w]
            else:
                sb = np.uint64(b); cb = np.uint64(64 - b)
                for w in range(words):
                    ne[w] |= (de[q + w] >> sb) | (de[q + w + 1] << cb)
                    no[w] |= (do[q + w] >> sb) | (do[q + w + 1] << cb)
        ne[words - 1] &= lastmask
        no[words - 1] &= lastmask
        count = 0
        for w in range(words):
            a = ne[w] & ~ve[w]
            b2 = no[w] & ~vo[w]
            fe[w] = a; fo[w] = b2
            ve[w] |= a; vo[w] |= b2
            count += np.int64(popcount64(a)) + np.int64(popcount64(b2))
            if dist.shape[0]:
                bits = a
                while bits:
                    t = np.int64(trailing_zeros64(bits))
                    dist[2 * (64 * w + t)] = level
                    bits &= bits - np.uint64(1)
                bits = b2
                while bits:
                    t = np.int64(trailing_zeros64(bits))
                    dist[2 * (64 * w + t) + 1] = level
                    bits &= bits - np.uint64(1)
        if count == 0:
            return total, -1
        levels[level] = count
        total += level * count
        reached += count
    return total, level


def scratch_buffers(n: int) -> np.ndarray:
    """Work arrays for :func:`bfs_levels` (reuse them across many evaluations of one N)."""
    m = n // 2
    words = (m + 63) >> 6
    return np.zeros((8, 2 * words + 2), dtype=np.uint64)


@nb.njit(cache=True)
def link_shifts(n, odd_values, even_values):
    """Bit rotations of :func:`bfs_levels`: (s-1)/2 for odd values s, +-s/2 (mod N/2) for even ones.

    Compiled, so the GA's directed moves never return to Python; a rotation repeated by two
    even values (s and N-s) is harmless, the BFS ORs the same bits twice."""
    m = n // 2
    sa = np.empty(odd_values.shape[0], np.int64)
    for i in range(odd_values.shape[0]):
        sa[i] = ((odd_values[i] - 1) // 2) % m
    sb = np.empty(2 * even_values.shape[0], np.int64)
    c = 0
    for i in range(even_values.shape[0]):
        t = (even_values[i] // 2) % m
        sb[c] = t
        c += 1
        if 2 * t != m:  # the diameter link N/2 is one rotation, not two
            sb[c] = (m - t) % m
            c += 1
    return sa, sb[:c]


def bfs_from_router_0(n: int, odd_values: Sequence[int] | np.ndarray, even_values: Sequence[int] | np.ndarray,
                      *, scratch: np.ndarray | None = None) -> tuple[int, int, np.ndarray]:
    """One bit-parallel BFS from router 0: ``(total, diameter, levels)``.

    ``total`` is the sum of d(0, j), ``diameter`` is -1 when some router is unreachable,
    and ``levels[t]`` counts the routers at distance t (an array of N + 1 entries).
    ``scratch`` (from :func:`scratch_buffers`) saves the allocation in hot loops.
    """
    odd = np.asarray(odd_values, dtype=np.int64)
    even = np.asarray(even_values, dtype=np.int64)
    sa, sb = link_shifts(n, odd, even)
    levels = np.zeros(n + 1, dtype=np.int64)
    total, diam = bfs_levels(n // 2, sa, sb, levels, scratch if scratch is not None else scratch_buffers(n), NO_DIST)
    return int(total), int(diam), levels


@nb.njit(cache=True)
def _distances(n, odd_values, even_values):
    sa, sb = link_shifts(n, odd_values, even_values)
    words = (n // 2 + 63) >> 6
    dist = np.full(n, -1, np.int64)
    dist[0] = 0
    bfs_levels(n // 2, sa, sb, np.zeros(n + 1, np.int64), np.zeros((8, 2 * words + 2), np.uint64), dist)
    return dist


def distances(n: int, odd_values: Sequence[int] | np.ndarray, even_values: Sequence[int] | np.ndarray) -> np.ndarray:
    """d(0, j) for every router j by the bit-parallel BFS (-1 where unreachable)."""
    return _distances(n, np.asarray(odd_values, dtype=np.int64), np.asarray(even_values, dtype=np.int64))


@nb.njit(cache=True)
def _queue_bfs(n, odd_values, even_values):
    """Plain queue BFS from router 0 with neighbours generated by the rule (for cross-checks)."""
    dist = np.full(n, -1, np.int64)
    queue = np.empty(n, np.int64)
    dist[0] = 0
    queue[0] = 0
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        sign = 1 if u % 2 == 0 else -1
        for s in odd_values:
            v = (u + sign * s) % n
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                queue[tail] = v
                tail += 1
        for s in even_values:
            for v in ((u + s) % n, (u - s) % n):
                if dist[v] < 0:
                    dist[v] = dist[u] + 1
                    queue[tail] = v
                    tail += 1
    return dist


def queue_distances(n: int, odd_values: Sequence[int] | np.ndarray,
                    even_values: Sequence[int] | np.ndarray) -> np.ndarray:
    """d(0, j) for every router j by a plain queue BFS on the construction rule (the slow
    path the tests and the benchmark compare :func:`distances` with; -1 where unreachable)."""
    return _queue_bfs(n, np.asarray(odd_values, dtype=np.int64), np.asarray(even_values, dtype=np.int64))
