"""Where hopbench's data folders are (suites, published tuned parameters).

One place for the path arithmetic, so that moving a module never breaks a path.
"""
from __future__ import annotations

from pathlib import Path

#: the checkout (or the folder the package was installed from in editable mode)
REPO_ROOT = Path(__file__).resolve().parent.parent
INSTANCES_DIR = REPO_ROOT / "instances"
#: the published tuned parameters (``SOLVER.json``), shipped inside the package as package data, so that
#: ``hopbench run --params tuned`` finds them in any install; ``hopbench tune --save`` writes elsewhere
#: (a per-user directory, see :func:`harness.bench.tuning.user_tuned_dir`) unless told ``--save-to published``
PUBLISHED_TUNED_DIR = Path(__file__).resolve().parent / "bench" / "tuned"
