"""Hostile and careless stores (issue 15): damaged and read-only SQLite files, malformed URLs, silent servers,
passwords in messages, and commands that must not create a store.

Every bad store ends as one line ``error: ...`` on stderr and exit 2, naming the store, never a traceback, never
a password, and never a change to the file it was given.
"""
from __future__ import annotations

import contextlib
import sqlite3
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sqlalchemy import event, text

from hopbench.harness.bench.store import Store, connect_timeout, engine_options, masked, parse_url, shown_url
from hopbench.harness.errors import HopbenchError
from tests.harness.bench.conftest import with_options

ROOT = Path(__file__).resolve().parents[3]
SECRET = "s3cret"
REFUSED = f"postgresql://u:{SECRET}@127.0.0.1:1/db"  # nothing listens on port 1


def one_line_error(code: int, err: str) -> str:
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (code, err)
    assert "Traceback" not in err
    return lines[0]


def hopbench(*args, env_extra: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """The command in a subprocess: a hang fails the test at the timeout instead of blocking it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=60)


def row(key: str) -> dict:
    return dict(cell_key=key, suite="quick", instance="ring:8/cap3/b2/aspl", instance_spec={"base": "ring:8"},
                kind="shortcut", solver="random", params={}, params_tag="default", seed=1, status="ok",
                objective=2.5, diameter=3.0, aspl=2.5, metrics={}, elapsed_s=0.1, evaluations=4,
                solution={"padding": "x" * 2000})  # about a page per run: the file has many pages


def write_store(path: Path, runs: int = 200) -> str:
    url = f"sqlite:///{path}"
    store = Store.open(url)
    for i in range(runs):
        store.record(row(f"k{i}"), [(0.1 * j, j, 3.0) for j in range(20)])
    store.close()
    return url


def count_runs(path: Path) -> int:
    store = Store.open(f"sqlite:///{path}", mode="read")
    try:
        return len(store.records(with_solutions=False))
    finally:
        store.close()


def damage(path: Path, kind: str) -> None:
    """Turn ``path`` into a bad store: pages in the middle overwritten, random bytes, nothing, text, or another
    program's SQLite database that has a table named runs."""
    rng = random.Random(15)
    if kind == "pages":
        write_store(path)
        size = path.stat().st_size
        with path.open("r+b") as f:  # 64 KiB of noise in the middle: page headers and cells of both tables
            f.seek(size // 2)
            f.write(bytes(rng.randrange(256) for _ in range(64 * 1024)))
    elif kind == "random":
        path.write_bytes(bytes(rng.randrange(256) for _ in range(100_000)))
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "foreign":
        with contextlib.closing(sqlite3.connect(path)) as conn:
            conn.execute("CREATE TABLE runs (lap INTEGER, seconds REAL)")
            conn.execute("INSERT INTO runs VALUES (1, 62.5)")
            conn.commit()
    else:
        path.write_text("instance,solver,objective\nring:8,random,2.5\n")


@contextlib.contextmanager
def read_only(path: Path):
    """``path`` (a file or a folder) read-only for this process: its permissions, or for root, whom permissions
    do not stop, the immutable flag; skips where neither is possible."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode:
        pytest.skip("root ignores permissions, and the immutable flag (chattr +i) cannot be set here")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=False)


# ---------------------------------------------------------------------------- damaged files

COMMANDS = {
    "results": lambda url, tmp: ["results", "--storage", url],
    "results-json": lambda url, tmp: ["results", "--format", "json", "--storage", url],
    "board": lambda url, tmp: ["board", "--storage", url, "-o", tmp / "boards"],
    "run": lambda url, tmp: ["run", "--suite", "quick", "--solver", "random", "--jobs", "1", "--no-progress",
                             "--storage", url],
    "merge-from": lambda url, tmp: ["results", "--storage", f"sqlite:///{tmp / 'target.db'}", "--merge-from", url],
}


@pytest.mark.parametrize("kind, command", [(kind, command) for kind in ("pages", "random", "empty", "text", "foreign")
                                           for command in COMMANDS
                                           # an empty file is an empty SQLite database: 'run' makes it a store
                                           if (kind, command) != ("empty", "run")])
def test_a_damaged_sqlite_file_is_a_one_line_error_and_stays_as_it_was(cli, tmp_path, kind, command):
    bad = tmp_path / "bad.db"
    damage(bad, kind)
    before = bad.read_bytes()
    code, out, err = cli(*COMMANDS[command](f"sqlite:///{bad}", tmp_path))
    line = one_line_error(code, err)
    assert str(bad) in line, line
    expected = {"pages": "is damaged", "random": "is not a SQLite database", "empty": "holds no hopbench tables",
                "text": "is not a SQLite database", "foreign": "has a table 'runs' that hopbench did not write"}[kind]
    assert expected in line
    assert bad.read_bytes() == before  # not a byte changed, not even the journal mode
    assert not (tmp_path / "target.db").exists() and not (tmp_path / "boards").exists()


def test_an_empty_file_becomes_a_store_only_for_a_command_that_writes(tmp_path):
    empty = tmp_path / "touched.db"
    empty.write_bytes(b"")
    with pytest.raises(HopbenchError, match="holds no hopbench tables"):
        Store.open(f"sqlite:///{empty}", mode="read")
    assert empty.stat().st_size == 0
    Store.open(f"sqlite:///{empty}").record(row("k"))  # 'touch hopbench.db; hopbench run' is a fair start
    assert count_runs(empty) == 1


def test_damage_found_while_reading_is_the_same_one_line_error_for_direct_queries(tmp_path):
    """The leaderboards and ``results`` filters query the engine directly: the translation sits on the engine."""
    bad = tmp_path / "bad.db"
    damage(bad, "pages")
    with pytest.raises(HopbenchError) as caught:
        store = Store.open(f"sqlite:///{bad}", mode="read")
        with store.engine.connect() as conn:
            conn.execute(text("select * from traces")).all()
            conn.execute(text("select * from runs")).all()
    assert "is damaged" in str(caught.value) and "\n" not in str(caught.value)


def test_a_value_hopbench_never_wrote_is_damage_too(cli, tmp_path):
    """Damage inside a page can leave it readable with garbage in it: text that is not UTF-8, however long."""
    path = tmp_path / "garbage.db"
    url = write_store(path, 2)
    import sqlite3

    with sqlite3.connect(path) as raw:
        raw.execute("update runs set error = cast(? as text) where id = 1", (b"\xff\xfe" * 5000,))
    for args in (["results"], ["results", "--format", "json"], ["board", "-o", tmp_path / "b"]):
        line = one_line_error(*cli(*args, "--storage", url)[::2])
        assert "is damaged (Could not decode to UTF-8" in line and len(line) < 600, line


def test_a_path_that_is_no_regular_file_is_refused(cli, tmp_path):
    for url in (f"sqlite:///{tmp_path}", "sqlite:////dev/null"):
        for args in (["results"], ["run", "--suite", "quick", "--solver", "random"]):
            line = one_line_error(*cli(*args, "--storage", url)[::2])
            assert "is not a file" in line and "give the path of a SQLite file" in line


# ---------------------------------------------------------------------------- read-only stores


def test_run_refuses_a_read_only_uri_before_running_anything(cli, tmp_path):
    path = tmp_path / "ro.db"
    write_store(path, 3)
    before = path.read_bytes()
    code, out, err = cli("run", "--suite", "quick", "--solver", "random", "--jobs", "1", "--no-progress",
                         "--storage", f"sqlite:///file:{path}?mode=ro&uri=true")
    line = one_line_error(code, err)
    assert "is read-only" in line and "attempt to write a readonly database" in line and out == ""
    assert path.read_bytes() == before and count_runs(path) == 3


def test_run_refuses_a_read_only_file_before_running_anything(cli, tmp_path):
    path = tmp_path / "ro.db"
    url = write_store(path, 3)
    with read_only(path):
        code, out, err = cli("run", "--suite", "quick", "--solver", "random", "--jobs", "1", "--no-progress",
                             "--storage", url)
        line = one_line_error(code, err)
        assert "is read-only" in line and "make the file and its folder writable" in line and out == ""
        code, out, _ = cli("results", "--storage", url)  # reading it is fine
        assert code == 0 and out.count("ring:8/cap3/b2/aspl") == 3
    assert count_runs(path) == 3


def test_a_read_only_folder_is_a_one_line_error(cli, tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    url = write_store(folder / "s.db", 2)  # closed: no -wal or -shm file left, SQLite must create them
    with read_only(folder):
        for args in (["run", "--suite", "quick", "--solver", "random", "--no-progress"], ["results"]):
            line = one_line_error(*cli(*args, "--storage", url)[::2])
            assert str(folder / "s.db") in line and ("cannot be opened" in line or "is read-only" in line), line
    assert count_runs(folder / "s.db") == 2


def test_a_write_that_fails_mid_run_is_one_line_and_keeps_the_cells_recorded(cli, tmp_path, monkeypatch):
    """The store turns read-only after the first cell (SQLite's query_only, as a file turned read-only or a full
    disk would): the run stops with one line, and the recorded cell stays."""
    import hopbench.harness.bench.sandbox as sandbox
    from hopbench.harness.bench.cells import failed_result

    monkeypatch.setattr(sandbox, "run_isolated", lambda cell, notify=None: failed_result(cell, "skipped", "stub"))
    record = Store.record

    def record_then_turn_read_only(self, values, trace=()):
        run_id = record(self, values, trace)
        event.listen(self.engine, "connect", lambda dbapi, _: dbapi.execute("PRAGMA query_only=ON"))
        self.engine.dispose()  # new connections: read-only
        return run_id

    monkeypatch.setattr(Store, "record", record_then_turn_read_only)
    path = tmp_path / "mid.db"
    code, out, err = cli("run", "--suite", "quick", "--solver", "random", "--jobs", "1", "--no-progress",
                         "--storage", f"sqlite:///{path}")
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert code == 2 and len(errors) == 1 and err.strip().endswith(errors[0]) and "Traceback" not in err, err
    assert "is read-only (attempt to write a readonly database)" in errors[0]
    monkeypatch.undo()
    assert count_runs(path) == 1


# ---------------------------------------------------------------------------- malformed URLs


@pytest.mark.parametrize("url, fragment", [
    ("sqlite://hopbench.db", "write sqlite:///hopbench.db"),
    ("sqlite://results/x.db", "write sqlite:///results/x.db"),
    ("sqlite:hopbench.db", "write sqlite:///hopbench.db"),
    ("hopbench.db", "write sqlite:///hopbench.db"),
    (f"postgresql://u:{SECRET}@127.0.0.1:notaport/db", "sqlite:///path/to/file.db"),
    (f"postgresql://u:{SECRET}@[::1/db", "sqlite:///path/to/file.db"),
    (f"postgresql+nodriver://u:{SECRET}@h/db", "sqlite:///path/to/file.db"),
    ("notadb://x", "sqlite:///path/to/file.db"),
])
def test_a_malformed_url_is_one_line_that_shows_the_right_form(cli, tmp_path, monkeypatch, url, fragment):
    monkeypatch.chdir(tmp_path)
    for args in (["results", "--storage"], ["board", "--storage"],
                 ["run", "--suite", "quick", "--solver", "random", "--storage"],
                 ["tune", "vrs", "--suite", "quick", "--trials", "1", "--storage"],
                 ["results", "--storage", f"sqlite:///{tmp_path / 't.db'}", "--merge-from"]):
        code, out, err = cli(*args, url)
        line = one_line_error(code, err)
        assert "invalid storage URL" in line and fragment in line, (args, line)
        assert SECRET not in out + err
    assert list(tmp_path.iterdir()) == []  # nothing created: no store, no journal, no board


def test_parse_url_accepts_the_forms_it_suggests():
    for url in ("sqlite:///hopbench.db", "sqlite:////tmp/x.db", "sqlite://", "postgresql://u:p@h:5432/db"):
        parse_url(url)


# ---------------------------------------------------------------------------- connect timeouts


def test_every_server_driver_gets_the_connect_timeout(monkeypatch):
    monkeypatch.delenv("HOPBENCH_CONNECT_TIMEOUT", raising=False)
    assert engine_options("postgresql://u@h/db") == {"connect_args": {"connect_timeout": 10}}
    assert engine_options("postgresql+psycopg2://u@h/db") == {"connect_args": {"connect_timeout": 10}}
    assert engine_options("postgresql+pg8000://u@h/db") == {"connect_args": {"timeout": 10}}
    assert engine_options("mysql+pymysql://u@h/db") == {"connect_args": {"connect_timeout": 10}}
    assert engine_options("postgresql://u@h/db?connect_timeout=3") == {}  # the URL's own wins
    assert engine_options("sqlite:///x.db") == {}
    monkeypatch.setenv("HOPBENCH_CONNECT_TIMEOUT", "2.5")
    assert connect_timeout() == 3 and engine_options("postgresql://u@h/db")["connect_args"]["connect_timeout"] == 3
    for bad in ("0", "-1", "soon", "nan", "inf"):
        monkeypatch.setenv("HOPBENCH_CONNECT_TIMEOUT", bad)
        with pytest.raises(HopbenchError, match="HOPBENCH_CONNECT_TIMEOUT=.* is not a positive number of seconds"):
            connect_timeout()


@pytest.fixture
def silent_server():
    """A port on 127.0.0.1 that accepts connections and never says a word; yields its URL (with a password)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    server.settimeout(0.2)
    accepted, stop = [], threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:  # the 0.2 s tick, or the socket closed
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"postgresql://u:{SECRET}@127.0.0.1:{server.getsockname()[1]}/db"
    stop.set()
    thread.join(5)
    for conn in accepted:
        conn.close()
    server.close()


def test_a_silent_server_ends_in_one_line_within_the_connect_timeout(silent_server, tmp_path):
    for args in (["results", "--storage", silent_server],
                 ["board", "--storage", silent_server, "-o", tmp_path / "b"],
                 ["run", "--suite", "quick", "--solver", "random", "--storage", silent_server],
                 ["results", "--storage", f"sqlite:///{tmp_path / 't.db'}", "--merge-from", silent_server]):
        r = hopbench(*args, env_extra={"HOPBENCH_CONNECT_TIMEOUT": "2"}, cwd=tmp_path)  # a hang: TimeoutExpired
        line = one_line_error(r.returncode, r.stderr)
        assert "cannot open the results store" in line and "no answer within 2 s" in line, line
        assert "HOPBENCH_CONNECT_TIMEOUT" in line and SECRET not in r.stdout + r.stderr
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------- passwords


def test_no_message_shows_a_password(cli, tmp_path):
    for url in (REFUSED, f"postgresql://u:{SECRET}@127.0.0.1:1/db?connect_timeout=1",
                f"postgresql://u:{SECRET}@127.0.0.1:1/db?sslmode=bogus"):
        for args in (["results", "--storage", url], ["board", "--storage", url, "-o", tmp_path / "b"],
                     ["run", "--suite", "quick", "--solver", "random", "--storage", url],
                     ["tune", "vrs", "--suite", "quick", "--trials", "1", "--storage", url],
                     ["results", "--storage", f"sqlite:///{tmp_path / 't.db'}", "--merge-from", url]):
            code, out, err = cli(*args)
            line = one_line_error(code, err)
            assert SECRET not in out + err and "u:***@127.0.0.1:1" in line, (args, line)
    # a password in the query, a URL without its scheme, and a password holding an @
    for url in (f"postgresql://127.0.0.1:1/db?user=u&password={SECRET}&connect_timeout=1",
                f"u:{SECRET}@127.0.0.1:1/db", f"postgresql://u:{SECRET}@x{SECRET}@127.0.0.1:1/db"):
        code, out, err = cli("results", "--storage", url)
        line = one_line_error(code, err)
        assert SECRET not in out + err and "***" in line, (url, line)


def test_masked_hides_a_password_in_every_spelling():
    url = "postgresql://u:s%40cret!@db.example:5432/x"
    for message in (f"could not connect to {url}", "password=s@cret! host=db.example", "dsn 'password=s@cret!'",
                    "user u:s@cret!@db.example failed", "the password s@cret! is wrong"):
        shown = masked(message, url)
        assert "s@cret" not in shown and "s%40cret" not in shown, shown
    assert masked("nothing to hide", "sqlite:///x.db") == "nothing to hide"
    assert shown_url("postgresql:///db?host=h&PassWord=s3cret&sslpassword=k3y") == \
        "postgresql:///db?host=h&PassWord=***&sslpassword=***"
    assert shown_url("u:pa@ss@h/db") == "u:***@h/db"
    # a ? or // inside the password (SQLAlchemy connects with both), and libpq's pwd spelling
    assert shown_url("postgresql://bob:pa?ss@host/db") == "postgresql://bob:***@host/db"
    assert shown_url("bob:a//b@host/db") == "bob:***@host/db"
    assert shown_url("postgresql://h/db?pwd=s3cret") == "postgresql://h/db?pwd=***"
    assert shown_url("sqlite:////tmp/at@home/x.db") == "sqlite:////tmp/at@home/x.db"  # no user:password there
    assert "k3y" not in masked("connection failed: sslpassword k3y rejected", "postgresql://h/db?sslpassword=k3y")


# ---------------------------------------------------------------------------- creating nothing


def test_read_only_commands_never_create_a_store(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for args in (["results"], ["results", "--format", "csv"], ["board", "-o", "b"]):
        assert "does not exist" in one_line_error(*cli(*args)[::2])
    for args in (["instances"], ["instances", "quick"], ["instances", "--json"]):
        assert cli(*args)[0] == 0
    assert list(tmp_path.iterdir()) == []
    missing = f"sqlite:///{tmp_path / 'missing.db'}"
    code, _, err = cli("results", "--storage", f"sqlite:///{tmp_path / 'target.db'}", "--merge-from", missing)
    assert "does not exist" in one_line_error(code, err)
    assert list(tmp_path.iterdir()) == []


def test_commands_reject_their_arguments_before_creating_a_store(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "source.db"
    write_store(source, 2)
    new = f"sqlite:///{tmp_path / 'new.db'}"
    cases = [
        ["run", "--suite", "quick", "--seed-list", "1,x"], ["run", "--suite", "quick", "--jobs", "0"],
        ["run", "--suite", "quick", "--solver", "nosuch"], ["run", "--suite", "quick", "--instances", "nomatch*"],
        ["run", "--suite", "quick", "--time-limit", "-1"], ["run", "--suite", "quick", "--params", "tuned",
                                                           "--solver", "random"],
        ["tune", "vrs", "--suite", "quick", "--trials", "1", "--study", "x" * 200],
        ["tune", "vrs", "--suite", "quick", "--trials", "1", "--fix", "bogus=1"],
        ["tune", "vrs", "--suite", "quick", "--trials", "1", "--instances", "nomatch*"],
        ["tune", "vrs", "--suite", "quick", "--trials", "0"], ["tune", "nosuch", "--suite", "quick", "--trials", "1"],
        ["tune", "vrs", "--suite", "quick", "--trials", "1", "--save-to", str(source)],
        ["results", "--merge-from", f"sqlite:///{source}", "--suite", "qiuck"],
        ["results", "--merge-from", f"sqlite:///{source}", "--solver", "randon"],
        ["results", "--merge-from", f"sqlite:///{source}", "--format", "parquet"],
        ["board", "--suite", "qiuck"], ["board", "--compress-over", "-1"],
    ]
    monkeypatch.setenv("HOPBENCH_TUNED_DIR", str(tmp_path / "no-tuned"))
    for args in cases:
        one_line_error(*cli(*args, "--storage", new)[::2])
        assert sorted(p.name for p in tmp_path.iterdir()) == ["source.db"], args


@pytest.mark.parametrize("extra", [["--param", "random.bogus=1"], ["--scheduler", "tcp://127.0.0.1:1"]])
def test_run_checks_params_and_scheduler_before_creating_a_store(cli, tmp_path, extra):
    new = tmp_path / "new.db"
    one_line_error(*cli("run", "--suite", "quick", "--solver", "random", *extra, "--storage", f"sqlite:///{new}")[::2])
    assert not new.exists()


# ---------------------------------------------------------------------------- a real PostgreSQL server
# (postgres_schema: tests/harness/bench/conftest.py)


def test_postgresql_store_with_the_timeout_and_a_read_only_server(postgres_schema):
    base, schema = postgres_schema
    url = with_options(base, f"-csearch_path={schema}")
    store = Store.open(url)  # created, with the connect timeout among its connect arguments
    store.record(row("k"))
    store.close()
    read_only_url = with_options(base, f"-csearch_path={schema} -cdefault_transaction_read_only=on")
    with pytest.raises(HopbenchError, match=r"is read-only \(cannot execute DELETE in a read-only transaction\)"):
        Store.open(read_only_url)  # refused at open, before any run
    reader = Store.open(read_only_url, mode="read")
    assert [r["cell_key"] for r in reader.records()] == ["k"]
    reader.close()
    empty = with_options(base, f"-csearch_path={schema}_none")  # a schema that does not exist: no tables
    with pytest.raises(HopbenchError, match="holds no hopbench tables"):
        Store.open(empty, mode="read")
