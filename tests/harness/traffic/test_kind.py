"""The traffic problem kind: suite instances, what a run records, its re-verification, its board.

A traffic run's answer is a measurement, so "re-verify" means two things here: the metrics must
follow from the recorded load points (the bisection is replayed), and the points must reproduce
when the run is simulated again from its seed and parameters.
"""
from __future__ import annotations

import copy
import json

import pytest

from hopbench.harness.bench.suites import load_suite
from hopbench.harness.errors import HopbenchError, InvalidSolution
from hopbench.harness.problems.registry import get_kind, is_maximised, kind_of_format, kind_of_objective
from hopbench.harness.traffic.measure import RunOutOfTime, measure
from hopbench.harness.traffic.problem import TRAFFIC_FORMAT, TrafficProblem, replay_bisection, result_from_dict

QUICK = {"warmup_periods": 1, "sample_period": 100, "max_samples": 5}


def small(**kw) -> TrafficProblem:
    fields = dict(network="ring:6", routing="adaptive-updown", router=dict(QUICK, num_vcs=2), zero_load_packets=500)
    fields.update(kw)
    return TrafficProblem(**fields)


@pytest.fixture(scope="module")
def recorded() -> dict:
    """One measured run's document (seed 4, a stated load, the LP bound)."""
    result = measure(small(load=0.15), seed=4, curve=3)
    result.solver, result.params, result.seed = "simulator", {"curve": 3, "tolerance": 0.005, "bound": True}, 4
    return result.to_dict()


def test_the_kind_is_registered_and_its_objective_is_maximised():
    kind = get_kind("traffic")
    assert kind_of_objective("saturation") is kind and kind_of_format(TRAFFIC_FORMAT) is kind
    assert is_maximised("saturation") and not is_maximised("aspl") and not is_maximised("max_load")


def test_instance_ids_name_network_pattern_routing_and_every_non_default():
    kind = get_kind("traffic")
    assert kind.instance_id({"network": "torus:8x8", "routing": "dor"}) == "torus:8x8/uniform/dor"
    fields = {"network": "ring:16", "traffic": "bitrev", "routing": "updown", "faults": 5,
              "router": {"packet_size": 4, "num_vcs": 2}, "endpoints": 2, "load": 0.3}
    assert kind.instance_id(fields) == "ring:16/bitrev/updown;num_vcs=2;packet_size=4;endpoints=2;faults=5;load=0.3"
    # a default written out is the same instance
    assert kind.instance_id({"network": "ring:16", "endpoints": 1, "faults": 0, "router": {}}) == \
        "ring:16/uniform/adaptive-updown"


@pytest.mark.parametrize("body, message", [
    ('traffic = "uniform"', "needs a 'network' key"),
    ('network = "ring:8"\ntraffic = "zipf"', "traffic 'zipf' is not a pattern"),
    ('network = "ring:8"\nrouting = "valiant"', "routing 'valiant' is not a simulation routing"),
    ('network = "ring:8"\nendpoints = 0', "endpoints is a host count per switch"),
    ('network = "ring:8"\nrouter = {num_vc = 2}', "num_vc"),
    ('network = "ring:8"\nrouter = {num_vcs = 0}', "num_vcs"),
    ('network = "ring:8"\nload = 1.5', "0 < load <= 1"),
    ('network = "ring:8"\nfaults = 100', "faults is a percentage"),
    ('network = "torus:3x3"\ntraffic = "transpose"', "power-of-two host count"),
    ('network = "ring:8"\nrouting = "dor"', "routing dor needs a mesh or torus"),
    ('network = "ring:8"\nzero_load_packets = 5', "zero_load_packets"),
    ('network = "nosuch:8"', "nosuch"),
])
def test_a_suite_refuses_a_bad_traffic_instance_when_it_loads(tmp_path, body, message):
    path = tmp_path / "bad.toml"
    path.write_text(f'name = "bad"\nseeds = 1\n\n[[instances]]\nkind = "traffic"\n{body}\n')
    with pytest.raises(HopbenchError, match=message) as info:
        load_suite(path)
    assert "\n" not in str(info.value)


