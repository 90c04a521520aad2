"""Equality networks: notation, construction rules, the fast evaluator against the distance
engine, B_r against brute force, and the reproduction of Table 2 from Table 3."""
from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

from harness.engine.distances import bfs_distances, summary
from harness.errors import HopbenchError
from harness.graphs.graph import Graph
from harness.graphs.topologies import parse_spec, ring
from harness.problems.shortcut import equality as eq
from harness.problems.shortcut.problem import ShortcutProblem

ROOT = Path(__file__).resolve().parents[4]


def random_network(rng: np.random.Generator, n: int | None = None) -> eq.EqualityNetwork:
    n = n if n is not None else int(rng.integers(2, 160)) * 2
    odds = list(range(3, n - 2, 2))
    evens = list(range(2, n // 2 + 1, 2))
    a = rng.choice(odds, int(rng.integers(0, min(len(odds), 6) + 1)), replace=False).tolist() if odds else []
    b = rng.choice(evens, int(rng.integers(0, min(len(evens), 3) + 1)), replace=False).tolist() if evens else []
    return eq.EqualityNetwork(n, [-1, 1, *a], b)


# --------------------------------------------------------------------------- notation


def test_parse_and_format_the_papers_example():
    net = eq.parse("N14K6[-1,1,3,9](4)")
    assert (net.n, net.k, net.ahops, net.bhops, net.p) == (14, 6, (-1, 1, 3, 9), (4,), None)
    assert net.notation() == "N14K6[-1,1,3,9](4)"
    assert eq.parse(net.notation()) == net


@pytest.mark.parametrize("text", ["n14k6[-1, 1, 3, 9](4)", " N14 K6 [1,-1,9,3] (4) ", "n14k6p3[-1,1,3,9](4)",
                                  "n14k6p3 ahops:[-1,1,3,9] bhops:(4)", "N14K6[-1,1,13,3,9](4)".replace(",13", "")])
def test_notation_variants_parse_to_the_same_network(text):
    assert eq.parse(text).notation() == "N14K6[-1,1,3,9](4)"


def test_p_and_short_notation():
    net = eq.parse("n14k6p3[-1,1,3,9](4)")
    assert net.p == 3 and net.short() == "n14k6p3"
    assert eq.parse_config("N2048K28P8") == eq.EqualityConfig(2048, 28, 8)
    assert eq.parse_config("n2048k28") == eq.EqualityConfig(2048, 28, None)
    assert eq.parse("N16K3[-1,1](8)").k == 3  # the diameter link N/2 adds one port


def test_value_n_minus_1_is_the_ring_link_minus_1():
    assert eq.parse("N14K6[13,1,3,9](4)").notation() == "N14K6[-1,1,3,9](4)"


@pytest.mark.parametrize("text, words", [
    ("N15K6[-1,1,3,9](4)", "odd"),
    ("N14K6[-1,1,4,9](4)", "even"),
    ("N14K6[-1,1,3,15](4)", ">= N"),
    ("N14K7[-1,1,3,9](4)", "K=7 does not match"),
    ("N14K6[-1,3,9,11](4)", "ring"),
    ("N14K5[-1,1,3,9](5)", "odd"),
    ("N14K6[-1,1,3,9](10)", "above N/2"),
    ("N14K6[-1,1,3,3](4)", "twice"),
    ("N14K6[-1,1,3,x](4)", "integers"),
    ("n2048k28p8", "class of networks"),
    ("hello", "not a detailed Equality notation"),
])
def test_bad_notations_give_one_line_errors(text, words):
    with pytest.raises(HopbenchError) as info:
        eq.parse(text)
    message = str(info.value)
    assert words in message and "\n" not in message


def test_bad_notation_on_the_command_line(cli):
    code, out, err = cli("equality", "evaluate", "N15K6[-1,1,3,9](4)")
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "even" in err


# --------------------------------------------------------------------------- construction


def test_construction_rule_of_sect_3_1():
    net = eq.parse("N14K6[-1,1,3,9](4)")
    g = net.graph()
    n = 14
    for i in range(n):
        sign = 1 if i % 2 == 0 else -1
        for s in (n - 1, 1, 3, 9):
            assert g.has_edge(i, (i + sign * s) % n)
        assert g.has_edge(i, (i + 4) % n) and g.has_edge(i, (i - 4) % n)
    assert g.m == n * 6 // 2 and set(g.degree.tolist()) == {6}


@pytest.mark.parametrize("seed", range(40))
def test_graph_is_k_regular_and_shortcuts_fill_the_budget(seed):
    net = random_network(np.random.default_rng(seed))
    g = net.graph()
    assert set(g.degree.tolist()) == {net.k}
    assert g.m == net.n * net.k // 2
    assert len(net.shortcuts()) == net.n * (net.k - 2) // 2
    assert ring(net.n).with_edges(net.shortcuts()) == g
    assert eq.from_shortcuts(net.n, net.shortcuts()) == net


def test_topology_spec_builds_the_network():
    g = parse_spec("equality:N14K6[-1,1,3,9](4)")
    assert g == eq.parse("N14K6[-1,1,3,9](4)").graph()
    assert parse_spec("equality:E369").n == 200


# --------------------------------------------------------------------------- evaluation


@pytest.mark.parametrize("seed", range(60))
def test_one_bfs_matches_the_all_pairs_engine(seed):
    net = random_network(np.random.default_rng(100 + seed))
    m = net.metrics()
    s = summary(net.graph())
    assert m.connected == s.connected
    if s.connected:
        assert m.diameter == s.diameter
        assert m.total * net.n == 2 * s.total  # the same distance sum seen from every router
        assert math.isclose(m.aspl, s.aspl, rel_tol=1e-12)


@pytest.mark.parametrize("n", [4, 6, 126, 128, 130, 254, 256, 258])
def test_bitset_edges_around_word_boundaries(n):
    rng = np.random.default_rng(n)
    for _ in range(5):
        net = random_network(rng, n)
        m = net.metrics()
        d0 = bfs_distances(net.graph(), 0)
        ref = eq.reference_distances(net)
        assert np.array_equal(d0, ref)
        assert np.array_equal(eq.distances(n, net.odd_values, net.bhops), ref)
        if (d0 >= 0).all():
            assert m.diameter == d0.max() and m.total == d0.sum()
            assert list(m.levels) == np.bincount(d0).tolist()


def test_disconnected_network_is_reported_as_such():
    net = eq.EqualityNetwork(16, [-1, 1], [])  # the ring alone is connected ...
    assert net.metrics().diameter == 8
    odd_only = eq.EqualityNetwork(8, [-1, 1, 3, 5], [])  # ... and so is everything with the ring
    assert odd_only.metrics().connected


def test_even_and_odd_routers_see_the_same_distances():
    net = eq.parse("N30K7[-1,1,7,11,19](6)")
    g = net.graph()
    d0 = bfs_distances(g, 0)
    for i in (1, 2, 7, 12):
        di = bfs_distances(g, i)
        # Eq. 2: even i sees j - i, odd i sees i - j
        j = np.arange(net.n)
        rel = (j - i) % net.n if i % 2 == 0 else (i - j) % net.n
        assert np.array_equal(di, d0[rel])


# --------------------------------------------------------------------------- B_r and MB%


@pytest.mark.parametrize("seed", range(30))
def test_semicircle_cuts_against_brute_force(seed):
    net = random_network(np.random.default_rng(300 + seed))
    g = net.graph()
    n, h = g.n, g.n // 2
    brute = []
    for i in range(n):
        inside = np.zeros(n, bool)
        inside[np.arange(i, i + h) % n] = True
        brute.append(int((inside[g.edges[:, 0]] != inside[g.edges[:, 1]]).sum()))
    assert eq.semicircle_cuts(g).tolist() == brute
    assert net.bisection_cut() == min(brute)
    assert math.isclose(net.bisection_ratio(), eq.bisection_ratio(g))


def test_bisection_ratio_of_e804_is_the_published_0_542():
    # Table 3 prints "(Br 0.542)" next to E804
    assert round(eq.published_network("E804").bisection_ratio(), 3) == 0.542


def test_moore_ratio_matches_table_2():
    assert round(eq.moore_ratio(2048, 28, 3), 2) == 9.66
    assert eq.moore_bound(24, 2) == 577


# --------------------------------------------------------------------------- Table 2


def test_table_2_is_reproduced_except_the_three_errata():
    rows = eq.reproduce_published()
    assert len(rows) == 27
    matched = {r["id"] for r in rows if r["matches"]}
    flagged = {r["id"] for r in rows if r["reproducible"] is False}
    assert flagged == {"E362", "E443", "E807"}
    assert len(matched) == 24 and not matched & flagged
    for r in rows:
        if r["matches"]:
            assert r["d_ours"] == r["d"] and r["K_ours"] == r["K"]
            assert abs(r["a_ours"] - r["a"]) < 0.01
            assert eq._agrees(r["MB_percent_ours"], repr(r["MB_percent"]))  # printed to 2-3 digits
        else:
            assert r["reason"] and r["erratum"]


def test_e362_link_sets_give_a_3_519_not_3_45():
    m = eq.published_network("E362").metrics()
    assert (round(m.aspl, 3), m.diameter) == (3.519, 5)


def test_printed_a_agrees_by_rounding_or_truncation():
    assert eq._agrees(2.71666, "2.717") and eq._agrees(3.71872, "3.71") and not eq._agrees(3.5194, "3.45")


def test_suite_file_and_data_file_agree():
    data = {r["id"]: r for r in eq.published_networks()}
    suite = tomllib.loads((ROOT / "instances" / "equality2022.toml").read_text())
    assert len(suite["published"]) == 27
    for row in suite["published"]:
        d = data[row["label"]]
        assert (row["N"], row["K"], row["p"], row["d"], row["a"], row["reproducible"]) == \
               (d["N"], d["K"], d["p"], d["d"], d["a"], d["reproducible"])
        assert row["ahops"] == d["table3"]["ahops"] and row["bhops"] == d["table3"]["bhops"]
    labels = [i["reference"][0]["label"] for i in suite["instances"]]
    assert labels == ["E369", "E487", "E808", "E441", "E442", "E443", "E361", "E801", "E481"]
    for inst in suite["instances"]:
        d = data[inst["reference"][0]["label"]]
        n, k = d["N"], d["K"]
        assert inst["base"] == f"ring:{n}" and inst["cap"] == k and inst["budget"] == n * (k - 2) // 2
        if d["reproducible"]:
            assert inst["best_known"] == pytest.approx(eq.published_network(d["id"]).metrics().ad)
        ShortcutProblem(parse_spec(inst["base"]), inst["cap"], inst["budget"], "ad", "equality")


def test_table_3_transcription_keeps_every_printed_digit():
    doc = json.loads((ROOT / "harness" / "problems" / "shortcut" / "equality2022.json").read_text())
    for row in doc["networks"]:
        text = row["table3"]["text"]
        ahops = text.split("ahops:[", 1)[1].split("]", 1)[0]
        bhops = text.split("bhops:(", 1)[1].split(")", 1)[0]
        assert "".join(c for c in ahops if c.isdigit() or c == "-") == "".join(map(str, row["table3"]["ahops"]))
        assert "".join(c for c in bhops if c.isdigit()) == "".join(map(str, row["table3"]["bhops"]))


# --------------------------------------------------------------------------- problem family


def test_family_problem_rules():
    ok = ShortcutProblem(ring(14), 6, 28, "ad", "equality")
    assert ok.budget == 14 * 4 // 2
    with pytest.raises(HopbenchError, match="budget N\\(K-2\\)/2 = 28"):
        ShortcutProblem(ring(14), 6, 27, "ad", "equality")
    with pytest.raises(HopbenchError, match="even"):
        ShortcutProblem(ring(15), 6, 30, "ad", "equality")
    with pytest.raises(HopbenchError, match="ring:16"):
        ShortcutProblem(parse_spec("dln:16:3"), 6, 32, "ad", "equality")
    relabelled = Graph(14, [(i, (i + 3) % 14) for i in range(14)])  # a 14-cycle, but not 0-1-2-...
    with pytest.raises(HopbenchError, match="ring:14"):
        ShortcutProblem(relabelled, 6, 28, "ad", "equality")


def test_family_solution_validates_like_any_other():
    net = eq.parse("N14K6[-1,1,3,9](4)")
    problem = ShortcutProblem(ring(14), 6, 28, "ad", "equality")
    ev = problem.evaluate(net.shortcuts())
    m = net.metrics()
    assert ev.diameter == m.diameter and math.isclose(ev.objective, m.ad)


# --------------------------------------------------------------------------- CLI


def test_cli_evaluate_json(cli):
    code, out, err = cli("equality", "evaluate", "n14k6[-1,1,3,9](4)", "--p", "3", "--json", "--check")
    assert code == 0, err
    doc = json.loads(out)
    for key in ("N", "K", "a", "d", "ad", "B_r", "MB_percent"):
        assert key in doc
    assert doc["K"] == 6 and doc["d"] == 2 and doc["check"]["agrees"] and doc["p"] == 3


def test_cli_published(cli):
    code, out, err = cli("equality", "published")
    assert code == 0, err
    assert "24 of 27 rows reproduced" in out and out.count("ERRATUM") == 3
