"""leaderboards/publish.sh refuses a SUITES list naming a suite it does not publish, before running anything."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "leaderboards" / "publish.sh"


def test_an_unknown_suite_is_refused_before_anything_runs(tmp_path):
    env = {**os.environ, "SUITES": "graphgolf,nonsense", "STORE": f"sqlite:///{tmp_path / 'never.db'}"}
    out = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1] == ("error: SUITES names nonsense, which is not a published suite; "
                                                  "use some of edgecut2022,koibuchi2012,equality2022,angara2021,"
                                                  "exact-small,graphgolf")
    assert not (tmp_path / "never.db").exists()


def test_every_published_suite_has_its_commands_and_a_provenance_file():
    text = SCRIPT.read_text()
    suites = text.split("ALL_SUITES=", 1)[1].split("\n", 1)[0].split(",")
    provenance = SCRIPT.parent / "provenance"
    for suite in suites:
        assert f"publish_{suite}() {{" in text, suite
        assert (SCRIPT.parent / suite).is_dir() == (provenance / f"{suite}.md").is_file(), suite
