"""hopbench: benchmark harness for HPC-interconnect topology optimisation.

The package is layered; every import runs downward (``docs/architecture.md``)::

    graphs  ->  engine  ->  problems  ->  (solvers)  ->  testing / bench  ->  report  ->  cli

This module stays light so that ``hopbench --help`` starts fast: the public
names below are imported on first use.
"""
from __future__ import annotations

from harness import _threading  # noqa: F401  (must run before numba is imported)
from harness.errors import HopbenchError, InvalidSolution

__version__ = "0.1.0"

__all__ = ["HopbenchError", "InvalidSolution", "__version__"]
