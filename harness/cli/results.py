"""``hopbench results``: the recorded runs as a table, CSV, Parquet or JSON.

Table, CSV and JSON are rendered from the store's plain rows (:meth:`Store.records`),
without pandas: the command is a quick look and must start fast.  The table and the
CSV are what pandas' ``to_string`` / ``to_csv`` printed before, byte for byte (a
column's format follows its values, e.g. an integer column with a missing value
prints as floats); JSON has the same values, with integers written as integers and
a missing time as ``null``.  A CSV text cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return gets a leading ``'`` (a spreadsheet would run it as a formula); numbers stay numbers.
Parquet still goes through pandas.  ``-o`` never names the store, the ``--merge-from`` store (their
``-wal``/``-shm``/``-journal`` files included) or the suite file the command reads.  The store is opened
for reading (an older store is read as it is; a SQLite file that does not exist is an
error, not a new empty store), or for writing with ``--merge-from``.  A ``--suite`` or
``--solver`` that neither the store nor hopbench knows is an error: a typo, not an empty table.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import sys
from datetime import datetime
from typing import Any

from hopbench.harness.cli._common import add_force_option, output_file, print_json

JSON_COLUMNS = ["instance", "suite", "solver", "params", "params_tag", "seed", "status", "error", "objective",
                "diameter", "aspl", "metrics", "elapsed_s", "evaluations", "solution", "kind", "study", "trial",
                "hopbench_version", "git_commit", "host", "started_at", "finished_at"]
TABLE_COLUMNS = ["instance", "solver", "params_tag", "seed", "status", "objective", "diameter", "aspl",
                 "elapsed_s", "error"]
MAX_COLWIDTH = 60  # a longer cell of the table is cut to 57 characters and "..."
DIGITS = 6  # decimals of the table's floats before trailing zeros are trimmed


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("results", help="show or export recorded runs",
                       description="The recorded runs, printed as a table or written as CSV, JSON or Parquet.")
    p.add_argument("--suite", metavar="S")
    p.add_argument("--solver", metavar="A,B", help="comma-separated solver names")
    p.add_argument("--format", choices=["table", "csv", "parquet", "json"], default="table")
    p.add_argument("--wide", action="store_true",
                   help=f"table: show every cell whole (by default a cell is cut at {MAX_COLWIDTH} characters, e.g. "
                        f"a long error or the reason a solver declined an instance)")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout (required for parquet)")
    add_force_option(p)
    p.add_argument("--storage", metavar="URL", help="results store URL (default sqlite:///hopbench.db); a database "
                                                    "server gets $HOPBENCH_CONNECT_TIMEOUT seconds (default 10) to "
                                                    "answer")
    p.add_argument("--merge-from", metavar="URL", help="first copy every run of another store into this one; or of "
                                                       "a board's runs.jsonl.xz, every run re-checked first")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hopbench.harness.bench.store import DEFAULT_URL, Store, creates_file, merge, run_column_names, shown_url
    from hopbench.harness.errors import HopbenchError
    from hopbench.harness.outputs import same_path, store_files, write_output_file

    from hopbench.harness.bench.archive import is_archive

    if is_archive(args.merge_from):
        return import_runs(args)
    # arguments are checked before any store is opened; -o never names a file this command reads
    reads = {**store_files(args.storage or DEFAULT_URL), **store_files(args.merge_from), **suite_file(args.suite)}
    out = output_file(args.output, reads, force=args.force) if args.output else None
    if args.format == "parquet" and out is None:
        raise HopbenchError("--format parquet needs -o FILE (Parquet is binary)")
    target = store_files(args.storage or DEFAULT_URL)
    if args.merge_from and any(same_path(a, b) for a in store_files(args.merge_from) for b in target):
        raise HopbenchError(f"--merge-from {shown_url(args.merge_from)} is the store it would merge into "
                            f"(--storage {shown_url(args.storage or DEFAULT_URL)}); give another store")
    if args.merge_from:
        from hopbench.harness.bench.store import refuse_in_memory

        refuse_in_memory(args.storage, "the runs merged there would be lost when the command ends")
        # a missing, empty or damaged source is refused, and the filters are checked against the runs of both
        # stores, before the target is written (a target that is not there yet is created only then)
        source = Store.open(args.merge_from, mode="read")
        into = None if creates_file(args.storage) else Store.open(args.storage)
        held = [source] if into is None else [source, into]
    else:
        store = Store.open(args.storage, mode="read")
        held = [store]
    try:
        suite = check_suite(held, args.suite) if args.suite is not None else None
        solver_names = check_solvers(held, args.solver) if args.solver is not None else None
    except HopbenchError:
        for opened in held:
            opened.close()
        raise
    if args.merge_from:
        source.close()
        refused: list[str] = []
        copied = merge(args.merge_from, args.storage or DEFAULT_URL, refused)  # creates the target once the source is read
        for line in refused:
            print(f"refused: {line}", file=sys.stderr)
        print(f"merged {copied} run(s) from {shown_url(args.merge_from)}"
              + (f"; refused {len(refused)} damaged run(s)" if refused else ""), file=sys.stderr)
        store = into or Store.open(args.storage)
    # solution documents can be large; only the formats that print them load them
    with_solutions = args.format in ("json", "parquet")
    selection = dict(suite=suite, solvers=solver_names, with_solutions=with_solutions)
    if args.format == "parquet":
        import io

        buffer = io.BytesIO()  # whole in memory first: a failed write leaves no partial file
        store.dataframe(**selection).to_parquet(buffer, index=False)
        report_damaged(store)
        write_output_file(out, buffer.getvalue(), force=args.force)
        return 0
    rows = store.records(**selection)
    report_damaged(store)
    if args.format == "json":
        docs = [json_row(r) for r in rows]
        if out is not None:
            from hopbench.harness.documents import strict_json

            write_output_file(out, json.dumps(strict_json(docs), indent=1) + "\n", force=args.force)
        else:
            print_json(docs)
        return 0
    if args.format == "csv":
        text = csv_text(rows, run_column_names(with_solutions))
    else:
        cut: list[int] = []
        text = table_text(rows, TABLE_COLUMNS, max_colwidth=None if args.wide else MAX_COLWIDTH, cut=cut) \
            if rows else "(no runs recorded)"
        if cut:  # on stderr: the table itself stays what pandas prints
            print(f"note: {len(cut)} cell(s) cut at {MAX_COLWIDTH} characters; --wide shows them whole",
                  file=sys.stderr)
    if out is not None:
        write_output_file(out, text if text.endswith("\n") else text + "\n", force=args.force)
    else:
        print(text)
    return 0


def import_runs(args: argparse.Namespace) -> int:
    """``--merge-from <board>/runs.jsonl.xz``: a published board's runs loaded into ``--storage``, each re-checked
    first (:mod:`hopbench.harness.bench.archive`); a refused row is one line on stderr, and nothing is imported.  Then the
    command shows what it shows after any merge."""
    from pathlib import Path

    from hopbench.harness.bench.archive import ArchiveRefused, import_archive
    from hopbench.harness.bench.store import DEFAULT_URL, refuse_in_memory, shown_url
    from hopbench.harness.errors import HopbenchError

    refuse_in_memory(args.storage, "the runs loaded there would be lost when the command ends")
    if args.output or args.suite or args.solver or args.format != "table":
        raise HopbenchError("--merge-from FILE.jsonl.xz loads a board's runs and prints how many; show them "
                            "afterwards with a second 'hopbench results' without --merge-from")
    try:
        suite, copied = import_archive(Path(args.merge_from), args.storage or DEFAULT_URL)
    except ArchiveRefused as exc:
        for line in exc.lines[:SHOWN_REFUSED]:
            print(f"refused: {printable_line(line)}", file=sys.stderr)
        if len(exc.lines) > SHOWN_REFUSED:
            print(f"refused: ... and {len(exc.lines) - SHOWN_REFUSED} more row(s)", file=sys.stderr)
        raise
    print(f"loaded {copied} run(s) of suite {suite} from {args.merge_from}, every one re-checked, into "
          f"{shown_url(args.storage or DEFAULT_URL)}", file=sys.stderr)
    return 0


#: refused rows of an archive shown one per line before the error
SHOWN_REFUSED = 20


def printable_line(text: str) -> str:
    from hopbench.harness.terminal import printable

    return printable(text)


def report_damaged(store) -> None:
    """One line on stderr for each damaged row the store's readers left out; the command goes on."""
    for line in store.damaged:
        print(f"warning: {line}", file=sys.stderr)


