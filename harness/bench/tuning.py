"""Optuna tuning of a solver's parameters over a suite.

A trial is one parameter set.  It runs the solver on every selected instance
(for each seed) through the same sandboxes as ``hopbench run`` — so hard time
limits hold and every run is recorded in the results store, tagged with the
study and trial — and its value is the mean, over instances, of the relative
gap ``(objective - reference) / reference``.  The reference of an instance is
its best known value when the study is created: the best recorded run of any
solver, the suite's ``best_known`` / ``optimum`` / published objective values,
or, when none exists yet, the instance's lower bound.  It is frozen in the
study's user attributes so every trial and every worker measures against the
same numbers.  A failed or timed-out run counts as a gap of ``FAILURE_GAP``.

Instances are visited in a per-trial shuffled order, and after each one the
gap is reported to Optuna's ``WilcoxonPruner``, which stops a trial as soon as
it is significantly worse than the best one on the instances both have seen.
The solver's defaults are enqueued as the first trial.

Ctrl-C (or SIGTERM) ends the running trial as *pruned*, with the user attribute ``interrupted``,
and the worker takes no further trial; Optuna never sees the interrupt, so it logs no failure.  A
resumed study enqueues the defaults again when their trial never finished (interrupted, failed).

Storage: a study lives beside the results store.  For a SQLite store it is an
Optuna journal file next to the database (Optuna advises against SQLite for
parallel workers); for PostgreSQL (or any other server URL) it is the same
database, so ``hopbench tune ... --storage postgresql://... --study NAME``
started on several machines joins one study.  ``--workers W`` starts W local
worker processes on the study.
"""
from __future__ import annotations

import json
import logging
import math
import multiprocessing
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from hopbench.harness import caps
from hopbench.harness._paths import PUBLISHED_TUNED_DIR
from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.registry import get_kind

SAMPLERS = ("tpe", "random", "grid")
MAX_STUDY_NAME = 128
#: the gap charged for a run that failed or timed out (a 100% gap)
FAILURE_GAP = 1.0
#: the value of ``hopbench tune --save-to`` that writes the published parameters shipped with hopbench
PUBLISHED = "published"


def user_tuned_dir() -> Path:
    """Where ``hopbench tune --save`` writes and ``--params tuned`` looks first: ``$HOPBENCH_TUNED_DIR``,
    else ``tuned/`` in the per-user data directory (``~/.local/share/hopbench/tuned`` on Linux)."""
    env = os.environ.get("HOPBENCH_TUNED_DIR")
    if env:
        return Path(env)
    import platformdirs

    return platformdirs.user_data_path("hopbench") / "tuned"


def tuned_dirs() -> list[Path]:
    """Where ``--params tuned`` looks, first match per solver wins: the user's own, then the published ones."""
    return [user_tuned_dir(), PUBLISHED_TUNED_DIR]


@dataclass
class TuneConfig:
    solver: str
    suite: str
    trials: int
    instances: str | None = None
    split: str | None = None
    time_limit: float | None = None
    seeds: list[int] = field(default_factory=lambda: [1])
    storage: str | None = None
    study: str | None = None
    workers: int = 1
    sampler: str = "tpe"
    seed: int = 0
    only: list[str] | None = None  #: tune just these parameters of the search space
    fixed: dict[str, Any] = field(default_factory=dict)  #: parameters held at a value
    #: the suite's own name (its ``name`` key), read from the suite file when first needed
    suite_name: str | None = None

    def study_name(self) -> str:
        """``--study``, else ``SOLVER@SUITE[-SPLIT][[GLOB]]`` with the suite's own name: the same study whether
        the suite was given by name or by path (``../x.toml``, ``./x.toml``), and no path in a study's name."""
        if self.study:
            return self.study  # its length is checked where the study is opened
        if self.suite_name is None:
            from hopbench.harness.bench.suites import load_suite

            self.suite_name = load_suite(self.suite).name
        return (f"{self.solver}@{self.suite_name}" + (f"-{self.split}" if self.split else "")
                + (f"[{self.instances}]" if self.instances else ""))

    def check_study_name(self) -> str:
        """The study's name, refused when the ``runs`` table's study column cannot hold it."""
        name = self.study_name()
        if not name.strip():
            raise HopbenchError("--study needs a name; give e.g. --study vrs-quick, or leave it out")
        if len(name) > MAX_STUDY_NAME:
            raise HopbenchError(f"study name {name[:40]!r}... has {len(name)} characters, more than "
                                f"{MAX_STUDY_NAME}; give a shorter --study NAME")
        return name

    def space(self) -> dict[str, Any]:
        return search_space(self.solver, self.only, self.fixed)


