"""The markdown board (:mod:`harness.report.markdown`): rows, published references beside their
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
    from harness.report.markdown import render_markdown

    board = board_with_declined_cells(tiny, tmp_path)
    declined = board.rows[board.rows["solver"] == "equality-ga"]
    assert len(declined) == 1 and int(declined["runs"].iloc[0]) == 0 and int(declined["skipped"].iloc[0]) == 2
    md = render_markdown(board)
    row = next(ln for ln in md.splitlines() if "| equality-ga |" in ln)
    cells = [c.strip() for c in row.strip("|").split(" | ")]
    assert cells[3:5] == ["0", "2 declined"]  # Runs, Failed
    assert "No runs to show" not in md


def board_with_declined_cells(tiny, tmp_path):
    """The tiny board of a copy of the shared store, plus two cells (seeds 1, 2) that equality-ga declined
    (ring:16 is no Equality problem), run and recorded like the runner does."""
    import shutil

    from harness.bench.cells import result_row, run_cell
    from harness.bench.runner import plan_matrix
    from harness.bench.store import Store
    from harness.report.board import build_board

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
