"""Equality networks (Liang et al. 2022) as graphs: the notation and the construction rule.

This is the graph layer's part of Equality networks: parsing and validating the
notation, the link sets it names, and the edges those link sets give.  It builds
the ``equality:SPEC`` topology spec (:mod:`hopbench.harness.graphs.topologies`); the
evaluation (one bit-parallel BFS, :mod:`hopbench.harness.engine.equality_bfs`), the
bisection ratio, the reproduction of the paper's tables and the problem family
are in :mod:`hopbench.harness.problems.shortcut.equality`.

An Equality network has N routers (N even) on a ring.  Two sets of positive
integers choose its links (Liang et al. 2022, Sect. 3.1):

* ``S_A`` ("ahops", written in square brackets) holds odd values and always
  contains the ring, written ``-1`` and ``1``.  Router i links to i + s if i is
  even and to i - s if i is odd, so an odd value adds one link per router.
* ``S_B`` ("bhops", in parentheses) holds even values up to N/2.  The same rule
  links every router to i + s and i - s (two links per router) except the
  diameter link s = N/2, which adds one.

Hence Eq. 1, ``K = |S_A| + 2|S_B| - [N/2 in S_B]``, and every router has degree K.

Notation grammar (case-insensitive, blanks ignored)::

    detailed  :=  "N" int "K" int ["P" int] "[" ahops "]" ["(" [bhops] ")"]
    table 3   :=  "n" int "k" int ["p" int] "ahops:[" ahops "]" ["bhops:(" [bhops] ")"]
    short     :=  "n" int "k" int ["p" int]           (a class of networks, no links)
    id        :=  "E" ddd                             (a network of the paper's Table 2)

e.g. ``N14K6[-1,1,3,9](4)``, ``n2048k28p8``, ``E361``.  A value N - 1 in ``ahops`` is
the same link as ``-1`` and is written ``-1``.  The ids resolve through the paper's
Table 3 link sets, packaged next to this module as ``equality2022.json`` (source and
transcription rule inside).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph

__all__ = [
    "EXAMPLE", "EqualityConfig", "EqualityLinks", "parse", "parse_config", "radix",
    "published_networks", "published", "published_links",
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
#: more digits than any number of the notation can sensibly have (Python refuses to convert ~4300)
_MAX_DIGITS = 18


def _whole(digits: str, what: str, label: str) -> int:
    """One number of the notation, refused before conversion when it has too many digits to be real."""
    if len(digits.lstrip("+-0")) > _MAX_DIGITS:
        raise HopbenchError(f"{label!r:.80}: {what} has {len(digits)} digits; no Equality network is that "
                            f"large (e.g. {EXAMPLE})")
    return int(digits)


def _numbers(text: str, what: str, spec: str) -> list[int]:
    text = text.strip()
    if not text:
        return []
    out = []
    for token in text.split(","):
        token = token.strip()
        if not re.fullmatch(r"[+-]?\d+", token):
            raise HopbenchError(f"{spec!r:.80}: {what} must be comma-separated integers, got {token!r:.40} "
                                f"(e.g. {EXAMPLE})")
        out.append(_whole(token, f"{what} value", spec))
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
    n, k = _whole(m.group(1), "N", text), _whole(m.group(2), "K", text)
    p = _whole(m.group(3), "p", text) if m.group(3) is not None else None
    caps.VERTICES.check(n, f"{text!r:.80}: N, the number of routers,")
    if n % 2:
        raise HopbenchError(f"{text!r}: N={n} is odd; Equality networks need an even number of routers "
                            f"(e.g. N={n + 1})")
    return EqualityConfig(n, k, p)


def parse(text: str | EqualityLinks) -> EqualityLinks:
    """Parse a detailed Equality notation or a Table 2 id and validate it (one-line errors).

    >>> links = parse("N14K6[-1,1,3,9](4)")
    >>> links.k, links.notation()
    (6, 'N14K6[-1,1,3,9](4)')
    """
    if isinstance(text, EqualityLinks):
        return text
    s = re.sub(r"\s+", "", str(text))
    if re.fullmatch(r"[eE]\d{3}", s):  # a published network by its Table 2 id
        return published_links(s)
    m = _DETAILED.match(s)
    if m is None:
        if _SHORT.match(s):
            raise HopbenchError(f"{text!r} names a class of networks, not one network; give its link sets, "
                                f"e.g. {EXAMPLE} (ahops in [...], bhops in (...))")
        raise HopbenchError(f"{text!r} is not a detailed Equality notation; write N<routers>K<radix>[ahops](bhops),"
                            f" e.g. {EXAMPLE}")
    n, k = _whole(m.group(1), "N", text), _whole(m.group(2), "K", text)
    p = _whole(m.group(3), "p", text) if m.group(3) is not None else None
    ahops = _numbers(m.group(4), "ahops", text)
    bhops = _numbers(m.group(5) or "", "bhops", text)
    # the label quotes the user's text in errors: one line, whatever blanks it held
    return EqualityLinks(n, ahops, bhops, k=k, p=p, _label=" ".join(str(text).split()))


def radix(n: int, ahops: Sequence[int], bhops: Sequence[int]) -> int:
    """Eq. 1: K = |S_A| + 2 |S_B| - [N/2 in S_B]."""
    return len(ahops) + 2 * len(bhops) - (1 if n // 2 in bhops else 0)


def _normalise(n: int, ahops: Iterable[int], bhops: Iterable[int], label: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Validate link sets; return (S_A with N-1 written as -1, S_B) in canonical order."""
    if n < 4 or n % 2:
        raise HopbenchError(f"{label}: N={n} must be even and at least 4; Equality networks pair even and odd "
                            f"routers (e.g. N={max(4, n + (n % 2))})")
    # N routers are N entries of every array built from these links (graph, BFS, bisection)
    caps.VERTICES.check(n, f"{label}: N, the number of routers,")
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


