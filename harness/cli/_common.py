"""Helpers shared by several subcommands."""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import signal
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hopbench.harness import caps
from hopbench.harness.documents import strict_json
from hopbench.harness.errors import HopbenchError


def parse_assignments(items: list[str] | None, what: str = "--param") -> dict[str, str]:
    """``["k=v", ...]`` -> ``{"k": "v"}``; values stay strings for the solver to convert."""
    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise HopbenchError(f"{what} {item!r} is malformed; write NAME=VALUE, e.g. {what} t=10")
        out[key.strip()] = value.strip()
    return out


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise HopbenchError(f"time limit must be a number of seconds, got {text!r}") from None
    if not value > 0 or math.isinf(value):
        raise HopbenchError(f"time limit must be a positive number of seconds, got {text!r}")
    caps.check_seconds(value, "the time limit")
    return value


def seed_value(text: str) -> int:
    """argparse type of a ``--seed``: numpy's generators take non-negative integers, at most
    :data:`caps.SEED_VALUE`."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a non-negative integer, got {text!r:.40}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed is a non-negative integer, got {text!r}; use 0 or more")
    try:
        caps.SEED_VALUE.check(value, "the seed")
    except HopbenchError as exc:  # argparse would replace a type's ValueError by its own words
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def seed_count(count: int, what: str) -> int:
    """How many seeds a run asks for: at least one, at most :data:`caps.SEEDS`."""
    if count < 1:
        raise HopbenchError(f"{what} must be >= 1, got {count}")
    caps.SEEDS.check(count, what)
    return count


def sample_count(text: str) -> int:
    """argparse type of a number of random samples (0 for none), at most :data:`caps.SAMPLES`."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of samples is a non-negative integer, got {text!r:.40}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a number of samples is a non-negative integer, got {value}")
    try:
        caps.SAMPLES.check(value, "the number of samples")
    except HopbenchError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def output_file(text: str, reads: Mapping[str | Path, str] | None = None, *, force: bool = False) -> Path:
    """The path of an ``-o FILE``, checked before any work is done (a long run must not fail at the end).

    ``reads`` maps the files the command reads to what they are: ``-o`` naming one of them (or a link to
    it) is refused, as it would destroy its own input (see :func:`hopbench.harness.outputs.store_files`).  A file
    there that hopbench did not write is refused unless ``force`` (:func:`hopbench.harness.outputs.check_ours`).
    """
    from hopbench.harness.outputs import check_ours, refuse_overwriting_inputs

    import errno
    import os

    out = Path(text)
    shown_path = text if len(text) <= 120 else text[:117] + "..."
    try:
        os.lstat(out)  # a name too long, a loop of links: said now, not after the work
    except FileNotFoundError:
        pass
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            raise HopbenchError(f"cannot write {shown_path} ({exc.strerror or type(exc).__name__}); give another "
                                f"output path") from None
    if out.is_dir():
        raise HopbenchError(f"cannot write {out}: it is a directory; give a file name such as {out / 'out.json'}")
    if not out.parent.is_dir():
        raise HopbenchError(f"cannot write {shown_path}: directory {out.parent} does not exist")
    refuse_overwriting_inputs(out, reads or {})
    if not force:
        check_ours(out)
    return out


def spec_file(spec: str | None) -> dict[Path, str]:
    """The edge file a ``file:PATH`` topology spec reads, described for :func:`output_file`; empty otherwise."""
    kind, sep, rest = (spec or "").partition(":")
    if not sep or kind.strip().lower() != "file" or not rest.strip():
        return {}
    return {Path(rest.strip()): f"the edge file of {spec}"}


def print_json(doc: Any) -> None:
    json.dump(strict_json(doc), sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")


def fmt_number(x: float, digits: int = 6) -> str:
    if isinstance(x, float) and math.isinf(x):
        return "inf"
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.{digits}f}"


def add_force_option(p: argparse.ArgumentParser) -> None:
    """``--force``: an output may replace a file that hopbench did not write (by default it is refused)."""
    p.add_argument("--force", action="store_true",
                   help="overwrite an existing output file even if hopbench did not write it")


