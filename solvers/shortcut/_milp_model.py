"""The exact CP-SAT model of a small shortcut problem (built here, solved by :mod:`hopbench.solvers.shortcut.milp`).

Variables
    ``x[e]`` — one Boolean per candidate shortcut e = u--v (not a base edge,
    both ends with a free port).
    ``r[s, v, k]`` — one Boolean per unordered pair {s, v} and hop level k:
    "d(s, v) <= k is allowed".  Only levels strictly between 1 and the base
    distance need a variable: d <= 0 is false, d <= 1 is ``x[sv]`` (or false
    for a non-candidate pair), and d <= k holds for every k >= d_base(s, v)
    since the base is kept.
    ``z`` — x[w v] AND r[s, w, k-1], the "reach v through the shortcut w--v"
    terms.

Constraints
    budget ``sum x <= budget`` and ports ``sum_{e at v} x[e] <= cap - deg(v)``
    (equalities for regular problems); maximality (no feasible shortcut left
    out: adding one never hurts, so some optimum is maximal);
    layered reachability, from both ends of every pair:
    ``r[s,v,k] => OR_{w in N_base(v)} r[s,w,k-1] OR OR_{w--v candidate} (x[wv] AND r[s,w,k-1])``
    and monotonicity ``r[s,v,k-1] => r[s,v,k]``.  Minimisation pushes every r
    up to the truth, and the constraints never let it exceed the truth, so at
    an optimum d(s, v) = sum_k (1 - r[s,v,k]) exactly.
    An optional diameter limit D fixes r[s,v,D] = 1 for every pair.

Objective
    total distance = sum over pairs of sum_{k < min(d_base, D)} (1 - r[s,v,k]).

Symmetry breaking (optional, see :mod:`hopbench.solvers.shortcut._milp_symmetry` for why it is
sound): an integer M equals the largest base length of a chosen shortcut,
and at least one chosen "anchor" shortcut r--w (r a vertex-orbit
representative, w a representative under the stabiliser of r) has length M.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from hopbench.harness.engine.distances import distance_matrix
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.solvers.shortcut._milp_symmetry import Symmetry


def candidates(problem: ShortcutProblem) -> np.ndarray:
    """Candidate shortcuts (u < v), lexicographic: not a base edge, both ends below the cap."""
    base = problem.base
    free = problem.free_ports
    open_ = np.flatnonzero(free > 0)
    if open_.size < 2:
        return np.empty((0, 2), np.int64)
    i, j = np.triu_indices(open_.size, 1)
    pairs = np.stack([open_[i], open_[j]], axis=1).astype(np.int64)
    return pairs[~base.has_edges(pairs)]


def size_estimate(problem: ShortcutProblem, diameter_limit: int | None = None) -> int:
    """Roughly how many Boolean terms the model has (reachability literals and AND terms)."""
    base = problem.base
    db = distance_matrix(base).astype(np.int64)
    n = base.n
    cand = candidates(problem)
    deg_c = np.bincount(cand.ravel(), minlength=n).astype(np.int64)
    deg_b = base.degree.astype(np.int64)
    iu = np.triu_indices(n, 1)
    top = db[iu] - 1 if diameter_limit is None else np.minimum(db[iu] - 1, diameter_limit)
    levels = np.maximum(top - 1, 0)
    per_level = deg_c[iu[0]] + deg_c[iu[1]] + deg_b[iu[0]] + deg_b[iu[1]] + 2
    return int((levels * per_level).sum()) + cand.shape[0]


@dataclass
class ShortcutModel:
    """A built CP-SAT model and the maps needed to hint it and read its solutions."""

    problem: ShortcutProblem
    model: object  #: ortools.sat.python.cp_model.CpModel
    cands: np.ndarray
    x: list
    r: dict = field(default_factory=dict)  #: (s, v, k) with s < v -> literal
    z: list = field(default_factory=list)  #: (literal, edge index, s, w, k-1): x[edge] AND r[s, w, k-1]
    base_dist: np.ndarray | None = None
    diameter_limit: int | None = None
    total: object = None  #: the total-distance linear expression
    infeasible: bool = False  #: the diameter limit cannot be met at all (some pair can never get that close)
    symmetry_used: bool = False
    longest: object = None  #: symmetry breaking: the largest base length of a chosen shortcut
    anchors: list = field(default_factory=list)  #: symmetry breaking: (literal, edge index) of anchor shortcuts
    _tables: tuple | None = field(default=None, init=False, repr=False)  #: see :meth:`_hint_tables`

    @property
    def pairs(self) -> int:
        n = self.problem.n
        return n * (n - 1) // 2

    def lit(self, s: int, v: int, k: int):
        """The literal (or a Python bool) for "d(s, v) <= k"."""
        if s == v:
            return True
        if s > v:
            s, v = v, s
        if k >= self.base_dist[s, v]:
            return True
        if k <= 0:
            return False
        if k == 1:
            e = self._cand_index.get((s, v))
            return False if e is None else self.x[e]
        return self.r[(s, v, k)]

    def hint(self, shortcuts: np.ndarray) -> None:
        """Hint every variable from a feasible shortcut set (x, and r/z from its exact distances).

        The hint is written into the model's proto in two bulk appends: one ``AddHint`` per
        variable cost 0.65 s for 190k variables on a busy core, inside the solver's time limit.
        """
        m = self.model
        m.ClearHints()
        chosen = np.zeros(len(self.x), bool)
        for u, v in np.asarray(shortcuts, np.int64).reshape(-1, 2).tolist():
            chosen[self._cand_index[(min(u, v), max(u, v))]] = True
        d = distance_matrix(self.problem.graph_with(shortcuts)).astype(np.int64)
        x_refs, r_refs, r_keys, z_refs, z_rows = self._hint_tables()
        z_reach = (z_rows[:, 1] == z_rows[:, 2]) | (d[z_rows[:, 1], z_rows[:, 2]] <= z_rows[:, 3])
        refs = np.concatenate([x_refs, r_refs, z_refs])
        values = np.concatenate([chosen, d[r_keys[:, 0], r_keys[:, 1]] <= r_keys[:, 2],
                                 chosen[z_rows[:, 0]] & z_reach]).astype(np.int64)
        negated = refs < 0  # a negated literal -i-1 stands for NOT variable i
        values[negated] = 1 - values[negated]
        refs[negated] = -refs[negated] - 1
        hints = m.Proto().solution_hint
        hints.vars.extend(refs.tolist())
        hints.values.extend(values.tolist())
        if self.longest is not None:
            lengths = [int(self.base_dist[u, v]) for u, v in self.cands[chosen].tolist()]
            top = max(lengths, default=0)
            m.AddHint(self.longest, top)
            picked = False
            for var, e in self.anchors:
                on = not picked and bool(chosen[e]) and int(self.base_dist[tuple(self.cands[e])]) == top
                picked = picked or on
                m.AddHint(var, on)

    def _hint_tables(self) -> tuple[np.ndarray, ...]:
        """Literal references and (pair, level) keys of x, r and z, built once per model."""
        tables = self._tables
        if tables is None:
            x_refs = np.array([var.Index() for var in self.x], np.int64)
            r_refs = np.array([var.Index() for var in self.r.values()], np.int64)
            r_keys = np.array(list(self.r.keys()), np.int64).reshape(-1, 3)
            z_refs = np.array([row[0].Index() for row in self.z], np.int64)
            z_rows = np.array([row[1:] for row in self.z], np.int64).reshape(-1, 4)
            tables = self._tables = (x_refs, r_refs, r_keys, z_refs, z_rows)
        return tables

    def shortcuts(self, value) -> np.ndarray:
        """The chosen shortcuts, read through ``value(var) -> bool`` (a solver or a callback)."""
        chosen = [e for e, var in enumerate(self.x) if value(var)]
        return self.cands[chosen].reshape(-1, 2)


class OutOfTime(Exception):
    """Building a model was stopped because the solver's time ran out."""


