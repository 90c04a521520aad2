"""Hostile and careless tuning storage (issue 15): bad stores refused before a study journal or table is made,
a damaged journal, a silent server, passwords, and a study name that no path leaks into."""
from __future__ import annotations

import os
import threading
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from hopbench.harness.bench import tuning
from hopbench.harness.bench.tuning import TuneConfig, journal_path, open_study, optuna_storage
from hopbench.harness.errors import HopbenchError
from tests.harness.bench.test_store_hostile import SECRET, damage, hopbench, one_line_error, silent_server, write_store

__all__ = ["silent_server"]  # a fixture of the store's tests, used here too


def tiny_suite(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tiny-file.toml"
    path.write_text('name = "tiny"\ndescription = "t"\n[[instances]]\nbase = "ring:12"\ncap = 4\nbudget = 3\n')
    return path


def test_the_default_study_name_is_the_suites_own_name(tmp_path):
    suite = tiny_suite(tmp_path / "suites")
    (tmp_path / "elsewhere").mkdir()
    roundabout = tmp_path / "elsewhere" / ".." / "suites" / suite.name
    assert TuneConfig(solver="vrs", suite=str(roundabout), trials=1).study_name() == "vrs@tiny"
    assert TuneConfig(solver="vrs", suite=str(suite), trials=1, split="tune").study_name() == "vrs@tiny-tune"
    assert TuneConfig(solver="vrs", suite=str(suite), trials=1, instances="ring*").study_name() == "vrs@tiny[ring*]"
    assert TuneConfig(solver="vrs", suite="quick", trials=1).study_name() == "vrs@quick"
    assert TuneConfig(solver="vrs", suite=str(suite), trials=1, study="mine").study_name() == "mine"
    with pytest.raises(HopbenchError, match="more than 128"):
        TuneConfig(solver="vrs", suite=str(suite), trials=1, study="x" * 129).check_study_name()
    with pytest.raises(HopbenchError, match="--study needs a name"):
        TuneConfig(solver="vrs", suite=str(suite), trials=1, study=" ").check_study_name()


@pytest.mark.parametrize("kind", ["malformed", "pages", "random", "read-only"])
def test_tune_refuses_a_bad_store_before_making_a_study_journal(cli, tmp_path, monkeypatch, kind):
    monkeypatch.chdir(tmp_path)
    suite = tiny_suite(tmp_path / "suites")
    store = tmp_path / "s.db"
    if kind == "malformed":
        url, fragment = "sqlite://s.db", "write sqlite:///s.db"
    elif kind == "read-only":
        write_store(store, 2)
        url, fragment = f"sqlite:///file:{store}?mode=ro&uri=true", "is read-only"
    else:
        damage(store, kind)
        url, fragment = f"sqlite:///{store}", "is damaged" if kind == "pages" else "is not a SQLite database"
    line = one_line_error(*cli("tune", "vrs", "--suite", suite, "--trials", "1", "--time-limit", "1",
                               "--storage", url)[::2])
    assert fragment in line
    assert not list(tmp_path.rglob("*optuna-journal*"))


def test_a_damaged_study_journal_is_one_line_naming_it(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    suite = tiny_suite(tmp_path / "suites")
    url = write_store(tmp_path / "s.db", 1)
    journal = Path(journal_path(url))
    assert journal == tmp_path / "s.db.optuna-journal"
    for garbage in (bytes(range(256)) * 20, b'{"op_code": 0, "worker_id": "w", "study_name": 5}\n{not json\n'):
        journal.write_bytes(garbage)
        line = one_line_error(*cli("tune", "vrs", "--suite", suite, "--trials", "1", "--time-limit", "1",
                                   "--storage", url)[::2])
        assert f"cannot open the Optuna study journal {journal}" in line and "move a damaged journal away" in line
        assert journal.read_bytes() == garbage


def test_journal_path_of_a_sqlite_uri_is_its_file():
    assert journal_path("sqlite:///file:/tmp/x.db?mode=ro&uri=true") == "/tmp/x.db.optuna-journal"
    assert journal_path("sqlite:///x.db") == "x.db.optuna-journal"
    assert journal_path("postgresql://u@h/db") is None
    with pytest.raises(HopbenchError, match="write sqlite:///x.db"):
        journal_path("sqlite://x.db")


def test_tune_on_a_silent_server_ends_within_the_connect_timeout(silent_server, tmp_path):
    suite = tiny_suite(tmp_path / "suites")
    r = hopbench("tune", "vrs", "--suite", suite, "--trials", "1", "--storage", silent_server,
                 env_extra={"HOPBENCH_CONNECT_TIMEOUT": "2"}, cwd=tmp_path)  # a hang fails at the subprocess timeout
    line = one_line_error(r.returncode, r.stderr)
    assert "no answer within 2 s" in line and SECRET not in r.stdout + r.stderr


def test_the_optuna_storage_itself_gives_up_on_a_silent_server(silent_server, monkeypatch):
    """Optuna's RDBStorage gets the store's connect timeout (through engine_kwargs), so a study opened on its
    own (a worker, ``_fail_orphans``, ``summarise``) does not hang either."""
    monkeypatch.setenv("HOPBENCH_CONNECT_TIMEOUT", "2")
    outcome: list[BaseException] = []

    def open_it() -> None:
        try:
            optuna_storage(silent_server)
        except BaseException as exc:  # noqa: BLE001 -- the test inspects whatever came
            outcome.append(exc)

    worker = threading.Thread(target=open_it, daemon=True)
    worker.start()
    worker.join(30)  # the fixture's teardown closes the sockets, so a hung thread ends then
    assert not worker.is_alive(), "RDBStorage on a silent server did not give up within 30 s"
    assert outcome and "timeout" in str(outcome[0]).lower()
    study = TuneConfig(solver="vrs", suite="quick", trials=1, storage=silent_server, study="s")
    worker = threading.Thread(target=lambda: outcome.append(_error_of(open_study, study)), daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive()
    message = str(outcome[-1])
    assert "cannot open the Optuna study tables" in message and "no answer within 2 s" in message
    assert SECRET not in message and "\n" not in message


def _error_of(function, *args) -> BaseException | None:
    try:
        function(*args)
    except BaseException as exc:  # noqa: BLE001 -- returned for the test to inspect
        return exc
    return None


def test_open_study_masks_the_password_in_a_storage_error(monkeypatch):
    url = f"postgresql://u:{SECRET}@db.example/x"

    def failing(store_url: str):
        raise RuntimeError(f"could not connect to {store_url}\nDSN: host=db.example password={SECRET}")

    monkeypatch.setattr(tuning, "optuna_storage", failing)
    with pytest.raises(HopbenchError) as caught:
        open_study(TuneConfig(solver="vrs", suite="quick", trials=1, storage=url, study="s"))
    message = str(caught.value)
    assert SECRET not in message and "\n" not in message and "u:***@db.example" in message


def test_a_failing_worker_says_one_line(monkeypatch, capsys):
    def failing(cfg, n_trials, worker):
        raise HopbenchError(f"the results store postgresql://u:***@h/db lost its connection (worker {worker})")

    monkeypatch.setattr(tuning, "run_worker", failing)
    with pytest.raises(SystemExit) as exited:
        tuning._worker_entry({"solver": "vrs", "suite": "quick", "trials": 1}, 1, 3)
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.count("\n") == 1 and err.startswith("error: [worker 3] the results store")


def test_the_optuna_storage_has_the_connect_timeout_on_a_real_postgresql(monkeypatch):
    base = os.environ.get("HOPBENCH_TEST_POSTGRES_URL")
    if not base:
        if os.environ.get("HOPBENCH_REQUIRE_POSTGRES"):
            pytest.fail("HOPBENCH_REQUIRE_POSTGRES is set but HOPBENCH_TEST_POSTGRES_URL is not")
        pytest.skip("set HOPBENCH_TEST_POSTGRES_URL=postgresql://... to test a PostgreSQL study (CI does)")
    monkeypatch.setenv("HOPBENCH_CONNECT_TIMEOUT", "7")
    schema = f"hopbench_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base)
    with admin.begin() as conn:
        conn.execute(text(f"create schema {schema}"))
    try:
        url = make_url(base).update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
            hide_password=False)
        storage = optuna_storage(url)
        assert storage.engine_kwargs["connect_args"] == {"connect_timeout": 7}
        study = open_study(TuneConfig(solver="vrs", suite="quick", trials=1, storage=url, study="timeout-check"))
        assert study.study_name == "timeout-check"
        storage.engine.dispose()
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"drop schema {schema} cascade"))
        admin.dispose()


def test_a_trial_stopped_by_ctrl_c_is_logged_without_its_traceback(tmp_path):
    import logging
    import sys

    open_study(TuneConfig(solver="random", suite=str(tiny_suite(tmp_path)), trials=1,
                          storage=f"sqlite:///{tmp_path / 'c.db'}", study="ctrl-c"))
    handlers = logging.getLogger("optuna").handlers
    assert handlers and all(tuning._no_interrupt_traceback in h.filters for h in handlers)

    def record(exc: BaseException) -> logging.LogRecord:
        try:
            raise exc
        except BaseException:
            return logging.LogRecord("optuna", logging.WARNING, __file__, 1, "Trial 3 failed", None, sys.exc_info())

    stopped, broken = record(KeyboardInterrupt()), record(ValueError("a bug"))
    assert all(h.filter(stopped) and h.filter(broken) for h in handlers)  # both are still logged
    assert stopped.exc_info is None and broken.exc_info is not None  # a real failure keeps its traceback
