"""Table cells shared by the markdown board and the site (:mod:`harness.report.formatting`)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from harness.report.formatting import (
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
