"""The markdown board (:mod:`hopbench.harness.report.markdown`): rows, published references beside their
solver's row, notes, solution links and plots."""
from __future__ import annotations




def test_markdown_board_shows_rows_references_and_links(tiny, board_csv):
    md = (tiny["out"] / "tiny" / "board.md").read_text()
    assert md.startswith("# Leaderboard: tiny")
    assert "† X — Made-up et al. 2020, Table 1" in md and "† Z — Made-up et al. 2021" in md
    assert "a note" in md
    for path in board_csv["solution"].dropna():
        assert f"]({path})" in md
    # the published reference row of solver 'vrs' sits right after vrs's row on ring:25
    lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    vrs = next(i for i, ln in enumerate(lines) if "ring:25/cap4/b6/aspl | vrs" in ln)
    assert "† X" in lines[vrs + 1]
    assert "(diameter)" in lines[vrs]
    assert "1 error" in md and "1 timeout" in md
    for name in ("objective_vs_n", "anytime", "winrate"):
        assert f"(plots/{name}.png)" in md


def test_every_board_row_is_a_markdown_row(tiny, board_csv):
    md = (tiny["out"] / "tiny" / "board.md").read_text()
    rows = [[c.strip() for c in ln.strip().strip("|").split(" | ")] for ln in md.splitlines() if ln.startswith("| ")]
    ours = [r for r in rows if r[0] != "Instance" and r[2] != "published"]  # not headers, not † rows
    assert len(ours) == len(board_csv)


def test_a_row_whose_cells_were_all_declined_is_shown(tiny, tmp_path):
    from hopbench.harness.report.markdown import render_markdown

    board = board_with_declined_cells(tiny, tmp_path)
    declined = board.rows[board.rows["solver"] == "equality-ga"]
    assert len(declined) == 1 and int(declined["runs"].iloc[0]) == 0 and int(declined["skipped"].iloc[0]) == 2
    md = render_markdown(board)
    row = next(ln for ln in md.splitlines() if "| equality-ga |" in ln)
    cells = [c.strip() for c in row.strip("|").split(" | ")]
    assert cells[3:5] == ["0", "2 declined (d1)"]  # Runs, Failed, and the note that says why
    assert "No runs to show" not in md


def test_the_reason_a_solver_declined_is_a_note_under_its_table(tiny, tmp_path):
    from hopbench.harness.report.markdown import _md, render_markdown

    board = board_with_declined_cells(tiny, tmp_path)
    reasons = board.runs.loc[board.runs["solver"] == "equality-ga", "error"]
    assert reasons.nunique() == 1 and len(reasons.iloc[0]) > 20  # the solver's own words, the same for both seeds
    reason = reasons.iloc[0]
    md = render_markdown(board)
    lines = md.splitlines()
    note = next(ln for ln in lines if ln.startswith("- *d1* "))
    # whole, once (not once per seed), naming the row it belongs to
    assert note == f"- *d1* equality-ga (default @5s/200ev) on ring:16/cap4/b4/aspl: {_md(reason)}"
    assert sum(ln.startswith("- *d") for ln in lines) == 1
    # under the table of its group, after its last row
    table_end = max(i for i, ln in enumerate(lines) if "| equality-ga |" in ln)
    assert lines.index(note) > table_end


def test_the_legend_describes_the_columns_the_tables_show(tiny, board_csv):
    """Each sentence of the legend names a column some table of this board has, and every column with a
    meaning to explain is explained (the traffic board once described a Gap LB column it did not have)."""
    import re

    from hopbench.harness.report.formatting import COLUMN_SENTENCES

    md = (tiny["out"] / "tiny" / "board.md").read_text()
    legend = next(ln for ln in md.splitlines() if ln.startswith("**Columns.**"))
    heads = {c.strip() for ln in md.splitlines() if ln.startswith("| Instance |")
             for c in ln.strip("|").split(" | ")}
    # the shared columns' sentences (a kind's metric columns bring their own legend, one text for a family)
    explained = set(re.findall(r"\*([^*]+)\*:", legend)) & set(COLUMN_SENTENCES)
    assert explained <= heads, explained - heads
    assert {h for h in heads if h in COLUMN_SENTENCES and h != "Params"} <= explained
    # the tiny board has shortcut and routing rows: the lower bound of each is described
    assert "Moore/Cerf" in legend and "γ_perfect" in legend


def board_with_declined_cells(tiny, tmp_path):
    """The tiny board of a copy of the shared store, plus two cells (seeds 1, 2) that equality-ga declined
    (ring:16 is no Equality problem), run and recorded like the runner does."""
    import shutil

    from hopbench.harness.bench.cells import result_row, run_cell
    from hopbench.harness.bench.runner import plan_matrix
    from hopbench.harness.bench.store import Store
    from hopbench.harness.report.board import build_board

    db = tmp_path / "declined.db"
    shutil.copy(tiny["db"], db)
    store = Store.open(f"sqlite:///{db}")
    for cell in plan_matrix(tiny["suite"], solver_names=["equality-ga"], seeds=[1, 2], instances="ring:16*").todo:
        result = run_cell(cell)
        assert result["status"] == "skipped", result
        store.record(result_row(cell, result, "0123456789abcdef"))
    board = build_board(store, tiny["suite"].name, suite=tiny["suite"])
    store.close()
    return board
