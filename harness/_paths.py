"""Where hopbench's data folders are (suites, published tuned parameters).

One place for the path arithmetic, so that moving a module never breaks a path.
"""
from __future__ import annotations

from pathlib import Path

#: the checkout (or the folder the package was installed from in editable mode)
REPO_ROOT = Path(__file__).resolve().parent.parent
#: the folder holding the ``hopbench`` package this code runs as (hopbench.harness): the checkout, where
#: ``harness/`` sits beside ``hopbench/``, or site-packages, where a wheel put it inside ``hopbench/``.  A child
#: process puts it first on its path to import the same code
IMPORT_ROOT = REPO_ROOT.parent if (REPO_ROOT / "__init__.py").is_file() else REPO_ROOT
#: the suites and the files they name, copied into the package when a wheel is built (setup.py); only an
#: installed wheel has this folder, since the build writes it into the wheel and never into the checkout
PACKAGED_DATA_DIR = Path(__file__).resolve().parent / "_data"
#: the suite files: the installed copy in a wheel install, else the checkout's ``instances/`` (a checkout or an
#: editable install).  The copy is tested for rather than the checkout's folder, since a site-packages folder
#: may hold an unrelated top-level ``instances/``
_PACKAGED_INSTANCES = PACKAGED_DATA_DIR / "instances"
INSTANCES_DIR = _PACKAGED_INSTANCES if _PACKAGED_INSTANCES.is_dir() else REPO_ROOT / "instances"


def shipped_file(name: str) -> Path | None:
    """The data file a shipped suite names by ``name`` (relative, as in ``leaderboards/angara2021/...``): in the
    installed copy, else in the checkout; None when neither holds it.  A result document keeps the name as the
    suite wrote it, so that ``hopbench verify`` finds the file from any folder, in a wheel install too."""
    path = Path(name)
    if path.is_absolute() or ".." in path.parts:
        return None
    for root in (PACKAGED_DATA_DIR, REPO_ROOT):
        if (root / path).is_file():
            return root / path
    return None


#: the published tuned parameters (``SOLVER.json``), shipped inside the package as package data, so that
#: ``hopbench run --params tuned`` finds them in any install; ``hopbench tune --save`` writes elsewhere
#: (a per-user directory, see :func:`hopbench.harness.bench.tuning.user_tuned_dir`) unless told ``--save-to published``
PUBLISHED_TUNED_DIR = Path(__file__).resolve().parent / "bench" / "tuned"
