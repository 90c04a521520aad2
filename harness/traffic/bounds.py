"""Throughput bounds without simulation: what a routing, or any routing at all, can carry.

Units.  Every directed link (a *channel*: channel id ``graph.csr[0][r] + k`` is output port ``k``
of switch ``r``, as in :mod:`hopbench.harness.traffic.routing`) carries at most ``capacity`` flits/cycle
(1 by default).  Traffic is a switch-level demand matrix ``D`` (float64, ``n x n``): ``D[s, t]`` is
the flits/cycle that switch ``s``'s hosts send to switch ``t``'s hosts when *every host injects
1 flit/cycle*; the diagonal is traffic between hosts of one switch and never uses a link.  Both
bounds are the largest per-host injection rate ``lam`` (flits/cycle/host) at which all of
``lam * D`` fits in the channels: switch pair ``(s, t)`` then carries ``lam * D[s, t]``
flits/cycle, and a host pair of uniform all-to-all traffic over ``N`` hosts carries
``lam / (N - 1)``.  Pass a matrix in other units (e.g. one unit per ordered switch pair) and the
bound comes out in those units: ``lam`` is always the largest factor by which ``D`` can be scaled.

* :func:`channel_load_bound` — the saturation throughput of one routing (a
  :class:`~hopbench.harness.traffic.routing.SimRouting`) under ideal flow control: traffic splits evenly
  among the candidates at each hop, the most loaded channel saturates first, ``lam = capacity /
  max load``.
* :func:`max_concurrent_flow` — the best any routing could do: the maximum concurrent
  multicommodity flow over all paths (TopoBench, Jyothi et al., SC'16), an LP solved by HiGHS or
  OR-Tools (GLOP, PDLP).  Any routing's traffic is a feasible flow, so the channel-load bound never
  exceeds it.
* :func:`demand_for` — the demand matrices of the standard patterns (all-to-all, a random host
  permutation, the near-worst-case longest matching).
"""
from __future__ import annotations

import ctypes
import math
import os
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph

if TYPE_CHECKING:  # routing.py loads numba kernels; the bounds only read its tables
    from hopbench.harness.traffic.routing import SimRouting

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "PATTERNS", "FlowBound", "channel_load_bound", "channel_loads",
           "demand_for", "lp_size", "max_concurrent_flow"]

#: LP backends of :func:`max_concurrent_flow`; ``auto`` means :data:`DEFAULT_BACKEND`
BACKENDS = ("highs", "glop", "pdlp")
#: chosen by tests/benchmarks/bench_throughput_lp.py: HiGHS's interior point solved every all-to-all LP
#: measured (64 to 256 switches) to 1e-11; PDLP was up to 2x faster on tori, hypercubes and random regular
#: graphs but stalled on rings with shortcuts (ring:256 plus a matching: no answer in 400 s, HiGHS 85 s);
#: GLOP was 4-18x slower than either (see docs/traffic.md)
DEFAULT_BACKEND = "highs"

#: the most switches the longest-matching pattern handles (networkx's blossom algorithm on the complete graph)
MATCHING_MAX_SWITCHES = 2048

#: PDLP's relative optimality tolerance: its answers then agree with the simplex and interior-point ones to
#: 1e-8 relative or better (the default 1e-6 would leave the closed-form tests no margin)
PDLP_TOLERANCE = 1e-8

#: HiGHS's method: ``ipm`` (interior point) or ``simplex``; ipm measured 2-4x faster on all-to-all LPs
HIGHS_METHOD = "ipm"
#: HiGHS options with ``ipm``: no crossover to a basic solution (only the optimum's value is needed; it
#: took a quarter to five sixths of the time), a tight optimality tolerance instead (answers within about
#: 1e-11 relative of the simplex ones at no measurable cost) and no presolve (it found nothing to remove)
HIGHS_IPM_OPTIONS = {"run_crossover": "off", "ipm_optimality_tolerance": 1e-10, "presolve": "off"}


