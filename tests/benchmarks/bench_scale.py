"""Evaluation at scale: ``hopbench evaluate`` and ``verify`` of a Graph Golf graph with 100,000 vertices.

Builds a random d-regular graph (the union of d/2 random Hamiltonian cycles, seeded; repeated
links are dropped, so a few vertices end below d) for each (n, d) pair, writes it as a Graph Golf
edge list and as a ``hopbench.solution/1`` file on the base ``empty:n`` (objective ``golf``),
then runs each command in a fresh process and prints its wall time and peak resident memory
against the targets of the order/degree issue: at most 60 s and 2 GB for n = 100,000, d = 8,
with memory that grows with n, not n^2.  The ``n^2 bytes`` column says what one byte per
vertex pair would take, the size a distance matrix would need.

The two commands check each other: both must report the same diameter and ASPL, and the
verify run must accept the metrics the file claims (taken from the evaluate run).

Run:  python tests/benchmarks/bench_scale.py [--pairs 65536:5,100000:8] [--seed 1]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from hopbench.harness.problems.shortcut.problem import objective_value

TIME_TARGET_S = 60.0
MEMORY_TARGET_BYTES = 2 * 2**30


def regular_edges(n: int, d: int, seed: int) -> np.ndarray:
    """The union of d // 2 random Hamiltonian cycles on n vertices (plus a perfect matching for odd d)."""
    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(d // 2):
        order = rng.permutation(n)
        parts.append(np.stack([order, np.roll(order, -1)], axis=1))
    if d % 2:
        order = rng.permutation(n - n % 2)
        parts.append(order.reshape(-1, 2))
    edges = np.sort(np.concatenate(parts), axis=1)
    return np.unique(edges, axis=0)


def hopbench_command() -> list[str]:
    script = Path(sys.executable).with_name("hopbench")
    return [str(script)] if script.exists() else [sys.executable, "-m", "hopbench.harness.cli"]


def measured(args: list[str]) -> tuple[float, int, dict]:
    """Wall seconds, peak RSS in bytes and the JSON output of one command run in a fresh child process.

    The peak is read from ``wait4``'s resource usage of that one child (Linux reports it in KiB).
    """
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.stdout.read(), proc.stderr.read()  # before waiting: a full pipe would block the child
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):  # verify exits 1 for a rejected file, which main() reports
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}): {err.strip()}")
    return wall, usage.ru_maxrss * 1024, json.loads(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", default="65536:5,100000:8", help="n:d pairs, comma-separated")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    hop = hopbench_command()
    print(f"targets for n = 100,000, d = 8: <= {TIME_TARGET_S:.0f} s and <= {MEMORY_TARGET_BYTES / 2**30:.0f} GB "
          f"per command; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    print(f"{'n':>7} {'d':>3} {'edges':>8} {'command':>8} {'diameter':>8} {'ASPL':>12} {'wall s':>8} "
          f"{'peak MB':>8} {'n^2 bytes MB':>13} {'within target':>13}")
    with tempfile.TemporaryDirectory() as tmp:
        for pair in args.pairs.split(","):
            n, d = (int(x) for x in pair.split(":"))
            edges = regular_edges(n, d, args.seed)
            edge_file = Path(tmp) / f"n{n}d{d}.edges"
            edge_file.write_text("".join(f"{u} {v}\n" for u, v in edges.tolist()))
            wall, peak, doc = measured(hop + ["evaluate", str(edge_file), "--json"])
            rows = [("evaluate", wall, peak, doc["diameter"], doc["aspl"])]
            solution = {"format": "hopbench.solution/1",
                        "problem": {"base": f"empty:{n}", "degree_cap": d, "budget": n * d // 2,
                                    "objective": "golf"},
                        "solver": {"name": "bench_scale", "params": {}}, "seed": args.seed,
                        "shortcuts": edges.tolist(),
                        "metrics": {"diameter": doc["diameter"], "aspl": doc["aspl"],
                                    "objective": objective_value("golf", doc["diameter"], doc["aspl"])}}
            solution_file = Path(tmp) / f"n{n}d{d}.json"
            solution_file.write_text(json.dumps(solution))
            wall, peak, vdoc = measured(hop + ["verify", str(solution_file), "--json"])
            rows.append(("verify", wall, peak, vdoc["metrics"]["diameter"], vdoc["metrics"]["aspl"]))
            for command, wall, peak, diameter, aspl in rows:
                ok = wall <= TIME_TARGET_S and peak <= MEMORY_TARGET_BYTES
                print(f"{n:>7} {d:>3} {len(edges):>8} {command:>8} {diameter:>8} {aspl:>12.8f} {wall:>8.1f} "
                      f"{peak / 2**20:>8.0f} {n * n / 2**20:>13.0f} {('yes' if ok else 'NO'):>13}")
            if not vdoc["valid"]:
                print(f"verify did not accept the file: {vdoc}")
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
