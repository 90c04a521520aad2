"""What the CLI prints reaches a terminal: user text (ids, parameters, names, messages quoting them)
must never move the cursor, recolour the screen or set the window title.

:func:`printable` shows every control character of a string escaped (``\\x1b``, ``\\r``, ``\\u202e``);
it is for user strings inside a line the command composes.  :class:`EscapingStream` wraps ``sys.stdout``
and ``sys.stderr`` for the whole command as a backstop: it escapes every control character except the
newline, tab and carriage return the CLI's own output uses (the live progress line redraws with
``\\r``), so an escape sequence that reaches a print site nobody thought of is still shown, not run.
JSON printed by the CLI stays valid: an escape is written ``\\uXXXX``, a valid escape inside a JSON string.
"""
from __future__ import annotations

import re
import sys
from contextlib import contextmanager
from typing import Any, Iterator, TextIO

#: C0 controls, DEL, C1 controls (\x9b is a one-byte CSI), and the bidirectional overrides and isolates
#: that reorder what a terminal shows (Trojan Source)
_OTHERS = "\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_ALL = re.compile(f"[\x00-\x1f{_OTHERS}]")
#: the same but for tab (\x09), newline (\x0a) and carriage return (\x0d)
_BUT_LAYOUT = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f{_OTHERS}]")
_NAMED = {"\t": r"\t", "\n": r"\n", "\r": r"\r"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    return _NAMED.get(ch) or f"\\u{ord(ch):04x}"


def printable(text: Any) -> str:
    """``str(text)`` with every control character (newlines and tabs included) shown escaped: on one line."""
    return _ALL.sub(_escape, str(text))


class EscapingStream:
    """A text stream that writes through ``raw`` with every control character but ``\\n``, ``\\t`` and ``\\r``
    escaped; everything else (``isatty``, ``fileno``, ``flush``, ``encoding``) is the wrapped stream's."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(_BUT_LAYOUT.sub(_escape, text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


@contextmanager
def escaping_output() -> Iterator[None]:
    """Wrap ``sys.stdout`` and ``sys.stderr`` in :class:`EscapingStream` for the duration of a command."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (s if isinstance(s, EscapingStream) or s is None else EscapingStream(s) for s in saved)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
