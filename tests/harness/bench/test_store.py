import math

import pandas as pd
import pytest

from hopbench.harness.bench.schema import HEAD
from hopbench.harness.bench.store import Store, cell_key, merge, params_tag, run_column_names
from hopbench.harness.errors import HopbenchError


def row(key="k1", status="ok", objective=2.5, **extra):
    base = dict(cell_key=key, suite="s", instance="ring:8/cap3/b2/aspl", instance_spec={"base": "ring:8"},
                kind="shortcut", solver="random", params={"b": 1, "a": 2}, params_tag="default", seed=1,
                status=status, objective=objective, diameter=3.0, aspl=objective, metrics={"x": math.inf},
                elapsed_s=0.1, evaluations=4, solution={"format": "hopbench.solution/1"})
    base.update(extra)
    return base


def test_record_read_and_replace(tmp_path):
    store = Store.open(f"sqlite:///{tmp_path / 'r.db'}")
    first = store.record(row(), [(0.0, 1, 3.0), (0.1, 2, 2.5)])
    store.record(row("k2", status="error", objective=None, error="boom"))
    df = store.dataframe()
    assert list(df.cell_key) == ["k1", "k2"] and df.params[0] == '{"a": 2, "b": 1}'
    assert store.statuses() == {"k1": "ok", "k2": "error"}
    tr = store.traces_dataframe([first])
    assert list(tr.value) == [3.0, 2.5]
    # recording a cell again replaces it: one row per cell, old trace gone
    second = store.record(row(objective=2.0), [(0.0, 1, 2.0)])
    df = store.dataframe()
    assert len(df) == 2 and df[df.cell_key == "k1"].objective.item() == 2.0
    assert list(store.traces_dataframe([second]).value) == [2.0]
    assert store.traces_dataframe([first]).empty


def test_sqlite_runs_in_wal_mode(tmp_path):
    store = Store.open(f"sqlite:///{tmp_path / 'w.db'}")
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_non_finite_values_are_stored_as_null(tmp_path):
    store = Store.open(f"sqlite:///{tmp_path / 'n.db'}")
    store.record(row(objective=math.inf))
    df = store.dataframe()
    assert pd.isna(df.objective[0]) and df.metrics[0] == '{"x": null}'


@pytest.mark.parametrize("url, fragment", [
    ("sqlite:////nonexistent-dir/sub/x.db", "cannot open the results store"),
    ("notadb://x", "invalid storage URL"),
    ("postgresql://nobody@127.0.0.1:1/none", "cannot open the results store"),
])
def test_unusable_urls(url, fragment):
    with pytest.raises(HopbenchError, match=fragment):
        Store.open(url)


def test_merge_keeps_one_row_per_cell(tmp_path):
    a, b = f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    Store.open(a).record(row("k1"), [(0.0, 1, 2.5)])
    Store.open(a).record(row("k2"))
    Store.open(b).record(row("k1", objective=9.0))
    assert merge(a, b) == 2
    df = Store.open(b).dataframe()
    assert sorted(df.cell_key) == ["k1", "k2"] and df[df.cell_key == "k1"].objective.item() == 2.5


def test_merge_never_lets_a_failure_or_an_older_run_replace_a_result(tmp_path):
    from datetime import datetime, timezone

    early, late = (datetime(2026, 1, d, tzinfo=timezone.utc) for d in (1, 2))
    a, b = f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    Store.open(a).record(row("failed-there", status="timeout", objective=None, finished_at=late))
    Store.open(b).record(row("failed-there", objective=3.0, finished_at=early))
    Store.open(a).record(row("older-there", objective=4.0, finished_at=early))
    Store.open(b).record(row("older-there", objective=5.0, finished_at=late))
    Store.open(a).record(row("newer-there", objective=6.0, finished_at=late))
    Store.open(b).record(row("newer-there", status="error", objective=None, finished_at=early))
    assert merge(a, b) == 1
    got = Store.open(b).dataframe().set_index("cell_key")
    assert got.loc["failed-there", "status"] == "ok" and got.loc["failed-there", "objective"] == 3.0
    assert got.loc["older-there", "objective"] == 5.0
    assert got.loc["newer-there", "status"] == "ok" and got.loc["newer-there", "objective"] == 6.0


