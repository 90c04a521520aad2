"""Equality networks (Liang et al. 2022): notation, construction, symmetric evaluation.

An Equality network has N routers (N even) on a ring.  Two sets of positive
integers choose its links (seed 002, Sect. 3.1):

* ``S_A`` ("ahops", written in square brackets) holds odd values and always
  contains the ring, written ``-1`` and ``1``.  Router i links to i + s if i is
  even and to i - s if i is odd, so an odd value adds one link per router.
* ``S_B`` ("bhops", in parentheses) holds even values up to N/2.  The same rule
  links every router to i + s and i - s (two links per router) except the
  diameter link s = N/2, which adds one.

Hence Eq. 1, ``K = |S_A| + 2|S_B| - [N/2 in S_B]``, every router has degree K,
and the network is vertex-transitive: translation by 2 and the mirror
i -> 1 - i are automorphisms (Remark 2).  So one BFS from router 0 gives the
diameter d and the average distance a exactly.

Notation grammar (case-insensitive, blanks ignored)::

    detailed  :=  "N" int "K" int ["P" int] "[" ahops "]" ["(" [bhops] ")"]
    table 3   :=  "n" int "k" int ["p" int] "ahops:[" ahops "]" ["bhops:(" [bhops] ")"]
    short     :=  "n" int "k" int ["p" int]           (a class of networks, no links)

e.g. ``N14K6[-1,1,3,9](4)``, ``n2048k28p8``.  A value N - 1 in ``ahops`` is the
same link as ``-1`` and is written ``-1``.

The fast evaluator runs the BFS on two bitsets of N/2 bits (the even and the
odd routers): one BFS level is one cyclic bit rotation per link value and per
parity, so a level costs O(K N / 64) word operations.
"""
from __future__ import annotations

from harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numba as nb
import numpy as np

from harness.engine.bitops import popcount64, trailing_zeros64
from harness.errors import HopbenchError
from harness.graphs.graph import Graph

__all__ = [
    "EqualityConfig", "EqualityNetwork", "EqualityMetrics", "parse", "parse_config", "radix",
    "check_problem", "moore_bound", "moore_ratio", "evaluate_links", "distances", "semicircle_cuts",
    "bisection_ratio", "published_networks", "published", "published_network", "reproduce_published",
]


# --------------------------------------------------------------------------- notation


@dataclass(frozen=True)
class EqualityConfig:
    """The short notation ``n2048k28p8``: N routers of network radix K, p endpoints each."""

    n: int
    k: int
    p: int | None = None

    def notation(self) -> str:
        return f"n{self.n}k{self.k}" + (f"p{self.p}" if self.p is not None else "")


_HEAD = re.compile(r"n(\d+)k(\d+)(?:p(\d+))?", re.IGNORECASE)
_SHORT = re.compile(r"^n(\d+)k(\d+)(?:p(\d+))?$", re.IGNORECASE)
_DETAILED = re.compile(
    r"^n(\d+)k(\d+)(?:p(\d+))?"
    r"(?:ahops:)?\[([^\]]*)\]"
    r"(?:(?:bhops:)?\(([^)]*)\))?$",
    re.IGNORECASE,
)
EXAMPLE = "N14K6[-1,1,3,9](4)"


def _numbers(text: str, what: str, spec: str) -> list[int]:
    text = text.strip()
    if not text:
        return []
    out = []
    for token in text.split(","):
        token = token.strip()
        if not re.fullmatch(r"[+-]?\d+", token):
            raise HopbenchError(f"{spec!r}: {what} must be comma-separated integers, got {token!r} "
                                f"(e.g. {EXAMPLE})")
        out.append(int(token))
    return out


