"""A wheel (``pip install .``, not editable) holds hopbench's code under ``hopbench/`` and carries the suites and
the files they name.

The checkout's ``harness/`` and ``solvers/`` are installed as ``hopbench/harness/`` and ``hopbench/solvers/``;
the top-level ``harness`` and ``solvers`` of the wheel are only the deprecated alias packages (one
``__init__.py`` each).  The suites live in the checkout's ``instances/``, outside the import packages;
``setup.py`` copies them, and every file a suite names, into ``hopbench/harness/_data/`` of the wheel.  The test builds a wheel
from a copy of the sources, unpacks it (what an install does with its files) and runs hopbench from
it in a folder outside the checkout, so nothing can be read from the checkout by accident.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: what a wheel is built from (the rest of the checkout is not packaged)
SOURCES = ("pyproject.toml", "setup.py", "README.md", "harness", "solvers", "hopbench", "aliases", "instances",
           "leaderboards")
#: where the suites' copy is in the wheel
DATA = "hopbench/harness/_data/"


def _can_build_without_isolation() -> bool:
    """setuptools builds a wheel in this environment (no download) with the ``wheel`` package or, from 70.1,
    on its own; otherwise pip builds in an isolated environment that it fills from the package index."""
    if importlib.util.find_spec("wheel") is not None:
        return True
    import setuptools

    return tuple(int(p) for p in setuptools.__version__.split(".")[:2]) >= (70, 1)


def _named_files() -> set[str]:
    """The files the checkout's suites name, as the traffic kind reads them (an independent reading of the
    suites: the ``network`` of every instance that is a file, beside the suite or in the checkout's root)."""
    named = set()
    for suite in (ROOT / "instances").glob("*.toml"):
        doc = tomllib.loads(suite.read_text(encoding="utf-8"))
        tables = [doc.get("defaults", {}), *doc.get("instances", [])]
        for table in tables:
            network = table.get("network")
            if isinstance(network, str):
                for folder in (ROOT / "instances", ROOT):
                    if (folder / network).is_file():
                        named.add((folder / network).resolve().relative_to(ROOT).as_posix())
                        break
    return named


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of the sources (an in-tree build would leave build/ in the checkout)."""
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "site", "plots"))
        else:
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("wheel")
    no_isolation = ["--no-build-isolation"] if _can_build_without_isolation() else []
    pip = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", *no_isolation,
                          "-w", str(out), str(source)], capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    (built,) = out.glob("hopbench-*.whl")
    return built


def test_the_wheel_holds_every_suite_and_the_files_they_name(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    data = {n.removeprefix(DATA) for n in names if n.startswith(DATA)}
    suites = {f"instances/{p.name}" for p in (ROOT / "instances").glob("*.toml")}
    assert suites <= data
    named = _named_files()
    assert named, "a suite names a data file (angara2021-traffic's routing tables); the check would be empty"
    assert named <= data
    # only what the suites name: the published boards themselves are not packaged
    assert data == suites | named
    assert not any(n.startswith(("instances/", "leaderboards/")) for n in names)


def test_an_installed_wheel_finds_and_loads_every_suite(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "HOPBENCH_INSTANCES"}
    env["PYTHONPATH"] = str(site)
    script = (
        "import json, hopbench.harness\n"
        "from hopbench.harness.bench.suites import list_suites, load_suite\n"
        "suites = {name: load_suite(name) for name in list_suites()}\n"
        "from hopbench.harness.traffic.problem import TrafficProblem\n"
        "traffic = suites['angara2021-traffic'].instances\n"
        "networks = sorted({i.fields['network_path'] for i in traffic})\n"
        "# a result document keeps the suite's name of its network: verify finds it in the installed data\n"
        "named = TrafficProblem(network=traffic[0].fields['network']).network_file\n"
        "print(json.dumps({'harness': hopbench.harness.__file__, 'suites': sorted(suites), 'networks': networks,\n"
        "                  'named': named, 'counts': {n: len(s.instances) for n, s in suites.items()}}))\n")
    run = subprocess.run([sys.executable, "-c", script], cwd=elsewhere, env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert Path(got["harness"]).resolve().is_relative_to(site.resolve())  # the installed copy, not the checkout
    assert got["suites"] == sorted(p.stem for p in (ROOT / "instances").glob("*.toml"))
    assert got["counts"]["quick"] == 7
    assert got["networks"] and all(Path(p).resolve().is_relative_to(site.resolve()) and Path(p).is_file()
                                   for p in got["networks"])
    assert Path(got["named"]).resolve().is_relative_to(site.resolve()) and Path(got["named"]).is_file()
    # and the command a new user types first after an install
    listed = subprocess.run([sys.executable, "-m", "hopbench.harness.cli", "instances", "quick"], cwd=elsewhere, env=env,
                            capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stderr
    assert "ring:16/cap4/b4/aspl" in listed.stdout


def test_the_wheel_holds_the_code_under_hopbench_and_only_aliases_at_the_top(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    code = [n for n in names if n.endswith(".py")]
    tops = {n.split("/")[0] for n in code}
    assert tops == {"hopbench", "harness", "solvers"}
    # the old names are one __init__.py each, the alias packages; every module of the checkout is under hopbench/
    assert sorted(n for n in code if not n.startswith("hopbench/")) == ["harness/__init__.py", "solvers/__init__.py"]
    checkout = {f"hopbench/{p.relative_to(ROOT).as_posix()}" for folder in ("harness", "solvers")
                for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts}
    assert checkout <= set(code)
    assert "hopbench/harness/graphs/equality2022.json" in names  # package data moved with its package
    assert "hopbench/harness/bench/migrations/script.py.mako" in names
    assert "hopbench/harness/bench/tuned/annealing.json" in names  # a folder of data only (no __init__.py)
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "hopbench = hopbench.harness.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_an_installed_wheel_runs_under_the_new_names_and_the_old_ones(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "HOPBENCH_INSTANCES"}
    env["PYTHONPATH"] = str(site)
    script = (
        "import json, sys, warnings\n"
        "warnings.simplefilter('error')\n"
        "import hopbench.harness.graphs.topologies as new\n"
        "g = new.parse_spec('torus:4x4')\n"
        "warnings.simplefilter('default')\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    import harness.graphs.topologies as old\n"
        "    from solvers.contract import Solver\n"
        "import hopbench.solvers.contract.solver as solver\n"
        "from hopbench.harness._paths import IMPORT_ROOT\n"
        "print(json.dumps({'file': new.__file__, 'same': old is new and Solver is solver.Solver, 'n': g.n,\n"
        "                  'import_root': str(IMPORT_ROOT),\n"
        "                  'warnings': [str(w.message) for w in caught if w.category is DeprecationWarning]}))\n")
    run = subprocess.run([sys.executable, "-c", script], cwd=elsewhere, env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert Path(got["file"]).resolve() == (site / "hopbench" / "harness" / "graphs" / "topologies.py").resolve()
    assert got["same"] and got["n"] == 16
    # what a sandbox child puts on its path to import the same code: site-packages, not hopbench/ inside it
    assert Path(got["import_root"]) == site.resolve()
    assert len(got["warnings"]) == 2 and all("hopbench." in w for w in got["warnings"])
    helped = subprocess.run([sys.executable, "-m", "hopbench.harness.cli", "--help"], cwd=elsewhere, env=env,
                            capture_output=True, text=True, timeout=300)
    assert helped.returncode == 0 and "solve" in helped.stdout, helped.stderr


def test_a_checkout_reads_its_own_instances_folder():
    """No copy exists in a checkout (the build writes it only into the wheel), so a checkout and an editable
    install read instances/ itself, where suite edits take effect at once."""
    from hopbench.harness import _paths

    assert not _paths.PACKAGED_DATA_DIR.exists()
    assert _paths.INSTANCES_DIR == ROOT / "instances"
    assert _paths.IMPORT_ROOT == ROOT  # hopbench/ sits here, beside harness/ and solvers/
