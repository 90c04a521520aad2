"""The results store's schema versions: Alembic builds exactly the tables the code queries, an old
store (release ad9cf91, before versioning) upgrades without losing a value, a newer one is refused."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from hopbench.harness.bench import schema
from hopbench.harness.bench.store import MIGRATIONS, UNVERSIONED, Store, run_column_names
from hopbench.harness.errors import HopbenchError

ROOT = Path(__file__).resolve().parents[3]
OLD_STORE = ROOT / "tests" / "data" / "stores" / "ad9cf91.db"
TABLES = ("runs", "traces", "tuned_params")
KEYS = {"runs": "id", "traces": "run_id, idx", "tuned_params": "id"}


def hopbench(*args, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


def raw_rows(db: Path) -> dict[str, list[dict]]:
    """Every row of every table, read with plain sqlite3 (no SQLAlchemy, no hopbench)."""
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    out = {t: [dict(r) for r in con.execute(f"select * from {t} order by {KEYS[t]}")] for t in TABLES}
    con.close()
    return out


def raw_versions(db: Path) -> list[str] | None:
    con = sqlite3.connect(db)
    try:
        return [v for (v,) in con.execute(f"select version_num from {schema.VERSION_TABLE}")]
    except sqlite3.OperationalError:  # no version table
        return None
    finally:
        con.close()


def sqlite_ddl(db: Path) -> dict[str, str]:
    con = sqlite3.connect(db)
    out = {name: sql for name, sql in con.execute("select name, sql from sqlite_master where sql is not null")
           if name != schema.VERSION_TABLE}
    con.close()
    return out


def set_version(url: str, version: str) -> None:
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text(f"update {schema.VERSION_TABLE} set version_num = :v"), {"v": version})
    engine.dispose()


@pytest.fixture
def old_store(tmp_path) -> Path:
    db = tmp_path / "old.db"
    shutil.copy(OLD_STORE, db)
    return db


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_url(request, tmp_path):
    """The URL of an empty database: a new SQLite file, or a fresh schema of the test PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'new.db'}"
    return request.getfixturevalue("empty_postgres_url")


# ---------------------------------------------------------------------------- the migrations


def alembic_config(url: str | None = None):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if url:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))  # configparser interpolates
    return config


def test_the_revisions_in_code_are_alembics():
    """``schema.HEAD``/``REVISIONS`` are what Store.open compares without importing Alembic: they must
    follow the scripts (a new migration without a bumped constant fails here)."""
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(alembic_config())
    assert scripts.get_heads() == [schema.HEAD]
    assert tuple(reversed([s.revision for s in scripts.walk_revisions()])) == schema.REVISIONS


def test_alembic_upgrade_head_builds_exactly_the_tables_the_code_queries(empty_url):
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    command.upgrade(alembic_config(empty_url), "head")  # the alembic command, through env.py
    engine = create_engine(empty_url)
    with engine.connect() as conn:
        insp = inspect(conn)
        assert set(insp.get_table_names()) == set(schema.metadata.tables) | {schema.VERSION_TABLE}
        for table in schema.metadata.sorted_tables:
            got = {c["name"]: c for c in insp.get_columns(table.name)}
            assert list(got) == [c.name for c in table.columns], table.name
            for column in table.columns:
                assert got[column.name]["nullable"] == column.nullable, (table.name, column.name)
                assert (_type(got[column.name]["type"], engine.dialect.name)
                        == _type(column.type, engine.dialect.name)), (table.name, column.name)
            assert insp.get_pk_constraint(table.name)["constrained_columns"] == [c.name for c in table.primary_key]
            assert ({i["name"]: (i["column_names"], bool(i["unique"])) for i in insp.get_indexes(table.name)
                     if not i.get("duplicates_constraint")}  # PostgreSQL's index behind UNIQUE (cell_key)
                    == {i.name: ([c.name for c in i.columns], bool(i.unique)) for i in table.indexes})
            assert (sorted(u["column_names"] for u in insp.get_unique_constraints(table.name))
                    == sorted([c.name] for c in table.columns if c.unique))
            assert ([(f["constrained_columns"], f["referred_table"], f["referred_columns"],
                      (f.get("options") or {}).get("ondelete")) for f in insp.get_foreign_keys(table.name)]
                    == [([f.parent.name], f.column.table.name, [f.column.name], f.ondelete)
                        for f in table.foreign_keys])
        # and Alembic's own comparison finds nothing to do (Optuna's tables would be ignored)
        context = MigrationContext.configure(conn, opts={"version_table": schema.VERSION_TABLE,
                                                         "include_name": _ours})
        assert compare_metadata(context, schema.metadata) == []
        assert conn.execute(text(f"select version_num from {schema.VERSION_TABLE}")).scalars().all() == [schema.HEAD]
        if engine.dialect.name == "sqlite":
            assert "AUTOINCREMENT" in insp.bind.exec_driver_sql(
                "select sql from sqlite_master where name = 'runs'").scalar()
    engine.dispose()


