"""Solver backends behind one interface.

``hopbench.solvers.contract`` holds the interface and the registry; ``hopbench.solvers.shortcut``
and ``hopbench.solvers.routing`` hold the built-in backends, one module per family.  This
package re-exports the registry, so ``solvers.get(name)`` / ``solvers.create(name)``
/ ``solvers.names()`` work from anywhere after ``from hopbench import solvers``.

The top-level name ``solvers`` (a checkout's root on ``sys.path``) is deprecated: the first branch
below turns it into an alias of ``hopbench.solvers`` (hopbench/_import_names.py).
"""
from __future__ import annotations

if __name__ == "solvers":  # the deprecated name: one warning, then the very same modules as hopbench.solvers
    from hopbench._import_names import become_alias

    become_alias(__name__)
else:
    from hopbench.solvers.contract.registry import create, get, is_builtin, names, register
    from hopbench.solvers.contract.solver import Param, Solver

    __all__ = ["Param", "Solver", "create", "get", "is_builtin", "names", "register"]
