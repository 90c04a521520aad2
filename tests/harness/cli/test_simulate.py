"""``hopbench simulate`` and ``evaluate --throughput`` as a user runs them: results, the README example, bad input."""
from __future__ import annotations

import json
import re
import shlex
import stat
from pathlib import Path

import pytest

from hopbench.harness.cli import simulate as simulate_cli
from tests.harness.cli.test_hostile_sizes import hopbench, one_line_error

ROOT = Path(__file__).resolve().parents[3]


def test_cli_lists_agree_with_the_modules():
    from hopbench.harness.traffic import patterns, study

    assert simulate_cli.PATTERNS == patterns.PATTERNS
    assert simulate_cli.ROUTINGS == study.ROUTINGS


def test_readme_example_runs(cli):
    readme = (ROOT / "README.md").read_text()
    lines = [ln for ln in readme.splitlines() if ln.startswith("hopbench simulate ")]
    assert lines, "the README shows a simulate example"
    args = shlex.split(lines[0])[1:]
    code, out, err = cli(*args)
    assert code == 0, err
    assert "zero-load latency" in out and re.search(r"^\s+0\.1000\s", out, re.M)


def test_a_log_gets_a_line_per_finished_point(cli):
    # stderr here is not a terminal (as under nohup or a batch job): no progress bar, a line per point instead
    code, _, err = cli("simulate", "--topology", "torus:4x4", "--traffic", "uniform", "--routing", "dor",
                       "--loads", "0.1,0.2", "--zero-load")
    assert code == 0, err
    lines = err.splitlines()
    assert lines[0].startswith("16 switches, 32 links, 16 hosts; dor routing")
    assert [ln.split(":")[0] for ln in lines[1:]] == ["zero-load", "load 0.1", "load 0.2"]
    assert re.match(r"load 0\.1: offered 0\.1000, accepted 0\.\d{4}, mean latency [\d.]+ cycles, ok \(\d+ s\)$",
                    lines[2])
    code, _, err = cli("simulate", "--topology", "torus:4x4", "--traffic", "uniform", "--routing", "dor",
                       "--loads", "0.1", "--json")
    assert code == 0 and err == ""


def test_json_document_is_complete_and_deterministic(cli, tmp_path):
    args = ("simulate", "--topology", "torus:4x4", "--traffic", "uniform", "--routing", "dor", "--param", "num_vcs=2",
            "--param", "sample_period=300", "--loads", "0.1,0.2", "--seed", "3", "--cycle-ns", "0.5", "--json")
    code, out, err = cli(*args)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["format"] == "hopbench.simulation/1" and doc["engine"] == "hopbench"
    assert [p["offered"] for p in doc["points"]] == [0.1, 0.2]
    assert doc["deadlock_check"] == "deadlock-free" and doc["hosts"] == 16 and doc["seed"] == 3
    p = doc["points"][0]
    assert p["latency_mean_ns"] == pytest.approx(0.5 * p["latency_mean"])
    assert json.loads(cli(*args)[1]) == doc
    path = tmp_path / "sim.json"
    code, _, err = cli(*args[:-1], "-o", path)
    assert code == 0 and json.loads(path.read_text()) == doc


