"""The time-limit rule, stated once for every solver.

A solver given a time limit of ``T`` seconds returns within ``T + overrun_allowance(T)``
— ``max(0.5 s, 5 % of T)`` — even when both cores of the machine are busy; compiling
its numba kernels happens before the clock starts (the runner and ``hopbench solve``
warm solvers up first).  The shipped conformance suite (:mod:`harness.testing`) checks
the rule.  The runner does not trust it: a cell still running at :func:`hard_limit`
(1.2 x T + 5 s) is killed and recorded as a timeout.
"""
from __future__ import annotations

#: the overrun every solver may take past its time limit: at least this many seconds ...
MIN_OVERRUN_S = 0.5
#: ... or this share of the limit, whichever is larger
OVERRUN_SHARE = 0.05


def overrun_allowance(time_limit: float) -> float:
    """How far past ``time_limit`` seconds a solver may return: ``max(0.5 s, 5 %)``."""
    return max(MIN_OVERRUN_S, OVERRUN_SHARE * float(time_limit))


def hard_limit(time_limit: float) -> float:
    """Seconds after which the runner kills a run: 1.2 x its time limit + 5 s."""
    return 1.2 * float(time_limit) + 5.0