# ---------------------------------------------------------------------------- filters
# A filter that names something neither the store nor hopbench knows is a typo: an error, not an empty table.


def recorded(store, column: str, *, studies: bool = True) -> list[str]:
    """The distinct values of the ``runs`` column ``column`` (``suite``, ``solver``) in the store, sorted;
    ``studies=False`` leaves out the runs of tuning studies."""
    from sqlalchemy import select

    from hopbench.harness.bench.schema import runs

    query = select(runs.c[column]).distinct()
    if not studies:
        query = query.where(runs.c.study.is_(None))
    with store.engine.connect() as conn:
        return sorted(v for v in conn.execute(query).scalars() if v is not None)


def suite_file(text: str | None) -> dict[str, str]:
    """The suite file a ``--suite`` reads (as :func:`check_suite` loads it), for the ``-o`` check."""
    if not text:
        return {}
    if text.endswith(".toml") or os.sep in text:
        return {text: "the suite file"}
    from hopbench.harness.bench.suites import suites_dir

    return {os.path.join(suites_dir(), f"{text.strip()}.toml"): "the suite file"}


def _recorded_in(stores: list, column: str) -> list[str]:
    return sorted({v for store in stores for v in recorded(store, column)})


def check_suite(stores: list, text: str) -> str:
    """The suite name ``--suite`` asks for (a suite file's path gives its name): one the ``stores`` have runs of
    or a suite file defines; anything else is a one-line error listing the suites the stores hold."""
    from hopbench.harness.bench.suites import list_suites, load_suite
    from hopbench.harness.errors import HopbenchError

    name = load_suite(text).name if text.endswith(".toml") or os.sep in text else text.strip()
    held = _recorded_in(stores, "suite")
    if name in held or name in list_suites():
        return name
    holds = f"it holds runs of {', '.join(held)}" if held else "it holds no runs"
    raise HopbenchError(f"no runs of suite {name!r} in this store and no such suite file; {holds} "
                        f"(suite files: {', '.join(list_suites()) or 'none'})")


