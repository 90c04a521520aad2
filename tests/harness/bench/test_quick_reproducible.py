"""The quick suite is reproducible by construction: a run on a busy machine records what an idle run records.

Every cell of ``instances/quick.toml`` ends on its evaluation budget or finishes on its own, never on
the wall clock, so its result depends only on the seed and the evaluation count.  The suite runs
twice (``--jobs 1``, the suite's two seeds), the second time while other processes keep every core
busy, and every recorded cell must match: status, objective, diameter, ASPL, metrics and the
solution document minus its timing fields.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.testing.conformance import busy_cores

ROOT = Path(__file__).resolve().parents[3]

#: fields of a solution document (or of a row's metrics) that are timings, not results
TIMING = {"elapsed_s", "time_s", "elapsed", "started_at", "finished_at"}


def run_quick(db: Path) -> float:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    start = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "harness.cli", "run", "--suite", "quick", "--storage",
                        f"sqlite:///{db}", "--jobs", "1", "--no-progress"],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr
    return time.monotonic() - start


def _strip(value):
    """A JSON value without its timing fields (at any depth)."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def recorded(db: Path) -> dict[tuple, dict]:
    """Every recorded cell, by (instance, solver, params, seed): its results without timings."""
    from harness.bench.store import Store

    store = Store.open(f"sqlite:///{db}", mode="read")
    try:
        rows = store.records(suite="quick")
    finally:
        store.close()
    out = {}
    for row in rows:
        params = json.loads(row["params"]) if isinstance(row["params"], str) else row["params"]
        key = (row["instance"], row["solver"], json.dumps(params, sort_keys=True), row["seed"])
        assert key not in out, f"cell recorded twice: {key}"
        solution, metrics = (json.loads(v) if isinstance(v, str) else v for v in (row["solution"], row["metrics"]))
        out[key] = _strip({"status": row["status"], "error": row["error"], "objective": row["objective"],
                           "diameter": row["diameter"], "aspl": row["aspl"], "metrics": metrics,
                           "evaluations": row["evaluations"], "solution": solution})
    return out


@pytest.mark.slow
def test_quick_suite_gives_the_same_results_on_a_busy_machine(tmp_path):
    idle_s = run_quick(tmp_path / "A.db")
    with busy_cores():
        busy_s = run_quick(tmp_path / "B.db")
    a, b = recorded(tmp_path / "A.db"), recorded(tmp_path / "B.db")
    assert a and set(a) == set(b)
    assert all(row["status"] in ("ok", "skipped") for row in a.values()), \
        [(k, row["status"], row["error"]) for k, row in a.items() if row["status"] not in ("ok", "skipped")]
    differ = [key for key in sorted(a) if a[key] != b[key]]
    detail = {f"{k[1]} {k[0]} seed {k[3]}": {f: (a[k][f], b[k][f]) for f in a[k] if a[k][f] != b[k][f]}
              for k in differ}
    assert not differ, f"cells that differ between an idle and a busy run: {detail}"
    print(f"quick suite, --jobs 1: {idle_s:.1f} s idle, {busy_s:.1f} s with every core busy")
