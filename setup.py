"""Packaging steps pyproject.toml cannot say: the package layout, and the suites travel inside the package.

The checkout keeps ``hopbench/``, ``harness/`` and ``solvers/`` side by side, but the import names are
``hopbench``, ``hopbench.harness`` and ``hopbench.solvers``: a wheel holds ``harness/`` and ``solvers/``
inside ``hopbench/``, so that an installed hopbench takes no generic top-level name (docs/architecture.md,
"Import names").  Beside it, the wheel has the two deprecated top-level names ``harness`` and ``solvers``
as tiny alias packages (``aliases/``: an ``__init__.py`` each, no code of their own), kept for one release.

The suite files live in ``instances/`` at the top of the checkout, and a suite may name data files
relative to the checkout (``angara2021-traffic`` simulates the routing tables published in
``leaderboards/angara2021/solutions/``).  A wheel holds import packages only, so the build copies the
suites, and every file they name, into the package as ``hopbench/harness/_data/instances/*.toml`` and
``hopbench/harness/_data/<the same relative path>``: the suites' relative names then read the same from the
installed copy (a suite's names are looked up beside it and in the folder above it).
``harness/_paths.py`` uses that copy when it exists (an installed wheel) and the checkout's
``instances/`` otherwise (a checkout, an editable install).  Everything else is in pyproject.toml.
"""
from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py
from setuptools.command.egg_info import egg_info

ROOT = Path(__file__).resolve().parent
SUITES = "instances"
#: where the copy goes inside the wheel (harness/_paths.py reads it from there)
PACKAGED = Path("hopbench") / "harness" / "_data"
#: import package -> its folder in the checkout (setuptools finds a subpackage's folder below its parent's)
PACKAGE_DIR = {"hopbench": "hopbench", "hopbench.harness": "harness", "hopbench.solvers": "solvers",
               "harness": "aliases/harness", "solvers": "aliases/solvers"}


def packages(root: Path = ROOT) -> list[str]:
    """Every import package of the wheel, under its import name (folders without ``__init__.py`` included, as
    ``harness/bench/tuned/`` holds package data only)."""
    found = []
    for name, folder in PACKAGE_DIR.items():
        found.append(name)
        if name in ("harness", "solvers"):
            continue  # the aliases are their __init__.py alone
        found += [f"{name}.{sub}" for sub in find_namespace_packages(str(root / folder), exclude=["*__pycache__*"])]
    return sorted(found)


def _strings(value):
    """Every string inside a TOML value (tables and lists walked)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def shipped_files(root: Path = ROOT) -> list[str]:
    """The suite files and every checkout file they name, as paths relative to ``root``.

    A string in a suite names a file when it is a relative path to a regular file inside the checkout,
    looked up as the suite loader does (beside the suite, then in the folder above); nothing outside
    the checkout is ever copied.
    """
    suites = sorted((root / SUITES).glob("*.toml"))
    found = {p.relative_to(root).as_posix() for p in suites}
    for suite in suites:
        for text in _strings(tomllib.loads(suite.read_text(encoding="utf-8"))):
            if not text or "\n" in text or len(text) > 500 or Path(text).is_absolute():
                continue
            for folder in (suite.parent, suite.parent.parent):
                try:
                    candidate = (folder / text).resolve()
                    named = candidate.is_file() and candidate.is_relative_to(root)
                except (OSError, ValueError):  # descriptions and other text that no file system takes as a name
                    named = False
                if named:
                    found.add(candidate.relative_to(root).as_posix())
                    break
    return sorted(found)


class BuildWithSuites(build_py):
    """build_py, plus the suites and their data copied under ``hopbench/harness/_data/``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's instances/ itself
        for name in shipped_files():
            target = Path(self.build_lib) / PACKAGED / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, target)


class EggInfoWithSuites(egg_info):
    """egg_info, whose file list (what an sdist holds) also has the suites and their data, so that a wheel
    built from the sdist (``python -m build``) has them too."""

    def find_sources(self) -> None:
        super().find_sources()
        self.filelist.extend(shipped_files())


setup(packages=packages(), package_dir=PACKAGE_DIR,
      cmdclass={"build_py": BuildWithSuites, "egg_info": EggInfoWithSuites})
