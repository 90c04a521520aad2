"""Numba kernels of ``grid-annealing``: moves that keep every edge within the cable length, optional
rotational symmetry, and an exact bit-parallel evaluation with an early stop.

**State.** A padded neighbour table ``nbr[v, :deg[v]]``.  Under a rotation of order g (1, 2 or 4 about
the grid's centre; ``rot[k, v]`` is v turned k times) the edge set is a union of orbits: every move
removes whole orbits and adds whole orbits (:func:`change`), so the graph stays invariant.  Rotations
keep Manhattan distances, so an orbit of an edge within the cable length lies within it.

**Moves.** A 2-opt swap ``(a, b), (c, e) -> (a, c), (b, e)`` with c drawn among the cells within the
cable length of a (so the edge (a, c) is short by construction and only (b, e) needs the check); under
a rotation, in a share ``turn_share`` of the swaps, a turned swap ``(a, b), (c, e) -> (a, c), (b, R^k e)``
(R^k e in e's orbit, so every degree is kept), which changes the orbits in a way no plain swap does; and,
while some ports are free, a shift ``(a, b) -> (a, c)`` that moves an edge's end to a cell with a free
port.  :func:`change` checks everything from scratch on the expanded orbits (loops, lengths, repeats,
degrees), so degenerate orbits (an edge turned onto itself) need no special case.

**Energy.** Over ordered pairs: ``E = S + far_weight * F``, S the sum of distances and F the pairs
beyond the target diameter ``dstar``; an unreachable pair counts n hops and one far pair.  By symmetry
the distances from one representative per vertex orbit suffice, weighted by the orbit size (g; 1 for
the centre cell, fixed by every rotation, which gets its own scalar BFS).  The representatives' BFS
is bit-parallel (:func:`hopbench.harness.engine.bitparallel.expand`); after each level a lower bound on E
(every unreached pair at least one level further) stops an evaluation that can no longer be accepted.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import numba as nb
import numpy as np

from hopbench.harness.engine.bitparallel import expand

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
#: most edges one orbit of a 2-edge change can touch (2 edges x order 4)
MAXE = 8
#: fvars / ivars slots
F_E, F_S, F_BEST_S, F_TEMP, F_LAM, F_T0, F_T1, F_HORIZON = 0, 1, 2, 3, 4, 5, 6, 7
N_FVARS = 8
I_DIAM, I_BEST_DIAM, I_DSTAR, I_ACCEPTED, I_IMPROVED, I_TRIED, I_UNREACHED, I_BEST_UNREACHED, I_BOUND, I_CLOCK, \
    I_START = range(11)
N_IVARS = 11


@nb.njit(cache=True)
def rand_u64(state):
    """xorshift64*: the kernel's only source of randomness (seeded by the solver)."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@nb.njit(cache=True)
def rand_int(state, k):
    return np.int64(rand_u64(state) >> np.uint64(11)) % k


@nb.njit(cache=True)
def rand_unit(state):
    return (np.float64(rand_u64(state) >> np.uint64(11)) + 0.5) / 9007199254740992.0


@nb.njit(cache=True)
def has_edge(nbr, deg, u, v):
    for j in range(deg[u]):
        if nbr[u, j] == v:
            return True
    return False


@nb.njit(cache=True)
def _drop(nbr, deg, u, v):
    for j in range(deg[u]):
        if nbr[u, j] == v:
            last = deg[u] - 1
            nbr[u, j] = nbr[u, last]
            nbr[u, last] = -1
            deg[u] = last
            return


@nb.njit(cache=True)
def _link(nbr, deg, u, v):
    nbr[u, deg[u]] = v
    deg[u] += 1


@nb.njit(cache=True)
def _expand_orbits(rot, g, base, nbase, out):
    """The distinct edges of the orbits of ``base[:nbase]`` under the g rotations, into ``out``; returns
    their number (each edge stored with its smaller end first)."""
    cnt = 0
    for i in range(nbase):
        for k in range(g):
            u = rot[k, base[i, 0]]
            v = rot[k, base[i, 1]]
            if u > v:
                u, v = v, u
            seen = False
            for j in range(cnt):
                if out[j, 0] == u and out[j, 1] == v:
                    seen = True
                    break
            if not seen:
                out[cnt, 0] = u
                out[cnt, 1] = v
                cnt += 1
    return cnt


