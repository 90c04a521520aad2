"""The shortcut kind's vocabulary, in a module light enough for anything to import."""
from __future__ import annotations

#: objectives, always minimised (see :mod:`harness.problems.shortcut.problem`)
OBJECTIVES = ("aspl", "diameter", "golf", "ad")
#: problem families that restrict the shape of solutions
FAMILIES = ("equality",)
#: the ``format`` field of a shortcut solution document
SOLUTION_FORMAT = "hopbench.solution/1"
