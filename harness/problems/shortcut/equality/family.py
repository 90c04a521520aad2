"""The ``equality`` ShortcutProblem family: its shape rules, and Equality networks among solutions.

An Equality network on ring:N of radix K is a ShortcutProblem solution: the base is
the ring 0-1-...-(N-1)-0, the degree cap is K and the network adds exactly
N(K-2)/2 shortcuts.  :func:`check_problem` enforces that shape (``ShortcutProblem``
calls it for ``family="equality"``); :func:`from_shortcuts` recognises an Equality
network in a solution's shortcuts.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph

if TYPE_CHECKING:
    from hopbench.harness.problems.shortcut.equality.network import EqualityNetwork

__all__ = ["check_problem", "from_shortcuts"]


def check_problem(problem: Any) -> None:
    """Shape rules of the ``equality`` ShortcutProblem family (raises :class:`HopbenchError`).

    The base must be exactly the ring 0-1-...-(N-1)-0 with N even, and the budget
    N(K-2)/2 with K the degree cap, so that a solution is a K-regular Equality
    network.  The objective is not restricted: the family fixes the shape of the
    solutions, and ``ad`` (the paper's a*d) is the usual choice.
    """
    base = problem.base
    n = base.n
    k = int(problem.degree_cap)
    if n % 2 or n < 4:
        raise HopbenchError(f"family equality needs a ring of even N >= 4, got {n} vertices; use --base ring:{n + n % 2}")
    i = np.arange(n)
    ring_edges = Graph(n, np.stack([i, (i + 1) % n], axis=1)).edges
    if not np.array_equal(base.edges, ring_edges):
        raise HopbenchError(f"family equality needs the base ring:{n} (the cycle 0-1-...-{n - 1}-0); "
                            f"use --base ring:{n}")
    if k < 2 or k > n - 1:
        raise HopbenchError(f"family equality needs 2 <= K <= N-1 for the degree cap, got {k}")
    # every solution has N*K/2 links: refused here, before a solver searches for one it could not return
    caps.EDGES.check(n * k // 2, f"family equality on ring:{n} with cap K={k}: the network's links N*K/2")
    want = n * (k - 2) // 2
    if int(problem.budget) != want:
        raise HopbenchError(f"family equality on ring:{n} with cap K={k} needs budget N(K-2)/2 = {want} "
                            f"(a K-regular network), got {problem.budget}; use --budget {want}")


def from_shortcuts(n: int, shortcuts: np.ndarray) -> EqualityNetwork | None:
    """Recognise an Equality network among ring shortcuts (None if the edges are not one)."""
    s = np.asarray(shortcuts, dtype=np.int64).reshape(-1, 2)
    g = Graph(n, np.concatenate([s, np.stack([np.arange(n), (np.arange(n) + 1) % n], axis=1)]))
    nbrs = g.neighbours(0)
    ahops = sorted(int(v) for v in nbrs if v % 2 == 1)
    bhops = sorted({min(int(v), n - int(v)) for v in nbrs if v % 2 == 0})
    try:
        # imported here: the network's evaluation loads numba, which checking a problem's shape does not need
        from hopbench.harness.problems.shortcut.equality.network import EqualityNetwork

        net = EqualityNetwork(n, [n - 1 if a == n - 1 else a for a in ahops], bhops)
    except HopbenchError:
        return None
    return net if net.graph() == g else None
