"""``hopbench solve``: run one solver on one shortcut problem.

On a terminal (stderr a TTY, no ``--json``) one updating stderr line shows the run
as it goes: the warm-up, then the elapsed seconds, the incumbent's objective, the problem's lower
bound and the evaluations so far, redrawn twice a second (:class:`LiveLine`).  It fits the
terminal's width: the least useful parts go first, and no number is ever cut.  The line is wiped
before the result is printed.

Ctrl-C (or SIGTERM) once the solver runs stops it at its next budget poll: its best solution is
evaluated, written to ``-o`` marked ``"interrupted": true`` and printed, and the exit code is 130.
"""
from __future__ import annotations

import argparse
import math
import sys
import threading
import time
from typing import Any, TextIO

from hopbench.harness.cli._common import (INTERRUPTED_EXIT, add_solver_options, fmt_number, interrupted_note, output_file,
                                 parse_assignments, print_json, rechecked, run_solver, spec_file)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("solve", help="run one solver on one shortcut problem",
                       description="Add shortcuts to a base topology with one solver and report the result. "
                                   "Give the problem (--base, --cap, --budget) or take it from a suite "
                                   "(--suite, --instance).")
    p.add_argument("--base", metavar="SPEC", help="base topology spec, e.g. torus:8x8")
    p.add_argument("--cap", type=int, metavar="D", help="degree cap per switch")
    p.add_argument("--budget", metavar="C",
                   help="maximum number of shortcuts: a number or a formula as in suite files, of N (or n, the "
                        "base's vertex count) and d (or cap, the degree cap), e.g. 'n*d//2' or 'N//4'")
    p.add_argument("--objective", default=None, choices=["aspl", "diameter", "golf", "ad", "channel-load"],
                   help="what to minimise (default aspl; channel-load: the busiest channel under uniform traffic "
                        "and minimal routing, the inverse of the throughput bound, taken by annealing, "
                        "edgecut-full and random)")
    p.add_argument("--family", default=None, metavar="NAME", help="problem family, e.g. equality")
    p.add_argument("--suite", metavar="S", help="take the problem from this suite (a name or a .toml path) ...")
    p.add_argument("--instance", metavar="ID", help="... this instance of it ('hopbench instances S' lists the ids); "
                                                     "without --time-limit the suite's budget applies")
    p.add_argument("--solver", required=True, metavar="NAME",
                   help="solver name ('hopbench solvers --kind shortcut' lists them)")
    add_solver_options(p, output="solution", json_help="print the solution JSON")
    p.set_defaults(func=run)


#: the names a --budget formula may use, and what they are
BUDGET_NAMES = {"N": "the base's vertex count", "n": "the base's vertex count", "d": "the degree cap",
                "cap": "the degree cap"}


def budget_value(text: str, n: int, cap: int) -> int:
    """``--budget``: an integer, or a formula of the base's vertex count and the degree cap, evaluated by the
    suite files' evaluator (same operators, same bounds)."""
    from hopbench.harness.errors import HopbenchError

    try:
        return int(text)
    except ValueError:
        pass
    from hopbench.harness.bench.suites import evaluate_formula

    value = evaluate_formula(text, {"N": n, "n": n, "d": cap, "cap": cap}, "--budget", meanings=BUDGET_NAMES)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise HopbenchError(f"--budget {text!r} comes out as {value!r}, not a whole number of shortcuts; use // "
                            f"for integer division, e.g. 'n*d//2'")
    return value


def instance_problem(args: argparse.Namespace) -> tuple[Any, Any]:
    """The problem (and its suite) that ``--suite S --instance ID`` names."""
    from hopbench.harness.bench.suites import load_suite
    from hopbench.harness.errors import HopbenchError
    from hopbench.harness.suggestions import did_you_mean

    given = [f"--{k}" for k in ("base", "cap", "budget", "objective", "family") if getattr(args, k) is not None]
    if given:
        raise HopbenchError(f"{', '.join(given)} and --suite describe the problem twice; give either --suite S "
                            f"--instance ID or --base, --cap and --budget")
    if not args.instance:
        raise HopbenchError(f"--suite needs --instance ID; 'hopbench instances {args.suite}' lists the ids")
    suite = load_suite(args.suite)
    instances = suite.by_id
    inst = instances.get(args.instance)
    if inst is None:
        raise HopbenchError(f"suite {suite.name} has no instance {args.instance!r};"
                            f"{did_you_mean(args.instance, instances, cutoff=0.8)} "
                            f"'hopbench instances {args.suite}' lists "
                            f"its {len(instances)} ids")
    if inst.kind != "shortcut":
        hint = " (use 'hopbench route')" if inst.kind == "routing" else ""
        raise HopbenchError(f"instance {inst.id} is a {inst.kind} problem, and 'hopbench solve' solves shortcut "
                            f"problems{hint}")
    return inst.problem(), suite


