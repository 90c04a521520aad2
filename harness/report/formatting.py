"""Table cells shared by the markdown board and the site: number, gap and time formats, a row's
failed cells in words, the metric columns of a kind (means; differences to reference points only where
some row has one), and where published reference rows go.

Both show every row of the board, also one whose every cell the solver declined (its
*Failed* column then says e.g. ``2 declined``).

Both renderers call these on plain row dicts (a board's rows, or ``board.csv``
read back), so the markdown board and the site show the same values.
"""
from __future__ import annotations

import math
import re
from typing import Any, Callable, Iterable

from hopbench.harness.problems.kind import MetricColumn
from hopbench.harness.problems.registry import get_kind
from hopbench.harness.problems.registry import kind_of_objective as get_kind_of_objective


#: a spreadsheet takes a cell that begins with one of these for a formula (or a command, via DDE)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: Any) -> Any:
    """A text cell a spreadsheet will show as text: one that begins with a formula character (after any
    quotes) gets a leading ``'``.  Numbers and other values are returned unchanged, so a negative number
    stays a number; :func:`csv_unsafe` reads the text back."""
    if isinstance(value, str) and value.lstrip("'").startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_unsafe(value: Any) -> Any:
    """The text :func:`csv_safe` was given (for the site, which reads ``board.csv`` back)."""
    if isinstance(value, str) and value.startswith("'") and value.lstrip("'").startswith(FORMULA_STARTS):
        return value[1:]
    return value


def csv_safe_frame(frame: Any) -> Any:
    """A DataFrame whose text cells are :func:`csv_safe` (number columns untouched), for ``to_csv``."""
    from pandas.api.types import is_object_dtype, is_string_dtype

    out = frame.copy()
    for col in out.columns:
        if is_object_dtype(out[col]) or is_string_dtype(out[col]):
            out[col] = out[col].map(csv_safe)
    return out


def is_missing(x: Any) -> bool:
    """Whether a cell is blank: None, NaN or pandas' NA."""
    if x is None:
        return True
    try:
        import pandas as pd

        return bool(pd.isna(x))
    except (TypeError, ValueError):
        return False


def fmt_num(x: Any, digits: int = 4) -> str:
    """A value for a table cell: blank when missing, integers without decimals."""
    if is_missing(x):
        return ""
    x = float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.{digits}f}".rstrip("0").rstrip(".")


def fmt_gap(x: Any) -> str:
    """A relative gap as a signed percentage."""
    if is_missing(x):
        return ""
    x = float(x)
    if math.isinf(x):
        return "inf"
    return f"{100 * x:+.2f}%"


def fmt_time(x: Any) -> str:
    """A wall time in seconds, three significant digits."""
    return "" if is_missing(x) else f"{float(x):.3g}"


#: a row's other cells in words: (board column, one, several); a declined cell is recorded ``skipped``
FAILED_WORDS = (("errors", "error", "errors"), ("timeouts", "timeout", "timeouts"),
                ("skipped", "declined", "declined"))


def fmt_failed(rec: dict[str, Any]) -> str:
    """A row's cells that gave no result, in words (``1 error, 2 timeouts, 2 declined``); blank when none."""
    parts = [f"{n} {one if n == 1 else several}" for k, one, several in FAILED_WORDS if (n := int(rec[k]))]
    return ", ".join(parts)


def metric_columns(kind: str, rows: Iterable[dict[str, Any]] = ()) -> list[MetricColumn]:
    """The metric columns a table of a kind's ``rows`` shows beside the objective: every mean, and a
    difference to a reference point (:attr:`MetricColumn.minus`) only when one of the rows has a value
    in it (so boards and groups without that reference point grow no blank column)."""
    rows = list(rows)
    return [c for c in get_kind(kind).metric_columns
            if c.minus is None or any(not is_missing(r.get(c.column)) for r in rows)]


