"""Fixtures shared by the report tests: the tiny board (built once per session) and its CSV."""
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