def add_solver_options(p: argparse.ArgumentParser, *, output: str, json_help: str) -> None:
    """The options of a command that runs one solver once (``solve``, ``route``)."""
    p.add_argument("--seed", type=seed_value, default=0)
    p.add_argument("--time-limit", type=str, default=None, metavar="SEC", help="wall-clock budget in seconds")
    p.add_argument("--param", action="extend", nargs="+", default=[], metavar="K=V", help="solver parameters")
    p.add_argument("-o", "--output", metavar="FILE", help=f"write the {output} JSON here")
    add_force_option(p)
    p.add_argument("--json", action="store_true", help=json_help)


def run_solver(solver: Any, problem: Any, args: argparse.Namespace, *, on_report: Any = None,
               on_start: Any = None, time_limit: Any = None, evaluations: int | None = None,
               on_reporter: Any = None, kind: str | None = None, fields: dict[str, Any] | None = None) -> Any:
    """Run ``solver`` once on ``problem`` under ``--time-limit`` (or ``time_limit``, seconds or their text,
    when given) and ``evaluations``, its kernels compiled before the clock starts; returns the run's outcome
    (solution, trace, evaluations, elapsed time).

    ``on_report(point)`` hears every improvement the solver reports (a ``TracePoint``);
    ``on_start()`` is called when the warm-up is over and the solver's clock starts; ``on_reporter(reporter)``
    gets the run's reporter (its live evaluation count).

    A plug-in (a solver hopbench does not ship) runs as a ``run`` cell does, in a sandbox process under the
    same hard limits (:func:`run_sandboxed`); ``kind`` and ``fields`` (the instance fields the problem is
    built from) say what to build there.  Its solution comes back as a document, ``on_report`` hears nothing.
    """
    from hopbench import solvers
    from hopbench.solvers.contract.budget import Budget
    from hopbench.solvers.contract.execution import execute
    from hopbench.solvers.contract.warmup import warm_up_solver

    seconds = time_limit if time_limit is not None else args.time_limit
    if not solvers.is_builtin(solver.name) and kind is not None and fields is not None:
        return run_sandboxed(solver, kind, fields, seed=args.seed,
                             time_limit=positive_seconds(str(seconds)) if seconds is not None else None,
                             evaluations=evaluations, on_start=on_start)
    budget = Budget(time_s=positive_seconds(str(seconds)) if seconds is not None else None, evaluations=evaluations)
    if budget.time_s is not None and solvers.is_builtin(solver.name):
        warm_up_solver(solver.name, dict(solver.config))
    if on_start is not None:
        on_start()
    with stop_on_signals() as stop:  # from here on, Ctrl-C keeps the best solution found
        return execute(solver, problem, seed=args.seed, budget=budget, on_report=on_report, stop=stop,
                       on_reporter=on_reporter)


