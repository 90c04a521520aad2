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

from harness.errors import HopbenchError, InvalidSolution


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


_warmed: set[str] = set()


def warm_up(cell: dict[str, Any]) -> None:
    """Run the cell's solver once on its own problem with a tiny budget, ignoring the outcome.

    numba compiles a kernel on its first call for each argument type; doing that
    here, before the cell's clock starts, keeps compile time out of recorded
    times and out of the time limit.  Once per solver per process.
    """
    if cell["solver"] in _warmed:
        return
    _warmed.add(cell["solver"])
    import solvers
    from harness.budget import Budget
    from harness.execution import execute
    from harness.instances import Instance

    try:
        problem = Instance(id=cell["instance"], suite=cell["suite"], kind=cell["kind"], fields=cell["fields"]).problem()
        solver = solvers.create(cell["solver"], **cell["params"])
        if not solver.skip(problem)[0]:
            execute(solver, problem, seed=cell["seed"], budget=Budget(time_s=min(0.5, cell["time_limit"]),
                                                                        evaluations=1))
    except Exception:  # the real run reports any problem properly
        pass


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
        skipped, reason = solver.skip(problem)
        if skipped:
            result.update(status="skipped", error=reason)
        else:
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
    except InvalidSolution as exc:
        result.update(status="error", error=f"invalid solution: {exc}")
    except HopbenchError as exc:
        result.update(status="error", error=str(exc))
    except Exception as exc:  # a solver bug must not sink the matrix
        result.update(status="error", error=_one_line(exc))
    result["finished_at"] = now().isoformat()
    return result
