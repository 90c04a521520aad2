"""Graph Golf edge lists: ``u v`` per line, vertices from 0 (DIMACS-style files are read too)."""
from __future__ import annotations

from array import array
from pathlib import Path
from typing import Any

import numpy as np

from hopbench.harness import caps, inputs
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph


def read_edge_file(path: str | Path) -> Graph:
    """Read a Graph Golf edge list (``u v`` per line, vertices from 0).

    DIMACS-style files (``c`` comments, ``p edge n m``, ``e u v`` from 1) are
    accepted too.  Blank lines and ``#`` comments are ignored.  The vertex
    count is the declared ``n`` if any, else the largest id plus one.

    The file is read through :func:`hopbench.harness.inputs.read_text` (regular files
    only, bounded size and decompression), and the vertex and edge counts are
    checked against :data:`caps.VERTICES` and :data:`caps.EDGES` line by line,
    before anything of their size is allocated.  Lines are read one at a time, each at most
    :data:`caps.LINE_CHARS` long (a 63 MiB line split into words took 1.9 GB), and the edges are
    kept as packed 64-bit pairs (16 bytes an edge, not a Python tuple's hundred).
    """
    p = Path(path)
    text = inputs.read_text(p, "edge file")
    max_vertices, max_edges, max_line = caps.VERTICES.limit(), caps.EDGES.limit(), caps.LINE_CHARS.limit()
    edges = array("q")  # u0, v0, u1, v1, ...
    declared_n = None
    for lineno, line in enumerate(_lines(text, max_line, p), 1):
        s = line.split("#", 1)[0].split()
        if not s or s[0] == "c":
            continue
        if s[0] == "p":
            declared_n = _header(s, p, lineno, line)
            continue
        try:
            if s[0] == "e":
                u, v = int(s[1]) - 1, int(s[2]) - 1
                extra = s[3:]
            else:
                u, v = int(s[0]), int(s[1])
                extra = s[2:]
        except (ValueError, IndexError):
            raise HopbenchError(f"{p}:{lineno}: expected two vertex ids 'u v', got {line.strip()!r:.80}") from None
        if extra:
            raise HopbenchError(f"{p}:{lineno}: expected two vertex ids 'u v', got {line.strip()!r:.80}")
        if u < 0 or v < 0:
            raise HopbenchError(f"{p}:{lineno}: negative vertex id in {line.strip()!r:.80}; ids start at 0")
        if u == v:
            raise HopbenchError(f"{p}:{lineno}: self-loop {line.strip()!r:.80}; remove it")
        if u >= max_vertices or v >= max_vertices:
            # an id of 10^12 would be a 10^12-vertex graph: refuse it here, not in the allocator
            caps.VERTICES.check(max(u, v) + 1, f"{p}:{lineno}: the vertex count this id implies")
        if len(edges) >= 2 * max_edges:
            caps.EDGES.check(len(edges) // 2 + 1, f"{p}:{lineno}: the edge count (so far)")
        edges.append(u)
        edges.append(v)
    if not edges and declared_n is None:
        raise HopbenchError(f"edge file {str(p)!r} holds no edges; expected 'u v' lines")
    pairs = np.frombuffer(edges, dtype=np.int64).reshape(-1, 2) if edges else np.empty((0, 2), dtype=np.int64)
    top = int(pairs.max()) if edges else -1
    n = declared_n if declared_n is not None else top + 1
    if top >= n:
        raise HopbenchError(f"{p}: a vertex id is >= the declared n = {n}")
    try:
        return Graph(n, pairs, dedupe=False)
    except HopbenchError as exc:
        raise HopbenchError(f"{p}: {exc}") from None


def _lines(text: str, max_line: int, p: Path):
    """The lines of ``text`` one at a time (``\\n``, ``\\r\\n`` or, in a file without ``\\n``, ``\\r`` ends),
    each measured before it is copied: a line over ``max_line`` characters is an error."""
    if "\n" not in text:
        text = text.replace("\r", "\n")
    start, lineno = 0, 1
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if end - start > max_line:
            caps.LINE_CHARS.check(end - start, f"{p}:{lineno}: the line's length")
        yield text[start:end]
        start, lineno = end + 1, lineno + 1


def _header(s: list[str], p: Path, lineno: int, line: str) -> int:
    """The vertex count of a DIMACS ``p edge N M`` header, its counts checked against the caps."""
    try:
        counts = [int(x) for x in s[2:4]]
    except ValueError:
        counts = []
    if not counts:
        raise HopbenchError(f"{p}:{lineno}: expected a header 'p edge N M', got {line.strip()!r:.80}")
    caps.VERTICES.check(counts[0], f"{p}:{lineno}: the declared vertex count")
    if len(counts) > 1:
        caps.EDGES.check(counts[1], f"{p}:{lineno}: the declared edge count")
    return counts[0]


def edge_list_text(graph: Graph) -> str:
    """A Graph Golf edge list: one ``u v`` line per edge."""
    return "".join(f"{u} {v}\n" for u, v in graph.edges.tolist())


def write_edge_list(graph: Graph, path: str | Path, *, force: bool = False) -> None:
    """Write :func:`edge_list_text` to ``path`` (never through a link, nor over a file hopbench did not write
    unless ``force``: :func:`hopbench.harness.outputs.write_output_file`)."""
    from hopbench.harness.outputs import write_output_file

    write_output_file(path, edge_list_text(graph), force=force)


def pairs_from_json(value: Any, name: str) -> np.ndarray:
    """A JSON list of ``[u, v]`` integer pairs as an ``(k, 2)`` int64 array."""
    if not isinstance(value, list):
        raise HopbenchError(f"field {name!r} must be a list of [u, v] pairs")
    caps.EDGES.check(len(value), f"field {name!r}: the number of pairs")
    for i, pair in enumerate(value):
        if (not isinstance(pair, list) or len(pair) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in pair)):
            raise HopbenchError(f"field {name!r}: entry #{i} {pair!r:.40} is not a pair of integers [u, v]")
    try:
        return np.asarray(value, dtype=np.int64).reshape(-1, 2)
    except OverflowError:
        raise HopbenchError(f"field {name!r}: a vertex id does not fit in 64 bits; ids run from 0 to n-1") from None