# --------------------------------------------------------------------------- input checks


def _demand(graph: Graph, demand: np.ndarray) -> np.ndarray:
    """``demand`` as a float64 ``n x n`` array, checked; the diagonal is dropped (it never uses a link)."""
    n = graph.n
    shape = getattr(demand, "shape", None)
    if shape is None:
        raise HopbenchError(f"the demand must be an n x n numpy array (n = {n} switches), got {type(demand).__name__}")
    if tuple(shape) != (n, n):
        raise HopbenchError(f"the demand matrix has shape {tuple(shape)} but the graph has {n} switches; "
                            f"pass an {n} x {n} matrix (e.g. from demand_for)")
    d = np.array(demand, dtype=np.float64)  # a copy: the diagonal is cleared below
    if not np.isfinite(d).all() or (d < 0).any():
        raise HopbenchError("the demand matrix has a negative, NaN or infinite entry; rates must be finite and >= 0")
    np.fill_diagonal(d, 0.0)
    return d


def _check_reachable(graph: Graph, d: np.ndarray) -> None:
    """Refuse traffic between switches that no path joins (no rate above 0 could be carried)."""
    parts, label = connected_components(_adjacency(graph), directed=False)
    if parts == 1:
        return
    s, t = np.nonzero(d)
    cross = label[s] != label[t]
    if cross.any():
        i = int(np.flatnonzero(cross)[0])
        raise HopbenchError(f"the graph is disconnected ({parts} parts) and switch {s[i]} sends to switch {t[i]}, "
                            f"which it cannot reach; connect the graph or drop that traffic")


def _adjacency(graph: Graph) -> sp.csr_matrix:
    indptr, indices = graph.csr
    return sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(graph.n, graph.n))


