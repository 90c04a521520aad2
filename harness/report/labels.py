"""How boards and plots name a row: parameter-set labels and run budgets.

The lowest module of the report package: plain functions over the runs'
``solver`` / ``params`` / ``params_tag`` / budget fields, importing nothing else
from ``harness``.
"""
from __future__ import annotations

import hashlib
import math
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


#: a number with a fraction or an exponent standing alone in a params tag (not inside a word or a hash)
_FLOAT = re.compile(r"(?<![\w.#])[-+]?(?:\d+\.\d*|\.\d+|\d+(?=[eE][-+]?\d))(?:[eE][-+]?\d+)?(?![\w.])")


def short_floats(tag: str) -> str:
    """A params tag with every float shown with at most 4 significant digits (``t0=0.003``).

    Tags recorded before the runner shortened them carry a tuned value's 17 digits,
    which made a run summary 200 characters wide; the exact values stay in the params JSON.
    """
    return _FLOAT.sub(lambda m: f"{float(m.group()):.4g}", tag)


def param_labels(runs: pd.DataFrame) -> dict[tuple[str, str], str]:
    """``(solver, params JSON) -> label``: the runner's params tag, floats shortened, made unique per solver.

    Two parameter sets share a tag when a solver's defaults changed between
    runs (both are tagged ``default``) or when their values differ only past the
    fourth significant digit; a short hash keeps their rows apart.
    """
    labels: dict[tuple[str, str], str] = {}
    for (solver, params), g in runs.groupby(["solver", "params"], sort=True):
        labels[(solver, params)] = short_floats(str(g["params_tag"].iloc[0]))
    by_label: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for key, tag in labels.items():
        by_label.setdefault((key[0], tag), []).append(key)
    for (_solver, tag), keys in by_label.items():
        if len(keys) > 1:
            for key in keys:
                labels[key] = f"{tag}#{hashlib.sha1(key[1].encode()).hexdigest()[:6]}"
    return labels


def budget_label(time_limit_s: Any, cell_key: str) -> str:
    """A run's budget as shown on boards: ``60s``, ``5s/2000ev``."""
    parts = []
    if time_limit_s is not None and not (isinstance(time_limit_s, float) and math.isnan(time_limit_s)):
        parts.append(f"{float(time_limit_s):g}s")
    match = re.search(r"\|e=(\d+)(?:\||$)", cell_key or "")
    if match:
        parts.append(f"{match.group(1)}ev")
    return "/".join(parts)


def with_budgets(runs: pd.DataFrame) -> pd.DataFrame:
    """Runs under different budgets are different rows: the budget joins the parameters.

    A cell's identity includes its time limit and evaluation budget, so the same
    parameters run at 10 s and at 60 s are two cells; averaging them together would
    mix two experiments.  Where a solver ran under several budgets, its labels show
    them (``default @10s``, ``default @60s``).
    """
    runs = runs.copy()
    runs["_budget"] = [budget_label(t, k) for t, k in zip(runs["time_limit_s"], runs["cell_key"])]
    # only where a solver ran under several budgets: elsewhere the label would be noise
    mixed = runs.groupby("solver")["_budget"].transform("nunique") > 1
    runs.loc[mixed, "params"] = runs.loc[mixed, "params"] + " @" + runs.loc[mixed, "_budget"]
    runs.loc[mixed, "params_tag"] = runs.loc[mixed, "params_tag"] + " @" + runs.loc[mixed, "_budget"]
    return runs.drop(columns="_budget")


def display_label(solver: str, params: str) -> str:
    """How plots name a (solver, params) row: ``solver @budget`` for default parameters."""
    if params == "default":
        return solver
    if params.startswith("default @"):
        return f"{solver} {params[len('default '):]}"
    return f"{solver} [{params}]"
