"""Symmetry of a shortcut problem, for sound symmetry breaking in the exact model.

An automorphism g of the base graph maps every feasible shortcut set S to a
feasible set g(S) with the same objective: the base is preserved, the cap
is uniform so free ports (cap - base degree) are preserved, and distances are
preserved.  Hence, for any optimal S:

1. take a shortcut e* = u--w of S of largest *base length* d_base(u, w) (an
   invariant of g);
2. map u to the representative r of its vertex orbit (some g1 does that);
3. map g1(w) to the representative of its orbit under the stabiliser of r
   (some g2 fixing r does that).

g2 g1 (S) is optimal, and contains the shortcut r--w' with w' a
representative under Stab(r), of the largest base length in the set.  So
the constraint "some chosen shortcut r--w', with r a vertex-orbit
representative and w' a Stab(r)-representative, has the largest base length
of all chosen shortcuts" keeps at least one optimum of every problem that has
a non-empty optimal solution — which is every problem with a feasible
shortcut and budget >= 1, since adding a shortcut never lengthens a
distance.  The constraint is invariant-based, so it stays sound with any
further Aut-invariant constraint (a diameter limit, a regular degree).

The group is enumerated exactly (networkx VF2), up to a size limit; beyond
it no symmetry is used (never a partial, unsound one).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from typing import Callable

import numpy as np

from hopbench.harness.graphs.graph import Graph

#: automorphisms enumerated at most; a larger group is not used for symmetry breaking
MAX_GROUP = 20_000


@dataclass(frozen=True)
class Symmetry:
    """The automorphism group of a base graph and the representatives the breaking needs."""

    perms: np.ndarray  #: (|G|, n) int64, perms[i, v] = g_i(v); row 0 is the identity
    reps: tuple[int, ...]  #: one representative (the smallest vertex) per vertex orbit
    stab_reps: dict[int, tuple[int, ...]] = field(default_factory=dict)  #: per rep r: Stab(r)-orbit representatives

    @property
    def order(self) -> int:
        return int(self.perms.shape[0])

    @property
    def trivial(self) -> bool:
        return self.order <= 1

    def allowed_anchor(self, r: int, w: int) -> bool:
        """Is r--w a possible 'anchor' shortcut (r an orbit representative, w a Stab(r) representative)?"""
        return r in self.stab_reps and w in self.stab_reps[r]

    def canonical(self, shortcuts: np.ndarray, length: np.ndarray) -> np.ndarray:
        """Map a shortcut set by an automorphism so that it satisfies the breaking constraint.

        ``length[u, v]`` is the base distance.  Used to turn a heuristic
        solution into a hint the constrained model accepts.
        """
        s = np.asarray(shortcuts, np.int64).reshape(-1, 2)
        if self.trivial or s.shape[0] == 0:
            return s
        lens = length[s[:, 0], s[:, 1]]
        for u, w in s[lens == lens.max()].tolist():
            for a, b in ((u, w), (w, u)):
                hit = np.flatnonzero([self.allowed_anchor(int(p[a]), int(p[b])) for p in self.perms])
                if hit.size:
                    return self.perms[hit[0]][s]
        raise AssertionError("no automorphism maps the set to canonical form")  # pragma: no cover - group is complete


def automorphisms(g: Graph, limit: int = MAX_GROUP, should_stop: Callable[[], bool] | None = None
                  ) -> np.ndarray | None:
    """All automorphisms of ``g`` as permutation rows, or None if there are more than ``limit`` (or
    ``should_stop`` says the time is up: enumerating a large group takes seconds)."""
    from networkx.algorithms.isomorphism import GraphMatcher

    nxg = g.to_networkx()
    out = []
    for mapping in GraphMatcher(nxg, nxg).isomorphisms_iter():
        out.append([mapping[v] for v in range(g.n)])
        if len(out) > limit or (should_stop is not None and len(out) % 16 == 0 and should_stop()):
            return None
    perms = np.asarray(out, np.int64).reshape(-1, g.n)
    ident = np.arange(g.n)
    first = int(np.flatnonzero((perms == ident).all(axis=1))[0])
    perms[[0, first]] = perms[[first, 0]]
    return perms


def _orbit_reps(perms: np.ndarray, n: int) -> tuple[int, ...]:
    seen = np.zeros(n, bool)
    reps = []
    for v in range(n):
        if not seen[v]:
            reps.append(v)
            seen[perms[:, v]] = True
    return tuple(reps)


def symmetry(g: Graph, limit: int = MAX_GROUP, should_stop: Callable[[], bool] | None = None) -> Symmetry:
    """The symmetry data of base graph ``g`` (trivial — no breaking, always sound — when the group is
    too large to enumerate or the time ran out)."""
    perms = automorphisms(g, limit, should_stop)
    if perms is None or perms.shape[0] <= 1:
        return Symmetry(np.arange(g.n, dtype=np.int64)[None, :], tuple(range(g.n)),
                        {v: tuple(range(g.n)) for v in range(g.n)})
    reps = _orbit_reps(perms, g.n)
    stab = {r: _orbit_reps(perms[perms[:, r] == r], g.n) for r in reps}
    return Symmetry(perms, reps, stab)


__all__ = ["MAX_GROUP", "Symmetry", "automorphisms", "symmetry"]
