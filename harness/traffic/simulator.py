"""The cycle-level simulator: BookSim's input-queued VC router and its measurement method, on any graph.

:func:`simulate_load` runs one offered load as BookSim's ``sim_type = latency`` does: warm-up
sample periods, then sample periods until mean latency and accepted rate change by less than
``stopping_thres`` three periods in a row (at most ``max_samples`` periods in all), then a
drain until every measured packet (created after the warm-up) has arrived.  A run whose mean
latency, counting packets still in flight at their age, passes ``latency_thres`` is saturated
(BookSim's "unstable").  :func:`zero_load_latency` and :func:`saturation_throughput` (bisection on
offered load) build on it.  Everything is counted in cycles: a seed gives the same numbers on any
machine under any load.

Parameters keep BookSim's names and defaults (``num_vcs``, ``vc_buf_size``, ``packet_size``,
``routing_delay``, ``vc_alloc_delay``, ``sw_alloc_delay``, ``st_final_delay``, ``credit_delay``,
``internal_speedup`` (whole numbers), ``wait_for_tail_credit``, ``warmup_periods``, ``sample_period``,
``max_samples``, ``latency_thres``, ``stopping_thres``, ``acc_stopping_thres``); ``channel_latency`` is BookSim's
per-channel latency (1 on its mesh, 2 on its torus), ``flow_control`` is ``wormhole`` or ``vct``.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Callable

import numpy as np

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph

#: hard limits of one simulation, checked before anything is allocated
MAX_VCS = 64
MAX_BUF = 1024
MAX_PACKET = 1024
MAX_CYCLES = 10_000_000
MAX_DELAY = 64
MAX_SPEEDUP = 8
# the buffers, packets and channel wheels of one run are capped by caps.SIM_PACKETS and caps.SIM_WHEEL (a user
# with room raises them from the environment)


@dataclass(frozen=True)
class RouterConfig:
    """The router and measurement parameters, with BookSim's names and (except where said) defaults."""

    num_vcs: int = 16
    vc_buf_size: int = 8
    packet_size: int = 1
    routing_delay: int = 1
    vc_alloc_delay: int = 1
    sw_alloc_delay: int = 1
    st_final_delay: int = 1
    credit_delay: int = 0
    #: router pipeline steps (routing, VC and switch allocation) a cycle, as BookSim's ``internal_speedup``
    #: (whole numbers only); above 1 each output keeps a queue that its channel drains a flit a cycle
    internal_speedup: int = 1
    channel_latency: int = 1
    injection_latency: int = 1       #: host -> router channel
    ejection_latency: int = 1        #: router -> host channel
    flow_control: str = "wormhole"   #: ``wormhole`` or ``vct`` (virtual cut-through)
    wait_for_tail_credit: int = 0
    warmup_periods: int = 3
    sample_period: int = 1000
    max_samples: int = 10
    latency_thres: float = 500.0
    stopping_thres: float = 0.05
    acc_stopping_thres: float = 0.05
    deadlock_cycles: int = 5000      #: no flit moved for this long while flits are queued: a deadlock
    drain_limit: int = 100_000       #: at most this many cycles of drain
    source_queue: int = 1_000_000    #: packets one host may queue (the shared packet pool is the real limit)

    def check(self) -> None:
        def need(ok: bool, text: str) -> None:
            if not ok:
                raise HopbenchError(text)

        need(1 <= self.num_vcs <= MAX_VCS, f"num_vcs must be 1..{MAX_VCS}, got {self.num_vcs}")
        need(1 <= self.vc_buf_size <= MAX_BUF, f"vc_buf_size must be 1..{MAX_BUF} flits, got {self.vc_buf_size}")
        need(1 <= self.packet_size <= MAX_PACKET, f"packet_size must be 1..{MAX_PACKET} flits, got {self.packet_size}")
        for name in ("routing_delay", "vc_alloc_delay", "sw_alloc_delay", "st_final_delay", "credit_delay"):
            value = getattr(self, name)
            need(0 <= value <= MAX_DELAY, f"{name} must be 0..{MAX_DELAY} cycles, got {value}")
        need(1 <= self.internal_speedup <= MAX_SPEEDUP,
             f"internal_speedup must be a whole number 1..{MAX_SPEEDUP}, got {self.internal_speedup}")
        for name in ("channel_latency", "injection_latency", "ejection_latency"):
            value = getattr(self, name)
            need(1 <= value <= MAX_DELAY, f"{name} must be 1..{MAX_DELAY} cycles, got {value}")
        need(self.flow_control in ("wormhole", "vct"),
             f"flow_control must be 'wormhole' or 'vct', got {self.flow_control!r}")
        need(self.flow_control != "vct" or self.vc_buf_size >= self.packet_size,
             f"virtual cut-through needs vc_buf_size >= packet_size (a whole packet per buffer), got "
             f"{self.vc_buf_size} < {self.packet_size}")
        need(self.wait_for_tail_credit in (0, 1), "wait_for_tail_credit must be 0 or 1")
        need(0 <= self.warmup_periods <= 1000, f"warmup_periods must be 0..1000, got {self.warmup_periods}")
        need(1 <= self.sample_period <= 1_000_000, f"sample_period must be 1..1,000,000 cycles, got {self.sample_period}")
        need(1 <= self.max_samples <= 10_000, f"max_samples must be 1..10,000, got {self.max_samples}")
        total = (self.max_samples + self.warmup_periods) * self.sample_period + self.drain_limit
        need(total <= MAX_CYCLES, f"a simulation of up to {total:,} cycles is above the cap of {MAX_CYCLES:,}; "
                                  f"shorten sample_period, max_samples or drain_limit")
        need(self.latency_thres > 0, "latency_thres must be positive")
        need(0 < self.stopping_thres < 1 and 0 < self.acc_stopping_thres < 1,
             "stopping_thres and acc_stopping_thres must be between 0 and 1")
        need(10 <= self.deadlock_cycles <= 1_000_000, f"deadlock_cycles must be 10..1,000,000, got {self.deadlock_cycles}")
        need(0 <= self.drain_limit <= MAX_CYCLES, f"drain_limit must be 0..{MAX_CYCLES:,} cycles")
        need(1 <= self.source_queue <= 1_000_000, f"source_queue must be 1..1,000,000 packets")


