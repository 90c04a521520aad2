"""Writing a board to disk: ``<out>/<suite>/`` with board.md, board.csv, references.csv, board.json,
the best run's solution file of every row (``solutions/``) and the plots (``plots/``).

The site (:mod:`harness.report.site`) is built afterwards from these files.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from harness.report.board import Board, iter_solutions
from harness.report.formatting import is_missing
from harness.report.markdown import render_markdown
from harness.report.plots import make_plots

#: solution documents larger than this are written gzip-compressed (``.json.gz``)
DEFAULT_COMPRESS_OVER = 1_000_000


def slug(text: str, limit: int = 80) -> str:
    """A filename-safe version of an id (``ring:16/cap10/b8/aspl`` -> ``ring_16-cap10-b8-aspl``)."""
    s = text.replace("/", "-")
    s = re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("._-")
    return s[:limit] or "x"


def solution_filename(instance: str, solver: str, params: str, seed: int, cell: str) -> str:
    """Stable, unique file name of a row's best solution (the hash tells apart ids that slug alike)."""
    digest = hashlib.sha1(cell.encode()).hexdigest()[:8]
    return f"{slug(instance)}.{slug(solver, 40)}.{slug(params, 40)}.s{seed}.{digest}.json"


def write_solutions(board: Board, store: Any, suite_dir: Path, *, compress_over: int = DEFAULT_COMPRESS_OVER
                    ) -> int:
    """Write each row's best solution under ``suite_dir/solutions`` and fill ``rows.solution``.

    Earlier files in that directory are removed first, so it holds exactly the
    files the board links to.  Returns the number written.
    """
    sol_dir = suite_dir / "solutions"
    sol_dir.mkdir(parents=True, exist_ok=True)
    for old in list(sol_dir.glob("*.json")) + list(sol_dir.glob("*.json.gz")):
        old.unlink()
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
        (sol_dir / name).write_bytes(data)
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
                compress_over: int = DEFAULT_COMPRESS_OVER) -> dict[str, Path]:
    """Write ``out_dir/<suite>/``: board.md, board.csv, references.csv, board.json,
    solutions/ and (unless ``plots=False``) plots/.  Returns the main paths."""
    from harness.documents import strict_json

    suite_dir = Path(out_dir) / board.suite
    suite_dir.mkdir(parents=True, exist_ok=True)
    write_solutions(board, store, suite_dir, compress_over=compress_over)
    made: dict[str, str] = {}
    if plots:
        made = make_plots(board, suite_dir / "plots")
    board.rows.to_csv(suite_dir / "board.csv", index=False)
    board.references.to_csv(suite_dir / "references.csv", index=False)
    meta = board_metadata(board, made)
    (suite_dir / "board.json").write_text(json.dumps(strict_json(meta), indent=1, sort_keys=True) + "\n")
    (suite_dir / "board.md").write_text(render_markdown(board, made))
    return {"dir": suite_dir, "markdown": suite_dir / "board.md", "csv": suite_dir / "board.csv"}
