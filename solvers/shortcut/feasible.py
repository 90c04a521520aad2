"""Feasible shortcut candidates: pairs of distinct vertices that both have a
free port under the degree cap and are not adjacent yet.

Shared by every constructive solver so that "a random feasible shortcut"
means the same thing everywhere.  Draws are uniform over the feasible pairs:
rejection sampling among open vertices while that is cheap, an explicit
enumeration when the feasible set has become sparse.
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from hopbench.harness.graphs.graph import Graph


class FeasiblePairs:
    """Tracks degrees and adjacency while shortcuts are added."""

    def __init__(self, base: Graph, degree_cap: int) -> None:
        self.n = base.n
        self.cap = int(degree_cap)
        self.degree = base.degree.astype(np.int64).copy()
        self._keys: set[int] = set(base.edge_keys.tolist())
        # the open vertices, ascending; rebuilt only after a vertex fills up or frees a port (at most
        # 2 x budget times), not on every draw: the constructive solvers draw one pair at a time
        self._open: np.ndarray | None = None

    def key(self, u: int, v: int) -> int:
        return min(u, v) * self.n + max(u, v)

    def is_feasible(self, u: int, v: int) -> bool:
        return (u != v and self.degree[u] < self.cap and self.degree[v] < self.cap
                and self.key(u, v) not in self._keys)

    def is_link(self, u: int, v: int) -> bool:
        """True when u--v is already a link (of the base or an added shortcut)."""
        return self.key(u, v) in self._keys

    def open_vertices(self) -> np.ndarray:
        """The vertices with a free port, ascending (a shared array: do not modify it)."""
        if self._open is None:
            self._open = np.flatnonzero(self.degree < self.cap)
        return self._open

    def add(self, u: int, v: int) -> None:
        self.degree[u] += 1
        self.degree[v] += 1
        self._keys.add(self.key(u, v))
        if self.degree[u] >= self.cap or self.degree[v] >= self.cap:
            self._open = None

    def remove(self, u: int, v: int) -> None:
        if self.degree[u] >= self.cap or self.degree[v] >= self.cap:
            self._open = None
        self.degree[u] -= 1
        self.degree[v] -= 1
        self._keys.discard(self.key(u, v))

    def all_pairs(self, among: np.ndarray | None = None) -> np.ndarray:
        """Every feasible pair ``(u, v)``, u < v, in lexicographic order (optionally within ``among``)."""
        open_ = self.open_vertices() if among is None else np.intersect1d(self.open_vertices(), among)
        chunks = list(self._pairs_in_chunks(open_, max(1, open_.size * open_.size)))
        return chunks[0] if chunks else np.empty((0, 2), dtype=np.int64)

    def all_pairs_in_chunks(self, size: int) -> Iterator[np.ndarray]:
        """:meth:`all_pairs` cut into consecutive chunks of ``size`` rows (the last may be shorter), each built
        only when it is asked for: a caller that polls a time limit between chunks never waits for the whole
        list (about k^2 / 2 pairs of k open vertices)."""
        return self._pairs_in_chunks(self.open_vertices(), size)

    def _pairs_in_chunks(self, open_: np.ndarray, size: int) -> Iterator[np.ndarray]:
        """The feasible pairs among the (ascending) vertices ``open_``, row by row of the first vertex, in chunks
        of ``size`` rows."""
        if open_.size < 2:
            return
        existing = np.sort(np.fromiter(self._keys, dtype=np.int64, count=len(self._keys)))
        blocked = np.zeros(self.n, dtype=bool)
        pending: list[np.ndarray] = []
        held = 0
        for r in range(open_.size - 1):
            u = int(open_[r])
            partners = open_[r + 1:]
            # u's links to higher vertices are the keys u*n + v, v > u: a contiguous run of the sorted keys
            lo, hi = np.searchsorted(existing, [u * self.n, (u + 1) * self.n])
            if hi > lo:
                linked = existing[lo:hi] - u * self.n
                blocked[linked] = True
                partners = partners[~blocked[partners]]
                blocked[linked] = False
            if partners.size:
                row = np.empty((partners.size, 2), dtype=np.int64)
                row[:, 0] = u
                row[:, 1] = partners
                pending.append(row)
                held += partners.size
            while held >= size:
                joined = np.concatenate(pending) if len(pending) > 1 else pending[0]
                yield joined[:size]
                pending = [joined[size:]] if joined.shape[0] > size else []
                held = joined.shape[0] - size
        if held:
            yield np.concatenate(pending) if len(pending) > 1 else pending[0]

    def pairs_with(self, u: int, among: np.ndarray | None = None) -> np.ndarray:
        """Every vertex v such that (u, v) is feasible."""
        if self.degree[u] >= self.cap:
            return np.empty(0, dtype=np.int64)
        cand = self.open_vertices() if among is None else np.intersect1d(self.open_vertices(), among)
        cand = cand[cand != u]
        keys = np.minimum(cand, u) * self.n + np.maximum(cand, u)
        existing = np.fromiter(self._keys, dtype=np.int64, count=len(self._keys))
        return cand[~np.isin(keys, existing)]

    def draw(self, count: int, rng: np.random.Generator) -> np.ndarray:
        """Up to ``count`` distinct feasible pairs, uniformly at random (fewer if fewer exist)."""
        open_ = self.open_vertices()
        if open_.size < 2 or count <= 0:
            return np.empty((0, 2), dtype=np.int64)
        picked: list[tuple[int, int]] = []
        seen: set[int] = set()
        tries = 0
        limit = 20 * count + 50
        while len(picked) < count and tries < limit:
            batch = rng.integers(0, open_.size, size=(2 * (count - len(picked)) + 4, 2))
            for a, b in batch.tolist():
                tries += 1
                u, v = int(open_[a]), int(open_[b])
                k = self.key(u, v)
                if u == v or k in self._keys or k in seen:
                    continue
                seen.add(k)
                picked.append((u, v) if u < v else (v, u))
                if len(picked) == count:
                    break
        if len(picked) < count:
            # sparse feasible set: enumerate it and sample the rest without replacement
            rest = self.all_pairs()
            if seen:
                rest = rest[~np.isin(rest[:, 0] * self.n + rest[:, 1], np.fromiter(seen, np.int64))]
            take = min(count - len(picked), len(rest))
            if take:
                chosen = rest[rng.choice(len(rest), size=take, replace=False)]
                picked.extend(map(tuple, chosen.tolist()))
        return np.asarray(picked, dtype=np.int64).reshape(-1, 2)
