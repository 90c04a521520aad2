"""The tables of the results store, and the schema revisions this release knows.

The ``Table`` objects below are the one description the code queries with.  The
database is built and upgraded by the Alembic migrations in
``harness/bench/migrations/versions/`` (frozen copies: a migration never imports
this module's tables, since they change with the next revision).  Changing a table
means: edit it here, add a migration that makes the same change, and append its
revision to ``REVISIONS``.  ``tests/harness/bench/test_store_migrations.py`` checks
that the migrations build exactly these tables and that ``REVISIONS`` ends at
Alembic's script head, so a forgotten step fails the tests.

This module imports SQLAlchemy only: opening a store that is already current
must not pay for importing Alembic.
"""
from __future__ import annotations

from sqlalchemy import (
    Column,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

#: every migration revision, oldest first; the last one is the schema this release writes
REVISIONS = ("0001",)
HEAD = REVISIONS[-1]
#: hopbench's own Alembic version table: Optuna keeps its ``alembic_version`` in the same
#: database when a study lives beside the store, and neither may read the other's
VERSION_TABLE = "hopbench_alembic_version"

metadata = MetaData()

runs = Table(
    "runs", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("cell_key", String(512), nullable=False, unique=True),
    Column("suite", String(128), nullable=False, index=True),
    Column("instance", String(256), nullable=False, index=True),
    Column("instance_spec", Text, nullable=False),  # JSON of the instance fields
    Column("kind", String(32), nullable=False),
    Column("solver", String(64), nullable=False, index=True),
    Column("params", Text, nullable=False),  # JSON, keys sorted
    Column("params_tag", String(256), nullable=False),
    Column("seed", Integer, nullable=False),
    Column("status", String(16), nullable=False),
    Column("error", Text),
    Column("objective", Float),
    Column("diameter", Float),
    Column("aspl", Float),
    Column("metrics", Text),  # JSON: every metric the evaluation reported
    Column("elapsed_s", Float),
    Column("evaluations", Integer),
    Column("time_limit_s", Float),
    Column("solution", Text),  # the full solution document (JSON), re-verifiable
    Column("study", String(128)),
    Column("trial", Integer),
    Column("hopbench_version", String(32)),
    Column("git_commit", String(64)),
    Column("python_version", String(32)),
    Column("numpy_version", String(32)),
    Column("numba_version", String(32)),
    Column("host", String(128)),
    Column("cores", Integer),
    Column("started_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    # never reuse a run id on SQLite: a re-recorded cell (resume, --rerun, merge) gets a new one
    sqlite_autoincrement=True,
)

traces = Table(
    "traces", metadata,
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("elapsed_s", Float, nullable=False),
    Column("evaluations", Integer, nullable=False),
    Column("value", Float),
)

tuned = Table(
    "tuned_params", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("solver", String(64), nullable=False, index=True),
    Column("study", String(128), nullable=False),
    Column("suite", String(128)),
    Column("params", Text, nullable=False),  # JSON
    Column("value", Float),
    Column("n_trials", Integer),
    Column("created_at", DateTime(timezone=True)),
)

#: read with plain SQLAlchemy to learn a store's revision without importing Alembic
#: (the layout is Alembic's own; it is not part of ``metadata``, which Alembic compares)
version_table = Table(VERSION_TABLE, MetaData(), Column("version_num", String(32), primary_key=True))

#: columns of the ``runs`` table that a result row may set
RUN_COLUMNS = [c.name for c in runs.columns if c.name != "id"]
