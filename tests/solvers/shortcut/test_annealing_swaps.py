"""The annealing solver's swap mode: near-regular start, 2-opt swaps on (symmetric) orbits,
exact bit-parallel evaluation with an early exit that never changes a decision."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.harness.testing.conformance import busy_cores
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.contract.limits import overrun_allowance
from hopbench.solvers.shortcut import _golf
from hopbench.solvers.shortcut import _golf_kernel as G
from hopbench.solvers.shortcut.annealing import _objective_of


def problem(spec, cap, budget=None, objective="golf"):
    base = parse_spec(spec)
    if budget is None:
        budget = int((cap - base.degree).sum()) // 2
    return ShortcutProblem(base, cap, budget, objective, base_spec=spec)


def krng(seed):
    return np.random.default_rng(seed).integers(1, 2**63, size=4, dtype=np.uint64)


def run(p, *, seed=1, evaluations=2000, **params):
    return execute(solvers.create("annealing", **params), p, seed=seed, budget=Budget(evaluations=evaluations))


def edge_set(edges):
    return {(int(min(u, v)), int(max(u, v))) for u, v in edges}


def check_state(state, p):
    """The kernel's current and best states against a recomputation from the edge lists."""
    for shortcuts, (q, energy) in ((state.current_shortcuts(), state.current), (state.best_shortcuts(), state.best)):
        ev = p.evaluate(shortcuts)  # validates: no loop, no repeat, nothing in the base, degrees <= cap
        assert ev.unreachable_pairs == q
        assert ev.objective == pytest.approx(_objective_of(p.objective, q, energy), abs=1e-12)
    # the full neighbour table is the orbit expansion of the representatives' slots
    m, n = state.m, state.n
    for v in range(n):
        r, k = v % m, v // m
        assert state.deg[v] == state.rdeg[r]
        assert np.array_equal(state.nbr[v, :state.deg[v]], (state.radj[r, :state.rdeg[r]] + k * m) % n)


@pytest.mark.parametrize("spec, cap, g, objective", [
    ("empty:64", 4, 1, "golf"),
    ("empty:63", 5, 1, "aspl"),  # n d odd: one port stays free
    ("empty:96", 6, 4, "golf"),
    ("empty:60", 3, 3, "diameter"),  # orbit self-edges possible (r -- r + k m)
    ("ring:40", 5, 1, "ad"),  # a base: only shortcut slots move
    ("ring:48", 6, 8, "golf"),  # a rotation-invariant base with symmetry
])
def test_swaps_keep_an_exact_valid_state(spec, cap, g, objective):
    p = problem(spec, cap, objective=objective)
    state = _golf.SwapState(p, g, krng(3), diameter_weight=1.0)
    degree = p.base.degree + np.bincount(state.current_shortcuts().ravel(), minlength=p.n)
    ports = int((cap - p.base.degree).sum())
    assert (degree == cap).sum() == p.n - (ports % 2) and degree.min() >= cap - 1
    rng = krng(4)
    for temp in (50.0, 5.0, 0.5):
        state.run(400, temp, temp, 0.0, 0.0, rng)
        check_state(state, p)
    assert state.stats[G.S_ACCEPTED] > 20
    if g > 1:
        # the edge set is invariant under the rotation v -> v + n/g
        e = state.current_shortcuts()
        assert edge_set((e + state.m) % p.n) == edge_set(e)
    degree = p.base.degree + np.bincount(state.current_shortcuts().ravel(), minlength=p.n)
    assert (degree == cap).sum() == p.n - (ports % 2)  # swaps never change a degree


def test_a_rejected_move_is_undone_exactly():
    p = problem("empty:50", 5)
    state = _golf.SwapState(p, 5, krng(1), diameter_weight=0.0)
    rng = krng(2)
    for _ in range(200):
        before = state.radj.copy(), state.nbr.copy()
        k = G.draw_move(rng, state.radj, state.rbase, state.rdeg, state.nbr, state.m, state.n, state.g,
                        state.slots, state.undo)
        if k:
            G.undo_move(state.radj, state.nbr, state.m, state.n, state.undo, k)
        assert np.array_equal(state.radj, before[0]) and np.array_equal(state.nbr, before[1])