def natural_key(text: Any) -> tuple:
    """A sort key that reads the numbers in a name as numbers: ``ring, cap 4`` before ``ring, cap 11``
    (a plain string sort puts ``11`` first, and the order of first appearance is the suite file's)."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part.lower())
                 for part in re.split(r"(\d+)", str(text)) if part)


def metric_columns_by_group(records: list[dict[str, Any]], kind_of: Callable[[dict[str, Any]], str]
                            ) -> dict[str, list[MetricColumn]]:
    """Each group's metric columns (:func:`metric_columns` of the group's rows), groups in
    :func:`natural_key` order; ``kind_of`` names the problem kind of a row."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault(r["group"], []).append(r)
    return {group: metric_columns(kind_of(groups[group][0]), groups[group]) for group in sorted(groups, key=natural_key)}


def params_with_budget(rec: dict[str, Any]) -> str:
    """A row's parameter label with its budget (``default @600s``): a 600 s row beside 60 s rows must say so.
    Labels that carry a budget already (a solver run under several) and rows without one stay as they are."""
    label = str(rec.get("params") or "")
    budget = rec.get("budget")
    if is_missing(budget) or not budget or " @" in label:
        return label
    return f"{label} @{budget}"


#: below this many ok runs a 95% CI is marked: with 2 seeds Student's t(0.975, 1) = 12.7, so the interval
#: rests on one difference and is very wide
FEW_SEEDS = 3


def few_seeds_note(rec: dict[str, Any]) -> str:
    """``(2 seeds)`` beside a row's 95% CI when it rests on fewer than :data:`FEW_SEEDS` runs; else ''."""
    runs = rec.get("runs")
    if is_missing(rec.get("ci95")) or is_missing(runs) or int(runs) >= FEW_SEEDS:
        return ""
    return f"({int(runs)} seeds)"


def drop_empty_columns(heads: list[Any], rows: list[list[str]], empty: Callable[[str], bool]) -> tuple[list, list]:
    """The table without the columns whose every cell is ``empty`` (a suite without optima has no Gap
    opt. column, a board of single-seed rows no CI column)."""
    keep = [j for j in range(len(heads)) if not all(empty(row[j]) for row in rows)] if rows else list(range(len(heads)))
    return [heads[j] for j in keep], [[row[j] for j in keep] for row in rows]


def fmt_diff(x: Any, digits: int = 4) -> str:
    """A difference in a metric's own unit (k - K, l - L): signed, ``digits`` decimals, integers without
    them; ``0`` and a value that rounds to zero carry no sign."""
    if is_missing(x) or math.isinf(float(x)):
        return fmt_num(x)  # blank, or inf / -inf
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return "0" if x == 0 else f"{int(x):+d}"
    text = f"{x:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def fmt_metric(column: MetricColumn, x: Any) -> str:
    """A metric column's cell in one of our rows: a mean as a number, a difference signed."""
    return fmt_num(x, column.digits) if column.minus is None else fmt_diff(x, column.digits)


def reference_metric(column: MetricColumn, ref: dict[str, Any]) -> str:
    """A metric column's cell in a published reference row: the row's own value of a mean's metric; blank
    under a difference."""
    return fmt_num(ref.get(column.metric)) if column.minus is None else ""


def names_metric(rec: dict[str, Any]) -> bool:
    """Whether a row's published gap compares a metric other than the objective (then it is named)."""
    metric = rec.get("published_metric")
    if metric in (None, "objective") or is_missing(metric):
        return False
    return not get_kind_of_objective(rec.get("objective_name")).metric_is_objective(metric, rec.get("objective_name"))


def reference_label(ref: dict[str, Any]) -> str:
    """How a published reference row is named: ``† label — source``."""
    return f"† {ref.get('label') or 'published'} — {ref.get('source') or 'published'}"


