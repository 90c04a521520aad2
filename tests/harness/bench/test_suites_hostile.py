"""Hostile and careless suite files (issue 15): each is refused at load with one line naming the file and key.

One table row per bad suite.  Rows whose failure was a hang (formulas with unbounded ``**``, huge
products, a grid that names billions of instances) run ``hopbench instances`` in a subprocess under
a generous timeout, so a regression shows up as a timeout rather than a stuck test run.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hopbench.harness.bench.suites import evaluate_formula, load_suite
from hopbench.harness.errors import HopbenchError

ROOT = Path(__file__).resolve().parents[3]

#: a valid shortcut instance and a valid grid, to put one mistake into
RING = "[[instances]]\nbase = 'ring:8'\ncap = 3\nbudget = 2\n"
GRID = "[[grid]]\nvars = { n = [8] }\nbases = ['ring:{n}']\ncaps = [3]\nbudgets = [2]\n"
ROUTE = "[[instances]]\nkind = 'routing'\ntorus = '4x4'\n"
#: an instance made by GRID, to annotate
GRID_ID = "[[annotations]]\nid = 'ring:8/cap3/b2/aspl'\n"
PUBLISHED = "[[published]]\nlabel = 'E1'\nN = 8\nK = 3\nahops = [1, 3]\nbhops = [2]\nreproducible = true\n"

#: (case id, suite text, a fragment the message must hold besides the file name: the offending key)
BAD_SUITES = [
    # unknown keys
    ("top-level typo", "name = 'x'\ntim_limit = 5\n" + RING, "'tim_limit'; did you mean 'time_limit'"),
    ("singular table name", "name = 'x'\n[[instance]]\nbase = 'ring:8'\ncap = 3\nbudget = 2\n", "'instance'"),
    ("unknown defaults key", "name = 'x'\n[defaults]\ncapp = 3\n" + RING, "[defaults]: unknown key 'capp'"),
    ("unknown grid key", GRID + "budget = [2]\n", "unknown key 'budget'; did you mean 'budgets'"),
    ("published beside routing only", ROUTE + PUBLISHED, "unknown top-level key 'published'"),
    ("unknown published column", RING + PUBLISHED + "aspl = 2.0\n", "published: row #1 (E1): unknown key 'aspl'"),
    # types of the suite's own keys
    ("grid = 5", "name = 'x'\ngrid = 5\n", "grid must be an array of tables"),
    ("annotations = 5", "annotations = 5\n" + RING, "annotations must be an array of tables"),
    ("instances a table", "name = 'x'\ninstances = { base = 'ring:8', cap = 3, budget = 2 }\n",
     "instances must be an array of tables"),
    ("instances of numbers", "name = 'x'\ninstances = [1, 2]\n", "instances #1 must be a table"),
    ("description = 5", "description = 5\n" + RING, "description must be a string"),
    ("name = 3", "name = 3\n" + RING, "name must be a string"),
    ("name with a path", "name = '../../elsewhere'\n" + RING, "name must be a string"),
    ("seeds = 10**8", "seeds = 100000000\n" + RING, "seeds is 100,000,000, above the cap"),
    ("seeds a float", "seeds = 2.5\n" + RING, "seeds must be a positive integer"),
    ("defaults = 5", "defaults = 5\n" + RING, "[defaults] must be a table"),
    ("negative time limit", "time_limit = -1\n" + RING, "time_limit must be a positive number"),
    ("text time limit", "time_limit = '60'\n" + RING, "time_limit must be a positive number"),
    ("infinite time limit", "time_limit = inf\n" + RING, "time_limit must be a positive number"),
    ("fractional evaluations", "evaluations = 1.5\n" + RING, "evaluations must be a positive integer"),
    # grids
    ("a dict where a list belongs", GRID.replace("bases = ['ring:{n}']", "bases = { a = 'ring:{n}' }"),
     "bases must be a non-empty list"),
    ("vars not a table", GRID.replace("vars = { n = [8] }", "vars = [8]"), "vars must map names to lists"),
    ("vars value not a list", GRID.replace("n = [8]", "n = 8"), "vars.n must be a non-empty list"),
    ("vars value an empty list", GRID.replace("n = [8]", "n = []"), "vars.n must be a non-empty list"),
    ("vars of booleans", GRID.replace("n = [8]", "n = [true]"), "vars.n must list numbers or strings"),
    ("caps of tables", GRID.replace("caps = [3]", "caps = [{ a = 3 }]"), "caps must list integers or formulas"),
    ("objectives not text", GRID + "objectives = [1]\n", "objectives must list strings"),
    ("tune_if not a formula", GRID + "tune_if = 5\n", "tune_if must be a formula string"),
    ("grid regular not a bool", GRID + "regular = 'yes'\n", "regular must be true or false"),
    ("text in arithmetic", GRID.replace("n = [8]", "n = [8], s = ['ab']").replace("budgets = [2]",
                                                                                "budgets = ['s*10']"),
     "budget: 's*10' computes with 'ab', which is not a real number"),
    # shortcut fields, types and ranges
    ("negative budget", RING.replace("budget = 2", "budget = -1"), "budget = -1 is negative"),
    ("negative budget formula", RING.replace("budget = 2", "budget = '2 - N'"), "budget = -6 is negative"),
    ("cap below the base degree", RING.replace("cap = 3", "cap = 1"),
     "cap = 1 is below the maximum degree 2 of the base ring:8"),
    ("cap below the degree in a grid", GRID.replace("caps = [3]", "caps = ['n - 7']"), "cap = 1 is below"),
    ("fractional budget", RING.replace("budget = 2", "budget = 2.5"), "budget comes out as 2.5"),
    ("boolean cap", RING.replace("cap = 3", "cap = true"), "cap must be an integer"),
    ("budget a list", RING.replace("budget = 2", "budget = [2]"), "budget must be an integer or a formula"),
    ("base not text", RING.replace("base = 'ring:8'", "base = 8"), "base must be a topology spec string"),
    ("unknown objective", RING + "objective = 'aspll'\n", "objective 'aspll' is not a shortcut objective"),
    ("objective not text", RING + "objective = 3\n", "objective must be a string"),
    ("unknown family", RING + "family = 'equal'\n", "family 'equal' is unknown"),
    ("regular not a bool", RING + "regular = 'yes'\n", "regular must be true or false"),
    ("regular budget off", RING.replace("budget = 2", "budget = 3") + "regular = true\n", "regular problem needs"),
    ("group not text", RING + "group = 5\n", "group must be a string"),
    ("id not text", RING + "id = 5\n", "id must be a non-empty string"),
    ("kind not text", RING + "kind = 5\n", "kind must be a string"),
    # routing fields
    ("routing objective of another kind", ROUTE + "objective = 'aspl'\n", "objective 'aspl' is not a routing"),
    ("routing minimal not a bool", ROUTE + "minimal = 'yes'\n", "minimal must be true or false"),
    ("routing torus a number", ROUTE.replace("torus = '4x4'", "torus = 5"), "torus must be a string or a list"),
    ("routing subset a list", ROUTE + "subset = ['a']\n", "subset must be a string"),
    ("routing rules unknown", ROUTE + "rules = 'mine'\n", "unknown routing rules 'mine'"),
    # what a suite knows: numbers finite, references numeric where they are metrics
    ("text best_known", RING + "best_known = 'y'\n", "best_known must be a finite number"),
    ("nan best_known", RING + "best_known = nan\n", "best_known must be a finite number"),
    ("infinite optimum", RING + "optimum = inf\n", "optimum must be a finite number"),
    ("boolean optimum", RING + "optimum = true\n", "optimum must be a finite number"),
    ("text reference metric", RING + "reference = [{ source = 'x', diameter = 'y' }]\n",
     "reference #1: diameter must be a finite number, got 'y'"),
    ("text reference objective", ROUTE + "reference = [{ source = 'x', objective = 'y' }]\n",
     "reference #1: objective must be a finite number"),
    ("infinite reference number", RING + "reference = [{ source = 'x', seconds = inf }]\n",
     "reference #1: seconds must be a finite number"),
    ("reference label not text", RING + "reference = [{ label = 5, diameter = 3 }]\n",
     "reference #1: label must be a string"),
    ("reference a string", RING + "reference = 'y'\n", "reference must be a table or a list of tables"),
    ("split not a split", RING + "split = 5\n", "split must be one of tune, test"),
    ("note not text", RING + "note = 5\n", "note must be a string"),
    ("annotation reference a string", GRID + GRID_ID + "reference = 'y'\n",
     "annotation #1 (ring:8/cap3/b2/aspl): reference must be a table or a list of tables"),
    ("annotation reference text metric", GRID + GRID_ID + "reference = [{ source = 'x', aspl = 'y' }]\n",
     "reference #1: aspl must be a finite number"),
    ("annotation best_known text", GRID + GRID_ID + "best_known = 'y'\n", "best_known must be a finite number"),
    ("annotation optimum below the bound", GRID + GRID_ID + "optimum = 0.5\n",
     "instance 'ring:8/cap3/b2/aspl': optimum = 0.5 is below"),
    ("annotation id not text", GRID + "[[annotations]]\nid = 5\n", "annotation #1: id must be the id"),
    ("annotation unknown key", GRID + GRID_ID + "cap = 4\n", "annotation #1: unknown key 'cap'"),
    # the published table equality2022 keeps
    ("published a number", "published = 5\n" + RING, "published: must be an array of tables"),
    ("published text number", RING + PUBLISHED.replace("N = 8", "N = 'x'"), "row #1 (E1): N must be an integer"),
    ("published hops not integers", RING + PUBLISHED.replace("bhops = [2]", "bhops = ['2']"),
     "row #1 (E1): bhops must be a list of integers"),
    ("published row without label", RING + "[[published]]\nN = 8\n", "row #1: missing key 'label'"),
]

#: (case id, suite text, fragment): suites that hung or allocated without bound before they were refused
HANGS = [
    ("budgets 9**9**9", GRID.replace("budgets = [2]", "budgets = ['9**9**9']"),
     "budget: 9 ** 387420489 in '9**9**9' is about 10^3.7e+08, above the cap"),
    ("base ring:{10**10**10}", GRID.replace("ring:{n}", "ring:{10**10**10}"), "base: 10 ** 10000000000"),
    ("tower of twos", RING.replace("budget = 2", "budget = '2**2**2**2**2'"), "budget: 2 ** 65536"),
    ("a negative power of a fraction", RING.replace("budget = 2", "budget = '0.5**-99999999999'"), "budget: 0.5 **"),
    ("huge products", RING.replace("budget = 2", "budget = '10**6 * 10**6 * 10**6'"),
     "budget: a value computed in '10**6 * 10**6 * 10**6' is 1,000,000,000,000,000,000, above the cap"),
    ("a huge literal", RING.replace("budget = 2", "budget = 9223372036854775807"),
     "budget is 9,223,372,036,854,775,807"),
    ("tune_if power", GRID + "tune_if = '9**9**9 > n'\n", "tune_if: 9 ** 387420489"),
    ("a complex power", RING.replace("budget = 2", "budget = '(-8)**0.5'"), "which is not a real number"),
    ("an infinite constant", RING.replace("budget = 2", "budget = '1e400'"), "budget: '1e400' computes inf"),
    ("a formula of 100,000 characters", RING.replace("budget = 2", "budget = '" + "1+" * 50_000 + "1'"),
     "budget: a formula of 100,001 characters"),
    ("parentheses 300 deep", RING.replace("budget = 2", "budget = '" + "(" * 300 + "1" + ")" * 300 + "'"),
     "budget: cannot parse formula"),
    ("a grid of a billion instances", "[[grid]]\nvars = { a = [" + ", ".join(map(str, range(1000))) + "], b = ["
     + ", ".join(map(str, range(1000))) + "] }\nbases = ['ring:8']\ncaps = [3]\nbudgets = [2]\n",
     "the number of instances is 1,000,000, above the cap of 100,000"),
    ("a base of 10^11 vertices", RING.replace("ring:8", "ring:100000000000"),
     "instance #1: base: ring:100000000000: the vertex count is 100,000,000,000, above the cap"),
    ("a base read from /dev/zero", RING.replace("ring:8", "file:/dev/zero"),
     "instance #1: base: edge file '/dev/zero' is not a regular file"),
    ("a node range of 10^11", ROUTE + "nodes = '0-99999999999'\n", "nodes: node 99999999999 is out of range"),
]


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def refused(path: Path) -> str:
    """The one-line message a suite file is refused with."""
    with pytest.raises(HopbenchError) as info:
        load_suite(path)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_the_tables_are_big_enough():
    assert len(BAD_SUITES) + len(HANGS) >= 25
    assert len({c for c, _, _ in BAD_SUITES + HANGS}) == len(BAD_SUITES) + len(HANGS)


@pytest.mark.parametrize("case, text, fragment", BAD_SUITES, ids=[c[0] for c in BAD_SUITES])
def test_a_bad_suite_is_refused_at_load_naming_the_file_and_key(tmp_path, case, text, fragment):
    message = refused(write(tmp_path, text))
    assert message.startswith("s.toml: "), message
    assert fragment in message, message


@pytest.mark.parametrize("case, text, fragment", HANGS, ids=[c[0] for c in HANGS])
def test_a_formula_that_hung_is_refused_within_a_timeout(tmp_path, case, text, fragment):
    path = write(tmp_path, text)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, "-m", "hopbench.harness.cli", "instances", str(path)], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=60)
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("error: s.toml: "), run.stderr
    assert fragment in run.stderr, run.stderr


# --------------------------------------------------------------------------- the file itself


def test_a_non_utf8_suite_file_is_one_line(tmp_path):
    path = tmp_path / "s.toml"
    path.write_bytes(b"name = '\xff\xfe'\n" + RING.encode())
    assert "s.toml' is not UTF-8 text" in refused(path)


def test_a_directory_or_a_device_is_no_suite_file(tmp_path):
    (tmp_path / "d.toml").mkdir()
    assert "d.toml' is a directory" in refused(tmp_path / "d.toml")
    (tmp_path / "zero.toml").symlink_to("/dev/zero")
    assert "zero.toml' is not a regular file" in refused(tmp_path / "zero.toml")


def test_a_huge_suite_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    monkeypatch.setenv("HOPBENCH_MAX_INPUT_BYTES", "1000")
    path = write(tmp_path, RING + "# " + "x" * 2000 + "\n")
    message = refused(path)
    assert "s.toml" in message and "HOPBENCH_MAX_INPUT_BYTES" in message


def test_deep_nesting_and_bad_toml_are_one_line(tmp_path):
    message = refused(write(tmp_path, RING + "reference = " + "[" * 100_000 + "]" * 100_000 + "\n"))
    assert "suite file s.toml: nesting" in message and "HOPBENCH_MAX_NESTING" in message
    assert refused(write(tmp_path, "name = [unclosed\n")).startswith("s.toml is not valid TOML: ")


def test_a_nul_in_a_suite_name_is_one_line():
    with pytest.raises(HopbenchError, match="NUL"):
        load_suite("bad\x00name")


# --------------------------------------------------------------------------- what still loads


def test_a_kind_owns_its_suite_tables(tmp_path):
    # [[published]] belongs to the shortcut kind (equality2022 keeps its Table 2 there)
    suite = load_suite(write(tmp_path, RING + PUBLISHED))
    assert len(suite.instances) == 1 and suite.raw["published"][0]["label"] == "E1"
    assert "published" in load_suite("equality2022").raw


def test_good_formulas_and_text_vars_still_work(tmp_path):
    assert evaluate_formula("2**39", {}, "t") == 2**39
    assert evaluate_formula("10**12", {}, "t") == 10**12
    assert evaluate_formula("(-1)**999999999999", {}, "t") == -1  # small whatever the exponent
    assert evaluate_formula("0.5**-3", {}, "t") == 8.0
    with pytest.raises(HopbenchError, match="above the cap"):
        evaluate_formula("10**12 + 1", {}, "t")
    # a text var fills a placeholder but takes no part in arithmetic
    suite = load_suite(write(tmp_path, "[[grid]]\nvars = { t = ['4x4', '3x3'] }\nbases = ['torus:{t}']\n"
                                       "caps = [6]\nbudgets = ['N // 4']\n"))
    assert [i.id for i in suite.instances] == ["torus:4x4/cap6/b4/aspl", "torus:3x3/cap6/b2/aspl"]


def test_the_formula_cap_can_be_raised(tmp_path, monkeypatch):
    text = RING.replace("budget = 2", "budget = '10**13 // 10**12'")
    refused(write(tmp_path, text))
    monkeypatch.setenv("HOPBENCH_MAX_FORMULA", str(10**14))
    assert load_suite(write(tmp_path, text)).instances[0].fields["budget"] == 10


def test_board_on_a_bad_annotation_is_one_line(tmp_path, cli):
    # 'hopbench board' once crashed with a traceback on an annotation's reference = "y"
    from hopbench.harness.bench.store import Store

    path = write(tmp_path, GRID + GRID_ID + "reference = 'y'\n")
    url = f"sqlite:///{tmp_path / 'r.db'}"
    Store.open(url).close()
    code, _, err = cli("board", "--suite", path, "--storage", url, "-o", tmp_path / "out")
    assert code == 2 and err.count("\n") == 1 and "s.toml: annotation #1" in err and "reference" in err, err
