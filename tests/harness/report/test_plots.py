"""Leaderboard plots: what each figure draws comes from the board, PNGs are valid and reproducible."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from hopbench.harness.bench.store import Store
from hopbench.harness.report.board import build_board
from hopbench.harness.report.labels import display_label
from hopbench.harness.report.plots import anytime_figure, log_ticks, make_plots, objective_vs_n_figure, winrate_figure


@pytest.fixture(scope="module")
def board(tiny):
    return build_board(Store.open(tiny["url"]), "tiny", suite=tiny["suite"])


def test_written_pngs_are_images(tiny):
    from matplotlib.image import imread

    for name in ("objective_vs_n", "anytime", "winrate"):
        path = tiny["out"] / "tiny" / "plots" / f"{name}.png"
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        img = imread(path)
        assert img.shape[0] > 200 and img.shape[1] > 200


def test_objective_vs_n_draws_the_board_means(board):
    fig = objective_vs_n_figure(board)
    # only the ring series has several sizes (16, 25, 36); the torus, the empty graph and the routing
    # tori of one size per series get no panel
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["ring, cap 4, aspl"]
    rows = board.rows[board.rows["group"] == "ring, cap 4"]
    for line in panels[0].get_lines():
        label = line.get_label()
        if label.startswith("_"):
            continue  # error-bar parts
        mine = rows[[display_label(s, p) == label for s, p in zip(rows["solver"], rows["params"])]].sort_values("n")
        assert list(line.get_xdata()) == list(mine["n"])
        assert list(line.get_ydata()) == pytest.approx(list(mine["mean"]))


def test_objective_vs_n_needs_two_sizes(board):
    one = dataclasses.replace(board, rows=board.rows[board.rows["instance"] != "ring:25/cap4/b6/aspl"])
    assert objective_vs_n_figure(one) is not None
    only_torus = dataclasses.replace(board, rows=board.rows[board.rows["instance"].str.startswith("torus")])
    assert objective_vs_n_figure(only_torus) is None


def test_anytime_panels_are_the_largest_instance_per_group(board):
    fig = anytime_figure(board)
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible() and ax.get_title()]
    # the empty graph never has a finite value: no panel
    assert titles == ["torus:4x4/cap6/b4/golf", "torus:3x3/all", "torus:4x2x2/all", "ring:36/cap4/b9/aspl"]
    ring = next(ax for ax in fig.axes if ax.get_title() == "ring:36/cap4/b9/aspl")
    labels = {line.get_label() for line in ring.get_lines()}
    assert labels == {"random", "vrs"}
    # each median curve ends at the median of the runs' final values
    ok = board.runs[(board.runs.status == "ok") & (board.runs.instance == "ring:36/cap4/b9/aspl")]
    for line in ring.get_lines():
        final = ok[ok.label == line.get_label()]["objective"].median()
        assert line.get_ydata()[-1] == pytest.approx(final)


def _overlaps(boxes) -> list[tuple[int, int]]:
    return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if boxes[i].overlaps(boxes[j])]


def test_anytime_time_tick_labels_never_overlap(board):
    """Panels spanning less than a decade (the routing runs take milliseconds) got matplotlib's minor
    labels (2x10^-3, 3x10^-3, ...), which ran into each other; now a few plain 1-2-5 labels."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = anytime_figure(board)
    FigureCanvasAgg(fig)
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
    assert any(ax.get_title().endswith("/all") for ax in panels)  # the routing panels are drawn
    for ax in panels:
        lo, hi = ax.get_xlim()
        shown = [t for t in ax.xaxis.get_ticklabels(which="both")
                 if t.get_visible() and t.get_text() and lo <= t.get_position()[0] <= hi]
        assert shown, ax.get_title()
        assert not _overlaps([t.get_window_extent(renderer) for t in shown]), \
            (ax.get_title(), [t.get_text() for t in shown])


@pytest.mark.parametrize("lo, hi, expected", [
    (1.2e-3, 8e-3, [0.002, 0.005]),                    # under a decade: 1-2-5 steps, no minor labels
    (1.8e-3, 2.6e-2, [0.002, 0.005, 0.01, 0.02]),
    (6e-4, 2.3, [0.001, 0.01, 0.1, 1.0]),              # several decades: the powers of ten
    (1e-6, 100, [1e-6, 1e-4, 1e-2, 1.0, 100.0]),       # many: every other one
    (2.1e-3, 4.5e-3, [0.0021, 0.0031, 0.0045]),        # narrower than a step: the ends and the middle
])
def test_log_ticks(lo, hi, expected):
    assert log_ticks(lo, hi) == pytest.approx(expected)


def test_anytime_without_traces(board):
    empty = dataclasses.replace(board, traces=board.traces.iloc[0:0])
    assert anytime_figure(empty) is None


def test_winrate_matrix(board):
    fig = winrate_figure(board)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["angara-bfs", "dor", "random", "vrs"]
    img = ax.get_images()[0].get_array()
    means = board.rows.pivot_table(index="instance", columns="solver", values="mean")[["random", "vrs"]].dropna()
    assert len(means) == 5  # 3 rings, the torus and the empty graph (a tie: inf = inf)
    assert img[3, 2] == pytest.approx((means.vrs < means.random).mean())
    assert img[2, 3] == pytest.approx((means.random < means.vrs).mean())
    assert img[2, 3] + img[3, 2] == pytest.approx(4 / 5)
    assert np.ma.is_masked(img[0, 2])  # routing and shortcut solvers never meet
    single = dataclasses.replace(board, rows=board.rows[board.rows["solver"] == "vrs"])
    assert winrate_figure(single) is None


def test_make_plots_is_reproducible_and_drops_stale_files(tiny, board, tmp_path):
    made = make_plots(board, tmp_path / "plots")
    assert made == {n: f"plots/{n}.png" for n in ("objective_vs_n", "anytime", "winrate")}
    # the shared board's plots were drawn from another Board object of the same runs: same bytes
    for name, rel in made.items():
        assert (tmp_path / rel).read_bytes() == (tiny["out"] / "tiny" / rel).read_bytes(), name
    sparse = dataclasses.replace(board, traces=board.traces.iloc[0:0], rows=board.rows[board.rows["solver"] == "vrs"])
    again = make_plots(sparse, tmp_path / "plots")
    assert list(again) == ["objective_vs_n"]
    assert not (tmp_path / "plots" / "anytime.png").exists() and not (tmp_path / "plots" / "winrate.png").exists()
