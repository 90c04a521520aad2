"""Side by side with ODP's serial simulated annealing on graph golf's order/degree problem.

    git clone https://github.com/mnakao/ODP /tmp/ODP     # any checkout of ODP
    python tests/benchmarks/compare_odp.py /tmp/ODP [--seconds 60] [--seeds 3]
        [--pairs 72:4,256:8,512:6,512:8,1024:4,1024:8] [--config symmetry=0] [--core 0] [--no-build]

ODP (Masahiro Nakao's Order/Degree Problem library, https://github.com/mnakao/ODP) is external
software under the Apache License 2.0: this script only builds an unmodified checkout with ``make``
and runs its sample program ``sample/SA/general.x`` (serial SA from a random regular graph:
``-N`` vertices, ``-D`` degree, ``-n`` evaluations, ``-s`` seed, ``-o`` the best graph's edge list).
Nothing of ODP is part of hopbench.

Per (n, d) it

1. calibrates ODP's evaluation count ``-n`` to ``--seconds`` of its SA loop (a short run measures
   its evaluations per second on the pinned core; ODP's SA loop time excludes its start-up, which
   favours ODP slightly);
2. for each seed, runs ODP, then ``hopbench solve`` with the named configuration (``annealing``
   with ``--config``, time limit ``--seconds``; kernels compile before the clock starts), one after
   the other, each pinned to one core with ``taskset -c CORE``;
3. re-evaluates ODP's output graph with hopbench's own evaluator (as the shortcut problem
   ``empty:n``, cap d, budget n d / 2: it must validate and match ODP's printed diameter and ASPL),
   and hopbench's solution the same way;
4. prints per instance the mean diameter and ASPL of each, the gaps to the best known, the
   evaluations per second of each, and whether hopbench's mean golf score (mean diameter, then
   mean ASPL) is <= ODP's.

The machine is shared: under load both programs slow down alike (they run back to back on one
core), but the numbers are noisy; the script prints the CPU seconds each run got.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

#: best-known (diameter, ASPL) of the six instances of issue 14, copied from
#: ../shared/reference_graphs/graphgolf/best_known.csv with that file's ``source`` column
BEST_KNOWN = {
    (72, 4): (4, 2.985915, "Graph Golf 2018 best, meets the lower bound"),
    (256, 8): (4, 2.736, "Graph Golf best-solutions table 2016-09-26"),
    (512, 6): (5, 3.5802348337, "GG2019 best diameter (QOBLIB copy, Team RK); ASPL measured on that file"),
    (512, 8): (4, 3.11138, "Kitasuka et al. 2018 Tab. 1 (their GG2016 graph)"),
    (1024, 4): (7, 5.4178885630, "GG2019 best diameter (QOBLIB copy, Team RK); ASPL measured on that file"),
    (1024, 8): (5, 3.505, "Graph Golf best-solutions table 2016-09-26"),
}
DEFAULT_PAIRS = "72:4,256:8,512:6,512:8,1024:4,1024:8"
ROOT = Path(__file__).resolve().parents[2]
NOTICE = ("ODP (https://github.com/mnakao/ODP, Masahiro Nakao) is external software under the Apache License "
          "2.0;\nthis script builds an unmodified checkout and runs its serial SA sample; it is not part of hopbench.")


# --------------------------------------------------------------------------- running things


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(cmd: list[str], *, cwd: Path | None = None) -> tuple[str, float, float]:
    """(stdout, wall seconds, CPU seconds) of a command; raises with its stderr on failure."""
    cpu0, t0 = _child_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - t0, _child_cpu() - cpu0
    if proc.returncode != 0:
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr.strip()[-2000:]}")
    return proc.stdout, wall, cpu


def _pin(core: int | None) -> list[str]:
    if core is None:
        return []
    if shutil.which("taskset") is None:
        raise SystemExit("taskset is not installed (util-linux); pass --core -1 to run unpinned")
    return ["taskset", "-c", str(core)]


def build_odp(odp: Path) -> Path:
    """``make`` the serial library, then the SA sample; returns the path of ``general.x``."""
    if not (odp / "Makefile").exists() or not (odp / "sample" / "SA" / "general.c").exists():
        raise SystemExit(f"{odp} does not look like an ODP checkout (no Makefile or sample/SA/general.c)")
    _run(["make", "serial"], cwd=odp)
    _run(["make", "general.x"], cwd=odp / "sample" / "SA")
    return odp / "sample" / "SA" / "general.x"


_FIELDS = {
    "diameter": re.compile(r"^Diameter\s+=\s+(\d+)", re.MULTILINE),
    "aspl": re.compile(r"^ASPL\s+=\s+([0-9.]+)", re.MULTILINE),
    "time": re.compile(r"^Time\s+=\s+([0-9.]+)", re.MULTILINE),
}


def run_odp(exe: Path, n: int, d: int, calcs: int, seed: int, out: Path | None, pin: list[str]) -> dict:
    cmd = pin + [str(exe), "-N", str(n), "-D", str(d), "-n", str(calcs), "-s", str(seed)]
    if out is not None:
        cmd += ["-o", str(out)]
    text, wall, cpu = _run(cmd, cwd=exe.parent)
    got = {k: rx.search(text) for k, rx in _FIELDS.items()}
    missing = [k for k, v in got.items() if v is None]
    if missing:
        raise SystemExit(f"could not read {', '.join(missing)} from ODP's output:\n{text[-1500:]}")
    sa_time = float(got["time"].group(1))
    return {"diameter": int(got["diameter"].group(1)), "aspl": float(got["aspl"].group(1)), "sa_time": sa_time,
            "wall": wall, "cpu": cpu, "evals": calcs, "rate": calcs / max(sa_time, 1e-9)}


def calibrate_odp(exe: Path, n: int, d: int, seconds: float, pin: list[str]) -> tuple[int, float]:
    """ODP's ``-n`` for ``seconds`` of SA loop; returns (calcs, measured evaluations per second).

    Short complete runs (hot to cold, like the real one: the cost of an evaluation falls with the
    diameter) grow until one lasts >= 1 s, then one run predicted to last 10 % of the budget (at
    least 1 s) gives the rate.
    """
    calcs = 1000
    while True:
        r = run_odp(exe, n, d, calcs, 1, None, pin)
        if r["sa_time"] >= min(1.0, 0.1 * seconds) or calcs >= 10**9:
            break
        calcs = int(calcs * min(20.0, max(2.0, 1.2 / max(r["sa_time"], 1e-3))))
    confirm = max(calcs, int(r["rate"] * max(min(1.0, 0.1 * seconds), 0.1 * seconds)))
    if confirm > calcs:
        r = run_odp(exe, n, d, confirm, 1, None, pin)
    return max(1, int(r["rate"] * seconds)), r["rate"]


def run_hopbench(n: int, d: int, seconds: float, seed: int, config: list[str], pin: list[str],
                 out: Path) -> dict:
    cmd = pin + [sys.executable, "-m", "hopbench.harness.cli", "solve", "--solver", "annealing", "--base", f"empty:{n}",
                 "--cap", str(d), "--budget", str(n * d // 2), "--objective", "golf", "--time-limit", str(seconds),
                 "--seed", str(seed), "-o", str(out)]
    if config:
        cmd += ["--param", *config]
    _, wall, cpu = _run(cmd, cwd=ROOT)
    doc = json.loads(out.read_text())
    moves = int((doc.get("extra") or {}).get("moves", 0))
    elapsed = float(doc["elapsed_s"])
    return {"doc": doc, "wall": wall, "cpu": cpu, "evals": moves, "rate": moves / max(elapsed, 1e-9),
            "elapsed": elapsed}


# --------------------------------------------------------------------------- verification


def _problem(n: int, d: int):
    from hopbench.harness.graphs.topologies import parse_spec
    from hopbench.harness.problems.shortcut.problem import ShortcutProblem

    return ShortcutProblem(parse_spec(f"empty:{n}"), d, n * d // 2, "golf", base_spec=f"empty:{n}")


def verify_odp_graph(path: Path, n: int, d: int, claimed: dict) -> tuple[int, float]:
    """Evaluate ODP's edge list with hopbench's evaluator; it must match ODP's own numbers."""
    edges = np.loadtxt(path, dtype=np.int64, ndmin=2)
    ev = _problem(n, d).evaluate(edges)  # validates: vertex range, no loops or repeats, degree <= d
    if ev.diameter != claimed["diameter"] or abs(ev.aspl - claimed["aspl"]) > 5e-10:
        raise SystemExit(f"ODP's graph {path} evaluates to {ev.diameter:g} / {ev.aspl:.10f}, ODP printed "
                         f"{claimed['diameter']} / {claimed['aspl']:.10f}")
    return int(ev.diameter), float(ev.aspl)


