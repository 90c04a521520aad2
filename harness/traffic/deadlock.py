"""Channel-dependency check of a simulation routing, with virtual channels (Dally & Seitz; Duato).

The nodes of the dependency graph are ``(channel, VC)`` pairs; channel ids are those of
:mod:`hopbench.harness.traffic.routing` (CSR positions, ``0..2m-1``).  A packet at switch ``r`` bound for
switch ``t`` in routing state ``s``, holding the ``(channel, VC)`` it arrived on, may request every
``(output channel, VC)`` of its candidates: one dependency edge each.  Which ``(r, t, s)`` a packet
can reach is found honestly, by a breadth-first search over packet states from every source
switch's injection (in ``init_state``), following every candidate; unreachable table entries add
nothing.  Injection and ejection channels take part in no cycle and are left out.

Verdicts, in this order:

1. a reachable state with no candidate at all is an incomplete routing (never deadlock-free);
2. the full dependency graph is acyclic: deadlock-free whatever the router picks among candidates;
3. otherwise, for a routing with escape candidates, Duato's condition: every reachable state has
   an escape candidate, a packet that holds an escape VC is only offered escape candidates (so
   there are no indirect dependencies), and the dependency graph of the escape VCs alone is
   acyclic;
4. otherwise: a cycle, shown as a few channels (``3->7 vc0 -> 7->8 vc0 -> ...``).

VCs that every candidate either fully includes or fully excludes behave alike, so they are merged
into one class before the search (two for a dateline torus, two for an escape scheme): the cycle
test is the same on the merged graph and the graph stays ``2m x classes`` nodes.

This module reads a routing's fields without importing :mod:`hopbench.harness.traffic.routing` (which calls
:func:`check_tables` while it builds), so the two modules form no import circle.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import hopbench.harness._threading  # noqa: F401  (OpenMP policy before numba loads)
import numba
from numba import njit, prange

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph

#: dependency bitmaps above this many 64-bit words are refused before they are allocated
MAX_DEPENDENCY_WORDS = 1 << 24  # 128 MB a bitmap (each worker keeps two)


@dataclass(frozen=True)
class DeadlockReport:
    """The verdict of :func:`check`."""

    deadlock_free: bool
    reason: str                  #: one line: why it is free, or the cycle / the missing escape
    method: str = ""             #: ``acyclic``, ``duato`` or ``cycle``, ``escape``, ``incomplete``
    #: the cycle found, as ``(from switch, to switch, first VC, last VC)`` per channel (VC class)
    cycle: tuple[tuple[int, int, int, int], ...] = ()
    reachable_states: int = 0    #: reachable (switch, destination, state) triples


# --------------------------------------------------------------------------- kernels


@njit(cache=True)
def _validate(n, S, cand_ptr, cand_port, cand_vc_lo, cand_vc_hi, cand_state, cand_escape, indptr, V,
              escape_vc, mark):
    """The first key whose candidates break the table's bounds (-1: none), then the first candidate
    whose VCs mix escape and non-escape ones (-1: none); ``mark`` gets every range's ends."""
    K = n * n * S
    for key in range(K):
        if cand_ptr[key + 1] < cand_ptr[key]:
            return key, -1
    bad_escape = -1
    for key in range(K):
        r = key // (n * S)
        deg = indptr[r + 1] - indptr[r]
        for i in range(cand_ptr[key], cand_ptr[key + 1]):
            lo = cand_vc_lo[i]
            hi = cand_vc_hi[i]
            if cand_port[i] < 0 or cand_port[i] >= deg or lo < 0 or hi >= V or lo > hi:
                return key, -1
            if cand_state[i] < 0 or cand_state[i] >= S:
                return key, -1
            mark[lo] = 1
            mark[hi + 1] = 1
            if bad_escape < 0:
                want = 1 if cand_escape[i] else 0
                for v in range(lo, hi + 1):
                    if escape_vc[v] != want:
                        bad_escape = i
                        break
    return -1, bad_escape


@njit(cache=True)
def _note(problems, slot, t, r, s):
    if problems[slot] < 0 or t < problems[slot]:
        problems[slot] = t
        problems[slot + 1] = r
        problems[slot + 2] = t
        problems[slot + 3] = s


