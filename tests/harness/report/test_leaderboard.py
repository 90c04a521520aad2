"""Leaderboards: board numbers against pandas aggregates straight from the database, the statistics
helpers, published comparisons, solution files, the markdown board and the ``hopbench board`` command."""
from __future__ import annotations

import json
import math
import shutil
import sqlite3

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from harness.documents import read_json
from harness.errors import HopbenchError
from harness.graphs.bounds import lower_bounds
from harness.problems.registry import verify_document
from harness.report.leaderboard import (
    anytime_quantiles,
    board_columns,
    ci95_halfwidth,
    param_labels,
    published_comparison,
    quantiles_with_inf,
    rank_values,
    reference_columns,
    reference_values,
    relative_gap,
    win_rates,
)
from tests.harness.report.board_fixtures import shared_board


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return shared_board(tmp_path_factory)


@pytest.fixture(scope="module")
def board_csv(tiny):
    return pd.read_csv(tiny["out"] / "tiny" / "board.csv", keep_default_na=False, na_values=[""])


def db_runs(db) -> pd.DataFrame:
    """The runs table read with plain sqlite3 + pandas, not through hopbench."""
    con = sqlite3.connect(db)
    try:
        return pd.read_sql_query("select * from runs", con)
    finally:
        con.close()


# --------------------------------------------------------------------------- board = database aggregates


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
    from harness.problems.routing import make_problem

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


# --------------------------------------------------------------------------- solution files


def test_every_row_links_a_solution_that_verifies_and_matches_its_best(tiny, board_csv):
    suite_dir = tiny["out"] / "tiny"
    linked = [p for p in board_csv["solution"].dropna()]
    assert len(linked) == int((board_csv["runs"] > 0).sum())
    on_disk = {f"solutions/{p.name}" for p in (suite_dir / "solutions").iterdir()}
    assert on_disk == set(linked)  # nothing stale, nothing missing
    for rec in board_csv[board_csv["solution"].notna()].to_dict("records"):
        doc = read_json(suite_dir / rec["solution"])
        verdict = verify_document(doc)
        assert verdict.valid, (rec["solution"], verdict.reason)
        got = verdict.metrics["objective"]
        assert (math.isinf(got) and math.isinf(rec["best"])) or got == pytest.approx(rec["best"], rel=1e-12)
        assert doc.get("seed") == rec["best_seed"]


def test_rebuild_removes_stale_solutions_and_compresses_large_ones(tiny, tmp_path):
    from harness.bench.store import Store
    from harness.report.leaderboard import build_board, write_board

    out = tmp_path / "lb"
    (out / "tiny" / "solutions").mkdir(parents=True)
    (out / "tiny" / "solutions" / "stale.json").write_text("{}")
    store = Store.open(tiny["url"])
    board = build_board(store, "tiny", suite=tiny["suite"])
    write_board(board, store, out, plots=False, compress_over=0)
    files = sorted(p.name for p in (out / "tiny" / "solutions").iterdir())
    assert "stale.json" not in files and files and all(f.endswith(".json.gz") for f in files)
    doc = read_json(out / "tiny" / "solutions" / files[0])
    assert verify_document(doc).valid
    assert not (out / "tiny" / "plots").exists()


# --------------------------------------------------------------------------- markdown


def test_markdown_board_shows_rows_references_and_links(tiny, board_csv):
    md = (tiny["out"] / "tiny" / "board.md").read_text()
    assert md.startswith("# Leaderboard: tiny")
    assert "† X — Made-up et al. 2020, Table 1" in md and "† Z — Made-up et al. 2021" in md
    assert "a note" in md
    for path in board_csv["solution"].dropna():
        assert f"]({path})" in md
    # the published reference row of solver 'vrs' sits right after vrs's row on ring:25
    lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    vrs = next(i for i, ln in enumerate(lines) if "ring:25/cap4/b6/aspl | vrs" in ln)
    assert "† X" in lines[vrs + 1]
    assert "(diameter)" in lines[vrs]
    assert "1 error" in md and "1 timeout" in md
    for name in ("objective_vs_n", "anytime", "winrate"):
        assert f"(plots/{name}.png)" in md


