"""Solver registry.  The solvers shipped with hopbench are listed in :data:`BUILTIN` (name, the
``"module:Class"`` that defines it, the problem kinds it solves), so looking one up imports only its
own module: ``hopbench solve --solver edgecut-full`` never loads the routing solvers, their
deadlock check (scipy.sparse) or the annealing kernels.  Every other module of the built-in
backend packages (``hopbench.solvers.shortcut``, ``hopbench.solvers.routing``, ``hopbench.solvers.traffic``) is imported
when the full list of solvers is asked for (:func:`names`, or :func:`get` of a name
:data:`BUILTIN` does not know), and each class decorated with :func:`register` becomes
available under its ``name``.

Adding a solver: write ``solvers/shortcut/my_method.py`` (or ``solvers/routing/...``)
with a :class:`~hopbench.solvers.contract.Solver` subclass decorated by ``@register``; it is found
and runs like any plug-in.  It becomes part of hopbench — trusted — only when it is added to
:data:`BUILTIN` (``tests/solvers/contract/test_trust.py`` checks that table against what the
modules the repository tracks register, so the two cannot drift apart).

**Trust** means shipped in the hopbench distribution: :func:`is_builtin` is true only for
the classes named in :data:`SHIPPED`, found where those names say, however a solver was
discovered.  A file dropped into ``solvers/shortcut/``, an entry point or a module named
in ``HOPBENCH_SOLVER_MODULES`` is a plug-in: the runner gives its warm-up a short limit,
records that warm-up's failure as the cell's result, and kills every one of its cells at
the hard limit (:mod:`hopbench.solvers.contract.limits`).  A plug-in cannot take a shipped solver's name.

Solvers that live outside hopbench come in two ways:

* installed plug-in packages declare an entry point in the group
  ``hopbench.solvers`` of their own ``pyproject.toml`` (its value names a module
  that registers solvers when imported, or a ``Solver`` subclass); they are found
  without any setting;
* modules that are not installed (a file beside your experiments, a test) are
  named in ``HOPBENCH_SOLVER_MODULES`` (comma-separated, importable from the
  ``PYTHONPATH``), which worker processes inherit.

A plug-in that fails while it loads — a syntax error, an exception or ``SystemExit`` at import, a
solver with no valid name or with a name already taken (a built-in's) — is left out, the solvers it
registered before failing with it, and described in one line by :func:`plugin_failures`; every other
solver keeps working.  Shipped modules are imported first, so no plug-in can take a built-in's name.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
import sys

from hopbench.harness.errors import HopbenchError, PluginFailed
from hopbench.harness.plugins import failure_text, import_plugin, named_modules
from hopbench.solvers.contract.solver import Solver

#: the packages whose modules are scanned for solvers (shipped ones, and files users drop in)
BUILTIN_PACKAGES = ("hopbench.solvers.shortcut", "hopbench.solvers.routing", "hopbench.solvers.traffic", "hopbench.solvers.hostswitch",
                    "hopbench.solvers.grid")

#: the solvers shipped with hopbench: name -> (``"module:Class"``, the problem kinds it solves).  A lookup
#: by name imports only that module; ``tests/solvers/contract/test_trust.py`` checks the table against what
#: the repository's solver modules register
BUILTIN: dict[str, tuple[str, tuple[str, ...]]] = {
    "angara-bfs": ("hopbench.solvers.routing.angara_bfs:AngaraBFS", ("routing",)),
    "angara-ga": ("hopbench.solvers.routing.angara_ga:AngaraGA", ("routing",)),
    "angara-sssp": ("hopbench.solvers.routing.angara_sssp:AngaraSSSP", ("routing",)),
    "dor": ("hopbench.solvers.routing.dor:DOR", ("routing",)),
    "annealing": ("hopbench.solvers.shortcut.annealing:Annealing", ("shortcut",)),
    "edgecut-full": ("hopbench.solvers.shortcut.edgecut:EdgeCutFull", ("shortcut",)),
    "edgecut-lite": ("hopbench.solvers.shortcut.edgecut:EdgeCutLite", ("shortcut",)),
    "equality-ga": ("hopbench.solvers.shortcut.equality_ga:EqualityGA", ("shortcut",)),
    "lift-tabu": ("hopbench.solvers.shortcut.lift_tabu:LiftTabu", ("shortcut",)),
    "milp": ("hopbench.solvers.shortcut.milp:Milp", ("shortcut",)),
    "random-matching": ("hopbench.solvers.shortcut.random_matching:RandomMatching", ("shortcut",)),
    "random": ("hopbench.solvers.shortcut.random_shortcuts:RandomShortcuts", ("shortcut",)),
    "vrs": ("hopbench.solvers.shortcut.vrs:VertexRandomShortcuts", ("shortcut",)),
    "simulator": ("hopbench.solvers.traffic.simulator:TrafficSimulator", ("traffic",)),
    "hostswitch-annealing": ("hopbench.solvers.hostswitch.annealing:HostSwitchAnnealing", ("hostswitch",)),
    "grid-annealing": ("hopbench.solvers.grid.annealing:GridAnnealing", ("grid",)),
    "grid-tempering": ("hopbench.solvers.grid.tempering:GridTempering", ("grid",)),
}

#: the solver classes shipped with hopbench, as ``"module:Class"``: the only ones trusted to keep
#: their budgets
SHIPPED = frozenset(where for where, _ in BUILTIN.values())

_REGISTRY: dict[str, type[Solver]] = {}
_plugins_loaded = False
_plugins: set[str] = set()
#: plug-in (module or entry point) -> one line saying why it is not loaded
_FAILURES: dict[str, str] = {}
#: a solver name: what ``--solver A,B``, cell keys and file names can carry (the store keeps 64 characters)
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")


def qualified_name(cls: type) -> str:
    """``"module:Class"``, the name :data:`SHIPPED` lists a class by."""
    return f"{cls.__module__}:{cls.__qualname__}"


def register(cls: type[Solver]) -> type[Solver]:
    """Class decorator: make ``cls`` available as ``cls.name``."""
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise TypeError(f"{cls.__name__} needs a name of 1 to 64 letters, digits, '-', '_', '.' or '+' "
                        f"(got {name!r:.80})")
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


def _plugin(label: str, load) -> None:
    """Run ``load`` (an import or an entry point's load and registration); on any failure, forget the solvers it
    registered and record one line under ``label``."""
    before = dict(_REGISTRY)

    def failed(exc: BaseException) -> None:
        _REGISTRY.clear()
        _REGISTRY.update(before)
        _FAILURES[label] = f"solver plug-in {label} not loaded: {failure_text(exc)}"

    try:
        load()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - a plug-in's own code: whatever it raises is its failure
        failed(exc)


def _load_entry_points() -> None:
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        def load(ep=ep) -> None:
            loaded = ep.load()
            if isinstance(loaded, type) and issubclass(loaded, Solver):
                register(loaded)
        _plugin(f"entry point {ep.name!r} ({ep.value}) of {ENTRY_POINT_GROUP}", load)


def _shipped_modules() -> set[str]:
    return {name.split(":")[0] for name in SHIPPED}


def _load_plugins() -> None:
    """Import what :data:`BUILTIN` does not name: other modules of the built-in packages (files dropped
    there), installed entry points (once) and the modules of ``HOPBENCH_SOLVER_MODULES``; a plug-in that
    fails to load is recorded (:func:`plugin_failures`) and left out, the other solvers keep working."""
    global _plugins_loaded
    if not _plugins_loaded:
        _plugins_loaded = True
        shipped = _shipped_modules()
        for package in BUILTIN_PACKAGES:
            path = importlib.import_module(package).__path__
            for info in pkgutil.iter_modules(path):
                module = f"{package}.{info.name}"
                if not info.name.startswith("_") and module not in shipped:
                    # a file a user dropped in: its failure is one line, and BUILTIN keeps its names
                    _plugin(f"module {module!r}", lambda module=module: import_plugin(module))
        _load_entry_points()
    # plug-in modules may be named after the first lookup (tests set the variable late)
    for module in named_modules("HOPBENCH_SOLVER_MODULES"):
        if module not in _plugins:
            _plugins.add(module)  # tried once: a broken module is not run again on every lookup
            _plugin(f"module {module!r} (HOPBENCH_SOLVER_MODULES)", lambda module=module: import_plugin(module))


def plugin_failures() -> list[str]:
    """One line per solver plug-in that could not be loaded, each naming the plug-in and its error."""
    _load_plugins()
    return list(_FAILURES.values())


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
        from hopbench.harness.suggestions import did_you_mean

        raise HopbenchError(f"unknown solver {name!r};{did_you_mean(name, names())} available: "
                            f"{', '.join(names())}{failures_note()}") from None


def failures_note() -> str:
    """`` (solver plug-in ... not loaded: ...)`` when some plug-in failed to load, for an unknown-solver error
    (the name asked for may be that plug-in's), else ``""``."""
    return f" ({'; '.join(_FAILURES.values())})" if _FAILURES else ""


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
    """Instantiate solver ``name`` with ``params`` (validated and type-converted).

    A plug-in whose ``__init__`` raises (``SystemExit`` included) is a one-line error naming it; a cell that
    creates it records that line as its error.
    """
    cls = get(name)
    try:
        return cls(**params)
    except HopbenchError:
        raise
    except (Exception, SystemExit) as exc:
        if is_shipped(cls):
            raise  # ours: a bug, with its traceback
        raise PluginFailed(f"solver {name!r} (plug-in {qualified_name(cls)}) failed to start: {failure_text(exc)}; "
                            f"fix its __init__") from None


__all__ = ["BUILTIN", "SHIPPED", "create", "get", "is_builtin", "is_shipped", "kinds_of", "load_all", "names",
           "plugin_failures", "qualified_name", "register"]