def run_sandboxed(solver: Any, kind: str, fields: dict[str, Any], *, seed: int, time_limit: float | None,
                  evaluations: int | None, on_start: Any = None) -> Any:
    """Run a plug-in once as ``hopbench run`` runs its cells: in a sandbox process of its own
    (:func:`hopbench.harness.bench.sandbox.run_isolated`), its warm-up held to the plug-in warm-up limit, killed with its
    process group at the hard limit (1.2 x the time limit + 5 s; without ``--time-limit`` the limit a suite's
    cells get by default, 60 s), its address space capped (``RLIMIT_AS``).  Any outcome but a solution is one
    line (:class:`HopbenchError`); the solution document is re-checked by the caller, as always."""
    from types import SimpleNamespace

    from hopbench.harness.bench.runner import DEFAULT_TIME_LIMIT
    from hopbench.harness.bench.sandbox import close_all, run_isolated

    limit = float(time_limit) if time_limit is not None else DEFAULT_TIME_LIMIT
    cell = {"key": f"{solver.name}|{kind}|{seed}", "run": f"cli-{id(solver)}", "suite": "(command line)",
            "instance": "(command line)", "kind": kind, "fields": fields, "solver": solver.name,
            "params": json.loads(json.dumps(dict(solver.config), default=str)), "params_tag": "", "seed": int(seed),
            "time_limit": limit, "evaluations": evaluations, "threads": 1}

    def heard(event: str, _solver: str) -> None:
        if event == "warmed" and on_start is not None:
            on_start()

    try:
        result = run_isolated(cell, heard)
    finally:
        close_all(kill=True)  # nothing the plug-in started outlives the command
    status, error = result.get("status"), result.get("error")
    if status == "skipped":
        raise HopbenchError(f"solver {solver.name} declined this problem: {error}")
    if status != "ok":
        raise HopbenchError(f"solver {solver.name} (a plug-in, run in a sandbox under the hard limits of 'hopbench "
                            f"run') failed: {status}: {error}")
    trace = [SimpleNamespace(elapsed_s=t, evaluations=e, value=v) for t, e, v in result.get("trace") or []]
    return SimpleNamespace(solution=result.get("solution"), trace=trace, evaluations=result.get("evaluations") or 0,
                           elapsed_s=float(result.get("elapsed_s") or 0.0), interrupted=False)


#: the exit code of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it)
INTERRUPTED_EXIT = 130


@contextlib.contextmanager
def stop_on_signals() -> Iterator[threading.Event]:
    """Inside the block, the first SIGINT (Ctrl-C) or SIGTERM sets the yielded event instead of ending the
    process: a solver polls its budget, which the event ends, so it stops and returns its best solution, which
    the command then writes.  The handlers are put back at once, so a second signal ends the process as
    usual (a solver that is not polling, e.g. inside a long compiled kernel, can still be stopped)."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    signals = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.getsignal(sig) for sig in signals}

    def handler(signum: int, frame: Any) -> None:
        stop.set()
        for sig, old in previous.items():
            signal.signal(sig, old)

    for sig in signals:
        signal.signal(sig, handler)
    try:
        yield stop
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def interrupted_note(output: str | None, what: str) -> str:
    """The stderr line of a run stopped by a signal."""
    where = f"written to {output}, marked \"interrupted\": true" if output else "not written anywhere (no -o FILE)"
    return f"interrupted: the solver stopped at its next budget poll; the best {what} it had found is {where}"


def rechecked(kind: str, problem: Any, solution: Any, solver: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The result document of ``solution`` and its recomputed metrics, once hopbench has re-verified it as
    an answer to ``problem`` (:meth:`~hopbench.harness.problems.kind.ProblemKind.check_result`): nothing a solver
    says of its own solution is printed or written unchecked.  A refusal is a one-line error."""
    from hopbench.harness.documents import json_default
    from hopbench.harness.errors import InvalidSolution
    from hopbench.harness.problems.registry import get_kind

    verdict = None
    try:
        # through JSON, as a run cell's result travels: the document is what gets checked and written
        raw = solution if isinstance(solution, dict) else solution.to_dict()  # a sandboxed plug-in's is a document
        doc = json.loads(json.dumps(strict_json(raw), default=json_default, allow_nan=False))
        verdict = get_kind(kind).check_result(problem, doc)
        reason = "" if verdict.valid else verdict.reason
    except InvalidSolution as exc:
        reason = f"invalid solution: {exc}"
    except HopbenchError as exc:
        reason = str(exc)
    except Exception as exc:  # whatever a plug-in returned instead of a solution
        reason = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:300]}"
    if reason or verdict is None:
        raise HopbenchError(f"solver {solver}'s solution was refused by hopbench's re-verification: {reason}; "
                            f"nothing was written (a solver must return a valid solution of the problem it was "
                            f"given, its metrics as hopbench computes them)")
    return doc, dict(verdict.metrics)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl-C ends the process at once inside the block.  Python delivers SIGINT only between bytecodes,
    so a long numba kernel (the all-pairs BFS of a 100,000-vertex ring, minutes) would finish first; a
    command that records nothing can simply die instead."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