def check_solvers(stores: list, text: str) -> list[str]:
    """The solver names of ``--solver A,B``: each one the ``stores`` have runs of or a registered solver."""
    from hopbench.harness.errors import HopbenchError

    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise HopbenchError("--solver names no solver; give names such as --solver random,vrs, or leave it out")
    held = _recorded_in(stores, "solver")
    if all(n in held for n in names):
        return names
    from hopbench import solvers  # only now: importing every solver module takes a while

    unknown = [n for n in names if n not in held and n not in solvers.names()]
    if unknown:  # a typo, most likely: say so instead of an empty table
        raise HopbenchError(f"no runs of {', '.join(map(repr, unknown))} in this store and no such solver; "
                            f"solvers: {', '.join(solvers.names())}")
    return names


def json_row(row: dict[str, Any]) -> dict[str, Any]:
    """One run as ``--format json`` writes it: JSON columns decoded, times in ISO 8601."""
    doc = {k: row.get(k) for k in JSON_COLUMNS}
    for key in ("params", "metrics", "solution"):
        doc[key] = json.loads(doc[key]) if isinstance(doc[key], str) else doc[key]
    for key in ("started_at", "finished_at"):
        doc[key] = doc[key].isoformat() if isinstance(doc[key], datetime) else None
    return doc


# ---------------------------------------------------------------------------- table and CSV
# A column is formatted as a whole, the way pandas infers a column's type from its values:
# numbers with a missing one are floats, a column with nothing in it prints "None".


def _kind(values: list[Any]) -> str:
    present = [v for v in values if v is not None]
    if not present:
        return "none"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "int" if len(present) == len(values) else "float"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return "float"
    if all(isinstance(v, datetime) for v in present):
        return "datetime"
    return "text"


def _column(rows: list[dict[str, Any]], name: str) -> list[Any]:
    return [r.get(name) for r in rows]


_DECIMAL = re.compile(r"^\s*[+-]?[0-9]+\.[0-9]*$")


def _table_floats(values: list[float | None]) -> list[str]:
    """A float column as pandas prints it: 6 decimals, trailing zeros trimmed alike, NaN for none;
    scientific notation when a value would show as 0 or a large one makes the column too wide."""
    numbers = [v for v in values if v is not None]
    cells = _trim_zeros(["NaN" if v is None else f"{v:.{DIGITS}f}" for v in values])
    too_long = max(map(len, cells)) > DIGITS + 6
    if any(0 < abs(v) < 10 ** -DIGITS for v in numbers) or (too_long and any(abs(v) > 1e6 for v in numbers)):
        return ["NaN" if v is None else f"{v:.{DIGITS}e}" for v in values]
    return cells