@dataclass
class TuneResult:
    study: str
    n_trials: int
    best_value: float | None
    best_params: dict[str, Any]
    workers: int
    complete: int = 0
    pruned: int = 0
    failed: int = 0
    saved: str | None = None
    worker_failures: list[str] = field(default_factory=list)
    interrupted: bool = False  #: Ctrl-C or SIGTERM ended the command early
    best_trial: int | None = None  #: the number of the best complete trial


# --------------------------------------------------------------------------- search space


def search_space(solver_name: str, only: list[str] | None = None, fixed: dict[str, Any] | None = None
                 ) -> dict[str, Any]:
    """The parameters to tune (name -> Param): the solver's search space, restricted to
    ``only`` and without the ``fixed`` ones.  An empty space or an unknown name is an error."""
    from hopbench import solvers

    full = solvers.get(solver_name).search_space()
    if not full:
        raise HopbenchError(f"solver {solver_name} declares no tunable parameters; nothing to tune")
    for name in only or []:
        if name not in full:
            raise HopbenchError(f"parameter {name!r} is not in {solver_name}'s search space "
                                f"({', '.join(sorted(full))})")
    space = {k: p for k, p in full.items() if (not only or k in only) and k not in (fixed or {})}
    if not space:
        raise HopbenchError(f"nothing left to tune for {solver_name}: every parameter is fixed")
    return space


def _mode(name: str) -> str:
    return f"{name}:mode"


def suggest(trial, name: str, p) -> Any:
    """One parameter value from an Optuna trial, honouring choices, ranges and special values."""
    if p.choices is not None:
        return trial.suggest_categorical(name, list(p.choices))
    if p.also:
        pick = trial.suggest_categorical(_mode(name), ["range", *(str(v) for v in p.also)])
        if pick != "range":
            return p.coerce(name, pick)
    if p.type is int:
        return trial.suggest_int(name, int(p.low), int(p.high), log=p.log)
    return trial.suggest_float(name, float(p.low), float(p.high), log=p.log)


def params_from_optuna(solver_name: str, values: dict[str, Any], space: dict[str, Any] | None = None
                       ) -> dict[str, Any]:
    """Solver parameters from a trial's Optuna params (special-value modes folded back)."""
    space = space or search_space(solver_name)
    out = {}
    for name, p in space.items():
        mode = values.get(_mode(name))
        if mode is not None and mode != "range":
            out[name] = p.coerce(name, mode)
        elif name in values:
            out[name] = values[name]
    return out


def default_trial(space: dict[str, Any]) -> dict[str, Any]:
    """The Optuna params that reproduce the solver's defaults (the first trial)."""
    out: dict[str, Any] = {}
    for name, p in space.items():
        if p.also and p.default in p.also:
            out[_mode(name)] = str(p.default)
            continue
        if p.also:
            out[_mode(name)] = "range"
        out[name] = p.default
    return out


def grid_space(space: dict[str, Any], points: int = 5) -> dict[str, list[Any]]:
    """A small grid over the search space for ``--sampler grid``."""
    import numpy as np

    grid: dict[str, list[Any]] = {}
    for name, p in space.items():
        if p.choices is not None:
            grid[name] = list(p.choices)
            continue
        if p.also:
            grid[_mode(name)] = ["range", *(str(v) for v in p.also)]
        pts = np.geomspace(p.low, p.high, points) if p.log else np.linspace(p.low, p.high, points)
        grid[name] = sorted({int(round(x)) for x in pts}) if p.type is int else [float(x) for x in pts]
    return grid


# --------------------------------------------------------------------------- references and gaps


def best_known_objectives(instances, store, suite_name: str) -> dict[str, float]:
    """Best known objective per instance — recorded runs, suite annotations, published objective values,
    else the kind's lower bound: the reference a trial's gaps are measured from (frozen in the study)."""
    df = store.dataframe(suite=suite_name, with_solutions=False)
    ok = df[(df.status == "ok") & df.objective.notna()] if len(df) else df
    best_recorded = ok.groupby("instance").objective.min().to_dict() if len(ok) else {}
    out = {}
    for inst in instances:
        known = [v for v in (best_recorded.get(inst.id), inst.best_known, inst.optimum) if v is not None]
        known += [float(r["objective"]) for r in inst.references if isinstance(r.get("objective"), (int, float))]
        known = [float(v) for v in known if math.isfinite(float(v))]
        out[inst.id] = min(known) if known else _lower_bound(inst)
    return out


def _lower_bound(inst) -> float:
    bound = get_kind(inst.kind).lower_bound(inst.problem())
    if bound is not None and math.isfinite(bound):
        return float(bound)
    raise HopbenchError(f"instance {inst.id} has no best known value and no lower bound; record a run of it first "
                        f"(hopbench run --suite {inst.suite} --instances '{inst.id}')")