def test_references_csv(tiny):
    refs = pd.read_csv(tiny["out"] / "tiny" / "references.csv")
    assert list(refs.columns) == reference_columns()
    assert len(refs) == 5
    z = refs[refs.label == "Z"].iloc[0]
    assert z["objective"] == pytest.approx(11 + 1.5 / 2.5)  # max_load + sigma/(1 + sigma)


# --------------------------------------------------------------------------- helpers


def test_ci95_matches_scipy_interval():
    x = np.array([3.0, 3.5, 2.75, 3.25])
    lo, hi = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    assert ci95_halfwidth(x) == pytest.approx((hi - lo) / 2)
    assert ci95_halfwidth(np.array([1.0])) is None
    assert ci95_halfwidth(np.array([2.0, 2.0])) == 0.0
    assert ci95_halfwidth(np.array([2.0, np.inf])) is None


def test_ranks_share_ties_and_skip():
    assert rank_values([2.0, 1.0, 2.0, None, 3.0]) == [2, 1, 2, None, 4]
    assert rank_values([0.1 + 0.2, 0.3, math.inf]) == [1, 1, 3]  # equal up to rounding noise


def test_relative_gap():
    assert relative_gap(3.0, 2.0) == 0.5
    assert relative_gap(None, 2.0) is None and relative_gap(3.0, None) is None and relative_gap(3.0, 0) is None
    assert relative_gap(math.inf, 2.0) == math.inf


def test_reference_values_derive_the_objective():
    assert reference_values({"diameter": 3, "aspl": 2.0, "label": "x"}, "shortcut", "golf")["objective"] == 3.5
    assert reference_values({"diameter": 3, "aspl": 2.0}, "shortcut", "ad")["objective"] == 6.0
    assert reference_values({"aspl": 2.0}, "shortcut", "aspl")["objective"] == 2.0
    assert "objective" not in reference_values({"diameter": 3}, "shortcut", "aspl")
    assert reference_values({"max_load": 4, "sigma4": 1.0}, "routing", "max_load")["objective"] == 4.5
    assert reference_values({"objective": 7.1, "diameter": 3}, "shortcut", "ad")["objective"] == 7.1


def test_published_comparison_is_like_with_like():
    refs = [{"diameter": 5}, {"diameter": 4}]
    assert published_comparison(refs, "shortcut", "aspl") == ("diameter", 4.0)
    refs = [{"diameter": 3, "aspl": 2.5}, {"diameter": 4, "aspl": 2.2}]
    assert published_comparison(refs, "shortcut", "aspl") == ("aspl", 2.2)
    assert published_comparison(refs, "shortcut", "golf")[0] == "objective"
    assert published_comparison([{"max_load": 9, "sigma4": 2.0}], "routing", "max_load") == ("max_load", 9.0)
    assert published_comparison([], "shortcut", "aspl") == (None, None)


def test_quantiles_treat_inf_as_not_yet_reported():
    v = np.array([[1.0, np.inf], [3.0, np.inf], [np.inf, 2.0]])
    q = quantiles_with_inf(v, (0.0, 0.5, 1.0))
    assert q[:, 0].tolist() == [1.0, 3.0, np.inf]
    assert q[:, 1].tolist() == [2.0, np.inf, np.inf]
    finite = np.array([[1.0], [2.0], [4.0], [8.0]])
    assert quantiles_with_inf(finite, (0.25, 0.5, 0.75))[:, 0] == pytest.approx(
        np.quantile(finite[:, 0], [0.25, 0.5, 0.75]))


def test_anytime_quantiles_follow_best_so_far():
    grid = np.array([0.5, 1.0, 1.5, 2.5, 10.0])
    runs = [(np.array([1.0, 2.0]), np.array([5.0, 3.0]), 3.0),
            (np.array([0.2, 1.2]), np.array([4.0, 6.0]), 3.0),   # a worse report never raises best-so-far
            (np.array([]), np.array([]), 3.0)]                   # never reported: inf throughout
    q = anytime_quantiles(runs, grid)
    assert q[1].tolist() == [np.inf, 5.0, 5.0, 4.0, 4.0]  # median of (run 1, run 2, inf)
    assert q[0].tolist() == [np.inf, 4.5, 4.5, 3.5, 3.5]  # between 4 and "not yet": not yet


