"""The results database: one SQLAlchemy URL (SQLite file by default, PostgreSQL for a shared store).

Three tables (:mod:`harness.bench.schema`).  ``runs`` has one row per cell
(instance x solver x params x seed), keyed by a unique ``cell_key``; recording a
cell again (``--rerun``) replaces its row, so every cell is recorded exactly once.
``traces`` holds the anytime points of each run, ``tuned_params`` the best
parameters of tuning studies.  Only the coordinating process writes, one
transaction per cell, so an interrupted run loses at most the cells in flight.
SQLite files run in WAL mode (readers never block the writer).

The schema is versioned by Alembic migrations (``harness/bench/migrations/``) in a
version table of hopbench's own name, ``hopbench_alembic_version`` (an Optuna study
in the same database keeps its ``alembic_version``).  How :meth:`Store.open` treats
what it finds:

- an empty database gets every migration (the tables are created), but ``mode="read"``
  refuses a SQLite URL whose file does not exist, so a mistyped path is an error, not a new store;
- a store made before versioning (a ``runs`` table, no version) counts as revision
  0001, the layout of those releases;
- a store of this release's revision (``schema.HEAD``) is used as it is; this is the
  common case, and it costs one ``SELECT`` (Alembic is imported only to create,
  stamp or upgrade a store);
- a store of a newer revision, or of one this release does not know, is refused with
  a one-line error, whatever the mode;
- an older store: ``mode="write"`` (commands that write: ``run``, ``tune``, the target
  of ``results --merge-from``) upgrades it in place, stamping a pre-versioning store
  first; ``mode="read"`` (``results``, ``board``, the source of a merge) reads it as it
  is and changes nothing, so that looking at a store shared with an older release
  does not lock that release out.  The first write through a store opened for
  reading (``record``, ``save_tuned``) upgrades it then.

A later revision must therefore keep the readers working on the older layouts it
upgrades from (for example, select only the columns such a store has).  Schema
changes run in one transaction under a lock (SQLite: ``BEGIN IMMEDIATE``;
PostgreSQL: an advisory lock), so processes that open the same new store at once
create it once.
"""
from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Literal

from sqlalchemy import create_engine, delete, event, insert, inspect, select, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.pool import NullPool

from harness.bench.schema import (  # the tables are imported from here too (harness.report.board)
    HEAD,
    REVISIONS,
    RUN_COLUMNS,
    VERSION_TABLE,
    metadata,
    runs,
    traces,
    tuned,
    version_table,
)
from harness.documents import json_default, strict_json
from harness.errors import HopbenchError

DEFAULT_URL = "sqlite:///hopbench.db"
STATUSES = ("ok", "error", "timeout", "skipped")
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: what ``Store.open`` may find besides a known revision
EMPTY, UNVERSIONED = "empty", "unversioned"
#: PostgreSQL advisory lock held while the schema changes ("hopb" in ASCII)
_SCHEMA_LOCK = 0x686F7062

Mode = Literal["write", "read"]


def params_tag(params: dict[str, Any]) -> str:
    """A short readable label for a parameter set: ``t=10,y=3`` (or ``default``).

    Floats show at most 4 significant digits (``t0=0.003``, not a tuned value's 17): the
    label is for reading; the exact values are in the params JSON, which alone makes the
    cell key (:func:`cell_key`).
    """
    def shown(value: Any) -> Any:
        return f"{value:.4g}" if isinstance(value, float) and math.isfinite(value) else value

    return ",".join(f"{k}={shown(params[k])}" for k in sorted(params)) or "default"


def cell_key(suite: str, instance: str, solver: str, params: dict[str, Any], seed: int,
             time_limit: float | None = None, evaluations: int | None = None) -> str:
    """The identity of a cell.  The budget is part of it: a solver stopped by its budget
    gives another result under another budget, so that is another cell, not a repeat."""
    key = f"{suite}|{instance}|{solver}|{json.dumps(params, sort_keys=True)}|{seed}"
    if time_limit is not None:
        key += f"|t={float(time_limit):g}"
    if evaluations is not None:
        key += f"|e={int(evaluations)}"
    return key


def _finite(x: Any) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if math.isinf(x) or math.isnan(x) else x


