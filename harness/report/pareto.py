"""The Pareto view of a shortcut suite: hop count, throughput bound and cable length of every recorded solution.

For each ok run of a shortcut suite the solution is re-validated against its problem (nothing a store holds
is trusted) and measured three ways:

* **ASPL** (lower is better), by the distance engine;
* the **throughput bound** 1/L (higher is better): L is the busiest channel under uniform traffic and minimal
  routing (:mod:`hopbench.harness.engine.channel_load`, the ``channel-load`` objective);
* the **cable length** (lower is better): the mean switch-to-switch cable of Koibuchi et al. 2012 Sect. V-C's
  distributed layout (:func:`hopbench.harness.analysis.physical_cost.koibuchi_cable_length`).

Instances are grouped into *families* by their base graph (a budget or degree sweep on one base is one
family); within a family each solver's **front** is its set of non-dominated solutions over the three
measures.  :func:`write_pareto` writes ``pareto.csv`` (every point, with ``on_front``), ``pareto.md`` (the
front points per family and solver) and one figure per family (ASPL and cable length against the
throughput bound; in each panel a solver's front in that plane drawn as a line).
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any


from hopbench.harness.errors import HopbenchError

if TYPE_CHECKING:
    import pandas as pd

#: the columns of pareto.csv
COLUMNS = ["family", "instance", "solver", "params", "seed", "run_id", "n", "cap", "budget", "objective",
           "shortcuts", "aspl", "diameter", "channel_load", "throughput_bound", "cable_mean_m", "on_front"]


def dominates(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
    """``a`` is at least as good as ``b`` on every measure (ASPL down, throughput up, cable down) and better
    on one."""
    at_least = a[0] <= b[0] and a[1] >= b[1] and a[2] <= b[2]
    return at_least and (a[0] < b[0] or a[1] > b[1] or a[2] < b[2])


def front_mask(points: list[tuple[float, float, float]]) -> list[bool]:
    """True for each point no other point dominates (equal points are all on the front)."""
    return [not any(dominates(q, p) for q in points) for p in points]


def pareto_points(store: Any, suite_name: str) -> "pd.DataFrame":
    """One row per ok run of the suite's shortcut instances (:data:`COLUMNS`), fronts marked per family and
    solver.  Raises :class:`HopbenchError` when the suite has no such runs."""
    import pandas as pd

    from hopbench.harness.analysis.physical_cost import koibuchi_cable_length
    from hopbench.harness.engine.channel_load import max_channel_load
    from hopbench.harness.engine.summary import summary
    from hopbench.harness.problems.registry import get_kind

    runs = store.dataframe(suite=suite_name, with_solutions=True)
    runs = runs[(runs["status"] == "ok") & (runs["kind"] == "shortcut") & runs["study"].isna()]
    if runs.empty:
        raise HopbenchError(f"no ok shortcut runs of suite {suite_name!r} in this store; the Pareto view measures "
                            f"shortcut solutions (run the suite first, or pass the right --storage)")
    kind = get_kind("shortcut")
    rows = []
    for run in runs.itertuples(index=False):
        fields = run.instance_spec if isinstance(run.instance_spec, dict) else json.loads(run.instance_spec)
        problem = kind.build(fields)
        doc = run.solution if isinstance(run.solution, dict) else json.loads(run.solution or "{}")
        shortcuts = problem.validate(doc.get("shortcuts", []))  # re-validated: a store is not trusted
        g = problem.graph_with(shortcuts)
        s = summary(g)
        load = max_channel_load(g)
        rows.append({
            "family": str(problem.base_spec or fields.get("base")), "instance": run.instance, "solver": run.solver,
            "params": str(run.params_tag), "seed": int(run.seed), "run_id": int(run.id), "n": int(problem.n),
            "cap": int(problem.degree_cap), "budget": int(problem.budget), "objective": problem.objective,
            "shortcuts": int(len(shortcuts)), "aspl": float(s.aspl), "diameter": float(s.diameter),
            "channel_load": float(load),
            "throughput_bound": 0.0 if math.isinf(load) else (math.inf if load == 0 else 1.0 / load),
            "cable_mean_m": float(koibuchi_cable_length(g).mean_m), "on_front": False})
    df = pd.DataFrame(rows, columns=COLUMNS)
    for _, idx in df.groupby(["family", "solver"], sort=False).groups.items():
        pts = [(df.at[i, "aspl"], df.at[i, "throughput_bound"], df.at[i, "cable_mean_m"]) for i in idx]
        for i, on in zip(idx, front_mask(pts)):
            df.at[i, "on_front"] = on
    return df


def pareto_markdown(df: "pd.DataFrame", suite_name: str) -> str:
    """The front points of every family and solver, as markdown (user text neutralised as on boards)."""
    from hopbench.harness.report.markdown import md_text

    lines = [f"# Pareto view: {md_text(suite_name)}", "",
             "Every ok run's solution, re-validated and measured: ASPL (lower is better), the throughput bound "
             "1/L of minimal routing under uniform traffic (higher is better; L is the `channel-load` objective) "
             "and the mean cable length of Koibuchi et al. 2012's distributed layout (lower is better). Below, "
             "each solver's front per base graph: the solutions no other solution of that solver dominates on "
             f"all three. All {len(df)} points: [pareto.csv](pareto.csv).", ""]
    for family, fam in df.groupby("family", sort=False):
        lines += [f"## {md_text(family)}", "", f"![{md_text(family)}](pareto-{_slug(family)}.png)", "",
                  "| solver | objective | cap | budget | seed | ASPL | throughput bound | cable (m) |",
                  "|---|---|---|---|---|---|---|---|"]
        front = fam[fam["on_front"]].sort_values(["solver", "throughput_bound"])
        for r in front.itertuples(index=False):
            lines.append(f"| {md_text(r.solver)} | {r.objective} | {r.cap} | {r.budget} | {r.seed} | {r.aspl:.4f} | "
                         f"{r.throughput_bound:.4f} | {r.cable_mean_m:.2f} |")
        lines.append("")
    return "\n".join(lines)


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def pareto_figure(fam: "pd.DataFrame", family: str):
    """ASPL and cable length against the throughput bound.  In each panel a solver's line joins its points that
    no other of its points beats on both of that panel's measures (the front seen in that plane); the
    three-measure front is the CSV's ``on_front``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from hopbench.harness.report.plots import literal

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for k, (solver, g) in enumerate(fam.groupby("solver", sort=True)):
        color = f"C{k % 10}"
        for ax, col in zip(axes, ("aspl", "cable_mean_m")):
            ax.scatter(g["throughput_bound"], g[col], s=14, alpha=0.35, color=color)
            plane = front_mask([(y, x, 0.0) for x, y in zip(g["throughput_bound"], g[col])])
            front = g[plane].sort_values("throughput_bound")
            ax.plot(front["throughput_bound"], front[col], marker="o", ms=4, color=color, label=literal(solver))
    axes[0].set_ylabel("ASPL (hops)")
    axes[1].set_ylabel("mean cable length (m)")
    for ax in axes:
        ax.set_xlabel("throughput bound 1/L (flits/cycle/switch)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{literal(family)}: each solver's solutions (dots) and its front in each plane (lines)")
    fig.tight_layout()
    return fig


