"""Where the repository's data folders are (suites, published tuned parameters).

One place for the path arithmetic, so that moving a module never breaks a path.
"""
from __future__ import annotations

from pathlib import Path

#: the checkout (or the folder the package was installed from in editable mode)
REPO_ROOT = Path(__file__).resolve().parent.parent
INSTANCES_DIR = REPO_ROOT / "instances"
TUNED_DIR = REPO_ROOT / "leaderboards" / "tuned"
