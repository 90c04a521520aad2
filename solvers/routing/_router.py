"""What the Angara routing-table algorithms keep during one run (Alg. 1 and Alg. 3 of Mukosey et al.)."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from hopbench.harness.problems.routing import RoutingProblem, RoutingTable
from hopbench.solvers.contract import Solver
from hopbench.solvers.contract.budget import Reporter
from hopbench.solvers.routing.dor import dor_flat


class AngaraSolver(Solver):
    """A routing solver that only builds routes of the Angara routing graph: it declines other rules."""

    kinds = ("routing",)
    #: how the solver uses the Angara routing graph, for the reason it gives when it declines
    uses_angara: ClassVar[str] = "routes in the Angara routing graph"

    def skip(self, problem: RoutingProblem) -> tuple[bool, str]:
        skipped, reason = super().skip(problem)
        if not skipped and problem.rules != "angara":
            return True, f"{self.name} {self.uses_angara}; the problem's rules are {problem.rules!r}"
        return skipped, reason

    @staticmethod
    def dor_table(problem: RoutingProblem, report: Reporter, **extra: int) -> RoutingTable:
        """The DOR table (valid in the routing graph), evaluated and reported, with ``extra`` and every pair
        counted as truncated: what a solver returns when its budget ran out before it had candidate routes."""
        table = RoutingTable(problem, *dor_flat(problem))
        table.extra.update({**extra, "truncated_pairs": int(problem.num_pairs)})
        report.count(1)
        report(table.evaluate().objective)
        return table


class RouterState:
    """The routing graph in CSR form, the channel loads, and the routes built so far (one row per pair)."""

    def __init__(self, problem: RoutingProblem) -> None:
        self.problem = problem
        graph = problem.graph
        self.indptr, self.tgt, edir = graph.csr
        self.edir = edir.astype(np.int64)
        self.S = graph.states_per_node
        self.load = np.zeros(problem.network.num_channel_slots, dtype=np.int64)
        width = max(1, problem.network.diameter)
        # one byte a step: int64 rows were 2.1 GB on 8x8x8x8 (16.8 million pairs x diameter 16)
        self.mat = np.full((problem.num_pairs, width), -1, dtype=np.int8)
        self.lengths = np.zeros(problem.num_pairs, dtype=np.int64)