def _type(t, dialect: str) -> tuple:
    """A column type as the dialect reflects it (PostgreSQL reads FLOAT back as DOUBLE PRECISION;
    SQLite keeps no time zone)."""
    return t._type_affinity, getattr(t, "length", None), dialect != "sqlite" and getattr(t, "timezone", None)


def _ours(name, type_, parent_names):
    return type_ != "table" or name in schema.metadata.tables


def test_the_first_revision_is_the_schema_of_release_ad9cf91(tmp_path):
    """On SQLite the DDL itself is compared: a new store's tables are created by the very statements
    the release created them with (AUTOINCREMENT, UNIQUE (cell_key), ON DELETE CASCADE, the indexes)."""
    Store.open(f"sqlite:///{tmp_path / 'new.db'}").close()
    assert sqlite_ddl(tmp_path / "new.db") == sqlite_ddl(OLD_STORE)


# ---------------------------------------------------------------------------- an old store


def test_an_old_store_upgrades_and_every_value_reads_back(old_store):
    before = raw_rows(old_store)
    assert raw_versions(old_store) is None
    assert len(before["runs"]) == 82 and len(before["traces"]) == 230 and len(before["tuned_params"]) == 1
    statuses = [r["status"] for r in before["runs"]]
    assert {s: statuses.count(s) for s in set(statuses)} == {"ok": 72, "skipped": 8, "error": 1, "timeout": 1}

    store = Store.open(f"sqlite:///{old_store}")  # write mode: stamped as revision 0001, then upgraded
    assert store.revision == schema.HEAD and raw_versions(old_store) == [schema.HEAD]

    def same(raw: dict, got: dict) -> None:
        assert list(got) == list(raw)
        for key, value in raw.items():
            if isinstance(got[key], datetime):  # SQLite keeps times as text
                assert got[key] == datetime.fromisoformat(value), key
            else:
                assert got[key] == value and type(got[key]) is type(value), key

    runs = store.records(with_solutions=True)
    assert len(runs) == len(before["runs"])
    for raw, got in zip(before["runs"], runs):
        same(raw, got)
    assert all(json.loads(r["solution"])["format"].startswith("hopbench.") for r in runs if r["status"] == "ok")
    traces = store.trace_records()
    assert len(traces) == len(before["traces"])
    for raw, got in zip(before["traces"], traces):
        same(raw, got)
    tuned = store.tuned_records()
    assert len(tuned) == 1
    same(before["tuned_params"][0], tuned[0])
    assert raw_rows(old_store) == before  # the upgrade touched no row


def test_opening_for_write_twice_changes_nothing(old_store):
    url = f"sqlite:///{old_store}"
    Store.open(url).close()
    ddl, rows = sqlite_ddl(old_store), raw_rows(old_store)
    store = Store.open(url)
    assert store.revision == schema.HEAD and raw_versions(old_store) == [schema.HEAD]
    assert sqlite_ddl(old_store) == ddl and raw_rows(old_store) == rows


