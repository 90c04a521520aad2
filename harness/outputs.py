"""Safe output paths: no command writes over a file it reads, and directory outputs touch only their own files.

* :func:`refuse_overwriting_inputs` compares an output path with every path the
  command reads (``os.path.samefile``, so symlinks and hard links count, and the
  resolved path for files that do not exist yet), including the SQLite file behind a
  storage URL and its ``-wal``, ``-shm`` and ``-journal`` companions
  (:func:`sqlite_paths`): ``results -o x.db`` must not replace the store it exports.
* :class:`OwnedDirectory` writes a tree of files (a board, the site) and records
  them in ``.hopbench-manifest.json`` with their SHA-256.  The next build removes
  only the files of that list that it no longer writes and that still hold the
  bytes it wrote; a file it never wrote is never deleted.  Every relative path is
  checked first: no absolute paths, no ``..``, every part a :func:`safe_name`, and
  no symlink that leads out of the directory.
"""
from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from hopbench.harness.errors import HopbenchError

#: the list of files an :class:`OwnedDirectory` wrote, kept in that directory
MANIFEST = ".hopbench-manifest.json"
MANIFEST_FORMAT = "hopbench.manifest/1"
#: letters, digits, '.', '_', '-', not starting with a dot or a dash (no hidden files, no option look-alikes)
_SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
#: longer names are refused: a file name is at most 255 bytes, and a suffix is added to some
MAX_NAME = 200
_SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")

PathLike = str | os.PathLike


def safe_name(name: Any, what: str) -> str:
    """``name`` when it can be one part of a path: letters, digits, ``.``, ``_``, ``-``, no leading dot or dash.

    Anything else (``..``, ``a/b``, an absolute path, a hidden name, an empty or very long one)
    is a one-line error: names that come from documents (a board's suite) must not steer a write.
    """
    if not isinstance(name, str) or not _SAFE_NAME.fullmatch(name) or len(name) > MAX_NAME:
        shown = repr(name) if isinstance(name, str) and len(name) <= MAX_NAME else f"{str(name)[:40]!r}..."
        raise HopbenchError(f"{what} {shown} cannot name a file or directory; use letters, digits, '.', '_' and "
                            f"'-' (not starting with '.' or '-', at most {MAX_NAME} characters)")
    return name


def sqlite_paths(url: str | None) -> list[Path]:
    """The database file behind a SQLite storage URL and its ``-wal``, ``-shm`` and ``-journal`` files;
    empty for other databases, in-memory ones and strings that are not URLs."""
    if not url:
        return []
    try:
        from sqlalchemy.engine import make_url

        parsed = make_url(url)
        backend = parsed.get_backend_name()
    except Exception:  # not a URL: Store.open says so
        return []
    database = parsed.database
    if backend != "sqlite" or not database or database == ":memory:":
        return []
    names = [database]
    if database.startswith("file:"):
        # a URI filename (sqlite:///file:x.db?uri=true); without uri=true SQLite may take it literally: both
        if parsed.query.get("mode") == "memory":
            return []
        names.append(unquote(urlsplit(database).path))
    return [Path(name + suffix) for name in names if name for suffix in ("", *_SQLITE_COMPANIONS)]


def store_files(url: str | None) -> dict[Path, str]:
    """:func:`sqlite_paths` of ``url``, each described for an error message (SQLite URLs hold no password)."""
    out = {}
    for path in sqlite_paths(url):
        suffix = next((s for s in _SQLITE_COMPANIONS if path.name.endswith(s)), None)
        out[path] = f"the {suffix} file of the results store {url}" if suffix else f"the results store {url}"
    return out


