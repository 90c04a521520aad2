"""Exception types.  Every user-facing error is a :class:`HopbenchError`.

The CLI prints ``error: <message>`` on one line and exits with code 2, so a
message should say what is wrong *and* how to fix it.
"""
from __future__ import annotations


class HopbenchError(ValueError):
    """Bad input: a malformed spec, file or parameter, an impossible problem."""


class SolverDeclined(HopbenchError):
    """A solver's ``skip`` declined the problem; ``reason`` is the solver's own explanation."""

    def __init__(self, solver: str, reason: str) -> None:
        super().__init__(f"solver {solver} cannot solve this problem: {reason}")
        self.solver = solver
        self.reason = reason


class PluginFailed(HopbenchError):
    """A plug-in's own code failed where hopbench called it (its ``__init__``); the message names it.  A run
    records the failure as the plug-in's cells' rows and goes on with the other solvers."""


class InvalidSolution(HopbenchError):
    """A solution that breaks a rule of its problem (the first violation is named)."""
