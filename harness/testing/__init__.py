"""Testing helpers shipped with hopbench, for any solver package.

:class:`~hopbench.harness.testing.conformance.SolverConformance` is the conformance
suite every solver must pass (hopbench runs it over every registered solver);
a plug-in package runs it against its own solvers with a three-line test
module::

    from hopbench.harness.testing import SolverConformance

    class TestMySolvers(SolverConformance):
        solver_names = ["my-method"]
"""
from __future__ import annotations

from hopbench.harness.testing.conformance import SolverConformance, conformance_cases

__all__ = ["SolverConformance", "conformance_cases"]