@njit(cache=True, parallel=True)
def _dependencies(n, S, init, indptr, indices, cand_ptr, cand_port, cand_vc_lo, cand_vc_hi, cand_state,
                  cand_escape, vc_class, class_mask, Q, pair_ptr, chunks):
    """Reachable packet states and the dependency bitmaps.

    ``deps[(pair_ptr[c] + k) * Q + q]`` holds, as bits q2, the dependencies from channel c in VC
    class q to output port k of c's head switch in class q2 (``deps_esc``: escape to escape only).
    ``problems`` gets a reachable state without candidates (slots 1-3), one without an escape
    candidate (5-7) and an escape-held state offered a non-escape candidate (9-11), as (switch,
    destination, state), each for the lowest destination it happens for (slots 0, 4, 8).

    Destinations go in blocks of 64, one bit each in ``reach[(r, s)]``: the keys of one switch and
    neighbouring destinations sit side by side in the table, so a block reads it nearly in order
    (one destination at a time jumped ``n * S`` keys per step and missed the cache every time).
    Blocks are split over ``chunks`` workers with bitmaps of their own, OR-ed at the end.
    """
    P = pair_ptr[-1]
    NS = n * S
    deps = np.zeros((chunks, P * Q), dtype=np.uint64)
    desc = np.zeros((chunks, P * Q), dtype=np.uint64)
    probs = np.full((chunks, 12), -1, dtype=np.int64)
    counts = np.zeros(chunks, dtype=np.int64)
    bit = np.empty(64, dtype=np.uint64)
    for k in range(64):
        bit[k] = np.uint64(1) << np.uint64(k)
    zero = np.uint64(0)
    blocks = (n + 63) // 64
    for w in prange(chunks):
        deps_all = deps[w]
        deps_esc = desc[w]
        problems = probs[w]
        reach = np.zeros(NS, dtype=np.uint64)
        pend = np.zeros(NS, dtype=np.uint64)
        queued = np.zeros(NS, dtype=np.uint8)
        queue = np.empty(NS, dtype=np.int64)
        for blk in range(w, blocks, chunks):
            t0 = blk * 64
            nb = min(64, n - t0)
            full = zero
            for k in range(nb):
                full |= bit[k]
            reach[:] = zero
            head = 0
            size = 0
            for r in range(n):
                m = full
                if t0 <= r < t0 + nb:
                    m &= ~bit[r - t0]
                node = r * S + init
                reach[node] = m
                pend[node] = m
                queued[node] = 1
                queue[(head + size) % NS] = node
                size += 1
            # reachability: every destination of the block at once
            while size > 0:
                node = queue[head]
                head = (head + 1) % NS
                size -= 1
                queued[node] = 0
                d = pend[node]
                pend[node] = zero
                r = node // S
                s = node % S
                for k in range(nb):
                    if d & bit[k] == zero:
                        continue
                    t = t0 + k
                    key = (r * n + t) * S + s
                    for i in range(cand_ptr[key], cand_ptr[key + 1]):
                        r2 = indices[indptr[r] + cand_port[i]]
                        if r2 == t:
                            continue
                        node2 = r2 * S + cand_state[i]
                        if reach[node2] & bit[k] == zero:
                            reach[node2] |= bit[k]
                            pend[node2] |= bit[k]
                            if queued[node2] == 0:
                                queued[node2] = 1
                                queue[(head + size) % NS] = node2
                                size += 1
            # dependencies of every reachable (switch, destination, state), switch by switch
            for node in range(NS):
                m = reach[node]
                if m == zero:
                    continue
                r = node // S
                s = node % S
                for k in range(nb):
                    if m & bit[k] == zero:
                        continue
                    counts[w] += 1
                    t = t0 + k
                    key = (r * n + t) * S + s
                    a = cand_ptr[key]
                    z = cand_ptr[key + 1]
                    if z == a:
                        _note(problems, 0, t, r, s)
                    n_esc = 0
                    for i in range(a, z):
                        if cand_escape[i]:
                            n_esc += 1
                        c = indptr[r] + cand_port[i]
                        r2 = indices[c]
                        if r2 == t:
                            continue  # ejected there: no further request
                        s2 = cand_state[i]
                        q_lo = vc_class[cand_vc_lo[i]]
                        q_hi = vc_class[cand_vc_hi[i]]
                        key2 = (r2 * n + t) * S + s2
                        base = pair_ptr[c]
                        for j in range(cand_ptr[key2], cand_ptr[key2 + 1]):
                            row = (base + cand_port[j]) * Q
                            mj = class_mask[vc_class[cand_vc_lo[j]], vc_class[cand_vc_hi[j]]]
                            for q in range(q_lo, q_hi + 1):
                                deps_all[row + q] |= mj
                            if cand_escape[i]:
                                if cand_escape[j]:
                                    for q in range(q_lo, q_hi + 1):
                                        deps_esc[row + q] |= mj
                                else:
                                    _note(problems, 8, t, r2, s2)
                    if n_esc == 0 and z > a:
                        _note(problems, 4, t, r, s)
    out_all = deps[0].copy()
    out_esc = desc[0].copy()
    for w in range(1, chunks):
        out_all |= deps[w]
        out_esc |= desc[w]
    first = np.full(12, -1, dtype=np.int64)
    for slot in range(0, 12, 4):  # the lowest destination wins, whatever the chunking
        for w in range(chunks):
            if probs[w, slot] >= 0 and (first[slot] < 0 or probs[w, slot] < first[slot]):
                first[slot:slot + 4] = probs[w, slot:slot + 4]
    return out_all, out_esc, counts.sum(), first


