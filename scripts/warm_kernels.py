"""Compile (into numba's on-disk cache) the kernels of the shipped solvers, ahead of their first use.

A fresh install compiles each solver's kernels the first time it runs, minutes in all.  This does it
now, for every shipped solver or for one share of them, so that several processes can split the work:

    python scripts/warm_kernels.py                 # every shipped solver
    python scripts/warm_kernels.py --part 0 --of 2 & python scripts/warm_kernels.py --part 1 --of 2

`.ci/run` uses the second form before the tests, which would otherwise compile everything once in
each test worker.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


#: seconds of numba compiling each shipped solver's warm-up does with a cold cache, a kernel shared by several
#: solvers split evenly among them (numba compile events, one solver per process; a busy machine, so only the
#: ratios matter).  A solver missing here counts as the median.
COMPILE_S = {"angara-bfs": 72, "angara-ga": 37, "angara-sssp": 41, "annealing": 205, "dor": 24, "edgecut-full": 98,
             "edgecut-lite": 48, "equality-ga": 17, "grid-annealing": 24, "grid-tempering": 24, "hostswitch-annealing": 46,
             "lift-tabu": 99, "milp": 97, "random": 15, "random-matching": 25, "simulator": 90, "vrs": 48}
#: solvers whose warm-ups compile the same distance-engine kernels (the bit-parallel BFS and the batched scorers,
#: about a third of all compiling): one share warms them all, or each share would compile those kernels again
SHARED_ENGINE = ("annealing", "edgecut-full", "edgecut-lite", "milp", "random", "random-matching", "vrs")


def shares(solvers: list[str], count: int) -> list[list[str]]:
    """``solvers`` split into ``count`` shares of about equal compile time: the distance-engine group as one unit,
    then the largest unit first onto the lightest share."""
    median = sorted(COMPILE_S.values())[len(COMPILE_S) // 2]
    engine = [name for name in solvers if name in SHARED_ENGINE]
    units = ([engine] if engine else []) + [[name] for name in solvers if name not in SHARED_ENGINE]
    weight = {tuple(unit): sum(COMPILE_S.get(name, median) for name in unit) for unit in units}
    out: list[list[str]] = [[] for _ in range(count)]
    load = [0] * count
    for unit in sorted(units, key=lambda unit: (-weight[tuple(unit)], unit)):
        lightest = load.index(min(load))
        out[lightest] += unit
        load[lightest] += weight[tuple(unit)]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", type=int, default=0, help="which share to warm, 0..OF-1")
    ap.add_argument("--of", type=int, default=1, help="how many shares the solvers are split into")
    args = ap.parse_args(argv)
    if not (args.of >= 1 and 0 <= args.part < args.of):
        print("error: give 0 <= --part < --of", file=sys.stderr)
        return 2
    from hopbench.solvers.contract.registry import BUILTIN
    from hopbench.solvers.contract.warmup import warm_up_solver

    mine = shares(sorted(BUILTIN), args.of)[args.part]
    for name in mine:
        start = time.perf_counter()
        warm_up_solver(name)
        print(f"warmed {name} in {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
