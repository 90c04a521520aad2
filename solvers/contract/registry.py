"""Solver registry.  Every module of the built-in backend packages (``solvers.shortcut``,
``solvers.routing``) is imported once, and each class decorated with :func:`register`
becomes available under its ``name``.

Adding a solver: write ``solvers/shortcut/my_method.py`` (or ``solvers/routing/...``)
with a :class:`~solvers.contract.Solver` subclass decorated by ``@register``; nothing
else needs editing.

Solvers that live outside hopbench come in two ways:

* installed plug-in packages declare an entry point in the group
  ``hopbench.solvers`` of their own ``pyproject.toml`` (its value names a module
  that registers solvers when imported, or a ``Solver`` subclass); they are found
  without any setting;
* modules that are not installed (a file beside your experiments, a test) are
  named in ``HOPBENCH_SOLVER_MODULES`` (comma-separated, importable from the
  ``PYTHONPATH``), which worker processes inherit.
"""
from __future__ import annotations

import importlib
import pkgutil

from harness.errors import HopbenchError
from harness.plugins import import_named_modules
from solvers.contract.solver import Solver

#: the packages whose modules are the built-in solvers
BUILTIN_PACKAGES = ("solvers.shortcut", "solvers.routing")

_REGISTRY: dict[str, type[Solver]] = {}
_loaded = False
_plugins: set[str] = set()


def register(cls: type[Solver]) -> type[Solver]:
    """Class decorator: make ``cls`` available as ``cls.name``."""
    if not cls.name:
        raise TypeError(f"{cls.__name__} needs a non-empty name")
    existing = _REGISTRY.get(cls.name)
    if existing is not None and existing.__qualname__ != cls.__qualname__:
        raise TypeError(f"solver name {cls.name!r} is taken by {existing.__qualname__}")
    _REGISTRY[cls.name] = cls
    return cls


#: the entry-point group through which installed packages offer solvers
ENTRY_POINT_GROUP = "hopbench.solvers"


def _load_entry_points() -> None:
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = ep.load()
        except Exception as exc:  # a broken plug-in must not take hopbench down with it
            raise HopbenchError(f"cannot load solver plug-in {ep.name!r} ({ep.value}) of the {ENTRY_POINT_GROUP} "
                                f"entry points: {type(exc).__name__}: {exc}; fix or uninstall that package") from None
        if isinstance(loaded, type) and issubclass(loaded, Solver):
            register(loaded)


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for package in BUILTIN_PACKAGES:
            path = importlib.import_module(package).__path__
            for info in pkgutil.iter_modules(path):
                if not info.name.startswith("_"):
                    importlib.import_module(f"{package}.{info.name}")
        _load_entry_points()
    # plug-in modules may be named after the first lookup (tests set the variable late)
    import_named_modules("HOPBENCH_SOLVER_MODULES", _plugins, "solver")


def names(kind: str | None = None) -> list[str]:
    """Registered solver names, optionally only those solving ``kind`` problems."""
    _load()
    return sorted(n for n, c in _REGISTRY.items() if kind is None or kind in c.kinds)


def get(name: str) -> type[Solver]:
    _load()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise HopbenchError(f"unknown solver {name!r}; available: {', '.join(names())}") from None


def is_builtin(name: str) -> bool:
    """True for solvers shipped in hopbench's own backend packages (trusted to respect budgets)."""
    try:
        module = get(name).__module__
    except HopbenchError:
        return False
    return any(module.startswith(f"{package}.") for package in BUILTIN_PACKAGES)


def create(name: str, **params) -> Solver:
    """Instantiate solver ``name`` with ``params`` (validated and type-converted)."""
    return get(name)(**params)


__all__ = ["create", "get", "is_builtin", "names", "register"]
