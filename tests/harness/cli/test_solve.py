"""``hopbench solve`` conveniences: a suite's instance, budget formulas, one solver's page, "did you mean"."""
from __future__ import annotations

import argparse
import json

import pytest

from hopbench import solvers
from hopbench.harness.bench.suites import load_suite


def shortcut_instance(suite: str = "quick"):
    return next(i for i in load_suite(suite).instances if i.kind == "shortcut")


def test_solve_takes_an_instance_from_a_suite(cli, tmp_path):
    inst = shortcut_instance()
    path = tmp_path / "sol.json"
    code, out, err = cli("solve", "--suite", "quick", "--instance", inst.id, "--solver", "edgecut-full", "-o", path)
    assert code == 0, err
    assert f"instance {inst.id} of quick" in out
    assert json.loads(path.read_text())["problem"] == inst.problem().describe()
    code, out, _ = cli("verify", path)
    assert code == 0 and out.startswith("valid")


@pytest.mark.parametrize("args, words", [
    (["--suite", "quick", "--instance", "<near>"], "did you mean '<id>'"),
    (["--suite", "quik", "--instance", "x"], "unknown suite 'quik'; did you mean 'quick'?"),
    (["--suite", "quick"], "--suite needs --instance ID"),
    (["--suite", "quick", "--instance", "<id>", "--base", "ring:8"], "--base and --suite describe the problem twice"),
    (["--base", "ring:8", "--cap", "4"], "missing --budget"),
    (["--base", "ring:8", "--cap", "4", "--budget", "2", "--instance", "<id>"], "--instance goes with --suite"),
])
def test_bad_problem_choices_are_one_line_errors(cli, args, words):
    inst = shortcut_instance()
    near = inst.id[:-1] + "x"  # one character off
    args = [a.replace("<near>", near).replace("<id>", inst.id) for a in args]
    code, out, err = cli("solve", *args, "--solver", "random")
    assert code == 2 and out == ""
    assert words.replace("<id>", inst.id) in err and err.count("\n") == 1


def test_a_routing_instance_points_to_route(cli):
    inst = next(i for i in load_suite("quick").instances if i.kind == "routing")
    code, _, err = cli("solve", "--suite", "quick", "--instance", inst.id, "--solver", "random")
    assert code == 2 and "is a routing problem" in err and "hopbench route" in err


@pytest.mark.parametrize("base, cap, formula, expected", [
    ("empty:16", 3, "n*d//2", 16 * 3 // 2),
    ("ring:16", 4, "N // 4", 4),
    ("torus:4x4", 6, "(cap - 4) * N / 2", (6 - 4) * 16 // 2),
    ("ring:8", 4, "3", 3),
])
def test_budget_formulas_are_those_of_suite_files(cli, base, cap, formula, expected):
    code, out, err = cli("solve", "--base", base, "--cap", cap, "--budget", formula, "--solver", "random", "--json")
    assert code == 0, err
    assert json.loads(out)["problem"]["budget"] == expected


@pytest.mark.parametrize("formula, words", [
    ("k*2", "unknown name 'k'"),
    ("n/3", "not a whole number"),
    ("n*", "cannot parse formula"),
    ("9**9**9", "above the cap"),
])
def test_bad_budget_formulas_are_one_line_errors(cli, formula, words):
    code, _, err = cli("solve", "--base", "ring:16", "--cap", "4", "--budget", formula, "--solver", "random")
    assert code == 2 and words in err and err.count("\n") == 1


def test_solve_lists_only_shortcut_solvers(cli):
    shortcut, routing = solvers.names("shortcut"), solvers.names("routing")
    assert shortcut and routing
    for name, words in [("edgecutfull", "did you mean 'edgecut-full'"), (routing[0], "does not solve shortcut")]:
        code, _, err = cli("solve", "--base", "ring:8", "--cap", "4", "--budget", "2", "--solver", name)
        assert code == 2 and words in err
        listed = err.rsplit("shortcut solvers: ", 1)[1].strip().split(", ")
        assert listed == shortcut  # the routing solvers are not offered


def test_solvers_name_shows_one_solver(cli):
    code, out, err = cli("solvers", "edgecut-full")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("edgecut-full  [shortcut]")
    assert not any(line.startswith(other + "  [") for line in lines for other in solvers.names() if
                   other != "edgecut-full")
    for key in solvers.get("edgecut-full").params:
        assert any(line.strip().startswith(f"{key} = ") for line in lines[1:])
    code, out, _ = cli("solvers", "edgecut-full", "--json")
    assert [row["name"] for row in json.loads(out)] == ["edgecut-full"]


def test_solvers_by_kind_and_unknown_names(cli):
    code, out, _ = cli("solvers", "--kind", "routing", "--json")
    assert code == 0 and [row["name"] for row in json.loads(out)] == solvers.names("routing")
    code, _, err = cli("solvers", "annealnig")
    assert code == 2 and "did you mean 'annealing'" in err
    code, _, err = cli("solvers", "dor", "--kind", "shortcut")
    assert code == 2 and "does not solve shortcut problems" in err
    code, _, err = cli("solvers", "--kind", "nope")
    assert code == 2 and "unknown problem kind 'nope'" in err


def test_tune_help_documents_every_option():
    from hopbench.harness.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    tune = sub.choices["tune"]
    undocumented = [a.option_strings or a.dest for a in tune._actions
                    if not isinstance(a, argparse._HelpAction) and not (a.help or "").strip()]
    assert undocumented == []
    assert "mean gap to the best known" in tune.description
