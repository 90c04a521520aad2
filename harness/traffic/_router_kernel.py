"""The compiled cycle loop of the simulator: input-queued virtual-channel routers, credit flow control.

Everything is flat numpy arrays, so one call advances the whole network by many cycles without
returning to Python.  Units:

* **input units** ``0..C-1`` are the network channels (channel ``c`` = ``u -> v`` is buffered at
  ``v``), ``C..C+H-1`` the hosts' injection ports;
* **output units** ``0..C-1`` are the same channels seen from their upstream switch,
  ``C..C+H-1`` the ejection ports to the hosts;
* a VC slot is ``unit * V + vc``; an input VC's FIFO is ``B`` flit codes
  (``packet * P + flit index``) with the cycle each flit arrived.

Per cycle, in this order: flits and credits that reach the end of their channel are delivered;
head flits are routed; input VCs that wait for an output VC are allocated one (in a rotating
order, best free candidate first, escape candidates only when no other is free); each switch's
separable round-robin switch allocator moves at most one flit per input and per output port;
hosts inject a flit; new packets are generated (Bernoulli).  When a head is routed, a key marked
``cand_random == 1`` picks one candidate at random (BookSim's tie-breaks) and one marked 2 makes the
UGAL choice (:func:`_ugal_choice`: queued flits x path hops, from the output credits of that cycle);
every other key leaves the choice to VC allocation.

Timing of a head flit that reaches an input buffer in cycle ``a``: VC allocation from cycle
``a + routing_delay``; switch allocation from ``vc_grant + vc_alloc_delay``; a flit that wins the
switch in cycle ``y`` reaches the next input buffer in cycle ``y + sw_alloc_delay +
st_final_delay + channel_latency``; its credit reaches the upstream router in ``y + credit_delay
+ channel_latency``.  A body flit may bid for the switch in the cycle it arrives, one flit per VC
per cycle; a head that was queued behind a tail leaving in cycle ``y`` is routed from ``y + 1``.
These are BookSim's iq_router stage timings (5 cycles a hop at zero load with its defaults and
1-cycle channels; checked against BookSim in tests/benchmarks/compare_booksim.py).

With an internal speedup ``s > 1`` (BookSim's ``internal_speedup``) steps 2-4 run ``s`` times a cycle,
in internal steps ``tau = t * s + k``, and the router delays above count internal steps: so an input
port may send up to ``s`` flits a cycle and an output receive as many.  What an output receives waits
in its output queue (at most ``V x B`` flits), which its channel drains one flit a cycle in arrival
order; the credits an input returns wait likewise and go back upstream one a cycle (BookSim's credit
buffer), which slows multi-flit packets whose body flits leave two a cycle.  At ``s = 2`` with BookSim's
delays a hop takes 3 cycles at zero load, as BookSim's does.
"""
from __future__ import annotations

import hopbench.harness._threading  # noqa: F401  (OpenMP policy before numba loads)

import numpy as np
from numba import njit

IDLE = 0
ROUTING = 1
VC_ALLOC = 2
ACTIVE = 3

#: status codes returned by :func:`run_cycles`
RUNNING = 0
DEADLOCK = 1

# indices into the ``timing`` array
T_ROUTING, T_VC_ALLOC, T_SW_ALLOC, T_ST_FINAL, T_CREDIT, T_CHANNEL, T_INJECT, T_EJECT = range(8)
# indices into the ``flags`` array
F_VCT, F_WAIT_TAIL, F_PACKET_SIZE, F_MEASURE, F_DEADLOCK_CYCLES, F_WHEEL, F_QUEUE, F_SPEEDUP = range(8)
# indices into the ``stats`` array (int64 counters, cumulative)
(S_CREATED_PACKETS, S_CREATED_FLITS, S_INJECTED_FLITS, S_EJECTED_FLITS, S_MEASURED_EJECTED_FLITS,
 S_MEASURED_DONE, S_MEASURED_OUTSTANDING, S_FLITS_IN_NETWORK, S_LAST_MOVE, S_HOPS_SUM,
 S_PLAT_SUM, S_NLAT_SUM, S_QLAT_SUM, S_LAT_COUNT, S_LAT_OVERFLOW, S_MEASURED_CREATED_FLITS,
 S_DROPPED_PACKETS, S_ESCAPE_HOPS) = range(18)
NUM_STATS = 18


