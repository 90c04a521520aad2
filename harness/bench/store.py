"""The results database: one SQLAlchemy URL (SQLite file by default, PostgreSQL for a shared store).

Two tables.  ``runs`` has one row per cell (instance x solver x params x
seed), keyed by a unique ``cell_key``; recording a cell again (``--rerun``)
replaces its row, so every cell is recorded exactly once.  ``traces`` holds the
anytime points of each run.  Only the coordinating process writes, one
transaction per cell, so an interrupted run loses at most the cells in flight.
SQLite files run in WAL mode (readers never block the writer).
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable

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
    create_engine,
    delete,
    event,
    insert,
    select,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, IntegrityError, NoSuchModuleError, SQLAlchemyError

from harness.documents import json_default, strict_json
from harness.errors import HopbenchError

DEFAULT_URL = "sqlite:///hopbench.db"
STATUSES = ("ok", "error", "timeout", "skipped")

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

#: columns of the ``runs`` table that a result row may set
RUN_COLUMNS = [c.name for c in runs.columns if c.name != "id"]


def params_tag(params: dict[str, Any]) -> str:
    """A short readable label for a parameter set: ``t=10,y=3`` (or ``default``)."""
    return ",".join(f"{k}={params[k]}" for k in sorted(params)) or "default"


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


@dataclass
class Store:
    url: str
    engine: Engine

    @classmethod
    def open(cls, url: str | None = None) -> "Store":
        """Connect (creating the tables if needed); an unusable URL is a one-line error."""
        url = url or DEFAULT_URL
        try:
            engine = create_engine(url, future=True, pool_pre_ping=True)
        except (ArgumentError, NoSuchModuleError, ValueError) as exc:
            raise HopbenchError(f"invalid storage URL {url!r} ({exc}); use e.g. sqlite:///hopbench.db or "
                                f"postgresql://user:password@host/dbname") from None
        except ModuleNotFoundError as exc:
            raise HopbenchError(f"storage URL {url!r} needs the Python package {exc.name!r}; install it") from None
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", _set_sqlite_pragmas)
        for attempt in range(4):
            try:
                metadata.create_all(engine)
                break
            except SQLAlchemyError as exc:
                reason = str(getattr(exc, "orig", exc)).strip().splitlines()[0]
                if attempt < 3 and ("duplicate" in reason.lower() or "already exists" in reason.lower()):
                    # another process created the same tables at the same moment (PostgreSQL
                    # reports the race as a duplicate catalogue row); the next look sees them
                    time.sleep(0.2 * (attempt + 1))
                    continue
                raise HopbenchError(f"cannot open the results store {url!r}: {reason}; check the URL, the path "
                                    f"and write permissions") from None
        else:
            raise HopbenchError(f"cannot create the tables of the results store {url!r}; try again")
        return cls(url, engine)

    # ------------------------------------------------------------------ writing

    def record(self, row: dict[str, Any], trace: Iterable[tuple[float, int, float]] = ()) -> int:
        """Insert one cell's result (replacing an earlier row of the same cell) in one transaction."""
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

    def dataframe(self, *, suite: str | None = None, solvers: list[str] | None = None,
                  study: str | None = None, with_solutions: bool = True):
        """The runs as a pandas DataFrame (one row per cell)."""
        import pandas as pd

        cols = [c for c in runs.columns if with_solutions or c.name != "solution"]
        query = select(*cols).order_by(runs.c.id)
        if suite:
            query = query.where(runs.c.suite == suite)
        if solvers:
            query = query.where(runs.c.solver.in_(solvers))
        if study:
            query = query.where(runs.c.study == study)
        with self.engine.connect() as conn:
            rows = conn.execute(query).mappings().all()
        return pd.DataFrame([dict(r) for r in rows], columns=[c.name for c in cols])

    def traces_dataframe(self, run_ids: Iterable[int] | None = None):
        import pandas as pd

        query = select(traces).order_by(traces.c.run_id, traces.c.idx)
        if run_ids is not None:
            query = query.where(traces.c.run_id.in_(list(run_ids)))
        with self.engine.connect() as conn:
            rows = conn.execute(query).mappings().all()
        return pd.DataFrame([dict(r) for r in rows], columns=[c.name for c in traces.columns])

    def save_tuned(self, *, solver: str, study: str, suite: str | None, params: dict[str, Any], value: float,
                   n_trials: int) -> None:
        """Remember a tuning study's best parameters (one row per save)."""
        with self.engine.begin() as conn:
            conn.execute(insert(tuned).values(solver=solver, study=study, suite=suite,
                                              params=json.dumps(params, sort_keys=True), value=_finite(value),
                                              n_trials=n_trials, created_at=now()))

    def close(self) -> None:
        self.engine.dispose()


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
    import pandas as pd

    src, dst = Store.open(source_url), Store.open(target_url)
    df = src.dataframe()
    tr = src.traces_dataframe()
    by_run = {rid: list(zip(g.elapsed_s, g.evaluations, g.value)) for rid, g in tr.groupby("run_id")} if len(tr) else {}
    with dst.engine.connect() as conn:
        existing = {k: (s == "ok", _utc(f)) for k, s, f in
                    conn.execute(select(runs.c.cell_key, runs.c.status, runs.c.finished_at)).all()}
    copied = 0
    for row in df.to_dict("records"):
        rid = row.pop("id")
        row = {k: (None if pd.isna(v) else v) for k, v in row.items()}  # NaN and NaT mean "no value"
        theirs = existing.get(row["cell_key"])
        if theirs is not None and theirs > (row["status"] == "ok", _utc(row["finished_at"])):
            continue
        dst.record(row, by_run.get(rid, []))
        copied += 1
    return copied


def as_utc(moment: Any) -> datetime | None:
    """A time as an aware UTC datetime (``None`` for none or NaT).

    Naive times are UTC: hopbench records UTC, and SQLite returns what it stored
    without the offset; aware ones (e.g. from a PostgreSQL server in another
    time zone) are converted.
    """
    import pandas as pd

    if moment is None or (not isinstance(moment, str) and pd.isna(moment)):
        return None
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    if hasattr(moment, "to_pydatetime"):
        moment = moment.to_pydatetime()
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def _utc(moment: Any) -> datetime:
    """A comparable finish time; a missing one sorts first."""
    return as_utc(moment) or datetime.min.replace(tzinfo=timezone.utc)

