"""Row labels (:mod:`harness.report.labels`): parameter-set labels, budgets, plot names."""
from __future__ import annotations

import pandas as pd

from harness.report.labels import budget_label, display_label, param_labels, with_budgets


def test_param_labels_are_unique_per_solver():
    runs = pd.DataFrame({"solver": ["a", "a", "a", "b"],
                         "params": ['{"t": 1}', '{"t": 2}', '{"t": 3}', "{}"],
                         "params_tag": ["default", "default", "t=3", "default"]})
    labels = param_labels(runs)
    assert labels[("a", '{"t": 3}')] == "t=3" and labels[("b", "{}")] == "default"
    assert labels[("a", '{"t": 1}')] != labels[("a", '{"t": 2}')]
    assert labels[("a", '{"t": 1}')].startswith("default#")


def test_budget_label_shows_time_and_evaluations():
    assert budget_label(60.0, "s|i|x|{}|1|t=60") == "60s"
    assert budget_label(5, "s|i|x|{}|1|t=5|e=2000") == "5s/2000ev"
    assert budget_label(float("nan"), "s|i|x|{}|1|e=200") == "200ev"
    assert budget_label(None, "") == ""


def test_with_budgets_labels_only_solvers_run_under_several():
    runs = pd.DataFrame({"solver": ["a", "a", "b"], "params": ["{}", "{}", "{}"],
                         "params_tag": ["default", "default", "default"], "time_limit_s": [10.0, 60.0, 10.0],
                         "cell_key": ["k|t=10", "k|t=60", "k|t=10"]})
    out = with_budgets(runs)
    assert out["params_tag"].tolist() == ["default @10s", "default @60s", "default"]
    assert out["params"].tolist() == ["{} @10s", "{} @60s", "{}"]
    assert list(out.columns) == list(runs.columns) and runs["params_tag"].tolist() == ["default"] * 3


def test_display_label():
    assert display_label("vrs", "default") == "vrs"
    assert display_label("vrs", "default @10s") == "vrs @10s"
    assert display_label("vrs", "t=3") == "vrs [t=3]"
