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

from harness import caps
from harness.errors import HopbenchError
from harness.graphs.edge_list import read_edge_file
from harness.graphs.graph import Graph

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
    from harness.graphs.random_dln import random_shortcut_ring

    parts = rest.split(":") if rest else []
    _require(len(parts) in (2, 3), f"{spec!r} is malformed; expected dlnr:N:y or dlnr:N:y:seed, e.g. dlnr:256:6")
    n, y = _int(parts[0], "N", spec), _int(parts[1], "y", spec)
    seed = _int(parts[2], "the seed", spec) if len(parts) == 3 else 1
    _require(seed >= 0, f"{spec!r}: the seed must be >= 0")
    _sizes(spec, n, n * (1 + max(0, y) // 2 + 1))
    return random_shortcut_ring(n, y, seed)


def _build_equality(spec: str, rest: str) -> Graph:
    from harness.graphs import equality  # local import, kept next to the only spec that needs it

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

