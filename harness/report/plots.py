"""Leaderboard plots (matplotlib, Agg: no display needed).

Three figures per suite, drawn from a :class:`~hopbench.harness.report.board.Board`:

``objective_vs_n.png``  mean objective (± 95% CI) against N, one panel per instance
                        group with at least two sizes (base topology and cap, or torus
                        dimension), one line per solver -- the layout of Fuad et al.
                        2022, Fig. 2; published values, where they give the objective,
                        as black crosses
``anytime.png``         best-so-far objective against wall time: median over seeds
                        (line) and quartiles (band), for the largest instance of each
                        group (at most six)
``winrate.png``         share of instances on which the row's solver has a strictly
                        lower mean objective than the column's

Figures are built with the object-oriented API on ``matplotlib.figure.Figure``
(never ``pyplot``), so nothing depends on or changes a global backend, and PNGs
are written without a software-version stamp so that re-running gives the same
bytes for the same data and matplotlib.  User text (suite, instance and group names, solver
labels with their parameters) goes through :func:`literal`, and figures are drawn with TeX off,
so a ``$`` in an id or a parameter is shown as it is, never parsed as mathtext.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from hopbench.harness.problems.registry import get_kind, is_maximised
from hopbench.harness.report.board import Board
from hopbench.harness.report.labels import display_label
from hopbench.harness.report.statistics import anytime_quantiles, win_rates

MAX_PANELS = 12
MAX_ANYTIME_PANELS = 6
DPI = 100


def literal(text: object) -> str:
    """User text for a matplotlib string: each ``$`` escaped, so mathtext never parses it (a ``$\\frac{`` in
    a parameter would otherwise stop the whole board with a parse error) and it is drawn as typed."""
    return str(text).replace("$", r"\$")


def _figure(nrows: int, ncols: int, width: float = 4.4, height: float = 3.3):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


def _save(fig, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, metadata={"Software": None})


def _colors(labels: list[str]) -> dict[str, Any]:
    """One colour per solver label, the same in every figure of a suite."""
    from matplotlib import colormaps

    cmap = colormaps["tab10" if len(labels) <= 10 else "tab20"]
    return {lab: cmap(k % cmap.N) for k, lab in enumerate(sorted(labels))}


def _grid_shape(count: int) -> tuple[int, int]:
    ncols = min(3, count)
    return math.ceil(count / ncols), ncols


def _hide_unused(axes, used: int) -> None:
    for ax in axes.flat[used:]:
        ax.set_visible(False)


def _labels(board: Board) -> list[str]:
    rows = board.rows
    return sorted({display_label(s, p) for s, p in zip(rows["solver"], rows["params"])})


def objective_vs_n_figure(board: Board):
    """The objective-vs-N figure, or None when no series has two sizes."""
    rows = board.rows[board.rows["runs"] > 0].copy()
    if rows.empty:
        return None
    rows["label"] = [display_label(s, p) for s, p in zip(rows["solver"], rows["params"])]
    rows["series"] = [board.facts[i].series for i in rows["instance"]]
    panels = []
    for series in dict.fromkeys(rows["series"]):
        g = rows[rows["series"] == series]
        if g["n"].nunique() >= 2:
            panels.append((series, g))
    if not panels:
        return None
    panels = panels[:MAX_PANELS]
    colors = _colors(_labels(board))
    fig, axes = _figure(*_grid_shape(len(panels)))
    refs = board.references
    for ax, (group, g) in zip(axes.flat, panels):
        # several instances of one size (e.g. 2x8 and 4x4 tori) make a line meaningless: markers only
        one_per_n = g.groupby("n")["instance"].nunique().max() == 1
        for label, s in g.groupby("label", sort=True):
            s = s[np.isfinite(s["mean"].astype(float))].sort_values("n")
            if s.empty:
                continue
            yerr = s["ci95"].astype(float).where(np.isfinite(s["ci95"].astype(float)), 0.0).fillna(0.0)
            ax.errorbar(s["n"], s["mean"].astype(float), yerr=yerr, label=literal(label), color=colors[label],
                        marker="o", markersize=3.5, capsize=2, linewidth=1.2 if one_per_n else 0,
                        elinewidth=0.8)
        pub = refs[refs["instance"].isin(g["instance"]) & refs["objective"].notna()]
        # a row that states a bound is no result anyone published
        pub = pub[[label not in get_kind(board.facts[i].kind).bound_labels for i, label in zip(pub["instance"], pub["label"])]]
        if len(pub):
            maximise = is_maximised(board.facts[g["instance"].iloc[0]].objective)
            best = pub.groupby("instance")["objective"].max() if maximise else pub.groupby("instance")["objective"].min()
            sizes = [board.facts[i].n for i in best.index]
            ax.scatter(sizes, best.values, marker="x", color="black", s=28, zorder=5, label="published (best)")
        ns = g["n"].astype(float)
        if ns.max() / max(ns.min(), 1.0) >= 16:
            ax.set_xscale("log", base=2)
        ax.set_title(literal(group), fontsize=10)
        ax.set_xlabel(get_kind(board.facts[g["instance"].iloc[0]].kind).size_label)
        ax.set_ylabel(literal(f"mean {board.facts[g['instance'].iloc[0]].objective}"))
        ax.grid(True, alpha=0.3)
    _hide_unused(axes, len(panels))
    handles, labels = {}, []
    for ax in axes.flat[:len(panels)]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in handles:
                handles[lab] = h
                labels.append(lab)
    width = fig.get_size_inches()[0]
    fig.legend([handles[lab] for lab in labels], labels, loc="outside lower center",
               ncols=max(1, min(len(labels), int(width / 1.8))), fontsize=8, frameon=False)
    fig.suptitle(f"{literal(board.suite)}: objective vs N (mean ± 95% CI over seeds)", fontsize=11)
    return fig


def _anytime_instances(board: Board) -> list[str]:
    """The largest instance (by N) of each group among those with finite traced values."""
    tr = board.traces
    finite = tr.loc[np.isfinite(tr["value"].astype(float)), "run_id"].unique()
    traced = set(board.runs.loc[board.runs["id"].isin(finite), "instance"])
    chosen = []
    for group in dict.fromkeys(board.rows["group"]):
        cands = [f for f in board.facts.values() if f.group == group and f.id in traced
                 and get_kind(f.kind).anytime]
        if cands:
            chosen.append(max(cands, key=lambda f: (f.n, -f.order)).id)
    return chosen[:MAX_ANYTIME_PANELS]


def log_ticks(lo: float, hi: float, most: int = 5) -> list[float]:
    """Major ticks of a log axis from ``lo`` to ``hi``: 1-2-5 steps, thinned to at most ``most``.

    Matplotlib's own log ticks label the minor ticks (2x10^-3, 3x10^-3, ...) when a panel
    spans less than a decade, and those labels run into each other; these ticks are few,
    and their plain labels (``0.002``, ``0.005``, ``0.01``) are short.
    """
    if not (0 < lo < hi) or not math.isfinite(hi):
        return []
    ticks = [m * 10.0 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
             for m in (1, 2, 5) if lo <= m * 10.0 ** e <= hi]
    for keep in ((1, 2, 5), (1, 5), (1,)):
        chosen = [t for t in ticks if round(t / 10.0 ** math.floor(math.log10(t) + 1e-9)) in keep]
        if len(chosen) <= most:
            break
    if len(chosen) > most:  # many decades: every k-th power of ten
        chosen = chosen[::math.ceil(len(chosen) / most)]
    if len(chosen) < 2:  # a range narrower than one 1-2-5 step: its ends and middle, to 2 digits
        rounded = [float(f"{t:.2g}") for t in np.geomspace(lo, hi, 3)]
        chosen = sorted({t for t in rounded if lo <= t <= hi}) or rounded[1:2]
    return chosen


def _log_time_axis(ax, lo: float, hi: float) -> None:
    """A log x axis from ``lo`` to ``hi`` seconds with :func:`log_ticks` and no minor labels."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    ax.xaxis.set_major_locator(FixedLocator(log_ticks(lo, hi)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.tick_params(axis="x", labelsize=8)


#: per-label marker and dash pattern of the anytime curves
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
_DASHES = ("-", "--", "-.", ":")


def anytime_figure(board: Board):
    """The anytime-curves figure, or None when no run has a finite trace point."""
    if board.traces.empty:
        return None
    instances = _anytime_instances(board)
    if not instances:
        return None
    colors = _colors(_labels(board))
    by_run = {int(r): g.sort_values("idx") for r, g in board.traces.groupby("run_id")}
    ok = board.runs[board.runs["status"] == "ok"]
    fig, axes = _figure(*_grid_shape(len(instances)))
    for ax, instance in zip(axes.flat, instances):
        runs = ok[ok["instance"] == instance]
        all_points = []
        for label, g in runs.groupby("label", sort=True):
            points = []
            for rid, end in zip(g["id"].astype(int), g["elapsed_s"].astype(float)):
                tr = by_run.get(rid)
                if tr is None:
                    points.append((np.array([]), np.array([]), end))
                    continue
                values = tr["value"].astype(float).fillna(np.inf).to_numpy()
                points.append((tr["elapsed_s"].astype(float).to_numpy(), values, end))
            all_points.append((label, points))
        times = [t for _, pts in all_points for p in pts for t in p[0] if t > 0]
        ends = [p[2] for _, pts in all_points for p in pts if np.isfinite(p[2])]
        if not times:
            ax.set_visible(False)
            continue
        lo = max(min(times) / 2, 1e-6)
        hi = max(max(ends or times), max(times)) * 1.05
        grid = np.geomspace(lo, hi, 200)
        for k, (label, pts) in enumerate(all_points):
            q = anytime_quantiles(pts, grid)
            mid = np.isfinite(q[1])
            if not mid.any():
                continue
            # curves that coincide (two solvers at the same value) stay visible: each label has its own marker
            # and dash pattern, markers placed at staggered grid points so they do not hide each other
            ax.step(grid[mid], q[1][mid], where="post", color=colors[label], label=literal(label), linewidth=1.3,
                    linestyle=_DASHES[k % len(_DASHES)], marker=_MARKERS[k % len(_MARKERS)], markersize=4,
                    markevery=(3 * k % 25, 25))
            band = np.isfinite(q[0]) & np.isfinite(q[2])
            if band.any():
                ax.fill_between(grid[band], q[0][band], q[2][band], step="post", color=colors[label], alpha=0.18,
                                linewidth=0)
        _log_time_axis(ax, lo, hi)
        fa = board.facts[instance]
        ax.set_title(literal(instance), fontsize=9)
        ax.set_xlabel("wall time (s)")
        ax.set_ylabel(literal(f"best {fa.objective} so far"))
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, frameon=False)
    _hide_unused(axes, len(instances))
    fig.suptitle(f"{literal(board.suite)}: anytime curves (median and quartiles over seeds)", fontsize=11)
    return fig


