"""The traffic board's figure: latency against accepted traffic, one panel per size and pattern.

As Koibuchi et al. 2012 draw their Figs. 12-20: in each panel (switch count, traffic pattern) one
curve per instance (network and routing), from the best run of the instance's first-ranked row;
the points are the run's zero-load point and its latency curve (offered at fractions of its
saturation throughput), as recorded in its metrics.  matplotlib's object-oriented API only; user
text goes in with mathtext off.
"""
from __future__ import annotations

import json
import math
from typing import Any

#: at most this many panels (size x pattern) in one figure
MAX_PANELS = 12


def _curve(metrics_text: Any) -> list[list[float]]:
    try:
        metrics = json.loads(metrics_text) if isinstance(metrics_text, str) else {}
    except json.JSONDecodeError:
        return []
    curve = metrics.get("curve") if isinstance(metrics, dict) else None
    if not isinstance(curve, list):
        return []
    return [p for p in curve if isinstance(p, list) and len(p) == 3
            and all(isinstance(x, (int, float)) and math.isfinite(x) for x in p)]


def _short(network: str) -> str:
    """A network's name for a legend: a spec as it is, a file by its name without folders and suffixes."""
    if "/" not in network and not network.endswith((".json", ".gz", ".edges", ".txt")):
        return network
    name = network.rsplit("/", 1)[-1]
    for suffix in (".gz", ".json", ".edges", ".txt"):
        name = name.removesuffix(suffix)
    return name


def latency_curves_figure(board: Any):
    """The figure, or None when no traffic run recorded a curve."""
    from matplotlib.figure import Figure

    rows = board.rows
    runs = board.runs.set_index("id") if len(board.runs) else board.runs
    panels: dict[tuple[int, str], list[tuple[str, list[list[float]]]]] = {}
    for instance, g in rows.groupby("instance", sort=False):
        fa = board.facts.get(instance)
        if fa is None or fa.kind != "traffic":
            continue
        first = g.sort_values("rank", na_position="last").iloc[0]
        if first["best_run_id"] is None or (isinstance(first["best_run_id"], float) and math.isnan(first["best_run_id"])):
            continue
        try:
            curve = _curve(runs.loc[int(first["best_run_id"]), "metrics"])
        except (KeyError, TypeError, ValueError):
            continue
        if not curve:
            continue
        pattern = fa.series.rsplit(", ", 1)[-1]
        network, _, routing = instance.split(";", 1)[0].rpartition(f"/{pattern}/")
        label = f"{_short(network)}, {routing}"
        panels.setdefault((fa.n, pattern), []).append((label, sorted(curve)))
    if not panels:
        return None
    keys = sorted(panels)[:MAX_PANELS]
    cols = min(3, len(keys))
    rows_n = -(-len(keys) // cols)
    fig = Figure(figsize=(4.6 * cols, 3.6 * rows_n), layout="constrained")
    axes = fig.subplots(rows_n, cols, squeeze=False)
    for ax, key in zip(axes.flat, keys):
        lowest = min(p[2] for _, curve in panels[key] for p in curve)
        for label, curve in panels[key]:
            x = [p[1] for p in curve]
            y = [p[2] for p in curve]
            ax.plot(x, y, marker="o", markersize=3, linewidth=1.2, label=label)
        # past the knee latencies grow without bound: show the curves up to 5x the lowest latency
        ax.set_ylim(0, 5 * lowest)
        ax.set_title(f"{key[0]} switches, {key[1]}", fontsize=10).set_parse_math(False)
        ax.set_xlabel("accepted traffic (flits/cycle/host)")
        ax.set_ylabel("latency (cycles)")
        ax.grid(True, alpha=0.3)
        legend = ax.legend(fontsize=6, loc="upper left")
        for text in legend.get_texts():
            text.set_parse_math(False)
    for ax in list(axes.flat)[len(keys):]:
        ax.set_visible(False)
    return fig
