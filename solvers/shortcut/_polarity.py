"""An algebraic start for the swap mode: Erdős–Rényi polarity graphs, cut or extended to n vertices.

For a prime power q, the polarity graph ER_q has the N = q^2 + q + 1 points of the projective
plane PG(2, q) as vertices, x ~ y when x . y = 0 (over GF(q)).  Any two points span exactly one
line, so any two vertices have at most one common neighbour and the diameter is 2 at degree q + 1
(the q + 1 "absolute" points, x . x = 0, have degree q): within one vertex of the Moore bound.
Random regular graphs and symmetric (Cayley-like) ones are far from this at high degree: on graph
golf's (1024, 32), annealing from a random graph ends at ASPL 2.20 in 120 s (best known 1.998),
at every orbit size.

Two bases, for degree d:

* ``full``: ER_q itself, q = d - 1 — N = q^2 + q + 1 vertices.
* ``cut``: ER_q, q = d, without a point p and its q + 1 neighbours (the points of p's polar line)
  — q^2 - 1 vertices.  Every other point has exactly one neighbour on that line (two lines meet
  once), so each loses one port and the graph is q-regular (absolute points: q - 1; for q even all
  absolute points lie on one line, and p is its pole, so none is left).  A pair whose common
  neighbour was removed gets farther apart: about q of the q^2 - 2 others per vertex.

When n is a little above the base's order (at most 1/EXTRA_SHARE more), the extra vertices join by
edge splitting: a random edge (a, b) becomes a - v - b, which keeps every degree and lengthens only
the pairs whose shortest paths used (a, b).  Spare ports (absolute points) take odd remainders and
are then paired among themselves where the pair is not yet an edge.  The annealer polishes the
result with swaps.  The base with the fewest extra vertices wins: (1024, 32) is the cut ER_32
(1,023 vertices) plus one, (64, 8) the cut ER_8 (63) plus one.

A third base, ``grown``, serves degrees with neither (d - 1 and d not prime powers: graph golf's
(1560, 40) and (3250, 57)): ER_q at the largest prime power q <= d - 2 whose order N fits, so that
each old vertex keeps d - q - 1 free ports, and the n - N extra vertices take those ports.  An extra
vertex joins points of one polar line (the line of a pole x, the best of POLE_DRAWS random unused
points, its points with the most free ports first): every point is adjacent to exactly one point of any line, so a vertex on a fraction f of a
line reaches a fraction f of the plane in two hops, and a vertex on the whole line would be a copy
of x.  The extra vertices' remaining ports pair among themselves (a random pairing, repaired by
edge switches).  It applies when the extra vertices are at most 1/GROWN_SHARE of N, can take every
free port of the old ones, and the old ports give each at least d/GROWN_PORT_SHARE of its ports.
Before any annealing (seed 1): (1560, 40) ASPL 2.04083 (best known 2.038; a random 40-regular graph
about 2.32), (3250, 57) 2.07499 (best known 2.070).
"""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np

#: a base applies when n - order <= order / EXTRA_SHARE (every extra vertex breaks about d / 2 edges)
EXTRA_SHARE = 8
#: largest q tried: the orthogonality test is a dense N x N table (q = 64: N = 4,161, about 35 MB
#: of int16 per temporary)
MAX_Q = 64
#: random edges drawn for one split before the vertex takes spare ports instead (a draw fails when
#: the edge was split already or touches the new vertex: rare, at most 1/8 + 2 d / #edges)
SPLIT_DRAWS = 200
#: the grown base applies when n - N <= N / GROWN_SHARE ...
GROWN_SHARE = 4
#: ... and the old vertices' free ports give each extra vertex at least d / GROWN_PORT_SHARE of its ports
GROWN_PORT_SHARE = 4
#: random candidate poles compared for one extra vertex of the grown base
POLE_DRAWS = 32
#: edge switches tried for one unpaired port of the grown base before it stays free
SWITCH_DRAWS = 2000


