"""hopbench run: the matrix, failures and timeouts, resume after kill -9, Dask, PostgreSQL, bad input."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import solvers
from harness.bench.store import Store
from harness.bench.suites import load_suite
from harness.problems.registry import verify_document

ROOT = Path(__file__).resolve().parents[3]


def hopbench(*args, env_extra=None, timeout=300, **kw):
    env = dict(os.environ, **(env_extra or {}))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=timeout, **kw)


PLUGIN = {"HOPBENCH_SOLVER_MODULES": "tests.solvers.misbehaving"}


def rows(db: Path) -> list[dict]:
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    out = [dict(r) for r in con.execute("select * from runs order by id")]
    con.close()
    return out


def expected_quick_cells() -> set[tuple[str, str, int]]:
    suite = load_suite("quick")
    return {(i.id, name, seed) for name in solvers.names() for i in suite.instances
            if i.kind in solvers.get(name).kinds for seed in (1, 2)}


@pytest.fixture(scope="module")
def quick_local(tmp_path_factory):
    db = tmp_path_factory.mktemp("quick") / "local.db"
    start = time.monotonic()
    r = hopbench("run", "--suite", "quick", "--storage", f"sqlite:///{db}", "--jobs", "2", "--no-progress")
    return db, r, time.monotonic() - start


def test_quick_suite_records_every_solver_and_seed(quick_local):
    db, r, elapsed = quick_local
    assert r.returncode == 0, r.stderr
    recorded = rows(db)
    keys = {(x["instance"], x["solver"], x["seed"]) for x in recorded}
    assert keys == expected_quick_cells() and len(recorded) == len(keys)
    bad = [(x["solver"], x["instance"], x["error"]) for x in recorded if x["status"] not in ("ok", "skipped")]
    assert not bad
    assert all(x["error"] for x in recorded if x["status"] == "skipped")
    for x in recorded:
        if x["status"] == "ok":
            assert verify_document(json.loads(x["solution"])).valid, (x["solver"], x["instance"])
            assert x["hopbench_version"] and x["numba_version"] and x["host"] and x["started_at"]
    assert elapsed < 60, f"the quick matrix took {elapsed:.0f}s"
    assert "mean objective" in r.stdout  # the summary table


def test_traces_are_recorded(quick_local):
    db = quick_local[0]
    con = sqlite3.connect(db)
    n = con.execute("select count(*) from traces t join runs r on r.id = t.run_id where r.status = 'ok'").fetchone()[0]
    assert n > 0


def test_results_command_reads_the_store_back(quick_local, tmp_path):
    db = quick_local[0]
    r = hopbench("results", "--suite", "quick", "--format", "json", "--storage", f"sqlite:///{db}")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert len(data) == len(rows(db))
    need = {"instance", "suite", "solver", "params", "seed", "status", "error", "objective", "diameter", "aspl",
            "elapsed_s", "evaluations", "solution"}
    assert need <= set(data[0])
    ok = next(d for d in data if d["status"] == "ok")
    assert isinstance(ok["solution"], dict) and isinstance(ok["params"], dict)
    for fmt in ("csv", "table", "parquet"):
        out = tmp_path / f"r.{fmt}"
        r = hopbench("results", "--format", fmt, "-o", out, "--storage", f"sqlite:///{db}")
        assert r.returncode == 0 and out.stat().st_size > 0, r.stderr
    import pandas as pd

    assert len(pd.read_parquet(tmp_path / "r.parquet")) == len(data)


def test_resume_skips_recorded_cells(quick_local):
    db = quick_local[0]
    before = rows(db)
    r = hopbench("run", "--suite", "quick", "--storage", f"sqlite:///{db}", "--jobs", "2", "--no-progress")
    assert r.returncode == 0 and "0 to run" in r.stderr
    assert rows(db) == before


def small_suite(tmp_path: Path) -> Path:
    p = tmp_path / "mini.toml"
    p.write_text('name = "mini"\ndescription = "two tiny instances"\n'
                 '[[instances]]\nbase = "ring:10"\ncap = 4\nbudget = 2\n'
                 '[[instances]]\nbase = "torus:3x3"\ncap = 6\nbudget = 2\n')
    return p


def test_timeout_error_and_crash_are_recorded_and_the_matrix_goes_on(tmp_path):
    db = tmp_path / "f.db"
    start = time.monotonic()
    r = hopbench("run", "--suite", small_suite(tmp_path), "--solver", "random,test-sleeper,test-raiser,test-crasher",
                 "--time-limit", "1", "--storage", f"sqlite:///{db}", "--jobs", "2", "--no-progress",
                 env_extra=PLUGIN)
    assert r.returncode == 0, r.stderr
    by_solver = {}
    for x in rows(db):
        by_solver.setdefault(x["solver"], []).append(x)
    assert all(x["status"] == "ok" for x in by_solver["random"]) and len(by_solver["random"]) == 2
    for x in by_solver["test-sleeper"]:
        assert x["status"] == "timeout"
        assert x["elapsed_s"] <= 1.2 * 1 + 5 + 1.5, x["elapsed_s"]  # killed at the hard limit, not later
    for x in by_solver["test-raiser"]:
        assert x["status"] == "error" and "RuntimeError: boom" in x["error"]
    for x in by_solver["test-crasher"]:
        assert x["status"] == "error" and "exit code 3" in x["error"]
    assert time.monotonic() - start < 60


def test_kill_9_then_rerun_records_every_cell_exactly_once(tmp_path):
    db = tmp_path / "k.db"
    args = ["run", "--suite", small_suite(tmp_path), "--solver", "test-slow", "--seeds", "10", "--storage",
            f"sqlite:///{db}", "--jobs", "2", "--no-progress"]
    env = dict(os.environ, **PLUGIN, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "harness.cli", *map(str, args)], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if db.exists() and len([x for x in rows(db) if x["status"] == "ok"]) >= 4:
                break
        except sqlite3.OperationalError:
            pass  # the file exists a moment before its tables do
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = {x["cell_key"]: (x["id"], x["finished_at"]) for x in rows(db) if x["status"] == "ok"}
    assert 4 <= len(before) < 20, "the kill must land in the middle of the matrix"
    r = hopbench(*args, env_extra=PLUGIN)
    assert r.returncode == 0, r.stderr
    after = rows(db)
    keys = [x["cell_key"] for x in after]
    assert len(keys) == 20 and len(set(keys)) == 20
    assert all(x["status"] == "ok" for x in after)
    assert all(before[k] == (x["id"], x["finished_at"]) for x in after if (k := x["cell_key"]) in before)


def test_rerun_failed_replaces_failed_rows_only(tmp_path):
    db = tmp_path / "r.db"
    suite = small_suite(tmp_path)
    base = ["run", "--suite", suite, "--storage", f"sqlite:///{db}", "--no-progress", "--time-limit", "1"]
    assert hopbench(*base, "--solver", "random,test-raiser", env_extra=PLUGIN).returncode == 0
    first = {x["cell_key"]: x for x in rows(db)}
    assert hopbench(*base, "--solver", "random,test-raiser", "--rerun", "failed", env_extra=PLUGIN).returncode == 0
    second = {x["cell_key"]: x for x in rows(db)}
    assert first.keys() == second.keys()
    for k, x in second.items():
        same = first[k]["id"] == x["id"]
        assert same == (x["status"] == "ok")


def test_dask_local_cluster_gives_the_same_results(quick_local, tmp_path):
    distributed = pytest.importorskip("distributed")
    db = tmp_path / "dask.db"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        r = hopbench("run", "--suite", "quick", "--storage", f"sqlite:///{db}", "--scheduler",
                     cluster.scheduler_address, "--no-progress")
    assert r.returncode == 0, r.stderr
    local = {x["cell_key"]: x for x in rows(quick_local[0])}
    remote = {x["cell_key"]: x for x in rows(db)}
    assert local.keys() == remote.keys()
    for key, x in remote.items():
        y = local[key]
        assert x["status"] == y["status"], key
        if x["status"] == "ok":
            a, b = json.loads(x["solution"]), json.loads(y["solution"])
            for doc in (a, b):
                doc.pop("elapsed_s", None)
            assert a == b, key
            assert x["objective"] == y["objective"]


def test_postgresql_store(tmp_path):
    url = os.environ.get("HOPBENCH_TEST_POSTGRES_URL")
    if not url:
        if os.environ.get("HOPBENCH_REQUIRE_POSTGRES"):
            pytest.fail("HOPBENCH_REQUIRE_POSTGRES is set but HOPBENCH_TEST_POSTGRES_URL is not")
        pytest.skip("set HOPBENCH_TEST_POSTGRES_URL=postgresql://... to test a PostgreSQL store (CI does)")
    from sqlalchemy import text

    store = Store.open(url)
    with store.engine.begin() as conn:  # a clean slate: this test owns the database
        conn.execute(text("delete from traces"))
        conn.execute(text("delete from runs"))
    r = hopbench("run", "--suite", "quick", "--storage", url, "--jobs", "2", "--no-progress")
    assert r.returncode == 0, r.stderr
    r = hopbench("results", "--suite", "quick", "--format", "json", "--storage", url)
    data = json.loads(r.stdout)
    assert {(d["instance"], d["solver"], d["seed"]) for d in data} == expected_quick_cells()
    assert len(data) == len(expected_quick_cells())
    for d in data:
        if d["status"] == "ok":
            assert verify_document(d["solution"]).valid
    again = hopbench("run", "--suite", "quick", "--storage", url, "--jobs", "2", "--no-progress")
    assert again.returncode == 0 and "0 to run" in again.stderr


def test_bad_inputs_exit_2_and_lose_nothing(tmp_path):
    db = tmp_path / "b.db"
    suite = small_suite(tmp_path)
    store = f"sqlite:///{db}"
    assert hopbench("run", "--suite", suite, "--solver", "random", "--storage", store, "--no-progress").returncode == 0
    before = rows(db)
    assert len(before) == 2
    bad_toml = tmp_path / "bad.toml"
    bad_toml.write_text("name = [oops\n")
    cases = [
        (["run", "--suite", bad_toml], "not valid TOML"),
        (["run", "--suite", "no-such-suite"], "unknown suite"),
        (["run", "--suite", suite, "--instances", "hypercube:*"], "no instance"),
        (["run", "--suite", suite, "--solver", "nope"], "unknown solver"),
        (["run", "--suite", suite, "--solver", "random", "--param", "random.t=3"], "has no parameter"),
        (["run", "--suite", suite, "--solver", "edgecut-full", "--param", "edgecut-full.t=many"], "must be int"),
        (["run", "--suite", suite, "--solver", "random", "--param", "t=3"], "SOLVER.NAME=VALUE"),
        (["run", "--suite", suite, "--solver", "random", "--rerun", "all", "--scheduler", "tcp://127.0.0.1:9"],
         "cannot reach the Dask scheduler"),
        (["run", "--suite", suite, "--solver", "random", "--time-limit", "0"], "positive number"),
        (["run", "--suite", suite, "--solver", "random", "--jobs", "0"], "--jobs must be >= 1"),
        (["instances", "nope"], "unknown suite"),
    ]
    for args, fragment in cases:
        r = hopbench(*args, "--storage", store) if args[0] == "run" else hopbench(*args)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2, (args, r.stderr)
        assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], (args, r.stderr)
        assert rows(db) == before
    for url in ("sqlite:////nonexistent-dir/x/y.db", "bogus://"):
        r = hopbench("run", "--suite", suite, "--solver", "random", "--storage", url)
        assert r.returncode == 2 and r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1


def test_another_time_limit_is_another_cell(tmp_path):
    db = tmp_path / "t.db"
    base = ["run", "--suite", small_suite(tmp_path), "--solver", "random", "--storage", f"sqlite:///{db}",
            "--no-progress"]
    assert hopbench(*base, "--time-limit", "5").returncode == 0
    r = hopbench(*base, "--time-limit", "7")
    assert r.returncode == 0 and "0 already recorded, 2 to run" in r.stderr
    assert sorted(x["time_limit_s"] for x in rows(db)) == [5.0, 5.0, 7.0, 7.0]