def _set_sqlite_pragmas(dbapi_connection, _record) -> None:
    cur = dbapi_connection.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def shown_url(url: str) -> str:
    """``url`` fit for a message: the password masked."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a URL SQLAlchemy can parse: mask what looks like user:password@
        return re.sub(r"(//[^/@:]*:)[^/@]*@", r"\1***@", url)


def _sqlite_file_exists(url: str) -> None:
    """Refuse a SQLite URL whose file does not exist (in-memory and ``file:`` URI databases pass)."""
    try:
        parsed = make_url(url)
    except Exception:  # not a URL: Store.open says so
        return
    database = parsed.database if parsed.get_backend_name() == "sqlite" else None
    if not database or database == ":memory:" or database.startswith("file:") or Path(database).exists():
        return
    path = Path(database).absolute()
    if not Path(database).is_absolute() and Path("/" + database).exists():
        hint = f"; for /{database} write sqlite:////{database}, four slashes"
    else:
        found = sorted(p.name for p in path.parent.glob("*.db"))[:5] if path.parent.is_dir() else []
        hint = f"; that folder has {', '.join(found)}" if found else ""
    raise HopbenchError(f"the results store {shown_url(url)} does not exist (no file {path}{hint}); give the "
                        f"--storage URL of an existing store, or record runs first with 'hopbench run --suite S'")


def _reason(exc: BaseException) -> str:
    return (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [type(exc).__name__])[0]


def _newer(url: str, found: list[str]) -> HopbenchError:
    version = ",".join(found)
    if all(v.isdigit() for v in found) and max(map(int, found)) > int(HEAD):
        what = f"newer than this hopbench knows ({HEAD})"
    else:
        what = f"which this hopbench does not know (it knows {', '.join(REVISIONS)})"
    return HopbenchError(f"the results store {shown_url(url)} has schema version {version}, {what}; "
                         f"upgrade hopbench, or use another --storage")


def _revision(conn: Connection, url: str, *, in_transaction: bool = False) -> str:
    """The store's revision, ``EMPTY`` or ``UNVERSIONED``; an unknown one raises the one-line error.

    The common case costs one query: the version row is read straight away and the
    catalogue is asked only when that fails -- except ``in_transaction``, where a failed
    statement would abort the caller's transaction (PostgreSQL), so the catalogue comes first.
    """
    if in_transaction and not inspect(conn).has_table(VERSION_TABLE):
        found = []
    else:
        try:
            found = list(conn.execute(select(version_table.c.version_num)).scalars())
        except DBAPIError:
            if in_transaction:
                raise
            conn.rollback()  # PostgreSQL aborts the transaction of a failed statement
            if inspect(conn).has_table(VERSION_TABLE):
                raise  # the table is there: the failure is something else (permissions, a dropped connection)
            found = []
    if not found:  # never versioned, or nothing at all yet
        return UNVERSIONED if inspect(conn).has_table(runs.name) else EMPTY
    if len(found) > 1 or found[0] not in REVISIONS:
        raise _newer(url, found)
    return found[0]


def _schema_engine(engine: Engine) -> Engine:
    """An engine whose transactions hold the database's write lock, DDL included.

    pysqlite neither begins a transaction before DDL nor takes the write lock at
    BEGIN; SQLAlchemy's documented recipe hands both to SQLite, so concurrent first
    opens queue on the lock (``busy_timeout``) instead of racing.  An in-memory SQLite
    database lives in its one connection, which then serves as it is.
    """
    if engine.dialect.name != "sqlite" or engine.url.database in (None, "", ":memory:"):
        return engine
    locking = create_engine(engine.url, poolclass=NullPool)

    @event.listens_for(locking, "connect")
    def _connect(dbapi_connection, record) -> None:
        _set_sqlite_pragmas(dbapi_connection, record)
        dbapi_connection.isolation_level = None  # no implicit BEGIN/COMMIT from pysqlite

    @event.listens_for(locking, "begin")
    def _begin(conn) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return locking


def _upgrade(engine: Engine, url: str) -> str:
    """Create, stamp or upgrade the store to ``HEAD`` in one locked transaction; returns ``HEAD``."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    schema_engine = _schema_engine(engine)
    try:
        for attempt in range(4):
            try:
                with schema_engine.begin() as conn:
                    if conn.dialect.name == "postgresql":
                        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK})
                    # look again, under the lock: another process may have been first
                    found = _revision(conn, url, in_transaction=True)
                    if found == HEAD:
                        return HEAD
                    config.attributes["connection"] = conn
                    if found == UNVERSIONED:
                        # releases before versioning ran create_all at every open, so a store of theirs
                        # lacking a later table (tuned_params came with tuning) got it; so does this one
                        metadata.create_all(conn, checkfirst=True)
                        command.stamp(config, REVISIONS[0])
                    command.upgrade(config, "head")
                return HEAD
            except SQLAlchemyError as exc:
                reason = _reason(exc)
                if attempt < 3 and ("duplicate" in reason.lower() or "already exists" in reason.lower()):
                    # a database without a schema lock here: another process created the same
                    # tables at the same moment (PostgreSQL reports it as a duplicate catalogue
                    # row); the next look sees them
                    time.sleep(0.2 * (attempt + 1))
                    continue
                raise HopbenchError(f"cannot create or upgrade the tables of the results store {shown_url(url)} "
                                    f"to schema version {HEAD}: {reason}; check that you may write to it") from None
        raise HopbenchError(f"cannot create the tables of the results store {shown_url(url)}; try again")
    finally:
        if schema_engine is not engine:
            schema_engine.dispose()


