"""Writing a board to disk: ``<out>/<suite>/`` with board.md, board.csv, references.csv, board.json,
the best run's solution file of every row (``solutions/``) and the plots (``plots/``).

The site (:mod:`hopbench.harness.report.site`) is built afterwards from these files.

The suite directory is an :class:`~hopbench.harness.outputs.OwnedDirectory`: every file goes
through it (never outside ``<out>/<suite>/``, never over the store being read), and a
rebuild removes only the files the previous build wrote and this one does not (listed in
``.hopbench-manifest.json``); files someone else put there stay.  Text cells of the CSV
files that a spreadsheet would take for a formula get a leading ``'``
(:func:`~hopbench.harness.report.formatting.csv_safe`).
"""
from __future__ import annotations

import gzip
import hashlib
import json
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hopbench.harness.outputs import OwnedDirectory, store_files
from hopbench.harness.report.board import Board, iter_solutions
from hopbench.harness.report.formatting import csv_safe_frame, is_missing
from hopbench.harness.report.markdown import render_markdown
from hopbench.harness.report.plots import make_plots
from hopbench.harness.report.site import check_suite_name

#: solution documents larger than this are written gzip-compressed (``.json.gz``)
DEFAULT_COMPRESS_OVER = 1_000_000
#: the plots' directory in a suite directory (the paths in ``board.json`` start with it)
PLOTS_DIR = "plots"


def slug(text: str, limit: int = 80) -> str:
    """A filename-safe version of an id (``ring:16/cap10/b8/aspl`` -> ``ring_16-cap10-b8-aspl``)."""
    s = text.replace("/", "-")
    s = re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("._-")
    return s[:limit] or "x"


def solution_filename(instance: str, solver: str, params: str, seed: int, cell: str) -> str:
    """Stable, unique file name of a row's best solution (the hash tells apart ids that slug alike)."""
    digest = hashlib.sha1(cell.encode()).hexdigest()[:8]
    return f"{slug(instance)}.{slug(solver, 40)}.{slug(params, 40)}.s{seed}.{digest}.json"


def write_solutions(board: Board, store: Any, suite_dir: OwnedDirectory, *,
                    compress_over: int = DEFAULT_COMPRESS_OVER) -> int:
    """Write each row's best solution under ``solutions/`` of ``suite_dir`` and fill ``rows.solution``.

    The solution files of the previous build that this one does not write again are removed
    when ``suite_dir`` finishes, so the directory holds the files the board links to (and any
    file someone else put there).  Returns the number written.
    """
    rows = board.rows
    keys = dict(zip(board.runs["id"].astype(int), board.runs["cell_key"]))
    by_run: dict[int, int] = {}
    for pos, run_id in enumerate(rows["best_run_id"]):
        if not is_missing(run_id):
            by_run[int(run_id)] = pos
    paths: list[str | None] = [None] * len(rows)
    for run_id, doc in iter_solutions(store, by_run):
        rec = rows.iloc[by_run[run_id]]
        # compact separators: routing tables are large and nobody reads them by eye
        data = (json.dumps(json.loads(doc), separators=(",", ":")) + "\n").encode()
        name = solution_filename(rec["instance"], rec["solver"], rec["params"], int(rec["best_seed"]),
                                 keys.get(run_id, str(run_id)))
        if len(data) > compress_over:
            name += ".gz"
            # mtime=0: the same solution gives the same bytes (no churn in the published files)
            data = gzip.compress(data, compresslevel=9, mtime=0)
        suite_dir.write_bytes(f"solutions/{name}", data)
        paths[by_run[run_id]] = f"solutions/{name}"
    rows["solution"] = paths
    return sum(p is not None for p in paths)


def board_metadata(board: Board, plots: dict[str, str]) -> dict[str, Any]:
    """The ``board.json`` summary the site index is built from."""
    rows = board.rows
    return {
        "format": "hopbench.board/1",
        "suite": board.suite,
        "description": board.description,
        "kinds": sorted({f.kind for f in board.facts.values()}),
        "instances": int(rows["instance"].nunique()),
        "rows": int(len(rows)),
        "solvers": sorted(rows["solver"].unique().tolist()),
        "groups": list(dict.fromkeys(rows["group"].tolist())),
        "references": int(len(board.references)),
        "plots": plots,
        "provenance": board.provenance,
    }


def write_board(board: Board, store: Any, out_dir: str | Path, *, plots: bool = True,
                compress_over: int = DEFAULT_COMPRESS_OVER, protect: Mapping[str | Path, str] | None = None,
                force: bool = False, runs: bool = False) -> dict[str, Path]:
    """Write ``out_dir/<suite>/``: board.md, board.csv, references.csv, board.json,
    solutions/ and (unless ``plots=False``) plots/; with ``runs``, also every run of the board in
    ``runs.jsonl.xz`` (:mod:`hopbench.harness.bench.archive`).  Returns the main paths.

    ``protect`` maps further files the caller reads (suite files) to what they are; none of them,
    nor the SQLite files of ``store``, is ever written.  A file hopbench did not write is overwritten only
    with ``force`` (:class:`~hopbench.harness.outputs.OwnedDirectory`).
    """
    from hopbench.harness.documents import strict_json

    name = check_suite_name(board.suite)  # a name from a suite file must not steer the write
    files = {**store_files(getattr(store, "url", None)), **(protect or {})}
    with OwnedDirectory(Path(out_dir) / name, inside=out_dir, protect=files, force=force,
                        expect=("board.md", "board.csv", "references.csv", "board.json")) as suite_dir:
        write_solutions(board, store, suite_dir, compress_over=compress_over)
        if runs:
            from hopbench.harness.bench.archive import ARCHIVE_NAME, archive_bytes

            # the runs whose solution the board ships already are referenced, not stored twice
            shipped = {int(r): str(p) for r, p in zip(board.rows["best_run_id"], board.rows["solution"])
                       if not is_missing(r) and isinstance(p, str)}
            suite_dir.write_bytes(ARCHIVE_NAME, archive_bytes(store, board.suite, shipped))
        made: dict[str, str] = {}
        if plots:
            made = _write_plots(board, suite_dir)
        suite_dir.write_text("board.csv", csv_safe_frame(board.rows).to_csv(index=False))
        suite_dir.write_text("references.csv", csv_safe_frame(board.references).to_csv(index=False))
        meta = board_metadata(board, made)
        suite_dir.write_text("board.json", json.dumps(strict_json(meta), indent=1, sort_keys=True) + "\n")
        suite_dir.write_text("board.md", render_markdown(board, made))
    root = suite_dir.root
    return {"dir": root, "markdown": root / "board.md", "csv": root / "board.csv"}


def _write_plots(board: Board, suite_dir: OwnedDirectory) -> dict[str, str]:
    """Draw the plots (in a scratch directory: matplotlib writes where it is told) and copy them under
    ``plots/``; returns ``name -> plots/<name>.png``."""
    with tempfile.TemporaryDirectory(prefix="hopbench-plots-") as scratch:
        drawn = make_plots(board, Path(scratch) / PLOTS_DIR)
        for rel in drawn.values():
            suite_dir.write_bytes(rel, (Path(scratch) / rel).read_bytes())
    return drawn
