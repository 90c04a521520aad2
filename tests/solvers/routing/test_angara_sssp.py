"""``angara-sssp`` (Mukosey et al. 2021, Alg. 3-4)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.problems.routing import make_problem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.routing.angara_sssp import SSSPRouter, group_pairs

ROOT = Path(__file__).resolve().parents[3]


def run(problem, name="angara-sssp", **budget):
    return execute(solvers.create(name), problem, seed=0, budget=Budget(**budget)).solution


@pytest.mark.parametrize("spec, subset", [("8", None), ("6x6", None), ("2x2x2x2", None), ("3x2x4", None),
                                          ("4x2x2x2", "desmos16"), ("4x4x4", None)])
def test_tables_are_valid_and_unique_routes_are_kept(spec, subset):
    problem = make_problem(spec, subset=subset)
    table = run(problem)
    ev = table.evaluate()  # rules, minimality, deadlock
    assert ev.max_load >= problem.load_lower_bound()
    cand = problem.candidates
    for p in np.flatnonzero(cand.counts == 1)[::7].tolist():
        s, d = problem.pairs[0][p], problem.pairs[1][p]
        assert table.route(int(s), int(d)) == cand.routes_of(p)[0]
    assert table.extra["unique_pairs"] == int((cand.counts == 1).sum())


def test_build_sssp_finds_the_cheapest_minimal_route():
    """Alg. 4 with weights |N|^2 + load: for one destination, the route it applies has the smallest
    load sum among all minimal legal routes of the pair, for random loads."""
    problem = make_problem("4x2x4")
    cand = problem.candidates
    rng = np.random.default_rng(1)
    multi = np.flatnonzero(cand.counts > 2)
    for p in rng.choice(multi, size=40, replace=False).tolist():
        router = SSSPRouter(problem)
        router.load[:] = rng.integers(0, 50, size=len(router.load))
        before = router.load.copy()
        plan = group_pairs(problem, np.array([p]))
        router.run_groups(0, 1, plan)
        costs = [before[cand.channels[cand.offsets[r]:cand.offsets[r + 1]]].sum()
                 for r in range(cand.pair_ptr[p], cand.pair_ptr[p + 1])]
        src = problem.pairs[0][p]
        chosen = router.mat[p, :router.lengths[p]]
        x, cost = int(src), 0
        for d in chosen.tolist():
            cost += before[x * problem.network.ndir + d]
            x = int(problem.network.neighbor[x, d])
        assert cost == min(costs)
        assert (router.load - before).sum() == router.lengths[p]  # weights +1 along the path


def test_groups_follow_turns_then_length_then_source():
    problem = make_problem("4x4x2")
    rows = np.arange(problem.num_pairs)
    rows, ptr, gsrc, glen = group_pairs(problem, rows)
    net = problem.network
    s, d = problem.pairs[0][rows], problem.pairs[1][rows]
    turns = (net.coords[s] != net.coords[d]).sum(axis=1) - 1
    key = list(zip(turns.tolist(), problem.pair_distance[rows].tolist(), s.tolist(), d.tolist()))
    assert key == sorted(key)
    for g in range(len(ptr) - 1):
        block = key[ptr[g]:ptr[g + 1]]
        assert len({k[:3] for k in block}) == 1 and block[0][2] == gsrc[g] and block[0][1] == glen[g]


def test_balances_better_than_bfs_on_standard_tori():
    """The paper's claim, on a few tori (the suite-wide comparison is in docs/routing.md)."""
    for spec in ("4x2x2x2", "2x2x2x4", "6x6", "8x8", "4x4x4", "5x4x2"):
        p = make_problem(spec)
        assert run(p).evaluate().max_load <= run(p, "angara-bfs").evaluate().max_load, spec


def test_table2_sssp_max_load_on_the_mirrored_desmos_torus():
    suite = tomllib.loads((ROOT / "instances" / "angara2021.toml").read_text())
    inst = next(i for i in suite["instances"] if i["torus"] == "2x2x2x4" and i.get("subset") == "all")
    ref = next(r for r in inst["reference"] if r["label"] == "SSSP")
    assert run(make_problem("2x2x2x4")).evaluate().max_load == ref["max_load"]


def test_budget_exhausted_keeps_a_valid_table():
    problem = make_problem("4x4")
    table = run(problem, time_s=1e-9)
    assert table.extra["truncated_pairs"] > 0
    table.evaluate()
