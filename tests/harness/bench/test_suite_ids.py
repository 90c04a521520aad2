"""Instance ids are facts about the problem, not names (issue 34, item 2)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hopbench.harness.bench.suites import list_suites, load_suite

ROOT = Path(__file__).resolve().parents[3]


def hopbench(*args, cwd=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd or ROOT, timeout=300)


def test_a_private_suite_cannot_file_rows_under_a_published_id(tmp_path):
    suite = tmp_path / "private.toml"
    suite.write_text('name = "private"\ndescription = "d"\n[[instances]]\nid = "ring:16/cap10/b8/aspl"\n'
                     'base = "ring:8"\ncap = 3\nbudget = 2\n')
    db = tmp_path / "r.db"
    for args in (["instances", suite], ["run", "--suite", suite, "--storage", f"sqlite:///{db}", "--no-progress"]):
        r = hopbench(*args)
        assert r.returncode == 2 and r.stdout == "", r.stdout
        assert r.stderr.count("\n") == 1 and "id 'ring:16/cap10/b8/aspl' is not the id of the problem" in r.stderr
        assert "'ring:8/cap3/b2/aspl'" in r.stderr
    assert not db.exists()


def test_an_explicit_id_equal_to_the_derived_one_loads(tmp_path):
    suite = tmp_path / "fine.toml"
    suite.write_text('name = "fine"\ndescription = "d"\n[[instances]]\nid = "ring:8/cap3/b2/aspl"\n'
                     'base = "ring:8"\ncap = 3\nbudget = 2\n')
    assert [i.id for i in load_suite(suite).instances] == ["ring:8/cap3/b2/aspl"]


@pytest.mark.parametrize("name", list_suites())
def test_every_shipped_suite_keeps_its_ids(name):
    # the published ids were written by hand in some suites (edgecut2022): each must be its problem's
    suite = load_suite(name)
    assert len({i.id for i in suite.instances}) == len(suite.instances)
