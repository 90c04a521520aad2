"""Solver registry.  The solvers shipped with hopbench are listed in :data:`BUILTIN` (name, the
``"module:Class"`` that defines it, the problem kinds it solves), so looking one up imports only its
own module: ``hopbench solve --solver edgecut-full`` never loads the routing solvers, their
deadlock check (scipy.sparse) or the annealing kernels.  Every other module of the built-in
backend packages (``solvers.shortcut``, ``solvers.routing``, ``solvers.traffic``) is imported
when the full list of solvers is asked for (:func:`names`, or :func:`get` of a name
:data:`BUILTIN` does not know), and each class decorated with :func:`register` becomes
available under its ``name``.

Adding a solver: write ``solvers/shortcut/my_method.py`` (or ``solvers/routing/...``)
with a :class:`~solvers.contract.Solver` subclass decorated by ``@register``; it is found
and runs like any plug-in.  It becomes part of hopbench — trusted — only when it is added to
:data:`BUILTIN` (``tests/solvers/contract/test_trust.py`` checks that table against what the
modules the repository tracks register, so the two cannot drift apart).

**Trust** means shipped in the hopbench distribution: :func:`is_builtin` is true only for
the classes named in :data:`SHIPPED`, found where those names say, however a solver was
discovered.  A file dropped into ``solvers/shortcut/``, an entry point or a module named
in ``HOPBENCH_SOLVER_MODULES`` is a plug-in: the runner gives its warm-up a short limit,
records that warm-up's failure as the cell's result, and kills every one of its cells at
the hard limit (:mod:`solvers.contract.limits`).  A plug-in cannot take a shipped solver's name.

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

#: the solvers shipped with hopbench: name -> (``"module:Class"``, the problem kinds it solves).  A lookup
#: by name imports only that module; ``tests/solvers/contract/test_trust.py`` checks the table against what
#: the repository's solver modules register
BUILTIN: dict[str, tuple[str, tuple[str, ...]]] = {
    "angara-bfs": ("solvers.routing.angara_bfs:AngaraBFS", ("routing",)),
    "angara-ga": ("solvers.routing.angara_ga:AngaraGA", ("routing",)),
    "angara-sssp": ("solvers.routing.angara_sssp:AngaraSSSP", ("routing",)),
    "dor": ("solvers.routing.dor:DOR", ("routing",)),
    "annealing": ("solvers.shortcut.annealing:Annealing", ("shortcut",)),
    "edgecut-full": ("solvers.shortcut.edgecut:EdgeCutFull", ("shortcut",)),
    "edgecut-lite": ("solvers.shortcut.edgecut:EdgeCutLite", ("shortcut",)),
    "equality-ga": ("solvers.shortcut.equality_ga:EqualityGA", ("shortcut",)),
    "lift-tabu": ("solvers.shortcut.lift_tabu:LiftTabu", ("shortcut",)),
    "milp": ("solvers.shortcut.milp:Milp", ("shortcut",)),
    "random-matching": ("solvers.shortcut.random_matching:RandomMatching", ("shortcut",)),
    "random": ("solvers.shortcut.random_shortcuts:RandomShortcuts", ("shortcut",)),
    "vrs": ("solvers.shortcut.vrs:VertexRandomShortcuts", ("shortcut",)),
    "simulator": ("solvers.traffic.simulator:TrafficSimulator", ("traffic",)),
}

#: the solver classes shipped with hopbench, as ``"module:Class"``: the only ones trusted to keep
#: their budgets
SHIPPED = frozenset(where for where, _ in BUILTIN.values())

_REGISTRY: dict[str, type[Solver]] = {}
_plugins_loaded = False
_plugins: set[str] = set()


def qualified_name(cls: type) -> str:
    """``"module:Class"``, the name :data:`SHIPPED` lists a class by."""
    return f"{cls.__module__}:{cls.__qualname__}"


def register(cls: type[Solver]) -> type[Solver]:
    """Class decorator: make ``cls`` available as ``cls.name``."""
    if not cls.name:
        raise TypeError(f"{cls.__name__} needs a non-empty name")
    existing = _REGISTRY.get(cls.name)
    owner = qualified_name(existing) if existing is not None else BUILTIN.get(cls.name, (None,))[0]
    # the same class again (its module reloaded) replaces itself; another class may not take the name, nor
    # the name of a shipped solver whose module is not imported yet
    if owner is not None and owner != qualified_name(cls):
        raise TypeError(f"solver name {cls.name!r} is taken by {owner}")
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


def _load_plugins() -> None:
    """Import what :data:`BUILTIN` does not name: other modules of the built-in packages (files dropped
    there), installed entry points (once) and the modules of ``HOPBENCH_SOLVER_MODULES``."""
    global _plugins_loaded
    if not _plugins_loaded:
        _plugins_loaded = True
        shipped_modules = {where.partition(":")[0] for where in SHIPPED}
        for package in BUILTIN_PACKAGES:
            path = importlib.import_module(package).__path__
            for info in pkgutil.iter_modules(path):
                module = f"{package}.{info.name}"
                if not info.name.startswith("_") and module not in shipped_modules:
                    importlib.import_module(module)
        _load_entry_points()
    # plug-in modules may be named after the first lookup (tests set the variable late)
    import_named_modules("HOPBENCH_SOLVER_MODULES", _plugins, "solver")


def _builtin(name: str) -> type[Solver]:
    """The shipped solver ``name``, importing its module only.  Taken from the module rather than from the
    registry, which a test may have swapped while the module was first imported."""
    module, _, qualname = BUILTIN[name][0].partition(":")
    found: object = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    if not (isinstance(found, type) and issubclass(found, Solver) and found.name == name):
        raise TypeError(f"BUILTIN says solver {name!r} is {BUILTIN[name][0]}, which is not that solver")
    _REGISTRY.setdefault(name, found)
    return found


def names(kind: str | None = None) -> list[str]:
    """Registered solver names, optionally only those solving ``kind`` problems (the shipped ones are known
    without importing their modules)."""
    _load_plugins()
    found = {n: c.kinds for n, c in _REGISTRY.items()}
    found.update({n: kinds for n, (_, kinds) in BUILTIN.items()})
    return sorted(n for n, kinds in found.items() if kind is None or kind in kinds)


def kinds_of(name: str) -> tuple[str, ...]:
    """The problem kinds solver ``name`` solves; a shipped solver's module is not imported to say so."""
    return BUILTIN[name][1] if name in BUILTIN else get(name).kinds


def load_all() -> None:
    """Import every solver module, shipped or not (a worker does so before its first cell)."""
    for name in names():
        get(name)


def get(name: str) -> type[Solver]:
    """The class of solver ``name``; a shipped one imports only its own module."""
    if name in BUILTIN:
        return _builtin(name)
    _load_plugins()
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


__all__ = ["BUILTIN", "SHIPPED", "create", "get", "is_builtin", "is_shipped", "kinds_of", "load_all",
           "names", "qualified_name", "register"]
