import pytest

from hopbench.harness.bench.suites import evaluate_formula, list_suites, load_suite
from hopbench.harness.errors import HopbenchError

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
    assert len(quick.instances) <= 7
    assert {i.kind for i in quick.instances} == {"shortcut", "routing", "traffic"}


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
    from hopbench.harness.report.facts import instance_facts

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
    large = suite.select(min_nodes=65)
    assert {i.id for i in large} == {i.id for i in suite.instances} - {i.id for i in small}
    middle = load_suite("graphgolf").select(min_nodes=1025, max_nodes=4096)
    assert sorted(i.size() for i in middle) == [1344, 1560, 1726, 1800, 3250]
    with pytest.raises(HopbenchError, match="of at least 10000000 nodes"):
        suite.select(min_nodes=10**7)


# --------------------------------------------------------------------------- formula names


@pytest.mark.parametrize("budget, message", [
    # the user wrote n and meant N, the base's vertex count (which an explicit instance always has)
    ("'n // 4'", r"unknown name 'n' in 'n // 4'; did you mean 'N' \(the base's vertex count\)\? known names: N$"),
    ("'M*2'", "unknown name 'M' in 'M\\*2'; known names: N$"),
])
def test_an_unknown_formula_name_lists_N_and_suggests_it(tmp_path, budget, message):
    with pytest.raises(HopbenchError, match=message):
        load_suite(write(tmp_path, f"name = 'x'\n[[instances]]\nbase = 'ring:8'\ncap = 3\nbudget = {budget}\n"))


def test_an_unknown_grid_name_suggests_the_var_that_differs_in_case(tmp_path):
    grid = "name = 'x'\n[[grid]]\nvars = {{ k = [3] }}\nbases = ['{base}']\ncaps = [3]\nbudgets = ['{budget}']\n"
    with pytest.raises(HopbenchError, match=r"grid #1 \(k=3\): budget: unknown name 'K' in 'K\+1'; did you mean 'k'\? "
                                            r"known names: k, N$"):
        load_suite(write(tmp_path, grid.format(base="ring:{4*k}", budget="K+1")))
    # a base spec is not computed from a base: N is not known there, and the message says where it is
    with pytest.raises(HopbenchError, match=r"unknown name 'n' in 'n\*k'; N \(the base's vertex count\) is known "
                                            r"only in numbers computed from a base .*; known names: k$"):
        load_suite(write(tmp_path, grid.format(base="ring:{n*k}", budget="2")))
    assert evaluate_formula("n + 1", {"n": 2}, "t") == 3  # a var named n is just a var


# --------------------------------------------------------------------------- known values and bounds

#: torus:4x4, cap 6, budget 4, ASPL: the base itself has ASPL 2.1333 (diameter 4), the Cerf bound of 16
#: vertices of degree 6 is 1.6, the optimum 1.7333 (milp proves it; exact-small has it with cap 5)
TORUS = "name = 'x'\n[[instances]]\nbase = 'torus:4x4'\ncap = 6\nbudget = 4\n"


@pytest.mark.parametrize("extra, message", [
    # the README's example once held these: above what the base itself scores, impossible for ASPL
    ("optimum = 2.85\n", r"s.toml: instance 'torus:4x4/cap6/b4/aspl': optimum = 2.85 is above 2.133333333, what "
                         r"the base graph itself scores .*no solution scores that; correct or remove it$"),
    ("best_known = 2.9\n", r"instance 'torus:4x4/cap6/b4/aspl': best_known = 2.9 is above 2.13"),
    ("reference = [{ source = 'S', label = 'XYZ', diameter = 3, aspl = 2.9 }]\n",
     r"instance 'torus:4x4/cap6/b4/aspl': reference 'XYZ' \(its aspl\) = 2.9 is above 2.13"),
    # below the Cerf bound
    ("optimum = 1.5\n", r"instance 'torus:4x4/cap6/b4/aspl': optimum = 1.5 is below 1.6, the lower bound "
                        r"of its aspl: no solution scores that; correct or remove it$"),
    ("reference = [{ source = 'S', aspl = 1.55 }]\n", r"reference 'S' \(its aspl\) = 1.55 is below 1.6"),
])
def test_known_values_a_bound_rules_out_are_refused_when_the_suite_loads(tmp_path, extra, message):
    with pytest.raises(HopbenchError, match=message):
        load_suite(write(tmp_path, TORUS + extra))


def test_known_values_within_the_bounds_load(tmp_path):
    suite = load_suite(write(tmp_path, TORUS + "optimum = 1.7333333333333334\nbest_known = 1.7333\n"
                                               "reference = [{ source = 'S', diameter = 3, aspl = 1.8 },"
                                               " { source = 'T', diameter = 5 }]\n"))
    assert suite.instances[0].optimum == pytest.approx(26 / 15)
    # a value may be rounded to the digits it is written with (1.6 for 1.6000...4), and one at the base's
    # own value is possible (the base is a solution of this problem)
    load_suite(write(tmp_path, TORUS + "best_known = 1.6\noptimum = 2.1333333333333333\n"))
    load_suite(write(tmp_path, TORUS + "best_known = 2.13\n"))


