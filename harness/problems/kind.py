"""What a problem kind provides: the plug-in interface every kind implements.

A *problem kind* (``shortcut``, ``routing``, ...) is everything hopbench knows
about one family of problems, in one object: how a suite instance of that kind
is written (its keys, its id, the problem it builds), small sample problems
(the conformance suite runs every solver on them; the warm-up compiles on
them), how its result documents are verified, and what its leaderboard shows
(metric columns, reference objectives, the grouping of instances, the size
axis of plots).  The rest of hopbench — suites, runner, store, board, site —
asks the kind registry (:mod:`hopbench.harness.problems.registry`) instead of naming
kinds, so a new kind is a new package under ``harness/problems/`` (or a
plug-in module) and nothing else.
"""
from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping, Sequence

#: tolerance on stored ASPL / objective values (they are written with 17 digits)
TOLERANCE = 1e-9


@dataclass(frozen=True)
class MetricColumn:
    """A metric a board shows beside the objective: ``metric`` is its key in a run's metrics and in
    published reference rows.

    Without ``minus`` the column is the mean of ``metric`` over a row's ok runs, ``mean_<metric>``,
    and a published reference row shows its own value of ``metric`` there.  With ``minus`` (the name of
    a reference point, e.g. ``"lower bound"``) it is that mean minus the instance's reference value
    of ``metric`` named so (:meth:`ProblemKind.reference_points`), a difference in the metric's own
    unit, ``<metric>_minus_<minus>`` (spaces as underscores): blank on an instance without that value
    (and in published rows), and shown by the markdown board and the site only in tables where some
    row has a value.  ``digits``: decimals shown; ``legend``: what the column means, added to the
    board's column legend when the column is shown (columns may share one text; it is shown once).
    """

    metric: str
    header: str
    minus: str | None = None
    digits: int = 4
    legend: str = ""

    @property
    def column(self) -> str:
        if self.minus is None:
            return f"mean_{self.metric}"
        return f"{self.metric}_minus_{self.minus.replace(' ', '_')}"


@dataclass(frozen=True)
class InstanceShape:
    """How a board groups and plots one instance: its size, table group, family and plot series."""

    n: int
    group: str
    family: str
    series: str


@dataclass(kw_only=True)
class SolverOutput:
    """What every kind's solution object carries besides its content: who made it and how
    (``hopbench.solvers.contract.execute`` fills these in), its evaluation once computed, and
    solver-specific facts worth keeping with it (``extra``: a MILP's bound, an Equality link set)."""

    solver: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    elapsed_s: float = 0.0
    evaluation: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: the run's anytime trace (``TracePoint``: elapsed_s, evaluations, value) and evaluation count, as
    #: ``execute`` recorded them; not part of the result document, nor of equality
    trace: list[Any] = field(default_factory=list, compare=False, repr=False)
    evaluations: int = field(default=0, compare=False)

    @property
    def metrics(self) -> dict[str, Any]:
        """The metrics a result file stores (evaluating first if needed)."""
        evaluation = self.evaluation if self.evaluation is not None else self.evaluate()  # type: ignore[attr-defined]
        return evaluation.metrics()


@dataclass
class ResultNetwork:
    """The router network a result document describes, as its kind reads it (:meth:`ProblemKind.graph_of`)."""

    graph: Any  #: a :class:`~hopbench.harness.graphs.graph.Graph`, vertex i being router i
    radix: int | None = None  #: ports per router, when the problem fixes them (a shortcut problem's degree cap)
    shortcut_edges: Any = None  #: ``(k, 2)`` int64 array of the edges a solution added to its base, if any
    routes: Any = None  #: the routing table, when the document is one
    problem: dict[str, Any] = field(default_factory=dict)  #: the problem's ``describe()``
    hosts: Any = None  #: int64 hosts per router, when the document places its hosts (a host-switch graph)


