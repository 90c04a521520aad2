"""The shortcut kind's vocabulary, in a module light enough for anything to import."""
from __future__ import annotations

#: objectives, always minimised (see :mod:`hopbench.harness.problems.shortcut.problem`)
OBJECTIVES = ("aspl", "diameter", "golf", "ad", "channel-load")
#: objectives that are not a function of the diameter and the ASPL: only the solvers that name them in their
#: ``opt_in_objectives`` take them (``channel-load``: the busiest channel under uniform traffic and minimal
#: routing, :mod:`hopbench.harness.engine.channel_load`; its inverse is the throughput bound)
OPT_IN_OBJECTIVES = {"channel-load": "annealing, edgecut-full and random"}  # -> the solvers that take it
#: problem families that restrict the shape of solutions
FAMILIES = ("equality",)
#: the ``format`` field of a shortcut solution document
SOLUTION_FORMAT = "hopbench.solution/1"
