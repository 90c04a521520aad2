"""JSON result documents: strict reading and writing shared by every problem kind and the store.

Infinite or NaN values are written as ``null`` (strict JSON); numpy scalars and
arrays serialise as plain numbers and lists; a missing or mistyped field is a
one-line error naming it.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from hopbench.harness import inputs
from hopbench.harness.errors import HopbenchError


def finite_or_none(x: float) -> float | None:
    return None if x is None or math.isinf(x) or math.isnan(x) else (int(x) if float(x).is_integer() and
                                                                       abs(x) < 2**53 else float(x))


def json_default(value: Any) -> Any:
    """``json.dumps(default=...)`` hook for numpy scalars and arrays."""
    if hasattr(value, "tolist"):  # numpy scalars and arrays, without importing numpy here
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def strict_json(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None, so it dumps as strict JSON."""
    if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
        return None
    if isinstance(value, dict):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(v) for v in value]
    return value


def dumps(doc: dict[str, Any], *, indent: int | None = None) -> str:
    return json.dumps(doc, indent=indent, allow_nan=False)


def read_json(path: str | Path) -> dict[str, Any]:
    """Read a JSON object from a file, gzipped or not (published boards gzip their large solution
    files); unreadable input raises :class:`HopbenchError`.

    The file goes through :func:`hopbench.harness.inputs.read_text` (regular files only, bounded size and
    decompression, UTF-8) and :func:`hopbench.harness.inputs.check_nesting` before the parser sees it.
    """
    p = Path(path)
    return parse_json(inputs.read_text(p, "file"), str(p))


def parse_json(text: str, where: str) -> dict[str, Any]:
    """The JSON object in ``text`` (read from ``where``, which errors name), nesting checked before parsing."""
    inputs.check_nesting(text, where)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HopbenchError(f"{where} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:  # check_nesting counts brackets; this is the fallback should the parser still recurse
        raise HopbenchError(f"{where} nests too deeply to be read; flatten the document") from None
    except ValueError as exc:  # e.g. an integer of thousands of digits
        raise HopbenchError(f"{where} is not valid JSON ({str(exc).split(';')[0]})") from None
    if not isinstance(doc, dict):
        raise HopbenchError(f"{where} must hold a JSON object with a \"format\" field, got {type(doc).__name__}")
    return doc


def field(doc: dict[str, Any], key: str, types: type | tuple, where: str = "", *, optional: bool = False,
          document: str = "", guide: str = "see the format in docs/cli.md (Solution files)") -> Any:
    """``doc[key]`` checked against ``types``; a missing or mistyped field is a one-line error.

    ``where`` prefixes the field's name (``problem.``), ``document`` names the kind of
    document in the message and ``guide`` says where its format is described.
    """
    name = f"{where}{key}"
    prefix = f"{document}: " if document else ""
    if key not in doc or (doc[key] is None and optional):
        if optional:
            return None
        raise HopbenchError(f"{prefix}missing field {name!r}; {guide}")
    value = doc[key]
    types_t = types if isinstance(types, tuple) else (types,)
    if (isinstance(value, bool) and bool not in types_t) or not isinstance(value, types_t):
        expected = " or ".join(t.__name__ for t in types_t)
        raise HopbenchError(f"{prefix}field {name!r} must be {expected}, got {type(value).__name__} {value!r:.40}")
    return value