# --------------------------------------------------------------------------- construction


@dataclass(frozen=True)
class EqualityLinks:
    """The validated link sets of one Equality network, N, K, p, and the edges they give.

    Build one from the notation with :func:`parse` or directly::

        >>> EqualityLinks(14, [-1, 1, 3, 9], [4]).k
        6

    ``k`` is checked against Eq. 1 when given.  :class:`hopbench.harness.problems.shortcut.equality.EqualityNetwork`
    extends it with the evaluation (a, d, B_r, MB%).
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
        caps.EDGES.check(n * k // 2, f"{label}: the number of links N*K/2")
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
        return self._links(with_ring=True)

    def shortcuts(self) -> np.ndarray:
        """The links that are not ring links (what an Equality solution adds to ``ring:N``)."""
        return self._links(with_ring=False)

    def _links(self, *, with_ring: bool) -> np.ndarray:
        """The links, one block per link value (S_A in order, then S_B), written into one array:
        a solver decodes its answer with this after its search, within its time limit, and
        stacking blocks then filtering out the ring took 0.2-1.4 s for N=200,000, K=40 on a
        loaded machine (this: 0.02-0.2 s)."""
        n = self.n
        odd = [int(s) for s in self.odd_values if with_ring or s not in (1, n - 1)]
        half = n // 2
        sizes = [half] * len(odd) + [half if s == half else n for s in self.bhops]
        out = np.empty((sum(sizes), 2), dtype=np.int64)
        even = np.arange(0, n, 2, dtype=np.int64)
        every = np.arange(n, dtype=np.int64)
        at = 0
        for s, size in zip(odd + list(self.bhops), sizes):
            # odd s: even i -> i+s; even s: even i -> i+s and odd i -> i-s give the links (v, v+s)
            # for every v; the diameter link N/2 would list each link twice, so keep one end
            src = even if s % 2 else every[:size]
            out[at:at + size, 0] = src
            np.add(src, s, out=out[at:at + size, 1])
            at += size
        second = out[:, 1]
        second[second >= n] -= n  # (v + s) mod N with 0 <= v, s < N
        return out

    def graph(self) -> Graph:
        """The network as a :class:`~hopbench.harness.graphs.graph.Graph` (K-regular, N*K/2 edges)."""
        return Graph(self.n, self.edges(), dedupe=False)


# --------------------------------------------------------------------------- published link sets


def published_networks() -> list[dict[str, Any]]:
    """The 27 Equality rows of Liang et al. 2022's Table 2 with their Table 3 link sets.

    Packaged as ``harness/graphs/equality2022.json`` (source and transcription rule
    inside); each row has ``reproducible`` and, for the three errata, ``erratum``.
    """
    import json
    from importlib import resources

    doc = json.loads(resources.files("hopbench.harness.graphs").joinpath("equality2022.json").read_text())
    return list(doc["networks"])


def published(label: str) -> dict[str, Any]:
    """One row of :func:`published_networks` by its id (``E361``...)."""
    for row in published_networks():
        if row["id"].lower() == str(label).strip().lower():
            return row
    raise HopbenchError(f"unknown published Equality network {label!r}; use an id of Table 2 such as E361")


def published_links(label: str) -> EqualityLinks:
    """The link sets Table 3 lists for ``label`` (raises for E443, whose links are not valid for its N)."""
    t = published(label)["table3"]
    return EqualityLinks(t["N"], t["ahops"], t["bhops"], k=t["K"], p=t["p"], _label=f"{label} ({t['text']})")