@nb.njit(cache=True)
def change(nbr, deg, cap, rot, g, cx, cy, length, rem, nrem, add, nadd, R, A, delta, counts):
    """Remove the orbits of ``rem[:nrem]`` and add those of ``add[:nadd]`` if the result is a valid grid graph.

    On success the change is applied, ``R`` / ``A`` hold the removed / added edges and ``counts`` their
    numbers (for :func:`undo`); returns True.  Otherwise nothing changes and it returns False.
    """
    nr = _expand_orbits(rot, g, rem, nrem, R)
    na = _expand_orbits(rot, g, add, nadd, A)
    for i in range(nr):
        if not has_edge(nbr, deg, R[i, 0], R[i, 1]):
            return False
    for i in range(na):
        u = A[i, 0]
        v = A[i, 1]
        if u == v:
            return False
        if abs(cx[u] - cx[v]) + abs(cy[u] - cy[v]) > length:
            return False
        if has_edge(nbr, deg, u, v):
            return False  # present (a removed edge put back is a no-op move: refused too)
    ok = True
    for i in range(nr):
        delta[R[i, 0]] -= 1
        delta[R[i, 1]] -= 1
    for i in range(na):
        delta[A[i, 0]] += 1
        delta[A[i, 1]] += 1
    for i in range(na):
        for w in (A[i, 0], A[i, 1]):
            if deg[w] + delta[w] > cap:
                ok = False
    for i in range(nr):
        delta[R[i, 0]] = 0
        delta[R[i, 1]] = 0
    for i in range(na):
        delta[A[i, 0]] = 0
        delta[A[i, 1]] = 0
    if not ok:
        return False
    for i in range(nr):
        _drop(nbr, deg, R[i, 0], R[i, 1])
        _drop(nbr, deg, R[i, 1], R[i, 0])
    for i in range(na):
        _link(nbr, deg, A[i, 0], A[i, 1])
        _link(nbr, deg, A[i, 1], A[i, 0])
    counts[0] = nr
    counts[1] = na
    return True


@nb.njit(cache=True)
def undo(nbr, deg, R, A, counts):
    for i in range(counts[1]):
        _drop(nbr, deg, A[i, 0], A[i, 1])
        _drop(nbr, deg, A[i, 1], A[i, 0])
    for i in range(counts[0]):
        _link(nbr, deg, R[i, 0], R[i, 1])
        _link(nbr, deg, R[i, 1], R[i, 0])


@nb.njit(cache=True)
def fill(state, nbr, deg, cap, rot, g, cx, cy, length, near, nnear, order, rem, add, R, A, delta, counts):
    """Add orbits of edges between cells with free ports, in random order, until none fits; returns how
    many orbits were added.  Adding an edge never lengthens a distance."""
    n = nbr.shape[0]
    for i in range(n - 1, 0, -1):
        j = rand_int(state, i + 1)
        order[i], order[j] = order[j], order[i]
    added = 0
    for i in range(n):
        v = order[i]
        if deg[v] >= cap:
            continue
        k = nnear[v]
        start = rand_int(state, k) if k > 0 else 0
        for t in range(k):
            c = near[v, (start + t) % k]
            if deg[v] >= cap:
                break
            if deg[c] >= cap or has_edge(nbr, deg, v, c):
                continue
            add[0, 0] = v
            add[0, 1] = c
            if change(nbr, deg, cap, rot, g, cx, cy, length, rem, 0, add, 1, R, A, delta, counts):
                added += 1
    return added


@nb.njit(cache=True)
def _centre_bfs(nbr, deg, centre, dist, queue, dstar):
    """(sum of distances, far pairs, eccentricity, unreached) from one vertex by a scalar BFS."""
    n = nbr.shape[0]
    for v in range(n):
        dist[v] = -1
    dist[centre] = 0
    queue[0] = centre
    head, tail = 0, 1
    s, far, ecc = 0, 0, 0
    while head < tail:
        v = queue[head]
        head += 1
        for j in range(deg[v]):
            u = nbr[v, j]
            if dist[u] < 0:
                dist[u] = dist[v] + 1
                queue[tail] = u
                tail += 1
                s += dist[u]
                if dist[u] > dstar:
                    far += 1
                if dist[u] > ecc:
                    ecc = dist[u]
    return s, far, ecc, n - tail


