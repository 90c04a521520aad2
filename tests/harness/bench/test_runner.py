"""hopbench run: the matrix, its results the same on a busy machine, failures and timeouts, resume after kill -9,
Dask, PostgreSQL, bad input."""
from __future__ import annotations

import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hopbench import solvers
from hopbench.harness.bench.store import Store
from hopbench.harness.bench.suites import load_suite
from hopbench.harness.problems.registry import verify_document
from hopbench.harness.testing.conformance import busy_cores
from hopbench.solvers.contract.limits import hard_limit

ROOT = Path(__file__).resolve().parents[3]


def hopbench(*args, env_extra=None, timeout=300, **kw):
    env = dict(os.environ, **(env_extra or {}))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=timeout, **kw)


PLUGIN = {"HOPBENCH_SOLVER_MODULES": "tests.solvers.misbehaving"}


def rows(db: Path) -> list[dict]:
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    out = [dict(r) for r in con.execute("select * from runs order by id")]
    con.close()
    return out


#: fields of a solution document (or of a row's metrics) that are timings, not results
TIMING = {"elapsed_s", "time_s", "elapsed", "started_at", "finished_at"}


def _strip(value):
    """A JSON value without its timing fields (at any depth)."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def recorded_results(db: Path) -> dict[tuple, dict]:
    """Every recorded cell, by (instance, solver, params, seed): its results without timings."""
    store = Store.open(f"sqlite:///{db}", mode="read")
    try:
        recorded = store.records(suite="quick")
    finally:
        store.close()
    out = {}
    for row in recorded:
        params = json.loads(row["params"]) if isinstance(row["params"], str) else row["params"]
        key = (row["instance"], row["solver"], json.dumps(params, sort_keys=True), row["seed"])
        assert key not in out, f"cell recorded twice: {key}"
        solution, metrics = (json.loads(v) if isinstance(v, str) else v for v in (row["solution"], row["metrics"]))
        out[key] = _strip({"status": row["status"], "error": row["error"], "objective": row["objective"],
                           "diameter": row["diameter"], "aspl": row["aspl"], "metrics": metrics,
                           "evaluations": row["evaluations"], "solution": solution})
    return out


def expected_quick_cells() -> set[tuple[str, str, int]]:
    suite = load_suite("quick")
    return {(i.id, name, seed) for name in solvers.names() for i in suite.instances
            if i.kind in solvers.get(name).kinds for seed in (1, 2)}


@pytest.fixture(scope="module")
def quick_local(tmp_path_factory):
    db = tmp_path_factory.mktemp("quick") / "local.db"
    r = hopbench("run", "--suite", "quick", "--storage", f"sqlite:///{db}", "--jobs", "2", "--no-progress")
    return db, r


def test_quick_suite_records_every_solver_and_seed(quick_local):
    db, r = quick_local
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
    assert "mean objective" in r.stdout  # the summary table


def test_quick_suite_gives_the_same_results_on_a_busy_machine(quick_local, tmp_path):
    # The quick suite is reproducible by construction: every cell ends on its evaluation budget or
    # finishes on its own, never on the wall clock.  The fixture's run (2 jobs, other tests beside
    # it) is compared with a run of 1 job while busy loops keep every core busy: every recorded
    # cell must match (status, objective, diameter, ASPL, metrics, the solution minus its timings).
    db, r = quick_local
    assert r.returncode == 0, r.stderr
    with busy_cores():
        r = hopbench("run", "--suite", "quick", "--storage", f"sqlite:///{tmp_path / 'busy.db'}", "--jobs", "1",
                     "--no-progress", timeout=900)
    assert r.returncode == 0, r.stderr
    a, b = recorded_results(db), recorded_results(tmp_path / "busy.db")
    assert a and set(a) == set(b)
    assert all(row["status"] in ("ok", "skipped") for row in a.values()), \
        [(k, row["status"], row["error"]) for k, row in a.items() if row["status"] not in ("ok", "skipped")]
    differ = [key for key in sorted(a) if a[key] != b[key]]
    detail = {f"{k[1]} {k[0]} seed {k[3]}": {f: (a[k][f], b[k][f]) for f in a[k] if a[k][f] != b[k][f]}
              for k in differ}
    assert not differ, f"cells that differ between an idle and a busy run: {detail}"


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
    r = hopbench("run", "--suite", small_suite(tmp_path), "--solver", "random,test-sleeper,test-raiser,test-crasher",
                 "--time-limit", "1", "--storage", f"sqlite:///{db}", "--jobs", "2", "--no-progress",
                 env_extra=PLUGIN)
    assert r.returncode == 1, r.stderr  # failed cells: exit 1 (--allow-failures gives 0)
    by_solver = {}
    for x in rows(db):
        by_solver.setdefault(x["solver"], []).append(x)
    assert all(x["status"] == "ok" for x in by_solver["random"]) and len(by_solver["random"]) == 2
    for x in by_solver["test-sleeper"]:
        # killed at the hard limit (never before it); how soon after is the machine's business
        assert x["status"] == "timeout" and "still running at the hard limit" in x["error"], x["error"]
        assert x["elapsed_s"] >= hard_limit(1.0), x["elapsed_s"]
    for x in by_solver["test-raiser"]:
        assert x["status"] == "error" and "RuntimeError: boom" in x["error"]
    for x in by_solver["test-crasher"]:
        assert x["status"] == "error" and "exit code 3" in x["error"]


def test_kill_9_then_rerun_records_every_cell_exactly_once(tmp_path):
    db = tmp_path / "k.db"
    args = ["run", "--suite", small_suite(tmp_path), "--solver", "test-slow", "--seeds", "10", "--storage",
            f"sqlite:///{db}", "--jobs", "2", "--no-progress"]
    env = dict(os.environ, **PLUGIN, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], env=env, cwd=ROOT,
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
    # one job: one sandbox to start and warm up (two cells per solver need no parallelism here)
    base = ["run", "--suite", suite, "--storage", f"sqlite:///{db}", "--no-progress", "--time-limit", "1", "--jobs", "1"]
    assert hopbench(*base, "--solver", "random,test-raiser", env_extra=PLUGIN).returncode == 1
    first = {x["cell_key"]: x for x in rows(db)}
    assert hopbench(*base, "--solver", "random,test-raiser", "--rerun", "failed", env_extra=PLUGIN).returncode == 1
    second = {x["cell_key"]: x for x in rows(db)}
    assert first.keys() == second.keys()
    for k, x in second.items():
        same = first[k]["id"] == x["id"]
        assert same == (x["status"] == "ok")


def test_dask_local_cluster_gives_the_same_results(quick_local, tmp_path):
    distributed = pytest.importorskip("distributed")
    db = tmp_path / "dask.db"
    # a solver of each problem kind (one of them an anytime numba search) on every instance: a Dask worker
    # runs the local runner's cells, so these show it; the whole matrix would only repeat them
    picked = ["random", "annealing", "dor", "simulator"]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        r = hopbench("run", "--suite", "quick", "--solver", ",".join(picked), "--storage", f"sqlite:///{db}",
                     "--scheduler", cluster.scheduler_address, "--no-progress")
    assert r.returncode == 0, r.stderr
    remote = {x["cell_key"]: x for x in rows(db)}
    local = {x["cell_key"]: x for x in rows(quick_local[0]) if x["solver"] in picked}
    assert len({x["kind"] for x in remote.values()}) == 3
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


def test_bad_inputs_exit_2_and_lose_nothing(tmp_path, capsys):
    db = tmp_path / "b.db"
    suite = small_suite(tmp_path)
    store = f"sqlite:///{db}"
    assert hopbench("run", "--suite", suite, "--solver", "random", "--storage", store, "--no-progress",
                    "--jobs", "1").returncode == 0
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
    # in this process (a fresh interpreter per case would only add its start-up): the same main() as the command
    from hopbench.harness.cli import main

    def command(*args) -> tuple[int, str]:
        capsys.readouterr()
        code = main([str(a) for a in args])
        return code, capsys.readouterr().err

    for args, fragment in cases:
        code, err = command(*args, "--storage", store) if args[0] == "run" else command(*args)
        lines = err.strip().splitlines()
        assert code == 2, (args, err)
        assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], (args, err)
        assert rows(db) == before
    for url in ("sqlite:////nonexistent-dir/x/y.db", "bogus://"):
        code, err = command("run", "--suite", suite, "--solver", "random", "--storage", url)
        assert code == 2 and err.startswith("error: ") and len(err.strip().splitlines()) == 1
    # and once through the real command line, for the exit status a shell sees
    r = hopbench("run", "--suite", bad_toml, "--storage", store)
    assert r.returncode == 2 and r.stderr.startswith("error: ") and "not valid TOML" in r.stderr


def test_another_time_limit_is_another_cell(tmp_path):
    db = tmp_path / "t.db"
    base = ["run", "--suite", small_suite(tmp_path), "--solver", "random", "--storage", f"sqlite:///{db}",
            "--no-progress", "--jobs", "1"]
    assert hopbench(*base, "--time-limit", "5").returncode == 0
    r = hopbench(*base, "--time-limit", "7")
    assert r.returncode == 0 and "0 already recorded, 2 to run" in r.stderr
    assert sorted(x["time_limit_s"] for x in rows(db)) == [5.0, 5.0, 7.0, 7.0]


# --------------------------------------------------------------------------- the summary and the progress display


def test_summary_keeps_objectives_apart_and_declined_cells_out_of_the_means(tmp_path):
    from hopbench.harness.bench.cells import result_row
    from hopbench.harness.bench.runner import plan_matrix, summary_table

    path = tmp_path / "two.toml"
    path.write_text('name = "two"\n[[instances]]\nbase = "ring:10"\ncap = 4\nbudget = 2\n'
                    '[[instances]]\nbase = "ring:12"\ncap = 4\nbudget = 12\nobjective = "ad"\nfamily = "equality"\n'
                    '[[instances]]\nbase = "ring:8"\ncap = 4\nbudget = 1\n')
    suite = load_suite(path)
    aspl, ad, small = (i.id for i in suite.instances)
    store = Store.open(f"sqlite:///{tmp_path / 'two.db'}")
    plan = plan_matrix(suite, solver_names=["random", "milp"], seeds=[1, 2], store=store)
    # made-up objectives; milp declines a.d (as it does) and, here, ring:8.  Mixed together,
    # random's mean would be 6.5
    values = {(aspl, "random"): [3.0, 4.0], (aspl, "milp"): [2.0, 2.0], (ad, "random"): [10.0, 20.0],
              (small, "random"): [1.0, 1.0]}
    for cell in plan.todo:
        got = values.get((cell["instance"], cell["solver"]))
        result = ({"status": "ok", "objective": got[cell["seed"] - 1], "elapsed_s": 0.5} if got else
                  {"status": "skipped", "error": "a.d is not linear"})
        store.record(result_row(cell, result, None))
    text = summary_table(store, plan)
    store.close()
    blocks = {}
    for block in text.split("\n\n")[:-1]:
        head, columns, *lines = block.splitlines()
        blocks[head] = {ln.split()[0]: dict(zip(columns.split()[:7] + ["instances", "mean", "time"], ln.split()))
                        for ln in lines if not ln.startswith("(")}
    assert list(blocks) == ["objective aspl (2 instances)", "objective ad (1 instance)"]
    aspl_block = blocks["objective aspl (2 instances)"]
    assert aspl_block["random"]["mean"] == "2.25" and aspl_block["random"]["instances"] == "2/2"
    assert aspl_block["milp"]["mean"] == "2" and aspl_block["milp"]["instances"] == "1/2"
    assert aspl_block["milp"]["declined"] == "2" and aspl_block["milp"]["ok"] == "2"
    assert blocks["objective ad (1 instance)"]["random"]["mean"] == "15"
    declined = blocks["objective ad (1 instance)"]["milp"]
    assert declined["declined"] == "2" and declined["ok"] == "0" and declined["instances"] == "0/1"
    assert declined["mean"] == "-" and "6.5" not in text
    # the aspl rows' means cover different instances, and the table says so; the a.d rows' do not
    assert text.count("means are over different instances") == 1
    assert "declined" in text.splitlines()[-1]  # the legend says what the columns count


def test_progress_keeps_warm_ups_out_of_the_eta_and_names_them():
    import io

    from hopbench.harness.bench.runner import Progress, cells_eta

    now = [100.0]
    out = io.StringIO()
    p = Progress(5, warm_ups=["annealing", "milp"], slots=1, file=out, clock=lambda: now[0])
    assert p.eta() is None and p.postfix() == "ETA ? + 2 warm-ups, failures=0"
    p.warm_up_event("warming", "annealing", "worker-1", 100.0)
    now[0] = 142.0
    status = p.status_text()
    assert status.startswith("warm-up: 0/2 solvers ready; warming up annealing") and status.endswith("0:42")
    assert "compiles kernels" in status
    p.warm_up_event("warmed", "annealing", "worker-1", 142.0)
    assert p.status_text() == "warm-up: 1/2 solvers ready"
    # the first cell waited 42 s for its solver's warm-up and ran 2 s: 4 cells to go take 8 s, not 4 x 44 s
    p.cell_done({"status": "ok", "timing": {"warm_up_s": 42.0, "run_s": 2.0}})
    assert p.eta() == 8.0 and p.postfix() == "ETA 0:08 + 1 warm-up, failures=0"
    p.cell_done({"status": "timeout", "timing": {"warm_up_s": 0.0, "run_s": 4.0}})
    p.cell_done({"status": "error", "error": "executor: lost"})  # no timing: not in the rate
    assert p.eta() == 6.0 and p.failures == 2
    p.warm_up_event("warming", "milp", "worker-1", 142.0)
    p.warm_up_event("warm-up failed", "milp", "worker-1", 150.0)
    assert p.status_text() == "warm-up: 1/2 solvers ready"
    p.close()
    shown = out.getvalue()
    assert "ETA 0:06 + 1 warm-up, failures=2" in shown and "warming up annealing" in shown
    assert cells_eta(4, 6.0, 3, 2) == 4.0 and cells_eta(1, 6.0, 3, 2) == 2.0 and cells_eta(0, 0.0, 0, 1) == 0.0
    quiet = io.StringIO()
    off = Progress(3, warm_ups=["milp"], slots=1, enabled=False, file=quiet)
    off.warm_up_event("warming", "milp", 1, 0.0)
    off.cell_done({"status": "ok", "timing": {"warm_up_s": 1.0, "run_s": 1.0}})
    off.tick()
    off.close()
    assert quiet.getvalue() == ""


def test_the_sandbox_tells_of_a_warm_up_once_and_times_it_apart(tmp_path):
    import concurrent.futures as cf

    from hopbench.harness.bench.runner import plan_matrix
    from hopbench.harness.bench.sandbox import close_all, run_isolated

    plan = plan_matrix(load_suite(small_suite(tmp_path)), solver_names=["random"], seeds=[1])
    heard = []

    def both_cells():  # one thread: one sandbox, which warms 'random' up before its first cell only
        return [run_isolated(cell, lambda event, solver: heard.append((event, solver))) for cell in plan.todo]

    try:
        with cf.ThreadPoolExecutor(1) as pool:
            results = pool.submit(both_cells).result()
    finally:
        close_all()
    assert heard == [("warming", "random"), ("warmed", "random")]
    assert [r["status"] for r in results] == ["ok", "ok"]
    assert all(r["timing"]["warm_up_s"] >= 0 and r["timing"]["run_s"] >= 0 for r in results)


def test_progress_goes_to_stderr_and_no_progress_shows_none(tmp_path, quick_local):
    assert "ETA" not in quick_local[1].stderr and "warm-up" not in quick_local[1].stderr
    r = hopbench("run", "--suite", small_suite(tmp_path), "--solver", "random", "--storage",
                 f"sqlite:///{tmp_path / 'p.db'}", "--jobs", "1")
    assert r.returncode == 0, r.stderr
    assert "warm-up: 0/1 solvers ready" in r.stderr and "ETA 0:00, failures=0" in r.stderr
    assert "objective aspl (2 instances)" in r.stdout