def winrate_figure(board: Board):
    """The win-rate matrix, or None with fewer than two solvers compared on a common instance."""
    labels, share, counts = win_rates(board.rows)
    if len(labels) < 2 or not (counts > 0).any():
        return None
    k = len(labels)
    from matplotlib.figure import Figure

    size = max(4.0, 0.55 * k + 2.5)
    fig = Figure(figsize=(size + 1.2, size), layout="constrained")
    ax = fig.subplots()
    masked = np.ma.masked_invalid(share)
    from matplotlib import colormaps

    cmap = colormaps["RdYlGn"].with_extremes(bad="#dddddd")
    im = ax.imshow(masked, cmap=cmap, vmin=0, vmax=1)
    for i in range(k):
        for j in range(k):
            if i != j and counts[i, j]:
                ax.text(j, i, f"{100 * share[i, j]:.0f}%", ha="center", va="center", fontsize=7)
    shown = [literal(lab) for lab in labels]
    ax.set_xticks(range(k), shown, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(k), shown, fontsize=8)
    ax.set_xlabel("loses (column)")
    ax.set_ylabel("wins (row)")
    fig.colorbar(im, ax=ax, shrink=0.8, label="share of common instances won")
    ax.set_title(f"{literal(board.suite)}: win rate (strictly lower mean objective)", fontsize=10)
    return fig


