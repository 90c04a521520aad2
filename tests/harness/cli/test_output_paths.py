"""No command writes over a file it reads: ``-o`` naming the store (or its -wal/-shm/-journal file, or a
link to it), the exported file, the base edge file or a suite file is a one-line error (exit 2) and the
input is left as it was; ``board -o DIR`` writes only its own files there and deletes only those;
``results --format csv`` neutralises spreadsheet formulas."""
from __future__ import annotations

import csv
import hashlib
import io
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
OLD_STORE = ROOT / "tests" / "data" / "stores" / "ad9cf91.db"  # the quick suite, 82 runs


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def store(tmp_path):
    db = tmp_path / "x.db"
    shutil.copy(OLD_STORE, db)
    return db


def refused(cli, *args) -> str:
    code, out, err = cli(*args)
    assert code == 2, (code, out, err)
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("out", ["x.db", "x.db-wal", "x.db-shm", "x.db-journal", "sub/../x.db", "sym.db", "hard.db"])
@pytest.mark.parametrize("fmt", ["table", "csv", "json", "parquet"])
def test_results_never_writes_over_its_store(cli, store, tmp_path, monkeypatch, out, fmt):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sym.db").symlink_to(store)
    os.link(store, tmp_path / "hard.db")
    before = digest(store)
    monkeypatch.chdir(tmp_path)
    err = refused(cli, "results", "--storage", "sqlite:///x.db", "--format", fmt, "-o", out)
    assert "results store" in err and "which this command reads" in err
    assert digest(store) == before
    code, text, _ = cli("results", "--storage", "sqlite:///x.db")
    assert code == 0 and "mesh:3x3" in text  # still a store


