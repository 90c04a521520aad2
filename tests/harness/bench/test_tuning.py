"""hopbench tune: search spaces, references, a real study, two workers, a killed worker, bad input."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest

from hopbench import solvers
from hopbench.harness.bench.store import Store
from hopbench.harness.bench.suites import load_suite
from hopbench.harness.bench.tuning import default_trial, load_tuned, params_from_optuna, best_known_objectives, search_space, suggest
from hopbench.harness.errors import HopbenchError

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = {"HOPBENCH_SOLVER_MODULES": "tests.solvers.misbehaving"}


def hopbench(*args, env_extra=None, timeout=600):
    env = dict(os.environ, **(env_extra or {}), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=timeout)


@pytest.fixture(autouse=True)
def own_tuned_dir(tmp_path, monkeypatch):
    """--save writes, and --params tuned reads first, a per-test directory, never the user's real one."""
    monkeypatch.setenv("HOPBENCH_TUNED_DIR", str(tmp_path / "tuned"))


def mini_suite(tmp_path: Path, n: int = 3) -> Path:
    p = tmp_path / "tiny.toml"
    body = "".join(f'[[instances]]\nbase = "ring:{12 + 2 * i}"\ncap = 4\nbudget = 3\n' for i in range(n))
    p.write_text('name = "tiny"\ndescription = "tuning test"\n' + body)
    return p


def trials_of(study_name: str, db: Path):
    from hopbench.harness.bench.tuning import optuna_storage

    return optuna.load_study(study_name=study_name, storage=optuna_storage(f"sqlite:///{db}")).get_trials()


@pytest.mark.parametrize("name", [n for n in solvers.names() if solvers.get(n).search_space()])
def test_every_search_space_round_trips_through_optuna(name):
    cls = solvers.get(name)
    space = search_space(name)
    trial = optuna.trial.FixedTrial(default_trial(space))
    values = {k: suggest(trial, k, p) for k, p in space.items()}
    assert values == {k: cls.params[k].default for k in space}
    assert params_from_optuna(name, trial.params, space) == values
    solvers.create(name, **values)


def test_edgecut_full_searches_t_zero_beside_the_log_range():
    p = search_space("edgecut-full")["t"]
    assert (p.low, p.high, p.log, p.also) == (1, 1000, True, (0,))
    trial = optuna.trial.FixedTrial({"t:mode": "0"})
    assert suggest(trial, "t", p) == 0


def test_restricting_and_fixing_the_space():
    assert set(search_space("vrs", only=["k"])) == {"k"}
    assert "k" not in search_space("vrs", fixed={"k": 3})
    with pytest.raises(HopbenchError, match="not in vrs's search space"):
        search_space("vrs", only=["z"])


def test_references_use_records_annotations_and_bounds(tmp_path):
    suite = load_suite(mini_suite(tmp_path))
    store = Store.open(f"sqlite:///{tmp_path / 'r.db'}")
    first = suite.instances[0]
    store.record({"cell_key": "x", "suite": "tiny", "instance": first.id, "instance_spec": {}, "kind": "shortcut",
                  "solver": "random", "params": {}, "params_tag": "default", "seed": 1, "status": "ok",
                  "objective": 2.5})
    refs = best_known_objectives(suite.instances, store, "tiny")
    assert refs[first.id] == 2.5
    p = suite.instances[1].problem()
    from hopbench.harness.problems.shortcut.problem import objective_value

    assert refs[suite.instances[1].id] == objective_value(p.objective, *p.lower_bounds())


def test_routing_references_fall_back_to_the_load_bound_and_sigma4_asks_for_a_record(tmp_path):
    path = tmp_path / "routes.toml"
    path.write_text('[defaults]\nkind = "routing"\nrules = "angara"\n\n[[instances]]\ntorus = "4x4"\n')
    suite = load_suite(path)
    store = Store.open(f"sqlite:///{tmp_path / 'r.db'}")
    problem = suite.instances[0].problem()
    assert best_known_objectives(suite.instances, store, "routes") == {suite.instances[0].id: problem.load_lower_bound()}
    path.write_text(path.read_text() + 'objective = "sigma4"\n')
    suite = load_suite(path)
    with pytest.raises(HopbenchError, match="no best known value and no lower bound; record a run"):
        best_known_objectives(suite.instances, store, "routes")


