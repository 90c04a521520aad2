"""Routing for simulation: candidate tables that the cycle-level simulator and the bounds read.

Every routing (up*/down*, minimal adaptive with an up*/down* escape VC, dimension order with
dateline VCs, table-driven, minimal deterministic) compiles to one :class:`SimRouting`:

* switches ``0..n-1`` are the vertices of the network's :class:`~hopbench.harness.graphs.graph.Graph`;
  output port ``k`` of switch ``r`` (``0 <= k < deg(r)``) leads to ``graph.csr[1][graph.csr[0][r] + k]``
  (CSR order, neighbours sorted ascending); channel id of that port = ``graph.csr[0][r] + k``
  (so channel ids are ``0..2m-1``);
* a packet carries a small routing *state* ``s`` (``0 <= s < num_states``; e.g. the dateline
  class of a torus dimension, or the up*/down* phase); it starts in ``init_state`` at its source
  switch;
* at switch ``r != t`` (``t`` = the destination host's switch), the candidate outputs are
  ``cand_ptr[key] : cand_ptr[key + 1]`` with ``key = (r * n + t) * num_states + s``; candidate
  ``i`` is output port ``cand_port[i]`` on any VC in ``cand_vc_lo[i] ..= cand_vc_hi[i]``, and the
  packet's state becomes ``cand_state[i]`` when it takes it;
* ``cand_escape[i]`` marks an escape candidate: the router takes one only when no non-escape
  candidate can be granted a VC (Duato); a packet on an escape VC only ever gets escape candidates;
* ``cand_random[key]`` (optional, per key) says the candidates are alternatives of which the
  packet picks one uniformly at random when it is routed (1: BookSim's tie-breaks, e.g. the half-way
  direction of an even torus ring), rather than adaptively by free buffer space (0); 2 is a UGAL
  choice made once, when the packet is routed: the least (output queue x path length) of the
  candidates, whose path lengths ``cand_hops`` holds, minimal ones first;
* at ``r == t`` the packet is ejected; no table entry is read.

State encodings (``meta["states"]`` names them):

* ``updown``: 0 = up phase (may still go up), 1 = down phase (has gone down); all VCs;
* ``adaptive-updown``: 0 = adaptive (minimal next hops on VCs ``1..V-1``, plus the up*/down* next
  hops from a fresh start on escape VC 0), 1 = escape, up phase, 2 = escape, down phase (escape
  candidates only, VC 0); ``escape_vcs = (0,)``;
* ``dor`` on a mesh: one state 0; all VCs;
* ``adaptive-dor`` (Duato's protocol as Koibuchi et al. use it on meshes and hypercubes): 0 =
  adaptive (minimal next hops on VCs ``1..V-1``, plus the mesh's dimension-order next hop on escape
  VC 0), 1 = escape (the dimension-order next hop on VC 0 only); ``escape_vcs = (0,)``;
* ``dor`` on a torus: 0 = the next hop turns into a new dimension (or is the first), ``1 + p`` =
  continuing in the current dimension with dateline partition ``p`` (BookSim keeps the partition
  for the whole dimension); VCs ``0..V/2-1`` for partition 0, ``V/2..V-1`` for partition 1;
* ``minimal``: one state 0; all VCs;
* ``hop-vc`` (the Equality paper's ``amin``, Sect. 3.5.1 and 3.6.2): state ``s`` = hops taken so far;
  every minimal next hop, on VC ``s`` only (``num_vcs`` >= the diameter), so VCs only ever increase
  along a route and no dependency cycle can form;
* ``ugal`` (the Equality paper's ``ugal``, Sect. 3.4-3.5, 3.6.2): state ``s`` = hops taken so far, on VC
  ``s`` (clamped to ``V - 1``); at the source (state 0) the key lists the minimal next hops, then the
  *sub-shortest* first hops (neighbours off every shortest path whose distance to the destination is the
  least among them); ``cand_random[key] == 2`` marks such a key and ``cand_hops`` holds each candidate's
  path length, which the router weighs against the output queue (see :func:`ugal`);
* ``table`` (an Angara table, one route per source and destination): at switch r toward t, state
  0 is r's own route to t and states 1.. the other distinct remainders of routes passing r (with
  the dateline class they carry); one candidate per state; VCs ``0..ceil(V/2)-1`` for hops before a
  same-direction run crosses its ring's wrap-around link, the rest after (see
  :func:`from_routing_table`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

import hopbench.harness._threading  # noqa: F401  (OpenMP policy before numba loads)
from numba import njit, prange

from hopbench.harness import caps
from hopbench.harness.engine.distances import distance_matrix
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.traffic import deadlock


@dataclass(frozen=True)
class SimRouting:
    """A routing compiled to candidate tables (see the module docstring for the layout)."""

    name: str                    #: ``updown``, ``adaptive-updown``, ``dor``, ``table``, ``minimal``
    n: int                       #: switches
    num_vcs: int                 #: virtual channels per physical channel
    num_states: int              #: routing states a packet can be in
    init_state: int              #: a packet's state at injection
    cand_ptr: np.ndarray         #: int64, ``n * n * num_states + 1``
    cand_port: np.ndarray        #: int32, local output port index at the switch
    cand_vc_lo: np.ndarray       #: int32, first VC allowed (inclusive)
    cand_vc_hi: np.ndarray       #: int32, last VC allowed (inclusive)
    cand_state: np.ndarray       #: int32, state after taking the candidate
    cand_escape: np.ndarray      #: uint8, 1 = escape candidate (taken only when no other gets a VC)
    cand_random: np.ndarray      #: uint8 per key: 1 = pick one candidate at random, 0 = adaptive choice
    deadlock_free: bool          #: what the channel-dependency check found (see ``deadlock``)
    escape_vcs: tuple[int, ...] = ()   #: the VCs of the escape sub-network, for adaptive routings
    meta: dict = field(default_factory=dict)  #: e.g. the up*/down* root, the dimension order
    #: int32 per candidate: hops to the destination through it (``ugal`` only; None elsewhere)
    cand_hops: np.ndarray | None = None


ROUTINGS = ("updown", "adaptive-updown", "dor", "adaptive-dor", "hop-vc", "ugal", "bgal", "table", "minimal")
MAX_VCS = 64
_INF = 32767  # int16 "unreachable"


# --------------------------------------------------------------------------- checks


def check_connected(graph: Graph) -> None:
    """A :class:`HopbenchError` when some switch cannot reach another."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    if graph.n <= 1:
        return
    indptr, indices = graph.csr
    a = csr_matrix((np.ones(len(indices), dtype=np.int8), indices, indptr), shape=(graph.n, graph.n))
    k, labels = connected_components(a, directed=False)
    if k > 1:
        far = int(np.argmax(labels != labels[0]))
        raise HopbenchError(f"network is disconnected: {k} components (switch {far} cannot reach switch 0); "
                            f"every switch must reach every other, so connect it or remove the isolated part")