def test_results_default_store_and_merge_source_are_inputs(cli, store, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(store, tmp_path / "hopbench.db")  # the default store, sqlite:///hopbench.db
    before = digest(tmp_path / "hopbench.db")
    refused(cli, "results", "--format", "csv", "-o", "hopbench.db")
    assert digest(tmp_path / "hopbench.db") == before
    other = tmp_path / "other.db"
    shutil.copy(store, other)
    err = refused(cli, "results", "--storage", f"sqlite:///{store}", "--merge-from", f"sqlite:///{other}",
                  "-o", other)
    assert "other.db" in err and digest(other) == before
    err = refused(cli, "results", "--storage", f"sqlite:///{store}", "--merge-from", "sqlite:///./x.db")
    assert "--merge-from" in err and digest(store) == before


def test_results_never_writes_over_its_suite_file(cli, store, tmp_path):
    suite = tmp_path / "mine.toml"
    suite.write_text('name = "mine"\n')
    err = refused(cli, "results", "--storage", f"sqlite:///{store}", "--suite", suite, "-o", suite)
    assert "suite file" in err and suite.read_text() == 'name = "mine"\n'


def test_results_csv_neutralises_formulas_but_not_numbers(cli, store, tmp_path):
    with sqlite3.connect(store) as conn:
        conn.execute("""UPDATE runs SET error = '=HYPERLINK("http://evil.example")', objective = -3.5
                        WHERE id = (SELECT MIN(id) FROM runs)""")
        conn.execute("UPDATE runs SET host = '@SUM(1+1)'")
    out = tmp_path / "runs.csv"
    code, _, err = cli("results", "--storage", f"sqlite:///{store}", "--format", "csv", "-o", out)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert rows[0]["error"] == """'=HYPERLINK("http://evil.example")""" and rows[0]["objective"] == "-3.5"
    assert {r["host"] for r in rows} == {"'@SUM(1+1)"}


def test_export_never_writes_over_its_input(cli, tmp_path):
    sol = tmp_path / "a.json"
    code, _, err = cli("solve", "--base", "torus:4x4", "--cap", "6", "--budget", "2", "--solver", "random",
                       "-o", sol)
    assert code == 0, err
    before = digest(sol)
    (tmp_path / "link.json").symlink_to(sol)
    for out in (sol, tmp_path / "link.json"):
        err = refused(cli, "export", sol, "--format", "golf", "-o", out)
        assert "the file exported" in err
    assert digest(sol) == before
    edges = tmp_path / "g.edges"
    edges.write_text("0 1\n1 2\n2 3\n3 0\n")
    refused(cli, "export", "--topology", f"file:{edges}", "--format", "golf", "-o", edges)
    assert edges.read_text() == "0 1\n1 2\n2 3\n3 0\n"
    code, _, err = cli("export", sol, "--format", "golf", "-o", tmp_path / "a.edges")  # elsewhere: fine
    assert code == 0, err


def test_solve_never_writes_over_its_base_edge_file(cli, tmp_path):
    edges = tmp_path / "g.edges"
    edges.write_text("0 1\n1 2\n2 3\n3 0\n")
    err = refused(cli, "solve", "--base", f"file:{edges}", "--cap", "3", "--budget", "1", "--solver", "random",
                  "-o", edges)
    assert "edge file" in err and edges.read_text() == "0 1\n1 2\n2 3\n3 0\n"


# --------------------------------------------------------------------------- board -o DIR


def test_board_keeps_files_it_did_not_write_and_removes_its_stale_ones(cli, store, tmp_path):
    out = tmp_path / "lb"
    mine = {out / "site" / "custom.html": "my page", out / "quick" / "solutions" / "mine.json": "{}",
            out / "quick" / "notes.md": "notes", out / "README.md": "readme"}
    for path, text in mine.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    code, _, err = cli("board", "--storage", f"sqlite:///{store}", "-o", out)
    assert code == 0, err
    plots = sorted((out / "quick" / "plots").iterdir())
    assert plots
    code, _, err = cli("board", "--storage", f"sqlite:///{store}", "-o", out, "--no-plots")
    assert code == 0, err
    assert all(path.read_text() == text for path, text in mine.items())  # never touched
    assert not (out / "quick" / "plots").exists()  # the plots it wrote, no longer written: removed
    assert (out / "quick" / "board.md").exists() and (out / "site" / "quick.html").exists()


def test_board_never_writes_over_its_store(cli, store, tmp_path):
    out = tmp_path / "lb"
    (out / "quick").mkdir(parents=True)
    inside = out / "quick" / "board.csv"
    shutil.copy(store, inside)  # a store where the board would write its CSV
    before = digest(inside)
    err = refused(cli, "board", "--storage", f"sqlite:///{inside}", "-o", out, "--no-plots")
    assert "results store" in err and digest(inside) == before
    inside.unlink()  # else a file hopbench did not write, refused as such before the site is reached
    os.link(store, tmp_path / "hard.db")
    (out / "site").mkdir()
    os.link(store, out / "site" / "index.html")  # a hard link to the store where the site writes its index
    err = refused(cli, "board", "--storage", f"sqlite:///{tmp_path / 'hard.db'}", "-o", out, "--no-plots")
    assert "results store" in err and digest(store) == before


def test_board_refuses_a_file_where_it_makes_a_directory(cli, store, tmp_path):
    # the store itself where the site goes, then a file where the quick board's folder goes
    out = tmp_path / "lb"
    out.mkdir()
    shutil.copy(store, out / "site")
    before = digest(out / "site")
    err = refused(cli, "board", "--storage", f"sqlite:///{out / 'site'}", "-o", out, "--no-plots")
    assert "a file of that name is in the way" in err and digest(out / "site") == before
    assert sorted(p.name for p in out.iterdir()) == ["site"]  # no board written before the refusal
    (out / "site").unlink()
    (out / "quick").write_text("notes")
    err = refused(cli, "board", "--storage", f"sqlite:///{store}", "-o", out, "--no-plots")
    assert f"{out / 'quick'}" in err and (out / "quick").read_text() == "notes"


def test_run_never_makes_its_store_of_the_suite_file(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "instances" / "quick.toml", tmp_path / "q.toml")
    before = digest(tmp_path / "q.toml")
    for url in ("sqlite:///q.toml", f"sqlite:///{tmp_path}/sub/../q.toml"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        err = refused(cli, "run", "--suite", "q.toml", "--solver", "random", "--storage", url)
        assert "the suite file" in err
    assert digest(tmp_path / "q.toml") == before


def test_tune_never_saves_its_parameters_over_the_store_or_the_suite(cli, store, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "instances" / "quick.toml", tmp_path / "random.json")  # a suite file named like the output
    for suite, storage, what in (("./random.json", f"sqlite:///{store}", "the suite file"),
                                 ("quick", "sqlite:///random.json", "results store")):
        before = digest(tmp_path / "random.json")
        err = refused(cli, "tune", "random", "--suite", suite, "--trials", "1", "--save-to", ".",
                      "--storage", storage)
        assert what in err
        assert digest(tmp_path / "random.json") == before
