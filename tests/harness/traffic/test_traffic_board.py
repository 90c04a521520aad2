"""Simulations in the results store: recorded like any run, aggregated into a board that knows a
throughput is better when larger, read back by ``results``, re-verified by ``verify``."""
from __future__ import annotations

import json
import math

import pytest

SUITE = """
name = "traffic-tiny"
description = "Two small simulations, measured by two settings of the simulator."
seeds = 2
time_limit = 120

[[instances]]
kind = "traffic"
network = "ring:6"
router = { num_vcs = 2, warmup_periods = 1, sample_period = 200, max_samples = 6 }
zero_load_packets = 500
load = 0.1
reference = [{ source = "Made-up et al. 2024", label = "P", saturation = 0.9 },
             { source = "Made-up et al. 2024", label = "Q", saturation = 0.8 }]

[[instances]]
kind = "traffic"
network = "mesh:3x3"
routing = "dor"
router = { num_vcs = 1, warmup_periods = 1, sample_period = 200, max_samples = 6 }
zero_load_packets = 500
"""


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """The suite run in this process by two settings (a fine and a coarse bisection), and its board."""
    from hopbench.harness.bench.cells import run_cell
    from hopbench.harness.bench.runner import plan_matrix, result_row
    from hopbench.harness.bench.store import Store
    from hopbench.harness.bench.suites import load_suite
    from hopbench.harness.report.board import build_board

    root = tmp_path_factory.mktemp("traffic-board")
    path = root / "traffic-tiny.toml"
    path.write_text(SUITE)
    suite = load_suite(path)
    store = Store.open(f"sqlite:///{root / 'runs.db'}")
    plan = plan_matrix(suite, solver_names=["simulator"], param_items=["simulator.tolerance=0.005,0.1"])
    assert len(plan.todo) == 2 * 2 * 2
    for cell in plan.todo:
        result = run_cell(cell)
        assert result["status"] == "ok", result["error"]
        store.record(result_row(cell, result, None), result.get("trace") or [])
    out = build_board(store, suite.name, suite=suite)
    yield out, store
    store.close()


def test_the_finer_bisection_ranks_first_as_the_larger_throughput(board):
    rows = board[0].rows
    for instance, g in rows.groupby("instance"):
        fine = g[g["params"].str.contains("0.005")].iloc[0]
        coarse = g[g["params"].str.contains("0.1")].iloc[0]
        # the fine search continues where the coarse one stopped: it can only find more
        assert fine["mean"] >= coarse["mean"]
        if fine["mean"] > coarse["mean"]:
            assert (fine["rank"], coarse["rank"]) == (1, 2)
        assert g.iloc[0]["rank"] == 1 and g.iloc[0]["mean"] == g["mean"].max()


def test_best_is_the_largest_run_and_gaps_count_a_shortfall_as_positive(board):
    b, store = board
    runs = b.runs[b.runs["status"] == "ok"]
    for _, row in b.rows.iterrows():
        mine = runs[(runs["instance"] == row["instance"]) & (runs["params"] == row["params_json"])]
        assert row["best"] == mine["objective"].max() and row["worst"] == mine["objective"].min()
        best_run = mine[mine["id"] == row["best_run_id"]]
        assert float(best_run["objective"].iloc[0]) == row["best"]
    ring = b.rows[b.rows["instance"].str.startswith("ring:6")]
    # the best published saturation is the largest, 0.9; our mean falls short of it
    assert (ring["published_best"] == 0.9).all()
    for _, row in ring.iterrows():
        assert row["gap_published"] == pytest.approx((0.9 - row["mean"]) / 0.9)
        assert row["mean_lp_gap"] == pytest.approx(
            float(sum((m["lp_bound"] - m["saturation"]) / m["lp_bound"] for m in _metrics(b, row)) / 2))


def _metrics(b, row) -> list[dict]:
    runs = b.runs[(b.runs["instance"] == row["instance"]) & (b.runs["params"] == row["params_json"])]
    return [json.loads(m) for m in runs["metrics"]]


def test_a_metric_not_measured_is_blank_not_infinite(board):
    rows = board[0].rows
    mesh = rows[rows["instance"].str.startswith("mesh:3x3")]
    assert mesh["mean_latency_at_load"].isna().all()  # no stated load
    ring = rows[rows["instance"].str.startswith("ring:6")]
    assert all(math.isfinite(v) for v in ring["mean_latency_at_load"])


def test_every_recorded_run_verifies_by_simulating_it_again(board):
    from hopbench.harness.problems.registry import verify_document

    _, store = board
    df = store.dataframe(suite="traffic-tiny", with_solutions=True)
    doc = json.loads(df["solution"].iloc[0])
    verdict = verify_document(doc)
    assert verdict.valid, verdict.reason
    assert verdict.metrics["objective"] == df["objective"].iloc[0]


def test_the_written_board_has_no_anytime_plot_for_a_measurement(board, tmp_path):
    from hopbench.harness.report.writer import write_board

    b, store = board
    write_board(b, store, tmp_path)
    text = (tmp_path / "traffic-tiny" / "board.md").read_text()
    assert "Zero-load latency" in text and "LP bound" in text
    # the legend explains this board's columns: a throughput has no lower bound, so no Gap LB sentence
    legend = next(line for line in text.splitlines() if line.startswith("**Columns.**"))
    assert "Gap LB" not in legend and "Moore" not in legend and "Gap to LP:" in legend
    assert "| Gap LB |" not in text
    plots = tmp_path / "traffic-tiny" / "plots"
    assert not (plots / "anytime.png").exists()
    # the latency-accepted curves instead, from each instance's best run
    assert (plots / "traffic_latency.png").stat().st_size > 10_000


def test_the_curve_a_board_draws_is_the_runs_own(board):
    b, _ = board
    for m in (json.loads(x) for x in b.runs["metrics"]):
        curve = m["curve"]
        assert curve[0][0] == 0.01 and len(curve) == 1 + 5  # zero load, then five fractions of saturation
        assert [p[0] for p in curve[1:]] == pytest.approx([m["saturation"] * k / 5 for k in range(1, 6)], abs=1e-6)
