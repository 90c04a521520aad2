"""``hopbench board``: build the leaderboards (markdown, CSV, plots, static site) from recorded runs."""
from __future__ import annotations

import argparse
import sys

from hopbench.harness.terminal import printable


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("board", help="build leaderboards (md, csv, png, html) from the recorded runs",
                       description="Aggregate the recorded runs of each suite into a leaderboard: "
                                   "<out>/<suite>/board.md, board.csv, references.csv, plots/*.png and the best "
                                   "solution of every row in solutions/; then rebuild the static site <out>/site/.")
    p.add_argument("--suite", action="append", metavar="S",
                   help="suite name or TOML path (repeatable, or comma-separated; default: every suite in the store)")
    p.add_argument("--storage", metavar="URL", help="results store URL (default sqlite:///hopbench.db)")
    p.add_argument("-o", "--output", default="leaderboards", metavar="DIR",
                   help="output directory (default leaderboards)")
    p.add_argument("--no-plots", action="store_true", help="skip the matplotlib plots")
    p.add_argument("--force", action="store_true",
                   help="overwrite files under -o that hopbench did not write (or that changed since)")
    p.add_argument("--compress-over", type=int, default=None, metavar="BYTES",
                   help="gzip solution files larger than this (default 1000000)")
    p.add_argument("--with-runs", action="store_true",
                   help="also write every run of each board to <out>/<suite>/runs.jsonl.xz, which 'hopbench results "
                        "--merge-from' loads back after re-checking it")
    p.set_defaults(func=run)


def _suites(args, store) -> list[tuple[str, object]]:
    """``(name, Suite or None)`` for each requested suite (suite files give references and optima)."""
    from pathlib import Path

    from hopbench.harness.bench.suites import load_suite
    from hopbench.harness.errors import HopbenchError

    wanted = [s.strip() for item in (args.suite or []) for s in item.split(",") if s.strip()]
    if not wanted:
        runs = store.dataframe(with_solutions=False)
        names = sorted(set(runs[runs.study.isna()]["suite"]))  # a tuning study's runs make no board
        if not names:
            raise HopbenchError("the results store holds no runs (outside tuning studies); run a suite first, "
                                "e.g. 'hopbench run --suite quick'")
        out = []
        for name in names:
            try:
                out.append((name, load_suite(name)))
            except HopbenchError:
                out.append((name, None))
        return out
    out = []
    for item in wanted:
        if item.endswith(".toml") or Path(item).suffix == ".toml":
            suite = load_suite(item)
            out.append((suite.name, suite))
        else:
            try:
                out.append((item, load_suite(item)))
            except HopbenchError:
                out.append((item, None))  # not a suite file any more: the runs carry their instances
    _check_recorded(store, out)
    return out


def _check_recorded(store, suites: list[tuple[str, object]]) -> None:
    """Every requested suite has runs in the store (outside tuning studies), checked before anything is
    written; a typo is a one-line error listing the suites the store holds."""
    from hopbench.harness.bench.store import shown_url
    from hopbench.harness.cli.results import recorded
    from hopbench.harness.errors import HopbenchError

    held = recorded(store, "suite", studies=False)
    holds = f"it holds runs of {', '.join(held)}" if held else "it holds no runs"
    for name, suite in suites:
        if name in held:
            continue
        if suite is None:  # a typo, most likely
            raise HopbenchError(f"no recorded runs of suite {name!r} in this store and no suite file of that name "
                                f"({holds}); check --suite")
        raise HopbenchError(f"no recorded runs of suite {name!r} in this store ({holds}); run 'hopbench run "
                            f"--suite {name} --storage {shown_url(store.url)}' first, or pass the right --storage")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from hopbench.harness.bench.store import Store
    from hopbench.harness.errors import HopbenchError
    from hopbench.harness.outputs import check_directory_place, store_files
    from hopbench.harness.report.board import build_board
    from hopbench.harness.report.site import SITE_DIR, check_suite_name, write_site
    from hopbench.harness.report.writer import DEFAULT_COMPRESS_OVER, write_board

    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise HopbenchError(f"-o {out} is a file; give a directory")
    compress = DEFAULT_COMPRESS_OVER if args.compress_over is None else args.compress_over
    if compress < 0:
        raise HopbenchError(f"--compress-over must be >= 0 bytes, got {compress}")
    store = Store.open(args.storage, mode="read")  # arguments first; a missing SQLite file is an error
    suites = _suites(args, store)
    for name, _ in suites:
        check_suite_name(name)  # names the board's directory under -o: checked before anything is written
    # the board and the site write only their own files under -o, never over the store or a suite file
    protect = {**store_files(store.url), **{s.path: "a suite file" for _, s in suites if s is not None}}
    for place in [out / name for name, _ in suites] + [out / SITE_DIR]:
        check_directory_place(place)  # before any board is written, not between two of them
    out.mkdir(parents=True, exist_ok=True)
    warned = 0
    for name, suite in suites:
        board = build_board(store, name, suite=suite)  # refuses a suite without runs
        for line in store.damaged[warned:]:  # damaged rows are left out of the board, each said in one line
            print(f"warning: {line}", file=sys.stderr)
        warned = len(store.damaged)
        for line in board.contradictions:
            print(f"warning: {printable(line)}", file=sys.stderr)
        if suite is None:
            print(f"note: no suite file {name!r}; instances are rebuilt from the runs (no published references)",
                  file=sys.stderr)
        paths = write_board(board, store, out, plots=not args.no_plots, compress_over=compress, protect=protect,
                            force=args.force, runs=args.with_runs)
        shown = board.rows[board.rows["runs"] > 0]
        print(f"{printable(name)}: {board.rows['instance'].nunique()} instances, {len(board.rows)} rows "
              f"({len(shown)} with ok runs), {board.provenance['runs']} runs -> {paths['markdown']}")
    index = write_site(out, protect=protect, force=args.force)
    print(f"site: {index}")
    return 0
