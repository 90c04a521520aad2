"""Lower bounds on diameter and ASPL for N vertices of maximum degree d.

Both are computed exactly as the Graph Golf organisers do: fill BFS levels
r = 1, 2, ... around one vertex with at most d(d-1)^(r-1) vertices each (the
Moore tree) until all N vertices are placed.  The level of the last vertex is
the Moore bound on the diameter; the mean level is the Cerf et al. (1974)
bound on the ASPL.  Both hold for every graph with maximum degree <= d, hence
for every shortcut problem whose degree cap is d.
"""
from __future__ import annotations

import math


def lower_bounds(n: int, d: int) -> tuple[float, float]:
    """``(diameter_bound, aspl_bound)``; ``inf`` when no connected graph exists.

    >>> lower_bounds(32, 5)
    (3, 2.032258064516129)
    """
    if n <= 1:
        return 0, 0.0
    if d <= 0 or (d == 1 and n > 2):
        return math.inf, math.inf
    placed, level, total, diameter = 1, 1, 0, 0
    while placed < n:
        # integer arithmetic: the level size grows fast but Python ints do not overflow
        room = d * (d - 1) ** (level - 1)
        take = min(room, n - placed)
        total += level * take
        placed += take
        diameter = level
        level += 1
    return diameter, total / (n - 1)


def moore_bound(n: int, d: int) -> float:
    """Smallest diameter any graph on n vertices with maximum degree d can have."""
    return lower_bounds(n, d)[0]


def cerf_bound(n: int, d: int) -> float:
    """Smallest ASPL any graph on n vertices with maximum degree d can have."""
    return lower_bounds(n, d)[1]
