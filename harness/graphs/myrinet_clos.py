"""Koibuchi et al.'s Myrinet-Clos (ISCA 2012, Sect. V-A) and its random-link variants (Fig. 26).

The paper's network: 256 hosts, 80 16-port switches in three layers, four non-blocking 64-host Clos groups of 8
leaves (8 hosts, 8 links up) and 8 midspines, every leaf of a group linked to every midspine of it, and 16 spines
taking 4 links from each group.  Which midspine goes to which spine the paper leaves to its reference's cabling
plan (the docstring of :func:`hopbench.harness.graphs.topologies.fat_tree` says why no plan is *the* network), so
two valid plans are built (:data:`WIRINGS`):

- ``blocks``: midspine c of every group to spines 8 (c mod 2) .. 8 (c mod 2) + 7;
- ``stride``: midspine c to spines 2c .. 2c + 7 (mod 16).

The paper's variants (:data:`VARIANTS`), as we read its text:

- ``swap X``: X % of the 256 leaf-midspine links, paired at random, exchange their midspine ends (a pair whose
  exchange would double a link is drawn again); every switch keeps its degree;
- ``add K/switch``: K random perfect matchings of all 80 switches, no link doubled (K links more on every switch);
- ``add 8K/pairs`` and ``add 8K/cycle``: 8K links a group ("each group is randomly connected to a midspine block
  with 8 or 16 links"): every group is joined to the midspine block of one other group, each of its 8 leaves
  getting K links to distinct midspines of that block, every midspine of it taking K.  The paper does not say
  which block; ``pairs`` joins the groups in two random pairs (each pair's blocks joined both ways), ``cycle`` in
  a random cycle of the four.

Switch ids, layer by layer: leaf i of group g is ``8g + i``, midspine c of group g ``32 + 8g + c``, spine s
``64 + s``.  Hosts sit on the leaves only, 8 each.  A variant is a function of (wiring, variant, seed).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph

GROUPS, LEAVES, MIDSPINES, SPINES, HOSTS_PER_LEAF = 4, 8, 8, 16, 8
SWITCHES = GROUPS * (LEAVES + MIDSPINES) + SPINES
HOSTS = GROUPS * LEAVES * HOSTS_PER_LEAF
UPLINKS = SPINES // 2  # a midspine's links up: its 16 ports less its 8 leaves
WIRINGS = ("blocks", "stride")
VARIANTS = ("original", "swap 20", "swap 50", "swap 80", "add 1/switch", "add 2/switch", "add 8/pairs",
            "add 16/pairs", "add 8/cycle", "add 16/cycle")
#: draws of a random step before it gives up (a doubled link is drawn again)
_ATTEMPTS = 100_000


def leaf(g: int, i: int) -> int:
    return g * LEAVES + i


def midspine(g: int, c: int) -> int:
    return GROUPS * LEAVES + g * MIDSPINES + c


def spine(s: int) -> int:
    return GROUPS * (LEAVES + MIDSPINES) + s


def clos_links(wiring: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(leaf-midspine links, midspine-spine links) of the 80-switch Myrinet-Clos under a cabling plan."""
    if wiring not in WIRINGS:
        raise HopbenchError(f"unknown Myrinet-Clos wiring {wiring!r}; use one of {', '.join(WIRINGS)}")
    down = [(leaf(g, i), midspine(g, c)) for g in range(GROUPS) for i in range(LEAVES) for c in range(MIDSPINES)]
    up = []
    for g in range(GROUPS):
        for c in range(MIDSPINES):
            first = UPLINKS * (c % 2) if wiring == "blocks" else 2 * c
            up += [(midspine(g, c), spine((first + j) % SPINES)) for j in range(UPLINKS)]
    return down, up


def _key(u: int, v: int) -> tuple[int, int]:
    return (u, v) if u < v else (v, u)


