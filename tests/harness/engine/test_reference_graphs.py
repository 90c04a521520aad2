"""The six public Graph Golf graphs: diameter exact, ASPL to 1e-9, lower bounds as listed."""
import pytest

from hopbench.harness.engine.distances import summary
from hopbench.harness.graphs.bounds import lower_bounds
from hopbench.harness.graphs.topologies import read_edge_file
from tests.conftest import GRAPHGOLF

# file, n, max degree, diameter, sum of distances (unordered pairs), LB diameter, LB ASPL
REFERENCE = [
    ("edges-order=32-degree=5-diameter=3-aspl=2.032258", 32, 5, 3, 1008, 3, 2.0322580645),
    ("n72d4.edges", 72, 4, 4, 7632, 4, 2.9859154930),
    ("topology_512_4.bst.edges", 512, 4, 6, 624064, 6, 4.5988258317),
    ("topology_512_6.bst.edges", 512, 6, 5, 468352, 4, 3.5538160470),
    ("topology_1024_4.bst.edges", 1024, 4, 7, 2837760, 6, 5.3000977517),
    ("topology_4855_15.bst.edges", 4855, 15, 4, 40161740, 4, 3.2985166873),
]


@pytest.mark.parametrize("name, n, d, diameter, total, lb_d, lb_a", REFERENCE, ids=[r[0][:24] for r in REFERENCE])
def test_reference_graph(name, n, d, diameter, total, lb_d, lb_a):
    g = read_edge_file(GRAPHGOLF / name)
    assert g.n == n and g.max_degree == d
    s = summary(g)
    assert s.diameter == diameter
    assert s.total == total
    assert abs(s.aspl - total / (n * (n - 1) / 2)) < 1e-9
    bd, ba = lower_bounds(n, d)
    assert bd == lb_d
    assert abs(ba - lb_a) < 1e-9
