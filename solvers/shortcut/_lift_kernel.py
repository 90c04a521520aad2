"""Compiled kernels of the ``lift-tabu`` solver: cyclic lifts evaluated by voltage masks, and the
resumable tabu scan over them.

A cyclic lift of order g (g <= 64) of an m-vertex quotient multigraph is the n = m g vertex graph with
vertex r + m i for representative r and voltage i; a quotient edge (a, b, t) stands for the g edges
(a + m i, b + m ((i + t) mod g)).  The graph is invariant under v -> v + m, so the distances from the m
representatives give every distance.  From one representative, the set of voltages reached at each
quotient vertex is one g-bit word, and a BFS level is one rotate-and-or per arc: m d words per level
where a BFS of the lift touches n d adjacency entries.  LANES representatives are searched side by side,
so that each rotate-and-or is one vector operation.

The tabu state lives in arrays so that a scan stopped by the evaluation budget resumes at the next
candidate: the sequence of evaluations does not depend on how the run is cut into kernel calls.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import numba as nb
import numpy as np

from hopbench.harness.engine.bitops import popcount64
from hopbench.solvers.shortcut._annealing_kernel import OBJ_CODES, rng_below

# int64 state scalars
(I_STEP, I_SCAN, I_SWAPS, I_MOVE, I_WALK, I_RESTARTS, I_BEST_STEP, I_CUR_LOST, I_BEST_LOST, I_BEST_ECC,
 I_BEST_FAR) = range(11)
N_IVARS = 11
# float64 state scalars: current energy, the walk's best energy, the best move of the open scan (energy
# and tie-break hash), the best graph's objective value and distance sum
F_CUR_E, F_WALK_E, F_MOVE_E, F_MOVE_H, F_BEST_VAL, F_BEST_S = range(6)
N_FVARS = 6
# measure() results
M_S, M_FAR, M_ECC, M_LOST = range(4)

#: the longest walks the quotient screen counts: the Moore diameter of a low degree is long (about n/2 at
#: degree 2), and walks beyond a dozen arcs no longer tell quotients apart but cost m x arcs each
SCREEN_MAX_ARCS = 12
#: representatives searched at once by :func:`measure` (one vector register of words)
LANES = 8

_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@nb.njit(cache=True, inline="always")
def _spread(ea, eb, et, g, full, masked, front, new):
    """One BFS level of LANES representatives at once: every arc (both directions of each quotient edge)
    rotates the words of its tail into its head (``masked``: g < 64, rotations kept to g bits).  The two
    copies of the loops differ only in the mask: called with a literal flag, each compiles without a
    branch, and at g = 64 without an AND the compiler cannot prove to be a no-op (about 15 % of a level)."""
    for k in range(ea.shape[0]):
        a = ea[k] * LANES
        b = eb[k] * LANES
        t = et[k]
        back = g - t if t > 0 else 0  # the reverse arc's voltage, without a modulo: this is the hot loop
        # a rotation by s is (x << s) | (x >> ((g - s) & 63)): at s = 0 both halves are x (g = 64) or x, 0
        up, up_wrap = np.uint64(t), np.uint64((g - t) & 63)
        down, down_wrap = np.uint64(back), np.uint64((g - back) & 63)
        if masked:
            for r in range(LANES):
                x = front[a + r]
                new[b + r] |= ((x << up) | (x >> up_wrap)) & full
            for r in range(LANES):
                y = front[b + r]
                new[a + r] |= ((y << down) | (y >> down_wrap)) & full
        else:
            for r in range(LANES):
                x = front[a + r]
                new[b + r] |= (x << up) | (x >> up_wrap)
            for r in range(LANES):
                y = front[b + r]
                new[a + r] |= (y << down) | (y >> down_wrap)


@nb.njit(cache=True)
def measure(ea, eb, et, m, g, far_level, wf, limit, src_lb, dm1, reach, front, new, lanes, out):
    """Energy ``wf x far + S`` of the lift, or +inf as soon as it must exceed ``limit``.

    ``S`` sums the distances from the m representatives (an unreachable vertex counts n), ``far`` counts
    those at distance >= far_level (unreachable ones too).  ``out`` gets the true distance sum, far,
    eccentricity and unreachable count.

    The representatives are searched LANES at a time, level by level (``reach``, ``front``, ``new``:
    m x LANES words, quotient vertex major, so each arc's rotations are one vector operation;
    ``lanes``: (4, LANES) counters).  After each level, the energy is bounded from below: a
    representative's unreached vertices are at least one level further, and those beyond the next
    level's capacity (the front times ``dm1``, the degree minus one) two; its sum is also at least
    ``src_lb`` (the Moore bound), which is all that is known of the groups not yet searched.
    """
    n = m * g
    masked = g < 64
    full = np.uint64(0xFFFFFFFFFFFFFFFF) if g == 64 else (np.uint64(1) << np.uint64(g)) - np.uint64(1)
    size = m * LANES
    total, dist, far, got = lanes[0], lanes[1], lanes[2], lanes[3]
    s_done = 0  # over the groups searched so far
    far_done = 0
    lost = 0
    ecc = 0
    for first in range(0, m, LANES):
        for i in range(size):
            reach[i] = 0
            front[i] = 0
        for r in range(LANES):
            total[r] = 1 if first + r < m else n  # a lane past the last representative is done
            dist[r] = 0
            far[r] = 0
        for r in range(min(LANES, m - first)):
            reach[(first + r) * LANES + r] = 1
            front[(first + r) * LANES + r] = 1
        later = max(m - first - LANES, 0) * src_lb
        lev = 0
        while True:
            lev += 1
            for i in range(size):
                new[i] = 0
            if masked:
                _spread(ea, eb, et, g, full, True, front, new)
            else:
                _spread(ea, eb, et, g, full, False, front, new)
            for r in range(LANES):
                got[r] = 0
            for v in range(m):
                base = v * LANES
                for r in range(LANES):
                    x = new[base + r] & ~reach[base + r]
                    front[base + r] = x
                    reach[base + r] |= x
                    got[r] += popcount64(x)
            far_now = 1 if lev >= far_level else 0
            far_next = 1 if lev + 1 >= far_level else 0
            far_after = 1 if lev + 2 >= far_level else 0
            stuck = 0
            reached = 0
            for r in range(LANES):
                stuck += (total[r] < n) & (got[r] == 0)
                reached += got[r]
                total[r] += got[r]
                dist[r] += lev * got[r]
                far[r] += far_now * got[r]
            if reached > 0 and lev > ecc:
                ecc = lev
            if stuck:  # rare (a disconnected lift): the rest of such a representative's orbit is unreachable
                for r in range(LANES):
                    if total[r] < n and got[r] == 0:
                        lost += n - total[r]
                        far[r] += n - total[r]
                        total[r] = n
            open_ = 0
            lb_s = 0
            lb_far = 0
            for r in range(LANES):
                rest = n - total[r]
                beyond = rest - got[r] * dm1  # cannot all fit on the next level
                beyond = beyond if beyond > 0 else 0
                bound = dist[r] + rest * (lev + 1) + beyond
                bound = bound if bound > src_lb else src_lb
                open_ += rest > 0
                lb_s += bound if rest > 0 else dist[r]
                lb_far += far[r] + (rest * far_next + beyond * (far_after - far_next) if rest > 0 else 0)
            if open_ == 0:
                break
            # grouped like the return value, so the rounded bound never exceeds the rounded energy
            if wf * (far_done + lb_far) + (s_done + lb_s + lost * n + later) > limit:
                return np.inf
        for r in range(LANES):
            s_done += dist[r]
            far_done += far[r]
        if wf * far_done + (s_done + lost * n + later) > limit:
            return np.inf
    out[M_S] = s_done
    out[M_FAR] = far_done
    out[M_ECC] = ecc
    out[M_LOST] = lost
    return wf * far_done + (s_done + lost * n)


@nb.njit(cache=True)
def objective(obj, m, n, s_true, ecc, lost):
    """The problem's objective of a measured lift (+inf when disconnected)."""
    if lost > 0:
        return np.inf
    aspl = s_true / (m * (n - 1.0))
    if obj == 0:
        return aspl
    if obj == 1:
        return float(ecc)
    if obj == 2:
        return ecc + aspl / (ecc + 1.0)
    return aspl * ecc


