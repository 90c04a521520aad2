"""The runs behind a published board, shipped beside it as one compressed file, and loaded back only once
hopbench has re-checked every one of them.

A results store does not survive a new checkout, so a board would otherwise be the only trace of its
runs: nobody could re-analyse them, and re-running a few instances (``publish.sh`` with ``ONLY``) would
need every other cell run again.  ``hopbench board --with-runs`` therefore writes
``<suite>/runs.jsonl.xz`` beside the board (:func:`write_archive`), and
``hopbench results --merge-from <suite>/runs.jsonl.xz`` loads it into a store (:func:`read_archive`).

The file is xz-compressed JSON lines.  The first line is a header
``{"format": "hopbench.runs/1", "suite": S, "runs": N}``; each further line is one recorded cell:
every column of the store's ``runs`` table (JSON columns as JSON, times in ISO 8601), its anytime
``trace`` as ``[seconds, evaluations, value]`` triples, and its ``solution``: the document itself, or,
when the board already ships that very document under ``solutions/``, a reference
``{"file": "solutions/...", "sha256": ...}`` (the hash of the compact JSON text), so no routing table is
stored twice.  The same runs give the same bytes (no time stamp in the file), so republishing an
unchanged suite changes nothing in git.

Nothing in the file is trusted.  Loading it checks every row the way the coordinator checks a solver's
answer (:meth:`~hopbench.harness.problems.kind.ProblemKind.check_result`, the same for every problem kind): the
instance id must be the one its fields derive, the cell key the one its fields make, an ``ok`` row's
solution must verify from scratch as an answer to that very problem, and every number the row claims
(objective, diameter, ASPL, the other metrics) must equal the recomputed one; its trace may not go below
the problem's lower bound; a failed row may claim no result.  One row that fails refuses the whole file,
each such row said in one line: a published board is all of its runs or none.  The rows recorded are
the recomputed ones.
"""
from __future__ import annotations

import hashlib
import json
import lzma
import math
import re
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from hopbench.harness import caps
from hopbench.harness.documents import json_default, strict_json
from hopbench.harness.errors import HopbenchError

FORMAT = "hopbench.runs/1"
#: the archive's name in a board's directory
ARCHIVE_NAME = "runs.jsonl.xz"
#: xz preset: 6 (8 MiB window, about 100 MB to compress, 10 MB to read); 9 gained under 1 % on the boards
PRESET = 6
#: the JSON columns of a ``runs`` row, written as JSON (not as text holding JSON)
_JSON_COLUMNS = ("instance_spec", "params", "metrics")
_TIME_COLUMNS = ("started_at", "finished_at")
#: what a solution reference may name: a file of the board's own ``solutions/`` folder
_SOLUTION_REF = re.compile(r"^solutions/[A-Za-z0-9][A-Za-z0-9._-]*\.json(\.gz)?$")


def document_digest(text: str) -> str:
    """The sha256 of a solution document's compact JSON text (as the board writes its solution files)."""
    return hashlib.sha256(text.strip().encode()).hexdigest()


def compact(doc_text: str) -> str:
    """A stored solution's JSON text written compactly, as the board's solution files hold it."""
    return json.dumps(json.loads(doc_text), separators=(",", ":"))


def _line(doc: Mapping[str, Any]) -> bytes:
    return (json.dumps(strict_json(dict(doc)), separators=(",", ":"), allow_nan=False, default=json_default)
            + "\n").encode()


def archive_rows(store: Any, suite: str, shipped: Mapping[int, str]) -> Iterator[dict[str, Any]]:
    """The archive lines of ``suite``'s board runs (tuning studies' runs make no board and are left out),
    in recording order.  ``shipped`` maps a run id to the solution file the board writes for it, relative to
    the suite's directory; such a run's solution is referenced, not repeated."""
    rows = [r for r in store.records(suite=suite, with_solutions=False) if r.get("study") is None]
    by_run: dict[int, list[list[Any]]] = {}
    ids = [int(r["id"]) for r in rows]
    for i in range(0, len(ids), 500):
        for p in store.trace_records(ids[i:i + 500]):
            by_run.setdefault(int(p["run_id"]), []).append([p["elapsed_s"], p["evaluations"], p["value"]])
    for start in range(0, len(rows), 50):  # solutions a few at a time: a store's can be gigabytes
        chunk = rows[start:start + 50]
        docs = _solutions(store, [int(r["id"]) for r in chunk])
        for row in chunk:
            out: dict[str, Any] = {}
            for key, value in row.items():
                if key in _JSON_COLUMNS and isinstance(value, str):
                    value = json.loads(value)
                elif key in _TIME_COLUMNS and isinstance(value, datetime):
                    value = value.isoformat()
                out[key] = value
            run_id = int(row["id"])
            out["trace"] = by_run.get(run_id, [])
            text = docs.get(run_id)
            if text is None:
                out["solution"] = None
            elif run_id in shipped:
                out["solution"] = {"file": shipped[run_id], "sha256": document_digest(compact(text))}
            else:
                out["solution"] = json.loads(text)
            yield out


