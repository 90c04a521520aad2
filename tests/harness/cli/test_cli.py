"""The hopbench command: documented forms, and one-line errors with exit code 2 for bad input."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GRAPHGOLF


def test_evaluate_edge_file_json(cli):
    code, out, err = cli("evaluate", GRAPHGOLF / "n72d4.edges", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["n"] == 72 and doc["m"] == 144 and doc["max_degree"] == 4
    assert doc["diameter"] == 4 and abs(doc["aspl"] - 2.9859154930) < 1e-9
    assert doc["lower_bound"] == {"diameter": 4, "aspl": pytest.approx(2.9859154930, abs=1e-9)}


def test_evaluate_topology_text_and_disconnected_json(cli):
    code, out, _ = cli("evaluate", "--topology", "hring:8x8")
    assert code == 0 and "diameter 12" in out
    code, out, _ = cli("evaluate", "--topology", "empty:4", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["diameter"] is None and doc["connected"] is False


def test_evaluate_fault_tolerance(cli):
    code, out, _ = cli("evaluate", "--topology", "ring:32", "--fault-tolerance", "3", "--json")
    assert code == 0 and json.loads(out)["fault_tolerance"]["mean_percent"] == 1.0


def test_solve_write_and_verify(cli, tmp_path):
    path = tmp_path / "sol.json"
    code, out, err = cli("solve", "--base", "torus:8x8", "--cap", "10", "--budget", "16", "--solver", "random",
                         "--seed", "1", "-o", path)
    assert code == 0, err
    doc = json.loads(path.read_text())
    assert doc["format"] == "hopbench.solution/1" and len(doc["shortcuts"]) == 16
    assert doc["problem"] == {"base": "torus:8x8", "degree_cap": 10, "budget": 16, "objective": "aspl",
                              "family": None}
    assert doc["solver"] == {"name": "random", "params": {}} and doc["seed"] == 1
    # docs/cli.md (moved there from the README) shows this very document: keep its first shortcuts and metrics true
    readme = (Path(__file__).resolve().parents[3] / "docs" / "cli.md").read_text()
    assert f'"shortcuts": {json.dumps(doc["shortcuts"][:2])[:-1]}, ...]' in readme
    assert f'"aspl": {doc["metrics"]["aspl"]!r}' in readme
    code, out, _ = cli("verify", path)
    assert code == 0 and out.startswith("valid")
    code, out, _ = cli("verify", path, "--json")
    assert json.loads(out)["valid"] is True


def test_solve_json_is_deterministic(cli):
    args = ("solve", "--base", "mesh:5x5", "--cap", "6", "--budget", "7", "--solver", "random", "--seed", "4",
            "--json")
    a = json.loads(cli(*args)[1])
    b = json.loads(cli(*args)[1])
    assert a["shortcuts"] == b["shortcuts"]


def test_verify_mismatch_exits_1(cli, tmp_path):
    path = tmp_path / "sol.json"
    cli("solve", "--base", "ring:20", "--cap", "4", "--budget", "3", "--solver", "random", "-o", path)
    doc = json.loads(path.read_text())
    doc["metrics"]["diameter"] = 1
    path.write_text(json.dumps(doc))
    code, out, _ = cli("verify", path)
    assert code == 1 and "stored diameter" in out
    doc["shortcuts"] = [[0, 1]]
    path.write_text(json.dumps(doc))
    code, out, _ = cli("verify", path)
    assert code == 1 and "already an edge" in out


def test_solvers_lists_parameters(cli):
    code, out, _ = cli("solvers", "--json")
    rows = {r["name"]: r for r in json.loads(out)}
    assert code == 0 and "random" in rows and rows["random"]["kinds"] == ["shortcut"]
    for row in rows.values():
        for p in row["params"].values():
            assert {"default", "type", "help"} <= set(p)


def _command_paths(parser, prefix=()):
    """Every (sub)command's argument path, e.g. ("equality", "evaluate"), found in the parser itself."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name)
                yield from _command_paths(sub, (*prefix, name))


def test_every_command_has_help(cli):
    from hopbench.harness.cli import build_parser

    code, out, _ = cli("--help")
    assert code == 0
    paths = list(_command_paths(build_parser()))
    assert {("evaluate",), ("solve",), ("verify",), ("solvers",), ("equality", "evaluate")} <= set(paths)
    for path in paths:
        code, out, err = cli(*path, "--help")
        assert code == 0 and "usage" in out, (path, err)


