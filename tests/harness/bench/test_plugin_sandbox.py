"""A plug-in runs in a sandbox whose address space is capped (RLIMIT_AS, issue 34 item 4), and ``solve`` and
``route`` run a plug-in under the hard limits of ``run`` (item 5).

The plug-ins below behave on the warm-up problems (seed 0) and misbehave in their runs (seed 1): one allocates
4 GiB (a lazy allocation: without the cap it would succeed and touch no memory, so the test can fail), the
others ignore their time budget.  Every command runs in a fresh process, as a user runs it; no wall time is
asserted (the subprocess timeout only catches a hang).
"""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

PLUGINS = '''
import time

import numpy as np

from hopbench.harness.problems.shortcut.problem import Solution
from hopbench.solvers.contract import Solver, register
from hopbench.solvers.routing.dor import DOR


@register
class HogsMemory(Solver):
    name = "hog-memory"
    description = "asks for 4 GiB in its runs"

    def solve(self, problem, *, seed, budget, report):
        if seed != 0:
            hoard = np.empty(4 * 2**30, dtype=np.uint8)  # lazily: no page is touched
            hoard[0] = 1
        return Solution(problem, np.empty((0, 2), dtype=np.int64))


@register
class HangsInItsRuns(Solver):
    name = "hang-in-runs"
    description = "warms up, then ignores its time budget"

    def solve(self, problem, *, seed, budget, report):
        if seed != 0:
            time.sleep(3600)
        return Solution(problem, np.empty((0, 2), dtype=np.int64))


@register
class SlowRoutes(DOR):
    name = "slow-routes"
    description = "dimension-order routing that ignores its time budget in its runs"

    def solve(self, problem, *, seed, budget, report):
        if seed != 0:
            time.sleep(3600)
        return super().solve(problem, seed=seed, budget=budget, report=report)
'''

SUITE = 'name = "limits"\ndescription = "one tiny instance"\n[[instances]]\nbase = "ring:10"\ncap = 4\nbudget = 2\n'


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory):
    where = tmp_path_factory.mktemp("sandboxed")
    (where / "sandboxed_plugins.py").write_text(PLUGINS)
    env = {k: v for k, v in os.environ.items() if k not in ("HOPBENCH_SOLVER_MODULES", "PYTHONPATH")}
    env.update(HOPBENCH_SOLVER_MODULES="sandboxed_plugins", PYTHONPATH=os.pathsep.join([str(ROOT), str(where)]),
               HOPBENCH_PLUGIN_MEMORY_LIMIT="3G", HOPBENCH_PLUGIN_WARMUP_LIMIT="60")
    return where, env


def hopbench(env: dict, cwd: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=180)


def test_a_plugin_that_allocates_too_much_is_stopped_by_its_sandbox_and_the_matrix_goes_on(plugin_env):
    where, env = plugin_env
    (where / "limits.toml").write_text(SUITE)
    db = where / "memory.db"
    r = hopbench(env, where, "run", "--suite", where / "limits.toml", "--solver", "hog-memory",
                 "--seed-list", "1,0", "--time-limit", "5", "--jobs", "1", "--storage", f"sqlite:///{db}",
                 "--no-progress")
    assert r.returncode == 1, r.stderr  # a failed cell, recorded
    con = sqlite3.connect(db)
    rows = dict(con.execute("select seed, status || ': ' || coalesce(error, '') from runs"))
    con.close()
    assert rows[0] == "ok: "  # the next cell, in the same sandbox: the matrix went on
    assert rows[1].startswith(
        "error: out of memory: the solver went past the 3 GiB of address space a plug-in's sandbox may map "
        "(RLIMIT_AS; HOPBENCH_PLUGIN_MEMORY_LIMIT=SIZE allows more) [MemoryError"), rows[1]
    assert "\n" not in rows[1]


@pytest.mark.parametrize("args, words", [
    (["solve", "--base", "ring:10", "--cap", "4", "--budget", "2", "--solver", "hog-memory", "--seed", "1"],
     "out of memory: the solver went past the 3 GiB of address space a plug-in's sandbox may map (RLIMIT_AS"),
    (["solve", "--base", "ring:10", "--cap", "4", "--budget", "2", "--solver", "hang-in-runs", "--seed", "1",
      "--time-limit", "1"], "timeout: killed after"),
    (["route", "--torus", "3x3", "--solver", "slow-routes", "--seed", "1", "--time-limit", "1"],
     "timeout: killed after"),
])
def test_solve_and_route_run_a_plugin_under_the_hard_limits_of_run(plugin_env, args, words):
    where, env = plugin_env
    r = hopbench(env, where, *args)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and r.stdout == "", r.stderr
    assert len(lines) == 1 and lines[0].startswith(f"error: solver {args[args.index('--solver') + 1]} (a plug-in, "
                                                   f"run in a sandbox under the hard limits of 'hopbench run') failed"), \
        r.stderr
    assert words in lines[0]
    if "timeout" in words:
        assert "still running at the hard limit of a 1 s cell" in lines[0]


def test_a_sandboxed_plugin_s_solution_is_rechecked_and_written(plugin_env):
    where, env = plugin_env
    out = where / "route.json"
    r = hopbench(env, where, "route", "--torus", "3x3", "--solver", "slow-routes", "--seed", "0", "-o", out)
    assert r.returncode == 0, r.stderr
    assert "slow-routes (seed 0) on torus 3x3" in r.stdout
    assert '"format": "hopbench.routes/1"' in out.read_text()
