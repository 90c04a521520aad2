"""Row labels (:mod:`hopbench.harness.report.labels`): parameter-set labels, budgets, plot names."""
from __future__ import annotations

import pandas as pd

from hopbench.harness.report.labels import budget_label, display_label, param_labels, short_floats, with_budgets


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


def test_labels_show_floats_with_at_most_four_significant_digits():
    # a tuned parameter set recorded with every digit (the run summary was 200 characters wide)
    long = "p_swap=0.33333333333333331,t0=0.0030000000000000001,t1=1.2345678e-05,k=3,init=edgecut-full:t=0"
    assert short_floats(long) == "p_swap=0.3333,t0=0.003,t1=1.235e-05,k=3,init=edgecut-full:t=0"
    for kept in ("default", "k=2,t=10", "default#1e5abc", "default @2.5s/200ev", "x=-0.5"):
        assert short_floats(kept) == kept
    runs = pd.DataFrame({"solver": ["a", "a", "b"],
                         "params": ['{"t0": 0.0030000000000000001}', '{"t0": 0.0030000000001}', '{"t0": 0.5}'],
                         "params_tag": ["t0=0.0030000000000000001", "t0=0.0030000000001", "t0=0.5"]})
    labels = param_labels(runs)
    assert labels[("b", '{"t0": 0.5}')] == "t0=0.5"
    # two sets that differ past the fourth digit keep apart by their hash
    first, second = labels[("a", '{"t0": 0.0030000000000000001}')], labels[("a", '{"t0": 0.0030000000001}')]
    assert first != second and first.startswith("t0=0.003#") and second.startswith("t0=0.003#")


def test_params_tag_is_short_and_the_cell_key_keeps_every_digit():
    from hopbench.harness.bench.store import cell_key, params_tag

    params = {"t0": 0.0030000000000000001, "t1": 1.2345678e-05, "k": 3, "init": "random"}
    assert params_tag(params) == "init=random,k=3,t0=0.003,t1=1.235e-05"
    assert short_floats(params_tag(params)) == params_tag(params)  # the board shows what the runner tagged
    assert params_tag({}) == "default" and params_tag({"t": 10, "k": 2}) == "k=2,t=10"
    # the key of a cell recorded before tags were shortened: the params JSON, never the tag
    assert cell_key("s", "i", "annealing", params, 1, 60.0) == \
        's|i|annealing|{"init": "random", "k": 3, "t0": 0.003, "t1": 1.2345678e-05}|1|t=60'