def parse_config(text: str) -> EqualityConfig:
    """Parse the short notation (or the head of a detailed one) into N, K and p.

    >>> parse_config("n2048k28p8")
    EqualityConfig(n=2048, k=28, p=8)
    """
    s = re.sub(r"\s+", "", str(text))
    m = _SHORT.match(s) or _HEAD.match(s)
    if m is None:
        raise HopbenchError(f"{text!r} is not an Equality notation; write nNkK[pP] (e.g. n2048k28p8) "
                            f"or N..K..[ahops](bhops) (e.g. {EXAMPLE})")
    n, k = int(m.group(1)), int(m.group(2))
    p = int(m.group(3)) if m.group(3) is not None else None
    if n % 2:
        raise HopbenchError(f"{text!r}: N={n} is odd; Equality networks need an even number of routers "
                            f"(e.g. N={n + 1})")
    return EqualityConfig(n, k, p)


def parse(text: str) -> "EqualityNetwork":
    """Parse a detailed Equality notation and validate it (one-line errors).

    >>> net = parse("N14K6[-1,1,3,9](4)")
    >>> net.k, net.notation()
    (6, 'N14K6[-1,1,3,9](4)')
    """
    if isinstance(text, EqualityNetwork):
        return text
    s = re.sub(r"\s+", "", str(text))
    if re.fullmatch(r"[eE]\d{3}", s):  # a published network by its Table 2 id
        return published_network(s)
    m = _DETAILED.match(s)
    if m is None:
        if _SHORT.match(s):
            raise HopbenchError(f"{text!r} names a class of networks, not one network; give its link sets, "
                                f"e.g. {EXAMPLE} (ahops in [...], bhops in (...))")
        raise HopbenchError(f"{text!r} is not a detailed Equality notation; write N<routers>K<radix>[ahops](bhops),"
                            f" e.g. {EXAMPLE}")
    n, k = int(m.group(1)), int(m.group(2))
    p = int(m.group(3)) if m.group(3) is not None else None
    ahops = _numbers(m.group(4), "ahops", text)
    bhops = _numbers(m.group(5) or "", "bhops", text)
    return EqualityNetwork(n, ahops, bhops, k=k, p=p, _label=str(text).strip())