@njit(cache=True, inline="always")
def _next(rng):
    """xorshift64*: one 64-bit draw; the state lives in ``rng[0]`` (a seed gives the same run anywhere)."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(2685821657736338717)


@njit(cache=True, inline="always")
def _uniform(rng):
    return (_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def _below(rng, k):
    return np.int64((_next(rng) >> np.uint64(11)) % np.uint64(k))


@njit(cache=True, inline="always")
def _wrap(x, m):
    """``x mod m`` for ``0 <= x < 2m``: a compare, not a division (the hot loops wrap ring indices)."""
    return x - m if x >= m else x


@njit(cache=True, inline="always")
def _gap(rng, p):
    """Cycles until the next packet of a Bernoulli(p) source, counting this one: geometric."""
    if p >= 1.0:
        return 0
    if p <= 0.0:
        return 1 << 60
    u = _uniform(rng)
    return np.int64(np.floor(np.log1p(-u) / np.log1p(-p)))


@njit(cache=True, inline="always")
def _minimal_end(lo, hi, cand_hops):
    """End of a UGAL key's minimal candidates: they come first and share the shortest length."""
    e = lo + 1
    while e < hi and cand_hops[e] == cand_hops[lo]:
        e += 1
    return e


@njit(cache=True)
def _ugal_choice(r, lo, hi, csr_indptr, cand_port, cand_hops, ocredit, V, B):
    """UGAL at the source: each candidate path weighs (flits queued on its output port, every VC, in
    flight or in the downstream buffer: B minus the credits) x (its length in hops).  Returns the
    sub-shortest candidate whose weight is strictly below the best minimal one's (the lightest, the
    first on ties), or -1: stay minimal (adaptively among the minimal next hops)."""
    m_end = _minimal_end(lo, hi, cand_hops)
    best_w = -1
    for c in range(lo, m_end):
        o = csr_indptr[r] + cand_port[c]
        used = V * B
        for q in range(V):
            used -= ocredit[o * V + q]
        w = used * cand_hops[c]
        if best_w < 0 or w < best_w:
            best_w = w
    chosen = -1
    for c in range(m_end, hi):
        o = csr_indptr[r] + cand_port[c]
        used = V * B
        for q in range(V):
            used -= ocredit[o * V + q]
        w = used * cand_hops[c]
        if w < best_w:
            best_w = w
            chosen = c
    return chosen


@njit(cache=True)
def _destination(h, H, pattern_kind, dest, cdf, rng):
    if pattern_kind == 0:
        return _below(rng, H)
    if pattern_kind == 1:
        return dest[h]
    u = _uniform(rng)
    lo = 0
    hi = H - 1
    while lo < hi:  # first host whose cumulative weight exceeds u
        mid = (lo + hi) // 2
        if cdf[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True, error_model="numpy")
