"""leaderboards/publish.sh refuses a SUITES list naming no suite or one it does not publish, and a partial
re-run (ONLY) into a store without the earlier publish, before running anything, unless the board ships its
runs, which it then loads first; every published suite has its commands and, once published, its provenance
file."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "leaderboards" / "publish.sh"
ALL = ("edgecut2022,koibuchi2012,equality2022,angara2021,exact-small,graphgolf,angara2021-traffic,koibuchi2012-traffic,"
       "koibuchi2012-512-traffic,koibuchi2012-clos-traffic,equality2022-traffic,equality2022-10k-traffic,throughput-small,graphgolf-grid,graphgolf-hostswitch")


def _fake_hopbench(tmp_path: Path) -> dict[str, str]:
    """The environment of a publish whose `hopbench` only leaves a mark (and fails) if it is ever run."""
    fake = tmp_path / "bin" / "hopbench"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\ntouch {tmp_path / 'ran'}\nexit 1\n")
    fake.chmod(0o755)
    return {**os.environ, "PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.parametrize("suites, message", [
    ("graphgolf,nonsense", f"error: SUITES names 'nonsense', which is not a published suite; use some of {ALL}"),
    (",", f"error: SUITES names '', which is not a published suite; use some of {ALL}"),
    (" ", f"error: SUITES names no suite; leave it unset for all, or name some of {ALL}"),
])
def test_a_bad_suite_list_is_refused_before_anything_runs(tmp_path, suites, message):
    # a stand-in hopbench first on PATH: if the script ever got past its checks, it would leave a mark
    # and fail instead of starting hours of real runs
    env = {**_fake_hopbench(tmp_path), "SUITES": suites, "STORE": f"sqlite:///{tmp_path / 'never.db'}"}
    out = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1] == message
    assert not (tmp_path / "ran").exists() and not (tmp_path / "never.db").exists()


def test_every_published_suite_has_its_commands_and_a_provenance_file():
    text = SCRIPT.read_text()
    suites = text.split("ALL_SUITES=", 1)[1].split("\n", 1)[0].split(",")
    assert ",".join(suites) == ALL
    provenance = SCRIPT.parent / "provenance"
    for suite in suites:
        assert f"publish_{suite}() {{" in text, suite
        assert (SCRIPT.parent / suite).is_dir() == (provenance / f"{suite}.md").is_file(), suite


@pytest.mark.parametrize("suite", ALL.split(","))
def test_a_partial_rerun_on_a_fresh_checkout_loads_the_runs_the_board_ships_first(tmp_path, suite):
    # a store without the suite's runs: a board that ships its runs (runs.jsonl.xz) has them loaded (re-checked)
    # before anything runs; one that ships none is refused, as before boards shipped their runs
    fake = tmp_path / "bin" / "hopbench"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\necho \"$@\" >> {tmp_path / 'calls'}\nexit 1\n")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}", "SUITES": suite,
           "ONLY": "no-such-instance/*", "STORE": f"sqlite:///{tmp_path / 'fresh.db'}"}
    out = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=120, env=env)
    calls = (tmp_path / "calls").read_text().splitlines() if (tmp_path / "calls").exists() else []
    if (SCRIPT.parent / suite / "runs.jsonl.xz").exists():
        # the load comes first, and its failure (the stand-in fails, as a refused file would) stops the publish
        assert out.returncode == 1, out.stderr
        assert calls == [f"results --merge-from leaderboards/{suite}/runs.jsonl.xz --storage sqlite:///"
                         f"{tmp_path / 'fresh.db'}"], out.stderr
    else:
        assert out.returncode == 2, out.stderr
        assert calls == []
        assert f"leaderboards/{suite} ships no runs.jsonl.xz" in out.stderr.strip().splitlines()[-1]


def test_a_partial_rerun_needs_the_earlier_publish_in_the_store(tmp_path):
    # ONLY re-runs a few instances of a suite whose board is rebuilt from the whole store: a store
    # without the suite's other cells (missing, or empty) is refused before anything runs
    from hopbench.harness.bench.store import Store

    empty = tmp_path / "empty.db"
    Store.open(f"sqlite:///{empty}")  # the tables, no runs
    env = _fake_hopbench(tmp_path)
    # a checkout whose boards ship no runs (the script's copy, alone in its leaderboards/)
    script = tmp_path / "checkout" / "leaderboards" / "publish.sh"
    script.parent.mkdir(parents=True)
    script.write_text(SCRIPT.read_text())
    for store, message in [(tmp_path / "missing.db", "does not exist"),
                           (empty, "STORE holds none of its other cells")]:
        out = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=120,
                             env={**env, "SUITES": "graphgolf", "ONLY": "empty:64/cap3/*",
                                  "STORE": f"sqlite:///{store}"})
        assert out.returncode == 2, out.stderr
        assert out.stderr.strip().splitlines()[-1].startswith("error: ONLY re-runs part of")
        assert message in out.stderr
    assert not (tmp_path / "ran").exists() and not (tmp_path / "missing.db").exists()


def test_a_partial_rerun_keeps_a_commands_own_instance_selection(tmp_path):
    """ONLY narrows each command of a suite; where the command names its own instances (graphgolf's lift-tabu
    runs only on (512, 4)), ONLY must not widen it: a later --instances would replace the command's own.  The
    script's run() and hb_run() are exercised with a `hopbench` that logs its arguments and lists a suite."""
    text = SCRIPT.read_text()
    functions = "\n".join(text[text.index(f"\n{name}() {{") + 1:].split("\n}\n", 1)[0] + "\n}"
                          for name in ("run", "hb_run"))
    log = tmp_path / "calls"
    fake = tmp_path / "bin" / "hopbench"
    fake.parent.mkdir()
    ids = ["empty:512/cap4/b1024/golf", "empty:512/cap8/b2048/golf", "empty:1560/cap40/b31200/golf"]
    listing = '{"instances": [' + ", ".join(f'{{"id": "{i}"}}' for i in ids) + "]}"
    fake.write_text(f"#!/bin/sh\nif [ \"$1\" = instances ]; then echo '{listing}'; exit 0; fi\n"
                    f"echo \"$*\" >> {log}\n")
    fake.chmod(0o755)
    script = (f"{functions}\nCOMMANDS=()\nSTORE=s\nJOBS=1\nEXTRA=\nONLY=x\n"
              "ONLY_LIST=('empty:1560/cap40/*' 'empty:512/*')\n"
              "hb_run --suite graphgolf --instances 'empty:512/cap4/*' --solver lift-tabu\n"
              "hb_run --suite graphgolf --solver annealing\n")
    env = {**os.environ, "PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["bash", "-c", script], check=True, env=env, capture_output=True, text=True)
    runs = [line for line in log.read_text().splitlines() if "none-such" not in line]
    assert runs == [
        "run --suite graphgolf --instances empty:512/cap4/* --solver lift-tabu --instances empty:512/cap4/b1024/golf "
        "--rerun all --storage s --jobs 1 --no-progress --allow-failures",
        "run --suite graphgolf --solver annealing --instances empty:1560/cap40/* --rerun all --storage s --jobs 1 "
        "--no-progress --allow-failures",
        "run --suite graphgolf --solver annealing --instances empty:512/* --rerun all --storage s --jobs 1 "
        "--no-progress --allow-failures"]