def same_path(a: PathLike, b: PathLike) -> bool:
    """Whether two paths name one file: the same file on disk (hard links and symlinks included), or,
    for a file that does not exist yet, the same path once symlinks are resolved."""
    try:
        if os.path.samefile(a, b):
            return True
    except OSError:
        pass  # one of them does not exist (yet)
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def refuse_overwriting_inputs(out: PathLike, inputs: Mapping[PathLike, str] | Iterable[PathLike],
                              what: str = "-o") -> None:
    """Raise a one-line error when ``out`` is one of the files the command reads.

    ``inputs`` maps each path read to what it is (``"the suite file"``), or is a plain list of paths;
    ``None`` entries are skipped.  Use :func:`store_files` for a storage URL.
    """
    described = inputs.items() if isinstance(inputs, Mapping) else ((p, "an input") for p in inputs)
    for path, name in described:
        if path is not None and same_path(out, path):
            shown = f" ({path})" if os.fspath(path) not in name else ""
            raise HopbenchError(f"{what} {os.fspath(out)} is {name}{shown}, which this command reads; writing "
                                f"there would destroy it: give another output path")


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_digest(path: Path) -> str | None:
    """SHA-256 of a regular file (not following a symlink); None when it is anything else or unreadable."""
    try:
        if not path.is_file() or path.is_symlink():
            return None
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()
    except OSError:
        return None


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def replace_file(target: Path, data: bytes, hint: str) -> None:
    """Write ``data`` to ``target`` whole or not at all: a temporary file beside it, renamed over it (a link at
    that path is replaced, never written through).  A failure is a one-line error ending in ``hint``, and
    no temporary file is left behind, whatever stopped the write (a full disk, Ctrl-C)."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    if len(os.fsencode(tmp.name)) > 255:  # a long target name must not fail for its temporary's sake
        tmp = target.with_name(f".hopbench-{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        # mode 0o666 minus the umask, like open(..., "w"): an output is as readable as any other file;
        # O_EXCL | O_NOFOLLOW: a link planted at the temporary's name is never followed
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except OSError as exc:
        raise HopbenchError(f"cannot write {target} ({exc.strerror or exc.__class__.__name__}); {hint}") from None
    finally:
        tmp.unlink(missing_ok=True)  # gone already after the rename


#: paths a user types to mean a stream, not a file: written to directly (through their links)
_STREAM_PREFIXES = ("/dev/stdout", "/dev/stderr", "/dev/null", "/dev/tty", "/dev/full", "/dev/fd/", "/proc/self/fd/")


def write_output_file(path: PathLike, content: str | bytes, *, force: bool = False) -> None:
    """Write an ``-o`` file whole or not at all, never through a link: every command's single-file output
    goes here.

    A missing file, a symlink (whatever it points to) or a regular file that hopbench wrote
    (:func:`check_ours`; any file with ``force``) is replaced atomically (:func:`replace_file`: the link
    itself is replaced, its target is never written).  A stream the user names itself (``/dev/stdout``,
    ``/dev/null``, ``/dev/full``...) or a FIFO or character device at the path itself is written directly,
    opened with ``O_NOFOLLOW``.  A failure is a one-line error and leaves no partial file.
    """
    out = Path(path)
    data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
    hint = "check the output path, its permissions and the free space"
    text = os.fspath(out)
    try:
        mode = os.lstat(out).st_mode
    except OSError:
        mode = None
    stream = text.startswith(_STREAM_PREFIXES) or (mode is not None and (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)))
    if mode is not None and stat.S_ISDIR(mode):
        raise HopbenchError(f"cannot write {out}: it is a directory; give a file name such as {out / 'out.json'}")
    if not stream:
        if not force:
            check_ours(out)
        replace_file(out, data, hint)
        _record_output(out, _digest(data))
        return
    flags = os.O_WRONLY | (0 if text.startswith(_STREAM_PREFIXES) else getattr(os, "O_NOFOLLOW", 0))
    fifo = mode is not None and stat.S_ISFIFO(mode)
    try:
        # a FIFO nobody reads would block the open for ever: opened without waiting, it is an error instead
        fd = os.open(out, flags | (os.O_NONBLOCK if fifo else 0))
        if fifo:
            os.set_blocking(fd, True)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        if fifo and exc.errno == errno.ENXIO:
            raise HopbenchError(f"cannot write {out}: it is a FIFO that no process is reading; start the reader "
                                f"first, or give a file name") from None
        raise HopbenchError(f"cannot write {out} ({exc.strerror or exc.__class__.__name__}); {hint}") from None


#: the signed list of the single files hopbench wrote (path and content), in the user's data directory
LEDGER_FILE = "outputs.ledger"
#: past this size the ledger keeps its newer half (a line per file written: some 65,000 lines)
MAX_LEDGER_BYTES = 4 << 20


def _ledger_tag(key: bytes, path: Path, digest: str) -> str:
    # the parent resolved, the name itself not: a link at the output path is a different file from its target
    where = os.path.join(os.path.realpath(path.parent), path.name)
    return hmac.new(key, f"{where}\0{digest}".encode(), hashlib.sha256).hexdigest()


def _record_output(path: Path, digest: str) -> None:
    """Add (path, content) of an output just written to this user's ledger; best effort: a ledger that cannot
    be written only means the file must be overwritten with ``--force`` later."""
    key = manifest_key()
    if key is None:
        return
    ledger = user_data_dir() / LEDGER_FILE
    try:
        fd = os.open(ledger, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "ab") as fh:
            fh.write((_ledger_tag(key, path, digest) + "\n").encode())
        if ledger.stat().st_size > MAX_LEDGER_BYTES:
            lines = ledger.read_bytes().splitlines(keepends=True)
            replace_file(ledger, b"".join(lines[len(lines) // 2:]), "the output ledger")
    except (OSError, HopbenchError):
        pass


def check_ours(path: PathLike) -> None:
    """A one-line error when ``path`` is a non-empty regular file that does not hold exactly what hopbench last
    wrote there (by this user's ledger): a file someone else wrote, or one edited since, is never overwritten
    without ``--force``.  Nothing there, a link (replaced, never followed), a device or an empty file (made by
    mktemp, say: nothing to lose) passes."""
    out = Path(path)
    try:
        st = os.lstat(out)
    except OSError:
        return
    if not stat.S_ISREG(st.st_mode) or st.st_size == 0:
        return
    digest = _file_digest(out)
    key = manifest_key(create=False)
    if digest is not None and key is not None:
        tag = _ledger_tag(key, out, digest)
        try:
            fd = os.open(user_data_dir() / LEDGER_FILE, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "rb") as fh:
                if any(line.strip().decode("ascii", "replace") == tag for line in fh):
                    return
        except OSError:
            pass
    raise HopbenchError(f"{os.fspath(out)} exists and hopbench did not write it (or it changed since); "
                        f"give another output path, or --force to overwrite it")


def check_directory_place(path: PathLike) -> None:
    """A one-line error when a file (not a directory) sits where a command will make directory ``path``."""
    if os.path.lexists(path) and not os.path.isdir(path):
        raise HopbenchError(f"cannot write into {os.fspath(path)}: a file of that name is in the way; move it, "
                            f"or choose another output directory")


#: the per-user secret that signs manifests, in the user's data directory (``$HOPBENCH_DATA_DIR`` overrides it)
KEY_FILE = "manifest.key"
DATA_DIR_ENV = "HOPBENCH_DATA_DIR"


def user_data_dir() -> Path:
    """hopbench's per-user data directory: ``$HOPBENCH_DATA_DIR``, else ``~/.local/share/hopbench`` (Linux)."""
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env)
    import platformdirs

    return platformdirs.user_data_path("hopbench")


