"""Boards built from hostile strings and sites built from hostile board files: nothing is written
outside the output directory, no raw HTML or table breaker reaches ``board.md``, no formula reaches a
spreadsheet from ``board.csv``, and a board file of the wrong shape is a one-line error."""
from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from hopbench.harness.bench.store import Store
from hopbench.harness.errors import HopbenchError
from hopbench.harness.report.board import build_board
from hopbench.harness.report.formatting import FORMULA_STARTS, csv_safe, csv_unsafe
from hopbench.harness.report.markdown import render_markdown
from hopbench.harness.report.site import write_site
from hopbench.harness.report.writer import write_board

INSTANCE = "<svg onload=alert(1)>|inst\nance"
SOLVER = '=HYPERLINK("http://evil.example","click")'
PARAMS = "<img src=x onerror=alert(2)>|a\\|b\r\n# heading"
LABEL = "-2+3|cmd"
SOURCE = "<b>bold</b> | <!-- comment -->"
NOTE = "@SUM(1+1)\n| injected | row |"
GROUP = "g<script>alert(3)</script>|x"
HOST = "<iframe src=javascript:alert(4)>"
DESCRIPTION = "first line\n| a | b |\n|---|---|\n<script>alert(5)</script>"
HOSTILE = [INSTANCE, SOLVER, PARAMS, LABEL, SOURCE, NOTE, GROUP, HOST, DESCRIPTION]


def files_under(path: Path) -> set[Path]:
    return {p for p in path.rglob("*")}


@pytest.fixture(scope="module")
def hostile(tiny, tmp_path_factory):
    """The tiny board with user strings (ids, names, labels, sources, notes, groups, provenance) replaced by
    hostile ones, written (no plots) with its site."""
    store = Store.open(tiny["url"], mode="read")
    board = build_board(store, "tiny", suite=tiny["suite"])
    rows, refs = board.rows, board.references
    old = refs["instance"].iloc[0]  # an instance with published reference rows
    board.facts[INSTANCE] = board.facts[old]
    for frame in (rows, refs):
        frame.loc[frame["instance"] == old, "instance"] = INSTANCE
        frame.loc[frame["instance"] == INSTANCE, "group"] = GROUP
    first = rows.index[rows["instance"] == INSTANCE][0]
    rows.loc[first, "solver"] = SOLVER
    rows.loc[first, "params"] = PARAMS
    rows.loc[first, "gap_published"] = -0.25  # a negative number stays a number
    ref = refs.index[refs["instance"] == INSTANCE][0]
    refs.loc[ref, ["label", "source", "note"]] = [LABEL, SOURCE, NOTE]
    board.provenance["hosts"] = [HOST]
    board.provenance["statuses"] = {"<script>alert(6)</script>": 1}
    board.description = DESCRIPTION
    out = tmp_path_factory.mktemp("hostile") / "lb"
    write_board(board, store, out, plots=False)
    write_site(out)
    store.close()
    return {"board": board, "out": out, "dir": out / "tiny"}


def unescaped_pipes(line: str) -> int:
    """Pipes that end a markdown table cell: those not preceded by an odd run of backslashes."""
    return sum(1 for m in re.finditer(r"(\\*)\|", line) if len(m.group(1)) % 2 == 0)


def test_board_md_lets_no_raw_html_or_table_breaker_through(hostile):
    md = (hostile["dir"] / "board.md").read_text()
    assert md == render_markdown(hostile["board"], {})
    assert not re.search(r"<[A-Za-z/!?]", md), re.search(r".{20}<[A-Za-z/!?].{20}", md)
    lines = md.splitlines()
    assert [line for line in lines if line.startswith("# ")] == ["# Leaderboard: tiny"]
    assert not any(line.startswith("|---") for line in lines[:5])  # the description made no table
    # every row of every table has as many cells as its header
    for i, line in enumerate(lines):
        if line.startswith("|---"):
            width = unescaped_pipes(lines[i - 1])
            j = i + 1
            while j < len(lines) and lines[j].startswith("|"):
                assert unescaped_pipes(lines[j]) == width, lines[j]
                j += 1
    # and the strings are still there, escaped
    assert "&lt;svg onload=alert(1)>\\|inst ance" in md
    assert "&lt;img src=x onerror=alert(2)>\\|a\\\\\\|b # heading" in md
    assert "@SUM(1+1) \\| injected \\| row \\|" in md