@njit(cache=True)
def _find_cycle(indptr, indices, pair_ptr, deps, Q, C):
    """A cycle of the dependency graph on nodes ``c * Q + q`` (iterative DFS), else an empty array."""
    N = C * Q
    color = np.zeros(N, dtype=np.uint8)
    stack = np.empty(N, dtype=np.int64)
    it = np.empty(N, dtype=np.int64)
    depth = np.full(N, -1, dtype=np.int64)
    for start in range(N):
        if color[start] != 0:
            continue
        stack[0] = start
        it[0] = 0
        depth[start] = 0
        color[start] = 1
        sp = 1
        while sp > 0:
            v = stack[sp - 1]
            c = v // Q
            q = v % Q
            h = indices[c]
            lim = (indptr[h + 1] - indptr[h]) * Q
            pushed = False
            while it[sp - 1] < lim:
                x = it[sp - 1]
                it[sp - 1] = x + 1
                k = x // Q
                q2 = x % Q
                if (deps[(pair_ptr[c] + k) * Q + q] >> np.uint64(q2)) & np.uint64(1):
                    w = (indptr[h] + k) * Q + q2
                    if color[w] == 1:
                        return stack[depth[w]:sp].copy()
                    if color[w] == 0:
                        color[w] = 1
                        depth[w] = sp
                        stack[sp] = w
                        it[sp] = 0
                        sp += 1
                        pushed = True
                        break
            if not pushed:
                color[v] = 2
                sp -= 1
    return np.empty(0, dtype=np.int64)


# --------------------------------------------------------------------------- the check


