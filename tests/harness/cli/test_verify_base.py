"""``verify`` refuses a solution whose embedded base contradicts the base its spec names (issue 34, item 2)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def hopbench(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300)


def solved(tmp_path: Path, base: str) -> dict:
    out = tmp_path / "s.json"
    r = hopbench("solve", "--base", base, "--cap", "3", "--budget", "0", "--solver", "random", "-o", out)
    assert r.returncode == 0, r.stderr
    return json.loads(out.read_text())


def verify(tmp_path: Path, doc: dict):
    p = tmp_path / "v.json"
    p.write_text(json.dumps(doc))
    return hopbench("verify", p)


def test_embedded_edges_of_a_path_under_the_name_ring8_are_refused(tmp_path):
    doc = solved(tmp_path, "ring:8")
    path = [[i, i + 1] for i in range(7)]
    # metrics of the path itself, so that only the base can give the lie away
    doc.update(base_n=8, base_edges=path, metrics={"diameter": 7, "aspl": 3.0, "objective": 3.0})
    r = verify(tmp_path, doc)
    assert r.returncode == 1 and "the embedded base_edges are not the graph 'ring:8' names" in r.stdout, r.stdout


def test_embedded_edges_that_contradict_an_edge_file_that_is_here_are_refused(tmp_path):
    edges = tmp_path / "ring8.edges"
    edges.write_text("".join(f"{i} {(i + 1) % 8}\n" for i in range(8)))
    doc = solved(tmp_path, f"file:{edges}")
    assert verify(tmp_path, doc).returncode == 0
    doc.update(base_edges=[[i, i + 1] for i in range(7)], metrics={"diameter": 7, "aspl": 3.0, "objective": 3.0})
    r = verify(tmp_path, doc)
    assert r.returncode == 1 and "are not the graph" in r.stdout, r.stdout
    edges.unlink()  # gone: the embedded edges stand in for it, as they are meant to
    assert verify(tmp_path, doc).returncode == 0


def test_a_base_n_that_contradicts_the_named_base_is_refused(tmp_path):
    doc = solved(tmp_path, "ring:8")
    doc["base_n"] = 4
    r = verify(tmp_path, doc)
    assert r.returncode == 1 and "base_n 4 contradicts the base 'ring:8'" in r.stdout, r.stdout
