"""Hostile and careless graph input (issue 15): sizes are checked against the caps before anything of
that size is allocated, and every unreadable file is one HopbenchError.

Each refusal is also measured: it must come with a small peak of traced allocations (numpy reports
its arrays to tracemalloc), which would not hold had the graph been built first.
"""
from __future__ import annotations

import gzip
import os
import tracemalloc
import zlib

import numpy as np
import pytest

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs import equality
from hopbench.harness.graphs.edge_list import pairs_from_json, read_edge_file
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec

#: what a refusal may allocate: far below any graph it refuses
SMALL = 32 * 2**20


def refused(call, *args, match: str, peak_below: int = SMALL) -> str:
    """Run ``call(*args)``, expect a one-line HopbenchError matching ``match`` and a small peak allocation."""
    tracemalloc.start()
    try:
        with pytest.raises(HopbenchError, match=match) as info:
            call(*args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert "\n" not in message, message
    assert peak < peak_below, f"{peak / 2**20:.0f} MiB allocated before the refusal"
    return message


def write(tmp_path, name: str, content: str | bytes):
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


# ------------------------------------------------------------------------------------- edge lists


@pytest.mark.parametrize("content, fragment", [
    ("0 1\n1 2\n2 1000000000\n", "HOPBENCH_MAX_VERTICES"),          # 7 GiB of arrays before the fix
    ("0 1\n1 2\n2 1000000000000\n", "HOPBENCH_MAX_VERTICES"),       # 7 TiB
    ("p edge 1000000000000 1\ne 1 2\n", "declared vertex count"),
    ("p edge 10 1000000000000\ne 1 2\n", "declared edge count"),
    ("e 1 1000000000001\n", "count this id implies is 1,000,000,000,001"),
    ("0 " + "9" * 4000 + "\n", "count this id implies is about 10\\^3999"),
    ("0 " + "9" * 5000 + "\n", "expected two vertex ids"),          # too many digits for int()
    ("p edge\n", "expected a header"),
    ("p edge x 3\n", "expected a header"),
])
def test_sizes_in_an_edge_file_are_capped_before_allocation(tmp_path, content, fragment):
    path = write(tmp_path, "g.edges", content)
    message = refused(read_edge_file, path, match=fragment)
    assert str(path) in message


def test_the_refusal_names_the_line(tmp_path):
    path = write(tmp_path, "g.edges", "0 1\n1 2\n2 1000000000\n")
    assert f"{path}:3:" in refused(read_edge_file, path, match="above the cap")


def test_more_edges_than_the_cap_are_refused_while_reading(tmp_path, monkeypatch):
    monkeypatch.setenv("HOPBENCH_MAX_EDGES", "10")
    path = write(tmp_path, "g.edges", "".join(f"{i} {i + 1}\n" for i in range(11)))
    refused(read_edge_file, path, match="HOPBENCH_MAX_EDGES")
    monkeypatch.setenv("HOPBENCH_MAX_EDGES", "11")
    assert read_edge_file(path).m == 11


def test_unreadable_edge_files_are_one_line_errors(tmp_path):
    fifo = tmp_path / "pipe.edges"
    os.mkfifo(fifo)  # opening it would block forever
    cases = [
        ("/dev/zero", "not a regular file"),
        (fifo, "not a regular file"),
        (tmp_path, "is a directory"),
        (tmp_path / "absent.edges", "does not exist"),
        (write(tmp_path, "latin.edges", b"0 1\n\xff\xfe 2\n"), "not UTF-8"),
        (write(tmp_path, "cut.edges.gz", gzip.compress(b"0 1\n1 2\n" * 100)[:-30]), "truncated gzip"),
        (write(tmp_path, "bad.edges.gz", _corrupt_gzip(b"0 1\n1 2\n" * 100)), "corrupt gzip"),
        (tmp_path / "bad\0name", "not a valid path"),
    ]
    for path, fragment in cases:
        refused(read_edge_file, path, match=fragment)
        refused(parse_spec, f"file:{path}", match=fragment)


def _corrupt_gzip(data: bytes) -> bytes:
    """A gzip member whose deflate body is damaged (zlib.error when inflated)."""
    raw = bytearray(gzip.compress(data))
    for i in range(10, 20):
        raw[i] = 0xFF  # the first block header becomes an invalid block type
    with pytest.raises(zlib.error):
        zlib.decompress(bytes(raw), 16 + zlib.MAX_WBITS)
    return bytes(raw)


def test_a_gzip_bomb_is_refused_at_the_decompression_cap(tmp_path):
    # 100 MB of edge lines in ~300 KB: above the default 64 MiB cap on decompressed input
    bomb = write(tmp_path, "bomb.edges.gz", gzip.compress(b"0 1\n" * 25_000_000, compresslevel=1))
    assert bomb.stat().st_size < 1_000_000
    # decompression stops at the cap: a few times the cap at most, not the bomb's 100 MB (or 2.2 GB)
    refused(read_edge_file, bomb, match="HOPBENCH_MAX_INPUT_BYTES", peak_below=3 * caps.INPUT_BYTES.limit())


def test_a_gzipped_edge_list_within_the_caps_is_read(tmp_path):
    path = write(tmp_path, "g.edges.gz", gzip.compress(b"0 1\n1 2\n2 0\n"))
    assert read_edge_file(path) == parse_spec("ring:3")


def test_a_graph_golf_pair_of_100000_vertices_and_degree_8_is_admitted_by_default(tmp_path):
    n = 100_000
    i = np.arange(n)
    edges = np.concatenate([np.stack([i, (i + s) % n], axis=1) for s in (1, 7, 1000, 33333)])
    path = tmp_path / "n100000d8.edges"
    path.write_text("".join(f"{u} {v}\n" for u, v in edges.tolist()))
    g = read_edge_file(path)
    assert (g.n, g.m, g.max_degree) == (100_000, 400_000, 8)


def test_raising_the_variable_admits_a_bigger_graph(tmp_path, monkeypatch):
    path = write(tmp_path, "g.edges", "0 1\n1 2\n2 60\n")
    monkeypatch.setenv("HOPBENCH_MAX_VERTICES", "50")
    refused(read_edge_file, path, match="61, above the cap of 50")
    refused(parse_spec, "ring:51", match="HOPBENCH_MAX_VERTICES=N")
    monkeypatch.setenv("HOPBENCH_MAX_VERTICES", "100")
    assert read_edge_file(path).n == 61 and parse_spec("ring:51").n == 51


# ------------------------------------------------------------------------------------- topology specs


@pytest.mark.parametrize("spec, fragment", [
    ("ring:100000000000", "ring:100000000000: the vertex count is 100,000,000,000"),
    ("dln:100000000000:5", "vertex count"),
    ("dln:1000:1000000000000", None),  # many chords asked, only log2(N) exist: admitted
    ("empty:1e10", "must be an integer"),
    ("empty:10000000000", "vertex count"),
    ("hypercube:40", "HOPBENCH_MAX_DIMENSIONS"),
    ("hypercube:1000000000000", "number of dimensions"),  # 2**(10**12) is never computed
    ("fhypercube:40", "HOPBENCH_MAX_DIMENSIONS"),
    ("thypercube:40", "HOPBENCH_MAX_DIMENSIONS"),
    ("torus:" + "x".join(["2"] * 24), "number of dimensions is 24"),
    ("mesh:" + "x".join(["2"] * 24), "number of dimensions is 24"),
    ("torus:" + "x".join(["2"] * 1_000_000), "number of dimensions is 1,000,000"),
    ("torus:100000x100000", "vertex count"),
    ("mesh:1000x1000x1000", "vertex count"),
    ("torus:4x" + "9" * 5000, "must be an integer"),
    ("torus:" + "9" * 4000 + "x" + "9" * 4000, "4000 digits"),  # no 8000-digit product is formed
    ("ring:" + "9" * 4000, "4000 digits"),
    ("flatbutterfly:" + "9" * 4000 + ":3", "4000 digits"),
    ("flatbutterfly:1000:8", "vertex count"),
    ("flatbutterfly:2:1000000", "number of dimensions"),
    ("flatbutterfly:400:3", "edge count"),  # 160,000 routers of degree 798
    ("hring:100000x100000", "vertex count"),
    ("fattree:1000", "fattree:1000: the vertex count is 1,250,000"),
    ("fattree:400", "edge count"),  # 200,000 switches but 32 million links
    ("fattree:" + "9" * 4000, "4000 digits"),
    ("dragonfly:1000:1:1000", "vertex count"),
    ("dragonfly:400:1:1", "edge count"),  # 401 groups of 400 fully connected routers
    ("dragonfly:1000", "dragonfly:1000: the vertex count"),  # the shorthand is named as written
    ("slimfly:999999999999999989", "vertex count"),  # refused before any primality test on an 18-digit q
    ("slimfly:149", "edge count"),
    ("equality:N1000000000000K4[-1,1](2)", "N, the number of routers, is 1,000,000,000,000"),
    ("file:/dev/zero", "not a regular file"),
])
def test_topology_sizes_are_computed_and_capped_before_building(spec, fragment):
    if fragment is None:
        assert parse_spec(spec).n == 1000
    else:
        refused(parse_spec, spec, match=fragment)


def test_torus_and_hypercube_caps_follow_their_variables(monkeypatch):
    monkeypatch.setenv("HOPBENCH_MAX_DIMENSIONS", "3")
    refused(parse_spec, "torus:2x2x2x2", match="above the cap of 3")
    refused(parse_spec, "hypercube:4", match="above the cap of 3")
    assert parse_spec("torus:2x3x4").n == 24
    monkeypatch.setenv("HOPBENCH_MAX_DIMENSIONS", "4")
    assert parse_spec("hypercube:4").n == 16


# ------------------------------------------------------------------------------------- Equality notation


@pytest.mark.parametrize("text, fragment", [
    ("N1000000000000K4[-1,1](2)", "above the cap"),
    ("N" + "9" * 5000 + "K4[-1,1](2)", "N has 5000 digits"),
    ("N14K" + "9" * 5000 + "[-1,1]", "K has 5000 digits"),
    ("N14K6[-1,1," + "9" * 5000 + "](4)", "ahops value has 5000 digits"),
    ("N14K6[-1,1,3,9](" + "4" * 30 + ")", "bhops value has 30 digits"),
])
def test_equality_numbers_are_capped(text, fragment):
    refused(equality.parse, text, match=fragment)


def test_equality_short_notation_and_direct_construction_are_capped():
    refused(equality.parse_config, "n1000000000000k28p8", match="HOPBENCH_MAX_VERTICES")
    refused(equality.EqualityLinks, 10**12, [-1, 1], [2], match="HOPBENCH_MAX_VERTICES")


def test_equality_links_count_against_the_edge_cap(monkeypatch):
    monkeypatch.setenv("HOPBENCH_MAX_EDGES", "20")
    refused(equality.parse, "N14K6[-1,1,3,9](4)", match="number of links N\\*K/2 is 42")
    monkeypatch.setenv("HOPBENCH_MAX_EDGES", "42")
    assert equality.parse("N14K6[-1,1,3,9](4)").graph().m == 42


def test_an_equality_error_quotes_the_notation_on_one_line():
    message = refused(equality.parse, "N14K6[-1,1,\n3,9](4,4)", match="bhops lists 4 twice")
    assert "\n" not in message


# ------------------------------------------------------------------------------------- the last line of defence


def test_graph_constructor_checks_vertices_and_edges(monkeypatch):
    refused(Graph, 10**12, match="graph's vertex count")
    monkeypatch.setenv("HOPBENCH_MAX_EDGES", "3")
    refused(Graph, 10, [(0, 1), (1, 2), (2, 3), (3, 4)], match="graph's edge count is 4")
    # repeats merge before the count: 4 rows, 3 edges
    assert Graph(10, [(0, 1), (1, 0), (1, 2), (2, 3)]).m == 3


def test_pairs_from_json_counts_before_converting(monkeypatch):
    monkeypatch.setenv("HOPBENCH_MAX_EDGES", "5")
    refused(pairs_from_json, [[0, 1]] * 6, "shortcuts", match="field 'shortcuts': the number of pairs is 6")
    assert pairs_from_json([[0, 1]] * 5, "shortcuts").shape == (5, 2)


def test_every_cap_default_is_what_the_issue_asks():
    assert caps.VERTICES.limit() >= 100_000 and caps.EDGES.limit() >= 400_000  # Graph Golf n = 100,000, d = 8