def _check_vcs(num_vcs: Any, name: str) -> int:
    try:
        v = int(num_vcs)
    except (TypeError, ValueError, OverflowError):
        v = -1
    if isinstance(num_vcs, bool) or v != num_vcs or not 1 <= v <= MAX_VCS:
        raise HopbenchError(f"routing {name}: num_vcs must be 1..{MAX_VCS}, got {num_vcs}")
    return v


def _check_size(n: int, states: int, name: str) -> None:
    """Tables hold n*n*states keys: refuse a larger table before allocating (``caps.SIM_ROUTING_KEYS``)."""
    caps.SIM_ROUTING_KEYS.check(n * n * states, f"the table-key count of routing {name} ({n:,} switches^2 x {states} states)")


# --------------------------------------------------------------------------- kernels


@njit(cache=True)
def _updown_distances(indptr, indices, n, rank, order):
    """Shortest legal up*/down* lengths to every t: ``D0[t, r]`` from r in the up phase, ``D1[t, r]``
    down links only.  Up = toward lower rank; rank orders (BFS level, id)."""
    D0 = np.full((n, n), _INF, dtype=np.int16)
    D1 = np.full((n, n), _INF, dtype=np.int16)
    for t in range(n):
        d0 = D0[t]
        d1 = D1[t]
        d1[t] = 0
        # down paths climb in rank, so from r they reach t only when rank[r] < rank[t]
        for i in range(rank[t] - 1, -1, -1):
            r = order[i]
            best = _INF
            for e in range(indptr[r], indptr[r + 1]):
                w = indices[e]
                if rank[w] > rank[r] and d1[w] < _INF and d1[w] + 1 < best:
                    best = d1[w] + 1
            d1[r] = best
        d0[t] = 0
        for i in range(n):  # up neighbours come first in rank order
            r = order[i]
            if r == t:
                continue
            best = _INF
            for e in range(indptr[r], indptr[r + 1]):
                w = indices[e]
                x = d0[w] if rank[w] < rank[r] else d1[w]
                if x < _INF and x + 1 < best:
                    best = x + 1
            d0[r] = best
    return D0, D1


@njit(cache=True, parallel=True)
def _graph_tables(mode, fill, indptr, indices, n, S, V, DT, D0, D1, rank, ptr, port, vlo, vhi, st, esc):
    """Candidates of ``minimal`` (mode 2), ``updown`` (0) and ``adaptive-updown`` (1).

    With ``fill`` False, ``ptr[key + 1]`` receives each key's candidate count; with ``fill`` True,
    ``ptr`` holds the offsets and the candidate arrays are written.  Distances are indexed
    ``[switch, destination]``, so the inner loop over destinations reads rows in order.
    """
    for r in prange(n):
        a = indptr[r]
        deg = indptr[r + 1] - a
        for t in range(n):
            if t == r:
                continue
            for s in range(S):
                key = (r * n + t) * S + s
                pos = ptr[key] if fill else 0
                cnt = 0
                if mode == 2 or (mode == 1 and s == 0):
                    lo = 0 if mode == 2 else 1
                    for k in range(deg):
                        w = indices[a + k]
                        if DT[w, t] + 1 == DT[r, t]:
                            if fill:
                                port[pos + cnt] = k
                                vlo[pos + cnt] = lo
                                vhi[pos + cnt] = V - 1
                                st[pos + cnt] = 0
                                esc[pos + cnt] = 0
                            cnt += 1
                            if mode == 2:
                                break  # minimal: the lowest-id neighbour on a shortest path
                if mode != 2:
                    phase = s if mode == 0 else (0 if s <= 1 else 1)
                    shift = 0 if mode == 0 else 1
                    lo = 0
                    hi = V - 1 if mode == 0 else 0
                    e = 0 if mode == 0 else 1
                    target = D0[r, t] if phase == 0 else D1[r, t]
                    if target < _INF:
                        for k in range(deg):
                            w = indices[a + k]
                            up = rank[w] < rank[r]
                            if up and phase == 1:
                                continue
                            x = D0[w, t] if up else D1[w, t]
                            if x < _INF and x + 1 == target:
                                if fill:
                                    port[pos + cnt] = k
                                    vlo[pos + cnt] = lo
                                    vhi[pos + cnt] = hi
                                    st[pos + cnt] = (0 if up else 1) + shift
                                    esc[pos + cnt] = e
                                cnt += 1
                if not fill:
                    ptr[key + 1] = cnt


