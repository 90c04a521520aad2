"""The numpy distance state agrees with the numba one, and is chosen only where it is the cheaper."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from hopbench.harness.engine.distances import DistanceState
from hopbench.harness.engine.small_state import SmallDistanceState, distance_state
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec


def random_graph(n: int, m: int, seed: int) -> Graph:
    rng = np.random.default_rng(seed)
    e = rng.integers(0, n, (m, 2))
    e = e[e[:, 0] != e[:, 1]]
    return Graph(n, np.unique(np.sort(e, axis=1), axis=0))


GRAPHS = [parse_spec("torus:6x6"), parse_spec("mesh:4x9"), parse_spec("ring:300"), parse_spec("empty:20"),
          random_graph(40, 35, 1), random_graph(60, 150, 2)]


@pytest.mark.parametrize("g", GRAPHS, ids=lambda g: f"n{g.n}m{g.m}")
def test_both_states_agree_on_every_method_while_edges_are_added(g):
    rng = np.random.default_rng(g.n)
    small, ref = SmallDistanceState.from_graph(g), DistanceState.from_graph(g)
    for _ in range(12):
        assert small.D.dtype == ref.D.dtype and np.array_equal(small.D, ref.D)
        assert np.array_equal(small.hist, ref.hist) and small.total == ref.total
        assert (small.diameter, small.aspl) == (ref.diameter, ref.aspl)
        xs, ys = rng.integers(0, g.n, 30), rng.integers(0, g.n, 30)
        xs[:15] = xs[0]  # a group of 15 candidates sharing an endpoint: the table path
        keep = xs != ys
        xs, ys = xs[keep], ys[keep]
        assert np.array_equal(small.score_histograms(xs, ys), ref.score_histograms(xs, ys))
        a, b = small.score(xs, ys), ref.score(xs, ys)
        for field in ("total", "unreachable", "diameter"):
            assert np.array_equal(getattr(a, field), getattr(b, field))
        if small.unreachable == 0:
            for level in (None, int(small.diameter), 2):
                got, want = small.reductions(xs, ys, level=level), ref.reductions(xs, ys, level=level)
                assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1]), level
        else:
            with pytest.raises(ValueError, match="connected"):
                small.reductions(xs, ys)
        x, y = int(xs[-1]), int(ys[-1])
        small.add_edge(x, y)
        ref.add_edge(x, y)
    copy = small.copy()
    copy.add_edge(0, g.n - 1)
    assert np.array_equal(small.D, ref.D)  # the copy owns its matrix


def test_edgecut_finds_the_same_shortcuts_with_either_state(monkeypatch):
    from hopbench import solvers
    import hopbench.solvers.shortcut.edgecut as edgecut
    from hopbench.harness.problems.shortcut.problem import ShortcutProblem
    from hopbench.solvers.contract.budget import Budget
    from hopbench.solvers.contract.execution import execute

    cases = [(ShortcutProblem(parse_spec("torus:8x8"), 8, 12, objective=obj), t)
             for obj in ("aspl", "golf", "diameter", "ad") for t in (10, 0)]
    cases.append((ShortcutProblem(parse_spec("empty:16"), 3, 24, objective="golf"), 10))  # disconnected
    runs = {}
    for kind in ("numba", "numpy"):
        if kind == "numpy":
            monkeypatch.setattr(edgecut, "distance_state", lambda g, work=0.0: SmallDistanceState.from_graph(g))
        for name in ("edgecut-full", "edgecut-lite"):
            for problem, t in cases:
                out = execute(solvers.create(name, t=t), problem, seed=3, budget=Budget(evaluations=10**6))
                runs.setdefault((name, problem.objective, problem.n, t), []).append(out.solution.shortcuts.tolist())
    for key, (numba_run, numpy_run) in runs.items():
        assert numba_run == numpy_run and numba_run, key


def test_the_numba_state_is_kept_once_numba_is_loaded_and_for_large_or_heavy_work():
    # this process has loaded the numba engine (the import above): it is always the one chosen
    assert isinstance(distance_state(parse_spec("torus:4x4")), DistanceState)
    probe = ("import sys; from hopbench.harness.engine.small_state import distance_state as d; "
             "from hopbench.harness.graphs.topologies import parse_spec as p; "
             "print(type(d(p('torus:12x12'))).__name__, type(d(p('torus:12x12'), work=1e12)).__name__, "
             "type(d(p('ring:500'))).__name__)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["SmallDistanceState", "DistanceState", "DistanceState"]
