"""``hopbench solvers``: the registered solvers, their problem kinds and parameters."""
from __future__ import annotations

import argparse

from hopbench.harness.cli._common import print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("solvers", help="list solvers and their parameters",
                       description="List the registered solvers with their problem kinds and parameters, or "
                                   "show one solver.")
    p.add_argument("name", nargs="?", metavar="NAME", help="show only this solver")
    p.add_argument("--kind", metavar="KIND", help="only solvers of this problem kind, e.g. shortcut or routing")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def describe(only: list[str] | None = None) -> list[dict]:
    from hopbench import solvers

    out = []
    for name in solvers.names() if only is None else only:
        cls = solvers.get(name)
        params = {}
        for key, prm in cls.params.items():
            entry = {"default": prm.default, "type": prm.type.__name__, "help": prm.help}
            if prm.choices is not None:
                entry["choices"] = list(prm.choices)
            if prm.low is not None and prm.high is not None:
                entry["search"] = {"low": prm.low, "high": prm.high, "log": prm.log}
                if prm.also:
                    entry["search"]["also"] = list(prm.also)
            params[key] = entry
        readings = {key: {"meaning": meaning, "params": values} for key, (meaning, values) in cls.readings.items()}
        out.append({"name": name, "kinds": list(cls.kinds), "description": cls.description, "params": params,
                    "readings": readings})
    return out


def selected(args: argparse.Namespace) -> list[str]:
    """The solver names to show: one by ``NAME`` (an unknown one gets "did you mean"), those of ``--kind``, or all."""
    from hopbench import solvers
    from hopbench.harness.errors import HopbenchError
    from hopbench.harness.problems.registry import get_kind

    names = solvers.names()
    if args.kind is not None:
        get_kind(args.kind)  # an unknown kind is a one-line error naming the known ones
        names = solvers.names(args.kind)
    if args.name is None:
        return names
    solvers.get(args.name)  # unknown: "did you mean"
    if args.name not in names:
        raise HopbenchError(f"solver {args.name} does not solve {args.kind} problems; {args.kind} solvers: "
                            f"{', '.join(names)}")
    return [args.name]


def run(args: argparse.Namespace) -> int:
    rows = describe(selected(args))
    if args.json:
        print_json(rows)
        return 0
    for row in rows:
        print(f"{row['name']}  [{', '.join(row['kinds'])}]  {row['description']}")
        for key, p in row["params"].items():
            print(f"    {key} = {p['default']!r}  ({p['type']})  {p['help']}")
        for key, r in row["readings"].items():
            values = " ".join(f"--param {row['name']}.{k}={v}" for k, v in r["params"].items())
            print(f"    reading {key!r}: {r['meaning']}  ({values})")
    return 0
