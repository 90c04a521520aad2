"""Solver registry.  Every module of the built-in backend packages (``solvers.shortcut``,
``solvers.routing``) is imported once, and each class decorated with :func:`register`
becomes available under its ``name``.

Adding a solver: write ``solvers/shortcut/my_method.py`` (or ``solvers/routing/...``)
with a :class:`~solvers.contract.Solver` subclass decorated by ``@register``; it is found
and runs like any plug-in.  It becomes part of hopbench — trusted — only when its
``"module:Class"`` name is added to :data:`SHIPPED` (a test checks that list against the
modules the repository tracks).

**Trust** means shipped in the hopbench distribution: :func:`is_builtin` is true only for
the classes named in :data:`SHIPPED`, found where those names say, however a solver was
discovered.  A file dropped into ``solvers/shortcut/``, an entry point or a module named
in ``HOPBENCH_SOLVER_MODULES`` is a plug-in: the runner gives its warm-up a short limit,
records that warm-up's failure as the cell's result, and kills every one of its cells at
the hard limit (:mod:`solvers.contract.limits`).

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
import sys

from harness.errors import HopbenchError
from harness.plugins import import_named_modules
from solvers.contract.solver import Solver

#: the packages whose modules are scanned for solvers (shipped ones, and files users drop in)
BUILTIN_PACKAGES = ("solvers.shortcut", "solvers.routing", "solvers.traffic")

#: the solver classes shipped with hopbench, as ``"module:Class"``: the only ones trusted to keep
#: their budgets (``tests/solvers/contract/test_trust.py`` checks it against the repository's files)
SHIPPED = frozenset({
    "solvers.routing.angara_bfs:AngaraBFS",
    "solvers.routing.angara_ga:AngaraGA",
    "solvers.routing.angara_sssp:AngaraSSSP",
    "solvers.routing.dor:DOR",
    "solvers.shortcut.annealing:Annealing",
    "solvers.shortcut.edgecut:EdgeCutFull",
    "solvers.shortcut.edgecut:EdgeCutLite",
    "solvers.shortcut.equality_ga:EqualityGA",
    "solvers.shortcut.lift_tabu:LiftTabu",
    "solvers.shortcut.milp:Milp",
    "solvers.shortcut.random_matching:RandomMatching",
    "solvers.shortcut.random_shortcuts:RandomShortcuts",
    "solvers.shortcut.vrs:VertexRandomShortcuts",
    "solvers.traffic.simulator:TrafficSimulator",
})

_REGISTRY: dict[str, type[Solver]] = {}
_loaded = False
_plugins: set[str] = set()


def qualified_name(cls: type) -> str:
    """``"module:Class"``, the name :data:`SHIPPED` lists a class by."""
    return f"{cls.__module__}:{cls.__qualname__}"


def register(cls: type[Solver]) -> type[Solver]:
    """Class decorator: make ``cls`` available as ``cls.name``."""
    if not cls.name:
        raise TypeError(f"{cls.__name__} needs a non-empty name")
    existing = _REGISTRY.get(cls.name)
    # the same class again (its module reloaded) replaces itself; another class may not take the name
    if existing is not None and qualified_name(existing) != qualified_name(cls):
        raise TypeError(f"solver name {cls.name!r} is taken by {qualified_name(existing)}")
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
        from harness.suggestions import did_you_mean

        raise HopbenchError(f"unknown solver {name!r};{did_you_mean(name, names())} available: "
                            f"{', '.join(names())}") from None


def is_shipped(cls: type) -> bool:
    """True when ``cls`` is a solver class shipped with hopbench: listed in :data:`SHIPPED`, and the very
    class its module defines under that name (a class that only borrows a shipped module's name is not)."""
    name = qualified_name(cls)
    if name not in SHIPPED:
        return False
    module = sys.modules.get(cls.__module__)
    found: object = module
    for part in cls.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is cls


def is_builtin(name: str) -> bool:
    """True for solvers shipped with hopbench (trusted to respect budgets), see :func:`is_shipped`; false for
    every plug-in, wherever its module lives, and for unknown names."""
    try:
        cls = get(name)
    except HopbenchError:
        return False
    return is_shipped(cls)


def create(name: str, **params) -> Solver:
    """Instantiate solver ``name`` with ``params`` (validated and type-converted)."""
    return get(name)(**params)


__all__ = ["SHIPPED", "create", "get", "is_builtin", "is_shipped", "names", "qualified_name", "register"]
