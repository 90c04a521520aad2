"""``hopbench tune``: Optuna tuning of one solver's parameters over a suite."""
from __future__ import annotations

import argparse
import sys

from harness.cli._common import positive_seconds, print_json, seed_count, seed_value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tune", help="tune a solver's parameters with Optuna over a suite",
                       description="Optuna study over a solver's search space; every run is recorded in the store. "
                                   "A trial runs the solver with one parameter set on every selected instance and "
                                   "seed; its value, minimised, is the mean gap to the best known objective of each "
                                   "instance (best recorded run, suite reference, else lower bound), as a fraction "
                                   "(0.05 = 5%). The solver's defaults are the first trial.")
    p.add_argument("solver", help="solver name (see 'hopbench solvers --json' for search spaces)")
    p.add_argument("--suite", required=True, metavar="S",
                   help="the suite to tune on: a name ('hopbench instances' lists them) or a .toml path")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--instances", metavar="GLOB", help="only instances whose id matches")
    which.add_argument("--split", choices=["tune", "test"], help="only instances of this split")
    p.add_argument("--trials", type=int, required=True, metavar="N", help="trials this command adds to the study")
    p.add_argument("--time-limit", metavar="SEC", help="per-run budget (default: the suite's, else 60)")
    p.add_argument("--seeds", type=int, default=1, metavar="K", help="seeds 1..K per instance and trial")
    p.add_argument("--storage", metavar="URL",
                   help="results store URL (default sqlite:///hopbench.db); the study lives beside it; a database "
                        "server gets $HOPBENCH_CONNECT_TIMEOUT seconds (default 10) to answer")
    p.add_argument("--study", metavar="NAME", help="study name (default SOLVER@SUITE[-SPLIT][[GLOB]], SUITE being the "
                                                   "suite's name, also when --suite is a path); reuse it to add trials "
                                                   "or to join from another machine")
    p.add_argument("--workers", type=int, default=1, metavar="W", help="local worker processes on the study")
    p.add_argument("--tune", metavar="A,B", help="tune only these parameters of the search space")
    p.add_argument("--fix", action="extend", nargs="+", default=[], metavar="K=V",
                   help="hold parameters at a value while tuning the rest")
    p.add_argument("--sampler", choices=["tpe", "random", "grid"], default="tpe",
                   help="how trials pick parameters: tpe (Optuna's TPE, learns from finished trials; default), "
                        "random (uniform over the search space), grid (every choice, 5 points per numeric parameter, every combination)")
    p.add_argument("--seed", type=seed_value, default=0, help="sampler seed")
    p.add_argument("--save", action="store_true",
                   help="write the best parameters to SOLVER.json in your own tuned-parameter directory "
                        "($HOPBENCH_TUNED_DIR, else tuned/ in the per-user data directory, e.g. "
                        "~/.local/share/hopbench/tuned) and to the store; 'hopbench run --params tuned' reads them "
                        "before the published ones")
    p.add_argument("--save-to", metavar="DIR|published",
                   help="like --save, but write SOLVER.json into DIR, or with 'published' into the published "
                        "parameters shipped with hopbench (harness/bench/tuned/ of the checkout; commit them "
                        "to publish them)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.bench.tuning import TuneConfig, save_directory, save_tuned, tune
    from harness.cli._common import parse_assignments

    seed_count(args.seeds, "--seeds")
    cfg = TuneConfig(solver=args.solver, suite=args.suite, trials=args.trials, instances=args.instances,
                     split=args.split, time_limit=positive_seconds(args.time_limit) if args.time_limit else None,
                     seeds=list(range(1, args.seeds + 1)), storage=args.storage, study=args.study,
                     workers=args.workers, sampler=args.sampler, seed=args.seed,
                     only=[x.strip() for x in args.tune.split(",") if x.strip()] if args.tune else None,
                     fixed=parse_assignments(args.fix, "--fix"))
    save = args.save or args.save_to is not None
    where = save_directory(args.save_to) if save else None  # checked before the study runs
    if where is not None:  # the tuned file must not land on the store or the suite file the study reads
        from harness.bench.store import DEFAULT_URL
        from harness.bench.suites import load_suite
        from harness.outputs import refuse_overwriting_inputs, store_files

        reads = {**store_files(args.storage or DEFAULT_URL), load_suite(args.suite).path: "the suite file"}
        refuse_overwriting_inputs(where / f"{args.solver}.json", reads, "--save-to")
    result = tune(cfg)
    if save:
        result.saved = str(save_tuned(cfg, result, where))
    for line in result.worker_failures:
        print(f"warning: {line}; its running trial was marked failed", file=sys.stderr)
    if args.json:
        print_json({"study": result.study, "n_trials": result.n_trials, "best_value": result.best_value,
                    "best_params": result.best_params, "workers": result.workers, "complete": result.complete,
                    "pruned": result.pruned, "failed": result.failed, "saved": result.saved})
    else:
        print(f"study {result.study}: {result.n_trials} trials ({result.complete} complete, {result.pruned} pruned, "
              f"{result.failed} failed)")
        print(f"best mean relative gap {result.best_value}  params {result.best_params}")
        if result.saved:
            print(f"saved to {result.saved}")
    return 1 if result.worker_failures else 0
