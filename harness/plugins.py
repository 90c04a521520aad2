"""Plug-in modules named in an environment variable (solvers, problem kinds) that are not installed."""
from __future__ import annotations

import importlib
import os

from harness.errors import HopbenchError


def import_named_modules(variable: str, done: set[str], what: str) -> None:
    """Import every module listed (comma-separated) in ``$variable`` that is not in ``done`` yet.

    Called on every registry lookup, because a variable may be set after the first one (tests);
    a module that cannot be imported is a one-line error naming it and the variable.
    """
    for module in filter(None, (m.strip() for m in os.environ.get(variable, "").split(","))):
        if module not in done:
            try:
                importlib.import_module(module)
            except ImportError as exc:
                raise HopbenchError(f"cannot import {what} module {module!r} named in {variable} ({exc})") from None
            done.add(module)
