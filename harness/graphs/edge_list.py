"""Graph Golf edge lists: ``u v`` per line, vertices from 0 (DIMACS-style files are read too)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from harness.errors import HopbenchError
from harness.graphs.graph import Graph


def read_edge_file(path: str | Path) -> Graph:
    """Read a Graph Golf edge list (``u v`` per line, vertices from 0).

    DIMACS-style files (``c`` comments, ``p edge n m``, ``e u v`` from 1) are
    accepted too.  Blank lines and ``#`` comments are ignored.  The vertex
    count is the declared ``n`` if any, else the largest id plus one.
    """
    p = Path(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise HopbenchError(f"edge file {str(p)!r} does not exist; check the path") from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError, OSError) as exc:
        raise HopbenchError(f"cannot read edge file {str(p)!r} ({exc.__class__.__name__}); "
                            f"give a readable text file of 'u v' lines") from None
    edges: list[tuple[int, int]] = []
    declared_n = None
    for lineno, line in enumerate(text.splitlines(), 1):
        s = line.split("#", 1)[0].split()
        if not s or s[0] == "c":
            continue
        try:
            if s[0] == "p":
                declared_n = int(s[2])
                continue
            if s[0] == "e":
                u, v = int(s[1]) - 1, int(s[2]) - 1
                extra = s[3:]
            else:
                u, v = int(s[0]), int(s[1])
                extra = s[2:]
        except (ValueError, IndexError):
            raise HopbenchError(f"{p}:{lineno}: expected two vertex ids 'u v', got {line.strip()!r}") from None
        if extra:
            raise HopbenchError(f"{p}:{lineno}: expected two vertex ids 'u v', got {line.strip()!r}")
        if u < 0 or v < 0:
            raise HopbenchError(f"{p}:{lineno}: negative vertex id in {line.strip()!r}; ids start at 0")
        if u == v:
            raise HopbenchError(f"{p}:{lineno}: self-loop {line.strip()!r}; remove it")
        edges.append((u, v))
    if not edges and declared_n is None:
        raise HopbenchError(f"edge file {str(p)!r} holds no edges; expected 'u v' lines")
    n = declared_n if declared_n is not None else max(max(e) for e in edges) + 1
    if edges and max(max(e) for e in edges) >= n:
        raise HopbenchError(f"{p}: a vertex id is >= the declared n = {n}")
    try:
        return Graph(n, edges, dedupe=False)
    except HopbenchError as exc:
        raise HopbenchError(f"{p}: {exc}") from None


def edge_list_text(graph: Graph) -> str:
    """A Graph Golf edge list: one ``u v`` line per edge."""
    return "".join(f"{u} {v}\n" for u, v in graph.edges.tolist())


def write_edge_list(graph: Graph, path: str | Path) -> None:
    """Write :func:`edge_list_text` to ``path``."""
    Path(path).write_text(edge_list_text(graph))


def pairs_from_json(value: Any, name: str) -> np.ndarray:
    """A JSON list of ``[u, v]`` integer pairs as an ``(k, 2)`` int64 array."""
    if not isinstance(value, list):
        raise HopbenchError(f"field {name!r} must be a list of [u, v] pairs")
    for i, pair in enumerate(value):
        if (not isinstance(pair, list) or len(pair) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in pair)):
            raise HopbenchError(f"field {name!r}: entry #{i} {pair!r:.40} is not a pair of integers [u, v]")
    return np.asarray(value, dtype=np.int64).reshape(-1, 2)