def swapped(down: list[tuple[int, int]], percent: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """``percent`` % of the leaf-midspine links, in random pairs, exchange their midspine ends."""
    links = list(down)
    present = {_key(*e) for e in links}
    pairs = round(percent / 100 * len(links) / 2)
    untouched = list(range(len(links)))
    done = attempts = 0
    while done < pairs:
        attempts += 1
        if attempts > _ATTEMPTS or len(untouched) < 2:
            raise HopbenchError(f"could not swap {percent} % of the leaf-midspine links without doubling one")
        a, b = rng.choice(len(untouched), size=2, replace=False)
        (l1, m1), (l2, m2) = links[untouched[a]], links[untouched[b]]
        if m1 == m2 or _key(l1, m2) in present or _key(l2, m1) in present:
            continue
        present -= {_key(l1, m1), _key(l2, m2)}
        present |= {_key(l1, m2), _key(l2, m1)}
        links[untouched[a]], links[untouched[b]] = (l1, m2), (l2, m1)
        for i in sorted((int(a), int(b)), reverse=True):
            untouched.pop(i)
        done += 1
    return links


def _rounds(draw: Callable[[], list[tuple[int, int]]], present: set[tuple[int, int]], k: int,
            what: str) -> list[tuple[int, int]]:
    """``k`` rounds of links, each ``draw()`` again until it doubles no link present (``present`` grows)."""
    added: list[tuple[int, int]] = []
    for _ in range(k):
        for _attempt in range(_ATTEMPTS):
            pairs = draw()
            if not any(p in present for p in pairs):
                break
        else:
            raise HopbenchError(f"no {what} without a doubled link was drawn")
        present |= set(pairs)
        added += pairs
    return added


def matchings(present: set[tuple[int, int]], k: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """``k`` random perfect matchings of all switches, no link doubled (each drawn again until it fits)."""

    def matching() -> list[tuple[int, int]]:
        order = rng.permutation(SWITCHES)
        return [_key(int(order[i]), int(order[i + 1])) for i in range(0, SWITCHES, 2)]

    return _rounds(matching, present, k, "perfect matching of the switches")


def group_links(present: set[tuple[int, int]], k: int, shape: str,
                rng: np.random.Generator) -> list[tuple[int, int]]:
    """Every group joined to the midspine block of one other group (``pairs`` or ``cycle``, see the module):
    each of its leaves gets ``k`` links to distinct midspines of that block."""
    order = rng.permutation(GROUPS)
    target = np.empty(GROUPS, dtype=np.int64)
    for j, g in enumerate(order):
        partner = (j ^ 1) if shape == "pairs" else (j + 1) % GROUPS
        target[g] = order[partner]

    def links() -> list[tuple[int, int]]:
        return [_key(leaf(g, i), midspine(int(target[g]), int(c)))
                for g in range(GROUPS) for i, c in enumerate(rng.permutation(MIDSPINES))]

    return _rounds(links, present, k, "set of group links")


def myrinet_clos(wiring: str = "blocks", variant: str = "original", seed: int = 1) -> tuple[Graph, np.ndarray]:
    """The switch graph of a Myrinet-Clos variant and its hosts per switch (8 on each leaf, none elsewhere)."""
    if variant not in VARIANTS:
        raise HopbenchError(f"unknown Myrinet-Clos variant {variant!r}; use one of {', '.join(VARIANTS)}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise HopbenchError(f"a Myrinet-Clos variant's seed is an integer >= 0, got {seed!r}")
    rng = np.random.default_rng(seed)
    down, up = clos_links(wiring)
    kind, _, amount = variant.partition(" ")
    if kind == "swap":
        down = swapped(down, int(amount), rng)
    links = down + up
    present = {_key(*e) for e in links}
    if kind == "add":
        count, _, per = amount.partition("/")
        links += matchings(present, int(count), rng) if per == "switch" else \
            group_links(present, int(count) // LEAVES, per, rng)
    hosts = np.zeros(SWITCHES, dtype=np.int64)
    hosts[:GROUPS * LEAVES] = HOSTS_PER_LEAF
    return Graph(SWITCHES, np.asarray(links, dtype=np.int64)), hosts


def file_stem(wiring: str, variant: str, seed: int) -> str:
    """The file name (without ``.json``) a variant is written under, e.g. ``blocks-add16pairs-s1``."""
    return f"{wiring}-{variant.replace(' ', '').replace('/', '')}-s{seed}"