def trial_gap(result: dict[str, Any], reference: float) -> float:
    """A run's share of a trial's value: its relative gap to the reference (a failed run counts as
    FAILURE_GAP; a reference of 0 or less gives the plain difference)."""
    value = result.get("objective")
    if result.get("status") != "ok" or value is None or not math.isfinite(value):
        return FAILURE_GAP
    if reference > 0:
        return (value - reference) / reference
    return value - reference


# --------------------------------------------------------------------------- studies


def journal_path(store_url: str) -> str | None:
    """The Optuna journal file beside a SQLite store (None for a server URL: the study lives in its database)."""
    from hopbench.harness.bench.store import parse_url

    url = parse_url(store_url)  # a malformed URL is the store's one-line error
    if url.get_backend_name() != "sqlite":
        return None
    db = url.database or "hopbench.db"
    if db.startswith("file:"):  # a SQLite URI (sqlite:///file:x.db?mode=ro&uri=true): the file's path
        db = db[len("file:"):].split("?", 1)[0] or "hopbench.db"
    return f"{db}.optuna-journal"


def _whole_lines_journal(base: type) -> type:
    """Optuna's journal file backend, but a write that fails (a full disk) leaves no partial line: Optuna's own
    appends what it can, and the journal, cut in the middle of a line, could not be read again, so every earlier
    trial of the study would be lost.  Here the journal is cut back to where it was, under Optuna's lock, and the
    failure is a one-line :class:`HopbenchError`."""
    try:
        from optuna.storages.journal._file import get_lock_file
    except ImportError:  # another Optuna layout: its own append, unprotected
        return base

    class WholeLinesJournal(base):
        def append_logs(self, logs: list[dict[str, Any]]) -> None:
            data = ("\n".join(json.dumps(log, separators=(",", ":")) for log in logs) + "\n").encode("utf-8")
            with get_lock_file(self._lock):
                fd = os.open(self._file_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
                try:
                    start = os.lseek(fd, 0, os.SEEK_END)
                    try:
                        view = memoryview(data)
                        while view:
                            view = view[os.write(fd, view):]
                        os.fsync(fd)
                    except OSError as exc:
                        os.ftruncate(fd, start)  # the study as it was before this write
                        error = HopbenchError(f"cannot write the Optuna study journal {self._file_path} "
                                              f"({exc.strerror or exc}); the journal is as it was before this "
                                              f"write, its earlier trials kept; free some space and run the same "
                                              f"'hopbench tune' again to resume")
                        _journal_failures.append(error)
                        raise error from None
                finally:
                    os.close(fd)

    return WholeLinesJournal


def optuna_storage(store_url: str):
    """Where the study lives: a journal file beside a SQLite store, else the store's own database (with the
    store's connect timeout, and its one-line errors for a server that fails later)."""
    from optuna.storages import JournalStorage, RDBStorage
    from optuna.storages.journal import JournalFileBackend
    from sqlalchemy import event

    from hopbench.harness.bench.store import engine_options, error_listener

    journal = journal_path(store_url)
    if journal is not None:
        return JournalStorage(_whole_lines_journal(JournalFileBackend)(journal))
    # a heartbeat lets any worker fail the trials of a worker that was killed
    for attempt in range(4):
        try:
            storage = RDBStorage(store_url, engine_kwargs=engine_options(store_url), heartbeat_interval=20,
                                 grace_period=60)
        except Exception as exc:  # two machines creating Optuna's tables at once race on PostgreSQL
            if "duplicate" not in str(exc).lower() and "already exists" not in str(exc).lower() or attempt == 3:
                raise
            time.sleep(0.5 * (attempt + 1))
            continue
        event.listen(storage.engine, "handle_error", error_listener(store_url))
        return storage


def _sampler(cfg: TuneConfig, worker: int):
    import optuna

    if cfg.sampler == "tpe":
        return optuna.samplers.TPESampler(seed=cfg.seed + 7919 * worker, n_startup_trials=5)
    if cfg.sampler == "random":
        return optuna.samplers.RandomSampler(seed=cfg.seed + 7919 * worker)
    return optuna.samplers.GridSampler(grid_space(cfg.space()), seed=cfg.seed + 7919 * worker)


def _no_interrupt_traceback(record: logging.LogRecord) -> bool:
    """Optuna logs a trial stopped by Ctrl-C with the whole traceback; the command says "interrupted"
    itself, so the record keeps its one line and loses the traceback."""
    if record.exc_info and record.exc_info[0] is not None and issubclass(record.exc_info[0], KeyboardInterrupt):
        record.exc_info = None
        record.exc_text = None
    return True


def open_study(cfg: TuneConfig, worker: int = 0):
    import warnings

    import optuna

    from hopbench.harness.bench.store import DEFAULT_URL, connect_timeout, failure_reason, masked, shown_url

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    for handler in logging.getLogger("optuna").handlers:
        if _no_interrupt_traceback not in handler.filters:
            handler.addFilter(_no_interrupt_traceback)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    name = cfg.check_study_name()
    url = cfg.storage or DEFAULT_URL
    try:
        storage = optuna_storage(url)
        study = optuna.create_study(study_name=name, storage=storage, direction="minimize",
                                    sampler=_sampler(cfg, worker),
                                    pruner=optuna.pruners.WilcoxonPruner(p_threshold=0.1, n_startup_steps=2),
                                    load_if_exists=True)
    except HopbenchError:
        raise
    except Exception as exc:  # sqlalchemy / OS errors from the storage, or Optuna's own (a damaged journal)
        reason = failure_reason(exc, url)
        if not hasattr(exc, "orig") and not isinstance(exc, OSError):  # Optuna's own: its type says what
            reason = f"{type(exc).__name__}: {reason}"
        if "timeout" in reason.lower() or "timed out" in reason.lower():
            reason += f" (no answer within {connect_timeout()} s; HOPBENCH_CONNECT_TIMEOUT=SECONDS allows more)"
        journal = journal_path(url)
        where, how = ((f"journal {journal}", "move a damaged journal away, or give another --storage") if journal
                      else ("tables", "check --storage and the server"))
        raise HopbenchError(masked(f"cannot open the Optuna study {where} of the results store {shown_url(url)}: "
                                   f"{reason}; {how}", url)) from None
    return study


def _instances(cfg: TuneConfig):
    from hopbench.harness.bench.suites import load_suite

    suite = load_suite(cfg.suite)
    cfg.suite_name = suite.name
    return suite, suite.select(cfg.instances, cfg.split)


def _prepare(cfg: TuneConfig) -> None:
    """Create the study, freeze the references and enqueue the defaults (idempotent)."""
    from hopbench import solvers
    from hopbench.harness.bench.runner import effective_time_limit
    from hopbench.harness.bench.store import Store

    suite, instances = _instances(cfg)
    cls = solvers.get(cfg.solver)
    if not any(i.kind in cls.kinds for i in instances):
        raise HopbenchError(f"solver {cfg.solver} solves none of the selected instances of suite {suite.name}")
    # the store first: a malformed URL, a damaged, read-only or unreachable store is its one-line error, before
    # the study's journal or tables are made beside it
    store = Store.open(cfg.storage)
    study = open_study(cfg)
    attrs = study.user_attrs
    budget = {"time_limit": effective_time_limit(cfg.time_limit, suite), "evaluations": suite.evaluations}
    if "reference" not in attrs:
        study.set_user_attr("solver", cfg.solver)
        study.set_user_attr("suite", suite.name)
        study.set_user_attr("instances", [i.id for i in instances])
        study.set_user_attr("seeds", cfg.seeds)
        study.set_user_attr("budget", budget)
        study.set_user_attr("fixed", _json_values(cfg.fixed))
        study.set_user_attr("space", sorted(cfg.space()))
        # written last: a worker on another machine that sees it sees every attribute above
        study.set_user_attr("reference", best_known_objectives(instances, store, suite.name))
    else:
        _check_same_study(cfg, attrs, [i.id for i in instances], budget)
    defaults = default_trial(cfg.space())
    if cfg.sampler != "grid" and not _defaults_tried(study, defaults):
        study.enqueue_trial(defaults)


def _defaults_tried(study, defaults: dict[str, Any]) -> bool:
    """Whether the study has a trial of the defaults that finished or is about to run.  Optuna's own
    ``skip_if_exists`` counts any trial, so a defaults trial cut short by Ctrl-C (or a dead worker) would
    keep a resumed study from ever measuring the defaults."""
    from optuna.trial import TrialState

    for t in study.get_trials(deepcopy=False):
        if t.system_attrs.get("fixed_params", t.params) != defaults:
            continue
        if t.state in (TrialState.WAITING, TrialState.RUNNING, TrialState.COMPLETE):
            return True
        if t.state == TrialState.PRUNED and not t.user_attrs.get("interrupted"):
            return True
    return False


def _json_values(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` as a study attribute stores and returns them (JSON: a tuple comes back a list)."""
    return json.loads(json.dumps(params, sort_keys=True, default=str))


def _check_same_study(cfg: TuneConfig, attrs: dict[str, Any], instance_ids: list[str],
                      budget: dict[str, Any]) -> None:
    """A resumed study must measure the same thing, or its trials would not be comparable."""
    name = cfg.study_name()
    if attrs.get("solver") != cfg.solver:
        raise HopbenchError(f"study {name!r} tunes {attrs.get('solver')}, not {cfg.solver}; "
                            f"pick another --study name")
    mismatches = []
    if attrs.get("instances") != instance_ids:
        mismatches.append(f"{len(attrs.get('instances') or [])} other instances (you selected {len(instance_ids)})")
    if list(attrs.get("seeds") or []) != list(cfg.seeds):
        mismatches.append(f"seeds {attrs.get('seeds')} (you asked for {cfg.seeds})")
    recorded = attrs.get("budget")  # studies from before this check have none
    if recorded is not None and recorded.get("time_limit") != budget["time_limit"]:
        mismatches.append(f"time limit {recorded.get('time_limit'):g} s per run (now {budget['time_limit']:g} s)")
    if recorded is not None and recorded.get("evaluations") != budget["evaluations"]:
        mismatches.append(f"evaluation budget {recorded.get('evaluations')} (the suite now says "
                          f"{budget['evaluations']})")
    # the held and the tuned parameters (studies made before these were recorded are not checked): a trial's
    # params name only the tuned ones, so a different --fix would be reported as the best trial's
    if "fixed" in attrs and attrs["fixed"] != _json_values(cfg.fixed):
        shown = ", ".join(f"{k}={v}" for k, v in sorted(attrs["fixed"].items())) or "nothing"
        mismatches.append(f"--fix {shown}")
    if "space" in attrs and attrs["space"] != sorted(cfg.space()):
        mismatches.append(f"the tuned parameters {', '.join(attrs['space'])} (now {', '.join(sorted(cfg.space()))})")
    if mismatches:
        raise HopbenchError(f"study {name!r} was created with {'; '.join(mismatches)}; repeat its options to "
                            f"continue it, or pick another --study name")


#: ``progress(event, facts)`` hears the study start (``"start"``: ``solver``, ``suite``, ``trials``, ``study``,
#: ``workers``) and a single worker's trials: ``"trial"`` (``trial``, ``params``, ``instances``), ``"run"``
#: (``trial``, ``instance``: 1-based count, ``instances``, ``seed``) and ``"finished"`` (``trial``, ``state``:
#: complete / pruned / failed, ``value``, ``params``, ``done``: instances measured, ``instances``, ``interrupted``)
Progress = Callable[[str, dict[str, Any]], None]


class StopRequest:
    """Ctrl-C or SIGTERM while a worker tunes.  The signal raises ``KeyboardInterrupt`` only while a trial's
    runs are in progress (``armed``), where the objective turns it into a pruned trial; anywhere else (in
    Optuna's own bookkeeping) it is only noted, and the worker stops at the next trial boundary.  The first
    signal puts the previous handlers back, so a second one ends the process as usual."""

    def __init__(self) -> None:
        self.requested = False
        self.armed = False
        self._previous: dict[int, Any] = {}

    def _handler(self, signum: int, frame: Any) -> None:
        self.requested = True
        self._restore()
        if self.armed:
            self.armed = False
            raise KeyboardInterrupt

    def _restore(self) -> None:
        for sig, old in self._previous.items():
            signal.signal(sig, old)
        self._previous = {}

    @contextmanager
    def installed(self) -> Iterator[StopRequest]:
        if threading.current_thread() is threading.main_thread():
            self._previous = {sig: signal.signal(sig, self._handler) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield self
        finally:
            self._restore()


class _StoreFailed(BaseException):
    """A trial's run could not be recorded (a full disk, a store gone): the study stops at once.  Not an
    ``Exception``, so that Optuna, which records a failing objective as a failed trial and goes on (logging a
    traceback), lets it through; :func:`run_worker` fails the trial and says the one line."""

    def __init__(self, error: HopbenchError, trial: int) -> None:
        super().__init__(str(error))
        self.error, self.trial = error, trial


#: journal writes that failed in this process (:func:`_whole_lines_journal`): Optuna may hide the error behind its own
_journal_failures: list[HopbenchError] = []


def _objective_factory(cfg: TuneConfig, stop: StopRequest | None = None, progress: Progress | None = None):
    """The study's objective; a store that cannot record a run stops the study (:class:`_StoreFailed`)."""
    import optuna

    from hopbench import solvers
    from hopbench.harness.bench.cells import make_cell, recheck, result_row
    from hopbench.harness.bench.runner import effective_time_limit, git_commit, threads_per_worker
    from hopbench.harness.bench.sandbox import run_isolated
    from hopbench.harness.bench.store import Store, params_tag

    suite, instances = _instances(cfg)
    cls = solvers.get(cfg.solver)
    instances = [i for i in instances if i.kind in cls.kinds]
    store = Store.open(cfg.storage)
    commit = git_commit()
    space = cfg.space()
    limit = effective_time_limit(cfg.time_limit, suite)
    threads = threads_per_worker(cfg.workers)
    problems: dict[str, Any] = {}

    stop = stop or StopRequest()
    tell = progress or (lambda event, facts: None)

    def interrupted(trial, done: int):
        trial.set_user_attr("interrupted", True)  # a resumed study may enqueue these parameters again
        trial.study.stop()
        raise optuna.TrialPruned(f"interrupted after {done} of {len(instances)} instances")

    def objective(trial) -> float:
        reference = trial.study.user_attrs["reference"]
        trial.set_user_attr("worker_pid", os.getpid())
        chosen = {name: suggest(trial, name, p) for name, p in space.items()}
        tell("trial", {"trial": trial.number, "params": chosen, "instances": len(instances)})
        gaps: list[float] = []
        if stop.requested:  # the signal came between two trials
            interrupted(trial, 0)
        stop.armed = True
        try:
            solver = solvers.create(cfg.solver, **cfg.fixed, **chosen)
            tag = params_tag(chosen)
            order = list(range(len(instances)))
            random.Random(cfg.seed * 1_000_003 + trial.number).shuffle(order)
            for step in order:
                inst = instances[step]
                per_seed = []
                for seed in cfg.seeds:
                    tell("run", {"trial": trial.number, "instance": len(gaps) + 1, "instances": len(instances),
                                 "seed": seed, "id": inst.id})
                    cell = make_cell(suite=suite.name, instance=inst, solver=cfg.solver,
                                     params=solver.recorded_config(), seed=seed, time_limit=limit,
                                     evaluations=suite.evaluations, params_tag=tag, threads=threads)
                    cell["key"] += f"|study={trial.study.study_name}|trial={trial.number}"
                    result = recheck(cell, run_isolated(cell), problems)  # re-verified before it counts
                    try:
                        store.record(result_row(cell, result, commit, {"study": trial.study.study_name,
                                                                       "trial": trial.number}),
                                     result.get("trace") or [])
                    except HopbenchError as exc:  # e.g. a full disk: no further trial, and the command says why
                        raise _StoreFailed(exc, trial.number) from None
                    per_seed.append(trial_gap(result, reference[inst.id]))
                gap = sum(per_seed) / len(per_seed)
                gaps.append(gap)
                trial.report(gap, step=step)
                if trial.should_prune():
                    raise optuna.TrialPruned(f"pruned after {len(gaps)} of {len(instances)} instances")
            return sum(gaps) / len(gaps)
        except KeyboardInterrupt:
            stop.armed = False
            interrupted(trial, len(gaps))
        finally:
            stop.armed = False

    return objective


def run_worker(cfg: TuneConfig, n_trials: int, worker: int, progress: Progress | None = None) -> bool:
    """One worker: ``n_trials`` trials on the shared study (failed trials do not stop it).  Ctrl-C or SIGTERM
    ends the running trial as pruned and the worker with it; returns whether that happened."""
    from hopbench.harness.bench.sandbox import close_all

    if n_trials <= 0:
        return False
    study = open_study(cfg, worker)
    stop = StopRequest()
    objective = _objective_factory(cfg, stop, progress)

    def finished(study, trial) -> None:
        if stop.requested:  # a signal during Optuna's bookkeeping: no further trial
            study.stop()
        state = trial.state.name.lower()
        facts = {"trial": trial.number, "state": state, "value": trial.value, "worker": worker,
                 "params": params_from_optuna(cfg.solver, trial.params, cfg.space()),
                 "interrupted": bool(trial.user_attrs.get("interrupted")),
                 "done": len(trial.intermediate_values)}
        if progress is not None:
            progress("finished", facts)
        else:
            print(f"[worker {worker}] {trial_summary(facts)}", file=sys.stderr, flush=True)

    with stop.installed():
        try:
            del _journal_failures[:]
            study.optimize(objective, n_trials=n_trials, catch=(Exception,), callbacks=[finished])
        except _StoreFailed as failed:  # the runs recorded before it are kept (one transaction per run)
            from optuna.trial import TrialState

            try:
                study.tell(failed.trial, state=TrialState.FAIL, skip_if_finished=True)
            except Exception:  # the journal may be on the same full disk: the trial stays as a killed worker's
                pass
            raise HopbenchError(f"tuning stopped: {failed.error}") from None
        except Exception:
            if _journal_failures:  # Optuna's bookkeeping after a failed journal write may raise its own error
                raise _journal_failures[0] from None
            raise
        finally:
            close_all(kill=stop.requested)  # an interrupted cell is not waited for
    return stop.requested


#: what a trial's value is, in words (the CLI says it)
OBJECTIVE_WORDS = "mean gap to the best known, %"


def percent(value: float | None) -> str:
    """A trial's value (a fraction) as the percentage the CLI shows: ``0.7063`` -> ``70.63 %``."""
    if value is None:
        return "-"
    if not math.isfinite(value):
        return str(value)
    return f"{100 * value:.2f} %"


def trial_summary(facts: dict[str, Any]) -> str:
    """One line for a finished trial: its number, state, value and parameters."""
    params = " ".join(f"{k}={_short(v)}" for k, v in facts["params"].items()) or "(no parameters)"
    state = facts["state"]
    if state == "complete":
        what = f"mean gap {percent(facts['value'])}"
    elif facts.get("interrupted"):
        what = "pruned (interrupted)"
    elif state == "pruned":
        what = f"pruned after {facts['done']} instance{'s' if facts['done'] != 1 else ''}"
    else:
        what = state
    return f"trial {facts['trial']}: {what}  {params}"


def _short(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _worker_entry(cfg_dict: dict[str, Any], n_trials: int, worker: int) -> None:
    try:
        run_worker(TuneConfig(**cfg_dict), n_trials, worker)
    except HopbenchError as exc:  # one line, as the command itself says it (the exit code tells the parent)
        print(f"error: [worker {worker}] {exc}", file=sys.stderr, flush=True)
        sys.exit(2)


def _fail_orphans(cfg: TuneConfig, pid: int) -> None:
    """Mark the trials a dead worker left running as failed, so the study stays clean."""
    from optuna.trial import TrialState

    study = open_study(cfg)
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if t.user_attrs.get("worker_pid") == pid:
            study.tell(t.number, state=TrialState.FAIL, skip_if_finished=True)


def tune(cfg: TuneConfig, progress: Progress | None = None) -> TuneResult:
    """Run ``cfg.trials`` trials with ``cfg.workers`` processes; return the study's best.  ``progress`` hears the
    trials of a single worker (several workers print one line per finished trial to stderr instead)."""
    from hopbench import solvers

    if cfg.sampler not in SAMPLERS:
        raise HopbenchError(f"unknown sampler {cfg.sampler!r}; use one of {', '.join(SAMPLERS)}")
    if cfg.trials < 1 or cfg.workers < 1:
        raise HopbenchError("--trials and --workers must be >= 1")
    caps.WORKERS.check(cfg.workers, "--workers")
    cfg.workers = min(cfg.workers, cfg.trials)  # a worker without a trial would only open the study
    held = solvers.create(cfg.solver, **cfg.fixed)  # unknown solver or fixed parameter -> one-line error
    cfg.fixed = {k: held.config[k] for k in cfg.fixed}
    cfg.space()
    _instances(cfg)  # the suite and the selection
    cfg.check_study_name()  # every argument is checked before the store or the study is created
    _prepare(cfg)
    if progress is not None:  # every argument checked, the study ready: the command may speak
        progress("start", {"solver": cfg.solver, "suite": cfg.suite_name, "trials": cfg.trials,
                           "study": cfg.study_name(), "workers": cfg.workers})
    shares = [cfg.trials // cfg.workers + (1 if w < cfg.trials % cfg.workers else 0) for w in range(cfg.workers)]
    failures = []
    if cfg.workers == 1:
        interrupted = run_worker(cfg, shares[0], 0, progress)
    else:
        ctx = multiprocessing.get_context("spawn")
        procs = [ctx.Process(target=_worker_entry, args=(asdict(cfg), n, w), name=f"hopbench-tune-{w}")
                 for w, n in enumerate(shares)]
        for p in procs:
            p.start()
        with _forwarding_signals(procs) as signalled:
            for w, p in enumerate(procs):
                p.join()
                if p.exitcode != 0:
                    failures.append(f"worker {w} (pid {p.pid}) ended with exit code {p.exitcode}")
                    _fail_orphans(cfg, p.pid)
        interrupted = bool(signalled)
    result = summarise(cfg, failures)
    result.interrupted = interrupted
    return result


@contextmanager
def _forwarding_signals(procs: list[Any]) -> Iterator[list[int]]:
    """While the parent waits for its workers: Ctrl-C reaches them from the terminal (they share its process
    group), so the parent only notes it; a SIGTERM sent to the parent alone is passed on to them.  Yields
    the signals received."""
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def handler(signum: int, frame: Any) -> None:
        received.append(signum)
        if signum == signal.SIGTERM:
            for p in procs:
                if p.is_alive():
                    os.kill(p.pid, signal.SIGTERM)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield received
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def summarise(cfg: TuneConfig, failures: list[str] | None = None) -> TuneResult:
    from optuna.trial import TrialState

    study = open_study(cfg)
    trials = study.get_trials(deepcopy=False)
    complete = [t for t in trials if t.state == TrialState.COMPLETE]
    best = min(complete, key=lambda t: t.value) if complete else None
    return TuneResult(
        study=study.study_name, n_trials=len(trials), workers=cfg.workers,
        best_value=best.value if best else None, best_trial=best.number if best else None,
        best_params={**cfg.fixed, **params_from_optuna(cfg.solver, best.params, cfg.space())} if best else {},
        complete=len(complete), pruned=sum(t.state == TrialState.PRUNED for t in trials),
        failed=sum(t.state == TrialState.FAIL for t in trials), worker_failures=list(failures or []),
    )


# --------------------------------------------------------------------------- tuned parameters


def save_directory(where: str | None = None) -> Path:
    """The directory ``hopbench tune --save-to WHERE`` writes to: :func:`user_tuned_dir` by default,
    the published folder shipped with hopbench for ``published``, else the directory ``WHERE``."""
    if where is None:
        return user_tuned_dir()
    if where == PUBLISHED:
        return PUBLISHED_TUNED_DIR
    if not where.strip():
        raise HopbenchError("--save-to needs a directory, or 'published' for the parameters shipped with hopbench")
    path = Path(where)
    if path.exists() and not path.is_dir():
        raise HopbenchError(f"--save-to {where} is a file; give a directory (or 'published' for the parameters "
                            f"shipped with hopbench)")
    return path


def save_tuned(cfg: TuneConfig, result: TuneResult, directory: Path | None = None) -> Path:
    """Write the best parameters to ``DIRECTORY/SOLVER.json`` (default :func:`user_tuned_dir`) and the store."""
    from hopbench import solvers
    from hopbench.harness import __version__
    from hopbench.harness.bench.store import Store

    if not result.best_params:
        raise HopbenchError(f"study {result.study} has no completed trial; nothing to save")
    full = solvers.create(cfg.solver, **result.best_params).config
    directory = directory or user_tuned_dir()
    path = directory / f"{cfg.solver}.json"
    doc = {"solver": cfg.solver, "params": result.best_params, "full_params": full, "study": result.study,
           "suite": cfg.suite, "split": cfg.split, "instances": cfg.instances, "seeds": cfg.seeds,
           "time_limit": cfg.time_limit, "value": result.best_value, "n_trials": result.n_trials,
           "date": date.today().isoformat(), "hopbench": __version__}
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HopbenchError(f"cannot write the tuned parameters to {path}: {exc.strerror or exc}; "
                            f"give a writable --save-to DIR") from None
    from hopbench.harness.outputs import replace_file

    # whole or not at all, never through a link planted at SOLVER.json
    replace_file(path, (json.dumps(doc, indent=1) + "\n").encode(), "give a writable --save-to DIR")
    Store.open(cfg.storage).save_tuned(solver=cfg.solver, study=result.study, suite=cfg.suite,
                                       params=result.best_params, value=result.best_value or math.nan,
                                       n_trials=result.n_trials)
    return path


def tuned_file(name: str, directory: Path | None = None) -> Path | None:
    """The file ``--params tuned`` takes solver ``name``'s parameters from (None: it keeps its defaults):
    ``directory`` alone if given, else the first of :func:`tuned_dirs` that has one."""
    for folder in [directory] if directory is not None else tuned_dirs():
        path = folder / f"{name}.json"
        if path.is_file():
            return path
    return None


def load_tuned(solver_names: list[str] | None = None, directory: Path | None = None) -> dict[str, dict[str, Any]]:
    """Tuned parameters per solver: the user's own (:func:`user_tuned_dir`, written by ``tune --save``) where
    there are some, else the published ones shipped with hopbench; solvers with neither keep their defaults.
    ``directory`` reads that folder alone."""
    from hopbench import solvers

    names = solver_names or solvers.names()
    out = {}
    for name in names:
        path = tuned_file(name, directory)
        if path is not None:
            try:
                params = json.loads(path.read_text())["params"]
            except (ValueError, KeyError, TypeError):
                raise HopbenchError(f"{path} is not a tuned-parameter file; re-create it with hopbench tune --save") \
                    from None
            solvers.create(name, **params)  # still valid for this version of the solver?
            out[name] = params
    if not out:
        where = " or ".join(str(d) for d in ([directory] if directory is not None else tuned_dirs()))
        raise HopbenchError(f"no tuned parameters for {', '.join(names)} in {where}; "
                            f"run hopbench tune SOLVER ... --save first")
    return out
