import math

import pandas as pd
import pytest

from harness.bench.store import Store, cell_key, merge, params_tag
from harness.errors import HopbenchError


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