def shortcut_problem(args: argparse.Namespace) -> Any:
    """The problem ``--base``, ``--cap``, ``--budget`` (a formula), ``--objective`` and ``--family`` describe."""
    from hopbench.harness.errors import HopbenchError
    from hopbench.harness.graphs.topologies import parse_spec
    from hopbench.harness.problems.shortcut.problem import ShortcutProblem

    missing = [f"--{k}" for k in ("base", "cap", "budget") if getattr(args, k) is None]
    if missing:
        raise HopbenchError(f"missing {', '.join(missing)}; give --base, --cap and --budget, or --suite S "
                            f"--instance ID")
    if args.instance:
        raise HopbenchError("--instance goes with --suite S")
    base = parse_spec(args.base)
    budget = budget_value(args.budget, base.n, args.cap)
    return ShortcutProblem(base, args.cap, budget, args.objective or "aspl", args.family, base_spec=args.base)


def shortcut_solver(name: str, params: dict[str, str]) -> Any:
    """The solver ``--solver`` names; a mistyped or routing solver's error lists the shortcut solvers."""
    from hopbench import solvers
    from hopbench.harness.errors import HopbenchError
    from hopbench.harness.suggestions import did_you_mean
    from hopbench.solvers.contract.registry import BUILTIN, kinds_of

    if name in BUILTIN and "shortcut" in BUILTIN[name][1]:
        return solvers.create(name, **params)  # a shipped solver: import its module only, not every plug-in
    mine = solvers.names("shortcut")
    if name not in solvers.names():
        from hopbench.solvers.contract.registry import failures_note

        raise HopbenchError(f"unknown solver {name!r};{did_you_mean(name, mine)} shortcut solvers: {', '.join(mine)}"
                            f"{failures_note()}")
    if name not in mine:
        raise HopbenchError(f"solver {name} does not solve shortcut problems (it solves "
                            f"{', '.join(kinds_of(name))}); shortcut solvers: "
                            f"{', '.join(mine)}")
    return solvers.create(name, **params)


def run(args: argparse.Namespace) -> int:
    from hopbench.harness.documents import dumps

    solver = shortcut_solver(args.solver, parse_assignments(args.param))
    suite = None
    if args.suite is not None:
        problem, suite = instance_problem(args)
        fields = suite.by_id[args.instance].fields
    else:
        problem = shortcut_problem(args)
        fields = {"base": problem.base_spec, "cap": problem.degree_cap, "budget": problem.budget,
                  "objective": problem.objective, "family": problem.family}
    sandbox = dict(kind="shortcut", fields=fields)  # where a plug-in is run (run_solver)
    spec = problem.base_spec
    out = output_file(args.output, spec_file(spec), force=args.force) if args.output else None  # never over its base
    # a suite's instance runs under the suite's budget unless --time-limit says otherwise
    time_limit = args.time_limit if args.time_limit is not None or suite is None else suite.time_limit
    evaluations = suite.evaluations if suite is not None and args.time_limit is None else None
    if not args.json and sys.stderr.isatty():
        with LiveLine(sys.stderr, solver.name, lower_bound_of(problem)) as line:
            outcome = run_solver(solver, problem, args, on_report=line.report, on_start=line.start,
                                 on_reporter=line.watch, time_limit=time_limit, evaluations=evaluations, **sandbox)
    else:
        outcome = run_solver(solver, problem, args, time_limit=time_limit, evaluations=evaluations, **sandbox)
    # what is written and printed is what hopbench re-verified (the solver's own numbers were a hint)
    doc, metrics = rechecked("shortcut", problem, outcome.solution, solver.name)
    if outcome.interrupted:
        doc["interrupted"] = True  # the best found when Ctrl-C came, not what the budget would have given
    if out is not None:
        from hopbench.harness.outputs import write_output_file

        write_output_file(out, dumps(doc, indent=1) + "\n", force=args.force)
    if outcome.interrupted:
        print(interrupted_note(args.output, "solution"), file=sys.stderr)
    if args.json:
        print_json(doc)
        return INTERRUPTED_EXIT if outcome.interrupted else 0
    # inf stands for a disconnected graph
    value = {k: math.inf if metrics.get(k) is None else float(metrics[k]) for k in ("diameter", "aspl", "objective")}
    bound_diameter, bound_aspl = problem.lower_bounds()
    where = f"instance {args.instance} of {suite.name}: " if suite is not None else ""
    print(f"{solver.name} (seed {args.seed}) on {where}{spec}, cap {problem.degree_cap}, budget {problem.budget}, "
          f"objective {problem.objective}")
    print(f"shortcuts {len(doc['shortcuts'])}  diameter {fmt_number(value['diameter'])}  "
          f"ASPL {fmt_number(value['aspl'], 6)}  objective {fmt_number(value['objective'], 6)}")
    print(f"lower bounds: diameter {fmt_number(bound_diameter)}, ASPL {fmt_number(bound_aspl, 6)}"
          f"  |  elapsed {outcome.elapsed_s:.3f} s" + (f"  |  written to {args.output}" if args.output else ""))
    proof = proof_line(doc.get("extra") if isinstance(doc.get("extra"), dict) else {})
    if proof:
        print(f"{solver.name}: {proof}")
    return INTERRUPTED_EXIT if outcome.interrupted else 0