@dataclass
class Verdict:
    """The outcome of re-verifying a result document."""

    valid: bool
    reason: str = ""
    metrics: dict[str, Any] = field(default_factory=dict)
    stored: dict[str, Any] = field(default_factory=dict)


def close_enough(a: float, b: float) -> bool:
    """Stored and recomputed metric agree (exactly for infinities, to TOLERANCE otherwise)."""
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


_TYPE_WORDS = {str: "a string", bool: "true or false", int: "an integer", float: "a number", list: "a list",
               dict: "a table"}


def shown(value: Any, width: int = 60) -> str:
    """``repr(value)`` cut to ``width`` characters: a one-line error never quotes a whole list or text."""
    text = repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def check_field_types(fields: Mapping[str, Any], types: Mapping[str, type | tuple[type, ...]]) -> None:
    """Refuse a field whose value is not of the type declared for its key (absent keys pass).

    ``true`` is no integer here (TOML keeps them apart; Python's ``bool`` is an ``int``), and an
    integer passes where a float is declared.  The one-line error names the key.
    """
    from hopbench.harness.errors import HopbenchError

    for key, want in types.items():
        if key not in fields:
            continue
        value = fields[key]
        allowed = want if isinstance(want, tuple) else (want,)
        if float in allowed:
            allowed = (*allowed, int)
        if isinstance(value, bool) and bool not in allowed or not isinstance(value, allowed):
            words = " or ".join(dict.fromkeys(_TYPE_WORDS.get(t, t.__name__) for t in
                                              (want if isinstance(want, tuple) else (want,))))
            raise HopbenchError(f"{key} must be {words}, got {shown(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise HopbenchError(f"{key} must be a finite number, got {value!r}")


class InstanceResolver(ABC):
    """What a suite loader offers a kind while it reads one instance table: formulas and placeholders."""

    where: str

    @abstractmethod
    def fill(self, text: str, what: str = "") -> str:
        """Replace every ``{expr}`` in ``text`` (the value of key ``what``, named in errors) by its value."""

    @abstractmethod
    def integer(self, value: Any, what: str, base: str | None = None) -> int:
        """An integer or an arithmetic formula (which may use ``N``, the vertex count of ``base``)."""

    #: the folder of the suite file being read, against which a kind resolves the relative file names
    #: its instances give (None when the instance does not come from a file)
    directory: Any = None

    def graph(self, spec: str) -> Any:
        """The graph a topology spec names (a suite loader caches it: many instances share a base)."""
        from hopbench.harness.graphs.topologies import parse_spec

        return parse_spec(spec)


class ProblemKind(ABC):
    """One problem kind.  Subclasses set the class attributes and implement the abstract methods."""

    #: the kind's name, as written in suites (``kind = "..."``) and in solvers' ``kinds``
    name: ClassVar[str] = ""
    #: objectives of this kind (names unique across kinds: a board row's objective names its kind)
    objectives: ClassVar[tuple[str, ...]] = ()
    #: the objectives that are better when larger (a throughput); every other objective is minimised.
    #: Boards rank, pick the best run and measure gaps in that direction, and traces improve upward
    maximised: ClassVar[frozenset[str]] = frozenset()
    #: whether its solvers improve a solution over time (boards draw anytime curves); a measurement
    #: (a simulation) reports one value at its end
    anytime: ClassVar[bool] = True
    #: the ``format`` field of the result documents this kind verifies
    formats: ClassVar[tuple[str, ...]] = ()
    #: keys a suite instance table of this kind may hold (besides the shared ones: split, references, ...)
    instance_keys: ClassVar[frozenset[str]] = frozenset()
    #: metrics shown beside the objective on boards (means, and differences to reference points)
    metric_columns: ClassVar[tuple[MetricColumn, ...]] = ()
    #: every metric a published reference row of this kind may carry (the columns of references.csv)
    reference_metrics: ClassVar[tuple[str, ...]] = ()
    #: labels of reference rows that state a bound, not a result someone reached: the board's "Gap pub."
    #: compares with results only
    bound_labels: ClassVar[frozenset[str]] = frozenset()
    #: the x-axis label of objective-vs-size plots
    size_label: ClassVar[str] = "N"
    #: top-level tables a suite file of this kind may hold besides the loader's own keys (name, grid, ...):
    #: table name -> what it holds.  The loader refuses every other top-level key, and hands each of
    #: these to :meth:`check_suite_table` (names unique across kinds)
    suite_tables: ClassVar[Mapping[str, str]] = {}

    # ------------------------------------------------------------------ suites

    def resolve_fields(self, fields: dict[str, Any], resolver: InstanceResolver) -> dict[str, Any]:
        """The instance fields with formulas and placeholders resolved (default: as written)."""
        return dict(fields)

    def check_fields(self, fields: dict[str, Any], resolver: InstanceResolver) -> None:
        """Refuse resolved instance fields of a wrong type or out of range, when the suite loads.

        Raise :class:`~hopbench.harness.errors.HopbenchError` naming the key (the loader adds the file and the
        instance).  The default builds the problem, so a suite refuses at load what :meth:`build`
        would refuse later in a cell; a kind whose build is heavy overrides this with cheap checks
        (``resolver.graph`` gives a base graph the loader caches).
        """
        self.build(fields)

    def check_suite_table(self, name: str, value: Any) -> None:
        """Validate the top-level suite table ``name`` (one of :attr:`suite_tables`) when a suite loads.

        Raise :class:`~hopbench.harness.errors.HopbenchError` naming the row and key (the loader adds the file
        and the table).  The default accepts any value.
        """

    @abstractmethod
    def instance_id(self, fields: dict[str, Any]) -> str:
        """The stable id of the instance these (resolved) fields describe."""

    @abstractmethod
    def build(self, fields: dict[str, Any]) -> Any:
        """The problem object of an instance."""

    @abstractmethod
    def size(self, fields: dict[str, Any]) -> int:
        """The instance's size (vertices, routed nodes, ...), for ``--min-nodes`` / ``--max-nodes``."""

    # ------------------------------------------------------------------ solvers

    @abstractmethod
    def sample_problems(self) -> list[Any]:
        """Small problems that together exercise every feature of the kind (the conformance suite's)."""

    def warm_up_problems(self) -> list[Any]:
        """Tiny problems that reach every compiled code path of a solver (default: the samples)."""
        return self.sample_problems()

    # ------------------------------------------------------------------ results

    @abstractmethod
    def verify(self, doc: dict[str, Any]) -> Verdict:
        """Re-verify a result document of one of :attr:`formats` from scratch."""

    def read(self, doc: dict[str, Any]) -> SolverOutput:
        """The solution object a result document of one of :attr:`formats` holds, as it was written (not
        re-verified: :meth:`verify` does that), for ``hopbench.load``."""
        from hopbench.harness.errors import HopbenchError

        raise HopbenchError(f"problem kind {self.name!r} cannot read its result documents into Python objects; "
                            f"use hopbench.verify on the file instead")

    # ------------------------------------------------------------------ re-verification (issue 34)

    def check_result(self, problem: Any, doc: dict[str, Any], *, trusted: bool = False) -> Verdict:
        """Re-verify a solver's result document as an answer to ``problem``, before anything records it.

        The harness never trusts a solver's own account: the document must verify from scratch
        (:meth:`verify`: valid, and its stored metrics equal the recomputed ones), and the problem
        it solves must be ``problem`` itself (the same canonical ``describe()``).  The verdict's
        ``metrics`` are the recomputed ones, which callers record.  The default reads the
        document's problem from its ``"problem"`` field, else through :meth:`graph_of`; a kind
        whose documents hold neither overrides this (else its results are refused, saying so).

        ``trusted``: the solver is shipped with hopbench.  A kind whose full re-evaluation is a second run
        of the same deterministic measurement (a simulation) may then check the document's consistency
        only; an untrusted solver's document is always re-evaluated in full.
        """
        from hopbench.harness.problems.recheck import document_problem, problem_mismatch

        verdict = self.verify(doc)
        if not verdict.valid:
            return verdict
        reason = problem_mismatch(problem.describe(), document_problem(self, doc))
        return verdict if reason is None else Verdict(False, reason, verdict.metrics, verdict.stored)

    def graph_of(self, doc: dict[str, Any]) -> ResultNetwork:
        """The network of a result document of one of :attr:`formats` (for exports and cost models).

        A document that breaks its problem's rules raises :class:`~hopbench.harness.errors.InvalidSolution`.
        """
        from hopbench.harness.errors import HopbenchError

        raise HopbenchError(f"problem kind {self.name!r} cannot give the network of its result documents; "
                            f"export or cost another file")

    def lower_bound(self, problem: Any) -> float | None:
        """No solution of ``problem`` scores below this objective value (None when unknown)."""
        return problem.objective_lower_bound()

    def known_value_lower_bound(self, problem: Any) -> float | None:
        """The lower bound a suite's ``optimum``, ``best_known`` and published objective values must
        respect, checked when the suite loads (optional; default :meth:`lower_bound`).

        Loading a suite must stay fast and light (``hopbench instances`` loads them all): a kind
        whose exact bound costs a compiler or a search may return a weaker one that costs neither.
        """
        return self.lower_bound(problem)

    #: what :meth:`lower_bound` is, in words, for the board's legend of its *Gap LB* column
    lower_bound_meaning: ClassVar[str] = "the instance's lower bound on the objective"

    #: what the bound of :meth:`above_upper_bound` is, in words, for the error that refuses a value above it
    upper_bound_meaning: ClassVar[str] = "an upper bound on every solution's objective"

    def above_upper_bound(self, problem: Any, value: float) -> float | None:
        """A bound no solution of ``problem`` scores above, if ``value`` exceeds it; else None (optional).

        None when ``value`` is within every such bound the kind knows (the default knows none).  It
        bounds every solution, not only the optimum: a suite's ``optimum``, ``best_known`` and published
        objective values (a paper's weakest heuristic included) above it are impossible, and the suite
        refuses them when it loads, naming the bound and :attr:`upper_bound_meaning` (values below
        :meth:`known_value_lower_bound` are refused too).  The question is asked of one value so that
        a kind can answer a value far below its bound cheaply and compute the bound (an all-pairs BFS
        of a large base graph, say) only for a value near it.
        """
        return None

    # ------------------------------------------------------------------ boards

    @abstractmethod
    def shape(self, fields: dict[str, Any], problem: Any) -> InstanceShape:
        """How the board groups, names and plots this instance."""

    def primary_metric(self, objective: str) -> str:
        """The metric the objective *is*, compared with published values first (default: the objective)."""
        return "objective"

    def metric_is_objective(self, metric: str, objective: str) -> bool:
        """Whether the value of ``metric`` *is* the objective's value (a board then need not name it)."""
        return metric == "objective"

    def reference_objective(self, values: dict[str, float], objective: str) -> float | None:
        """The objective value a published row implies, from the metrics it reports (None if it cannot)."""
        return values.get(objective)

    def reference_points(self, problem: Any, references: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
        """The values the difference columns (:attr:`MetricColumn.minus`) of one instance subtract:
        reference name -> metric -> value.  A name or metric left out leaves those cells blank (and a
        column blank in every row of a table is not shown).

        The default takes, for each name some metric column subtracts, the numeric metrics of the
        instance's first published reference row whose ``label`` is that name.
        """
        names = {c.minus for c in self.metric_columns if c.minus is not None}
        out: dict[str, dict[str, float]] = {}
        for ref in references:
            label = ref.get("label")
            if label in names and label not in out:
                out[label] = {k: float(v) for k, v in ref.items()
                              if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(float(v))}
        return out

    def plots(self) -> dict[str, Callable[[Any], Any]]:
        """Extra board figures of this kind: ``name -> draw(board) -> Figure | None``."""
        return {}
