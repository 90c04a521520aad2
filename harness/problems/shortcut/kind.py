"""The ``shortcut`` problem kind: add shortcut links to a base graph (plus the Equality family).

Suite instance tables name ``base`` (a topology spec, ``{expr}`` placeholders
allowed), ``cap`` and ``budget`` (integers or formulas of the grid variables and
``N``, the base's vertex count), and optionally ``objective``, ``family``,
``regular`` and ``group``.  Instance ids are ``{base}/cap{cap}/b{budget}/{objective}``
plus ``/{family}`` and ``/regular`` when set.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from hopbench.harness.problems.kind import (
    InstanceResolver,
    InstanceShape,
    MetricColumn,
    ProblemKind,
    ResultNetwork,
    Verdict,
    check_field_types,
    close_enough,
    shown,
)
from hopbench.harness.problems.shortcut.names import FAMILIES, OBJECTIVES, SOLUTION_FORMAT

#: the types of a shortcut instance's fields once resolved (cap and budget are integers by then)
FIELD_TYPES = {"base": str, "cap": int, "budget": int, "objective": str, "family": str, "regular": bool,
               "group": str}
#: the columns of a ``[[published]]`` row (Liang et al. 2022's Table 2 and 3, kept beside equality2022's instances)
PUBLISHED_COLUMNS: dict[str, type | tuple[type, ...]] = {
    "label": str, "N": int, "K": int, "p": int, "n": int, "a": float, "d": int, "K_over_p": float,
    "lat_0_9": float, "MB_percent": float, "reproducible": bool, "ahops": list, "bhops": list, "erratum": str,
    "note": str}

#: the reference points of Graph Golf's gaps: the suite's rows labelled so (the lower bound also without one)
LOWER_BOUND = "lower bound"
BEST_KNOWN = "best known"
#: the legend of the gap columns (markdown emphasis; the site strips it)
GOLF_LEGEND = (
    "*k-K*, *l-L*: Graph Golf's diameter and ASPL gaps, our mean diameter k and mean ASPL l minus the lower "
    "bound's diameter K and ASPL L (the suite's \"lower bound\" row, else Moore / Cerf for (N, cap)); shown for "
    "golf instances and those with a \"lower bound\" row. *k-K b.k.*, *l-L b.k.*: the same to the suite's \"best "
    "known\" row (blank where it gives no ASPL). An ASPL gap compares like with like only where the diameters "
    "agree (k = K).")


def _make(spec: str, cap: int, budget: int, objective: str = "aspl", family: str | None = None,
          regular: bool = False):
    from hopbench.harness.graphs.topologies import parse_spec
    from hopbench.harness.problems.shortcut.problem import ShortcutProblem

    return ShortcutProblem(parse_spec(spec), cap, budget, objective, family, base_spec=spec, regular=regular)


class ShortcutKind(ProblemKind):
    name = "shortcut"
    objectives = OBJECTIVES
    formats = (SOLUTION_FORMAT,)
    instance_keys = frozenset({"base", "cap", "budget", "objective", "family", "regular", "group"})
    metric_columns = (
        MetricColumn("diameter", "Diam."), MetricColumn("aspl", "ASPL"),
        # Graph Golf's language: the diameter and ASPL gaps to the bound and to the best known
        MetricColumn("diameter", "k-K", minus=LOWER_BOUND, legend=GOLF_LEGEND),
        MetricColumn("aspl", "l-L", minus=LOWER_BOUND, digits=5, legend=GOLF_LEGEND),
        MetricColumn("diameter", "k-K b.k.", minus=BEST_KNOWN, legend=GOLF_LEGEND),
        MetricColumn("aspl", "l-L b.k.", minus=BEST_KNOWN, digits=5, legend=GOLF_LEGEND),
    )
    reference_metrics = ("diameter", "aspl")
    bound_labels = frozenset({LOWER_BOUND})
    size_label = "N (vertices)"
    lower_bound_meaning = ("Moore/Cerf for (N, cap) through the objective (for channel-load: N x the Cerf bound over "
                           "twice the most links the problem allows)")
    upper_bound_meaning = "what the base graph itself scores (added shortcuts never make any objective worse)"
    suite_tables = {"published": "published Equality networks, one table per row ([[published]], equality2022)"}

    # ------------------------------------------------------------------ suites

    def resolve_fields(self, fields: dict[str, Any], resolver: InstanceResolver) -> dict[str, Any]:
        from hopbench.harness.errors import HopbenchError

        for key in ("base", "cap", "budget"):
            if key not in fields:
                raise HopbenchError(f"{resolver.where}: missing key {key!r} (a shortcut instance needs base, cap, "
                                    f"budget)")
        if not isinstance(fields["base"], str):
            raise HopbenchError(f"{resolver.where}: base must be a topology spec string, got {fields['base']!r}")
        out = dict(fields)
        out["base"] = resolver.fill(fields["base"], "base")
        out["cap"] = resolver.integer(fields["cap"], "cap", out["base"])
        out["budget"] = resolver.integer(fields["budget"], "budget", out["base"])
        out.setdefault("objective", "aspl")
        return out

    def check_fields(self, fields: dict[str, Any], resolver: InstanceResolver) -> None:
        # what ShortcutProblem refuses, refused when the suite loads with the key named; the base graph
        # comes from the loader's cache (a grid repeats one base over many caps and budgets)
        from hopbench.harness.errors import HopbenchError
        from hopbench.harness.problems.shortcut.problem import ShortcutProblem

        check_field_types(fields, FIELD_TYPES)
        objective = fields.get("objective", "aspl")
        if objective not in OBJECTIVES:
            raise HopbenchError(f"objective {objective!r} is not a shortcut objective; use one of "
                                f"{', '.join(OBJECTIVES)}")
        if fields.get("family") is not None and fields["family"] not in FAMILIES:
            raise HopbenchError(f"family {fields['family']!r} is unknown; use one of {', '.join(FAMILIES)} or none")
        if fields["budget"] < 0:
            raise HopbenchError(f"budget = {fields['budget']} is negative; a budget is a number of shortcuts, "
                                f"0 or more")
        try:
            graph = resolver.graph(fields["base"])
        except HopbenchError as exc:
            raise HopbenchError(f"base: {exc}") from None
        if fields["cap"] < graph.max_degree:
            raise HopbenchError(f"cap = {fields['cap']} is below the maximum degree {graph.max_degree} of the base "
                                f"{fields['base']}; use a cap of at least {graph.max_degree}")
        # the rest (a regular problem's budget, the equality family's shape) is the problem's to say
        ShortcutProblem(graph, fields["cap"], fields["budget"], objective, fields.get("family"),
                        base_spec=fields["base"], regular=bool(fields.get("regular", False)))

    def check_suite_table(self, name: str, value: Any) -> None:
        # [[published]]: rows of numbers and link sets a reader may compare with the paper
        from hopbench.harness.errors import HopbenchError

        if not isinstance(value, list) or not all(isinstance(row, dict) for row in value):
            raise HopbenchError(f"must be an array of tables ([[{name}]]), got {shown(value)}")
        for k, row in enumerate(value, 1):
            where = f"row #{k}" + (f" ({row['label']})" if isinstance(row.get("label"), str) else "")
            unknown = sorted(set(row) - set(PUBLISHED_COLUMNS))
            if unknown:
                raise HopbenchError(f"{where}: unknown key {unknown[0]!r}; allowed keys: "
                                    f"{', '.join(PUBLISHED_COLUMNS)}")
            if "label" not in row:
                raise HopbenchError(f"{where}: missing key 'label' (the network's Table 2 id, e.g. \"E361\")")
            try:
                check_field_types(row, PUBLISHED_COLUMNS)
            except HopbenchError as exc:
                raise HopbenchError(f"{where}: {exc}") from None
            for key in ("ahops", "bhops"):
                bad = [v for v in row.get(key, []) if isinstance(v, bool) or not isinstance(v, int)]
                if bad:
                    raise HopbenchError(f"{where}: {key} must be a list of integers, got {shown(bad[0])}")

    def instance_id(self, fields: dict[str, Any]) -> str:
        tail = f"/{fields['family']}" if fields.get("family") else ""
        tail += "/regular" if fields.get("regular") else ""
        return f"{fields['base']}/cap{fields['cap']}/b{fields['budget']}/{fields.get('objective', 'aspl')}{tail}"

    def build(self, fields: dict[str, Any]):
        return _make(fields["base"], fields["cap"], fields["budget"], fields.get("objective", "aspl"),
                     fields.get("family"), bool(fields.get("regular", False)))

    def size(self, fields: dict[str, Any]) -> int:
        from hopbench.harness.graphs.topologies import parse_spec

        return parse_spec(fields["base"]).n

    # ------------------------------------------------------------------ solvers

    def sample_problems(self) -> list[Any]:
        return [
            _make("ring:16", 4, 4),
            _make("torus:4x4", 6, 4, "golf"),
            _make("mesh:3x4", 5, 5, "diameter"),
            _make("ring:12", 3, 6, "ad"),
            _make("empty:10", 3, 12),
            _make("ring:24", 5, 36, "ad", "equality"),  # N(K-2)/2 = 36: an Equality-family problem
            _make("torus:4x4", 6, 6, "channel-load"),  # taken by the solvers that opt in
        ]

    def warm_up_problems(self) -> list[Any]:
        # every code path a shortcut solver compiles: each objective, the equality family, a regular
        # problem; uint16 distance matrices (ring:600); the distance engine's parallel kernels
        # (n^2 >= 2^21) with uint8 (torus:40x40, a small diameter keeps its evaluations cheap) and
        # uint16 matrices (mesh:6x260, a diameter past 255); empty bases (Graph Golf's), disconnected,
        # with uint8 and, past 2^21 pairs, uint16 matrices
        return [_make("ring:12", 4, 3, "aspl"), _make("torus:4x4", 6, 3, "golf"), _make("mesh:3x3", 5, 2, "diameter"),
                _make("ring:12", 4, 12, "ad", "equality"), _make("ring:12", 4, 12, "golf", regular=True),
                _make("ring:600", 3, 2, "aspl"), _make("torus:40x40", 5, 2, "aspl"),
                _make("mesh:6x260", 5, 2, "aspl"), _make("empty:12", 3, 18, "golf"), _make("empty:1500", 3, 3, "golf"),
                _make("torus:4x4", 6, 3, "channel-load")]

    # ------------------------------------------------------------------ results

    def verify(self, doc: dict[str, Any]) -> Verdict:
        from pathlib import Path

        from hopbench.harness.errors import HopbenchError, InvalidSolution
        from hopbench.harness.graphs.topologies import parse_spec
        from hopbench.harness.problems.shortcut.solution_file import solution_from_dict

        solution, stored = solution_from_dict(doc)
        spec = solution.problem.base_spec or ""
        base = solution.problem.base
        if "base_n" in doc and doc["base_n"] != base.n:
            return Verdict(False, f"the embedded base_n {shown(doc['base_n'])} contradicts the base {spec!r}, which "
                                  f"has {base.n} vertices", stored=stored)
        if "base_edges" in doc:
            # embedded edges stand in for an edge file that may be gone; a named topology, or an edge file
            # that is here, is the base itself, and edges that contradict it are refused
            kind, _, path = spec.partition(":")
            if kind.strip().lower() != "file" or Path(path.strip()).exists():
                try:
                    named = parse_spec(spec)
                except HopbenchError as exc:
                    return Verdict(False, f"the base {spec!r} cannot be rebuilt to check the embedded base_edges "
                                          f"({exc})", stored=stored)
                if named != base:
                    return Verdict(False, f"the embedded base_edges are not the graph {spec!r} names", stored=stored)
        try:
            ev = solution.evaluate()
        except InvalidSolution as exc:
            return Verdict(False, f"invalid solution: {exc}", stored=stored)
        metrics = ev.metrics()
        for key in ("diameter", "aspl", "objective"):
            if not close_enough(metrics[key], stored[key]):
                return Verdict(False, f"stored {key} {stored[key]!r} does not match the recomputed {metrics[key]!r}",
                               metrics, stored)
        return Verdict(True, "", metrics, stored)

    def read(self, doc: dict[str, Any]) -> Any:
        from hopbench.harness.problems.shortcut.solution_file import solution_from_dict

        return solution_from_dict(doc)[0]

    def check_result(self, problem: Any, doc: dict[str, Any], *, trusted: bool = False) -> Verdict:
        # the problem first (cheap: no distances), then the full verification; a base given as edges
        # (a file: spec) must be the problem's very graph, not only carry its name
        from hopbench.harness.problems.recheck import problem_mismatch
        from hopbench.harness.problems.shortcut.solution_file import problem_from_dict

        claimed = problem_from_dict(doc)
        reason = problem_mismatch(problem.describe(), claimed.describe())
        if reason is None and claimed.base != problem.base:
            reason = (f"the solution is for another problem: its base graph ({claimed.base.n} vertices, "
                      f"{claimed.base.m} edges) is not the graph of {problem.base_spec}")
        return self.verify(doc) if reason is None else Verdict(False, reason)

    def graph_of(self, doc: dict[str, Any]) -> ResultNetwork:
        # the base plus the solution's shortcuts, validated first; the radix is the degree cap
        from hopbench.harness.problems.shortcut.solution_file import solution_from_dict

        solution, _ = solution_from_dict(doc)
        problem = solution.problem
        shortcuts = problem.validate(solution.shortcuts)
        return ResultNetwork(problem.graph_with(shortcuts), radix=int(problem.degree_cap), shortcut_edges=shortcuts,
                             problem=problem.describe())

    def above_upper_bound(self, problem: Any, value: float) -> float | None:
        # Every solution is the base plus shortcuts, and an added link never lengthens a distance, so
        # neither the diameter nor the ASPL grows -- nor golf (diameter first, then ASPL) or ad (their
        # product).  The base's own value therefore bounds every solution's, even where the base is no
        # solution itself (a regular problem's, a family's).  A disconnected base (inf) bounds nothing.
        import math

        from hopbench.harness.engine.summary import summary
        from hopbench.harness.graphs.bounds import lower_bounds
        from hopbench.harness.problems.shortcut.problem import objective_value

        if problem.objective == "channel-load":
            return None  # an added link can load a channel more (traffic moves onto it): no monotone bound
        base = problem.base
        # cheap first: the base scores at least the Moore / Cerf bounds of its own degree, so a value
        # at or below those is within the bound without an all-pairs BFS (2 s for ring:4800)
        if value <= objective_value(problem.objective, *lower_bounds(base.n, int(base.max_degree))):
            return None
        s = summary(base)
        bound = objective_value(problem.objective, s.diameter, s.aspl)
        return float(bound) if math.isfinite(bound) and value > bound else None

    # ------------------------------------------------------------------ boards

    def shape(self, fields: dict[str, Any], problem: Any) -> InstanceShape:
        spec = str(fields["base"])
        family = spec.split(":", 1)[0] if ":" in spec else spec
        group = str(fields.get("group") or f"{family}, cap {fields['cap']}")
        # a plotted series varies N only: same base family, cap, objective and problem shape
        series = f"{family}, cap {fields['cap']}, {problem.objective}" \
            + (f", {fields['family']}" if fields.get("family") else "") + (", regular" if fields.get("regular") else "")
        return InstanceShape(n=int(problem.n), group=group, family=family, series=series)

    def primary_metric(self, objective: str) -> str:
        return objective if objective in ("aspl", "diameter") else "objective"

    def metric_is_objective(self, metric: str, objective: str) -> bool:
        # an aspl or diameter objective is that metric; golf and ad are computed from both
        return metric == "objective" or (metric == objective and metric in ("aspl", "diameter"))

    def reference_points(self, problem: Any, references: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
        # K and L: the suite's "lower bound" row (its labels name the points, see the default); a golf
        # instance -- Graph Golf's order/degree problem, ranked by these gaps -- or one with such a row
        # gets the Moore / Cerf bounds of (N, cap) (what the lower_bound column uses) for what the row
        # leaves out.  Other instances (aspl, diameter, ad objectives) get no gap to the bound.
        import math

        out = super().reference_points(problem, references)
        if problem.objective == "golf" or LOWER_BOUND in out:
            computed = dict(zip(("diameter", "aspl"), (float(v) for v in problem.lower_bounds())))
            out[LOWER_BOUND] = {**{k: v for k, v in computed.items() if math.isfinite(v)},
                                **out.get(LOWER_BOUND, {})}
        return out

    def reference_objective(self, values: dict[str, float], objective: str) -> float | None:
        # a paper that reports diameter and ASPL gives the golf and ad objectives too
        from hopbench.harness.problems.shortcut.problem import objective_value

        if "diameter" in values and "aspl" in values and objective != "channel-load":
            return objective_value(objective, values["diameter"], values["aspl"])
        return values.get(objective) if objective in ("aspl", "diameter") else None


KIND = ShortcutKind()