def test_annotations_and_derived_objectives_are_checked(tmp_path):
    # golf from a published diameter and ASPL: ring:16's own golf is 8 + 4.2667/9 = 8.474
    text = ("name = 'x'\n[[grid]]\nvars = { n = [16] }\nbases = ['ring:{n}']\ncaps = [4]\nbudgets = [4]\n"
            "objectives = ['golf']\n[[annotations]]\nid = 'ring:16/cap4/b4/golf'\n")
    load_suite(write(tmp_path, text + "reference = [{ source = 'S', diameter = 4, aspl = 2.6 }]\n"))
    with pytest.raises(HopbenchError, match=r"instance 'ring:16/cap4/b4/golf': reference 'S' \(its golf\) "
                                            r"= 9\.26 is above 8\.47"):
        load_suite(write(tmp_path, text + "reference = [{ source = 'S', diameter = 9, aspl = 2.6 }]\n"))


def test_the_base_bounds_regular_and_family_problems_too(tmp_path):
    # a regular problem's base is no solution, but every solution contains it: nothing scores above it
    regular = "name = 'x'\n[[instances]]\nbase = 'ring:16'\ncap = 4\nbudget = 16\nregular = true\nobjective = 'golf'\n"
    load_suite(write(tmp_path, regular + "best_known = 3.5\n"))
    with pytest.raises(HopbenchError, match="best_known = 9 is above 8.47"):
        load_suite(write(tmp_path, regular + "best_known = 9.0\n"))
    family = ("name = 'x'\n[[instances]]\nbase = 'ring:12'\ncap = 4\nbudget = 12\nobjective = 'ad'\n"
              "family = 'equality'\n")
    load_suite(write(tmp_path, family + "best_known = 3.272727272727273\n"))
    with pytest.raises(HopbenchError, match="best_known = 40 is above 19.6"):  # ring:12: ASPL 36/11 x diameter 6
        load_suite(write(tmp_path, family + "best_known = 40.0\n"))


def test_a_disconnected_base_bounds_nothing_above(tmp_path):
    load_suite(write(tmp_path, "name = 'x'\n[[instances]]\nbase = 'empty:6'\ncap = 2\nbudget = 2\nbest_known = 1e9\n"))


def test_a_value_far_below_the_bound_needs_no_search_of_a_large_base(tmp_path, monkeypatch):
    import hopbench.harness.engine.summary as engine_summary

    def no_bfs(graph):
        raise AssertionError("the base's all-pairs BFS was computed for a value far below its own score")

    monkeypatch.setattr(engine_summary, "summary", no_bfs)
    # ring:4800's own ad is about 1200 x 2400; 30 is plainly below it (the ring scores at least the
    # Moore / Cerf bounds of degree 2, which are its own values), and above the lower bound of cap 8 (21.1)
    load_suite(write(tmp_path, "name = 'x'\n[[instances]]\nbase = 'ring:4800'\ncap = 8\nbudget = 14400\n"
                               "objective = 'ad'\nfamily = 'equality'\nbest_known = 30.0\n"))


def test_routing_references_are_checked_against_the_load_bound(tmp_path):
    # torus 4x4, every node: 240 pairs of mean distance 32/15 over 64 channels: max load >= 8
    text = "name = 'x'\n[[instances]]\nkind = 'routing'\ntorus = '4x4'\n"
    load_suite(write(tmp_path, text + "reference = [{ source = 'S', max_load = 12, sigma4 = 3.1 }]\n"))
    with pytest.raises(HopbenchError, match=r"reference 'S' \(its max_load\) = 4\.\d+ is below 8"):
        load_suite(write(tmp_path, text + "reference = [{ source = 'S', max_load = 4, sigma4 = 1.0 }]\n"))


def test_a_refused_value_is_a_one_line_error_and_exit_2(tmp_path, cli):
    code, out, err = cli("instances", write(tmp_path, TORUS + "optimum = 2.85\n"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: s.toml: instance 'torus:4x4/cap6/b4/aspl': optimum = 2.85")


def test_the_documented_example_suite_loads(tmp_path):
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[3] / "docs" / "suites.md").read_text()
    start = readme.index('name = "mine"')
    suite = load_suite(write(tmp_path, readme[start:readme.index("```", start)]))
    inst = suite.by_id["torus:4x4/cap6/b4/aspl"]
    assert inst.optimum == inst.best_known == pytest.approx(26 / 15)  # what milp proves: ASPL 1.7333


def test_every_shipped_suite_has_a_row_in_docs_suites_md():
    from pathlib import Path

    from hopbench.harness._paths import INSTANCES_DIR

    table = (Path(__file__).resolve().parents[3] / "docs" / "suites.md").read_text()
    missing = [p.stem for p in sorted(Path(INSTANCES_DIR).glob("*.toml")) if f"| `{p.stem}` |" not in table]
    assert not missing, f"docs/suites.md has no row for {missing}"
