"""Where ``hopbench.harness`` and ``hopbench.solvers`` come from, and the deprecated names ``harness`` and ``solvers``.

The code lives in the checkout's ``harness/`` and ``solvers/`` folders, beside ``hopbench/``, but is imported
only as ``hopbench.harness`` and ``hopbench.solvers``, so that no generic top-level name of ours collides with
another package on a user's ``sys.path`` (docs/architecture.md, "Import names").

* A wheel holds the folders inside the package (``hopbench/harness/``, ``hopbench/solvers/``: setup.py maps
  them), and the ordinary import system finds them; nothing here is needed.
* A checkout (or an editable install) has them beside ``hopbench/``: :func:`install_checkout_finder` puts a
  finder first on ``sys.meta_path`` that resolves exactly those two names to the folders beside the
  ``hopbench/`` that was imported (so a worktree on ``PYTHONPATH`` runs its own code, never that of the
  checkout an editable install points at); their submodules are then found through the packages'
  ``__path__`` as usual.  Adding the checkout to ``hopbench.__path__`` instead would make ``tests``,
  ``scripts`` and every other folder there a subpackage of hopbench.
* The old names ``harness`` and ``solvers`` are kept for one release: importing either calls
  :func:`become_alias`, which warns once (``DeprecationWarning``, naming the new name), makes the old name
  the very same module object as the new one, and puts a finder first on ``sys.meta_path`` that answers
  ``harness.X`` with the module ``hopbench.harness.X``.  One copy of every module exists, so registries,
  ``isinstance`` and pickles made under either name agree.

Only the standard library's import plumbing is used: ``import hopbench`` stays light.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import warnings

#: the subpackages whose folders sit beside ``hopbench/`` in a checkout
SUBPACKAGES = ("harness", "solvers")
#: deprecated top-level name -> the name to use instead
DEPRECATED = {name: f"hopbench.{name}" for name in SUBPACKAGES}
#: the release that removes the deprecated names
REMOVED_IN = "0.3"


class _CheckoutFinder:
    """Finds ``hopbench.harness`` and ``hopbench.solvers`` (those two names only) in a checkout's folders."""

    def __init__(self, root: str) -> None:
        self.root = root

    def find_spec(self, fullname: str, path=None, target=None):
        parent, _, name = fullname.rpartition(".")
        if parent != "hopbench" or name not in SUBPACKAGES:
            return None
        folder = os.path.join(self.root, name)
        return importlib.util.spec_from_file_location(fullname, os.path.join(folder, "__init__.py"),
                                                      submodule_search_locations=[folder])


def install_checkout_finder(package_dir: str) -> None:
    """Called by ``hopbench/__init__.py`` with its own folder: in a checkout (``harness/`` and ``solvers/`` beside
    it, not inside it), make ``hopbench.harness`` and ``hopbench.solvers`` resolve to them."""
    if any(os.path.isdir(os.path.join(package_dir, name)) for name in SUBPACKAGES):
        return  # a wheel: the subpackages are inside the package
    root = os.path.dirname(os.path.abspath(package_dir))
    if not all(os.path.isfile(os.path.join(root, name, "__init__.py")) for name in SUBPACKAGES):
        return
    # one finder, first: an editable install's own finder (appended after the path finder) would otherwise
    # answer with the folders of the checkout it was installed from
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _CheckoutFinder)]
    sys.meta_path.insert(0, _CheckoutFinder(root))


class _AliasLoader:
    """Loads ``harness.X`` by importing ``hopbench.harness.X`` and putting that module in its place."""

    def __init__(self, target: str, target_spec) -> None:
        self.target = target
        self.target_spec = target_spec

    def create_module(self, spec):
        return None  # a throw-away module; exec_module replaces it in sys.modules, which the import returns

    def exec_module(self, module) -> None:
        sys.modules[module.__name__] = importlib.import_module(self.target)

    def get_code(self, fullname: str):
        """The target's code, for ``python -m harness.cli`` (runpy runs a module's code as ``__main__``)."""
        return self.target_spec.loader.get_code(self.target)


class _AliasFinder:
    """Answers ``harness.X`` / ``solvers.X`` (once the old top-level name is the alias) with the new modules."""

    def find_spec(self, fullname: str, path=None, target=None):
        top, dot, rest = fullname.partition(".")
        new = DEPRECATED.get(top)
        if not dot or new is None or sys.modules.get(top) is not sys.modules.get(new):
            return None  # not ours (or another package took the old name before us)
        name = f"{new}.{rest}"
        found = importlib.util.find_spec(name)  # imports the parent packages only, which the alias's parent has
        if found is None:
            return None  # "No module named 'harness.X'", as before
        spec = importlib.util.spec_from_loader(fullname, _AliasLoader(name, found),
                                               is_package=found.submodule_search_locations is not None)
        if found.submodule_search_locations is not None:
            spec.submodule_search_locations = list(found.submodule_search_locations)
        return spec


def _importer_level() -> int:
    """The ``stacklevel`` that points a warning raised in :func:`become_alias` at the code that imported the old
    name (past the alias package's ``__init__``), so that Python's default filters show it when that code is
    ``__main__`` (a script, a notebook cell).  The warnings module itself skips the import system's frames
    when it counts levels, so they are skipped here without being counted."""
    level, frame = 2, sys._getframe(2)  # 1: become_alias, 2: the alias package's __init__
    while frame is not None:
        internal = "importlib" in frame.f_code.co_filename and "_bootstrap" in frame.f_code.co_filename
        if not internal and frame.f_globals.get("__name__") not in DEPRECATED:
            return level
        if not internal:
            level += 1
        frame = frame.f_back
    return level


def become_alias(name: str) -> None:
    """Run by the deprecated package ``name`` (``harness`` or ``solvers``) before anything else it would do:
    warn once, and make ``name`` and its submodules the modules of ``hopbench.<name>``."""
    new = DEPRECATED[name]
    warnings.warn(f"the import name {name!r} is deprecated: use {new!r} (for example 'from {new} import ...'); "
                  f"{name!r} is removed in hopbench {REMOVED_IN}", DeprecationWarning, stacklevel=_importer_level())
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
    # the import statement returns what sys.modules holds once the package's code has run
    sys.modules[name] = importlib.import_module(new)