def _solutions(store: Any, run_ids: list[int]) -> dict[int, str]:
    """``run id -> solution JSON text`` of these runs (those that have one)."""
    from sqlalchemy import select

    from hopbench.harness.bench.schema import runs

    query = select(runs.c.id, runs.c.solution).where(runs.c.id.in_(run_ids))
    with store.engine.connect() as conn:
        return {int(i): text for i, text in conn.execute(query).all() if text}


def archive_bytes(store: Any, suite: str, shipped: Mapping[int, str]) -> bytes:
    """The whole ``runs.jsonl.xz`` of ``suite``: header, then one line per run, xz-compressed."""
    compressor = lzma.LZMACompressor(format=lzma.FORMAT_XZ, preset=PRESET)
    rows = list(archive_rows(store, suite, shipped))
    parts = [compressor.compress(_line({"format": FORMAT, "suite": suite, "runs": len(rows)}))]
    parts += [compressor.compress(_line(row)) for row in rows]
    parts.append(compressor.flush())
    return b"".join(parts)


# ---------------------------------------------------------------------------- reading it back


class Refused(Exception):
    """One archive row that hopbench's checks refuse (its message is the reason)."""


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` of the decompressed archive, each line capped before it is kept whole."""
    limit = caps.INPUT_BYTES.limit()
    try:
        with lzma.open(path, "rb") as f:
            number = 0
            while True:
                line = f.readline(limit + 1)
                if not line:
                    return
                number += 1
                if len(line) > limit and not line.endswith(b"\n"):
                    caps.INPUT_BYTES.check(len(line), f"line {number} of {path}")
                yield number, line
    except (lzma.LZMAError, EOFError) as exc:
        raise HopbenchError(f"{path} is not an xz-compressed runs archive ({exc}); give the runs.jsonl.xz a "
                            f"board was published with") from None
    except OSError as exc:
        raise HopbenchError(f"cannot read {path} ({exc.strerror or exc}); give the runs.jsonl.xz a board was "
                            f"published with") from None


def _json(number: int, line: bytes, path: Path) -> Any:
    from hopbench.harness.inputs import check_nesting

    try:
        text = line.decode("utf-8")
        check_nesting(text, f"line {number} of {path}")
        return json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Refused(f"not a JSON line ({type(exc).__name__}: {str(exc)[:80]})") from None


def is_archive(text: str | None) -> bool:
    """Whether a ``--merge-from`` value names a runs archive (a file) rather than a store URL."""
    return bool(text) and "://" not in str(text) and str(text).endswith(".jsonl.xz")


def _same(claimed: Any, recomputed: Any) -> bool:
    """A row's number equals hopbench's (None stands for inf: a disconnected graph's metrics)."""
    from hopbench.harness.problems.kind import close_enough

    def number(x: Any) -> float | None:
        if x is None:
            return math.inf
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            return None
        return float(x)

    a, b = number(claimed), number(recomputed)
    if a is None or b is None:
        return claimed == recomputed
    if math.isnan(a) or math.isnan(b):
        return False
    return close_enough(a, b)


_TYPES: dict[str, tuple[type, ...]] = {
    "cell_key": (str,), "suite": (str,), "instance": (str,), "instance_spec": (dict,), "kind": (str,),
    "solver": (str,), "params": (dict,), "params_tag": (str,), "seed": (int,), "status": (str,),
}


def _solution(doc: Any, where: Path) -> dict[str, Any] | None:
    """The solution document of a row: inline, or read from the board's own ``solutions/`` and matched to
    its hash."""
    from hopbench.harness.documents import read_json

    if doc is None:
        return None
    if not isinstance(doc, dict):
        raise Refused(f"its solution is a {type(doc).__name__}, not a document")
    if set(doc) != {"file", "sha256"}:
        return doc
    rel = doc["file"]
    if not isinstance(rel, str) or not _SOLUTION_REF.match(rel):
        raise Refused(f"its solution reference {str(rel)[:80]!r} does not name a file of the board's solutions/ "
                      f"folder")
    path = where / rel
    if path.is_symlink() or not path.is_file():
        raise Refused(f"its solution file {rel} is missing beside the archive (or is no regular file)")
    try:
        found = read_json(path)
    except HopbenchError as exc:
        raise Refused(f"its solution file {rel} is unreadable: {exc}") from None
    if document_digest(json.dumps(found, separators=(",", ":"))) != doc["sha256"]:
        raise Refused(f"its solution file {rel} is not the document the archive was written with (sha256 "
                      f"differs)")
    return found


def check_row(row: Any, where: Path, suite: str, cache: dict[str, Any]) -> tuple[dict[str, Any], list]:
    """``(store row, trace)`` of one archive line, once hopbench has re-checked it; :class:`Refused` says why
    not.  The row's numbers are replaced by the recomputed ones."""
    from hopbench.harness.bench.cells import _trace_below_bound, cell_problem
    from hopbench.harness.bench.store import STATUSES, cell_key
    from hopbench.harness.errors import InvalidSolution
    from hopbench.harness.problems.registry import get_kind

    if not isinstance(row, dict):
        raise Refused("it is no JSON object")
    for key, types in _TYPES.items():
        value = row.get(key)
        if not isinstance(value, types) or isinstance(value, bool):
            raise Refused(f"its {key} is {str(value)[:40]!r}, not {types[0].__name__}")
    if row["suite"] != suite:
        raise Refused(f"it is a run of suite {row['suite'][:60]!r}, in the archive of suite {suite!r}")
    if row["status"] not in STATUSES:
        raise Refused(f"its status {row['status'][:40]!r} is none of {', '.join(STATUSES)}")
    time_limit = row.get("time_limit_s")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))):
        raise Refused(f"its time_limit_s {str(time_limit)[:40]!r} is no number")
    try:
        kind = get_kind(row["kind"])
        derived = kind.instance_id(row["instance_spec"])
    except HopbenchError as exc:
        raise Refused(str(exc)) from None
    except Exception as exc:  # a malformed spec that the kind's code trips on
        raise Refused(f"its instance fields are malformed ({type(exc).__name__}: {str(exc)[:120]})") from None
    if derived != row["instance"]:  # ids are facts: a row cannot file itself under another instance
        raise Refused(f"its instance id {row['instance'][:80]!r} is not the id its fields derive ({derived!r})")
    key = cell_key(suite, row["instance"], row["solver"], row["params"], row["seed"], time_limit)
    if row["cell_key"] != key and not re.fullmatch(re.escape(key) + r"\|e=[0-9]+", row["cell_key"]):
        raise Refused(f"its cell key {row['cell_key'][:120]!r} is not the one its fields make ({key[:120]!r})")
    trace = row.get("trace") or []
    if not isinstance(trace, list) or not all(isinstance(p, list) and len(p) == 3 for p in trace):
        raise Refused("its trace is not a list of [seconds, evaluations, value] triples")
    doc = _solution(row.get("solution"), where)
    out = {k: row.get(k) for k in row if k not in ("id", "trace", "solution")}
    out["solution"] = doc
    if row["status"] != "ok":
        claimed = [k for k in ("objective", "diameter", "aspl") if row.get(k) is not None]
        if claimed:
            raise Refused(f"it is a {row['status']} row, yet claims a result ({', '.join(claimed)})")
        return out, trace
    if doc is None:
        raise Refused("it is an ok row without its solution")
    cell = {"kind": row["kind"], "fields": row["instance_spec"], "instance": row["instance"], "suite": suite}
    try:
        problem = cell_problem(cell, cache)
        # never trusted: the file says which solver ran, but not that it was hopbench's own
        verdict = kind.check_result(problem, doc, trusted=False)
        # a trace value null is inf (no connected graph yet), as the store keeps it
        points = [[t, e, math.inf if v is None else v] for t, e, v in trace]
        reason = verdict.reason if not verdict.valid else _trace_below_bound(kind, problem, points)
    except InvalidSolution as exc:
        reason = f"invalid solution: {exc}"
    except HopbenchError as exc:
        reason = str(exc)
    except Exception as exc:  # a malformed document must not end the whole import in a traceback
        reason = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}"
    if reason:
        raise Refused(f"its solution was refused by hopbench's re-verification: {reason}")
    metrics = dict(verdict.metrics)
    claims = {"objective": row.get("objective"), "diameter": row.get("diameter"), "aspl": row.get("aspl")}
    stored = row.get("metrics") if isinstance(row.get("metrics"), dict) else {}
    claims.update({k: v for k, v in stored.items() if k not in claims})
    for name, value in claims.items():
        if name in metrics and not _same(value, metrics[name]):
            raise Refused(f"it claims {name} {value!r}, but its solution gives {metrics[name]!r}")
    if "objective" not in metrics:
        raise Refused("its solution gives no objective")
    out.update(objective=metrics.get("objective"), diameter=metrics.get("diameter"), aspl=metrics.get("aspl"),
               metrics=metrics)
    return out, trace


def read_archive(path: str | Path) -> tuple[str, list[tuple[int | None, dict[str, Any], list]]]:
    """``(suite, [(run id, store row, trace), ...])`` of a runs archive, every row re-checked
    (:func:`check_row`).  Any refused row refuses the file: a one-line error that names each such row
    (see :class:`ArchiveRefused`)."""
    path = Path(path)
    if path.is_symlink() or not path.is_file():
        raise HopbenchError(f"runs archive {path} does not exist or is no regular file; give the runs.jsonl.xz "
                            f"beside a published board, e.g. leaderboards/exact-small/runs.jsonl.xz")
    lines = _lines(path)
    try:
        first = next(lines, None)
        header = _json(*first, path) if first is not None else None
    except Refused as exc:
        header, first = None, (1, str(exc))
    if not isinstance(header, dict) or header.get("format") != FORMAT or not isinstance(header.get("suite"), str):
        raise HopbenchError(f"{path} does not start with a {FORMAT} header; give the runs.jsonl.xz a board was "
                            f"published with")
    suite = header["suite"]
    expected = header.get("runs")
    if isinstance(expected, int) and not isinstance(expected, bool):
        caps.CELLS.check(expected, f"the runs of {path}")
    cache: dict[str, Any] = {}
    kept: list[tuple[int | None, dict[str, Any], list]] = []
    refused: list[str] = []
    keys: set[str] = set()
    count = 0
    for number, line in lines:
        if not line.strip():
            continue
        count += 1
        caps.CELLS.check(count, f"the runs of {path}")
        row: Any = None
        try:
            row = _json(number, line, path)
            stored, trace = check_row(row, path.parent, suite, cache)
            if stored["cell_key"] in keys:
                raise Refused("its cell is recorded twice in the archive")
            keys.add(stored["cell_key"])
        except Refused as exc:
            what = row.get("cell_key") if isinstance(row, dict) and isinstance(row.get("cell_key"), str) else None
            refused.append(f"{path.name} line {number}" + (f" ({what[:120]})" if what else "") + f": {exc}")
            continue
        run_id = row.get("id")
        kept.append((run_id if isinstance(run_id, int) and not isinstance(run_id, bool) and run_id > 0 else None,
                     stored, trace))
    if expected != count and not refused:
        refused.append(f"{path.name}: its header announces {expected!r} runs, the file holds {count} (cut short, "
                       f"or lines added)")
    if refused:
        raise ArchiveRefused(path, refused)
    return suite, kept


class ArchiveRefused(HopbenchError):
    """A runs archive with rows hopbench refuses; ``lines`` holds one line per refused row."""

    def __init__(self, path: Path, lines: list[str]) -> None:
        self.lines = lines
        super().__init__(f"refused {path}: {len(lines)} row(s) fail hopbench's re-check (each said above); "
                         f"nothing was imported; a published board's archive must be loaded whole, from the "
                         f"board's own folder, as publish.sh wrote it")


def import_archive(path: str | Path, target_url: str) -> tuple[str, int]:
    """Load a runs archive into the store at ``target_url`` once every row is re-checked; returns the suite and
    how many runs were recorded.  A cell the store holds already keeps the better row, as
    :func:`hopbench.harness.bench.store.merge` decides; a run keeps its id when the store has no run of that id (a fresh
    store then builds the very board that was published, run ids included)."""
    from hopbench.harness.bench.store import Store, merge_rows

    suite, rows = read_archive(path)
    store = Store.open(target_url)
    try:
        return suite, merge_rows(store, rows, keep_ties=True)  # loading the same file twice changes nothing
    finally:
        store.close()
