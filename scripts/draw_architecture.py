"""Draw docs/architecture.png: hopbench's layers and the imports between them.

The picture is generated from the code, not drawn by hand: the layers are those of
the layers contract (``tests/test_architecture.py``) and every arrow is counted from
the import statements of the package (top-level and inside functions).  Run from the
repository root after moving or adding a package::

    python scripts/draw_architecture.py
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_architecture import GRAPH, LAYERS, MODULES, _layer  # noqa: E402

#: what each layer is for, one line (docs/architecture.md says more)
PURPOSE = [
    "version, errors, threading defaults, JSON documents; import names and the deprecated aliases",
    "Graph, topology generators and specs, edge lists, Moore/Cerf bounds",
    "distance engine: bit-parallel APSP, incremental and dynamic distances",
    "problem kinds (registry; shortcut with Equality, routing)",
    "analyses of a network: fault tolerance, physical cost; traffic: simulator, routing, bounds, the traffic kind",
    "solver contract: Solver, Param, budget, reporter, execution, registry, warm-up",
    "solver backends: shortcut/, routing/ and traffic/ (the simulator)",
    "benchmarks: suites, cells, sandbox, runner, results store, tuning",
    "the shipped conformance suite",
    "leaderboards: facts, statistics, markdown, plots, site, exports",
    "the hopbench command",
    "import hopbench: the public Python API (a facade over every layer)",
]


def _label(prefixes: tuple[str, ...]) -> str:
    if prefixes[0] == "hopbench.harness":
        return "harness root: errors, _threading, _paths, documents"
    shown = [p.removeprefix("hopbench.") for p in prefixes if p not in ("hopbench.harness", "hopbench.solvers")]
    return ", ".join(shown) or prefixes[0].removeprefix("hopbench.")


def main() -> None:
    from matplotlib import colormaps
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyBboxPatch

    k = len(LAYERS)
    modules = Counter(_layer(m) for m in MODULES)
    edges = Counter((_layer(m), _layer(t)) for m, targets in GRAPH.items() for t in targets)
    fig = Figure(figsize=(13, 0.62 * k + 1.6))
    left = fig.add_axes((0.0, 0.02, 0.5, 0.9))
    left.set_xlim(0, 6)
    left.set_ylim(-0.5, k - 0.5)
    left.axis("off")
    for i, prefixes in enumerate(LAYERS):
        left.add_patch(FancyBboxPatch((0.15, i - 0.36), 5.7, 0.72, boxstyle="round,pad=0.02", facecolor="#e8eef7",
                                      edgecolor="#4a6fa5"))
        left.text(0.3, i + 0.12, f"{i}  {_label(prefixes)}", fontsize=9, weight="bold", va="center")
        left.text(0.55, i - 0.17, f"{PURPOSE[i]}  ({modules[i]} modules)", fontsize=7.5, va="center", color="#333")
        if i:
            left.annotate("", xy=(5.6, i - 0.38), xytext=(5.6, i - 0.62), arrowprops={"arrowstyle": "<-", "lw": 0.8})
    left.set_title("layers, lowest at the bottom: a module imports only its own layer and those below",
                   fontsize=9, loc="left", x=0.03)
    # the import matrix: rows import columns; everything sits on or below the diagonal
    right = fig.add_axes((0.56, 0.12, 0.42, 0.75))
    import numpy as np

    m = np.zeros((k, k))
    for (src, dst), n in edges.items():
        m[src, dst] = n
    shown = np.ma.masked_where(m == 0, m)
    right.imshow(shown, cmap=colormaps["Blues"], origin="lower", vmin=0, vmax=max(1.0, float(m.max())))
    for (src, dst), n in edges.items():
        right.text(dst, src, str(n), ha="center", va="center", fontsize=7,
                   color="white" if n > 0.6 * m.max() else "black")
    right.set_xticks(range(k), [str(i) for i in range(k)], fontsize=8)
    right.set_yticks(range(k), [str(i) for i in range(k)], fontsize=8)
    right.set_xlabel("imported layer", fontsize=8)
    right.set_ylabel("importing layer", fontsize=8)
    upward = int(np.triu(m, 1).sum())
    right.set_title(f"module pairs importing each other by layer ({upward} above the diagonal)", fontsize=9)
    out = ROOT / "docs" / "architecture.png"
    fig.savefig(out, dpi=110, metadata={"Software": None})
    print(f"wrote {out.relative_to(ROOT)}: {len(MODULES)} modules, {sum(edges.values())} imports, {upward} upward")


if __name__ == "__main__":
    main()
