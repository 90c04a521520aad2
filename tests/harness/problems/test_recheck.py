"""ProblemKind.check_result: a result must verify and answer the very problem asked (issue 34, item 1)."""
from __future__ import annotations

import pytest

from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.kind import InstanceShape, ProblemKind, Verdict
from hopbench.harness.problems.recheck import problem_mismatch
from hopbench.harness.problems.registry import get_kind
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution


class Pick:
    """A problem of a kind defined here (not registered: it must not join other tests' registry)."""

    def __init__(self, target: int) -> None:
        self.target = target

    def describe(self) -> dict:
        return {"target": self.target}


class PickKind(ProblemKind):
    """Pick one number; the objective is its distance to the target.  Only what a kind must define, and
    ``verify``: ``check_result`` is the default's."""

    name = "pick"
    formats = ("test.pick/1",)

    def instance_id(self, fields):
        return str(fields["target"])

    def build(self, fields):
        return Pick(fields["target"])

    def size(self, fields):
        return 1

    def sample_problems(self):
        return [Pick(3)]

    def verify(self, doc):
        value = float(abs(doc["picked"] - doc["target"]))
        ok = value == doc["metrics"]["objective"]
        return Verdict(ok, "" if ok else "stored objective does not match", {"objective": value})

    def shape(self, fields, problem):
        return InstanceShape(1, "g", "f", "s")


def _doc(target: int, picked: int, objective: float) -> dict:
    return {"format": "test.pick/1", "problem": {"target": target}, "target": target, "picked": picked,
            "metrics": {"objective": objective}}


def test_the_default_reads_the_problem_field_and_refuses_another_problem():
    kind = PickKind()
    assert kind.check_result(Pick(3), _doc(3, 5, 2.0)).valid
    verdict = kind.check_result(Pick(3), _doc(4, 5, 1.0))
    assert not verdict.valid and "another problem: its target is 4, the problem's is 3" in verdict.reason
    assert not kind.check_result(Pick(3), _doc(3, 5, 0.0)).valid  # its own number is no proof


def test_the_default_without_a_problem_field_says_what_the_kind_lacks():
    from hopbench.harness.errors import HopbenchError

    doc = {k: v for k, v in _doc(3, 5, 2.0).items() if k != "problem"}
    with pytest.raises(HopbenchError, match='need a "problem" field, or the kind a check_result method'):
        PickKind().check_result(Pick(3), doc)


def _shortcut(spec: str, budget: int = 2, family: str | None = None) -> ShortcutProblem:
    return ShortcutProblem(parse_spec(spec), 3, budget, "aspl", family, base_spec=spec)


@pytest.mark.parametrize("other, field", [(_shortcut("ring:4"), "base"), (_shortcut("ring:8", 3), "budget")])
def test_a_shortcut_result_for_another_problem_is_refused(other, field):
    doc = Solution(other, [[0, 2]] if other.n > 4 else []).to_dict()
    verdict = get_kind("shortcut").check_result(_shortcut("ring:8"), doc)
    assert not verdict.valid and f"its {field} is" in verdict.reason


@pytest.mark.parametrize("changed, field", [({"cap": 5}, "degree_cap"), ({"family": "equality"}, "family"),
                                            ({"objective": "diameter"}, "objective")])
def test_a_shortcut_result_with_another_cap_family_or_objective_is_refused(changed, field):
    def problem(cap=4, family=None, objective="aspl"):
        return ShortcutProblem(parse_spec("ring:8"), cap, 8, objective, family, base_spec="ring:8")

    doc = Solution(problem(**changed), [[0, 2]]).to_dict()
    verdict = get_kind("shortcut").check_result(problem(), doc)
    assert not verdict.valid and f"its {field} is" in verdict.reason, verdict.reason


def test_a_file_base_must_be_the_problem_graph_not_only_its_name(tmp_path):
    edges = tmp_path / "g.edges"
    edges.write_text("".join(f"{i} {(i + 1) % 8}\n" for i in range(8)))
    asked = ShortcutProblem(parse_spec(f"file:{edges}"), 3, 2, "aspl", base_spec=f"file:{edges}")
    doc = Solution(asked, [[0, 4]]).to_dict()
    assert get_kind("shortcut").check_result(asked, doc).valid
    doc["base_edges"] = [[i, (i + 1) % 8] for i in range(7)]  # a path, under the same name
    doc["shortcuts"] = []
    verdict = get_kind("shortcut").check_result(asked, doc)
    assert not verdict.valid and "base graph" in verdict.reason


def test_problem_mismatch_names_the_first_differing_field():
    assert problem_mismatch({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}) is None
    assert "its b is [1, 3]" in problem_mismatch({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 3]})
