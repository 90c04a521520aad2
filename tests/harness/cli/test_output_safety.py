"""Output safety (issue 34, item 6), through the CLI: a ``$`` in a parameter never reaches mathtext, terminal
escape sequences in ids and parameters are shown escaped, markdown links and images from user text are
neutralised in board.md, and ``results`` / ``board`` report a damaged row in one line and go on
(``--merge-from`` refuses it)."""
from __future__ import annotations

import io
import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.harness.cli.test_our_files import hopbench

ESC = "\x1b]0;owned\x07\x1b[2J\x1b[31m"  # set the window title, clear the screen, turn red
MATH = r"y=$\frac{$"  # not valid mathtext: parsed, it stops the plot with a ValueError


@pytest.fixture(scope="module")
def mini(tmp_path_factory) -> Path:
    """A store of three real runs (random on ring:8 and ring:10, seeds 1-3) and its suite file beside it."""
    db = tmp_path_factory.mktemp("safety") / "s.db"
    suite = db.parent / "mini.toml"
    suite.write_text('name = "mini"\ndescription = "d"\nseeds = 3\ntime_limit = 5\n'
                     '[[grid]]\nvars = { n = [8, 10] }\nbases = ["ring:{n}"]\ncaps = [3]\nbudgets = [2]\n')
    r = hopbench("run", "--suite", suite, "--solver", "random", "--storage", f"sqlite:///{db}", "--no-progress")
    assert r.returncode == 0, r.stderr
    return db


def edited(mini: Path, tmp_path: Path, *statements: tuple[str, tuple]) -> str:
    """A copy of the mini store with the given SQL run on it (a store edited by hand or by another program)."""
    db = tmp_path / "edited.db"
    shutil.copy(mini, db)
    with sqlite3.connect(db) as conn:
        for sql, values in statements:
            conn.execute(sql, values)
    return f"sqlite:///{db}"


DAMAGE = [
    ("params", "{bad", "params is not valid JSON"),
    ("metrics", "[1,", "metrics is not valid JSON"),
    ("objective", "abc", "objective 'abc' is not a number"),
    ("seed", 1e20, "seed 1e+20 is not a whole number"),
    ("seed", -1, "seed -1 is not a whole number"),
    ("started_at", "yesterday", "started_at 'yesterday' is not a time"),
    ("solver", b"\x00\xff", "is not text"),
]


@pytest.mark.parametrize("column, value, words", DAMAGE)
def test_results_and_board_report_a_damaged_row_and_go_on(cli, mini, tmp_path, column, value, words):
    url = edited(mini, tmp_path, (f"UPDATE runs SET {column} = ? WHERE id = 2", (value,)))
    for fmt in ("table", "csv", "json"):
        code, out, err = cli("results", "--storage", url, "--format", fmt)
        assert code == 0, err
        warnings = [line for line in err.splitlines() if line.startswith("warning: run 2 ")]
        assert len(warnings) == 1 and words in warnings[0], err
        assert "Traceback" not in err
        if fmt == "json":
            assert len(json.loads(out)) == 5  # of 6: the damaged row left out
    code, out, err = cli("board", "--suite", mini.parent / "mini.toml", "--storage", url, "-o", tmp_path / "lb",
                         "--no-plots")
    assert code == 0, err
    assert sum(words in line for line in err.splitlines() if line.startswith("warning: run 2 ")) == 1, err
    assert (tmp_path / "lb" / "mini" / "board.md").is_file()


def test_merge_from_refuses_damaged_rows_and_copies_the_rest(cli, mini, tmp_path):
    url = edited(mini, tmp_path, ("UPDATE runs SET objective = 'abc' WHERE id = 1", ()),
                 ("UPDATE runs SET params = '{' WHERE id = 4", ()))
    target = tmp_path / "target.db"
    code, _, err = cli("results", "--storage", f"sqlite:///{target}", "--merge-from", url)
    assert code == 0, err
    assert [line.split(" (")[0] for line in err.splitlines() if line.startswith("refused: ")] == \
        ["refused: run 1", "refused: run 4"]
    assert "merged 4 run(s)" in err and "refused 2 damaged run(s)" in err
    with sqlite3.connect(target) as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone() == (4,)


