"""Graph Golf's lower bounds for grid graphs (the "grid bound" the organisers published on 2019-07-29).

Within k hops of a source s, a graph of maximum degree d reaches at most the Moore count
``1 + d + d(d-1) + ... + d(d-1)^(k-1)`` vertices, and, since one hop covers a Manhattan distance of
at most ``length``, only the cells within Manhattan distance ``k * length`` of s.  So at most
``mh_s(k) = min(moore(k), cells_s(k * length))`` vertices lie within k hops of s, and

- the distances from s sum to at least ``sum_k (n - mh_s(k))``;
- the diameter is at least the first k with ``mh_s(k) = n``, for every s.

Summing over all sources and dividing by the n (n - 1) ordered pairs bounds the ASPL.  The counts of
cells within a Manhattan radius come from the 1-D distance profiles of the two axes (one small matrix
product per hop count), so the 100 x 100 instances take milliseconds, in exact integers.
"""
from __future__ import annotations

import math

import numpy as np


def moore_counts(n: int, degree: int, hops: int) -> np.ndarray:
    """``moore[k]`` for k = 0..hops: the most vertices within k hops at maximum degree ``degree``, capped at n."""
    out = np.empty(hops + 1, np.int64)
    reach, layer = 1, degree
    for k in range(hops + 1):
        out[k] = min(reach, n)
        if k < hops and reach < n:
            reach += layer
            layer *= max(degree - 1, 0)
    return out


def _axis_within(size: int, radius: np.ndarray) -> np.ndarray:
    """``w[..., y]`` = how many coordinates y' of an axis of ``size`` cells have |y - y'| <= radius (0 for a
    negative radius), for every radius of the array ``radius``."""
    y = np.arange(size)
    r = np.asarray(radius, np.int64)[..., None]
    inside = np.minimum(y, r) + np.minimum(size - 1 - y, r) + 1
    return np.where(r >= 0, inside, 0)


def cells_within(width: int, height: int, radius: int) -> np.ndarray:
    """``c[x, y]`` = number of cells of the grid within Manhattan distance ``radius`` of (x, y).

    The cells at column gap a = |x - x'| number ``gaps[x, a]``; each contributes the cells of its column
    within ``radius - a`` of y, so ``c = gaps @ within`` (exact: the counts stay far below 2^53).
    """
    x = np.arange(width)[:, None]
    a = np.arange(width)[None, :]
    # gaps[x, a]: columns x' with |x - x'| = a (x - a and x + a, once when a = 0)
    gaps = np.where(a == 0, 1, (x - a >= 0).astype(np.int64) + (x + a <= width - 1))
    within = _axis_within(height, radius - np.arange(width))  # within[a, y]
    # integer einsum: exact, and no BLAS threads (which a loaded machine makes slow for these small products)
    return np.einsum("xa,ay->xy", gaps, within)


def grid_lower_bounds(width: int, height: int, degree: int, length: int) -> tuple[int, float, int]:
    """(diameter bound, ASPL bound, bound on the sum of distances over unordered pairs).

    >>> grid_lower_bounds(4, 4, 3, 2)[:2]
    (3, 2.2)
    """
    n = width * height
    if n < 2:
        return 0, 0.0, 0
    if degree < 1:
        return n, math.inf, 0  # no edges: disconnected
    span = math.ceil((width + height - 2) / length)  # hops that reach every cell from a corner
    moore = moore_counts(n, degree, max(span, 1) + n)
    # beyond `span` hops only the Moore count can fall short of n
    kmoore = int(np.argmax(moore >= n)) if moore[-1] >= n else None
    if kmoore is None:  # degree 1 (or 2 on a long grid): the Moore count never reaches n
        return n, math.inf, 0
    hops = max(span, kmoore)
    total = 0  # sum over sources s of sum_k (n - mh_s(k)), ordered pairs
    diameter = 0
    for k in range(hops + 1):
        mh = np.minimum(cells_within(width, height, k * length), moore[k])
        short = n - mh
        total += int(short.sum())
        if short.any():
            diameter = k + 1
    pairs = n * (n - 1)
    return diameter, total / pairs, total // 2
