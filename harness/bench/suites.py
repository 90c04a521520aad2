"""Benchmark suites: TOML files in ``instances/`` that name standard instances.

A suite file::

    name = "edgecut2022"
    description = "..."
    time_limit = 60            # optional default seconds per cell
    evaluations = 5000         # optional default evaluation budget per cell

    [defaults]                 # applied to every instance unless it overrides a key
    kind = "shortcut"          # "shortcut" (default) or "routing"
    objective = "aspl"

    [[instances]]              # an explicit instance
    base = "torus:4x4"
    cap = 6
    budget = 4                 # an integer or a formula (see below)
    split = "tune"             # optional: "tune" | "test"
    best_known = 1.7333333333333334   # optional, objective value
    optimum = 1.7333333333333334      # optional, proven optimal objective value
    reference = [{ source = "Fuad et al. 2022, Table 2", label = "ECF", diameter = 3 }]

    [[grid]]                   # a product grid: one instance per combination
    vars = { n = [4, 5, 6] }   # named value lists, crossed with each other
    bases = ["ring:{n*n}", "mesh:{n}x{n}"]   # {expr} is replaced by its value
    caps = [10]
    budgets = ["2*n"]          # formulas may use the vars and N, the base's vertex count
    objectives = ["aspl"]
    tune_if = "n <= 10"        # optional: split "tune" where true, "test" elsewhere

    [[annotations]]            # facts about instances a grid made, by id
    id = "ring:16/cap10/b8/aspl"
    reference = [...]

Formulas are arithmetic only (+ - * / // % ** and parentheses); a budget or
cap must come out as an integer.  ``optimum``, ``best_known`` and the objective of
published reference rows must lie within the bounds the instance's kind knows
(checked when the suite loads, see :meth:`_Loader.check_known_values`).  Shortcut instance ids are
``{base}/cap{cap}/b{budget}/{objective}`` (plus ``/{family}`` and ``/regular``
when set), e.g. ``torus:8x8/cap10/b16/aspl``.  Every other kind (``kind = "routing"``,
or a plug-in kind) names its own keys, id and problem: the suite asks the kind
registry (:mod:`harness.problems.registry`) and knows no kind by name.
Unknown top-level tables (published tables kept beside the instances) are
ignored by the loader.
"""
from __future__ import annotations

import ast
import fnmatch
import itertools
import math
import operator
import os
import re
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from harness._paths import INSTANCES_DIR
from harness.errors import HopbenchError
from harness.problems.kind import InstanceResolver
from harness.problems.registry import get_kind

SPLITS = ("tune", "test")
#: what a suite says about an instance besides its kind's own keys
INFO_KEYS = {"split", "best_known", "optimum", "reference", "note"}
COMMON_KEYS = INFO_KEYS | {"kind", "id"}


def suites_dir() -> Path:
    """Where suite files live: ``$HOPBENCH_INSTANCES`` or the repository's ``instances/``."""
    env = os.environ.get("HOPBENCH_INSTANCES")
    return Path(env) if env else INSTANCES_DIR


# --------------------------------------------------------------------------- formulas

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_CMP = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
        ast.Eq: operator.eq, ast.NotEq: operator.ne}


#: names a formula may use besides a grid's vars where a number is computed from a base, and what they mean
BASE_NAMES = {"N": "the base's vertex count"}


def _unknown_name(name: str, text: str, names: dict[str, Any], meanings: dict[str, str], where: str) -> str:
    """The one-line error for an unknown name: what it may have meant, and every name that is known."""
    known = sorted(set(names) | set(meanings), key=lambda k: (k.lower(), k))
    message = f"{where}: unknown name {name!r} in {text!r}"
    alike = [k for k in known if k.lower() == name.lower()]
    if alike:
        meaning = f" ({meanings[alike[0]]})" if alike[0] in meanings and alike[0] not in names else ""
        return message + f"; did you mean {alike[0]!r}{meaning}? known names: {', '.join(known)}"
    hidden = [k for k in BASE_NAMES if k.lower() == name.lower() and k not in known]
    if hidden:
        message += (f"; {hidden[0]} ({BASE_NAMES[hidden[0]]}) is known only in numbers computed from a base "
                    f"(such as a cap or budget)")
    return message + f"; known names: {', '.join(known) or 'none'}"


