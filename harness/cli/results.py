"""``hopbench results``: the recorded runs as a table, CSV, Parquet or JSON."""
from __future__ import annotations

import argparse
import json
import sys

from harness.cli._common import output_file, print_json

JSON_COLUMNS = ["instance", "suite", "solver", "params", "params_tag", "seed", "status", "error", "objective",
                "diameter", "aspl", "metrics", "elapsed_s", "evaluations", "solution", "kind", "study", "trial",
                "hopbench_version", "git_commit", "host", "started_at", "finished_at"]
TABLE_COLUMNS = ["instance", "solver", "params_tag", "seed", "status", "objective", "diameter", "aspl",
                 "elapsed_s", "error"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("results", help="show or export recorded runs",
                       description="The recorded runs as a pandas DataFrame: printed or written to a file.")
    p.add_argument("--suite", metavar="S")
    p.add_argument("--solver", metavar="A,B", help="comma-separated solver names")
    p.add_argument("--format", choices=["table", "csv", "parquet", "json"], default="table")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout (required for parquet)")
    p.add_argument("--storage", metavar="URL", help="results store URL (default sqlite:///hopbench.db)")
    p.add_argument("--merge-from", metavar="URL", help="first copy every run of another store into this one")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.bench.store import Store, merge
    from harness.errors import HopbenchError

    store = Store.open(args.storage)
    if args.merge_from:
        copied = merge(args.merge_from, store.url)
        print(f"merged {copied} run(s) from {args.merge_from}", file=sys.stderr)
    solver_names = [s.strip() for s in args.solver.split(",")] if args.solver else None
    # solution documents can be large; only the formats that print them load them
    df = store.dataframe(suite=args.suite, solvers=solver_names, with_solutions=args.format in ("json", "parquet"))
    if solver_names and not len(df):
        import solvers

        unknown = [s for s in solver_names if s not in solvers.names()]
        if unknown:  # a typo, most likely: say so instead of an empty table
            raise HopbenchError(f"no runs of {', '.join(map(repr, unknown))} in this store and no such solver; "
                                f"solvers: {', '.join(solvers.names())}")
    out = output_file(args.output) if args.output else None
    if args.format == "parquet":
        if out is None:
            raise HopbenchError("--format parquet needs -o FILE (Parquet is binary)")
        df.to_parquet(out, index=False)
        return 0
    if args.format == "json":
        rows = []
        for rec in df.to_dict("records"):
            row = {k: rec.get(k) for k in JSON_COLUMNS}
            for key in ("params", "metrics", "solution"):
                row[key] = json.loads(row[key]) if isinstance(row[key], str) else row[key]
            for key in ("started_at", "finished_at"):
                row[key] = row[key].isoformat() if hasattr(row[key], "isoformat") else None
            rows.append(row)
        if out is not None:
            from harness.documents import strict_json

            out.write_text(json.dumps(strict_json(rows), indent=1) + "\n")
        else:
            print_json(rows)
        return 0
    if args.format == "csv":
        text = df.to_csv(index=False)
    else:
        text = df[TABLE_COLUMNS].to_string(index=False, max_colwidth=60) if len(df) else "(no runs recorded)"
    if out is not None:
        out.write_text(text if text.endswith("\n") else text + "\n")
    else:
        print(text)
    return 0