@pytest.mark.parametrize("spec, cap, g, objective, weight", [
    ("empty:200", 6, 1, "golf", 0.0),
    ("empty:200", 6, 1, "golf", 2.0),
    ("empty:256", 4, 4, "golf", 1.0),
    ("empty:130", 5, 1, "aspl", 0.0),  # three words: padded to four
    ("empty:144", 3, 1, "ad", 0.0),
    ("empty:640", 3, 1, "diameter", 0.0),  # ten words: the row-buffer kernel
    ("empty:1100", 3, 1, "golf", 0.0),  # two batches of sources: no stored levels, the Moore bound for the rest
])
def test_the_early_exit_and_the_stored_levels_never_change_a_decision(spec, cap, g, objective, weight):
    """Same seed with and without the early exit, with and without the incremental evaluation from
    stored levels: the same trajectory, move by move."""
    p = problem(spec, cap, objective=objective)
    modes = ((True, True), (False, True), (False, False))  # (exit_early, incremental)
    states = [_golf.SwapState(p, g, krng(7), diameter_weight=weight) for _ in modes]
    rngs = [krng(8) for _ in modes]
    t0 = 60.0
    for i in range(6):
        for s, r, (early, inc) in zip(states, rngs, modes):
            s.run(150, t0, 0.3, i / 6, 1 / 900, r, exit_early=early, incremental=inc)
        a = states[0]
        for b in states[1:]:
            assert np.array_equal(a.radj, b.radj) and np.array_equal(a.best_radj, b.best_radj)
            assert a.best == b.best and np.array_equal(a.stats[:3], b.stats[:3])
        check_state(a, p)
    assert states[0].stats[G.S_EARLY] > 0 and states[1].stats[G.S_EARLY] == 0
    if objective in ("golf", "diameter") and p.n <= 64 * _golf.MAX_WORDS:
        assert states[0].stats[G.S_INCREMENTAL] > 0 and states[2].stats[G.S_INCREMENTAL] == 0


def test_a_disconnected_state_only_gets_more_connected():
    """Unreachable pairs come first: from two separate cycles, moves that disconnect more are
    never accepted, and the state ends connected."""
    p = problem("empty:24", 2)
    state = _golf.SwapState(p, 1, krng(1), diameter_weight=0.0)
    # two 12-cycles, written into the slot table by hand
    for r in range(24):
        base, size = (0, 12) if r < 12 else (12, 12)
        i = r - base
        state.radj[r, 0] = base + (i + 1) % size
        state.radj[r, 1] = base + (i - 1) % size
        for j in range(2):
            G._sync(state.radj, state.nbr, state.m, state.n, r, j)
    state._measure_current(best=True)
    assert state.current[0] == 144  # 12 x 12 unreachable pairs
    rng = krng(5)
    seen = [state.current[0]]
    for _ in range(300):
        state.run(1, 1e3, 1e3, 0.0, 0.0, rng)  # hot: any energy rise would pass, a rise in unreachable pairs not
        seen.append(state.current[0])
    assert all(b <= a for a, b in zip(seen, seen[1:]))
    assert seen[-1] == 0 and state.best[0] == 0


def test_solver_uses_swaps_when_the_budget_fills_every_port():
    p = problem("empty:128", 6)
    out = run(p, evaluations=3000)
    extra = out.solution.extra
    assert extra["mode"] == "swaps" and extra["moves"] == 3000  # the 100 calibration moves included
    assert out.evaluations == 3000
    degree = np.bincount(out.solution.shortcuts.ravel(), minlength=128)
    assert (degree == 6).all()
    assert out.solution.evaluation.diameter <= 5
    # a budget one short of filling every port keeps the shortcut-set moves
    short = run(problem("empty:128", 6, budget=383), evaluations=300)
    assert short.solution.extra.get("mode") != "swaps"
    # so does swaps=off
    assert run(p, evaluations=300, swaps="off").solution.extra.get("mode") != "swaps"