def _classes(mark: np.ndarray, V: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """VC classes, the intervals between every candidate's range ends (``mark``): (bounds, class of
    each VC, bitmask of classes a..b)."""
    mark = mark.astype(bool)
    mark[0] = mark[V] = True
    bounds = np.flatnonzero(mark)
    vc_class = (np.cumsum(mark[:V]) - 1).astype(np.int64)
    Q = len(bounds) - 1
    masks = np.zeros((Q, Q), dtype=np.uint64)
    for a in range(Q):
        for b in range(a, Q):
            masks[a, b] = np.uint64(sum(1 << q for q in range(a, b + 1)))
    return bounds, vc_class, masks


def _vc_text(bounds: np.ndarray, q: int) -> str:
    a, b = int(bounds[q]), int(bounds[q + 1]) - 1
    return f"vc{a}" if a == b else f"vc{a}-{b}"


def _cycle(nodes: np.ndarray, Q: int, bounds: np.ndarray, indptr: np.ndarray, indices: np.ndarray,
           ) -> tuple[tuple[tuple[int, int, int, int], ...], str]:
    owner = np.searchsorted(indptr, np.arange(len(indices)), side="right") - 1
    hops = []
    for v in nodes.tolist():
        c, q = divmod(int(v), Q)
        hops.append((int(owner[c]), int(indices[c]), int(bounds[q]), int(bounds[q + 1]) - 1))
    shown = [f"{a}->{b} {_vc_text(bounds, int(v) % Q)}" for (a, b, _, _), v in zip(hops[:6], nodes.tolist())]
    text = " -> ".join(shown) + (" -> ..." if len(hops) > 6 else f" -> {shown[0]}")
    return tuple(hops), f"channel-dependency cycle {text} ({len(hops)} channels)"


def _read_only(a: np.ndarray) -> np.ndarray:
    view = a.view()
    view.setflags(write=False)
    return view


def check_tables(graph: Graph, *, name: str, num_vcs: int, num_states: int, init_state: int,
                 cand_ptr: np.ndarray, cand_port: np.ndarray, cand_vc_lo: np.ndarray, cand_vc_hi: np.ndarray,
                 cand_state: np.ndarray, cand_escape: np.ndarray, escape_vcs: tuple[int, ...] = ()
                 ) -> DeadlockReport:
    """The check on raw candidate tables (the layout of :class:`hopbench.harness.traffic.routing.SimRouting`)."""
    n, V, S = graph.n, int(num_vcs), int(num_states)
    indptr, indices = graph.csr
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    indices = np.ascontiguousarray(indices, dtype=np.int64)
    ptr = np.ascontiguousarray(cand_ptr, dtype=np.int64)
    if ptr.shape != (n * n * S + 1,) or ptr[0] != 0:
        raise HopbenchError(f"routing {name}: cand_ptr must hold n*n*num_states+1 = {n * n * S + 1} offsets "
                            f"from 0, got {ptr.size}; build the routing for this network")
    total = int(ptr[-1])
    # integer arrays are read as they are (int32 tables are not copied); anything else is converted
    arrays = [a if isinstance(a, np.ndarray) and a.dtype.kind in "iu" and a.flags.c_contiguous
              else np.ascontiguousarray(a, dtype=np.int64)
              for a in (cand_port, cand_vc_lo, cand_vc_hi, cand_state, cand_escape)]
    if any(a.shape != (total,) for a in arrays):
        raise HopbenchError(f"routing {name}: every candidate array must hold {total} entries (cand_ptr[-1])")
    # the kernels only read the tables: passed as read-only views (no copy), so that a routing fresh from its
    # builder (writable) and a finished one (read-only, routing._finish) share one compiled signature instead of
    # compiling _dependencies (about 18 s) and _validate again for each mix of flags
    ptr, port, lo, hi, state, esc = (_read_only(a) for a in (ptr, *arrays))
    if not (0 <= int(init_state) < S):
        raise HopbenchError(f"routing {name}: init_state {init_state} is not a state 0..{S - 1}")
    has_escape = bool(esc.any())
    escape_vc = np.zeros(V, dtype=np.uint8)
    if has_escape:
        if not escape_vcs or not all(0 <= int(v) < V for v in escape_vcs):
            raise HopbenchError(f"routing {name} has escape candidates but escape_vcs {tuple(escape_vcs)} are "
                                f"not VCs 0..{V - 1}; name the escape VCs")
        escape_vc[np.asarray(escape_vcs, dtype=np.int64)] = 1
    mark = np.zeros(V + 1, dtype=np.uint8)
    key, bad = _validate(n, S, ptr, port, lo, hi, state, esc, indptr, V, escape_vc, mark)
    if key >= 0:
        r, t, s = key // (n * S), (key // S) % n, key % S
        raise HopbenchError(f"routing {name}: the candidates of switch {r} for destination {t} (state {s}) "
                            f"break the table layout (a port, VC range or state out of range, or offsets "
                            f"going backwards); rebuild the routing")
    if has_escape and bad >= 0:
        raise HopbenchError(f"routing {name}: escape candidates must use only the escape VCs "
                            f"{tuple(escape_vcs)} and the others none of them; rebuild the routing")
    bounds, vc_class, class_mask = _classes(mark, V)
    Q = len(bounds) - 1
    C = len(indices)
    deg_head = (indptr[1:] - indptr[:-1])[indices] if C else np.zeros(0, dtype=np.int64)
    pair_ptr = np.zeros(C + 1, dtype=np.int64)
    np.cumsum(deg_head, out=pair_ptr[1:])
    if int(pair_ptr[-1]) * Q > MAX_DEPENDENCY_WORDS:
        raise HopbenchError(f"routing {name}: the dependency graph of this network ({int(pair_ptr[-1])} "
                            f"channel pairs x {Q} VC classes) is too large to check; use fewer VCs or a "
                            f"network of lower degree")
    chunks = max(1, min(numba.get_num_threads(), n))
    deps_all, deps_esc, reachable, problems = _dependencies(
        n, S, int(init_state), indptr, indices, ptr, port, lo, hi, state, esc, vc_class, class_mask, Q, pair_ptr,
        chunks)
    reachable = int(reachable)
    if problems[0] >= 0:
        r, t, s = problems[1:4].tolist()
        return DeadlockReport(False, f"no candidate for a packet at switch {r} bound for switch {t} (state {s}): "
                                     f"the routing is incomplete", "incomplete", (), reachable)
    found = _find_cycle(indptr, indices, pair_ptr, deps_all, Q, C)
    if found.size == 0:
        return DeadlockReport(True, f"the channel-dependency graph ({C} channels x {V} VCs) is acyclic",
                              "acyclic", (), reachable)
    cycle, text = _cycle(found, Q, bounds, indptr, indices)
    if not has_escape:
        return DeadlockReport(False, text, "cycle", cycle, reachable)
    if problems[4] >= 0:
        r, t, s = problems[5:8].tolist()
        return DeadlockReport(False, f"a packet at switch {r} bound for switch {t} (state {s}) has no escape "
                                     f"candidate, so Duato's condition fails (and {text})", "escape", cycle,
                              reachable)
    if problems[8] >= 0:
        r, t, s = problems[9:12].tolist()
        return DeadlockReport(False, f"a packet holding an escape VC is offered a non-escape candidate at switch "
                                     f"{r} bound for switch {t} (state {s}), so Duato's condition fails (and "
                                     f"{text})", "escape", cycle, reachable)
    found = _find_cycle(indptr, indices, pair_ptr, deps_esc, Q, C)
    if found.size == 0:
        vcs = ",".join(map(str, escape_vcs))
        return DeadlockReport(True, f"Duato's condition holds: every reachable state has an escape candidate and "
                                    f"the escape VCs ({vcs}) have an acyclic dependency graph", "duato", (),
                              reachable)
    cycle, text = _cycle(found, Q, bounds, indptr, indices)
    return DeadlockReport(False, f"the escape VCs have a {text}", "escape", cycle, reachable)


def check(routing: Any, graph: Graph) -> DeadlockReport:
    """The channel-dependency verdict for a :class:`~hopbench.harness.traffic.routing.SimRouting` on ``graph``."""
    if int(routing.n) != graph.n:
        raise HopbenchError(f"the routing is for {routing.n} switches but the network has {graph.n}; "
                            f"build the routing for this network")
    return check_tables(graph, name=routing.name, num_vcs=routing.num_vcs, num_states=routing.num_states,
                        init_state=routing.init_state, cand_ptr=routing.cand_ptr, cand_port=routing.cand_port,
                        cand_vc_lo=routing.cand_vc_lo, cand_vc_hi=routing.cand_vc_hi,
                        cand_state=routing.cand_state, cand_escape=routing.cand_escape,
                        escape_vcs=tuple(routing.escape_vcs))


def require_deadlock_free(routing: Any, graph: Graph, allow_deadlock: bool = False) -> DeadlockReport:
    """The report; a :class:`HopbenchError` when the routing can deadlock, unless ``allow_deadlock``."""
    report = check(routing, graph)
    if not report.deadlock_free and not allow_deadlock:
        raise HopbenchError(f"routing {routing.name} on this network can deadlock ({report.reason}); choose "
                            f"--routing updown/adaptive-updown, or pass --allow-deadlock to study deadlock itself")
    return report
