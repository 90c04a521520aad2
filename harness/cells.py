"""A cell is one run of the benchmark matrix: instance x solver x params x seed.

Cells travel as plain dicts (they cross process and machine boundaries); this
module builds them and runs one, turning every outcome — a solution, a solver
exception, an invalid solution, a declined problem — into a result dict the
coordinator records.  Timeouts and crashes are handled one level up, by the
sandbox that hosts the run (:mod:`harness.sandbox`).
"""
from __future__ import annotations

import os
import platform
import socket
import traceback
from typing import Any

from harness.errors import HopbenchError, InvalidSolution, SolverDeclined


def make_cell(*, suite: str, instance: Any, solver: str, params: dict[str, Any], seed: int,
              time_limit: float, evaluations: int | None, params_tag: str, threads: int = 1) -> dict[str, Any]:
    from harness.store import cell_key

    return {
        "key": cell_key(suite, instance.id, solver, params, seed, time_limit, evaluations),
        "suite": suite,
        "instance": instance.id,
        "kind": instance.kind,
        "fields": instance.fields,
        "solver": solver,
        "params": params,
        "params_tag": params_tag,
        "seed": int(seed),
        "time_limit": float(time_limit),
        "evaluations": evaluations,
        "threads": int(threads),
    }


def hard_limit(cell: dict[str, Any]) -> float:
    """Seconds after which a running cell is killed: 1.2 x its time limit + 5 s."""
    return 1.2 * float(cell["time_limit"]) + 5.0


def provenance() -> dict[str, Any]:
    import numba
    import numpy

    from harness import __version__

    return {
        "hopbench_version": __version__,
        "python_version": platform.python_version(),
        "numpy_version": numpy.__version__,
        "numba_version": numba.__version__,
        "host": socket.gethostname(),
        "cores": os.cpu_count(),
    }


def _one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    # the innermost frame says where it broke, which the message alone often does not
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" (at {os.path.basename(tb[-1].filename)}:{tb[-1].lineno})" if tb else ""
    return first[:900] + where


#: seconds a built-in solver's one-time warm-up may take: compiling its numba kernels on a
#: cold cache takes up to a minute or two on a small machine, and it respects its budgets
BUILTIN_WARMUP_LIMIT = 300.0

_warmed: set[str] = set()


def is_builtin(solver: str) -> bool:
    """True for solvers shipped in the ``solvers`` package (trusted to respect budgets)."""
    import solvers

    try:
        return solvers.get(solver).__module__.startswith("solvers.")
    except HopbenchError:
        return False


def warm_up_limit(cell: dict[str, Any]) -> float:
    """How long the warm-up before ``cell`` may take: generous for built-in solvers, whose only
    slow part is JIT compilation; the cell's hard limit for plug-ins, which could ignore budgets."""
    return max(hard_limit(cell), BUILTIN_WARMUP_LIMIT) if is_builtin(cell["solver"]) else hard_limit(cell)


def warm_up_problems() -> dict[str, list[Any]]:
    """Tiny problems that reach every code path a solver compiles: each objective, the equality
    family, a regular problem, and a graph wide enough for uint16 distance matrices."""
    from harness import routing
    from harness.problem import ShortcutProblem
    from harness.topologies import parse_spec

    def shortcut(spec: str, cap: int, budget: int, objective: str, family: str | None = None,
                 regular: bool = False) -> ShortcutProblem:
        return ShortcutProblem(parse_spec(spec), cap, budget, objective, family, base_spec=spec, regular=regular)

    return {
        "shortcut": [shortcut("ring:12", 4, 3, "aspl"), shortcut("torus:4x4", 6, 3, "golf"),
                     shortcut("mesh:3x3", 5, 2, "diameter"), shortcut("ring:12", 4, 12, "ad", "equality"),
                     shortcut("ring:12", 4, 12, "golf", regular=True), shortcut("ring:600", 3, 2, "aspl")],
        "routing": routing.sample_problems()[:2],
    }


def warm_up_solver(name: str, params: dict[str, Any] | None = None) -> None:
    """Compile a solver's numba kernels (numba caches them on disk) before anything is timed.

    The solver runs on :func:`warm_up_problems` under an evaluation budget (a wall-clock
    budget could be used up by compiling one kernel before the next is reached), with a
    time cap for solvers that do not count evaluations.  Once per solver and parameter
    set per process; failures are ignored — the real run reports them.
    """
    import json

    import solvers
    from harness.budget import Budget
    from harness.execution import execute

    key = f"{name}|{json.dumps(params or {}, sort_keys=True, default=str)}"
    if key in _warmed:
        return
    _warmed.add(key)
    try:
        kinds = solvers.get(name).kinds
    except HopbenchError:
        return
    problems = warm_up_problems()
    for kind in kinds:
        for problem in problems.get(kind, []):
            try:
                execute(solvers.create(name, **(params or {})), problem, seed=0,
                        budget=Budget(time_s=20.0, evaluations=50))
            except Exception:  # a decline or a failure: the cell itself will report it
                pass


def warm_up(cell: dict[str, Any]) -> None:
    """Warm up the cell's solver (see :func:`warm_up_solver`); built-in solvers only — a
    plug-in's warm-up would be a run of unknown behaviour outside the cell's record."""
    if is_builtin(cell["solver"]):
        warm_up_solver(cell["solver"], cell["params"])


def warm_builtin_solvers() -> None:
    """Warm up every built-in solver (e.g. once per test session, before anything is timed)."""
    import solvers

    for name in solvers.names():
        if is_builtin(name):
            warm_up_solver(name)


def run_cell(cell: dict[str, Any]) -> dict[str, Any]:
    """Run one cell in this process and describe the outcome (never raises for solver failures)."""
    import solvers
    from harness.budget import Budget
    from harness.execution import execute
    from harness.instances import Instance
    from harness.store import now

    result: dict[str, Any] = {"key": cell["key"], "started_at": now().isoformat(), "trace": []}
    result.update(provenance())
    try:
        instance = Instance(id=cell["instance"], suite=cell["suite"], kind=cell["kind"], fields=cell["fields"])
        problem = instance.problem()
        solver = solvers.create(cell["solver"], **cell["params"])
        budget = Budget(time_s=cell["time_limit"], evaluations=cell.get("evaluations"))
        outcome = execute(solver, problem, seed=cell["seed"], budget=budget)
        ev = outcome.solution.evaluation
        metrics = ev.metrics()
        result.update(
            status="ok", error=None, objective=ev.objective,
            diameter=metrics.get("diameter"), aspl=metrics.get("aspl"), metrics=metrics,
            elapsed_s=outcome.elapsed_s, evaluations=outcome.evaluations,
            solution=outcome.solution.to_dict(),
            trace=[(p.elapsed_s, p.evaluations, p.value) for p in outcome.trace],
        )
    except SolverDeclined as exc:
        result.update(status="skipped", error=exc.reason)
    except InvalidSolution as exc:
        result.update(status="error", error=f"invalid solution: {exc}")
    except HopbenchError as exc:
        result.update(status="error", error=str(exc))
    except Exception as exc:  # a solver bug must not sink the matrix
        result.update(status="error", error=_one_line(exc))
    result["finished_at"] = now().isoformat()
    return result
