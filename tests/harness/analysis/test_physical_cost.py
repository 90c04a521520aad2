"""Physical cost models: the placement and cable rules of Liang et al. 2022 (Sect. 4.1) and
Koibuchi et al.'s average cable length (Sect. V-C), on any graph."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from hopbench.harness.analysis import physical_cost as pc
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec, ring


def test_adjacent_modules_are_joined_by_104_45_cm():
    model = pc.LiangCostModel()
    one = np.array([0])
    length = pc.cable_lengths(one, np.array([3]), one, np.array([4]), 1, model)
    assert length[0] == pytest.approx(1.0 + 0.04445)  # "104.45 cm, i.e., 2 x 0.5 m + 44.45 mm"


def test_cable_between_cabinets_goes_over_the_tray():
    model = pc.LiangCostModel()
    # cabinets 0 and 1 are neighbours on the grid (1 m); both modules at the top slot
    length = pc.cable_lengths(np.array([0]), np.array([0]), np.array([1]), np.array([0]), 4, model)
    assert length[0] == pytest.approx(0.5 + 1.0 + 1.0 + 1.0 + 0.5)


def test_placement_packs_42u_cabinets_with_routers_on_top():
    pl = pc.place(10, 8)  # 10 routers x 9U = 90U -> 42 + 42 + 6
    assert pl.cabinets == 3
    for c in range(pl.cabinets):
        r_slots = pl.router_slot[pl.router_cabinet == c]
        e_slots = pl.endpoint_slot[pl.endpoint_cabinet == c]
        used = np.concatenate([r_slots, e_slots])
        # every slot used once, routers first
        assert sorted(used.tolist()) == list(range(used.size)) and used.size <= 42
        if r_slots.size and e_slots.size:
            assert r_slots.max() < e_slots.min()
    # every router keeps its p endpoints, in its own or the next cabinet
    assert np.bincount(pl.endpoint_router).tolist() == [8] * 10
    assert (pl.endpoint_cabinet - pl.router_cabinet[pl.endpoint_router] <= 1).all()


def test_prices_follow_the_footnote():
    model = pc.LiangCostModel(bandwidth_gbps=1.0)
    assert model.cable_cost(np.array([2.0]))[0] == pytest.approx(0.4079 * 2 + 0.5771)  # copper
    assert model.cable_cost(np.array([8.0]))[0] == pytest.approx(0.4079 * 8 + 0.5771)  # 8 m is still copper
    assert model.cable_cost(np.array([9.0]))[0] == pytest.approx(0.0919 * 9 + 7.2745)  # fibre
    assert model.router_cost(36) == pytest.approx(350.4 * 36 - 892.3)


def test_total_is_routers_plus_cables_and_counts_add_up():
    g = parse_spec("equality:N200K24[-1,1,11,13,19,35,39,59,97,107,109,115,117,137,155,157,187,193,195](34,66,100)")
    c = pc.liang_cost(g, 12)
    assert c.router_radix == 36 and c.routers == 200 and c.endpoints == 2400
    assert c.router_links == g.m == c.router_links_copper + c.router_links_fibre
    assert c.endpoint_links_copper + c.endpoint_links_fibre == 2400
    assert c.total_cost == pytest.approx(c.router_cost + c.cable_cost)
    assert c.router_cost == pytest.approx(200 * (350.4 * 36 - 892.3))
    assert c.cost_per_endpoint == pytest.approx(c.total_cost / 2400)


def test_more_links_never_cost_less():
    base = ring(64)
    rng = np.random.default_rng(0)
    extra = rng.integers(0, 64, size=(40, 2))
    extra = extra[extra[:, 0] != extra[:, 1]]
    more = base.with_edges(extra)
    a = pc.liang_cost(base, 4, radix=10)
    b = pc.liang_cost(more, 4, radix=10)
    assert b.cable_cost > a.cable_cost and b.router_link_total_m > a.router_link_total_m


def test_koibuchi_one_cabinet_means_two_metre_cables():
    g = ring(16)  # 16 switches x 8 hosts = 128 hosts: one cabinet in both layouts
    for layout in ("distributed", "centralized"):
        k = pc.koibuchi_cable_length(g, layout=layout)
        assert k.mean_m == pytest.approx(2.0) and k.intra_cabinet == g.m


def test_koibuchi_shortcuts_lengthen_cables_and_centralising_shortens_them():
    ring_g = ring(1024)
    shortcut = parse_spec("dln:1024:6")
    d_ring = pc.koibuchi_cable_length(ring_g, layout="distributed").mean_m
    d_short = pc.koibuchi_cable_length(shortcut, layout="distributed").mean_m
    c_short = pc.koibuchi_cable_length(shortcut, layout="centralized").mean_m
    assert d_short > d_ring
    assert c_short < d_short


def test_koibuchi_distances_use_the_row_pitch_from_the_density():
    layout = pc.KoibuchiLayout()
    assert layout.row_pitch_m == pytest.approx(128 / 75 / 0.57)
    # two switches in adjacent cabinets of one row: 0.57 m + 2 m overhead
    g = Graph(32, [(0, 16)])
    assert pc.koibuchi_cable_length(g).mean_m == pytest.approx(0.57 + 2.0)
    with pytest.raises(HopbenchError, match="layout"):
        pc.koibuchi_cable_length(g, layout="ring")


def test_cli_cost_on_a_solution_file(tmp_path, cli):
    code, out, err = cli("solve", "--base", "ring:64", "--cap", "6", "--budget", "128", "--objective", "ad",
                         "--family", "equality", "--solver", "equality-ga", "--param", "generations=3",
                         "-o", tmp_path / "sol.json")
    assert code == 0, err
    code, out, err = cli("equality", "cost", tmp_path / "sol.json", "--p", "4", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["n"] == 64 and doc["links"] == 64 * 6 // 2
    assert doc["liang2022"]["router_radix"] == 10
    assert set(doc["koibuchi2012"]) == {"distributed", "centralized"}
    assert math.isfinite(doc["liang2022"]["cost_per_endpoint"])


def test_cli_cost_text_and_notation_p(cli):
    code, out, err = cli("equality", "cost", "n14k6p3[-1,1,3,9](4)")
    assert code == 0, err
    assert "p=3" in out and "per endpoint" in out
    code, out, err = cli("equality", "cost", "nonsense")
    assert code == 2 and err.startswith("error:")


def test_load_network_takes_every_form_the_cost_command_documents(tmp_path):
    """Topology spec, Equality notation or id, result JSON (plain or gzipped) and edge list, through the
    one network loader (hopbench.harness.problems.networks)."""
    import gzip

    from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution
    from hopbench.harness.problems.shortcut.solution_file import solution_to_dict

    g, p = pc.load_network("torus:4x4")
    assert g == parse_spec("torus:4x4") and p is None
    g, p = pc.load_network("equality:N14K6p3[-1,1,3,9](4)")
    assert g.n == 14 and p == 3
    g, p = pc.load_network(" N14K6[-1,1,3,9](4) ")
    assert g.n == 14 and g.max_degree == 6
    g, p = pc.load_network("E361")
    assert g.n > 0
    problem = ShortcutProblem(parse_spec("ring:8"), 3, 2, base_spec="ring:8")
    doc = solution_to_dict(Solution(problem, [[0, 4], [2, 6]]))
    (tmp_path / "s.json").write_text(json.dumps(doc))
    (tmp_path / "s.json.gz").write_bytes(gzip.compress(json.dumps(doc).encode()))
    for name in ("s.json", "s.json.gz"):
        g, p = pc.load_network(str(tmp_path / name))
        assert g == parse_spec("ring:8").with_edges([[0, 4], [2, 6]]) and p is None
    (tmp_path / "g.edges").write_text("0 1\n1 2\n")
    g, _ = pc.load_network(str(tmp_path / "g.edges"))
    assert (g.n, g.m) == (3, 2)


@pytest.mark.parametrize("text, fragment", [
    ("nonsense", "is neither a file nor a topology spec; give e.g. torus:8x8, 'N14K6[-1,1,3,9](4)', E361"),
    ("{bad}", "cannot cost format 'nope'"),
    ("{broken}", "is not a valid solution"),
])
def test_load_network_errors(tmp_path, text, fragment):
    (tmp_path / "bad.json").write_text(json.dumps({"format": "nope"}))
    doc = {"format": "hopbench.solution/1", "problem": {"base": "ring:8", "degree_cap": 3, "budget": 2},
           "shortcuts": [[0, 1]], "metrics": {"diameter": 4, "aspl": 2.0, "objective": 2.0}}
    (tmp_path / "broken.json").write_text(json.dumps(doc))  # (0, 1) is a ring edge already
    with pytest.raises(HopbenchError, match=None) as info:
        pc.load_network(text.format(bad=tmp_path / "bad.json", broken=tmp_path / "broken.json"))
    assert fragment in str(info.value)
