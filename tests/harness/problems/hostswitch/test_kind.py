"""The hostswitch kind: documents verified from scratch, the suite, exports and traffic with hosts as endpoints."""
from __future__ import annotations

import copy
import re

import numpy as np
import pytest

from hopbench.harness.problems import networks
from hopbench.harness.problems.hostswitch.problem import HostSwitchProblem
from hopbench.harness.problems.hostswitch.solution import HostSwitchGraph
from hopbench.harness.problems.registry import get_kind, kind_of_format, verify_document
from hopbench.harness.report.exports import export_text


def small_graph() -> HostSwitchGraph:
    # a ring of 5 switches of radix 5, 3 hosts each except one with 2: 14 hosts
    counts = np.array([3, 3, 3, 3, 2])
    links = np.array([(i, (i + 1) % 5) for i in range(5)])
    return HostSwitchGraph(HostSwitchProblem(14, 5), counts, links, solver="hand", seed=0)


def test_document_round_trip_and_tampering():
    doc = small_graph().to_dict()
    assert kind_of_format(doc["format"]).name == "hostswitch"
    verdict = verify_document(doc)
    assert verdict.valid, verdict.reason
    assert verdict.metrics["h_diameter"] == 4  # two hops round the ring plus the host links
    lie = copy.deepcopy(doc)
    lie["metrics"]["h_aspl"] -= 0.01
    assert not verify_document(lie).valid
    overfull = copy.deepcopy(doc)
    overfull["hosts_per_switch"] = [4, 3, 3, 2, 2]
    assert "ports" in verify_document(overfull).reason
    read = get_kind("hostswitch").read(doc)
    assert read.host_counts.tolist() == [3, 3, 3, 3, 2]


def test_check_result_refuses_another_problem():
    doc = small_graph().to_dict()
    kind = get_kind("hostswitch")
    assert kind.check_result(HostSwitchProblem(14, 5), doc).valid
    assert not kind.check_result(HostSwitchProblem(14, 6), doc).valid


def test_exports_put_the_hosts_on_their_switches():
    net = networks.from_document(small_graph().to_dict())
    assert net.hosts.tolist() == [3, 3, 3, 3, 2]
    anynet = export_text(net, "anynet")
    # router 4 has 2 endpoints (nodes), the others 3
    assert len(re.findall(r"\bnode\b", anynet.splitlines()[4])) == 2
    assert sum(len(re.findall(r"\bnode\b", line)) for line in anynet.splitlines()) == 14
    graphml = export_text(net, "graphml")
    assert graphml.count('<data key="endpoints">3</data>') == 4
    golf = export_text(net, "golf")
    assert golf.splitlines()[0] == "14 5 5" and len(golf.splitlines()) == 1 + 14 + 5
    # an explicit count still wins
    assert sum(len(re.findall(r"\bnode\b", line)) for line in export_text(net, "anynet", endpoints=1).splitlines()) == 5


def test_traffic_takes_the_hosts():
    from hopbench.harness.traffic.study import prepare

    _, spec = prepare(networks.from_document(small_graph().to_dict()), pattern="uniform", routing="updown")
    assert spec.hosts == 14


def test_suite_has_the_featured_pairs_with_their_bounds():
    from hopbench.harness.bench.suites import load_suite

    from .test_bounds import ORP_VALUES

    suite = load_suite("graphgolf-hostswitch")
    assert len(suite.instances) == 13
    kind = get_kind("hostswitch")
    for inst in suite.instances:
        problem = inst.problem()
        pair = (problem.hosts, problem.radix)
        assert pair in ORP_VALUES
        bound = [r for r in inst.references if r["label"] == "lower bound"][0]
        assert bound["h_diameter"] == ORP_VALUES[pair][0]
        assert bound["h_aspl"] == pytest.approx(ORP_VALUES[pair][1], abs=1e-9)
        points = kind.reference_points(problem, inst.references)
        assert points["lower bound"]["h_diameter"] == ORP_VALUES[pair][0]
    best = [r for r in suite.by_id["h65536/r64"].references if r["label"] == "best known"][0]
    assert (best["h_diameter"], best["h_aspl"]) == (5, 4.53)


def test_a_traffic_instance_takes_the_hosts(tmp_path):
    from hopbench.harness.documents import dumps
    from hopbench.harness.problems.registry import get_kind

    path = tmp_path / "hs.json"
    path.write_text(dumps(small_graph().to_dict()))
    traffic = get_kind("traffic")
    fields = {"network": str(path), "traffic": "uniform", "routing": "updown", "endpoints": "hosts"}
    problem = traffic.build(fields)
    problem.check_light()
    assert problem.prepared()[1].hosts == 14