def test_same_seed_same_solution_and_trace_is_monotone():
    p = problem("empty:96", 4)
    first = run(p, seed=4, evaluations=1500, symmetry=0)
    second = run(p, seed=4, evaluations=1500, symmetry=0)
    assert np.array_equal(first.solution.shortcuts, second.solution.shortcuts)
    assert first.solution.extra == second.solution.extra
    assert first.solution.extra["symmetry"] == 12  # orbits of 8 vertices: 8 x 3 >= 20 (6 x 3 is not)
    values = [pt.value for pt in first.trace]
    assert all(b < a for a, b in zip(values, values[1:]))
    assert values[-1] == first.solution.evaluation.objective


def test_symmetry_option():
    p = problem("empty:256", 4)
    out = run(p, evaluations=2000, symmetry=0)
    assert out.solution.extra["symmetry"] == 32  # orbits of 8 vertices: 16 edge orbits >= 1.25 log2(256)
    e = out.solution.shortcuts
    assert edge_set((e + 8) % 256) == edge_set(e)
    assert out.solution.evaluation.diameter < math.inf
    assert _golf.auto_symmetry(72, 4) == 9 and _golf.auto_symmetry(1024, 4) == 128
    assert _golf.auto_symmetry(101, 4) == 1 and _golf.auto_symmetry(256, 8) == 64
    # sparse graphs get larger orbits (m (d - 1) >= 20): 12 vertices for (96, 3), 16 for (64, 3) ...
    assert _golf.auto_symmetry(96, 3) == 8 and _golf.auto_symmetry(64, 3) == 4
    # ... and up to 64 vertices, dense graphs (Moore diameter < 5) orbits of at least 8 vertices
    # (then the polish leg runs), but cubic ones none
    assert _golf.auto_symmetry(64, 8) == 8 and _golf.auto_symmetry(64, 4) == 8 and _golf.auto_symmetry(50, 4) == 5
    assert _golf.auto_symmetry(32, 5) == 4 and _golf.auto_symmetry(16, 4) == 2
    assert _golf.auto_symmetry(36, 3) == 1 and _golf.auto_symmetry(16, 3) == 1
    assert _golf.auto_symmetry(18, 5) == 1  # no orbit of 8 or more with an even number of ports
    # above 1,024 vertices, sparse graphs (degree <= 12) take at least 8 representatives
    assert _golf.auto_symmetry(9344, 10) == 1168 and _golf.auto_symmetry(10000, 11) == 1250
    assert _golf.auto_symmetry(1800, 7) == 225 and _golf.auto_symmetry(10000, 7) == 1250
    assert _golf.auto_symmetry(1024, 8) == 256 and _golf.auto_symmetry(10000, 20) == 2500
    assert _golf.auto_symmetry(4856, 15) == 1214
    with pytest.raises(HopbenchError, match="divisible"):
        run(p, symmetry=3)
    with pytest.raises(HopbenchError, match="invariant"):
        run(problem("mesh:4x4", 5), symmetry=2)
    with pytest.raises(HopbenchError, match="odd"):
        run(problem("empty:30", 3), symmetry=2)  # 15 vertices x 3 ports per orbit
    with pytest.raises(HopbenchError, match="swap mode"):
        run(problem("empty:30", 4, budget=10), symmetry=2)


@pytest.mark.parametrize("n, d, diameter", [(1, 3, 0), (2, 1, 1), (3, 1, 3), (10, 2, 5), (10, 3, 2), (11, 3, 3),
                                             (64, 3, 5), (46, 3, 4), (47, 3, 5), (1024, 32, 2), (1026, 32, 3)])
def test_moore_diameter(n, d, diameter):
    # the levels of a Moore tree hold 1, d, d (d - 1), ... vertices; no connected graph: n
    assert _golf.moore_diameter(n, d) == diameter


def test_no_connected_graph_exists():
    # cap 1: a perfect matching is the best there is; the solver returns it, objective inf
    out = run(problem("empty:10", 1), evaluations=50)
    assert len(out.solution.shortcuts) == 5 and out.solution.evaluation.objective == math.inf


def test_time_limit_rule_in_swap_mode():
    p = problem("empty:1024", 8)
    with busy_cores():
        out = execute(solvers.create("annealing"), p, seed=1, budget=Budget(time_s=1.0))
    assert out.elapsed_s <= 1.0 + overrun_allowance(1.0)
    assert out.solution.extra["mode"] == "swaps" and out.solution.extra["moves"] > 100