def _bad_inputs(tmp_path):
    """Pairs of (arguments, expected fragment of the one-line error)."""
    bad_edges = tmp_path / "bad.edges"
    bad_edges.write_text("0 1\n1 two\n")
    out_of_range = tmp_path / "range.gph"
    out_of_range.write_text("p edge 3 2\ne 1 2\ne 2 9\n")
    not_json = tmp_path / "x.json"
    not_json.write_text("{oops")
    missing = tmp_path / "missing_field.json"
    missing.write_text(json.dumps({"format": "hopbench.solution/1", "problem": {"base": "ring:8"}}))
    wrong_type = tmp_path / "wrong_type.json"
    wrong_type.write_text(json.dumps({"format": "hopbench.solution/1",
                                      "problem": {"base": "ring:8", "degree_cap": 3, "budget": "2"},
                                      "shortcuts": [], "metrics": {}}))
    solve = ["solve", "--cap", "10", "--budget", "4", "--solver", "random"]
    from hopbench.harness.bench.store import Store

    for name in ("r.db", "b.db"):  # reading commands refuse a store that does not exist: make them empty
        Store.open(f"sqlite:///{tmp_path / name}").close()
    return [
        (["evaluate", bad_edges], "expected two vertex ids"),
        (["evaluate", out_of_range], "declared n"),
        (["evaluate", tmp_path / "nope.edges"], "does not exist"),
        (["evaluate"], "exactly one"),
        (["evaluate", "--topology", "torus:0x4"], "at least 2"),
        (["evaluate", "--topology", "mesh:4"], "at least 2 dimensions"),
        (["evaluate", "--topology", "blob:4"], "unknown topology kind"),
        (["solve", "--base", "mesh:4x4", "--cap", "3", "--budget", "2", "--solver", "random"], "below the base"),
        (["solve", "--base", "ring:8", "--cap", "4", "--budget", "-1", "--solver", "random"], "budget must be >= 0"),
        (["solve", "--base", "ring:8", "--cap", "4", "--budget", "2", "--solver", "nosuch"], "unknown solver"),
        (["solve", "--base", "ring:8", "--cap", "4", "--budget", "2", "--solver", "random", "--param", "t=3"],
         "has no parameter"),
        (["solve", "--base", "ring:8", "--cap", "4", "--budget", "2", "--solver", "random", "--param", "t"],
         "NAME=VALUE"),
        (["solve", "--base", "ring:8", "--cap", "4", "--budget", "2", "--solver", "random", "--time-limit", "-3"],
         "positive number"),
        (["solve", "--base", "ring:8", "--cap", "four", "--budget", "2", "--solver", "random"], "invalid int"),
        (solve + ["--base", "ring:8", "--objective", "speed"], "invalid choice"),
        (solve + ["--base", "ring:8", "--family", "dragonfly"], "unknown problem family"),
        (solve + ["--base", "ring:8", "-o", tmp_path / "no" / "dir.json"], "does not exist"),
        (["verify", not_json], "not valid JSON"),
        (["verify", missing], "missing field"),
        (["verify", wrong_type], "must be int"),
        (["verify", tmp_path / "absent.json"], "does not exist"),
        (["frobnicate"], "invalid choice"),
        (solve + ["--base", "ring:8", "--seed", "-1"], "a seed is a non-negative integer"),
        (["evaluate", "--topology", "ring:16", "--fault-tolerance", "2", "--seed", "-1"], "non-negative integer"),
        (["run", "--suite", "quick", "--seed-list", "2,-1", "--storage", f"sqlite:///{tmp_path / 'never.db'}"],
         "non-negative seeds"),
        (solve + ["--base", "ring:8", "-o", tmp_path], "it is a directory"),
        (["route", "--torus", "4x4", "--solver", "dor", "-o", tmp_path], "it is a directory"),
        (["export", "--topology", "ring:8", "--format", "golf", "-o", tmp_path], "it is a directory"),
        (["results", "--storage", f"sqlite:///{tmp_path / 'r.db'}", "-o", tmp_path], "it is a directory"),
        (["instances", tmp_path], "is a directory"),
        (["equality", "cost", "ring:16", "--bandwidth", "0"], "positive number of Gb/s"),
        (["results", "--storage", f"sqlite:///{tmp_path / 'r.db'}", "--solver", "edgecut-ful"], "no such solver"),
        (["board", "--suite", "nosuchsuite", "--storage", f"sqlite:///{tmp_path / 'b.db'}", "-o", tmp_path / "b"],
         "no recorded runs of suite 'nosuchsuite'"),
    ]


def test_bad_inputs_give_one_line_errors_and_exit_2(cli, tmp_path):
    cases = _bad_inputs(tmp_path)
    assert len(cases) >= 15
    for args, fragment in cases:
        code, out, err = cli(*args)
        assert code == 2, (args, code, out, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, err)
        assert fragment in lines[0], (args, lines[0])
    assert not (tmp_path / "never.db").exists()  # a bad argument is refused before the store is created


def test_console_script_exit_codes(tmp_path):
    """The installed entry point behaves like the in-process one."""
    r = subprocess.run([sys.executable, "-m", "hopbench.harness.cli", "evaluate", "--topology", "torus:0x4"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1
    r = subprocess.run([sys.executable, "-m", "hopbench.harness.cli", "evaluate", "--topology", "ring:10", "--json"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and json.loads(r.stdout)["diameter"] == 5


def test_a_reader_that_stops_early_gets_no_traceback():
    """``hopbench solvers --json | head -1``: the closed pipe ends the command quietly."""
    proc = subprocess.Popen([sys.executable, "-m", "hopbench.harness.cli", "solvers", "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[3])
    proc.stdout.readline()
    proc.stdout.close()  # like head: one line, then gone
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) in (0, 141)
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_evaluate_announces_a_long_measurement_and_ctrl_c_may_end_it(cli, monkeypatch):
    import signal

    import hopbench.harness.cli.evaluate as evaluate
    from hopbench.harness.cli._common import interruptible

    code, _, err = cli("evaluate", "--topology", "ring:2000")
    assert code == 0 and err == ""  # a quick one says nothing
    monkeypatch.setattr(evaluate, "LONG_EVALUATION_SECONDS", 0.0)
    code, out, err = cli("evaluate", "--topology", "ring:2000")
    assert code == 0 and "diameter 1000" in out
    assert err.startswith("note: measuring all 2,000 x 2,000 distances may take up to") and err.count("\n") == 1
    # inside the block SIGINT has its default action (the process ends, even inside a numba kernel)
    before = signal.getsignal(signal.SIGINT)
    with interruptible():
        assert signal.getsignal(signal.SIGINT) is signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) is before
