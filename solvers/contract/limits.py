"""The time-limit rule, stated once for every solver.

A solver given a time limit of ``T`` seconds returns within ``T + overrun_allowance(T)``
— ``max(0.5 s, 5 % of T)`` — even when both cores of the machine are busy; compiling
its numba kernels happens before the clock starts (the runner and ``hopbench solve``
warm solvers up first).  The shipped conformance suite (:mod:`hopbench.harness.testing`) checks
the rule.  The runner does not trust it: a cell still running at :func:`hard_limit`
(1.2 x T + 5 s) is killed and recorded as a timeout.

The one-time warm-up before a solver's first cell has a limit of its own
(:func:`warm_up_limit`): a solver shipped with hopbench (trusted: it keeps its budgets, its
only slow part is compiling kernels on a cold cache) gets :data:`BUILTIN_WARMUP_LIMIT`; any
other solver — a plug-in, however it was found — gets :func:`plugin_warm_up_limit`, 60 s
unless ``$HOPBENCH_PLUGIN_WARMUP_LIMIT`` says otherwise.

A plug-in's sandbox process may also map at most :func:`plugin_memory_limit` bytes of address space
(``RLIMIT_AS``, 4 GiB unless ``$HOPBENCH_PLUGIN_MEMORY_LIMIT`` says otherwise): an allocation past it fails in
that process alone, and the cell is recorded as an error saying so.
"""
from __future__ import annotations

from hopbench.harness.caps import env_seconds

#: the overrun every solver may take past its time limit: at least this many seconds ...
MIN_OVERRUN_S = 0.5
#: ... or this share of the limit, whichever is larger
OVERRUN_SHARE = 0.05

#: seconds a built-in solver's one-time warm-up may take: compiling its numba kernels on a
#: cold cache takes up to a minute or two on a small machine, and it respects its budgets
BUILTIN_WARMUP_LIMIT = 300.0
#: seconds a plug-in solver's one-time warm-up may take, unless the environment variable says otherwise
DEFAULT_PLUGIN_WARMUP_LIMIT = 60.0
PLUGIN_WARMUP_LIMIT_ENV = "HOPBENCH_PLUGIN_WARMUP_LIMIT"


#: bytes of address space (RLIMIT_AS) a plug-in's sandbox process may map, unless the environment variable
#: says otherwise: a sandbox maps about 0.6 GiB once numba and every solver are imported, and a shipped solver's
#: largest standard run (vrs on graphgolf's n = 10,000) about 2 GiB more
DEFAULT_PLUGIN_MEMORY_LIMIT = 4 * 2**30
PLUGIN_MEMORY_LIMIT_ENV = "HOPBENCH_PLUGIN_MEMORY_LIMIT"
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def plugin_memory_limit() -> int | None:
    """Bytes of address space a plug-in's sandbox may map (``RLIMIT_AS``): ``$HOPBENCH_PLUGIN_MEMORY_LIMIT``
    (bytes, or with a K, M, G or T suffix: ``8G``; ``0`` for no limit), else 4 GiB.  None: no limit.

    Read on every call (a worker reads its own environment); anything else is a one-line error naming the
    variable.
    """
    import os
    import re

    from hopbench.harness.errors import HopbenchError

    text = os.environ.get(PLUGIN_MEMORY_LIMIT_ENV, "").strip()
    if not text:
        return DEFAULT_PLUGIN_MEMORY_LIMIT
    match = re.fullmatch(r"([0-9]{1,16})\s*([KMGT]?)i?B?", text, re.IGNORECASE)
    if match is None:
        raise HopbenchError(f"{PLUGIN_MEMORY_LIMIT_ENV}={text[:40]!r} is not a size; give bytes or a size such as "
                            f"{PLUGIN_MEMORY_LIMIT_ENV}=8G (0: no limit)")
    value = int(match.group(1)) * _UNITS[match.group(2).upper()]
    if value == 0:
        return None
    if value < 2**30:  # near what the sandbox itself maps: every plug-in cell would die importing numba
        raise HopbenchError(f"{PLUGIN_MEMORY_LIMIT_ENV}={text!r} is below 1G, too little for a sandbox to start "
                            f"(about 0.6 GiB); give e.g. {PLUGIN_MEMORY_LIMIT_ENV}=2G")
    return value


def shown_bytes(value: int) -> str:
    """``4 GiB``, ``1.5 GiB``, ``768 MiB``: a limit for a message."""
    if value >= 2**30:
        return f"{value / 2**30:.3g} GiB"
    return f"{value / 2**20:.4g} MiB"


def overrun_allowance(time_limit: float) -> float:
    """How far past ``time_limit`` seconds a solver may return: ``max(0.5 s, 5 %)``."""
    return max(MIN_OVERRUN_S, OVERRUN_SHARE * float(time_limit))


def hard_limit(time_limit: float) -> float:
    """Seconds after which the runner kills a run: 1.2 x its time limit + 5 s."""
    return 1.2 * float(time_limit) + 5.0


def plugin_warm_up_limit() -> float:
    """Seconds a plug-in's warm-up may take: ``$HOPBENCH_PLUGIN_WARMUP_LIMIT``, else 60.

    Read on every call (a Dask worker reads its own environment); a value that is not a
    positive number of seconds is a one-line error naming the variable.
    """
    return env_seconds(PLUGIN_WARMUP_LIMIT_ENV, DEFAULT_PLUGIN_WARMUP_LIMIT)


def warm_up_limit(time_limit: float, trusted: bool) -> float:
    """Seconds the one-time warm-up before a cell of ``time_limit`` seconds may take: at least the cell's
    hard limit and :data:`BUILTIN_WARMUP_LIMIT` for a ``trusted`` (shipped) solver, the plug-in limit for
    any other."""
    return max(hard_limit(time_limit), BUILTIN_WARMUP_LIMIT) if trusted else plugin_warm_up_limit()