@dataclass
class Store:
    url: str
    engine: Engine
    #: the schema revision the store had when opened (``UNVERSIONED``: made before versioning); a
    #: store opened for reading stays as it was until the first write upgrades it
    revision: str = HEAD

    @classmethod
    def open(cls, url: str | None = None, *, mode: Mode = "write") -> "Store":
        """Connect, creating the tables of an empty database; an unusable URL is a one-line error.

        ``mode="write"`` brings an older store up to this release's schema; ``mode="read"``
        reads it as it is (see the module's docstring) and never creates a SQLite file.  A store
        of a newer schema is refused either way.
        """
        if mode not in ("write", "read"):
            raise ValueError(f"mode must be 'write' or 'read', got {mode!r}")
        url = url or DEFAULT_URL
        if mode == "read":
            _sqlite_file_exists(url)  # reading never creates a store (a mistyped path would look empty)
        try:
            engine = create_engine(url, future=True, pool_pre_ping=True)
        except (ArgumentError, NoSuchModuleError, ValueError) as exc:
            reason = str(exc).replace(url, shown_url(url))
            raise HopbenchError(f"invalid storage URL {shown_url(url)!r} ({reason}); use e.g. sqlite:///hopbench.db "
                                f"or postgresql://user:password@host/dbname") from None
        except ModuleNotFoundError as exc:
            raise HopbenchError(f"storage URL {shown_url(url)!r} needs the Python package {exc.name!r}; "
                                f"install it") from None
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", _set_sqlite_pragmas)
        try:
            with engine.connect() as conn:
                revision = _revision(conn, url)
        except SQLAlchemyError as exc:
            raise HopbenchError(f"cannot open the results store {shown_url(url)!r}: {_reason(exc)}; check the URL, "
                                f"the path and write permissions") from None
        if revision == EMPTY or (mode == "write" and revision != HEAD):
            revision = _upgrade(engine, url)
        return cls(url, engine, revision)

    def _writable(self) -> None:
        """Upgrade a store opened for reading before its first write."""
        if self.revision != HEAD:
            self.revision = _upgrade(self.engine, self.url)

    # ------------------------------------------------------------------ writing

    def record(self, row: dict[str, Any], trace: Iterable[tuple[float, int, float]] = ()) -> int:
        """Insert one cell's result (replacing an earlier row of the same cell) in one transaction."""
        self._writable()
        values = {k: row.get(k) for k in RUN_COLUMNS}
        for key in ("objective", "diameter", "aspl", "elapsed_s"):
            values[key] = _finite(values[key])
        for key in ("params", "instance_spec", "metrics", "solution"):
            if values[key] is not None and not isinstance(values[key], str):
                values[key] = json.dumps(strict_json(values[key]), sort_keys=key == "params", allow_nan=False,
                                         default=json_default)
        for key in ("started_at", "finished_at"):
            values[key] = as_utc(values[key])  # one clock for every store (SQLite keeps no offset)
        if values["status"] not in STATUSES:
            raise ValueError(f"unknown status {values['status']!r}")
        points = [{"idx": i, "elapsed_s": float(t), "evaluations": int(e), "value": _finite(v)}
                  for i, (t, e, v) in enumerate(trace)]
        for attempt in range(3):
            try:
                return self._replace(values, points)
            except IntegrityError:
                # another writer recorded the same cell between our delete and insert (two
                # coordinators on one matrix); the retry replaces its row, last writer wins
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _replace(self, values: dict[str, Any], points: list[dict[str, Any]]) -> int:
        with self.engine.begin() as conn:
            old = conn.execute(select(runs.c.id).where(runs.c.cell_key == values["cell_key"])).scalar()
            if old is not None:
                conn.execute(delete(traces).where(traces.c.run_id == old))
                conn.execute(delete(runs).where(runs.c.id == old))
            run_id = conn.execute(insert(runs).values(**values)).inserted_primary_key[0]
            if points:
                conn.execute(insert(traces), [{"run_id": run_id, **p} for p in points])
        return int(run_id)

    # ------------------------------------------------------------------ reading

    def statuses(self, keys: Iterable[str] | None = None) -> dict[str, str]:
        """``cell_key -> status`` for recorded cells (all, or those among ``keys``)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(runs.c.cell_key, runs.c.status)).all()
        wanted = None if keys is None else set(keys)
        return {k: s for k, s in rows if wanted is None or k in wanted}

    def records(self, *, suite: str | None = None, solvers: list[str] | None = None, study: str | None = None,
                with_solutions: bool = True) -> list[dict[str, Any]]:
        """The runs as plain dicts (one per cell, in recording order), keyed by the ``runs`` columns.

        Values are as the database returns them (JSON columns stay text, times are
        datetimes, a missing value is None); no pandas, so ``hopbench results`` starts fast.
        """
        query = select(*_run_columns(with_solutions)).order_by(runs.c.id)
        if suite:
            query = query.where(runs.c.suite == suite)
        if solvers:
            query = query.where(runs.c.solver.in_(solvers))
        if study:
            query = query.where(runs.c.study == study)
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(query).mappings()]

    def dataframe(self, *, suite: str | None = None, solvers: list[str] | None = None,
                  study: str | None = None, with_solutions: bool = True):
        """The runs as a pandas DataFrame (one row per cell)."""
        import pandas as pd

        rows = self.records(suite=suite, solvers=solvers, study=study, with_solutions=with_solutions)
        return pd.DataFrame(rows, columns=[c.name for c in _run_columns(with_solutions)])

    def trace_records(self, run_ids: Iterable[int] | None = None) -> list[dict[str, Any]]:
        """The anytime points (``run_id, idx, elapsed_s, evaluations, value``) of every run or of ``run_ids``."""
        query = select(traces).order_by(traces.c.run_id, traces.c.idx)
        if run_ids is not None:
            query = query.where(traces.c.run_id.in_(list(run_ids)))
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(query).mappings()]

    def traces_dataframe(self, run_ids: Iterable[int] | None = None):
        import pandas as pd

        return pd.DataFrame(self.trace_records(run_ids), columns=[c.name for c in traces.columns])

    def tuned_records(self, solver: str | None = None) -> list[dict[str, Any]]:
        """The saved tuning results (``params`` as JSON text), oldest first."""
        query = select(tuned).order_by(tuned.c.id)
        if solver:
            query = query.where(tuned.c.solver == solver)
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(query).mappings()]

    def save_tuned(self, *, solver: str, study: str, suite: str | None, params: dict[str, Any], value: float,
                   n_trials: int) -> None:
        """Remember a tuning study's best parameters (one row per save)."""
        self._writable()
        with self.engine.begin() as conn:
            conn.execute(insert(tuned).values(solver=solver, study=study, suite=suite,
                                              params=json.dumps(params, sort_keys=True), value=_finite(value),
                                              n_trials=n_trials, created_at=now()))

    def close(self) -> None:
        self.engine.dispose()


