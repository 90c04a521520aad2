"""``hopbench pareto``: the Pareto view of a shortcut suite's recorded solutions (ASPL, throughput bound, cable)."""
from __future__ import annotations

import argparse

from hopbench.harness.terminal import printable


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pareto", help="hop count, throughput bound and cable length of a suite's solutions, "
                                      "with each solver's Pareto front",
                       description="Re-validate and measure every ok shortcut solution of a suite: ASPL, the "
                                   "throughput bound 1/L of minimal routing under uniform traffic and the mean "
                                   "cable length of Koibuchi et al. 2012's distributed layout; mark each solver's "
                                   "front per base graph.  Writes <out>/pareto.csv, pareto.md and one figure per "
                                   "base graph.")
    p.add_argument("--suite", required=True, metavar="S", help="suite name (as recorded in the store)")
    p.add_argument("--storage", metavar="URL", help="results store URL (default sqlite:///hopbench.db)")
    p.add_argument("-o", "--output", default="pareto", metavar="DIR", help="output directory (default pareto)")
    p.add_argument("--force", action="store_true",
                   help="overwrite pareto files in DIR even if hopbench did not write them")
    p.add_argument("--no-plots", action="store_true", help="skip the figures")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from hopbench.harness.bench.store import Store
    from hopbench.harness.errors import HopbenchError
    from hopbench.harness.outputs import check_directory_place, store_files
    from hopbench.harness.report.pareto import pareto_points, write_pareto

    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise HopbenchError(f"-o {out} is a file; give a directory")
    store = Store.open(args.storage, mode="read")
    check_directory_place(out)
    df = pareto_points(store, args.suite)
    written = write_pareto(df, args.suite, out, plots=not args.no_plots, protect=store_files(store.url),
                           force=args.force)
    fronts = int(df["on_front"].sum())
    print(f"{printable(args.suite)}: {len(df)} solutions in {df['family'].nunique()} base graph(s), {fronts} on a "
          f"solver's front -> {written['markdown']}")
    return 0
