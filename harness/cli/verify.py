"""``hopbench verify``: re-check a result file from scratch.

Exit 0: valid and the stored metrics match; 1: invalid or mismatching (the
reason is printed); 2: the file cannot be read as a result file.
"""
from __future__ import annotations

import argparse

from hopbench.harness.cli._common import fmt_number, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="re-check a solution or routing-table file",
                       description="Re-validate a result file and recompute its metrics.")
    p.add_argument("file", help="a hopbench solution (or routing table) JSON file")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def _shown(value: object) -> str:
    """A metric as printed: a whole number without ".0" (diameter 6), any other value in full."""
    if isinstance(value, float) and value.is_integer():
        return fmt_number(value)
    return str(value)


def run(args: argparse.Namespace) -> int:
    from hopbench.harness.documents import read_json
    from hopbench.harness.problems.registry import verify_document

    verdict = verify_document(read_json(args.file))
    if args.json:
        print_json({"file": args.file, "valid": verdict.valid, "reason": verdict.reason,
                    "metrics": verdict.metrics, "stored": verdict.stored})
    elif verdict.valid:
        shown = ", ".join(f"{k} {_shown(v)}" for k, v in verdict.metrics.items())
        print(f"valid: {args.file} ({shown})")
    else:
        print(f"invalid: {args.file}: {verdict.reason}")
    return 0 if verdict.valid else 1
