import pytest

from harness.bench.suites import evaluate_formula, list_suites, load_suite
from harness.errors import HopbenchError

STANDARD = ["quick", "edgecut2022", "koibuchi2012", "exact-small", "equality2022", "angara2021"]


def write(tmp_path, text, name="s.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_standard_suites_load_and_build_their_problems():
    assert set(STANDARD) <= set(list_suites())
    for name in STANDARD:
        suite = load_suite(name)
        assert suite.instances and len({i.id for i in suite.instances}) == len(suite.instances)
    for inst in load_suite("quick").instances:
        inst.problem()


def test_quick_is_small_and_covers_every_kind():
    quick = load_suite("quick")
    assert len(quick.instances) <= 6
    assert {i.kind for i in quick.instances} == {"shortcut", "routing"}


def test_edgecut2022_grid_ids_splits_and_references():
    suite = load_suite("edgecut2022")
    assert len(suite.instances) == 39
    inst = suite.by_id["torus:8x8/cap10/b16/aspl"]
    assert inst.split == "tune" and inst.fields["budget"] == 16 and inst.fields["cap"] == 10
    refs = {r["label"]: r["diameter"] for r in inst.references}
    assert refs == {"SA": 6, "VRS": 7, "ECF": 5, "ECL": 5}
    assert all(r["source"] == "Fuad et al. 2022, Table 2" for r in inst.references)
    assert suite.by_id["ring:256/cap10/b32/aspl"].split == "test"
    assert len(suite.select(split="tune")) == 21


def test_koibuchi_formulas_use_the_vertex_count():
    suite = load_suite("koibuchi2012")
    assert len(suite.instances) == 80
    inst = suite.by_id["ring:1024/cap10/b4096/golf/regular"]
    p = inst.problem()
    assert p.regular and p.degree_cap == 10 and p.budget == 4096
    assert int(p.free_ports.sum()) == 2 * p.budget


def test_select_by_glob():
    suite = load_suite("edgecut2022")
    assert {i.id.split(":")[0] for i in suite.select("torus:*")} == {"torus"}
    with pytest.raises(HopbenchError, match="no instance"):
        suite.select("hypercube:*")


def test_explicit_and_grid_instances_with_annotations(tmp_path):
    p = write(tmp_path, """
name = "mine"
description = "d"
[defaults]
objective = "golf"
[[instances]]
base = "ring:10"
cap = 4
budget = "N // 2"
best_known = 3.5
group = "small rings"
[[grid]]
vars = { k = [3, 4] }
bases = ["torus:{k}x{k}"]
caps = ["2*k"]
budgets = [2]
[[annotations]]
id = "torus:3x3/cap6/b2/golf"
optimum = 2.4
split = "tune"
""")
    suite = load_suite(p)
    ids = [i.id for i in suite.instances]
    assert ids == ["ring:10/cap4/b5/golf", "torus:3x3/cap6/b2/golf", "torus:4x4/cap8/b2/golf"]
    assert suite.by_id["ring:10/cap4/b5/golf"].best_known == 3.5
    assert suite.by_id["torus:3x3/cap6/b2/golf"].optimum == 2.4
    # a group names the board table the instance goes in; it is not part of the problem or the id
    from harness.report.facts import instance_facts

    assert instance_facts(suite.by_id["ring:10/cap4/b5/golf"], 0).group == "small rings"


@pytest.mark.parametrize("text, fragment", [
    ("name = 'x'\n[[instances]]\nbase = 'ring:8'\ncap = 3\n", "missing key 'budget'"),
    ("name = 'x'\n[[instances]]\nbase = 'ring:8'\ncap = 3\nbudget = 2\ncapp = 4\n", "unknown key 'capp'"),
    ("name = 'x'\n[[instances]]\nbase = 'ring:8'\ncap = 3\nbudget = 'N/3'\n", "not an integer"),
    ("name = 'x'\n[[instances]]\nbase = 'ring:8'\ncap = 3\nbudget = 'M*2'\n", "unknown name 'M'"),
    ("name = 'x'\n[[instances]]\nbase = 'ring:8'\ncap = 3\nbudget = '__import__(1)'\n", "not an arithmetic formula"),
    ("name = 'x'\n[[instances]]\nbase = 'torus:0x3'\ncap = 3\nbudget = 'N'\n", "at least 2"),
    ("name = 'x'\n[[instances]]\nbase = 'ring:8'\ncap = 3\nbudget = 2\nsplit = 'train'\n", "split must be"),
    ("name = 'x'\n[[instances]]\nkind = 'flow'\n", "unknown problem kind"),
    ("name = 'x'\n", "defines no instances"),
    ("name = 'x'\nseeds = 0\n[[instances]]\nbase = 'ring:8'\ncap = 3\nbudget = 2\n", "seeds must be"),
    ("name = 'x'\n[[instances]]\nbase = 'ring:8'\ncap = 3\nbudget = 2\n[[instances]]\nbase = 'ring:8'\ncap = 3\n"
     "budget = 2\n", "defined twice"),
    ("name = 'x'\n[[instances]]\nbase = 'ring:8'\ncap = 3\nbudget = 2\n[[annotations]]\nid = 'nope'\n",
     "no instance with id"),
    ("name = 'x'\n[[grid]]\nbases = ['ring:8']\ncaps = [3]\n", "budgets must be a non-empty list"),
    ("name = [unclosed\n", "not valid TOML"),
])
def test_malformed_suites(tmp_path, text, fragment):
    with pytest.raises(HopbenchError, match=fragment):
        load_suite(write(tmp_path, text))


def test_unknown_suite_names_the_available_ones():
    with pytest.raises(HopbenchError, match="unknown suite 'nope'; available suites: .*quick"):
        load_suite("nope")


def test_formula_evaluator():
    assert evaluate_formula("y * N // 2", {"y": 3, "N": 64}, "t") == 96
    assert evaluate_formula("n <= 10", {"n": 11}, "t") is False
    assert evaluate_formula("2**e", {"e": 6}, "t") == 64
    with pytest.raises(HopbenchError, match="division by zero"):
        evaluate_formula("1 // 0", {}, "t")


def test_select_by_size():
    suite = load_suite("angara2021")
    small = suite.select(max_nodes=64)
    assert small and all(i.size() <= 64 for i in small) and len(small) < len(suite.instances)
    assert load_suite("edgecut2022").by_id["torus:8x8/cap10/b16/aspl"].size() == 64
    with pytest.raises(HopbenchError, match="of at most 3 nodes"):
        suite.select(max_nodes=3)