def _trim_zeros(cells: list[str]) -> list[str]:
    """Drop a trailing zero from every decimal number while all of them end in one; keep one decimal."""
    decimal = [bool(_DECIMAL.match(c)) for c in cells]
    while any(decimal) and all(c.endswith("0") for c, d in zip(cells, decimal) if d):
        cells = [c[:-1] if d else c for c, d in zip(cells, decimal)]
    return [c + "0" if d and c.endswith(".") else c for c, d in zip(cells, decimal)]


def _table_cells(values: list[Any]) -> list[str]:
    kind = _kind(values)
    if kind == "none":
        return ["None"] * len(values)
    if kind == "int":
        return [f"{v:d}" for v in values]
    if kind == "float":
        return _table_floats([None if v is None else float(v) for v in values])
    if kind == "datetime":
        return ["NaT" if v is None else c for v, c in zip(values, _csv_times(values))]
    return ["NaN" if v is None else _ESCAPES.sub(lambda m: _ESCAPED[m.group()], str(v)) for v in values]


_ESCAPED = {"\t": r"\t", "\n": r"\n", "\r": r"\r"}  # a table row stays one line
_ESCAPES = re.compile("[\t\n\r]")


def table_text(rows: list[dict[str, Any]], columns: list[str], *, max_colwidth: int | None = MAX_COLWIDTH,
               cut: list[int] | None = None) -> str:
    """The rows as a right-aligned text table (pandas' ``to_string(index=False, max_colwidth=60)``); a cell longer
    than ``max_colwidth`` is cut (None: none is), and ``cut`` collects the row index of every cell cut."""
    printed = []
    for name in columns:
        values = _column(rows, name)
        cells = _table_cells(values)
        header = " " + name if _kind(values) in ("int", "float") else name  # numbers leave room for a sign
        width = max(len(header), *map(len, cells))
        width = width if max_colwidth is None else min(width, max_colwidth)
        if cut is not None:
            cut.extend(i for i, c in enumerate(cells) if len(c) > width)
        cells = [c[:width - 3] + "..." if len(c) > width else c for c in cells]
        printed.append([s.rjust(width) for s in [header, *cells]])
    return "\n".join(" ".join(line) for line in zip(*printed))


def _csv_times(values: list[datetime | None]) -> list[str]:
    """Times as pandas writes a column of them: the date alone when every one is a midnight
    without a time zone, otherwise the finest fraction of a second any of them needs (and
    the UTC offset of aware ones, e.g. from PostgreSQL)."""
    present = [v for v in values if v is not None]
    aware = bool(present) and present[0].tzinfo is not None
    if not aware and all(v.hour == v.minute == v.second == v.microsecond == 0 for v in present):
        return ["" if v is None else v.strftime("%Y-%m-%d") for v in values]
    if any(v.microsecond % 1000 for v in present):
        digits = 6  # microseconds
    elif any(v.microsecond for v in present):
        digits = 3  # milliseconds
    else:
        digits = 0

    def shown(v: datetime) -> str:
        text = v.strftime("%Y-%m-%d %H:%M:%S") + (f".{v.microsecond:06d}"[:digits + 1] if digits else "")
        return text + v.isoformat(timespec="seconds")[19:] if aware else text  # "+00:00"

    return ["" if v is None else shown(v) for v in values]


def _csv_cells(values: list[Any]) -> list[str]:
    from hopbench.harness.report.formatting import csv_safe  # text cells a spreadsheet would run as formulas

    kind = _kind(values)
    if kind == "float":
        return ["" if v is None else repr(float(v)) for v in values]
    if kind == "datetime":
        return _csv_times(values)
    return ["" if v is None else str(csv_safe(v)) for v in values]


def csv_text(rows: list[dict[str, Any]], columns: list[str]) -> str:
    """The rows as CSV with a header (pandas' ``to_csv(index=False)``)."""
    cells = [_csv_cells(_column(rows, name)) for name in columns]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=os.linesep)
    writer.writerow(columns)
    writer.writerows(zip(*cells))
    return buffer.getvalue()