def test_a_study_records_every_run_and_starts_from_the_defaults(tmp_path, capsys):
    db = tmp_path / "t.db"
    r = hopbench("tune", "vrs", "--suite", mini_suite(tmp_path), "--trials", "4", "--seeds", "2", "--time-limit", "5",
                 "--storage", f"sqlite:///{db}", "--study", "s1", "--save", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["study"] == "s1" and out["n_trials"] == 4 and out["workers"] == 1
    assert set(out["best_params"]) <= set(search_space("vrs")) and out["best_value"] is not None
    trials = trials_of("s1", db)
    assert params_from_optuna("vrs", trials[0].params) == {k: p.default for k, p in search_space("vrs").items()}
    runs = Store.open(f"sqlite:///{db}").dataframe()
    assert set(runs.study) == {"s1"} and set(runs.trial) <= {t.number for t in trials}
    complete = [t for t in trials if t.state.name == "COMPLETE"]
    for t in complete:  # 3 instances x 2 seeds per complete trial
        assert (runs.trial == t.number).sum() == 6
    saved = Path(out["saved"])
    assert saved == tmp_path / "tuned" / "vrs.json"
    assert json.loads(saved.read_text())["params"] == out["best_params"]
    assert load_tuned(["vrs"])["vrs"] == out["best_params"]
    # the same options continue the study; other seeds or another limit would mix incomparable trials
    again = ["tune", "vrs", "--suite", mini_suite(tmp_path), "--trials", "1", "--storage", f"sqlite:///{db}",
             "--study", "s1"]
    r = hopbench(*again, "--seeds", "2", "--time-limit", "5", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["n_trials"] == 5, r.stderr
    # the refusals in this process (the same main() as the command; they end before any trial runs, so a fresh
    # interpreter each would only add its start-up)
    from hopbench.harness.cli import main

    def refused(*args) -> str:
        capsys.readouterr()
        code = main([str(a) for a in args])
        err = capsys.readouterr().err
        assert code == 2, (args, err)
        return err

    err = refused(*again, "--seeds", "3", "--time-limit", "5")
    assert "was created with seeds [1, 2]" in err, err
    err = refused(*again, "--seeds", "2")  # no --time-limit: the default 60 s, not the 5 s the study used
    assert "time limit 5 s per run (now 60 s)" in err, err
    # nor may another --fix or --tune: the best trial's parameters would be reported with the wrong held ones
    err = refused(*again, "--seeds", "2", "--time-limit", "5", "--fix", "k=3")
    assert "was created with --fix nothing" in err and "tuned parameters" in err, err
    err = refused(*again, "--seeds", "2", "--time-limit", "5", "--tune", "k")
    assert "the tuned parameters" in err, err


def test_two_workers_share_one_study(tmp_path):
    db = tmp_path / "w.db"
    r = hopbench("tune", "vrs", "--suite", mini_suite(tmp_path), "--trials", "6", "--workers", "2", "--time-limit", "5",
                 "--storage", f"sqlite:///{db}", "--study", "shared", "--json")
    assert r.returncode == 0, r.stderr
    trials = trials_of("shared", db)
    assert len(trials) == 6 and len({t.number for t in trials}) == 6
    assert {t.state.name for t in trials} <= {"COMPLETE", "PRUNED"}
    assert len({t.user_attrs["worker_pid"] for t in trials}) == 2  # both workers contributed


def test_a_killed_worker_leaves_a_usable_study(tmp_path):
    db = tmp_path / "k.db"
    args = ["tune", "test-slow", "--suite", mini_suite(tmp_path, 4), "--trials", "8", "--workers", "2",
            "--time-limit", "5", "--storage", f"sqlite:///{db}", "--study", "k", "--json"]
    env = dict(os.environ, **PLUGIN, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "hopbench.harness.cli", *args], env=env, cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    victim = None
    deadline = time.monotonic() + 120
    while victim is None and time.monotonic() < deadline:
        time.sleep(0.5)
        kids = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        workers = [int(k) for k in kids if "hopbench-tune" in Path(f"/proc/{k}/cmdline").read_text()
                   or "spawn_main" in Path(f"/proc/{k}/cmdline").read_text()]
        if len(workers) == 2 and db.exists():
            time.sleep(2.0)  # let both start trials
            victim = workers[1]
    assert victim is not None, "the two workers never started"
    os.kill(victim, signal.SIGKILL)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 1 and "exit code -9" in err, err
    trials = trials_of("k", db)
    assert not [t for t in trials if t.state.name == "RUNNING"]
    survivor = [t for t in trials if t.user_attrs.get("worker_pid") != victim]
    assert len(survivor) == 4 and all(t.state.name in ("COMPLETE", "PRUNED") for t in survivor)
    # usable: the study takes more trials and reports its best
    r = hopbench(*args[:-1], "--workers", "1", "--trials", "1", "--json", env_extra=PLUGIN)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["n_trials"] == len(trials) + 1


def test_workers_on_separate_machines_join_a_postgresql_study(tmp_path, empty_postgres_url):
    """Two workers start on a new database at the same moment: both create the store and the study's tables."""
    url = empty_postgres_url
    name = f"join-{os.getpid()}-{time.time_ns()}"
    suite = mini_suite(tmp_path)
    args = ["tune", "vrs", "--suite", suite, "--trials", "3", "--time-limit", "5", "--storage", url,
            "--study", name, "--json"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [subprocess.Popen([sys.executable, "-m", "hopbench.harness.cli", *map(str, args), "--seed", str(i)], env=env,
                              cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    study = optuna.load_study(study_name=name, storage=url)
    trials = study.get_trials()
    assert len(trials) == 6 and len({t.number for t in trials}) == 6
    assert len({t.user_attrs["worker_pid"] for t in trials}) == 2


def test_bad_inputs_exit_2(tmp_path, capsys):
    suite = mini_suite(tmp_path)
    store = f"sqlite:///{tmp_path / 'b.db'}"
    cases = [
        (["tune", "nope", "--suite", suite, "--trials", "1", "--storage", store], "unknown solver"),
        (["tune", "vrs", "--suite", suite, "--trials", "1", "--tune", "zz", "--storage", store],
         "not in vrs's search space"),
        (["tune", "vrs", "--suite", suite, "--trials", "1", "--fix", "zz=1", "--storage", store], "has no parameter"),
        (["tune", "random", "--suite", suite, "--trials", "1", "--storage", store], "no tunable parameters"),
        (["tune", "vrs", "--suite", suite, "--trials", "1", "--storage", "postgresql://nobody@127.0.0.1:1/x"],
         "cannot open"),
        (["tune", "vrs", "--suite", suite, "--trials", "0", "--storage", store], ">= 1"),
        (["run", "--suite", suite, "--solver", "vrs", "--params", "tuned", "--storage", store], "no tuned parameters"),
        (["run", "--suite", suite, "--solver", "random,vrs", "--params", "tuned", "--storage", store],
         "no tuned parameters for random, vrs"),
    ]
    from hopbench.harness.cli import main  # in this process: a fresh interpreter per case would only add its start-up

    for args, fragment in cases:
        capsys.readouterr()
        code = main([str(a) for a in args])
        err = capsys.readouterr().err
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and fragment in lines[0], (args, err)
    r = hopbench(*cases[0][0])  # and once through the real command line, for the exit status a shell sees
    assert r.returncode == 2 and cases[0][1] in r.stderr


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_prunes_the_running_trial_and_a_resumed_study_tries_the_defaults(tmp_path, sig):
    """Ctrl-C ends the running trial (the defaults') as pruned, marked interrupted, without Optuna's failure
    warnings; the same command then measures the defaults, as their trial never finished.  The held solver
    works until its file is removed: only the signal can end the first command early."""
    db, hold = tmp_path / "i.db", tmp_path / "hold"
    hold.write_text("")
    args = ["tune", "test-hold", "--suite", mini_suite(tmp_path, 2), "--trials", "3", "--time-limit", "600",
            "--storage", f"sqlite:///{db}", "--study", "i"]
    env = dict(os.environ, **PLUGIN, HOPBENCH_TEST_HOLD=str(hold), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "hopbench.harness.cli", *args], env=env, cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300  # a guard against a hang, not a measurement
        running = []
        while not running and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.3)
            try:
                running = [t for t in trials_of("i", db) if t.state.name == "RUNNING"]
            except KeyError:  # the study is not created yet
                continue
        assert running, "no trial started"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "failed" not in err.lower() and "Traceback" not in err, err
    assert "trial 0: pruned (interrupted)" in err
    trials = trials_of("i", db)
    assert [t.state.name for t in trials] == ["PRUNED"] and trials[0].user_attrs["interrupted"] is True
    defaults = {"x": 1.0}  # test-hold's (a plug-in, not loaded in this process)
    assert trials[0].params == defaults
    # resumed, the held file gone: the defaults come first again
    hold.unlink()
    r = hopbench(*args[:4], "--trials", "1", *args[6:], "--json", env_extra={**PLUGIN, "HOPBENCH_TEST_HOLD": str(hold)})
    assert r.returncode == 0, r.stderr
    trials = trials_of("i", db)
    assert [t.state.name for t in trials] == ["PRUNED", "COMPLETE"]
    assert trials[1].params == defaults
    assert "failed" not in r.stderr.lower()
