import json

import pytest

from hopbench.harness.documents import read_json
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.registry import verify_document
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution
from hopbench.harness.problems.shortcut.solution_file import solution_from_dict, solution_to_dict
from tests.conftest import GRAPHGOLF


def make_solution(spec="torus:4x4"):
    p = ShortcutProblem(parse_spec(spec), 6, 2, "golf", base_spec=spec)
    return Solution(p, [[0, 10], [5, 15]], solver="random", params={"a": 1}, seed=9, elapsed_s=0.5)


def test_round_trip():
    doc = solution_to_dict(make_solution())
    text = json.dumps(doc)
    back, stored = solution_from_dict(json.loads(text))
    assert back.shortcuts.tolist() == [[0, 10], [5, 15]]
    assert back.problem.objective == "golf" and back.seed == 9 and back.solver == "random"
    assert stored == back.evaluate().metrics()


def test_file_base_embeds_its_edges(tmp_path):
    path = tmp_path / "g.edges"
    path.write_text((GRAPHGOLF / "n72d4.edges").read_text())
    spec = f"file:{path}"
    p = ShortcutProblem(parse_spec(spec), 5, 3, base_spec=spec)
    doc = Solution(p, [[0, 2]]).to_dict()
    assert doc["base_n"] == 72 and len(doc["base_edges"]) == 144
    path.unlink()  # the solution must verify without the original file
    assert verify_document(doc).valid


def test_disconnected_metrics_are_null():
    p = ShortcutProblem(parse_spec("empty:6"), 2, 1, base_spec="empty:6")
    doc = Solution(p, [[0, 1]]).to_dict()
    assert doc["metrics"] == {"diameter": None, "aspl": None, "objective": None}
    assert verify_document(json.loads(json.dumps(doc))).valid


@pytest.mark.parametrize("mutate, fragment", [
    (lambda d: d.pop("shortcuts"), "missing field 'shortcuts'"),
    (lambda d: d["problem"].pop("budget"), "missing field 'problem.budget'"),
    (lambda d: d["problem"].__setitem__("degree_cap", "6"), "'problem.degree_cap' must be int"),
    (lambda d: d.__setitem__("shortcuts", [[0, "a"]]), "not a pair of integers"),
    (lambda d: d.__setitem__("shortcuts", {"0": 1}), "must be list"),
    (lambda d: d.__setitem__("format", "other/1"), "unsupported format"),
    (lambda d: d["metrics"].__setitem__("aspl", "low"), "'metrics.aspl' must be int or float"),
    (lambda d: d["problem"].__setitem__("base", "torus:0x4"), "at least 2"),
])
def test_malformed_documents(mutate, fragment):
    doc = solution_to_dict(make_solution())
    mutate(doc)
    with pytest.raises(HopbenchError, match=fragment):
        verify_document(doc)


def test_read_json_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(HopbenchError, match="not valid JSON"):
        read_json(bad)
    arr = tmp_path / "arr.json"
    arr.write_text("[1, 2]")
    with pytest.raises(HopbenchError, match="JSON object"):
        read_json(arr)
    with pytest.raises(HopbenchError, match="does not exist"):
        read_json(tmp_path / "missing.json")


def test_verify_detects_tampering():
    doc = solution_to_dict(make_solution())
    doc["metrics"]["aspl"] -= 0.01
    v = verify_document(doc)
    assert not v.valid and "stored aspl" in v.reason
    doc = solution_to_dict(make_solution())
    doc["shortcuts"].append([0, 1])
    v = verify_document(doc)
    assert not v.valid and "budget exceeded" in v.reason


def test_gzipped_documents_are_read(tmp_path):
    import gzip

    path = tmp_path / "sol.json.gz"
    path.write_bytes(gzip.compress(json.dumps(solution_to_dict(make_solution())).encode()))
    assert verify_document(read_json(path)).valid


def test_embedded_edges_must_be_the_named_graph():
    doc = solution_to_dict(make_solution())  # torus:4x4: no edges embedded
    from hopbench.harness.graphs.topologies import parse_spec

    complete = [[u, v] for u in range(16) for v in range(u + 1, 16)]
    doc.update(base_n=16, base_edges=complete, shortcuts=[])
    doc["problem"]["degree_cap"] = 15
    v = verify_document(doc)
    assert not v.valid and "not the graph 'torus:4x4' names" in v.reason
    doc["base_edges"] = parse_spec("torus:4x4").edges.tolist()
    doc["problem"]["degree_cap"] = 6
    doc["metrics"] = solution_to_dict(make_solution())["metrics"]
    doc["shortcuts"] = [[0, 10], [5, 15]]
    assert verify_document(doc).valid
