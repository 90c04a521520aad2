"""Result files from Python: save a solution, load it back, verify it from scratch.

The files are the ones ``hopbench solve -o`` and ``hopbench route -o`` write (``hopbench.solution/1``,
``hopbench.routes/1``): self-contained JSON that ``hopbench verify`` re-checks on any machine.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hopbench.harness.errors import HopbenchError


def save(solution: Any, path: str | os.PathLike, *, force: bool = False) -> Path:
    """Write ``solution``'s result document to ``path`` (whole or not at all); returns the path.  A file there
    that hopbench did not write (or that changed since) is refused unless ``force``."""
    from hopbench.harness.documents import dumps
    from hopbench.harness.outputs import write_output_file

    if not hasattr(solution, "to_dict"):
        raise HopbenchError(f"cannot save a {type(solution).__name__}; give a solution that hopbench.solve returned "
                            f"or hopbench.load read")
    out = Path(path)
    if out.is_dir():
        raise HopbenchError(f"cannot write {out}: it is a directory; give a file name such as {out / 'solution.json'}")
    if not out.parent.exists():
        raise HopbenchError(f"cannot write {out}: directory {out.parent} does not exist")
    write_output_file(out, dumps(solution.to_dict(), indent=1) + "\n", force=force)
    return out


def _document(source: Any) -> dict[str, Any]:
    from hopbench.harness.documents import read_json

    if isinstance(source, dict):
        return source
    if isinstance(source, (str, os.PathLike)):
        return read_json(source)
    if hasattr(source, "to_dict"):
        return source.to_dict()
    raise HopbenchError(f"cannot read a result from a {type(source).__name__}; give a file path, a parsed document "
                        f"or a solution")


def load(source: str | os.PathLike | dict[str, Any]) -> Any:
    """The solution a result file (or parsed document) holds, by its ``format``: a ``Solution`` or a
    ``RoutingTable``, with its solver, parameters, seed and elapsed time.  Loading checks the file's
    shape, not its claims: :func:`verify` recomputes everything."""
    from hopbench.harness.problems.registry import kind_of_format

    doc = _document(source)
    fmt = doc.get("format")
    if not isinstance(fmt, str):
        raise HopbenchError("missing field 'format'; a hopbench result file names its format, "
                            "e.g. \"hopbench.solution/1\"")
    return kind_of_format(fmt).read(doc)


def verify(source: Any) -> Any:
    """Re-verify a result from scratch, as ``hopbench verify`` does: its validity, then every stored metric.

    ``source`` is a file path, a parsed document or a solution object.  Returns a ``Verdict`` with
    ``valid``, ``reason`` (why not), ``metrics`` (recomputed) and ``stored``; an unreadable file raises
    :class:`HopbenchError`.
    """
    from hopbench.harness.problems.registry import verify_document

    return verify_document(_document(source))
