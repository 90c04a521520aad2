"""CLI start-up benchmark: whole ``hopbench`` processes against bare interpreters.

Prints, in one run, the median wall time (of 5 runs by default, after one
untimed warm-up run each) of:

* ``hopbench --help``                                   vs ``python -c pass``
* ``hopbench evaluate`` of a random 3-regular edge file
  (500 vertices) and of ``--topology torus:16x16``      vs ``python -c "import numpy"``
* ``hopbench verify`` of a solution file made by
  ``hopbench solve --base torus:8x8 --cap 10 --budget 16 --solver random -o FILE``
                                                        vs ``python -c "import numpy"``
* ``hopbench solve --base torus:12x12 --cap 10 --budget 24 --solver edgecut-full``
  (a whole small solve: imports, the kernels' cache, solving)
                                                        vs ``python -c "import numpy"``
* ``hopbench results`` (table) of a small SQLite store made by
  ``hopbench run --suite quick --solver random --seeds 1``
                                                        vs ``python -c "import sqlalchemy"``

and the difference of each command to its reference (wall times; the CPU seconds, user +
system, are printed beside them, since they hold still on a loaded machine).  Targets: within 0.3 s
of the reference for ``--help`` and ``results``, within 0.5 s for ``evaluate``
and ``verify`` of graphs under 1,000 vertices and for the small ``solve``.  Command and reference runs
alternate, so a busy machine slows both alike.  The ``hopbench`` console
script next to this interpreter is used (not a pyenv shim, which adds its own
start-up); without one, ``python -m hopbench.harness.cli``.  ``PYTHONDONTWRITEBYTECODE`` is
removed from the commands' environment, so that the warm-up run writes the bytecode
caches that an installed hopbench has (without them every run compiles its modules
again, 0.2 s and more on the small solve).

Run:  python tests/benchmarks/bench_cli.py [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def hopbench_command() -> list[str]:
    script = Path(sys.executable).with_name("hopbench")
    if script.is_file():
        return [str(script)]
    found = shutil.which("hopbench")
    return [found] if found else [sys.executable, "-m", "hopbench.harness.cli"]


#: the commands' environment: bytecode caches written, as an installed package has them
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one process; a failing command stops the benchmark (its
    time would mean nothing).  The CPU time moves far less than the wall time when other jobs load the
    machine, so it shows what a command costs when the wall times are swamped by the load."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(argv, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({r.returncode}): {r.stderr.strip()}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def random_cubic_edges(n: int, seed: int) -> str:
    """A random 3-regular simple graph (pairing model, redrawn until simple) as a Graph Golf edge list."""
    rng = np.random.default_rng(seed)
    while True:
        e = rng.permutation(np.repeat(np.arange(n), 3)).reshape(-1, 2)
        e.sort(axis=1)
        if (e[:, 0] != e[:, 1]).all() and len(np.unique(e, axis=0)) == len(e):
            return "".join(f"{u} {v}\n" for u, v in e.tolist())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per command (median reported)")
    args = ap.parse_args()
    hb = hopbench_command()
    py = [sys.executable]
    with tempfile.TemporaryDirectory(prefix="bench_cli_") as tmp:
        work = Path(tmp)
        (work / "cubic500.edges").write_text(random_cubic_edges(500, seed=1))
        run(hb + ["solve", "--base", "torus:8x8", "--cap", "10", "--budget", "16", "--solver", "random",
                  "-o", "sol.json"], work)
        store = f"sqlite:///{work / 'results.db'}"
        run(hb + ["run", "--suite", "quick", "--solver", "random", "--seeds", "1", "--storage", store,
                  "--no-progress"], work)
        cases = [
            ("hopbench --help", hb + ["--help"], "python -c pass", py + ["-c", "pass"], 0.3),
            ("hopbench evaluate cubic500.edges", hb + ["evaluate", "cubic500.edges"],
             "python -c 'import numpy'", py + ["-c", "import numpy"], 0.5),
            ("hopbench evaluate --topology torus:16x16", hb + ["evaluate", "--topology", "torus:16x16"],
             "python -c 'import numpy'", py + ["-c", "import numpy"], 0.5),
            ("hopbench verify sol.json", hb + ["verify", "sol.json"],
             "python -c 'import numpy'", py + ["-c", "import numpy"], 0.5),
            ("hopbench solve torus:12x12 edgecut-full",
             hb + ["solve", "--base", "torus:12x12", "--cap", "10", "--budget", "24", "--solver", "edgecut-full"],
             "python -c 'import numpy'", py + ["-c", "import numpy"], 0.5),
            ("hopbench results (quick, random)", hb + ["results", "--storage", store],
             "python -c 'import sqlalchemy'", py + ["-c", "import sqlalchemy"], 0.3),
        ]
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"hopbench: {' '.join(hb)}; median of {args.repeat} runs after one warm-up; "
              f"load average {load} on {os.cpu_count()} cores")
        print(f"{'command':<42} {'median':>7} | {'reference':<30} {'median':>7} | {'diff':>6} {'target':>7}"
              f"  | CPU s: cmd  ref   diff")
        for label, argv, ref_label, ref_argv, target in cases:
            run(argv, work)  # warm-up: bytecode caches, the page cache
            run(ref_argv, work)
            times, refs = [], []
            for _ in range(args.repeat):
                times.append(run(argv, work))
                refs.append(run(ref_argv, work))
            t, r = (statistics.median(x[0] for x in times), statistics.median(x[0] for x in refs))
            tc, rc = (statistics.median(x[1] for x in times), statistics.median(x[1] for x in refs))
            verdict = "ok" if t - r <= target else "OVER"
            print(f"{label:<42} {t:>6.3f}s | {ref_label:<30} {r:>6.3f}s | {t - r:>+5.3f}s {target:>5.1f}s  {verdict:<4}"
                  f"|      {tc:.2f} {rc:.2f} {tc - rc:+.2f}")


if __name__ == "__main__":
    main()
