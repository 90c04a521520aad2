"""Distance-engine benchmark: hopbench vs rustworkx and scipy on the same graphs.

Prints, in one run, for random regular graphs (N, d) = (1024, 10), (4096, 12),
(8192, 16): our time for diameter + ASPL (bit-parallel all-sources BFS), our
time for the full distance matrix, ``rustworkx.distance_matrix`` and
``scipy.sparse.csgraph.shortest_path(unweighted=True)``, their ratios, and
the peak memory of our diameter + ASPL pass above the process baseline
(measured in a fresh child process).  Then the candidate-edge scoring cost at
N = 1024.  Then graphs of large diameter (rings and a torus, the bases of the
shortcut problem), where a BFS level visits only the neighbours of the
frontier: the same comparison for the full distance matrix.

Targets (issue 2): at (8192, 16) >= 50x rustworkx, >= 200x scipy, peak memory
<= 50 MB above baseline; candidate scoring <= 10 us per candidate at N = 1024.

Run:  python tests/benchmarks/bench_apsp.py [--quick]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

from hopbench import harness  # noqa: F401  (threading defaults before numba)
from hopbench.harness.engine import distances as metrics
from hopbench.harness.graphs.graph import Graph

SIZES = [(1024, 10), (4096, 12), (8192, 16)]
#: bases of large diameter: thousands of BFS levels with a small frontier each
WIDE = ["ring:4096", "ring:8192", "torus:64x64"]


def random_regular(n: int, d: int, seed: int) -> Graph:
    import networkx as nx

    g = nx.random_regular_graph(d, n, seed=seed)
    return Graph(n, np.array(list(g.edges()), dtype=np.int64))


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def reference_matrices(g: Graph) -> tuple[tuple[float, np.ndarray], tuple[float, np.ndarray]]:
    """(seconds, matrix) of rustworkx's ``distance_matrix`` and of scipy's unweighted ``shortest_path``."""
    import rustworkx as rx
    import scipy.sparse as sp
    from scipy.sparse.csgraph import shortest_path

    rg = rx.PyGraph()
    rg.add_nodes_from(range(g.n))
    rg.add_edges_from_no_data([tuple(e) for e in g.edges.tolist()])
    a = sp.coo_matrix((np.ones(g.m), (g.edges[:, 0], g.edges[:, 1])), shape=(g.n, g.n)).tocsr()
    return (best_of(lambda: rx.distance_matrix(rg), 1),
            best_of(lambda: shortest_path(a, directed=False, unweighted=True), 1))


def peak_memory_child(n: int, d: int) -> float:
    """MB of resident memory our summary() adds at its peak, in a fresh process."""
    code = f"""
import json, numpy as np
from hopbench.harness.engine import distances as metrics
from hopbench.harness.graphs.graph import Graph
import networkx as nx
g = Graph({n}, np.array(list(nx.random_regular_graph({d}, {n}, seed=1).edges())))
metrics.summary(Graph(64, [(i, (i + 1) % 64) for i in range(64)]))   # compile / load kernels first
g.csr
def status(key):
    for line in open('/proc/self/status'):
        if line.startswith(key):
            return int(line.split()[1]) / 1024
base = status('VmRSS:')
open('/proc/self/clear_refs', 'w').write('5')   # reset the peak (VmHWM) to the current RSS
metrics.summary(g)
print(json.dumps({{'base': base, 'peak': status('VmHWM:')}}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    doc = json.loads(out.strip().splitlines()[-1])
    return doc["peak"] - doc["base"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only the smallest size (a smoke run)")
    args = ap.parse_args()
    sizes = SIZES[:1] if args.quick else SIZES
    metrics.summary(random_regular(64, 4, 0))  # load the compiled kernels before timing
    metrics.distance_matrix(random_regular(64, 4, 0))
    print(f"{'N':>6} {'d':>3} | {'ours diam+ASPL':>14} {'ours matrix':>11} | {'rustworkx':>9} {'scipy':>8} | "
          f"{'x rustworkx':>11} {'x scipy':>8} | {'peak MB':>7} | diameter ASPL")
    for n, d in sizes:
        g = random_regular(n, d, seed=1)
        t_sum, s = best_of(lambda: metrics.summary(g), 5)
        t_mat, D = best_of(lambda: metrics.distance_matrix(g), 2)

        (t_rx, R), (t_sp, S) = reference_matrices(g)

        # all three must agree before any time is worth printing
        iu = np.triu_indices(n, 1)
        for ref in (R, S):
            vals = ref[iu]
            assert vals.max() == s.diameter and abs(vals.mean() - s.aspl) < 1e-9
        assert np.array_equal(D.astype(float), S)
        del R, S, D

        mem = peak_memory_child(n, d)
        print(f"{n:>6} {d:>3} | {t_sum * 1e3:>11.1f} ms {t_mat * 1e3:>8.1f} ms | {t_rx:>8.2f}s {t_sp:>7.2f}s | "
              f"{t_rx / t_sum:>10.0f}x {t_sp / t_sum:>7.0f}x | {mem:>7.1f} | {s.diameter:.0f} {s.aspl:.6f}")
        print(f"{'':>10} | full matrix vs rustworkx {t_rx / t_mat:.1f}x, vs scipy {t_sp / t_mat:.1f}x")

    from hopbench.harness.graphs.topologies import parse_spec

    print(f"{'base':>12} | {'ours diam+ASPL':>14} {'ours matrix':>11} | {'rustworkx':>9} {'scipy':>8} | "
          f"{'matrix x rustworkx':>18} {'x scipy':>8} | diameter")
    for warm in ("mesh:8x130", "ring:1100"):  # the queue BFS's kernels, for one- and two-byte matrices
        metrics.distance_matrix(parse_spec(warm))
    for spec in WIDE[:1] if args.quick else WIDE:
        g = parse_spec(spec)
        t_sum, s = best_of(lambda: metrics.summary(g), 2)
        t_mat, D = best_of(lambda: metrics.distance_matrix(g), 1)
        (t_rx, R), (t_sp, S) = reference_matrices(g)
        assert np.array_equal(D.astype(float), S) and np.array_equal(R, S) and S.max() == s.diameter
        del R, S, D
        print(f"{spec:>12} | {t_sum * 1e3:>11.1f} ms {t_mat * 1e3:>8.1f} ms | {t_rx:>8.2f}s {t_sp:>7.2f}s | "
              f"{t_rx / t_mat:>17.1f}x {t_sp / t_mat:>7.1f}x | {s.diameter:.0f}")

    # candidate scoring: exact (total, unreachable, diameter) after each candidate edge
    g = random_regular(1024, 10, seed=2)
    state = metrics.DistanceState.from_graph(g)
    rng = np.random.default_rng(0)
    xs, ys = rng.integers(0, 1024, 20000), rng.integers(0, 1024, 20000)
    state.score(xs[:16], ys[:16])
    t, _ = best_of(lambda: state.score(xs, ys), 3)
    print(f"candidate scoring, random regular N=1024 d=10: {t / len(xs) * 1e6:.2f} us per candidate "
          f"(batch of {len(xs)})")


if __name__ == "__main__":
    main()
