"""Reading untrusted input files: regular files only, bounded size and decompression, UTF-8, bounded nesting.

Every loader of user files (edge lists, solution and result documents, suite
files, boards) reads through :func:`read_text`, so ``/dev/zero``, a FIFO, a gzip
bomb, a binary file or a 100,000-deep JSON list ends in one line of error
before memory or time run away.
"""
from __future__ import annotations

import os
import stat
import zlib
from pathlib import Path

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError

_GZIP_MAGIC = b"\x1f\x8b"
#: texts up to this size get the exact (string-aware, pure Python) nesting scan when the fast bound is high
_EXACT_SCAN_CHARS = 4 * 2**20


def read_bytes(path: str | Path, what: str = "input file") -> bytes:
    """The bytes of a regular file, decompressed when gzip, at most :data:`caps.INPUT_BYTES` of them."""
    p = Path(path)
    limit = caps.INPUT_BYTES.limit()
    try:
        info = p.stat()
    except FileNotFoundError:
        raise HopbenchError(f"{what} {str(p)!r} does not exist; check the path") from None
    except OSError as exc:
        raise HopbenchError(f"cannot read {what} {str(p)!r} ({exc.strerror or exc.__class__.__name__})") from None
    except ValueError:  # a NUL byte in the path (from a document, say): no file can have that name
        raise HopbenchError(f"{what} {str(p)!r:.80} is not a valid path (it holds a NUL byte)") from None
    if stat.S_ISDIR(info.st_mode):
        raise HopbenchError(f"{what} {str(p)!r} is a directory; give a file")
    if not stat.S_ISREG(info.st_mode):
        # /dev/zero, a FIFO or a socket never ends (or blocks): refuse before opening it
        raise HopbenchError(f"{what} {str(p)!r} is not a regular file; give a file on disk")
    caps.INPUT_BYTES.check(info.st_size, f"{what} {str(p)!r}")
    try:
        with open(p, "rb") as fh:
            # sized by stat(), not by the cap: a small file costs a small buffer
            raw = fh.read(min(info.st_size, limit) + 1)
            if len(raw) > info.st_size:  # it grew since stat(): read on, still bounded by the cap
                raw += fh.read(limit + 1 - len(raw))
    except OSError as exc:
        raise HopbenchError(f"cannot read {what} {str(p)!r} ({exc.strerror or exc.__class__.__name__})") from None
    caps.INPUT_BYTES.check(len(raw), f"{what} {str(p)!r}")
    if raw[:2] == _GZIP_MAGIC:
        raw = _gunzip(raw, limit, f"{what} {str(p)!r}")
    return raw


def _gunzip(raw: bytes, limit: int, what: str) -> bytes:
    """Decompress gzip ``raw`` (several members allowed), refusing more than ``limit`` bytes of output."""
    out = bytearray()
    data = raw
    try:
        while data:
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out += inflater.decompress(data, limit + 1 - len(out))
            if len(out) > limit:
                caps.INPUT_BYTES.check(len(out), f"{what} (decompressed)")
            if not inflater.eof:
                raise HopbenchError(f"{what} is a truncated gzip stream; give the whole file")
            data = inflater.unused_data
            if data and data[:2] != _GZIP_MAGIC:
                break  # trailing garbage after the last member, as gzip(1) tolerates
    except zlib.error as exc:
        raise HopbenchError(f"{what} is a corrupt gzip stream ({exc}); give an intact file") from None
    return bytes(out)


def read_text(path: str | Path, what: str = "input file") -> str:
    """:func:`read_bytes` decoded as UTF-8 (a byte-order mark is dropped)."""
    raw = read_bytes(path, what)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise HopbenchError(f"{what} {str(path)!r} is not UTF-8 text (byte {exc.start}); "
                            f"give a text file") from None


def check_nesting(text: str, what: str) -> None:
    """Refuse a JSON or TOML text whose brackets nest deeper than :data:`caps.NESTING`.

    Counted on the raw text with strings skipped, before a parser recurses into it.
    """
    limit = caps.NESTING.limit()
    if text.count("[") + text.count("{") <= limit:
        return  # cannot nest deeper than it has brackets
    import numpy as np

    # fast bound first: bracket depth with strings and comments counted too (never below the true depth)
    codes = np.frombuffer(text.encode("utf-8", "replace"), dtype=np.uint8)
    steps = np.zeros(len(codes), dtype=np.int32)
    steps[(codes == ord("[")) | (codes == ord("{"))] = 1
    steps[(codes == ord("]")) | (codes == ord("}"))] = -1
    if len(steps) == 0 or int(np.cumsum(steps).max()) <= limit:
        return
    if len(text) > _EXACT_SCAN_CHARS:
        caps.NESTING.check(int(np.cumsum(steps).max()), f"{what}: nesting (brackets in strings counted)")
    depth = deepest = 0
    quote = ""  # the open string's quote character, if any
    escaped = comment = False
    for ch in text:
        if comment:
            comment = ch != "\n"
        elif quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote or (ch == "\n" and quote == "'"):
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            comment = True  # a TOML comment (JSON has none)
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    caps.NESTING.check(deepest, f"{what}: nesting")
        elif ch in "]}":
            depth = max(0, depth - 1)


def is_same_file(a: str | Path, b: str | Path) -> bool:
    """True when two paths name the same file on disk (hard links and symlinks included)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
