"""The ``hopbench board`` command (:mod:`hopbench.harness.cli.board`): every suite of a store, rebuilt
from the runs without a suite file, and one-line errors for bad input."""
from __future__ import annotations

import pandas as pd
import pytest



def test_board_command_builds_every_suite_of_the_store(cli, tiny, tmp_path):
    out = tmp_path / "boards"
    code, stdout, err = cli("board", "--suite", str(tiny["suite_path"]), "--storage", tiny["url"], "-o", out,
                            "--no-plots")
    assert code == 0, err
    assert "tiny:" in stdout and (out / "tiny" / "board.md").exists() and (out / "site" / "tiny.html").exists()
    # without --suite: every suite recorded (this one has no suite file by name: rebuilt from the runs)
    code, stdout, err = cli("board", "--storage", tiny["url"], "-o", out, "--no-plots")
    assert code == 0 and "no suite file 'tiny'" in err
    rebuilt = pd.read_csv(out / "tiny" / "board.csv").set_index(["instance", "solver"]).sort_index()
    original = pd.read_csv(tiny["out"] / "tiny" / "board.csv").set_index(["instance", "solver"]).sort_index()
    assert rebuilt.index.equals(original.index)
    assert rebuilt["mean"].tolist() == pytest.approx(original["mean"].tolist())
    assert rebuilt["published_metric"].isna().all()  # references live in the suite file only


@pytest.mark.parametrize("args, fragment", [
    (["--suite", "quick"], "no recorded runs of suite 'quick'"),
    ([], "holds no runs"),
    (["--compress-over", "-1"], "--compress-over must be >= 0"),
])
def test_board_command_bad_input(cli, tmp_path, args, fragment):
    from hopbench.harness.bench.store import Store

    Store.open(f"sqlite:///{tmp_path / 'empty.db'}").close()  # an empty store: board only reads
    code, _, err = cli("board", "--storage", f"sqlite:///{tmp_path / 'empty.db'}", "-o", tmp_path / "o", *args)
    assert code == 2 and fragment in err and err.count("\n") == 1
