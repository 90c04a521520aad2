"""hopbench: benchmark harness for HPC-interconnect topology optimisation.

The public API is re-exported here; implementations live in the submodules.
"""
from __future__ import annotations

from harness import _threading  # noqa: F401  (must run before numba is imported)
from harness.errors import HopbenchError, InvalidSolution
from harness.graph import Graph

__version__ = "0.1.0"

__all__ = ["Graph", "HopbenchError", "InvalidSolution", "__version__"]