def test_reading_leaves_an_old_store_as_it_is_and_the_first_write_upgrades_it(old_store):
    store = Store.open(f"sqlite:///{old_store}", mode="read")
    assert store.revision == UNVERSIONED and raw_versions(old_store) is None
    assert len(store.records()) == 82
    row = dict(store.records()[0], cell_key="new-cell")
    del row["id"]
    store.record(row)
    assert store.revision == schema.HEAD and raw_versions(old_store) == [schema.HEAD]
    assert len(store.records()) == 83


def test_a_store_from_before_tuning_gets_its_tuned_params_table(tmp_path):
    db = tmp_path / "older.db"
    shutil.copy(OLD_STORE, db)
    con = sqlite3.connect(db)
    con.execute("drop table tuned_params")
    con.commit()
    con.close()
    store = Store.open(f"sqlite:///{db}")
    store.save_tuned(solver="random", study="s", suite=None, params={"t": 1}, value=1.5, n_trials=2)
    assert [r["params"] for r in store.tuned_records()] == ['{"t": 1}']
    assert sqlite_ddl(db) == sqlite_ddl(OLD_STORE)


def test_results_command_on_the_old_store_prints_what_pandas_printed(old_store):
    """``hopbench results`` renders without pandas now; its table and CSV are byte for byte what the
    pandas rendering gave, and its JSON has the same values."""
    import pandas as pd  # the old rendering, for comparison

    from hopbench.harness.cli.results import JSON_COLUMNS, TABLE_COLUMNS

    url = f"sqlite:///{old_store}"
    df = Store.open(url, mode="read").dataframe(with_solutions=False)
    table = hopbench("results", "--storage", url)
    assert table.returncode == 0, table.stderr
    assert table.stdout == df[TABLE_COLUMNS].to_string(index=False, max_colwidth=60) + "\n"
    out = old_store.parent / "r.csv"
    assert hopbench("results", "--format", "csv", "-o", out, "--storage", url).returncode == 0
    assert out.read_text() == df.to_csv(index=False)
    assert list(pd.read_csv(out).columns) == run_column_names(with_solutions=False)
    js = hopbench("results", "--format", "json", "--suite", "quick", "--storage", url)
    assert js.returncode == 0, js.stderr
    docs = json.loads(js.stdout)
    full = Store.open(url, mode="read").dataframe()
    assert len(docs) == len(full) == 82 and list(docs[0]) == JSON_COLUMNS
    for doc, (_, rec) in zip(docs, full.iterrows()):
        assert doc["solution"] == (json.loads(rec.solution) if isinstance(rec.solution, str) else None)
        for key in ("objective", "evaluations", "seed", "status", "error"):
            assert doc[key] == (None if pd.isna(rec[key]) else rec[key]), key
        assert doc["started_at"] == rec.started_at.isoformat()
    assert raw_versions(old_store) is None  # reading changed nothing


# ---------------------------------------------------------------------------- a newer store


@pytest.mark.parametrize("version, says", [("0005", "newer than this hopbench knows (0001)"),
                                           ("f00dcafe", "which this hopbench does not know")])
def test_a_newer_store_is_refused_with_one_line(tmp_path, version, says):
    db = tmp_path / "new.db"
    url = f"sqlite:///{db}"
    Store.open(url).close()
    set_version(url, version)
    for mode in ("read", "write"):
        with pytest.raises(HopbenchError) as info:
            Store.open(url, mode=mode)
        message = str(info.value)
        assert says in message and f"schema version {version}" in message and "\n" not in message
        assert "upgrade hopbench, or use another --storage" in message
    for args in (["results"], ["results", "--format", "json"], ["board", "--suite", "quick", "-o", tmp_path / "b"]):
        r = hopbench(*args, "--storage", url)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: the results store"), r.stderr
        assert says in lines[0] and not r.stdout
    assert raw_versions(db) == [version]  # and nobody "upgraded" it