def router_config(**values: Any) -> RouterConfig:
    """A checked :class:`RouterConfig` from keyword values (strings are converted; unknown names refused)."""
    known = {f: type(v) for f, v in asdict(RouterConfig()).items()}
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key not in known:
            raise HopbenchError(f"unknown simulator parameter {key!r}; known: {', '.join(sorted(known))}")
        typ = known[key]
        try:
            out[key] = typ(value) if typ is not int else int(str(value), 10)
        except (TypeError, ValueError):
            raise HopbenchError(f"simulator parameter {key} must be {typ.__name__}, got {value!r}") from None
        if typ is float and not math.isfinite(out[key]):
            raise HopbenchError(f"simulator parameter {key} must be finite, got {value!r}")
    config = RouterConfig(**out)
    config.check()
    return config


@dataclass
class LoadPoint:
    """The result of one offered load."""

    offered: float                     #: flits/cycle/host asked for
    injected: float                    #: flits/cycle/host generated during the measurement
    accepted: float                    #: flits/cycle/host ejected during the measurement
    latency_mean: float | None         #: packet latency (creation to tail arrival), cycles
    latency_median: float | None
    latency_p99: float | None
    network_latency: float | None      #: head injection to tail arrival
    queueing_latency: float | None     #: creation to head injection (source queue)
    hops: float | None                 #: mean switch-to-switch hops of measured packets
    packets: int                       #: measured packets that arrived
    cycles: int                        #: simulated cycles, warm-up and drain included
    saturated: bool
    deadlock: bool
    status: str                        #: ``ok``, ``unstable`` (latency over threshold), ``not converged``,
                                       #: ``source queue full``, ``deadlock``, ``drain limit``
    wall_s: float = 0.0
    #: share of the measured packets' hops taken on an escape VC (an adaptive routing's deadlock-free
    #: sub-network); None for a routing without one, or when the measurement did not finish
    escape_share: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Network:
    """What the kernel needs of a network: graph, hosts, a compiled routing and a traffic pattern."""

    graph: Graph
    hosts: Any          #: :class:`hopbench.harness.traffic.patterns.Hosts`
    routing: Any        #: :class:`hopbench.harness.traffic.routing.SimRouting`
    pattern: Any        #: :class:`hopbench.harness.traffic.patterns.TrafficPattern`
    config: RouterConfig = field(default_factory=RouterConfig)

    def __post_init__(self) -> None:
        self.config.check()
        if self.routing.n != self.graph.n:
            raise HopbenchError(f"the routing is for {self.routing.n} switches, the network has {self.graph.n}")
        if self.routing.num_vcs != self.config.num_vcs:
            raise HopbenchError(f"the routing was built for {self.routing.num_vcs} VCs, the router has "
                                f"num_vcs={self.config.num_vcs}; build both with the same VC count")
        if int(self.hosts.count) < 1:
            raise HopbenchError("the network has no hosts; give at least one host per switch (e.g. --hosts 1)")


