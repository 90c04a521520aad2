"""Sizes capped before work (issue 34, item 4), through the CLI as a user would run it: each example ends in one
``error:`` line naming the cap's environment variable, exit 2, and no traceback."""
from __future__ import annotations

import gzip
import resource

import pytest


def one_line(code: int, err: str) -> str:
    lines = [line for line in err.splitlines() if not line.startswith(("note: ", "warning: "))]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def grid_suite(path, ns, base="ring:{n}") -> str:
    path.write_text(f'name = "caps"\ndescription = "d"\n[[grid]]\nvars = {{ n = {list(ns)} }}\n'
                    f'bases = ["{base}"]\ncaps = [3]\nbudgets = [1]\n')
    return str(path)


def test_a_suite_naming_too_many_distinct_bases(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("HOPBENCH_MAX_SUITE_BASES", "50")
    code, _, err = cli("instances", grid_suite(tmp_path / "caps.toml", range(8, 100)))
    assert "HOPBENCH_MAX_SUITE_BASES" in one_line(code, err) and "distinct bases" in err


def test_a_suite_whose_bases_have_too_many_vertices_together(cli, tmp_path):
    # 100 rings of about 199,000 vertices: each under the per-graph cap, 19.9 million together
    code, _, err = cli("instances", grid_suite(tmp_path / "caps.toml", range(199_000, 199_100)))
    assert "HOPBENCH_MAX_SUITE_VERTICES" in one_line(code, err)


def test_a_param_grid_too_large(cli, tmp_path):
    values = ",".join(map(str, range(1, 12)))
    code, _, err = cli("run", "--suite", "quick", "--solver", "vrs", "--param", f"vrs.y={values}",
                       "--param", f"vrs.k={values}", "--param", f"vrs.order={values}",
                       "--storage", f"sqlite:///{tmp_path / 'r.db'}")
    assert "HOPBENCH_MAX_PARAM_SETS" in one_line(code, err)
    assert not (tmp_path / "r.db").exists() or (tmp_path / "r.db").stat().st_size < 10**6


@pytest.mark.parametrize("command", [
    ["evaluate", "--topology", "ring:64", "--throughput", "uniform", "--endpoints", "99999999999"],
    ["export", "--topology", "ring:64", "--format", "anynet", "--endpoints", "10" * 30],
])
def test_endpoints_too_many(cli, tmp_path, command):
    out = ["-o", tmp_path / "x.anynet"] if command[0] == "export" else []
    code, _, err = cli(*command, *out)
    assert "HOPBENCH_MAX_HOSTS" in one_line(code, err)


def test_an_edge_file_of_one_huge_line_is_refused_within_memory(cli, tmp_path):
    path = tmp_path / "long.txt.gz"
    with gzip.open(path, "wb") as f:  # a 60 KB gzip of one 62 MiB line
        f.write(b"1 " * (31 * 2**20) + b"\n")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code, _, err = cli("evaluate", path)
    assert "HOPBENCH_MAX_LINE_CHARS" in one_line(code, err)
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 600 * 1024  # it took 1.9 GB


@pytest.mark.parametrize("samples, env", [("100000", "HOPBENCH_MAX_SAMPLES"), ("5000", "HOPBENCH_MAX_FAULT_WORK")])
def test_fault_tolerance_sample_counts(cli, samples, env):
    code, _, err = cli("evaluate", "--topology", "torus:32x32", "--fault-tolerance", samples)
    assert env in one_line(code, err)


@pytest.mark.parametrize("solver, param", [("annealing", "moves=100000000000"), ("lift-tabu", "steps=999999999999"),
                                           ("random-matching", "samples=50000000")])
def test_a_loop_count_without_a_time_limit(cli, solver, param):
    code, _, err = cli("solve", "--base", "ring:16", "--cap", "3", "--budget", "4", "--solver", solver,
                       "--param", param)
    assert "HOPBENCH_MAX_LOOP_COUNT" in one_line(code, err)


@pytest.mark.parametrize("command", [
    ["solve", "--base", "ring:8", "--cap", "3", "--budget", "1", "--solver", "random", "--time-limit", "2147483648"],
    ["run", "--suite", "quick", "--solver", "random", "--time-limit", "1e10"],
    ["route", "--torus", "3x3", "--solver", "dor", "--time-limit", "3e9"],
    ["tune", "random", "--suite", "quick", "--trials", "1", "--time-limit", "1e10"],
])
def test_time_limits_past_signal_alarm_are_one_error(cli, tmp_path, command):
    store = ["--storage", f"sqlite:///{tmp_path / 'r.db'}"] if command[0] in ("run", "tune") else []
    code, _, err = cli(*command, *store)
    assert "signal.alarm" in one_line(code, err)


def test_a_run_of_too_many_cells_is_refused_before_any_runs(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("HOPBENCH_MAX_CELLS", "10")
    db = tmp_path / "r.db"
    code, _, err = cli("run", "--suite", "quick", "--solver", "random", "--seeds", "3", "--storage", f"sqlite:///{db}")
    assert "HOPBENCH_MAX_CELLS" in one_line(code, err)
    assert not db.exists() or db.stat().st_size < 200_000


def test_a_suite_time_limit_past_signal_alarm(cli, tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('name = "t"\ndescription = "d"\ntime_limit = 2147483648\n'
                    '[[instances]]\nbase = "ring:8"\ncap = 3\nbudget = 1\n')
    code, _, err = cli("instances", path)
    assert "signal.alarm" in one_line(code, err)