def prime_power(q: int) -> tuple[int, int] | None:
    """(p, k) with q = p^k for a prime p, else None."""
    if q < 2:
        return None
    p = next(f for f in range(2, q + 1) if q % f == 0)
    k = 0
    while q % p == 0:
        q //= p
        k += 1
    return (p, k) if q == 1 else None


def _poly_mod(a: list[int], mod: list[int], p: int) -> list[int]:
    """a modulo the monic polynomial ``mod`` over GF(p); coefficients low degree first."""
    a = list(a)
    k = len(mod) - 1
    for top in range(len(a) - 1, k - 1, -1):
        c = a[top]
        if c:
            for i in range(k + 1):
                a[top - k + i] = (a[top - k + i] - c * mod[i]) % p
    return (a + [0] * k)[:k]


def _poly_mul(a: list[int], b: list[int], p: int) -> list[int]:
    prod = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                prod[i + j] = (prod[i + j] + x * y) % p
    return prod


def _irreducible(p: int, k: int) -> list[int]:
    """The first monic polynomial of degree k over GF(p) (coefficients low degree first) that no
    monic polynomial of degree 1..k/2 divides."""
    def monic(j: int):
        for tail in range(p ** j):
            yield [(tail // p ** i) % p for i in range(j)] + [1]
    for f in monic(k):
        if f[0] and all(any(_poly_mod(f, g, p)) for j in range(1, k // 2 + 1) for g in monic(j)):
            return f
    raise AssertionError(f"GF({p}^{k}) has no irreducible polynomial")  # cannot happen


@functools.lru_cache(maxsize=8)
def field_tables(q: int) -> tuple[np.ndarray, np.ndarray]:
    """Addition and multiplication tables of GF(q), q a prime power; element e stands for the
    polynomial whose base-p digits (lowest first) are e's (read-only arrays, cached)."""
    pk = prime_power(q)
    if pk is None:
        raise ValueError(f"{q} is not a prime power")
    p, k = pk
    digits = np.array([[(e // p ** i) % p for i in range(k)] for e in range(q)], np.int64)
    weights = p ** np.arange(k)
    add = ((digits[:, None, :] + digits[None, :, :]) % p) @ weights
    if k == 1:
        mul = np.outer(np.arange(q), np.arange(q)) % q
    else:
        mod = _irreducible(p, k)
        elements = digits.tolist()
        mul = np.array([[int(np.dot(_poly_mod(_poly_mul(a, b, p), mod, p), weights)) for b in elements]
                        for a in elements], np.int64)
    add, mul = add.astype(np.int16), mul.astype(np.int16)  # q <= MAX_Q: small temporaries in the N x N test
    add.flags.writeable = False
    mul.flags.writeable = False
    return add, mul


def _points(q: int) -> np.ndarray:
    """The q^2 + q + 1 points of PG(2, q), normalised: (1, y, z), then (0, 1, z), then (0, 0, 1)."""
    y, z = np.meshgrid(np.arange(q), np.arange(q), indexing="ij")
    return np.concatenate([
        np.stack([np.ones(q * q, np.int64), y.ravel(), z.ravel()], axis=1),
        np.stack([np.zeros(q, np.int64), np.ones(q, np.int64), np.arange(q)], axis=1),
        np.array([[0, 0, 1]], np.int64)])


def polarity_adjacency(q: int) -> np.ndarray:
    """The N x N boolean orthogonality matrix of PG(2, q) (its diagonal marks the absolute points)."""
    add, mul = field_tables(q)
    pts = _points(q)
    dot = mul[pts[:, None, 0], pts[None, :, 0]]
    for c in (1, 2):
        dot = add[dot, mul[pts[:, None, c], pts[None, :, c]]]
    return dot == 0


def plan(n: int, d: int) -> tuple[str, int, int] | None:
    """(base, q, order) of the polarity base for n vertices of degree <= d (see the module
    docstring): ``cut`` or ``full`` with the fewest extra vertices, else ``grown``, else None."""
    best = None
    for base, q, order in (("cut", d, d * d - 1), ("full", d - 1, (d - 1) ** 2 + d)):
        if not (2 <= q <= MAX_Q and prime_power(q)) or not order <= n <= order + order // EXTRA_SHARE:
            continue
        if best is None or order > best[2]:
            best = (base, q, order)
    if best is None:
        for q in range(min(d - 2, MAX_Q), 1, -1):
            order = q * q + q + 1
            if not prime_power(q) or order > n:
                continue
            old_ports = (d - q - 1) * order + q + 1  # the q + 1 absolute points have one more
            extra = n - order
            if extra <= order // GROWN_SHARE and old_ports <= extra * d <= old_ports * GROWN_PORT_SHARE:
                best = ("grown", q, order)
            break  # a smaller plane leaves more vertices out
    return best


def base_graph(base: str, q: int) -> np.ndarray:
    """The adjacency matrix (no loops) of the ``full`` or ``cut`` base of order q."""
    ortho = polarity_adjacency(q)
    absolute = np.diag(ortho).copy()
    np.fill_diagonal(ortho, False)
    if base in ("full", "grown"):
        return ortho
    # the removed point: the one whose polar line holds the most absolute points (the fewest
    # vertices left one port short); for q even that is the nucleus, whose line holds them all
    p = int(np.argmax((ortho & absolute[None, :]).sum(axis=1) - 2 * q * absolute))
    keep = ~(ortho[p] | (np.arange(ortho.shape[0]) == p))
    return ortho[np.ix_(keep, keep)]


def polarity_start(n: int, d: int, rng: np.random.Generator,
                   should_stop: Callable[[], bool] = lambda: False) -> np.ndarray | None:
    """An (n, d) neighbour table (-1 where a port stays free) of the polarity base of
    :func:`plan`, extended to n vertices (see the module docstring); None when ``should_stop``
    says so first (the largest, q = 64 with 500 extra vertices, takes 0.8 s)."""
    chosen = plan(n, d)
    if chosen is None:
        raise ValueError(f"no polarity start applies to n = {n}, d = {d}")
    base, q, order = chosen
    A = base_graph(base, q)
    assert A.shape[0] == order
    if should_stop():
        return None
    adj = [set(np.flatnonzero(row).tolist()) for row in A]
    adj += [set() for _ in range(n - order)]
    extend = _grow if base == "grown" else _split
    if not extend(A, adj, d, rng, should_stop):
        return None
    table = np.full((n, d), -1, np.int64)
    for v in range(n):
        nb = sorted(adj[v])
        table[v, :len(nb)] = nb
    return table


def _split(A: np.ndarray, adj: list[set[int]], d: int, rng: np.random.Generator,
           should_stop: Callable[[], bool]) -> bool:
    """Join the extra vertices by edge splitting, then pair spare ports (in place; False: stopped)."""
    order, n = A.shape[0], len(adj)
    ii, jj = np.nonzero(np.triu(A, k=1))
    edges = list(zip(ii.tolist(), jj.tolist()))
    spare = [v for v in range(order) if len(adj[v]) < d]
    live = np.ones(len(edges), bool)  # edges that may still be split (both ends old, still present)
    for v in range(order, n):
        if should_stop():
            return False
        need = d
        while need >= 2:
            # random draws, not a shuffle of every edge: q = 64 splits ~16,000 edges of ~130,000
            k = -1
            for pick in rng.integers(len(edges), size=SPLIT_DRAWS).tolist():
                a, b = edges[pick]
                if live[pick] and a not in adj[v] and b not in adj[v]:
                    k = pick
                    break
            if k < 0:
                break
            live[k] = False
            adj[a].discard(b)
            adj[b].discard(a)
            for x in (a, b):
                adj[v].add(x)
                adj[x].add(v)
            need -= 2
        options = [s for s in spare if s not in adj[v]]
        while need >= 1 and options:
            s = options.pop(int(rng.integers(len(options))))
            spare.remove(s)
            adj[v].add(s)
            adj[s].add(v)
            need -= 1
    _pair_spare_ports([spare[i] for i in rng.permutation(len(spare)).tolist()], adj)
    return True


def _pair_spare_ports(spare: list[int], adj: list[set[int]]) -> None:
    """Join vertices with a free port pairwise, in the given order, where the pair is not yet an edge."""
    while len(spare) >= 2:
        a = spare.pop()
        partner = next((s for s in spare if s not in adj[a]), None)
        if partner is not None:
            spare.remove(partner)
            adj[a].add(partner)
            adj[partner].add(a)


def _grow(A: np.ndarray, adj: list[set[int]], d: int, rng: np.random.Generator,
          should_stop: Callable[[], bool]) -> bool:
    """Join the extra vertices to points of polar lines, then pair their other ports (in place;
    False: stopped)."""
    order, n = A.shape[0], len(adj)
    extra = n - order
    free = np.array([d - len(a) for a in adj[:order]], np.int64)
    share = np.full(extra, int(free.sum()) // extra, np.int64)
    share[:int(free.sum()) % extra] += 1
    unused = np.ones(order, bool)
    poles = np.zeros(extra, np.int64)
    for i in range(extra):
        if should_stop():
            return False
        v = order + i
        # the pole: of a few random unused points, the one whose line has the most free points
        # (random poles leave the last vertices lines of used-up points)
        cands = rng.choice(np.flatnonzero(unused), size=min(POLE_DRAWS, int(unused.sum())), replace=False)
        pole = int(cands[np.argmax((A[cands] & (free > 0)[None, :]).sum(axis=1))])
        unused[pole] = False
        poles[i] = pole
        line = np.flatnonzero(A[pole] & (free > 0))
        # the points with the most free ports first (random among equals), so that all run out together
        line = line[np.lexsort((rng.random(line.size), -free[line]))][:min(int(share[i]), d)]
        for y in line.tolist():
            adj[v].add(y)
            adj[y].add(v)
        free[line] -= 1
    # old ports left over (a line shorter than the share): any extra vertex with room, else another
    # old vertex with a free port
    for y in np.flatnonzero(free > 0).tolist():
        room = np.array([v for v in range(order, n) if len(adj[v]) < d and v not in adj[y]], np.int64)
        # those whose pole's line holds y first: y is then one more point of their line
        room = room[np.lexsort((rng.random(room.size), ~A[poles[room - order], y]))]
        for v in room[:free[y]].tolist():
            adj[v].add(y)
            adj[y].add(v)
            free[y] -= 1
    _pair_spare_ports(rng.permutation(np.flatnonzero(free > 0)).tolist(), adj)
    if should_stop():
        return False
    # the extra vertices' other ports: a random pairing; the clashes (a loop, a repeated edge) are
    # mended by switches x - y -> a - x, b - y on edges between extra vertices
    stubs = np.repeat(np.arange(order, n), [d - len(adj[v]) for v in range(order, n)])
    rng.shuffle(stubs)
    clashes: list[int] = []
    for a, b in stubs[:stubs.size // 2 * 2].reshape(-1, 2).tolist():
        if a != b and b not in adj[a]:
            adj[a].add(b)
            adj[b].add(a)
        else:
            clashes += [a, b]
    while len(clashes) >= 2:
        if should_stop():
            return False
        a, b = clashes.pop(), clashes.pop()
        if a != b and b not in adj[a]:
            adj[a].add(b)
            adj[b].add(a)
            continue
        for x in rng.integers(order, n, size=SWITCH_DRAWS).tolist():
            if x in (a, b) or x in adj[a]:
                continue
            y = next((y for y in adj[x] if y >= order and y not in (a, b) and y not in adj[b]), None)
            if y is not None:
                adj[x].discard(y)
                adj[y].discard(x)
                adj[a].add(x)
                adj[x].add(a)
                adj[b].add(y)
                adj[y].add(b)
                break
    return True