def build(problem: ShortcutProblem, *, diameter_limit: int | None = None, symmetry: Symmetry | None = None,
          minimise_total: bool = True, local_moore: bool = True,
          should_stop: Callable[[], bool] | None = None) -> ShortcutModel:
    """Build the model (see the module docstring).  The base graph must be connected.

    Building a large model takes seconds of Python; ``should_stop`` is polled while it runs
    and :class:`OutOfTime` raised when it says so, so that a time limit holds.
    """
    def check(step: int) -> None:
        if should_stop is not None and step % 64 == 0 and should_stop():
            raise OutOfTime()

    from ortools.sat.python import cp_model

    base = problem.base
    n = base.n
    db = distance_matrix(base).astype(np.int64)
    m = cp_model.CpModel()
    cands = candidates(problem)
    x = [m.NewBoolVar(f"x_{u}_{v}") for u, v in cands.tolist()]
    out = ShortcutModel(problem, m, cands, x, base_dist=db, diameter_limit=diameter_limit)
    out._cand_index = {(int(u), int(v)): e for e, (u, v) in enumerate(cands.tolist())}
    free = problem.free_ports
    at = [[] for _ in range(n)]
    for e, (u, v) in enumerate(cands.tolist()):
        at[u].append(e)
        at[v].append(e)
    regular = bool(getattr(problem, "regular", False))
    for v in range(n):
        if at[v]:
            expr = sum(x[e] for e in at[v])
            if regular:
                m.Add(expr == int(free[v]))
            else:
                m.Add(expr <= int(free[v]))
        elif regular and free[v] > 0:
            m.AddBoolOr([])  # a vertex that must gain ports but has no candidate: infeasible
    if x:
        if regular:
            m.Add(sum(x) == int(problem.budget))
        else:
            m.Add(sum(x) <= int(problem.budget))
    if x and not regular:
        _maximal(m, x, at, free, cands, int(problem.budget))
    nb_base = [list(map(int, base.neighbours(v))) for v in range(n)]
    nb_cand = [[(int(cands[e, 0]) if int(cands[e, 1]) == v else int(cands[e, 1]), e) for e in at[v]]
               for v in range(n)]
    limit = None if diameter_limit is None else int(diameter_limit)
    # reachability literals
    for s in range(n):
        check(0)
        for v in range(s + 1, n):
            top = int(db[s, v]) - 1 if limit is None else min(int(db[s, v]) - 1, limit)
            for k in range(2, top + 1):
                out.r[(s, v, k)] = m.NewBoolVar(f"r_{s}_{v}_{k}")
    z_cache: dict[tuple[int, int, int, int], object] = {}

    def term(e: int, s: int, w: int, k: int):
        """x[e] AND d(s, w) <= k, as a literal or a Python bool."""
        reach = out.lit(s, w, k)
        if reach is False:
            return False
        if reach is True:
            return x[e]
        key = (e, min(s, w), max(s, w), k)
        lit = z_cache.get(key)
        if lit is None:
            lit = m.NewBoolVar(f"z_{e}_{s}_{w}_{k}")
            m.AddImplication(lit, x[e])
            m.AddImplication(lit, reach)
            z_cache[key] = lit
            out.z.append((lit, e, s, w, k))
        return lit

    for step, ((s, v, k), lit) in enumerate(list(out.r.items())):
        check(step)
        for a, b in ((s, v), (v, s)):  # expand at b's end: some neighbour of b is within k-1 of a
            terms = []
            vacuous = False
            for w in nb_base[b]:
                t = out.lit(a, w, k - 1)
                if t is True:
                    vacuous = True
                    break
                if t is not False:
                    terms.append(t)
            if vacuous:
                continue
            for w, e in nb_cand[b]:
                t = term(e, a, w, k - 1)
                if t is not False:
                    terms.append(t)
            if not terms:
                m.Add(lit == 0)
            else:
                m.AddBoolOr(terms).OnlyEnforceIf(lit)
        prev = out.lit(s, v, k - 1)
        if prev is not False and prev is not True:
            m.AddImplication(prev, lit)
    check(0)
    if local_moore:
        _moore_cuts(out, at, nb_base, nb_cand)
    check(0)
    if limit is not None:
        for s in range(n):
            for v in range(s + 1, n):
                if db[s, v] > limit:
                    t = out.lit(s, v, limit)
                    if t is False:
                        out.infeasible = True
                    elif t is not True:
                        m.Add(t == 1)
    # total distance: every pair counts 1 per level k < min(d_base, limit) it is not yet within
    const = 0
    lits = []
    for s in range(n):
        check(0)
        for v in range(s + 1, n):
            top = int(db[s, v]) if limit is None else min(int(db[s, v]), limit)
            const += top
            for k in range(1, top):
                t = out.lit(s, v, k)
                if t is True:
                    const -= 1
                elif t is not False:
                    lits.append(t)
    out.total = const - sum(lits) if lits else const
    if minimise_total:
        m.Minimize(out.total)
    check(0)
    if symmetry is not None and not symmetry.trivial and x and problem.budget >= 1:
        _break_symmetry(out, symmetry)
    return out