def _frozen(values: Any, dtype: type) -> np.ndarray:
    """``values`` as a read-only ``dtype`` array, without a copy where it already is one: every routing then
    reaches the kernel with the same array types (numba compiles it anew for each, 20 s on a cold cache)."""
    view = np.asarray(values, dtype).view()
    view.setflags(write=False)
    return view


class _State:
    """Every array of one simulation (see :mod:`hopbench.harness.traffic._router_kernel`)."""

    def __init__(self, net: Network, seed: int) -> None:
        cfg = net.config
        g = net.graph
        indptr, indices = g.csr
        n, C, H, V, B, P = g.n, 2 * g.m, int(net.hosts.count), cfg.num_vcs, cfg.vc_buf_size, cfg.packet_size
        caps.VERTICES.check(n, "the network's switch count")
        slots = (C + H) * V * B  # every input buffer's flit slots, checked before anything is allocated
        max_packets, max_wheel = caps.SIM_PACKETS.limit(), caps.SIM_WHEEL.limit()
        if slots > max_packets:
            raise HopbenchError(f"the routers would buffer {slots:,} flits ({C + H:,} input ports: {C:,} channels and "
                                f"{H:,} hosts, x {V} VCs x {B} flits), above the simulator's cap of {max_packets:,}; "
                                f"use fewer hosts (--endpoints), VCs or smaller buffers, or raise the cap with "
                                f"{caps.SIM_PACKETS.env}=N if your machine has room (about 45 bytes each)")
        host_switch = np.asarray(net.hosts.host_switch, dtype=np.int64)
        chan_src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        chan_dst = np.asarray(indices, dtype=np.int64)
        # input units per switch: its incoming channels, then its hosts' injection ports
        order = np.argsort(chan_dst, kind="stable")
        in_units = np.concatenate([order, C + np.arange(H)])
        in_switch = np.concatenate([chan_dst[order], host_switch])
        o2 = np.argsort(in_switch, kind="stable")
        self.in_units = in_units[o2].astype(np.int64)
        self.in_ptr = np.searchsorted(in_switch[o2], np.arange(n + 1)).astype(np.int64)
        out_units = np.concatenate([np.arange(C), C + np.arange(H)])
        out_switch = np.concatenate([chan_src, host_switch])
        o3 = np.argsort(out_switch, kind="stable")
        self.out_units = out_units[o3].astype(np.int64)
        self.out_ptr = np.searchsorted(out_switch[o3], np.arange(n + 1)).astype(np.int64)
        self.n, self.C, self.H, self.V, self.B, self.P = n, C, H, V, B, P
        self.chan_dst = chan_dst
        self.csr_indptr = np.asarray(indptr, dtype=np.int64)
        self.host_switch = host_switch
        timing = [cfg.routing_delay, cfg.vc_alloc_delay, cfg.sw_alloc_delay, cfg.st_final_delay,
                  cfg.credit_delay, cfg.channel_latency, cfg.injection_latency, cfg.ejection_latency]
        self.timing = np.asarray(timing, dtype=np.int64)
        s_up = cfg.internal_speedup
        out_latency = max(cfg.channel_latency, cfg.ejection_latency)
        W = max(cfg.sw_alloc_delay + cfg.st_final_delay + out_latency,
                cfg.credit_delay + max(cfg.channel_latency, cfg.injection_latency), cfg.injection_latency) + 2
        if s_up > 1:  # a flit may wait in its output queue, a credit in its input's (each up to V x B)
            W = max(W, (s_up + cfg.sw_alloc_delay + cfg.st_final_delay - 2) // s_up + V * B + out_latency + 2,
                    cfg.credit_delay + max(cfg.channel_latency, cfg.injection_latency) + V * B + 2)
        wheel = (C + 2 * H) * W  # flit slots of the channel wheels (the output queues make W about V x B)
        if s_up > 1 and wheel > max_wheel:
            raise HopbenchError(f"the channel wheels would hold {wheel:,} slots ({C + 2 * H:,} channels x {W:,} cycles: "
                                f"with internal_speedup > 1 a flit may queue num_vcs x vc_buf_size = {V * B:,} cycles "
                                f"at an output), above the cap of {max_wheel:,}; use fewer VCs or smaller buffers, or "
                                f"raise the cap with {caps.SIM_WHEEL.env}=N if your machine has room (24 bytes each)")
        self.W = W
        self.flags = np.asarray([1 if cfg.flow_control == "vct" else 0, cfg.wait_for_tail_credit, P, 0,
                                 cfg.deadlock_cycles, W, cfg.source_queue, s_up], dtype=np.int64)
        I = C + H
        self.buf_code = np.full(I * V * B, -1, dtype=np.int64)
        self.buf_time = np.zeros(I * V * B, dtype=np.int64)
        self.vhead = np.zeros(I * V, dtype=np.int64)
        self.vcount = np.zeros(I * V, dtype=np.int64)
        self.vstate = np.zeros(I * V, dtype=np.int8)
        self.vready = np.zeros(I * V, dtype=np.int64)
        self.vout = np.full(I * V, -1, dtype=np.int64)
        self.voutvc = np.full(I * V, -1, dtype=np.int64)
        self.vchosen = np.full(I * V, -1, dtype=np.int64)
        self.ovc_owner = np.full((C + H) * V, -1, dtype=np.int64)
        self.ocredit = np.full((C + H) * V, B, dtype=np.int64)
        self.wheel_code = np.full((C + 2 * H) * W, -1, dtype=np.int64)
        self.wheel_vc = np.zeros((C + 2 * H) * W, dtype=np.int64)
        self.o_free = np.zeros(C + H, dtype=np.int64)
        self.c_free = np.zeros(I, dtype=np.int64)
        self.sq_head = np.full(H, -1, dtype=np.int64)
        self.sq_tail = np.full(H, -1, dtype=np.int64)
        self.sq_count = np.zeros(H, dtype=np.int64)
        self.h_pid = np.full(H, -1, dtype=np.int64)
        self.h_flit = np.zeros(H, dtype=np.int64)
        self.h_vc = np.zeros(H, dtype=np.int64)
        self.h_credit = np.full(H * V, B, dtype=np.int64)
        self.h_busy = np.zeros(H * V, dtype=np.int8)
        self.inj_rr = np.full(H, V - 1, dtype=np.int64)
        # packets alive: those in buffers and channels (at most one a flit slot) plus those queued at
        # the sources.  A pool that runs dry ends the load as saturated; it holds enough queued packets
        # per host for BookSim's criterion (mean latency over latency_thres) to decide first
        queued = max(64, int(math.ceil(2 * cfg.latency_thres / P)))
        pool = I * V * B + min(H * queued, 1 << 22) + 4 * H
        if pool > max_packets:
            raise HopbenchError(f"this simulation would hold up to {pool:,} packets (buffers: {I:,} input ports x "
                                f"{V} VCs x {B} flits), above the cap of {max_packets:,}; use fewer VCs, smaller "
                                f"buffers or fewer hosts, or raise the cap with {caps.SIM_PACKETS.env}=N")
        self.pk_src = np.zeros(pool, dtype=np.int32)
        self.pk_dst = np.zeros(pool, dtype=np.int32)
        self.pk_ctime = np.zeros(pool, dtype=np.int64)
        self.pk_itime = np.zeros(pool, dtype=np.int64)
        self.pk_state = np.zeros(pool, dtype=np.int32)
        self.pk_hops = np.zeros(pool, dtype=np.int32)
        self.pk_next = np.full(pool, -1, dtype=np.int32)
        self.pk_measure = np.zeros(pool, dtype=np.int8)
        self.free_pk = np.arange(pool, dtype=np.int64)[::-1].copy()
        self.free_top = np.asarray([pool], dtype=np.int64)
        self.sa_in_rr = np.zeros(I, dtype=np.int64)      # per input port (switch-local order)
        self.sa_out_rr = np.zeros(C + H, dtype=np.int64)
        self.sa_vc_rr = np.zeros(I, dtype=np.int64)
        self.out_grant = np.full(C + H, -1, dtype=np.int64)
        self.out_grant_rank = np.zeros(C + H, dtype=np.int64)
        self.in_acc = np.full(I, -1, dtype=np.int64)
        self.in_acc_rank = np.zeros(I, dtype=np.int64)
        self.va_out_rr = np.zeros((C + H) * V, dtype=np.int64)
        self.vgrant = np.full((C + H) * V, -1, dtype=np.int64)
        self.vgrant_rank = np.zeros((C + H) * V, dtype=np.int64)
        self.vreq_c = np.full(I * V, -1, dtype=np.int64)
        self.ev_flit = np.zeros(W * (C + 2 * H), dtype=np.int64)
        self.ev_flit_n = np.zeros(W, dtype=np.int64)
        self.ev_cred = np.zeros(W * (C + H), dtype=np.int64)
        self.ev_cred_n = np.zeros(W, dtype=np.int64)
        self.in_sw = np.concatenate([chan_dst, host_switch]).astype(np.int64)
        self.sw_flits = np.zeros(n, dtype=np.int64)
        self.next_gen = np.full(H, -1, dtype=np.int64)
        self.out_sw = chan_src.astype(np.int64)
        self.sw_ready = np.zeros(n, dtype=np.int64)
        # xorshift needs a non-zero state: mix the seed with splitmix64
        z = (int(seed) + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        z ^= z >> 31
        self.rng = np.asarray([z or 1], dtype=np.uint64)
        from hopbench.harness.traffic._router_kernel import NUM_STATS

        self.stats = np.zeros(NUM_STATS, dtype=np.int64)
        # per-packet latencies for the median and p99 (the means use exact sums of every packet)
        self.lat_plat = np.zeros(1 << 20, dtype=np.int32)
        self.lat_nlat = np.zeros(1 << 20, dtype=np.int32)
        r = net.routing
        hops = getattr(r, "cand_hops", None)
        # the tables as built (int32 and uint8), not widened: a copy would take 6 x 8 bytes a candidate, 18 GB
        # for E481's 383 million.  UGAL's path lengths are read only at keys marked 2 in cand_random, so other
        # routings pass one dummy entry
        self.routing = (int(r.num_states), int(r.init_state), _frozen(r.cand_ptr, np.int64),
                        _frozen(r.cand_port, np.int32), _frozen(r.cand_vc_lo, np.int32),
                        _frozen(r.cand_vc_hi, np.int32), _frozen(r.cand_state, np.int32),
                        _frozen(r.cand_escape, np.uint8), _frozen(r.cand_random, np.uint8),
                        _frozen(hops if hops is not None else np.zeros(1), np.int32))
        p = net.pattern
        # fresh writable copies: a pattern keeps its arrays read-only, and numba compiles the whole kernel
        # again for a read-only array type (20 s on a cold cache, per pattern family)
        dest = np.array(p.dest if getattr(p, "dest", None) is not None else np.zeros(1), dtype=np.int64)
        cdf = np.array(p.cdf if getattr(p, "cdf", None) is not None else np.zeros(1), dtype=np.float64)
        self.pattern = (int(p.kind), dest, cdf)
        self.t = 0

    def run(self, ncycles: int, rate: float, measure: bool) -> int:
        from hopbench.harness.traffic import _router_kernel as k

        self.flags[k.F_MEASURE] = 1 if measure else 0
        t, status = k.run_cycles(
            self.t, ncycles, rate, self.timing, self.flags,
            self.n, self.C, self.H, self.V, self.B, self.chan_dst, self.csr_indptr, self.host_switch,
            self.in_ptr, self.in_units, self.out_ptr, self.out_units,
            *self.routing, *self.pattern,
            self.buf_code, self.buf_time, self.vhead, self.vcount, self.vstate, self.vready, self.vout,
            self.voutvc, self.vchosen, self.ovc_owner, self.ocredit, self.wheel_code, self.wheel_vc, self.o_free, self.c_free,
            self.pk_next, self.sq_head, self.sq_tail, self.sq_count, self.h_pid, self.h_flit, self.h_vc, self.h_credit, self.h_busy,
            self.inj_rr, self.pk_src, self.pk_dst, self.pk_ctime, self.pk_itime, self.pk_state, self.pk_hops,
            self.pk_measure, self.free_pk, self.free_top, self.sa_in_rr, self.sa_out_rr, self.sa_vc_rr,
            self.out_grant, self.out_grant_rank, self.in_acc, self.in_acc_rank,
            self.va_out_rr, self.vgrant, self.vgrant_rank, self.vreq_c,
            self.ev_flit, self.ev_flit_n, self.ev_cred, self.ev_cred_n, self.in_sw, self.sw_flits, self.next_gen,
            self.out_sw, self.sw_ready,
            self.rng, self.stats, self.lat_plat, self.lat_nlat)
        self.t = int(t)
        return int(status)

    def in_flight_age(self) -> tuple[int, int]:
        """(sum of ages, count) of measured packets created but not yet arrived, as BookSim counts them."""
        alive = self.pk_measure.astype(bool).copy()
        alive[self.free_pk[: int(self.free_top[0])]] = False
        ages = self.t - self.pk_ctime[alive]
        return int(ages.sum()), int(alive.sum())


class SimulationStopped(Exception):
    """Raised when a simulation's ``stop`` callback says so (a time budget ran out): it has no partial result."""


def _check_load(load: float) -> float:
    load = float(load)
    if not (0.0 < load <= 1.0) or not math.isfinite(load):
        raise HopbenchError(f"an offered load is in flits/cycle/host, 0 < load <= 1; got {load}")
    return load


def simulate_load(net: Network, load: float, *, seed: int = 1,
                  stop: Callable[[], bool] | None = None) -> LoadPoint:
    """One offered load (flits/cycle/host), measured as BookSim's ``sim_type = latency``.

    ``stop`` is asked between sample periods (warm-up and drain included); when it says yes the
    simulation ends with :class:`SimulationStopped`.
    """
    from hopbench.harness.traffic import _router_kernel as k

    def check_stop() -> None:
        if stop is not None and stop():
            raise SimulationStopped

    load = _check_load(load)
    cfg = net.config
    started = time.perf_counter()
    st = _State(net, seed)
    H = st.H
    status = "ok"
    deadlock = False

    def finish(state_status: int) -> str | None:
        if state_status == k.DEADLOCK:
            return "deadlock"
        return None

    # warm-up
    for _ in range(cfg.warmup_periods):
        check_stop()
        code = st.run(cfg.sample_period, load, False)
        bad = finish(code)
        if bad:
            status = bad
            break
    # sample periods (stats since the end of the warm-up)
    t_reset = st.t
    base = st.stats.copy()
    prev_lat = prev_acc = 0.0
    converged = 0
    phases = cfg.warmup_periods
    while status == "ok" and phases < cfg.max_samples and converged < 3:
        check_stop()
        code = st.run(cfg.sample_period, load, True)
        phases += 1
        bad = finish(code)
        if bad:
            status = bad
            break
        s = st.stats - base
        if st.stats[k.S_DROPPED_PACKETS] > 0:
            status = "source queue full"
            break
        age_sum, age_count = st.in_flight_age()
        done = int(s[k.S_MEASURED_DONE])
        lat_sum = int(s[k.S_PLAT_SUM])
        cur_lat = lat_sum / done if done else 0.0
        if (lat_sum + age_sum) / max(1, done + age_count) > cfg.latency_thres:
            status = "unstable"
            break
        cur_acc = int(s[k.S_EJECTED_FLITS]) / ((st.t - t_reset) * H)
        lat_change = abs(cur_lat - prev_lat) / cur_lat if cur_lat else 1.0
        acc_change = abs(cur_acc - prev_acc) / cur_acc if cur_acc else 1.0
        prev_lat, prev_acc = cur_lat, cur_acc
        converged = converged + 1 if (lat_change <= cfg.stopping_thres and acc_change <= cfg.acc_stopping_thres) else 0
    if status == "ok" and converged < 3:
        status = "not converged"
    t_measured = st.t
    window = st.stats - base
    # drain: traffic goes on, unmeasured, until every measured packet has arrived
    if status in ("ok", "not converged"):
        drained = 0
        while st.stats[k.S_MEASURED_OUTSTANDING] > 0 and drained < cfg.drain_limit:
            check_stop()
            step = min(1000, cfg.drain_limit - drained)
            code = st.run(step, load, False)
            drained += step
            bad = finish(code)
            if bad:
                status = bad
                break
            s = st.stats - base
            age_sum, age_count = st.in_flight_age()
            done = int(s[k.S_MEASURED_DONE])
            if (int(s[k.S_PLAT_SUM]) + age_sum) / max(1, done + age_count) > cfg.latency_thres:
                status = "unstable"
                break
        if status in ("ok", "not converged") and st.stats[k.S_MEASURED_OUTSTANDING] > 0:
            status = "drain limit"
    deadlock = status == "deadlock"
    s = st.stats - base
    cycles = max(1, t_measured - t_reset)
    done = int(s[k.S_MEASURED_DONE])
    recorded = min(int(st.stats[k.S_LAT_COUNT]), st.lat_plat.shape[0])
    lats = st.lat_plat[:recorded]

    # latencies of a load that did not finish its measurement (unstable, full source queues, deadlock)
    # would be those of the lucky packets that arrived: not reported, as BookSim reports none
    finished = status in ("ok", "not converged")

    def mean(key: int) -> float | None:
        return float(s[key]) / done if done and finished else None

    hops = int(s[k.S_HOPS_SUM])

    return LoadPoint(
        offered=load,
        injected=int(window[k.S_CREATED_FLITS]) / (cycles * H),
        accepted=int(window[k.S_EJECTED_FLITS]) / (cycles * H),
        latency_mean=mean(k.S_PLAT_SUM),
        latency_median=float(np.median(lats)) if recorded and finished else None,
        latency_p99=float(np.percentile(lats, 99)) if recorded and finished else None,
        network_latency=mean(k.S_NLAT_SUM),
        queueing_latency=mean(k.S_QLAT_SUM),
        hops=mean(k.S_HOPS_SUM),
        packets=done,
        cycles=st.t,
        # "not converged" alone is noise at low load (few packets a period), not saturation
        saturated=status not in ("ok", "not converged") or int(window[k.S_EJECTED_FLITS]) < 0.95 * int(
            window[k.S_CREATED_FLITS]),
        deadlock=deadlock,
        status=status,
        wall_s=time.perf_counter() - started,
        escape_share=int(s[k.S_ESCAPE_HOPS]) / hops if net.routing.escape_vcs and finished and hops > 0 else None,
    )


@dataclass
class Soak:
    """A long run at a fixed offered load, for deadlock: did flits keep moving to the end?"""

    offered: float
    cycles: int                  #: cycles simulated (fewer than asked only after a deadlock)
    accepted: float              #: flits/cycle/host ejected over the run
    dropped_packets: int         #: packets the full source queues refused (the load was past saturation)
    deadlock: bool
    in_network: int              #: flits inside the network at the end
    wall_s: float


def soak(net: Network, load: float, cycles: int, *, seed: int = 1, chunk: int = 10_000,
         progress: Callable[[int], None] | None = None) -> Soak:
    """Run ``cycles`` cycles at ``load`` (no measurement phases), sources dropping what they cannot queue.

    Past saturation the source queues fill and stay full; a sound routing keeps delivering at its
    saturation throughput, a deadlocked network stops (no flit moves for ``deadlock_cycles``)."""
    from hopbench.harness.traffic import _router_kernel as k

    load = _check_load(load)
    if not 1 <= int(cycles) <= 100 * MAX_CYCLES:
        raise HopbenchError(f"a soak runs 1..{100 * MAX_CYCLES:,} cycles, got {cycles}")
    started = time.perf_counter()
    st = _State(net, seed)
    done = 0
    deadlock = False
    while done < cycles:
        step = min(chunk, cycles - done)
        before = st.t
        code = st.run(step, load, False)
        done += st.t - before
        if progress:
            progress(done)
        if code == k.DEADLOCK:
            deadlock = True
            break
    return Soak(offered=load, cycles=done, accepted=int(st.stats[k.S_EJECTED_FLITS]) / (max(1, done) * st.H),
                dropped_packets=int(st.stats[k.S_DROPPED_PACKETS]), deadlock=deadlock,
                in_network=int(st.stats[k.S_FLITS_IN_NETWORK]), wall_s=time.perf_counter() - started)


def zero_load_latency(net: Network, *, seed: int = 1, load: float | None = None,
                      packets: int = 20_000, stop: Callable[[], bool] | None = None) -> LoadPoint:
    """Latency at a load low enough that packets rarely meet (default: 1 % of a flit per cycle per host).

    The sample periods are lengthened so that the measurement sees about ``packets`` packets (a
    mean to a few tenths of a percent); a long simulation is still capped by :data:`MAX_CYCLES`."""
    load = _check_load(load if load is not None else 0.01)
    cfg = net.config
    per_cycle = load / cfg.packet_size * int(net.hosts.count)
    period = int(math.ceil(packets / max(1, cfg.max_samples - cfg.warmup_periods) / per_cycle))
    budget = (MAX_CYCLES - cfg.drain_limit) // (cfg.max_samples + cfg.warmup_periods)
    period = max(cfg.sample_period, min(period, budget, 1_000_000))
    return simulate_load(with_config(net, sample_period=period), load, seed=seed, stop=stop)


@dataclass
class Saturation:
    throughput: float           #: the highest offered load found unsaturated (flits/cycle/host)
    points: list[LoadPoint]     #: every load simulated, in order


def saturation_throughput(net: Network, *, seed: int = 1, high: float = 1.0, tolerance: float = 0.005,
                          progress: Callable[[LoadPoint], None] | None = None,
                          stop: Callable[[], bool] | None = None) -> Saturation:
    """Bisection on offered load: the largest load that is not saturated, to ``tolerance`` (absolute).

    A load is saturated when BookSim would call it unstable, when it does not converge, when a
    source queue overflows, or when it accepts less than 95 % of what it offered.
    """
    lo, hi = 0.0, min(1.0, float(high))
    points: list[LoadPoint] = []

    def sat(p: LoadPoint) -> bool:
        return p.saturated

    p = simulate_load(net, hi, seed=seed, stop=stop)
    points.append(p)
    if progress:
        progress(p)
    if not sat(p):
        return Saturation(hi, points)
    while hi - lo > tolerance:
        mid = (lo + hi) / 2
        p = simulate_load(net, mid, seed=seed, stop=stop)
        points.append(p)
        if progress:
            progress(p)
        if sat(p):
            hi = mid
        else:
            lo = mid
    return Saturation(lo, points)


def with_config(net: Network, **changes: Any) -> Network:
    """The same network with some router parameters changed (checked)."""
    return replace(net, config=router_config(**{**asdict(net.config), **changes}))
