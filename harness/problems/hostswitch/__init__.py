"""Graph Golf's host-switch category: hosts of degree 1 on switches of a given radix (see :mod:`.problem`)."""
from __future__ import annotations

from hopbench.harness.problems.hostswitch.problem import HostSwitchEvaluation, HostSwitchProblem
from hopbench.harness.problems.hostswitch.solution import FORMAT, HostSwitchGraph

__all__ = ["FORMAT", "HostSwitchEvaluation", "HostSwitchGraph", "HostSwitchProblem"]
