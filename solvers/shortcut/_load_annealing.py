"""Annealing's path for the ``channel-load`` objective (the throughput bound of minimal routing).

Not a solver module: :class:`hopbench.solvers.shortcut.annealing.Annealing` calls :func:`anneal_channel_load` when a
problem's objective is ``channel-load``.  Its incremental distance machinery scores a move by the total
distance and the diameter alone; the busiest channel depends on every shortest path of every pair, so each
move is scored from scratch instead, by :func:`hopbench.harness.engine.channel_load.peak_of_edges` (O(n m), one numba
call).  That is affordable on the small instances the objective is meant for (n in the hundreds).

* **State**: the shortcut set, filled with random feasible shortcuts up to the budget from ``init``'s start
  (an added link usually spreads the load but can concentrate it, so later moves keep the set's size).
* **Moves**: *relocate* one shortcut to a random feasible non-edge; *swap* the ends of two shortcuts
  (a--b, u--v -> a--u, b--v; degree-neutral) with probability ``p_swap`` (at least 0.3 here, since on a
  full set relocations alone rarely find a free pair of ports).
* **Energy**: (unreachable pairs, L, total distance), lexicographic for the best state; Metropolis on L at
  T(t) = T0 (T1/T0)^t with T0 = ``t0`` x L*, T1 = ``t1`` x L* (L* the best load so far), t the elapsed share
  of the evaluation budget, else of the time budget, else of ``moves``, as the distance path does.
* **Returns the best state seen.**  Loads are sums of fractions: two that differ below 1e-12 (relative) are
  taken as equal, and the total distance decides.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from hopbench.harness.engine.channel_load import peak_of_edges
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution
from hopbench.solvers.contract.budget import Budget, Reporter
from hopbench.solvers.shortcut.feasible import FeasiblePairs

#: the least share of swap moves on this path (see the module docstring)
MIN_SWAP_SHARE = 0.3


def _key(peak: float, total: int, unreachable: int) -> tuple[int, float, int]:
    return (unreachable, float(f"{peak:.12g}") if math.isfinite(peak) else math.inf, total)


def anneal_channel_load(problem: ShortcutProblem, start: np.ndarray, cfg: dict[str, Any], rng: np.random.Generator,
                        budget: Budget, report: Reporter, schedule_clock: Callable[..., tuple[str, float]]) -> Solution:
    """Anneal the shortcut set of ``problem`` (objective ``channel-load``) from ``start``."""
    n = problem.n
    base = np.asarray(problem.base.edges, dtype=np.int64).reshape(-1, 2)
    pairs = FeasiblePairs(problem.base, problem.degree_cap)
    current = [tuple(map(int, e)) for e in np.asarray(start, dtype=np.int64).reshape(-1, 2)]
    for u, v in current:
        pairs.add(u, v)
    while len(current) < problem.budget:  # fill the budget: the moves below keep the set's size
        pick = pairs.draw(1, rng)
        if pick.shape[0] == 0:
            break
        u, v = map(int, pick[0])
        pairs.add(u, v)
        current.append((u, v))

    def score(links: list[tuple[int, int]]) -> tuple[int, float, int]:
        edges = np.concatenate([base, np.asarray(links, dtype=np.int64).reshape(-1, 2)])
        peak, total, unreachable = peak_of_edges(n, edges)
        report.count(1)
        return _key(peak, total, unreachable)

    cur_key = score(current)
    best, best_key = list(current), cur_key
    report(best_key[1], moves=0, shortcuts=len(best))
    p_swap = max(MIN_SWAP_SHARE, float(cfg["p_swap"]))
    moves = accepted = 0
    stopped = "schedule ended"
    mode, horizon = schedule_clock(budget, report, int(cfg["moves"]))
    t_start, e_start = report.elapsed(), report.evaluations
    while True:
        if report.should_stop():
            stopped = "time or evaluation budget"
            break
        t = ((report.elapsed() - t_start) if mode == "time" else
             (report.evaluations - e_start) if mode == "evals" else moves) / horizon
        if t >= 1.0:
            break
        if not current:
            stopped = "no shortcut to move"
            break
        moves += 1
        i = int(rng.integers(len(current)))
        a, b = current[i]
        proposal = list(current)
        if rng.random() < p_swap and len(current) >= 2:
            j = int(rng.integers(len(current) - 1))
            j += j >= i
            u, v = current[j]
            if rng.random() < 0.5:
                u, v = v, u
            # a--b, u--v -> a--u, b--v: every degree stays; both new links must be new, distinct pairs
            if len({a, b, u, v}) < 4 or pairs.is_link(a, u) or pairs.is_link(b, v):
                continue
            proposal[i], proposal[j] = (min(a, u), max(a, u)), (min(b, v), max(b, v))
        else:
            pairs.remove(a, b)
            pick = pairs.draw(1, rng)
            pairs.add(a, b)
            if pick.shape[0] == 0:
                continue
            u, v = map(int, pick[0])
            proposal[i] = (u, v)
        key = score(proposal)
        accept = key <= cur_key
        if not accept and key[0] == cur_key[0] and math.isfinite(key[1]) and math.isfinite(cur_key[1]):
            star = best_key[1] if math.isfinite(best_key[1]) and best_key[1] > 0 else max(key[1], 1e-12)
            t0, t1 = float(cfg["t0"]) * star, float(cfg["t1"]) * star
            temperature = t0 * (t1 / t0) ** t if t0 > 0 and t1 > 0 else 0.0
            rise = key[1] - cur_key[1]
            accept = temperature > 0 and rng.random() < math.exp(-rise / temperature)
        if not accept:
            continue
        accepted += 1
        for old, new in zip(current, proposal):
            if old != new:
                pairs.remove(*old)
        for old, new in zip(current, proposal):
            if old != new:
                pairs.add(*new)
        current, cur_key = proposal, key
        if key < best_key:
            best, best_key = list(current), key
            report(best_key[1], moves=moves, shortcuts=len(best))
    extra = {"stopped": stopped, "moves": moves, "accepted": accepted, "path": "channel-load",
             "best_total_distance": int(best_key[2])}
    return Solution(problem, np.asarray(best, dtype=np.int64).reshape(-1, 2), extra=extra)