def test_reaches_odps_level_on_256_10():
    # the example: ODP's SA gets 4 / 2.5887 from 20,000 full evaluations (the bound is 3 / 2.5686);
    # the default automatic symmetry (orbits of 4 vertices) reaches diameter 3
    out = run(problem("empty:256", 10), seed=1, evaluations=20_000)
    ev = out.solution.evaluation
    assert (ev.diameter, ev.aspl) < (4, 2.595)
    assert out.solution.extra["symmetry"] == 64  # the default: orbits of 4 vertices, 20 edge orbits


def test_reheats_restart_from_the_best_state():
    p = problem("empty:128", 4)
    out = run(p, evaluations=3000, restarts=2, swap_t0=500.0)
    values = [pt.value for pt in out.trace]
    assert all(b < a for a, b in zip(values, values[1:]))
    assert out.solution.evaluation.objective == values[-1] and out.evaluations == 3000


def test_fresh_legs_return_the_best_graph_of_all_legs():
    # eight short hot legs, each from a new random graph: later legs often end worse than earlier
    # ones, and the graph returned must still be the best one reported
    p = problem("empty:128", 4)
    out = run(p, evaluations=4000, restarts=7, swap_restart="random", swap_t0=500.0)
    values = [pt.value for pt in out.trace]
    assert all(b < a for a, b in zip(values, values[1:]))
    assert out.solution.evaluation.objective == values[-1] and out.evaluations == 4000
    assert out.solution.extra["legs"] == 8
    again = run(p, evaluations=4000, restarts=7, swap_restart="random", swap_t0=500.0)
    assert edge_set(again.solution.shortcuts) == edge_set(out.solution.shortcuts)
    # the legs really start afresh: reheats from the best state follow another path
    reheats = run(p, evaluations=4000, restarts=7, swap_restart="best", swap_t0=500.0)
    assert edge_set(reheats.solution.shortcuts) != edge_set(out.solution.shortcuts)


def test_automatic_leg_start_is_fresh_with_symmetric_orbits_only():
    # (128, 4): symmetry picks orbits of 4 vertices there, and then ten independent legs run
    p = problem("empty:128", 4)
    auto = run(p, evaluations=6000)
    assert auto.solution.extra["symmetry"] > 1
    assert (auto.solution.extra["leg_start"], auto.solution.extra["legs"]) == ("random", 10)
    assert auto.solution.extra["moves"] == 6000  # every leg's moves counted, not only the last one's
    explicit = run(p, evaluations=6000, restarts=9, swap_restart="random")
    assert edge_set(explicit.solution.shortcuts) == edge_set(auto.solution.shortcuts)
    # a set restarts count keeps its number of legs
    assert run(p, evaluations=6000, restarts=3).solution.extra["legs"] == 4
    # without symmetry one schedule runs, reheating from the best state on restarts
    plain = run(p, evaluations=6000, symmetry=1)
    assert (plain.solution.extra["leg_start"], plain.solution.extra["legs"]) == ("best", 1)
    assert run(p, evaluations=6000, symmetry=1, restarts=2).solution.extra["leg_start"] == "best"


def test_automatic_leg_start_keeps_one_schedule_at_high_degree():
    # (192, 16): symmetric orbits, but from degree cap 16 up one long schedule did better (FRESH_LEGS_MAX_CAP)
    from hopbench.solvers.shortcut.annealing import FRESH_LEGS_MAX_CAP

    p = problem("empty:192", FRESH_LEGS_MAX_CAP)
    out = run(p, evaluations=2000)
    assert out.solution.extra["symmetry"] > 1
    assert (out.solution.extra["leg_start"], out.solution.extra["legs"]) == ("best", 1)
    assert run(p, evaluations=2000, swap_restart="random", restarts=2).solution.extra["legs"] == 3
    below = run(problem("empty:192", FRESH_LEGS_MAX_CAP - 2), evaluations=2000)
    assert below.solution.extra["symmetry"] > 1 and below.solution.extra["leg_start"] == "random"


