"""Hostile sizes on the command line (issue 15), run as a user runs them: ``python -m hopbench.harness.cli ...``.

Every case ends with exit code 2 and a single stderr line ``error: ...`` naming the cap (and its
environment variable) or what is wrong with the file: no traceback, no hang (a 60 s timeout), and a
peak resident memory under 1 GB measured on the child process itself.
"""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
GB = 2**30


#: runs the command given after its first two arguments and writes "peak-RSS-KiB exit-code" to the file
#: named by the first.  A child's peak RSS as wait4 reports it starts at its parent's footprint (vfork,
#: then exec keeps the old mm's high-water mark): a pytest worker of 1 GB made every case fail.  This
#: launcher is small, and its RUSAGE_CHILDREN peak is the hopbench child's own.
LAUNCHER = """
import resource, subprocess, sys
report, timeout, command = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
try:
    code = subprocess.run(command, stdin=subprocess.DEVNULL, timeout=timeout).returncode
except subprocess.TimeoutExpired:
    code = -9
with open(report, "w") as out:
    out.write(f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss} {code}")
"""


def hopbench(*args, env_extra: dict[str, str] | None = None, timeout: float = 60) -> tuple[int, str, str, int]:
    """Run the CLI in a child process; returns (exit code, stdout, stderr, peak RSS in bytes)."""
    env = dict(os.environ, **(env_extra or {}))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "usage"
        subprocess.run([sys.executable, "-c", LAUNCHER, str(report), str(timeout), sys.executable, "-m", "hopbench.harness.cli",
                        *map(str, args)], stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=ROOT,
                       timeout=timeout + 30, check=True)
        peak_kib, code = map(int, report.read_text().split())
        assert code != -9, f"hopbench {' '.join(map(str, args))} hung for {timeout} s"
        out.seek(0)
        err.seek(0)
        return code, out.read().decode(), err.read().decode(), peak_kib * 1024


def one_line_error(code: int, err: str, rss: int) -> str:
    lines = err.strip().splitlines()
    assert "Traceback" not in err, err
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (code, err)
    assert rss < GB, f"peak RSS {rss / 2**20:.0f} MiB"
    return lines[0]


@pytest.fixture
def files(tmp_path):
    """Small hostile input files, each under 1 MB."""
    def write(name: str, data: str | bytes) -> Path:
        path = tmp_path / name
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        assert path.stat().st_size < 2**20
        return path

    sol = {"format": "hopbench.solution/1",
           "problem": {"base": "file:g.edges", "degree_cap": 3, "budget": 1, "objective": "aspl", "family": None},
           "base_n": 2_000_000, "base_edges": [[0, 1], [1, 2]], "shortcuts": [[0, 2]],
           "metrics": {"diameter": 1, "aspl": 1, "objective": 1}}
    good = {"format": "hopbench.solution/1",
            "problem": {"base": "ring:8", "degree_cap": 3, "budget": 1, "objective": "aspl", "family": None},
            "shortcuts": [[0, 4]], "metrics": {"diameter": 4, "aspl": 1.9642857142857142,
                                               "objective": 1.9642857142857142}}
    damaged = bytearray(gzip.compress(json.dumps(good).encode()))
    damaged[10:20] = b"\xff" * 10
    fifo = tmp_path / "pipe.edges"
    os.mkfifo(fifo)
    return {
        "id1e9": write("id1e9.edges", "0 1\n1 2\n2 1000000000\n"),
        "id1e12": write("id1e12.edges", "0 1\n1 2\n2 1000000000000\n"),
        "header": write("header.gph", "p edge 1000000000000 1\ne 1 2\n"),
        "bomb": write("bomb.edges.gz", gzip.compress(b"0 1\n" * 25_000_000, compresslevel=1)),
        "latin1": write("latin1.edges", b"0 1\n\xe9 2\n"),
        "base_n": write("base_n.json", json.dumps(sol)),
        "deep": write("deep.json", "[" * 100_000 + "]" * 100_000),
        "damaged": write("damaged.json.gz", bytes(damaged)),
        "good": write("good.json", json.dumps(good)),
        "fifo": fifo,
        "dir": tmp_path,
        "store": f"sqlite:///{tmp_path / 'never.db'}",
    }


