"""The solver contract: what every solver implements and receives.

``Solver`` and ``Param`` (the interface and its parameter declarations), ``Budget``
and ``Reporter`` (what a run may spend and how it reports), ``execute`` (one run of
one solver on one problem, shared by ``hopbench solve``, the runner and the
conformance suite), ``register`` (the registry), and the time-limit rule that
every solver keeps.  Solver backends and the benchmark layer both build on this
package; it imports nothing above the problem kinds.
"""
from __future__ import annotations

from hopbench.solvers.contract.budget import Budget, Reporter, TracePoint
from hopbench.solvers.contract.limits import hard_limit, overrun_allowance
from hopbench.solvers.contract.registry import create, get, names, register
from hopbench.solvers.contract.solver import Param, Solver

__all__ = ["Budget", "Param", "Reporter", "Solver", "TracePoint", "create", "get", "hard_limit", "names",
           "overrun_allowance", "register"]
