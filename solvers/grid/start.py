"""The grid solvers' ``start`` parameter: a graph to search from instead of a random one.

Graph Golf's participants improve graphs across runs (ODP's programs read one with ``-f``): a run
continues from a result document (``hopbench.grid/1``, e.g. a board's solution file) or a competition
edge file of the same grid.  The graph is checked like any solution (lengths, degrees, repeats) and
must keep the run's rotation order, since every move of the search removes and adds whole orbits.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable

import numpy as np

from hopbench.harness.errors import HopbenchError, InvalidSolution
from hopbench.harness.problems.grid.problem import GridProblem

_TURNS = {2: "half turns", 4: "quarter turns"}


def read_start(path: str, problem: GridProblem) -> np.ndarray:
    """The ``(m, 2)`` edges of the graph in ``path``, valid for ``problem``; a one-line error otherwise."""
    from hopbench.harness import inputs
    from hopbench.harness.documents import parse_json
    from hopbench.harness.problems.grid.competition import read_edges
    from hopbench.harness.problems.grid.document import solution_from_dict

    where = f"start graph {path!r}"
    text = inputs.read_text(path, "start graph")
    if text.lstrip().startswith("{"):
        solution, _ = solution_from_dict(parse_json(text, path))  # the text read above: no second read
        theirs = solution.problem
        if (theirs.width, theirs.height, theirs.degree, theirs.length) != \
                (problem.width, problem.height, problem.degree, problem.length):
            raise HopbenchError(f"{where} is a graph of {theirs.spec}, not of {problem.spec}; give a graph of "
                                "this problem")
        edges = solution.edges
    else:
        edges = read_edges(text, problem, where)
    try:
        return problem.validate(edges)
    except InvalidSolution as exc:
        raise HopbenchError(f"{where} is not a valid graph of {problem.spec}: {exc}") from None


def kept_order(edges: np.ndarray, rot: np.ndarray) -> bool:
    """True when every rotation in ``rot`` (``rot[k, v]``: v turned k times) maps the edge set onto itself."""
    n = rot.shape[1]

    def keys(e: np.ndarray) -> np.ndarray:
        return np.unique(np.minimum(e[:, 0], e[:, 1]) * n + np.maximum(e[:, 0], e[:, 1]))

    own = keys(edges)
    return all(np.array_equal(keys(rot[k][edges]), own) for k in range(1, rot.shape[0]))


def check_order(edges: np.ndarray, g: int, turns: Callable[[int], np.ndarray], path: str) -> None:
    """Refuse a start graph that does not keep the run's rotation order g, naming the orders it keeps;
    ``turns(k)`` is the rotation table of order k."""
    if g == 1 or kept_order(edges, turns(g)):
        return
    keeps = [k for k in (4, 2) if k < g and kept_order(edges, turns(k))]
    hint = f"symmetry={keeps[0]} or symmetry=1" if keeps else "symmetry=1"
    raise HopbenchError(f"start graph {path!r} is not invariant under {_TURNS[g]} (symmetry {g}); "
                        f"run with {hint}")


def fingerprint(edges: np.ndarray) -> str:
    """A SHA-256 of the sorted edge list, recorded with the run: the path alone does not say which graph it was."""
    e = np.sort(np.asarray(edges, np.int64), axis=1)
    e = e[np.lexsort((e[:, 1], e[:, 0]))]
    return hashlib.sha256(np.ascontiguousarray(e).tobytes()).hexdigest()


__all__ = ["check_order", "fingerprint", "kept_order", "read_start"]
