"""Speed of the maximum-concurrent-flow LP per backend (a script, not a timed test).

Solves the all-to-all throughput LP (one unit per ordered switch pair) of each instance with each
backend and prints the solve time (wall and process CPU: the CPU time is the steadier number on a
shared machine), the build time, the bound, its relative difference from the first solved
backend's, and each backend's time as a ratio to the fastest.  The defaults are three 256-switch
instances (torus:16x16, a random 6-regular graph, ring:256 plus a random perfect matching of
shortcuts) with HiGHS and PDLP, each stopped at --time-limit (100 s): at most 10 minutes.

    python tests/benchmarks/bench_throughput_lp.py
    python tests/benchmarks/bench_throughput_lp.py --instances torus:12x12,rrg:144:6,ringmatch:144 \
        --backends highs,highs-default,highs-scipy,pdlp --time-limit 200
    python tests/benchmarks/bench_throughput_lp.py --instances torus:16x16,hypercube:8 --backends highs,glop,pdlp

Backend names here: ``highs`` (highspy, interior point with bounds.HIGHS_IPM_OPTIONS), ``highs-default``
(the same with HiGHS's default options: presolve, crossover), ``highs-simplex`` (highspy, dual simplex),
``highs-scipy`` (scipy.optimize.linprog's bundled HiGHS, interior point), ``glop``, ``pdlp``.
Instance names: any topology spec, ``rrg:N:D`` (networkx random D-regular graph, seed 1) and
``ringmatch:N`` (ring:N plus a random perfect matching of chords, seed 1).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402

from hopbench.harness.engine.summary import summary  # noqa: E402
from hopbench.harness.graphs.graph import Graph  # noqa: E402
from hopbench.harness.graphs.topologies import parse_spec, ring  # noqa: E402
from hopbench.harness.traffic import bounds  # noqa: E402

DEFAULT_INSTANCES = "torus:16x16,rrg:256:6,ringmatch:256"
DEFAULT_BACKENDS = "highs,pdlp"


def instance(name: str) -> Graph:
    kind, _, rest = name.partition(":")
    if kind == "rrg":
        n, d = (int(x) for x in rest.split(":"))
        g = nx.random_regular_graph(d, n, seed=1)
        return Graph(n, np.array(g.edges(), dtype=np.int64))
    if kind == "ringmatch":
        n = int(rest)
        rng = np.random.default_rng(1)
        while True:  # a perfect matching of chords that repeats no ring link
            pairs = rng.permutation(n).reshape(-1, 2)
            gap = np.abs(pairs[:, 0] - pairs[:, 1])
            if ((gap != 1) & (gap != n - 1)).all():
                return ring(n).with_edges(pairs)
    return parse_spec(name)


def run(graph: Graph, demand: np.ndarray, backend: str, time_limit: float) -> tuple[bounds.FlowBound, float]:
    """The bound and the process CPU seconds it took (steadier than wall time on a shared machine)."""
    cpu = time.process_time()
    result = _run(graph, demand, backend, time_limit)
    return result, time.process_time() - cpu


def _run(graph: Graph, demand: np.ndarray, backend: str, time_limit: float) -> bounds.FlowBound:
    if backend == "highs-simplex":
        with mock.patch.object(bounds, "HIGHS_METHOD", "simplex"):
            return bounds.max_concurrent_flow(graph, demand, backend="highs", time_limit=time_limit)
    if backend == "highs-default":
        with mock.patch.object(bounds, "HIGHS_IPM_OPTIONS", {}):
            return bounds.max_concurrent_flow(graph, demand, backend="highs", time_limit=time_limit)
    if backend == "highs-scipy":
        with mock.patch.object(bounds, "_highspy", lambda: None):
            return bounds.max_concurrent_flow(graph, demand, backend="highs", time_limit=time_limit)
    return bounds.max_concurrent_flow(graph, demand, backend=backend, time_limit=time_limit)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", default=DEFAULT_INSTANCES)
    ap.add_argument("--backends", default=DEFAULT_BACKENDS)
    ap.add_argument("--time-limit", type=float, default=100.0, help="seconds per solve (default 100)")
    args = ap.parse_args()
    backends = args.backends.split(",")
    start = time.perf_counter()
    rows = []
    for name in args.instances.split(","):
        g = instance(name)
        n = g.n
        demand = np.ones((n, n)) - np.eye(n)
        closed = 2 * g.m / (n * (n - 1) * summary(g).aspl)  # exact on edge-transitive graphs, else an upper bound
        variables, constraints = bounds.lp_size(g, demand)
        print(f"\n{name}: n={n} m={g.m}  LP {variables:,} variables x {constraints:,} rows; "
              f"capacity/(pairs x ASPL) = {closed:.6g}", flush=True)
        results = {}
        for b in backends:
            r, cpu = run(g, demand, b, args.time_limit)
            results[b] = r
            print(f"  {b:14s} {r.status:10s} solve {r.seconds:8.2f} s  cpu {cpu:8.2f} s  build {r.build_seconds:5.2f} s  "
                  f"lam {r.lam:.9g}  ({r.solver})", flush=True)
        solved = {b: r for b, r in results.items() if r.status == "optimal"}
        if solved:
            ref = next(iter(solved.values())).lam
            fastest = min(r.seconds for r in solved.values())
            for b, r in results.items():
                ratio = f"{r.seconds / fastest:6.2f}x" if b in solved else "  (not solved)"
                diff = f"{abs(r.lam - ref) / ref:.1e}" if b in solved else "-"
                rows.append((name, b, r.status, r.seconds, ratio, diff))
    print("\ninstance        backend        status     seconds   vs fastest  rel. diff")
    for name, b, status, secs, ratio, diff in rows:
        print(f"{name:15s} {b:14s} {status:10s} {secs:8.2f}   {ratio:>9s}   {diff}")
    print(f"\ntotal {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
