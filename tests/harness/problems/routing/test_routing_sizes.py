"""Routing sizes: the pairs cap, compact tables, the fast rule check, and short error messages."""
import itertools

import numpy as np
import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.routing import RoutingTable, make_problem, table_from_dict
from hopbench.harness.problems.routing.candidates import CandidateRoutes, Interrupted
from hopbench.harness.problems.routing.deadlock import loads_and_dependencies
from hopbench.harness.problems.routing.graph import routing_graph
from hopbench.harness.problems.routing.problem import ids_text
from tests.harness.problems.routing.test_routing_table import cyclic_table, dependency_edges, dor_table


def test_the_pairs_cap_refuses_before_the_problem_is_built(monkeypatch):
    with pytest.raises(HopbenchError, match=r"16,773,120, above the cap of 1,048,576 .*HOPBENCH_MAX_ROUTING_PAIRS"):
        make_problem("8x8x8x8")
    assert make_problem("8x8x8x2").num_pairs == 1024 * 1023  # the largest default torus
    monkeypatch.setenv("HOPBENCH_MAX_ROUTING_PAIRS", "56")
    assert make_problem("4x2x2x2", subset="desmos8").num_pairs == 56
    with pytest.raises(HopbenchError, match="HOPBENCH_MAX_ROUTING_PAIRS"):
        make_problem("4x2x2x2", subset="desmos16")
    with pytest.raises(HopbenchError, match="HOPBENCH_MAX_ROUTING_PAIRS"):  # a document's torus too
        table_from_dict({"format": "hopbench.routes/1", "torus": [4, 4], "routes": {}})


@pytest.mark.parametrize("torus", [[4.0, 4], [True, 4], [[4], 4]])
def test_malformed_torus_in_a_document_is_a_hopbench_error(torus):
    with pytest.raises(HopbenchError, match="malformed"):
        table_from_dict({"format": "hopbench.routes/1", "torus": torus, "routes": {}})


def test_long_id_lists_are_shortened():
    assert ids_text([1, 2, 3]) == "[1, 2, 3]"
    text = ids_text(list(range(4096)))
    assert text == "[0, 1, 2, 3, 4, 5, ... and 4,090 more]"
    doc = {"format": "hopbench.routes/1", "torus": [8, 8, 8, 2], "subset": "all", "nodes": list(range(16)),
           "routes": {}}
    with pytest.raises(HopbenchError) as info:
        table_from_dict(doc)
    assert "and 1,018 more" in str(info.value) and len(str(info.value)) < 200


def test_tables_keep_one_byte_a_step_and_out_of_range_steps_are_still_named():
    table = dor_table(make_problem("4x4"))
    assert table.dirs.dtype == np.int8
    routes = [table.dirs[table.offsets[i]:table.offsets[i + 1]].tolist() for i in range(table.problem.num_pairs)]
    routes[0] = [300]  # int8 would wrap 300 to 44
    bad = RoutingTable.from_routes(table.problem, routes)
    assert bad.dirs.dtype == np.int64
    with pytest.raises(HopbenchError, match="no direction 300"):
        bad.evaluate()
    # the compiled walks behind loads() and channels() index by direction unchecked: they refuse it first
    for walk in (bad.loads, bad.channels):
        with pytest.raises(HopbenchError, match="no such direction"):
            walk()


def _reference_loads_and_edges(table):
    chans = table.channels()
    loads = np.bincount(chans, minlength=table.problem.network.num_channel_slots)
    return loads, dependency_edges(chans, table.offsets)


@pytest.mark.parametrize("table", [dor_table(make_problem("4x3x2")), cyclic_table(),
                                   dor_table(make_problem("4x2x2x2", subset="desmos8"))], ids=["dor", "cyclic", "subset"])
def test_loads_and_dependencies_match_the_per_step_listing(table):
    loads, edges = loads_and_dependencies(table.problem.pairs[0], table.offsets, table.dirs,
                                          table.problem.network.neighbor)
    ref_loads, ref_edges = _reference_loads_and_edges(table)
    assert np.array_equal(loads, ref_loads)
    assert sorted(map(tuple, edges.tolist())) == sorted(map(tuple, ref_edges.tolist()))


@pytest.mark.parametrize("spec", ["4x3", "3x2x4", "2x2x2"])
def test_the_fast_rule_check_agrees_with_the_automaton(spec):
    """Every direction sequence up to length 4 from node 0: the batch check (DOR fast path, then the
    automaton) and the automaton alone give the same verdict, step and code."""
    from hopbench.harness.problems.routing import graph as graph_module

    g = routing_graph(make_problem(spec).network.dims)
    net = g.net
    live, new, buf = np.empty(8, np.int64), np.empty(8, np.int64), np.empty(4, np.int64)
    seqs = [s for L in range(1, 5) for s in itertools.product(range(net.ndir), repeat=L)]
    plain = 0
    for seq in seqs:
        dirs = np.asarray(seq, dtype=np.int8)
        end = net.walk(0, dirs)[-1]
        dst = np.array([max(end, 0)])
        off = np.array([0, len(seq)])
        fast = g.check(np.array([0]), dst, off, dirs)
        slow = graph_module._check_route(0, np.array([0]), dst, off, dirs, net.neighbor, *g.tables, True,
                                         live, new, buf)
        assert fast[1:] == (int(slow[0]), int(slow[1])), seq
        plain += list(seq) == sorted(seq) and fast[2] == 0
    assert plain > 0  # the fast path was taken


def test_candidate_enumeration_in_chunks_gives_the_same_routes_and_can_be_stopped():
    p = make_problem("4x2x2x2")
    g = p.graph
    whole = CandidateRoutes(g, p.node_array)
    polled = CandidateRoutes(g, p.node_array, should_stop=lambda: False)  # 32 sources per call
    assert np.array_equal(whole.counts, polled.counts) and np.array_equal(whole.dirs, polled.dirs)
    assert np.array_equal(whole.offsets, polled.offsets) and np.array_equal(whole.channels, polled.channels)
    calls = []

    def stop_on_second_poll():
        calls.append(1)
        return len(calls) > 1

    big = make_problem("4x4x4")  # 64 sources: two calls of 32
    with pytest.raises(Interrupted):
        CandidateRoutes(big.graph, big.node_array, should_stop=stop_on_second_poll)
    assert len(calls) == 2  # polled between chunks, not only at the start
    fresh = make_problem("4x2x2x2", subset="desmos16")
    with pytest.raises(Interrupted):
        fresh.candidates_within(lambda: True)
    assert "candidates" not in fresh.__dict__  # nothing partial is cached
    assert fresh.candidates_within(lambda: False) is fresh.candidates
