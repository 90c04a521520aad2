"""EdgeCut: greedy shortcut addition from the perspective of edges.

Fuad, Zeng & Chen, "Edge-Based Heuristics for Optimizing Shortcut-Augmented
Topologies for HPC Interconnects", Electronics 11:2778 (2022), Alg. 1 and 2.
Both variants repeat one round until the shortcut budget is spent:

1. draw ``t`` random feasible shortcuts (distinct endpoints, both below the
   degree cap, not already an edge), uniformly and without repeats;
   ``t = 0`` takes every feasible pair instead (exhaustive greedy);
2. pick one:

   * ``edgecut-full`` (ECF, Alg. 1) scores every candidate exactly — the
     metrics of the graph with that shortcut added — and keeps the best
     (the first drawn among equals); it stops early when no candidate
     improves on the current graph;
   * ``edgecut-lite`` (ECL, Alg. 2) keeps the candidate whose endpoints are
     currently farthest apart (the first drawn among equals), the hops that
     shortcut saves on its own pair;

3. add it and update the distance matrix incrementally.

How ECF ranks candidates (lexicographic, lower is better):

==========  ==========================================================
objective   key
==========  ==========================================================
aspl        (unreachable pairs, total distance)
golf        (unreachable pairs, diameter, total distance)
diameter    (unreachable pairs, diameter, pairs at the diameter, total)
ad          (unreachable pairs, ASPL x diameter, total distance)
==========  ==========================================================

The tie-breakers are our reading of Alg. 1 for objectives it does not
spell out: on a connected graph almost no single shortcut lowers the
diameter, so comparing the diameter alone would stop ECF in its first
round.  Ranking by the pairs left at the diameter and then by the total
distance makes every feasible shortcut a strict improvement (each one
shortens at least its own pair), so under these keys "no candidate
improves" only happens when no feasible pair is left.  Golf's key is exactly
its objective's order (diameter first, then ASPL).

``channel-load`` (edgecut-full only; the busiest channel under uniform traffic and minimal routing,
:mod:`hopbench.harness.engine.channel_load`): the key is (unreachable pairs, sum of squared channel loads, the
busiest channel's load, total distance), each candidate measured from scratch on the graph so far plus
that link (the squares: a smooth stand-in for the peak, see ``_pick_by_load``).  An added link can load a channel
more (traffic moves onto it): each round adds the best candidate even then, and the run returns the best
graph of the sequence (a prefix of the additions), not necessarily the budget's last.

Scoring uses :meth:`hopbench.harness.engine.distances.DistanceState.reductions` (one
vectorised pass per candidate, or per-endpoint tables when many candidates
share an endpoint, which makes ``t = 0`` affordable) and falls back on exact
per-candidate histograms for the few candidates that lower the diameter and
for disconnected graphs.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from hopbench.harness.engine.dense import dense_matrix_refusal, dense_state_seconds_estimate
from hopbench.harness.engine.small_state import distance_state
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution
from hopbench.solvers.contract import Param, Solver, register
from hopbench.solvers.contract.budget import Budget, Reporter
from hopbench.solvers.shortcut._greedy import Progress, state_objective
from hopbench.solvers.shortcut.feasible import FeasiblePairs

if TYPE_CHECKING:
    from hopbench.harness.engine.distances import DistanceState

#: candidates scored per kernel call in exhaustive rounds; the time budget is
#: polled between chunks, so one round never overruns it by more than a chunk
CHUNK = 8192
#: the same for the channel-load objective, whose candidates cost a full O(n m) pass each
LOAD_CHUNK = 64

_T_PARAM = Param(10, "random candidate shortcuts per round (the authors' code uses 10); "
                     "0 = every feasible pair (exhaustive greedy)",
                 low=1, high=1000, log=True, minimum=0, also=(0,))


def candidates(pairs: FeasiblePairs, t: int, rng: np.random.Generator) -> np.ndarray:
    """This round's candidates: ``t`` uniform random feasible pairs, or all of them for ``t = 0``.

    Exhaustive rounds list the pairs in lexicographic order, so "the first
    among equals" is the lexicographically smallest pair.
    """
    return pairs.all_pairs() if t == 0 else pairs.draw(t, rng)


def candidate_chunks(pairs: FeasiblePairs, t: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """:func:`candidates` in consecutive chunks: the ``t`` drawn pairs as one, or every feasible pair in
    chunks of :data:`CHUNK` rows, each listed only when asked for (listing a million pairs takes long enough
    under load to overrun a short time limit, so the round polls the limit between chunks)."""
    if t == 0:
        yield from pairs.all_pairs_in_chunks(CHUNK)
        return
    drawn = pairs.draw(t, rng)
    if drawn.shape[0]:
        yield drawn


def _pieces(chunks: Iterable[np.ndarray], size: int) -> Iterator[tuple[int, np.ndarray]]:
    """``(offset, piece)``: the candidates of ``chunks`` cut at every multiple of ``size`` rows (where a
    round polls its budget, wherever the chunks themselves end)."""
    offset = 0
    for chunk in chunks:
        for lo in range(0, chunk.shape[0], size):
            piece = chunk[lo:lo + size]
            yield offset, piece
            offset += piece.shape[0]


def candidate_metrics(state: DistanceState, xs: np.ndarray, ys: np.ndarray, *,
                      need_diameter: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Exact (unreachable pairs, diameter, pairs at the diameter, total) after each candidate alone.

    Without ``need_diameter`` the diameter columns hold the current values
    (the ASPL key does not read them).
    """
    k = xs.shape[0]
    if state.unreachable == 0:
        diam = int(state.diameter)
        saved, shortened = state.reductions(xs, ys, level=diam if need_diameter else None)
        total = state.total - saved
        unreach = np.zeros(k, np.int64)
        diameter = np.full(k, diam, np.int64)
        at_diameter = state.hist[diam] - shortened
        if need_diameter:
            # the rare candidates that clear every pair at the diameter: the new
            # diameter and its pair count need their full histogram
            drop = np.flatnonzero(at_diameter == 0)
            if drop.size:
                hist = state.score_histograms(xs[drop], ys[drop])
                diameter[drop], at_diameter[drop] = _top_of(hist)
        return unreach, diameter, at_diameter, total
    hist = state.score_histograms(xs, ys)
    diameter, at_diameter = _top_of(hist)
    total = hist[:, :-1] @ np.arange(hist.shape[1] - 1, dtype=np.int64)
    return hist[:, -1].copy(), diameter, at_diameter, total


