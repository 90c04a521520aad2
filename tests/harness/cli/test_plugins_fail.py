"""Plug-ins fail in one line (issue 34, item 5), through the CLI in fresh processes: a plug-in module with a syntax
error, one that raises or calls SystemExit at import, one that takes a built-in's name or has no name, one whose
``__init__`` raises, and a broken installed entry point; ``solvers``, ``solve`` and ``run`` name each one and its
error in one line while the other solvers keep working.  A plug-in's leftover grandchild is killed at the end of its
cell, and a plug-in writing to the store makes the run fail loudly."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

HEADER = ("import os, sqlite3, subprocess\nimport numpy as np\nfrom hopbench.harness.problems.shortcut.problem import Solution\n"
          "from hopbench.solvers.contract import Solver, register\n\n")
SOLVE = ("    def solve(self, problem, *, seed, budget, report):\n"
         "{body}        return Solution(problem, np.empty((0, 2), dtype=np.int64))\n")


def solver_source(name: str, *, body: str = "", init: str = "", attrs: str = "") -> str:
    """A module registering one plug-in solver (``name=None``: no name at all)."""
    named = f"    name = {name!r}\n" if name is not None else ""
    init = f"    def __init__(self, **params):\n        {init}\n" if init else ""
    return (HEADER + "@register\nclass Plugin(Solver):\n" + named + "    description = 'a test plug-in'\n" + attrs
            + init + SOLVE.format(body=body))


BROKEN = {
    "p_syntax": "def f(:\n",
    "p_raise": "raise RuntimeError('boom at import')\n",
    "p_exit": "import sys\nsys.exit(3)\n",
    "p_taken": solver_source("random"),
    "p_noname": solver_source(None),
    "p_badname": solver_source("two words\x1b[2J"),
}
#: what each broken module's line says
SAYS = {"p_syntax": "SyntaxError: invalid syntax (p_syntax.py, line 1)", "p_raise": "RuntimeError: boom at import",
        "p_exit": "SystemExit: exit code 3", "p_taken": "solver name 'random' is taken by hopbench.solvers.shortcut",
        "p_noname": "needs a name", "p_badname": "needs a name"}
GOOD = {
    "p_good": solver_source("good-plugin"),
    "p_init": solver_source("bad-init", init="raise RuntimeError('init failed')"),
    "p_fork": solver_source("forker", body="        subprocess.Popen(['sh', '-c', 'sleep 300 & echo $! > "
                                           "' + os.environ['STRAY'] + '.' + str(seed) + '; wait'])\n"),
    "p_writer": solver_source("store-writer", body="        with sqlite3.connect(os.environ['VICTIM']) as c:\n"
                                                   "            c.execute(os.environ['VICTIM_SQL'])\n"),
}
SUITE = ('name = "plugs"\ndescription = "d"\nseeds = 1\ntime_limit = 3\n'
         '[[instances]]\nbase = "ring:8"\ncap = 3\nbudget = 2\n')


@pytest.fixture(scope="module")
def plugins(tmp_path_factory) -> Path:
    """The plug-in modules, and an installed package whose hopbench.solvers entry point names a missing module."""
    root = tmp_path_factory.mktemp("plugins")
    for name, source in {**BROKEN, **GOOD}.items():
        (root / f"{name}.py").write_text(source)
    info = root / "broken_pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-pkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[hopbench.solvers]\nbroken = no_such_module_anywhere\n")
    (root / "plugs.toml").write_text(SUITE)
    return root


def hopbench(plugins: Path, modules: list[str], *args, **env):
    environ = dict(os.environ, HOPBENCH_SOLVER_MODULES=",".join(modules), **env)
    environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(plugins)])
    return subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=environ, cwd=plugins, timeout=600)


def warnings_of(stderr: str) -> dict[str, str]:
    lines = [line for line in stderr.splitlines() if line.startswith("warning: solver plug-in")]
    assert all("\x1b" not in line for line in lines)
    marks = {**{name: f"module '{name}'" for name in BROKEN}, "entry point 'broken'": "entry point 'broken'"}
    return {name: line for name, mark in marks.items() for line in lines if mark in line}


def test_solvers_lists_the_others_and_names_each_broken_plugin_in_one_line(plugins):
    r = hopbench(plugins, [*BROKEN, "p_good"], "solvers")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    found = warnings_of(r.stderr)
    assert set(found) == {*BROKEN, "entry point 'broken'"}, r.stderr
    for name, words in SAYS.items():
        assert words in found[name], found[name]
    assert "no_such_module_anywhere" in found["entry point 'broken'"]
    listed = r.stdout
    assert "good-plugin" in listed and "random " in listed and "vrs " in listed


def test_solve_runs_another_solver_and_a_broken_plugins_own_name_is_one_line(plugins, tmp_path):
    r = hopbench(plugins, [*BROKEN, "p_good"], "solve", "--base", "ring:8", "--cap", "3", "--budget", "1",
                 "--solver", "good-plugin", "-o", tmp_path / "s.json")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "s.json").read_text())["solver"]["name"] == "good-plugin"
    assert set(warnings_of(r.stderr)) == {*BROKEN, "entry point 'broken'"}
    for args, words in ((["--solver", "bad-init"], "solver 'bad-init' (plug-in p_init:Plugin) failed to start: "
                                                   "RuntimeError: init failed"),
                        (["--solver", "taken"], "solver plug-in module 'p_taken' (HOPBENCH_SOLVER_MODULES) not loaded")):
        r = hopbench(plugins, ["p_taken", "p_init"], "solve", "--base", "ring:8", "--cap", "3", "--budget", "1", *args)
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and words in r.stderr, r.stderr


def test_run_records_a_failing_init_as_error_rows_and_runs_the_others(plugins, tmp_path):
    url = f"sqlite:///{tmp_path / 'r.db'}"
    r = hopbench(plugins, [*BROKEN, "p_init"], "run", "--suite", plugins / "plugs.toml", "--solver",
                 "random,bad-init", "--storage", url, "--no-progress")
    assert "Traceback" not in r.stderr and r.returncode in (0, 1), r.stderr
    assert set(warnings_of(r.stderr)) == {*BROKEN, "entry point 'broken'"}
    with sqlite3.connect(tmp_path / "r.db") as conn:
        rows = dict(conn.execute("SELECT solver, status || ': ' || coalesce(error, '') FROM runs"))
    assert rows["random"] == "ok: " and rows["bad-init"].startswith("error: ") and "init failed" in rows["bad-init"]


def test_a_plugins_grandchild_is_killed_at_the_end_of_its_cell(plugins, tmp_path):
    stray = tmp_path / "stray"
    r = hopbench(plugins, ["p_fork"], "run", "--suite", plugins / "plugs.toml", "--solver", "forker",
                 "--storage", f"sqlite:///{tmp_path / 'r.db'}", "--no-progress", STRAY=str(stray))
    assert r.returncode == 0, r.stderr
    pids = [int(p.read_text()) for p in tmp_path.glob("stray.*")]
    assert pids  # the warm-up's and the cell's solve each started one
    alive = []
    for pid in pids:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and Path(f"/proc/{pid}").exists() and \
                Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1] != "Z":
            time.sleep(0.1)
        try:
            os.kill(pid, 0)
            state = Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1]
            if state != "Z":
                alive.append(pid)
                os.kill(pid, 9)
        except (ProcessLookupError, FileNotFoundError):
            pass
    assert not alive, f"grandchildren still running: {alive}"


@pytest.mark.parametrize("sql, words", [
    ("DELETE FROM runs", "rows were added or deleted behind its back"),
    ("ALTER TABLE runs ADD COLUMN planted INTEGER", "the tables of the results store"),
])
def test_a_plugin_writing_to_the_store_makes_the_run_fail_loudly(plugins, tmp_path, sql, words):
    db = tmp_path / "r.db"
    r = hopbench(plugins, ["p_writer"], "run", "--suite", plugins / "plugs.toml", "--solver", "random,store-writer",
                 "--storage", f"sqlite:///{db}", "--no-progress", "--jobs", "1", VICTIM=str(db), VICTIM_SQL=sql)
    errors = [line for line in r.stderr.splitlines() if line.startswith("error: ")]
    assert r.returncode == 2 and len(errors) == 1 and words in errors[0], r.stderr
    assert "Traceback" not in r.stderr


def test_kill_process_group_but_me_leaves_the_caller_and_kills_the_rest(tmp_path):
    """In-process: a child in its own session leaves a grandchild; the child's kill_process_group_but_me ends it."""
    script = ("import os, subprocess, sys, time\nfrom hopbench.harness.bench.sandbox import kill_process_group_but_me\n"
              "p = subprocess.Popen(['sh', '-c', 'sleep 300 & echo $! > " + str(tmp_path / "pid") + "; wait'])\n"
              "while not os.path.exists(" + repr(str(tmp_path / "pid")) + "): time.sleep(0.01)\n"
              "time.sleep(0.2)\nprint(kill_process_group_but_me())\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                       start_new_session=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0 and int(r.stdout) >= 1, r.stderr
    pid = int((tmp_path / "pid").read_text())
    time.sleep(0.2)
    gone = not Path(f"/proc/{pid}").exists() or Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1] == "Z"
    if not gone:
        os.kill(pid, 9)
    assert gone