def _moore_cuts(out: ShortcutModel, at: list, nb_base: list, nb_cand: list) -> None:
    """Counting cuts per vertex v (valid for every graph, so they keep every solution).

    * |B_2(v)| - 1 <= deg(v) + sum_{w in N(v)} (deg(w) - 1): a vertex two hops
      away is reached through a neighbour's other links.  Degrees are linear
      in x; a shortcut neighbour's term deg(w) - 1 enters through an integer
      y <= (cap - 1) x[vw], y <= deg(w) - 1.
    * |S_{k+1}(v)| <= (cap - 1) |S_k(v)| for k >= 2 (spheres S_k = B_k - B_{k-1}).

    The LP relaxation of the reachability model alone only knows that
    non-adjacent pairs are two hops apart; these cuts bring in how few
    vertices sparse neighbourhoods can reach, and they propagate degree
    requirements at once under a diameter limit.
    """
    m = out.model
    p = out.problem
    n = p.n
    cap = int(p.degree_cap)
    base_deg = p.base.degree.astype(np.int64)
    x = out.x
    deg = [int(base_deg[v]) + sum(x[e] for e in at[v]) for v in range(n)]
    top = int(out.base_dist.max()) if out.diameter_limit is None else min(int(out.base_dist.max()),
                                                                           out.diameter_limit)

    def ball(v: int, k: int):
        """sum over u != v of [d(v, u) <= k] as a linear expression (0 for k <= 0)."""
        const = 0
        lits = []
        for u in range(n):
            if u == v:
                continue
            t = out.lit(v, u, k)
            if t is True:
                const += 1
            elif t is not False:
                lits.append(t)
        return const + sum(lits) if lits else const

    for v in range(n):
        if top < 2:
            break
        terms = []
        for w, e in nb_cand[v]:
            y = m.NewIntVar(0, cap - 1, f"y_{v}_{w}")
            m.Add(y <= (cap - 1) * x[e])
            m.Add(y <= deg[w] - 1)
            terms.append(y)
        rhs = deg[v] + sum(deg[w] - 1 for w in nb_base[v]) + (sum(terms) if terms else 0)
        b1, b2 = ball(v, 1), ball(v, 2)
        m.Add(b2 <= rhs)
        prev_sphere = b2 - b1
        prev_ball = b2
        for k in range(3, top + 1):
            bk = ball(v, k)
            m.Add(bk - prev_ball <= (cap - 1) * prev_sphere)
            prev_sphere = bk - prev_ball
            prev_ball = bk


