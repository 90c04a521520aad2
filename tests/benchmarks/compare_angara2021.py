"""Run dor, angara-bfs, angara-sssp and angara-ga over the angara2021 suite and compare max γ_c.

Usage (from the repository root)::

    python tests/benchmarks/compare_angara2021.py [--ga-seconds 10] [--out out/angara2021.jsonl] [--only 2D]

Every table is validated (including the deadlock check) before its metrics are
recorded.  Results are appended to a JSON-lines file, so an interrupted run
resumes where it stopped; the summary printed at the end (and with
``--summary``) is the per-dimension table of docs/routing.md: mean max γ_c per
algorithm, the share of tori where angara-sssp <= angara-bfs (and angara-ga <=
angara-bfs), and the mean relative improvement over angara-bfs,
``mean((bfs - x) / bfs)``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

SOLVERS = ("dor", "angara-bfs", "angara-sssp", "angara-ga")


def instance_key(inst: dict) -> str:
    from hopbench.harness.problems.routing.kind import routing_instance_id

    return routing_instance_id(inst)


def run(args: argparse.Namespace) -> None:
    from hopbench import solvers
    from hopbench.harness.problems.routing.kind import routing_problem
    from hopbench.solvers.contract.budget import Budget
    from hopbench.solvers.contract.execution import execute

    suite = tomllib.loads((ROOT / "instances" / "angara2021.toml").read_text())
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done.add((row["instance"], row["solver"]))
    for inst in suite["instances"]:
        fields = {**suite.get("defaults", {}), **inst}
        if args.only and fields["group"] not in args.only:
            continue
        key = instance_key(fields)
        problem = None
        for name in SOLVERS:
            if (key, name) in done:
                continue
            problem = problem or routing_problem(fields)
            budget = Budget(time_s=args.ga_seconds) if name == "angara-ga" else Budget()
            t0 = time.perf_counter()
            outcome = execute(solvers.create(name), problem, seed=args.seed, budget=budget)
            ev = outcome.solution.evaluation  # execute() validated the table (rules, minimality, deadlock)
            row = {"instance": key, "group": fields["group"], "nodes": problem.num_nodes, "solver": name,
                   "seed": args.seed, **ev.metrics(), "elapsed_s": round(outcome.elapsed_s, 3),
                   "wall_s": round(time.perf_counter() - t0, 3), "extra": outcome.solution.extra}
            with out.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(f"{key:32s} {name:12s} max {ev.max_load:5d}  sigma4 {ev.sigma4:8.3f}  {outcome.elapsed_s:7.2f}s",
                  flush=True)


def summary(path: Path) -> str:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    by = {}
    for r in rows:
        by.setdefault((r["group"], r["instance"]), {})[r["solver"]] = r
    lines = ["| group | tori | dor | bfs | sssp | ga | sssp <= bfs | ga <= bfs | sssp vs bfs | ga vs bfs | sssp <= ga |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for group in ("2D", "3D", "4D", "desmos", "all"):
        cells = [v for (g, _), v in by.items() if (g == group or group == "all") and len(v) == len(SOLVERS)]
        if not cells:
            continue
        k = len(cells)
        mean = {s: sum(c[s]["max_load"] for c in cells) / k for s in SOLVERS}
        le = lambda a, b: sum(c[a]["max_load"] <= c[b]["max_load"] for c in cells) / k  # noqa: E731
        imp = lambda a: sum((c["angara-bfs"]["max_load"] - c[a]["max_load"]) / c["angara-bfs"]["max_load"]  # noqa: E731
                            for c in cells) / k
        lines.append(f"| {group} | {k} | {mean['dor']:.1f} | {mean['angara-bfs']:.1f} | {mean['angara-sssp']:.1f} | "
                     f"{mean['angara-ga']:.1f} | {le('angara-sssp', 'angara-bfs'):.0%} | "
                     f"{le('angara-ga', 'angara-bfs'):.0%} | {imp('angara-sssp'):.1%} | {imp('angara-ga'):.1%} | "
                     f"{le('angara-sssp', 'angara-ga'):.0%} |")
    # the paper's Fig. 5 view: tori grouped by how x compares with BFS, with the ratio of the
    # group's total max load to BFS's
    lines += ["", "| group | x | better than bfs: tori, total ratio | equal | worse: tori, total ratio |",
              "|---|---|---|---|---|"]
    for group in ("2D", "3D", "4D", "desmos"):
        cells = [v for (g, _), v in by.items() if g == group and len(v) == len(SOLVERS)]
        if not cells:
            continue
        for x in ("angara-sssp", "angara-ga"):
            parts = []
            for test in (lambda a, b: a < b, lambda a, b: a == b, lambda a, b: a > b):
                sel = [c for c in cells if test(c[x]["max_load"], c["angara-bfs"]["max_load"])]
                ratio = (sum(c[x]["max_load"] for c in sel) / sum(c["angara-bfs"]["max_load"] for c in sel)
                         if sel else float("nan"))
                parts.append(f"{len(sel)}, {ratio:.3f}")
            lines.append(f"| {group} | {x} | {parts[0]} | {parts[1].split(',')[0]} | {parts[2]} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ga-seconds", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(ROOT / "out" / "angara2021.jsonl"))
    ap.add_argument("--only", nargs="*", help="groups to run: 2D 3D 4D desmos")
    ap.add_argument("--summary", action="store_true", help="only print the summary of --out")
    args = ap.parse_args()
    if not args.summary:
        run(args)
    print(summary(Path(args.out)))


if __name__ == "__main__":
    main()
