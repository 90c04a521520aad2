"""Latency against accepted traffic, drawn as Koibuchi et al. 2012 draw their Figs. 12-20.

One curve per simulation document (``hopbench.simulation/1``): x is the accepted load
(flits/cycle/host), y the mean packet latency (cycles, or ns when the document has a cycle time);
a saturated point is drawn hollow.  matplotlib's object-oriented API (never ``pyplot``); user text
(the network's name) goes in with mathtext off, so a ``$`` in a file name is shown, not parsed.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

DPI = 100


def latency_figure(docs: list[dict[str, Any]], *, title: str | None = None):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.0, 4.2), layout="constrained")
    ax = fig.subplots()
    ns = all(d.get("cycle_ns") for d in docs)
    for doc in docs:
        points = sorted((p for p in doc.get("points", []) if p.get("latency_mean") is not None),
                        key=lambda p: p["offered"])
        if not points:
            continue
        x = [p["accepted"] for p in points]
        y = [p["latency_mean"] * (doc["cycle_ns"] if ns else 1) for p in points]
        label = f"{doc.get('source', '?')}, {doc.get('routing', '?')}, {doc.get('pattern', '?')}"
        line, = ax.plot(x, y, marker="o", markersize=4, label=label)
        hollow = [(xi, yi) for xi, yi, p in zip(x, y, points) if p.get("saturated")]
        if hollow:
            ax.plot(*zip(*hollow), linestyle="none", marker="o", markersize=7, markerfacecolor="white",
                    markeredgecolor=line.get_color())
    ax.set_xlabel("accepted traffic (flits/cycle/host)")
    ax.set_ylabel("packet latency (ns)" if ns else "packet latency (cycles)")
    if title:
        ax.set_title(title).set_parse_math(False)
    legend = ax.legend(fontsize="small")
    for text in legend.get_texts():
        text.set_parse_math(False)
    ax.grid(alpha=0.3)
    return fig


def write_latency_plot(docs: list[dict[str, Any]], path: str | Path, *, title: str | None = None,
                       force: bool = False) -> None:
    """The latency figure as a PNG at ``path``, written as every output is (never through a link, nor over a
    file hopbench did not write unless ``force``: :func:`hopbench.harness.outputs.write_output_file`)."""
    import io

    from hopbench.harness.outputs import write_output_file

    fig = latency_figure(docs, title=title)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    write_output_file(path, buf.getvalue(), force=force)
