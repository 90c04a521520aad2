"""hopbench's public Python API: one import for notebooks and scripts.

>>> import hopbench
>>> problem = hopbench.ShortcutProblem("torus:6x6", degree_cap=6, budget=6)
>>> solution = hopbench.solve(problem, "random", seed=1)            # doctest: +SKIP
>>> solution.metrics, len(solution.trace)                           # doctest: +SKIP

========================  ==============================================================
topologies                :func:`topology` / :func:`parse_spec` (a spec string -> :class:`Graph`)
problems                  :class:`ShortcutProblem` (base: a spec or a Graph), :class:`RoutingProblem`
measuring                 :func:`evaluate` (diameter, ASPL and lower bounds of any network)
solving                   :func:`solve`, :func:`solver_names`
result files              :func:`save`, :func:`load`, :func:`verify`
benchmarks                :func:`load_suite`, :class:`Store` (recorded runs -> pandas)
traffic                   :func:`simulate` (the cycle-level simulator)
errors                    :class:`HopbenchError` (bad input, with how to fix it), :class:`InvalidSolution`
========================  ==============================================================

docs/python-api.md walks through all of it.  The implementation lives in the subpackages
``hopbench.harness`` and ``hopbench.solvers`` (the checkout's ``harness/`` and ``solvers/`` folders:
docs/architecture.md, "Import names"); this module only names what is public, and imports each name
on first use, so ``import hopbench`` stays light (no numba, no pandas).
"""
from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from hopbench import _import_names

# before the first import of a subpackage: in a checkout, they are the folders beside this one
_import_names.install_checkout_finder(os.path.dirname(__file__))

from hopbench.harness import __version__  # noqa: E402
from hopbench.harness.errors import HopbenchError, InvalidSolution  # noqa: E402

#: public name -> "module:attribute" defining it (imported on first use)
_EXPORTS = {
    "Graph": "hopbench.harness.graphs.graph:Graph",
    "parse_spec": "hopbench.harness.graphs.topologies:parse_spec",
    "topology": "hopbench.networks:topology",
    "evaluate": "hopbench.networks:evaluate",
    "NetworkMetrics": "hopbench.networks:NetworkMetrics",
    "ShortcutProblem": "hopbench.harness.problems.shortcut.problem:ShortcutProblem",
    "Solution": "hopbench.harness.problems.shortcut.problem:Solution",
    "RoutingProblem": "hopbench.harness.problems.routing.problem:RoutingProblem",
    "RoutingTable": "hopbench.harness.problems.routing.table:RoutingTable",
    "solve": "hopbench.solving:solve",
    "solver_names": "hopbench.solving:solver_names",
    "save": "hopbench.files:save",
    "load": "hopbench.files:load",
    "verify": "hopbench.files:verify",
    "load_suite": "hopbench.harness.bench.suites:load_suite",
    "Store": "hopbench.harness.bench.store:Store",
    "simulate": "hopbench.harness.traffic.study:simulate",
}

__all__ = sorted([*_EXPORTS, "HopbenchError", "InvalidSolution", "__version__"])

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time __getattr__ imports on demand
    from hopbench.harness.bench.store import Store
    from hopbench.harness.bench.suites import load_suite
    from hopbench.harness.graphs.graph import Graph
    from hopbench.harness.graphs.topologies import parse_spec
    from hopbench.harness.problems.routing.problem import RoutingProblem
    from hopbench.harness.problems.routing.table import RoutingTable
    from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution
    from hopbench.harness.traffic.study import simulate
    from hopbench.files import load, save, verify
    from hopbench.networks import NetworkMetrics, evaluate, topology
    from hopbench.solving import solve, solver_names


def __getattr__(name: str) -> Any:
    target = _EXPORTS.get(name)
    if target is None:
        raise AttributeError(f"module 'hopbench' has no attribute {name!r}")
    module, _, attribute = target.partition(":")
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return __all__
