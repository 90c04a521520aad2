"""Graph Golf's gaps on the board (the shortcut kind's difference columns): k - K and l - L to the
lower bound and to the best known, from real recorded runs, checked against the diameters and
ASPLs in the database and the suite's reference rows; and no such column on a board without them.

Two small suites share one temporary store: ``golfish`` (order/degree instances like the
graphgolf suite's: empty bases, budget n*d/2, objective golf, "lower bound" and "best known"
reference rows -- one instance without a "lower bound" row, whose best known gives no ASPL) and
``cutish`` (an edgecut2022-like ASPL instance whose references are per-solver diameters).
"""
from __future__ import annotations

import math
import re
import sqlite3
import tomllib

import pandas as pd
import pytest

GOLF_TOML = """
name = "golfish"
description = "Order/degree instances as in the graphgolf suite."
seeds = 3
time_limit = 5

[defaults]
objective = "golf"

[[instances]]
base = "empty:16"
cap = 3
budget = 24
optimum = 3.55
best_known = 3.55
reference = [
  { source = "Graph Golf lower bound (Moore bound; Cerf et al. 1974)", label = "lower bound", diameter = 3, aspl = 2.2000000000 },
  { source = "Waniek 2021 Tab. 8 (GG2015), optimal", label = "best known", diameter = 3, aspl = 2.20 },
]

[[instances]]
base = "empty:32"
cap = 5
budget = 80
best_known = 3.508064516129032
reference = [
  { source = "Graph Golf lower bound (Moore bound; Cerf et al. 1974)", label = "lower bound", diameter = 3, aspl = 2.0322580645 },
  { source = "Graph Golf 2017 best", label = "best known", diameter = 3, aspl = 2.032258 },
]

[[instances]]
# the bound (diameter 2) is out of reach: no diameter-2 graph exists, the best known is 3 / 1.75
base = "empty:16"
cap = 4
budget = 32
reference = [
  { source = "Graph Golf lower bound (Moore bound; Cerf et al. 1974)", label = "lower bound", diameter = 2, aspl = 1.7333333333 },
  { source = "Waniek 2021 Tab. 8 (GG2015), optimal; no diameter-2 graph exists", label = "best known", diameter = 3, aspl = 1.75 },
]

[[instances]]
# a second size of cap 4, so that the objective-vs-N plot draws the cap-4 panel; Moore / Cerf for
# (24, 4): levels of 4, 12 and 7 vertices, L = (4 + 24 + 21) / 23
base = "empty:24"
cap = 4
budget = 48
reference = [
  { source = "Graph Golf lower bound (Moore bound; Cerf et al. 1974)", label = "lower bound", diameter = 3, aspl = 2.1304347826 },
  { source = "a value for this test", label = "best known", diameter = 3, aspl = 2.25 },
]

[[instances]]
# no "lower bound" row (the board computes Moore / Cerf), and a best known without an ASPL
base = "empty:20"
cap = 3
budget = 30
reference = [{ source = "a diameter-only table", label = "best known", diameter = 3 }]
"""

CUT_TOML = """
name = "cutish"
description = "An edgecut2022-like instance."
seeds = 3
time_limit = 5

[[instances]]
base = "ring:16"
cap = 10
budget = 8
objective = "aspl"
reference = [{ source = "Fuad et al. 2022, Table 2", label = "SA", solver = "annealing", diameter = 4 },
             { source = "Fuad et al. 2022, Table 2", label = "VRS", solver = "vrs", diameter = 5 }]
"""

SOLVERS = ["random-matching", "random"]
GAPS = ["diameter_minus_lower_bound", "aspl_minus_lower_bound", "diameter_minus_best_known", "aspl_minus_best_known"]
HEADERS = ["k-K", "l-L", "k-K b.k.", "l-L b.k."]
#: Moore / Cerf for N = 20, degree 3, by hand: levels of 3, 6 and the last 10 vertices, so K = 3 and
#: L = (1*3 + 2*6 + 3*10) / 19
EMPTY20_LB = (3, 45 / 19)