def test_board_csv_neutralises_formulas_and_keeps_numbers(hostile):
    text = (hostile["dir"] / "board.csv").read_text() + (hostile["dir"] / "references.csv").read_text()
    cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
    assert not [c for c in cells if c.startswith(FORMULA_STARTS) and not re.fullmatch(r"-[0-9.e+-]+|-inf", c)]
    assert "'" + SOLVER in cells and "'" + LABEL in cells and "'" + NOTE in cells
    rows = pd.read_csv(hostile["dir"] / "board.csv")
    assert -0.25 in rows["gap_published"].tolist()  # numeric, not quoted text


def test_the_site_shows_the_strings_themselves_escaped(hostile):
    page = (hostile["out"] / "site" / "tiny.html").read_text()
    assert "<script>alert" not in page and "<svg" not in page and "<img src=x" not in page and "<iframe" not in page
    assert "=HYPERLINK(&quot;http://evil.example&quot;,&quot;click&quot;)" in page
    assert "'=HYPERLINK" not in page  # the quote that guards the CSV is not shown
    assert "† -2+3|cmd — &lt;b&gt;bold&lt;/b&gt;" in page


@pytest.mark.parametrize("value", ["=1+1", "+1", "-1", "@x", "\tx", "\rx", "'=x", "''+x", "'q", "q", "", "'"])
def test_csv_safe_round_trip(value):
    safe = csv_safe(value)
    assert not safe.startswith(FORMULA_STARTS)
    assert csv_unsafe(safe) == value


def test_csv_safe_leaves_numbers_alone():
    assert csv_safe(-1) == -1 and csv_safe(-0.5) == -0.5 and csv_safe(None) is None


# --------------------------------------------------------------------------- site from hostile board files


@pytest.fixture
def copied(tiny, tmp_path):
    dst = tmp_path / "out" / "lb"
    shutil.copytree(tiny["out"], dst)
    return dst


def set_meta(suite_dir: Path, **changes) -> None:
    meta = json.loads((suite_dir / "board.json").read_text())
    meta.update(changes)
    (suite_dir / "board.json").write_text(json.dumps(meta))


@pytest.mark.parametrize("suite", ["../../elsewhere", "../elsewhere", "ABSOLUTE", "index", "site", ".hidden", "a/b",
                                   "other", 5, None])
def test_site_refuses_a_board_whose_suite_would_leave_its_place(copied, tmp_path, suite):
    evil = copied / "evil"
    shutil.copytree(copied / "tiny", evil)
    absolute = tmp_path / "elsewhere"  # outside -o (copied is tmp_path/out/lb)
    set_meta(evil, suite=str(absolute) if suite == "ABSOLUTE" else suite)
    before = files_under(tmp_path)
    with pytest.raises(HopbenchError) as info:
        write_site(copied)
    assert "\n" not in str(info.value) and "evil" in str(info.value)
    assert files_under(tmp_path) == before  # nothing written anywhere


@pytest.mark.parametrize("text", ["[]", "not json", "[" * 100_000, '{"suite": "tiny", "plots": []}',
                                  '{"suite": "tiny", "provenance": {"runs": "<script>"}}',
                                  '{"suite": "tiny", "kinds": [1]}', '{"suite": "tiny", "plots": {"x": 1}}',
                                  '{"suite": "tiny", "instances": true}'])
def test_site_refuses_a_board_json_of_the_wrong_shape(copied, text):
    (copied / "tiny" / "board.json").write_text(text)
    with pytest.raises(HopbenchError) as info:
        write_site(copied)
    assert "\n" not in str(info.value) and "board.json" in str(info.value)


def test_site_refuses_a_broken_board_csv(copied):
    rows = pd.read_csv(copied / "tiny" / "board.csv")
    rows["runs"] = "many"
    rows.to_csv(copied / "tiny" / "board.csv", index=False)
    with pytest.raises(HopbenchError) as info:
        write_site(copied)
    assert "\n" not in str(info.value) and "tiny" in str(info.value)
    (copied / "tiny" / "board.csv").write_bytes(b"\xff\xfe not text")
    with pytest.raises(HopbenchError, match="not UTF-8"):
        write_site(copied)


def test_write_board_refuses_a_suite_name_that_leaves_the_output(tiny, tmp_path):
    store = Store.open(tiny["url"], mode="read")
    board = build_board(store, "tiny", suite=tiny["suite"])
    out = tmp_path / "a" / "lb"
    for name in ("../../elsewhere", str(tmp_path / "abs"), "site", ".git"):
        board.suite = name
        with pytest.raises(HopbenchError) as info:
            write_board(board, store, out, plots=False)
        assert "\n" not in str(info.value)
    store.close()
    assert files_under(tmp_path) == set()
