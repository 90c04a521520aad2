"""A full disk during a Parquet export or a ``tune`` (issue 34, item 6): one line, exit code 2, and nothing that was
recorded or written before is lost.

The disk fills up by injection, so the tests need no root and no small file system: the output's write stops
half-way with ENOSPC; the store's SQLite file may not grow past its size (``PRAGMA max_page_count``, SQLite's own
"database or disk is full"); the Optuna journal's write stops half-way with ENOSPC.
"""
from __future__ import annotations

import errno
import json
import os
import sqlite3

import pytest

from hopbench.harness.errors import HopbenchError

SUITE = 'name = "full"\ndescription = "one tiny instance"\n[[instances]]\nbase = "ring:10"\ncap = 4\nbudget = 2\n'


class _HalfWriter:
    """A file whose writes stop half-way with ENOSPC, as on a full disk."""

    def __init__(self, raw):
        self.raw = raw

    def write(self, data):
        self.raw.write(data[:len(data) // 2])
        self.raw.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.raw.close()


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    from tests.harness.report.board_fixtures import make_store

    url, _suite, _path = make_store(tmp_path_factory.mktemp("full-disk"))
    return url


def test_a_parquet_export_on_a_full_disk_is_one_line_and_keeps_the_earlier_file(small_store, tmp_path, cli,
                                                                                 monkeypatch):
    out = tmp_path / "runs.parquet"
    assert cli("results", "--storage", small_store, "--format", "parquet", "-o", out)[0] == 0
    before = out.read_bytes()
    real = os.fdopen
    # files opened for writing stop half-way (the output ledger is still read as usual)
    monkeypatch.setattr("hopbench.harness.outputs.os.fdopen",
                        lambda fd, mode="r", *a, **k: _HalfWriter(real(fd, mode, *a, **k)) if "w" in mode
                        else real(fd, mode, *a, **k))
    code, stdout, err = cli("results", "--storage", small_store, "--format", "parquet", "-o", out)
    assert code == 2 and stdout == ""
    assert err.strip() == (f"error: cannot write {out} (No space left on device); check the output path, its "
                           f"permissions and the free space")
    assert out.read_bytes() == before  # the earlier export is whole, and no partial file is left beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.parquet"]


def _runs(db) -> int:
    con = sqlite3.connect(db)
    try:
        return con.execute("select count(*) from runs").fetchone()[0]
    finally:
        con.close()


def test_tune_on_a_full_disk_stops_in_one_line_and_loses_nothing(tmp_path, cli, monkeypatch):
    from hopbench.harness.bench import store as store_module

    suite = tmp_path / "full.toml"
    suite.write_text(SUITE)
    db = tmp_path / "t.db"
    args = ["tune", "vrs", "--suite", suite, "--time-limit", "1", "--sampler", "random",
            "--storage", f"sqlite:///{db}"]
    code, _, err = cli(*args, "--trials", "2")
    assert code == 0, err
    recorded = _runs(db)
    con = sqlite3.connect(db)
    pages = con.execute("pragma page_count").fetchone()[0]
    con.close()
    # from now on the store's file may grow by a page or two, then the disk is full
    real = store_module._set_sqlite_pragmas

    def full_disk(connection, record, **kw):
        real(connection, record, **kw)
        connection.execute(f"PRAGMA max_page_count = {pages + 2}")

    monkeypatch.setattr(store_module, "_set_sqlite_pragmas", full_disk)
    code, _, err = cli(*args, "--trials", "50")
    lines = [line for line in err.strip().splitlines() if not line.startswith("trial ")]
    assert code == 2, err
    assert lines[-1].startswith(f"error: tuning stopped: the results store sqlite:///{db} cannot grow: the disk is "
                                f"full"), err
    assert not any("Traceback" in line or "failed with" in line for line in lines), err
    assert _runs(db) >= recorded  # what the earlier trials recorded is all there
    journal = db.with_name(db.name + ".optuna-journal")
    for line in journal.read_text().splitlines():
        json.loads(line)  # whole lines only: the study can be read again
    monkeypatch.setattr(store_module, "_set_sqlite_pragmas", real)
    code, _, err = cli(*args, "--trials", "1")  # the disk has room again: the study resumes
    assert code == 0, err


def test_a_journal_write_on_a_full_disk_leaves_the_journal_whole(tmp_path, monkeypatch):
    from optuna.storages.journal import JournalFileBackend

    from hopbench.harness.bench import tuning

    backend = tuning._whole_lines_journal(JournalFileBackend)(str(tmp_path / "j"))
    backend.append_logs([{"op_code": 0, "worker_id": "w", "study_name": "s"}])
    before = (tmp_path / "j").read_bytes()
    real = os.write
    monkeypatch.setattr(tuning.os, "write", lambda fd, data: (real(fd, bytes(data)[:7]),
                                                              (_ for _ in ()).throw(OSError(errno.ENOSPC, "full")))[1])
    with pytest.raises(HopbenchError, match=r"cannot write the Optuna study journal .* \(full\); the journal is as it "
                                            r"was before this write"):
        backend.append_logs([{"op_code": 1, "worker_id": "w", "trial": 0}])
    monkeypatch.setattr(tuning.os, "write", real)
    assert (tmp_path / "j").read_bytes() == before
    assert [log["op_code"] for log in backend.read_logs(0)] == [0]
