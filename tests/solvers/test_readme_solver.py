"""The README's "Add a solver" example, taken from the README itself, works as a plug-in (and is the very
example docs/adding-a-solver.md explains)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_solver_code() -> str:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("**7. Add a solver**"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_and_the_reference_show_the_same_solver():
    doc = (ROOT / "docs" / "adding-a-solver.md").read_text()
    assert re.search(r"```python\n(.*?)```", doc, re.S).group(1) == readme_solver_code()


def test_the_readme_solver_example_runs_and_verifies(tmp_path):
    (tmp_path / "my_method.py").write_text(readme_solver_code())
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path)]),
               HOPBENCH_SOLVER_MODULES="my_method")
    out = tmp_path / "sol.json"
    run = subprocess.run([sys.executable, "-m", "hopbench.harness.cli", "solve", "--base", "ring:64", "--cap", "4",
                          "--budget", "8", "--solver", "my-method", "--param", "t=20", "--seed", "3", "-o", out],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    assert doc["solver"]["name"] == "my-method" and len(doc["shortcuts"]) == 8
    assert doc["metrics"]["aspl"] < 10  # the bare ring:64 has 16.25; 8 long shortcuts take it near 8.3
    check = subprocess.run([sys.executable, "-m", "hopbench.harness.cli", "verify", out], capture_output=True, text=True,
                           env=env, cwd=tmp_path, timeout=300)
    assert check.returncode == 0, check.stdout + check.stderr


CONFORMANCE_MODULE = '''
from hopbench.harness.testing import SolverConformance


class TestMyMethod(SolverConformance):
    solver_names = ["my-method"]
'''


def test_the_shipped_conformance_suite_runs_from_outside_the_repository(tmp_path):
    """A plug-in author's own test module, in their own folder, runs hopbench's conformance suite."""
    (tmp_path / "my_method.py").write_text(readme_solver_code())
    (tmp_path / "test_my_method.py").write_text(CONFORMANCE_MODULE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path)]),
               HOPBENCH_SOLVER_MODULES="my_method")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_my_method.py"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    passed = re.search(r"(\d+) passed", run.stdout)
    # 6 shortcut sample problems x 2 per-problem checks + 3 per-solver checks + the registration check
    assert passed and int(passed.group(1)) >= 16, run.stdout[-2000:]
    assert "failed" not in run.stdout and "error" not in run.stdout.lower().replace("errors", "")