def verify_hopbench(doc: dict, n: int, d: int) -> tuple[int, float]:
    ev = _problem(n, d).evaluate(np.asarray(doc["shortcuts"], np.int64).reshape(-1, 2))
    m = doc["metrics"]
    if m["diameter"] != ev.diameter or abs(m["aspl"] - ev.aspl) > 1e-12:
        raise SystemExit(f"hopbench's solution document claims {m}, evaluates to {ev.diameter:g} / {ev.aspl}")
    return int(ev.diameter), float(ev.aspl)


# --------------------------------------------------------------------------- report


def _golf_key(diameters: list[int], aspls: list[float]) -> tuple[float, float]:
    return statistics.fmean(diameters), statistics.fmean(aspls)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("odp", type=Path, help="path of an ODP checkout (git clone https://github.com/mnakao/ODP)")
    ap.add_argument("--seconds", type=float, default=60.0, help="time per run, each program (default 60)")
    ap.add_argument("--seeds", type=int, default=3, help="seeds per instance (1..seeds; default 3)")
    ap.add_argument("--pairs", default=DEFAULT_PAIRS, help=f"n:d pairs (default {DEFAULT_PAIRS})")
    ap.add_argument("--config", default="symmetry=0",
                    help="hopbench's named configuration: annealing parameters k=v,k=v (default symmetry=0)")
    ap.add_argument("--core", type=int, default=0, help="core both programs are pinned to (-1: no pinning)")
    ap.add_argument("--no-build", action="store_true", help="use an already built sample/SA/general.x")
    ap.add_argument("--keep", type=Path, default=None, help="keep the graphs and solution files in this folder")
    args = ap.parse_args(argv)

    print(NOTICE)
    odp = args.odp.resolve()
    exe = odp / "sample" / "SA" / "general.x"
    if not args.no_build or not exe.exists():
        exe = build_odp(odp)
    commit = subprocess.run(["git", "-C", str(odp), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip() or "unknown"
    pin = _pin(None if args.core < 0 else args.core)
    config = [c.strip() for c in args.config.split(",") if c.strip()]
    pairs = [tuple(map(int, p.split(":"))) for p in args.pairs.split(",") if p.strip()]
    work = args.keep or Path(tempfile.mkdtemp(prefix="compare_odp_"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"ODP checkout {odp} (commit {commit}), sample/SA/general.x; hopbench: annealing {' '.join(config) or '(defaults)'}")
    print(f"{args.seconds:g} s per run, seeds 1..{args.seeds}, "
          f"{'pinned to core ' + str(args.core) if pin else 'not pinned'}, one run at a time; load average "
          f"{os.getloadavg()[0]:.2f} at start\n")
    rows = []
    for n, d in pairs:
        if (n * d) % 2:
            print(f"({n}, {d}): n x d is odd; ODP's sample needs an even number of ports, skipped")
            continue
        calcs, rate = calibrate_odp(exe, n, d, args.seconds, pin)
        print(f"({n}, {d}): ODP -n {calcs} (calibrated at {rate:,.0f} evaluations/s)")
        odp_runs, hb_runs = [], []
        for seed in range(1, args.seeds + 1):
            graph = work / f"odp_n{n}_d{d}_s{seed}.edges"
            r = run_odp(exe, n, d, calcs, seed, graph, pin)
            r["diameter"], r["aspl"] = verify_odp_graph(graph, n, d, r)
            odp_runs.append(r)
            h = run_hopbench(n, d, args.seconds, seed, config, pin, work / f"hopbench_n{n}_d{d}_s{seed}.json")
            h["diameter"], h["aspl"] = verify_hopbench(h["doc"], n, d)
            hb_runs.append(h)
            print(f"  seed {seed}: ODP {r['diameter']} / {r['aspl']:.6f} ({r['evals']:,} evals, SA loop "
                  f"{r['sa_time']:.1f} s, CPU {r['cpu']:.1f} s)   hopbench {h['diameter']} / {h['aspl']:.6f} "
                  f"({h['evals']:,} evals in {h['elapsed']:.1f} s, process CPU {h['cpu']:.1f} s)", flush=True)
        rows.append((n, d, odp_runs, hb_runs))

    print(f"\n## hopbench `annealing {' '.join(config)}` vs ODP serial SA: {args.seconds:g} s per run, one core each, "
          f"{args.seeds} seed(s)\n")
    print("| (n, d) | best known D / ASPL | ODP mean D / ASPL | hopbench mean D / ASPL | ODP gap to best "
          "(D, ASPL) | hopbench gap to best (D, ASPL) | ODP evals/s (SA loop s) | hopbench evals/s (s) "
          "| hopbench <= ODP |")
    print("|---|---|---|---|---|---|---|---|---|")
    wins = 0
    for n, d, odp_runs, hb_runs in rows:
        od, oa = _golf_key([r["diameter"] for r in odp_runs], [r["aspl"] for r in odp_runs])
        hd, ha = _golf_key([r["diameter"] for r in hb_runs], [r["aspl"] for r in hb_runs])
        best = BEST_KNOWN.get((n, d))
        if best:
            bd, ba, _ = best
            bk = f"{bd} / {ba:.4f}"
            og = f"{od - bd:+.2f}, {oa - ba:+.4f}"
            hg = f"{hd - bd:+.2f}, {ha - ba:+.4f}"
        else:
            bk = og = hg = "n/a"
        ok = (hd, ha) <= (od, oa)
        wins += ok
        orate = statistics.fmean(r["rate"] for r in odp_runs)
        hrate = statistics.fmean(r["rate"] for r in hb_runs)
        otime = statistics.fmean(r["sa_time"] for r in odp_runs)
        htime = statistics.fmean(r["elapsed"] for r in hb_runs)
        print(f"| ({n}, {d}) | {bk} | {od:.2f} / {oa:.5f} | {hd:.2f} / {ha:.5f} | {og} | {hg} | {orate:,.0f} "
              f"({otime:.1f}) | {hrate:,.0f} ({htime:.1f}) | {'yes' if ok else 'no'} |")
    print(f"\nhopbench's mean golf score <= ODP's on {wins} of {len(rows)} instance(s).  ODP's -n is calibrated "
          "to the time budget beforehand; the seconds its SA loop actually took are in brackets (load varies).")
    print("Best-known values: ../shared/reference_graphs/graphgolf/best_known.csv; sources:")
    for n, d, *_ in rows:
        if (n, d) in BEST_KNOWN:
            print(f"  ({n}, {d}): {BEST_KNOWN[(n, d)][2]}")
    print("ODP's graphs were re-evaluated with hopbench's evaluator and match ODP's printed values.")
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
