"""Hostile and careless result documents (issue 15): every file read goes through hopbench.harness.inputs, every
declared size is checked against the caps before it is built, every failure is one HopbenchError line."""
from __future__ import annotations

import gzip
import json
import os
import re
import tracemalloc

import pytest

from hopbench.harness.documents import read_json
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems import networks
from hopbench.harness.problems.registry import verify_document
from hopbench.harness.problems.routing import make_problem
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution
from hopbench.harness.problems.shortcut.solution_file import problem_from_dict, solution_to_dict

SMALL = 32 * 2**20


def refused(call, *args, match: str) -> str:
    """``call(*args)`` raises a one-line HopbenchError matching ``match``, with a small peak allocation."""
    tracemalloc.start()
    try:
        with pytest.raises(HopbenchError, match=match) as info:
            call(*args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "\n" not in str(info.value), str(info.value)
    assert peak < SMALL, f"{peak / 2**20:.0f} MiB allocated before the refusal"
    return str(info.value)


def solution_doc(spec: str = "torus:4x4", shortcuts=((0, 10), (5, 15))) -> dict:
    problem = ShortcutProblem(parse_spec(spec), 6, 2, "aspl", base_spec=spec)
    return solution_to_dict(Solution(problem, [list(s) for s in shortcuts], solver="random", seed=1))


def written(tmp_path, name: str, data: str | bytes):
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


# ------------------------------------------------------------------------------------- reading JSON files


def test_json_nested_100000_deep_is_one_line_error(tmp_path):
    for text in ("[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000, "[" * 100_000):
        path = written(tmp_path, "deep.json", text)
        refused(read_json, path, match="HOPBENCH_MAX_NESTING")


def test_recursion_error_is_caught_should_the_nesting_check_miss(tmp_path, monkeypatch):
    from hopbench.harness import documents

    monkeypatch.setattr(documents.inputs, "check_nesting", lambda text, what: None)
    path = written(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    refused(read_json, path, match="nests too deeply")


def test_a_damaged_deflate_stream_is_one_line_error(tmp_path):
    raw = bytearray(gzip.compress(json.dumps(solution_doc()).encode()))
    for i in range(10, 20):
        raw[i] = 0xFF  # the deflate body starts at byte 10: an invalid block type
    refused(read_json, written(tmp_path, "sol.json.gz", bytes(raw)), match="corrupt gzip stream")
    whole = gzip.compress(json.dumps(solution_doc()).encode())
    refused(read_json, written(tmp_path, "cut.json.gz", whole[: len(whole) // 2]), match="truncated gzip")
    assert read_json(written(tmp_path, "ok.json.gz", whole))["format"] == "hopbench.solution/1"


def test_a_json_gzip_bomb_stops_at_the_cap(tmp_path, monkeypatch):
    monkeypatch.setenv("HOPBENCH_MAX_INPUT_BYTES", "100000")
    bomb = written(tmp_path, "bomb.json.gz", gzip.compress(b'{"a": "' + b"0" * 10_000_000 + b'"}'))
    refused(read_json, bomb, match="decompressed.*HOPBENCH_MAX_INPUT_BYTES")


@pytest.mark.parametrize("make, fragment", [
    (lambda tmp: "/dev/zero", "not a regular file"),
    (lambda tmp: tmp, "is a directory"),
    (lambda tmp: tmp / "absent.json", "does not exist"),
    (lambda tmp: written(tmp, "latin1.json", b'{"a": "\xe9"}'), "not UTF-8"),
    (lambda tmp: written(tmp, "big.json", '{"a": ' + "9" * 5000 + "}"), "not valid JSON"),
    (lambda tmp: written(tmp, "list.json", "[1, 2]"), "JSON object"),
    (lambda tmp: written(tmp, "bad.json", "{not json"), "not valid JSON"),
])
def test_unreadable_json_files(tmp_path, make, fragment):
    refused(read_json, make(tmp_path), match=fragment)


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    refused(read_json, fifo, match="not a regular file")


# ------------------------------------------------------------------------------------- declared sizes


def test_base_n_of_two_million_in_a_small_file_is_refused_at_once(tmp_path):
    doc = {"format": "hopbench.solution/1",
           "problem": {"base": "file:g.edges", "degree_cap": 3, "budget": 1, "objective": "aspl", "family": None},
           "base_n": 2_000_000, "base_edges": [[0, 1], [1, 2]], "shortcuts": [[0, 2]],
           "metrics": {"diameter": 1, "aspl": 1, "objective": 1}}
    path = written(tmp_path, "sol.json", json.dumps(doc))
    assert path.stat().st_size < 400  # the 362-byte file
    message = refused(lambda p: verify_document(read_json(p)), path, match="field 'base_n' is 2,000,000")
    assert "HOPBENCH_MAX_VERTICES" in message


@pytest.mark.parametrize("mutate, fragment", [
    (lambda d: d["problem"].__setitem__("base", "ring:100000000000"), "HOPBENCH_MAX_VERTICES"),
    (lambda d: d["problem"].__setitem__("base", "torus:" + "x".join(["2"] * 24)), "HOPBENCH_MAX_DIMENSIONS"),
    (lambda d: d["problem"].__setitem__("base", "hypercube:40"), "HOPBENCH_MAX_DIMENSIONS"),
    (lambda d: d["problem"].__setitem__("base", "equality:N1000000000000K4[-1,1](2)"), "number of routers"),
    (lambda d: d["problem"].__setitem__("base", "file:/dev/zero"), "not a regular file"),
    (lambda d: d.update(base_n=10**12, base_edges=[[0, 1]]), "'base_n'"),
    (lambda d: d.update(base_n=-3, base_edges=[[0, 1]]), "at least one vertex"),
    (lambda d: d.update(base_n=4.5, base_edges=[[0, 1]]), "'base_n' must be int"),
    (lambda d: d.__setitem__("shortcuts", [[0, 10**12]]), "out of range"),
    (lambda d: d.__setitem__("shortcuts", [[0, 10**30]]), "does not fit in 64 bits"),
])
def test_declared_sizes_in_a_solution_document(mutate, fragment):
    doc = solution_doc()
    mutate(doc)
    try:
        verdict = verify_document(json.loads(json.dumps(doc)))
    except HopbenchError as exc:
        assert "\n" not in str(exc)
        assert re.search(fragment, str(exc)), str(exc)
    else:
        assert not verdict.valid and re.search(fragment, verdict.reason), verdict.reason


def test_edge_arrays_longer_than_the_cap_are_refused_before_conversion(monkeypatch):
    monkeypatch.setenv("HOPBENCH_MAX_EDGES", "100")
    doc = solution_doc()
    doc["shortcuts"] = [[0, 10]] * 101
    refused(verify_document, doc, match="field 'shortcuts': the number of pairs is 101")
    doc = solution_doc()
    doc.update(base_n=16, base_edges=[[0, 1]] * 101)
    refused(problem_from_dict, doc, match="field 'base_edges': the number of pairs is 101")


def test_raising_the_vertex_variable_admits_a_declared_size(monkeypatch):
    doc = solution_doc()
    doc.update(base_n=400, base_edges=[[i, i + 1] for i in range(399)])
    doc["problem"]["base"] = "file:path.edges"
    monkeypatch.setenv("HOPBENCH_MAX_VERTICES", "300")
    refused(problem_from_dict, doc, match="above the cap of 300")
    monkeypatch.setenv("HOPBENCH_MAX_VERTICES", "400")
    assert problem_from_dict(doc).n == 400


def test_a_routing_node_range_is_checked_before_it_is_expanded():
    with pytest.raises(HopbenchError, match="node 1000000000000 is out of range"):
        make_problem("4x4", nodes="0-1000000000000")
    tracemalloc.start()
    try:
        with pytest.raises(HopbenchError, match="out of range"):
            make_problem("4x4", nodes="0-" + "9" * 40)
        assert tracemalloc.get_traced_memory()[1] < SMALL
    finally:
        tracemalloc.stop()
    assert make_problem("4x4", nodes="0-3").nodes == (0, 1, 2, 3)


def test_a_routing_document_with_a_huge_torus_is_refused():
    doc = {"format": "hopbench.routes/1", "torus": [10**12, 10**12], "routes": {}}
    refused(verify_document, doc, match="out of range")


@pytest.mark.parametrize("make, fragment", [
    (lambda tmp: "/dev/zero", "not a regular file"),
    (lambda tmp: str(tmp), "is a directory"),
    (lambda tmp: "ring:100000000000", "HOPBENCH_MAX_VERTICES"),
    (lambda tmp: "N1000000000000K4[-1,1](2)", "HOPBENCH_MAX_VERTICES"),
])
def test_every_network_form_is_capped(tmp_path, make, fragment):
    refused(networks.load_network, make(tmp_path), match=fragment)
