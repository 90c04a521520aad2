"""Bit-parallel BFS level by level over a padded neighbour table, for callers that score many
graphs of one shape (the ``annealing`` solver's degree-preserving swaps).

Each vertex ``v`` holds a bitset ``A[v]`` of the sources that have reached it, 64 sources per
uint64 word; one BFS level is ``B[v] = A[v] | OR_{u in N(v)} A[u]`` and the number of new
(source, vertex) pairs at that level is ``popcount(B) - popcount(A)``.  Summing ``level x new``
gives the exact total distance without a distance matrix, and a caller can stop after any level
(:mod:`hopbench.solvers.shortcut._golf_kernel` stops as soon as a move can no longer be accepted).

Sources are vertices ``s0 .. s1 - 1`` (a block of at most ``64 * W`` of them, ``W`` words per
vertex): all n sources at once for small graphs, blocks of words for large ones, and the ``m``
sources of one orbit for a rotationally symmetric graph (whose other distances follow by symmetry).
The padding bits of the last word are set from the start in every vertex, so "vertex ``v`` has
been reached by every source" is simply "every word of ``A[v]`` is all ones".

The graph is a padded table ``nbr[v, :deg[v]]`` (int64): the shape an annealer keeps up to date
in place, unlike the CSR arrays of :mod:`hopbench.harness.engine.distances`.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import numba as nb
import numpy as np

from hopbench.harness.engine.bitops import popcount64

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
#: up to this many words per vertex a register accumulator per word is faster; above it, OR-ing
#: whole rows into a buffer (vectorised).  Measured on this project's 2-core AMD EPYC, n = 1024,
#: degree 4, microseconds per level: 1 word 4.5 / 12 (register / row buffer), 2 words 11 / 18,
#: 4 words 20 / 18, 8 words 39 / 21, 16 words 74 / 26.  Four words get four unrolled register
#: accumulators (13 us there; 6.6 against 9.1 at n = 256, degree 10): callers that can, pad
#: three words to four.
_NARROW = 3


@nb.njit(cache=True)
def seed_sources(A, s0, s1):
    """``A[v]`` = the bit of v if ``s0 <= v < s1``, plus the padding bits past ``s1 - s0``.

    Returns the number of padding bits per vertex (``64 * W - (s1 - s0)``).
    """
    n, words = A.shape
    ns = s1 - s0
    pad = 64 * words - ns
    for v in range(n):
        for w in range(words):
            A[v, w] = 0
        # padding: bits ns .. 64*words-1
        for w in range(words):
            lo = w * 64
            hi = lo + 64
            if hi <= ns:
                continue
            if lo >= ns:
                A[v, w] = _ALL
            else:
                A[v, w] = _ALL << np.uint64(ns - lo)
    for s in range(s0, s1):
        k = s - s0
        A[s, k >> 6] |= np.uint64(1) << np.uint64(k & 63)
    return pad


@nb.njit(cache=True)
def expand(nbr, deg, A, B):
    """One BFS level: ``B[v] = A[v] | OR of A over v's neighbours``; returns the set bits of B
    (padding included)."""
    n, words = A.shape
    total = 0
    if words == 1:
        for v in range(n):
            acc = A[v, 0]
            for j in range(deg[v]):
                acc |= A[nbr[v, j], 0]
            B[v, 0] = acc
            total += popcount64(acc)
        return total
    if words == 4:
        # four register accumulators: a row is one AVX2 register, too short for the vectoriser
        for v in range(n):
            a0 = A[v, 0]
            a1 = A[v, 1]
            a2 = A[v, 2]
            a3 = A[v, 3]
            for j in range(deg[v]):
                u = nbr[v, j]
                a0 |= A[u, 0]
                a1 |= A[u, 1]
                a2 |= A[u, 2]
                a3 |= A[u, 3]
            B[v, 0] = a0
            B[v, 1] = a1
            B[v, 2] = a2
            B[v, 3] = a3
            total += popcount64(a0) + popcount64(a1) + popcount64(a2) + popcount64(a3)
        return total
    if words <= _NARROW:
        for v in range(n):
            dv = deg[v]
            for w in range(words):
                # a register accumulator per word (A and B may alias for all the compiler knows)
                acc = A[v, w]
                for j in range(dv):
                    acc |= A[nbr[v, j], w]
                B[v, w] = acc
                total += popcount64(acc)
        return total
    # wider rows: OR whole rows into a local buffer (the word loop vectorises)
    buf = np.empty(words, np.uint64)
    for v in range(n):
        row = A[v]
        for w in range(words):
            buf[w] = row[w]
        for j in range(deg[v]):
            other = A[nbr[v, j]]
            for w in range(words):
                buf[w] |= other[w]
        out = B[v]
        for w in range(words):
            out[w] = buf[w]
            total += popcount64(buf[w])
    return total


@nb.njit(cache=True)
def expand_complete(nbr, deg, A, B):
    """The last level a caller allows: True when it reaches every (source, vertex) pair.

    Stops at the first vertex still missing a source (``B`` is then only partly written).
    """
    n, words = A.shape
    if words == 1:
        for v in range(n):
            acc = A[v, 0]
            if acc == _ALL:
                continue
            for j in range(deg[v]):
                acc |= A[nbr[v, j], 0]
            if acc != _ALL:
                return False
        return True
    if words == 4:
        for v in range(n):
            a0 = A[v, 0]
            a1 = A[v, 1]
            a2 = A[v, 2]
            a3 = A[v, 3]
            for j in range(deg[v]):
                u = nbr[v, j]
                a0 |= A[u, 0]
                a1 |= A[u, 1]
                a2 |= A[u, 2]
                a3 |= A[u, 3]
            if (a0 & a1 & a2 & a3) != _ALL:
                return False
        return True
    for v in range(n):
        for w in range(words):
            acc = A[v, w]
            if acc == _ALL:
                continue
            for j in range(deg[v]):
                acc |= A[nbr[v, j], w]
            if acc != _ALL:
                return False
    return True


@nb.njit(cache=True)
def source_histogram(nbr, deg, s0, s1, words, hist):
    """Add to ``hist[k]`` the (source, vertex) pairs at distance k, sources ``s0 .. s1 - 1``,
    in blocks of ``64 * words`` sources; returns the pairs never reached.

    ``hist`` needs n + 1 bins (distances are at most n - 1).
    """
    n = nbr.shape[0]
    A = np.empty((n, words), np.uint64)
    B = np.empty((n, words), np.uint64)
    unreached = 0
    per = 64 * words
    for b0 in range(s0, s1, per):
        b1 = min(s1, b0 + per)
        pad = seed_sources(A, b0, b1)
        reached = (b1 - b0) + pad * n
        hist[0] += b1 - b0
        goal = n * 64 * words
        level = 0
        while reached < goal:
            level += 1
            now = expand(nbr, deg, A, B)
            if now == reached:
                break
            hist[level] += now - reached
            reached = now
            A, B = B, A
        unreached += goal - reached
    return unreached


def padded_table(n: int, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(nbr, deg)`` of an edge list: ``nbr[v, :deg[v]]`` are v's neighbours (int64, -1 padded)."""
    e = np.asarray(edges, np.int64).reshape(-1, 2)
    deg = np.bincount(e.ravel(), minlength=n).astype(np.int64)
    width = max(int(deg.max()) if n else 0, 1)
    nbr = np.full((n, width), -1, np.int64)
    ends = np.concatenate([e[:, 0], e[:, 1]])
    other = np.concatenate([e[:, 1], e[:, 0]])
    order = np.argsort(ends, kind="stable")
    ends, other = ends[order], other[order]
    starts = np.concatenate([[0], np.cumsum(deg)[:-1]])
    nbr[ends, np.arange(ends.size) - starts[ends]] = other
    return nbr, deg


def histogram(n: int, edges: np.ndarray, *, sources: int | None = None, words: int = 8) -> tuple[np.ndarray, int]:
    """(pairs per distance from sources ``0 .. sources - 1``, unreached pairs) of a graph.

    A convenience for tests and callers outside numba; ``sources`` defaults to all n vertices.
    """
    nbr, deg = padded_table(n, edges)
    hist = np.zeros(n + 1, np.int64)
    unreached = source_histogram(nbr, deg, 0, n if sources is None else int(sources), int(words), hist)
    return hist, int(unreached)


__all__ = ["expand", "expand_complete", "histogram", "padded_table", "seed_sources", "source_histogram"]
