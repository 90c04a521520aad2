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
registry (:mod:`hopbench.harness.problems.registry`) and knows no kind by name.

The whole file is checked when it loads, and every mistake is a one-line
:class:`~hopbench.harness.errors.HopbenchError` naming the file and the key: the file is
read through :func:`hopbench.harness.inputs.read_text` (a regular UTF-8 file of bounded
size and nesting); a top-level key is one of :data:`TOP_LEVEL_KEYS` or a table a
kind of the suite owns (:attr:`~hopbench.harness.problems.kind.ProblemKind.suite_tables`,
e.g. equality2022's ``[[published]]``); every key has its type; a kind refuses
fields out of range (:meth:`~hopbench.harness.problems.kind.ProblemKind.check_fields`: a
negative budget, a cap below the base's degree, an unknown objective); formulas
stay within :data:`hopbench.harness.caps.FORMULA` (``**`` is refused before it is
computed); seeds and the instance count are capped (:data:`hopbench.harness.caps.SEEDS`,
:data:`hopbench.harness.caps.INSTANCES`) before anything is expanded.
"""
from __future__ import annotations

import ast
import dataclasses
import difflib
import fnmatch
import itertools
import math
import operator
import os
import re
import tomllib
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from hopbench.harness import caps
from hopbench.harness._paths import INSTANCES_DIR
from hopbench.harness.errors import HopbenchError
from hopbench.harness.inputs import check_nesting, read_text
from hopbench.harness.problems.kind import InstanceResolver, ProblemKind, shown
from hopbench.harness.problems.registry import get_kind

SPLITS = ("tune", "test")
#: what a suite says about an instance besides its kind's own keys
INFO_KEYS = {"split", "best_known", "optimum", "reference", "note"}
COMMON_KEYS = INFO_KEYS | {"kind", "id"}
#: the top-level keys the loader reads (a kind may own more tables: ProblemKind.suite_tables)
TOP_LEVEL_KEYS = {"name", "description", "seeds", "time_limit", "evaluations", "defaults", "instances", "grid",
                  "annotations"}
GRID_KEYS = {"vars", "bases", "caps", "budgets", "objectives", "families", "tune_if", "kind", "regular"}
#: keys of a published reference row that hold text (boards show them as labels)
REFERENCE_TEXT_KEYS = ("source", "label", "solver", "note", "status", "erratum", "notation")
#: the longest formula accepted: real ones are a few operators long, and the bound keeps parsing bounded
MAX_FORMULA_CHARS = 1000
#: a suite name names files (board folders) and store rows: no separators, no leading dot
_SUITE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")
#: base graphs the loader keeps built: a grid repeats one base over its caps and budgets
_GRAPHS_KEPT = 8


def suites_dir() -> Path:
    """Where suite files live: ``$HOPBENCH_INSTANCES`` or the repository's ``instances/``."""
    env = os.environ.get("HOPBENCH_INSTANCES")
    return Path(env) if env else INSTANCES_DIR


def _refuse_unknown(where: str, keys: Any, allowed: set[str], what: str = "key") -> None:
    """A key outside ``allowed`` is an error naming it, the closest allowed key and all of them."""
    unknown = sorted(set(keys) - set(allowed))
    if unknown:
        key = unknown[0]
        close = difflib.get_close_matches(key, sorted(allowed), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise HopbenchError(f"{where}: unknown {what} {shown(key)}; {hint}allowed keys: {', '.join(sorted(allowed))}")


def _is_number(value: Any) -> bool:
    """A finite int or float, not a bool (TOML keeps them apart)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


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


def _bounded(value: Any, text: str, where: str) -> int | float:
    """``value`` if it is a real, finite number within :data:`caps.FORMULA`: every intermediate result
    of a formula goes through here, so none grows without bound."""
    if isinstance(value, bool):
        return value  # a comparison's result
    if not isinstance(value, (int, float)):
        raise HopbenchError(f"{where}: {shown(text)} computes with {shown(value)}, which is not a real number")
    if isinstance(value, float) and not math.isfinite(value):
        raise HopbenchError(f"{where}: {shown(text)} computes {value}, not a finite number")
    caps.FORMULA.check(abs(value), f"{where}: a value computed in {shown(text)}")
    return value


def _check_power(base: float, exponent: float, text: str, where: str) -> None:
    """Refuse ``base ** exponent`` above :data:`caps.FORMULA` *before* computing it (``9**9**9`` would
    take hours): its magnitude is ``exponent * log10|base|`` orders of ten."""
    if base == 0 or abs(base) == 1:
        return  # 0, 1 or -1 to any power stays small (0 to a negative power is a division by zero)
    orders = exponent * math.log10(abs(base))
    limit = caps.FORMULA.limit()
    if orders > math.log10(limit) + 1:  # within one order of ten the exact result is checked instead
        raise HopbenchError(f"{where}: {base!r} ** {exponent!r} in {shown(text)} is about 10^{orders:.3g}, above "
                            f"the cap of {limit:,} {caps.FORMULA.meaning}; raise it with {caps.FORMULA.env}=N if "
                            f"your machine has room for it")


def evaluate_formula(text: str, names: dict[str, Any], where: str, *,
                     meanings: dict[str, str] | None = None) -> Any:
    """Evaluate an arithmetic (or comparison) expression over ``names``, safely and boundedly.

    Numbers, names, ``+ - * / // % **``, parentheses and one comparison; every value, intermediate
    ones included, stays within :data:`hopbench.harness.caps.FORMULA`, and ``**`` is checked before it runs.
    A formula that is a bare name gives that name's value as it is (a grid var may be text for a
    ``{placeholder}``); text takes no part in arithmetic.

    ``meanings`` describes names the context offers on demand (``N``, computed only when a formula
    uses it): they count as known names in error messages, and a name that differs from a known one
    only in case (``n`` for ``N``) is pointed at it.
    """
    meanings = meanings or {}
    text = str(text)

    def number(node: ast.AST) -> int | float:
        return _bounded(ev(node), text, where)

    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            return _bounded(node.value, text, where)
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise HopbenchError(_unknown_name(node.id, text, names, meanings, where))
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            left, right = number(node.left), number(node.right)
            if isinstance(node.op, ast.Pow):
                _check_power(left, right, text, where)
            return _bounded(_OPS[type(node.op)](left, right), text, where)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -number(node.operand)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMP:
            return _CMP[type(node.ops[0])](number(node.left), number(node.comparators[0]))
        raise HopbenchError(f"{where}: {shown(text)} is not an arithmetic formula (use numbers, names, "
                            f"+ - * / // % **)")

    if len(text) > MAX_FORMULA_CHARS:
        raise HopbenchError(f"{where}: a formula of {len(text):,} characters; formulas are at most "
                            f"{MAX_FORMULA_CHARS:,} characters long")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise HopbenchError(f"{where}: cannot parse formula {shown(text)}") from None
    try:
        return ev(tree)
    except ZeroDivisionError:
        raise HopbenchError(f"{where}: division by zero in {shown(text)}") from None
    except OverflowError:
        raise HopbenchError(f"{where}: {shown(text)} overflows; keep its values within "
                            f"{caps.FORMULA.limit():,}") from None
    except RecursionError:
        raise HopbenchError(f"{where}: {shown(text)} nests too deeply") from None


def formula_names(text: str) -> set[str]:
    """The names a formula uses (none when it cannot be parsed: evaluating it says why)."""
    text = str(text)
    if len(text) > MAX_FORMULA_CHARS:
        return set()
    try:
        return {n.id for n in ast.walk(ast.parse(text, mode="eval")) if isinstance(n, ast.Name)}
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()


def _as_int(value: Any, what: str, where: str) -> int:
    if isinstance(value, bool):
        raise HopbenchError(f"{where}: {what} must be an integer, got {value!r}")
    if isinstance(value, float) and math.isfinite(value):
        if not value.is_integer():
            raise HopbenchError(f"{where}: {what} comes out as {value}, not an integer; use // for integer division")
        value = int(value)
    if not isinstance(value, int):
        raise HopbenchError(f"{where}: {what} must be an integer or a formula, got {shown(value)}")
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
               max_nodes: int | None = None, min_nodes: int | None = None) -> list[Instance]:
        """Instances whose id matches the glob ``pattern`` (and the split and size limits, if given)."""
        out = [i for i in self.instances
               if (pattern is None or fnmatch.fnmatchcase(i.id, pattern))
               and (split is None or i.split == split)
               and (max_nodes is None or i.size() <= max_nodes)
               and (min_nodes is None or i.size() >= min_nodes)]
        if not out:
            what = f"matching {pattern!r}" if pattern else ""
            what += f" in split {split!r}" if split else ""
            what += f" of at least {min_nodes} nodes" if min_nodes is not None else ""
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
    """Formulas, placeholders and base graphs of one instance table, for its kind's hooks."""

    def __init__(self, loader: "_Loader", names: dict[str, Any], where: str) -> None:
        self.loader = loader
        self.names = names
        self.where = where
        self.directory = loader.path.parent

    def fill(self, text: str, what: str = "") -> str:
        return _fill_placeholders(text, self.names, f"{self.where}: {what}" if what else self.where)

    def integer(self, value: Any, what: str, base: str | None = None) -> int:
        return self.loader.resolve_number(value, what, self.names, base, self.where)

    def graph(self, spec: str) -> Any:
        return self.loader.graph(spec)


class _Loader:
    """Reads one parsed suite document, checking every key as it goes (see the module docstring)."""

    def __init__(self, path: Path, doc: dict[str, Any]) -> None:
        self.path = path
        self.doc = doc
        self.name = path.stem
        self._sizes: dict[str, int] = {}
        self._vertices = 0
        self._graphs: OrderedDict[str, Any] = OrderedDict()

    def where(self, what: str) -> str:
        return f"{self.path.name}: {what}"

    # ------------------------------------------------------------------ bases and numbers

    def graph(self, spec: str) -> Any:
        """The graph a base spec names, built once while a few bases are in use (a grid's base repeats)."""
        if spec in self._graphs:
            self._graphs.move_to_end(spec)
            return self._graphs[spec]
        from hopbench.harness.graphs.topologies import parse_spec

        # every distinct base is built (its instance's id derives from it): their number and size are capped
        caps.SUITE_BASES.check(len(self._sizes) + 1, self.where("the number of distinct bases it builds"))
        graph = parse_spec(spec)
        self._graphs[spec] = graph
        self._sizes[spec] = graph.n
        self._vertices += graph.n
        caps.SUITE_VERTICES.check(self._vertices, self.where("the vertices of its distinct bases together"))
        while len(self._graphs) > _GRAPHS_KEPT:
            self._graphs.popitem(last=False)
        return graph

    def vertex_count(self, spec: str, where: str) -> int:
        if spec not in self._sizes:
            try:
                self.graph(spec)
            except HopbenchError as exc:
                raise HopbenchError(f"{where}: base: {exc}") from None
        return self._sizes[spec]

    def resolve_number(self, value: Any, what: str, names: dict[str, Any], base: str | None, where: str) -> int:
        if isinstance(value, str):
            if base is not None and "N" in formula_names(value) and "N" not in names:
                names = dict(names, N=self.vertex_count(base, where))
            value = evaluate_formula(value, names, f"{where}: {what}",
                                     meanings=BASE_NAMES if base is not None else None)
        value = _as_int(value, what, where)
        caps.FORMULA.check(abs(value), f"{where}: {what}")  # a literal 10**18 is as much a risk as a formula's
        return value

    # ------------------------------------------------------------------ kinds

    def kind_of(self, f: dict[str, Any], where: str) -> ProblemKind:
        name = f.get("kind", "shortcut")
        if not isinstance(name, str):
            raise HopbenchError(f"{where}: kind must be a string, got {shown(name)}")
        try:
            return get_kind(name)
        except HopbenchError as exc:
            raise HopbenchError(f"{where}: {exc}") from None

    @staticmethod
    def ask(kind: ProblemKind, where: str, hook: Any, *args: Any) -> Any:
        """Call one of a kind's suite hooks: its error gets the file and place, on one line.

        A plug-in kind's ValueError or KeyError on a mistyped field is the suite's mistake too, and is
        reported the same way rather than as a traceback.
        """
        try:
            return hook(*args)
        except HopbenchError as exc:
            message = " ".join(str(exc).split("\n"))
            raise HopbenchError(message if message.startswith(where) else f"{where}: {message}") from None
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, ArithmeticError) as exc:
            message = " ".join(str(exc).split("\n"))
            raise HopbenchError(f"{where}: problem kind {kind.name!r} cannot read this "
                                f"({type(exc).__name__}: {message})") from None

    def kinds_used(self, defaults: dict[str, Any], explicit: list[dict[str, Any]],
                   grids: list[dict[str, Any]]) -> list[ProblemKind]:
        """The kinds of the suite's instances and grids (they decide its allowed tables); the defaults' kind
        when it has neither."""
        entries = [(f"instance #{i}", dict(defaults, **e)) for i, e in enumerate(explicit, 1)]
        entries += [(f"grid #{i}", dict(defaults, **{k: g[k] for k in ("kind",) if k in g}))
                    for i, g in enumerate(grids, 1)]
        entries = entries or [("[defaults]", defaults)]
        kinds: dict[str, ProblemKind] = {}
        for what, f in entries:
            kind = self.kind_of(f, self.where(what))
            kinds[kind.name] = kind
        return list(kinds.values())

    # ------------------------------------------------------------------ what a suite knows about an instance

    def info(self, f: dict[str, Any], kind: ProblemKind, where: str) -> dict[str, Any]:
        """The :data:`INFO_KEYS` of a table, checked, as :class:`Instance` fields (only those given)."""
        out: dict[str, Any] = {}
        if "split" in f:
            if f["split"] not in SPLITS:
                raise HopbenchError(f"{where}: split must be one of {', '.join(SPLITS)}, got {shown(f['split'])}")
            out["split"] = f["split"]
        for key in ("best_known", "optimum"):
            if key in f:
                if not _is_number(f[key]):
                    raise HopbenchError(f"{where}: {key} must be a finite number, got {shown(f[key])}")
                out[key] = f[key]
        if "note" in f:
            if not isinstance(f["note"], str):
                raise HopbenchError(f"{where}: note must be a string, got {shown(f['note'])}")
            out["note"] = f["note"]
        if "reference" in f:
            out["references"] = self.references(f["reference"], kind, where)
        return out

    @staticmethod
    def references(value: Any, kind: ProblemKind, where: str) -> tuple[dict[str, Any], ...]:
        """Published reference rows: tables whose metrics are finite numbers and whose labels are text."""
        rows = [value] if isinstance(value, dict) else value
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise HopbenchError(f"{where}: reference must be a table or a list of tables, got {shown(value)}")
        metrics = {"objective", *kind.reference_metrics}
        for k, row in enumerate(rows, 1):
            for key, v in row.items():
                if key in metrics and not _is_number(v):
                    raise HopbenchError(f"{where}: reference #{k}: {key} must be a finite number, got {shown(v)}")
                if key in REFERENCE_TEXT_KEYS and not isinstance(v, str):
                    raise HopbenchError(f"{where}: reference #{k}: {key} must be a string, got {shown(v)}")
                if isinstance(v, float) and not math.isfinite(v):
                    raise HopbenchError(f"{where}: reference #{k}: {key} must be a finite number, got {v!r}")
        return tuple(rows)

    # ------------------------------------------------------------------ instances

    def make(self, f: dict[str, Any], names: dict[str, Any], where: str) -> Instance:
        kind = self.kind_of(f, where)
        _refuse_unknown(where, f, COMMON_KEYS | kind.instance_keys)
        info = self.info(f, kind, where)
        resolver = _Resolver(self, names, where)
        fields = self.ask(kind, where, kind.resolve_fields, {k: v for k, v in f.items() if k not in COMMON_KEYS},
                          resolver)
        self.ask(kind, where, kind.check_fields, fields, resolver)
        # an id is a fact about the problem, never a free name: a suite cannot file its rows under a
        # published instance's id with another problem behind it
        ident = self.ask(kind, where, kind.instance_id, fields)
        if "id" in f:
            given = f["id"]
            if not isinstance(given, str) or not given.strip():
                raise HopbenchError(f"{where}: id must be a non-empty string, got {shown(given)}")
            if given != ident:
                raise HopbenchError(f"{where}: id {shown(given)} is not the id of the problem it describes, "
                                    f"{shown(ident, 120)}; ids are derived from the problem: correct the id or "
                                    f"drop it")
        return Instance(id=ident, suite=self.name, kind=kind.name, fields=fields, **info)

    def grid_size(self, g: dict[str, Any], where: str) -> int:
        """Check a grid's keys and types; the number of instances it makes (before making any)."""
        _refuse_unknown(where, g, GRID_KEYS)
        variables = g.get("vars", {})
        if not isinstance(variables, dict):
            raise HopbenchError(f"{where}: vars must map names to lists, e.g. vars = {{ n = [4, 5, 6] }}; "
                                f"got {shown(variables)}")
        for name, values in variables.items():
            if not isinstance(values, list) or not values:
                raise HopbenchError(f"{where}: vars.{name} must be a non-empty list, e.g. vars = {{ {name} = [4, 5] }};"
                                    f" got {shown(values)}")
            bad = [v for v in values if not (_is_number(v) or isinstance(v, str))]
            if bad:
                raise HopbenchError(f"{where}: vars.{name} must list numbers or strings, got {shown(bad[0])}")
        lists = {"bases": (str,), "caps": (int, str), "budgets": (int, str), "objectives": (str,),
                 "families": (str,)}
        for key, types in lists.items():
            if key not in g and key in ("objectives", "families"):
                continue
            values = g.get(key)
            if not isinstance(values, list) or not values:
                raise HopbenchError(f"{where}: {key} must be a non-empty list, got {shown(values)}")
            bad = [v for v in values if isinstance(v, bool) or not isinstance(v, types)]
            if bad:
                words = "strings" if types == (str,) else "integers or formulas"
                raise HopbenchError(f"{where}: {key} must list {words}, got {shown(bad[0])}")
        for key, type_, words in (("tune_if", str, "a formula string"), ("kind", str, "a string"),
                                  ("regular", bool, "true or false")):
            if key in g and not isinstance(g[key], type_):
                raise HopbenchError(f"{where}: {key} must be {words}, got {shown(g[key])}")
        return math.prod([len(v) for v in variables.values()] + [len(g.get(k, [None])) for k in lists])

    def grid(self, g: dict[str, Any], defaults: dict[str, Any], number: int) -> list[Instance]:
        where = self.where(f"grid #{number}")
        variables = g.get("vars", {})
        objectives = g.get("objectives", [defaults.get("objective", "aspl")])
        families = g.get("families", [defaults.get("family")])
        out = []
        names_list = list(variables)
        for values in itertools.product(*(variables[k] for k in names_list)):
            names = dict(zip(names_list, values))
            label = ", ".join(f"{k}={v}" for k, v in names.items())
            split = None
            if "tune_if" in g:
                split = "tune" if evaluate_formula(g["tune_if"], names, f"{where} ({label}): tune_if") else "test"
            for base, cap, budget, objective, family in itertools.product(
                    g["bases"], g["caps"], g["budgets"], objectives, families):
                f = dict(defaults, base=base, cap=cap, budget=budget, objective=objective)
                for key in ("kind", "regular"):
                    if key in g:
                        f[key] = g[key]
                if family is not None:
                    f["family"] = family
                if split is not None:
                    f["split"] = split
                out.append(self.make(f, names, f"{where} ({label or base})"))
        return out

    # ------------------------------------------------------------------ the file

    def header(self) -> None:
        """The suite's own scalars: name, description, seeds, time limit and evaluation budget."""
        doc = self.doc
        if "name" in doc:
            if not isinstance(doc["name"], str) or not _SUITE_NAME.match(doc["name"]):
                raise HopbenchError(self.where(f"name must be a string of letters, digits, '.', '_' and '-' (it "
                                               f"names board folders and store rows), got {shown(doc['name'])}"))
            self.name = doc["name"]
        if "description" in doc and not isinstance(doc["description"], str):
            raise HopbenchError(self.where(f"description must be a string, got {shown(doc['description'])}"))
        seeds = doc.get("seeds", 1)
        if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
            raise HopbenchError(self.where(f"seeds must be a positive integer (seeds 1..K), got {shown(seeds)}"))
        caps.SEEDS.check(seeds, self.where("seeds"))
        if "time_limit" in doc and not (_is_number(doc["time_limit"]) and doc["time_limit"] > 0):
            raise HopbenchError(self.where(f"time_limit must be a positive number of seconds, got "
                                           f"{shown(doc['time_limit'])}"))
        if "time_limit" in doc:
            caps.check_seconds(doc["time_limit"], self.where("time_limit"))
        evaluations = doc.get("evaluations", 1)
        if isinstance(evaluations, bool) or not isinstance(evaluations, int) or evaluations < 1:
            raise HopbenchError(self.where(f"evaluations must be a positive integer (an evaluation budget per "
                                           f"cell), got {shown(evaluations)}"))

    def tables(self, key: str, hint: str) -> list[dict[str, Any]]:
        """A top-level array of tables (``[[instances]]``, ``[[grid]]``, ``[[annotations]]``), checked."""
        value = self.doc.get(key, [])
        if not isinstance(value, list):
            raise HopbenchError(self.where(f"{key} must be an array of tables ({hint}), got {shown(value)}"))
        for i, entry in enumerate(value, 1):
            if not isinstance(entry, dict):
                raise HopbenchError(self.where(f"{key} #{i} must be a table ({hint}), got {shown(entry)}"))
        return value

    def load(self) -> Suite:
        doc = self.doc
        self.header()
        defaults = doc.get("defaults", {})
        if not isinstance(defaults, dict):
            raise HopbenchError(self.where(f"[defaults] must be a table, got {shown(defaults)}"))
        explicit = self.tables("instances", "[[instances]]")
        grids = self.tables("grid", "[[grid]]")
        notes = self.tables("annotations", "[[annotations]]")
        kinds = self.kinds_used(defaults, explicit, grids)
        owned = {table: kind for kind in kinds for table in kind.suite_tables}
        _refuse_unknown(self.path.name, doc, TOP_LEVEL_KEYS | set(owned), "top-level key")
        for table, kind in owned.items():
            if table in doc:
                self.ask(kind, self.where(table), kind.check_suite_table, table, doc[table])
        default_kind = self.kind_of(defaults, self.where("[defaults]"))
        _refuse_unknown(self.where("[defaults]"), defaults, COMMON_KEYS - {"id"} | default_kind.instance_keys)
        # count before expanding: a few lines of vars can name billions of instances
        count = len(explicit) + sum(self.grid_size(g, self.where(f"grid #{i}"))
                                    for i, g in enumerate(grids, 1))
        caps.INSTANCES.check(count, self.where("the number of instances"))
        instances = [self.make(dict(defaults, **entry), {}, self.where(f"instance #{i}"))
                     for i, entry in enumerate(explicit, 1)]
        for i, g in enumerate(grids, 1):
            instances.extend(self.grid(g, defaults, i))
        if not instances:
            raise HopbenchError(self.where("the suite defines no instances; add [[instances]] or [[grid]] tables"))
        seen: set[str] = set()
        for inst in instances:
            if inst.id in seen:
                raise HopbenchError(self.where(f"instance id {inst.id!r} is defined twice"))
            seen.add(inst.id)
        instances = self.annotate(instances, notes)
        for inst in instances:
            self.check_known_values(inst)
        return Suite(name=self.name, description=doc.get("description", ""), path=self.path,
                     instances=instances, time_limit=doc.get("time_limit"), evaluations=doc.get("evaluations"),
                     raw=doc)

    def check_known_values(self, inst: Instance) -> None:
        """Refuse an ``optimum``, ``best_known`` or published objective that the instance's bounds rule out.

        No solution scores below the kind's lower bound of the problem
        (:meth:`~hopbench.harness.problems.kind.ProblemKind.known_value_lower_bound`), nor above the kind's
        upper bound (:meth:`~hopbench.harness.problems.kind.ProblemKind.above_upper_bound`; for a
        shortcut problem, what the base graph itself scores).  A value may
        be rounded to the digits it is written with.  Only instances that carry such values build
        their problem and bounds, so loading a large suite stays fast.  Annotated values are checked
        too: annotations are applied before this runs.
        """
        values = [(key, float(getattr(inst, key)), _written_tolerance(getattr(inst, key)))
                  for key in ("optimum", "best_known") if getattr(inst, key) is not None]
        if not values and not inst.references:
            return
        kind = get_kind(inst.kind)
        where = self.where(f"instance {inst.id!r}")
        problem = self.ask(kind, where, inst.problem)
        for k, ref in enumerate(inst.references, 1):
            value, tolerance = _reference_objective(kind, ref, problem.objective)
            if value is not None:
                name = ref.get("label") or ref.get("source") or f"#{k}"
                values.append((f"reference {name!r} (its {problem.objective})", value, tolerance))
        if not values:
            return
        lower = self.ask(kind, where, kind.known_value_lower_bound, problem)
        lower = lower if lower is not None and math.isfinite(lower) else None
        for key, value, tolerance in values:
            if lower is not None and value < lower - tolerance - _SLACK * max(1.0, abs(lower)):
                raise HopbenchError(
                    f"{where}: {key} = {value:g} is below {lower:.10g}, the lower bound of its "
                    f"{problem.objective}: no solution scores that; correct or remove it")
        # the value farthest above its rounding is the one to ask about: if it is within, all are
        key, value, tolerance = max(values, key=lambda v: v[1] - v[2])
        upper = self.ask(kind, where, kind.above_upper_bound, problem,
                         value - tolerance - _SLACK * max(1.0, abs(value)))
        if upper is not None:
            raise HopbenchError(
                f"{where}: {key} = {value:g} is above {upper:.10g}, {kind.upper_bound_meaning}: "
                f"no solution scores that; correct or remove it")

    def annotate(self, instances: list[Instance], notes: list[dict[str, Any]]) -> list[Instance]:
        index = {inst.id: k for k, inst in enumerate(instances)}
        for i, note in enumerate(notes, 1):
            where = self.where(f"annotation #{i}")
            ident = note.get("id")
            if not isinstance(ident, str):
                raise HopbenchError(f"{where}: id must be the id of an instance of this suite (a string), "
                                    f"got {shown(ident)}")
            if ident not in index:
                raise HopbenchError(f"{where}: no instance with id {shown(ident)} in this suite")
            _refuse_unknown(where, note, INFO_KEYS | {"id"})
            k = index[ident]
            old = instances[k]
            info = self.info(note, get_kind(old.kind), f"{where} ({ident})")
            references = old.references + info.pop("references", ())
            instances[k] = dataclasses.replace(old, references=references, **info)
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
    """Load a suite by name (a file in :func:`suites_dir`) or by path, checking all of it (module docstring)."""
    text_name = str(name_or_path)
    if "\x00" in text_name:
        raise HopbenchError(f"suite name {text_name!r} holds a NUL character; give a suite name or a .toml path")
    path = Path(text_name)
    if not (text_name.endswith(".toml") or os.sep in text_name):
        path = suites_dir() / f"{text_name}.toml"
        if not path.exists():
            from hopbench.harness.suggestions import did_you_mean

            available = ", ".join(list_suites()) or "none"
            raise HopbenchError(f"unknown suite {text_name!r};{did_you_mean(text_name, list_suites())} "
                                f"available suites: {available}")
    if path.is_dir():
        raise HopbenchError(f"suite file {str(path)!r} is a directory; give a .toml file or a suite name")
    text = read_text(path, "suite file")
    check_nesting(text, f"suite file {path.name}")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise HopbenchError(f"{path.name} is not valid TOML: {' '.join(str(exc).split())}") from None
    except RecursionError:
        raise HopbenchError(f"{path.name} nests too deeply to read; flatten its tables and lists") from None
    return _Loader(path, doc).load()
