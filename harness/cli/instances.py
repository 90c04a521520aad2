"""``hopbench instances``: the suites and their instance ids."""
from __future__ import annotations

import argparse

from hopbench.harness.cli._common import print_json
from hopbench.harness.terminal import printable


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("instances", help="list suites, or the instances of one suite",
                       description="List the standard suites, or the instance ids of one suite.")
    p.add_argument("suite", nargs="?", help="a suite name or TOML path")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hopbench.harness.bench.suites import list_suites, load_suite

    if args.suite is None:
        rows = []
        for name in list_suites():
            s = load_suite(name)
            rows.append({"suite": name, "instances": len(s.instances), "description": s.description})
        if args.json:
            print_json(rows)
        else:
            for r in rows:
                print(f"{printable(r['suite']):<14} {r['instances']:>4} instances  {printable(r['description'])}")
        return 0
    s = load_suite(args.suite)
    rows = [{"id": i.id, "kind": i.kind, "split": i.split, "best_known": i.best_known, "optimum": i.optimum,
             "references": list(i.references), "fields": i.fields} for i in s.instances]
    if args.json:
        print_json({"suite": s.name, "description": s.description, "instances": rows})
    else:
        print(f"{printable(s.name)}: {printable(s.description)}")
        for r in rows:
            extra = [f"split={printable(r['split'])}"] if r["split"] else []
            if r["optimum"] is not None:
                extra.append(f"optimum={r['optimum']}")
            if r["references"]:
                extra.append(f"{len(r['references'])} reference value(s)")
            print(f"  {printable(r['id'])}" + (f"  ({', '.join(extra)})" if extra else ""))
    return 0
