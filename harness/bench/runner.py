"""Running a benchmark matrix: suite instances x solvers x parameter sets x seeds.

One code path for a laptop and a cluster: the cells are submitted to a
``concurrent.futures.Executor`` — local threads that each drive a warm
sandbox process (:mod:`hopbench.harness.bench.sandbox`), or ``Client(address).get_executor()``
of Dask distributed, whose worker threads drive sandboxes the same way.  The
coordinator alone writes to the store, one transaction per finished cell, so
re-running the same command resumes: cells already recorded are skipped
(``--rerun failed`` also retries errors and timeouts, ``--rerun all`` retries
everything).

What one cell does never sinks the matrix: a crash, a timeout, a failed warm-up
is that cell's row.  What the store does can: when recording a result fails (the
database became read-only, the disk is full, the server went away), the run
stops at once with a one-line error naming the store's problem, its workers
killed, and every cell recorded before stays recorded (one transaction each), so
the same command resumes once the store is fixed.  Connecting to a Dask
scheduler is bounded by ``$HOPBENCH_CONNECT_TIMEOUT`` (10 s), like connecting to a
store, so an address that accepts and never answers ends in an error, not a hang.
"""
from __future__ import annotations

import concurrent.futures as cf
import itertools
import math
import os
import queue
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from hopbench.harness import caps
from hopbench.harness._paths import REPO_ROOT
from hopbench.harness.bench.cells import failed_result, make_cell, recheck, result_row
from hopbench.harness.bench.store import CONNECT_TIMEOUT_ENV, Store, StoreWatch, connect_timeout, params_tag
from hopbench.harness.bench.suites import Suite
from hopbench.harness.errors import HopbenchError, PluginFailed
from hopbench.harness.terminal import printable

DEFAULT_TIME_LIMIT = 60.0
RERUN_CHOICES = ("failed", "all")


@dataclass
class MatrixPlan:
    """The cells of one ``hopbench run`` and which of them still need to run."""

    suite: Suite
    cells: list[dict[str, Any]]
    todo: list[dict[str, Any]]
    skipped_done: int = 0


@dataclass
class RunReport:
    total: int
    ran: int
    already_done: int
    statuses: Counter = field(default_factory=Counter)


def effective_time_limit(explicit: float | None, suite: Suite) -> float:
    """The limit each cell gets: the one asked for, else the suite's, else the default."""
    return float(explicit or suite.time_limit or DEFAULT_TIME_LIMIT)