def proof_line(extra: dict[str, Any]) -> str:
    """What an exact solver says of its answer (``status``, ``bound``, ``gap`` in the solution's
    ``extra``, as milp reports them): ``status optimal  bound 2.85  gap 0.00%``; blank without them."""
    parts = []
    if extra.get("status") is not None:
        parts.append(f"status {extra['status']}")
    if isinstance(extra.get("bound"), (int, float)):
        parts.append(f"bound {fmt_number(float(extra['bound']), 6)}")
    elif "bound" in extra:
        parts.append("bound unknown")
    if isinstance(extra.get("gap"), (int, float)):
        gap = float(extra["gap"])
        parts.append(f"gap {100 * gap:.2f}%" if math.isfinite(gap) else "gap inf")
    elif "gap" in extra:
        parts.append("gap unknown")
    return "  ".join(parts)


def lower_bound_of(problem: Any) -> float | None:
    """The problem's lower bound on its objective, when it knows one (finite)."""
    try:
        value = float(problem.objective_lower_bound())
    except (AttributeError, TypeError, ValueError, ArithmeticError):
        return None
    return value if math.isfinite(value) else None


class LiveLine:
    """A single updating line on a terminal while a solver runs.

    Before :meth:`start` it says the solver is warming up (numba compiles its kernels,
    once per install); then the elapsed seconds, the incumbent's objective (the best
    value reported to :meth:`report`), the lower bound and how far above it the
    incumbent is, and the evaluations so far.  A background thread redraws it every ``interval`` seconds,
    reading the run's live evaluation count (:meth:`watch`), so the clock and the count move between
    improvements; reports redraw it at most every 0.1 s.  The line fits the terminal (:func:`fit`).
    Leaving the ``with`` block wipes the line.
    """

    def __init__(self, stream: TextIO, solver: str, lower_bound: float | None, *, clock: Any = time.perf_counter,
                 interval: float = 0.5, width: int | None = None) -> None:
        self.stream = stream
        self.solver = solver
        self.lower_bound = lower_bound
        self.clock = clock
        self.interval = interval
        self.width = width
        self.created = clock()
        self.started: float | None = None
        self.best: float | None = None
        self.evaluations = 0
        self.reporter: Any = None
        self._drawn = 0
        self._last = -math.inf
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> LiveLine:
        self.draw(force=True)
        if self.interval > 0:
            self._thread = threading.Thread(target=self._tick, daemon=True, name="hopbench-live-line")
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            if self._drawn:
                self.stream.write("\r" + " " * self._drawn + "\r")
                self.stream.flush()
            self._drawn = 0

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            self.draw(force=True)

    def start(self) -> None:
        """The warm-up is over; the solver's clock starts."""
        self.started = self.clock()
        self.draw(force=True)

    def watch(self, reporter: Any) -> None:
        """The run's reporter: its ``evaluations`` grow with every evaluation, not only on improvements."""
        self.reporter = reporter

    def report(self, point: Any) -> None:
        """The solver reported an improvement (a ``TracePoint``)."""
        value = float(point.value)
        if self.best is None or value < self.best:
            self.best = value
        self.evaluations = max(self.evaluations, int(point.evaluations))
        self.draw()

    def parts(self) -> list[tuple[str, str | None, int]]:
        """The line's parts in order, each ``(text, shorter text or None, rank)``: when the line is too
        wide, the shorter forms are used first, then parts are dropped, the highest rank first."""
        now = self.clock()
        if self.started is None:
            seconds = f"{now - self.created:.0f} s"
            return [(f"{self.solver}: warming up (numba compiles its kernels, once per install) {seconds}",
                     f"{self.solver}: warming up {seconds}", 0)]
        live = int(getattr(self.reporter, "evaluations", 0) or 0)
        self.evaluations = max(self.evaluations, live)
        best = "none yet" if self.best is None else fmt_number(self.best, 6)
        parts = [(f"{self.solver} {now - self.started:.1f} s", f"{self.solver} {now - self.started:.0f}s", 1),
                 (f"incumbent {best}", f"best {best}", 0)]
        if self.lower_bound is not None:
            bound = f"lower bound {fmt_number(self.lower_bound, 6)}"
            gap = None
            if self.best is not None and math.isfinite(self.best) and self.lower_bound > 0:
                gap = f"{100 * (self.best - self.lower_bound) / self.lower_bound:+.2f}%"
                bound += f" ({gap})"
            parts.append((bound, gap and f"{gap} over bound", 3))
        if self.evaluations:
            parts.append((f"{self.evaluations:,} evaluations", f"{self.evaluations:,} ev", 2))
        return parts

    def text(self, width: int = 1_000_000) -> str:
        return fit(self.parts(), width)

    def draw(self, force: bool = False) -> None:
        now = self.clock()
        if not force and now - self._last < 0.1:
            return
        with self._lock:
            if self._stop.is_set():  # the run is over (the line is being wiped)
                return
            self._last = now
            width = self.width if self.width is not None else _columns(self.stream)
            line = self.text(max(10, width - 1))  # a wrapped line could not be redrawn in place
            self.stream.write("\r" + line + " " * max(0, self._drawn - len(line)))
            self.stream.flush()
            self._drawn = len(line)


