"""All-pairs diameter and ASPL of small graphs in pure numpy (no numba).

Importing numba and loading the engine's cached kernels costs most of a
second, far more than measuring a graph of a few hundred vertices, so the
commands that only measure one small graph (``hopbench evaluate``, ``hopbench
verify``) use this module instead (through :func:`hopbench.harness.engine.summary.summary`).

The method is the engine's bit-parallel BFS from every source at once: vertex
v keeps one bit per source in ``ceil(n / 64)`` uint64 words; one BFS level ORs
the frontier words of v's neighbours (one gather per neighbour slot on
near-regular graphs, else ``np.bitwise_or.reduceat`` over the CSR rows), keeps
the bits v has not seen yet, and counts them with ``np.bitwise_count``.  Level
k finds every ordered pair at distance k, so the sums come out exact without a
distance matrix.

:class:`DistanceSummary` lives here, the lightest engine module, so that the
numba engine (:mod:`hopbench.harness.engine.distances`) and this path return the same
class without importing each other.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from hopbench.harness.graphs.graph import Graph


@dataclass(frozen=True)
class DistanceSummary:
    """Diameter and ASPL of a graph, with the exact integer sums behind them."""

    n: int
    total: int  #: sum of finite distances over unordered pairs
    unreachable_pairs: int  #: unordered pairs with no path
    max_finite: int  #: the largest finite distance

    @property
    def connected(self) -> bool:
        return self.unreachable_pairs == 0

    @property
    def diameter(self) -> float:
        return float(self.max_finite) if self.connected else math.inf

    @property
    def aspl(self) -> float:
        pairs = self.n * (self.n - 1) // 2
        if not self.connected:
            return math.inf
        return self.total / pairs if pairs else 0.0


def small_summary(g: Graph) -> DistanceSummary:
    """Diameter, ASPL and the sums behind them by whole-array bit-parallel BFS.

    Memory is about ``5 * n * n / 8`` bytes plus at most 8 MB of gathered rows, so
    it suits graphs up to a few thousand vertices; time grows with n * m * diameter / 64.
    """
    n = g.n
    indptr, indices = g.csr
    degree = np.diff(indptr)
    top = int(degree.max())
    if top == 0:
        return DistanceSummary(n=n, total=0, unreachable_pairs=n * (n - 1) // 2, max_finite=0)
    if top * n <= 2 * indices.size:
        # near-regular (rings, meshes, tori, random regular graphs): one contiguous gather per
        # neighbour slot beats reduceat's per-row overhead, 2-3x on lattices of long diameter
        total, diam, reached = _levels(n, _padded_spread(indptr, indices, degree, top))
        unreachable = (n * n - reached) // 2
    else:
        keep = np.flatnonzero(degree)
        k = keep.size
        if k < n:
            # reduceat would copy a neighbour's row into an empty one: drop the isolated vertices
            # (they reach nobody) and renumber the rest
            indices = (np.cumsum(degree > 0) - 1)[indices]
            indptr = np.append(indptr[keep], indptr[-1])
        total, diam, reached = _levels(k, _reduceat_spread(indptr, indices, k))
        isolated = n - k
        unreachable = (k * k - reached) // 2 + isolated * k + isolated * (isolated - 1) // 2
    return DistanceSummary(n=n, total=total // 2, unreachable_pairs=unreachable, max_finite=diam)


#: ``spread(front, out)`` ORs the frontier rows of each vertex's neighbours into ``out``
Spread = Callable[[np.ndarray, np.ndarray], None]


def _padded_spread(indptr: np.ndarray, indices: np.ndarray, degree: np.ndarray, top: int) -> Spread:
    """Neighbour slot j of every vertex as one index array; missing slots point at the empty row n."""
    n = degree.size
    table = np.full((top, n), n, np.intp)
    table[np.arange(indices.size) - np.repeat(indptr[:-1], degree), np.repeat(np.arange(n), degree)] = indices
    words = (n + 63) // 64
    scratch = np.empty((n, words), np.uint64)

    def spread(front: np.ndarray, out: np.ndarray) -> None:
        np.take(front, table[0], axis=0, out=out)
        for slot in table[1:]:
            np.take(front, slot, axis=0, out=scratch)
            out |= scratch

    return spread


#: uint64 words gathered at once by the reduceat path (8 MB): a dense graph is done in row chunks
_GATHER_WORDS = 1 << 20


def _reduceat_spread(indptr: np.ndarray, indices: np.ndarray, n: int) -> Spread:
    """A gather of the CSR entries, then an OR over each vertex's run (every run non-empty), by
    chunks of rows whose gathered words stay under :data:`_GATHER_WORDS`."""
    words = (n + 63) // 64
    per_chunk = max(1, _GATHER_WORDS // words)
    cuts = [0]
    while cuts[-1] < n:  # each chunk takes at least one row, however many neighbours it has
        limit = indptr[cuts[-1]] + per_chunk
        cuts.append(max(cuts[-1] + 1, int(np.searchsorted(indptr, limit, side="right")) - 1))
    chunks = []
    for a, b in zip(cuts[:-1], cuts[1:]):
        lo, hi = int(indptr[a]), int(indptr[b])
        chunks.append((a, b, indices[lo:hi], indptr[a:b] - lo))
    gathered = np.empty((max(c[2].size for c in chunks), words), np.uint64)

    def spread(front: np.ndarray, out: np.ndarray) -> None:
        for a, b, entries, starts in chunks:
            block = gathered[:entries.size]
            np.take(front, entries, axis=0, out=block)
            np.bitwise_or.reduceat(block, starts, axis=0, out=out[a:b])

    return spread


_POP8 = np.array([bin(i).count("1") for i in range(256)], np.uint8)


def _count_bits_table(x: np.ndarray, counts: np.ndarray) -> int:
    """Set bits of a uint64 array by a byte table (numpy < 2.0 has no ``bitwise_count``)."""
    return int(_POP8[x.view(np.uint8)].sum(dtype=np.int64))


def _count_bits_native(x: np.ndarray, counts: np.ndarray) -> int:
    """Set bits of a uint64 array, counted into the uint8 buffer ``counts`` of its shape."""
    np.bitwise_count(x, out=counts)
    return int(counts.sum(dtype=np.int64))


_count_bits = _count_bits_native if hasattr(np, "bitwise_count") else _count_bits_table


def _levels(n: int, spread: Spread) -> tuple[int, int, int]:
    """BFS from all n sources at once, level by level.

    Returns (sum of distances over reached ordered pairs, largest distance,
    reached ordered pairs including (s, s)).
    """
    words = (n + 63) // 64
    v = np.arange(n)
    # row n of the frontiers stays empty: the padded neighbour table points there
    front = np.zeros((n + 1, words), np.uint64)
    front[v, v >> 6] = np.left_shift(np.uint64(1), (v & 63).astype(np.uint64))
    nxt = np.zeros_like(front)
    unseen = ~front[:n]  # the padding bits above source n-1 are never reached, so never cleared
    counts = np.empty((n, words), np.uint8)
    total = diam = 0
    reached = n
    level = 0
    while True:
        level += 1
        new = nxt[:n]
        spread(front, new)
        new &= unseen
        count = _count_bits(new, counts)
        if count == 0:
            return total, diam, reached
        unseen ^= new
        total += level * count
        diam = level
        reached += count
        front, nxt = nxt, front


def small_distance_matrix(g: Graph, dtype: type) -> np.ndarray:
    """The dense hop-distance matrix by the same level-by-level bit-parallel BFS; unreachable pairs hold
    ``np.iinfo(dtype).max``.

    Each level's new bits are unpacked into the matrix, so time grows with n * n * diameter; meant for
    the few-hundred-vertex graphs of :mod:`hopbench.harness.engine.small_state`.
    """
    n = g.n
    inf = np.iinfo(dtype).max
    D = np.full((n, n), inf, dtype)
    np.fill_diagonal(D, 0)
    indptr, indices = g.csr
    degree = np.diff(indptr)
    if n == 0 or int(degree.max()) == 0:
        return D
    # the padded gather handles isolated vertices (their slots point at the empty row n); for a small
    # graph its table, at most n x n indices, is cheap
    spread = _padded_spread(indptr, indices, degree, int(degree.max()))
    words = (n + 63) // 64
    v = np.arange(n)
    front = np.zeros((n + 1, words), np.uint64)
    front[v, v >> 6] = np.left_shift(np.uint64(1), (v & 63).astype(np.uint64))
    nxt = np.zeros_like(front)
    unseen = ~front[:n]
    level = 0
    while True:
        level += 1
        new = nxt[:n]
        spread(front, new)
        new &= unseen
        if not new.any():
            return D
        unseen ^= new
        # row v's bit s is set when source s first reaches v at this level (D is symmetric)
        bits = np.unpackbits(new.view(np.uint8), axis=1, bitorder="little")[:, :n].astype(bool)
        D[bits] = level
        front, nxt = nxt, front
