"""Plug-in modules named in an environment variable (solvers, problem kinds) that are not installed."""
from __future__ import annotations

import importlib
import os
from typing import Callable

from hopbench.harness.errors import HopbenchError


def named_modules(variable: str) -> list[str]:
    """The module names listed (comma-separated) in ``$variable``."""
    return list(dict.fromkeys(filter(None, (m.strip() for m in os.environ.get(variable, "").split(",")))))


def failure_text(exc: BaseException, limit: int = 200) -> str:
    """What went wrong in a plug-in, on one line: the exception's type and the first line of its message
    (a ``SyntaxError`` with its file and line; ``SystemExit`` with its code)."""
    from hopbench.harness.terminal import printable

    if isinstance(exc, SyntaxError):
        where = f" ({os.path.basename(exc.filename or '?')}, line {exc.lineno})"
        message = f"{exc.msg}{where}"
    elif isinstance(exc, SystemExit):
        message = f"exit code {exc.code!r}"
    else:
        message = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
    text = printable(f"{type(exc).__name__}: {message}" if message else type(exc).__name__)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def import_plugin(module: str, on_failure: Callable[[BaseException], None] | None = None) -> bool:
    """Import one plug-in module; anything it raises at import (``SystemExit`` and syntax errors included, only
    ``KeyboardInterrupt`` passes) goes to ``on_failure`` and gives False, so one broken plug-in never stops hopbench."""
    try:
        importlib.import_module(module)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - a plug-in's own code: whatever it raises is its failure
        if on_failure is None:
            raise
        on_failure(exc)
        return False
    return True


def import_named_modules(variable: str, done: set[str], what: str) -> None:
    """Import every module listed (comma-separated) in ``$variable`` that is not in ``done`` yet.

    Called on every registry lookup, because a variable may be set after the first one (tests);
    a module that cannot be imported, or fails while it is, is a one-line error naming it and the variable.
    """
    for module in named_modules(variable):
        if module not in done:
            def fail(exc: BaseException) -> None:
                raise HopbenchError(f"cannot import {what} module {module!r} named in {variable} "
                                    f"({failure_text(exc)}); fix it, or take it out of {variable}") from None
            import_plugin(module, fail)
            done.add(module)
