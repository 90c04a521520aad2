"""Base topologies and the one spec parser used everywhere.

A *spec* is a short string naming a base graph, e.g. ``torus:8x8`` or
``file:graphs/n72d4.edges``.  The CLI, the suite files and the solution files
all go through :func:`parse_spec`, so a spec means the same graph everywhere.

=====================  ====================================================
spec                   graph
=====================  ====================================================
``ring:N``             cycle on N >= 3 vertices (DLN-2)
``dln:N:x``            distributed loop network DLN-x (Koibuchi et al. 2012,
                       Sect. III-A): ring plus chords i -- i + floor(N/2^k)
                       for k = 1..x-2.  For even N the k = 1 chords form a
                       matching and every other k adds two links per vertex,
                       so the degree is 2x-3 for x >= 3 (not x); for odd N it
                       is 2x-2.  Chords that would repeat a link or be a
                       self-loop are dropped.
``dlnr:N:y[:seed]``    DLN-2-y, Koibuchi's random shortcut ring: the ring
                       plus y random perfect matchings (``random_dln``)
``mesh:AxB[xC...]``    mesh, two or more dimensions, row-major numbering
``torus:AxB[xC...]``   torus / k-ary n-cube, any number of dimensions; a
                       dimension of size 2 is a single link, not a double one
``hypercube:n``        n-cube, 2^n vertices
``fhypercube:n``       folded hypercube: n-cube plus i -- ~i (degree n+1)
``thypercube:n``       multiply twisted hypercube (Efe), n-regular, diameter
                       ceil((n+1)/2) for n >= 3
``flatbutterfly:k:n``  flattened k-ary n-fly: k^(n-1) routers, each linked
                       to all routers differing in one of the n-1 digits
``hring:LxM``          L local rings of M nodes; node 0 of every local ring
                       joins a global ring
``fattree:k``          k-ary 3-level fat tree (Al-Fares et al. 2008), switch
                       graph: 5k^2/4 switches, k even; diameter 4
``dragonfly:a:p:h``    dragonfly (Kim et al. 2008): a*h+1 fully connected
                       groups of a routers, h global links per router, one
                       global link per group pair; diameter 3.
                       ``dragonfly:p`` is the balanced a = 2p, h = p
``slimfly:q``          Slim Fly (Besta and Hoefler 2014), the MMS graph of a
                       prime q: 2q^2 routers, degree (3q - delta)/2 with
                       q = 4w + delta; diameter 2
``empty:N``            N vertices, no edges
``file:PATH``          Graph Golf edge list ("u v" per line, from 0) or a
                       DIMACS-style ``p edge``/``e u v`` file (from 1)
``equality:SPEC``      an Equality network, e.g. ``equality:N14K6[-1,1,3,9](4)``
=====================  ====================================================
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.edge_list import read_edge_file
from hopbench.harness.graphs.graph import Graph

# --------------------------------------------------------------------------- generators
#
# Every generator computes its vertex and edge counts from its numbers first and checks them
# against the caps (:func:`_sizes`): ``ring:100000000000`` is refused before an array is made.


def _sizes(label: str, vertices: int, edges: int) -> None:
    """Refuse a topology whose vertex or edge count is over the caps, before it is built."""
    caps.VERTICES.check(vertices, f"{label}: the vertex count")
    caps.EDGES.check(edges, f"{label}: the edge count")


def _exponent(label: str, dims: int) -> None:
    """Refuse too many dimensions before ``k**dims`` is computed (2**(10**12) is itself a huge number)."""
    caps.DIMENSIONS.check(dims, f"{label}: the number of dimensions")


def _cycle_links(k: int) -> list[tuple[int, int]]:
    """Links of a cycle on positions 0..k-1; size 2 is one link, size 1 none."""
    if k <= 1:
        return []
    if k == 2:
        return [(0, 1)]
    return [(i, (i + 1) % k) for i in range(k)]


def ring(n: int) -> Graph:
    """Cycle on ``n >= 3`` vertices."""
    _require(n >= 3, f"ring:{n} needs N >= 3 vertices, e.g. ring:16")
    _sizes(f"ring:{n}", n, n)
    i = np.arange(n)
    return Graph(n, np.stack([i, (i + 1) % n], axis=1))


def dln(n: int, x: int) -> Graph:
    """Distributed loop network DLN-x of Koibuchi et al. (degree 2x-3 for x >= 3 and even N, 2x-2 for odd N)."""
    _require(n >= 3, f"dln:{n}:{x} needs N >= 3, e.g. dln:1024:5")
    _require(x >= 2, f"dln:{n}:{x} needs x >= 2 (x = 2 is the ring), e.g. dln:{n}:4")
    # chords stop once n // 2**k is 0, so at most bit_length(n) chord sets whatever x is
    _sizes(f"dln:{n}:{x}", n, n * (1 + min(x - 2, n.bit_length())))
    i = np.arange(n)
    parts = [np.stack([i, (i + 1) % n], axis=1)]
    for k in range(1, x - 1):
        step = n // 2**k
        if step == 0:
            break
        j = (i + step) % n
        keep = j != i
        parts.append(np.stack([i[keep], j[keep]], axis=1))
    return Graph(n, np.concatenate(parts))


def _grid(dims: list[int], wrap: bool) -> Graph:
    label = f"{'torus' if wrap else 'mesh'}:{'x'.join(map(str, dims))}"
    _require(all(d >= 1 for d in dims), f"{label}: every dimension must be at least 1")
    caps.DIMENSIONS.check(len(dims), f"{label}: the number of dimensions")
    n = math.prod(dims)
    _sizes(label, n, n * len(dims))  # at most one link per vertex and dimension
    coords = np.indices(dims).reshape(len(dims), -1).T  # row-major: last dim fastest
    index = np.arange(n).reshape(dims)
    parts = []
    for axis, size in enumerate(dims):
        if size < 2:
            continue
        nxt = coords.copy()
        nxt[:, axis] += 1
        if wrap and size > 2:
            nxt[:, axis] %= size
        ok = nxt[:, axis] < size
        src = np.arange(n)[ok]
        dst = index[tuple(nxt[ok].T)]
        parts.append(np.stack([src, dst], axis=1))
    return Graph(n, np.concatenate(parts) if parts else np.empty((0, 2)))


def mesh(dims: list[int]) -> Graph:
    """Mesh with the given dimension sizes; vertex numbering is row-major."""
    return _grid(list(dims), wrap=False)


def torus(dims: list[int]) -> Graph:
    """Torus (k-ary n-cube) with wrap-around links; a size-2 dimension is one link."""
    return _grid(list(dims), wrap=True)


def hypercube(dim: int) -> Graph:
    _require(dim >= 1, f"hypercube:{dim} needs 1 <= n, e.g. hypercube:6")
    _exponent(f"hypercube:{dim}", dim)
    _sizes(f"hypercube:{dim}", 2**dim, dim * 2 ** (dim - 1))
    v = np.arange(2**dim)
    parts = [np.stack([v, v ^ (1 << b)], axis=1) for b in range(dim)]
    return Graph(2**dim, np.concatenate(parts))


def folded_hypercube(dim: int) -> Graph:
    """Hypercube plus a link from every vertex to its bitwise complement."""
    _require(dim >= 2, f"fhypercube:{dim} needs 2 <= n, e.g. fhypercube:6")
    _exponent(f"fhypercube:{dim}", dim)
    _sizes(f"fhypercube:{dim}", 2**dim, (dim + 1) * 2 ** (dim - 1))
    v = np.arange(2**dim)
    comp = np.stack([v, v ^ (2**dim - 1)], axis=1)
    return Graph(2**dim, np.concatenate([hypercube(dim).edges, comp]))


def twisted_hypercube(dim: int) -> Graph:
    """Multiply twisted hypercube MQ_n of Efe (isomorphic to Efe's crossed cube).

    Along dimension l a vertex flips bit l; if l is odd bit l-1 is kept; and
    every lower bit pair (2i+1, 2i), i < floor(l/2), follows the pair relation
    00~00, 10~10, 01~11, 11~01 (flip the high bit of the pair when its low bit
    is set).  The result is n-regular with diameter ceil((n+1)/2) for n >= 3.
    """
    _require(dim >= 1, f"thypercube:{dim} needs 1 <= n, e.g. thypercube:6")
    _exponent(f"thypercube:{dim}", dim)
    _sizes(f"thypercube:{dim}", 2**dim, dim * 2 ** (dim - 1))
    v = np.arange(2**dim, dtype=np.int64)
    parts = []
    for level in range(dim):
        w = v ^ (1 << level)
        for i in range(level // 2):
            low = (v >> (2 * i)) & 1
            w = w ^ (low << (2 * i + 1))
        parts.append(np.stack([v, w], axis=1))
    return Graph(2**dim, np.concatenate(parts))


def flattened_butterfly(k: int, n: int) -> Graph:
    """Flattened k-ary n-fly: k^(n-1) routers, degree (k-1)(n-1), diameter n-1."""
    _require(k >= 2 and n >= 2, f"flatbutterfly:{k}:{n} needs k >= 2 and n >= 2, e.g. flatbutterfly:4:3")
    dims = n - 1
    _exponent(f"flatbutterfly:{k}:{n}", dims)
    size = k**dims
    _sizes(f"flatbutterfly:{k}:{n}", size, size * (k - 1) * dims // 2)
    v = np.arange(size, dtype=np.int64)
    parts = []
    for d in range(dims):
        place = k**d
        digit = (v // place) % k
        for delta in range(1, k):
            w = v + (((digit + delta) % k) - digit) * place
            parts.append(np.stack([v, w], axis=1))
    return Graph(size, np.concatenate(parts))


def hierarchical_ring(local_rings: int, ring_size: int) -> Graph:
    """``local_rings`` rings of ``ring_size`` nodes; node 0 of each joins a global ring.

    Node j of local ring r is vertex ``r * ring_size + j``.
    """
    _require(local_rings >= 2 and ring_size >= 2,
             f"hring:{local_rings}x{ring_size} needs L >= 2 rings of M >= 2 nodes, e.g. hring:8x8")
    _sizes(f"hring:{local_rings}x{ring_size}", local_rings * ring_size, (local_rings + 1) * ring_size)
    edges = []
    for r in range(local_rings):
        edges += [(r * ring_size + a, r * ring_size + b) for a, b in _cycle_links(ring_size)]
    edges += [(a * ring_size, b * ring_size) for a, b in _cycle_links(local_rings)]
    return Graph(local_rings * ring_size, edges)


def fat_tree(k: int) -> Graph:
    """Switch graph of the k-ary 3-level fat tree of Al-Fares, Loukissas and Vahdat (SIGCOMM 2008, Sect. 3.3).

    ``k`` pods, each of ``k/2`` edge and ``k/2`` aggregation switches (every edge switch linked to every
    aggregation switch of its pod), and ``(k/2)^2`` core switches, each with one link to every pod:
    the cores form ``k/2`` blocks of ``k/2``, and block ``j`` is linked to aggregation switch ``j`` of
    every pod (the paper's "(k/2) strides").  That is ``5k^2/4`` switches and ``k^3/2`` links; an edge
    switch has ``k/2`` links up (its other ``k/2`` ports hold the hosts, which are not vertices), an
    aggregation or core switch ``k``.  Diameter 4 (edge-aggregation-core-aggregation-edge).

    Numbering, level by level so the host-carrying switches come first: edge switch ``e`` of pod ``p``
    is ``p*k/2 + e``, aggregation switch ``j`` of pod ``p`` is ``k^2/2 + p*k/2 + j``, core ``i`` of block
    ``j`` is ``k^2 + j*k/2 + i``.

    Koibuchi et al.'s Myrinet-Clos (ISCA 2012, Sect. V-A: 256 hosts, 80 16-port switches, three layers,
    four non-blocking 64-host Clos groups of 16 leaf and midspine switches) is deliberately not a
    spec: the paper fixes the switch counts but not the wiring.  Port counts imply 8 leaves (8 hosts,
    8 links up) and 8 midspines per group, leaves and midspines fully linked, and 16 spine switches
    taking 4 links from each group; but which midspine goes to which spine is left to the cabling
    plan of its reference [29] (Myricom's switch guide, which itself accepts "any cabling plan"
    meeting those counts), and valid plans give different graphs: midspine c to spines
    8(c mod 2)..8(c mod 2)+7 has switch ASPL 2.5671, midspine c to spines 2c..2c+7 (mod 16) 2.4456,
    four parallel links to each of two spines collapses to 320 links.  Only the leaf-to-leaf
    distances (2 inside a group, 4 across) are the same in all of them.  :mod:`hopbench.harness.graphs.myrinet_clos`
    builds it under two such plans, stated, with the paper's random variants.

    >>> g = fat_tree(4)
    >>> g.n, g.m, sorted(set(g.degree.tolist()))
    (20, 32, [2, 4])
    """
    _require(k >= 2 and k % 2 == 0, f"fattree:{k} needs an even k >= 2 (the switch port count), e.g. fattree:4")
    half = k // 2
    _sizes(f"fattree:{k}", 5 * half * half, k**3 // 2)
    pod = np.repeat(np.arange(k, dtype=np.int64), half * half)
    lower = np.tile(np.repeat(np.arange(half, dtype=np.int64), half), k)  # edge switch within its pod
    upper = np.tile(np.arange(half, dtype=np.int64), k * half)  # aggregation switch within its pod
    edge_agg = np.stack([pod * half + lower, k * half + pod * half + upper], axis=1)
    # agg switch j of pod p, core i of block j: every (p, j, i) once
    agg_core = np.stack([k * half + pod * half + lower, k * k + lower * half + upper], axis=1)
    return Graph(5 * half * half, np.concatenate([edge_agg, agg_core]))


def dragonfly(a: int, p: int, h: int, *, label: str | None = None) -> Graph:
    """Router graph of the dragonfly of Kim, Dally, Scott and Abts (ISCA 2008), at its largest size.

    ``g = a*h + 1`` groups of ``a`` routers; the routers of a group are all linked to each other
    (the paper's fully connected intra-group network), each router has ``h`` global channels and
    ``p`` terminals (the terminals are not vertices: ``p`` does not change the graph, it is kept
    so the spec names the paper's configuration; the balanced one is ``a = 2p = 2h``).  With
    ``g = a*h + 1`` every pair of groups is joined by exactly one global link, so every router has
    degree ``a - 1 + h`` and the diameter is 3 for ``a >= 2`` (local, global, local).

    Global links follow the absolute ("consecutive") arrangement: the ``a*h`` global ports of a
    group are numbered ``router*h + channel``, and port ``j`` of group ``i`` leads to the ``j``-th of
    the other groups in increasing order (group ``j`` if ``j < i``, else ``j + 1``).  Router ``r`` of
    group ``i`` is vertex ``i*a + r``.  ``label`` is the spec error messages name (the shorthand
    ``dragonfly:p`` passes its own).

    >>> g = dragonfly(4, 2, 2)
    >>> g.n, sorted(set(g.degree.tolist()))
    (36, [5])
    """
    label = label or f"dragonfly:{a}:{p}:{h}"  # the spec as the user wrote it, for messages
    _require(a >= 1 and p >= 1 and h >= 1,
             f"{label} needs a, p, h >= 1 (routers per group, terminals and global channels per router), "
             f"e.g. dragonfly:4:2:2 (balanced: a = 2p = 2h)")
    groups = a * h + 1
    _sizes(label, a * groups, groups * a * (a - 1) // 2 + groups * (groups - 1) // 2)
    # intra-group: every router pair of every group
    ru, rv = np.triu_indices(a, k=1)
    base = np.arange(groups, dtype=np.int64)[:, None] * a
    local = np.stack([(base + ru).ravel(), (base + rv).ravel()], axis=1)
    # one global link per unordered pair of groups i < t: port t-1 of group i, port i of group t
    gi, gt = np.triu_indices(groups, k=1)
    glob = np.stack([gi * a + (gt - 1) // h, gt * a + gi // h], axis=1)
    return Graph(a * groups, np.concatenate([local, glob]))


def _is_prime(q: int) -> bool:
    if q < 2:
        return False
    return all(q % d for d in range(2, math.isqrt(q) + 1))


def _primitive_root(q: int) -> int:
    """Smallest generator of the multiplicative group of Z_q (q prime)."""
    order = q - 1
    factors, m, d = [], order, 2
    while d * d <= m:
        if m % d == 0:
            factors.append(d)
            while m % d == 0:
                m //= d
        d += 1
    if m > 1:
        factors.append(m)
    return next(x for x in range(1, q) if all(pow(x, order // f, q) != 1 for f in factors))


def slim_fly(q: int) -> Graph:
    """Slim Fly of Besta and Hoefler (SC 2014, Sect. II-B): the McKay-Miller-Siran graph of a prime q.

    Write ``q = 4w + delta`` with ``delta`` in {-1, 1} (``delta = 0`` needs q a power of 2, never a prime).
    Over the field Z_q with primitive element xi (the smallest one), the generator sets are

    * ``delta = 1``:  X = {1, xi^2, ..., xi^(q-3)}, X' = {xi, xi^3, ..., xi^(q-2)};
    * ``delta = -1``: X = {1, xi^2, ..., xi^(2w-2), xi^(2w-1), xi^(2w+1), ..., xi^(4w-3)},
      X' = {xi, xi^3, ..., xi^(2w-1), xi^(2w), xi^(2w+2), ..., xi^(4w-2)};

    both closed under negation, so the links are undirected.  Routers are (0, x, y) and (1, m, c)
    for x, y, m, c in Z_q: (0,x,y) ~ (0,x,y') iff y - y' in X; (1,m,c) ~ (1,m,c') iff c - c' in X';
    (0,x,y) ~ (1,m,c) iff y = m*x + c.  That gives ``2q^2`` routers of degree ``(3q - delta)/2`` and
    diameter 2; q = 5 is the Hoffman-Singleton graph.  Router (0,x,y) is vertex ``x*q + y``, router
    (1,m,c) is ``q^2 + m*q + c``.

    >>> g = slim_fly(5)
    >>> g.n, sorted(set(g.degree.tolist()))
    (50, [7])
    """
    label = f"slimfly:{q}"
    _require(q >= 3, f"{label} needs a prime q >= 3 (q = 4w + delta, delta in -1, 1), e.g. slimfly:5")
    delta = 1 if q % 4 == 1 else -1  # an odd prime is 1 or 3 mod 4
    # sizes first: the primality test below is a trial division, only for a q the caps admit
    _sizes(label, 2 * q * q, q * q * (3 * q - delta) // 2)
    _require(_is_prime(q), f"{label}: q must be a prime (Slim Fly MMS graphs are built here over Z_q); "
                           f"nearby primes: {_prime_below(q)} and {_prime_above(q)}")
    w = (q - delta) // 4
    xi = _primitive_root(q)
    if delta == 1:
        x_exps = list(range(0, q - 2, 2))
    else:
        x_exps = list(range(0, 2 * w - 1, 2)) + list(range(2 * w - 1, 4 * w - 2, 2))
    x_set = np.array(sorted(pow(xi, e, q) for e in x_exps), dtype=np.int64)
    # X' = xi * X in both cases (the exponents shifted by one)
    x2_set = np.array(sorted(pow(xi, e + 1, q) for e in x_exps), dtype=np.int64)
    v = np.arange(q, dtype=np.int64)
    first, second = v[:, None] * q, q * q + v[:, None] * q  # row starts of (0, x, .) and (1, m, .)
    parts = []
    for gen, start in ((x_set, first), (x2_set, second)):
        # within one column x (or m): y ~ y + s for s in the set (each link found from both ends)
        ys = v[None, :, None]
        src = np.broadcast_to(start[:, :, None] + ys, (q, q, gen.size))
        dst = start[:, :, None] + (ys + gen[None, None, :]) % q
        parts.append(np.stack([src.ravel(), dst.ravel()], axis=1))
    # (0, x, y) ~ (1, m, c) with c = y - m*x: each (x, m, y) once
    xx, mm, yy = (a.ravel() for a in np.meshgrid(v, v, v, indexing="ij"))
    parts.append(np.stack([xx * q + yy, q * q + mm * q + (yy - mm * xx) % q], axis=1))
    return Graph(2 * q * q, np.concatenate(parts))


def _prime_below(q: int) -> int:
    return next(x for x in range(q - 1, 1, -1) if _is_prime(x))


def _prime_above(q: int) -> int:
    return next(x for x in range(q + 1, 2 * q + 2) if _is_prime(x))


def empty(n: int) -> Graph:
    _require(n >= 1, f"empty:{n} needs N >= 1")
    _sizes(f"empty:{n}", n, 0)
    return Graph(n)


# --------------------------------------------------------------------------- spec parser


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise HopbenchError(message)


#: more digits than a size in a spec can sensibly have; a 4,000-digit N is refused before any arithmetic on it
_MAX_DIGITS = 18


def _int(text: str, what: str, spec: str) -> int:
    try:
        value = int(text)
    except ValueError:  # also a number of over 4,300 digits (Python refuses to convert it)
        raise HopbenchError(f"{spec!r:.80}: {what} must be an integer, got {text!r:.40}") from None
    if len(str(abs(value))) > _MAX_DIGITS:
        raise HopbenchError(f"{spec!r:.80}: {what} has {len(str(abs(value)))} digits; no graph is that large")
    return value


def _dims(text: str, spec: str, *, min_dims: int) -> list[int]:
    parts = text.lower().split("x")
    # counted before a single part is converted: a spec of a million dimensions is refused at once
    caps.DIMENSIONS.check(len(parts), f"{spec!r:.80}: the number of dimensions")
    dims = [_int(p, "every dimension", spec) for p in parts]
    _require(len(dims) >= min_dims,
             f"{spec!r} needs at least {min_dims} dimensions written AxB[xC...], e.g. {spec.split(':')[0]}:4x4")
    _require(all(d >= 2 for d in dims), f"{spec!r}: every dimension must be at least 2")
    return dims  # the vertex count is checked by the generator, which knows its edge count too


def _args(spec: str, rest: str, count: int, example: str) -> list[str]:
    parts = rest.split(":") if rest else []
    _require(len(parts) == count, f"{spec!r} is malformed; expected a spec like {example!r}")
    return parts


def _hring_dims(spec: str, rest: str) -> list[int]:
    _require(rest.lower().count("x") == 1, f"{spec!r} is malformed; expected hring:LxM, e.g. hring:8x8")
    return _dims(rest, spec, min_dims=2)


def _build_random_dln(spec: str, rest: str) -> Graph:
    from hopbench.harness.graphs.random_dln import random_shortcut_ring

    parts = rest.split(":") if rest else []
    _require(len(parts) in (2, 3), f"{spec!r} is malformed; expected dlnr:N:y or dlnr:N:y:seed, e.g. dlnr:256:6")
    n, y = _int(parts[0], "N", spec), _int(parts[1], "y", spec)
    seed = _int(parts[2], "the seed", spec) if len(parts) == 3 else 1
    _require(seed >= 0, f"{spec!r}: the seed must be >= 0")
    _sizes(spec, n, n * (1 + max(0, y) // 2 + 1))
    return random_shortcut_ring(n, y, seed)


def _build_dragonfly(spec: str, rest: str) -> Graph:
    parts = rest.split(":") if rest else []
    _require(len(parts) in (1, 3), f"{spec!r:.80} is malformed; expected dragonfly:a:p:h (e.g. dragonfly:4:2:2) "
                                   f"or dragonfly:p for the balanced a = 2p, h = p (e.g. dragonfly:2)")
    if len(parts) == 1:
        p = _int(parts[0], "p", spec)
        _require(p >= 1, f"{spec!r:.80} needs p >= 1 terminals per router, e.g. dragonfly:2")
        return dragonfly(2 * p, p, p, label=spec.strip())
    return dragonfly(*(_int(x, "a, p and h", spec) for x in parts))


def _build_equality(spec: str, rest: str) -> Graph:
    from hopbench.harness.graphs import equality  # local import, kept next to the only spec that needs it

    return equality.parse(rest).graph()


_BUILDERS: dict[str, Callable[[str, str], Graph]] = {
    "ring": lambda s, r: ring(_int(_args(s, r, 1, "ring:64")[0], "N", s)),
    "dln": lambda s, r: dln(*(_int(a, "N and x", s) for a in _args(s, r, 2, "dln:1024:4"))),
    "dlnr": lambda s, r: _build_random_dln(s, r),
    "mesh": lambda s, r: mesh(_dims(r, s, min_dims=2)),
    "torus": lambda s, r: torus(_dims(r, s, min_dims=1)),
    "hypercube": lambda s, r: hypercube(_int(_args(s, r, 1, "hypercube:6")[0], "n", s)),
    "fhypercube": lambda s, r: folded_hypercube(_int(_args(s, r, 1, "fhypercube:6")[0], "n", s)),
    "thypercube": lambda s, r: twisted_hypercube(_int(_args(s, r, 1, "thypercube:6")[0], "n", s)),
    "flatbutterfly": lambda s, r: flattened_butterfly(
        *(_int(a, "k and n", s) for a in _args(s, r, 2, "flatbutterfly:4:3"))),
    "hring": lambda s, r: hierarchical_ring(*_hring_dims(s, r)),
    "fattree": lambda s, r: fat_tree(_int(_args(s, r, 1, "fattree:4")[0], "k", s)),
    "dragonfly": _build_dragonfly,
    "slimfly": lambda s, r: slim_fly(_int(_args(s, r, 1, "slimfly:5")[0], "q", s)),
    "empty": lambda s, r: empty(_int(_args(s, r, 1, "empty:16")[0], "N", s)),
    "file": lambda s, r: read_edge_file(r) if r else _require(False, "file: needs a path, e.g. file:graph.edges"),
    "equality": _build_equality,
}

KINDS = tuple(_BUILDERS)


def parse_spec(spec: str) -> Graph:
    """Build the graph a spec string names (see the module docstring for the forms).

    >>> parse_spec("torus:4x4").max_degree
    4
    """
    if not isinstance(spec, str) or ":" not in spec:
        raise HopbenchError(
            f"topology spec {spec!r} is malformed; write KIND:ARGS with KIND one of {', '.join(KINDS)} "
            f"(e.g. torus:8x8)"
        )
    kind, rest = spec.split(":", 1)
    builder = _BUILDERS.get(kind.strip().lower())
    if builder is None:
        raise HopbenchError(f"unknown topology kind {kind!r} in {spec!r}; use one of {', '.join(KINDS)}")
    return builder(spec, rest.strip())

