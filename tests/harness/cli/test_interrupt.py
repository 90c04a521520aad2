"""Ctrl-C keeps work: SIGINT or SIGTERM during ``solve`` or ``route`` writes the best result so far, exit 130.

Real processes and real signals.  stderr is a pseudo-terminal, so the command shows its live line; the
signal is sent once that line shows an incumbent (the solver is past its warm-up and has found something).
The time limits are far beyond what the tests wait: only the signal can end these runs early.  Timeouts
below guard against a hang; nothing measures time.
"""
from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

COMMANDS = {
    "solve": ["solve", "--base", "torus:8x8", "--cap", "6", "--budget", "16", "--solver", "annealing"],
    "route": ["route", "--torus", "4x4x4", "--solver", "angara-ga", "--param", "patience=1000000",
              "max_generations=1000000"],
}


def run_until_incumbent_then_signal(argv: list[str], sig: int, cwd: Path) -> tuple[int, str, str]:
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "hopbench.harness.cli", *argv], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=slave, stdin=subprocess.DEVNULL, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    os.close(slave)
    seen = b""

    def read(wait: float) -> bool:
        nonlocal seen
        ready, _, _ = select.select([master], [], [], wait)
        if not ready:
            return False
        try:
            seen += os.read(master, 65536)
        except OSError:  # the process closed the terminal
            return False
        return True

    try:
        while not re.search(rb"incumbent \d", seen):
            if not read(300) or proc.poll() is not None:
                break
        assert re.search(rb"incumbent \d", seen), f"no incumbent shown: {seen[-500:]!r}"
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=300)
        while read(0.2):
            pass
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return proc.returncode, out, seen.decode(errors="replace")


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_signal_writes_the_best_so_far_and_exits_130(tmp_path, command, sig):
    out_file = tmp_path / "result.json"
    code, out, err = run_until_incumbent_then_signal(
        [*COMMANDS[command], "--time-limit", "3600", "-o", str(out_file)], sig, tmp_path)
    assert code == 130, out + err
    assert "interrupted:" in err and str(out_file) in err
    doc = json.loads(out_file.read_text())
    assert doc["interrupted"] is True
    incumbents = [float(v) for v in re.findall(r"incumbent (\d[\d.]*)", err)]
    # what was written is at least as good as the last incumbent shown before the signal
    assert doc["metrics"]["objective"] <= incumbents[-1] + 1e-6
    assert "objective" in out  # the result is printed too
    check = subprocess.run([sys.executable, "-m", "hopbench.harness.cli", "verify", str(out_file)], cwd=tmp_path,
                           capture_output=True, text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert check.returncode == 0, check.stdout + check.stderr
