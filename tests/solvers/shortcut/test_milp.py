"""The exact CP-SAT model: optima against exhaustive enumeration, sound symmetry breaking, bounds."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.bench.suites import load_suite
from hopbench.harness.engine.distances import summary
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, objective_value
from hopbench.harness.testing.conformance import busy_cores
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.contract.limits import overrun_allowance
from hopbench.solvers.shortcut._milp_model import build, candidates
from hopbench.solvers.shortcut._milp_symmetry import symmetry

#: feasible shortcut sets enumerated at most per instance (each costs one exact evaluation);
#: the slow test goes up to ENUM_LIMIT_SLOW
ENUM_LIMIT = 40_000
ENUM_LIMIT_SLOW = 250_000


def problem(spec, cap, budget, objective="aspl", **kw):
    return ShortcutProblem(parse_spec(spec), cap, budget, objective, base_spec=spec, **kw)


def _walk(p: ShortcutProblem, limit: int, keep: bool) -> list | None:
    """Walk every feasible shortcut set (sizes 0..budget; only full ones when the problem is regular), keeping
    them if ``keep``; None when there are more than ``limit``."""
    cand = candidates(p).tolist()
    free = p.free_ports.tolist()
    out: list[list[tuple[int, int]]] = []
    chosen: list[tuple[int, int]] = []
    listed = 0

    def rec(i: int) -> bool:
        nonlocal listed
        if listed > limit:
            return False
        if not p.regular or len(chosen) == p.budget:
            listed += 1
            if keep:
                out.append(list(chosen))
            if len(chosen) == p.budget:
                return True
        for j in range(i, len(cand)):
            u, v = cand[j]
            if free[u] and free[v]:
                free[u] -= 1
                free[v] -= 1
                chosen.append((u, v))
                ok = rec(j + 1)
                chosen.pop()
                free[u] += 1
                free[v] += 1
                if not ok:
                    return False
        return True

    return out if rec(0) else None


def feasible_sets(p: ShortcutProblem, limit: int):
    """Every feasible shortcut set (sizes 0..budget), or None when there are more than ``limit``."""
    return _walk(p, limit, keep=True)


def brute_force(p: ShortcutProblem, limit: int = ENUM_LIMIT) -> float | None:
    """The optimum by evaluating every feasible set exactly (None if there are too many).

    Independent of the distance engine: each set's graph goes through boolean
    matrix powers (batched), pair distance = the first power that reaches it.
    """
    sets = feasible_sets(p, limit)
    if sets is None:
        return None
    n = p.n
    base = np.zeros((n, n), np.float32)
    base[p.base.edges[:, 0], p.base.edges[:, 1]] = base[p.base.edges[:, 1], p.base.edges[:, 0]] = 1
    iu = np.triu_indices(n, 1)
    best = math.inf
    for lo in range(0, len(sets), 4096):
        batch = sets[lo:lo + 4096]
        step = np.repeat((base + np.eye(n, dtype=np.float32))[None], len(batch), axis=0)
        for b, s in enumerate(batch):
            for u, v in s:
                step[b, u, v] = step[b, v, u] = 1
        reach = np.repeat(np.eye(n, dtype=bool)[None], len(batch), axis=0)
        dist = np.zeros((len(batch), n, n), np.int64)
        for _ in range(n - 1):
            dist += ~reach
            reach = (reach.astype(np.float32) @ step) > 0
        d = np.where(reach, dist, np.iinfo(np.int64).max)[:, iu[0], iu[1]]
        for row in d:
            if (row == np.iinfo(np.int64).max).any():
                continue
            best = min(best, objective_value(p.objective, float(row.max()), float(row.mean())))
    return best


def solve(p, *, time_s=60.0, **params):
    return execute(solvers.create("milp", **params), p, seed=1, budget=Budget(time_s=time_s))


SUITE = load_suite("exact-small")


def enumerable(p: ShortcutProblem, limit: int) -> bool:
    """Whether :func:`feasible_sets` lists ``p``'s sets at ``limit``: the same walk, counting the sets instead of
    keeping them (this runs for every instance at collection, in every worker)."""
    return _walk(p, limit, keep=False) is not None


def _enumerable(limit: int) -> list:
    return [i for i in SUITE.instances if enumerable(i.problem(), limit)]


SMALL = _enumerable(ENUM_LIMIT)
MEDIUM = [i for i in _enumerable(ENUM_LIMIT_SLOW) if i not in SMALL]


def _check_against_enumeration(inst, limit):
    assert inst.optimum is not None, "every exact-small instance records its proven optimum"
    assert any(r.get("source") == "hopbench milp" for r in inst.references)
    p = inst.problem()
    ref = next(r for r in inst.references if r.get("source") == "hopbench milp")
    # the recorded solution is valid and has the recorded value
    assert p.evaluate(ref["shortcuts"]).objective == pytest.approx(inst.optimum, abs=1e-12)
    assert inst.optimum == pytest.approx(brute_force(p, limit), abs=1e-12)


@pytest.mark.parametrize("inst", SMALL, ids=[i.id for i in SMALL])
def test_suite_optimum_equals_enumeration(inst):
    """The recorded optimum (proven by this solver) equals exhaustive enumeration."""
    _check_against_enumeration(inst, ENUM_LIMIT)


@pytest.mark.slow
@pytest.mark.parametrize("inst", MEDIUM, ids=[i.id for i in MEDIUM])
def test_suite_optimum_equals_enumeration_larger(inst):
    _check_against_enumeration(inst, ENUM_LIMIT_SLOW)


def test_enumeration_covers_enough_of_the_suite():
    assert len(SMALL) + len(MEDIUM) >= 13  # of 23; the others have more than 250,000 feasible sets
    assert {i.fields["objective"] for i in SMALL} >= {"aspl", "golf"}
    for inst in SUITE.instances:  # and every instance records a proven optimum with its solution
        assert inst.optimum is not None
        ref = next(r for r in inst.references if r.get("source") == "hopbench milp")
        assert ref["status"] == "optimal"
        assert inst.problem().evaluate(ref["shortcuts"]).objective == pytest.approx(inst.optimum, abs=1e-12)


@pytest.mark.parametrize("spec, cap, budget, objective", [
    ("ring:8", 3, 2, "aspl"),
    ("ring:9", 4, 3, "golf"),
    ("ring:10", 3, 3, "diameter"),
    ("mesh:3x3", 5, 3, "golf"),
    ("torus:3x3", 6, 3, "aspl"),
    ("mesh:2x4", 4, 3, "diameter"),
])
def test_milp_equals_enumeration(spec, cap, budget, objective):
    p = problem(spec, cap, budget, objective)
    expected = brute_force(p)
    assert expected is not None
    out = solve(p)
    assert out.solution.extra["status"] == "optimal"
    assert out.solution.evaluation.objective == pytest.approx(expected, abs=1e-12)
    assert out.solution.extra["bound"] == pytest.approx(expected) and out.solution.extra["gap"] == 0.0


@pytest.mark.parametrize("spec, cap, budget, objective", [
    ("ring:10", 3, 4, "aspl"),
    ("torus:3x3", 5, 2, "golf"),
    ("mesh:3x3", 4, 2, "aspl"),
])
def test_symmetry_breaking_keeps_the_optimum(spec, cap, budget, objective):
    p = problem(spec, cap, budget, objective)
    with_sym = solve(p, warm_start="none")
    without = solve(p, warm_start="none", symmetry=False)
    assert with_sym.solution.extra["status"] == without.solution.extra["status"] == "optimal"
    assert with_sym.solution.evaluation.objective == pytest.approx(without.solution.evaluation.objective)
    assert with_sym.solution.evaluation.objective == pytest.approx(brute_force(p))


def test_regular_problem_uses_every_port():
    p = problem("ring:8", 3, 4, regular=True)
    out = solve(p)
    assert len(out.solution.shortcuts) == 4
    assert out.solution.evaluation.objective == pytest.approx(brute_force(p))


@pytest.mark.parametrize("spec, order, orbits", [
    ("ring:10", 20, 1), ("torus:4x4", 384, 1), ("mesh:3x3", 8, 3), ("mesh:3x4", 4, 4), ("torus:3x4", 48, 1),
])
def test_automorphism_groups(spec, order, orbits):
    sym = symmetry(parse_spec(spec))
    assert sym.order == order
    assert len(sym.reps) == orbits
    g = parse_spec(spec)
    edges = {tuple(e) for e in g.edges.tolist()}
    for perm in sym.perms:  # each is an automorphism
        assert {tuple(sorted((int(perm[u]), int(perm[v])))) for u, v in edges} == edges


@pytest.mark.parametrize("seed", range(5))
def test_hint_is_complete_and_canonical(seed):
    """A random solution, mapped by an automorphism, satisfies the symmetry-broken model exactly."""
    from ortools.sat.python import cp_model

    p = problem("torus:4x4", 6, 4)
    rng = np.random.default_rng(seed)
    cand = candidates(p)
    free = p.free_ports.copy()
    chosen = []
    for e in rng.permutation(len(cand)):
        u, v = cand[e]
        if free[u] and free[v] and len(chosen) < p.budget:
            free[u] -= 1
            free[v] -= 1
            chosen.append((int(u), int(v)))
    sym = symmetry(p.base)
    sm = build(p, symmetry=sym)
    canon = sym.canonical(np.array(chosen), sm.base_dist)
    sm.hint(canon)
    solver = cp_model.CpSolver()
    solver.parameters.fix_variables_to_their_hinted_value = True
    solver.parameters.max_time_in_seconds = 20
    status = solver.Solve(sm.model)
    assert solver.StatusName(status) == "OPTIMAL"  # the only assignment left is the hint itself
    assert solver.ObjectiveValue() == summary(p.graph_with(canon)).total == summary(p.graph_with(chosen)).total


def test_warm_start_hint_is_used():
    out = solve(problem("ring:12", 3, 4))
    extra = out.solution.extra
    assert extra["hint_objective"] < math.inf
    # the first CP-SAT incumbent is the hint (or better), never a cold start
    assert extra["first_incumbent"] is None or extra["first_incumbent"] <= extra["hint_objective"] + 1e-12
    assert out.trace[0].info.get("source") == "warm start"


def test_too_large_ends_within_its_limit_under_load_with_bound_and_gap():
    """Building this model alone takes about 3 s of Python: the build must watch the clock too."""
    p = problem("ring:36", 4, 12)
    with busy_cores():
        out = solve(p, time_s=4.0, warm_max_s=0.5)
    extra = out.solution.extra
    assert out.elapsed_s <= 4.0 + overrun_allowance(4.0)
    assert extra["status"] == "feasible"
    assert 0 < extra["bound"] < out.solution.evaluation.objective
    assert extra["gap"] == pytest.approx((out.solution.evaluation.objective - extra["bound"])
                                         / out.solution.evaluation.objective)


def test_skips_what_it_cannot_model():
    milp = solvers.create("milp")
    assert milp.skip(problem("ring:10", 4, 2, "ad"))[0]
    assert milp.skip(problem("empty:6", 3, 3))[0]
    assert "max_terms" in solvers.create("milp", max_terms=10).skip(problem("ring:30", 4, 4))[1]
