"""``hopbench equality evaluate`` on a network of large diameter: text, --json and --check give an
answer or a one-line error (exit 2), never an OverflowError traceback."""
from __future__ import annotations

import json

import hopbench.harness.cli.equality as cli_equality

RING_LIKE = "N20000K6[-1,1,3,9](4)"  # d = 2,000: its Moore order is far beyond a float


def test_evaluate_a_ring_like_network_as_text_and_json(cli):
    code, out, err = cli("equality", "evaluate", RING_LIKE)
    assert code == 0, err
    assert "d 2000" in out and "MB% 0" in out
    code, out, err = cli("equality", "evaluate", RING_LIKE, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["d"] == 2000 and doc["MB_percent"] == 0.0 and doc["moore_bound"] is None


def test_check_runs_when_affordable(cli):
    code, out, err = cli("equality", "evaluate", "N2000K6[-1,1,3,9](4)", "--check", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["check"]["agrees"] and doc["check"]["d"] == doc["d"] == 200


def test_check_too_costly_is_a_one_line_error(cli, monkeypatch):
    # N=200,000 at d=20,000 is estimated at about 1,400 s; a tiny limit refuses this small one the same way
    monkeypatch.setattr(cli_equality, "CHECK_SECONDS", 1e-6)
    code, out, err = cli("equality", "evaluate", RING_LIKE, "--check")
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "--check's all-pairs BFS would take about" in lines[0] and "drop --check" in lines[0]
