"""Equality networks in the graph layer: the notation, its one-line errors, the construction rule of
Sect. 3.1, the ``equality:SPEC`` topology spec, and the packaged Table 3 link sets."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs import equality as notation
from hopbench.harness.graphs.topologies import parse_spec, ring
from hopbench.harness.problems.shortcut import equality as eq
from tests.harness.equality_networks import random_network

# --------------------------------------------------------------------------- notation


def test_parse_and_format_the_papers_example():
    net = notation.parse("N14K6[-1,1,3,9](4)")
    assert (net.n, net.k, net.ahops, net.bhops, net.p) == (14, 6, (-1, 1, 3, 9), (4,), None)
    assert net.notation() == "N14K6[-1,1,3,9](4)"
    assert notation.parse(net.notation()) == net
    assert notation.parse(net) is net


@pytest.mark.parametrize("text", ["n14k6[-1, 1, 3, 9](4)", " N14 K6 [1,-1,9,3] (4) ", "n14k6p3[-1,1,3,9](4)",
                                  "n14k6p3 ahops:[-1,1,3,9] bhops:(4)", "N14K6[-1,1,13,3,9](4)".replace(",13", "")])
def test_notation_variants_parse_to_the_same_network(text):
    assert notation.parse(text).notation() == "N14K6[-1,1,3,9](4)"


def test_p_and_short_notation():
    net = notation.parse("n14k6p3[-1,1,3,9](4)")
    assert net.p == 3 and net.short() == "n14k6p3"
    assert notation.parse_config("N2048K28P8") == notation.EqualityConfig(2048, 28, 8)
    assert notation.parse_config("n2048k28") == notation.EqualityConfig(2048, 28, None)
    assert notation.parse("N16K3[-1,1](8)").k == 3  # the diameter link N/2 adds one port
    assert notation.radix(16, (-1, 1), (8,)) == 3


def test_value_n_minus_1_is_the_ring_link_minus_1():
    assert notation.parse("N14K6[13,1,3,9](4)").notation() == "N14K6[-1,1,3,9](4)"


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
        notation.parse(text)
    message = str(info.value)
    assert words in message and "\n" not in message
    with pytest.raises(HopbenchError) as again:  # the problem layer's parse says the same
        eq.parse(text)
    assert str(again.value) == message


# --------------------------------------------------------------------------- construction


def test_construction_rule_of_sect_3_1():
    net = notation.parse("N14K6[-1,1,3,9](4)")
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


def test_topology_spec_builds_the_network():
    g = parse_spec("equality:N14K6[-1,1,3,9](4)")
    assert g == notation.parse("N14K6[-1,1,3,9](4)").graph()
    assert parse_spec("equality:E369").n == 200


# --------------------------------------------------------------------------- Table 3 link sets


def test_published_links_by_id():
    links = notation.parse("e369")
    assert links == notation.published_links("E369") and (links.n, links.k) == (200, 24)
    assert len(notation.published_networks()) == 27 and notation.published("E361")["N"] == 2048
    with pytest.raises(HopbenchError, match="unknown published Equality network 'E999'"):
        notation.parse("E999")


def test_table_3_transcription_keeps_every_printed_digit():
    doc = json.loads(Path(notation.__file__).with_name("equality2022.json").read_text())
    for row in doc["networks"]:
        text = row["table3"]["text"]
        ahops = text.split("ahops:[", 1)[1].split("]", 1)[0]
        bhops = text.split("bhops:(", 1)[1].split(")", 1)[0]
        assert "".join(c for c in ahops if c.isdigit() or c == "-") == "".join(map(str, row["table3"]["ahops"]))
        assert "".join(c for c in bhops if c.isdigit()) == "".join(map(str, row["table3"]["bhops"]))
