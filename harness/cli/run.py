"""``hopbench run``: run a suite's benchmark matrix and record every cell."""
from __future__ import annotations

import argparse
import sys

from harness.cli._common import positive_seconds


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run a suite (instances x solvers x params x seeds) into the results store",
                       description="Run a benchmark matrix; cells already recorded are skipped (resume).")
    p.add_argument("--suite", required=True, metavar="S", help="suite name (see 'hopbench instances') or TOML path")
    p.add_argument("--instances", metavar="GLOB", help="only instances whose id matches, e.g. 'torus:*'")
    p.add_argument("--split", choices=["tune", "test"], help="only instances of this split")
    p.add_argument("--max-nodes", type=int, metavar="N", help="only instances of at most N vertices / torus nodes")
    p.add_argument("--solver", metavar="A,B", help="comma-separated solvers (default: all that fit the suite)")
    seeds = p.add_mutually_exclusive_group()
    seeds.add_argument("--seeds", type=int, metavar="K", help="seeds 1..K (default: the suite's, else 1)")
    seeds.add_argument("--seed-list", metavar="1,2,3", help="explicit seeds")
    p.add_argument("--time-limit", metavar="SEC", help="per-cell budget in seconds (default: the suite's, else 60); "
                                                       "a cell still running at 1.2 x limit + 5 s is killed")
    p.add_argument("--param", action="extend", nargs="+", default=[], metavar="SOLVER.K=V[,V...]",
                   help="solver parameters; several values make a grid")
    p.add_argument("--params", choices=["tuned"], help="use the tuned parameters saved in leaderboards/tuned/")
    p.add_argument("--jobs", type=int, default=None, metavar="N", help="parallel cells (default: cores)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on a Dask distributed cluster")
    p.add_argument("--storage", metavar="URL", help="results store URL (default sqlite:///hopbench.db)")
    p.add_argument("--rerun", choices=["failed", "all"], help="also re-run failed cells, or every cell")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def _seeds(args) -> list[int] | None:
    from harness.errors import HopbenchError

    if args.seed_list:
        try:
            seeds = [int(s) for s in args.seed_list.split(",") if s.strip()]
        except ValueError:
            raise HopbenchError(f"--seed-list must be comma-separated integers, got {args.seed_list!r}") from None
        if not seeds:
            raise HopbenchError("--seed-list is empty; give seeds such as --seed-list 1,2,3")
        if min(seeds) < 0:
            raise HopbenchError(f"--seed-list takes non-negative seeds, got {min(seeds)}; use 0 or more")
        return list(dict.fromkeys(seeds))  # a repeated seed would be the same cell twice
    if args.seeds is not None:
        if args.seeds < 1:
            raise HopbenchError(f"--seeds must be >= 1, got {args.seeds}")
        return list(range(1, args.seeds + 1))
    return None


def run(args: argparse.Namespace) -> int:
    import os

    from harness.bench.runner import execute_plan, make_executor, plan_matrix, summary_table
    from harness.bench.store import Store, shown_url
    from harness.bench.suites import load_suite
    from harness.errors import HopbenchError

    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise HopbenchError(f"--jobs must be >= 1, got {jobs}")
    suite = load_suite(args.suite)
    seeds = _seeds(args)  # every argument is checked before the store is opened (or created)
    time_limit = positive_seconds(args.time_limit) if args.time_limit else None
    store = Store.open(args.storage)
    solver_names = [s.strip() for s in args.solver.split(",") if s.strip()] if args.solver else None
    tuned = None
    if args.params == "tuned":
        from harness.bench.tuning import load_tuned

        tuned = load_tuned(solver_names)
    plan = plan_matrix(suite, solver_names=solver_names, instances=args.instances, split=args.split,
                       seeds=seeds, time_limit=time_limit,
                       param_items=args.param, store=store, rerun=args.rerun, jobs=jobs, tuned=tuned,
                       max_nodes=args.max_nodes)
    pool = make_executor(jobs, args.scheduler) if plan.todo else None  # an unreachable scheduler fails here
    print(f"suite {suite.name}: {len(plan.cells)} cells, {plan.skipped_done} already recorded, "
          f"{len(plan.todo)} to run on {args.scheduler or f'{jobs} local worker(s)'}; store {shown_url(store.url)}",
          file=sys.stderr)
    report = execute_plan(plan, store, jobs=jobs, scheduler=args.scheduler, progress=not args.no_progress,
                          executor=pool)
    print(summary_table(store, plan))
    failed = report.statuses["error"] + report.statuses["timeout"]
    if failed:
        print(f"{failed} cell(s) failed; see 'hopbench results --suite {suite.name}' for their errors",
              file=sys.stderr)
    return 0
