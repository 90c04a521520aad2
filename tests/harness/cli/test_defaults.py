"""Safe defaults and validated filters ("a newcomer's first hour"): ``tune --save`` writes to a per-user
directory and ``--params tuned`` falls back to the published parameters shipped as package data; every
filter that names something checks it; ``run`` exits 1 when cells fail and its hint repeats ``--storage``;
reading commands never create a store."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from hopbench.harness.bench.store import Store
from hopbench.harness.errors import HopbenchError

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = {"HOPBENCH_SOLVER_MODULES": "tests.solvers.misbehaving"}


@pytest.fixture(autouse=True)
def own_directories(tmp_path, monkeypatch):
    """Never the user's real data directory: the override and platformdirs both point into tmp_path."""
    import platformdirs

    monkeypatch.setenv("HOPBENCH_TUNED_DIR", str(tmp_path / "tuned"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # for subprocesses (platformdirs on Linux)
    monkeypatch.setattr(platformdirs, "user_data_path", lambda app: tmp_path / "data" / app)


def hopbench(*args, env_extra=None, cwd=ROOT, timeout=300):
    env = dict(os.environ, **(env_extra or {}))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=timeout)


def one_line_error(code: int, err: str) -> str:
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (code, err)
    return lines[0]


def mini_suite(tmp_path: Path) -> Path:
    p = tmp_path / "mini.toml"
    p.write_text('name = "mini"\ndescription = "two tiny instances"\n'
                 '[[instances]]\nbase = "ring:10"\ncap = 4\nbudget = 2\n'
                 '[[instances]]\nbase = "torus:3x3"\ncap = 6\nbudget = 2\n')
    return p


def row(key: str, suite: str = "mine", solver: str = "random", status: str = "ok") -> dict:
    return dict(cell_key=key, suite=suite, instance="ring:8/cap3/b2/aspl", instance_spec={"base": "ring:8"},
                kind="shortcut", solver=solver, params={}, params_tag="default", seed=1, status=status,
                objective=2.5, diameter=3.0, aspl=2.5, metrics={}, elapsed_s=0.1, evaluations=4,
                solution={"format": "hopbench.solution/1"})


@pytest.fixture
def store_url(tmp_path) -> str:
    """A store with runs of suite 'mine' (no suite file) by 'random' and by 'plug-in' (not registered here)."""
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    store = Store.open(url)
    store.record(row("a"))
    store.record(row("b", solver="plug-in"))
    store.close()
    return url


# ---------------------------------------------------------------------------- tuned parameters


def published_files() -> dict[str, bytes]:
    from hopbench.harness._paths import PUBLISHED_TUNED_DIR

    return {p.name: p.read_bytes() for p in sorted(PUBLISHED_TUNED_DIR.glob("*.json"))}


def test_published_parameters_are_package_data():
    from hopbench.harness._paths import PUBLISHED_TUNED_DIR

    assert PUBLISHED_TUNED_DIR == ROOT / "harness" / "bench" / "tuned"
    assert {"annealing.json", "edgecut-full.json"} <= set(published_files())
    assert not (ROOT / "leaderboards" / "tuned").exists()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "tuned/*.json" in data["hopbench.harness.bench"]
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(d.startswith("platformdirs") for d in deps)


def test_save_goes_to_the_user_directory_unless_told_otherwise(tmp_path, monkeypatch):
    from hopbench.harness._paths import PUBLISHED_TUNED_DIR
    from hopbench.harness.bench.tuning import save_directory, user_tuned_dir

    assert user_tuned_dir() == tmp_path / "tuned"  # $HOPBENCH_TUNED_DIR
    monkeypatch.delenv("HOPBENCH_TUNED_DIR")
    assert user_tuned_dir() == tmp_path / "data" / "hopbench" / "tuned"  # platformdirs' per-user data directory
    assert save_directory() == user_tuned_dir()
    assert save_directory("published") == PUBLISHED_TUNED_DIR
    assert save_directory(str(tmp_path / "mine")) == tmp_path / "mine"
    (tmp_path / "afile").write_text("")
    for where, fragment in ((str(tmp_path / "afile"), "is a file"), ("  ", "needs a directory")):
        with pytest.raises(HopbenchError, match=fragment):
            save_directory(where)


def test_save_tuned_writes_the_user_directory_and_leaves_the_published_files(tmp_path, monkeypatch):
    from hopbench.harness.bench.tuning import TuneConfig, TuneResult, load_tuned, save_tuned, tuned_file

    monkeypatch.delenv("HOPBENCH_TUNED_DIR")
    before = published_files()
    cfg = TuneConfig(solver="edgecut-full", suite="quick", trials=1, storage=f"sqlite:///{tmp_path / 't.db'}")
    result = TuneResult(study="toy", n_trials=1, best_value=0.5, best_params={"t": 7}, workers=1)
    path = save_tuned(cfg, result)
    assert path == tmp_path / "data" / "hopbench" / "tuned" / "edgecut-full.json"
    assert json.loads(path.read_text())["params"] == {"t": 7}
    assert published_files() == before  # a toy study never replaces the published parameters
    assert tuned_file("edgecut-full") == path and load_tuned(["edgecut-full"]) == {"edgecut-full": {"t": 7}}
    blocked = tmp_path / "blocked"
    blocked.write_text("")
    with pytest.raises(HopbenchError, match="cannot write the tuned parameters"):
        save_tuned(cfg, result, blocked / "sub")


def test_params_tuned_reads_the_user_file_first_then_the_published_one(tmp_path):
    from hopbench.harness._paths import PUBLISHED_TUNED_DIR
    from hopbench.harness.bench.tuning import load_tuned, tuned_file

    published = json.loads((PUBLISHED_TUNED_DIR / "edgecut-full.json").read_text())["params"]
    assert load_tuned(["edgecut-full", "vrs"]) == {"edgecut-full": published}  # vrs keeps its defaults
    assert tuned_file("edgecut-full") == PUBLISHED_TUNED_DIR / "edgecut-full.json" and tuned_file("vrs") is None
    (tmp_path / "tuned").mkdir()
    (tmp_path / "tuned" / "edgecut-full.json").write_text(json.dumps({"params": {"t": 3}}))
    assert load_tuned(["edgecut-full"]) == {"edgecut-full": {"t": 3}}
    with pytest.raises(HopbenchError, match="no tuned parameters for vrs in .*tuned or .*harness/bench/tuned"):
        load_tuned(["vrs"])
    with pytest.raises(HopbenchError, match="no tuned parameters for annealing in"):
        load_tuned(["annealing"], directory=tmp_path / "tuned")  # one directory alone


def test_tune_save_to_a_directory_and_a_file_refused_before_the_study(cli, tmp_path):
    suite, url = mini_suite(tmp_path), f"sqlite:///{tmp_path / 't.db'}"
    (tmp_path / "afile").write_text("")
    code, _, err = cli("tune", "vrs", "--suite", suite, "--trials", "1", "--storage", url, "--save-to",
                       tmp_path / "afile")
    assert "--save-to" in one_line_error(code, err) and not (tmp_path / "t.db").exists()
    before = published_files()
    code, out, err = cli("tune", "vrs", "--suite", suite, "--trials", "1", "--time-limit", "5", "--storage", url,
                         "--save-to", tmp_path / "chosen", "--json")
    assert code == 0, err
    assert Path(json.loads(out)["saved"]) == tmp_path / "chosen" / "vrs.json"
    assert (tmp_path / "chosen" / "vrs.json").exists() and not (tmp_path / "tuned").exists()
    assert published_files() == before


def test_help_documents_the_save_flags_and_the_exit_codes(cli):
    code, out, _ = cli("tune", "--help")
    assert code == 0 and "--save-to" in out and "published" in out
    code, out, _ = cli("run", "--help")
    assert code == 0 and "--allow-failures" in out and "exit status" in out and "130" in out


# ---------------------------------------------------------------------------- run: exit codes and the hint


def test_failed_cells_exit_1_unless_allowed_and_the_hint_repeats_storage(tmp_path):
    db = tmp_path / "f.db"
    base = ["run", "--suite", mini_suite(tmp_path), "--solver", "random,test-raiser", "--time-limit", "5",
            "--storage", f"sqlite:///{db}", "--no-progress"]
    r = hopbench(*base, env_extra=PLUGIN)
    assert r.returncode == 1, r.stderr
    assert f"2 cell(s) failed; see 'hopbench results --suite mini --storage sqlite:///{db}' for their errors" \
        in r.stderr
    # the failures are still recorded: a resumed run reports them too, and --allow-failures exits 0
    r = hopbench(*base, env_extra=PLUGIN)
    assert r.returncode == 1 and "2 recorded by an earlier run; '--rerun failed' retries them" in r.stderr
    r = hopbench(*base, "--allow-failures", env_extra=PLUGIN)
    assert r.returncode == 0 and "2 cell(s) failed" in r.stderr, r.stderr
    r = hopbench("results", "--suite", "mini", "--storage", f"sqlite:///{db}", "--format", "json")
    assert r.returncode == 0 and {d["status"] for d in json.loads(r.stdout)} == {"ok", "error"}


def _plan_store(statuses: dict[str, str], url: str):
    plan = SimpleNamespace(cells=[{"key": k} for k in statuses], suite=SimpleNamespace(name="quick"))
    store = SimpleNamespace(url=url, statuses=lambda keys: {k: statuses[k] for k in keys})
    return plan, store


def test_declined_cells_are_no_failure_and_the_hint_masks_the_password(capsys):
    from collections import Counter

    from hopbench.harness.cli.run import _failures

    args = SimpleNamespace(storage="postgresql://me:secret@db.example/bench", allow_failures=False)
    plan, store = _plan_store({"a": "ok", "b": "skipped"}, args.storage)
    assert _failures(plan, SimpleNamespace(statuses=Counter(ok=1, skipped=1)), store, args) == 0
    assert capsys.readouterr().err == ""
    plan, store = _plan_store({"a": "ok", "b": "timeout"}, args.storage)
    assert _failures(plan, SimpleNamespace(statuses=Counter(ok=1, timeout=1)), store, args) == 1
    err = capsys.readouterr().err
    assert "--storage 'postgresql://me:***@db.example/bench'" in err and "secret" not in err
    args.storage = None  # the default store: no --storage to repeat
    assert _failures(plan, SimpleNamespace(statuses=Counter(timeout=1)), store, args) == 1
    assert "see 'hopbench results --suite quick' for" in capsys.readouterr().err


def test_run_filters_that_select_nothing_are_errors_before_any_store(cli, tmp_path):
    suite, url = mini_suite(tmp_path), f"sqlite:///{tmp_path / 'never.db'}"
    for args, fragment in [
        (["--solver", "dor"], "solver dor solves routing problems, none of the selected instances"),
        (["--solver", ","], "--solver names no solver"),
        (["--solver", "nosuch"], "unknown solver"),
        (["--instances", "hypercube:*"], "no instance matching"),
        (["--split", "tune"], "in split 'tune'"),
        (["--max-nodes", "3"], "of at most 3 nodes"),
        (["--min-nodes", "100000"], "of at least 100000 nodes"),
        (["--min-nodes", "40", "--max-nodes", "20"], "of at least 40 nodes of at most 20 nodes"),
        (["--min-nodes", "-5"], "--min-nodes must be a vertex count >= 1, got -5"),
        (["--max-nodes", "0"], "--max-nodes must be a vertex count >= 1, got 0"),
    ]:
        code, _, err = cli("run", "--suite", suite, "--storage", url, *args)
        assert fragment in one_line_error(code, err), (args, err)
    assert not (tmp_path / "never.db").exists()


# ---------------------------------------------------------------------------- results and board filters


def test_results_suite_must_be_recorded_or_a_suite_file(cli, store_url, tmp_path):
    code, _, err = cli("results", "--suite", "qiuck", "--storage", store_url)
    line = one_line_error(code, err)
    assert "no runs of suite 'qiuck' in this store and no such suite file; it holds runs of mine" in line
    code, out, err = cli("results", "--suite", "exact-small", "--storage", store_url)  # a suite file, no runs
    assert code == 0 and out.strip() == "(no runs recorded)", err
    code, out, _ = cli("results", "--suite", "mine", "--storage", store_url, "--format", "json")
    assert code == 0 and len(json.loads(out)) == 2  # recorded, though no suite file defines it
    path = tmp_path / "mine.toml"
    path.write_text('name = "mine"\n[[instances]]\nbase = "ring:8"\ncap = 3\nbudget = 2\n')
    code, out, _ = cli("results", "--suite", path, "--storage", store_url, "--format", "json")
    assert code == 0 and len(json.loads(out)) == 2  # a suite file's path stands for its name


def test_results_solver_must_be_recorded_or_registered(cli, store_url):
    code, _, err = cli("results", "--solver", "random,edgecut-ful", "--storage", store_url)
    assert "no runs of 'edgecut-ful' in this store and no such solver" in one_line_error(code, err)
    code, out, _ = cli("results", "--solver", "vrs", "--storage", store_url)  # registered, no runs
    assert code == 0 and out.strip() == "(no runs recorded)"
    code, out, _ = cli("results", "--solver", "plug-in", "--storage", store_url, "--format", "json")
    assert code == 0 and [d["solver"] for d in json.loads(out)] == ["plug-in"]  # recorded, not registered here
    code, _, err = cli("results", "--solver", " , ", "--storage", store_url)
    assert "--solver names no solver" in one_line_error(code, err)


def test_an_empty_store_and_a_real_suite_is_no_error(cli, tmp_path):
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    Store.open(url).close()
    code, out, _ = cli("results", "--suite", "quick", "--storage", url)
    assert code == 0 and out.strip() == "(no runs recorded)"
    code, _, err = cli("results", "--suite", "qiuck", "--storage", url)
    assert "it holds no runs (suite files: " in one_line_error(code, err)


def test_board_suite_typos_are_caught_before_anything_is_written(cli, store_url, tmp_path):
    out = tmp_path / "boards"
    code, _, err = cli("board", "--suite", "mine,qiuck", "--storage", store_url, "-o", out)
    line = one_line_error(code, err)
    assert "no recorded runs of suite 'qiuck' in this store and no suite file of that name" in line
    assert "it holds runs of mine" in line and not out.exists()
    code, _, err = cli("board", "--suite", "exact-small", "--storage", store_url, "-o", out)
    assert "run 'hopbench run --suite exact-small --storage sqlite:///" in one_line_error(code, err)
    assert not out.exists()


# ---------------------------------------------------------------------------- a store that does not exist


def test_reading_commands_refuse_a_missing_sqlite_store(cli, tmp_path, store_url):
    missing = tmp_path / "typo.db"
    url = f"sqlite:///{missing}"
    for args in (["results"], ["results", "--format", "json"], ["board", "-o", tmp_path / "b"],
                 ["results", "--storage", store_url, "--merge-from"]):
        code, _, err = cli(*args, url) if args[-1] == "--merge-from" else cli(*args, "--storage", url)
        line = one_line_error(code, err)
        assert f"the results store {url} does not exist (no file {missing}" in line, args
        assert "hopbench run" in line
    assert not missing.exists() and not (tmp_path / "b").exists()
    # the target of a merge from a missing source is not created either
    code, _, err = cli("results", "--storage", f"sqlite:///{tmp_path / 'target.db'}", "--merge-from", url)
    assert "does not exist" in one_line_error(code, err) and not (tmp_path / "target.db").exists()


def test_store_open_for_reading_never_creates_a_sqlite_file(tmp_path, monkeypatch):
    with pytest.raises(HopbenchError, match="does not exist"):
        Store.open(f"sqlite:///{tmp_path / 'no.db'}", mode="read")
    assert not (tmp_path / "no.db").exists()
    for url in ("sqlite://", "sqlite:///:memory:"):  # in memory: nothing to read, refused (issue 34)
        with pytest.raises(HopbenchError, match="lives in memory"):
            Store.open(url, mode="read")
    # sqlite:///tmp/x.db is relative to the current directory; the message points at four slashes
    absolute = tmp_path / "abs.db"
    Store.open(f"sqlite:///{absolute}").close()
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    with pytest.raises(HopbenchError, match=re.escape(f"write sqlite:///{absolute}, four slashes")):
        Store.open(f"sqlite:///{str(absolute).lstrip('/')}", mode="read")
    # other .db files beside the missing one are named
    with pytest.raises(HopbenchError, match="that folder has abs.db"):
        Store.open(f"sqlite:///{tmp_path / 'ab.db'}", mode="read")