def fit(parts: list[tuple[str, str | None, int]] | str, width: int, sep: str = "  |  ") -> str:
    """Join ``parts`` (``(text, shorter text or None, rank)``, or one string) into at most ``width`` characters:
    first the tighter separator, then each part's shorter form (highest rank first), then dropping parts
    (highest rank first; rank 0 is kept); what is still too long becomes its last word when that is a number
    that fits (the incumbent's value), else is cut at a space and ends in "...": a number is never cut in the
    middle."""
    if isinstance(parts, str):
        parts = [(parts, None, 0)]
    texts = [text for text, _, _ in parts]
    kept = list(range(len(parts)))
    by_rank = sorted(range(len(parts)), key=lambda i: -parts[i][2])

    def line(separator: str) -> str:
        return separator.join(texts[i] for i in kept)

    if len(line(sep)) <= width:
        return line(sep)
    sep = " | "
    for i in by_rank:
        if len(line(sep)) <= width:
            return line(sep)
        if parts[i][1] is not None:
            texts[i] = parts[i][1]
    for i in by_rank:
        if len(line(sep)) <= width or parts[i][2] == 0 or len(kept) == 1:
            break
        kept.remove(i)
    text = line(sep)
    if len(text) <= width:
        return text
    last = text.rsplit(" ", 1)[-1]
    if len(last) <= width and any(c.isdigit() for c in last):
        return last
    cut = text[:max(0, width - 3)]
    cut = cut[:cut.rfind(" ")] if " " in cut else ""
    return (cut.rstrip(" |") + "...") if cut else text[:0]


def _columns(stream: TextIO) -> int:
    """The width of the terminal ``stream`` writes to (80 when it cannot tell)."""
    import os

    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 80
    return columns if columns > 0 else 80  # a pseudo-terminal may not know its size
