"""docs/python-api.md, executed: its shell command, then every Python block in order, in one process."""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "python-api.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(), re.S)


def test_the_python_api_walk_through_runs(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    commands = [line for block in blocks("bash") for line in block.splitlines() if line.startswith("hopbench ")]
    assert commands, "the page shows the command that records the runs it reads"
    for line in commands:
        argv = [sys.executable, "-m", "hopbench.harness.cli", *shlex.split(line)[1:]]
        run = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, f"{line}: {run.stderr[-2000:]}"
    code = blocks("python")
    assert len(code) >= 7, "build, solve, trace, save/verify, compare, plot, routing, suites, store"
    script = tmp_path / "walk_through.py"
    script.write_text("\n\n".join(code))
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    # what the page says it leaves behind
    assert (tmp_path / "anytime.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = json.loads((tmp_path / "torus8x8-annealing.json").read_text())
    assert saved["solver"]["name"] == "annealing" and len(saved["shortcuts"]) <= 16
    assert "\nvalid {" in run.stdout
    # the comparison table names both solvers
    assert re.search(r"^annealing\s", run.stdout, re.M) and re.search(r"^edgecut-full\s", run.stdout, re.M)
