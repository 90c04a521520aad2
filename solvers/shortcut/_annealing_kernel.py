"""The compiled move loop of the ``annealing`` solver (not a solver module: no registration here).

One call of :func:`run_moves` performs up to ``max_evals`` Metropolis steps
on the shortcut set and returns; the Python side polls the budget, reports
improvements and moves the temperature schedule between calls.

State (all arrays, mutated in place; see :class:`hopbench.solvers.shortcut.annealing._State`):

* the current graph: padded adjacency ``nbr``/``nbc`` (base + shortcuts),
  adjacency matrix ``adj``, shortcut list ``sc[:k]``, vertices with a free
  port ``open_list[:open_cnt]`` (``open_pos`` is each vertex's index there,
  -1 when at the cap);
* a pool of distance matrices ``pool[b]`` with pair histograms ``hpool[b]``:
  ``cur`` holds the current graph's distances; ``slot_buf[i]`` (or -1)
  the buffer holding the distances of the current graph *without* shortcut
  i.  Those removal matrices are what makes a move cheap: every move of
  shortcut i (relocate, or move one end) is scored as one addition on
  ``D(G - s_i)``.  They are computed on demand with
  :func:`hopbench.harness.engine.dynamic.remove_edge_repair` and stay valid until
  the state changes; after an accepted move of shortcut i, the matrix of
  slot i is still valid (G' - s_i' = G - s_i), all others are dropped.
  Moves come in blocks of ``block`` proposals for the same shortcut, so one
  removal serves several proposals.
* a best state ``best_sc[:best_k]`` with its (unreachable pairs, energy).

Energies (lower is better; equal to the objective on connected graphs,
except ``diameter`` which adds the fraction of pairs at the diameter as a
tie-breaker below 1).  Unreachable pairs count as distance n (and the
diameter as n) so that disconnected states still have a slope.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import math

import numba as nb
import numpy as np

from hopbench.harness.engine.dynamic import (
    add_edge_inplace,
    addition_histogram_delta,
    addition_savings,
    histogram_summary,
    remove_edge_repair,
)

OBJ_CODES = {"aspl": 0, "diameter": 1, "golf": 2, "ad": 3}

# indices into the int64 `ivars` array (state scalars that the kernel updates)
I_K, I_BEST_K, I_CUR, I_OPEN, I_BLOCK_SLOT, I_BLOCK_LEFT, I_CAN_ADD, I_EVICT, I_BEST_Q, I_CUR_Q = range(10)
N_IVARS = 10
# indices into the int64 `stats` array (counters, cumulative)
S_EVALS, S_ACCEPTED, S_IMPROVED, S_REMOVALS, S_FAILED, S_ADD, S_RELOCATE, S_ENDPOINT, S_SWAP = range(9)
N_STATS = 9
# indices into the float64 `fvars` array
F_CUR_E, F_BEST_E = range(2)
N_FVARS = 2


# --------------------------------------------------------------------------- random numbers


@nb.njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@nb.njit(cache=True)
def rng_next(s):
    """xoshiro256** (Blackman & Vigna): the next 64 random bits from state ``s`` (uint64[4])."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@nb.njit(cache=True)
def rng_below(s, k):
    """Uniform integer in 0..k-1 (k >= 1; the modulo bias is below 2^-40 for any k we use)."""
    return np.int64((rng_next(s) >> np.uint64(11)) % np.uint64(k))


