"""A board's runs shipped beside it (``board --with-runs``: runs.jsonl.xz) load back into a store only once every
row is re-checked (``results --merge-from FILE``), and the board rebuilt from them alone is the published one.

Everything goes through the CLI, as a user (or publish.sh) runs it.  The tiny store holds shortcut and routing
runs (the archive is the same for every problem kind), failed rows and a tuning trial (which boards leave out).
"""
from __future__ import annotations

import json
import lzma
import shutil
from pathlib import Path

import pytest

from tests.harness.report.board_fixtures import make_store

BOARD_FILES = ("board.csv", "board.md", "board.json", "references.csv", "runs.jsonl.xz")


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """A board written with its runs, from the tiny store: ``(suite file, board folder)``."""
    from hopbench.harness.cli import main

    root = tmp_path_factory.mktemp("archive")
    url, suite, path = make_store(root)
    assert main(["board", "--suite", str(path), "--storage", url, "-o", str(root / "out"), "--no-plots",
                 "--with-runs"]) == 0
    return path, root / "out" / "tiny"


def archive_lines(board: Path) -> list[dict]:
    with lzma.open(board / "runs.jsonl.xz", "rt") as f:
        return [json.loads(line) for line in f]


def write_lines(board: Path, lines: list[dict]) -> None:
    text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
    (board / "runs.jsonl.xz").write_bytes(lzma.compress(text.encode()))


def test_the_archive_holds_every_board_run_and_references_the_shipped_solutions(published):
    _, board = published
    header, *rows = archive_lines(board)
    assert header == {"format": "hopbench.runs/1", "suite": "tiny", "runs": len(rows)}
    assert not any(r["study"] for r in rows)  # a tuning trial is no board run
    assert {r["status"] for r in rows} == {"ok", "error", "timeout"}
    assert {r["kind"] for r in rows} == {"shortcut", "routing"}
    referenced = [r["solution"]["file"] for r in rows if r["solution"] and set(r["solution"]) == {"file", "sha256"}]
    shipped = sorted(str(p.relative_to(board)) for p in (board / "solutions").iterdir())
    assert sorted(referenced) == shipped  # every shipped solution is referenced, none repeated inline
    inline = [r for r in rows if r["status"] == "ok" and "file" not in r["solution"]]
    assert inline and all(r["trace"] for r in rows if r["status"] == "ok")


def test_a_board_rebuilt_from_its_shipped_runs_alone_is_the_published_board(published, tmp_path, cli):
    path, board = published
    copy = tmp_path / "tiny"
    shutil.copytree(board, copy)
    store = f"sqlite:///{tmp_path / 'fresh.db'}"
    code, out, err = cli("results", "--merge-from", copy / "runs.jsonl.xz", "--storage", store)
    assert code == 0, err
    runs = len(archive_lines(board)) - 1
    assert err.strip() == (f"loaded {runs} run(s) of suite tiny from {copy / 'runs.jsonl.xz'}, every one re-checked, "
                           f"into {store}")
    code, _, err = cli("board", "--suite", path, "--storage", store, "-o", tmp_path / "again", "--no-plots",
                       "--with-runs")
    assert code == 0, err
    for name in BOARD_FILES:
        assert (tmp_path / "again" / "tiny" / name).read_bytes() == (board / name).read_bytes(), name
    # loading it again changes nothing: every cell is there already
    code, _, err = cli("results", "--merge-from", copy / "runs.jsonl.xz", "--storage", store)
    assert code == 0 and "loaded 0 run(s)" in err


def _first(rows: list[dict], **match) -> dict:
    return next(r for r in rows if all(r.get(k) == v for k, v in match.items()))


def _inline_ok(rows: list[dict], kind: str = "shortcut") -> dict:
    return next(r for r in rows if r["status"] == "ok" and r["kind"] == kind and "file" not in r["solution"]
                and r["objective"] is not None)


def forge_objective(rows):
    row = _inline_ok(rows)
    row["objective"] -= 0.25
    return "claims objective"


def forge_metric(rows):
    row = _inline_ok(rows, "routing")
    row["metrics"]["max_load"] = row["metrics"]["max_load"] - 1
    return "claims max_load"


def forge_other_problem(rows):
    # a valid ring:16 solution filed under ring:25 (its fields, its id, its key all say ring:25)
    small = _inline_ok([r for r in rows if r["instance"].startswith("ring:16/")])
    big = _inline_ok([r for r in rows if r["instance"].startswith("ring:25/")])
    big["solution"] = small["solution"]
    return "refused by hopbench's re-verification"