def threads_per_worker(workers: int) -> int:
    """Cores each of ``workers`` parallel workers may use (numba threads in its sandbox)."""
    return max(1, (os.cpu_count() or 1) // max(1, workers))


def parse_param_grid(items: list[str], solver_names: list[str]) -> dict[str, dict[str, list[str]]]:
    """``["edgecut-full.t=5,10", ...]`` -> ``{"edgecut-full": {"t": ["5", "10"]}}``."""
    from hopbench import solvers

    grid: dict[str, dict[str, list[str]]] = {}
    for item in items or []:
        left, sep, value = item.partition("=")
        name, dot, key = left.rpartition(".")
        if not sep or not dot or not name or not key:
            raise HopbenchError(f"--param {item!r} is malformed; write SOLVER.NAME=VALUE[,VALUE...], "
                                f"e.g. --param edgecut-full.t=10")
        solvers.get(name)  # unknown solver -> one-line error
        if name not in solver_names:
            raise HopbenchError(f"--param {item!r} names solver {name!r}, which is not among the solvers run "
                                f"({', '.join(solver_names)})")
        grid.setdefault(name, {})[key] = [v.strip() for v in value.split(",")]
    for name, values in grid.items():
        # the product is counted, never expanded, before the check: ten flags of ten values are 10^10 sets
        combos = 1
        for listed in values.values():
            combos *= len(listed)
        caps.PARAM_SETS.check(combos, f"--param: the parameter sets of {name} (the product of its value lists)")
    return grid


def _param_sets(name: str, overrides: dict[str, list[str]]) -> list[tuple[dict[str, Any], str]]:
    """Every combination of the given values, resolved against the solver's declarations."""
    from hopbench import solvers

    keys = list(overrides)
    out = []
    for combo in itertools.product(*(overrides[k] for k in keys)) if keys else [()]:
        try:
            solver = solvers.create(name, **dict(zip(keys, combo)))  # validates names and types
        except PluginFailed:
            # a plug-in that cannot even be created: its cells are planned with the values as given, and
            # each records the failure as its error row while the other solvers run
            given = dict(zip(keys, combo))
            out.append((given, params_tag(given)))
            continue
        chosen = {k: solver.config[k] for k in keys}
        reading = solver.reading()  # a published reading is named on boards: "paper: distances=base,order=..."
        out.append((solver.recorded_config(), f"{reading}: {params_tag(chosen)}" if reading else params_tag(chosen)))
    return out


def plan_matrix(suite: Suite, *, solver_names: list[str] | None = None, instances: str | None = None,
                split: str | None = None, seeds: list[int] | None = None, time_limit: float | None = None,
                param_items: list[str] | None = None, store: Store | None = None, rerun: str | None = None,
                jobs: int = 1, tuned: dict[str, dict[str, Any]] | None = None,
                max_nodes: int | None = None, min_nodes: int | None = None) -> MatrixPlan:
    """Expand the matrix and drop the cells the store already holds (per ``rerun``)."""
    from hopbench import solvers

    if rerun is not None and rerun not in RERUN_CHOICES:
        raise HopbenchError(f"--rerun must be one of {', '.join(RERUN_CHOICES)}, got {rerun!r}")
    chosen = suite.select(instances, split, max_nodes, min_nodes)
    kinds = {i.kind for i in chosen}
    names = list(dict.fromkeys(solver_names)) if solver_names else \
        [n for n in solvers.names() if kinds & set(solvers.get(n).kinds)]
    for name in names:
        solvers.get(name)
    grid = parse_param_grid(param_items or [], names)
    seeds = seeds or list(range(1, int(suite.raw.get("seeds", 1)) + 1))
    limit = effective_time_limit(time_limit, suite)
    threads = threads_per_worker(jobs)
    per_kind = {kind: sum(1 for i in chosen if i.kind == kind) for kind in kinds}
    count = sum(math.prod(len(v) for v in grid.get(name, {}).values()) * len(seeds)
                * sum(per_kind.get(k, 0) for k in set(solvers.get(name).kinds)) for name in names)
    caps.CELLS.check(count, "the run's cells (instances x parameter sets x seeds, over its solvers)")
    cells = []
    for name in names:
        overrides = dict(grid.get(name, {}))
        for key, value in (tuned or {}).get(name, {}).items():
            overrides.setdefault(key, [str(value)])
        sets = _param_sets(name, overrides)
        kinds_of = set(solvers.get(name).kinds)
        for inst in chosen:
            if inst.kind not in kinds_of:
                continue
            for params, tag in sets:
                for seed in seeds:
                    cells.append(make_cell(suite=suite.name, instance=inst, solver=name, params=params, seed=seed,
                                           time_limit=limit, evaluations=suite.evaluations, params_tag=tag,
                                           threads=threads))
    if not cells:
        raise HopbenchError(f"no cells to run: none of the solvers {', '.join(names)} solves the "
                            f"{'/'.join(sorted(kinds))} problems of suite {suite.name}")
    return resume_plan(MatrixPlan(suite, cells, cells), store, rerun)


def resume_plan(plan: MatrixPlan, store: Store | None, rerun: str | None = None) -> MatrixPlan:
    """``plan`` with the cells ``store`` holds already dropped (per ``rerun``); every cell without a store.
    (``hopbench run`` plans without a store first, so that bad arguments never create one.)"""
    cells = plan.cells
    done = store.statuses([c["key"] for c in cells]) if store is not None else {}
    if rerun == "all":
        todo = cells
    elif rerun == "failed":
        todo = [c for c in cells if done.get(c["key"]) in (None, "error", "timeout")]
    else:
        todo = [c for c in cells if c["key"] not in done]
    return MatrixPlan(plan.suite, cells, todo, len(cells) - len(todo))


def git_commit() -> str | None:
    root = REPO_ROOT
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() or None


def make_executor(jobs: int, scheduler: str | None):
    """Local threads driving sandboxes, or a Dask distributed client's executor.

    Connecting to ``scheduler`` takes at most :func:`~hopbench.harness.bench.store.connect_timeout`
    seconds (``$HOPBENCH_CONNECT_TIMEOUT``, default 10): ``Client``'s own ``timeout`` does
    not cover the handshake, so a port that accepts and never answers would hang it; the
    client is therefore built in a helper thread that is given up on at the deadline.
    """
    if scheduler is None:
        return cf.ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="hopbench-cell"), None
    try:
        from distributed import Client
    except ModuleNotFoundError:
        raise HopbenchError("--scheduler needs Dask distributed; install it with pip install 'distributed'") from None
    seconds = connect_timeout()
    hint = "start one with 'dask scheduler' or drop --scheduler"
    try:
        client = bounded_call(lambda: Client(scheduler, timeout=f"{seconds}s", set_as_default=False), seconds + 2,
                              close=lambda late: late.close())
    except TimeoutError:
        raise HopbenchError(f"cannot reach the Dask scheduler at {scheduler}: no answer within {seconds} s "
                            f"({CONNECT_TIMEOUT_ENV}=SECONDS allows more); check the address, or {hint}") from None
    except (OSError, ValueError, TypeError) as exc:
        reason = (str(exc).strip().splitlines() or [""])[0][:200]
        raise HopbenchError(f"cannot reach the Dask scheduler at {scheduler} ({exc.__class__.__name__}"
                            f"{': ' + reason if reason else ''}); {hint}") from None
    return client.get_executor(pure=False), client