def test_win_rates():
    rows = pd.DataFrame({
        "instance": ["a", "a", "b", "b", "c", "c", "c"],
        "solver": ["x", "y", "x", "y", "x", "y", "z"],
        "params": ["default"] * 7,
        "runs": [1, 1, 1, 1, 1, 1, 0],
        "mean": [1.0, 2.0, 3.0, 3.0, 5.0, 4.0, np.nan],
    })
    labels, share, counts = win_rates(rows)
    assert labels == ["x", "y"]
    assert counts.tolist() == [[0, 3], [3, 0]]
    assert share[0, 1] == pytest.approx(1 / 3) and share[1, 0] == pytest.approx(1 / 3)  # b is a tie


def test_param_labels_are_unique_per_solver():
    runs = pd.DataFrame({"solver": ["a", "a", "a", "b"],
                         "params": ['{"t": 1}', '{"t": 2}', '{"t": 3}', "{}"],
                         "params_tag": ["default", "default", "t=3", "default"]})
    labels = param_labels(runs)
    assert labels[("a", '{"t": 3}')] == "t=3" and labels[("b", "{}")] == "default"
    assert labels[("a", '{"t": 1}')] != labels[("a", '{"t": 2}')]
    assert labels[("a", '{"t": 1}')].startswith("default#")


# --------------------------------------------------------------------------- command line


def test_board_command_builds_every_suite_of_the_store(cli, tiny, tmp_path):
    out = tmp_path / "boards"
    code, stdout, err = cli("board", "--suite", str(tiny["suite_path"]), "--storage", tiny["url"], "-o", out,
                            "--no-plots")
    assert code == 0, err
    assert "tiny:" in stdout and (out / "tiny" / "board.md").exists() and (out / "site" / "tiny.html").exists()
    # without --suite: every suite recorded (this one has no suite file by name: rebuilt from the runs)
    code, stdout, err = cli("board", "--storage", tiny["url"], "-o", out, "--no-plots")
    assert code == 0 and "no suite file 'tiny'" in err
    rebuilt = pd.read_csv(out / "tiny" / "board.csv").set_index(["instance", "solver"]).sort_index()
    original = pd.read_csv(tiny["out"] / "tiny" / "board.csv").set_index(["instance", "solver"]).sort_index()
    assert rebuilt.index.equals(original.index)
    assert rebuilt["mean"].tolist() == pytest.approx(original["mean"].tolist())
    assert rebuilt["published_metric"].isna().all()  # references live in the suite file only


@pytest.mark.parametrize("args, fragment", [
    (["--suite", "quick"], "no recorded runs of suite 'quick'"),
    ([], "holds no runs"),
    (["--compress-over", "-1"], "--compress-over must be >= 0"),
])
def test_board_command_bad_input(cli, tmp_path, args, fragment):
    code, _, err = cli("board", "--storage", f"sqlite:///{tmp_path / 'empty.db'}", "-o", tmp_path / "o", *args)
    assert code == 2 and fragment in err and err.count("\n") == 1


def test_board_json_summarises_the_suite(tiny):
    meta = json.loads((tiny["out"] / "tiny" / "board.json").read_text())
    assert meta["suite"] == "tiny" and meta["kinds"] == ["routing", "shortcut"]
    assert meta["instances"] == 7 and meta["provenance"]["statuses"] == {"error": 1, "ok": 42, "timeout": 1}
    assert set(meta["plots"]) == {"objective_vs_n", "anytime", "winrate"}


def test_a_board_can_be_copied_elsewhere(tiny, tmp_path):
    # every link is relative: the directory works wherever it is copied
    dst = tmp_path / "copy"
    shutil.copytree(tiny["out"], dst)
    rows = pd.read_csv(dst / "tiny" / "board.csv")
    for rel in rows["solution"].dropna():
        assert (dst / "tiny" / rel).is_file()


def test_unknown_suite_without_runs_is_an_error(tiny):
    from harness.bench.store import Store
    from harness.report.leaderboard import build_board

    with pytest.raises(HopbenchError, match="no recorded runs"):
        build_board(Store.open(tiny["url"]), "nope")


def test_runs_under_different_budgets_are_different_rows(tmp_path):
    from harness.bench.store import Store, cell_key
    from harness.report.leaderboard import build_board

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