def test_a_run_records_every_point_and_its_metrics_follow_from_them(recorded):
    m = recorded["metrics"]
    assert recorded["format"] == TRAFFIC_FORMAT and m["objective"] == m["saturation"]
    offered = [p["offered"] for p in recorded["saturation_points"]]
    assert offered[:2] == [1.0, 0.5] and len(offered) == 9  # bisection from 1.0 to a width of 1/256
    assert m["saturation"] == replay_bisection(offered, [p["saturated"] for p in recorded["saturation_points"]],
                                               high=1.0, tolerance=0.005)
    # the saturation is the highest unsaturated load the search simulated
    assert m["saturation"] == max(p["offered"] for p in recorded["saturation_points"] if not p["saturated"])
    assert [p["offered"] for p in recorded["curve"]] == pytest.approx([m["saturation"] * k / 3 for k in (1, 2, 3)], abs=1e-6)
    assert recorded["at_load"]["offered"] == 0.15 and m["latency_at_load"] == recorded["at_load"]["latency_mean"]
    assert m["zero_load_latency"] == recorded["zero_load"]["latency_mean"] > 0
    # no run may carry more than the LP bound, and the routing's own bound is no better than the LP's
    assert m["saturation"] <= m["lp_bound"] + 1e-9 and m["routing_bound"] <= m["lp_bound"] + 1e-9
    assert m["lp_gap"] == pytest.approx((m["lp_bound"] - m["saturation"]) / m["lp_bound"])
    assert json.loads(json.dumps(recorded)) == recorded  # plain JSON


def test_the_same_seed_gives_the_same_document_and_verify_reproduces_it(recorded):
    again = measure(small(load=0.15), seed=4, curve=3)
    again.solver, again.params, again.seed = "simulator", {"curve": 3, "tolerance": 0.005, "bound": True}, 4
    doc = again.to_dict()
    for d in (doc, copy.deepcopy(recorded)):
        d.pop("elapsed_s")
    expected = copy.deepcopy(recorded)
    expected.pop("elapsed_s")
    assert doc == expected
    verdict = get_kind("traffic").verify(recorded)
    assert verdict.valid, verdict.reason


def _tampered(doc: dict, change) -> dict:
    out = copy.deepcopy(doc)
    change(out)
    return out


@pytest.mark.parametrize("change, reason", [
    # a saturation the points do not support
    (lambda d: d["metrics"].update(saturation=0.9, objective=0.9), "stored objective 0.9 does not match"),
    # a point the bisection would not have simulated
    (lambda d: d["saturation_points"][2].update(saturated=not d["saturation_points"][2]["saturated"]),
     "the bisection would simulate"),
    (lambda d: d["saturation_points"].pop(), "before it reached its tolerance"),
    (lambda d: d["curve"][1].update(offered=0.2), "latency-curve point 2 has offered load 0.2"),
    # numbers the simulation does not reproduce (the metrics edited to match, as a forger would)
    (lambda d: d["curve"][0].update(latency_mean=1.0) or d["metrics"]["curve"][1].__setitem__(2, 1.0),
     "curve point 1: stored latency_mean 1.0"),
    (lambda d: d["zero_load"].update(latency_mean=2.0) or d["metrics"].update(zero_load_latency=2.0)
     or d["metrics"]["curve"][0].__setitem__(2, 2.0), "zero-load point 1"),
    (lambda d: d["curve"][0].update(latency_mean=1.0), "stored curve"),
    # a metric its points do not give
    (lambda d: d["metrics"].update(latency_at_load=None) or d["at_load"].update(latency_mean=None)
     or d["metrics"].pop("latency_at_load"), "stated load point 1: stored latency_mean None"),
    (lambda d: d["metrics"].update(lp_bound=2.0), "stored lp_bound 2.0"),
    # the escape VC's share is checked where a document states it
    (lambda d: d["curve"][0].update(escape_share=0.5), "curve point 1: stored escape_share 0.5"),
])
def test_verify_refuses_a_tampered_document(recorded, change, reason):
    verdict = get_kind("traffic").verify(_tampered(recorded, change))
    assert not verdict.valid and reason in verdict.reason, verdict.reason


def test_a_document_from_before_the_escape_share_still_verifies(recorded):
    def drop(d: dict) -> None:
        for point in [*d["saturation_points"], *d["curve"], d["zero_load"], d["at_load"]]:
            point.pop("escape_share")

    assert all(p["escape_share"] is not None for p in recorded["curve"])  # adaptive-updown states one
    verdict = get_kind("traffic").verify(_tampered(recorded, drop))
    assert verdict.valid, verdict.reason