def interleave(rows: list[dict[str, Any]], refs: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """One instance's rows with its published reference rows placed right after the (first) row of
    the solver they correspond to; references without a matching row close the block."""
    out: list[tuple[str, dict[str, Any]]] = []
    placed: set[int] = set()
    seen: set[str] = set()
    for rec in rows:
        out.append(("ours", rec))
        if rec["solver"] in seen:
            continue
        seen.add(rec["solver"])
        for k, ref in enumerate(refs):
            if k not in placed and ref.get("solver") == rec["solver"]:
                out.append(("published", ref))
                placed.add(k)
    out.extend(("published", ref) for k, ref in enumerate(refs) if k not in placed)
    return out


#: what each column of a board's tables means (markdown emphasis; the site strips it), by header; the site
#: splits the mean and its CI into two columns that share one sentence.  ``{bounds}`` is filled with what the
#: lower bound is for the kinds on the board (:attr:`ProblemKind.lower_bound_meaning`)
COLUMN_SENTENCES = {
    "Params": "*Params* ends with the cell's budget (`@60s`: its time limit; `/2000ev`: an evaluation budget).",
    "Runs": "*Runs*: ok runs (seeds) in the statistics.",
    "Failed": "*Failed*: cells that ended in an error or a timeout, or that the solver declined (a row whose every "
              "cell was declined has no statistics); the reason a solver gave for declining is a note under its "
              "table (*d1*, *d2*, ...).",
    "Mean ± 95% CI": "*Mean ± 95% CI*: mean objective over the ok runs ± the half-width of the Student-t 95% "
                     "confidence interval (blank for one run; marked *(2 seeds)* when it rests on two runs, where "
                     "t = 12.7 makes it very wide).",
    "Best": "*Best*: the best run's objective, linked to its solution file (`hopbench verify FILE` re-checks it).",
    "Median time (s)": "*Median time (s)*: median wall time of the ok runs.",
    "Gap LB": "*Gap LB*: (mean − lower bound) / lower bound, the bound being {bounds}.",
    "Gap opt.": "*Gap opt.*: to the proven optimum.",
    "Gap b.k.": "*Gap b.k.*: to the suite's best-known value.",
    "Gap pub.": "*Gap pub.*: our mean of the compared metric (named in brackets when it is not the objective) "
                "against the best published value of that metric.",
    "Rank": "*Rank*: by mean objective per instance, ties share a rank.",
}
COLUMN_SENTENCES["Mean"] = COLUMN_SENTENCES["± 95% CI"] = COLUMN_SENTENCES["Mean ± 95% CI"]


def column_legend(heads: Iterable[str], metrics: Iterable[MetricColumn] = (), *, bounds: Iterable[str] = (),
                  published: bool = False) -> str:
    """The legend of a board's tables: a sentence for each column they show (``heads``, the headers left after
    :func:`drop_empty_columns`, of every table), in order, then the shown ``metrics`` columns' own legends, so
    a board never explains a column it does not have (the traffic board has no *Gap LB*).  ``bounds``: what
    the lower bound is on the rows with a *Gap LB*; ``published``: whether rows marked † are shown."""
    heads = list(dict.fromkeys(heads))
    meanings = list(dict.fromkeys(b for b in bounds if b)) or ["the instance's lower bound on the objective"]
    bound_text = meanings[0] if len(meanings) == 1 else "; ".join(meanings[:-1]) + "; or " + meanings[-1]
    parts = ["**Columns.**"]
    parts += list(dict.fromkeys(COLUMN_SENTENCES[h].format(bounds=bound_text) for h in heads if h in COLUMN_SENTENCES))
    parts += list(dict.fromkeys(c.legend for c in metrics if c.legend and c.header in heads))
    if published:
        parts.append("Rows marked † are the papers' published values, not our runs.")
    parts.append("A column that is blank in every row of a table is left out.")
    return " ".join(parts)


def declined_reasons(rec: dict[str, Any]) -> list[str]:
    """A board row's reasons for declining (``declined_reasons`` of ``board.csv``, a JSON list): [] when it
    declined nothing, or when the cell is missing (a board written before the column) or not such a list."""
    import json

    text = rec.get("declined_reasons")
    if is_missing(text) or not isinstance(text, str) or not text:
        return []
    try:
        reasons = json.loads(text)
    except ValueError:
        return [text]  # not the list the board writes: shown as it is rather than lost
    return [str(r) for r in reasons] if isinstance(reasons, list) else [str(reasons)]


def declined_note(rec: dict[str, Any]) -> str:
    """The note under a table that says why a row's solver declined its instance (plain text, whole):
    ``milp (default @120s) on ring:64/cap10/b16/aspl: the model would have ...``; blank when it declined
    nothing."""
    reasons = declined_reasons(rec)
    if not reasons:
        return ""
    return f"{rec['solver']} ({params_with_budget(rec)}) on {rec['instance']}: {' / '.join(reasons)}"
