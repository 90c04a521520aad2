"""The board (:mod:`hopbench.harness.report.board`): its numbers against pandas aggregates straight from the
database, gap columns from first principles, failures, references, budgets and tuning trials."""
from __future__ import annotations

import json
import math
import sqlite3

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from hopbench.harness.bench.store import Store, cell_key
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.bounds import lower_bounds
from hopbench.harness.report.board import board_columns, build_board, reference_columns


def db_runs(db) -> pd.DataFrame:
    """The runs table read with plain sqlite3 + pandas, not through hopbench."""
    con = sqlite3.connect(db)
    try:
        return pd.read_sql_query("select * from runs", con)
    finally:
        con.close()


def test_board_numbers_equal_pandas_aggregates_from_the_database(tiny, board_csv):
    runs = db_runs(tiny["db"])
    assert runs["study"].notna().sum() == 1
    runs = runs[runs["study"].isna()]  # tuning trials are not benchmark runs
    ok = runs[runs.status == "ok"].copy()
    ok["objective"] = ok["objective"].fillna(np.inf)  # NULL objective of an ok run = disconnected = inf
    agg = ok.groupby(["instance", "solver"]).agg(runs=("objective", "size"), mean=("objective", "mean"),
                                                 std=("objective", "std"), best=("objective", "min"),
                                                 median_time_s=("elapsed_s", "median"))
    failed = runs.pivot_table(index=["instance", "solver"], columns="status", values="id", aggfunc="count",
                              fill_value=0)
    board = board_csv.set_index(["instance", "solver"])
    assert set(board.index) == set(runs.groupby(["instance", "solver"]).groups)
    assert list(board_csv.columns) == board_columns()
    for key, row in agg.iterrows():
        b = board.loc[key]
        assert b["runs"] == row["runs"]
        assert b["errors"] == failed.loc[key].get("error", 0)
        assert b["timeouts"] == failed.loc[key].get("timeout", 0)
        if math.isinf(row["mean"]):
            assert math.isinf(b["mean"]) and pd.isna(b["ci95"])
            continue
        assert b["mean"] == pytest.approx(row["mean"], rel=1e-12)
        assert b["best"] == pytest.approx(row["best"], rel=1e-12)
        assert b["median_time_s"] == pytest.approx(row["median_time_s"], rel=1e-12)
        lo, hi = stats.t.interval(0.95, row["runs"] - 1, loc=row["mean"], scale=row["std"] / math.sqrt(row["runs"])) \
            if row["std"] > 0 else (row["mean"], row["mean"])
        assert b["ci95"] == pytest.approx((hi - lo) / 2, rel=1e-9, abs=1e-12)
    # ranks: pandas' "min" method over the means of each instance
    ranks = board_csv.groupby("instance")["mean"].rank(method="min")
    assert (ranks.fillna(-1).astype(int) == board_csv["rank"].fillna(-1).astype(int)).all()


def test_gap_columns_from_first_principles(tiny, board_csv):
    runs = db_runs(tiny["db"])
    runs = runs[runs["study"].isna()]
    ok = runs[runs.status == "ok"]
    row = board_csv[(board_csv.instance == "ring:25/cap4/b6/aspl") & (board_csv.solver == "vrs")].iloc[0]
    # lower bound: the Cerf bound of (N=25, cap 4) for an ASPL objective
    lb = lower_bounds(25, 4)[1]
    assert row["gap_lower_bound"] == pytest.approx((row["mean"] - lb) / lb)
    # published: the suite gives only diameters (6 and 5): compare mean diameter with the best, 5
    mean_d = ok[(ok.instance == "ring:25/cap4/b6/aspl") & (ok.solver == "vrs")]["diameter"].mean()
    assert row["published_metric"] == "diameter" and row["published_best"] == 5
    assert row["gap_published"] == pytest.approx((mean_d - 5) / 5)
    # golf instance: references give diameter + ASPL, so the objective itself is compared;
    # optimum and best-known come from the suite file
    golf = board_csv[(board_csv.instance == "torus:4x4/cap6/b4/golf") & (board_csv.solver == "random")].iloc[0]
    assert golf["published_metric"] == "objective"
    assert golf["published_best"] == pytest.approx(3 + 1.8 / 4)
    assert golf["gap_published"] == pytest.approx((golf["mean"] - 3.45) / 3.45)
    assert golf["gap_optimum"] == pytest.approx((golf["mean"] - 3.4) / 3.4)
    assert golf["gap_best_known"] == pytest.approx((golf["mean"] - 3.45) / 3.45)
    lb_d, lb_a = lower_bounds(16, 6)
    assert golf["lower_bound"] == pytest.approx(lb_d + lb_a / (lb_d + 1))
    # routing: max load against ceil(gamma_perfect), published max load 11
    dor = board_csv[(board_csv.instance == "torus:4x2x2/all") & (board_csv.solver == "dor")].iloc[0]
    from hopbench.harness.problems.routing import make_problem

    problem = make_problem("4x2x2")
    assert dor["lower_bound"] == math.ceil(problem.total_min_length / problem.channel_set.sum())
    assert dor["published_metric"] == "max_load"
    assert dor["gap_published"] == pytest.approx((dor["mean_max_load"] - 11) / 11)


