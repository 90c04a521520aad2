"""The results database: one SQLAlchemy URL (SQLite file by default, PostgreSQL for a shared store).

Three tables (:mod:`hopbench.harness.bench.schema`).  ``runs`` has one row per cell
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

Everything that can go wrong with a store ends as a one-line :class:`HopbenchError`
naming the store (its password masked, :func:`shown_url`), never a traceback: a
malformed URL (:func:`parse_url` suggests ``sqlite:///path``), a SQLite file that is
damaged, not a database or read-only, a server that refuses, fails or goes away.  The
database errors are translated where every statement passes, the engine's
``handle_error`` event, so that readers which query the engine directly (the
leaderboards) get the same one line.  Each server URL gets a connect timeout,
``HOPBENCH_CONNECT_TIMEOUT`` seconds (default 10), so a server that accepts a
connection and never answers ends in an error instead of a hang.  ``mode="write"``
tries a write (rolled back) at open, so a command that is going to record refuses a
read-only store before it runs anything; ``mode="read"`` refuses a database without
hopbench's tables (an empty file, someone else's database) instead of creating them.
"""
from __future__ import annotations

import json
import math
import re
import sqlite3
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Literal
from urllib.parse import unquote

from sqlalchemy import create_engine, delete, event, func, insert, inspect, select, text
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.pool import NullPool

from hopbench.harness.bench.schema import (  # the tables are imported from here too (hopbench.harness.report.board)
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
from hopbench.harness.documents import json_default, strict_json
from hopbench.harness.errors import HopbenchError

DEFAULT_URL = "sqlite:///hopbench.db"
STATUSES = ("ok", "error", "timeout", "skipped")
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: what ``Store.open`` may find besides a known revision
EMPTY, UNVERSIONED = "empty", "unversioned"
#: PostgreSQL advisory lock held while the schema changes ("hopb" in ASCII)
_SCHEMA_LOCK = 0x686F7062
#: seconds a database server gets to answer a connection; the environment variable overrides it
CONNECT_TIMEOUT_ENV = "HOPBENCH_CONNECT_TIMEOUT"
DEFAULT_CONNECT_TIMEOUT = 10
#: the ``connect()`` argument that bounds connecting, per server driver (SQLite has no server)
_TIMEOUT_ARGUMENT = {"psycopg": "connect_timeout", "psycopg2": "connect_timeout", "pg8000": "timeout",
                     "pymysql": "connect_timeout", "mysqldb": "connect_timeout"}
URL_FORMS = ("write sqlite:///path/to/file.db (three slashes and a path relative to the current folder; four for an "
             "absolute path, sqlite:////tmp/x.db) or postgresql://user:password@host/dbname")

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


def _set_sqlite_pragmas(dbapi_connection, _record, *, wal: bool = True) -> None:
    """The settings of every connection; ``wal``: switch the file to WAL mode (a change to the file, so
    a store opened for reading leaves it out: the store that wrote the file chose its mode)."""
    cur = dbapi_connection.cursor()
    if wal:
        cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


#: query parameters of a store URL whose values are secrets (libpq's password, sslpassword, ...)
_SECRET_KEY = re.compile(r"pass|pwd|secret|token", re.IGNORECASE)


def _split_secrets(url: str) -> tuple[str, list[str]]:
    """(``url`` with its secrets masked, the secrets as written).  Parsed by hand, not by SQLAlchemy, and
    erring on the side of masking: the password is everything between the user's colon and the *last* @
    of the URL (a password may hold an @, a ?, a //), with or without a scheme; then a query parameter
    named like a password is one too.  A SQLite URL holds a path, never a password."""
    secrets: list[str] = []
    scheme = url.find("://")
    start = scheme + 3 if scheme >= 0 else 0
    head, rest = url[:start], url[start:]
    at = rest.rfind("@")
    if at >= 0 and not url.lower().startswith("sqlite"):
        user, colon, password = rest[:at].partition(":")
        if colon:
            secrets.append(password)
            head, rest = f"{head}{user}:***@", rest[at + 1:]
    path, sep, query = rest.partition("?")
    if sep:
        kept = []
        for item in query.split("&"):
            key, eq, value = item.partition("=")
            if eq and _SECRET_KEY.search(key):
                secrets.append(value)
                item = f"{key}=***"
            kept.append(item)
        query = "&".join(kept)
    return head + path + sep + query, secrets


def shown_url(url: str) -> str:
    """``url`` fit for a message: its password masked, in the authority or in the query."""
    return _split_secrets(url)[0]


def masked(text: str, url: str | None) -> str:
    """``text`` (a driver's message, which may quote the URL or a connection string) with the password of
    ``url`` masked wherever it appears."""
    if not url:
        return text
    shown, found = _split_secrets(url)
    text = text.replace(url, shown)
    secrets = set(found)  # as written, percent-escapes included
    try:
        secrets.add(str(make_url(url).password or ""))  # as the driver got it, unescaped
    except (ArgumentError, ValueError):  # not a URL SQLAlchemy can parse: the parse above found what there is
        pass
    for secret in found:
        secrets.add(unquote(secret))
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) >= 3:  # a shorter one would mask letters all over the message
            text = text.replace(secret, "***")
    # connection strings and URLs quoted in other spellings: password=..., user:...@
    text = re.sub(r"(password\s*=\s*)('[^']*'|\S+)", r"\1***", text, flags=re.IGNORECASE)
    return re.sub(r"(//[^/@:\s]*:)[^/@\s]*@", r"\1***@", text)


