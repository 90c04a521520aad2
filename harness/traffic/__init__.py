"""Traffic: how a network carries packets, not only how many hops it has.

Traffic patterns on hosts (``patterns``), routing for simulation on any graph with its
channel-dependency check (``routing``, ``deadlock``), the cycle-level router model
(``simulator``), throughput bounds without simulation (``bounds``) and the optional BookSim2
engine (``booksim``).  This layer sits beside ``hopbench.harness.analysis``, above ``hopbench.harness.problems``:
it reads any kind's network and the routing kind's tables.
"""
