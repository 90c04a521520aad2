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

    mine = sorted(BUILTIN)[args.part::args.of]
    for name in mine:
        start = time.perf_counter()
        warm_up_solver(name)
        print(f"warmed {name} in {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
