"""The compiled annealing loop of ``hostswitch-annealing`` (not a solver module: no registration here).

**State.**  ``m`` switches as a padded neighbour table ``nbr[s, :deg[s]]`` (switch links, each
stored at both ends) and ``hosts[s]``, the hosts on switch s; ``deg[s] + hosts[s] <= r``.  Hosts
are interchangeable, so only their counts move.

**Moves** (the two of mnakao/ORP's host-switch annealing, written anew here):

- *SWAP*, the 2-opt swap of two switch links: ``(a, b), (c, d)`` become ``(a, d), (c, b)`` or
  ``(a, c), (b, d)`` (a coin decides).  Every switch keeps its ports.
- *SWING*: a link ``(a, b)`` and a switch ``c`` holding a host become ``(c, b)``, and one of c's
  hosts moves to a.  a trades a link for a host, c a host for a link, so both keep their ports:
  this is the move that changes how the hosts are spread (and so, with SWAP, which switches are
  hubs).

A move that would make a loop or a parallel link, or leave ``a`` without links, is redrawn before
any evaluation.  Rows touched are saved first and written back on rejection.

**Evaluation**: the exact weighted bit-parallel BFS of :mod:`hopbench.harness.problems.hostswitch._kernel`
(the one hopbench's verification uses): the ordered sum ``S`` of switch distances over host pairs
on different switches, the connected such pairs, the largest switch distance between host-holding
switches.  The total host distance is ``S + 2 n (n - 1)`` over ordered pairs whatever the spread.

**Acceptance**, lexicographic as Graph Golf ranks: fewer unconnected host pairs first; then, for
``h_golf``, the h-diameter is rigid (a longer one rejected, a shorter one accepted, as ORP's SA
does); then Metropolis on ``S``.  The temperature falls geometrically from ``temp0`` to
``temp1`` along the run's progress.  The uniform draw of the Metropolis test comes before the
evaluation: the move is accepted iff ``S_new - S < -T ln u``, so the BFS can stop as soon as its
partial sums show that the move fails (``hopbench.harness.problems.hostswitch._kernel.block_sums``): the
walk is the one a full evaluation would take (tested), only faster.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import math

import numba as nb
import numpy as np

from hopbench.harness.problems.hostswitch._kernel import switch_sums

# stats counters
ST_EVALS, ST_ACCEPTED, ST_IMPROVED, ST_SWAPS, ST_SWINGS, ST_EARLY = range(6)
N_STATS = 6
# current / best scalars: unreachable ordered pairs, far (switch distance), S
V_R, V_FAR, V_S = range(3)


# --------------------------------------------------------------------------- random numbers (splitmix64)


@nb.njit(cache=True)
def rng_next(state):
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True)
def rng_below(state, k):
    return np.int64((rng_next(state) >> np.uint64(11)) % np.uint64(k))


@nb.njit(cache=True)
def rng_unit(state):
    return np.float64(rng_next(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# --------------------------------------------------------------------------- the graph


@nb.njit(cache=True)
def adjacent(nbr, deg, a, b):
    for j in range(deg[a]):
        if nbr[a, j] == b:
            return True
    return False


@nb.njit(cache=True)
def _replace(nbr, deg, a, old, new):
    for j in range(deg[a]):
        if nbr[a, j] == old:
            nbr[a, j] = new
            return


@nb.njit(cache=True)
def _link(nbr, deg, a, b):
    nbr[a, deg[a]] = b
    deg[a] += 1
    nbr[b, deg[b]] = a
    deg[b] += 1


@nb.njit(cache=True)
def random_graph(state, hosts, radix, nbr, deg):
    """A random connected switch graph whose switch ``s`` has ``radix - hosts[s]`` ports for links: a random
    tree first (switches with two or more ports inside, those with one as leaves), then random links between
    the ports left, as many as a bounded number of draws finds (a loop or a parallel link is drawn again).

    Returns False when the ports cannot make a tree (too few of them)."""
    m = hosts.shape[0]
    for s in range(m):
        deg[s] = 0
        for j in range(nbr.shape[1]):
            nbr[s, j] = -1
    if m == 1:
        return True
    free = np.empty(m, np.int64)
    for s in range(m):
        free[s] = radix - hosts[s]
        if free[s] < 1:
            return False
    order = np.arange(m)
    for i in range(m - 1, 0, -1):  # shuffle
        k = rng_below(state, i + 1)
        order[i], order[k] = order[k], order[i]
    inner = np.empty(m, np.int64)
    leaves = np.empty(m, np.int64)
    ni = 0
    nl = 0
    for s in order:
        if free[s] >= 2:
            inner[ni] = s
            ni += 1
        else:
            leaves[nl] = s
            nl += 1
    # tree: each inner switch links to a random earlier one with a port left, then each leaf to any
    # inner switch with a port left (the open ports never run out: see min_switches)
    open_ = np.empty(m, np.int64)
    no = 0
    if ni == 0:
        if m != 2:
            return False
        _link(nbr, deg, leaves[0], leaves[1])
        return True
    open_[0] = inner[0]
    no = 1
    for i in range(1, ni + nl):
        s = inner[i] if i < ni else leaves[i - ni]
        if no == 0:
            return False
        k = rng_below(state, no)
        t = open_[k]
        _link(nbr, deg, s, t)
        if deg[t] >= free[t]:
            open_[k] = open_[no - 1]
            no -= 1
        if deg[s] < free[s]:
            open_[no] = s
            no += 1
    # the ports left: random links between them
    ports = np.empty(int(free.sum()), np.int64)
    np_ = 0
    for s in range(m):
        for _ in range(free[s] - deg[s]):
            ports[np_] = s
            np_ += 1
    tries = 0
    while np_ >= 2 and tries < 50 * np_ + 1000:
        tries += 1
        i = rng_below(state, np_)
        k = rng_below(state, np_)
        a, b = ports[i], ports[k]
        if i == k or a == b or adjacent(nbr, deg, a, b):
            continue
        _link(nbr, deg, a, b)
        hi, lo = max(i, k), min(i, k)
        ports[hi] = ports[np_ - 1]
        np_ -= 1
        ports[lo] = ports[np_ - 1]
        np_ -= 1
    return True


# --------------------------------------------------------------------------- moves


@nb.njit(cache=True)
def _draw_link(state, nbr, deg, m, radix):
    """A uniform random link end ``(a, j)`` (switch a, slot j): uniform over the stored link ends."""
    while True:
        a = rng_below(state, m)
        j = rng_below(state, radix)
        if j < deg[a]:
            return a, j


@nb.njit(cache=True)
def _save(nbr, deg, hosts, rows, k, saved_rows, saved_deg, saved_hosts):
    for i in range(k):
        s = rows[i]
        for j in range(nbr.shape[1]):
            saved_rows[i, j] = nbr[s, j]
        saved_deg[i] = deg[s]
        saved_hosts[i] = hosts[s]


@nb.njit(cache=True)
def undo(nbr, deg, hosts, rows, k, saved_rows, saved_deg, saved_hosts):
    for i in range(k - 1, -1, -1):
        s = rows[i]
        for j in range(nbr.shape[1]):
            nbr[s, j] = saved_rows[i, j]
        deg[s] = saved_deg[i]
        hosts[s] = saved_hosts[i]


@nb.njit(cache=True)
def try_swap(state, nbr, deg, hosts, m, radix, rows, saved_rows, saved_deg, saved_hosts):
    """Apply one random SWAP (saving the rows it touches); returns how many rows were saved, 0 if none drawn."""
    a, ja = _draw_link(state, nbr, deg, m, radix)
    c, jc = _draw_link(state, nbr, deg, m, radix)
    b = nbr[a, ja]
    d = nbr[c, jc]
    if a == c or b == d or a == d or b == c:
        return 0
    rows[0], rows[1], rows[2], rows[3] = a, b, c, d
    if rng_below(state, 2) == 0:
        # (a, b), (c, d) -> (a, d), (c, b)
        if adjacent(nbr, deg, a, d) or adjacent(nbr, deg, c, b):
            return 0
        _save(nbr, deg, hosts, rows, 4, saved_rows, saved_deg, saved_hosts)
        nbr[a, ja] = d
        _replace(nbr, deg, d, c, a)
        nbr[c, jc] = b
        _replace(nbr, deg, b, a, c)
    else:
        # (a, b), (c, d) -> (a, c), (b, d)
        if adjacent(nbr, deg, a, c) or adjacent(nbr, deg, b, d):
            return 0
        _save(nbr, deg, hosts, rows, 4, saved_rows, saved_deg, saved_hosts)
        nbr[a, ja] = c
        nbr[c, jc] = a
        _replace(nbr, deg, b, a, d)
        _replace(nbr, deg, d, c, b)
    return 4


@nb.njit(cache=True)
def try_swing(state, nbr, deg, hosts, m, radix, rows, saved_rows, saved_deg, saved_hosts):
    """Apply one random SWING (saving the rows it touches); returns how many rows were saved, 0 if none drawn."""
    a, ja = _draw_link(state, nbr, deg, m, radix)
    b = nbr[a, ja]
    c = rng_below(state, m)
    if hosts[c] == 0 or c == a or c == b or deg[a] < 2 or adjacent(nbr, deg, c, b):
        return 0
    rows[0], rows[1], rows[2] = a, b, c
    _save(nbr, deg, hosts, rows, 3, saved_rows, saved_deg, saved_hosts)
    # a drops its link to b (its last slot fills the gap) and takes a host; c gives a host and links to b
    last = deg[a] - 1
    nbr[a, ja] = nbr[a, last]
    nbr[a, last] = -1
    deg[a] = last
    hosts[a] += 1
    _replace(nbr, deg, b, a, c)
    nbr[c, deg[c]] = b
    deg[c] += 1
    hosts[c] -= 1
    return 3


# --------------------------------------------------------------------------- the loop


@nb.njit(cache=True)
def better(golf, r1, f1, s1, r0, f0, s0):
    """Whether (r1, f1, s1) ranks strictly before (r0, f0, s0): fewer unconnected pairs, then (h_golf) a
    smaller far distance, then a smaller sum."""
    if r1 != r0:
        return r1 < r0
    if golf and f1 != f0:
        return f1 < f0
    return s1 < s0


@nb.njit(cache=True)
def anneal(state, nbr, deg, hosts, radix, golf, swing_share, evals, k0, k_total, p0, p1, temp0, temp1,
           target_far, target_s, A, B, P, out, cur, best, best_nbr, best_deg, best_hosts, stats, bounded):
    """Run ``evals`` moves.  The temperature of move k (k0 <= k < k0 + evals) is
    ``temp0 (temp1 / temp0)^p``, p going from ``p0`` to ``p1`` over the chunk (with ``k_total`` > 0,
    p = k / k_total instead: an evaluation budget fixes the schedule whatever the chunking).
    Returns True when the best state meets the target (the lower bound): nothing can beat it.
    ``bounded``: stop each evaluation as soon as the move is known to be rejected (the same walk, faster)."""
    m = nbr.shape[0]
    rows = np.empty(4, np.int64)
    saved_rows = np.empty((4, nbr.shape[1]), np.int64)
    saved_deg = np.empty(4, np.int64)
    saved_hosts = np.empty(4, np.int64)
    ratio = temp1 / temp0
    for i in range(evals):
        if k_total > 0:
            p = min(1.0, (k0 + i) / k_total)
        else:
            p = p0 + (p1 - p0) * (i / max(1, evals))
        temp = temp0 * ratio ** p
        swing = rng_unit(state) < swing_share
        k = 0
        for _ in range(100):
            if swing:
                k = try_swing(state, nbr, deg, hosts, m, radix, rows, saved_rows, saved_deg, saved_hosts)
            else:
                k = try_swap(state, nbr, deg, hosts, m, radix, rows, saved_rows, saved_deg, saved_hosts)
            if k > 0:
                break
        if k == 0:
            continue  # no legal move found in 100 draws (a tiny graph): nothing to evaluate
        u = rng_unit(state)
        # the draw comes first, so the search can stop as soon as the move is known to be rejected
        # (a connected state only: from a disconnected one, any move that connects more is taken)
        s_limit = -1.0
        far_limit = -1
        if bounded and cur[V_R] == 0:
            s_limit = cur[V_S] - temp * math.log(max(u, 1e-300))
            if golf:
                far_limit = cur[V_FAR]
        stopped = switch_sums(nbr, deg, hosts, A, B, P, out, s_limit, far_limit)
        stats[ST_EVALS] += 1
        if stopped:
            stats[ST_EARLY] += 1
            if swing:
                stats[ST_SWINGS] += 1
            else:
                stats[ST_SWAPS] += 1
            undo(nbr, deg, hosts, rows, k, saved_rows, saved_deg, saved_hosts)
            continue
        if swing:
            stats[ST_SWINGS] += 1
        else:
            stats[ST_SWAPS] += 1
        apart = 0
        total_h = 0
        sq = 0
        for s in range(m):
            total_h += hosts[s]
            sq += hosts[s] * hosts[s]
        apart = total_h * total_h - sq
        r_new = apart - out[1]
        f_new = out[2]
        s_new = out[0]
        if r_new != cur[V_R]:
            accept = r_new < cur[V_R]
        elif golf and f_new != cur[V_FAR]:
            accept = f_new < cur[V_FAR]
        else:
            delta = s_new - cur[V_S]
            accept = delta <= 0 or delta < -temp * math.log(max(u, 1e-300))
        if accept:
            stats[ST_ACCEPTED] += 1
            cur[V_R] = r_new
            cur[V_FAR] = f_new
            cur[V_S] = s_new
            if better(golf, r_new, f_new, s_new, best[V_R], best[V_FAR], best[V_S]):
                stats[ST_IMPROVED] += 1
                best[V_R] = r_new
                best[V_FAR] = f_new
                best[V_S] = s_new
                best_nbr[:, :] = nbr
                best_deg[:] = deg
                best_hosts[:] = hosts
                if r_new == 0 and (f_new <= target_far or not golf) and s_new <= target_s:
                    return True
        else:
            undo(nbr, deg, hosts, rows, k, saved_rows, saved_deg, saved_hosts)
    return False


@nb.njit(cache=True)
def sample_deltas(state, nbr, deg, hosts, radix, swing_share, count, A, B, P, out, s_now, acc):
    """Add the increase of ``S`` over the worsening ones of ``count`` random moves from the current state (each
    undone) to ``acc[0]``, and their number to ``acc[1]``: the scale of the starting temperature."""
    m = nbr.shape[0]
    rows = np.empty(4, np.int64)
    saved_rows = np.empty((4, nbr.shape[1]), np.int64)
    saved_deg = np.empty(4, np.int64)
    saved_hosts = np.empty(4, np.int64)
    for _ in range(count):
        swing = rng_unit(state) < swing_share
        k = 0
        for _t in range(100):
            if swing:
                k = try_swing(state, nbr, deg, hosts, m, radix, rows, saved_rows, saved_deg, saved_hosts)
            else:
                k = try_swap(state, nbr, deg, hosts, m, radix, rows, saved_rows, saved_deg, saved_hosts)
            if k > 0:
                break
        if k == 0:
            continue
        switch_sums(nbr, deg, hosts, A, B, P, out)
        if out[0] > s_now:
            acc[0] += out[0] - s_now
            acc[1] += 1
        undo(nbr, deg, hosts, rows, k, saved_rows, saved_deg, saved_hosts)