def manifest_key(*, create: bool = True) -> bytes | None:
    """The secret that signs this user's manifests, made on first use (32 random bytes, mode 0600); None
    when it cannot be read or made (then no manifest is trusted, and nothing is ever removed)."""
    path = user_data_dir() / KEY_FILE
    try:
        if os.path.lexists(path):
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "rb") as fh:
                key = fh.read(256).strip()
            return key if len(key) >= 32 else None
        if not create:
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        key = secrets.token_hex(32).encode()
        with os.fdopen(fd, "wb") as fh:
            fh.write(key)
        return key
    except FileExistsError:  # another process made it a moment ago
        return manifest_key(create=False)
    except OSError:
        return None


def _signature(key: bytes, files: Mapping[str, str]) -> str:
    body = json.dumps({"format": MANIFEST_FORMAT, "files": dict(sorted(files.items()))}, sort_keys=True)
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()


class OwnedDirectory:
    """A directory whose files are written, and later cleaned up, by one writer only.

    ``root`` is created on the first write.  ``inside`` (optional) is the directory
    ``root`` must stay in once symlinks are resolved (the ``-o`` directory);
    ``protect`` maps paths that must never be written to a description (the store the
    command reads, its suite files).  Use it as a context manager: on success the files
    of the previous manifest that were not written again and still hold what was written
    are removed and the new manifest is saved; after an error nothing is removed and the
    manifest lists the old and the new files.

    Only our files are ours: the manifest is trusted only when this user's hopbench signed it
    (an HMAC with :func:`manifest_key`), and a file hopbench did not write (absent from that
    manifest, or changed since) is never overwritten unless ``force``.  ``expect`` names the
    files every build writes, checked so when the directory is opened, before anything is written.
    """

    def __init__(self, root: PathLike, *, inside: PathLike | None = None,
                 protect: Mapping[PathLike, str] | None = None, force: bool = False,
                 expect: Iterable[str] = ()) -> None:
        self.root = Path(root)
        self.protect = dict(protect or {})
        real_root = os.path.realpath(self.root)
        if inside is not None and not _inside(real_root, os.path.realpath(inside)):
            raise HopbenchError(f"refusing to write into {self.root}: it leads out of {os.fspath(inside)} "
                                f"(a symlink?); remove it or choose another output directory")
        self._real_root = real_root
        check_directory_place(self.root)
        self.force = force
        self.previous = self._read_manifest()
        self.written: dict[str, str] = {}
        self.removed: list[str] = []
        for rel in expect:
            self._refuse_foreign(rel, self.root.joinpath(*rel.split("/")))

    def _refuse_foreign(self, rel: str, target: Path) -> None:
        """A protected file (what the command reads) is never written; a file at ``target`` that hopbench
        did not write there (not in the signed manifest, or changed since) is not ours to overwrite: a
        one-line error, unless ``force``."""
        for path, name in self.protect.items():
            if same_path(target, path):
                raise HopbenchError(f"refusing to write {target}: it is {name}, which this command reads; "
                                    f"choose another output directory")
        if self.force or rel in self.written or not os.path.lexists(target):
            return
        owned = self.previous.get(rel)
        if owned is None or _file_digest(target) != owned:  # a link or a device has no digest: never ours
            raise HopbenchError(f"refusing to overwrite {target}: hopbench did not write it (or it changed since); "
                                f"move it away, or pass --force to overwrite it")

    # ------------------------------------------------------------------ paths

    def path(self, rel: str) -> Path:
        """The checked path of ``rel`` (``solutions/x.json``) under the root; one-line error when it escapes."""
        parts = self._parts(rel)
        if parts is None:
            raise HopbenchError(f"refusing to write {rel!r} under {self.root}: a relative path of names made of "
                                f"letters, digits, '.', '_' and '-' is needed (no '..', no absolute path)")
        target = self.root.joinpath(*parts)
        # the parent directories, and a leaf symlink, must not lead elsewhere
        if not _inside(os.path.realpath(target), self._real_root):
            raise HopbenchError(f"refusing to write {target}: it leads out of {self.root} (a symlink?); "
                                f"remove the link or choose another output directory")
        for depth in range(1, len(parts)):
            check_directory_place(self.root.joinpath(*parts[:depth]))
        return target

    @staticmethod
    def _parts(rel: Any) -> tuple[str, ...] | None:
        if not isinstance(rel, str) or not rel or "\\" in rel or PurePosixPath(rel).is_absolute():
            return None
        parts = tuple(rel.split("/"))
        try:
            for part in parts:
                safe_name(part, "path part")
        except HopbenchError:
            return None
        return parts

    # ------------------------------------------------------------------ writing

    def write_bytes(self, rel: str, data: bytes) -> Path:
        """Write ``data`` to ``rel`` (atomically: a temporary file renamed over the old one, so a link
        at that path is replaced, never written through) and own it."""
        target = self.path(rel)
        self._refuse_foreign(rel, target)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise HopbenchError(f"cannot write {target} ({exc.strerror or exc.__class__.__name__}); check the "
                                f"output directory and its permissions") from None
        replace_file(target, data, "check the output directory and its permissions")
        self.written[rel] = _digest(data)
        return target

    def write_text(self, rel: str, text: str) -> Path:
        """:meth:`write_bytes` of UTF-8 text."""
        return self.write_bytes(rel, text.encode("utf-8"))

    # ------------------------------------------------------------------ the manifest

    def _read_manifest(self) -> dict[str, str]:
        """``{relative path: sha256}`` of the previous build; empty when missing or unreadable (then
        nothing is ever removed)."""
        path = self.root / MANIFEST
        if path.is_symlink() or not path.is_file():
            return {}
        try:
            from hopbench.harness import inputs

            doc = json.loads(inputs.read_text(path, "manifest"))
        except (HopbenchError, ValueError, RecursionError):
            return {}
        files = doc.get("files") if isinstance(doc, dict) and doc.get("format") == MANIFEST_FORMAT else None
        if not isinstance(files, dict):
            return {}
        # trusted only when this user's hopbench signed it: a manifest placed by anyone else deletes nothing
        key = manifest_key(create=False)
        signature = doc.get("hmac")
        if key is None or not isinstance(signature, str) or \
                not hmac.compare_digest(signature, _signature(key, {str(k): str(v) for k, v in files.items()})):
            return {}
        return {k: v for k, v in files.items()
                if isinstance(k, str) and isinstance(v, str) and self._parts(k) is not None}

    def _save_manifest(self, files: dict[str, str]) -> None:
        doc = {"format": MANIFEST_FORMAT,
               "note": "the files hopbench wrote here; the next build removes those it no longer writes",
               "files": dict(sorted(files.items()))}
        key = manifest_key()
        if key is not None:  # unsigned (no data directory): the next build trusts it with nothing
            doc["hmac"] = _signature(key, files)
        data = (json.dumps(doc, indent=1) + "\n").encode()
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.root / f"{MANIFEST}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        try:
            tmp.write_bytes(data)
            os.replace(tmp, self.root / MANIFEST)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise HopbenchError(f"cannot write {self.root / MANIFEST} ({exc.strerror or exc.__class__.__name__}); "
                                f"check the output directory and its permissions") from None

    def finish(self) -> list[str]:
        """Remove the stale files (listed last time, not written now, unchanged since), save the manifest;
        returns the removed relative paths."""
        for rel, digest in sorted(self.previous.items()):
            if rel in self.written:
                continue
            target = self.root.joinpath(*rel.split("/"))
            if not _inside(os.path.realpath(target.parent), self._real_root):
                continue  # a directory replaced by a link since: not ours to clean
            if _file_digest(target) != digest:
                continue  # changed or replaced since it was written: someone else's now
            try:
                target.unlink()
            except OSError:
                continue
            self.removed.append(rel)
            self._remove_empty_parents(target.parent)
        self._save_manifest(self.written)
        return self.removed

    def _remove_empty_parents(self, directory: Path) -> None:
        """Remove directories under the root that the removals left empty (``plots/`` after --no-plots)."""
        while directory != self.root and _inside(os.path.realpath(directory), self._real_root):
            try:
                directory.rmdir()  # fails unless empty
            except OSError:
                return
            directory = directory.parent

    def __enter__(self) -> OwnedDirectory:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.finish()
        elif self.written:
            # keep owning what was written before the error, and what was owned before it
            try:
                self._save_manifest({**self.previous, **self.written})
            except HopbenchError:
                pass  # the error being raised says more
