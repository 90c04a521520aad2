"""The undirected simple graph every part of hopbench works on."""
from __future__ import annotations

from functools import cached_property

import numpy as np

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError


def canonical_edges(n: int, edges: np.ndarray | list, *, dedupe: bool = True) -> np.ndarray:
    """Return edges as an ``(m, 2)`` int32 array with ``u < v``, sorted, unique.

    Raises :class:`HopbenchError` for vertices outside ``0..n-1`` and for
    self-loops.  With ``dedupe=False`` a repeated edge is an error too.
    """
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if e.size and (e.min() < 0 or e.max() >= n):
        bad = e[(e < 0).any(axis=1) | (e >= n).any(axis=1)][0]
        raise HopbenchError(
            f"edge ({bad[0]}, {bad[1]}) has a vertex outside 0..{n - 1}; "
            f"vertices must be numbered from 0 to n-1"
        )
    loops = e[:, 0] == e[:, 1]
    if loops.any():
        v = e[loops][0, 0]
        raise HopbenchError(f"self-loop at vertex {v}; remove the edge ({v}, {v})")
    lo = np.minimum(e[:, 0], e[:, 1])
    hi = np.maximum(e[:, 0], e[:, 1])
    keys = lo * n + hi
    uniq, counts = np.unique(keys, return_counts=True)
    if not dedupe and (counts > 1).any():
        k = int(uniq[counts > 1][0])
        raise HopbenchError(f"edge ({k // n}, {k % n}) is listed more than once; list each edge once")
    out = np.empty((uniq.size, 2), dtype=np.int32)
    out[:, 0] = uniq // n
    out[:, 1] = uniq % n
    return out


class Graph:
    """An undirected simple graph on vertices ``0..n-1``.

    The edge array is canonical (``u < v``, lexicographically sorted, no
    repeats), so two graphs with the same edge set compare equal.  A CSR
    adjacency is built on first use and shared by every kernel.

    >>> g = Graph(3, [(0, 1), (2, 1)])
    >>> g.m, g.degree.tolist()
    (2, [1, 2, 1])
    """

    __slots__ = ("n", "edges", "__dict__")

    def __init__(self, n: int, edges: np.ndarray | list = (), *, dedupe: bool = True) -> None:
        if int(n) < 1:
            raise HopbenchError(f"a graph needs at least one vertex, got n={n}")
        # the last line of defence: every loader checks its sizes earlier, before allocating them
        caps.VERTICES.check(int(n), "the graph's vertex count")
        self.n = int(n)
        self.edges = canonical_edges(self.n, edges if len(edges) else np.empty((0, 2)), dedupe=dedupe)
        caps.EDGES.check(self.m, "the graph's edge count")  # after merging repeats: the edges it keeps
        self.edges.setflags(write=False)

    @property
    def m(self) -> int:
        return int(self.edges.shape[0])

    @cached_property
    def degree(self) -> np.ndarray:
        d = np.bincount(self.edges.ravel(), minlength=self.n).astype(np.int32)
        d.setflags(write=False)
        return d

    @property
    def max_degree(self) -> int:
        return int(self.degree.max()) if self.n else 0

    @cached_property
    def csr(self) -> tuple[np.ndarray, np.ndarray]:
        """``(indptr, indices)``: the neighbours of v are ``indices[indptr[v]:indptr[v+1]]``."""
        src = np.concatenate([self.edges[:, 0], self.edges[:, 1]])
        dst = np.concatenate([self.edges[:, 1], self.edges[:, 0]])
        order = np.lexsort((dst, src))
        indices = dst[order].astype(np.int32)
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(self.degree, out=indptr[1:])
        return indptr, indices

    @cached_property
    def edge_keys(self) -> np.ndarray:
        """Sorted ``u * n + v`` keys (u < v) for vectorised membership tests."""
        return self.edges[:, 0].astype(np.int64) * self.n + self.edges[:, 1]

    def has_edges(self, pairs: np.ndarray) -> np.ndarray:
        """Boolean mask: which ``(u, v)`` rows of ``pairs`` are edges (either orientation)."""
        p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        keys = np.minimum(p[:, 0], p[:, 1]) * self.n + np.maximum(p[:, 0], p[:, 1])
        pos = np.searchsorted(self.edge_keys, keys)
        pos = np.minimum(pos, max(self.m - 1, 0))
        return (self.m > 0) & (self.edge_keys[pos] == keys) if self.m else np.zeros(len(p), bool)

    def has_edge(self, u: int, v: int) -> bool:
        return bool(self.has_edges(np.array([[u, v]]))[0])

    def neighbours(self, v: int) -> np.ndarray:
        indptr, indices = self.csr
        return indices[indptr[v]: indptr[v + 1]]

    def with_edges(self, extra: np.ndarray | list) -> "Graph":
        """A new graph with ``extra`` edges added (repeats are merged)."""
        extra = np.asarray(extra, dtype=np.int64).reshape(-1, 2)
        return Graph(self.n, np.concatenate([self.edges.astype(np.int64), extra]))

    def without_edges(self, mask: np.ndarray) -> "Graph":
        """A new graph keeping only the edges where ``mask`` is False."""
        return Graph(self.n, self.edges[~np.asarray(mask, dtype=bool)])

    def to_networkx(self):
        import networkx as nx

        g = nx.Graph()
        g.add_nodes_from(range(self.n))
        g.add_edges_from(map(tuple, self.edges.tolist()))
        return g

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Graph) and self.n == other.n and np.array_equal(self.edges, other.edges)

    def __hash__(self) -> int:
        return hash((self.n, self.edges.tobytes()))

    def __repr__(self) -> str:
        return f"Graph(n={self.n}, m={self.m}, max_degree={self.max_degree})"
