""""Did you mean ...?" for a mistyped name (a solver, a suite, an instance id)."""
from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(name: str, known: Iterable[str], *, limit: int = 3, cutoff: float = 0.6) -> str:
    """``" did you mean 'edgecut-full'?"`` (with its leading space) when ``name`` is close to known names,
    else ``""``: written after the ``;`` of a message, ``f"unknown solver {name!r};{did_you_mean(...)} available: ..."``.

    Case is ignored when comparing, so ``EdgeCut-Full`` finds ``edgecut-full``.  ``cutoff`` is difflib's
    similarity ratio (0..1) a known name needs; long names that share most of their text (instance ids) want
    a higher one.
    """
    known = list(dict.fromkeys(known))
    by_lower: dict[str, str] = {}
    for k in known:
        by_lower.setdefault(k.lower(), k)
    close = difflib.get_close_matches(str(name).lower(), list(by_lower), n=limit, cutoff=cutoff)
    if not close:
        return ""
    shown = " or ".join(repr(by_lower[c]) for c in close)
    return f" did you mean {shown}?"