def bounded_call(call: Callable[[], Any], seconds: float, *, close: Callable[[Any], None] | None = None) -> Any:
    """``call()``, or ``TimeoutError`` when it has not returned within ``seconds``.

    The call runs in a daemon thread, which is abandoned at the deadline (a blocked
    connect cannot be interrupted from outside); a value it returns after that is
    handed to ``close``.  Its exceptions are raised here.
    """
    box: dict[str, Any] = {}
    lock = threading.Lock()

    def target() -> None:
        try:
            value = call()
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            box["error"] = exc
            return
        with lock:
            box["value"] = value
            late = box.get("abandoned", False)
        if late and close is not None:
            try:
                close(value)
            except Exception:  # nobody is left to tell
                pass

    thread = threading.Thread(target=target, daemon=True, name="hopbench-connect")
    thread.start()
    thread.join(seconds)
    with lock:
        if "value" not in box and "error" not in box:
            box["abandoned"] = True
            raise TimeoutError(f"no answer within {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def execute_plan(plan: MatrixPlan, store: Store, *, jobs: int = 1, scheduler: str | None = None,
                 progress: bool = True, extra: dict[str, Any] | None = None,
                 executor: tuple | None = None) -> RunReport:
    """Run the cells still to do and record each one as it finishes.

    ``executor`` is an ``(executor, client)`` pair from :func:`make_executor` when the
    caller connected already (to fail on an unreachable scheduler before printing anything).
    With ``progress``, a bar on stderr counts the cells, its ETA taken from the cells' own
    run times (never from their solvers' warm-ups); on local workers a status line under
    it says which solvers are being warmed up (:class:`Progress`).
    """
    from hopbench.harness.bench.sandbox import close_all, run_isolated

    report = RunReport(total=len(plan.cells), ran=0, already_done=plan.skipped_done)
    if not plan.todo:
        if executor is not None:
            executor[0].shutdown(wait=False)
            if executor[1] is not None:
                executor[1].close()
        return report
    commit = git_commit()
    from hopbench import solvers

    # nothing but this coordinator may write the run's rows or alter the tables (a plug-in could try)
    watch = StoreWatch(store, [c["key"] for c in plan.cells])
    executor, client = executor or make_executor(jobs, scheduler)
    run = uuid.uuid4().hex  # tells the workers which cells belong to this run (see hopbench.harness.bench.sandbox)
    # warm-ups are reported live by local sandboxes only (a Dask worker's thread cannot call back here)
    live = progress and client is None
    events: queue.SimpleQueue | None = queue.SimpleQueue() if live else None
    display = Progress(len(plan.todo), warm_ups=_solvers_to_warm_up(plan.todo) if live else [],
                       slots=_slots(jobs, client), enabled=progress, cells=plan.todo)
    futures: dict[cf.Future, dict[str, Any]] = {}
    problems: dict[str, Any] = {}  # the cells' problems, built once each, for re-verification
    finished = False  # else (a store failure, an interrupt) the workers are killed, not waited for
    try:
        from hopbench.harness.bench.eta import interleaved

        for cell in interleaved(plan.todo):  # every solver's time is measured early, for the ETA
            cell = dict(cell, run=run)
            if events is not None:
                futures[executor.submit(run_isolated, cell, _listener(events))] = cell
            else:
                futures[executor.submit(run_isolated, cell)] = cell
        order = {fut: k for k, fut in enumerate(futures)}
        pending = set(futures)
        while pending:
            # with a display, wake up every second to show warm-ups and tick the clocks
            done, pending = cf.wait(pending, timeout=1.0 if progress else None, return_when=cf.FIRST_COMPLETED)
            while events is not None and not events.empty():
                display.warm_up_event(*events.get())
            display.tick()
            for fut in sorted(done, key=order.__getitem__):
                cell = futures[fut]
                try:
                    result = fut.result()
                except Exception as exc:  # the executor itself failed this cell (e.g. a lost Dask worker)
                    reason = (str(exc).strip().splitlines() or [""])[0][:300]
                    result = failed_result(cell, "error", f"executor: {type(exc).__name__}: {reason}")
                # the coordinator records nothing it has not re-verified itself
                result = recheck(cell, result, problems)
                try:
                    # a plug-in's cell is followed by a full look at the store, others by one a second at most
                    watch.check(now=not solvers.is_builtin(cell["solver"]))
                    record_result(store, cell, result, commit, extra)
                    watch.recorded(cell["key"])
                except HopbenchError as exc:
                    raise HopbenchError(f"{exc}; the run stopped at cell {report.ran + 1} of {len(plan.todo)} "
                                        f"({cell['instance']} / {cell['solver']} / seed {cell['seed']}), and the "
                                        f"{report.ran} cell(s) recorded before it are kept: once the store is fixed, "
                                        f"the same command resumes") from None
                report.ran += 1
                report.statuses[result["status"]] += 1
                display.cell_done(result, cell)
        try:
            watch.check(now=True)
        except HopbenchError as exc:
            raise HopbenchError(f"{exc} (all {report.ran} cell(s) of the run were recorded before this was seen)") \
                from None
        finished = True
    finally:
        display.close()
        for fut in futures:
            fut.cancel()
        try:
            executor.shutdown(wait=False, cancel_futures=True)
        except TypeError:  # Dask's executor has no cancel_futures
            executor.shutdown(wait=False)
        if client is not None:
            client.close()
        close_all(kill=not finished)
    return report