@pytest.fixture(scope="module")
def boards(tmp_path_factory):
    """Both suites run (random-matching and random, seeds 1-3) into one store; their boards and the site written."""
    from hopbench.harness.bench.cells import result_row, run_cell
    from hopbench.harness.bench.runner import plan_matrix
    from hopbench.harness.bench.store import Store
    from hopbench.harness.bench.suites import load_suite
    from hopbench.harness.report.board import build_board
    from hopbench.harness.report.site import write_site
    from hopbench.harness.report.writer import write_board

    root = tmp_path_factory.mktemp("golf-gaps")
    url = f"sqlite:///{root / 'golf.db'}"
    store = Store.open(url)
    out, suites, built = root / "leaderboards", {}, {}
    for name, text in (("golfish", GOLF_TOML), ("cutish", CUT_TOML)):
        path = root / f"{name}.toml"
        path.write_text(text)
        suite = suites[name] = load_suite(path)
        for cell in plan_matrix(suite, solver_names=SOLVERS, seeds=[1, 2, 3]).todo:
            result = run_cell(cell)
            assert result["status"] == "ok", result.get("error")
            store.record(result_row(cell, result, "0123456789abcdef"), result.get("trace") or [])
    for name, suite in suites.items():
        built[name] = build_board(store, name, suite=suite)
        write_board(built[name], store, out, plots=False)
    write_site(out)
    store.close()
    return {"db": root / "golf.db", "out": out, "boards": built}


def csv_of(boards, suite: str) -> pd.DataFrame:
    return pd.read_csv(boards["out"] / suite / "board.csv", keep_default_na=False, na_values=[""])


def recorded_means(db) -> pd.DataFrame:
    """Mean diameter k and ASPL l of each (instance, solver) over its runs, straight from the runs table
    (a disconnected run's NULL is inf)."""
    con = sqlite3.connect(db)
    try:
        runs = pd.read_sql_query("select instance, solver, status, diameter, aspl from runs", con)
    finally:
        con.close()
    assert (runs["status"] == "ok").all()
    runs[["diameter", "aspl"]] = runs[["diameter", "aspl"]].astype(float).fillna(math.inf)
    return runs.groupby(["instance", "solver"])[["diameter", "aspl"]].mean()


def expected_points() -> dict[str, dict[str, dict[str, float]]]:
    """instance id -> "lower bound" / "best known" -> metric -> value, read from the suite text itself."""
    out = {}
    for inst in tomllib.loads(GOLF_TOML)["instances"]:
        ident = f"{inst['base']}/cap{inst['cap']}/b{inst['budget']}/golf"
        points = {r["label"]: {k: float(r[k]) for k in ("diameter", "aspl") if k in r} for r in inst["reference"]}
        if "lower bound" not in points:
            assert ident == "empty:20/cap3/b30/golf"
            points["lower bound"] = {"diameter": EMPTY20_LB[0], "aspl": EMPTY20_LB[1]}
        out[ident] = points
    return out


def difference(mean: float, point: float | None) -> float | None:
    if point is None:
        return None
    return math.inf if math.isinf(mean) else mean - point


def test_gaps_equal_the_recorded_diameter_and_aspl_minus_the_references(boards):
    from hopbench.harness.report.board import board_columns

    rows = csv_of(boards, "golfish")
    assert list(rows.columns) == board_columns() and set(GAPS) <= set(rows.columns)
    means = recorded_means(boards["db"])
    points = expected_points()
    assert set(rows["instance"]) == set(points) and len(rows) == len(points) * len(SOLVERS)
    for _, row in rows.iterrows():
        k, l = means.loc[(row["instance"], row["solver"])]
        assert row["mean_diameter"] == pytest.approx(k) and row["mean_aspl"] == pytest.approx(l)
        p = points[row["instance"]]
        want = {"diameter_minus_lower_bound": difference(k, p["lower bound"]["diameter"]),
                "aspl_minus_lower_bound": difference(l, p["lower bound"]["aspl"]),
                "diameter_minus_best_known": difference(k, p["best known"]["diameter"]),
                "aspl_minus_best_known": difference(l, p["best known"].get("aspl"))}
        for column, value in want.items():
            if value is None:
                assert pd.isna(row[column]), (row["instance"], column)
            elif math.isinf(value):
                assert math.isinf(row[column])
            else:
                # the lower-bound rows carry 10 decimals of L, the computed Cerf bound all of them
                assert row[column] == pytest.approx(value, abs=1e-9), (row["instance"], row["solver"], column)
    # Graph Golf's gap to the bound is never negative; on 16 vertices of degree 3 random matchings
    # miss the diameter-3 optimum, and the ASPL gap to the best known is shown all the same
    finite = rows[rows["mean_diameter"].map(math.isfinite)]
    assert (finite["diameter_minus_lower_bound"] >= 0).all() and (finite["aspl_minus_lower_bound"] >= -1e-9).all()
    rm16 = rows[(rows.instance == "empty:16/cap3/b24/golf") & (rows.solver == "random-matching")].iloc[0]
    assert rm16["diameter_minus_best_known"] != 0 and not pd.isna(rm16["aspl_minus_best_known"])
    # a best known without an ASPL leaves l - L* blank but gives k - K*
    e20 = rows[rows.instance == "empty:20/cap3/b30/golf"]
    assert e20["aspl_minus_best_known"].isna().all() and e20["diameter_minus_best_known"].notna().all()
    # "Gap pub." compares with the best-known result, never with the bound (which is no result): the
    # golf value of the best known's diameter and ASPL, or its diameter alone where it gives no ASPL
    for _, row in rows.iterrows():
        best = points[row["instance"]]["best known"]
        if "aspl" in best:
            d, a = best["diameter"], best["aspl"]
            assert row["published_metric"] == "objective"
            assert row["published_best"] == pytest.approx(d + a / (d + 1))
        else:
            assert row["published_metric"] == "diameter" and row["published_best"] == best["diameter"]


