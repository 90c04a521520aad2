"""The markdown board (:mod:`harness.report.markdown`): rows, published references beside their
solver's row, notes, solution links and plots."""
from __future__ import annotations

import pandas as pd
import pytest

from tests.harness.report.board_fixtures import shared_board


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return shared_board(tmp_path_factory)


@pytest.fixture(scope="module")
def board_csv(tiny):
    return pd.read_csv(tiny["out"] / "tiny" / "board.csv", keep_default_na=False, na_values=[""])


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
