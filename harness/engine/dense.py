"""What a dense distance matrix costs, and how its metrics are read — without numba.

The solvers that keep a dense n x n distance matrix (EdgeCut, VRS, annealing)
check, before anything is built, whether it fits (:func:`dense_matrix_refusal`)
and whether building it fits in the time left (:func:`dense_state_seconds_estimate`).
Those checks, the matrix's dtype rule and :class:`HistogramMetrics` live here,
apart from the numba engine (:mod:`hopbench.harness.engine.distances`, which re-exports
them), so that a small solve that never loads numba (the numpy state of
:mod:`hopbench.harness.engine.small_state`) can use them too.
"""
from __future__ import annotations

import math

import numpy as np

from hopbench.harness import caps


class HistogramMetrics:
    """Diameter, ASPL and unreachable pairs of a kept distance matrix ``D``, read off its pair
    histogram ``hist`` (the last bin counts unreachable pairs) and its ``total`` distance."""

    D: np.ndarray
    hist: np.ndarray
    total: int

    @property
    def n(self) -> int:
        return self.D.shape[0]

    @property
    def unreachable(self) -> int:
        return int(self.hist[-1])

    @property
    def diameter(self) -> float:
        if self.unreachable:
            return math.inf
        nz = np.flatnonzero(self.hist[:-1])
        return float(nz[-1]) if nz.size else 0.0

    @property
    def aspl(self) -> float:
        pairs = self.n * (self.n - 1) // 2
        if self.unreachable:
            return math.inf
        return self.total / pairs if pairs else 0.0



def distance_dtype(max_distance: int) -> type:
    """uint8 when every distance (and the 255 'unreachable' sentinel) fits, else uint16."""
    if max_distance < 255:
        return np.uint8
    if max_distance < 65535:
        return np.uint16
    raise ValueError(f"distances up to {max_distance} do not fit in uint16")


#: seconds per vertex pair of building a dense distance state (the all-sources BFS, the matrix and its
#: pair histogram), with margin: measured 3-9 ns on empty:10000, ring:10000, torus:100x100 and mesh:70x70
#: (annealing's state, with its adjacency matrix, 6-13 ns), 2 cores idle
DENSE_STATE_SECONDS_PER_PAIR = 1.5e-8


def dense_state_seconds_estimate(n: int, matrices: float = 1.0) -> float:
    """A generous estimate of the seconds to build ``matrices`` dense n x n distance matrices, which nothing
    interrupts: a solver with less time left returns its start instead of overrunning its time limit."""
    return DENSE_STATE_SECONDS_PER_PAIR * matrices * n * n


#: what a refusal of :func:`dense_matrix_refusal` suggests instead, unless the caller names something else
SCALABLE_SOLVERS = "use annealing's swap mode or random-matching for graphs this large"


def dense_matrix_refusal(n: int, matrices: float = 1.0, instead: str = SCALABLE_SOLVERS) -> str:
    """Why ``matrices`` dense n x n distance matrices (as :class:`DistanceState` keeps, two bytes a distance
    from 255 vertices up) cannot be kept for a graph of ``n`` vertices; '' when they can.

    The check is on ``n`` alone, before anything is built: against the cap
    :data:`hopbench.harness.caps.DENSE_MATRIX_BYTES` and the 16-bit entries (distances up to n - 1)."""
    if n - 1 >= np.iinfo(np.uint16).max:
        return (f"its dense distance matrix holds distances below 65,535 in 16 bits, and a graph of {n:,} "
                f"vertices can be farther apart; {instead}")
    need = int(matrices * n * n * np.dtype(distance_dtype(max(n - 1, 1))).itemsize)
    limit = caps.DENSE_MATRIX_BYTES.limit()
    if need > limit:
        return (f"it keeps dense n x n distance matrices, {need / 2**30:.2f} GiB at n = {n:,}, above the cap of "
                f"{limit / 2**30:.2f} GiB; {instead}, or raise "
                f"{caps.DENSE_MATRIX_BYTES.env}=BYTES if the machine has the memory")
    return ""