def test_a_document_without_its_points_is_invalid(recorded):
    with pytest.raises(InvalidSolution, match="saturation_points"):
        result_from_dict(_tampered(recorded, lambda d: d.pop("saturation_points")))


def test_a_run_out_of_time_has_no_partial_result():
    with pytest.raises(RunOutOfTime, match="time limit ended before the simulation did"):
        measure(small(), seed=1, bound=False, stop=lambda: True)
    with pytest.raises(RunOutOfTime, match="time limit ended"):
        measure(small(), seed=1, remaining=lambda: 0.0)  # before the LP


def test_faults_and_random_permutations_are_drawn_from_the_instance_not_the_run():
    def faulty(seed: int) -> TrafficProblem:
        return small(network="torus:4x4", faults=20, structure_seed=seed, routing="updown")

    a, b = faulty(3), faulty(3)
    assert a.prepared()[1].removed_links == b.prepared()[1].removed_links
    assert len(a.prepared()[1].removed_links) == 6  # 20 % of 32 links
    c = faulty(4)
    assert c.prepared()[1].removed_links != a.prepared()[1].removed_links
    p = small(traffic="randperm", network="ring:8", structure_seed=2)
    q = small(traffic="randperm", network="ring:8", structure_seed=2)
    assert list(p.prepared()[0].pattern.dest) == list(q.prepared()[0].pattern.dest)


def test_a_network_file_is_named_relative_to_its_suite_and_its_id_keeps_the_name(tmp_path):
    from hopbench.harness.traffic.problem import problem_from_fields

    ring = tmp_path / "nets" / "ring8.edges"
    ring.parent.mkdir()
    ring.write_text("".join(f"{i} {(i + 1) % 8}\n" for i in range(8)))
    (tmp_path / "suites").mkdir()
    path = tmp_path / "suites" / "mine.toml"
    # the name read from the suite's folder, or from the folder above it (a shipped suite's project root)
    path.write_text('name = "mine"\nseeds = 1\n\n[[instances]]\nkind = "traffic"\nnetwork = "nets/ring8.edges"\n'
                    'routing = "updown"\n')
    inst = load_suite(path).instances[0]
    assert inst.id == "nets/ring8.edges/uniform/updown"
    assert problem_from_fields(inst.fields).switches == 8  # found wherever the process runs
    path.write_text(path.read_text().replace("nets/ring8.edges", "nets/missing.edges"))
    with pytest.raises(HopbenchError, match="missing.edges"):
        load_suite(path)


def test_a_shipped_suites_network_is_found_from_any_folder(tmp_path, monkeypatch):
    """A result of angara2021-traffic names its routing table as the suite wrote it (relative to the project
    root); verify, run from another folder or from a wheel install, still finds the shipped file."""
    from hopbench.harness import _paths
    from hopbench.harness.traffic.problem import TrafficProblem

    name = next(i.fields["network"] for i in load_suite("angara2021-traffic").instances)
    monkeypatch.chdir(tmp_path)  # no leaderboards/ here
    assert TrafficProblem(network=name).network_file == str(_paths.REPO_ROOT / name)
    # a file of that name in the current folder comes first, and nothing outside the data folders is looked up
    (tmp_path / name).parent.mkdir(parents=True)
    (tmp_path / name).write_text("{}")
    assert TrafficProblem(network=name).network_file == name
    assert _paths.shipped_file("../" + name) is None and _paths.shipped_file("/etc/hostname") is None


def test_the_coordinator_simulates_again_what_a_solver_hopbench_does_not_ship_reports(recorded):
    # points forged consistently (metrics edited to match): the replay alone cannot tell
    forged = _tampered(recorded, lambda d: d["curve"][0].update(latency_mean=1.0)
                       or d["metrics"]["curve"][1].__setitem__(2, 1.0))
    kind = get_kind("traffic")
    problem = small(load=0.15)
    assert kind.check_result(problem, recorded).valid
    verdict = kind.check_result(problem, forged, trusted=False)
    assert not verdict.valid and "does not reproduce" in verdict.reason
    # the shipped simulator's own points are replayed, not simulated twice
    assert kind.check_result(problem, forged, trusted=True).valid
    other = kind.check_result(small(load=0.2), recorded, trusted=True)
    assert not other.valid and "another problem" in other.reason
