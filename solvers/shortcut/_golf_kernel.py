"""The compiled swap loop of the ``annealing`` solver when every port can be filled (not a solver
module: no registration here).  The Python side is :mod:`hopbench.solvers.shortcut._golf`.

The graph (graph golf's order/degree problem, or any base whose free ports the budget can all
fill) is kept near-regular, and the move is the degree-preserving 2-opt swap of two shortcut edges'
endpoints, scored by one exact bit-parallel BFS (:mod:`hopbench.harness.engine.bitparallel`).

**Orbits.**  With symmetry g (n = g m), vertex ``v = r + k m`` has representative ``r = v % m``
and shift ``k = v // m``; the edge set is invariant under ``v -> v + m (mod n)``.  The state is
the representatives' slot table ``radj[r, j]`` (a global vertex id): slot j of every vertex
``r + k m`` points at ``radj[r, j] + k m``.  Slots ``[rbase[r], rdeg[r])`` are shortcuts (they
move), the slots before them the base edges (fixed).  g = 1 is the plain graph (m = n, every
shift 0), and the same code serves both.  An edge orbit {(a + k m, b + k m)} owns one slot at
a's representative and one at b's; no orbit may be its own reverse (``b = a + n/2``), so every
orbit has g edges and the slot table stays a perfect pairing.

**Moves.**  Pick two shortcut slots and a rotation t: edges (a, b) and (c, d) (the second
rotated by t m, its orientation random) become (a, d) and (b, c) — the 2-opt swap, acting on
whole orbits.  The four slots involved are rewritten; a move that would make a self-loop or a
multi-edge (or touch a slot twice) is undone before any evaluation and not counted.  Two
slots of the same orbit (g > 1) instead move one end along its orbit: (a, b) -> (a, b + t m).

**Evaluation.**  BFS from the m representatives (all n vertices when g = 1): by symmetry their
distance sum S, times g, is the ordered all-pairs sum, and their eccentricities give the
diameter.  All quantities below count (representative source, vertex) pairs.

**Acceptance** (lexicographic, like graph golf's order):  fewer unreachable pairs R first (a
disconnected state is worse than any connected one, and ordered by R, as the harness orders
them); then, for ``golf`` and ``diameter``, the diameter D is rigid — a move that lengthens it is
rejected and one that shortens it accepted (as ODP's SA does); then Metropolis on the energy

    E = S + lambda * H      (H: pairs at the current diameter D; lambda > 0 only while D is above
                             the Moore bound, so that a shorter diameter has a slope to follow)

for ``golf`` (``diameter`` uses lambda = n: the count at the diameter first), ``E = S`` for
``aspl`` and ``E = S * D / D0`` for ``ad``.  The uniform draw comes *before* the evaluation: the
move is accepted iff ``E_new <= E_cur + T * Exp(1)`` — exactly Metropolis — so the BFS stops as
soon as a lower bound on ``E_new`` (after level L, every unreached pair is at least L + 1 away;
every source not yet searched costs at least the Moore-tree sum) passes that threshold and no
new best state is possible either.  With the rigid diameter, level D - 1 already decides most
moves: the remaining pairs must all be at distance D.

Why this energy: the rigid diameter is graph golf's order itself (no state with a longer diameter
is ever worth returning), it makes the last BFS level a yes/no check, and it keeps the
temperature on one scale (pair distances) from start to end; a soft penalty for diameters above
the best would need a weight that dominates the whole distance sum.  The only pressure toward a
shorter diameter is the optional ``lambda`` (``diameter_weight``, default 0): measured on
(1024, 4) at 20 s, lambda = 1, 4, 16 neither reached diameter 7 nor improved the ASPL (5.4738,
5.4745, 5.4838 against 5.4715), while small symmetric orbits (``symmetry=0``) reach 7.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import math

import numba as nb
import numpy as np

from hopbench.harness.engine.bitops import popcount64
from hopbench.harness.engine.bitparallel import _ALL, expand, expand_complete, seed_sources
from hopbench.solvers.shortcut._annealing_kernel import OBJ_CODES, _better, energy, rng_below, rng_unit

# int64 state scalars (I_LV_VALID: whether the incremental evaluation's stored levels describe the
# current graph: 1 yes, 0 stale, -1 not storable until the state changes)
I_CUR_R, I_CUR_D, I_BEST_R, I_BEST_D, I_LV_VALID = range(5)
N_IVARS = 5
# float64 state scalars
F_CUR_E, F_CUR_S, F_CUR_H, F_BEST_TRUE, F_MAXDIFF, F_BEST_S = range(6)
N_FVARS = 6
# cumulative counters
S_EVALS, S_ACCEPTED, S_IMPROVED, S_EARLY, S_TOO_LONG, S_FAILED, S_ROTATIONS, S_INCREMENTAL = range(8)
N_STATS = 8

ST_EXACT, ST_EARLY, ST_WORSE = 0, 1, 2


# --------------------------------------------------------------------------- slots


@nb.njit(cache=True)
def _wrap(x, n):
    x %= n
    return x + n if x < 0 else x


@nb.njit(cache=True)
def _find_slot(radj, rbase, rdeg, r, target):
    for j in range(rbase[r], rdeg[r]):
        if radj[r, j] == target:
            return j
    return -1


@nb.njit(cache=True)
def _slot_ok(radj, rdeg, r, j):
    """No self-loop and no second slot of r with the same target."""
    w = radj[r, j]
    if w == r:
        return False
    for k in range(rdeg[r]):
        if k != j and radj[r, k] == w:
            return False
    return True


@nb.njit(cache=True)
def _sync(radj, nbr, m, n, r, j):
    """Copy slot (r, j) to the g vertices of r's orbit."""
    x = radj[r, j]
    v = r
    while v < n:
        nbr[v, j] = x
        x += m
        if x >= n:
            x -= n
        v += m