def _maximal(m, x: list, at: list, free: np.ndarray, cands: np.ndarray, budget: int) -> None:
    """No feasible shortcut is left out: each candidate is chosen, or an end is full, or the budget is.

    Sound: adding a shortcut never lengthens a distance, so extending any
    optimum until nothing fits keeps it optimal; the property is invariant
    under automorphisms, so it combines with the symmetry breaking.
    """
    full = []
    for v in range(len(at)):
        if not at[v]:
            full.append(None)
            continue
        f = m.NewBoolVar(f"full_{v}")
        load = sum(x[e] for e in at[v])
        m.Add(load >= int(free[v])).OnlyEnforceIf(f)
        m.Add(load <= int(free[v]) - 1).OnlyEnforceIf(f.Not())
        full.append(f)
    spent = m.NewBoolVar("budget_spent")
    m.Add(sum(x) >= budget).OnlyEnforceIf(spent)
    m.Add(sum(x) <= budget - 1).OnlyEnforceIf(spent.Not())
    for e, (u, v) in enumerate(cands.tolist()):
        m.AddBoolOr([x[e], full[u], full[v], spent])


def _break_symmetry(out: ShortcutModel, sym: Symmetry) -> None:
    """Some chosen anchor shortcut has the largest base length among the chosen ones (sound: see module)."""
    m = out.model
    db = out.base_dist
    lengths = [int(db[u, v]) for u, v in out.cands.tolist()]
    top = max(lengths)
    big_m = m.NewIntVar(0, top, "longest")
    m.AddMaxEquality(big_m, [lengths[e] * out.x[e] for e in range(len(out.x))])
    anchors = []
    for e, (u, v) in enumerate(out.cands.tolist()):
        if sym.allowed_anchor(u, v) or sym.allowed_anchor(v, u):
            y = m.NewBoolVar(f"anchor_{u}_{v}")
            m.AddImplication(y, out.x[e])
            m.Add(big_m <= lengths[e]).OnlyEnforceIf(y)
            anchors.append(y)
            out.anchors.append((y, e))
    m.AddBoolOr(anchors)
    out.longest = big_m
    out.symmetry_used = True


__all__ = ["ShortcutModel", "build", "candidates", "size_estimate"]
