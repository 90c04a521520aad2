"""An Equality network with its evaluation: a and d by one BFS, B_r, MB% (Liang et al. 2022).

:class:`EqualityNetwork` is the validated link sets of :class:`hopbench.harness.graphs.equality.EqualityLinks`
(notation, construction, edges) plus what hopbench measures on them:

* a (average distance) and d (diameter) by one bit-parallel BFS from router 0
  (:mod:`hopbench.harness.engine.equality_bfs`): translation by 2 and the mirror i -> 1 - i are
  automorphisms (Remark 2), so the network is vertex-transitive and that BFS is exact;
* B_r, the topology bisection ratio of Sect. 4.3 (:mod:`.bisection`);
* MB%, N as a percentage of the Moore order of (K, d) (Table 2's last column).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from hopbench.harness.engine.equality_bfs import bfs_from_router_0, queue_distances
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.equality import EqualityLinks
from hopbench.harness.graphs.equality import parse as parse_links
from hopbench.harness.problems.shortcut.equality.bisection import equality_bisection

__all__ = ["EqualityMetrics", "EqualityNetwork", "parse", "evaluate_links", "reference_distances",
           "moore_order", "moore_ratio", "moore_order_json", "MOORE_BITS"]


@dataclass(frozen=True)
class EqualityMetrics:
    """What one BFS from router 0 tells about an Equality network."""

    n: int
    k: int
    diameter: int  #: d (``-1`` when disconnected)
    total: int  #: sum of d(0, j) over j (the same from every router)
    levels: tuple[int, ...]  #: routers at distance 0, 1, 2, ... from router 0

    @property
    def connected(self) -> bool:
        return self.diameter >= 0

    @property
    def aspl(self) -> float:
        """a: mean distance over pairs of distinct routers."""
        if not self.connected:
            return math.inf
        return self.total / (self.n - 1) if self.n > 1 else 0.0

    @property
    def ad(self) -> float:
        return self.aspl * self.diameter if self.connected else math.inf


@dataclass(frozen=True)
class EqualityNetwork(EqualityLinks):
    """One Equality network: N, its link sets and (optionally) p endpoints per router.

    Build one from the notation with :func:`parse` or directly::

        >>> EqualityNetwork(14, [-1, 1, 3, 9], [4]).k
        6

    ``k`` is checked against Eq. 1 when given.  The notation and the construction
    (``notation()``, ``short()``, ``odd_values``, ``edges()``, ``shortcuts()``,
    ``graph()``) come from :class:`~hopbench.harness.graphs.equality.EqualityLinks`.
    """

    @classmethod
    def from_links(cls, links: EqualityLinks) -> EqualityNetwork:
        """The network of validated link sets (``links`` itself if it is already one)."""
        if isinstance(links, cls):
            return links
        return cls(links.n, links.ahops, links.bhops, k=links.k, p=links.p, _label=links._label)

    def metrics(self) -> EqualityMetrics:
        """a and d by one bit-parallel BFS from router 0."""
        return evaluate_links(self.n, self.odd_values, np.asarray(self.bhops, dtype=np.int64))

    def bisection_cut(self) -> int:
        """Fewest links cut by a split of the ring into two semicircles (exact, O(K))."""
        return equality_bisection(self.n, self.odd_values, self.bhops)

    def bisection_ratio(self) -> float:
        """B_r = 2 B / (N K): the cut links over half of all inter-router links (Liang et al. 2022, Sect. 4.3)."""
        return 2.0 * self.bisection_cut() / (self.n * self.k)

    def summary(self) -> dict[str, Any]:
        """Everything ``hopbench equality evaluate`` prints."""
        m = self.metrics()
        moore = moore_order(self.k, m.diameter) if m.connected else None
        doc: dict[str, Any] = {
            "notation": self.notation(), "N": self.n, "K": self.k, "a": m.aspl,
            "d": m.diameter if m.connected else math.inf, "ad": m.ad,
            "B_r": self.bisection_ratio(), "bisection_links": self.bisection_cut(),
            "MB_percent": 100 * self.n / moore if moore is not None else 0.0,
            # the key keeps its published name (output format); the value is the Moore order
            "moore_bound": moore_order_json(moore) if moore is not None else None,
            "links": self.n * self.k // 2,
        }
        if self.p is not None:
            doc.update({"p": self.p, "endpoints": self.n * self.p, "router_radix": self.k + self.p,
                        "K_over_p": self.k / self.p if self.p else math.inf})
            doc["b_r"] = doc["B_r"] * self.k / (self.k + 2 * self.p)
        return doc


def parse(text: str | EqualityLinks) -> EqualityNetwork:
    """Parse a detailed Equality notation or a Table 2 id and validate it (one-line errors).

    The grammar is :func:`hopbench.harness.graphs.equality.parse`'s.

    >>> net = parse("N14K6[-1,1,3,9](4)")
    >>> net.k, net.notation()
    (6, 'N14K6[-1,1,3,9](4)')
    """
    if isinstance(text, EqualityNetwork):
        return text
    return EqualityNetwork.from_links(parse_links(text))


def evaluate_links(n: int, odd_values: Sequence[int] | np.ndarray, even_values: Sequence[int] | np.ndarray,
                   *, scratch: np.ndarray | None = None) -> EqualityMetrics:
    """a and d of the Equality network with odd link values ``odd_values`` (in 1..N-1, the
    ring's -1 given as N-1) and even values ``even_values``; no validation (the GA's hot path).
    """
    odd = np.asarray(odd_values, dtype=np.int64)
    even = np.asarray(even_values, dtype=np.int64)
    total, diam, levels = bfs_from_router_0(n, odd, even, scratch=scratch)
    k = len(odd) + 2 * len(even) - (1 if n // 2 in set(even.tolist()) else 0)
    top = max(int(diam), 0) + 1 if diam >= 0 else int(np.flatnonzero(levels)[-1]) + 1
    return EqualityMetrics(n, k, int(diam), int(total), tuple(int(x) for x in levels[:top]))


def reference_distances(net: EqualityLinks) -> np.ndarray:
    """d(0, j) for every j by a plain BFS on the construction rule (slow path, for tests)."""
    return queue_distances(net.n, net.odd_values, np.asarray(net.bhops, dtype=np.int64))


# --------------------------------------------------------------------------- Moore order

#: bits of a Moore order computed at most: (K-1)^d for a network within the vertex cap has d < N and
#: K - 1 < N, so at most N log2 N bits (3.5 M for N = 200,000, a few ms); this refuses only a (K, d) no
#: network can have, before its power fills the memory
MOORE_BITS = 64 * 2**20


def moore_order(k: int, d: int) -> int:
    """Largest number of routers a degree-k graph of diameter d can have: 1 + k sum_{i<d} (k-1)^i.

    The inverse reading of :func:`hopbench.harness.graphs.bounds.moore_bound`, which gives the
    smallest diameter N vertices of degree d can have.  Exact, in closed form (one power,
    not d of them): a ring-like network has d in the tens of thousands, where the sum took
    seconds and the result has tens of thousands of digits (see :func:`moore_order_json`).
    """
    k, d = int(k), int(d)
    if k < 0 or d < 0:
        raise HopbenchError(f"the Moore order needs K >= 0 and d >= 0, got K={k}, d={d}")
    if d and k > 2 and d * math.log2(k - 1) > MOORE_BITS:
        raise HopbenchError(f"the Moore order of K={k}, d={d} has about {int(d * math.log2(k - 1)):,} bits, "
                            f"more than {MOORE_BITS:,}; no network hopbench can evaluate has that K and d")
    if d == 0:
        return 1
    if k <= 2:  # the geometric sum degenerates: K=2 (a cycle) gives 1 + 2d, K=1 one edge, K=0 one vertex
        return 1 + k * d if k == 2 else 1 + k
    return 1 + k * ((k - 1) ** d - 1) // (k - 2)


def moore_ratio(n: int, k: int, d: int) -> float:
    """MB%: N as a percentage of the Moore order of (K, d) (Table 2's last column).

    Divides integers: a Moore order beyond a float's range (about 1.8e308) gives a tiny or zero
    percentage instead of an ``OverflowError``."""
    return 100 * int(n) / moore_order(k, d)


def moore_order_json(order: int) -> int | float | None:
    """The Moore order as JSON prints it: the exact integer up to 2^63 - 1 (an int64), a float beyond
    (Python's ``str`` refuses integers of more than 4,300 digits), and ``None`` beyond a float's range."""
    if order < 2**63:
        return order
    try:
        return float(order)
    except OverflowError:
        return None
