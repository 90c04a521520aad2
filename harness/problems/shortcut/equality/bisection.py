"""Semicircle bisections: the B_r of Liang et al. 2022 (Sect. 4.3), in closed form and for any graph.

Routers sit on a circle 0..N-1 (N even); a semicircle split cuts it into
[i, i + N/2) and the rest.  :func:`equality_bisection` counts the fewest links an
Equality network loses to such a split per link value (O(K));
:func:`semicircle_cuts` counts the cut of every split of any graph (O(m + N)),
and :func:`bisection_ratio` turns the smallest one into B_r.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph

__all__ = ["equality_bisection", "semicircle_cuts", "bisection_ratio"]


def _evens_in(start: int, length: int) -> int:
    """Even integers in [start, start + length)."""
    return (length + 1 - (start & 1)) // 2 if length > 0 else 0


def equality_bisection(n: int, odd_values: Iterable[int], even_values: Iterable[int]) -> int:
    """min over semicircle splits of the links cut, by counting per link value.

    Rotation by 2 is an automorphism, so only the splits [0, N/2) and [1, N/2 + 1)
    differ.  A link (v, v + t) with L = min(t, N - t) is cut by the split
    W = [i, i + N/2) when exactly one end is in W: v runs over two intervals of
    length L (for t <= N/2: [i + N/2 - t, i + N/2) and [i - t, i); for t > N/2:
    [i, i + L) and [i + N/2, i + N/2 + L)).  Even values link every v (and the
    diameter link is listed from both ends, so its count is halved); odd values
    link even v only, so only the even v of each interval count.
    """
    h = n // 2
    best = None
    for i in (0, 1):
        cut = 0
        for t in odd_values:
            t = int(t) % n
            L = min(t, n - t)
            if t <= h:
                starts = (i + h - t, i - t)
            else:
                starts = (i, i + h)
            cut += sum(_evens_in(a % n, L) for a in starts)
        for s in even_values:
            s = int(s)
            cut += n // 2 if s == h else 2 * s
        best = cut if best is None else min(best, cut)
    return int(best)


def semicircle_cuts(g: Graph) -> np.ndarray:
    """Links cut by each split of the vertex circle 0..N-1 into [i, i + N/2) and the rest.

    Works for any graph (N even): entry i is the cut of the split starting at i.
    A link (u, v) is cut exactly for the starts i in two arcs of length
    L = min(|u - v|, N - |u - v|) (just after each end, going backwards), which a
    difference array accumulates in O(m + N).
    """
    n = g.n
    if n % 2:
        raise HopbenchError(f"a semicircle split needs an even number of vertices, got N={n}")
    h = n // 2
    u = g.edges[:, 0].astype(np.int64)
    v = g.edges[:, 1].astype(np.int64)
    t = (v - u) % n
    L = np.minimum(t, n - t)
    diff = np.zeros(n + 1, dtype=np.int64)

    def add_arc(start: np.ndarray, length: np.ndarray) -> None:
        # starts i in [start, start + length) (mod n)
        start = start % n
        end = start + length
        np.add.at(diff, start, 1)
        wrap = end > n
        np.add.at(diff, np.minimum(end, n), -1)
        np.add.at(diff, np.zeros(int(wrap.sum()), dtype=np.int64), 1)
        np.add.at(diff, end[wrap] - n, -1)

    # x is the end from which the other end y = x + L lies L <= N/2 steps forward.
    # x in W_i <=> i in [x - h + 1, x + 1) and y in W_i <=> i in [y - h + 1, y + 1):
    # two arcs of length h shifted by L, whose symmetric difference is the two
    # arcs [x - h + 1, x - h + 1 + L) and [x + 1, x + 1 + L).
    x = np.where(t <= h, u, v)
    add_arc(x - h + 1, L)
    add_arc(x + 1, L)
    return np.cumsum(diff[:n])


def bisection_ratio(g: Graph) -> float:
    """B_r of any graph on a circle of even N: fewest semicircle-cut links over half its links."""
    if g.m == 0:
        return 0.0
    return float(semicircle_cuts(g).min()) / g.m