def test_passwords_never_reach_a_message():
    with pytest.raises(HopbenchError) as info:
        Store.open("postgresql://bob:s3cret@127.0.0.1:1/none")
    assert "s3cret" not in str(info.value) and "bob:***@" in str(info.value)
    with pytest.raises(HopbenchError) as info:
        Store.open("nosuchdialect://bob:s3cret@host/db")
    assert "s3cret" not in str(info.value)


# ---------------------------------------------------------------------------- sharing and racing


def test_an_optuna_study_and_a_store_share_one_database(empty_url):
    import optuna

    from tests.harness.bench.test_store import row

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    store = Store.open(empty_url)
    storage = optuna.storages.RDBStorage(empty_url)
    study = optuna.create_study(study_name="s", storage=storage)
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=2)
    store.record(row("k1"), [(0.0, 1, 2.5)])
    store.close()
    again = Store.open(empty_url)  # the current-store path, with Optuna's tables beside
    assert again.revision == schema.HEAD and [r["cell_key"] for r in again.records()] == ["k1"]
    storage = optuna.storages.RDBStorage(empty_url)  # Optuna checks its own version table
    assert len(optuna.load_study(study_name="s", storage=storage).trials) == 2
    engine = create_engine(empty_url)
    with engine.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        assert {"alembic_version", schema.VERSION_TABLE, "studies", "trials", *TABLES} <= tables
        assert conn.execute(text(f"select version_num from {schema.VERSION_TABLE}")).scalars().all() == [schema.HEAD]
    engine.dispose()


_OPEN = """
import sys, time
from pathlib import Path
from hopbench.harness.bench.store import Store
barrier = Path(sys.argv[2])
(barrier / sys.argv[3]).touch()
while not (barrier / "go").exists():  # every process imported everything: now all open at once
    time.sleep(0.01)
store = Store.open(sys.argv[1])
print(store.revision, len(store.records()))
"""


def test_concurrent_first_opens_create_the_store_once(empty_url, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    procs = [subprocess.Popen([sys.executable, "-c", _OPEN, empty_url, barrier, f"ready-{i}"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for i in range(4)]
    deadline = time.monotonic() + 120
    while len(list(barrier.glob("ready-*"))) < len(procs) and time.monotonic() < deadline:
        time.sleep(0.05)
    (barrier / "go").touch()
    results = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0 and out.split() == [schema.HEAD, "0"], err
    engine = create_engine(empty_url)
    with engine.connect() as conn:
        assert conn.execute(text(f"select version_num from {schema.VERSION_TABLE}")).scalars().all() == [schema.HEAD]
    engine.dispose()


def test_opening_a_current_store_does_not_import_alembic(tmp_path):
    url = f"sqlite:///{tmp_path / 'c.db'}"
    Store.open(url).close()
    probe = ("import sys\nfrom hopbench.harness.bench.store import Store\n"
             "s = Store.open(sys.argv[1]); s.records(); s.open(sys.argv[1], mode='read')\n"
             "print(sorted(m for m in ('alembic', 'pandas', 'numpy') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", probe, url], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stderr


def test_a_store_another_process_creates_during_the_first_look_opens(empty_url, monkeypatch):
    """The race CI met with two tuning workers on a new PostgreSQL database: one process's read of the
    version row fails (no table yet), the other commits the new store, and only then does the first look
    in the catalogue.  The table is there; the store must open, not fail with 'relation does not exist'."""
    import hopbench.harness.bench.store as store_module

    real_inspect = store_module.inspect
    created = []

    def inspect_after_the_other_process(conn):
        if not created:
            created.append(True)
            Store.open(empty_url).close()  # the other process: it creates the tables and commits them
        return real_inspect(conn)

    monkeypatch.setattr(store_module, "inspect", inspect_after_the_other_process)
    store = Store.open(empty_url)
    assert created and store.revision == schema.HEAD and store.records() == []
    store.close()