def _top_of(hist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Largest finite distance present in each histogram row, and its pair count."""
    finite = hist[:, :-1] > 0
    top = finite.shape[1] - 1 - np.argmax(finite[:, ::-1], axis=1)
    top = np.where(finite.any(axis=1), top, 0)
    return top.astype(np.int64), hist[np.arange(hist.shape[0]), top]


def ranking_key(objective: str, n: int, unreach: np.ndarray, diameter: np.ndarray,
                at_diameter: np.ndarray, total: np.ndarray) -> list[np.ndarray]:
    """ECF's lexicographic key columns for ``objective`` (most significant first)."""
    if objective == "aspl":
        return [unreach, total]
    if objective == "golf":
        return [unreach, diameter, total]
    if objective == "diameter":
        return [unreach, diameter, at_diameter, total]
    if objective == "ad":
        pairs = max(n * (n - 1) // 2, 1)
        return [unreach, total / pairs * diameter, total]
    raise ValueError(f"unknown objective {objective!r}")  # pragma: no cover - the problem validated it


def first_minimum(keys: list[np.ndarray]) -> int:
    """Index of the lexicographically smallest row; the earliest one among equals."""
    alive = np.arange(keys[0].shape[0])
    for col in keys:
        vals = col[alive]
        alive = alive[vals == vals.min()]
        if alive.size == 1:
            break
    return int(alive[0])


def _current_key(objective: str, state: DistanceState) -> list[float]:
    diam = int(np.flatnonzero(state.hist[:-1])[-1]) if state.hist[:-1].any() else 0
    cols = ranking_key(objective, state.n, np.array([state.unreachable]), np.array([diam]),
                       np.array([state.hist[diam]]), np.array([state.total]))
    return [c[0] for c in cols]


class _EdgeCut(Solver):
    """The round loop both variants share; subclasses pick one candidate per round."""

    params = {"t": _T_PARAM}

    def pick(self, problem: ShortcutProblem, state: DistanceState, chunks: Iterator[np.ndarray],
             report: Reporter) -> tuple[np.ndarray | None, str]:
        """``(the candidate pair to add, '')`` from this round's candidates (``chunks``, in order), or
        ``(None, why the run stops)``."""
        raise NotImplementedError

    def warm_up(self) -> None:
        # in a process that warms solvers up (run's workers, solve with a time limit, the Python API) the
        # numba state is the one to compile before any clock starts: once its engine is imported,
        # distance_state() always picks it
        import hopbench.harness.engine.distances  # noqa: F401

    def skip(self, problem: ShortcutProblem) -> tuple[bool, str]:
        skipped, reason = super().skip(problem)
        if skipped:
            return skipped, reason
        why = dense_matrix_refusal(problem.n)
        return bool(why), why

    def solve(self, problem: ShortcutProblem, *, seed: int, budget: Budget, report: Reporter) -> Solution:
        t = int(self.config["t"])
        rng = np.random.default_rng(seed)
        if report.remaining_time() < dense_state_seconds_estimate(problem.n):
            # building the matrix, which nothing interrupts, would overrun the time limit
            stopped = {"stopped": "time limit before the distance matrix", "rounds": 0}
            return Solution(problem, np.empty((0, 2), np.int64), extra=stopped)
        pairs = FeasiblePairs(problem.base, problem.degree_cap)
        # a small, light solve in a process without numba keeps its matrix in numpy (same numbers, no second
        # of loading numba); the work estimate is the n x n passes of scoring every round's endpoints
        endpoints = problem.n if t == 0 else min(t, problem.n)
        state = distance_state(problem.base, work=float(problem.budget) * endpoints * problem.n ** 2)
        progress = Progress(report)
        chosen: list[tuple[int, int]] = []
        self.current = problem.base  # the graph so far (the channel-load objective is measured on it)
        by_load = problem.objective == "channel-load"
        if by_load:  # numba's channel-load kernels, loaded only for that objective (a small solve stays light)
            from hopbench.harness.engine.channel_load import max_channel_load, peak_of_edges

        def value() -> float:
            if problem.objective == "channel-load":
                return max_channel_load(self.current)
            return state_objective(state, problem.objective)

        progress.offer(value(), shortcuts=0)
        best_key, best_count = (_load_key(*peak_of_edges(problem.n, problem.base.edges)) if by_load else None), 0
        stopped = "budget"
        while True:
            if len(chosen) >= problem.budget:
                break
            if report.should_stop():
                stopped = "time or evaluation budget"
                break
            chunks = candidate_chunks(pairs, t, rng)
            first = next(chunks, None)
            if first is None:
                stopped = "no feasible pair left"
                break
            pair, why = self.pick(problem, state, itertools.chain([first], chunks), report)
            if pair is None:
                stopped = why
                break
            x, y = int(pair[0]), int(pair[1])
            state.add_edge(x, y)
            pairs.add(x, y)
            chosen.append((x, y))
            if by_load:
                self.current = self.current.with_edges([(x, y)])
                key = _load_key(*peak_of_edges(self.current.n, self.current.edges))
                if key < best_key:
                    best_key, best_count = key, len(chosen)
            progress.offer(value(), shortcuts=len(chosen))
        if by_load:
            chosen = chosen[:best_count]  # the best graph of the greedy's sequence (a link can add load)
            self.current = problem.base.with_edges(chosen)
        progress.close(value(), shortcuts=len(chosen))
        shortcuts = np.asarray(chosen, dtype=np.int64).reshape(-1, 2)
        return Solution(problem, shortcuts, extra={"stopped": stopped, "rounds": len(chosen)})


def _load_key(peak: float, total: int, unreachable: int) -> tuple[int, float, int]:
    """channel-load's ranking: unreachable pairs, the busiest channel (to 12 digits: sums of fractions), total
    distance."""
    return (int(unreachable), float(f"{peak:.12g}") if np.isfinite(peak) else np.inf, int(total))


@register
class EdgeCutFull(_EdgeCut):
    """EdgeCut-Full (Alg. 1): add the candidate whose addition gives the best objective."""

    name = "edgecut-full"
    description = ("EdgeCut-Full (Fuad et al. 2022, Alg. 1): each round scores t random feasible "
                   "shortcuts exactly and adds the best; t=0 scores every feasible pair")

    opt_in_objectives = ("channel-load",)

    def pick(self, problem, state, chunks, report):
        if problem.objective == "channel-load":
            return self._pick_by_load(state, chunks, report)
        need_diameter = problem.objective != "aspl"
        parts, seen = [], []
        for lo, chunk in _pieces(chunks, CHUNK):
            if lo and report.should_stop():
                return None, "time or evaluation budget"  # an unfinished round adds nothing
            parts.append(candidate_metrics(state, chunk[:, 0], chunk[:, 1], need_diameter=need_diameter))
            seen.append(chunk)
            report.count(chunk.shape[0])
        cols = [np.concatenate(c) for c in zip(*parts)]
        keys = ranking_key(problem.objective, state.n, *cols)
        i = first_minimum(keys)
        if [k[i] for k in keys] >= _current_key(problem.objective, state):
            return None, "no candidate improves"
        return np.concatenate(seen)[i], ""


    def _pick_by_load(self, state, chunks, report):
        from hopbench.harness.engine.channel_load import score_added_links

        # each candidate measured from scratch on the graph so far plus that link
        parts, seen = [], []
        for lo, chunk in _pieces(chunks, LOAD_CHUNK):
            if lo and report.should_stop():
                return None, "time or evaluation budget"
            parts.append(score_added_links(self.current, chunk[:, 0], chunk[:, 1]))
            seen.append(chunk)
            report.count(chunk.shape[0])
        peaks, totals, unreachable, squares = (np.concatenate(c) for c in zip(*parts))
        # ranked by the sum of squared loads, a smooth stand-in for the busiest channel: ranked by the peak
        # itself the greedy favours short links that move little traffic and never leaves a ring's load
        # (ring:32, cap 4, 16 shortcuts, t=10, one draw: L = 4.72 ranked by L, 1.54 by the squares).
        # The best candidate is added even when the peak rises; the run returns the best graph of its sequence
        keys = [unreachable.astype(float), squares, np.array([_load_key(p, 0, 0)[1] for p in peaks]),
                totals.astype(float)]
        return np.concatenate(seen)[first_minimum(keys)], ""


@register
class EdgeCutLite(_EdgeCut):
    """EdgeCut-Lite (Alg. 2): add the candidate whose endpoints are farthest apart."""

    name = "edgecut-lite"
    description = ("EdgeCut-Lite (Fuad et al. 2022, Alg. 2): each round adds, among t random feasible "
                   "shortcuts, the one joining the farthest pair; t=0 looks at every feasible pair")

    def pick(self, problem, state, chunks, report):
        best, farthest = None, -1
        for k, chunk in enumerate(chunks):
            if k and report.should_stop():
                return None, "time or evaluation budget"  # an unfinished round adds nothing
            hops = state.D[chunk[:, 0], chunk[:, 1]]
            i = int(np.argmax(hops))  # the first maximum: ties go to the first drawn (or listed)
            if hops[i] > farthest:
                best, farthest = chunk[i], hops[i]
        report.count(1)  # one distance update per round; the O(t) look-ups are not evaluations
        return best, ""


__all__ = ["EdgeCutFull", "EdgeCutLite", "candidate_chunks", "candidate_metrics", "candidates", "first_minimum",
           "ranking_key"]
