"""Hard limits for every solver that is not shipped with hopbench, its warm-up included (issue 15, class 5),
a bounded connect to a Dask scheduler (class 6), and a store failure that stops a run without losing what it
recorded (class 2, the runner's side).

The plug-ins below ignore every budget.  They run through ``hopbench run`` twice: named in
``HOPBENCH_SOLVER_MODULES``, and dropped as a file into ``solvers/shortcut/`` of a copy of the
package (as the README invites; its module name then starts with ``solvers.``, which once made it
trusted, its warm-up unrecorded and killed only after 300 s).  Each cell must end in a recorded row;
the subprocess timeout only catches a hang, no wall time is asserted.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hopbench.harness.bench import runner
from hopbench.harness.bench.runner import bounded_call, execute_plan, plan_matrix, record_result
from hopbench.harness.bench.store import Store
from hopbench.harness.bench.suites import load_suite
from hopbench.harness.errors import HopbenchError
from hopbench.solvers.contract.limits import PLUGIN_WARMUP_LIMIT_ENV

ROOT = Path(__file__).resolve().parents[3]

#: three plug-ins: one that warms up fine (warm-ups run with seed 0) and then never returns, one that never
#: returns at all, one whose warm-up raises
PLUGINS = '''
import time

import numpy as np

from hopbench.harness.problems.shortcut.problem import Solution
from hopbench.solvers.contract import Solver, register


@register
class HangsInItsRuns(Solver):
    name = "hang-in-runs"
    description = "warms up, then ignores its time budget"

    def solve(self, problem, *, seed, budget, report):
        if seed != 0:
            time.sleep(3600)
        return Solution(problem, np.empty((0, 2), dtype=np.int64))


@register
class HangsAlways(Solver):
    name = "hang-always"
    description = "ignores its time budget, in its warm-up too"

    def solve(self, problem, *, seed, budget, report):
        time.sleep(3600)


@register
class RaisesInItsWarmUp(Solver):
    name = "raise-in-warm-up"
    description = "fails on the warm-up problems"

    def solve(self, problem, *, seed, budget, report):
        raise RuntimeError("boom in the warm-up")
'''

SUITE = 'name = "limits"\ndescription = "one tiny instance"\n[[instances]]\nbase = "ring:10"\ncap = 4\nbudget = 2\n'


def _rows(db: Path) -> list[dict]:
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    out = [dict(r) for r in con.execute("select * from runs order by id")]
    con.close()
    return out


def _run(root: Path, cwd: Path, env_extra: dict[str, str], *args) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("HOPBENCH_SOLVER_MODULES", "PYTHONPATH")}
    env.update(env_extra)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env_extra.get("PYTHONPATH")]))
    # a generous timeout only to catch a hang (the 300 s warm-up of issue 15 would hit it)
    return subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=150)


def _package_copy(tmp_path: Path) -> Path:
    """hopbench's packages copied into ``tmp_path`` with the plug-ins dropped into ``solvers/shortcut/``.

    The ``__pycache__`` folders come along: ``copytree`` keeps the sources' times, so numba's on-disk
    cache stays valid in the copy and its warm-up compiles nothing."""
    root = tmp_path / "checkout"
    for package in ("hopbench", "harness", "solvers"):
        shutil.copytree(ROOT / package, root / package)
    (root / "solvers" / "shortcut" / "dropped_in.py").write_text(PLUGINS)
    return root


@pytest.mark.parametrize("discovery", ["HOPBENCH_SOLVER_MODULES", "file in solvers/shortcut"])
def test_a_plugin_is_killed_at_the_hard_limit_and_its_failed_warm_up_is_recorded(tmp_path, discovery):
    suite = tmp_path / "limits.toml"
    suite.write_text(SUITE)
    db = tmp_path / "limits.db"
    # short, since hang-always's warm-up is killed at it; raise-in-warm-up raises on its first warm-up problem,
    # before any kernel runs, so 10 s is only the sandbox's start and imports, with room for a busy machine
    limits = {PLUGIN_WARMUP_LIMIT_ENV: "10"}
    # hang-in-runs is killed at each run's hard limit (11 s a cell) whatever found it: one discovery suffices
    picked = ["hang-always", "raise-in-warm-up"]
    if discovery == "HOPBENCH_SOLVER_MODULES":
        # hang-in-runs' warm-up must succeed: long enough for a cold numba cache to compile the kernels the
        # warm-up problems reach, the parallel ones included (6 s for the all-sources BFS alone on an idle
        # machine, near 10 s with both cores busy)
        limits = {PLUGIN_WARMUP_LIMIT_ENV: "20"}
        (tmp_path / "hanging_plugins.py").write_text(PLUGINS)
        root, env = ROOT, dict(limits, HOPBENCH_SOLVER_MODULES="hanging_plugins", PYTHONPATH=str(tmp_path))
        picked.insert(0, "hang-in-runs")
    else:
        root, env = _package_copy(tmp_path), limits
    listed = _run(root, tmp_path, env, "solvers", "--json")
    assert listed.returncode == 0, listed.stderr
    assert {"hang-in-runs", "hang-always", "raise-in-warm-up"} <= {row["name"] for row in json.loads(listed.stdout)}

    r = _run(root, tmp_path, env, "run", "--suite", suite, "--solver", ",".join(picked),
             "--seed-list", "1,2", "--time-limit", "1", "--jobs", "1", "--storage", f"sqlite:///{db}", "--no-progress")
    assert r.returncode == 1, r.stderr  # failed cells, every one recorded
    by_solver: dict[str, list[dict]] = {}
    for row in _rows(db):
        by_solver.setdefault(row["solver"], []).append(row)
    assert {k: len(v) for k, v in by_solver.items()} == {name: 2 for name in picked}

    for row in by_solver.get("hang-in-runs", []):  # its warm-up was fine: each run is killed at its hard limit
        assert row["status"] == "timeout" and "still running at the hard limit of a 1 s cell" in row["error"], row

    first, later = sorted(by_solver["hang-always"], key=lambda row: "earlier cell" in row["error"])
    assert first["status"] == later["status"] == "timeout"
    assert first["error"].startswith("warm-up timed out: killed after") and "HOPBENCH_PLUGIN_WARMUP_LIMIT" in \
        first["error"] and "earlier cell" not in first["error"], first["error"]
    assert later["error"].startswith(first["error"]) and "not retried" in later["error"], later["error"]

    first, later = sorted(by_solver["raise-in-warm-up"], key=lambda row: "earlier cell" in row["error"])
    assert first["status"] == later["status"] == "error"
    assert first["error"].startswith("warm-up failed on warm-up problem 1/") and \
        "RuntimeError: boom in the warm-up" in first["error"], first["error"]
    assert later["error"].startswith(first["error"]) and "not retried" in later["error"]
    assert all("\n" not in row["error"] for rows in by_solver.values() for row in rows)


def test_a_silent_dask_scheduler_is_a_one_line_error_within_the_connect_timeout(tmp_path):
    pytest.importorskip("distributed")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted: list[socket.socket] = []

    def accept_and_say_nothing() -> None:
        while True:
            try:
                accepted.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept_and_say_nothing, daemon=True).start()
    suite = tmp_path / "limits.toml"
    suite.write_text(SUITE)
    db = tmp_path / "never.db"
    try:
        r = _run(ROOT, tmp_path, {"HOPBENCH_CONNECT_TIMEOUT": "2"}, "run", "--suite", suite, "--solver", "random",
                 "--storage", f"sqlite:///{db}", "--scheduler", f"tcp://127.0.0.1:{server.getsockname()[1]}")
    finally:
        server.close()
        for conn in accepted:
            conn.close()
    assert accepted, "the client never connected: the test did not reach the silent server"
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert lines[0].startswith("error: cannot reach the Dask scheduler") and "no answer within 2 s" in lines[0]
    assert not db.exists()  # nothing was created for a run that never started


def test_the_scheduler_gets_the_connect_timeout(monkeypatch):
    distributed = pytest.importorskip("distributed")
    seen = {}

    class FakeClient:
        def __init__(self, address, **kw):
            seen.update(kw, address=address)

        def get_executor(self, **kw):
            return "executor"

    monkeypatch.setattr(distributed, "Client", FakeClient)
    monkeypatch.setenv("HOPBENCH_CONNECT_TIMEOUT", "7")
    assert runner.make_executor(1, "tcp://somewhere:8786")[0] == "executor"
    assert seen == {"address": "tcp://somewhere:8786", "timeout": "7s", "set_as_default": False}


def test_bounded_call_returns_raises_or_gives_up_and_closes_a_late_value():
    assert bounded_call(lambda: 5, 5) == 5
    with pytest.raises(ZeroDivisionError):
        bounded_call(lambda: 1 / 0, 5)
    release, closed = threading.Event(), threading.Event()

    def slow():
        release.wait(30)
        return "late"

    with pytest.raises(TimeoutError):
        bounded_call(slow, 0.1, close=lambda value: closed.set() if value == "late" else None)
    release.set()
    assert closed.wait(30)


def _small_plan(tmp_path: Path, seeds: int):
    suite = tmp_path / "limits.toml"
    suite.write_text(SUITE)
    return plan_matrix(load_suite(str(suite)), solver_names=["random"], seeds=list(range(1, seeds + 1)),
                       time_limit=5.0)


def test_a_store_that_turns_read_only_stops_the_run_and_keeps_what_was_recorded(tmp_path):
    from sqlalchemy import event

    store = Store.open(f"sqlite:///{tmp_path / 'ro.db'}")
    plan = _small_plan(tmp_path, 4)
    read_only = threading.Event()

    @event.listens_for(store.engine, "checkout")
    def query_only(dbapi_connection, record, proxy):  # what SQLite says of a file that became read-only
        dbapi_connection.execute(f"PRAGMA query_only = {int(read_only.is_set())}")

    recorded = []
    real_record = store.record

    def record(row, trace=()):
        run_id = real_record(row, trace)
        recorded.append(row["cell_key"])
        if len(recorded) == 2:
            read_only.set()
        return run_id

    store.record = record
    with pytest.raises(HopbenchError) as info:
        execute_plan(plan, store, jobs=1, progress=False)
    message = str(info.value)
    assert "\n" not in message and "is read-only" in message, message
    assert "the run stopped at cell 3 of 4" in message and "the 2 cell(s) recorded before it are kept" in message
    read_only.clear()
    kept = Store.open(store.url, mode="read").statuses()
    assert sorted(kept) == sorted(recorded) and set(kept.values()) == {"ok"}


def test_a_result_the_store_cannot_hold_becomes_that_cells_error_row(tmp_path):
    store = Store.open(f"sqlite:///{tmp_path / 'odd.db'}")
    plan = _small_plan(tmp_path, 1)
    cell = plan.cells[0]
    record_result(store, cell, {"key": cell["key"], "status": "no-such-status", "trace": []}, None)
    row = store.records()[0]
    assert row["status"] == "error" and row["error"].startswith("the result could not be recorded: ValueError")



@pytest.mark.parametrize("args, env, fragment", [
    (["--param", "random.t=3"], {}, "has no parameter"),
    ([], {PLUGIN_WARMUP_LIMIT_ENV: "a minute"}, f"{PLUGIN_WARMUP_LIMIT_ENV}='a minute' is not a positive number"),
])
def test_run_refuses_bad_limits_and_parameters_before_creating_a_store(cli, tmp_path, monkeypatch, args, env,
                                                                       fragment):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    suite = tmp_path / "limits.toml"
    suite.write_text(SUITE)
    db = tmp_path / "never.db"
    code, _, err = cli("run", "--suite", suite, "--solver", "random", "--storage", f"sqlite:///{db}", *args)
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: ") and fragment in err, err
    assert not db.exists()
