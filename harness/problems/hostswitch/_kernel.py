"""The compiled evaluation of a host-switch graph: a bit-parallel BFS over the switches, weighted by
their host counts.

A host's distance to a host on another switch is the switches' hop distance plus 2 (its two host
links); hosts on one switch are 2 apart.  So every host pair is counted through its pair of
switches, weighted by ``h_a h_b``, and no pair of hosts is ever visited.

Each switch ``v`` holds a bitset ``A[v]`` of the source switches that have reached it (64 per
uint64 word, blocks of at most :data:`MAX_WORDS` words); one BFS level is
``B[v] = A[v] | OR of A over v's neighbours`` (row by row, so that the OR vectorises), and the
sources new at ``v`` on level ``L`` are
``B[v] & ~A[v]``.  Their host weight is a weighted popcount: the host counts are split into bit
planes (``P[q]`` holds the sources whose count has bit q), so the weight is
``sum_q 2^q popcount(new & P[q])``, and level ``L`` adds ``L * h_v * weight`` to the ordered sum.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import numba as nb
import numpy as np

from hopbench.harness.engine.bitops import popcount64

#: words per switch in one block of sources (64 words: 4,096 source switches, 2 MB per 4,096 switches)
MAX_WORDS = 64


@nb.njit(cache=True)
def block_sums(nbr, deg, hosts, s0, s1, A, B, P, out, s_limit=-1.0, far_limit=-1, later=0):
    """Add the block of source switches ``s0 .. s1 - 1`` to ``out``: ``out[0]`` the ordered sum of switch
    distances over host pairs on different switches (weighted by host counts), ``out[1]`` how many such
    ordered host pairs are connected, ``out[2]`` the largest switch distance between two switches that
    both hold hosts (kept as a maximum).  ``A``, ``B``: ``(m, >= W)`` workspaces, ``P``: ``(16, >= W)``
    (host counts below 2^16).

    A switch that every source has reached is *full*: it is skipped from then on (its row no longer
    changes), and a level only writes back the rows it changed.

    **Stopping early** (an annealer that only needs to know whether a move beats a threshold): with
    ``far_limit >= 0`` the search stops, returning True, once some host pair is known to be more than
    ``far_limit`` switch hops apart; with ``s_limit >= 0`` it stops once the final ordered sum is known
    to exceed ``s_limit``: after level L every pair not yet reached is at least L + 1 apart, and the
    ``later`` ordered pairs of blocks still to come at least 1.  Under ``far_limit`` the sum is only
    used once the far distance is known to be at least ``far_limit`` (a shorter one wins whatever the
    sum).  Returns False when the block was measured in full."""
    m = nbr.shape[0]
    ns = s1 - s0
    words = (ns + 63) >> 6
    planes = 0
    for k in range(ns):
        h = hosts[s0 + k]
        while (h >> planes) > 0:
            planes += 1
    for q in range(planes):
        for w in range(words):
            P[q, w] = 0
    for k in range(ns):
        h = hosts[s0 + k]
        for q in range(planes):
            if (h >> q) & 1:
                P[q, k >> 6] |= np.uint64(1) << np.uint64(k & 63)
    reached = np.zeros(m, np.int64)
    full = np.zeros(m, np.bool_)
    changed_rows = np.empty(m, np.int64)
    for v in range(m):
        for w in range(words):
            A[v, w] = 0
    for k in range(ns):
        A[s0 + k, k >> 6] |= np.uint64(1) << np.uint64(k & 63)
        reached[s0 + k] = 1
    for v in range(m):
        full[v] = reached[v] == ns
    # ordered host pairs from this block's sources to hosts on other switches, and those reached so far
    n_hosts = 0
    for v in range(m):
        n_hosts += hosts[v]
    pairs = 0
    for k in range(ns):
        pairs += hosts[s0 + k] * (n_hosts - hosts[s0 + k])
    got = 0
    level = 0
    while True:
        level += 1
        nchanged = 0
        for v in range(m):
            if full[v]:
                continue
            for w in range(words):
                B[v, w] = A[v, w]
            for j in range(deg[v]):
                u = nbr[v, j]
                for w in range(words):
                    B[v, w] |= A[u, w]
            hv = hosts[v]
            weight = 0
            count = 0
            for w in range(words):
                new = B[v, w] & ~A[v, w]
                if new != 0:
                    count += popcount64(new)
                    if hv > 0:
                        for q in range(planes):
                            weight += popcount64(new & P[q, w]) << q
            if count > 0:
                changed_rows[nchanged] = v
                nchanged += 1
                reached[v] += count
            if weight > 0:
                out[0] += level * hv * weight
                out[1] += hv * weight
                got += hv * weight
                if level > out[2]:
                    out[2] = level
        if nchanged == 0:
            break
        rest = pairs - got
        if rest > 0:
            if far_limit >= 0 and level >= far_limit:
                return True
            if s_limit >= 0 and (far_limit < 0 or out[2] >= far_limit or level >= far_limit - 1):
                if out[0] + (level + 1) * rest + later > s_limit:
                    return True
        for i in range(nchanged):
            v = changed_rows[i]
            for w in range(words):
                A[v, w] = B[v, w]
            if reached[v] == ns:
                full[v] = True
    return False


@nb.njit(cache=True)
def switch_sums(nbr, deg, hosts, A, B, P, out, s_limit=-1.0, far_limit=-1):
    """:func:`block_sums` over every switch as a source, in blocks of the workspace's width; True when the
    limits stopped it early (``out`` is then partial)."""
    m = nbr.shape[0]
    out[0] = 0
    out[1] = 0
    out[2] = 0
    n_hosts = 0
    for v in range(m):
        n_hosts += hosts[v]
    later = 0
    for v in range(m):
        later += hosts[v] * (n_hosts - hosts[v])
    step = 64 * A.shape[1]
    s0 = 0
    while s0 < m:
        s1 = min(m, s0 + step)
        for v in range(s0, s1):
            later -= hosts[v] * (n_hosts - hosts[v])
        if block_sums(nbr, deg, hosts, s0, s1, A, B, P, out, s_limit, far_limit, later):
            return True
        s0 = s1
    return False


def workspace(switches: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``A``, ``B`` and the bit planes for :func:`switch_sums` on ``switches`` switches."""
    words = max(1, min(MAX_WORDS, (switches + 63) // 64))
    return (np.zeros((switches, words), np.uint64), np.zeros((switches, words), np.uint64),
            np.zeros((16, words), np.uint64))