def test_a_solution_file_simulates_with_free_ports_as_hosts(cli, tmp_path):
    sol = tmp_path / "sol.json"
    assert cli("solve", "--base", "ring:16", "--cap", "4", "--budget", "8", "--solver", "random", "-o", sol)[0] == 0
    code, out, err = cli("simulate", sol, "--traffic", "uniform", "--routing", "adaptive-updown", "--endpoints", "free",
                         "--param", "num_vcs=2", "--param", "sample_period=300", "--loads", "0.05", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["hosts"] == 16 * 4 - 2 * (16 + 8) and doc["points"][0]["packets"] > 0


def test_faults_are_removed_and_a_disconnection_is_said(cli):
    code, out, err = cli("simulate", "--topology", "torus:4x4", "--traffic", "uniform", "--routing", "updown",
                         "--faults", "10", "--param", "num_vcs=2", "--param", "sample_period=300", "--loads", "0.05",
                         "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["links"] == 32 - 3 and len(doc["removed_links"]) == 3
    code, _, err = cli("simulate", "--topology", "ring:8", "--traffic", "uniform", "--routing", "updown",
                       "--faults", "50", "--loads", "0.05")
    assert code == 2 and "disconnects the network" in err


def test_unsound_routing_is_refused_unless_deadlock_is_the_study(cli):
    args = ("simulate", "--topology", "ring:8", "--traffic", "tornado", "--routing", "minimal", "--param", "num_vcs=1",
            "--param", "packet_size=8", "--param", "vc_buf_size=2", "--param", "deadlock_cycles=200",
            "--param", "sample_period=300", "--loads", "0.9")
    code, _, err = cli(*args)
    assert code == 2 and "can deadlock" in err and "--allow-deadlock" in err
    code, out, err = cli(*args, "--allow-deadlock", "--json")
    assert code == 0, err
    point = json.loads(out)["points"][0]
    assert point["deadlock"] is True and point["status"] == "deadlock"


def test_evaluate_throughput_bounds(cli):
    code, out, err = cli("evaluate", "--topology", "torus:4x4", "--throughput", "all-to-all", "--routing", "dor",
                         "--json")
    assert code == 0, err
    tp = json.loads(out)["throughput"]
    # edge-transitive: links x capacity / (N (N - 1) ASPL) per pair, times N - 1 per host
    assert tp["lp"]["bound"] == pytest.approx(64 / (16 * 15 * 2.1333333333333333) * 15, rel=1e-6)
    assert tp["channel_load"] <= tp["lp"]["bound"] + 1e-9


def _fake(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


BAD = [
    (["--loads", "0:1:0"], "--loads"),
    (["--loads", "0.5:0.1:0.1"], "--loads"),
    (["--loads", "abc"], "--loads"),
    (["--loads", "0.0001:1:0.0001"], "above the cap"),
    (["--loads", "1.5"], "(0, 1]"),
    (["--loads", "nan"], "(0, 1]"),
    (["--param", "num_vcs=0"], "num_vcs"),
    (["--param", "num_vcs=100000"], "num_vcs"),
    (["--param", "vc_buf_size=0"], "vc_buf_size"),
    (["--param", "vc_buf_size=1000000000"], "vc_buf_size"),
    (["--param", "packet_size=99999999"], "packet_size"),
    (["--param", "sample_period=100000000"], "sample_period"),
    (["--param", "max_samples=10000", "--param", "sample_period=1000000"], "above the cap"),
    (["--param", "nonsense=1"], "unknown simulator parameter"),
    (["--param", "flow_control=vct", "--param", "packet_size=16"], "cut-through"),
    (["--faults", "150"], "--faults"),
    (["--cycle-ns", "-1"], "--cycle-ns"),
    (["--endpoints", "-3"], "--endpoints"),
    (["--endpoints", "100000"], "--endpoints"),
    (["--endpoints", "10000000000"], "host"),
]


@pytest.mark.parametrize("extra, words", BAD)
def test_hostile_simulate_input_is_one_line(extra, words):
    code, _, err, rss = hopbench("simulate", "--topology", "torus:4x4", "--traffic", "uniform", "--routing", "dor",
                                 "--param", "num_vcs=2", *extra)
    one_line_error(code, err, rss)
    assert words in err


@pytest.mark.parametrize("spec, traffic, routing, words", [
    ("torus:2x3", "bitrev", "updown", "power-of-two"),
    ("ring:12", "transpose", "updown", "transpose"),
    ("ring:8", "uniform", "dor", "mesh or torus"),
    ("ring:8", "uniform", "table", "routing-table file"),
])
def test_pattern_and_routing_mismatches_are_one_line(spec, traffic, routing, words):
    code, _, err, rss = hopbench("simulate", "--topology", spec, "--traffic", traffic, "--routing", routing,
                                 "--loads", "0.1")
    one_line_error(code, err, rss)
    assert words in err


def test_a_booksim_path_that_is_not_booksim_is_one_line(tmp_path):
    cases = [_fake(tmp_path, "garbage.sh", "#!/bin/sh\necho hello\n"), Path("/bin/true"), tmp_path,
             tmp_path / "missing", _fake(tmp_path, "text", "not a program\n")]
    for path in cases:
        code, _, err, rss = hopbench("simulate", "--topology", "torus:4x4", "--traffic", "uniform", "--routing", "dor",
                                     "--param", "num_vcs=2", "--loads", "0.1", "--engine", "booksim",
                                     "--booksim", path)
        one_line_error(code, err, rss)
        assert "BookSim" in err or "booksim" in err


def test_latency_plot_is_written_and_user_text_is_not_mathtext(cli, tmp_path):
    edges = tmp_path / "a$b$.edges"
    edges.write_text("".join(f"{i} {(i + 1) % 8}\n" for i in range(8)))
    png = tmp_path / "lat.png"
    code, out, err = cli("simulate", edges, "--traffic", "uniform", "--routing", "updown", "--param", "num_vcs=2",
                         "--param", "sample_period=300", "--loads", "0.1,0.9", "--plot", png)
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # past saturation the accepted load is still measured (the curve's plateau); its latency is not
    assert "source queue full" in out or "unstable" in out
    code, _, err = cli("simulate", edges, "--traffic", "uniform", "--routing", "updown", "--loads", "0.1",
                       "--plot", edges)
    assert code == 2 and "error" in err