def evaluate_formula(text: str, names: dict[str, Any], where: str, *,
                     meanings: dict[str, str] | None = None) -> Any:
    """Evaluate an arithmetic (or comparison) expression over ``names``, safely.

    ``meanings`` describes names the context offers on demand (``N``, computed only when a formula
    uses it): they count as known names in error messages, and a name that differs from a known one
    only in case (``n`` for ``N``) is pointed at it.
    """
    meanings = meanings or {}

    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise HopbenchError(_unknown_name(node.id, text, names, meanings, where))
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMP:
            return _CMP[type(node.ops[0])](ev(node.left), ev(node.comparators[0]))
        raise HopbenchError(f"{where}: {text!r} is not an arithmetic formula (use numbers, names, + - * / // % **)")

    try:
        tree = ast.parse(str(text), mode="eval")
    except SyntaxError:
        raise HopbenchError(f"{where}: cannot parse formula {text!r}") from None
    try:
        return ev(tree)
    except ZeroDivisionError:
        raise HopbenchError(f"{where}: division by zero in {text!r}") from None


def formula_names(text: str) -> set[str]:
    try:
        return {n.id for n in ast.walk(ast.parse(str(text), mode="eval")) if isinstance(n, ast.Name)}
    except SyntaxError:
        return set()


def _as_int(value: Any, what: str, where: str) -> int:
    if isinstance(value, bool):
        raise HopbenchError(f"{where}: {what} must be an integer, got {value!r}")
    if isinstance(value, float):
        if not value.is_integer():
            raise HopbenchError(f"{where}: {what} comes out as {value}, not an integer; use // for integer division")
        value = int(value)
    if not isinstance(value, int):
        raise HopbenchError(f"{where}: {what} must be an integer, got {value!r}")
    return value


def _fill_placeholders(text: str, names: dict[str, Any], where: str) -> str:
    def repl(m: re.Match) -> str:
        v = evaluate_formula(m.group(1), names, where)
        return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)

    return re.sub(r"\{([^{}]+)\}", repl, text)


# --------------------------------------------------------------------------- model


@dataclass(frozen=True)
class Instance:
    """One standard problem of a suite, with what is known about it."""

    id: str
    suite: str
    kind: str
    fields: dict[str, Any]
    split: str | None = None
    best_known: float | None = None
    optimum: float | None = None
    references: tuple[dict[str, Any], ...] = ()
    note: str | None = None

    def size(self) -> int:
        """The instance's size as its kind measures it (vertices, routed nodes, ...)."""
        return get_kind(self.kind).size(self.fields)

    def problem(self):
        """Build the problem object this instance describes."""
        return get_kind(self.kind).build(self.fields)


@dataclass
class Suite:
    name: str
    description: str
    path: Path
    instances: list[Instance]
    time_limit: float | None = None
    evaluations: int | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    def select(self, pattern: str | None = None, split: str | None = None,
               max_nodes: int | None = None) -> list[Instance]:
        """Instances whose id matches the glob ``pattern`` (and the split and size limit, if given)."""
        out = [i for i in self.instances
               if (pattern is None or fnmatch.fnmatchcase(i.id, pattern))
               and (split is None or i.split == split)
               and (max_nodes is None or i.size() <= max_nodes)]
        if not out:
            what = f"matching {pattern!r}" if pattern else ""
            what += f" in split {split!r}" if split else ""
            what += f" of at most {max_nodes} nodes" if max_nodes is not None else ""
            raise HopbenchError(f"suite {self.name} has no instance {what.strip()}; "
                                f"see 'hopbench instances {self.name}'")
        return out

    @cached_property
    def by_id(self) -> dict[str, Instance]:
        return {i.id: i for i in self.instances}


def list_suites() -> list[str]:
    d = suites_dir()
    return sorted(p.stem for p in d.glob("*.toml")) if d.is_dir() else []