def test_times_are_kept_in_utc_and_a_missing_finish_merges(tmp_path):
    from datetime import datetime, timedelta, timezone

    a, b = f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    Store.open(a).record(row(started_at=datetime(2026, 1, 1, 12, tzinfo=timezone(timedelta(hours=2))),
                             finished_at=None))
    assert merge(a, b) == 1
    got = Store.open(b).dataframe()
    assert got.started_at[0] == pd.Timestamp("2026-01-01 10:00") and pd.isna(got.finished_at[0])


def test_keys_and_tags():
    assert params_tag({}) == "default" and params_tag({"t": 10, "k": 2}) == "k=2,t=10"
    assert cell_key("s", "i", "x", {"b": 1, "a": 2}, 3) == 's|i|x|{"a": 2, "b": 1}|3'
    assert cell_key("s", "i", "x", {}, 3, 60.0, 500) == "s|i|x|{}|3|t=60|e=500"


def test_records_are_plain_rows_in_recording_order(tmp_path):
    from datetime import datetime

    store = Store.open(f"sqlite:///{tmp_path / 'r.db'}")
    first = store.record(row("k1", suite="a", started_at=datetime(2026, 1, 1, 12)), [(0.0, 1, 3.0), (0.5, 2, None)])
    store.record(row("k2", suite="b", solver="vrs", objective=None, evaluations=None))
    recs = store.records()
    assert [r["cell_key"] for r in recs] == ["k1", "k2"] and list(recs[0]) == run_column_names()
    assert recs[0]["started_at"] == datetime(2026, 1, 1, 12) and recs[1]["objective"] is None
    assert recs[0]["evaluations"] == 4 and recs[1]["evaluations"] is None  # no float promotion
    assert recs[0]["solution"] == '{"format": "hopbench.solution/1"}'
    assert "solution" not in store.records(with_solutions=False)[0]
    assert [r["cell_key"] for r in store.records(suite="b")] == ["k2"]
    assert [r["cell_key"] for r in store.records(solvers=["random"])] == ["k1"]
    assert store.trace_records([first]) == [{"run_id": first, "idx": 0, "elapsed_s": 0.0, "evaluations": 1,
                                             "value": 3.0},
                                            {"run_id": first, "idx": 1, "elapsed_s": 0.5, "evaluations": 2,
                                             "value": None}]
    store.save_tuned(solver="vrs", study="st", suite="b", params={"y": 2}, value=math.inf, n_trials=3)
    assert [(t["solver"], t["params"], t["value"]) for t in store.tuned_records()] == [("vrs", '{"y": 2}', None)]
    assert store.tuned_records("random") == []


def test_open_modes(tmp_path):
    url = f"sqlite:///{tmp_path / 'm.db'}"
    with pytest.raises(HopbenchError, match="does not exist"):
        Store.open(url, mode="read")  # reading never creates a store
    assert Store.open(url).revision == HEAD  # writing creates it
    assert Store.open(url, mode="read").revision == HEAD
    with pytest.raises(ValueError, match="mode"):
        Store.open(url, mode="append")


AWKWARD = [  # values that make pandas pick each of its column formats
    dict(objective=1e-7, diameter=None, aspl=123456789.25, elapsed_s=0.1, evaluations=None, error="a\tb\nc"),
    dict(objective=2.0, diameter=None, aspl=-2.5, elapsed_s=1e7, evaluations=12, error="x" * 80, trial=3),
    dict(objective=None, diameter=None, aspl=0.0, elapsed_s=3.25, evaluations=5, error=None, host='a,"b"'),
]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_results_table_and_csv_render_as_pandas_did(tmp_path, n):
    """``hopbench results`` renders without pandas; the text is what ``to_string``/``to_csv`` gave."""
    from datetime import datetime

    from hopbench.harness.cli.results import TABLE_COLUMNS, csv_text, table_text

    store = Store.open(f"sqlite:///{tmp_path / 'a.db'}")
    for i, extra in enumerate(AWKWARD[:n]):
        store.record(row(f"k{i}", started_at=datetime(2026, 1, 1 + i, 12, 0, 0, 1000 * i), **extra))
    df = store.dataframe(with_solutions=False)
    rows = store.records(with_solutions=False)
    assert table_text(rows, TABLE_COLUMNS) == df[TABLE_COLUMNS].to_string(index=False, max_colwidth=60)
    assert csv_text(rows, run_column_names(False)) == df.to_csv(index=False)