@nb.njit(cache=True)
def edge_ok(ea, eb, et, g, loops, k):
    """Quotient edge k lifts to g distinct new edges: no loop, no edge twice (nor one of the others); with
    ``loops`` False, not a quotient loop (an edge inside one orbit) at all."""
    a = ea[k]
    b = eb[k]
    t = et[k]
    if a == b and (not loops or (2 * t) % g == 0):
        return False
    for j in range(ea.shape[0]):
        if j == k:
            continue
        if ea[j] == a and eb[j] == b and et[j] == t:
            return False
        if ea[j] == b and eb[j] == a and (et[j] + t) % g == 0:
            return False
    return True


@nb.njit(cache=True, inline="always")
def _swap(ea, eb, k, l, o):
    """2-opt on quotient edges k = (a, b), l = (c, d): o = 0 gives (a, d), (c, b); o = 1 gives (a, c), (b, d).
    Voltages stay; applying it twice restores both edges."""
    if o == 0:
        tmp = eb[k]
        eb[k] = eb[l]
        eb[l] = tmp
    else:
        tmp = eb[k]
        eb[k] = ea[l]
        ea[l] = tmp


@nb.njit(cache=True)
def random_quotient(rng, ea, eb, et, nfixed, free, g, loops, rounds):
    """Pair the free ports (``free[r]`` of representative r) at random with random voltages, into
    edges nfixed.. of the quotient, then repair each invalid edge by 2-opt swaps with random edges
    (new voltages for both); False when ``rounds`` passes leave an invalid edge."""
    ne = ea.shape[0]
    nfree = ne - nfixed
    ports = np.empty(2 * nfree, np.int64)
    p = 0
    for r in range(free.shape[0]):
        for _ in range(free[r]):
            ports[p] = r
            p += 1
    for i in range(p - 1, 0, -1):
        j = rng_below(rng, i + 1)
        ports[i], ports[j] = ports[j], ports[i]
    for k in range(nfixed, ne):
        ea[k] = ports[2 * (k - nfixed)]
        eb[k] = ports[2 * (k - nfixed) + 1]
        et[k] = rng_below(rng, g)
    for _ in range(rounds):
        clean = True
        for k in range(nfixed, ne):
            tries = 0
            while not edge_ok(ea, eb, et, g, loops, k) and tries < 100:
                clean = False
                tries += 1
                l = nfixed + rng_below(rng, nfree)
                if l != k:
                    _swap(ea, eb, k, l, rng_below(rng, 2))
                et[k] = rng_below(rng, g)
                et[l] = rng_below(rng, g)
        if clean:
            return True
    return False