def _arcs(graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    """Tail and head switch of every channel, in channel-id order."""
    indptr, indices = graph.csr
    tail = np.repeat(np.arange(graph.n, dtype=np.int64), np.diff(indptr))
    return tail, indices.astype(np.int64)


# --------------------------------------------------------------------------- (a) channel-load bound


def channel_loads(routing: SimRouting, graph: Graph, demand: np.ndarray) -> np.ndarray:
    """Expected flits/cycle on every channel (float64, ``2m``, channel-id order) per unit of ``lam``.

    The traffic ``demand[s, t]`` enters at switch ``s`` in ``routing.init_state`` and, at every
    switch, splits evenly among the table's candidates for (switch, destination, state): the
    non-escape ones, or the escape ones when a key has nothing else (Duato: a packet takes an escape
    VC only when no other candidate gets one, which an even split of the expected flow never
    needs).  Random (``cand_random``) and adaptive keys split alike.  Flows propagate along the
    tables for all destinations at once, one sparse product per hop, so the cost is about
    (candidates) x (longest route).
    """
    n = graph.n
    if getattr(routing, "n", None) != n:
        raise HopbenchError(f"the routing is for {getattr(routing, 'n', '?')} switches but the graph has {n}; "
                            f"build the routing on this graph")
    d = _demand(graph, demand)
    S = int(routing.num_states)
    keys = n * n * S
    ptr = np.asarray(routing.cand_ptr, dtype=np.int64)
    if S < 1 or not 0 <= int(routing.init_state) < S or ptr.shape != (keys + 1,) or ptr[0] != 0 \
            or (np.diff(ptr) < 0).any():
        raise HopbenchError(f"routing {routing.name!r} has malformed candidate tables (cand_ptr must have "
                            f"n*n*num_states + 1 = {keys + 1} nondecreasing entries from 0); rebuild it")
    cands = int(ptr[-1])
    port = np.asarray(routing.cand_port, dtype=np.int64)
    state = np.asarray(routing.cand_state, dtype=np.int64)
    escape = np.asarray(routing.cand_escape).astype(bool)
    if not (port.shape == state.shape == escape.shape == (cands,)):
        raise HopbenchError(f"routing {routing.name!r} has {cands} candidates in cand_ptr but candidate arrays "
                            f"of other lengths; rebuild it")
    key = np.repeat(np.arange(keys, dtype=np.int64), np.diff(ptr))
    r = key // (n * S)
    t = (key // S) % n
    indptr, indices = graph.csr
    degree = np.diff(indptr)
    if cands and ((port < 0).any() or (port >= degree[r]).any() or (state < 0).any() or (state >= S).any()):
        raise HopbenchError(f"routing {routing.name!r} names an output port or state that does not exist "
                            f"(ports must be < the switch's degree, states < {S}); rebuild it on this graph")

    # even split among the usable candidates of each key: escape ones only where nothing else is listed
    normal = np.bincount(key[~escape], minlength=keys)
    usable = ~escape | (normal[key] == 0)
    share = np.zeros(cands)
    share[usable] = 1.0 / np.bincount(key[usable], minlength=keys)[key[usable]]
    channel = indptr[r] + port
    nxt = (indices[channel].astype(np.int64) * n + t) * S + state
    step = sp.csr_matrix((share, (nxt, key)), shape=(keys, keys))
    dead = np.bincount(key, minlength=keys) == 0
    dead &= (np.arange(keys) // (n * S)) != (np.arange(keys) // S) % n  # switch r == t ejects, reads no table

    flow = np.zeros(keys)
    flow[(np.arange(n)[:, None] * n + np.arange(n)[None, :]) * S + int(routing.init_state)] = d
    total = np.zeros(keys)
    # a loop-free route visits each (switch, state) at most once per destination: n * S hops at most
    for _ in range(n * S + 1):
        if not flow.any():
            break
        stuck = np.flatnonzero(dead & (flow > 0))
        if stuck.size:
            k0 = int(stuck[0])
            raise HopbenchError(f"routing {routing.name!r} has no candidate at switch {k0 // (n * S)} for "
                                f"destination {(k0 // S) % n} in state {k0 % S}, where traffic arrives; "
                                f"the table must route every pair it carries")
        total += flow
        flow = step @ flow
    else:
        k0 = int(np.flatnonzero(flow > 0)[0])
        raise HopbenchError(f"routing {routing.name!r} sends traffic for destination {(k0 // S) % n} around a "
                            f"cycle (through switch {k0 // (n * S)}, state {k0 % S}); its tables must be loop-free")
    return np.bincount(channel, weights=share * total[key], minlength=len(indices))


def channel_load_bound(routing: SimRouting, graph: Graph, demand: np.ndarray, *, capacity: float = 1.0) -> float:
    """The routing's throughput bound: ``capacity / max channel load`` per host (see :func:`channel_loads`).

    In the units of ``demand`` (per host when ``demand`` is per host injecting 1 flit/cycle: a
    switch pair then carries ``bound * demand[s, t]``); ``inf`` when no traffic uses a link.
    """
    loads = channel_loads(routing, graph, demand)
    peak = float(loads.max()) if loads.size else 0.0
    return float(capacity) / peak if peak > 0 else math.inf


# --------------------------------------------------------------------------- (b) max concurrent flow


@dataclass(frozen=True)
class FlowBound:
    """The maximum concurrent flow of one demand matrix, and how the LP went.

    ``lam`` is the largest factor by which the demand can be scaled and still be routed within the
    capacities (per host injection rate for a per-host demand); ``nan`` unless ``status`` is
    ``optimal`` (a time limit hit, a solver failure), ``inf`` when no traffic crosses a link.
    """

    lam: float
    backend: str          #: ``highs``, ``glop`` or ``pdlp``
    solver: str           #: what ran, e.g. ``highspy 1.16.0 ipm`` or ``scipy highs-ipm``
    status: str           #: ``optimal``, ``time_limit``, ``infeasible`` or the solver's own word
    seconds: float        #: time in the solver (building the LP excluded)
    build_seconds: float  #: time to build the constraint matrix
    variables: int
    constraints: int
    nonzeros: int
    sources: int          #: switches with traffic to send (one single-source flow each)


def lp_size(graph: Graph, demand: np.ndarray) -> tuple[int, int]:
    """(variables, constraints) of :func:`max_concurrent_flow`'s LP, without building it."""
    d = _demand(graph, demand)
    k = int((d.sum(axis=1) > 0).sum())
    arcs = 2 * graph.m
    return k * arcs + 1, k * (graph.n - 1) + arcs


def _build_lp(graph: Graph, d: np.ndarray, sources: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray,
                                                                        sp.csr_matrix]:
    """The min-congestion LP: ``min u`` s.t. per source ``j`` the flow ``f_j`` on the channels meets
    ``d[s_j, :]`` (conservation at every other switch) and ``sum_j f_j <= u`` on every channel.

    Variables: ``f_j[a]`` at ``j * A + a`` (``A = 2m`` channels), ``u`` last, all ``>= 0``.  Returns
    the equality rows and right-hand side, the cost vector and the capacity rows (``<= 0``).  The
    flow conservation at ``s_j`` itself is implied by the others and left out.
    """
    n = graph.n
    tail, head = _arcs(graph)
    A, k = len(head), len(sources)
    j = np.repeat(np.arange(k, dtype=np.int64), A)
    a = np.tile(np.arange(A, dtype=np.int64), k)
    s = sources[j]
    col = j * A + a
    del j
    rows, cols, vals = [], [], []
    for end, sign in ((head, 1.0), (tail, -1.0)):  # into v counts +1, out of v -1
        v = end[a]
        keep = v != s
        rows.append((col // A * (n - 1) + v - (v > s))[keep])
        cols.append(col[keep])
        vals.append(np.full(int(keep.sum()), sign))
    eq = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                       shape=(k * (n - 1), k * A + 1))
    del rows, cols, vals
    keep = np.ones((k, n), dtype=bool)
    keep[np.arange(k), sources] = False
    rhs = d[sources][keep]
    cap = sp.csr_matrix((np.concatenate([np.ones(k * A), -np.ones(A)]),
                         (np.concatenate([a, np.arange(A)]), np.concatenate([col, np.full(A, k * A)]))),
                        shape=(A, k * A + 1))
    cost = np.zeros(k * A + 1)
    cost[-1] = 1.0
    return eq, rhs, cost, cap


def max_concurrent_flow(graph: Graph, demand: np.ndarray, *, backend: str = "auto", time_limit: float | None = None,
                        capacity: float = 1.0) -> FlowBound:
    """Maximum concurrent multicommodity flow: the best throughput any routing could reach.

    Maximises ``lam`` such that ``lam * demand[s, t]`` can be routed from every ``s`` to every
    ``t`` at once, over any paths, within ``capacity`` per channel (see the module docstring for
    units).  Commodities are aggregated by source: one single-source flow per switch that sends,
    with the switches it sends to as sinks.  That is exact for concurrent flow (a per-source flow
    decomposes into paths to its sinks) and keeps the LP at ``sources x 2m + 1`` variables.  It is
    solved as min-congestion (``min u`` with the demand fixed, ``lam = capacity / u``), which HiGHS
    solved 1.3-5x faster than the max-``lam`` form.

    ``backend``: ``highs`` (HiGHS's interior point, through ``highspy`` when installed, else
    ``scipy.optimize.linprog``), ``glop`` (OR-Tools' simplex) or ``pdlp`` (OR-Tools' first-order
    solver, relative tolerance :data:`PDLP_TOLERANCE`), ``auto`` = :data:`DEFAULT_BACKEND`.
    ``time_limit`` (seconds) stops the solver; the result then has status ``time_limit`` and
    ``lam = nan``.  The LP's variables are capped (``HOPBENCH_MAX_LP_VARIABLES``) before it is built.
    """
    name = DEFAULT_BACKEND if backend == "auto" else backend
    if name not in BACKENDS:
        raise HopbenchError(f"unknown LP backend {backend!r}; use auto or one of {', '.join(BACKENDS)}")
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit > 0
                                       and math.isfinite(time_limit)):
        raise HopbenchError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    if not (isinstance(capacity, (int, float)) and capacity > 0 and math.isfinite(capacity)):
        raise HopbenchError(f"capacity must be a positive number of flits/cycle per channel, got {capacity!r}")
    d = _demand(graph, demand)
    sources = np.flatnonzero(d.sum(axis=1) > 0)
    arcs = 2 * graph.m
    variables, constraints = len(sources) * arcs + 1, len(sources) * (graph.n - 1) + arcs
    if sources.size == 0:
        return FlowBound(math.inf, name, "none", "optimal", 0.0, 0.0, 0, 0, 0, 0)
    _check_reachable(graph, d)
    caps.LP_VARIABLES.check(variables, f"the throughput LP's variable count ({len(sources)} sending switches "
                                       f"x {arcs} channels + 1)")
    scale = float(d.max())  # demands near 1 keep the solvers' tolerances meaningful
    t0 = time.perf_counter()
    eq, rhs, cost, cap = _build_lp(graph, d / scale, sources)
    built = time.perf_counter() - t0
    solve = {"highs": _solve_highs, "glop": _solve_ortools, "pdlp": _solve_ortools}[name]
    congestion, status, solver, seconds = solve(name, eq, rhs, cost, cap, time_limit)
    lam = capacity / (congestion * scale) if status == "optimal" and congestion > 0 else math.nan
    return FlowBound(lam, name, solver, status, seconds, built, variables, constraints, eq.nnz + cap.nnz,
                     len(sources))


def _highspy():
    """The ``highspy`` module, or None (then scipy's bundled HiGHS runs)."""
    try:
        import highspy
    except ImportError:
        return None
    return highspy


def _new_highs(highspy):
    """A silent ``Highs``: its first construction in a process prints a banner to stdout (C level), which
    would corrupt a command's JSON output, so that goes to stderr."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        ctypes.CDLL(None).fflush(None)  # the banner may sit in C's stdout buffer: write it while fd 1 is stderr
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    return h


def _solve_highs(name, eq, rhs, cost, cap, time_limit):
    highspy = _highspy()
    if highspy is None:
        return _solve_scipy(eq, rhs, cost, cap, time_limit)
    h = _new_highs(highspy)
    h.setOptionValue("solver", HIGHS_METHOD)
    if HIGHS_METHOD == "ipm":
        for key, value in HIGHS_IPM_OPTIONS.items():
            h.setOptionValue(key, value)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    a = sp.vstack([eq, cap], format="csc")
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = a.shape[1], a.shape[0]
    lp.col_cost_ = cost
    lp.col_lower_ = np.zeros(a.shape[1])
    lp.col_upper_ = np.full(a.shape[1], np.inf)
    lp.row_lower_ = np.concatenate([rhs, np.full(cap.shape[0], -np.inf)])
    lp.row_upper_ = np.concatenate([rhs, np.zeros(cap.shape[0])])
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = a.indptr
    lp.a_matrix_.index_ = a.indices
    lp.a_matrix_.value_ = a.data
    h.passModel(lp)
    t0 = time.perf_counter()
    h.run()
    seconds = time.perf_counter() - t0
    model = h.getModelStatus()
    status = {highspy.HighsModelStatus.kOptimal: "optimal", highspy.HighsModelStatus.kTimeLimit: "time_limit",
              highspy.HighsModelStatus.kInfeasible: "infeasible"}.get(model, h.modelStatusToString(model))
    return h.getInfo().objective_function_value, status, f"highspy {h.version()} {HIGHS_METHOD}", seconds


def _solve_scipy(eq, rhs, cost, cap, time_limit):
    from scipy.optimize import linprog

    options = {} if time_limit is None else {"time_limit": float(time_limit)}
    if HIGHS_METHOD == "ipm":  # scipy always runs the crossover
        options.update(presolve=HIGHS_IPM_OPTIONS["presolve"] != "off",
                       ipm_optimality_tolerance=HIGHS_IPM_OPTIONS["ipm_optimality_tolerance"])
    t0 = time.perf_counter()
    method = "highs-ds" if HIGHS_METHOD == "simplex" else "highs-ipm"
    res = linprog(cost, A_ub=cap, b_ub=np.zeros(cap.shape[0]), A_eq=eq, b_eq=rhs, bounds=(0, None),
                  method=method, options=options)
    seconds = time.perf_counter() - t0
    # linprog's codes: 0 optimal, 1 iteration or time limit, 2 infeasible, 3 unbounded, 4 numerical trouble
    status = {0: "optimal", 1: "time_limit", 2: "infeasible", 3: "unbounded"}.get(res.status, res.message)
    return (float(res.fun) if res.status == 0 else math.nan), status, f"scipy {method}", seconds


def _solve_ortools(name, eq, rhs, cost, cap, time_limit):
    from ortools.linear_solver.python import model_builder_helper as mbh

    model = mbh.ModelBuilderHelper()
    a = sp.vstack([eq, cap], format="csr")
    model.fill_model_from_sparse_data(
        np.zeros(a.shape[1]), np.full(a.shape[1], np.inf), cost,
        np.concatenate([rhs, np.full(cap.shape[0], -np.inf)]), np.concatenate([rhs, np.zeros(cap.shape[0])]), a)
    solver = mbh.ModelSolverHelper(name)
    if name == "pdlp":
        eps = PDLP_TOLERANCE
        solver.set_solver_specific_parameters(
            f"num_threads: {os.cpu_count() or 1} "
            f"termination_criteria {{ simple_optimality_criteria {{ eps_optimal_absolute: {eps} "
            f"eps_optimal_relative: {eps} }} }}")
    # the clock starts before the limit is set: the helper may start its own there, and a stop it calls a time
    # limit must not read as a few microseconds short of one (seen under load)
    t0 = time.perf_counter()
    if time_limit is not None:
        solver.set_time_limit_in_seconds(float(time_limit))
    solver.solve(model)
    seconds = time.perf_counter() - t0
    st = solver.status()
    if st == mbh.SolveStatus.OPTIMAL:
        status = "optimal"
    elif st == mbh.SolveStatus.INFEASIBLE:
        status = "infeasible"
    elif time_limit is not None and seconds >= 0.9 * time_limit:
        status = "time_limit"  # the helper reports a stopped solve as NOT_SOLVED or FEASIBLE
    else:
        status = f"{st.name.lower()}: {solver.status_string()[:200]}".rstrip(": ")
    value = solver.objective_value() if st == mbh.SolveStatus.OPTIMAL else math.nan
    from ortools import __version__ as version

    return value, status, f"ortools {version} {name}", seconds


# --------------------------------------------------------------------------- patterns


#: demand_for's pattern names (aliases in parentheses in its docstring)
PATTERNS = ("all-to-all", "permutation", "longest-matching")
_ALIASES = {"uniform": "all-to-all", "alltoall": "all-to-all", "random-permutation": "permutation",
            "matching": "longest-matching"}


def demand_for(name: str, graph: Graph, hosts_per_switch: int = 1, seed: int = 0) -> np.ndarray:
    """The switch-level demand matrix of a standard pattern, every host injecting 1 flit/cycle.

    * ``all-to-all`` (``uniform``): every host sends ``1 / (N - 1)`` to every other host
      (``N = n * hosts_per_switch``), so ``D[s, t] = h^2 / (N - 1)`` off the diagonal;
    * ``permutation`` (``random-permutation``): a uniformly random derangement of the hosts
      (seeded; no host sends to itself, two hosts of one switch may pair up, which lands on the
      diagonal);
    * ``longest-matching`` (``matching``): a maximum-weight perfect matching of the switches on hop
      distance (networkx's blossom algorithm, up to :data:`MATCHING_MAX_SWITCHES` switches); matched
      switches send to each other, each host to its counterpart, so ``D[a, b] = D[b, a] = h``.
      With an odd number of switches one is left out and its hosts send nothing.  It is the
      TopoBench near-worst case: every flit travels far.

    The simulator's patterns (:mod:`hopbench.harness.traffic.patterns`, BookSim's definitions, where
    ``uniform`` includes the source host and ``randperm`` allows fixed points) give their own matrix
    in the same units through ``TrafficPattern.demand_matrix``; both feed the bounds here.
    """
    key = _ALIASES.get(str(name).strip().lower(), str(name).strip().lower())
    if key not in PATTERNS:
        raise HopbenchError(f"unknown traffic pattern {name!r}; use one of {', '.join(PATTERNS)}")
    if not isinstance(hosts_per_switch, (int, np.integer)) or hosts_per_switch < 1:
        raise HopbenchError(f"hosts_per_switch must be a positive integer, got {hosts_per_switch!r}")
    if not isinstance(seed, (int, np.integer)) or not 0 <= seed <= caps.SEED_VALUE.limit():
        raise HopbenchError(f"seed must be an integer from 0 to {caps.SEED_VALUE.limit()}, got {seed!r}")
    n, h = graph.n, int(hosts_per_switch)
    hosts = n * h
    caps.VERTICES.check(hosts, "the host count (switches x hosts_per_switch)")
    caps.DENSE_MATRIX_BYTES.check(8 * n * n, "the demand matrix's size in bytes (8 n^2)")
    if hosts < 2:
        raise HopbenchError("traffic needs at least two hosts; use more switches or hosts_per_switch")
    if key == "all-to-all":
        d = np.full((n, n), h * h / (hosts - 1))
        np.fill_diagonal(d, h * (h - 1) / (hosts - 1))
        return d
    if key == "permutation":
        rng = np.random.default_rng(int(seed))
        for _ in range(1000):  # a random permutation is a derangement with probability ~1/e
            perm = rng.permutation(hosts)
            if not (perm == np.arange(hosts)).any():
                break
        else:  # pragma: no cover - probability (1 - 1/e)^1000
            raise HopbenchError("could not draw a derangement; try another seed")
        d = np.zeros((n, n))
        np.add.at(d, (np.arange(hosts) // h, perm // h), 1.0)
        return d
    return _longest_matching(graph, h)


def _longest_matching(graph: Graph, h: int) -> np.ndarray:
    import networkx as nx

    from hopbench.harness.engine.distances import distance_matrix

    n = graph.n
    if n > MATCHING_MAX_SWITCHES:
        raise HopbenchError(f"the longest-matching pattern takes at most {MATCHING_MAX_SWITCHES} switches "
                            f"(the matching is cubic in n), got {n}; use permutation traffic instead")
    parts, _ = connected_components(_adjacency(graph), directed=False)
    if parts > 1:
        raise HopbenchError(f"the graph is disconnected ({parts} parts); the longest matching needs hop distances "
                            f"between all switches, connect the graph first")
    dist = distance_matrix(graph).astype(np.int64)
    iu, ju = np.triu_indices(n, 1)
    complete = nx.Graph()
    complete.add_weighted_edges_from(zip(iu.tolist(), ju.tolist(), dist[iu, ju].tolist()))
    d = np.zeros((n, n))
    for a, b in nx.max_weight_matching(complete, maxcardinality=True):
        d[a, b] = d[b, a] = h
    return d
