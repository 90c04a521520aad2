"""The registry of problem kinds: the one place that knows which kinds exist.

Built-in kinds are imported on first use (so a command that needs none of them
stays fast); plug-in kinds come from the modules named in
``HOPBENCH_KIND_MODULES`` (comma-separated; worker processes inherit it), each of
which calls :func:`register_kind` when imported.
"""
from __future__ import annotations

import importlib

from hopbench.harness.errors import HopbenchError
from hopbench.harness.plugins import import_named_modules
from hopbench.harness.problems.kind import ProblemKind, Verdict

#: built-in kinds: name -> module that defines ``KIND``
BUILTIN = {"shortcut": "hopbench.harness.problems.shortcut.kind", "routing": "hopbench.harness.problems.routing.kind",
           # traffic lives beside the simulator it needs, a layer above the problem kinds
           "traffic": "hopbench.harness.traffic.kind",
           "hostswitch": "hopbench.harness.problems.hostswitch.kind",
           "grid": "hopbench.harness.problems.grid.kind"}

_KINDS: dict[str, ProblemKind] = {}
_plugins: set[str] = set()


def register_kind(kind: ProblemKind) -> ProblemKind:
    """Make ``kind`` available under ``kind.name`` (a name, objective or suite table taken by another kind is an
    error)."""
    if not kind.name:
        raise TypeError(f"{type(kind).__name__} needs a non-empty name")
    existing = _KINDS.get(kind.name)
    if existing is not None and type(existing).__qualname__ != type(kind).__qualname__:
        raise TypeError(f"problem kind {kind.name!r} is taken by {type(existing).__qualname__}")
    for other in _KINDS.values():
        clash = set(other.objectives) & set(kind.objectives) if other.name != kind.name else set()
        if clash:
            raise TypeError(f"objective {sorted(clash)[0]!r} of kind {kind.name!r} is taken by kind {other.name!r}")
        # a top-level suite table has one owner, which validates it
        tables = set(other.suite_tables) & set(kind.suite_tables) if other.name != kind.name else set()
        if tables:
            raise TypeError(f"suite table {sorted(tables)[0]!r} of kind {kind.name!r} is taken by kind {other.name!r}")
    _KINDS[kind.name] = kind
    return kind


def _load_plugins() -> None:
    import_named_modules("HOPBENCH_KIND_MODULES", _plugins, "problem-kind")


def _load_builtin(name: str) -> None:
    if name in BUILTIN and name not in _KINDS:
        register_kind(importlib.import_module(BUILTIN[name]).KIND)


def kind_names() -> list[str]:
    """Every kind's name: the built-in ones first, then plug-ins in registration order."""
    _load_plugins()
    return list(dict.fromkeys([*BUILTIN, *_KINDS]))


def get_kind(name: str) -> ProblemKind:
    """The kind called ``name``; an unknown name is a one-line error listing the known ones."""
    _load_builtin(name)
    if name not in _KINDS:
        _load_plugins()
    if name not in _KINDS:
        raise HopbenchError(f"unknown problem kind {name!r}; use one of {', '.join(kind_names())}")
    return _KINDS[name]


def all_kinds() -> list[ProblemKind]:
    """Every registered kind (imports the built-in ones)."""
    return [get_kind(name) for name in kind_names()]


def kind_of_objective(objective: str) -> ProblemKind:
    """The kind an objective belongs to (objective names are unique across kinds)."""
    for kind in all_kinds():
        if objective in kind.objectives:
            return kind
    raise HopbenchError(f"unknown objective {objective!r}; the problem kinds know "
                        f"{', '.join(o for k in all_kinds() for o in k.objectives)}")


def is_maximised(objective: str) -> bool:
    """Whether a larger value of ``objective`` is better (an unknown objective is minimised, like most)."""
    try:
        return objective in kind_of_objective(objective).maximised
    except HopbenchError:
        return False


def kind_of_format(fmt: str) -> ProblemKind:
    """The kind whose result documents have this ``format``."""
    for kind in all_kinds():
        if fmt in kind.formats:
            return kind
    known = sorted(f for k in all_kinds() for f in k.formats)
    raise HopbenchError(f"unsupported format {fmt!r}; expected one of {', '.join(known)}")


def verify_document(doc: dict) -> Verdict:
    """Re-verify any hopbench result document, by the kind its ``format`` names."""
    fmt = doc.get("format")
    if not isinstance(fmt, str):
        raise HopbenchError("missing field 'format'; a hopbench result file names its format, "
                            "e.g. \"hopbench.solution/1\"")
    return kind_of_format(fmt).verify(doc)