def test_failures_count_but_stay_out_of_the_statistics(board_csv):
    r16 = board_csv[(board_csv.instance == "ring:16/cap4/b4/aspl") & (board_csv.solver == "random")].iloc[0]
    assert (r16["runs"], r16["errors"], r16["timeouts"]) == (3, 1, 0)
    r36 = board_csv[(board_csv.instance == "ring:36/cap4/b9/aspl") & (board_csv.solver == "vrs")].iloc[0]
    assert (r36["runs"], r36["errors"], r36["timeouts"]) == (3, 0, 1)
    # disconnected everywhere: infinite means tie for rank 1, no interval
    empty = board_csv[board_csv.instance == "empty:6/cap2/b2/aspl"]
    assert np.isinf(empty["mean"]).all() and empty["ci95"].isna().all() and (empty["rank"] == 1).all()


def test_references_csv(tiny):
    refs = pd.read_csv(tiny["out"] / "tiny" / "references.csv")
    assert list(refs.columns) == reference_columns()
    assert len(refs) == 5
    z = refs[refs.label == "Z"].iloc[0]
    assert z["objective"] == pytest.approx(11 + 1.5 / 2.5)  # max_load + sigma/(1 + sigma)


def test_unknown_suite_without_runs_is_an_error(tiny):
    with pytest.raises(HopbenchError, match="no recorded runs"):
        build_board(Store.open(tiny["url"]), "nope")


def test_runs_under_different_budgets_are_different_rows(tmp_path):
    store = Store.open(f"sqlite:///{tmp_path / 'b.db'}")
    inst = "ring:16/cap4/b4/aspl"
    for limit, objective in ((10.0, 2.5), (60.0, 2.0)):
        for seed in (1, 2):
            store.record({"cell_key": cell_key("quick", inst, "annealing", {}, seed, limit), "suite": "quick",
                          "instance": inst, "instance_spec": {"base": "ring:16", "cap": 4, "budget": 4},
                          "kind": "shortcut", "solver": "annealing", "params": {}, "params_tag": "default",
                          "seed": seed, "status": "ok", "objective": objective, "time_limit_s": limit})
    board = build_board(store, "quick")
    rows = board.rows[board.rows.instance == inst]
    assert sorted(rows["params"]) == ["default @10s", "default @60s"]
    assert sorted(rows["mean"]) == [2.0, 2.5] and set(rows["runs"]) == {2}


def test_a_run_better_than_the_stated_optimum_is_called_out(tiny):
    from hopbench.harness.report.board import optimum_contradictions
    from hopbench.harness.report.markdown import render_markdown

    board = build_board(Store.open(tiny["url"]), "tiny", suite=tiny["suite"])
    rows = board.rows.copy()
    with_optimum = rows[rows["optimum"].notna() & rows["best"].notna()]
    assert len(with_optimum) > 0
    # first principles: the fixture's optimum 3.4 of torus:4x4 is contradicted exactly where a best run is below it
    expected = {r.solver for r in with_optimum.itertuples() if r.best < r.optimum - 1e-9}
    assert {line.split(": ")[1].split(" ")[0] for line in board.contradictions} == expected
    # an optimum set just above a row's best is contradicted, one just below is not
    k = with_optimum.index[0]
    best = float(rows.loc[k, "best"])
    rows.loc[rows["instance"] == rows.loc[k, "instance"], "optimum"] = best + 1e-3
    lines = optimum_contradictions(rows, board.facts)
    assert any(f"better than the suite's optimum {best + 1e-3:.10g}" in line for line in lines)
    assert all("\n" not in line for line in lines)
    rows.loc[rows["instance"] == rows.loc[k, "instance"], "optimum"] = best - 1e-3
    assert optimum_contradictions(rows, board.facts) == []
    board.contradictions = ["instance x: a line"]
    assert "**Warning:** instance x: a line." in render_markdown(board)


def test_a_rows_decline_reasons_are_kept_whole_each_once_in_seed_order():
    from hopbench.harness.report.board import _declined_reasons

    long = "the model would have about 3,688,352 Boolean terms " * 10
    cells = pd.DataFrame({"seed": [3, 1, 2, 4], "status": ["skipped", "skipped", "skipped", "ok"],
                          "error": ["second", long, long, None]})
    assert json.loads(_declined_reasons(cells)) == [long, "second"]
    assert _declined_reasons(cells[cells["status"] == "ok"]) is None
