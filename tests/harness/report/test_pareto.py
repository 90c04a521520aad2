"""The Pareto view (:mod:`hopbench.harness.report.pareto`, ``hopbench pareto``): dominance, fronts, measures recomputed
from the stored solutions, and the command's outputs and refusals."""
from __future__ import annotations

import json
import math
import re

import pandas as pd
import pytest

from hopbench.harness.bench.store import Store, cell_key
from hopbench.harness.errors import HopbenchError
from hopbench.harness.report.pareto import dominates, front_mask, pareto_points, write_pareto

SUITE = "pareto-test"


def record(store: Store, base: str, cap: int, budget: int, solver: str, seed: int, shortcuts: list) -> None:
    from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution

    problem = ShortcutProblem(base, cap, budget)
    doc = Solution(problem, shortcuts).to_dict()
    inst = f"{base}/cap{cap}/b{budget}/aspl"
    store.record({"cell_key": cell_key(SUITE, inst, solver, {}, seed, 10.0), "suite": SUITE, "instance": inst,
                  "instance_spec": {"base": base, "cap": cap, "budget": budget}, "kind": "shortcut",
                  "solver": solver, "params": {}, "params_tag": "default", "seed": seed, "status": "ok",
                  "objective": doc["metrics"]["objective"], "time_limit_s": 10.0, "solution": json.dumps(doc)})


def test_dominance_and_fronts():
    assert dominates((1.0, 2.0, 3.0), (1.0, 1.0, 3.0)) and not dominates((1.0, 2.0, 3.0), (1.0, 2.0, 3.0))
    assert not dominates((1.0, 1.0, 1.0), (2.0, 2.0, 2.0))  # lower throughput: a trade, not dominance
    pts = [(2.0, 1.0, 1.0), (1.0, 0.5, 1.0), (2.5, 0.9, 1.0), (2.0, 1.0, 1.0)]
    assert front_mask(pts) == [True, True, False, True]


def test_points_are_measured_from_the_solutions(tmp_path):
    from hopbench.harness.analysis.physical_cost import koibuchi_cable_length
    from hopbench.harness.engine.channel_load import max_channel_load
    from hopbench.harness.graphs.topologies import parse_spec

    store = Store.open(f"sqlite:///{tmp_path / 'p.db'}")
    record(store, "ring:16", 4, 4, "a", 1, [(0, 8), (4, 12), (2, 10), (6, 14)])
    record(store, "ring:16", 4, 2, "a", 1, [(0, 8)])
    record(store, "ring:16", 4, 2, "a", 2, [(0, 1 + 1)])  # a short shortcut: worse on hops and on load
    df = pareto_points(store, SUITE)
    assert len(df) == 3 and set(df["family"]) == {"ring:16"}
    for row in df.itertuples():
        shortcuts = {4: [(0, 8), (4, 12), (2, 10), (6, 14)], 2: [(0, 8)] if row.seed == 1 else [(0, 2)]}[row.budget]
        g = parse_spec("ring:16").with_edges(shortcuts)
        assert row.throughput_bound == pytest.approx(1 / max_channel_load(g), rel=1e-12)
        assert row.cable_mean_m == pytest.approx(koibuchi_cable_length(g).mean_m)
        nx_aspl = __import__("networkx").average_shortest_path_length(g.to_networkx())
        assert row.aspl == pytest.approx(nx_aspl, rel=1e-12)
    worst = df[(df.budget == 2) & (df.seed == 2)].iloc[0]
    assert not worst["on_front"]  # the (0, 8) set beats it on hops and load, at the same cable length or less
    written = write_pareto(df, SUITE, tmp_path / "out")
    assert (tmp_path / "out" / "pareto-ring_16.png").stat().st_size > 1000
    back = pd.read_csv(written["csv"])
    assert list(back["on_front"]) == list(df["on_front"])
    assert "| a | aspl | 4 | 4 | 1 |" in written["markdown"].read_text()


def test_a_forged_solution_is_refused_and_no_runs_is_one_line(tmp_path):
    store = Store.open(f"sqlite:///{tmp_path / 'p.db'}")
    with pytest.raises(HopbenchError, match="no ok shortcut runs of suite"):
        pareto_points(store, SUITE)
    record(store, "ring:16", 4, 1, "a", 1, [(0, 8)])
    with store.engine.begin() as conn:  # forge: two shortcuts on a budget of one
        from sqlalchemy import update

        from hopbench.harness.bench.store import runs
        doc = {"shortcuts": [[0, 8], [4, 12]]}
        conn.execute(update(runs).values(solution=json.dumps(doc)))
    with pytest.raises(Exception, match="budget"):
        pareto_points(store, SUITE)


def test_the_command_writes_its_outputs_and_never_over_the_store(tmp_path, capsys):
    from hopbench.harness.cli import main

    db = tmp_path / "p.db"
    store = Store.open(f"sqlite:///{db}")
    record(store, "ring:16", 4, 2, "a", 1, [(0, 8), (4, 12)])
    assert main(["pareto", "--suite", SUITE, "--storage", f"sqlite:///{db}", "-o", str(tmp_path / "o"),
                 "--no-plots"]) == 0
    assert "1 solutions in 1 base graph(s), 1 on a solver's front" in capsys.readouterr().out
    assert (tmp_path / "o" / "pareto.md").is_file() and not list((tmp_path / "o").glob("*.png"))
    # an output directory whose pareto.csv would be the store itself
    store2 = tmp_path / "d" / "pareto.csv"
    store2.parent.mkdir()
    record(Store.open(f"sqlite:///{store2}"), "ring:16", 4, 2, "a", 1, [(0, 8), (4, 12)])
    assert main(["pareto", "--suite", SUITE, "--storage", f"sqlite:///{store2}", "-o", str(store2.parent)]) == 2
    assert "which this command reads" in capsys.readouterr().err
    assert math.isfinite(Store.open(f"sqlite:///{store2}", mode="read").dataframe(suite=SUITE)["objective"][0])


def test_user_text_is_drawn_literally_and_neutralised_in_the_markdown(tmp_path):
    # a base or solver name may hold '$' (mathtext would stop the figure with a parse error) or a markdown link
    db = tmp_path / "p.db"
    store = Store.open(f"sqlite:///{db}")
    record(store, "ring:16", 4, 2, "a", 1, [(0, 8), (4, 12)])
    df = pareto_points(store, SUITE)
    df["family"] = r"ring$\frac{$ [x](http://example.org)"
    df["solver"] = "s$x$ ![i](http://example.org/i.png)"
    written = write_pareto(df, "suite [y](http://example.org)", tmp_path / "o")
    assert len([k for k in written if k.startswith("plot")]) == 1
    assert written["plot " + df["family"][0]].read_bytes()[:4] == b"\x89PNG"
    md = written["markdown"].read_text()
    assert not re.search(r"(?<!\\)\]\(http", md) and r"\[x\]" in md  # every bracket escaped: no link, no image