def record_result(store: Store, cell: dict[str, Any], result: dict[str, Any], commit: str | None,
                  extra: dict[str, Any] | None = None) -> None:
    """Record one finished cell.  A result the store will not take as it is (a value it cannot hold) is
    recorded as that cell's error instead; a failure of the store itself — read-only, damaged, full, gone —
    raises its one-line :class:`HopbenchError` (any other database error is turned into one)."""
    from sqlalchemy.exc import SQLAlchemyError

    from hopbench.harness.bench.store import shown_url

    def failure(exc: BaseException) -> HopbenchError:
        reason = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        return HopbenchError(f"cannot record a result in the results store {shown_url(store.url)}: "
                             f"{type(getattr(exc, 'orig', None) or exc).__name__}: {reason}")

    try:
        store.record(result_row(cell, result, commit, extra), result.get("trace") or [])
        return
    except HopbenchError:
        raise
    except (SQLAlchemyError, OSError) as exc:
        raise failure(exc) from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # the result, not the store
        bad = failed_result(cell, "error", f"the result could not be recorded: {type(exc).__name__}: "
                                           f"{(str(exc).splitlines() or [''])[0][:300]}",
                            elapsed_s=result.get("elapsed_s"), started_at=result.get("started_at"))
    try:
        store.record(result_row(cell, bad, commit, extra), [])
    except HopbenchError:
        raise
    except (SQLAlchemyError, OSError, ValueError, TypeError) as exc:
        raise failure(exc) from None


def _listener(events: queue.SimpleQueue):
    """What a local sandbox tells of its warm-ups: ``(event, solver, worker thread, time)`` on ``events``."""
    def notify(event: str, solver: str) -> None:
        events.put((event, solver, threading.get_ident(), time.monotonic()))

    return notify


def _solvers_to_warm_up(cells: list[dict[str, Any]]) -> list[str]:
    """The solvers the sandboxes warm up before their first cell (every one: see hopbench.harness.bench.sandbox)."""
    return list(dict.fromkeys(c["solver"] for c in cells))


def _slots(jobs: int, client: Any) -> int:
    """How many cells run at once: the local workers, or the threads of the Dask cluster."""
    if client is not None:
        try:
            return max(1, sum(client.nthreads().values()))
        except Exception:  # a cluster that does not answer: the ETA is only an estimate
            return max(1, jobs)
    return max(1, jobs)


