"""The competition's edge files for grid graphs: one edge per line, ``x1,y1 x2,y2`` (no spaces inside a
cell, coordinates from 0), as Graph Golf's submission page and ODP's ``sample/graph/grid`` files give them.

The file does not state the grid's size or the degree: a reader is given the problem, or takes the
smallest grid holding every cell named (as ODP's reader does).
"""
from __future__ import annotations

import re

import numpy as np

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.grid.problem import GridProblem

_LINE = re.compile(r"^\s*(\d+),(\d+)\s+(\d+),(\d+)\s*$")


def write_edges(problem: GridProblem, edges: np.ndarray) -> str:
    """The edge list in the competition's format."""
    e = np.asarray(edges, np.int64).reshape(-1, 2)
    xu, yu = problem.coordinates(e[:, 0])
    xv, yv = problem.coordinates(e[:, 1])
    return "".join(f"{a},{b} {c},{d}\n" for a, b, c, d in zip(xu.tolist(), yu.tolist(), xv.tolist(), yv.tolist()))


def read_cells(text: str, where: str = "grid edge file") -> np.ndarray:
    """``(m, 4)`` int64 rows ``x1, y1, x2, y2``; a malformed line is a one-line error naming it."""
    caps.INPUT_BYTES.check(len(text), f"{where}: its size in bytes")
    rows = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _LINE.match(line)
        if m is None:
            raise HopbenchError(f"{where}, line {i}: {line.strip()[:40]!r} is not an edge 'x1,y1 x2,y2' "
                                f"(two cells, coordinates from 0)")
        rows.append([int(g) for g in m.groups()])
        caps.EDGES.check(len(rows), f"{where}: its number of edges")
    return np.asarray(rows, np.int64).reshape(-1, 4)


def read_edges(text: str, problem: GridProblem, where: str = "grid edge file") -> np.ndarray:
    """The edges of a competition file as vertex pairs of ``problem`` (a cell outside its grid is an error)."""
    cells = read_cells(text, where)
    for col, size, axis in ((0, problem.width, "x"), (1, problem.height, "y")):
        coords = cells[:, [col, col + 2]]
        if coords.size and coords.max() >= size:
            raise HopbenchError(f"{where}: {axis} = {int(coords.max())} lies outside the {problem.width} x "
                                f"{problem.height} grid; give the file of this problem")
    return np.stack([problem.vertex(cells[:, 0], cells[:, 1]), problem.vertex(cells[:, 2], cells[:, 3])], axis=1)


def grid_size(text: str, where: str = "grid edge file") -> tuple[int, int]:
    """(width, height) of the smallest grid holding every cell a file names."""
    cells = read_cells(text, where)
    if not cells.size:
        raise HopbenchError(f"{where} holds no edge")
    return int(cells[:, [0, 2]].max()) + 1, int(cells[:, [1, 3]].max()) + 1
