"""``hopbench tune``: Optuna tuning of one solver's parameters over a suite.

It says what a trial's value is ("mean gap to the best known, %"), prints each finished trial with its
parameters and value, and, on a terminal, keeps one live line below them: the running trial, its instance
and seed, and the seconds it has run.  Ctrl-C ends the running trial as pruned and the command with exit
130; the same command resumes the study.
"""
from __future__ import annotations

import argparse
import sys
import threading
import time
from typing import Any, TextIO

from hopbench.harness.cli._common import INTERRUPTED_EXIT, positive_seconds, print_json, seed_count, seed_value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tune", help="tune a solver's parameters with Optuna over a suite",
                       description="Optuna study over a solver's search space; every run is recorded in the store. "
                                   "A trial runs the solver with one parameter set on every selected instance and "
                                   "seed; its value, minimised, is the mean gap to the best known objective of each "
                                   "instance (best recorded run, suite reference, else lower bound), shown in percent "
                                   "(--json gives the fraction: 0.05 = 5%%). The solver's defaults are the first "
                                   "trial. Each finished trial is printed with its parameters and value; Ctrl-C "
                                   "ends the running trial as pruned (exit 130), and the same command resumes the "
                                   "study.")
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
    from hopbench.harness.bench.tuning import OBJECTIVE_WORDS, TuneConfig, percent, save_directory, save_tuned, tune
    from hopbench.harness.cli._common import parse_assignments

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
        from hopbench.harness.bench.store import DEFAULT_URL
        from hopbench.harness.bench.suites import load_suite
        from hopbench.harness.outputs import refuse_overwriting_inputs, store_files

        reads = {**store_files(args.storage or DEFAULT_URL), load_suite(args.suite).path: "the suite file"}
        refuse_overwriting_inputs(where / f"{args.solver}.json", reads, "--save-to")
    line = TrialLine(sys.stderr, live=sys.stderr.isatty() and not args.json, header=not args.json)
    with line:
        result = tune(cfg, progress=line.event)
    if save and result.best_params:
        result.saved = str(save_tuned(cfg, result, where))
    for text in result.worker_failures:
        print(f"warning: {text}; its running trial was marked failed", file=sys.stderr)
    if args.json:
        print_json({"study": result.study, "n_trials": result.n_trials, "best_value": result.best_value,
                    "best_params": result.best_params, "workers": result.workers, "complete": result.complete,
                    "pruned": result.pruned, "failed": result.failed, "saved": result.saved,
                    "interrupted": result.interrupted})
    else:
        print(f"study {result.study}: {result.n_trials} trials ({result.complete} complete, {result.pruned} pruned, "
              f"{result.failed} failed)")
        if result.best_value is None:
            print("no complete trial yet")
        else:
            params = " ".join(f"{k}={v}" for k, v in result.best_params.items()) or "(defaults)"
            print(f"best: trial {result.best_trial}, {OBJECTIVE_WORDS} {percent(result.best_value)}  {params}")
        if result.saved:
            print(f"saved to {result.saved}")
    if result.interrupted:
        print("interrupted: the running trial ended as pruned; run the same command to continue the study (it "
              "tries the defaults first if their trial never finished)", file=sys.stderr)
        if save and not result.best_params:
            print("nothing saved: no trial completed", file=sys.stderr)
        return INTERRUPTED_EXIT
    if save and not result.best_params:
        save_tuned(cfg, result, where)  # the one-line error: nothing to save
    return 1 if result.worker_failures else 0


class TrialLine:
    """What ``tune`` shows while it runs: a line per finished trial (always), and on a terminal (``live``) one
    updating line below them, redrawn every second: the running trial, its instance and seed, its seconds."""

    def __init__(self, stream: TextIO, *, live: bool, header: bool = True, clock: Any = time.monotonic,
                 interval: float = 1.0) -> None:
        self.stream = stream
        self.header = header
        self.live = live
        self.clock = clock
        self.interval = interval
        self.status = ""
        self.trial_started: float | None = None
        self.finished = 0
        self._drawn = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> TrialLine:
        if self.live:
            self._thread = threading.Thread(target=self._tick, daemon=True, name="hopbench-tune-line")
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            self._wipe()

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            with self._lock:
                self._draw()

    def event(self, kind: str, facts: dict[str, Any]) -> None:
        """A tuning worker's news (see :data:`hopbench.harness.bench.tuning.Progress`)."""
        from hopbench.harness.bench.tuning import OBJECTIVE_WORDS, trial_summary

        with self._lock:
            if kind == "start":
                if self.header:  # said once the study is ready, so a bad argument stays a one-line error
                    n = facts["trials"]
                    self.stream.write(f"tuning {facts['solver']} on {facts['suite']} (study {facts['study']}): "
                                      f"{n} trial{'s' if n != 1 else ''}, each scored by the {OBJECTIVE_WORDS} "
                                      f"(lower is better)\n")
                    self.stream.flush()
                return
            if kind == "trial":
                self.trial_started = self.clock()
                self.status = f"trial {facts['trial']}: starting"
            elif kind == "run":
                self.status = (f"trial {facts['trial']}: instance {facts['instance']}/{facts['instances']} "
                               f"({facts['id']}), seed {facts['seed']}")
            elif kind == "finished":
                self.finished += 1
                self._wipe()
                self.stream.write(trial_summary(facts) + "\n")
                self.stream.flush()
                self.status, self.trial_started = "", None
            self._draw()

    def text(self) -> str:
        if not self.status:
            return ""
        seconds = "" if self.trial_started is None else f"  {self.clock() - self.trial_started:.0f} s"
        return f"{self.status}{seconds}  |  {self.finished} finished"

    def _draw(self) -> None:
        if not self.live or self._stop.is_set():
            return
        from hopbench.harness.cli.solve import _columns, fit

        line = fit(self.text(), _columns(self.stream) - 1)
        self.stream.write("\r" + line + " " * max(0, self._drawn - len(line)))
        self.stream.flush()
        self._drawn = len(line)

    def _wipe(self) -> None:
        if self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()
            self._drawn = 0