def cells_eta(remaining: int, run_seconds: float, runs: int, slots: int) -> float | None:
    """Seconds left for ``remaining`` cells when ``runs`` finished cells ran ``run_seconds`` in all
    (their own run times, warm-ups excluded), ``slots`` at a time; None before any cell ran."""
    if remaining <= 0:
        return 0.0
    if runs <= 0:
        return None
    return remaining * (run_seconds / runs) / max(1, min(slots, remaining))


class Progress:
    """What ``hopbench run`` shows on stderr while the cells run (nothing when not ``enabled``).

    A bar of the cells: done/total, elapsed time, failures and an ETA from the cells' own run
    times, estimated per solver and parameters when the ``cells`` to run are given
    (:class:`hopbench.harness.bench.eta.CellEstimator`: the time limit for solvers that run until it,
    the measured time for the others); a solver's one-time warm-up is no cell's time; while solvers are still to be warmed
    up, the ETA says how many, as their warm-ups come on top).  Under it, when there are solvers
    to warm up (``warm_ups``, known from local workers), a status line: which solvers a worker is
    warming up now — numba compiles their kernels, minutes on a cold cache, once per install —
    and how many are ready.  On a terminal the clocks tick every second; elsewhere (a log
    file) the display is only redrawn when something happens.
    """

    def __init__(self, total: int, *, warm_ups: list[str], slots: int, enabled: bool = True, file: Any = None,
                 clock: Any = time.monotonic, cells: list[dict[str, Any]] | None = None) -> None:
        from hopbench.harness.bench.eta import CellEstimator

        self.enabled = enabled
        self.estimator = CellEstimator(cells, slots, _declared_time_bound) if cells is not None else None
        self.total = total
        self.slots = slots
        self.clock = clock
        self.done = 0
        self.failures = 0
        self.run_seconds = 0.0
        self.runs = 0
        self.to_warm = list(warm_ups)
        self.ready: set[str] = set()
        self.warming: dict[Any, tuple[str, float]] = {}  # worker -> (solver, since)
        self.bar = self.status = None
        self.ticks = False
        self._drawn_at = clock()
        if not enabled:
            return
        from tqdm import tqdm

        out = file if file is not None else sys.stderr
        self.ticks = bool(getattr(out, "isatty", lambda: False)())
        self.bar = tqdm(total=total, unit="cell", dynamic_ncols=True, file=out, desc="cells", postfix=self.postfix(),
                        bar_format="{desc} {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]")
        if self.to_warm:
            self.status = tqdm(total=len(self.to_warm), dynamic_ncols=True, file=out, position=1, leave=False,
                               bar_format="{desc}", desc=self.status_text())

    def warm_up_event(self, event: str, solver: str, worker: Any, at: float) -> None:
        """A sandbox's news (:data:`hopbench.harness.bench.sandbox.Listener`): ``warming``, ``warmed`` or ``warm-up failed``."""
        if event == "warming":
            self.warming[worker] = (solver, at)
        else:
            self.warming.pop(worker, None)
            if event == "warmed":
                self.ready.add(solver)
        self.refresh()

    def cell_done(self, result: dict[str, Any], cell: dict[str, Any] | None = None) -> None:
        """A cell finished (its result, with the sandbox's ``timing``)."""
        self.done += 1
        if result["status"] in ("error", "timeout"):
            self.failures += 1
        run_s = (result.get("timing") or {}).get("run_s")
        if run_s is not None:
            self.run_seconds += float(run_s)
            self.runs += 1
        if self.estimator is not None and cell is not None:
            self.estimator.done(cell, None if run_s is None else float(run_s))
        if self.bar is not None:
            self.bar.set_postfix_str(self.postfix(), refresh=False)
            self.bar.update(1)

    def eta(self) -> float | None:
        """Seconds the remaining cells will run, warm-ups aside (None before any cell ran)."""
        if self.estimator is not None:
            return self.estimator.eta()
        return cells_eta(self.total - self.done, self.run_seconds, self.runs, self.slots)

    def postfix(self) -> str:
        eta = self.eta()
        text = f"ETA {'?' if eta is None else _clock_text(eta)}"
        unready = len(set(self.to_warm) - self.ready)
        if unready and self.done < self.total:
            text += f" + {unready} warm-up{'s' if unready != 1 else ''}"
        return f"{text}, failures={self.failures}"

    def status_text(self) -> str:
        """The status line: the warm-ups under way, and how many solvers are ready."""
        text = f"warm-up: {len(self.ready & set(self.to_warm))}/{len(self.to_warm)} solvers ready"
        if self.warming:
            names = list(dict.fromkeys(solver for solver, _ in self.warming.values()))
            since = min(at for _, at in self.warming.values())
            text += (f"; warming up {', '.join(names)} (numba compiles kernels, once per install) "
                     f"{_clock_text(self.clock() - since)}")
        return text

    def refresh(self) -> None:
        """Redraw the bar and the status line."""
        if self.bar is None:
            return
        self._drawn_at = self.clock()
        self.bar.set_postfix_str(self.postfix(), refresh=False)
        self.bar.refresh()
        if self.status is not None:
            self.status.set_description_str(self.status_text(), refresh=False)
            self.status.refresh()

    def tick(self) -> None:
        """On a terminal, redraw once a second so that the clocks move."""
        if self.ticks and self.clock() - self._drawn_at >= 1.0:
            self.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.refresh()
        if self.status is not None:
            self.status.close()  # leave=False: the line goes away
        if self.bar is not None:
            self.bar.close()
        self.bar = self.status = None