@nb.njit(cache=True)
def measure(nbr, deg, reps, weight, centre, dstar, lam, e_max, A, B, dist, queue, out):
    """Energy of the current graph (module docstring); stops early once it must exceed ``e_max``.

    Returns True when measured in full; ``out`` = (E, S, diameter, unreached pairs) then.
    """
    n = nbr.shape[0]
    m = reps.shape[0]
    e_c, s_c, ecc_c, un_c = 0.0, 0, 0, 0
    if centre >= 0:
        s_c, far_c, ecc_c, un_c = _centre_bfs(nbr, deg, centre, dist, queue, dstar)
        s_c += un_c * n
        far_c += un_c
        e_c = s_c + lam * far_c
        if e_c > e_max:
            return False
    words = A.shape[1]
    pad = 64 * words - m
    for v in range(n):
        for w in range(words):
            A[v, w] = 0
        for w in range(words):
            lo = w * 64
            if lo + 64 <= m:
                continue
            if lo >= m:
                A[v, w] = _ALL
            else:
                A[v, w] = _ALL << np.uint64(m - lo)
    for i in range(m):
        A[reps[i], i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    goal = n * 64 * words
    reached = m + pad * n
    s, far, level, ecc = 0, 0, 0, 0
    while reached < goal:
        level += 1
        now = expand(nbr, deg, A, B)
        new = now - reached
        if new == 0:
            break
        s += level * new
        if level > dstar:
            far += new
        ecc = level
        reached = now
        A, B = B, A
        rest = goal - reached
        if rest > 0:
            nxt = level + 1
            lb = e_c + weight * (s + nxt * rest + lam * (far + (rest if nxt > dstar else 0)))
            if lb > e_max:
                return False
    unreached = goal - reached
    s += unreached * n
    far += unreached
    e = e_c + weight * (s + lam * far)
    if e > e_max:
        return False
    out[0] = e
    out[1] = s_c + weight * (s - unreached * n) if unreached + un_c == 0 else 0.0
    out[2] = max(ecc, ecc_c)
    out[3] = weight * unreached + un_c
    return True


@nb.njit(cache=True)
def propose(state, nbr, deg, cap, rot, g, cx, cy, length, near, nnear, shift_share, turn_share, free_ports, rem, add,
            R, A, delta, counts, tries):
    """Draw and apply one valid move (up to ``tries`` draws); False when none was found."""
    n = nbr.shape[0]
    for _ in range(tries):
        a = rand_int(state, n)
        if deg[a] == 0 or nnear[a] == 0:
            continue
        b = nbr[a, rand_int(state, deg[a])]
        c = near[a, rand_int(state, nnear[a])]
        if c == b:
            continue
        if free_ports > 0 and rand_unit(state) < shift_share:
            # shift: (a, b) -> (a, c), c having a free port
            if deg[c] >= cap:
                continue
            rem[0, 0] = a
            rem[0, 1] = b
            add[0, 0] = a
            add[0, 1] = c
            if change(nbr, deg, cap, rot, g, cx, cy, length, rem, 1, add, 1, R, A, delta, counts):
                return True
            continue
        if deg[c] == 0:
            continue
        e = nbr[c, rand_int(state, deg[c])]
        # a turned 2-opt joins b to a turned copy of e (same orbit, so every degree is kept): under a
        # rotation these changes are not 2-opt swaps of the orbits, and one swap cannot reach them
        f = e
        if g > 1 and turn_share > 0 and rand_unit(state) < turn_share:
            f = rot[1 + rand_int(state, g - 1), e]
        if e == a or e == b or f == a or f == b:
            continue
        if abs(cx[b] - cx[f]) + abs(cy[b] - cy[f]) > length:
            continue
        rem[0, 0] = a
        rem[0, 1] = b
        rem[1, 0] = c
        rem[1, 1] = e
        add[0, 0] = a
        add[0, 1] = c
        add[1, 0] = b
        add[1, 1] = f
        if change(nbr, deg, cap, rot, g, cx, cy, length, rem, 2, add, 2, R, A, delta, counts):
            return True
    return False


@nb.njit(cache=True)
def _better(d1, s1, u1, d2, s2, u2):
    """(unreached, diameter, sum) of graph 1 lexicographically below graph 2's."""
    if u1 != u2:
        return u1 < u2
    if d1 != d2:
        return d1 < d2
    return s1 < s2


@nb.njit(cache=True)
def run(state, evals, nbr, deg, best_nbr, best_deg, cap, rot, g, cx, cy, length, near, nnear, reps, weight, centre,
        shift_share, turn_share, order, A, B, dist, queue, ivars, fvars):
    """Up to ``evals`` evaluated moves; returns the evaluations made.

    Metropolis on E with ``dstar`` = ``ivars[I_DSTAR]``; a move is measured only as far as its
    acceptance is possible.  The best graph by (unreached pairs, diameter, sum) is kept in ``best_*``.
    The temperature is ``fvars[F_TEMP]`` (a time schedule sets it between calls) or, with
    ``ivars[I_CLOCK]`` = 1, a function of the moves tried since ``ivars[I_START]`` (geometric from
    ``F_T0`` to ``F_T1`` over ``F_HORIZON`` moves), so that the calls' sizes do not change a seeded run.
    When the best diameter falls, ``dstar`` follows it (one below, never below the bound ``I_BOUND``).
    """
    n = nbr.shape[0]
    rem = np.empty((2, 2), np.int64)
    add = np.empty((2, 2), np.int64)
    R = np.empty((MAXE, 2), np.int64)
    A2 = np.empty((MAXE, 2), np.int64)
    R2 = np.empty((MAXE, 2), np.int64)
    A3 = np.empty((MAXE, 2), np.int64)
    delta = np.zeros(n, np.int64)
    counts = np.zeros(2, np.int64)
    counts2 = np.zeros(2, np.int64)
    out = np.zeros(4, np.float64)
    temp = fvars[F_TEMP]
    lam = fvars[F_LAM]
    dstar = ivars[I_DSTAR]
    done = 0
    while done < evals:
        if ivars[I_CLOCK] == 1:
            frac = min(1.0, (ivars[I_TRIED] - ivars[I_START]) / fvars[F_HORIZON])
            temp = fvars[F_T0] * (fvars[F_T1] / fvars[F_T0]) ** frac if fvars[F_T0] > 0 else 0.0
        free_ports = cap * n
        for v in range(n):
            free_ports -= deg[v]
        if not propose(state, nbr, deg, cap, rot, g, cx, cy, length, near, nnear, shift_share, turn_share, free_ports,
                       rem, add, R, A2, delta, counts, 64):
            done += 1  # nothing movable: count the attempt so the run ends
            ivars[I_TRIED] += 1
            continue
        done += 1
        ivars[I_TRIED] += 1
        e_max = fvars[F_E]
        if temp > 0:
            e_max -= temp * np.log(rand_unit(state))
        if measure(nbr, deg, reps, weight, centre, dstar, lam, e_max, A, B, dist, queue, out):
            ivars[I_ACCEPTED] += 1
            if free_ports > 0:
                # edges between free ports never lengthen a distance: add them, then measure again
                if fill(state, nbr, deg, cap, rot, g, cx, cy, length, near, nnear, order, rem, add, R2, A3, delta,
                        counts2) > 0:
                    measure(nbr, deg, reps, weight, centre, dstar, lam, np.inf, A, B, dist, queue, out)
            fvars[F_E] = out[0]
            fvars[F_S] = out[1]
            ivars[I_DIAM] = np.int64(out[2])
            ivars[I_UNREACHED] = np.int64(out[3])
            if _better(ivars[I_DIAM], fvars[F_S], ivars[I_UNREACHED], ivars[I_BEST_DIAM], fvars[F_BEST_S],
                       ivars[I_BEST_UNREACHED]):
                ivars[I_BEST_DIAM] = ivars[I_DIAM]
                fvars[F_BEST_S] = fvars[F_S]
                ivars[I_BEST_UNREACHED] = ivars[I_UNREACHED]
                ivars[I_IMPROVED] += 1
                best_nbr[:, :] = nbr
                best_deg[:] = deg
                target = max(ivars[I_BOUND], ivars[I_BEST_DIAM] - 1) if ivars[I_BEST_UNREACHED] == 0 \
                    else ivars[I_BOUND]
                if target != dstar:
                    dstar = target
                    ivars[I_DSTAR] = target
                    measure(nbr, deg, reps, weight, centre, dstar, lam, np.inf, A, B, dist, queue, out)
                    fvars[F_E] = out[0]
        else:
            undo(nbr, deg, R, A2, counts)
    return done


@nb.njit(cache=True)
def sample_rises(state, count, nbr, deg, cap, rot, g, cx, cy, length, near, nnear, reps, weight, centre, shift_share,
                 turn_share, A, B, dist, queue, ivars, fvars, rises):
    """Measure ``count`` random moves from the current graph (each undone); ``rises[:k]`` = the energy
    increases seen; returns k (the solver sets its starting temperature from them)."""
    n = nbr.shape[0]
    rem = np.empty((2, 2), np.int64)
    add = np.empty((2, 2), np.int64)
    R = np.empty((MAXE, 2), np.int64)
    A2 = np.empty((MAXE, 2), np.int64)
    delta = np.zeros(n, np.int64)
    counts = np.zeros(2, np.int64)
    out = np.zeros(4, np.float64)
    free_ports = cap * n
    for v in range(n):
        free_ports -= deg[v]
    k = 0
    for _ in range(count):
        if not propose(state, nbr, deg, cap, rot, g, cx, cy, length, near, nnear, shift_share, turn_share, free_ports,
                       rem, add, R, A2, delta, counts, 64):
            continue
        if measure(nbr, deg, reps, weight, centre, ivars[I_DSTAR], fvars[F_LAM], np.inf, A, B, dist, queue, out):
            if out[0] > fvars[F_E]:
                rises[k] = out[0] - fvars[F_E]
                k += 1
        undo(nbr, deg, R, A2, counts)
    return k
