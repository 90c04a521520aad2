"""hopbench.harness: benchmark harness for HPC-interconnect topology optimisation.

The package is layered; every import runs downward (``docs/architecture.md``)::

    graphs  ->  engine  ->  problems  ->  (solvers)  ->  testing / bench  ->  report  ->  cli

This module stays light so that ``hopbench --help`` starts fast: the public
names below are imported on first use.

Its import name is ``hopbench.harness``.  A checkout that has its root on ``sys.path`` (the current
folder, PYTHONPATH) can also import this folder as the top-level package ``harness``, the name it had
before: that name is deprecated, and the first branch below turns it into an alias of
``hopbench.harness`` before anything else runs (hopbench/_import_names.py).
"""
from __future__ import annotations

if __name__ == "harness":  # the deprecated name: one warning, then the very same modules as hopbench.harness
    from hopbench._import_names import become_alias

    become_alias(__name__)
else:
    from hopbench.harness import _threading  # noqa: F401  (must run before numba is imported)
    from hopbench.harness.errors import HopbenchError, InvalidSolution

    __version__ = "0.1.0"

    __all__ = ["HopbenchError", "InvalidSolution", "__version__"]
