"""The warm-up reaches every kernel a solver's timed runs use.

A kernel first called inside a timed run compiles (cold cache) or loads from numba's disk cache
(warm cache: a few tenths of a second under load) on that run's clock, which can break the
time-limit rule of a 1 s run.  Each check runs in a fresh process and follows the conformance
suite: warm the solver up, run it once on each sample problem of its kinds with one evaluation,
then run it there for 1 s each (the conformance limit), and list the kernels that gained a
compiled signature during those runs.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hopbench import solvers

PROBE = r"""
import json, sys
import numba.core.registry
from hopbench.harness.testing.conformance import sample_problems
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.contract.registry import create, get
from hopbench.solvers.contract.warmup import warm_up_solver


def compiled():
    seen = {}
    for module in list(sys.modules.values()):
        for value in list(vars(module).values()) if module is not None else ():
            if isinstance(value, numba.core.registry.CPUDispatcher):
                key = f"{value.py_func.__module__}.{value.py_func.__qualname__}"
                seen[key] = {str(sig) for sig in value.signatures}
    return seen


name = sys.argv[1]
warm_up_solver(name)
problems = [p for kind in get(name).kinds for p in sample_problems(kind) if not create(name).skip(p)[0]]
for problem in problems:  # as the conformance suite does: one evaluation first (problem set-up, lazy parts)
    execute(create(name), problem, seed=11, budget=Budget(time_s=0.5, evaluations=1))
before = compiled()
for problem in problems:
    execute(create(name), problem, seed=11, budget=Budget(time_s=1.0))
after = compiled()
print(json.dumps(sorted(f"{k}{sorted(sigs - before.get(k, set()))}" for k, sigs in after.items()
                        if sigs - before.get(k, set()))))
"""


@pytest.mark.parametrize("name", solvers.names())
def test_a_timed_run_after_the_warm_up_compiles_no_kernel(name):
    out = subprocess.run([sys.executable, "-c", PROBE, name], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [], f"{name}: kernels first compiled in a timed run"