@nb.njit(cache=True, inline="always")
def _hash(seed, step, pos):
    """Tie-break between equally good moves, drawn from no random stream (a scan can resume)."""
    z = seed ^ (np.uint64(step) * _MIX1) ^ (np.uint64(pos) * _MIX2)
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True)
def coverage_spread(ea, eb, m, length):
    """Variance, over ordered pairs (s, v) of quotient vertices, of the number of non-backtracking walks of
    at most ``length`` arcs from s to v (the empty walk included).  Each such walk reaches one voltage of
    v's orbit, so a quotient whose walks spread evenly can cover every orbit by that distance."""
    ne = ea.shape[0]
    na = 2 * ne
    tail = np.empty(na, np.int64)
    head = np.empty(na, np.int64)
    for k in range(ne):  # arc 2k runs a -> b, arc 2k + 1 back (its reverse is arc ^ 1)
        tail[2 * k] = ea[k]
        head[2 * k] = eb[k]
        tail[2 * k + 1] = eb[k]
        head[2 * k + 1] = ea[k]
    cov = np.zeros((m, m))
    ends = np.zeros((m, na))  # walks from s whose last arc is i
    into = np.zeros((m, m))  # walks from s ending at v
    for s in range(m):
        cov[s, s] = 1.0
        for i in range(na):
            if tail[i] == s:
                ends[s, i] = 1.0
    for step in range(length):
        into[:] = 0.0
        for s in range(m):
            for i in range(na):
                into[s, head[i]] += ends[s, i]
        cov += into
        if step + 1 == length:
            break
        nxt = np.empty((m, na))
        for s in range(m):
            for j in range(na):
                nxt[s, j] = into[s, tail[j]] - ends[s, j ^ 1]  # every walk into tail(j) but j's own reverse
        ends = nxt
    return cov.var()


