"""A problem kind registered from tests/ runs through instances, run, board, site and verify.

Nothing outside tests/ knows the toy kind (:mod:`tests.harness.problems.toy_kind`): this is the
proof that adding a kind touches neither the runner, the store, the board nor the site.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[3]
TOY = "tests.harness.problems.toy_kind"

SUITE = """
name = "toy"
description = "a toy problem kind defined in tests/"
seeds = 2
time_limit = 5

[[instances]]
kind = "subset"
items = 10
budget = 3
target = 20

[[instances]]
kind = "subset"
items = 30
budget = 4
target = 200
reference = [{ source = "made up", label = "paper", total = 114, objective = 86 }]
"""


def _hopbench(*args, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               HOPBENCH_KIND_MODULES=TOY, HOPBENCH_SOLVER_MODULES=TOY, HOPBENCH_INSTANCES=str(cwd))
    return subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=600)


def test_a_kind_from_tests_runs_through_instances_run_board_and_site(tmp_path):
    suite = tmp_path / "toy.toml"
    suite.write_text(SUITE)
    store = f"sqlite:///{tmp_path / 'toy.db'}"

    listed = _hopbench("instances", "toy", "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    ids = [row["id"] for row in json.loads(listed.stdout)["instances"]]
    assert ids == ["subset:10/b3/t20", "subset:30/b4/t200"]

    run = _hopbench("run", "--suite", "toy", "--storage", store, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "toy-greedy-subset" in run.stdout

    out = tmp_path / "boards"
    board = _hopbench("board", "--suite", "toy", "--storage", store, "-o", out, cwd=tmp_path)
    assert board.returncode == 0, board.stderr
    rows = pd.read_csv(out / "toy" / "board.csv")
    assert set(rows["solver"]) == {"toy-greedy-subset"}
    assert "mean_total" in rows.columns  # the kind's own board column
    # greedy on 1..10 under 20 with 3 items: 10 + 9, then 8..2 do not fit, 1 does -> sum 20, distance 0
    first = rows[rows["instance"] == "subset:10/b3/t20"].iloc[0]
    assert first["mean"] == 0 and first["mean_total"] == 20 and first["lower_bound"] == 0
    second = rows[rows["instance"] == "subset:30/b4/t200"].iloc[0]
    assert second["published_metric"] == "objective" and second["published_best"] == 86 and second["gap_published"] == 0
    assert (out / "toy" / "plots" / "subset_sums.png").stat().st_size > 0  # the kind's own figure
    markdown = (out / "toy" / "board.md").read_text()
    assert "| Sum |" in markdown and "† paper — made up" in markdown
    site = (out / "site" / "toy.html").read_text()
    assert "toy-greedy-subset" in site and "Sum" in site

    solution = next((out / "toy" / "solutions").glob("*.json"))
    check = _hopbench("verify", solution, cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    tampered = json.loads(solution.read_text())
    tampered["metrics"]["objective"] += 7
    (tmp_path / "bad.json").write_text(json.dumps(tampered))
    assert _hopbench("verify", tmp_path / "bad.json", cwd=tmp_path).returncode == 1


def test_an_unknown_kind_in_a_suite_is_a_one_line_error(tmp_path):
    suite = tmp_path / "bad.toml"
    suite.write_text(SUITE.replace('kind = "subset"', 'kind = "subsett"', 1))
    listed = _hopbench("instances", suite, cwd=tmp_path)
    assert listed.returncode == 2
    assert "unknown problem kind 'subsett'" in listed.stderr and "subset" in listed.stderr
    assert len(listed.stderr.strip().splitlines()) == 1
