"""The README's "A first session, step by step": every command of the guide runs, in order, as a user
types it (in one fresh directory, so step 3's board reads step 2's runs), and does what the text says."""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def guide_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    guide = readme.split("## A first session, step by step", 1)[1].split("\n## ", 1)[0]
    return [line for block in re.findall(r"```bash\n(.*?)```", guide, re.S) for line in block.splitlines()
            if line.startswith("hopbench ")]


def test_every_command_of_the_readme_guide_runs(tmp_path):
    commands = guide_commands()
    assert [c.split()[1] for c in commands] == ["solve", "verify", "run", "results", "board", "tune", "solve",
                                                "export"]
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg", HOPBENCH_TUNED_DIR=str(tmp_path / "tuned"))
    outputs = {}
    for line in commands:
        argv = [sys.executable, "-m", "hopbench.harness.cli", *shlex.split(line)[1:]]
        r = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, f"{line}: {r.stderr[-2000:]}"
        outputs[line] = r.stdout
    # what the text says each step leaves behind
    assert json.loads((tmp_path / "torus8.json").read_text())["solver"]["name"] == "edgecut-full"
    assert outputs[commands[1]].startswith("valid")
    results = outputs[commands[3]]
    assert all(name in results for name in ("edgecut-full", "vrs", "random"))
    assert (tmp_path / "boards" / "site" / "index.html").is_file()
    assert (tmp_path / "boards" / "edgecut2022" / "board.md").is_file()
    golf = json.loads((tmp_path / "golf32.json").read_text())
    assert golf["problem"]["objective"] == "golf" and len(golf["shortcuts"]) <= 64
    edges = (tmp_path / "golf32.edges").read_text().split("\n")
    assert len([e for e in edges if e.strip()]) == len(golf["shortcuts"])