def test_escape_sequences_in_ids_and_parameters_are_shown_escaped(cli, mini, tmp_path):
    url = edited(mini, tmp_path, ("UPDATE runs SET instance = ?, params_tag = ? WHERE id = 1",
                                  (f"ring:8{ESC}\r\nfake row", f"x={ESC}")))
    for fmt in ("table", "csv", "json"):
        code, out, err = cli("results", "--storage", url, "--format", fmt)
        assert code == 0 and "\x1b" not in out + err and "\x07" not in out, (fmt, out)
    assert "\\u001b]0;owned" in out
    code, out, err = cli("board", "--suite", "mini", "--storage", url, "-o", tmp_path / "lb", "--no-plots")
    assert code == 0 and "\x1b" not in out + err, err


def test_escape_sequences_in_a_suite_and_in_errors_are_shown_escaped(cli, tmp_path):
    suite = tmp_path / "esc.toml"
    suite.write_text(f'name = "esc"\ndescription = {json.dumps(ESC + chr(0x202e))}\n'
                     '[[instances]]\nbase = "ring:8"\ncap = 3\nbudget = 2\n')
    code, out, err = cli("instances", suite)
    assert code == 0 and "\x1b" not in out and "\u202e" not in out and "\\u001b[2J" in out, out
    # an error quoting what the user typed
    for args in (["solve", "--base", f"ring:8{ESC}", "--cap", "3", "--budget", "1", "--solver", "random"],
                 ["solve", "--base", "ring:8", "--cap", "3", "--budget", "1", "--solver", f"nope{ESC}"],
                 ["results", f"--bogus{ESC}"]):
        code, out, err = cli(*args)
        assert code == 2 and len(err.splitlines()) == 1 and err.startswith("error: "), err
        assert "\x1b" not in err + out and "\x07" not in err, err


def test_a_dollar_in_a_parameter_is_drawn_as_text_not_mathtext(cli, mini, tmp_path):
    url = edited(mini, tmp_path, ("UPDATE runs SET params_tag = ? WHERE seed = 1", (MATH,)))
    code, out, err = cli("board", "--suite", "mini", "--storage", url, "-o", tmp_path / "lb")
    assert code == 0, err
    plots = tmp_path / "lb" / "mini" / "plots"
    assert {p.name for p in plots.iterdir()} >= {"objective_vs_n.png", "anytime.png"}


def test_plot_text_is_literal_for_every_figure():
    from matplotlib.figure import Figure

    from hopbench.harness.report.plots import literal

    for text in (MATH, "$a$b$", "\\$", "50$"):
        fig = Figure()
        ax = fig.subplots()
        ax.plot([1, 2], [1, 2], label=literal(text))
        ax.legend()
        ax.set_title(literal(text))
        ax.set_xticks([1, 2], [literal(text), "x"])
        fig.savefig(io.BytesIO(), format="png")  # parsed as mathtext, the first text raises ValueError here
        assert ax.get_title() == literal(text)


LINKS = ["[click me](https://evil.example/)", "![pixel](https://evil.example/p.png)", "[ref]: https://evil.example/",
         "[text][ref]"]


def test_markdown_links_and_images_from_user_text_are_neutralised(cli, mini, tmp_path):
    suite = tmp_path / "mini.toml"
    suite.write_text((mini.parent / "mini.toml").read_text().replace('description = "d"',
                                                                     f"description = {json.dumps(LINKS[2])}"))
    url = edited(mini, tmp_path, ("UPDATE runs SET params_tag = ? WHERE seed = 1", (" ".join(LINKS),)))
    code, out, err = cli("board", "--suite", suite, "--storage", url, "-o", tmp_path / "lb", "--no-plots")
    assert code == 0, err
    md = (tmp_path / "lb" / "mini" / "board.md").read_text()
    assert "evil.example" in md  # shown, as text
    for line in md.splitlines():
        if "evil" in line:
            # every bracket is escaped: no link, image or reference definition
            ours = re.sub(r"\[[0-9.inf]+\]\(solutions/[^)]*\)", "", line)  # the board's own links to solutions
            assert not re.search(r"(?<!\\)[\[\]]", ours.replace("\\\\", "")), line
            assert "\\[click me\\](https://evil" in md or "\\[ref\\]: https://evil" in line, line