def table_of(markdown: str, group: str) -> list[list[str]]:
    """The rows (header first, separator dropped) of one group's markdown table."""
    block = markdown.split(f"## {group}\n", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in block.splitlines() if ln.startswith("| ")]
    return [[c.strip() for c in ln.strip().strip("|").split(" | ")] for ln in lines]


def test_markdown_and_site_show_the_gaps_with_five_decimals_of_aspl(boards):
    md = (boards["out"] / "golfish" / "board.md").read_text()
    rows = csv_of(boards, "golfish").set_index(["instance", "solver"])
    assert "*k-K*, *l-L*" in md and "(k = K)" in md  # the legend, with its like-with-like caveat
    for group in ("empty, cap 3", "empty, cap 5"):
        header, *body = table_of(md, group)
        at = {h: header.index(h) for h in HEADERS}
        assert at["k-K"] == header.index("ASPL") + 1  # beside the diameter and ASPL columns
        instance = ""
        for cells in body:
            instance = cells[0] or instance
            if cells[2] == "published":  # a † row: its diameter and ASPL, nothing under the differences
                assert all(cells[at[h]] == "" for h in HEADERS)
                continue
            row = rows.loc[(instance, cells[1])]
            for h, column in zip(HEADERS, GAPS):
                value, text = row[column], cells[at[h]]
                if pd.isna(value):
                    assert text == ""
                elif math.isinf(value):
                    assert text == "inf"
                elif "aspl" in column and value != 0:
                    assert re.fullmatch(r"[+-]?\d+\.\d{5}", text), text
                    assert float(text) == pytest.approx(value, abs=5e-6)
                else:
                    assert float(text) == pytest.approx(value, abs=5e-5)
    page = (boards["out"] / "site" / "golfish.html").read_text()
    for column in GAPS:
        assert f'data-key="{column}"' in page


def test_a_board_without_golf_or_those_references_grows_no_gap_column(boards):
    rows = csv_of(boards, "cutish")
    assert len(rows) == len(SOLVERS) and rows[GAPS].isna().all().all()  # the CSV keeps one schema, blank here
    assert rows["mean_diameter"].notna().all()
    md = (boards["out"] / "cutish" / "board.md").read_text()
    header = table_of(md, "ring, cap 10")[0]
    assert "Diam." in header and "ASPL" in header and not set(HEADERS) & set(header)
    assert "k-K" not in md
    page = (boards["out"] / "site" / "cutish.html").read_text()
    assert 'data-key="mean_aspl"' in page and "minus" not in page and "k-K" not in page
    facts = boards["boards"]["cutish"].facts["ring:16/cap10/b8/aspl"]
    assert facts.reference_points == {}  # the kind gives an ASPL instance without such rows no point


def test_the_size_plot_marks_the_best_known_not_the_bound(boards):
    # objective vs N: the black crosses are published results; a "lower bound" row is none
    from hopbench.harness.report.plots import objective_vs_n_figure

    board = boards["boards"]["golfish"]
    fig = objective_vs_n_figure(board)
    crosses = [c for ax in fig.axes for c in ax.collections if c.get_label() == "published (best)"]
    drawn = sorted(float(y) for c in crosses for _, y in c.get_offsets())
    points = expected_points()
    drawn_instances = set(board.rows[board.rows["group"].isin([ax.get_title().rsplit(", ", 1)[0] for ax in fig.axes
                                                               if ax.get_title()])]["instance"])
    assert {"empty:16/cap4/b32/golf", "empty:24/cap4/b48/golf"} <= drawn_instances
    want = sorted(p["best known"]["diameter"] + p["best known"]["aspl"] / (p["best known"]["diameter"] + 1)
                  for i, p in points.items() if "aspl" in p["best known"] and i in drawn_instances)
    assert crosses and drawn == pytest.approx(want)
