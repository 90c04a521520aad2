"""The ``grid`` problem kind: Graph Golf's grid-graph category (2019).

Vertices are the cells of a width x height grid; an edge may join two cells whose Manhattan
distance is at most the cable length ``length``; every degree is at most ``degree``; the score is
the diameter, then the ASPL.  See :mod:`hopbench.harness.problems.grid.problem` (definition, solutions),
:mod:`hopbench.harness.problems.grid.bounds` (the grid lower bound), :mod:`hopbench.harness.problems.grid.competition`
(the competition's ``x,y x,y`` edge files) and :mod:`hopbench.harness.problems.grid.kind` (suites, boards).
"""
