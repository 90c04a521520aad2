"""Routing problems and tables: validation, deadlock check, metrics, JSON, verify, CLI, suite helpers."""
from __future__ import annotations

import json
import math
import pickle
import tomllib
from pathlib import Path

import numpy as np
import pytest

from hopbench.harness.errors import HopbenchError, InvalidSolution
from hopbench.harness.problems.registry import verify_document
from hopbench.harness.problems.routing import RoutingTable, make_problem, parse_direction, table_from_dict
from hopbench.harness.problems.routing.kind import KIND, routing_instance_id, routing_problem, verify_routes
from hopbench.harness.problems.routing.network import Torus

ROOT = Path(__file__).resolve().parents[4]


def dependency_edges(channels, offsets):
    """Distinct ``(c1, c2)`` pairs of consecutive channels over all routes, by listing one pair per step and
    sorting: the reference for the compiled walk of ``loads_and_dependencies`` (which replaced it)."""
    channels = np.asarray(channels, dtype=np.int64)
    if channels.size < 2:
        return np.empty((0, 2), dtype=np.int64)
    # position i+1 continues the route of position i unless a route starts at i+1
    starts = np.zeros(channels.size + 1, dtype=bool)
    starts[np.asarray(offsets, dtype=np.int64)] = True
    mask = ~starts[1:channels.size]
    pairs = np.stack([channels[:-1][mask], channels[1:][mask]], axis=1)
    if not len(pairs):
        return pairs
    width = int(channels.max()) + 1
    key = np.unique(pairs[:, 0] * width + pairs[:, 1])
    return np.stack([key // width, key % width], axis=1)


def dor_table(problem, tie="positive"):
    """DOR written out here (independent of solvers/dor.py): + moves X, Y, ... then - moves."""
    net = problem.network
    routes = []
    src, dst = problem.pairs
    for s, d in zip(src.tolist(), dst.tolist()):
        cs, cd = net.coords[s], net.coords[d]
        plus, minus = [], []
        for j, k in enumerate(net.dims):
            fwd = int(cd[j] - cs[j]) % k
            back = (k - fwd) % k
            if k == 2:  # mesh: + from coordinate 0, - from coordinate 1
                if cs[j] == 0:
                    plus.extend([j] * fwd)
                else:
                    minus.extend([net.n + j] * fwd)
            elif fwd < back or (fwd == back and tie == "positive"):
                plus.extend([j] * fwd)
            else:
                minus.extend([net.n + j] * back)
        routes.append(plus + minus)
    return RoutingTable.from_routes(problem, routes)


def names(problem, route):
    return [problem.network.direction_names()[d] for d in route]


# --------------------------------------------------------------------------- networks


def test_torus_conventions():
    t = Torus((4, 2, 2, 2))
    assert t.num_nodes == 32 and t.n == 4
    assert t.direction_names() == ["+X", "+Y", "+Z", "+K", "-X", "-Y", "-Z", "-K"]
    assert t.node((1, 0, 0, 0)) == 1 and t.node((0, 1, 0, 0)) == 4 and t.node((0, 0, 0, 1)) == 16
    # a size-2 dimension is a mesh: one link, so one channel per node per size-2 dimension
    assert t.num_channels == 32 * 2 + 3 * 32
    assert t.neighbor[0, parse_direction("+Y", 4)] == 4 and t.neighbor[0, parse_direction("-Y", 4)] == -1
    assert t.neighbor[0, parse_direction("-X", 4)] == 3  # the X ring wraps
    assert t.diameter == 5 and int(t.distance.max()) == 5


@pytest.mark.parametrize("spec", ["4x1", "9x9", "2x2x2x2x2", "", "4x", "axb", "1"])
def test_bad_torus(spec):
    with pytest.raises(HopbenchError, match="torus"):
        make_problem(spec)


def test_bad_nodes_and_subsets():
    with pytest.raises(HopbenchError, match="out of range"):
        make_problem("4x4", nodes="0,16")
    with pytest.raises(HopbenchError, match="at least 2"):
        make_problem("4x4", nodes="3")
    with pytest.raises(HopbenchError, match="unknown node subset"):
        make_problem("4x4", subset="nope")
    with pytest.raises(HopbenchError, match="4x2x2x2"):
        make_problem("4x4", subset="desmos8")
    with pytest.raises(HopbenchError, match="cannot read"):
        make_problem("4x4", nodes="1,x")
    assert make_problem("4x4", nodes="0-2,5,2").nodes == (0, 1, 2, 5)


def test_problem_describe_pickle_and_ids():
    p = make_problem("4x2x2x2", subset="desmos8")
    assert p.kind == "routing"
    json.dumps(p.describe())
    assert p.describe()["nodes"] == list(range(8))
    p.candidates  # caches are dropped from pickles and rebuilt
    q = pickle.loads(pickle.dumps(p))
    assert q == p and "candidates" not in q.__dict__
    assert routing_instance_id({"torus": "4x2x2x2", "subset": "desmos8"}) == "torus:4x2x2x2/desmos8"
    assert routing_instance_id({"torus": "4x2x2x2"}) == "torus:4x2x2x2/all"
    assert routing_instance_id({"torus": "4x4", "nodes": [8, 0, 1, 2, 3]}) == "torus:4x4/nodes:0-3,8"
    assert routing_instance_id({"torus": "4x4", "rules": "minimal"}) == "torus:4x4/all;rules=minimal"
    assert routing_problem({"torus": "3x3", "reference": [], "kind": "routing"}).num_nodes == 9


def test_sample_problems_cover_the_required_shapes():
    ps = KIND.sample_problems()
    dims = [p.network.dims for p in ps]
    assert any(len(d) == 1 for d in dims) and any(len(d) == 2 for d in dims)
    assert any(len(d) == 3 and 2 in d for d in dims)
    assert any(not p.all_nodes for p in ps)


def test_desmos_subsets_have_the_diameters_of_table2():
    for orientation in ("4x2x2x2", "2x2x2x4"):
        for k, diameter in ((2, 1), (4, 2), (8, 3), (16, 4)):
            p = make_problem(orientation, subset=f"desmos{k}")
            assert p.num_nodes == k and int(p.pair_distance.max()) == diameter


def test_channel_set_and_gamma_perfect():
    # all nodes: C is every channel and gamma_perfect = total distance / |C|
    p = make_problem("5x5")
    assert p.channel_set.sum() == 100 and p.gamma_perfect == pytest.approx(25 * 24 * 2.5 / 100)
    # a subset: only channels on minimal routes between its nodes
    q = make_problem("5x5", nodes=[0, 1])
    assert q.channel_set.sum() == 2 and q.gamma_perfect == 1.0
    # shortest walks: channels on any shortest path (0 -> 6 on 5x5 crosses a 2x2 square: 4 channels each way)
    r = make_problem("5x5", nodes=[0, 6], rules="minimal")
    assert r.channel_set.sum() == 8


# --------------------------------------------------------------------------- validation


def test_dor_table_is_valid_and_metrics_match_hand_counts():
    p = make_problem("5")
    ev = dor_table(p).evaluate()
    # ring of 5: every channel carries (25 - 1) / 8 = 3 routes, lengths 1,1,2,2 per source
    assert (ev.max_load, ev.min_load, ev.sigma4, ev.channels) == (3, 3, 0.0, 10)
    assert ev.max_length == 2 and ev.mean_length == 1.5
    assert ev.alpha_sat == pytest.approx(4 / 3)
    assert ev.objective == 3.0


def test_sigma4_definition():
    # ring of 4, ties all routed +: + channels carry 3 routes, - channels 1; gamma_perfect = 16/8 = 2
    p = make_problem("4")
    ev = dor_table(p).evaluate()
    assert (ev.max_load, ev.min_load, ev.gamma_perfect) == (3, 1, 2.0)
    assert ev.sigma4 == pytest.approx(1.0)
    assert ev.objective == pytest.approx(3 + 1 / 2)  # max + sigma / (1 + sigma)
    assert make_problem("4", objective="sigma4").objective == "sigma4"
    assert dor_table(make_problem("4", objective="sigma4")).evaluate().objective == pytest.approx(1.0)


def routes_of(table):
    p = table.problem
    return [table.dirs[table.offsets[i]:table.offsets[i + 1]].tolist() for i in range(p.num_pairs)]


def replace(table, src, dst, route):
    routes = routes_of(table)
    routes[table.problem.pair_index(src, dst)] = route
    return RoutingTable.from_routes(table.problem, routes)


def test_invalid_routes_are_named():
    p = make_problem("4x2")
    good = dor_table(p)
    X, Y, mX, mY = (parse_direction(d, 2) for d in ("+X", "+Y", "-X", "-Y"))
    # a missing mesh channel: node 0 has no -Y channel (size-2 dimension)
    with pytest.raises(InvalidSolution, match="does not exist"):
        replace(good, 0, 4, [mY]).evaluate()
    # a walk that ends elsewhere
    with pytest.raises(InvalidSolution, match="ends at node 1"):
        replace(good, 0, 4, [X]).evaluate()
    # breaking the rules: -X then +X is a U-turn no routing-graph path allows after -X
    with pytest.raises(InvalidSolution, match="Angara routing rules"):
        replace(good, 0, 4, [mX, X, Y]).evaluate()
    # non-minimal: 0 -> 1 the long way round
    with pytest.raises(InvalidSolution, match="hops; the shortest is 1"):
        replace(good, 0, 1, [mX, mX, mX]).evaluate()
    # the same detour is fine when the problem does not ask for minimal routes
    lax = make_problem("4x2", minimal=False)
    table = RoutingTable.from_routes(lax, routes_of(replace(good, 0, 1, [mX, mX, mX])))
    assert table.evaluate().max_length == 3
    # wrong number of routes
    with pytest.raises(InvalidSolution, match="exactly one route"):
        RoutingTable.from_routes(p, routes_of(good)[:-1]).evaluate()


def cyclic_table():
    """Shortest walks on the 3x3 torus whose turns form a dependency cycle around the square 0,1,4,3:
    0->4 +X+Y, 1->3 +Y-X, 4->0 -X-Y, 3->1 -Y+X (each turn waits for the next route's first channel)."""
    p = make_problem("3x3", rules="minimal")
    table = dor_table(p)
    X, Y, mX, mY = 0, 1, 2, 3
    for (s, d), r in {(0, 4): [X, Y], (1, 3): [Y, mX], (4, 0): [mX, mY], (3, 1): [mY, X]}.items():
        table = replace(table, s, d, r)
    return table


def test_deliberately_cyclic_table_fails_the_deadlock_check():
    with pytest.raises(InvalidSolution, match="deadlock"):
        cyclic_table().evaluate()
    # and it is the turns that matter: the same table minus one of the four turns passes
    table = replace(cyclic_table(), 3, 1, [0, 3])  # +X-Y instead of -Y+X
    assert table.evaluate().max_length == 2


def test_same_direction_ring_cycles_are_left_to_the_bubble_rule():
    # ring of 5: straight routes of length 2 in both directions close the ring in the CDG,
    # with no turn: deadlock-free under the bubble rule
    assert dor_table(make_problem("5")).evaluate().max_load == 3
    from hopbench.harness.problems.routing.deadlock import turn_cycle

    t = dor_table(make_problem("5", rules="minimal"))
    net = t.problem.network
    assert turn_cycle(dependency_edges(t.channels(), t.offsets), net.num_channel_slots, net.ndir) is None


# --------------------------------------------------------------------------- JSON and verify


def test_json_roundtrip_and_verify(tmp_path):
    p = make_problem("4x2x2x2", subset="desmos8")
    table = dor_table(p)
    table.solver, table.seed = "dor-test", 3
    doc = table.to_dict()
    assert doc["format"] == "hopbench.routes/1" and doc["torus"] == [4, 2, 2, 2]
    assert doc["nodes"] == list(range(8)) and doc["routes"]["0,5"] == ["+X", "+Y"]
    text = json.dumps(doc)
    back, stored = table_from_dict(json.loads(text))
    assert routes_of(back) == routes_of(table)
    assert stored["max_load"] == table.evaluation.max_load
    verdict = verify_document(json.loads(text))
    assert verdict.valid, verdict.reason
    # tampered metrics
    bad = json.loads(text)
    bad["metrics"]["max_load"] = 1
    v = verify_routes(bad)
    assert not v.valid and "max_load" in v.reason
    # tampered route
    bad = json.loads(text)
    bad["routes"]["0,5"] = ["+Y", "+X", "+X", "-X"]
    v = verify_routes(bad)
    assert not v.valid and "0->5" in v.reason
    # missing and surplus pairs make the table invalid, not unreadable
    bad = json.loads(text)
    del bad["routes"]["0,5"]
    assert "no route for pair 0->5" in verify_routes(bad).reason
    bad = json.loads(text)
    bad["routes"]["0,31"] = ["-X"]
    assert not verify_routes(bad).valid
    # unreadable
    for broken in ({**doc, "routes": {"0,1": ["+Q"]}}, {**doc, "torus": [4, 1]}, {k: v for k, v in doc.items()
                                                                                  if k != "routes"}):
        with pytest.raises(HopbenchError):
            verify_routes(json.loads(json.dumps(broken)))


def test_cli_route_and_verify(cli, tmp_path):
    out = tmp_path / "t.json"
    code, stdout, _ = cli("route", "--torus", "4x2x2x2", "--subset", "desmos8", "--solver", "dor", "-o", out)
    assert code == 0 and "max load" in stdout
    code, stdout, _ = cli("verify", out)
    assert code == 0 and stdout.startswith("valid")
    doc = json.loads(out.read_text())
    doc["metrics"]["sigma4"] = 0.0
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    code, stdout, _ = cli("verify", tmp_path / "bad.json")
    assert code == 1 and "sigma4" in stdout
    code, stdout, _ = cli("route", "--torus", "3x3", "--nodes", "0,4,8", "--solver", "dor", "--json")
    assert code == 0 and json.loads(stdout)["metrics"]["max_load"] >= 1


@pytest.mark.parametrize("args, message", [
    (["--torus", "4x1"], "out of range"),
    (["--torus", "9x9"], "out of range"),
    (["--torus", "4x4", "--nodes", "0,16"], "out of range"),
    (["--torus", "4x4", "--subset", "desmos99"], "unknown node subset"),
    (["--torus", "4x4", "--solver", "nope"], "unknown solver"),
])
def test_cli_bad_input_exits_2(cli, args, message):
    if "--solver" not in args:
        args = args + ["--solver", "dor"]
    code, _, err = cli("route", *args)
    assert code == 2 and message in err and err.count("\n") == 1


# --------------------------------------------------------------------------- the suite file


def test_angara2021_suite_file():
    suite = tomllib.loads((ROOT / "instances" / "angara2021.toml").read_text())
    assert suite["defaults"]["kind"] == "routing"
    insts = suite["instances"]
    groups = {g: [i for i in insts if i["group"] == g] for g in ("2D", "3D", "4D", "desmos")}
    assert len(groups["2D"]) == 49 and len(groups["3D"]) == 50 and len(groups["4D"]) == 50
    ids = [routing_instance_id({**suite["defaults"], **i}) for i in insts]
    assert len(set(ids)) == len(ids)
    assert "torus:4x2x2x2/all" in ids and "torus:4x2x2x2/desmos16" in ids
    for inst in groups["4D"] + groups["3D"]:
        p = routing_problem(inst)
        assert p.network.num_nodes <= 512
    refs = [r for i in groups["desmos"] for r in i["reference"]]
    assert {r["label"] for r in refs} == {"BFS", "Genetic", "SSSP"}
    assert all(r["source"].startswith("Mukosey") for r in refs)
    # Table 2's max D column equals the diameter of the subsets we chose
    for inst in groups["desmos"]:
        p = routing_problem(inst)
        assert {r["max_length"] for r in inst["reference"]} == {int(p.pair_distance.max())}
    assert math.isfinite(sum(r["sigma4"] for r in refs))


def test_suite_generator_is_reproducible(tmp_path, monkeypatch):
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_angara2021", ROOT / "scripts" / "make_angara2021.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import random

    first = mod.sample(4, random.Random(mod.SEED))
    assert first == mod.sample(4, random.Random(mod.SEED))
    committed = tomllib.loads((ROOT / "instances" / "angara2021.toml").read_text())
    rng = random.Random(mod.SEED)
    three, four = mod.sample(3, rng), mod.sample(4, rng)
    want = ["x".join(map(str, d)) for d in three + four]
    got = [i["torus"] for i in committed["instances"] if i["group"] in ("3D", "4D")]
    assert got == want
    assert np.all(np.array([np.prod(d) for d in four]) <= mod.MAX_NODES)


def test_verify_rejects_contradictions_and_missing_metrics():
    from hopbench import solvers
    from hopbench.harness.errors import HopbenchError
    from hopbench.harness.problems import routing
    from hopbench.harness.problems.registry import verify_document
    from hopbench.solvers.contract.execution import execute

    table = execute(solvers.create("dor"), routing.make_problem("4x2x2x2", subset="desmos8"), seed=0).solution
    doc = table.to_dict()
    assert verify_document(doc).valid
    liar = dict(doc, nodes=[0, 1], routes={"0,1": doc["routes"]["0,1"], "1,0": doc["routes"]["1,0"]})
    with pytest.raises(HopbenchError, match="subset 'desmos8'"):
        verify_document(liar)
    # a named subset claimed on a torus it is not defined on is refused too
    small = execute(solvers.create("dor"), routing.make_problem("3x3"), seed=0).solution.to_dict()
    with pytest.raises(HopbenchError, match="subset 'desmos8' is defined on"):
        verify_document(dict(small, subset="desmos8"))
    bare = dict(doc, metrics={})
    verdict = verify_document(bare)
    assert not verdict.valid and "stores no objective" in verdict.reason
