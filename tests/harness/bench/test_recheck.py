"""The coordinator re-verifies every result before it records it (issue 34, item 1).

Plug-in solvers that lie (``tests/solvers/dishonest.py``) are run through the CLI as a user would:
none of their cells may become an ``ok`` row, and each error row says what was refused.
"""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from hopbench.harness.bench.cells import REFUSED, recheck

ROOT = Path(__file__).resolve().parents[3]
DISHONEST = {"HOPBENCH_SOLVER_MODULES": "tests.solvers.dishonest"}


def hopbench(*args, env_extra=None, timeout=300):
    env = dict(os.environ, **(env_extra or {}))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=timeout)


def rows(db: Path) -> list[dict]:
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    out = [dict(r) for r in con.execute("select * from runs order by id")]
    con.close()
    return out


def suite(tmp_path: Path) -> Path:
    p = tmp_path / "liars.toml"
    p.write_text('name = "liars"\ndescription = "ring:8 and a small torus"\n'
                 '[[instances]]\nbase = "ring:8"\ncap = 3\nbudget = 2\n'
                 '[[instances]]\nkind = "routing"\ntorus = "4x4"\n')
    return p


def test_lying_plugins_never_become_ok_rows(tmp_path):
    db = tmp_path / "r.db"
    r = hopbench("run", "--suite", suite(tmp_path), "--solver",
                 "random,dor,test-fake-aspl,test-wrong-problem,test-fake-trace,test-fake-routes",
                 "--time-limit", "5", "--storage", f"sqlite:///{db}", "--no-progress", env_extra=DISHONEST)
    assert r.returncode == 1, r.stderr  # failed cells
    by_solver = {x["solver"]: x for x in rows(db)}
    assert by_solver["random"]["status"] == "ok" and by_solver["dor"]["status"] == "ok"
    expected = {
        "test-fake-aspl": "does not match the recomputed",  # ASPL 1 on ring:8, below the lower bound
        "test-wrong-problem": 'its base is "ring:4", the problem\'s is "ring:8"',
        "test-fake-trace": "below the problem's lower bound",
        "test-fake-routes": "stored objective 1.0 does not match the recomputed",
    }
    for solver, words in expected.items():
        row = by_solver[solver]
        assert row["status"] == "error", (solver, row["status"])
        assert row["error"].startswith(REFUSED) and words in row["error"], row["error"]
        assert row["objective"] is None and "\n" not in row["error"]


def test_an_ok_row_records_the_recomputed_metrics(tmp_path):
    db = tmp_path / "ok.db"
    r = hopbench("run", "--suite", suite(tmp_path), "--solver", "random", "--storage", f"sqlite:///{db}",
                 "--no-progress")
    assert r.returncode == 0, r.stderr
    (row,) = rows(db)
    doc = json.loads(row["solution"])
    assert row["status"] == "ok" and row["objective"] == doc["metrics"]["objective"]


def test_tune_records_no_lie_as_a_result(tmp_path, monkeypatch):
    monkeypatch.setenv("HOPBENCH_TUNED_DIR", str(tmp_path / "tuned"))
    db = tmp_path / "t.db"
    p = tmp_path / "ring8.toml"
    p.write_text('name = "ring8"\ndescription = "tuning"\n[[instances]]\nbase = "ring:8"\ncap = 3\nbudget = 2\n')
    r = hopbench("tune", "test-fake-aspl", "--suite", p, "--trials", "2", "--time-limit", "5",
                 "--storage", f"sqlite:///{db}", "--json", env_extra=DISHONEST)
    recorded = rows(db)
    assert recorded and all(x["status"] == "error" and x["error"].startswith(REFUSED) for x in recorded), \
        (r.stderr, recorded)


def _cell(fields: dict) -> dict:
    return {"key": "k", "suite": "s", "instance": "i", "kind": "shortcut", "fields": fields}


def test_recheck_refuses_a_result_without_a_document_and_passes_failures_unchanged():
    cell = _cell({"base": "ring:8", "cap": 3, "budget": 2, "objective": "aspl"})
    bad = recheck(cell, {"status": "ok", "objective": 1.0, "solution": None})
    assert bad["status"] == "error" and "no solution document" in bad["error"]
    timeout = {"status": "timeout", "error": "killed"}
    assert recheck(cell, timeout) is timeout
    garbage = recheck(cell, {"status": "ok", "solution": {"format": "hopbench.solution/1", "problem": []}})
    assert garbage["status"] == "error" and garbage["error"].startswith(REFUSED)