@nb.njit(cache=True)
def rng_unit(s):
    """Uniform float in [0, 1)."""
    return np.float64(rng_next(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# --------------------------------------------------------------------------- energy


@nb.njit(cache=True)
def energy(obj, n, q, total, diam, at_diam):
    """The annealing energy of a graph (see the module docstring)."""
    pairs = n * (n - 1) // 2
    if pairs == 0:
        return 0.0
    if q > 0:
        dm = float(n)
        at = float(q)
    else:
        dm = float(diam)
        at = float(at_diam)
    aspl = (float(total) + float(q) * n) / pairs
    if obj == 0:
        return aspl
    if obj == 1:
        return dm + at / (pairs + 1.0)
    if obj == 2:
        return dm + aspl / (dm + 1.0)
    return aspl * dm


@nb.njit(cache=True)
def _hist_energy(obj, n, hist):
    total, q, top, at = histogram_summary(hist)
    return energy(obj, n, q, total, top, at), q


# --------------------------------------------------------------------------- state helpers


@nb.njit(cache=True)
def _copy_buffer(pool, hpool, src, dst):
    a = pool[src].ravel()
    b = pool[dst].ravel()
    for i in range(a.shape[0]):
        b[i] = a[i]
    hpool[dst, :] = hpool[src, :]


@nb.njit(cache=True)
def _free_buffers(slot_buf, buf_slot, free, nfree, keep_slot):
    """Drop every cached removal matrix except the one of ``keep_slot``; return the free count."""
    for i in range(slot_buf.shape[0]):
        b = slot_buf[i]
        if b >= 0 and i != keep_slot:
            slot_buf[i] = -1
            buf_slot[b] = -1
            free[nfree] = b
            nfree += 1
    return nfree


@nb.njit(cache=True)
def _take_buffer(ivars, slot_buf, buf_slot, free, nfree, protect):
    """A free buffer (evicting a cached removal matrix other than ``protect``'s); returns (buffer, nfree)."""
    if nfree > 0:
        nfree -= 1
        return free[nfree], nfree
    nb_ = buf_slot.shape[0]
    for t in range(nb_):
        b = (ivars[I_EVICT] + t) % nb_
        s = buf_slot[b]
        if s >= 0 and s != protect:
            ivars[I_EVICT] = (b + 1) % nb_
            slot_buf[s] = -1
            buf_slot[b] = -1
            return b, nfree
    return -1, nfree  # pragma: no cover - the pool always has room (at least 4 buffers)


@nb.njit(cache=True)
def _set_open(open_list, open_pos, ivars, v, is_open):
    if is_open and open_pos[v] < 0:
        open_pos[v] = ivars[I_OPEN]
        open_list[ivars[I_OPEN]] = v
        ivars[I_OPEN] += 1
    elif not is_open and open_pos[v] >= 0:
        last = open_list[ivars[I_OPEN] - 1]
        p = open_pos[v]
        open_list[p] = last
        open_pos[last] = p
        open_pos[v] = -1
        ivars[I_OPEN] -= 1


@nb.njit(cache=True)
def _link(nbr, nbc, adj, u, v):
    nbr[u, nbc[u]] = v
    nbc[u] += 1
    nbr[v, nbc[v]] = u
    nbc[v] += 1
    adj[u, v] = 1
    adj[v, u] = 1


@nb.njit(cache=True)
def _unlink(nbr, nbc, adj, u, v):
    for a, b in ((u, v), (v, u)):
        for j in range(nbc[a]):
            if nbr[a, j] == b:
                nbr[a, j] = nbr[a, nbc[a] - 1]
                nbr[a, nbc[a] - 1] = -1
                nbc[a] -= 1
                break
    adj[u, v] = 0
    adj[v, u] = 0


@nb.njit(cache=True)
def _replace_edge(nbr, nbc, adj, open_list, open_pos, ivars, cap, a, b, c, d):
    """Current graph: shortcut a--b becomes c--d; keep the open-vertex list in step."""
    _unlink(nbr, nbc, adj, a, b)
    _link(nbr, nbc, adj, c, d)
    for v in (a, b, c, d):
        _set_open(open_list, open_pos, ivars, v, nbc[v] < cap)


# --------------------------------------------------------------------------- scoring


@nb.njit(cache=True)
def _score_addition(obj, n, D, hist, inf, c, d, dh):
    """(unreachable pairs, energy) of the graph of ``D`` plus edge c--d."""
    total, q, top, at = histogram_summary(hist)
    if q == 0:
        level = -1 if obj == 0 else top
        saved, shortened = addition_savings(D, c, d, level)
        if obj == 0 or at - shortened > 0:
            return 0, energy(obj, n, 0, total - saved, top, at - shortened)
    dh[:] = 0
    addition_histogram_delta(D, c, d, inf, dh)
    for i in range(dh.shape[0]):
        dh[i] += hist[i]
    e, q2 = _hist_energy(obj, n, dh)
    return q2, e


@nb.njit(cache=True)
def _better(q, e, best_q, best_e):
    return q < best_q or (q == best_q and e < best_e)


# --------------------------------------------------------------------------- the move loop


@nb.njit(cache=True)
def run_moves(max_evals, obj, cap, budget, inf, block, p_endpoint, p_swap, temp0, temp1, frac0, dfrac, scale_min,
              nbr, nbc, adj, sc, best_sc, open_list, open_pos, pool, hpool, slot_buf, buf_slot, free, ivars, fvars,
              stats, rng, ws, dh):
    """Up to ``max_evals`` evaluated moves at temperature ``E_best * t(frac)``.

    ``t(frac) = temp0 * (temp1 / temp0) ** frac`` with ``frac = frac0 + i *
    dfrac`` at the i-th evaluation of this call (clamped to [0, 1]).
    Returns the number of evaluations performed (0 when no move is possible).
    """
    n = nbr.shape[0]
    nfree = 0
    for b in range(free.shape[0]):
        if free[b] >= 0:
            nfree += 1
        else:
            break
    done = 0
    failures = 0
    while done < max_evals:
        frac = min(1.0, max(0.0, frac0 + done * dfrac))
        scale = max(fvars[F_BEST_E], scale_min)
        temp = scale * temp0 * (temp1 / temp0) ** frac
        k = ivars[I_K]
        cur = ivars[I_CUR]
        # ---- additions while the budget has room: never worse, so always accepted
        if k < budget and ivars[I_CAN_ADD] == 1:
            c, d = _draw_pair(rng, open_list, ivars[I_OPEN], adj, -1, -1, -1, -1)
            if c < 0:
                c, d = _scan_pair(open_list, ivars[I_OPEN], adj)
            if c < 0:
                ivars[I_CAN_ADD] = 0
            else:
                add_edge_inplace(pool[cur], c, d, inf, hpool[cur])
                _link(nbr, nbc, adj, c, d)
                _set_open(open_list, open_pos, ivars, c, nbc[c] < cap)
                _set_open(open_list, open_pos, ivars, d, nbc[d] < cap)
                sc[k, 0] = c
                sc[k, 1] = d
                ivars[I_K] = k + 1
                nfree = _free_buffers(slot_buf, buf_slot, free, nfree, -1)
                e, q = _hist_energy(obj, n, hpool[cur])
                fvars[F_CUR_E] = e
                ivars[I_CUR_Q] = q
                done += 1
                stats[S_EVALS] += 1
                stats[S_ACCEPTED] += 1
                stats[S_ADD] += 1
                if _better(q, e, ivars[I_BEST_Q], fvars[F_BEST_E]):
                    _save_best(sc, best_sc, ivars, fvars, q, e)
                    stats[S_IMPROVED] += 1
                continue
        if k == 0:
            break  # nothing to move and nothing to add
        if failures > 20 * k + 100:
            break  # no feasible move anywhere
        # ---- pick the shortcut of this block
        if ivars[I_BLOCK_LEFT] <= 0 or ivars[I_BLOCK_SLOT] >= k:
            ivars[I_BLOCK_SLOT] = rng_below(rng, k)
            ivars[I_BLOCK_LEFT] = block
        i = ivars[I_BLOCK_SLOT]
        ivars[I_BLOCK_LEFT] -= 1
        a = sc[i, 0]
        b = sc[i, 1]
        r = rng_unit(rng)
        kind = 2 if (r < p_swap and k >= 2) else (1 if r < p_swap + p_endpoint else 0)
        c = -1
        d = -1
        j = -1
        # a move that is impossible from here falls back on the others (relocate, endpoint, swap)
        for attempt in range(3):
            if kind == 0:
                c, d = _draw_pair(rng, open_list, ivars[I_OPEN], adj, a, b, nbc[a] >= cap, nbc[b] >= cap)
            elif kind == 1:
                c, d = _endpoint_move(rng, nbr, nbc, adj, cap, a, b)
            else:
                j, c, d = _swap_move(rng, sc, k, adj, i)
            if c >= 0:
                break
            kind = (kind + 1) % 3
        if c < 0:
            failures += 1
            ivars[I_BLOCK_LEFT] = 0
            stats[S_FAILED] += 1
            continue
        failures = 0
        # ---- the removal matrix of shortcut i
        if slot_buf[i] < 0:
            buf, nfree = _take_buffer(ivars, slot_buf, buf_slot, free, nfree, i)
            _copy_buffer(pool, hpool, cur, buf)
            remove_edge_repair(pool[buf], nbr, nbc, a, b, inf, hpool[buf], ws)
            slot_buf[i] = buf
            buf_slot[buf] = i
            stats[S_REMOVALS] += 1
        mb = slot_buf[i]
        # ---- score the move
        if kind != 2:
            q, e = _score_addition(obj, n, pool[mb], hpool[mb], inf, c, d, dh)
            scratch = -1
        else:
            # swap a--b, u--v into a--c', b--d' (c, d hold the partner of a and of b)
            u = sc[j, 0]
            v = sc[j, 1]
            scratch, nfree = _take_buffer(ivars, slot_buf, buf_slot, free, nfree, i)
            _copy_buffer(pool, hpool, mb, scratch)
            _unlink(nbr, nbc, adj, a, b)
            remove_edge_repair(pool[scratch], nbr, nbc, u, v, inf, hpool[scratch], ws)
            _link(nbr, nbc, adj, a, b)
            add_edge_inplace(pool[scratch], a, c, inf, hpool[scratch])
            q, e = _score_addition(obj, n, pool[scratch], hpool[scratch], inf, b, d, dh)
            stats[S_REMOVALS] += 1
        done += 1
        stats[S_EVALS] += 1
        stats[S_RELOCATE + kind] += 1
        de = e - fvars[F_CUR_E]
        if q != ivars[I_CUR_Q]:
            accept = q < ivars[I_CUR_Q]
        elif de <= 0.0:
            accept = True
        else:
            accept = temp > 0.0 and rng_unit(rng) < math.exp(-de / temp)
        if not accept:
            if scratch >= 0:
                free[nfree] = scratch
                nfree += 1
            continue
        # ---- commit
        stats[S_ACCEPTED] += 1
        if kind != 2:
            nb_, nfree = _take_buffer(ivars, slot_buf, buf_slot, free, nfree, i)
            _copy_buffer(pool, hpool, mb, nb_)
            add_edge_inplace(pool[nb_], c, d, inf, hpool[nb_])
            _replace_edge(nbr, nbc, adj, open_list, open_pos, ivars, cap, a, b, c, d)
            sc[i, 0] = c
            sc[i, 1] = d
            keep = i  # D(G' - s_i) = D(G - s_i): still valid
        else:
            add_edge_inplace(pool[scratch], b, d, inf, hpool[scratch])
            u = sc[j, 0]
            v = sc[j, 1]
            # both removals before both additions: no vertex goes over the cap on the way
            _unlink(nbr, nbc, adj, a, b)
            _unlink(nbr, nbc, adj, u, v)
            _link(nbr, nbc, adj, a, c)
            _link(nbr, nbc, adj, b, d)
            sc[i, 0] = a
            sc[i, 1] = c
            sc[j, 0] = b
            sc[j, 1] = d
            nb_ = scratch
            keep = -1
        free[nfree] = cur
        nfree += 1
        ivars[I_CUR] = nb_
        nfree = _free_buffers(slot_buf, buf_slot, free, nfree, keep)
        fvars[F_CUR_E] = e
        ivars[I_CUR_Q] = q
        ivars[I_CAN_ADD] = 1
        if _better(q, e, ivars[I_BEST_Q], fvars[F_BEST_E]):
            _save_best(sc, best_sc, ivars, fvars, q, e)
            stats[S_IMPROVED] += 1
    # hand the free list back in the layout the next call expects (free buffers first, then -1)
    for b in range(nfree, free.shape[0]):
        free[b] = -1
    return done


@nb.njit(cache=True)
def _save_best(sc, best_sc, ivars, fvars, q, e):
    k = ivars[I_K]
    for t in range(k):
        best_sc[t, 0] = sc[t, 0]
        best_sc[t, 1] = sc[t, 1]
    ivars[I_BEST_K] = k
    ivars[I_BEST_Q] = q
    fvars[F_BEST_E] = e


@nb.njit(cache=True)
def _draw_pair(rng, open_list, open_cnt, adj, a, b, a_full, b_full):
    """A random non-adjacent pair of vertices with a free port, in the graph without a--b.

    a and b (when given) count as open even if they are at the cap, since
    the move removes a--b first; the pair a--b itself is excluded.  Returns
    (-1, -1) after a bounded number of rejected draws.
    """
    extra = 0
    if a >= 0 and a_full:
        extra += 1
    if b >= 0 and b_full:
        extra += 1
    m = open_cnt + extra
    if m < 2:
        return -1, -1
    for t in range(64):
        i = rng_below(rng, m)
        j = rng_below(rng, m)
        if i == j:
            continue
        c = np.int64(_pick_open(open_list, open_cnt, i, a, b, a_full))
        d = np.int64(_pick_open(open_list, open_cnt, j, a, b, a_full))
        if (c == a and d == b) or (c == b and d == a):
            continue
        if adj[c, d] == 0:
            return (c, d) if c < d else (d, c)
    return -1, -1


@nb.njit(cache=True)
def _pick_open(open_list, open_cnt, i, a, b, a_full):
    if i < open_cnt:
        return open_list[i]
    if i == open_cnt and a_full:
        return a
    return b


@nb.njit(cache=True)
def _scan_pair(open_list, open_cnt, adj):
    """The first non-adjacent open pair, or (-1, -1): decides whether any addition is feasible."""
    for i in range(open_cnt):
        for j in range(i + 1, open_cnt):
            c = np.int64(open_list[i])
            d = np.int64(open_list[j])
            if adj[c, d] == 0:
                return (c, d) if c < d else (d, c)
    return -1, -1


@nb.njit(cache=True)
def _endpoint_move(rng, nbr, nbc, adj, cap, a, b):
    """Move one end of shortcut a--b to a neighbour of that end: (new pair) or (-1, -1)."""
    first = rng_below(rng, 2)
    for side in range(2):
        if (first + side) % 2 == 0:
            e = a
            f = b
        else:
            e = b
            f = a
        deg = nbc[e]
        if deg <= 1:
            continue
        start = rng_below(rng, deg)
        for t in range(deg):
            w = np.int64(nbr[e, (start + t) % deg])
            if w == f or nbc[w] >= cap or adj[f, w] != 0:
                continue
            return (f, w) if f < w else (w, f)
    return -1, -1


@nb.njit(cache=True)
def _swap_move(rng, sc, k, adj, i):
    """Exchange ends with another shortcut: a--b, u--v -> a--p, b--q; returns (j, p, q) or (-1, -1, -1).

    Degrees do not change, so this move stays possible when every port is
    taken (where relocations have nowhere to go).
    """
    a = sc[i, 0]
    b = sc[i, 1]
    for t in range(8):
        j = rng_below(rng, k)
        if j == i:
            continue
        u = sc[j, 0]
        v = sc[j, 1]
        if u == a or u == b or v == a or v == b:
            continue
        if rng_below(rng, 2) == 1:
            u, v = v, u
        if adj[a, u] == 0 and adj[b, v] == 0:
            return j, u, v
    return -1, -1, -1