class _Resolver(InstanceResolver):
    """Formulas and placeholders of one instance table, for its kind's :meth:`resolve_fields`."""

    def __init__(self, loader: "_Loader", names: dict[str, Any], where: str) -> None:
        self.loader = loader
        self.names = names
        self.where = where

    def fill(self, text: str) -> str:
        return _fill_placeholders(text, self.names, self.where)

    def integer(self, value: Any, what: str, base: str | None = None) -> int:
        return self.loader.resolve_number(value, what, self.names, base, self.where)


class _Loader:
    def __init__(self, path: Path, doc: dict[str, Any]) -> None:
        self.path = path
        self.doc = doc
        self.name = doc.get("name") or path.stem
        self._sizes: dict[str, int] = {}

    def where(self, what: str) -> str:
        return f"{self.path.name}: {what}"

    def vertex_count(self, spec: str, where: str) -> int:
        if spec not in self._sizes:
            from harness.graphs.topologies import parse_spec

            try:
                self._sizes[spec] = parse_spec(spec).n
            except HopbenchError as exc:
                raise HopbenchError(f"{where}: {exc}") from None
        return self._sizes[spec]

    def resolve_number(self, value: Any, what: str, names: dict[str, Any], base: str | None, where: str) -> int:
        if isinstance(value, str):
            if base is not None and "N" in formula_names(value) and "N" not in names:
                names = dict(names, N=self.vertex_count(base, where))
            value = evaluate_formula(value, names, where, meanings=BASE_NAMES if base is not None else None)
        return _as_int(value, what, where)

    def make(self, f: dict[str, Any], names: dict[str, Any], where: str) -> Instance:
        kind_name = f.get("kind", "shortcut")
        if not isinstance(kind_name, str):
            raise HopbenchError(f"{where}: kind must be a string, got {kind_name!r}")
        try:
            kind = get_kind(kind_name)
        except HopbenchError as exc:
            raise HopbenchError(f"{where}: {exc}") from None
        allowed = COMMON_KEYS | kind.instance_keys
        unknown = set(f) - allowed
        if unknown:
            raise HopbenchError(f"{where}: unknown key {sorted(unknown)[0]!r}; allowed keys: "
                                f"{', '.join(sorted(allowed))}")
        resolved = kind.resolve_fields({k: v for k, v in f.items() if k not in COMMON_KEYS},
                                       _Resolver(self, names, where))
        try:
            ident = f.get("id") or kind.instance_id(resolved)
        except HopbenchError as exc:
            raise HopbenchError(f"{where}: {exc}") from None
        fields = resolved
        split = f.get("split")
        if split is not None and split not in SPLITS:
            raise HopbenchError(f"{where}: split must be one of {', '.join(SPLITS)}, got {split!r}")
        refs = f.get("reference", [])
        if isinstance(refs, dict):
            refs = [refs]
        if not isinstance(refs, list) or not all(isinstance(r, dict) for r in refs):
            raise HopbenchError(f"{where}: reference must be a table or a list of tables")
        for key in ("best_known", "optimum"):
            if key in f and (isinstance(f[key], bool) or not isinstance(f[key], (int, float))):
                raise HopbenchError(f"{where}: {key} must be a number, got {f[key]!r}")
        return Instance(id=ident, suite=self.name, kind=kind_name, fields=fields, split=split,
                        best_known=f.get("best_known"), optimum=f.get("optimum"), references=tuple(refs),
                        note=f.get("note"))

    def grid(self, g: dict[str, Any], defaults: dict[str, Any], number: int) -> list[Instance]:
        where = self.where(f"grid #{number}")
        known = {"vars", "bases", "caps", "budgets", "objectives", "families", "tune_if", "kind", "regular"}
        unknown = set(g) - known
        if unknown:
            raise HopbenchError(f"{where}: unknown key {sorted(unknown)[0]!r}; allowed keys: {', '.join(sorted(known))}")
        variables = g.get("vars", {})
        if not isinstance(variables, dict) or not all(isinstance(v, list) for v in variables.values()):
            raise HopbenchError(f"{where}: vars must map names to lists, e.g. vars = {{ n = [4, 5, 6] }}")
        for key in ("bases", "caps", "budgets"):
            if not isinstance(g.get(key), list) or not g[key]:
                raise HopbenchError(f"{where}: {key} must be a non-empty list")
        objectives = g.get("objectives", [defaults.get("objective", "aspl")])
        families = g.get("families", [defaults.get("family")])
        out = []
        names_list = list(variables)
        for values in itertools.product(*(variables[k] for k in names_list)):
            names = dict(zip(names_list, values))
            for base, cap, budget, objective, family in itertools.product(
                    g["bases"], g["caps"], g["budgets"], objectives, families):
                f = dict(defaults, base=base, cap=cap, budget=budget, objective=objective)
                if family is not None:
                    f["family"] = family
                if "regular" in g:
                    f["regular"] = g["regular"]
                if "tune_if" in g:
                    f["split"] = "tune" if evaluate_formula(g["tune_if"], names, where) else "test"
                label = ", ".join(f"{k}={v}" for k, v in names.items())
                out.append(self.make(f, names, f"{where} ({label or base})"))
        return out

    def load(self) -> Suite:
        doc = self.doc
        defaults = doc.get("defaults", {})
        if not isinstance(defaults, dict):
            raise HopbenchError(self.where("[defaults] must be a table"))
        instances: list[Instance] = []
        explicit = doc.get("instances", [])
        if not isinstance(explicit, list):
            raise HopbenchError(self.where("instances must be an array of tables ([[instances]])"))
        for i, entry in enumerate(explicit, 1):
            if not isinstance(entry, dict):
                raise HopbenchError(self.where(f"instance #{i} must be a table"))
            instances.append(self.make(dict(defaults, **entry), {}, self.where(f"instance #{i}")))
        grids = doc.get("grid", [])
        for i, g in enumerate(grids if isinstance(grids, list) else [grids], 1):
            instances.extend(self.grid(g, defaults, i))
        if not instances:
            raise HopbenchError(self.where("the suite defines no instances; add [[instances]] or [[grid]] tables"))
        seen: dict[str, int] = {}
        for inst in instances:
            if inst.id in seen:
                raise HopbenchError(self.where(f"instance id {inst.id!r} is defined twice"))
            seen[inst.id] = 1
        instances = self.annotate(instances, doc.get("annotations", []))
        for inst in instances:
            self.check_known_values(inst)
        time_limit = doc.get("time_limit")
        evaluations = doc.get("evaluations")
        return Suite(name=self.name, description=str(doc.get("description", "")), path=self.path,
                     instances=instances, time_limit=time_limit, evaluations=evaluations, raw=doc)

    def check_known_values(self, inst: Instance) -> None:
        """Refuse an ``optimum``, ``best_known`` or published objective that the instance's bounds rule out.

        No solution scores below the kind's lower bound of the problem
        (:meth:`~harness.problems.kind.ProblemKind.known_value_lower_bound`), nor above the kind's
        upper bound (:meth:`~harness.problems.kind.ProblemKind.above_upper_bound`; for a
        shortcut problem, what the base graph itself scores).  A value may
        be rounded to the digits it is written with.  Only instances that carry such values build
        their problem and bounds, so loading a large suite stays fast.
        """
        values = [(key, float(getattr(inst, key)), _written_tolerance(getattr(inst, key)))
                  for key in ("optimum", "best_known") if getattr(inst, key) is not None]
        if not values and not inst.references:
            return
        kind = get_kind(inst.kind)
        try:
            problem = inst.problem()
        except HopbenchError as exc:
            raise HopbenchError(self.where(f"instance {inst.id!r}: {exc}")) from None
        for k, ref in enumerate(inst.references, 1):
            value, tolerance = _reference_objective(kind, ref, problem.objective)
            if value is not None:
                name = ref.get("label") or ref.get("source") or f"#{k}"
                values.append((f"reference {name!r} (its {problem.objective})", value, tolerance))
        if not values:
            return
        lower = kind.known_value_lower_bound(problem)
        lower = lower if lower is not None and math.isfinite(lower) else None
        for key, value, tolerance in values:
            if lower is not None and value < lower - tolerance - _SLACK * max(1.0, abs(lower)):
                raise HopbenchError(self.where(
                    f"instance {inst.id!r}: {key} = {value:g} is below {lower:.10g}, the lower bound of its "
                    f"{problem.objective}: no solution scores that; correct or remove it"))
        # the value farthest above its rounding is the one to ask about: if it is within, all are
        key, value, tolerance = max(values, key=lambda v: v[1] - v[2])
        upper = kind.above_upper_bound(problem, value - tolerance - _SLACK * max(1.0, abs(value)))
        if upper is not None:
            raise HopbenchError(self.where(
                f"instance {inst.id!r}: {key} = {value:g} is above {upper:.10g}, {kind.upper_bound_meaning}: "
                f"no solution scores that; correct or remove it"))

    def annotate(self, instances: list[Instance], notes: list[dict[str, Any]]) -> list[Instance]:
        index = {inst.id: k for k, inst in enumerate(instances)}
        for i, note in enumerate(notes, 1):
            where = self.where(f"annotation #{i}")
            ident = note.get("id") if isinstance(note, dict) else None
            if ident not in index:
                raise HopbenchError(f"{where}: no instance with id {ident!r} in this suite")
            unknown = set(note) - INFO_KEYS - {"id"}
            if unknown:
                raise HopbenchError(f"{where}: unknown key {sorted(unknown)[0]!r}; allowed: "
                                    f"{', '.join(sorted(INFO_KEYS))}")
            k = index[ident]
            old = instances[k]
            refs = note.get("reference", [])
            refs = [refs] if isinstance(refs, dict) else list(refs)
            instances[k] = Instance(id=old.id, suite=old.suite, kind=old.kind, fields=old.fields,
                                    split=note.get("split", old.split),
                                    best_known=note.get("best_known", old.best_known),
                                    optimum=note.get("optimum", old.optimum),
                                    references=old.references + tuple(refs), note=note.get("note", old.note))
        return instances