PLOTS = {"objective_vs_n": objective_vs_n_figure, "anytime": anytime_figure, "winrate": winrate_figure}


def make_plots(board: Board, out_dir: str | Path) -> dict[str, str]:
    """Draw every plot that has data into ``out_dir`` — the shared figures, then those of the problem
    kinds on the board (:meth:`~hopbench.harness.problems.kind.ProblemKind.plots`); returns ``name -> path``
    relative to the suite directory (``plots/<name>.png``).  Stale PNGs of plots without data are removed."""
    out = Path(out_dir)
    made: dict[str, str] = {}
    figures = dict(PLOTS)
    for kind in sorted({fa.kind for fa in board.facts.values()}):
        # a kind's own figures (e.g. a metric only it has), named after the kind so none collide
        figures.update({f"{kind}_{name}": draw for name, draw in get_kind(kind).plots().items()})
    from matplotlib import rc_context

    for name, draw in figures.items():
        target = out / f"{name}.png"
        # a user's matplotlibrc may turn TeX on: user text is plain text here, whatever it holds
        with rc_context({"text.usetex": False}):
            fig = draw(board)
            if fig is not None:
                _save(fig, target)
        if fig is not None:
            made[name] = f"{out.name}/{name}.png"
        elif target.exists():
            target.unlink()
    return made