def forge_instance_id(rows):
    row = _inline_ok(rows)
    row["instance"] = "ring:36/cap4/b9/aspl" if not row["instance"].startswith("ring:36") else "ring:16/cap4/b4/aspl"
    return "is not the id its fields derive"


def forge_cell_key(rows):
    row = _inline_ok(rows)
    row["cell_key"] = row["cell_key"].replace(f"|{row['seed']}|", f"|{row['seed'] + 7}|", 1)
    return "is not the one its fields make"


def forge_failed_result(rows):
    row = _first(rows, status="error")
    row["objective"] = 1.0
    return "yet claims a result"


def forge_trace(rows):
    row = _inline_ok(rows)
    row["trace"].append([0.5, 10, 0.01])
    return "below the problem's lower bound"


def forge_reference_escape(rows):
    row = next(r for r in rows if r["solution"] and "file" in r["solution"])
    row["solution"]["file"] = "solutions/../../../../etc/passwd.json"
    return "does not name a file of the board's solutions/"


def forge_reference_hash(rows):
    row = next(r for r in rows if r["solution"] and "file" in r["solution"])
    row["solution"]["sha256"] = "0" * 64
    return "is not the document the archive was written with"


def forge_suite(rows):
    _inline_ok(rows)["suite"] = "edgecut2022"
    return "in the archive of suite 'tiny'"


def forge_duplicate(rows):
    rows.append(json.loads(json.dumps(_inline_ok(rows))))
    return "recorded twice"


FORGERIES = [forge_objective, forge_metric, forge_other_problem, forge_instance_id, forge_cell_key,
             forge_failed_result, forge_trace, forge_reference_escape, forge_reference_hash, forge_suite,
             forge_duplicate]


@pytest.mark.parametrize("forge", FORGERIES, ids=[f.__name__ for f in FORGERIES])
def test_a_forged_row_refuses_the_archive_in_one_line(published, tmp_path, cli, forge):
    _, board = published
    copy = tmp_path / "tiny"
    shutil.copytree(board, copy)
    header, *rows = archive_lines(copy)
    words = forge(rows)
    header["runs"] = len(rows)
    write_lines(copy, [header, *rows])
    store = tmp_path / "never.db"
    code, out, err = cli("results", "--merge-from", copy / "runs.jsonl.xz", "--storage", f"sqlite:///{store}")
    lines = err.strip().splitlines()
    assert code == 2 and out == ""
    assert len(lines) == 2, err  # the refused row, then the error
    assert lines[0].startswith("refused: runs.jsonl.xz line ") and words in lines[0], lines[0]
    assert lines[1].startswith("error: refused ") and "nothing was imported" in lines[1]
    assert not store.exists()  # nothing recorded: the whole file or none of it


@pytest.mark.parametrize("content, words", [
    (b"not xz at all", "is not an xz-compressed runs archive"),
    (lzma.compress(b'{"format": "something else"}\n'), "does not start with a hopbench.runs/1 header"),
    (lzma.compress(b"[1, 2\n"), "does not start with a hopbench.runs/1 header"),
    (lzma.compress(b'{"format": "hopbench.runs/1", "suite": "tiny", "runs": 3}\n'), "announces 3 runs"),
    (lzma.compress(b"x" * 100), "does not start with a hopbench.runs/1 header"),
])
def test_a_damaged_archive_is_one_line(tmp_path, cli, content, words):
    path = tmp_path / "runs.jsonl.xz"
    path.write_bytes(content)
    code, out, err = cli("results", "--merge-from", path, "--storage", f"sqlite:///{tmp_path / 'never.db'}")
    assert code == 2 and out == ""
    assert words in err and err.strip().splitlines()[-1].startswith("error: ")
    assert not (tmp_path / "never.db").exists()


def test_an_archive_line_over_the_input_cap_is_refused_before_it_is_kept(tmp_path, cli, monkeypatch):
    monkeypatch.setenv("HOPBENCH_MAX_INPUT_BYTES", "1000")
    path = tmp_path / "runs.jsonl.xz"
    header = b'{"format":"hopbench.runs/1","suite":"tiny","runs":1}\n'
    path.write_bytes(lzma.compress(header + b'{"a":"' + b"x" * 10_000_000 + b'"}\n'))
    code, _, err = cli("results", "--merge-from", path, "--storage", f"sqlite:///{tmp_path / 'never.db'}")
    assert code == 2 and "above the cap" in err and "HOPBENCH_MAX_INPUT_BYTES" in err
    assert len(err.strip().splitlines()) == 1