def _run_columns(with_solutions: bool) -> list:
    return [c for c in runs.columns if with_solutions or c.name != "solution"]


def run_column_names(with_solutions: bool = True) -> list[str]:
    """The keys of :meth:`Store.records` rows, in table order."""
    return [c.name for c in _run_columns(with_solutions)]


def now() -> datetime:
    return datetime.now(timezone.utc)


def merge(source_url: str, target_url: str) -> int:
    """Copy every run (and its trace) of one store into another; returns the number copied.

    A cell recorded in both keeps one row: an ``ok`` run beats a failed one (so a
    machine's timeout never overwrites another's result), and between rows of the
    same kind the one that finished later wins (the source on a tie).  Merging the
    stores of several machines therefore gives one row per cell, whatever the order
    of the merges.
    """
    src, dst = Store.open(source_url, mode="read"), Store.open(target_url)
    try:
        by_run: dict[int, list[tuple[float, int, float | None]]] = {}
        for p in src.trace_records():
            by_run.setdefault(p["run_id"], []).append((p["elapsed_s"], p["evaluations"], p["value"]))
        with dst.engine.connect() as conn:
            existing = {k: (s == "ok", _utc(f)) for k, s, f in
                        conn.execute(select(runs.c.cell_key, runs.c.status, runs.c.finished_at)).all()}
        copied = 0
        for row in src.records():
            rid = row.pop("id")
            theirs = existing.get(row["cell_key"])
            if theirs is not None and theirs > (row["status"] == "ok", _utc(row["finished_at"])):
                continue
            dst.record(row, by_run.get(rid, []))
            copied += 1
        return copied
    finally:
        src.close()
        dst.close()


def as_utc(moment: Any) -> datetime | None:
    """A time as an aware UTC datetime (``None`` for none or NaT).

    Naive times are UTC: hopbench records UTC, and SQLite returns what it stored
    without the offset; aware ones (e.g. from a PostgreSQL server in another
    time zone) are converted.
    """
    if moment is None or moment != moment:  # None, NaN or NaT (neither equals itself)
        return None
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    if hasattr(moment, "to_pydatetime"):
        moment = moment.to_pydatetime()
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def _utc(moment: Any) -> datetime:
    """A comparable finish time; a missing one sorts first."""
    return as_utc(moment) or datetime.min.replace(tzinfo=timezone.utc)