def connect_timeout() -> int:
    """Seconds a database server gets to answer a connection: ``$HOPBENCH_CONNECT_TIMEOUT``, else 10."""
    from hopbench.harness.caps import env_seconds

    return max(1, math.ceil(env_seconds(CONNECT_TIMEOUT_ENV, DEFAULT_CONNECT_TIMEOUT)))  # the drivers take whole seconds


def parse_url(url: str) -> URL:
    """The SQLAlchemy URL of a ``--storage`` value; a malformed one is a one-line error that shows the right form."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError) as exc:  # ValueError: a port that is no number
        path = re.sub(r"^sqlite:/*", "", shown_url(url))
        hint = f"for a SQLite file write sqlite:///{path}" if "://" not in url and path else URL_FORMS
        raise HopbenchError(f"invalid storage URL {shown_url(url)!r} ({masked(_first_line(exc), url)}); {hint}") \
            from None
    if parsed.get_backend_name() == "sqlite" and (parsed.host or parsed.port or parsed.username or parsed.password):
        path = url.split("://", 1)[1].split("?", 1)[0].lstrip("/") or "hopbench.db"
        raise HopbenchError(f"invalid storage URL {shown_url(url)!r}: a SQLite URL has no host, its path follows three "
                            f"slashes; write sqlite:///{path} (four slashes for an absolute path)")
    return parsed


def engine_options(url: str) -> dict[str, Any]:
    """Keyword arguments of ``create_engine`` for a store URL (also Optuna's ``engine_kwargs``): a connect
    timeout for a server driver, unless the URL sets its own (``?connect_timeout=N``)."""
    parsed = parse_url(url)
    argument = _TIMEOUT_ARGUMENT.get(parsed.get_driver_name()) if parsed.get_backend_name() != "sqlite" else None
    if argument is None or argument in parsed.query:
        return {}
    return {"connect_args": {argument: connect_timeout()}}


def _in_memory(parsed: URL) -> bool:
    return parsed.get_backend_name() == "sqlite" and sqlite_file(parsed) is None


_TRUE = ("1", "true", "yes", "on")


def sqlite_file(parsed: URL) -> Path | None:
    """The file SQLite opens for a ``sqlite:`` URL, in every spelling: a path, or a URI filename
    (``sqlite:///file:x.db?uri=true``, SQLite's own ``mode``, ``file::memory:``); None when the
    database lives in memory.  Without ``uri=true`` a ``file:`` name is a file of that very name."""
    from urllib.parse import parse_qs, urlsplit

    database = parsed.database
    if not database or database == ":memory:":
        return None
    if not database.startswith("file:") or str(parsed.query.get("uri", "")).lower() not in _TRUE:
        return Path(database)
    parts = urlsplit(database)
    inner = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    path = unquote(parts.path)
    if str(parsed.query.get("mode", inner.get("mode", ""))).lower() == "memory" or path in ("", ":memory:"):
        return None
    return Path(path)


def refuse_in_memory(url: str | None, what: str) -> None:
    """A one-line error for an in-memory SQLite URL where results must outlive the command (``run``) or be
    there to read (``results``, ``board``): such a store is empty when opened and gone when closed."""
    parsed = parse_url(url or DEFAULT_URL)
    if _in_memory(parsed):
        raise HopbenchError(f"the results store {shown_url(url or DEFAULT_URL)} lives in memory: {what}; give the "
                            f"URL of a store file, e.g. --storage sqlite:///hopbench.db")


def _check_sqlite_path(url: str, parsed: URL, mode: Mode) -> None:
    """The file behind a SQLite URL: reading refuses one that does not exist (a mistyped path would look
    empty) and an in-memory database (empty by definition); either mode refuses a path that is no regular
    file (a folder, a device, a pipe) and a missing folder."""
    if parsed.get_backend_name() != "sqlite":
        return
    if mode == "read":
        refuse_in_memory(url, "it holds no runs to read")
    path = sqlite_file(parsed)
    if path is None:
        return
    database = str(path)
    if path.exists():
        if not path.is_file():
            raise HopbenchError(f"the results store {shown_url(url)} is not a file ({path.absolute()} is a "
                                f"{'folder' if path.is_dir() else 'device or pipe'}); give the path of a SQLite file")
        return
    if mode == "read":
        _sqlite_file_missing(url, database)
    if not path.absolute().parent.is_dir():
        raise HopbenchError(f"cannot open the results store {shown_url(url)}: folder {path.absolute().parent} "
                            f"does not exist; create it, or give another --storage")


def creates_file(url: str | None) -> bool:
    """Whether opening ``url`` for writing would create its SQLite file (no file is there yet)."""
    parsed = parse_url(url or DEFAULT_URL)
    path = sqlite_file(parsed) if parsed.get_backend_name() == "sqlite" else None
    return path is not None and not path.exists()


def _sqlite_file_missing(url: str, database: str) -> None:
    """Refuse a SQLite URL whose file does not exist, pointing at what was probably meant."""
    path = Path(database).absolute()
    if not Path(database).is_absolute() and Path("/" + database).exists():
        hint = f"; for /{database} write sqlite:////{database}, four slashes"
    else:
        found = sorted(p.name for p in path.parent.glob("*.db"))[:5] if path.parent.is_dir() else []
        hint = f"; that folder has {', '.join(found)}" if found else ""
    raise HopbenchError(f"the results store {shown_url(url)} does not exist (no file {path}{hint}); give the "
                        f"--storage URL of an existing store, or record runs first with 'hopbench run --suite S'")


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def failure_reason(exc: BaseException, url: str | None = None, *, limit: int = 300) -> str:
    """The first line of a database error (the driver's own message), the password of ``url`` masked, cut
    at ``limit`` characters (a message may quote a damaged value)."""
    reason = masked(_first_line(getattr(exc, "orig", None) or exc), url)
    return reason if len(reason) <= limit else reason[:limit - 3] + "..."


# SQLite's primary result codes that no retry or other statement can cure: what they mean for the store,
# and what to do
_SQLITE_FAILURES = {
    sqlite3.SQLITE_CORRUPT: ("is damaged", "restore it from a backup, or give another --storage"),
    sqlite3.SQLITE_NOTADB: ("is not a SQLite database", "give the URL of a results store"),
    sqlite3.SQLITE_READONLY: ("is read-only", ("make the file and its folder writable (SQLite writes -wal and -shm "
                                               "files beside it), or give another --storage")),
    sqlite3.SQLITE_CANTOPEN: ("cannot be opened", ("check the path, and that the file and its folder may be read "
                                                   "and written (SQLite keeps -wal and -shm files beside it)")),
    sqlite3.SQLITE_PERM: ("refused access", "check the file's permissions"),
    sqlite3.SQLITE_AUTH: ("refused access", "check the file's permissions"),
    sqlite3.SQLITE_IOERR: ("could not be read or written", "check the disk and the file"),
    sqlite3.SQLITE_FULL: ("cannot grow: the disk is full", "free some space"),
    sqlite3.SQLITE_BUSY: ("is locked by another process", "try again when it has finished"),
    sqlite3.SQLITE_LOCKED: ("is locked by another process", "try again when it has finished"),
}
# SQLSTATE classes of a server's errors that are about the server or the rights, not about the statement
_SERVER_FAILURES = {"08": "lost or refused the connection", "28": "refused the login", "3D": "has no such database",
                    "53": "ran out of resources", "57": "was shut down or cancelled the statement",
                    "58": "had a system error", "XX": "had an internal error (a damaged database?)"}
_SERVER_STATES = {"42501": "refused: permission denied", "25006": "is read-only"}


def store_failure(url: str, exc: BaseException, *, connecting: bool = False,
                  disconnected: bool = False) -> HopbenchError | None:
    """The one-line error of a database error that is about the store itself -- damaged, read-only, refused,
    unreachable, gone away -- rather than about a statement; None for the others (a missing table, a duplicate
    row), which the code that ran the statement handles.  ``connecting``: the error came while connecting;
    ``disconnected``: the driver lost the connection."""
    orig = getattr(exc, "orig", None) or exc
    shown = shown_url(url)
    reason = failure_reason(orig, url)
    if isinstance(orig, sqlite3.Error):
        code = getattr(orig, "sqlite_errorcode", None)
        if code is None and "could not decode" in reason.lower():  # text that hopbench never wrote: damage
            code = sqlite3.SQLITE_CORRUPT
        failure = _SQLITE_FAILURES.get(code & 0xFF) if isinstance(code, int) else None
        if failure is None:
            return None
        what, how = failure
        return HopbenchError(f"the results store {shown} {what} ({reason}); {how}")
    if connecting:
        late = "timeout" in reason.lower() or "timed out" in reason.lower()
        wait = (f" (no answer within {connect_timeout()} s; {CONNECT_TIMEOUT_ENV}=SECONDS allows more)" if late
                else "")
        return HopbenchError(f"cannot open the results store {shown}: {reason}{wait}; check the URL, that the server "
                             f"is up and answers, the user and the password")
    if disconnected:
        return HopbenchError(f"lost the connection to the results store {shown} ({reason}); the runs recorded so far "
                             f"are kept: check the server, then run the command again")
    state = str(getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None) or "")
    what = _SERVER_STATES.get(state) or _SERVER_FAILURES.get(state[:2])
    if what is None:
        return None
    return HopbenchError(f"the results store {shown} {what} ({reason}); check the server and your rights on it, "
                         f"or give another --storage")


def error_listener(url: str):
    """The engine's ``handle_error`` listener: a failure of the store itself becomes its one-line error."""
    def handle(context) -> None:
        if context.is_pre_ping or not isinstance(context.sqlalchemy_exception, DBAPIError):
            return  # the pool replaces a stale connection by itself; a non-database error is a bug to show
        error = store_failure(url, context.sqlalchemy_exception, connecting=context.connection is None,
                              disconnected=context.is_disconnect)
        if error is not None:
            raise error

    return handle


def _engine(url: str, *, wal: bool = True, **kw: Any) -> Engine:
    """An engine for the store at ``url``: SQLite pragmas (``wal``: see :func:`_set_sqlite_pragmas`), a connect
    timeout, one-line errors."""
    engine = create_engine(url, **engine_options(url), **kw)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", lambda dbapi_connection, record: _set_sqlite_pragmas(dbapi_connection,
                                                                                             record, wal=wal))
    event.listen(engine, "handle_error", error_listener(url))
    return engine


def _newer(url: str, found: list[str]) -> HopbenchError:
    version = ",".join(found)
    if all(v.isdigit() for v in found) and max(map(int, found)) > int(HEAD):
        what = f"newer than this hopbench knows ({HEAD})"
    else:
        what = f"which this hopbench does not know (it knows {', '.join(REVISIONS)})"
    return HopbenchError(f"the results store {shown_url(url)} has schema version {version}, {what}; "
                         f"upgrade hopbench, or use another --storage")


#: columns of ``runs`` in every hopbench store, from the first schema on (revision 0001)
_FIRST_RUN_COLUMNS = frozenset({"id", "cell_key", "suite", "instance", "solver", "params", "seed", "status"})


def _revision(conn: Connection, url: str, *, in_transaction: bool = False) -> str:
    """The store's revision, ``EMPTY`` or ``UNVERSIONED``; an unknown one raises the one-line error.

    The common case costs one query: the version row is read straight away and the
    catalogue is asked only when that fails (then the row is read once more if the table exists,
    for a store that another process has just created) -- except ``in_transaction``, where a failed
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
            # the table may be there now: another process created the store between the read and this look
            # (it commits the tables and the version row at once), so read again; a failure of that read is
            # something else (permissions, a dropped connection) and is the caller's to report
            found = (list(conn.execute(select(version_table.c.version_num)).scalars())
                     if inspect(conn).has_table(VERSION_TABLE) else [])
    if not found:  # never versioned, or nothing at all yet
        if not inspect(conn).has_table(runs.name):
            return EMPTY
        columns = {c["name"] for c in inspect(conn).get_columns(runs.name)}
        missing = sorted(_FIRST_RUN_COLUMNS - columns)
        if missing:  # another program's table of that name: reading or upgrading it would fail in SQL
            raise HopbenchError(f"the results store {shown_url(url)} has a table 'runs' that hopbench did not write "
                                f"(no column {', '.join(missing[:3])}{' ...' if len(missing) > 3 else ''}); give the "
                                f"--storage URL of a store that 'hopbench run' wrote, or a new file")
        return UNVERSIONED
    if len(found) > 1 or found[0] not in REVISIONS:
        raise _newer(url, found)
    return found[0]


def _schema_engine(engine: Engine, url: str) -> Engine:
    """An engine whose transactions hold the database's write lock, DDL included.

    pysqlite neither begins a transaction before DDL nor takes the write lock at
    BEGIN; SQLAlchemy's documented recipe hands both to SQLite, so concurrent first
    opens queue on the lock (``busy_timeout``) instead of racing.  An in-memory SQLite
    database lives in its one connection, which then serves as it is.
    """
    if engine.dialect.name != "sqlite" or engine.url.database in (None, "", ":memory:"):
        return engine
    locking = _engine(url, poolclass=NullPool)

    @event.listens_for(locking, "connect")
    def _connect(dbapi_connection, record) -> None:
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
    schema_engine = _schema_engine(engine, url)
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
                reason = failure_reason(exc, url)
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


def _check_intact(engine: Engine, url: str) -> None:
    """Refuse a damaged SQLite file before a command writes to it: SQLite finds a damaged page only when it
    reads it, and a run or a study may never read the damaged ones while it adds to the file.  (``quick_check``
    reads every page once: a second or so per gigabyte, for commands that run for minutes.)"""
    if engine.dialect.name != "sqlite" or engine.url.database in (None, "", ":memory:"):
        return
    with engine.connect() as conn:
        found = conn.exec_driver_sql("PRAGMA quick_check(1)").scalar()
    if found != "ok":
        raise HopbenchError(f"the results store {shown_url(url)} is damaged ({found}); restore it from a backup, "
                            f"or give another --storage")


def _check_writable(engine: Engine, url: str) -> None:
    """Refuse a store this process cannot write to (a read-only file, a folder SQLite cannot put its -wal file
    in, a user without the rights, a read-only server) before the command runs anything: a write that changes
    nothing, rolled back, needs the same lock and rights as recording a run."""
    if engine.dialect.name == "sqlite" and engine.url.database in (None, "", ":memory:"):
        return
    try:
        with engine.connect() as conn, conn.begin() as transaction:
            conn.execute(delete(runs).where(runs.c.id < 0))
            transaction.rollback()
    except SQLAlchemyError as exc:
        raise HopbenchError(f"cannot write to the results store {shown_url(url)} ({failure_reason(exc, url)}); "
                            f"make it writable, or give another --storage") from None


#: ``runs`` columns whose value must be text, numbers, whole numbers, and JSON text (of an object where marked)
_TEXT_COLUMNS = ("cell_key", "suite", "instance", "kind", "solver", "params_tag", "status")
_NUMBER_COLUMNS = ("objective", "diameter", "aspl", "elapsed_s", "time_limit_s")
_WHOLE_COLUMNS = ("evaluations", "trial", "cores")
_JSON_COLUMNS = {"params": True, "instance_spec": True, "metrics": True, "solution": False}


def _shown_value(value: Any) -> str:
    return repr(value)[:60]  # repr: a control character in a damaged value is shown escaped


def row_damage(row: dict[str, Any]) -> str | None:
    """What is wrong with one ``runs`` row as read back (``None``: nothing), or the first thing found.

    SQLite keeps whatever a column is given, so a row edited by hand or by another program can hold
    text where a number belongs, a seed no run could have, or JSON that does not parse; such a row is
    reported and left out by every reader rather than stopping it.
    """
    from hopbench.harness import caps

    for key in _TEXT_COLUMNS:
        if key in row and not isinstance(row[key], str):
            return f"{key} {_shown_value(row[key])} is not text"
    if row.get("status") not in STATUSES:
        return f"status {_shown_value(row.get('status'))} is none of {', '.join(STATUSES)}"
    seed = row.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= caps.SEED_VALUE.limit():
        return f"seed {_shown_value(seed)} is not a whole number from 0 to {caps.SEED_VALUE.limit()}"
    for key in _NUMBER_COLUMNS:
        value = row.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return f"{key} {_shown_value(value)} is not a number"
    for key in _WHOLE_COLUMNS:
        value = row.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            return f"{key} {_shown_value(value)} is not a whole number"
    for key, is_object in _JSON_COLUMNS.items():
        value = row.get(key)
        if value is None or key not in row:
            if key in ("params", "instance_spec") and key in row:
                return f"{key} is missing"
            continue
        if not isinstance(value, str):
            return f"{key} {_shown_value(value)} is not JSON text"
        try:
            doc = json.loads(value)
        except (ValueError, RecursionError) as exc:
            return f"{key} is not valid JSON ({str(exc)[:80]})"
        if is_object and not isinstance(doc, dict):
            return f"{key} is JSON but not an object"
    return None


def _parse_times(row: dict[str, Any], processors: dict[str, Any]) -> str | None:
    """Turn the time columns of ``row`` (read as text) into datetimes in place; what is wrong, if anything."""
    for name, process in processors.items():
        value = row.get(name)
        if isinstance(value, str):
            try:
                row[name] = process(value) if process is not None else datetime.fromisoformat(value)
            except (ValueError, TypeError, OverflowError):
                return f"{name} {_shown_value(value)} is not a time"
        elif value is not None and not isinstance(value, (str, datetime)):
            return f"{name} {_shown_value(value)} is not a time"
    return None


def damaged_line(row: dict[str, Any], reason: str) -> str:
    """One line naming a damaged row (its id, suite, instance, solver) and what is wrong with it."""
    where = ", ".join(f"{k} {_shown_value(row[k])}" for k in ("suite", "instance", "solver") if row.get(k) is not None)
    return f"run {row.get('id')!r} ({where}) is damaged and left out: {reason}; delete or repair that row"


@dataclass
class Store:
    url: str
    engine: Engine
    #: the schema revision the store had when opened (``UNVERSIONED``: made before versioning); a
    #: store opened for reading stays as it was until the first write upgrades it
    revision: str = HEAD
    #: one line per damaged row the readers left out (:func:`row_damage`), for the command to print
    damaged: list[str] = field(default_factory=list)

    @classmethod
    def open(cls, url: str | None = None, *, mode: Mode = "write") -> "Store":
        """Connect; an unusable URL or store is a one-line error.

        ``mode="write"`` creates the tables of an empty database, brings an older store up to
        this release's schema, and refuses a damaged SQLite file or a store it cannot write to
        before the command does any work; ``mode="read"`` reads a store as it is (see the
        module's docstring), never creates a SQLite file, and refuses a database without
        hopbench's tables.  A store of a newer schema is refused either way.
        """
        if mode not in ("write", "read"):
            raise ValueError(f"mode must be 'write' or 'read', got {mode!r}")
        url = url or DEFAULT_URL
        parsed = parse_url(url)
        _check_sqlite_path(url, parsed, mode)  # reading never creates a store (a mistyped path would look empty)
        try:
            engine = _engine(url, wal=mode == "write", future=True, pool_pre_ping=True)
        except (ArgumentError, NoSuchModuleError, ValueError) as exc:
            raise HopbenchError(f"invalid storage URL {shown_url(url)!r} ({masked(_first_line(exc), url)}); "
                                f"{URL_FORMS}") from None
        except ModuleNotFoundError as exc:
            raise HopbenchError(f"storage URL {shown_url(url)!r} needs the Python package {exc.name!r}; "
                                f"install it") from None
        try:
            # a SQLite file is looked at before the first write-mode connection switches it to WAL: a file
            # that is not a hopbench store must stay exactly as it was
            probe = _engine(url, wal=False, poolclass=NullPool) if mode == "write" and engine.dialect.name == "sqlite" \
                and not _in_memory(parsed) else engine
            try:
                with probe.connect() as conn:
                    revision = _revision(conn, url)
            except SQLAlchemyError as exc:
                raise HopbenchError(f"cannot open the results store {shown_url(url)!r}: {failure_reason(exc, url)}; "
                                    f"check the URL, the path and write permissions") from None
            finally:
                if probe is not engine:
                    probe.dispose()
            if revision == EMPTY and mode == "read" and not _in_memory(parsed):
                raise HopbenchError(f"the results store {shown_url(url)} holds no hopbench tables (an empty file or "
                                    f"database, or another program's); give the --storage URL of a store that "
                                    f"'hopbench run' wrote, or record runs first with 'hopbench run --suite S'")
            if mode == "write":
                _check_intact(engine, url)  # before anything is written, an upgrade included
            if revision == EMPTY or (mode == "write" and revision != HEAD):
                revision = _upgrade(engine, url)
            if mode == "write":
                _check_writable(engine, url)
        except BaseException:
            engine.dispose()
            raise
        return cls(url, engine, revision)

    def _writable(self) -> None:
        """Upgrade a store opened for reading before its first write."""
        if self.revision != HEAD:
            self.revision = _upgrade(self.engine, self.url)

    # ------------------------------------------------------------------ writing

    def record(self, row: dict[str, Any], trace: Iterable[tuple[float, int, float]] = (), *,
               run_id: int | None = None) -> int:
        """Insert one cell's result (replacing an earlier row of the same cell) in one transaction; ``run_id``:
        the id to give it when no run has that id yet (a published run loaded back keeps its own)."""
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
                return self._replace(values, points, run_id)
            except IntegrityError:
                # another writer recorded the same cell between our delete and insert (two
                # coordinators on one matrix); the retry replaces its row, last writer wins
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _replace(self, values: dict[str, Any], points: list[dict[str, Any]], run_id: int | None = None) -> int:
        with self.engine.begin() as conn:
            old = conn.execute(select(runs.c.id).where(runs.c.cell_key == values["cell_key"])).scalar()
            if old is not None:
                conn.execute(delete(traces).where(traces.c.run_id == old))
                conn.execute(delete(runs).where(runs.c.id == old))
            if run_id is not None and conn.execute(select(runs.c.id).where(runs.c.id == run_id)).scalar() is None:
                values = {**values, "id": int(run_id)}
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
        A damaged row (:func:`row_damage`) is left out and described in :attr:`damaged`.
        """
        from sqlalchemy import String, type_coerce

        columns = _run_columns(with_solutions)
        # times come back as text and are parsed here, so one unparseable time makes one damaged row, not an error
        times = {c.name: c.type.dialect_impl(self.engine.dialect).result_processor(self.engine.dialect, None)
                 for c in columns
                 if c.name in ("started_at", "finished_at")}
        query = select(*[type_coerce(c, String).label(c.name) if c.name in times else c for c in columns]
                       ).order_by(runs.c.id)
        if suite:
            query = query.where(runs.c.suite == suite)
        if solvers:
            query = query.where(runs.c.solver.in_(solvers))
        if study:
            query = query.where(runs.c.study == study)
        with self.engine.connect() as conn:
            found = [dict(r) for r in conn.execute(query).mappings()]
        kept = []
        for row in found:
            reason = _parse_times(row, times) or row_damage(row)
            if reason is None:
                kept.append(row)
            else:
                line = damaged_line(row, reason)
                if line not in self.damaged:
                    self.damaged.append(line)
        return kept

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


    def schema_fingerprint(self) -> tuple:
        """hopbench's tables as they are now (their definitions and the schema revision): anything that alters
        them, a migration or another program, changes this value."""
        names = sorted({runs.name, traces.name, tuned.name, VERSION_TABLE})
        with self.engine.connect() as conn:
            if self.engine.dialect.name == "sqlite":
                marks = text("SELECT type, name, sql FROM sqlite_master WHERE tbl_name IN "
                             f"({', '.join(repr(n) for n in names)}) ORDER BY type, name")
                tables: Any = tuple(tuple(r) for r in conn.execute(marks))
            else:
                look = inspect(conn)
                tables = tuple((n, tuple((c["name"], str(c["type"])) for c in look.get_columns(n)))
                               for n in names if look.has_table(n))
            try:
                revision = tuple(conn.execute(select(version_table.c.version_num)).scalars())
            except SQLAlchemyError:
                revision = ()
        return tables, revision

    def count_cells(self, keys: list[str], chunk: int = 500) -> int:
        """How many ``runs`` rows hold one of these cell keys."""
        total = 0
        with self.engine.connect() as conn:
            for i in range(0, len(keys), chunk):
                total += conn.execute(select(func.count()).select_from(runs)
                                      .where(runs.c.cell_key.in_(keys[i:i + chunk]))).scalar_one()
        return total


class StoreWatch:
    """A run's watch over its store: between two of its own writes, hopbench's tables must stay as they were and
    the run's cells must hold exactly the rows the run knows of.  A plug-in (or anything else) that alters the
    schema, or adds or deletes a row of the run's cells, makes :meth:`check` fail with a one-line error.
    Other coordinators' cells may change (one store is shared by many matrices)."""

    def __init__(self, store: Store, keys: Iterable[str], *, interval: float = 1.0) -> None:
        self.store = store
        self.keys = list(dict.fromkeys(keys))
        self.interval = interval
        self.schema = store.schema_fingerprint()
        self.present = set(store.statuses(self.keys))
        self.last = time.monotonic()

    def recorded(self, key: str) -> None:
        """The run recorded (or replaced) the row of cell ``key``."""
        self.present.add(key)

    def check(self, *, now: bool = False) -> None:
        """Compare the store with what the run expects (at most once per ``interval`` unless ``now``)."""
        if not now and time.monotonic() - self.last < self.interval:
            return
        self.last = time.monotonic()
        where = f"the results store {shown_url(self.store.url)}"
        if self.store.schema_fingerprint() != self.schema:
            raise HopbenchError(f"the tables of {where} changed during this run, and not by this run (a plug-in or "
                                f"another program altered them); check the store, and find what wrote to it")
        found = self.store.count_cells(self.keys)
        if found != len(self.present):
            raise HopbenchError(f"{where} holds {found} row(s) of this run's cells where this run expects "
                                f"{len(self.present)}: rows were added or deleted behind its back (a plug-in or "
                                f"another program writing to the store); check the store, and find what wrote to it")


def _run_columns(with_solutions: bool) -> list:
    return [c for c in runs.columns if with_solutions or c.name != "solution"]


def run_column_names(with_solutions: bool = True) -> list[str]:
    """The keys of :meth:`Store.records` rows, in table order."""
    return [c.name for c in _run_columns(with_solutions)]


def now() -> datetime:
    return datetime.now(timezone.utc)


def merge(source_url: str, target_url: str, refused: list[str] | None = None) -> int:
    """Copy every run (and its trace) of one store into another; returns the number copied.

    A damaged source row (:func:`row_damage`) is not copied: its line is appended to ``refused``.

    A cell recorded in both keeps one row: an ``ok`` run beats a failed one (so a
    machine's timeout never overwrites another's result), and between rows of the
    same kind the one that finished later wins (the source on a tie).  Merging the
    stores of several machines therefore gives one row per cell, whatever the order
    of the merges.
    """
    src = Store.open(source_url, mode="read")
    try:  # the source is read in full first: a damaged one fails before the target is created or changed
        by_run: dict[int, list[tuple[float, int, float | None]]] = {}
        for p in src.trace_records():
            by_run.setdefault(p["run_id"], []).append((p["elapsed_s"], p["evaluations"], p["value"]))
        rows = src.records()
        if refused is not None:
            refused.extend(src.damaged)
    finally:
        src.close()
    dst = Store.open(target_url)
    try:
        return merge_rows(dst, [(None, row, by_run.get(row.pop("id"), [])) for row in rows])
    finally:
        dst.close()


def merge_rows(dst: Store, rows: Iterable[tuple[int | None, dict[str, Any], Any]], *, keep_ties: bool = False) -> int:
    """Record ``(run id or None, row, trace)`` items in ``dst`` as :func:`merge` decides (a cell recorded in
    both keeps the ok row, then the later one; on a tie the new row, unless ``keep_ties``); a given run id is
    kept when ``dst`` has no run of that id.  Returns how many were recorded."""
    with dst.engine.connect() as conn:
        existing = {k: (s == "ok", _utc(f)) for k, s, f in
                    conn.execute(select(runs.c.cell_key, runs.c.status, runs.c.finished_at)).all()}
    copied = 0
    for run_id, row, trace in rows:
        theirs = existing.get(row["cell_key"])
        ours = (row["status"] == "ok", _utc(row["finished_at"]))
        if theirs is not None and (theirs > ours or keep_ties and theirs == ours):
            continue
        dst.record(row, trace, run_id=run_id)
        copied += 1
    return copied


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