CASES = {
    # class 1: sizes with no cap
    "edge id 10^9": (["evaluate", "{id1e9}"], "HOPBENCH_MAX_VERTICES"),
    "edge id 10^12": (["evaluate", "{id1e12}"], "HOPBENCH_MAX_VERTICES"),
    "p edge 10^12": (["evaluate", "{header}"], "declared vertex count"),
    "ring:10^11": (["evaluate", "--topology", "ring:100000000000"], "HOPBENCH_MAX_VERTICES"),
    "dln huge": (["evaluate", "--topology", "dln:100000000000:4"], "HOPBENCH_MAX_VERTICES"),
    "empty:1e10": (["evaluate", "--topology", "empty:1e10"], "must be an integer"),
    "empty:10^10": (["evaluate", "--topology", "empty:10000000000"], "HOPBENCH_MAX_VERTICES"),
    "hypercube:40": (["evaluate", "--topology", "hypercube:40"], "HOPBENCH_MAX_DIMENSIONS"),
    "24-dim torus": (["evaluate", "--topology", "torus:" + "x".join(["2"] * 24)], "HOPBENCH_MAX_DIMENSIONS"),
    "24-dim mesh": (["evaluate", "--topology", "mesh:" + "x".join(["3"] * 24)], "HOPBENCH_MAX_DIMENSIONS"),
    "flatbutterfly": (["evaluate", "--topology", "flatbutterfly:1000:7"], "HOPBENCH_MAX_VERTICES"),
    "hring": (["evaluate", "--topology", "hring:1000000x1000000"], "HOPBENCH_MAX_VERTICES"),
    "fattree": (["evaluate", "--topology", "fattree:100000"], "HOPBENCH_MAX_VERTICES"),
    "dragonfly": (["evaluate", "--topology", "dragonfly:100000"], "HOPBENCH_MAX_VERTICES"),
    "slimfly": (["evaluate", "--topology", "slimfly:100003"], "HOPBENCH_MAX_VERTICES"),
    "equality spec": (["evaluate", "--topology", "equality:N1000000000000K4[-1,1](2)"], "HOPBENCH_MAX_VERTICES"),
    "equality N": (["equality", "evaluate", "N1000000000000K4[-1,1](2)"], "HOPBENCH_MAX_VERTICES"),
    "equality digits": (["equality", "evaluate", "N" + "9" * 5000 + "K4[-1,1](2)"], "5000 digits"),
    "equality cost p": (["equality", "cost", "torus:4x4", "--p", "1000000000"], "HOPBENCH_MAX_EDGES"),
    "solve base": (["solve", "--base", "ring:100000000000", "--cap", "4", "--budget", "1", "--solver", "random"],
                   "HOPBENCH_MAX_VERTICES"),
    "base_n 2e6": (["verify", "{base_n}"], "field 'base_n' is 2,000,000"),
    "gzip bomb": (["evaluate", "{bomb}"], "HOPBENCH_MAX_INPUT_BYTES"),
    "/dev/zero": (["evaluate", "/dev/zero"], "not a regular file"),
    "file:/dev/zero": (["evaluate", "--topology", "file:/dev/zero"], "not a regular file"),
    "fifo": (["evaluate", "{fifo}"], "not a regular file"),
    "cost /dev/zero": (["equality", "cost", "/dev/zero"], "not a regular file"),
    "seeds 10^8": (["run", "--suite", "quick", "--seeds", "100000000", "--storage", "{store}"], "HOPBENCH_MAX_SEEDS"),
    "seed-list 10^20": (["run", "--suite", "quick", "--seed-list", "100000000000000000000", "--storage", "{store}"],
                        "HOPBENCH_MAX_SEED_VALUE"),
    "seed-list count": (["run", "--suite", "quick", "--seed-list", ",".join(map(str, range(5000))),
                         "--storage", "{store}"], "HOPBENCH_MAX_SEEDS"),
    "seed 10^20": (["evaluate", "--topology", "ring:8", "--seed", "100000000000000000000"],
                   "HOPBENCH_MAX_SEED_VALUE"),
    "solve seed": (["solve", "--base", "ring:8", "--cap", "4", "--budget", "1", "--solver", "random",
                    "--seed", "100000000000000000000"], "HOPBENCH_MAX_SEED_VALUE"),
    "route seed": (["route", "--torus", "4x4", "--solver", "dor", "--seed", "100000000000000000000"],
                   "HOPBENCH_MAX_SEED_VALUE"),
    "route nodes": (["route", "--torus", "4x4", "--solver", "dor", "--nodes", "0-1000000000000"], "out of range"),
    "run jobs": (["run", "--suite", "quick", "--solver", "random", "--jobs", "100000", "--storage", "{store}"],
                 "HOPBENCH_MAX_WORKERS"),
    "tune workers": (["tune", "random", "--suite", "quick", "--trials", "2", "--workers", "100000",
                      "--storage", "{store}"], "HOPBENCH_MAX_WORKERS"),
    "fault tolerance": (["evaluate", "--topology", "ring:8", "--fault-tolerance", "100000000000"],
                        "HOPBENCH_MAX_SAMPLES"),
    "fault tolerance < 0": (["evaluate", "--topology", "ring:8", "--fault-tolerance", "-3"], "non-negative"),
    "nested JSON": (["verify", "{deep}"], "HOPBENCH_MAX_NESTING"),
    # class 2: tracebacks while reading files
    "corrupt deflate": (["verify", "{damaged}"], "corrupt gzip stream"),
    "non-UTF-8 edges": (["evaluate", "{latin1}"], "not UTF-8"),
    "directory": (["verify", "{dir}"], "is a directory"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_sizes_end_in_one_line(files, name):
    args, fragment = CASES[name]
    code, _, err, rss = hopbench(*(a.format(**files) for a in args))
    line = one_line_error(code, err, rss)
    assert fragment in line, line


def test_a_run_refused_for_its_seeds_creates_no_store(files):
    code, _, err, rss = hopbench("run", "--suite", "quick", "--seeds", "100000000", "--storage", files["store"])
    one_line_error(code, err, rss)
    assert not (files["dir"] / "never.db").exists()


def test_raising_a_variable_admits_what_its_cap_refused(files):
    lowered = {"HOPBENCH_MAX_VERTICES": "50"}
    code, _, err, rss = hopbench("evaluate", "--topology", "ring:60", env_extra=lowered)
    assert "ring:60: the vertex count is 60, above the cap of 50" in one_line_error(code, err, rss)
    code, out, err, _ = hopbench("evaluate", "--topology", "ring:60", "--json",
                                 env_extra={"HOPBENCH_MAX_VERTICES": "60"})
    assert code == 0 and json.loads(out)["n"] == 60, err
    code, _, err, rss = hopbench("evaluate", "--topology", "ring:8", "--fault-tolerance", "3",
                                 env_extra={"HOPBENCH_MAX_SAMPLES": "2"})
    assert "HOPBENCH_MAX_SAMPLES" in one_line_error(code, err, rss)


def test_good_input_still_passes(files):
    code, out, err, _ = hopbench("verify", files["good"])
    assert code == 0 and out.startswith("valid"), err
    code, out, err, _ = hopbench("evaluate", "--topology", "ring:8", "--seed", "4294967295", "--json")
    assert code == 0 and json.loads(out)["diameter"] == 4, err
