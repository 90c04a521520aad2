"""The layers contract: every import runs downward, and no module takes part in an import circle.

Imports inside functions count (they are read from the syntax tree, not from what
happens to be imported at run time).  The layers, lowest first, are the ones
``docs/architecture.md`` draws; a module may import its own layer and the ones
below.  Two pairs of sibling packages stay independent of each other: the problem
kinds (``shortcut`` and ``routing``) and the solver families.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: folder of the checkout -> the import name of its modules (docs/architecture.md, "Import names"); aliases/
#: holds the deprecated top-level ``harness`` and ``solvers`` that a wheel installs
PACKAGES = {"harness": "hopbench.harness", "solvers": "hopbench.solvers", "hopbench": "hopbench", "aliases": ""}
#: the deprecated import names: nothing but their alias packages may use them
DEPRECATED = ("harness", "solvers")

#: lowest first; a module belongs to the longest prefix that names it
LAYERS = [
    # with the import plumbing (hopbench._import_names) and the deprecated aliases that use it: the alias
    # branch of harness/__init__.py imports it before anything else
    ("hopbench.harness", "hopbench.harness.errors", "hopbench.harness._threading", "hopbench.harness._paths",
     "hopbench._import_names", "harness", "solvers"),
    ("hopbench.harness.graphs",),
    ("hopbench.harness.engine",),
    ("hopbench.harness.problems",),
    ("hopbench.harness.analysis", "hopbench.harness.traffic"),
    ("hopbench.solvers", "hopbench.solvers.contract"),
    ("hopbench.solvers.shortcut", "hopbench.solvers.routing", "hopbench.solvers.traffic", "hopbench.solvers.hostswitch", "hopbench.solvers.grid"),
    ("hopbench.harness.bench",),
    ("hopbench.harness.testing",),
    ("hopbench.harness.report",),
    ("hopbench.harness.cli",),
    # the public facade: it re-exports names from every layer, so nothing inside may import it (an
    # implementation module reaching for the facade would close a circle through it); it does not
    # use the CLI either, which is its sibling consumer of the layers below
    ("hopbench",),
]
INDEPENDENT = [("hopbench.harness.problems.shortcut", "hopbench.harness.problems.routing"), ("hopbench.solvers.shortcut", "hopbench.solvers.routing"),
               ("hopbench.solvers.shortcut", "hopbench.solvers.traffic"), ("hopbench.solvers.routing", "hopbench.solvers.traffic"),
               ("hopbench.harness.problems.grid", "hopbench.harness.problems.shortcut"), ("hopbench.harness.problems.grid", "hopbench.harness.problems.routing"),
               ("hopbench.solvers.grid", "hopbench.solvers.shortcut"), ("hopbench.solvers.grid", "hopbench.solvers.routing"), ("hopbench.solvers.grid", "hopbench.solvers.traffic"),
               ("hopbench.harness.problems.grid", "hopbench.harness.problems.hostswitch"), ("hopbench.solvers.grid", "hopbench.solvers.hostswitch")]


def _modules() -> dict[str, Path]:
    out = {}
    for folder, name in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(filter(None, [name, *parts]))] = path
    return out


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The most specific known module a dotted name refers to (``pkg.mod.attr`` -> ``pkg.mod``)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module: str) -> set[str]:
    """Every project module ``module`` imports, at the top or inside functions."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names = [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            target = _resolve(name)
            if target is not None and target != module:
                found.add(target)
    return found


GRAPH = {m: _imports(m) for m in MODULES}


def _layer(module: str) -> int:
    best, rank = -1, None
    for k, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), k
    assert rank is not None, f"{module} belongs to no layer; add its package to LAYERS and docs/architecture.md"
    return rank


def test_every_module_has_a_layer():
    for module in MODULES:
        _layer(module)


def test_every_import_runs_downward():
    upward = [f"{m} (layer {_layer(m)}) imports {t} (layer {_layer(t)})"
              for m, targets in sorted(GRAPH.items()) for t in sorted(targets) if _layer(t) > _layer(m)]
    assert not upward, "imports that run upward:\n" + "\n".join(upward)


@pytest.mark.parametrize("left, right", INDEPENDENT)
def test_sibling_packages_stay_independent(left, right):
    def inside(module: str, prefix: str) -> bool:
        return module == prefix or module.startswith(prefix + ".")

    crossing = [f"{m} imports {t}" for m, targets in sorted(GRAPH.items()) for t in sorted(targets)
                if (inside(m, left) and inside(t, right)) or (inside(m, right) and inside(t, left))]
    assert not crossing, "\n".join(crossing)


def _circles() -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return out


def test_no_import_circles():
    assert _circles() == []


def test_the_contract_sees_imports_inside_functions():
    """The checks above would pass vacuously if function-level imports were missed."""
    assert "hopbench.solvers.contract.registry" in GRAPH["hopbench.harness.bench.cells"] or "hopbench.solvers" in GRAPH["hopbench.harness.bench.cells"]
    assert "hopbench.harness.problems.registry" in GRAPH["hopbench.harness.cli.verify"]  # imported inside run()


def test_the_modules_are_known_by_their_import_names():
    """The folder -> name map above is what the import system does (a wrong map would check nothing)."""
    assert MODULES["hopbench.harness.cli"] == ROOT / "harness" / "cli" / "__init__.py"
    assert MODULES["hopbench.solvers.contract.registry"] == ROOT / "solvers" / "contract" / "registry.py"
    assert MODULES["hopbench.networks"] == ROOT / "hopbench" / "networks.py"
    assert MODULES["harness"] == ROOT / "aliases" / "harness" / "__init__.py"


def _deprecated_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        found += [f"{path.relative_to(ROOT)}:{node.lineno} imports {n}" for n in names
                  if n.partition(".")[0] in DEPRECATED]
    return found


def test_nothing_imports_the_deprecated_names():
    """The old top-level names are for code outside hopbench: every module, script and test of the project
    imports the new ones (the tests of the aliases themselves write their old-name imports as strings)."""
    files = [p for folder in ("harness", "solvers", "hopbench", "scripts", "tests") for p in (ROOT / folder).rglob("*.py")]
    files.append(ROOT / "setup.py")
    found = [line for path in files for line in _deprecated_imports(path)]
    assert not found, "\n".join(found)