@nb.njit(cache=True)
def _start_walk(rng, ea, eb, et, nfixed, free, m, g, loops, screen, far_level, wf, src_lb, until, ivars, fvars,
                dm1, reach, front, new, lanes, out):
    """A fresh random quotient for a new walk: the evenest (:func:`coverage_spread` up to the Moore diameter
    minus one, at most SCREEN_MAX_ARCS) of ``screen`` random ones; returns False when none was found."""
    best = np.inf
    keep = np.empty((3, ea.shape[0]), np.int64)
    for _ in range(max(screen, 1)):
        if not random_quotient(rng, ea, eb, et, nfixed, free, g, loops, 100):
            continue
        spread = coverage_spread(ea, eb, m, min(max(far_level - 2, 1), SCREEN_MAX_ARCS)) if screen > 1 else 0.0
        if spread < best:
            best = spread
            keep[0] = ea
            keep[1] = eb
            keep[2] = et
    if best == np.inf:
        return False
    ea[:] = keep[0]
    eb[:] = keep[1]
    et[:] = keep[2]
    until[:] = 0
    e = measure(ea, eb, et, m, g, far_level, wf, np.inf, src_lb, dm1, reach, front, new, lanes, out)
    fvars[F_CUR_E] = e
    fvars[F_WALK_E] = e
    ivars[I_CUR_LOST] = out[M_LOST]
    ivars[I_WALK] = 0
    ivars[I_SCAN] = 0
    ivars[I_SWAPS] = -1
    return True


@nb.njit(cache=True)
def _keep_if_best(ea, eb, et, best_ea, best_eb, best_et, obj, m, g, out, ivars, fvars):
    """Record the current lift when it beats the best one: (unreachable pairs, objective, distance sum)."""
    n = m * g
    lost = out[M_LOST]
    val = objective(obj, m, n, out[M_S], out[M_ECC], lost)
    better = (lost < ivars[I_BEST_LOST] or (lost == ivars[I_BEST_LOST] and (
        val < fvars[F_BEST_VAL] or (val == fvars[F_BEST_VAL] and out[M_S] < fvars[F_BEST_S]))))
    if better:
        best_ea[:] = ea
        best_eb[:] = eb
        best_et[:] = et
        ivars[I_BEST_LOST] = lost
        ivars[I_BEST_ECC] = out[M_ECC]
        ivars[I_BEST_FAR] = out[M_FAR]
        ivars[I_BEST_STEP] = ivars[I_STEP]
        fvars[F_BEST_VAL] = val
        fvars[F_BEST_S] = out[M_S]


@nb.njit(cache=True)
def start(rng, ea, eb, et, nfixed, free, obj, m, g, loops, screen, far_level, wf, src_lb, until, ivars, fvars, best_ea,
          best_eb, best_et, dm1, reach, front, new, lanes, out):
    """The first walk's random quotient, measured and kept as the best; False when none was found."""
    if not _start_walk(rng, ea, eb, et, nfixed, free, m, g, loops, screen, far_level, wf, src_lb, until, ivars, fvars,
                       dm1, reach, front, new, lanes, out):
        return False
    ivars[I_BEST_LOST] = np.iinfo(np.int64).max
    _keep_if_best(ea, eb, et, best_ea, best_eb, best_et, obj, m, g, out, ivars, fvars)
    return True