def run_cycles(t0, ncycles, rate, timing, flags,
               # topology
               n, C, H, V, B, chan_dst, csr_indptr, host_switch,
               in_ptr, in_units, out_ptr, out_units,
               # routing
               S, init_state, cand_ptr, cand_port, cand_vc_lo, cand_vc_hi, cand_state, cand_escape, cand_random,
               cand_hops,
               # traffic
               pattern_kind, dest, cdf,
               # input VCs
               buf_code, buf_time, vhead, vcount, vstate, vready, vout, voutvc, vchosen,
               # output VCs
               ovc_owner, ocredit,
               # channels in flight (per output unit), and the first cycle each output channel is free
               wheel_code, wheel_vc, o_free,
               # the first cycle each input's credit channel is free
               c_free,
               # hosts
               pk_next, sq_head, sq_tail, sq_count, h_pid, h_flit, h_vc, h_credit, h_busy, inj_rr,
               # packets
               pk_src, pk_dst, pk_ctime, pk_itime, pk_state, pk_hops, pk_measure, free_pk, free_top,
               # arbitration pointers
               sa_in_rr, sa_out_rr, sa_vc_rr, out_grant, out_grant_rank, in_acc, in_acc_rank,
               va_out_rr, vgrant, vgrant_rank, vreq_c,
               # results
               # event lists of the wheels, flits buffered per switch, next packet per host
               ev_flit, ev_flit_n, ev_cred, ev_cred_n, in_sw, sw_flits, next_gen, out_sw, sw_ready,
               rng, stats, lat_plat, lat_nlat):
    """Advance the network from cycle ``t0`` by ``ncycles``; returns ``(cycle reached, status)``."""
    P = flags[F_PACKET_SIZE]
    W = flags[F_WHEEL]
    Q = flags[F_QUEUE]
    vct = flags[F_VCT] != 0
    wait_tail = flags[F_WAIT_TAIL] != 0
    measure = flags[F_MEASURE] != 0
    deadlock_cycles = flags[F_DEADLOCK_CYCLES]
    rd = timing[T_ROUTING]
    va_d = timing[T_VC_ALLOC]
    chan_in = timing[T_CHANNEL] + 1  # cycles from leaving a switch to the next input buffer
    eject_in = timing[T_EJECT] + 1
    credit_back = timing[T_CREDIT] + timing[T_CHANNEL]
    inj_lat = timing[T_INJECT]
    inj_credit_back = timing[T_CREDIT] + inj_lat
    p_packet = rate / P
    lat_cap = lat_plat.shape[0]
    R_FLIT = C + 2 * H
    # internal speedup s: the routers' pipeline (routing, VC and switch allocation) steps s times a cycle
    # (internal steps tau = t * s + k), the channels once; an input port may send a flit in every step,
    # and what an output receives waits in its output queue, the credits an input returns in its credit queue
    s_up = flags[F_SPEEDUP]
    R_CRED = C + H
    # a flit that wins the switch in step tau may leave on its channel in cycle (tau + leave) // s and
    # reaches the far end channel + 1 cycles later (at s = 1: hop cycles after it won, as BookSim)
    leave = timing[T_SW_ALLOC] + timing[T_ST_FINAL] - 1
    oq_cap = V * B  # flits an output queue may hold (network outputs: the credits already bound it)
    pool = pk_src.shape[0]
    t = t0
    status = RUNNING
    for _ in range(ncycles):
        slot = t % W
        # ---- 1. deliveries: flits at the end of their channel, credits back upstream
        for e in range(ev_flit_n[slot]):
            o = ev_flit[slot * R_FLIT + e]
            code = wheel_code[o * W + slot]
            wheel_code[o * W + slot] = -1
            vc = wheel_vc[o * W + slot]
            pid = code // P
            fi = code - pid * P
            if o < C or o >= C + H:
                # a network channel, or (rows C+H..) a host's injection channel into input unit C+h
                iv = (o if o < C else o - H) * V + vc
                pos = _wrap(vhead[iv] + vcount[iv], B)
                buf_code[iv * B + pos] = code
                buf_time[iv * B + pos] = t * s_up
                vcount[iv] += 1
                r_in = in_sw[iv // V]
                sw_flits[r_in] += 1
                sw_ready[r_in] = t * s_up  # a body flit may leave in the cycle it arrives
                if vstate[iv] == IDLE and vcount[iv] == 1:
                    vstate[iv] = ROUTING
                    vready[iv] = t * s_up + rd
            else:  # ejection: the flit reaches its host
                stats[S_EJECTED_FLITS] += 1
                stats[S_FLITS_IN_NETWORK] -= 1
                if pk_measure[pid] != 0:
                    stats[S_MEASURED_EJECTED_FLITS] += 1
                if fi == P - 1:
                    if pk_measure[pid] != 0:
                        stats[S_MEASURED_DONE] += 1
                        stats[S_MEASURED_OUTSTANDING] -= 1
                        plat = t - pk_ctime[pid]
                        nlat = t - pk_itime[pid]
                        stats[S_PLAT_SUM] += plat
                        stats[S_NLAT_SUM] += nlat
                        stats[S_QLAT_SUM] += plat - nlat
                        stats[S_HOPS_SUM] += pk_hops[pid]
                        k = stats[S_LAT_COUNT]
                        if k < lat_cap:
                            lat_plat[k] = plat
                            lat_nlat[k] = nlat
                        else:
                            stats[S_LAT_OVERFLOW] += 1
                        stats[S_LAT_COUNT] = k + 1
                    free_pk[free_top[0]] = pid
                    free_top[0] += 1
        ev_flit_n[slot] = 0
        for e in range(ev_cred_n[slot]):
            iv = ev_cred[slot * R_CRED + e]
            i = iv // V
            vc = iv - i * V
            if i < C:
                ov = i * V + vc
                ocredit[ov] += 1
                sw_ready[out_sw[i]] = t * s_up  # a VC waiting for this credit may move
                if ovc_owner[ov] <= -2 and ocredit[ov] == B:  # wait_for_tail_credit: the last credit is back
                    ovc_owner[ov] = -1
            else:
                h_credit[(i - C) * V + vc] += 1
        ev_cred_n[slot] = 0

        # ---- 2.-4. per switch and internal step: routing, VC allocation, switch allocation
        for k_step in range(s_up):
            tau = t * s_up + k_step
            for r in range(n):
                i_lo = in_ptr[r]
                i_hi = in_ptr[r + 1]
                nin = i_hi - i_lo
                if nin == 0 or sw_flits[r] == 0 or sw_ready[r] > tau:
                    continue  # nothing buffered, or everything buffered waits for a pipeline delay
                nxt = tau + (1 << 40)  # the earliest cycle this switch has something to do again
                o_lo = out_ptr[r]
                o_hi = out_ptr[r + 1]
                nout = o_hi - o_lo
                # -- routing, and VC allocation: each waiting input VC asks for its best free output VC
                #    (non-escape candidates first, then the most credits); each output VC grants one
                #    request, round robin over the switch's input VCs
                any_va = False
                for a in range(nin):
                    i = in_units[i_lo + a]
                    for v in range(V):
                        iv = i * V + v
                        st = vstate[iv]
                        if st != ROUTING and st != VC_ALLOC:
                            continue
                        if vready[iv] > tau:
                            nxt = min(nxt, vready[iv])
                            continue
                        nxt = tau + 1  # asks now; asks again next cycle unless it is granted
                        code = buf_code[iv * B + vhead[iv]]
                        pid = code // P
                        dh = pk_dst[pid]
                        tsw = host_switch[dh]
                        if st == ROUTING:
                            vchosen[iv] = -1
                            if tsw != r:
                                key = (r * n + tsw) * S + pk_state[pid]
                                lo = cand_ptr[key]
                                hi = cand_ptr[key + 1]
                                if cand_random[key] == 1 and hi - lo > 1:
                                    vchosen[iv] = lo + _below(rng, hi - lo)
                                elif cand_random[key] == 2:
                                    vchosen[iv] = _ugal_choice(r, lo, hi, csr_indptr, cand_port, cand_hops, ocredit, V, B)
                            vstate[iv] = VC_ALLOC
                        best_o = -1
                        best_vc = -1
                        best_c = -1
                        if tsw == r:
                            o = C + dh
                            for q in range(V):
                                if ovc_owner[o * V + q] == -1:
                                    best_o = o
                                    best_vc = q
                                    break
                        else:
                            key = (r * n + tsw) * S + pk_state[pid]
                            lo = cand_ptr[key]
                            hi = cand_ptr[key + 1]
                            if vchosen[iv] >= 0:
                                lo = vchosen[iv]
                                hi = lo + 1
                            elif cand_random[key] == 2:
                                hi = _minimal_end(lo, hi, cand_hops)  # UGAL stayed minimal: its minimal hops only
                            best_credit = -1
                            for pass_escape in range(2):
                                for c in range(lo, hi):
                                    if cand_escape[c] != pass_escape:
                                        continue
                                    o = csr_indptr[r] + cand_port[c]
                                    for q in range(cand_vc_lo[c], cand_vc_hi[c] + 1):
                                        ov = o * V + q
                                        if ovc_owner[ov] != -1:
                                            continue
                                        cr = ocredit[ov]
                                        if vct and cr < P:
                                            continue
                                        if cr > best_credit:
                                            best_credit = cr
                                            best_o = o
                                            best_vc = q
                                            best_c = c
                                if best_o >= 0:
                                    break
                        if best_o < 0:
                            continue
                        ov = best_o * V + best_vc
                        local = a * V + v
                        rank = _wrap(local - va_out_rr[ov] + nin * V, nin * V)
                        if not any_va:
                            any_va = True
                            for k in range(o_lo, o_hi):
                                ob = out_units[k] * V
                                for q in range(V):
                                    vgrant[ob + q] = -1
                        if vgrant[ov] < 0 or rank < vgrant_rank[ov]:
                            vgrant[ov] = iv
                            vgrant_rank[ov] = rank
                            vreq_c[iv] = best_c
                if any_va:
                    for k in range(o_lo, o_hi):
                        ob = out_units[k] * V
                        for q in range(V):
                            ov = ob + q
                            iv = vgrant[ov]
                            if iv < 0:
                                continue
                            vgrant[ov] = -1
                            ovc_owner[ov] = iv
                            vout[iv] = out_units[k]
                            voutvc[iv] = q
                            vstate[iv] = ACTIVE
                            vready[iv] = tau + va_d
                            va_out_rr[ov] = (vgrant_rank[ov] + va_out_rr[ov] + 1) % (nin * V)  # rare: a grant
                            c = vreq_c[iv]
                            if c >= 0:
                                pid = buf_code[iv * B + vhead[iv]] // P
                                pk_state[pid] = cand_state[c]
                                pk_hops[pid] += 1
                                if cand_escape[c] != 0 and pk_measure[pid] != 0:
                                    stats[S_ESCAPE_HOPS] += 1  # how much of the traffic the escape VCs carry

                # -- switch allocation, one iSLIP iteration: every input VC with a flit and a credit asks
                #    for its output; each output grants one input port (round robin), each input port
                #    accepts one grant (round robin); the pointers move only on accepted grants
                any_req = False
                for a in range(nin):
                    i = in_units[i_lo + a]
                    in_acc[i_lo + a] = -1
                    for v in range(V):
                        iv = i * V + v
                        if vstate[iv] != ACTIVE or vcount[iv] == 0:
                            continue
                        if vready[iv] > tau:
                            nxt = min(nxt, vready[iv])
                            continue
                        nxt = tau + 1
                        o = vout[iv]
                        if o < C and ocredit[o * V + voutvc[iv]] <= 0:
                            continue
                        if s_up > 1 and o_free[o] - (tau + leave) // s_up >= oq_cap:
                            continue  # its output queue is full
                        if not any_req:
                            any_req = True
                            for k in range(o_lo, o_hi):
                                out_grant[out_units[k]] = -1
                        rank = _wrap(a - sa_out_rr[o] + nin, nin)
                        if out_grant[o] < 0 or rank < out_grant_rank[o]:
                            out_grant[o] = a
                            out_grant_rank[o] = rank
                sw_ready[r] = nxt
                if not any_req:
                    continue
                for k in range(nout):
                    o = out_units[o_lo + k]
                    a = out_grant[o]
                    if a < 0:
                        continue
                    rank = _wrap(k - sa_in_rr[i_lo + a] + nout, nout)
                    if in_acc[i_lo + a] < 0 or rank < in_acc_rank[i_lo + a]:
                        in_acc[i_lo + a] = k
                        in_acc_rank[i_lo + a] = rank
                for a in range(nin):
                    k = in_acc[i_lo + a]
                    if k < 0:
                        continue
                    o = out_units[o_lo + k]
                    i = in_units[i_lo + a]
                    # which of the input's VCs goes: round robin among those asking for this output
                    s0 = sa_vc_rr[i]
                    v = -1
                    for q in range(V):
                        w = _wrap(s0 + q, V)
                        iw = i * V + w
                        if vstate[iw] != ACTIVE or vcount[iw] == 0 or vready[iw] > tau or vout[iw] != o:
                            continue
                        if buf_time[iw * B + vhead[iw]] > tau:
                            continue
                        if o < C and ocredit[o * V + voutvc[iw]] <= 0:
                            continue
                        v = w
                        break
                    iv = i * V + v
                    sa_out_rr[o] = _wrap(a + 1, nin)
                    sa_in_rr[i_lo + a] = _wrap(k + 1, nout)
                    sa_vc_rr[i] = _wrap(v + 1, V)
                    # the flit leaves its input buffer
                    pos = vhead[iv]
                    code = buf_code[iv * B + pos]
                    vhead[iv] = _wrap(pos + 1, B)
                    vcount[iv] -= 1
                    ovc = voutvc[iv]
                    sw_flits[r] -= 1
                    # the credit goes back upstream, one a cycle per input in the order they were made (without
                    # a speedup an input sends one flit a cycle: no queue, and the hot loop skips its bookkeeping)
                    c_wait = 0
                    if s_up > 1:
                        c_wait = max(t, c_free[i]) - t
                        c_free[i] = t + c_wait + 1
                    cs = _wrap(slot + c_wait + (credit_back if i < C else inj_credit_back), W)
                    ev_cred[cs * R_CRED + ev_cred_n[cs]] = iv
                    ev_cred_n[cs] += 1
                    # the output channel sends one flit a cycle, in the order the switch delivered them
                    if o < C:
                        ocredit[o * V + ovc] -= 1
                    if s_up == 1:  # one flit an output a cycle: it leaves at once, in cycle t + leave
                        fs = _wrap(slot + leave + (chan_in if o < C else eject_in), W)
                    else:
                        depart = max((tau + leave) // s_up, o_free[o])
                        o_free[o] = depart + 1
                        fs = _wrap(slot + depart + (chan_in if o < C else eject_in) - t, W)
                    ws = o * W + fs
                    ev_flit[fs * R_FLIT + ev_flit_n[fs]] = o
                    ev_flit_n[fs] += 1
                    wheel_code[ws] = code
                    wheel_vc[ws] = ovc
                    stats[S_LAST_MOVE] = t
                    fi = code - (code // P) * P if P > 1 else 0
                    if fi == P - 1:  # tail: the VC is free for the next packet
                        if not wait_tail or o >= C:
                            ovc_owner[o * V + ovc] = -1
                        else:
                            ovc_owner[o * V + ovc] = -2 - iv  # released when its last credit returns
                        if vcount[iv] > 0:
                            vstate[iv] = ROUTING
                            # the next head is routed from the next cycle on (BookSim queues it for routing)
                            vready[iv] = max(tau + 1 + rd, buf_time[iv * B + vhead[iv]] + rd)
                        else:
                            vstate[iv] = IDLE
                    else:
                        vready[iv] = tau + 1

        # ---- 5. hosts inject one flit each (credit flow control on the injection port)
        for h in range(H):
            pid = h_pid[h]
            if pid < 0:
                if sq_count[h] == 0:
                    continue
                pid = sq_head[h]
                # a head needs a free injection VC with space (rotating start, as BookSim)
                s0 = inj_rr[h]
                chosen = -1
                for q in range(V):
                    v = (s0 + 1 + q) % V
                    if h_busy[h * V + v] == 0 and h_credit[h * V + v] > 0:
                        if vct and h_credit[h * V + v] < P:
                            continue
                        chosen = v
                        break
                if chosen < 0:
                    continue
                sq_head[h] = pk_next[pid]  # the source queue is a list threaded through the packets
                if sq_head[h] < 0:
                    sq_tail[h] = -1
                sq_count[h] -= 1
                h_pid[h] = pid
                h_flit[h] = 0
                h_vc[h] = chosen
                h_busy[h * V + chosen] = 1
                inj_rr[h] = chosen
                # packets are made at the end of a cycle and can leave the next one: that cycle is
                # part of the injection pipeline (BookSim's network latency equals the packet latency
                # when nothing waits), so a head sent at its first chance has waited 0
                pk_itime[pid] = t - 1
            v = h_vc[h]
            if h_credit[h * V + v] <= 0:
                continue
            h_credit[h * V + v] -= 1
            fi = h_flit[h]
            fs = _wrap(slot + inj_lat, W)
            ws = (C + H + h) * W + fs  # wheel rows C+H.. are the injection channels
            ev_flit[fs * R_FLIT + ev_flit_n[fs]] = C + H + h
            ev_flit_n[fs] += 1
            wheel_code[ws] = pid * P + fi
            wheel_vc[ws] = v
            stats[S_INJECTED_FLITS] += 1
            stats[S_FLITS_IN_NETWORK] += 1
            stats[S_LAST_MOVE] = t
            if fi == P - 1:
                h_pid[h] = -1
                h_busy[h * V + v] = 0
            else:
                h_flit[h] = fi + 1

        # ---- 6. new packets (Bernoulli per host per cycle)
        for h in range(H):
            if next_gen[h] < 0:  # first cycle of this load: draw the first arrival
                next_gen[h] = t + _gap(rng, p_packet)
            if next_gen[h] != t:
                continue
            next_gen[h] = t + 1 + _gap(rng, p_packet)
            if sq_count[h] >= Q or free_top[0] == 0:
                # past saturation the source refuses what it cannot queue (counted), so the run goes on
                # and still measures what the network accepts; the caller calls the load saturated
                stats[S_DROPPED_PACKETS] += 1
                continue
            free_top[0] -= 1
            pid = free_pk[free_top[0]]
            pk_src[pid] = h
            pk_dst[pid] = _destination(h, H, pattern_kind, dest, cdf, rng)
            pk_ctime[pid] = t
            pk_state[pid] = init_state
            pk_hops[pid] = 0
            pk_measure[pid] = 1 if measure else 0
            pk_next[pid] = -1
            if sq_tail[h] >= 0:
                pk_next[sq_tail[h]] = pid
            else:
                sq_head[h] = pid
            sq_tail[h] = pid
            sq_count[h] += 1
            stats[S_CREATED_PACKETS] += 1
            stats[S_CREATED_FLITS] += P
            if measure:
                stats[S_MEASURED_OUTSTANDING] += 1
                stats[S_MEASURED_CREATED_FLITS] += P

        t += 1
        if stats[S_FLITS_IN_NETWORK] > 0 and t - stats[S_LAST_MOVE] > deadlock_cycles:
            status = DEADLOCK
            break
    return t, status
