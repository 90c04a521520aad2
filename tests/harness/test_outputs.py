"""Safe output paths (:mod:`hopbench.harness.outputs`): an output never replaces a file the command reads (links
and the SQLite companions included), and an owned directory writes only inside itself and removes only
files it wrote."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.outputs import (MANIFEST, OwnedDirectory, refuse_overwriting_inputs, safe_name, same_path, sqlite_paths,
                             store_files)


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize("name", ["quick", "edgecut2022", "exact-small", "a.b_c", "_x", "E361"])
def test_safe_names_pass(name):
    assert safe_name(name, "suite") == name


@pytest.mark.parametrize("name", ["", ".", "..", "../../elsewhere", "/etc", "a/b", "a\\b", ".hidden", "-rf", "a b",
                                  "x\n", "ü", "a" * 201, None, 5, ["a"]])
def test_unsafe_names_are_one_line_errors(name):
    with pytest.raises(HopbenchError) as info:
        safe_name(name, "suite")
    assert "\n" not in str(info.value) and "cannot name a file" in str(info.value)


# --------------------------------------------------------------------------- SQLite files of a URL


@pytest.mark.parametrize("url, expected", [
    ("sqlite:///x.db", ["x.db", "x.db-wal", "x.db-shm", "x.db-journal"]),
    ("sqlite:////abs/x.db", ["/abs/x.db", "/abs/x.db-wal", "/abs/x.db-shm", "/abs/x.db-journal"]),
    ("sqlite+pysqlite:///d/x.db", ["d/x.db", "d/x.db-wal", "d/x.db-shm", "d/x.db-journal"]),
    ("sqlite://", []), ("sqlite:///:memory:", []), ("postgresql://u:secret@host/db", []), ("not a url", []),
    (None, []), ("sqlite:///file:m?mode=memory&uri=true", []),
])
def test_sqlite_paths(url, expected):
    assert [str(p) for p in sqlite_paths(url)] == expected


def test_a_uri_filename_counts_both_ways():
    paths = {str(p) for p in sqlite_paths("sqlite:///file:x%20y.db?mode=ro&uri=true")}
    assert {"x y.db", "x y.db-wal", "file:x y.db"} <= paths


# --------------------------------------------------------------------------- outputs over inputs


@pytest.fixture
def store(tmp_path):
    db = tmp_path / "x.db"
    db.write_bytes(b"SQLite format 3\0")
    return db


def refused(out, reads) -> str:
    with pytest.raises(HopbenchError) as info:
        refuse_overwriting_inputs(out, reads)
    assert "\n" not in str(info.value)
    return str(info.value)


def test_the_store_its_companions_and_links_to_it_are_refused(store, tmp_path):
    reads = store_files(f"sqlite:///{store}")
    assert "results store" in refused(store, reads)
    assert "-wal file" in refused(tmp_path / "x.db-wal", reads)  # refused even before it exists
    assert "-shm file" in refused(tmp_path / "x.db-shm", reads)
    (tmp_path / "sym.db").symlink_to(store)
    os.link(store, tmp_path / "hard.db")
    refused(tmp_path / "sym.db", reads)
    refused(tmp_path / "hard.db", reads)
    (tmp_path / "dangling").symlink_to(tmp_path / "x.db-journal")
    refused(tmp_path / "dangling", reads)
    # a relative spelling of the same file
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        refused("x.db", store_files("sqlite:///./sub/../x.db"))
    finally:
        os.chdir(cwd)
    refuse_overwriting_inputs(tmp_path / "other.csv", reads)  # any other file is fine
    assert "x.db" in refused(store, [store])  # a plain list of paths works too


def test_same_path(tmp_path):
    a = tmp_path / "a"
    a.write_text("1")
    assert same_path(a, tmp_path / "." / "a") and not same_path(a, tmp_path / "b")
    assert same_path(tmp_path / "new", tmp_path / "new")  # neither exists


# --------------------------------------------------------------------------- the owned directory


def build(root: Path, files: dict[str, str], **kw) -> OwnedDirectory:
    with OwnedDirectory(root, **kw) as d:
        for rel, text in files.items():
            d.write_text(rel, text)
    return d


def test_owned_directory_writes_records_and_removes_only_its_stale_files(tmp_path):
    root = tmp_path / "out" / "suite"
    build(root, {"board.md": "a", "solutions/one.json": "1", "solutions/two.json": "2", "plots/p.png": "p"})
    manifest = json.loads((root / MANIFEST).read_text())
    assert sorted(manifest["files"]) == ["board.md", "plots/p.png", "solutions/one.json", "solutions/two.json"]
    (root / "solutions" / "theirs.json").write_text("someone else's")
    (root / "solutions" / "two.json").write_text("edited by hand")  # changed since: not ours any more
    (root / "notes.txt").write_text("keep")
    d = build(root, {"board.md": "b", "solutions/three.json": "3"})
    assert sorted(d.removed) == ["plots/p.png", "solutions/one.json"]
    assert (root / "board.md").read_text() == "b"
    left = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    assert left == [MANIFEST, "board.md", "notes.txt", "solutions/theirs.json", "solutions/three.json",
                    "solutions/two.json"]
    assert not (root / "plots").exists()  # emptied by the removal


def test_owned_directory_after_an_error_removes_nothing_and_keeps_owning(tmp_path):
    root = tmp_path / "d"
    build(root, {"a.txt": "a", "b.txt": "b"})
    with pytest.raises(RuntimeError), OwnedDirectory(root) as d:
        d.write_text("c.txt", "c")
        raise RuntimeError("boom")
    assert (root / "a.txt").exists() and (root / "b.txt").exists()
    assert sorted(json.loads((root / MANIFEST).read_text())["files"]) == ["a.txt", "b.txt", "c.txt"]
    build(root, {"a.txt": "a"})
    assert sorted(p.name for p in root.iterdir()) == [MANIFEST, "a.txt"]


@pytest.mark.parametrize("rel", ["../x", "/etc/passwd", "a/../../x", "./a", "a//b", "", ".hidden", "a\\..\\x",
                                 MANIFEST, "a/.git/config", None])
def test_owned_directory_refuses_paths_that_escape(tmp_path, rel):
    root = tmp_path / "d"
    with pytest.raises(HopbenchError) as info:
        OwnedDirectory(root).write_text(rel, "x")
    assert "\n" not in str(info.value)
    assert not any(p.is_file() for p in tmp_path.rglob("*"))


def test_owned_directory_does_not_follow_symlinks_out(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "out" / "suite"
    root.mkdir(parents=True)
    (root / "solutions").symlink_to(outside, target_is_directory=True)
    (root / "board.md").symlink_to(outside / "victim.md")
    d = OwnedDirectory(root)
    for rel in ("solutions/a.json", "board.md"):
        with pytest.raises(HopbenchError, match="leads out of"):
            d.write_text(rel, "x")
    assert list(outside.iterdir()) == []
    # the directory itself must stay inside -o once links are resolved
    (tmp_path / "out" / "evil").symlink_to(outside, target_is_directory=True)
    with pytest.raises(HopbenchError, match="leads out of"):
        OwnedDirectory(tmp_path / "out" / "evil", inside=tmp_path / "out")


def test_owned_directory_refuses_a_file_in_the_place_of_a_directory(tmp_path):
    (tmp_path / "root").write_text("x")
    with pytest.raises(HopbenchError, match="a file of that name is in the way"):
        OwnedDirectory(tmp_path / "root")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "plots").write_text("x")
    with pytest.raises(HopbenchError, match="a file of that name is in the way"):
        OwnedDirectory(tmp_path / "d").write_text("plots/a.png", "y")
    assert (tmp_path / "d" / "plots").read_text() == "x"


def test_a_link_inside_is_replaced_not_written_through(tmp_path):
    root = tmp_path / "d"
    root.mkdir()
    (root / "target.txt").write_text("theirs")
    (root / "board.md").symlink_to(root / "target.txt")
    os.link(root / "target.txt", root / "hard.md")
    # not hopbench's files: refused without --force (issue 34), replaced, never written through, with it
    for rel in ("board.md", "hard.md"):
        with pytest.raises(HopbenchError, match="hopbench did not write it"):
            build(root, {rel: "ours"})
    build(root, {"board.md": "ours", "hard.md": "ours too"}, force=True)
    assert (root / "target.txt").read_text() == "theirs"
    assert not (root / "board.md").is_symlink() and (root / "board.md").read_text() == "ours"


def test_a_hostile_manifest_removes_nothing_outside(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    root = tmp_path / "out" / "d"
    root.mkdir(parents=True)
    digest = __import__("hashlib").sha256(b"precious").hexdigest()
    doc = {"format": "hopbench.manifest/1", "files": {"../../victim.txt": digest, str(victim): digest}}
    (root / MANIFEST).write_text(json.dumps(doc))
    build(root, {"a.txt": "a"})
    assert victim.read_text() == "precious"
    for broken in ("[" * 100_000, "not json", '{"format": "hopbench.manifest/1", "files": [1]}'):
        (root / MANIFEST).write_text(broken)
        build(root, {"b.txt": "b"}, force=True)  # an unreadable manifest owns nothing (b.txt is no longer ours)
        assert (root / "a.txt").exists()


def test_protected_files_are_never_written(store, tmp_path):
    root = tmp_path / "out"
    os.link(store, tmp_path / "linked")
    root.mkdir()
    os.link(store, root / "board.csv")
    with pytest.raises(HopbenchError, match="results store"):
        build(root, {"board.csv": "x"}, protect=store_files(f"sqlite:///{store}"))
    assert store.read_bytes() == b"SQLite format 3\0"
    with pytest.raises(HopbenchError, match="results store"):  # the store inside the directory, by path
        build(tmp_path, {"x.db-wal": "x"}, protect=store_files(f"sqlite:///{store}"))


def test_replace_file_leaves_no_temporary_file_whatever_stops_it(tmp_path, monkeypatch):
    from hopbench.harness.outputs import replace_file

    target = tmp_path / "t.json"
    target.write_text("old")
    real_fdopen = os.fdopen

    def interrupted(fd, *args, **kwargs):
        real_fdopen(fd, *args, **kwargs).close()
        raise KeyboardInterrupt  # Ctrl-C in the middle of a large write

    monkeypatch.setattr(os, "fdopen", interrupted)
    with pytest.raises(KeyboardInterrupt):
        replace_file(target, b"new", "hint")
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]
    monkeypatch.setattr(os, "fdopen", real_fdopen)
    replace_file(target, b"new", "hint")
    assert target.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]


def test_an_output_is_ours_while_it_holds_what_hopbench_wrote_there(tmp_path, monkeypatch):
    from hopbench.harness import outputs

    monkeypatch.setenv(outputs.DATA_DIR_ENV, str(tmp_path / "data"))
    out = tmp_path / "x.json"
    outputs.write_output_file(out, "first\n")
    outputs.write_output_file(out, "second\n")  # its own bytes: rewritten without a word
    assert out.read_text() == "second\n"
    out.write_text("second\nmy edit\n")
    with pytest.raises(HopbenchError, match="hopbench did not write it .or it changed since.; .* --force"):
        outputs.write_output_file(out, "third\n")
    assert out.read_text() == "second\nmy edit\n"
    outputs.write_output_file(out, "third\n", force=True)
    assert out.read_text() == "third\n"
    # the same bytes at another path are not ours there, nor are they for another user's ledger
    other = tmp_path / "y.json"
    other.write_text("third\n")
    with pytest.raises(HopbenchError, match="did not write it"):
        outputs.write_output_file(other, "x")
    monkeypatch.setenv(outputs.DATA_DIR_ENV, str(tmp_path / "someone-else"))
    with pytest.raises(HopbenchError, match="did not write it"):
        outputs.write_output_file(out, "fourth\n")
    # an empty file holds nothing to lose (mktemp's); a link is replaced, never its target
    empty = tmp_path / "empty.json"
    empty.touch()
    outputs.write_output_file(empty, "x")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "link.json").symlink_to(victim)
    outputs.write_output_file(tmp_path / "link.json", "x")
    assert victim.read_text() == "precious"


def test_the_output_ledger_keeps_its_newer_half_past_its_size(tmp_path, monkeypatch):
    from hopbench.harness import outputs

    monkeypatch.setenv(outputs.DATA_DIR_ENV, str(tmp_path / "data"))
    monkeypatch.setattr(outputs, "MAX_LEDGER_BYTES", 65 * 10)  # ten lines
    paths = [tmp_path / f"f{i}.txt" for i in range(15)]
    for p in paths:
        outputs.write_output_file(p, p.name)
    assert (tmp_path / "data" / outputs.LEDGER_FILE).stat().st_size <= 65 * 10
    outputs.write_output_file(paths[-1], "again")  # the newest are still known
    with pytest.raises(HopbenchError, match="did not write it"):
        outputs.write_output_file(paths[0], "again")  # the oldest were dropped: --force needed