def write_pareto(df: "pd.DataFrame", suite_name: str, out: Path, *, plots: bool = True,
                 protect: dict[Path, str] | None = None, force: bool = False) -> dict[str, Path]:
    """Write pareto.csv, pareto.md and the figures into ``out`` (created); returns what was written.  No file
    is written when one of them would land on a path of ``protect`` (the command's inputs), or, unless
    ``force``, on a file hopbench did not write."""
    from hopbench.harness.outputs import check_ours, refuse_overwriting_inputs, write_output_file

    families = list(dict.fromkeys(df["family"]))
    targets = [out / "pareto.csv", out / "pareto.md"] + ([out / f"pareto-{_slug(str(f))}.png" for f in families]
                                                          if plots else [])
    for target in targets:
        refuse_overwriting_inputs(target, protect or {})
        if not force:
            check_ours(target)
    out.mkdir(parents=True, exist_ok=True)
    written = {"csv": out / "pareto.csv", "markdown": out / "pareto.md"}
    write_output_file(written["csv"], df.to_csv(index=False), force=force)
    write_output_file(written["markdown"], pareto_markdown(df, suite_name) + "\n", force=force)
    if plots:
        import io

        import matplotlib.pyplot as plt

        for family, fam in df.groupby("family", sort=False):
            fig = pareto_figure(fam, str(family))
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=110)
            plt.close(fig)
            path = out / f"pareto-{_slug(str(family))}.png"
            write_output_file(path, buf.getvalue(), force=force)
            written[f"plot {family}"] = path
    return written


__all__ = ["COLUMNS", "dominates", "front_mask", "pareto_markdown", "pareto_points", "write_pareto"]