def radix(n: int, ahops: Sequence[int], bhops: Sequence[int]) -> int:
    """Eq. 1: K = |S_A| + 2 |S_B| - [N/2 in S_B]."""
    return len(ahops) + 2 * len(bhops) - (1 if n // 2 in bhops else 0)


def _normalise(n: int, ahops: Iterable[int], bhops: Iterable[int], label: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Validate link sets; return (S_A with N-1 written as -1, S_B) in canonical order."""
    if n < 4 or n % 2:
        raise HopbenchError(f"{label}: N={n} must be even and at least 4; Equality networks pair even and odd "
                            f"routers (e.g. N={max(4, n + (n % 2))})")
    a_seen: dict[int, int] = {}
    for raw in ahops:
        v = int(raw)
        if v % 2 == 0:
            raise HopbenchError(f"{label}: ahops value {v} is even; ahops (in [...]) holds odd values only, "
                                f"put even values in bhops (in (...))")
        if v >= n:
            raise HopbenchError(f"{label}: ahops value {v} is >= N={n}; every value must be below N "
                                f"(write -1 for N-1)")
        if v < -1:
            raise HopbenchError(f"{label}: ahops value {v} is negative; only -1 (the ring, same as N-1) is allowed")
        key = n - 1 if v == -1 else v
        if key in a_seen:
            raise HopbenchError(f"{label}: ahops lists the link {v} twice"
                                + (" (-1 and N-1 are the same link)" if key == n - 1 else "") + "; list it once")
        a_seen[key] = v
    if 1 not in a_seen or n - 1 not in a_seen:
        raise HopbenchError(f"{label}: ahops must contain the ring links -1 and 1, e.g. [-1,1,...]")
    b_seen: set[int] = set()
    for raw in bhops:
        v = int(raw)
        if v % 2:
            raise HopbenchError(f"{label}: bhops value {v} is odd; bhops (in (...)) holds even values only, "
                                f"put odd values in ahops (in [...])")
        if v >= n:
            raise HopbenchError(f"{label}: bhops value {v} is >= N={n}; even values must be at most N/2={n // 2}")
        if v <= 0:
            raise HopbenchError(f"{label}: bhops value {v} must be a positive even number")
        if v > n // 2:
            raise HopbenchError(f"{label}: bhops value {v} is above N/2={n // 2}; it is the same link as "
                                f"{n - v}, write {n - v}")
        if v in b_seen:
            raise HopbenchError(f"{label}: bhops lists {v} twice; list it once")
        b_seen.add(v)
    others = sorted(k for k in a_seen if k not in (1, n - 1))
    return (-1, 1, *others), tuple(sorted(b_seen))


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
class EqualityNetwork:
    """One Equality network: N, its link sets and (optionally) p endpoints per router.

    Build one from the notation with :func:`parse` or directly::

        >>> EqualityNetwork(14, [-1, 1, 3, 9], [4]).k
        6

    ``k`` is checked against Eq. 1 when given.
    """

    n: int
    ahops: tuple[int, ...]
    bhops: tuple[int, ...] = ()
    k: int | None = None
    p: int | None = None
    _label: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        n = int(self.n)
        label = self._label or f"N{n}K{self.k if self.k is not None else '?'}{list(self.ahops)}{tuple(self.bhops)}"
        a, b = _normalise(n, self.ahops, self.bhops, label)
        k = radix(n, a, b)
        if self.k is not None and int(self.k) != k:
            raise HopbenchError(f"{label}: K={self.k} does not match the link sets, which give K={k} by Eq. 1 "
                                f"(|S_A| + 2|S_B| - [N/2 in S_B] = {len(a)} + 2*{len(b)}"
                                f"{' - 1' if n // 2 in b else ''}); write K{k}")
        if self.p is not None and int(self.p) < 0:
            raise HopbenchError(f"{label}: p={self.p} must be >= 0")
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "ahops", a)
        object.__setattr__(self, "bhops", b)
        object.__setattr__(self, "k", k)

    # -- notation ---------------------------------------------------------

    def notation(self, *, with_p: bool = False) -> str:
        """The detailed notation, e.g. ``N14K6[-1,1,3,9](4)`` (``P`` after K only if asked)."""
        p = f"P{self.p}" if with_p and self.p is not None else ""
        return (f"N{self.n}K{self.k}{p}[{','.join(map(str, self.ahops))}]"
                f"({','.join(map(str, self.bhops))})")

    def short(self) -> str:
        """The short notation, e.g. ``n2048k28p8``."""
        return EqualityConfig(self.n, self.k, self.p).notation()

    def __str__(self) -> str:
        return self.notation()

    # -- construction -----------------------------------------------------

    @property
    def odd_values(self) -> np.ndarray:
        """S_A as values in 1..N-1 (the ring's -1 as N-1)."""
        return np.array([self.n - 1 if v == -1 else v for v in self.ahops], dtype=np.int64)

    def edges(self) -> np.ndarray:
        """All N*K/2 links as an ``(m, 2)`` array (ring links first)."""
        n = self.n
        even = np.arange(0, n, 2, dtype=np.int64)
        every = np.arange(n, dtype=np.int64)
        parts = [np.stack([even, (even + s) % n], axis=1) for s in self.odd_values]
        for s in self.bhops:
            # even s: even i -> i+s and odd i -> i-s give the links (v, v+s) for every v;
            # the diameter link N/2 would list each link twice, so keep one end
            src = every[: n // 2] if s == n // 2 else every
            parts.append(np.stack([src, (src + s) % n], axis=1))
        return np.concatenate(parts)

    def shortcuts(self) -> np.ndarray:
        """The links that are not ring links (what an Equality solution adds to ``ring:N``)."""
        n = self.n
        e = self.edges()
        diff = (e[:, 1] - e[:, 0]) % n
        return e[(diff != 1) & (diff != n - 1)]

    def graph(self) -> Graph:
        """The network as a :class:`~harness.graphs.graph.Graph` (K-regular, N*K/2 edges)."""
        return Graph(self.n, self.edges(), dedupe=False)

    # -- metrics ----------------------------------------------------------

    def metrics(self) -> EqualityMetrics:
        """a and d by one bit-parallel BFS from router 0."""
        return evaluate_links(self.n, self.odd_values, np.asarray(self.bhops, dtype=np.int64))

    def bisection_cut(self) -> int:
        """Fewest links cut by a split of the ring into two semicircles (exact, O(K))."""
        return _equality_bisection(self.n, self.odd_values, self.bhops)

    def bisection_ratio(self) -> float:
        """B_r = 2 B / (N K): the cut links over half of all inter-router links (seed 002, Sect. 4.3)."""
        return 2.0 * self.bisection_cut() / (self.n * self.k)

    def summary(self) -> dict[str, Any]:
        """Everything ``hopbench equality evaluate`` prints."""
        m = self.metrics()
        doc: dict[str, Any] = {
            "notation": self.notation(), "N": self.n, "K": self.k, "a": m.aspl,
            "d": m.diameter if m.connected else math.inf, "ad": m.ad,
            "B_r": self.bisection_ratio(), "bisection_links": self.bisection_cut(),
            "MB_percent": moore_ratio(self.n, self.k, m.diameter) if m.connected else 0.0,
            "moore_bound": moore_bound(self.k, m.diameter) if m.connected else None,
            "links": self.n * self.k // 2,
        }
        if self.p is not None:
            doc.update({"p": self.p, "endpoints": self.n * self.p, "router_radix": self.k + self.p,
                        "K_over_p": self.k / self.p if self.p else math.inf})
            doc["b_r"] = doc["B_r"] * self.k / (self.k + 2 * self.p)
        return doc


# --------------------------------------------------------------------------- Moore bound


def moore_bound(k: int, d: int) -> int:
    """Largest number of routers a degree-k graph of diameter d can have: 1 + k sum (k-1)^i."""
    return 1 + k * sum((k - 1) ** i for i in range(d))


def moore_ratio(n: int, k: int, d: int) -> float:
    """MB%: N as a percentage of the Moore bound for (K, d) (Table 2's last column)."""
    return 100.0 * n / moore_bound(k, d)


# --------------------------------------------------------------------------- bit-parallel BFS


@nb.njit(cache=True)
def _bfs_levels(m, shifts_a, shifts_b, levels, scratch, dist=np.empty(0, np.int64)):
    """BFS from router 0 on the even/odd bitsets; fills ``levels`` and returns (total, diameter).

    Router 2x is bit x of the even set, router 2x+1 bit x of the odd set (m = N/2
    bits each).  ``shifts_a[i] = (s-1)/2`` for an odd value s: an even router 2x
    reaches the odd router 2(x+t)+1 and an odd router 2x+1 the even router 2(x-t).
    ``shifts_b`` holds +-s/2 (mod m) for the even values.  A rotation by t is a
    window read at bit offset m - t of the frontier written twice in a row
    (``de``/``do``).  ``diameter`` is -1 when some router is unreachable.
    ``scratch`` is an (8, 2*words+2) uint64 work array.  When ``dist`` has N
    entries it receives d(0, j) for every router j (unreached ones keep their value).
    """
    words = (m + 63) >> 6
    r = m & 63
    full = np.uint64(0xFFFFFFFFFFFFFFFF)
    lastmask = full if r == 0 else (np.uint64(1) << np.uint64(r)) - np.uint64(1)
    fe = scratch[0]; fo = scratch[1]; ve = scratch[2]; vo = scratch[3]
    ne = scratch[4]; no = scratch[5]; de = scratch[6]; do = scratch[7]
    na = shifts_a.shape[0]; nbb = shifts_b.shape[0]
    # rotation plans: word offset q and bit b for each shift (dst |= rot(src, t))
    qa = np.empty(na, np.int64); ba = np.empty(na, np.int64)
    qa2 = np.empty(na, np.int64); ba2 = np.empty(na, np.int64)
    for i in range(na):
        t = shifts_a[i]
        o = m - t
        qa[i] = o >> 6; ba[i] = o & 63
        o2 = m - ((m - t) % m)
        qa2[i] = o2 >> 6; ba2[i] = o2 & 63
    qb = np.empty(nbb, np.int64); bb = np.empty(nbb, np.int64)
    for i in range(nbb):
        o = m - shifts_b[i]
        qb[i] = o >> 6; bb[i] = o & 63
    for w in range(words):
        fe[w] = 0; fo[w] = 0; ve[w] = 0; vo[w] = 0
    fe[0] = 1; ve[0] = 1
    levels[0] = 1
    reached = 1
    n = 2 * m
    total = 0
    level = 0
    q0 = m >> 6
    r0 = np.uint64(m & 63)
    rc = np.uint64(64 - (m & 63))
    while reached < n:
        level += 1
        for w in range(2 * words + 2):
            de[w] = 0; do[w] = 0
        for w in range(words):
            de[w] = fe[w]; do[w] = fo[w]
            ne[w] = 0; no[w] = 0
        for w in range(words):
            de[q0 + w] |= fe[w] << r0
            do[q0 + w] |= fo[w] << r0
            if r0 != 0:
                de[q0 + w + 1] |= fe[w] >> rc
                do[q0 + w + 1] |= fo[w] >> rc
        for i in range(na):
            q = qa[i]; b = ba[i]
            if b == 0:
                for w in range(words):
                    no[w] |= de[q + w]
            else:
                sb = np.uint64(b); cb = np.uint64(64 - b)
                for w in range(words):
                    no[w] |= (de[q + w] >> sb) | (de[q + w + 1] << cb)
            q = qa2[i]; b = ba2[i]
            if b == 0:
                for w in range(words):
                    ne[w] |= do[q + w]
            else:
                sb = np.uint64(b); cb = np.uint64(64 - b)
                for w in range(words):
                    ne[w] |= (do[q + w] >> sb) | (do[q + w + 1] << cb)
        for i in range(nbb):
            q = qb[i]; b = bb[i]
            if b == 0:
                for w in range(words):
                    ne[w] |= de[q + w]
                    no[w] |= do[q + w]
            else:
                sb = np.uint64(b); cb = np.uint64(64 - b)
                for w in range(words):
                    ne[w] |= (de[q + w] >> sb) | (de[q + w + 1] << cb)
                    no[w] |= (do[q + w] >> sb) | (do[q + w + 1] << cb)
        ne[words - 1] &= lastmask
        no[words - 1] &= lastmask
        count = 0
        for w in range(words):
            a = ne[w] & ~ve[w]
            b2 = no[w] & ~vo[w]
            fe[w] = a; fo[w] = b2
            ve[w] |= a; vo[w] |= b2
            count += np.int64(popcount64(a)) + np.int64(popcount64(b2))
            if dist.shape[0]:
                bits = a
                while bits:
                    t = np.int64(trailing_zeros64(bits))
                    dist[2 * (64 * w + t)] = level
                    bits &= bits - np.uint64(1)
                bits = b2
                while bits:
                    t = np.int64(trailing_zeros64(bits))
                    dist[2 * (64 * w + t) + 1] = level
                    bits &= bits - np.uint64(1)
        if count == 0:
            return total, -1
        levels[level] = count
        total += level * count
        reached += count
    return total, level


def scratch_buffers(n: int) -> np.ndarray:
    """Work arrays for :func:`_bfs_levels` (reuse them across many evaluations of one N)."""
    m = n // 2
    words = (m + 63) >> 6
    return np.zeros((8, 2 * words + 2), dtype=np.uint64)


def evaluate_links(n: int, odd_values: Sequence[int] | np.ndarray, even_values: Sequence[int] | np.ndarray,
                   *, scratch: np.ndarray | None = None) -> EqualityMetrics:
    """a and d of the Equality network with odd link values ``odd_values`` (in 1..N-1, the
    ring's -1 given as N-1) and even values ``even_values``; no validation (the GA's hot path).
    """
    odd = np.asarray(odd_values, dtype=np.int64)
    even = np.asarray(even_values, dtype=np.int64)
    sa, sb = _link_shifts(n, odd, even)
    levels = np.zeros(n + 1, dtype=np.int64)
    total, diam = _bfs_levels(n // 2, sa, sb, levels, scratch if scratch is not None else scratch_buffers(n))
    k = len(odd) + 2 * len(even) - (1 if n // 2 in set(even.tolist()) else 0)
    top = max(int(diam), 0) + 1 if diam >= 0 else int(np.flatnonzero(levels)[-1]) + 1
    return EqualityMetrics(n, k, int(diam), int(total), tuple(int(x) for x in levels[:top]))


@nb.njit(cache=True)
def _bfs_reference(n, odd_values, even_values):
    """Plain queue BFS from router 0 with neighbours generated by the rule (for cross-checks)."""
    dist = np.full(n, -1, np.int64)
    queue = np.empty(n, np.int64)
    dist[0] = 0
    queue[0] = 0
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        sign = 1 if u % 2 == 0 else -1
        for s in odd_values:
            v = (u + sign * s) % n
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                queue[tail] = v
                tail += 1
        for s in even_values:
            for v in ((u + s) % n, (u - s) % n):
                if dist[v] < 0:
                    dist[v] = dist[u] + 1
                    queue[tail] = v
                    tail += 1
    return dist


@nb.njit(cache=True)
def _link_shifts(n, odd_values, even_values):
    """Bit rotations of :func:`_bfs_levels`: (s-1)/2 for odd values s, +-s/2 (mod N/2) for even ones.

    Compiled, so the GA's directed moves never return to Python; a rotation repeated by two
    even values (s and N-s) is harmless, the BFS ORs the same bits twice."""
    m = n // 2
    sa = np.empty(odd_values.shape[0], np.int64)
    for i in range(odd_values.shape[0]):
        sa[i] = ((odd_values[i] - 1) // 2) % m
    sb = np.empty(2 * even_values.shape[0], np.int64)
    c = 0
    for i in range(even_values.shape[0]):
        t = (even_values[i] // 2) % m
        sb[c] = t
        c += 1
        if 2 * t != m:  # the diameter link N/2 is one rotation, not two
            sb[c] = (m - t) % m
            c += 1
    return sa, sb[:c]


@nb.njit(cache=True)
def _distances(n, odd_values, even_values):
    sa, sb = _link_shifts(n, odd_values, even_values)
    words = (n // 2 + 63) >> 6
    dist = np.full(n, -1, np.int64)
    dist[0] = 0
    _bfs_levels(n // 2, sa, sb, np.zeros(n + 1, np.int64), np.zeros((8, 2 * words + 2), np.uint64), dist)
    return dist


def distances(n: int, odd_values: Sequence[int] | np.ndarray, even_values: Sequence[int] | np.ndarray) -> np.ndarray:
    """d(0, j) for every router j by the bit-parallel BFS (-1 where unreachable)."""
    return _distances(n, np.asarray(odd_values, dtype=np.int64), np.asarray(even_values, dtype=np.int64))


def reference_distances(net: EqualityNetwork) -> np.ndarray:
    """d(0, j) for every j by a plain BFS on the construction rule (slow path, for tests)."""
    return _bfs_reference(net.n, net.odd_values, np.asarray(net.bhops, dtype=np.int64))


# --------------------------------------------------------------------------- bisection


def _evens_in(start: int, length: int) -> int:
    """Even integers in [start, start + length)."""
    return (length + 1 - (start & 1)) // 2 if length > 0 else 0


def _equality_bisection(n: int, odd_values: Iterable[int], even_values: Iterable[int]) -> int:
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


# --------------------------------------------------------------------------- published data


def published_networks() -> list[dict[str, Any]]:
    """The 27 Equality rows of seed 002's Table 2 with their Table 3 link sets.

    Packaged as ``harness/data/equality2022.json`` (source and transcription rule
    inside); each row has ``reproducible`` and, for the three errata, ``erratum``.
    """
    import json
    from importlib import resources

    doc = json.loads(resources.files("harness.problems.shortcut").joinpath("equality2022.json").read_text())
    return list(doc["networks"])


def published(label: str) -> dict[str, Any]:
    """One row of :func:`published_networks` by its id (``E361``...)."""
    for row in published_networks():
        if row["id"].lower() == str(label).strip().lower():
            return row
    raise HopbenchError(f"unknown published Equality network {label!r}; use an id of Table 2 such as E361")


def published_network(label: str) -> EqualityNetwork:
    """The network Table 3 lists for ``label`` (raises for E443, whose links are not valid for its N)."""
    t = published(label)["table3"]
    return EqualityNetwork(t["N"], t["ahops"], t["bhops"], k=t["K"], p=t["p"], _label=f"{label} ({t['text']})")


def _agrees(ours: float, printed: str) -> bool:
    """Does ``ours`` agree with a printed decimal, rounded or truncated to its digits?

    Table 2 mixes both (E361's 2.7167 is printed 2.717, E366's 3.7187 as 3.71)."""
    digits = len(printed.split(".")[1]) if "." in printed else 0
    scale = 10 ** digits
    value = round(float(printed) * scale)
    return round(ours * scale) == value or math.floor(ours * scale + 1e-9) == value


def reproduce_published() -> list[dict[str, Any]]:
    """Re-evaluate every Table 2 row from its Table 3 link sets.

    A row *matches* when its link sets are valid for the row's N, give the row's K
    by Eq. 1, the exact d, and a that agrees with the printed a (rounded or
    truncated to the printed digits).  Rows that do not match keep their reason.
    """
    out = []
    for row in published_networks():
        r = {k: row[k] for k in ("id", "N", "K", "p", "n", "a", "d", "K_over_p", "MB_percent", "reproducible")}
        r.update(a_ours=None, d_ours=None, K_ours=None, B_r=None, MB_percent_ours=None, matches=False)
        t = row["table3"]
        try:
            net = EqualityNetwork(t["N"], t["ahops"], t["bhops"])
        except HopbenchError as exc:
            r["reason"] = str(exc)
        else:
            m = net.metrics()
            r.update(a_ours=m.aspl, d_ours=m.diameter, K_ours=net.k, B_r=net.bisection_ratio(),
                     MB_percent_ours=moore_ratio(net.n, net.k, m.diameter) if m.connected else 0.0,
                     notation=net.notation())
            problems = []
            if net.n != row["N"]:
                problems.append(f"N={net.n}, not {row['N']}")
            if net.k != row["K"]:
                problems.append(f"the link sets give K={net.k}, not {row['K']}")
            if m.diameter != row["d"]:
                problems.append(f"d={m.diameter}, not {row['d']}")
            if not _agrees(m.aspl, row["a_text"]):
                problems.append(f"a={m.aspl:.4f}, not {row['a_text']}")
            r["matches"] = not problems
            if problems:
                r["reason"] = "; ".join(problems)
        if "erratum" in row:
            r["erratum"] = row["erratum"]
        out.append(r)
    return out


# --------------------------------------------------------------------------- problem family


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
        net = EqualityNetwork(n, [n - 1 if a == n - 1 else a for a in ahops], bhops)
    except HopbenchError:
        return None
    return net if net.graph() == g else None