@njit(cache=True)
def _port_of(indptr, indices, r, w):
    lo = indptr[r]
    hi = indptr[r + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if indices[mid] < w:
            lo = mid + 1
        else:
            hi = mid
    return lo - indptr[r]


@njit(cache=True, parallel=True)
def _dor_tables(fill, indptr, indices, n, S, V, torus, kb, sb, ptr, port, vlo, vhi, st, rnd):
    """BookSim's ``dim_order_mesh`` / ``dim_order_torus`` (``dor_next_mesh``, ``dor_next_torus``).

    ``kb[d]``, ``sb[d]``: radix and id stride of BookSim dimension d (dimension 0 fastest).
    """
    N = kb.size
    avail = V // 2
    for r in prange(n):
        for t in range(n):
            if t == r:
                continue
            d = 0  # the lowest dimension where the coordinates differ
            while (r // sb[d]) % kb[d] == (t // sb[d]) % kb[d]:
                d += 1
            k = kb[d]
            cur = (r // sb[d]) % k
            dst = (t // sb[d]) % k
            for s in range(S):
                key = (r * n + t) * S + s
                pos = ptr[key] if fill else 0
                cnt = 0
                if not torus:
                    w = r + (sb[d] if cur < dst else -sb[d])  # Right (+) when cur < dest, else Left
                    if fill:
                        port[pos] = _port_of(indptr, indices, r, w)
                        vlo[pos] = 0
                        vhi[pos] = V - 1
                        st[pos] = 0
                    cnt = 1
                else:
                    dist2 = k - 2 * ((dst - cur + k) % k)
                    last = -1
                    for direction in range(2):  # 0 = Right (+1), 1 = Left (-1)
                        if (dist2 > 0 and direction == 1) or (dist2 < 0 and direction == 0):
                            continue  # dist2 == 0: the half-way tie, both (BookSim flips a coin)
                        if s == 0:
                            # turning into this dimension: BookSim's fixed dateline between k-1 and 0
                            if direction == 0:
                                p = 1 if cur > dst else 0
                            else:
                                p = 1 if dst < cur else 0
                        else:
                            p = s - 1  # partition kept for the whole dimension
                        nxt = (cur + 1) % k if direction == 0 else (cur - 1 + k) % k
                        w = r + (nxt - cur) * sb[d]
                        pt = _port_of(indptr, indices, r, w)
                        if pt == last:
                            continue  # a size-2 ring is one link: both directions are the same port
                        last = pt
                        if fill:
                            port[pos + cnt] = pt
                            vlo[pos + cnt] = 0 if p == 0 else avail
                            vhi[pos + cnt] = V - 1 - avail if p == 0 else V - 1
                            st[pos + cnt] = 0 if nxt == dst else 1 + p
                        cnt += 1
                if fill:
                    rnd[key] = 1 if cnt > 1 else 0
                else:
                    ptr[key + 1] = cnt


@njit(cache=True, parallel=True)
def _adaptive_dor_tables(fill, indptr, indices, n, V, DT, kb, sb, ptr, port, vlo, vhi, st, esc):
    """``adaptive-dor``: every minimal next hop on VCs 1..V-1 (state 0), and the escape: the
    dimension-order next hop of the mesh whose digits ``kb``/``sb`` number the switches (BookSim's
    ``dor_next_mesh``: the lowest differing digit, toward the destination), on VC 0 (state 1).  The
    mesh is a subgraph of the network (a folded hypercube's hypercube), so its hops are minimal
    there but need not be minimal in the network; the deadlock check covers that."""
    for r in prange(n):
        a = indptr[r]
        deg = indptr[r + 1] - a
        for t in range(n):
            if t == r:
                continue
            d = 0
            while (r // sb[d]) % kb[d] == (t // sb[d]) % kb[d]:
                d += 1
            w_esc = r + (sb[d] if (r // sb[d]) % kb[d] < (t // sb[d]) % kb[d] else -sb[d])
            p_esc = _port_of(indptr, indices, r, w_esc)
            for s in range(2):
                key = (r * n + t) * 2 + s
                pos = ptr[key] if fill else 0
                cnt = 0
                if s == 0:
                    for k in range(deg):
                        w = indices[a + k]
                        if DT[w, t] + 1 == DT[r, t]:
                            if fill:
                                port[pos + cnt] = k
                                vlo[pos + cnt] = 1
                                vhi[pos + cnt] = V - 1
                                st[pos + cnt] = 0
                                esc[pos + cnt] = 0
                            cnt += 1
                if fill:
                    port[pos + cnt] = p_esc
                    vlo[pos + cnt] = 0
                    vhi[pos + cnt] = 0
                    st[pos + cnt] = 1
                    esc[pos + cnt] = 1
                cnt += 1
                if not fill:
                    ptr[key + 1] = cnt


@njit(cache=True, parallel=True)
def _hop_vc_tables(fill, indptr, indices, n, S, DT, ptr, port, vlo, vhi, st, esc):
    """``hop-vc``: at hop s (state s), every minimal next hop on VC s, then state s + 1."""
    for r in prange(n):
        a = indptr[r]
        deg = indptr[r + 1] - a
        for t in range(n):
            if t == r:
                continue
            for s in range(S):
                key = (r * n + t) * S + s
                pos = ptr[key] if fill else 0
                cnt = 0
                if s + DT[r, t] <= S:  # a packet on a minimal route has hops left for its VCs
                    for k in range(deg):
                        w = indices[a + k]
                        if DT[w, t] + 1 == DT[r, t]:
                            if fill:
                                port[pos + cnt] = k
                                vlo[pos + cnt] = s
                                vhi[pos + cnt] = s
                                st[pos + cnt] = min(s + 1, S - 1)
                                esc[pos + cnt] = 0
                            cnt += 1
                if not fill:
                    ptr[key + 1] = cnt


@njit(cache=True, parallel=True)
def _sub_shortest(indptr, indices, n, DT, M):
    """``M[r, t]``: the least distance to ``t`` among the neighbours of ``r`` that are on no shortest
    path from ``r`` (distance to ``t`` >= ``r``'s own), -1 when every neighbour is on one.  These
    neighbours start the Equality paper's sub-shortest paths (its list L_0j, Sect. 3.4)."""
    for r in prange(n):
        a = indptr[r]
        b = indptr[r + 1]
        for t in range(n):
            best = -1
            if t != r:
                for e in range(a, b):
                    x = DT[indices[e], t]
                    if x >= DT[r, t] and (best < 0 or x < best):
                        best = x
            M[r, t] = best


@njit(cache=True)
def _shortest_path_counts(indptr, indices, n, DT, cap, P):
    """``P[r, t]``: the number of shortest paths from ``r`` to ``t``, saturating at ``cap`` (each is the sum of
    its minimal next hops' counts, filled in order of distance to ``t``).  Serial: O(n m) is milliseconds at
    the sizes a simulation takes, and a parallel kernel compiles several times slower."""
    for t in range(n):
        order = np.argsort(DT[t])  # undirected: DT[t, r] == DT[r, t]
        for i in range(n):
            r = order[i]
            if r == t:
                P[r, t] = 1
                continue
            c = 0
            for e in range(indptr[r], indptr[r + 1]):
                w = indices[e]
                if DT[w, t] + 1 == DT[r, t]:
                    c += P[w, t]
                    if c >= cap:
                        c = cap
                        break
            P[r, t] = c


@njit(cache=True, parallel=True)
def _ugal_tables(fill, indptr, indices, n, S, V, DT, M, P, limit, ptr, port, vlo, vhi, st, esc, hops, rnd):
    """``ugal``: at hop s (state s) every minimal next hop on VC min(s, V-1), then state s + 1; at the
    source (state 0) also the sub-shortest first hops (neighbours w with ``DT[w, t] == M[r, t]``),
    after the minimal ones, with their path lengths in ``hops`` and the key marked 2 in ``rnd``.
    ``bgal`` (``limit`` >= 0): the sub-shortest hops only where ``P[r, t]``, the pair's count of shortest
    paths, is at most ``limit``."""
    for r in prange(n):
        a = indptr[r]
        deg = indptr[r + 1] - a
        for t in range(n):
            if t == r:
                continue
            for s in range(S):
                key = (r * n + t) * S + s
                pos = ptr[key] if fill else 0
                cnt = 0
                q = min(s, V - 1)
                nxt = min(s + 1, S - 1)
                if s + DT[r, t] <= S:  # reachable: a route so far plus what is left fits its states
                    for k in range(deg):
                        w = indices[a + k]
                        if DT[w, t] + 1 == DT[r, t]:
                            if fill:
                                port[pos + cnt] = k
                                vlo[pos + cnt] = q
                                vhi[pos + cnt] = q
                                st[pos + cnt] = nxt
                                esc[pos + cnt] = 0
                                hops[pos + cnt] = DT[r, t]
                            cnt += 1
                    if s == 0 and M[r, t] >= 0 and (limit < 0 or P[r, t] <= limit):
                        for k in range(deg):
                            w = indices[a + k]
                            if DT[w, t] == M[r, t]:
                                if fill:
                                    port[pos + cnt] = k
                                    vlo[pos + cnt] = q
                                    vhi[pos + cnt] = q
                                    st[pos + cnt] = nxt
                                    esc[pos + cnt] = 0
                                    hops[pos + cnt] = M[r, t] + 1
                                    rnd[key] = 2
                                cnt += 1
                if not fill:
                    ptr[key + 1] = cnt


def _alloc(counts: np.ndarray, name: str) -> tuple[np.ndarray, ...]:
    """The candidate arrays for the per-key ``counts`` of a counting pass (refused above
    ``caps.SIM_ROUTING_CANDIDATES`` before they are allocated); ``counts`` becomes the key pointers."""
    np.cumsum(counts, out=counts)
    total = int(counts[-1])
    caps.SIM_ROUTING_CANDIDATES.check(total, f"the candidate next-hop count of routing {name}'s table")
    return (counts, np.empty(total, np.int32), np.empty(total, np.int32), np.empty(total, np.int32),
            np.empty(total, np.int32), np.zeros(total, np.uint8))


def _finish(name: str, graph: Graph, V: int, S: int, init: int, tables: tuple[np.ndarray, ...],
            rnd: np.ndarray, escape_vcs: tuple[int, ...], meta: dict, hops: np.ndarray | None = None) -> SimRouting:
    ptr, port, vlo, vhi, st, esc = tables
    report = deadlock.check_tables(graph, name=name, num_vcs=V, num_states=S, init_state=init, cand_ptr=ptr,
                                   cand_port=port, cand_vc_lo=vlo, cand_vc_hi=vhi, cand_state=st,
                                   cand_escape=esc, escape_vcs=escape_vcs)
    for a in (*tables, rnd, *(() if hops is None else (hops,))):
        a.setflags(write=False)
    meta = dict(meta, deadlock_check=report.reason)
    return SimRouting(name=name, n=graph.n, num_vcs=V, num_states=S, init_state=init, cand_ptr=ptr,
                      cand_port=port, cand_vc_lo=vlo, cand_vc_hi=vhi, cand_state=st, cand_escape=esc,
                      cand_random=rnd, deadlock_free=report.deadlock_free, escape_vcs=escape_vcs, meta=meta,
                      cand_hops=hops)


def _csr(graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    indptr, indices = graph.csr
    return np.ascontiguousarray(indptr, np.int64), np.ascontiguousarray(indices, np.int64)


# --------------------------------------------------------------------------- graph routings


def _updown_order(graph: Graph, DT: np.ndarray, root: int | None) -> tuple[int, np.ndarray, np.ndarray, str]:
    n = graph.n
    if root is None:
        ecc = DT.max(axis=0)
        root = int(np.argmin(ecc))  # argmin: the lowest id among equal eccentricities
        rule = "minimum eccentricity, lowest id on ties"
    else:
        try:
            r = int(root)
        except (TypeError, ValueError, OverflowError):
            r = -1
        if isinstance(root, bool) or r != root or not 0 <= r < n:
            raise HopbenchError(f"the up*/down* root must be a switch 0..{n - 1}, got {root!r}")
        root = r
        rule = "given"
    level = DT[root].astype(np.int64)
    order = np.lexsort((np.arange(n), level)).astype(np.int64)  # (BFS level, id)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return root, rank, order, rule


def _graph_routing(mode: int, name: str, graph: Graph, V: int, root: int | None) -> SimRouting:
    S = {0: 2, 1: 3, 2: 1}[mode]
    n = graph.n
    _check_size(n, S, name)
    check_connected(graph)
    indptr, indices = _csr(graph)
    # all-pairs hop distances from the distance engine (connected, so no pair is unreachable)
    DT = distance_matrix(graph, dtype=np.int16)
    meta: dict = {}
    if mode == 2:
        D0 = D1 = np.zeros((1, 1), dtype=np.int16)
        rank = np.zeros(1, dtype=np.int64)
        meta["states"] = ["route"]
        meta["choice"] = "lowest-id neighbour on a shortest path"
    else:
        root, rank, order, rule = _updown_order(graph, DT, root)
        D0, D1 = _updown_distances(indptr, indices, n, rank, order)
        D0, D1 = np.ascontiguousarray(D0.T), np.ascontiguousarray(D1.T)  # [switch, destination]
        meta.update(root=root, root_rule=rule, up="toward the lower (BFS level, id)",
                    choice="every shortest legal next hop, adaptively")
        meta["states"] = ["up", "down"] if mode == 0 else ["adaptive", "escape-up", "escape-down"]
    counts = np.zeros(n * n * S + 1, dtype=np.int64)
    dummy = np.empty(0, np.int32)
    _graph_tables(mode, False, indptr, indices, n, S, V, DT, D0, D1, rank, counts, dummy, dummy, dummy, dummy,
                  np.empty(0, np.uint8))
    tables = _alloc(counts, name)
    _graph_tables(mode, True, indptr, indices, n, S, V, DT, D0, D1, rank, *tables)
    rnd = np.zeros(n * n * S, dtype=np.uint8)
    return _finish(name, graph, V, S, 0, tables, rnd, (0,) if mode == 1 else (), meta)


def updown(graph: Graph, *, num_vcs: int, root: int | None = None) -> SimRouting:
    """Up*/down* (Schroeder et al., Autonet) on shortest legal paths, every such next hop a candidate.

    Links point up toward the endpoint of lower (BFS level from ``root``, id); a legal route is up
    links then down links.  Default root: the switch of minimum eccentricity, lowest id on ties.
    """
    return _graph_routing(0, "updown", graph, _check_vcs(num_vcs, "updown"), root)


def adaptive_updown(graph: Graph, *, num_vcs: int, root: int | None = None) -> SimRouting:
    """Koibuchi et al.'s Duato-style routing: minimal adaptive on VCs 1.., up*/down* escape on VC 0."""
    V = _check_vcs(num_vcs, "adaptive-updown")
    if V < 2:
        raise HopbenchError("routing adaptive-updown needs num_vcs >= 2 (VC 0 is the escape VC); "
                            "raise num_vcs or use updown")
    return _graph_routing(1, "adaptive-updown", graph, V, root)


def minimal(graph: Graph, *, num_vcs: int) -> SimRouting:
    """Minimal deterministic routing (lowest-id neighbour on a shortest path), all VCs; it can deadlock
    on a network with cycles, which ``deadlock_free`` reports."""
    return _graph_routing(2, "minimal", graph, _check_vcs(num_vcs, "minimal"), None)


# --------------------------------------------------------------------------- dimension order


def _grid_dims(dims: Any) -> tuple[int, ...]:
    try:
        out = tuple(int(k) for k in dims)
    except (TypeError, ValueError):
        raise HopbenchError(f"dor needs the grid's dims as a list of sizes, e.g. (8, 8); got {dims!r}") from None
    if not out or min(out) < 1:
        raise HopbenchError(f"dor: every dimension must be >= 1, got {dims!r}")
    return out


def dimension_order(dims: Any, *, torus: bool, num_vcs: int, graph: Graph | None = None) -> SimRouting:
    """BookSim2's dimension-order routing on the mesh or torus of ``dims`` (our axis order).

    BookSim's dimension 0 (its fastest id digit) is our LAST axis, so switch ids coincide and the
    last axis is routed first.  On a torus, packets turning into a dimension take the shorter way
    (the half-way tie of an even ring at random, ``cand_random``) and get dateline partition 1 when
    they will cross the link between k-1 and 0 going up (or are going down without wrapping), else 0
    -- BookSim's two conditions, which both come to "coordinate > destination's"; the partition
    holds for the whole dimension and selects the lower or upper half of the VCs.  At the
    destination the packet is ejected (no table entry, so no split there, as in BookSim).  A size-2
    ring is one link: both directions are the same port, one candidate.
    """
    from hopbench.harness.graphs.topologies import mesh as make_mesh, torus as make_torus

    dims = _grid_dims(dims)
    V = _check_vcs(num_vcs, "dor")
    if torus and (V < 2 or V % 2):
        raise HopbenchError(f"dor on a torus needs an even num_vcs >= 2 (two dateline partitions), got {V}")
    expected = make_torus(list(dims)) if torus else make_mesh(list(dims))
    if graph is None:
        graph = expected
    elif graph != expected:
        shape = f"{'torus' if torus else 'mesh'}:{'x'.join(map(str, dims))}"
        raise HopbenchError(f"dor needs the grid it routes: this network ({graph.n} switches, {graph.m} links) is "
                            f"not {shape}; use updown or adaptive-updown on other networks")
    n = graph.n
    S = 3 if torus else 1
    _check_size(n, S, "dor")
    kb = np.asarray(dims[::-1], dtype=np.int64)
    sb = np.ones(len(dims), dtype=np.int64)
    sb[1:] = np.cumprod(kb[:-1])
    indptr, indices = _csr(graph)
    counts = np.zeros(n * n * S + 1, dtype=np.int64)
    dummy = np.empty(0, np.int32)
    rnd = np.zeros(n * n * S, dtype=np.uint8)
    _dor_tables(False, indptr, indices, n, S, V, bool(torus), kb, sb, counts, dummy, dummy, dummy, dummy, rnd)
    tables = _alloc(counts, "dor")
    _dor_tables(True, indptr, indices, n, S, V, bool(torus), kb, sb, *tables[:5], rnd)
    meta = {"dims": list(dims), "torus": bool(torus),
            "order": "last axis first (BookSim dimension 0)",
            "states": ["turn"] if not torus else ["turn", "partition-0", "partition-1"]}
    return _finish("dor", graph, V, S, 0, tables, rnd, (), meta)


def adaptive_dimension_order(graph: Graph, dims: Any, *, num_vcs: int) -> SimRouting:
    """Duato's protocol with a dimension-order escape, as Koibuchi et al. route meshes, hypercubes and
    folded hypercubes (Sect. IV-A): minimal adaptive on VCs 1..V-1, and on VC 0 the dimension-order
    route of the mesh ``dims`` (a hypercube is the mesh 2x2x...x2; a folded hypercube's escape uses
    its hypercube links only).  A packet that takes the escape VC stays on it.  The mesh of ``dims``
    must be a subgraph of ``graph`` with the same switch ids."""
    from hopbench.harness.graphs.topologies import mesh as make_mesh

    dims = _grid_dims(dims)
    V = _check_vcs(num_vcs, "adaptive-dor")
    if V < 2:
        raise HopbenchError("routing adaptive-dor needs num_vcs >= 2 (VC 0 is the escape VC); raise num_vcs "
                            "or use dor")
    grid = make_mesh(list(dims))
    n = graph.n
    if grid.n != n or not {tuple(e) for e in grid.edges.tolist()} <= {tuple(e) for e in graph.edges.tolist()}:
        raise HopbenchError(f"adaptive-dor escapes along the mesh {'x'.join(map(str, dims))}, which is not a "
                            f"subgraph of this network ({n} switches); use adaptive-updown")
    _check_size(n, 2, "adaptive-dor")
    check_connected(graph)
    indptr, indices = _csr(graph)
    DT = distance_matrix(graph, dtype=np.int16)
    kb = np.asarray(dims[::-1], dtype=np.int64)
    sb = np.ones(len(dims), dtype=np.int64)
    sb[1:] = np.cumprod(kb[:-1])
    counts = np.zeros(n * n * 2 + 1, dtype=np.int64)
    dummy = np.empty(0, np.int32)
    _adaptive_dor_tables(False, indptr, indices, n, V, DT, kb, sb, counts, dummy, dummy, dummy, dummy,
                         np.empty(0, np.uint8))
    tables = _alloc(counts, "adaptive-dor")
    _adaptive_dor_tables(True, indptr, indices, n, V, DT, kb, sb, *tables)
    rnd = np.zeros(n * n * 2, dtype=np.uint8)
    meta = {"dims": list(dims), "escape": "dimension order on the mesh, last axis first",
            "states": ["adaptive", "escape"], "choice": "every minimal next hop, adaptively"}
    return _finish("adaptive-dor", graph, V, 2, 0, tables, rnd, (0,), meta)


def hop_vc(graph: Graph, *, num_vcs: int) -> SimRouting:
    """Minimal adaptive routing with one VC per hop (the Equality paper's ``amin``): a packet's k-th hop
    uses VC k, so it needs ``num_vcs`` >= the network's diameter; every minimal next hop is a
    candidate, chosen adaptively."""
    V = _check_vcs(num_vcs, "hop-vc")
    _check_size(graph.n, 1, "hop-vc")  # before the n x n distances; the state count follows from them
    check_connected(graph)
    DT = distance_matrix(graph, dtype=np.int16)
    diameter = int(DT.max()) if graph.n > 1 else 1
    if V < diameter:
        raise HopbenchError(f"routing hop-vc uses one VC per hop: this network's diameter is {diameter}, so it needs "
                            f"num_vcs >= {diameter}, got {V}")
    S = max(1, diameter)
    n = graph.n
    _check_size(n, S, "hop-vc")
    indptr, indices = _csr(graph)
    counts = np.zeros(n * n * S + 1, dtype=np.int64)
    dummy = np.empty(0, np.int32)
    _hop_vc_tables(False, indptr, indices, n, S, DT, counts, dummy, dummy, dummy, dummy, np.empty(0, np.uint8))
    tables = _alloc(counts, "hop-vc")
    _hop_vc_tables(True, indptr, indices, n, S, DT, *tables)
    rnd = np.zeros(n * n * S, dtype=np.uint8)
    meta = {"states": [f"hop {k}" for k in range(S)], "choice": "every minimal next hop, adaptively",
            "vcs": "VC k on hop k"}
    return _finish("hop-vc", graph, V, S, 0, tables, rnd, (), meta)


def ugal(graph: Graph, *, num_vcs: int) -> SimRouting:
    """UGAL as the Equality paper describes it (Liang et al. 2022, Sect. 3.4, 3.5.2, 3.6.2).

    At the source switch a packet may take a minimal next hop or a *sub-shortest* one: a neighbour
    on no shortest path whose distance to the destination is the least among such neighbours (the
    paper's list L_0j), then minimal hops from there -- one misroute at most.  The router weighs every
    candidate path by (flits queued on its output port, all VCs) x (its length in hops) when the
    packet is routed, and takes the sub-shortest hop only when its weight is strictly below the best
    minimal one's (BookSim's UGAL keeps minimal routing on a tie); otherwise the minimal next hops stay
    adaptive, as ``hop-vc``.  Deadlock freedom as the paper's Sect. 3.6.2: the k-th hop uses VC k, so
    VCs only increase along a route; that needs ``num_vcs`` >= the longest route (``meta["longest"]``,
    at most the diameter + 2).  With fewer VCs the last VC is shared by the later hops and the
    channel-dependency check decides (it finds a cycle on most networks: the routing is then refused).
    """
    return _ugal_family("ugal", graph, num_vcs=num_vcs, limit=-1)


#: the Equality paper's bgal threshold (Sect. 3.5.3: "fixed in this work" at 2)
BGAL_SHORTEST_PATHS = 2


def bgal(graph: Graph, *, num_vcs: int) -> SimRouting:
    """Bottleneck-UGAL (the Equality paper's ``bgal``, Sect. 3.5.3): ``ugal``, but a pair may take a
    sub-shortest first hop only when it has at most :data:`BGAL_SHORTEST_PATHS` shortest paths (its
    bottleneck pairs); the others route minimally, as ``hop-vc``."""
    return _ugal_family("bgal", graph, num_vcs=num_vcs, limit=BGAL_SHORTEST_PATHS)


def _ugal_family(name: str, graph: Graph, *, num_vcs: int, limit: int) -> SimRouting:
    V = _check_vcs(num_vcs, name)
    check_connected(graph)
    n = graph.n
    _check_size(n, 1, name)  # the n x n matrices below come before the state count is known
    DT = distance_matrix(graph, dtype=np.int16)
    indptr, indices = _csr(graph)
    M = np.empty((n, n), dtype=np.int16)
    _sub_shortest(indptr, indices, n, DT, M)
    P = np.zeros((n, n) if limit >= 0 else (1, 1), dtype=np.int32)  # ugal never reads the counts
    if limit >= 0:
        _shortest_path_counts(indptr, indices, n, DT, np.int32(limit + 1), P)
    diameter = int(DT.max()) if n > 1 else 0
    # the longest route the tables can give (bgal's may be shorter than ugal's: fewer pairs misroute)
    longest = max(diameter, _longest_misroute(M, P, limit), 1)
    S = longest
    _check_size(n, S, name)
    counts = np.zeros(n * n * S + 1, dtype=np.int64)
    dummy = np.empty(0, np.int32)
    _ugal_tables(False, indptr, indices, n, S, V, DT, M, P, limit, counts, dummy, dummy, dummy, dummy,
                 np.empty(0, np.uint8), dummy, np.empty(0, np.uint8))
    tables = _alloc(counts, name)
    hops = np.empty(len(tables[1]), np.int32)
    rnd = np.zeros(n * n * S, dtype=np.uint8)
    _ugal_tables(True, indptr, indices, n, S, V, DT, M, P, limit, *tables, hops, rnd)
    which = "" if limit < 0 else f" (the sub-shortest ones only for pairs with at most {limit} shortest paths)"
    meta = {"states": [f"hop {k}" for k in range(S)], "longest": longest, "diameter": diameter,
            "choice": "at the source: the least (queued flits on the output port x path hops) of the minimal "
                      f"and sub-shortest first hops{which}, minimal on ties; then every minimal next hop, adaptively",
            "vcs": f"VC k on hop k (needs num_vcs >= {longest})" if V >= longest else
                   f"VC min(k, {V - 1}) on hop k: fewer than the {longest} VCs of VC k on hop k"}
    return _finish(name, graph, V, S, 0, tables, rnd, (), meta, hops)


def _longest_misroute(M: np.ndarray, P: np.ndarray, limit: int) -> int:
    """The longest sub-shortest route (its first hop + the rest) the tables hold, 0 when none."""
    allowed = M >= 0
    if limit >= 0:
        allowed &= P <= limit
    return int(M[allowed].max()) + 1 if allowed.any() else 0


# --------------------------------------------------------------------------- entry point


def build_routing(name: str, graph: Graph, *, num_vcs: int, dims: Any = None, torus: bool | None = None,
                  root: int | None = None, table: Any = None) -> SimRouting:
    """The named routing compiled for ``graph`` (``updown``, ``adaptive-updown``, ``dor``, ``table``,
    ``minimal``); ``dims``/``torus`` for ``dor``, ``root`` for the up*/down* ones, ``table`` (a
    :class:`~hopbench.harness.problems.routing.table.RoutingTable`) for ``table``."""
    if name not in ROUTINGS:
        raise HopbenchError(f"unknown routing {name!r}; choose one of {', '.join(ROUTINGS)}")
    _check_vcs(num_vcs, name)
    if name == "updown":
        return updown(graph, num_vcs=num_vcs, root=root)
    if name == "adaptive-updown":
        return adaptive_updown(graph, num_vcs=num_vcs, root=root)
    if name == "minimal":
        return minimal(graph, num_vcs=num_vcs)
    if name == "hop-vc":
        return hop_vc(graph, num_vcs=num_vcs)
    if name == "ugal":
        return ugal(graph, num_vcs=num_vcs)
    if name == "bgal":
        return bgal(graph, num_vcs=num_vcs)
    if name == "adaptive-dor":
        if dims is None:
            raise HopbenchError("routing adaptive-dor needs a mesh, hypercube or folded hypercube spec (its "
                                "escape is dimension order); use adaptive-updown on other networks")
        return adaptive_dimension_order(graph, dims, num_vcs=num_vcs)
    if name == "dor":
        if dims is None:
            raise HopbenchError("routing dor needs the grid's dims (e.g. dims=(8, 8) for torus:8x8); use updown "
                                "or adaptive-updown on networks that are not a mesh or torus")
        if torus is None:  # whichever grid the network is; a grid of sizes <= 2 is both, and a mesh needs no split
            from hopbench.harness.graphs.topologies import mesh as make_mesh

            torus = graph != make_mesh(list(_grid_dims(dims)))
        return dimension_order(dims, torus=bool(torus), num_vcs=num_vcs, graph=graph)
    if table is None:
        raise HopbenchError("routing table needs a routing table written by 'hopbench route'")
    return from_routing_table(table, graph, num_vcs=num_vcs)


# --------------------------------------------------------------------------- Angara tables


def _table_graph(net: Any) -> Graph:
    """The torus of a routing table with the table's node ids (X fastest), as its documents load it."""
    nb = net.neighbor
    u = np.repeat(np.arange(net.num_nodes, dtype=np.int64), nb.shape[1])
    v = nb.ravel()
    keep = v >= 0
    return Graph(net.num_nodes, np.stack([u[keep], v[keep]], axis=1))


@njit(cache=True)
def _table_states(src, dst, offsets, dirs, by_dst, dst_ptr, nb, dims, strides, nd, n, indptr, indices, status):
    """Walk every route, then per destination build the trie of route remainders (a remainder is a
    trie node: its first hop, the class carried into it and the remainder after it) and number the
    remainders of each switch, its own route first.

    Returns one row per remainder: switch, destination, local state, port, hop class, next local
    state.  ``status`` gets (pair, 1) for a step on a missing channel, (pair, 2) for a route that
    ends elsewhere.  ``by_dst[dst_ptr[t]:dst_ptr[t+1]]`` are the routes to t.
    """
    P = src.size
    total = offsets[P]
    node_at = np.empty(total, dtype=np.int64)
    carry = np.empty(total, dtype=np.int64)  # class carried into the hop by its same-direction run
    hop_cls = np.empty(total, dtype=np.int64)
    e0 = np.empty(0, dtype=np.int64)
    for p in range(P):
        u = src[p]
        prev_dir = -1
        prev_cls = 0
        for i in range(offsets[p], offsets[p + 1]):
            d = dirs[i]
            v = nb[u, d] if 0 <= d < 2 * nd else -1
            if v < 0:
                status[0] = p
                status[1] = 1
                return e0, e0, e0, e0, e0, e0
            j = d % nd
            c = (u // strides[j]) % dims[j]
            wrap = dims[j] >= 3 and ((d < nd and c == dims[j] - 1) or (d >= nd and c == 0))
            carried = prev_cls if d == prev_dir else 0
            node_at[i] = u
            carry[i] = carried
            hop_cls[i] = 1 if (carried == 1 or wrap) else 0
            prev_dir = d
            prev_cls = hop_cls[i]
            u = v
        if u != dst[p]:
            status[0] = p
            status[1] = 2
            return e0, e0, e0, e0, e0, e0
    W = 4 * nd  # trie branches: direction x carried class
    most = 1
    for t in range(n):
        steps = 0
        for q in range(dst_ptr[t], dst_ptr[t + 1]):
            p = by_dst[q]
            steps += offsets[p + 1] - offsets[p]
        most = max(most, steps + 1)
    child = np.full((most, W), -1, dtype=np.int64)
    x_u = np.empty(most, dtype=np.int64)
    x_port = np.empty(most, dtype=np.int64)
    x_cls = np.empty(most, dtype=np.int64)
    x_parent = np.empty(most, dtype=np.int64)
    x_local = np.empty(most, dtype=np.int64)
    own = np.full(n, -1, dtype=np.int64)
    used = np.zeros(n, dtype=np.int64)
    out_u = np.empty(total, dtype=np.int64)
    out_t = np.empty(total, dtype=np.int64)
    out_s = np.empty(total, dtype=np.int64)
    out_port = np.empty(total, dtype=np.int64)
    out_cls = np.empty(total, dtype=np.int64)
    out_next = np.empty(total, dtype=np.int64)
    rows = 0
    for t in range(n):
        nodes = 1  # 0 = the root: arrived at t
        for q in range(dst_ptr[t], dst_ptr[t + 1]):
            p = by_dst[q]
            x = 0
            for i in range(offsets[p + 1] - 1, offsets[p] - 1, -1):
                b = dirs[i] * 2 + carry[i]
                y = child[x, b]
                if y < 0:
                    y = nodes
                    nodes += 1
                    child[x, b] = y
                    u = node_at[i]
                    x_u[y] = u
                    x_port[y] = _port_of(indptr, indices, u, nb[u, dirs[i]])
                    x_cls[y] = hop_cls[i]
                    x_parent[y] = x
                x = y
            if offsets[p + 1] > offsets[p]:
                own[src[p]] = x
        for q in range(dst_ptr[t], dst_ptr[t + 1]):
            u = src[by_dst[q]]
            if own[u] > 0:
                x_local[own[u]] = 0
                used[u] = 1
        for y in range(1, nodes):
            u = x_u[y]
            if own[u] != y:
                x_local[y] = used[u]
                used[u] += 1
        for y in range(1, nodes):
            out_u[rows] = x_u[y]
            out_t[rows] = t
            out_s[rows] = x_local[y]
            out_port[rows] = x_port[y]
            out_cls[rows] = x_cls[y]
            out_next[rows] = x_local[x_parent[y]] if x_parent[y] > 0 else 0
            rows += 1
        # reset what this destination used
        for y in range(nodes):
            child[y, :] = -1
        for q in range(dst_ptr[t], dst_ptr[t + 1]):
            u = src[by_dst[q]]
            own[u] = -1
            used[u] = 0
        for y in range(1, nodes):
            used[x_u[y]] = 0
    return out_u[:rows], out_t[:rows], out_s[:rows], out_port[:rows], out_cls[:rows], out_next[:rows]


def from_routing_table(table: Any, graph: Graph | None = None, *, num_vcs: int) -> SimRouting:
    """An Angara routing table (``hopbench route``) as per-switch candidates, exactly.

    The table holds one route per (source, destination); two routes can pass a switch toward the
    same destination with different remaining steps, so a next-hop table per (switch, destination)
    is not enough.  The state says which remaining route a packet follows: at (r, t), state 0 is r's
    own route to t, states 1.. the other distinct remainders of routes passing r (interned bottom-up,
    so equal remainders share a state); ``num_states`` is the largest such count.  Angara breaks
    same-direction ring cycles with bubble flow control, which the simulator does not model, so the
    VCs get a dateline per ring, as dimension order has: a hop is in class 1 once its run of
    same-direction hops has crossed the ring's wrap-around link, else class 0 (the class carried
    into the next hop is part of the state); class 0 uses VCs ``0 .. ceil(V/2)-1``, class 1 the
    rest.  With one VC both classes share it and the check reports the ring cycles.
    """
    from hopbench.harness.problems.routing.table import RoutingTable

    V = _check_vcs(num_vcs, "table")
    if not isinstance(table, RoutingTable):
        raise HopbenchError(f"routing table needs a routing table written by 'hopbench route', got "
                            f"{type(table).__name__}")
    problem = table.problem
    net = problem.network
    n = net.num_nodes
    if not problem.all_nodes:
        raise HopbenchError(f"the routing table routes {len(problem.nodes)} of the torus's {n} nodes, but every "
                            f"switch's hosts need routes; route all nodes (hopbench route without --nodes/--subset)")
    expected = _table_graph(net)
    if graph is None:
        graph = expected
    elif graph != expected:
        raise HopbenchError(f"the routing table is for torus {net.spec} with X fastest in node ids, which is not "
                            f"this network ({graph.n} switches, {graph.m} links); simulate the table's own network")
    table._check_walkable()
    src, dst = (np.ascontiguousarray(a, dtype=np.int64) for a in problem.pairs)
    offsets = np.ascontiguousarray(table.offsets, dtype=np.int64)
    dirs = np.ascontiguousarray(table.dirs, dtype=np.int64)
    indptr, indices = _csr(graph)
    status = np.full(2, -1, dtype=np.int64)
    by_dst = np.argsort(dst, kind="stable").astype(np.int64)
    dst_ptr = np.zeros(n + 1, dtype=np.int64)
    dst_ptr[1:] = np.cumsum(np.bincount(dst, minlength=n))
    u, t, local, port, cls, nstate = _table_states(
        src, dst, offsets, dirs, by_dst, dst_ptr, np.ascontiguousarray(net.neighbor, dtype=np.int64),
        np.asarray(net.dims, dtype=np.int64), np.asarray(net.strides, dtype=np.int64), net.n, n, indptr, indices,
        status)
    if status[1] >= 0:
        p = int(status[0])
        what = "uses a channel that does not exist" if status[1] == 1 else "does not end at its destination"
        raise HopbenchError(f"the route {src[p]}->{dst[p]} {what}; check the table with 'hopbench verify'")
    S = int(local.max()) + 1 if len(local) else 1
    _check_size(n, S, "table")
    classes = int(cls.max()) + 1 if len(cls) else 1
    half = (V + 1) // 2
    if classes == 1 or V == 1:
        lo = np.zeros(len(cls), dtype=np.int64)
        hi = np.full(len(cls), V - 1, dtype=np.int64)
    else:
        lo = np.where(cls == 0, 0, half)
        hi = np.where(cls == 0, half - 1, V - 1)
    key = (u * n + t) * S + local
    counts = np.zeros(n * n * S + 1, dtype=np.int64)
    counts[1:] = np.bincount(key, minlength=n * n * S)
    np.cumsum(counts, out=counts)
    at = counts[key]  # one candidate per key: its slot
    tables = [counts] + [np.empty(len(key), dtype=np.int32) for _ in range(4)] + [np.zeros(len(key), np.uint8)]
    for out, values in zip(tables[1:5], (port, lo, hi, nstate)):
        out[at] = values
    rnd = np.zeros(n * n * S, dtype=np.uint8)
    meta = {"torus": list(net.dims), "node_ids": "X fastest (the table's)", "remainder_states": S,
            "vc_classes": classes, "states": ["own-route"] + [f"remainder-{i}" for i in range(1, S)],
            "vcs": "class 1 once a same-direction run has crossed its ring's wrap-around link (a dateline per ring)"}
    return _finish("table", graph, V, S, 0, tuple(tables), rnd, (), meta)
