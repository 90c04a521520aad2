"""Solver backends behind one interface.

``solvers.contract`` holds the interface and the registry; ``solvers.shortcut``
and ``solvers.routing`` hold the built-in backends, one module per family.  This
package re-exports the registry, so ``solvers.get(name)`` / ``solvers.create(name)``
/ ``solvers.names()`` work from anywhere.
"""
from __future__ import annotations

from solvers.contract.registry import create, get, is_builtin, names, register
from solvers.contract.solver import Param, Solver

__all__ = ["Param", "Solver", "create", "get", "is_builtin", "names", "register"]