#: relative slack on top of a value's rounding when it is compared with a bound (float noise)
_SLACK = 1e-9


def _written_tolerance(value: Any) -> float:
    """How far a number may lie from the truth if rounded to the digits it is written with (2.85: 0.005;
    an integer is exact)."""
    if isinstance(value, int):
        return 0.0
    text = repr(float(value))
    mantissa, _, exponent = text.partition("e")
    decimals = len(mantissa.partition(".")[2]) - (int(exponent) if exponent else 0)
    return 0.5 * 10.0 ** -decimals


def _reference_objective(kind: Any, ref: dict[str, Any], objective: str) -> tuple[float | None, float]:
    """The objective a published reference row states or implies (as the board derives it), and its rounding."""
    numbers = {k: v for k, v in ref.items()
               if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(float(v))}
    if not numbers:
        return None, 0.0
    if "objective" in numbers:
        value, sources = numbers["objective"], ["objective"]
    else:
        value = kind.reference_objective({k: float(v) for k, v in numbers.items()}, objective)
        sources = [k for k in kind.reference_metrics if k in numbers]  # what the objective may come from
    if value is None or not math.isfinite(float(value)):
        return None, 0.0
    rounding = max((_written_tolerance(numbers[k]) for k in sources), default=0.0)
    return float(value), rounding * max(1.0, abs(float(value)))


def load_suite(name_or_path: str | Path) -> Suite:
    """Load a suite by name (a file in :func:`suites_dir`) or by path."""
    text_name = str(name_or_path)
    path = Path(text_name)
    if not (text_name.endswith(".toml") or os.sep in text_name):
        path = suites_dir() / f"{text_name}.toml"
        if not path.exists():
            available = ", ".join(list_suites()) or "none"
            raise HopbenchError(f"unknown suite {text_name!r}; available suites: {available}")
    if path.is_dir():
        raise HopbenchError(f"suite file {str(path)!r} is a directory; give a .toml file or a suite name")
    try:
        doc = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise HopbenchError(f"suite file {str(path)!r} does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise HopbenchError(f"{path.name} is not valid TOML: {exc}") from None
    suite = _Loader(path, doc).load()
    for key in ("time_limit", "evaluations"):
        value = getattr(suite, key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0
                                  or math.isinf(value)):
            raise HopbenchError(f"{path.name}: {key} must be a positive number, got {value!r}")
    seeds = doc.get("seeds", 1)
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise HopbenchError(f"{path.name}: seeds must be a positive integer (seeds 1..K), got {seeds!r}")
    return suite