@nb.njit(cache=True)
def undo_move(radj, nbr, m, n, undo, count):
    for i in range(count - 1, -1, -1):
        radj[undo[i, 0], undo[i, 1]] = undo[i, 2]
    for i in range(count):
        _sync(radj, nbr, m, n, undo[i, 0], undo[i, 1])


@nb.njit(cache=True)
def _commit(radj, rdeg, nbr, m, n, rs, js, ts, k, undo):
    """Write targets ts to slots (rs, js); keep them (returning k) or restore them (returning 0)."""
    for i in range(k):
        for i2 in range(i):
            if rs[i] == rs[i2] and js[i] == js[i2]:
                return 0
    for i in range(k):
        undo[i, 0] = rs[i]
        undo[i, 1] = js[i]
        undo[i, 2] = radj[rs[i], js[i]]
        radj[rs[i], js[i]] = ts[i]
    ok = True
    for i in range(k):
        if not _slot_ok(radj, rdeg, rs[i], js[i]):
            ok = False
            break
    if not ok:
        for i in range(k - 1, -1, -1):
            radj[undo[i, 0], undo[i, 1]] = undo[i, 2]
        return 0
    for i in range(k):
        _sync(radj, nbr, m, n, rs[i], js[i])
    return k


@nb.njit(cache=True)
def try_move(radj, rbase, rdeg, nbr, m, n, g, i0, i1, t, flip, slots, undo):
    """The swap (or, for two slots of one orbit, the rotation) of shortcut slots i0, i1 with
    rotation t; returns how many slots it rewrote (0: not a valid move, nothing changed)."""
    r0 = slots[i0, 0]
    j0 = slots[i0, 1]
    a = r0
    b = radj[r0, j0]
    rs = np.empty(4, np.int64)
    js = np.empty(4, np.int64)
    ts = np.empty(4, np.int64)
    if i0 == i1:
        if g == 1 or t == 0:
            return 0
        # rotation of one end along its orbit: (a, b) -> (a, b + t m)
        rb = b % m
        kb = b // m
        jb = _find_slot(radj, rbase, rdeg, rb, _wrap(a - kb * m, n))
        if jb < 0:
            return 0
        nb_ = _wrap(b + t * m, n)
        rs[0] = r0
        js[0] = j0
        ts[0] = nb_
        rs[1] = rb
        js[1] = jb
        ts[1] = _wrap(a - (nb_ // m) * m, n)
        return _commit(radj, rdeg, nbr, m, n, rs, js, ts, 2, undo)
    r1 = slots[i1, 0]
    j1 = slots[i1, 1]
    c = r1 + t * m
    d = _wrap(radj[r1, j1] + t * m, n)
    if flip:
        c, d = d, c
    if a == d or b == c:
        return 0
    # (a, b), (c, d) -> (a, d), (b, c)
    rb = b % m
    rc = c % m
    rd = d % m
    kb = b // m
    kc = c // m
    kd = d // m
    jb = _find_slot(radj, rbase, rdeg, rb, _wrap(a - kb * m, n))
    jc = _find_slot(radj, rbase, rdeg, rc, _wrap(d - kc * m, n))
    jd = _find_slot(radj, rbase, rdeg, rd, _wrap(c - kd * m, n))
    if jb < 0 or jc < 0 or jd < 0:
        return 0
    rs[0] = r0
    js[0] = j0
    ts[0] = d
    rs[1] = rd
    js[1] = jd
    ts[1] = _wrap(a - kd * m, n)
    rs[2] = rb
    js[2] = jb
    ts[2] = _wrap(c - kb * m, n)
    rs[3] = rc
    js[3] = jc
    ts[3] = _wrap(b - kc * m, n)
    return _commit(radj, rdeg, nbr, m, n, rs, js, ts, 4, undo)


@nb.njit(cache=True)
def draw_move(rng, radj, rbase, rdeg, nbr, m, n, g, slots, undo):
    """One random move (see :func:`try_move`); returns how many slots it rewrote (0: none)."""
    ns = slots.shape[0]
    i0 = rng_below(rng, ns)
    i1 = rng_below(rng, ns)
    t = rng_below(rng, g) if g > 1 else 0
    flip = rng_below(rng, 2) == 1
    return try_move(radj, rbase, rdeg, nbr, m, n, g, i0, i1, t, flip, slots, undo)


# --------------------------------------------------------------------------- evaluation


@nb.njit(cache=True)
def sa_energy(obj, S, D, H, lam, dscale):
    """The annealing energy (see the module docstring)."""
    if obj == 0:
        return float(S)
    if obj == 3:
        return float(S) * D / dscale
    return float(S) + lam * H


@nb.njit(cache=True)
def true_energy(obj, n, g, R, S, D, H):
    """The harness's order of solutions (the annealing kernel's ``energy``) from source-pair counts."""
    return energy(obj, n, (g * R) // 2, (g * S) // 2, D, (g * H) // 2)


@nb.njit(cache=True)
def evaluate(nbr, deg, m, A, B, hist, cap, cur_r, early, e_max, best_true, obj, lam, dscale, g, src_lb, out):
    """Exact BFS from the m representatives, level by level.

    Returns ST_EXACT with ``out = (S, D, H, R)``; ST_WORSE when the graph is disconnected while
    the current one is not, or (``cap`` <= n) a distance passes ``cap``; ST_EARLY when ``early``
    and the bounds show the move can be neither accepted (energy above ``e_max``) nor a new best.
    """
    n = nbr.shape[0]
    words = A.shape[1]
    per = 64 * words
    for i in range(hist.shape[0]):
        hist[i] = 0
    S = 0
    R = 0
    top = 0
    for b0 in range(0, m, per):
        b1 = min(m, b0 + per)
        pad = seed_sources(A, b0, b1)
        goal = n * per
        reached = (b1 - b0) + pad * n
        rest = m - b1
        level = 0
        while reached < goal:
            level += 1
            if level >= cap:
                # the last level allowed: every remaining pair must be exactly here
                if not expand_complete(nbr, deg, A, B):
                    return ST_WORSE
                cnt = goal - reached
                hist[level] += cnt
                S += level * cnt
                top = max(top, level)
                reached = goal
                break
            now = expand(nbr, deg, A, B)
            cnt = now - reached
            if cnt == 0:
                if cur_r == 0:
                    return ST_WORSE
                break
            hist[level] += cnt
            S += level * cnt
            top = max(top, level)
            reached = now
            A, B = B, A
            if early and reached < goal:
                left = goal - reached
                lb_s = S + (level + 1) * left + rest * src_lb
                lb_d = max(top, level + 1)
                lb_h = hist[cap] if cap < hist.shape[0] else 0
                if level + 1 == cap:
                    lb_h += left
                if (sa_energy(obj, lb_s, lb_d, lb_h, lam, dscale) > e_max
                        and true_energy(obj, n, g, 0, lb_s, lb_d, lb_h if lb_d == cap else 0) >= best_true):
                    return ST_EARLY
        R += goal - reached
        if early and rest > 0:
            lb_s = S + rest * src_lb
            lb_h = hist[cap] if cap < hist.shape[0] else 0
            if (sa_energy(obj, lb_s, top, lb_h, lam, dscale) > e_max
                    and true_energy(obj, n, g, 0, lb_s, top, lb_h if top == cap else 0) >= best_true):
                return ST_EARLY
    out[0] = S
    out[1] = top
    out[2] = hist[top]
    out[3] = R
    return ST_EXACT


# --------------------------------------------------------------------------- incremental levels
#
# A move rewrites the slots of a few representatives; the vertices T whose neighbour lists changed
# are their orbits.  Level L of the BFS (the bitset of sources that reached each vertex within L
# hops) can only differ from the current graph's for vertices in T, in C_{L-1} (those that differed
# at level L - 1) or next to C_{L-1}.  So with every level of the current graph stored (``LV``), a
# move costs only those rows while that set is small: on an expander it holds the 4 endpoints at
# level 1 and their neighbourhoods at level 2, and covers most of the graph two or three levels
# later, where the evaluation switches to full levels.  Changed rows are written in place (an undo
# log restores them when the move is rejected); full levels go to the spare copy of their level
# (``sel[L]`` says which of the two copies is current), swapped in when the move is accepted.
# Used when all sources fit one batch, the current graph is connected and its diameter is rigid
# (golf, diameter): then no level past the current diameter is ever needed.

#: switch to full levels once the rows to recompute pass this share of the vertices
INC_FULL_SHARE = 0.5


@nb.njit(cache=True)
def rebuild_levels(nbr, deg, m, LV, sel, P):
    """Store every BFS level of the current graph; returns its diameter, or -1 when it is
    disconnected or needs more levels than ``LV`` holds."""
    lmax = LV.shape[1] - 1
    words = LV.shape[3]
    n = nbr.shape[0]
    pad = seed_sources(LV[sel[0], 0], 0, m)
    P[0] = m + pad * n
    goal = n * 64 * words
    L = 0
    while P[L] < goal:
        L += 1
        if L > lmax:
            return -1
        P[L] = expand(nbr, deg, LV[sel[L - 1], L - 1], LV[sel[L], L])
        if P[L] == P[L - 1]:
            return -1
    return L


@nb.njit(cache=True)
def _restore_log(LV, sel, ulv, uv, urows, nlog):
    words = LV.shape[3]
    for i in range(nlog - 1, -1, -1):
        L = ulv[i]
        row = LV[sel[L], L, uv[i]]
        for w in range(words):
            row[w] = urows[i, w]


@nb.njit(cache=True)
def evaluate_inc(nbr, deg, m, g, inc, undo, k, cap, early, e_max, best_true, obj, lam, dscale, hist, out):
    """:func:`evaluate` for one batch, a connected current graph and a rigid diameter ``cap``, from
    the stored levels; returns (status, undo-log length).  On ST_EXACT the changed rows stay written
    (commit with :func:`commit_inc`, or restore with :func:`_restore_log`); otherwise restored."""
    LV, sel, P, Pn, ysel, mark, tl, cprev, ccur, klist, ulv, uv, urows, stamp = inc
    n = nbr.shape[0]
    words = LV.shape[3]
    goal = n * 64 * words
    # T: the orbits of the rewritten representatives
    nt = 0
    for i in range(k):
        v = undo[i, 0]
        while v < n:
            tl[nt] = v
            nt += 1
            v += m
    for i in range(cap + 1):
        hist[i] = 0
    Pn[0] = P[0]
    ysel[0] = sel[0]
    nlog = 0
    ncp = 0
    full = False
    S = 0
    top = 0
    reached = P[0]
    L = 0
    buf = np.empty(words, np.uint64)
    while reached < goal:
        L += 1
        Yp = LV[ysel[L - 1], L - 1]
        nk = 0
        if not full:
            stamp[0] += 1
            st = stamp[0]
            for i in range(nt):
                v = tl[i]
                if mark[v] != st:
                    mark[v] = st
                    klist[nk] = v
                    nk += 1
            for i in range(ncp):
                u = cprev[i]
                if mark[u] != st:
                    mark[u] = st
                    klist[nk] = u
                    nk += 1
                for j in range(deg[u]):
                    w = nbr[u, j]
                    if mark[w] != st:
                        mark[w] = st
                        klist[nk] = w
                        nk += 1
            if L < cap and nk > INC_FULL_SHARE * n:
                full = True
        if L >= cap:
            # the last level allowed: every remaining pair must be reached here
            if full:
                ok = expand_complete(nbr, deg, Yp, Yp)
            else:
                ok = True
                for i in range(nk):
                    v = klist[i]
                    for w in range(words):
                        acc = Yp[v, w]
                        for j in range(deg[v]):
                            acc |= Yp[nbr[v, j], w]
                        if acc != _ALL:
                            ok = False
                            break
                    if not ok:
                        break
            if not ok:
                _restore_log(LV, sel, ulv, uv, urows, nlog)
                return ST_WORSE, 0
            cnt = goal - reached
            hist[L] += cnt
            S += L * cnt
            top = L
            reached = goal
            Pn[L] = goal
            ysel[L] = sel[L]
            break
        if full:
            dst = 1 - sel[L]
            ysel[L] = dst
            Pn[L] = expand(nbr, deg, Yp, LV[dst, L])
        else:
            ysel[L] = sel[L]
            X = LV[sel[L], L]
            pn = P[L]
            nc = 0
            for i in range(nk):
                v = klist[i]
                same = True
                for w in range(words):
                    acc = Yp[v, w]
                    for j in range(deg[v]):
                        acc |= Yp[nbr[v, j], w]
                    buf[w] = acc
                    if acc != X[v, w]:
                        same = False
                if same:
                    continue
                ulv[nlog] = L
                uv[nlog] = v
                for w in range(words):
                    urows[nlog, w] = X[v, w]
                    pn += popcount64(buf[w]) - popcount64(X[v, w])
                    X[v, w] = buf[w]
                nlog += 1
                ccur[nc] = v
                nc += 1
            Pn[L] = pn
            cprev, ccur = ccur, cprev
            ncp = nc
        cnt = Pn[L] - reached
        if cnt == 0:
            _restore_log(LV, sel, ulv, uv, urows, nlog)
            return ST_WORSE, 0
        hist[L] += cnt
        S += L * cnt
        top = L
        reached = Pn[L]
        if early and reached < goal:
            left = goal - reached
            lb_s = S + (L + 1) * left
            lb_d = L + 1
            lb_h = left if L + 1 == cap else 0
            if (sa_energy(obj, lb_s, lb_d, lb_h, lam, dscale) > e_max
                    and true_energy(obj, n, g, 0, lb_s, lb_d, lb_h if lb_d == cap else 0) >= best_true):
                _restore_log(LV, sel, ulv, uv, urows, nlog)
                return ST_EARLY, 0
    out[0] = S
    out[1] = top
    out[2] = hist[top]
    out[3] = 0
    return ST_EXACT, nlog


@nb.njit(cache=True)
def commit_inc(inc, top):
    """The evaluated move was accepted: its levels become the stored ones."""
    sel, P, Pn, ysel = inc[1], inc[2], inc[3], inc[4]
    for L in range(top + 1):
        sel[L] = ysel[L]
        P[L] = Pn[L]


@nb.njit(cache=True)
def lam_for(obj, D, lb_diam, lam, n):
    if obj == 1:
        return float(n)
    if obj == 2 and D > lb_diam:
        return lam
    return 0.0


@nb.njit(cache=True)
def measure(nbr, deg, m, A, B, hist, g, obj, lb_diam, lam, dscale, ivars, fvars, out):
    """Measure the current graph exactly and make it the current state (not the best)."""
    n = nbr.shape[0]
    evaluate(nbr, deg, m, A, B, hist, n + 1, 1, False, 0.0, 0.0, obj, 0.0, dscale, g, 0, out)
    S, D, H, R = out[0], out[1], out[2], out[3]
    ivars[I_CUR_R] = R
    ivars[I_CUR_D] = D
    fvars[F_CUR_S] = S
    fvars[F_CUR_H] = H
    fvars[F_CUR_E] = sa_energy(obj, S, D, H, lam_for(obj, D, lb_diam, lam, n), dscale)
    return true_energy(obj, n, g, R, S, D, H)


@nb.njit(cache=True)
def _save_best(radj, best_radj, ivars, fvars, R, D, S, e):
    best_radj[:, :] = radj
    ivars[I_BEST_R] = R
    ivars[I_BEST_D] = D
    fvars[F_BEST_TRUE] = e
    fvars[F_BEST_S] = S


# --------------------------------------------------------------------------- the move loop


@nb.njit(cache=True)
def run_swaps(max_evals, obj, g, lam, lb_diam, src_lb, dscale, temp0, temp1, frac0, dfrac, calibrate, exit_early,
              incremental, radj, rbase, rdeg, nbr, deg, slots, best_radj, A, B, hist, ivars, fvars, stats, rng, undo,
              out, inc):
    """Up to ``max_evals`` evaluated moves at ``T = temp0 (temp1/temp0)^frac``, ``frac = frac0 +
    i * dfrac`` at the i-th evaluation (clamped to [0, 1]).  ``calibrate``: greedy, no early
    exit, and ``fvars[F_MAXDIFF]`` records the largest energy rise seen (the start temperature).
    ``exit_early`` False evaluates every move to the end (the same decisions, only slower: the
    tests check that the early exit never changes the trajectory).  ``incremental`` uses the stored
    levels ``inc`` where they apply (the same numbers as a full BFS).

    Returns the evaluations performed (fewer only when no valid move can be drawn).
    """
    n = nbr.shape[0]
    m = radj.shape[0]
    ns = slots.shape[0]
    done = 0
    failures = 0
    rigid_obj = obj == 1 or obj == 2
    LV, sel, P = inc[0], inc[1], inc[2]
    one_batch = m <= 64 * A.shape[1] and LV.shape[2] == n
    lmax = LV.shape[1] - 1
    while done < max_evals:
        if ns < 2 and g == 1:
            break
        if (incremental and one_batch and rigid_obj and ivars[I_CUR_R] == 0 and ivars[I_CUR_D] <= lmax
                and ivars[I_LV_VALID] == 0):
            # the stored levels are stale (the start, a reheat, or a move scored by a full BFS)
            ivars[I_LV_VALID] = 1 if rebuild_levels(nbr, deg, m, LV, sel, P) == ivars[I_CUR_D] else -1
        k = draw_move(rng, radj, rbase, rdeg, nbr, m, n, g, slots, undo)
        if k == 0:
            failures += 1
            stats[S_FAILED] += 1
            if failures > 1000 + 100 * ns:
                break
            continue
        failures = 0
        if k == 2:
            stats[S_ROTATIONS] += 1
        frac = min(1.0, max(0.0, frac0 + done * dfrac))
        temp = 0.0
        if temp0 > 0.0 and not calibrate:
            temp = temp0 * (temp1 / temp0) ** frac
        cur_r = ivars[I_CUR_R]
        cur_d = ivars[I_CUR_D]
        rigid = rigid_obj and cur_r == 0
        cap = cur_d if rigid else n + 1
        lam_eff = lam_for(obj, cur_d, lb_diam, lam, n)
        e_cur = fvars[F_CUR_E]
        if calibrate:
            e_max = np.inf
            early = False
        else:
            u = rng_unit(rng)
            e_max = e_cur - temp * math.log1p(-u) if temp > 0.0 else e_cur
            early = exit_early and cur_r == 0
        use_inc = incremental and one_batch and rigid and cur_d <= lmax and ivars[I_LV_VALID] == 1
        nlog = 0
        if use_inc:
            status, nlog = evaluate_inc(nbr, deg, m, g, inc, undo, k, cap, early, e_max, fvars[F_BEST_TRUE], obj,
                                        lam_eff, dscale, hist, out)
            stats[S_INCREMENTAL] += 1
        else:
            status = evaluate(nbr, deg, m, A, B, hist, cap, cur_r, early, e_max, fvars[F_BEST_TRUE], obj, lam_eff,
                              dscale, g, src_lb, out)
        done += 1
        stats[S_EVALS] += 1
        accept = False
        if status == ST_EARLY:
            stats[S_EARLY] += 1
        elif status == ST_WORSE:
            stats[S_TOO_LONG] += 1
        else:
            S, D, H, R = out[0], out[1], out[2], out[3]
            e_new = sa_energy(obj, S, D, H, lam_eff, dscale)
            if R < cur_r:
                accept = True
            elif R == cur_r:
                if rigid and D < cur_d:
                    accept = True
                else:
                    if calibrate and e_new > e_cur:
                        fvars[F_MAXDIFF] = max(fvars[F_MAXDIFF], e_new - e_cur)
                        accept = False
                    else:
                        accept = e_new <= e_max
            t_new = true_energy(obj, n, g, R, S, D, H)
            rq = (g * R) // 2
            bq = (g * ivars[I_BEST_R]) // 2
            if _better(rq, t_new, bq, fvars[F_BEST_TRUE]):
                _save_best(radj, best_radj, ivars, fvars, R, D, S, t_new)
                stats[S_IMPROVED] += 1
            if accept:
                ivars[I_CUR_R] = R
                ivars[I_CUR_D] = D
                fvars[F_CUR_S] = S
                fvars[F_CUR_H] = H
                fvars[F_CUR_E] = sa_energy(obj, S, D, H, lam_for(obj, D, lb_diam, lam, n), dscale)
        if accept:
            stats[S_ACCEPTED] += 1
            if use_inc:
                commit_inc(inc, out[1])
            else:
                ivars[I_LV_VALID] = 0
        else:
            if use_inc and status == ST_EXACT:
                _restore_log(LV, sel, inc[10], inc[11], inc[12], nlog)
            undo_move(radj, nbr, m, n, undo, k)
    return done


# --------------------------------------------------------------------------- the start


@nb.njit(cache=True)
def random_fill(rng, radj, rbase, rdeg, m, n, g, attempts):
    """Fill every shortcut slot ``[rbase[r], rdeg[r])`` with random orbit pairs: no self-loop, no
    multi-edge, no orbit that is its own reverse.  When the slot count is odd (g = 1 only), the last
    unfilled slot is dropped (``rdeg`` of its vertex goes down by one).  Returns False when
    ``attempts`` random restarts all got stuck.
    """
    total = 0
    for r in range(m):
        total += rdeg[r] - rbase[r]
    open_r = np.empty(total, np.int64)
    open_j = np.empty(total, np.int64)
    for attempt in range(attempts):
        cnt = 0
        for r in range(m):
            for j in range(rbase[r], rdeg[r]):
                radj[r, j] = -1
                open_r[cnt] = r
                open_j[cnt] = j
                cnt += 1
        stuck = False
        while cnt >= 2:
            # take a random open slot, pair it with a random other open slot and a random rotation
            p = rng_below(rng, cnt)
            r = open_r[p]
            j = open_j[p]
            done = False
            for _ in range(64):
                q = rng_below(rng, cnt)
                if q == p:
                    continue
                r2 = open_r[q]
                j2 = open_j[q]
                k = rng_below(rng, g) if g > 1 else 0
                w = r2 + k * m
                w2 = _wrap(r - k * m, n)
                if w == r:
                    continue
                if r2 == r and w2 == w:
                    continue  # its own reverse (b = a + n/2)
                dup = False
                for s in range(rdeg[r]):
                    if radj[r, s] == w:
                        dup = True
                        break
                if not dup:
                    for s in range(rdeg[r2]):
                        if radj[r2, s] == w2:
                            dup = True
                            break
                if dup:
                    continue
                radj[r, j] = w
                radj[r2, j2] = w2
                # remove p and q from the open list (larger index first)
                hi = max(p, q)
                lo = min(p, q)
                open_r[hi] = open_r[cnt - 1]
                open_j[hi] = open_j[cnt - 1]
                cnt -= 1
                open_r[lo] = open_r[cnt - 1]
                open_j[lo] = open_j[cnt - 1]
                cnt -= 1
                done = True
                break
            if not done:
                stuck = True
                break
        if stuck:
            continue
        if cnt == 1:
            if g > 1:
                continue  # cannot happen when the Python side checked the parity
            r = open_r[0]
            j = open_j[0]
            last = rdeg[r] - 1
            radj[r, j] = radj[r, last]
            radj[r, last] = -1
            rdeg[r] = last
        return True
    return False


@nb.njit(cache=True)
def components(nbr, deg, label):
    """Connected components of the padded graph; returns their count (label[v] = component)."""
    n = nbr.shape[0]
    for v in range(n):
        label[v] = -1
    queue = np.empty(n, np.int64)
    count = 0
    for s in range(n):
        if label[s] >= 0:
            continue
        label[s] = count
        queue[0] = s
        head = 0
        tail = 1
        while head < tail:
            u = queue[head]
            head += 1
            for j in range(deg[u]):
                w = nbr[u, j]
                if label[w] < 0:
                    label[w] = count
                    queue[tail] = w
                    tail += 1
        count += 1
    return count


@nb.njit(cache=True)
def connect(rng, radj, rbase, rdeg, nbr, deg, m, n, g, slots, undo, max_moves):
    """Swap shortcut orbits across components until the graph is connected (or ``max_moves``
    swaps were tried); returns the final component count."""
    label = np.empty(n, np.int64)
    ns = slots.shape[0]
    count = components(nbr, deg, label)
    tries = 0
    while count > 1 and tries < max_moves and ns >= 1:
        tries += 1
        i0 = rng_below(rng, ns)
        i1 = rng_below(rng, ns)
        t = rng_below(rng, g) if g > 1 else 0
        flip = rng_below(rng, 2) == 1
        c = slots[i1, 0] + t * m
        if label[slots[i0, 0]] == label[c]:
            continue
        if try_move(radj, rbase, rdeg, nbr, m, n, g, i0, i1, t, flip, slots, undo) > 0:
            count = components(nbr, deg, label)
    return count
