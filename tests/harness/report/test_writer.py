"""Writing a board (:mod:`hopbench.harness.report.writer`): linked solution files that verify, stale and
compressed solutions, ``board.json``, and relative links."""
from __future__ import annotations

import json
import math
import shutil

import pandas as pd
import pytest

from hopbench.harness.bench.store import Store
from hopbench.harness.documents import read_json
from hopbench.harness.problems.registry import verify_document
from hopbench.harness.report.board import build_board
from hopbench.harness.report.writer import slug, solution_filename, write_board


def test_every_row_links_a_solution_that_verifies_and_matches_its_best(tiny, board_csv):
    suite_dir = tiny["out"] / "tiny"
    linked = [p for p in board_csv["solution"].dropna()]
    assert len(linked) == int((board_csv["runs"] > 0).sum())
    on_disk = {f"solutions/{p.name}" for p in (suite_dir / "solutions").iterdir()}
    assert on_disk == set(linked)  # nothing stale, nothing missing
    for rec in board_csv[board_csv["solution"].notna()].to_dict("records"):
        doc = read_json(suite_dir / rec["solution"])
        verdict = verify_document(doc)
        assert verdict.valid, (rec["solution"], verdict.reason)
        got = verdict.metrics["objective"]
        assert (math.isinf(got) and math.isinf(rec["best"])) or got == pytest.approx(rec["best"], rel=1e-12)
        assert doc.get("seed") == rec["best_seed"]


def test_rebuild_removes_its_stale_solutions_keeps_foreign_ones_and_compresses_large_ones(tiny, tmp_path):
    out = tmp_path / "lb"
    (out / "tiny" / "solutions").mkdir(parents=True)
    (out / "tiny" / "solutions" / "stale.json").write_text("{}")  # not written by hopbench: it stays
    store = Store.open(tiny["url"])
    board = build_board(store, "tiny", suite=tiny["suite"])
    write_board(board, store, out, plots=False)
    first = {p.name for p in (out / "tiny" / "solutions").iterdir()} - {"stale.json"}
    assert first and all(f.endswith(".json") for f in first)
    write_board(board, store, out, plots=False, compress_over=0)
    files = sorted(p.name for p in (out / "tiny" / "solutions").iterdir())
    assert "stale.json" in files  # never written by the board: never deleted
    ours = [f for f in files if f != "stale.json"]
    assert ours and all(f.endswith(".json.gz") for f in ours)  # the .json ones of the first build are gone
    doc = read_json(out / "tiny" / "solutions" / ours[0])
    assert verify_document(doc).valid
    assert not (out / "tiny" / "plots").exists()


def test_board_json_summarises_the_suite(tiny):
    meta = json.loads((tiny["out"] / "tiny" / "board.json").read_text())
    assert meta["suite"] == "tiny" and meta["kinds"] == ["routing", "shortcut"]
    assert meta["instances"] == 7 and meta["provenance"]["statuses"] == {"error": 1, "ok": 42, "timeout": 1}
    assert set(meta["plots"]) == {"objective_vs_n", "anytime", "winrate"}


def test_a_board_can_be_copied_elsewhere(tiny, tmp_path):
    # every link is relative: the directory works wherever it is copied
    dst = tmp_path / "copy"
    shutil.copytree(tiny["out"], dst)
    rows = pd.read_csv(dst / "tiny" / "board.csv")
    for rel in rows["solution"].dropna():
        assert (dst / "tiny" / rel).is_file()


def test_solution_filenames_are_safe_and_unique():
    assert slug("ring:16/cap10/b8/aspl") == "ring_16-cap10-b8-aspl"
    assert slug("///") == "x" and len(slug("a" * 200)) == 80
    one = solution_filename("ring:16/cap4/b4/aspl", "vrs", "default", 1, "cell-1")
    assert one.startswith("ring_16-cap4-b4-aspl.vrs.default.s1.") and one.endswith(".json")
    assert one != solution_filename("ring:16/cap4/b4/aspl", "vrs", "default", 1, "cell-2")