def test_stops_when_the_lower_bound_is_met():
    # (16, 3): the optimum (diameter 3, ASPL 2.2) meets the Moore and Cerf bounds, so a graph
    # that reaches it is optimal and the remaining budget is not spent
    p = problem("empty:16", 3)
    out = run(p, seed=1, evaluations=2_000_000)
    ev = out.solution.evaluation
    assert (ev.diameter, ev.aspl) == (3, 2.2) and ev.objective == p.objective_lower_bound()
    assert out.solution.extra["lower_bound_reached"] is True
    assert out.evaluations < 2_000_000 and out.solution.extra["moves"] < 2_000_000
    # (16, 4): the bound (diameter 2) is out of reach; the whole budget is used
    longer = run(problem("empty:16", 4), seed=1, evaluations=20_000)
    assert longer.solution.extra["lower_bound_reached"] is False and longer.evaluations == 20_000


def test_automatic_symmetry_falls_back_to_none_when_no_symmetric_fill_exists():
    # cap 71 on 72 vertices: the only full graph is complete, which no random symmetric fill reaches;
    # the automatic choice (the default) anneals without symmetry, an explicit one is an error
    p = problem("empty:72", 71)
    out = run(p, evaluations=300)
    assert out.solution.extra.get("symmetry", 1) == 1 and out.solution.evaluation.objective < math.inf
    with pytest.raises(HopbenchError, match="symmetry=18: no random symmetric graph"):
        run(p, evaluations=300, symmetry=18)


def test_neighbour_table_lists_base_neighbours_first_and_starts_a_swap_state():
    p = problem("ring:24", 4)
    symmetric = _golf.SwapState(p, 4, krng(3), diameter_weight=0.0)
    edges = symmetric.best_shortcuts()
    table = _golf.neighbour_table(p, edges)
    indptr, indices = p.base.csr
    for v in range(p.n):
        assert np.array_equal(table[v, :2], indices[indptr[v]:indptr[v + 1]])
    state = _golf.SwapState(p, 1, krng(3), diameter_weight=0.0, start=table)
    assert edge_set(state.best_shortcuts()) == edge_set(edges)
    assert state.best == pytest.approx(symmetric.best)
    check_state(state, p)
    # a table whose rows do not begin with the base neighbours is refused
    swapped = table.copy()
    swapped[:, [0, 2]] = swapped[:, [2, 0]]
    with pytest.raises(ValueError, match="base neighbours first"):
        _golf.SwapState(p, 1, krng(3), diameter_weight=0.0, start=swapped)


def test_polish_leg_anneals_the_best_symmetric_graph_without_symmetry():
    from hopbench.solvers.shortcut.annealing import POLISH_SHARE

    p = problem("empty:64", 4)
    out = run(p, evaluations=30_000, symmetry=8)
    extra = out.solution.extra
    assert extra["symmetry"] == 8 and extra["polish_share"] == POLISH_SHARE
    assert out.evaluations == 30_000 and extra["moves"] == 30_000
    values = [pt.value for pt in out.trace]
    assert all(b < a for a, b in zip(values, values[1:]))
    ev = out.solution.evaluation
    assert ev.objective == values[-1]
    # the polish improved on the best symmetric graph, and what it returns has lost the symmetry
    assert ev.objective < extra["polish_from"]
    assert edge_set((out.solution.shortcuts + 8) % 64) != edge_set(out.solution.shortcuts)
    again = run(p, evaluations=30_000, symmetry=8)
    assert edge_set(again.solution.shortcuts) == edge_set(out.solution.shortcuts)


@pytest.mark.parametrize("spec, cap, params, polished", [
    ("empty:64", 4, {"symmetry": 8}, True),  # up to 64 vertices
    ("empty:64", 4, {}, True),  # the automatic symmetry: orbits of 8 vertices
    ("empty:64", 4, {"symmetry": 1}, False),  # nothing to polish away
    ("empty:128", 4, {"symmetry": 8}, False),  # one word no longer holds every source
])
def test_when_the_polish_leg_runs(spec, cap, params, polished):
    extra = run(problem(spec, cap), evaluations=3000, **params).solution.extra
    assert ("polish_share" in extra) is polished
