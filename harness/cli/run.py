"""``hopbench run``: run a suite's benchmark matrix and record every cell."""
from __future__ import annotations

import argparse
import sys

from hopbench.harness.cli._common import positive_seconds, seed_count

EXIT_CODES = """exit status:
  0    every cell of the matrix is recorded ok or skipped (skipped: the solver declined the instance)
  1    some cell is recorded error or timeout, by this run or by an earlier one and not re-run
       ('--rerun failed' retries those); --allow-failures exits 0 instead
  2    bad input (one line 'error: ...'); nothing is run. Also a store that fails during the run
       (read-only, full, gone): the run stops at once, the cells recorded before stay recorded
  130  interrupted

environment:
  HOPBENCH_PLUGIN_WARMUP_LIMIT  seconds a plug-in solver's one-time warm-up may take (default 60; a
                                solver not shipped with hopbench is killed at every limit)
  HOPBENCH_CONNECT_TIMEOUT      seconds to connect to a store's server or a --scheduler (default 10)"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run a suite (instances x solvers x params x seeds) into the results store",
                       description="Run a benchmark matrix; cells already recorded are skipped (resume).",
                       epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", required=True, metavar="S", help="suite name (see 'hopbench instances') or TOML path")
    p.add_argument("--instances", metavar="GLOB", help="only instances whose id matches, e.g. 'torus:*'")
    p.add_argument("--split", choices=["tune", "test"], help="only instances of this split")
    p.add_argument("--max-nodes", type=int, metavar="N", help="only instances of at most N vertices / torus nodes")
    p.add_argument("--min-nodes", type=int, metavar="N", help="only instances of at least N vertices / torus nodes")
    p.add_argument("--solver", metavar="A,B", help="comma-separated solvers (default: all that fit the suite)")
    seeds = p.add_mutually_exclusive_group()
    seeds.add_argument("--seeds", type=int, metavar="K", help="seeds 1..K (default: the suite's, else 1)")
    seeds.add_argument("--seed-list", metavar="1,2,3", help="explicit seeds")
    p.add_argument("--time-limit", metavar="SEC", help="per-cell budget in seconds (default: the suite's, else 60); "
                                                       "a cell still running at 1.2 x limit + 5 s is killed")
    p.add_argument("--param", action="extend", nargs="+", default=[], metavar="SOLVER.K=V[,V...]",
                   help="solver parameters; several values make a grid")
    p.add_argument("--params", choices=["tuned"],
                   help="use tuned parameters: your own (saved by 'hopbench tune --save') where there are some, "
                        "else the published ones shipped with hopbench; solvers with neither keep their defaults")
    p.add_argument("--jobs", type=int, default=None, metavar="N", help="parallel cells (default: cores)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="run on a Dask distributed cluster (connecting gives up after HOPBENCH_CONNECT_TIMEOUT s)")
    p.add_argument("--storage", metavar="URL", help="results store URL (default sqlite:///hopbench.db)")
    p.add_argument("--rerun", choices=["failed", "all"], help="also re-run failed cells, or every cell")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--allow-failures", action="store_true",
                   help="exit 0 even when cells fail (error or timeout), for sweeps that expect failures")
    p.set_defaults(func=run)


def _seeds(args) -> list[int] | None:
    from hopbench.harness import caps
    from hopbench.harness.errors import HopbenchError

    if args.seed_list:
        parts = [s for s in args.seed_list.split(",") if s.strip()]
        if not parts:
            raise HopbenchError("--seed-list is empty; give seeds such as --seed-list 1,2,3")
        seed_count(len(parts), "--seed-list: the number of seeds")  # counted before any is converted
        try:
            seeds = [int(s) for s in parts]
        except ValueError:
            raise HopbenchError(f"--seed-list must be comma-separated integers, got {args.seed_list!r:.80}") from None
        if min(seeds) < 0:
            raise HopbenchError(f"--seed-list takes non-negative seeds, got {min(seeds)}; use 0 or more")
        caps.SEED_VALUE.check(max(seeds), "--seed-list: the largest seed")
        return list(dict.fromkeys(seeds))  # a repeated seed would be the same cell twice
    if args.seeds is not None:
        return list(range(1, seed_count(args.seeds, "--seeds") + 1))
    return None


def run(args: argparse.Namespace) -> int:
    import os

    from hopbench.harness import caps
    from hopbench.harness.bench.runner import execute_plan, make_executor, plan_matrix, resume_plan, summary_table
    from hopbench.harness.bench.store import Store, shown_url
    from hopbench.harness.bench.suites import load_suite
    from hopbench.harness.errors import HopbenchError
    from hopbench.solvers.contract.limits import plugin_warm_up_limit

    jobs = args.jobs if args.jobs is not None else min(os.cpu_count() or 1, caps.WORKERS.limit())
    if jobs < 1:
        raise HopbenchError(f"--jobs must be >= 1, got {jobs}")
    caps.WORKERS.check(jobs, "--jobs")
    for flag, value in (("--min-nodes", args.min_nodes), ("--max-nodes", args.max_nodes)):
        if value is not None and value < 1:  # a size below 1 selects all or nothing: surely a typo
            raise HopbenchError(f"{flag} must be a vertex count >= 1, got {value}")
    suite = load_suite(args.suite)
    seeds = _seeds(args)  # every argument is checked before the store is opened (or created)
    time_limit = positive_seconds(args.time_limit) if args.time_limit else None
    solver_names = [s.strip() for s in args.solver.split(",") if s.strip()] if args.solver is not None else None
    if solver_names == []:
        raise HopbenchError("--solver names no solver; give names such as --solver random,vrs, or leave it out")
    chosen = suite.select(args.instances, args.split, args.max_nodes, args.min_nodes)  # matching nothing: an error
    if solver_names:
        _check_solvers(suite, chosen, solver_names)
    tuned = None
    if args.params == "tuned":
        from hopbench.harness.bench.tuning import load_tuned, tuned_file

        tuned = load_tuned(solver_names)
        for name, params in tuned.items():
            print(f"tuned parameters of {name}: {params} ({tuned_file(name)})", file=sys.stderr)
    plugin_warm_up_limit()  # a malformed HOPBENCH_PLUGIN_WARMUP_LIMIT is an error now, not in every cell
    from hopbench.harness.bench.store import refuse_in_memory

    refuse_in_memory(args.storage, "the runs recorded there would be lost when the command ends")
    # the whole matrix is planned (every --param checked) before the store is opened, or created
    plan = plan_matrix(suite, solver_names=solver_names, instances=args.instances, split=args.split,
                       seeds=seeds, time_limit=time_limit, param_items=args.param, rerun=args.rerun, jobs=jobs,
                       tuned=tuned, max_nodes=args.max_nodes, min_nodes=args.min_nodes)
    # an unreachable scheduler fails here, before a store is created
    pool = make_executor(jobs, args.scheduler) if args.scheduler else None
    try:
        from hopbench.harness.bench.store import DEFAULT_URL
        from hopbench.harness.outputs import refuse_overwriting_inputs, store_files

        for path in store_files(args.storage or DEFAULT_URL):  # a store written over the suite file would destroy it
            refuse_overwriting_inputs(path, {suite.path: "the suite file"}, "--storage")
        store = Store.open(args.storage)
        plan = resume_plan(plan, store, args.rerun)
    except BaseException:
        if pool is not None:
            pool[0].shutdown(wait=False)
            pool[1].close()
        raise
    if pool is None and plan.todo:
        pool = make_executor(jobs, None)
    print(f"suite {suite.name}: {len(plan.cells)} cells, {plan.skipped_done} already recorded, "
          f"{len(plan.todo)} to run on {args.scheduler or f'{jobs} local worker(s)'}; store {shown_url(store.url)}",
          file=sys.stderr)
    report = execute_plan(plan, store, jobs=jobs, scheduler=args.scheduler, progress=not args.no_progress,
                          executor=pool)
    print(summary_table(store, plan))
    return _failures(plan, report, store, args)


def _check_solvers(suite, chosen: list, solver_names: list[str]) -> None:
    """Every solver named in ``--solver`` exists and solves some selected instance (a typo is an error)."""
    from hopbench import solvers
    from hopbench.harness.errors import HopbenchError

    kinds = {i.kind for i in chosen}
    for name in solver_names:
        solves = set(solvers.get(name).kinds)  # an unknown solver is a one-line error
        if not kinds & solves:
            raise HopbenchError(f"solver {name} solves {'/'.join(sorted(solves))} problems, none of the selected "
                                f"instances of suite {suite.name} ({'/'.join(sorted(kinds))}); drop it from --solver")


def _failures(plan, report, store, args: argparse.Namespace) -> int:
    """The exit status: 1 if a cell of the matrix is recorded as error or timeout (see EXIT_CODES)."""
    import shlex

    from hopbench.harness.bench.store import shown_url

    recorded = store.statuses([c["key"] for c in plan.cells])
    failed = sum(status in ("error", "timeout") for status in recorded.values())
    if not failed:
        return 0
    now = report.statuses["error"] + report.statuses["timeout"]
    earlier = f" ({failed - now} recorded by an earlier run; '--rerun failed' retries them)" if failed > now else ""
    where = f" --storage {shlex.quote(shown_url(store.url))}" if args.storage else ""
    print(f"{failed} cell(s) failed{earlier}; see 'hopbench results --suite {shlex.quote(plan.suite.name)}{where}' "
          f"for their errors", file=sys.stderr)
    return 0 if args.allow_failures else 1
