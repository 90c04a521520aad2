"""Table cells shared by the markdown board and the site (:mod:`hopbench.harness.report.formatting`)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from hopbench.harness.report.formatting import (
    fmt_failed,
    fmt_gap,
    fmt_num,
    fmt_time,
    interleave,
    is_missing,
    names_metric,
    reference_label,
)


def test_blank_cells():
    assert all(is_missing(x) for x in (None, math.nan, np.nan, pd.NA))
    assert not any(is_missing(x) for x in (0, 0.0, "", "x", [1, 2]))
    assert fmt_num(None) == fmt_num(math.nan) == fmt_gap(pd.NA) == fmt_time(None) == ""


def test_number_gap_and_time_formats():
    assert fmt_num(3.0) == "3" and fmt_num(2.5) == "2.5" and fmt_num(2.123456) == "2.1235"
    assert fmt_num(math.inf) == "inf" and fmt_num(-math.inf) == "-inf"
    assert fmt_gap(0.05) == "+5.00%" and fmt_gap(-0.1234) == "-12.34%" and fmt_gap(math.inf) == "inf"
    assert fmt_time(1.23456) == "1.23"


def test_failed_cells_in_words():
    assert fmt_failed({"errors": 1, "timeouts": 2, "skipped": 0}) == "1 error, 2 timeouts"
    assert fmt_failed({"errors": 2, "timeouts": 1, "skipped": 1}) == "2 errors, 1 timeout, 1 declined"
    # a declined cell is recorded 'skipped'; the boards call it what it is
    assert fmt_failed({"errors": 0, "timeouts": 0, "skipped": 2}) == "2 declined"
    assert fmt_failed({"errors": 0, "timeouts": 0, "skipped": 0}) == ""


def test_reference_label():
    assert reference_label({"label": "X", "source": "Paper 2020"}) == "† X — Paper 2020"
    assert reference_label({}) == "† published — published"


def test_published_metric_is_named_only_when_it_is_not_the_objective():
    assert names_metric({"published_metric": "diameter", "objective_name": "aspl"})
    assert not names_metric({"published_metric": "objective", "objective_name": "aspl"})
    assert not names_metric({"published_metric": None, "objective_name": "aspl"})


def test_interleave_places_references_after_their_solver():
    rows = [{"solver": "x", "id": "a"}, {"solver": "y", "id": "b"}, {"solver": "x", "id": "c"}]
    refs = [{"solver": "y", "id": "r1"}, {"solver": "x", "id": "r2"}, {"solver": "x", "id": "r3"}, {"id": "r4"}]
    order = [(what, rec["id"]) for what, rec in interleave(rows, refs)]
    assert order == [("ours", "a"), ("published", "r2"), ("published", "r3"), ("ours", "b"), ("published", "r1"),
                     ("ours", "c"), ("published", "r4")]


def test_groups_sort_by_the_numbers_in_their_names():
    from hopbench.harness.report.formatting import natural_key

    groups = ["ring, cap 11", "ring, cap 3", "torus, cap 4", "ring, cap 12", "ring, cap 4", "mesh, cap 10"]
    assert sorted(groups, key=natural_key) == ["mesh, cap 10", "ring, cap 3", "ring, cap 4", "ring, cap 11",
                                               "ring, cap 12", "torus, cap 4"]
    records = [{"group": g, "objective_name": "aspl"} for g in groups]
    from hopbench.harness.report.formatting import metric_columns_by_group

    assert list(metric_columns_by_group(records, lambda r: "shortcut")) == sorted(groups, key=natural_key)


def test_columns_blank_in_every_row_are_dropped():
    from hopbench.harness.report.formatting import drop_empty_columns

    heads = ["Instance", "Gap opt.", "Mean", "Failed"]
    rows = [["a", "", "1.5", ""], ["", "", "2", "1 error"]]
    assert drop_empty_columns(heads, rows, lambda c: c == "") == (["Instance", "Mean", "Failed"],
                                                                   [["a", "1.5", ""], ["", "2", "1 error"]])
    assert drop_empty_columns(heads, [], lambda c: c == "") == (heads, [])


def test_a_ci_from_two_seeds_is_marked():
    from hopbench.harness.report.formatting import few_seeds_note

    assert few_seeds_note({"runs": 2, "ci95": 0.4}) == "(2 seeds)"
    assert few_seeds_note({"runs": 3, "ci95": 0.1}) == ""
    assert few_seeds_note({"runs": 1, "ci95": None}) == ""  # no interval at all


def test_params_show_the_budget():
    from hopbench.harness.report.formatting import params_with_budget

    # issue 35: equality-ga's 600 s row said only "default", like the 60 s rows beside it
    assert params_with_budget({"params": "default", "budget": "600s"}) == "default @600s"
    assert params_with_budget({"params": "t=5", "budget": "5s/200ev"}) == "t=5 @5s/200ev"
    assert params_with_budget({"params": "default @10s", "budget": "10s"}) == "default @10s"  # said already
    assert params_with_budget({"params": "default", "budget": float("nan")}) == "default"  # an older board.csv
    assert params_with_budget({"params": "default"}) == "default"


def test_a_board_legend_explains_only_the_columns_it_shows():
    from hopbench.harness.problems.registry import get_kind
    from hopbench.harness.report.formatting import column_legend

    traffic = get_kind("traffic")  # a maximised objective: no lower bound, so no Gap LB column
    heads = ["Instance", "N", "Solver", "Params", "Runs", "Mean", "± 95% CI", "Best",
             *[c.header for c in traffic.metric_columns], "Median time (s)", "Rank"]
    legend = column_legend(heads, traffic.metric_columns)
    for absent in ("Gap LB", "Moore", "γ_perfect", "Gap opt.", "Gap pub.", "Failed", "†"):
        assert absent not in legend, absent
    assert legend.count("*Mean ± 95% CI*") == 1  # the site's two columns share one sentence
    assert "Zero-load latency:" in legend and "LP bound:" in legend and "*Rank*" in legend
    # a metric column a table dropped (blank everywhere) is not explained either
    legend = column_legend([h for h in heads if h != "Gap to LP"], traffic.metric_columns)
    assert "Gap to LP:" not in legend and "LP bound:" in legend
    # Gap LB names the bound of each kind whose rows have one; † rows only when shown
    both = column_legend(["Gap LB"], bounds=[get_kind("shortcut").lower_bound_meaning,
                                              get_kind("routing").lower_bound_meaning], published=True)
    assert "Moore/Cerf" in both and "; or ceil(γ_perfect)" in both and "Rows marked †" in both


def test_decline_reasons_are_read_back_whole():
    from hopbench.harness.report.formatting import declined_note, declined_reasons

    long = "x" * 500 + " the end"
    rec = {"solver": "milp", "params": "default", "budget": "60s", "instance": "ring:64/cap10/b16/aspl",
           "declined_reasons": f'["{long}", "another reason"]'}
    assert declined_reasons(rec) == [long, "another reason"]
    assert declined_note(rec) == f"milp (default @60s) on ring:64/cap10/b16/aspl: {long} / another reason"
    for blank in (None, math.nan, ""):
        assert declined_reasons({"declined_reasons": blank}) == [] and declined_note({"declined_reasons": blank}) == ""
    assert declined_reasons({}) == []  # a board.csv written before the column
    assert declined_reasons({"declined_reasons": "not JSON"}) == ["not JSON"]
