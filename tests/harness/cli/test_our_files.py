"""Only our files are ours (issue 34, item 3): outputs never written through links, files hopbench did not
write never overwritten without --force, forged manifests trusted with nothing, read-only commands creating
no file for any URL spelling, in-memory stores refused."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[3]


def hopbench(*args, cwd=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd or ROOT, timeout=300)


def one_line_error(r) -> str:
    # a board may print a note first (its suite file is not at hand); the error is one line
    errors = [line for line in r.stderr.splitlines() if not line.startswith("note: ")]
    assert r.returncode == 2 and len(errors) == 1 and errors[0].startswith("error: "), r.stderr
    return errors[0]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("store") / "s.db"
    suite = db.parent / "mini.toml"
    suite.write_text('name = "mini"\ndescription = "d"\n[[instances]]\nbase = "ring:8"\ncap = 3\nbudget = 2\n')
    r = hopbench("run", "--suite", suite, "--solver", "random", "--storage", f"sqlite:///{db}", "--no-progress")
    assert r.returncode == 0, r.stderr
    return db


@pytest.mark.parametrize("command", [
    ["solve", "--base", "ring:8", "--cap", "3", "--budget", "1", "--solver", "random"],
    ["route", "--torus", "3x3", "--solver", "dor"],
    "results",
])
def test_an_output_symlink_is_replaced_never_written_through(tmp_path, store, command):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "out.json"
    link.symlink_to(victim)
    args = ["results", "--storage", f"sqlite:///{store}", "--format", "json"] if command == "results" else command
    r = hopbench(*args, "-o", link)
    assert r.returncode == 0, r.stderr
    assert victim.read_text() == "precious" and not link.is_symlink() and link.stat().st_size > 0


def _commands(store: Path) -> dict[str, list[str]]:
    """Every command that writes one ``-o`` file, with arguments that make it quick."""
    return {
        "solve": ["solve", "--base", "ring:8", "--cap", "3", "--budget", "1", "--solver", "random"],
        "route": ["route", "--torus", "3x3", "--solver", "dor"],
        "export": ["export", "--topology", "ring:8", "--format", "golf"],
        "simulate": ["simulate", "--topology", "ring:4", "--traffic", "uniform", "--routing", "updown",
                     "--loads", "0.1:0.1:0.1", "--param", "warmup_periods=1", "--param", "sample_period=100",
                     "--param", "max_samples=2"],
        "results": ["results", "--storage", f"sqlite:///{store}", "--format", "csv"],
    }


@pytest.mark.parametrize("name", ["solve", "route", "export", "simulate", "results"])
def test_an_output_file_hopbench_did_not_write_is_kept_unless_forced(tmp_path, store, cli, name):
    args = _commands(store)[name]
    theirs = tmp_path / "theirs.out"
    theirs.write_text("my own notes")
    code, _, err = cli(*args, "-o", theirs)
    assert code == 2 and err.count("\n") == 1 and "hopbench did not write it" in err and "--force" in err, err
    assert theirs.read_text() == "my own notes"
    # its own output is rewritten without a word; once edited, it is the user's again
    ours = tmp_path / "ours.out"
    for _ in range(2):
        code, _, err = cli(*args, "-o", ours)
        assert code == 0, err
    ours.write_text(ours.read_text() + "edited\n")
    assert cli(*args, "-o", ours)[0] == 2 and ours.read_text().endswith("edited\n")
    code, _, err = cli(*args, "-o", theirs, "--force")
    assert code == 0, err
    assert theirs.read_text() != "my own notes"


def test_a_simulation_plot_is_never_written_through_a_link_nor_over_a_file_not_ours(tmp_path, cli):
    victim = tmp_path / "victim.png"
    victim.write_text("precious")
    link = tmp_path / "plot.png"
    link.symlink_to(victim)
    args = _commands(Path("unused"))["simulate"]
    code, _, err = cli(*args, "--plot", link)
    assert code == 0, err
    assert victim.read_text() == "precious" and not link.is_symlink() and link.read_bytes()[:4] == b"\x89PNG"
    code, _, err = cli(*args, "--plot", victim)
    assert code == 2 and "hopbench did not write it" in err and victim.read_text() == "precious"


@pytest.mark.parametrize("target, words", [("/dev/full", "No space left"), ("missing/x.json", "does not exist"),
                                           ("a" * 300, "File name too long")])
def test_output_errors_are_one_line_and_leave_no_file(tmp_path, target, words):
    r = hopbench("solve", "--base", "ring:8", "--cap", "3", "--budget", "1", "--solver", "random", "-o", target,
                 cwd=tmp_path)
    assert words in one_line_error(r)
    assert list(tmp_path.iterdir()) == []


def test_a_board_md_hopbench_did_not_write_needs_force(tmp_path, store, cli):
    # in this process (the same main() as the command): the point is the files, not the process boundary
    out = tmp_path / "lb"
    args = ["board", "--storage", f"sqlite:///{store}", "--suite", "mini", "-o", out, "--no-plots"]
    assert cli(*args)[0] == 0
    assert cli(*args)[0] == 0  # its own files: rebuilt without a word
    (out / "mini" / "board.md").write_text("my own notes")
    code, _, err = cli(*args)
    assert "board.md: hopbench did not write it" in one_line_error(SimpleNamespace(returncode=code, stderr=err))
    assert (out / "mini" / "board.md").read_text() == "my own notes"
    assert cli(*args, "--force")[0] == 0
    assert (out / "mini" / "board.md").read_text() != "my own notes"


def test_a_manifest_placed_by_someone_else_deletes_nothing(tmp_path, store, cli):
    out = tmp_path / "lb"
    args = ["board", "--storage", f"sqlite:///{store}", "--suite", "mini", "-o", out, "--no-plots"]
    assert cli(*args)[0] == 0
    theirs = out / "mini" / "theirs.txt"
    theirs.write_text("theirs")
    manifest = out / "mini" / ".hopbench-manifest.json"
    doc = json.loads(manifest.read_text())
    import hashlib

    doc["files"]["theirs.txt"] = hashlib.sha256(b"theirs").hexdigest()  # forged: the signature no longer fits
    manifest.write_text(json.dumps(doc))
    code, _, err = cli(*args, "--force")
    assert code == 0, err
    assert theirs.read_text() == "theirs"


@pytest.mark.parametrize("url", ["sqlite:///file:x.db?uri=true", "sqlite:///file:x.db", "sqlite:///x.db",
                                 "sqlite:///file:x.db?uri=true&mode=rwc"])
@pytest.mark.parametrize("command", ["results", "board"])
def test_reading_commands_create_no_file_for_any_url_spelling(tmp_path, url, command):
    r = hopbench(command, "--storage", url, *(["-o", "lb"] if command == "board" else []), cwd=tmp_path)
    assert "does not exist" in one_line_error(r)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:", "sqlite:///file::memory:?uri=true",
                                 "sqlite:///file:x?mode=memory&uri=true"])
@pytest.mark.parametrize("command", [["results"], ["board", "-o", "lb"], ["run", "--suite", "quick", "--no-progress"]])
def test_in_memory_stores_are_refused(tmp_path, url, command):
    r = hopbench(*command, "--storage", url, cwd=tmp_path)
    assert "lives in memory" in one_line_error(r)
    assert list(tmp_path.iterdir()) == []
