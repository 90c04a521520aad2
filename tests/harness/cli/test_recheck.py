"""``solve`` and ``route`` re-verify a solver's answer before printing or writing it (issue 34, item 1)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DISHONEST = {"HOPBENCH_SOLVER_MODULES": "tests.solvers.dishonest"}


def hopbench(*args, timeout=300):
    env = dict(os.environ, **DISHONEST)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=timeout)


@pytest.mark.parametrize("solver, words", [
    ("test-fake-aspl", "stored diameter 1.0 does not match the recomputed 4.0"),
    ("test-wrong-problem", 'its base is "ring:4", the problem\'s is "ring:8"'),
])
def test_solve_refuses_a_lying_solver_in_one_line(tmp_path, solver, words):
    out = tmp_path / "s.json"
    r = hopbench("solve", "--base", "ring:8", "--cap", "3", "--budget", "2", "--solver", solver, "--seed", "1",
                 "-o", out)
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "refused by hopbench's re-verification" in lines[0] and words in lines[0], r.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_route_refuses_a_lying_solver_in_one_line(tmp_path):
    out = tmp_path / "r.json"
    r = hopbench("route", "--torus", "4x4", "--solver", "test-fake-routes", "--seed", "1", "-o", out)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "stored objective 1.0 does not match" in r.stderr, r.stderr
    assert not out.exists()


def test_solve_prints_the_recomputed_metrics(tmp_path):
    r = hopbench("solve", "--base", "ring:8", "--cap", "3", "--budget", "0", "--solver", "random", "--seed", "1")
    assert r.returncode == 0, r.stderr
    assert "diameter 4  ASPL 2.285714" in r.stdout  # ring:8 itself: 16/7
