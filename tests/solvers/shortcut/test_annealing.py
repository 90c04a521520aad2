"""The annealing solver: exact incremental state, best-state return, schedules, init, moves."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.engine.distances import _pair_histogram, distance_matrix
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.harness.testing.conformance import busy_cores
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.contract.limits import overrun_allowance
from hopbench.solvers.shortcut import _annealing_kernel as K
from hopbench.solvers.shortcut.annealing import Annealing, _State, parse_init


def problem(spec, cap, budget, objective="aspl", **kw):
    return ShortcutProblem(parse_spec(spec), cap, budget, objective, base_spec=spec, **kw)


def run(p, *, seed=1, evaluations=2000, **params):
    return execute(solvers.create("annealing", **params), p, seed=seed, budget=Budget(evaluations=evaluations))


@pytest.mark.parametrize("spec, cap, budget, objective, p_swap", [
    ("ring:40", 4, 8, "aspl", 0.0),
    ("torus:5x5", 6, 6, "golf", 0.3),
    ("mesh:4x5", 5, 5, "diameter", 0.5),
    ("ring:20", 3, 10, "ad", 0.2),  # every port taken: only swaps can move
    ("empty:12", 3, 12, "aspl", 0.1),  # starts disconnected
])
def test_incremental_state_stays_exact(spec, cap, budget, objective, p_swap):
    """After thousands of moves through cached removal matrices, the kernel's matrix,
    histogram and energy equal a recomputation from the shortcut list."""
    p = problem(spec, cap, budget, objective)
    cfg = {k: v.default for k, v in Annealing.params.items()}
    cfg.update(t0=0.05, t1=0.01, p_swap=p_swap, block=4)
    state = _State(p, np.empty((0, 2), np.int64), buffers=6)
    rng = np.random.default_rng(3).integers(1, 2**63, size=4, dtype=np.uint64)
    for _ in range(6):
        state.run(500, cfg, 0.0, 0.0, rng)
        k = int(state.ivars[K.I_K])
        sc = state.sc[:k]
        p.validate(sc)
        D = distance_matrix(p.graph_with(sc), dtype=state.dtype)
        cur = int(state.ivars[K.I_CUR])
        assert np.array_equal(state.pool[cur], D)
        hist = _pair_histogram(D, state.inf, state.bound + 1)
        assert np.array_equal(state.hpool[cur], hist)
        energy, q = K._hist_energy(K.OBJ_CODES[objective], p.n, hist)
        assert q == state.ivars[K.I_CUR_Q] and energy == pytest.approx(state.fvars[K.F_CUR_E])
        # every cached removal matrix is the distance matrix of the graph without that shortcut
        for i in np.flatnonzero(state.slot_buf[:k] >= 0):
            rest = np.delete(sc, i, axis=0)
            assert np.array_equal(state.pool[state.slot_buf[i]],
                                  distance_matrix(p.graph_with(rest), dtype=state.dtype))
    moved = state.stats[K.S_RELOCATE:K.S_SWAP + 1].sum()
    assert moved > 0 and state.stats[K.S_ACCEPTED] > budget
    if spec == "ring:20":
        assert state.stats[K.S_SWAP] > 0


def test_returns_the_best_state_not_the_last():
    # a hot schedule wanders far from its best state; the solver must return the best one
    p = problem("ring:64", 6, 10)
    out = run(p, t0=0.3, t1=0.3, evaluations=3000)
    best = min(pt.value for pt in out.trace)
    assert out.solution.evaluation.objective == pytest.approx(best)
    assert out.solution.extra["final_objective"] > out.solution.evaluation.objective


def test_beats_greedy_start_and_keeps_it():
    p = problem("ring:128", 10, 16)
    ecf = execute(solvers.create("edgecut-full"), p, seed=2, budget=Budget())
    sa = run(p, seed=2, init="edgecut-full", evaluations=4000)
    assert sa.solution.evaluation.objective < ecf.solution.evaluation.objective
    # the init solution is the first trace point
    assert sa.trace[0].value == pytest.approx(ecf.solution.evaluation.objective)


def test_schedule_follows_the_evaluation_budget_exactly():
    p = problem("torus:6x6", 6, 8, "golf")
    first = run(p, seed=4, evaluations=777)
    second = run(p, seed=4, evaluations=777)
    assert first.evaluations == 777
    assert np.array_equal(first.solution.shortcuts, second.solution.shortcuts)
    third = run(p, seed=5, evaluations=777)
    assert not np.array_equal(first.solution.shortcuts, third.solution.shortcuts)


def test_trace_is_monotone_and_ends_at_the_solution():
    p = problem("mesh:6x6", 6, 8, "diameter")
    out = run(p, evaluations=3000, restarts=2)
    values = [pt.value for pt in out.trace]
    assert all(b < a for a, b in zip(values, values[1:]))
    assert values[-1] == out.solution.evaluation.objective
    assert out.solution.evaluation.diameter == int(out.solution.evaluation.diameter)


def test_time_budget_is_respected():
    p = problem("ring:256", 10, 32)
    with busy_cores():
        out = execute(solvers.create("annealing"), p, seed=1, budget=Budget(time_s=1.0))
    assert out.elapsed_s <= 1.0 + overrun_allowance(1.0)  # the time-limit rule, with every core busy
    assert out.solution.extra["moves"] > 1000


def test_init_options():
    p = problem("ring:30", 4, 6)
    rand = run(p, init="random", evaluations=10)
    assert rand.trace[0].info.get("shortcuts") == 6
    assert run(p, init="edgecut-full:t=0", evaluations=50).solution.evaluation.objective < math.inf
    with pytest.raises(HopbenchError, match="unknown solver"):
        run(p, init="nonsense")
    with pytest.raises(HopbenchError, match="annealing"):
        run(p, init="annealing")
    with pytest.raises(HopbenchError, match="key=value"):
        run(p, init="edgecut-full:t")
    assert parse_init("edgecut-full:t=0, x=1") == ("edgecut-full", {"t": "0", "x": "1"})


def test_a_move_mix_past_one_is_scaled_not_refused():
    # tuning draws the two shares independently; their sum may pass 1
    out = run(problem("ring:10", 3, 2), p_endpoint=0.8, p_swap=0.5)
    assert len(out.solution.shortcuts) <= 2 and out.solution.evaluate().objective > 0
    with pytest.raises(HopbenchError, match="p_endpoint"):
        solvers.create("annealing", p_endpoint=1.5)


def test_no_budget_uses_moves_and_budget_zero_is_fine():
    out = execute(solvers.create("annealing", moves=500), problem("ring:20", 4, 3), seed=1, budget=Budget())
    assert out.solution.extra["moves"] == 500
    empty = execute(solvers.create("annealing"), problem("ring:20", 4, 0), seed=1, budget=Budget(time_s=1))
    assert len(empty.solution.shortcuts) == 0