def _declared_time_bound(name: str) -> bool:
    """Whether solver ``name`` says it runs until its time limit (its ``time_bound``)."""
    from hopbench import solvers

    try:
        return bool(getattr(solvers.get(name), "time_bound", False))
    except HopbenchError:
        return False


def _clock_text(seconds: float) -> str:
    """``m:ss`` (``h:mm:ss`` from an hour on)."""
    s = int(round(max(0.0, seconds)))
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def instance_objectives(plan: MatrixPlan) -> dict[str, str]:
    """The objective of each instance of the plan, as its problem (built by its kind) names it, in the
    suite's order."""
    planned = {c["instance"] for c in plan.cells}
    return {i.id: str(i.problem().objective) for i in plan.suite.instances if i.id in planned}


def summary_table(store: Store, plan: MatrixPlan) -> str:
    """One block per objective, one row per solver and parameter set: cells by status, how many
    instances ran ok, mean objective and median time over the ok cells (this matrix only).

    Objectives are never averaged together (an ASPL is no diameter), and declined cells (status
    ``skipped``) are counted apart and are in no mean.  Within a block a row's mean is over the
    instances it ran ok; when the rows' instances differ, the block says so.
    """
    import pandas as pd

    df = store.dataframe(suite=plan.suite.name, with_solutions=False)
    keys = {c["key"] for c in plan.cells}
    df = df[df["cell_key"].isin(keys)]
    if df.empty:
        return "(nothing recorded)"
    objective_of = instance_objectives(plan)
    df = df.assign(objective_name=df["instance"].map(objective_of))
    recorded = set(df["instance"])
    blocks = []
    for objective in dict.fromkeys(objective_of[i] for i in objective_of if i in recorded):
        in_block = df[df["objective_name"] == objective]
        size = sum(1 for o in objective_of.values() if o == objective)
        rows, covered = [], set()
        for (solver, tag), g in in_block.groupby(["solver", "params_tag"], sort=True):
            ok = g[g["status"] == "ok"]
            # a disconnected graph's objective is inf, stored as NULL
            values = ok["objective"].astype(float).fillna(float("inf"))
            if len(ok):
                covered.add(frozenset(ok["instance"]))
            rows.append({
                # ids and parameters are user text: one line each, control characters shown escaped
                "solver": printable(solver), "params": printable(tag), "cells": len(g), "ok": len(ok),
                "error": int((g["status"] == "error").sum()), "timeout": int((g["status"] == "timeout").sum()),
                "declined": int((g["status"] == "skipped").sum()),
                "instances": f"{ok['instance'].nunique()}/{size}",
                "mean objective": values.mean() if len(ok) else float("nan"),
                "median time s": ok["elapsed_s"].median() if len(ok) else float("nan"),
            })
        table = pd.DataFrame(rows).to_string(index=False, float_format=lambda x: f"{x:.4g}", na_rep="-")
        head = f"objective {objective} ({size} instance{'s' if size != 1 else ''})"
        note = (["(the rows' means are over different instances, see 'instances'; 'hopbench board' compares "
                 "them instance by instance)"] if len(covered) > 1 else [])
        blocks.append("\n".join([head, table, *note]))
    legend = ("instances: how many of the objective's instances the row ran ok; mean objective, median time: "
              "over its ok cells\ndeclined: cells the solver declined (recorded 'skipped'), in no mean")
    return "\n\n".join(blocks + [legend])
