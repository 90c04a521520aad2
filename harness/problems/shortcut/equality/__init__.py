"""Equality networks (Liang et al. 2022): evaluation, bisection, the paper's tables, the problem family.

The public API of Equality networks in one namespace
(``from hopbench.harness.problems.shortcut import equality as eq``); the implementation is
split by concern and by layer:

* :mod:`hopbench.harness.graphs.equality` (graph layer): the notation grammar, the validated
  link sets (:class:`~hopbench.harness.graphs.equality.EqualityLinks`) and their edges, and the
  paper's published link sets by id;
* :mod:`hopbench.harness.engine.equality_bfs` (engine layer): the numba bit-parallel BFS from
  router 0 on link values;
* :mod:`.network`: :class:`EqualityNetwork` (a, d, B_r, MB%), :func:`parse`, the Moore order;
* :mod:`.bisection`: semicircle cuts and B_r of any graph;
* :mod:`.published`: Table 2 re-evaluated from Table 3's link sets;
* :mod:`.family`: the ``equality`` ShortcutProblem family.

>>> parse("N14K6[-1,1,3,9](4)").metrics().diameter
2
"""
from __future__ import annotations

import importlib

#: public name -> the module that defines it, imported on first use: the network's evaluation loads
#: numba, which the family rules (and so verifying an Equality-family solution) do not need
_EXPORTS = {
    "EXAMPLE": "hopbench.harness.graphs.equality",
    "EqualityConfig": "hopbench.harness.graphs.equality",
    "EqualityLinks": "hopbench.harness.graphs.equality",
    "_normalise": "hopbench.harness.graphs.equality",
    "parse_config": "hopbench.harness.graphs.equality",
    "radix": "hopbench.harness.graphs.equality",
    "distances": "hopbench.harness.engine.equality_bfs",
    "scratch_buffers": "hopbench.harness.engine.equality_bfs",
    "bisection_ratio": "hopbench.harness.problems.shortcut.equality.bisection",
    "semicircle_cuts": "hopbench.harness.problems.shortcut.equality.bisection",
    "check_problem": "hopbench.harness.problems.shortcut.equality.family",
    "from_shortcuts": "hopbench.harness.problems.shortcut.equality.family",
    "EqualityMetrics": "hopbench.harness.problems.shortcut.equality.network",
    "EqualityNetwork": "hopbench.harness.problems.shortcut.equality.network",
    "evaluate_links": "hopbench.harness.problems.shortcut.equality.network",
    "moore_order": "hopbench.harness.problems.shortcut.equality.network",
    "moore_ratio": "hopbench.harness.problems.shortcut.equality.network",
    "parse": "hopbench.harness.problems.shortcut.equality.network",
    "reference_distances": "hopbench.harness.problems.shortcut.equality.network",
    "published": "hopbench.harness.problems.shortcut.equality.published",
    "published_network": "hopbench.harness.problems.shortcut.equality.published",
    "published_networks": "hopbench.harness.problems.shortcut.equality.published",
    "reproduce_published": "hopbench.harness.problems.shortcut.equality.published",
}

__all__ = [
    "EqualityConfig", "EqualityNetwork", "EqualityMetrics", "parse", "parse_config", "radix",
    "check_problem", "moore_order", "moore_ratio", "evaluate_links", "distances", "semicircle_cuts",
    "bisection_ratio", "published_networks", "published", "published_network", "reproduce_published",
    "EXAMPLE", "EqualityLinks", "from_shortcuts", "reference_distances", "scratch_buffers",
]


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
