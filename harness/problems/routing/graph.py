"""The Angara routing graph (Mukosey, Semenov, Tretiakov 2021, Sect. 2.1 and 3).

Angara's deterministic routing rules
------------------------------------
* **direction order**: a route uses its directions in the order
  ``+X +Y +Z +K -X -Y -Z -K`` (same-direction steps may repeat);
* **direction bit**: a route never uses both +D and -D of one dimension;
* **First Step / Last Step**: a route may start with one non-standard
  *positive* step and end with one non-standard *negative* step; these two
  steps may break both rules above.

The routing graph (RG, Sect. 3.1)
---------------------------------
Per network node u there are ``3^n + 2n + 1`` vertices ("local states")::

    0                      begin      injection at u
    1 + j        (j < n)   FS_j       reached by a first (non-standard) step +j
    n + code               dirbit     reached by a DOR route whose used directions
                                      form the sign vector ``code`` (base 3, digit
                                      j: 0 unused, 1 '+', 2 '-'; code 1..3^n-1)
    n + 3^n + j  (j < n)   LS_j       reached by a last (non-standard) step -j
    2n + 3^n               end        ejection at u

and the edges of Sect. 3.1 (each non-end edge is one network step along an
existing channel):

* begin(u) -> FS_k(u+D_k) for positive D_k; begin(u) -> dirbit{D_k}(u+D_k)
  for every D_k; begin(u) -> end(u);
* FS_l(u) -> dirbit{D_k}(u+D_k) when D_l < D_k; FS_l(u) -> end(u);
* dirbit_v(u) -> dirbit_{v+D_k}(u+D_k) when last(v) <= D_k and v + D_k obeys
  the direction-bit rule; dirbit_v(u) -> LS_k(u+D_k) for negative D_k with
  last(v) < D_k; dirbit_v(u) -> end(u);
* LS_k(u) -> end(u).

``last(v)`` is the largest direction of v in the order above; it is also the
direction of the step that entered the vertex, i.e. every RG vertex other than
begin knows the channel the packet arrived on.  The end vertices are implicit
in the compiled kernels (every vertex but begin may end a non-empty route);
:meth:`RoutingGraph.explicit_edges` lists them for inspection and tests.

Deadlock-free extension (Sect. 3.2)
-----------------------------------
The channel dependency graph CDG has a vertex per channel ``(u, D)`` and the
edges ``[(u, D_i), (u + D_i, D_j)]`` for every DOR turn ``D_i <= D_j``
(same-direction steps included: they only form ring cycles, which the bubble
rule handles; U-turns ``+D -> -D`` included because FS/LS steps allow them).
``B(c)`` is the set of directions used on CDG paths starting at channel c.
Theorem 2: adding ``[(u_j, D_j), (u_k, D_k)]`` with ``D_j > D_k`` creates no
cycle when ``D_j`` is not in ``B(u_k, D_k)``.  We visit the channels in id
order (node, then direction) and their candidate turns in ascending D_k,
keep only the turns the RG can use -- ``D_j > D_k`` both positive (a First
Step D_j followed by a smaller positive step) or both negative (a DOR part
ending in D_j followed by a smaller Last Step D_k) -- add each one that passes
the test, and update B exactly (every CDG ancestor of ``(u_j, D_j)`` gains
``B(u_k, D_k)``).  Each added CDG edge becomes an RG edge:
``FS_{D_j}(u_k) -> dirbit{D_k}(u_k + D_k)`` or
``dirbit_v(u_k) -> LS_{D_k}(u_k + D_k)`` for the dirbit vertices with
``last(v) = D_j``.

On a torus whose dimensions all have size >= 3, ``B(u, D)`` already holds
every direction >= D, so Theorem 2 adds nothing; the extension matters for
size-2 (mesh) dimensions, where it lets a route take a positive mesh step
before smaller positive steps (First Step) or a smaller negative step after a
negative mesh step (Last Step).  Every RG turn is a CDG edge and the final CDG
has no cycle through a turn, so every table routed in this graph is
deadlock-free with the bubble rule (tested in tests/harness/test_routing_graph.py).

Because begin -> FS and begin -> dirbit (and dirbit -> dirbit / LS) can both
match one step, the RG is a non-deterministic automaton over direction
sequences: a route (a direction list) obeys the rules iff *some* RG path spells
it (Theorem 1).  The kernels here simulate the automaton with the (small) set
of live vertices.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

from functools import cached_property, lru_cache

import numba as nb
import numpy as np

from hopbench.harness.problems.routing.network import Torus, direction_name
from hopbench.harness.problems.routing.network import torus as make_torus

#: largest number of RG vertices the automaton can occupy after one prefix
#: (begin -> {FS, dirbit}; later at most two dirbit vertices and one LS vertex)
MAX_LIVE = 8


# --------------------------------------------------------------------------- state tables


def state_counts(n: int) -> tuple[int, int]:
    """``(3^n, 3^n + 2n + 1)``: dirbit codes (incl. the unused 0) and vertices per node."""
    n3 = 3 ** n
    return n3, n3 + 2 * n + 1


def _dirbit_tables(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``next[code, d]`` (-1: not allowed), ``last[code]`` and ``single[d]`` (the code of {D_d})."""
    n3 = 3 ** n
    nd = 2 * n
    digits = np.array([[(code // 3 ** j) % 3 for j in range(n)] for code in range(n3)], dtype=np.int64)
    last = np.full(n3, -1, dtype=np.int64)
    for code in range(1, n3):
        dirs = [j if t == 1 else n + j for j, t in enumerate(digits[code]) if t]
        last[code] = max(dirs)
    nxt = np.full((n3, nd), -1, dtype=np.int64)
    single = np.zeros(nd, dtype=np.int64)
    for d in range(nd):
        j, t = d % n, (1 if d < n else 2)
        single[d] = t * 3 ** j
        for code in range(1, n3):
            if last[code] <= d and digits[code, j] in (0, t):
                nxt[code, d] = code + (t - digits[code, j]) * 3 ** j
    return nxt, last, single


@nb.njit(cache=True)
def _successors(s, d, x, n, n3, nxt, last, single, ext_fs, ext_ls, out):
    """RG vertices (local states) reached from state ``s`` at node ``x`` by one step ``d``.

    The caller checks that channel (x, d) exists.  Writes up to two states to
    ``out`` and returns how many.
    """
    if s == 0:  # begin
        k = 0
        if d < n:
            out[k] = 1 + d
            k += 1
        out[k] = n + single[d]
        return k + 1
    if s <= n:  # FS_l
        l = s - 1
        if d > l or (ext_fs[x, l] >> d) & 1:
            out[0] = n + single[d]
            return 1
        return 0
    if s < n + n3:  # dirbit
        code = s - n
        lst = last[code]
        k = 0
        nc = nxt[code, d]
        if nc >= 0:
            out[k] = n + nc
            k += 1
        if d >= n:
            if d > lst or (d < lst and (ext_ls[x, lst] >> d) & 1):
                out[k] = n + n3 + (d - n)
                k += 1
        return k
    return 0  # LS and end: only the (implicit) end edge


@nb.njit(cache=True)
def _advance(live, nlive, d, x, n, n3, nxt, last, single, ext_fs, ext_ls, new, buf):
    """One automaton step: the live set after step ``d`` from node ``x``; returns its size."""
    m = 0
    for i in range(nlive):
        k = _successors(live[i], d, x, n, n3, nxt, last, single, ext_fs, ext_ls, buf)
        for a in range(k):
            s = buf[a]
            seen = False
            for b in range(m):
                if new[b] == s:
                    seen = True
                    break
            if not seen:
                new[m] = s
                m += 1
    return m


# --------------------------------------------------------------------------- CDG extension (Theorem 2)


@nb.njit(cache=True)
def _extend_cdg(neighbor, n, extend):
    """Build the DOR CDG, compute the used-direction sets B and add the Theorem 2 turns.

    Returns ``(added, B)``: the added CDG edges as ``(k, 2)`` channel pairs and
    the final used-direction bitmask of every channel slot.
    """
    N = neighbor.shape[0]
    nd = 2 * n
    nch = N * nd
    W = 3 * n
    succ = np.full((nch, W), -1, np.int64)
    nsucc = np.zeros(nch, np.int64)
    pred = np.full((nch, W), -1, np.int64)
    npred = np.zeros(nch, np.int64)
    for u in range(N):
        for di in range(nd):
            v = neighbor[u, di]
            if v < 0:
                continue
            c = u * nd + di
            for dj in range(di, nd):
                if neighbor[v, dj] < 0:
                    continue
                c2 = v * nd + dj
                succ[c, nsucc[c]] = c2
                nsucc[c] += 1
                pred[c2, npred[c2]] = c
                npred[c2] += 1
    B = np.zeros(nch, np.int64)
    for c in range(nch):
        if neighbor[c // nd, c % nd] >= 0:
            B[c] = 1 << (c % nd)
    changed = True
    while changed:  # fixpoint of B(c) = {dir c} | union of successors' B
        changed = False
        for c in range(nch - 1, -1, -1):
            b = B[c]
            for k in range(nsucc[c]):
                b |= B[succ[c, k]]
            if b != B[c]:
                B[c] = b
                changed = True
    added = np.empty((nch * n, 2), np.int64)
    nadd = 0
    if not extend:
        return added[:0], B
    stack = np.empty(nch, np.int64)
    for c in range(nch):
        u = c // nd
        di = c % nd
        v = neighbor[u, di]
        if v < 0:
            continue
        lo = 0 if di < n else n
        for dj in range(lo, di):  # same sign, smaller direction: FS (positive) or LS (negative) turn
            if neighbor[v, dj] < 0:
                continue
            c2 = v * nd + dj
            if (B[c2] >> di) & 1:
                continue  # a CDG path c2 ~> direction di exists: the turn might close a cycle
            succ[c, nsucc[c]] = c2
            nsucc[c] += 1
            pred[c2, npred[c2]] = c
            npred[c2] += 1
            added[nadd, 0] = c
            added[nadd, 1] = c2
            nadd += 1
            gain = B[c2]
            if (B[c] | gain) == B[c]:
                continue
            # every ancestor of c now also reaches B(c2); an ancestor that already
            # has all those bits has ancestors that do too (B is exact), so stop there
            B[c] |= gain
            top = 0
            stack[top] = c
            top += 1
            while top > 0:
                top -= 1
                w = stack[top]
                for k in range(npred[w]):
                    p = pred[w, k]
                    if (B[p] | gain) != B[p]:
                        B[p] |= gain
                        stack[top] = p
                        top += 1
    return added[:nadd].copy(), B


# --------------------------------------------------------------------------- explicit graph


@nb.njit(cache=True)
def _build_csr(neighbor, n, n3, S, nxt, last, single, ext_fs, ext_ls):
    N = neighbor.shape[0]
    nd = 2 * n
    buf = np.empty(4, np.int64)
    deg = np.zeros(N * S + 1, np.int64)
    for x in range(N):
        for s in range(S - 1):
            for d in range(nd):
                if neighbor[x, d] < 0:
                    continue
                deg[x * S + s + 1] += _successors(s, d, x, n, n3, nxt, last, single, ext_fs, ext_ls, buf)
    indptr = np.cumsum(deg)
    tgt = np.empty(indptr[-1], np.int64)
    edir = np.empty(indptr[-1], np.int8)
    pos = indptr[:-1].copy()
    for x in range(N):
        for s in range(S - 1):
            v = x * S + s
            for d in range(nd):
                y = neighbor[x, d]
                if y < 0:
                    continue
                k = _successors(s, d, x, n, n3, nxt, last, single, ext_fs, ext_ls, buf)
                for a in range(k):
                    tgt[pos[v]] = y * S + buf[a]
                    edir[pos[v]] = d
                    pos[v] += 1
    return indptr, tgt, edir


# --------------------------------------------------------------------------- rule checking


@nb.njit(cache=True)
def _check_route(r, srcs, dsts, offsets, dirs, neighbor, n, n3, nxt, last, single, ext_fs, ext_ls, rules,
                 live, new, buf):
    """Route r by the automaton: ``(step, code)`` as in :func:`_check_routes`."""
    nd = 2 * n
    x = srcs[r]
    live[0] = 0
    nlive = 1
    for t in range(offsets[r], offsets[r + 1]):
        d = dirs[t]
        if d < 0 or d >= nd or neighbor[x, d] < 0:
            return t - offsets[r], 1
        if rules:
            m = _advance(live, nlive, d, x, n, n3, nxt, last, single, ext_fs, ext_ls, new, buf)
            if m == 0:
                return t - offsets[r], 2
            for i in range(m):
                live[i] = new[i]
            nlive = m
        x = neighbor[x, d]
    if x != dsts[r]:
        return -1, 3
    return -1, 0


@nb.njit(cache=True)
def _check_routes(srcs, dsts, offsets, dirs, neighbor, n, n3, nxt, last, single, ext_fs, ext_ls, rules):
    """First route that is not a walk from src to dst (or, with ``rules``, no RG path).

    Returns ``(route, step, code)``: code 0 all fine, 1 a direction out of
    range or a missing channel at ``step``, 2 no RG path continues at ``step``,
    3 the walk ends elsewhere than dst.

    Fast path: a walk whose directions never decrease and never use both +D and -D is the
    dirbit path begin -> dirbit{D1} -> ... of the RG, so it passes without the automaton
    (most routes of any table are plain DOR; the automaton costs ~5x more a step).  Any
    other route, or one with a bad step, is re-checked by the automaton, which names the
    first violation exactly as before.
    """
    nd = 2 * n
    live = np.empty(MAX_LIVE, np.int64)
    new = np.empty(MAX_LIVE, np.int64)
    buf = np.empty(4, np.int64)
    for r in range(srcs.shape[0]):
        x = srcs[r]
        plain = True
        prev = 0
        used = 0
        for t in range(offsets[r], offsets[r + 1]):
            d = dirs[t]
            if d < 0 or d >= nd or neighbor[x, d] < 0:
                plain = False
                break
            if plain and rules:
                opposite = d + n if d < n else d - n
                if d < prev or (used >> opposite) & 1:
                    plain = False
                used |= 1 << d
                prev = d
            x = neighbor[x, d]
        if plain:
            if x != dsts[r]:
                return r, -1, 3
            continue
        t, code = _check_route(r, srcs, dsts, offsets, dirs, neighbor, n, n3, nxt, last, single, ext_fs, ext_ls,
                               rules, live, new, buf)
        if code:
            return r, t, code
    return -1, -1, 0


# --------------------------------------------------------------------------- the graph object


class RoutingGraph:
    """The (deadlock-free extended) Angara routing graph of a torus.

    Parameters
    ----------
    net:
        the torus.
    extended:
        add the Theorem 2 turns of Sect. 3.2 (default); ``False`` gives the
        plain Sect. 3.1 graph (DOR + direction bits + order-preserving FS/LS).

    Attributes
    ----------
    added_turns:
        ``(k, 2)`` channel-id pairs of the CDG edges added by Theorem 2.
    ext_fs, ext_ls:
        the same turns as RG edges: bit ``D_k`` of ``ext_fs[u, l]`` lets
        ``FS_l(u)`` step to ``dirbit{D_k}``; bit ``D_k`` of ``ext_ls[u, i]``
        lets a dirbit vertex of u with last direction ``D_i`` step to ``LS_k``.
    """

    def __init__(self, net: Torus, *, extended: bool = True) -> None:
        self.net = net
        self.n = net.n
        self.extended = extended
        self.n3, self.states_per_node = state_counts(self.n)
        self.nxt, self.last, self.single = _dirbit_tables(self.n)
        added, used = _extend_cdg(net.neighbor, self.n, extended)
        self.added_turns: np.ndarray = added
        self.used_directions: np.ndarray = used
        N, nd = net.num_nodes, net.ndir
        self.ext_fs = np.zeros((N, self.n), dtype=np.uint8)
        self.ext_ls = np.zeros((N, nd), dtype=np.uint8)
        for c1, c2 in added.tolist():
            di = c1 % nd
            x, dk = divmod(c2, nd)
            if di < self.n:
                self.ext_fs[x, di] |= np.uint8(1 << dk)
            else:
                self.ext_ls[x, di] |= np.uint8(1 << dk)

    # ------------------------------------------------------------------ states

    @property
    def begin(self) -> int:
        return 0

    @property
    def end(self) -> int:
        return self.states_per_node - 1

    def fs_state(self, j: int) -> int:
        return 1 + j

    def dirbit_state(self, code: int) -> int:
        return self.n + code

    def ls_state(self, j: int) -> int:
        return self.n + self.n3 + j

    def state_class(self, s: int) -> str:
        """``"begin"``, ``"FS"``, ``"dirbit"``, ``"LS"`` or ``"end"``."""
        if s == 0:
            return "begin"
        if s <= self.n:
            return "FS"
        if s < self.n + self.n3:
            return "dirbit"
        if s < self.states_per_node - 1:
            return "LS"
        return "end"

    def state_name(self, s: int) -> str:
        n = self.n
        kind = self.state_class(s)
        if kind == "FS":
            return f"FS{direction_name(s - 1, n)}"
        if kind == "LS":
            return f"LS{direction_name(n + s - n - self.n3, n)}"
        if kind == "dirbit":
            code = s - n
            parts = [("+" if (code // 3 ** j) % 3 == 1 else "-") + "XYZK"[j]
                     for j in range(n) if (code // 3 ** j) % 3]
            return "dirbit{" + ",".join(parts) + "}"
        return kind

    # ------------------------------------------------------------------ kernels' arguments

    @property
    def tables(self) -> tuple:
        """The arguments the compiled automaton takes after ``x``: (n, n3, nxt, last, single, ext_fs, ext_ls)."""
        return (self.n, self.n3, self.nxt, self.last, self.single, self.ext_fs, self.ext_ls)

    @cached_property
    def csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(indptr, target, direction)`` of the RG without its end edges.

        Vertex id = ``node * states_per_node + state``; edge e steps along
        channel ``(vertex // states_per_node, direction[e])``.
        """
        return _build_csr(self.net.neighbor, self.n, self.n3, self.states_per_node, self.nxt, self.last,
                          self.single, self.ext_fs, self.ext_ls)

    @property
    def num_vertices(self) -> int:
        return self.net.num_nodes * self.states_per_node

    def explicit_edges(self) -> list[tuple[tuple[int, int], tuple[int, int], int]]:
        """Every RG edge as ``((u, state), (v, state'), direction)``, end edges with direction -1.

        For tests and inspection (Python loops; use on small tori).
        """
        indptr, tgt, edir = self.csr
        S = self.states_per_node
        out = []
        for v in range(self.num_vertices):
            x, s = divmod(v, S)
            for e in range(indptr[v], indptr[v + 1]):
                y, s2 = divmod(int(tgt[e]), S)
                out.append(((x, s), (y, s2), int(edir[e])))
            if s != self.end:
                out.append(((x, s), (x, self.end), -1))
        return out

    # ------------------------------------------------------------------ rule checking

    def check(self, srcs: np.ndarray, dsts: np.ndarray, offsets: np.ndarray, dirs: np.ndarray,
              *, rules: bool = True) -> tuple[int, int, int]:
        """First bad route of a batch (see :func:`_check_routes` for the codes)."""
        # dirs as given (int8 tables): an int64 copy of 8x8x8x8's 134 million steps is 1 GB
        dirs = np.asarray(dirs)
        if dirs.dtype != np.int8:
            dirs = dirs.astype(np.int64)
        r, t, code = _check_routes(np.asarray(srcs, np.int64), np.asarray(dsts, np.int64),
                                   np.asarray(offsets, np.int64), dirs,
                                   self.net.neighbor, *self.tables, rules)
        return int(r), int(t), int(code)

    def accepts(self, src: int, directions: list[int]) -> bool:
        """Whether some RG path from begin(src) spells ``directions`` (channels must exist)."""
        dirs = np.asarray(list(directions), dtype=np.int64)
        end = self.net.walk(src, dirs)[-1]
        if end < 0:
            return False
        _, _, code = self.check(np.array([src]), np.array([end]), np.array([0, len(dirs)]), dirs)
        return code == 0

    def rg_turns(self) -> np.ndarray:
        """All channel pairs ``(c1, c2)`` that consecutive steps of some RG path can use.

        Used by the tests to show that every RG dependency is a CDG edge.
        """
        indptr, tgt, edir = self.csr
        S, nd = self.states_per_node, self.net.ndir
        out = set()
        # the incoming channel of a non-begin vertex is fixed by its state; collect it per vertex
        for v in range(self.num_vertices):
            x, s = divmod(v, S)
            if s == 0 or s == self.end:
                continue
            kind = self.state_class(s)
            if kind == "FS":
                din = s - 1
            elif kind == "dirbit":
                din = int(self.last[s - self.n])
            else:
                continue  # LS only ends
            prev = int(self.net.neighbor[x, (din + self.n) % nd])
            if prev < 0:
                continue
            cin = prev * nd + din
            for e in range(indptr[v], indptr[v + 1]):
                out.add((cin, x * nd + int(edir[e])))
        return np.array(sorted(out), dtype=np.int64).reshape(-1, 2)


@lru_cache(maxsize=16)
def routing_graph(dims: tuple[int, ...], extended: bool = True) -> RoutingGraph:
    """The cached routing graph of a torus shape (shared by every problem on it)."""
    return RoutingGraph(make_torus(tuple(dims)), extended=extended)
