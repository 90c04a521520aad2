"""A solver shipped as its own package is found through the ``hopbench.solvers`` entry points.

The test builds and installs (``pip install --target``) a package made of the README's example
solver and a ``pyproject.toml`` that declares the entry point — what a plug-in author writes —
then runs it through ``solve``, ``run`` and the shipped conformance suite, with no environment
variable naming it.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.solvers.test_readme_solver import CONFORMANCE_MODULE, readme_solver_code

ROOT = Path(__file__).resolve().parents[2]

PYPROJECT = """[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "hopbench-my-method"
version = "0.1.0"
dependencies = ["hopbench"]

[project.entry-points."hopbench.solvers"]
my-method = "my_method"

[tool.setuptools]
py-modules = ["my_method"]
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The plug-in package, installed into a folder of its own (put on the PYTHONPATH below)."""
    package = tmp_path_factory.mktemp("my-method-package")
    (package / "my_method.py").write_text(readme_solver_code())
    (package / "pyproject.toml").write_text(PYPROJECT)
    site = tmp_path_factory.mktemp("site")
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                          str(package)], capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    assert list(site.glob("hopbench_my_method-*.dist-info/entry_points.txt"))
    return site


def _env(site: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "HOPBENCH_SOLVER_MODULES"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(site)])
    return env


def _hopbench(site: Path, cwd: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=_env(site), cwd=cwd, timeout=600)


def test_an_installed_plugin_solves_runs_and_verifies(installed, tmp_path):
    listed = _hopbench(installed, tmp_path, "solvers", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "my-method" in {row["name"] for row in json.loads(listed.stdout)}

    out = tmp_path / "sol.json"
    solved = _hopbench(installed, tmp_path, "solve", "--base", "ring:32", "--cap", "4", "--budget", "6",
                       "--solver", "my-method", "--seed", "2", "-o", out)
    assert solved.returncode == 0, solved.stderr
    assert _hopbench(installed, tmp_path, "verify", out).returncode == 0

    store = f"sqlite:///{tmp_path / 'runs.db'}"
    ran = _hopbench(installed, tmp_path, "run", "--suite", "quick", "--solver", "my-method", "--seeds", "1",
                    "--instances", "ring:16*", "--storage", store)
    assert ran.returncode == 0, ran.stderr
    rows = json.loads(_hopbench(installed, tmp_path, "results", "--storage", store, "--format", "json").stdout)
    assert [(r["solver"], r["status"]) for r in rows] == [("my-method", "ok")]


def test_an_installed_plugin_passes_the_shipped_conformance_suite(installed, tmp_path):
    (tmp_path / "test_my_method.py").write_text(CONFORMANCE_MODULE)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_my_method.py"],
                         capture_output=True, text=True, env=_env(installed), cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert int(re.search(r"(\d+) passed", run.stdout).group(1)) >= 16