@nb.njit(cache=True)
def run(max_evals, max_steps, rng, seed_word, ea, eb, et, nfixed, free, pair_k, pair_l, obj, m, g, loops, screen,
        far_level, wf, src_lb, tenure, swap_share, walk_steps, until, ivars, fvars, best_ea, best_eb, best_et, dm1,
        reach, front, new, lanes, out):
    """Tabu steps until ``max_steps`` more steps are done or ``max_evals`` evaluations are spent.

    A step scans every single-voltage change of a free quotient edge and, in a share ``swap_share`` of
    the steps, every 2-opt swap of two free edges; it takes the best non-tabu move (a tabu one only when
    it beats the walk's best energy), ties broken by a hash, and makes the moved edges tabu for
    ``tenure`` to ``tenure + 2`` steps.  Every ``walk_steps`` steps (0: never) a new walk starts from
    fresh random voltages on the evenest of ``screen`` random quotients: on (512, 4), diameter-6 lifts
    turn up early in walks on even quotients (docs/graphgolf.md).  Returns (evaluations, steps done).
    """
    ne = ea.shape[0]
    nfree = ne - nfixed
    n_volt = nfree * g
    evals = 0
    steps = 0
    while steps < max_steps:
        step = ivars[I_STEP]
        if ivars[I_SWAPS] < 0:  # a new step (a resumed scan keeps its draw)
            # one voltage per edge (g = 1) leaves only swaps to move
            draw = rng_below(rng, 1_000_000) < swap_share * 1_000_000
            ivars[I_SWAPS] = 1 if pair_k.shape[0] > 0 and (g == 1 or draw) else 0
            ivars[I_MOVE] = -1
            fvars[F_MOVE_E] = np.inf
            fvars[F_MOVE_H] = 0.0
        n_cand = n_volt + (2 * pair_k.shape[0] if ivars[I_SWAPS] else 0)
        while ivars[I_SCAN] < n_cand:
            if evals >= max_evals:
                return evals, steps
            pos = ivars[I_SCAN]
            ivars[I_SCAN] = pos + 1
            if pos < n_volt:
                k = nfixed + pos // g
                v = pos % g
                old = et[k]
                if v == old:
                    continue
                et[k] = v
                ok = edge_ok(ea, eb, et, g, loops, k)
                tabu = until[k] > step
                l = -1
            else:
                q = (pos - n_volt) // 2
                o = (pos - n_volt) % 2
                k = nfixed + pair_k[q]
                l = nfixed + pair_l[q]
                _swap(ea, eb, k, l, o)
                ok = edge_ok(ea, eb, et, g, loops, k) and edge_ok(ea, eb, et, g, loops, l)
                tabu = until[k] > step or until[l] > step
            e = np.inf
            if ok:
                limit = fvars[F_MOVE_E]
                if tabu:
                    limit = min(limit, fvars[F_WALK_E])
                e = measure(ea, eb, et, m, g, far_level, wf, limit, src_lb, dm1, reach, front, new, lanes, out)
                evals += 1
                if tabu and e >= fvars[F_WALK_E]:
                    e = np.inf  # a tabu move only when it beats the walk's best (aspiration)
            if l < 0:
                et[k] = old
            else:
                _swap(ea, eb, k, l, o)
            if e < np.inf:
                h = float(_hash(seed_word, step, pos) >> np.uint64(11))
                if e < fvars[F_MOVE_E] or (e == fvars[F_MOVE_E] and h < fvars[F_MOVE_H]):
                    fvars[F_MOVE_E] = e
                    fvars[F_MOVE_H] = h
                    ivars[I_MOVE] = pos
        # the scan is complete: take its move
        pos = ivars[I_MOVE]
        ivars[I_SCAN] = 0
        ivars[I_SWAPS] = -1
        ivars[I_STEP] = step + 1
        steps += 1
        if pos < 0:
            continue  # every move tabu or invalid: the tabu list ages by one step
        hold = tenure + rng_below(rng, 3)
        if pos < n_volt:
            k = nfixed + pos // g
            et[k] = pos % g
            until[k] = step + 1 + hold
        else:
            q = (pos - n_volt) // 2
            k = nfixed + pair_k[q]
            l = nfixed + pair_l[q]
            _swap(ea, eb, k, l, (pos - n_volt) % 2)
            until[k] = step + 1 + hold
            until[l] = step + 1 + hold
        e = measure(ea, eb, et, m, g, far_level, wf, np.inf, src_lb, dm1, reach, front, new, lanes, out)
        fvars[F_CUR_E] = e
        ivars[I_CUR_LOST] = out[M_LOST]
        _keep_if_best(ea, eb, et, best_ea, best_eb, best_et, obj, m, g, out, ivars, fvars)
        if e < fvars[F_WALK_E]:
            fvars[F_WALK_E] = e
        ivars[I_WALK] += 1
        if walk_steps > 0 and ivars[I_WALK] >= walk_steps:
            if _start_walk(rng, ea, eb, et, nfixed, free, m, g, loops, screen, far_level, wf, src_lb, until, ivars,
                           fvars, dm1, reach, front, new, lanes, out):
                ivars[I_RESTARTS] += 1
                _keep_if_best(ea, eb, et, best_ea, best_eb, best_et, obj, m, g, out, ivars, fvars)
            else:
                ivars[I_WALK] = 0
    return evals, steps
