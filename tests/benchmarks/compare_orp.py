"""Side by side with ORP's serial simulated annealing on Graph Golf's host-switch problem.

    git clone https://github.com/mnakao/ORP /tmp/ORP     # any checkout of ORP
    python tests/benchmarks/compare_orp.py /tmp/ORP [--seconds 60] [--seeds 3]
        [--pairs 32:4,80:6,432:12,1024:10] [--config switch_search=false] [--core 0] [--no-build]

ORP (Masahiro Nakao's Order/Radix Problem library, https://github.com/mnakao/ORP) is external
software under the Apache License 2.0: this script only builds an unmodified checkout with ``make``
and runs its sample program ``sample/sa.x`` (serial SA from a random host-switch graph, SWAP and
SWING moves: ``-H`` hosts, ``-R`` radix, ``-n`` evaluations, ``-s`` seed, ``-o`` the best graph;
the switch count is ORP's own estimate, ``ORP_Optimize_switches``).  Nothing of ORP is part of
hopbench.

Per (hosts, radix) it

1. calibrates ORP's evaluation count ``-n`` to ``--seconds`` of its SA loop (short complete runs
   measure its evaluations per second on the pinned core; ORP's printed SA time excludes its
   start-up and temperature detection, which favours ORP slightly);
2. for each seed, runs ORP, then hopbench's ``hostswitch-annealing`` (with ``--config``) for
   ``--seconds`` in a child process (kernels compiled before the clock starts), one after the
   other, each pinned to one core with ``taskset -c CORE``;
3. re-evaluates ORP's output graph with hopbench's evaluator (it must match ORP's printed
   h-diameter and h-ASPL), and verifies hopbench's document from scratch;
4. prints per pair the mean h-diameter and h-ASPL of each, the gaps to Yasudo et al.'s lower bound,
   the switch counts, the evaluations per second, and whether hopbench's mean golf score (mean
   h-diameter, then mean h-ASPL) is <= ORP's.

The machine may be shared: under load both programs slow down alike (they run back to back on one
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

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PAIRS = "32:4,80:6,432:12,1024:10"
NOTICE = ("ORP (https://github.com/mnakao/ORP, Masahiro Nakao) is external software under the Apache License 2.0;\n"
          "this script builds an unmodified checkout and runs its serial SA sample; it is not part of hopbench.")


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(cmd: list[str], *, cwd: Path | None = None) -> tuple[str, float, float]:
    """(stdout, wall seconds, CPU seconds) of a command; exits with its stderr on failure."""
    cpu0, t0 = _child_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False,
                          env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE", "NUMBA_NUM_THREADS": "1"})
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


def build_orp(orp: Path) -> Path:
    """``make`` the serial library, then the SA sample; returns the path of ``sa.x``."""
    if not (orp / "Makefile").exists() or not (orp / "sample" / "sa.c").exists():
        raise SystemExit(f"{orp} does not look like an ORP checkout (no Makefile or sample/sa.c)")
    _run(["make", "serial"], cwd=orp)
    _run(["make", "sa.x"], cwd=orp / "sample")
    return orp / "sample" / "sa.x"


_FIELDS = {
    "diameter": re.compile(r"^Diameter\s+=\s+(\d+)", re.MULTILINE),
    "aspl": re.compile(r"^ASPL\s+=\s+([0-9.]+)", re.MULTILINE),
    "time": re.compile(r"^Time\s+=\s+([0-9.]+)", re.MULTILINE),
    "switches": re.compile(r"^Hosts = \d+, Switches = (\d+)", re.MULTILINE),
}


def run_orp(exe: Path, n: int, r: int, calcs: int, seed: int, out: Path | None, pin: list[str]) -> dict:
    cmd = pin + [str(exe), "-H", str(n), "-R", str(r), "-n", str(calcs), "-s", str(seed)]
    if out is not None:
        cmd += ["-o", str(out)]
    text, wall, cpu = _run(cmd, cwd=exe.parent)
    got = {k: rx.search(text) for k, rx in _FIELDS.items()}
    missing = [k for k, v in got.items() if v is None]
    if missing:
        raise SystemExit(f"could not read {', '.join(missing)} from ORP's output:\n{text[-1500:]}")
    sa_time = float(got["time"].group(1))
    return {"diameter": int(got["diameter"].group(1)), "aspl": float(got["aspl"].group(1)), "sa_time": sa_time,
            "switches": int(got["switches"].group(1)), "wall": wall, "cpu": cpu, "evals": calcs,
            "rate": calcs / max(sa_time, 1e-9)}


def calibrate_orp(exe: Path, n: int, r: int, seconds: float, pin: list[str]) -> tuple[int, float]:
    """ORP's ``-n`` for ``seconds`` of SA loop; returns (calcs, measured evaluations per second)."""
    calcs = 200
    while True:
        res = run_orp(exe, n, r, calcs, 1, None, pin)
        if res["sa_time"] >= min(1.0, 0.1 * seconds) or calcs >= 10**9:
            break
        calcs = int(calcs * min(20.0, max(2.0, 1.2 / max(res["sa_time"], 1e-3))))
    return max(1, int(res["rate"] * seconds)), res["rate"]


def run_hopbench(n: int, r: int, seconds: float, seed: int, config: list[str], pin: list[str], out: Path) -> dict:
    cmd = pin + [sys.executable, str(Path(__file__).resolve()), "--worker", f"{n}:{r}", "--seconds", str(seconds),
                 "--seed", str(seed), "--out", str(out), "--config", ",".join(config)]
    _, wall, cpu = _run(cmd, cwd=ROOT)
    doc = json.loads(out.read_text())
    evals = int((doc.get("extra") or {}).get("evaluations", 0))
    elapsed = float(doc["elapsed_s"])
    return {"doc": doc, "wall": wall, "cpu": cpu, "evals": evals, "rate": evals / max(elapsed, 1e-9),
            "elapsed": elapsed, "switches": len(doc["hosts_per_switch"])}


def worker(pair: str, seconds: float, seed: int, out: Path, config: str) -> int:
    """The hopbench side, in its own (pinned) process: warm up, solve, write the verified document."""
    sys.path.insert(0, str(ROOT))
    from hopbench import solvers
    from hopbench.harness.documents import dumps
    from hopbench.harness.problems.hostswitch.problem import HostSwitchProblem
    from hopbench.solvers.contract.budget import Budget
    from hopbench.solvers.contract.execution import execute
    from hopbench.solvers.contract.warmup import warm_up_solver

    n, r = (int(x) for x in pair.split(":"))
    params = dict(kv.split("=", 1) for kv in config.split(",") if kv.strip())
    warm_up_solver("hostswitch-annealing")
    outcome = execute(solvers.create("hostswitch-annealing", **params), HostSwitchProblem(n, r), seed=seed,
                      budget=Budget(time_s=seconds))
    out.write_text(dumps(outcome.solution.to_dict()) + "\n")
    return 0


def verify_orp_graph(path: Path, n: int, r: int, claimed: dict) -> tuple[int, float]:
    """Evaluate ORP's file with hopbench's evaluator; it must match ORP's own numbers."""
    from hopbench.harness.problems.hostswitch import golf_file
    from hopbench.harness.problems.hostswitch.problem import HostSwitchProblem

    hosts, radix, counts, links = golf_file.read_file(path)
    if (hosts, radix) != (n, r):
        raise SystemExit(f"ORP's graph {path} is for {hosts} hosts of radix {radix}, not ({n}, {r})")
    ev = HostSwitchProblem(n, r).evaluate(counts, links)
    if ev.h_diameter != claimed["diameter"] or abs(ev.h_aspl - claimed["aspl"]) > 5e-10:
        raise SystemExit(f"ORP's graph {path} evaluates to {ev.h_diameter:g} / {ev.h_aspl:.10f}, ORP printed "
                         f"{claimed['diameter']} / {claimed['aspl']:.10f}")
    return int(ev.h_diameter), float(ev.h_aspl)


def verify_hopbench(doc: dict) -> tuple[int, float]:
    from hopbench.harness.problems.registry import verify_document

    verdict = verify_document(doc)
    if not verdict.valid:
        raise SystemExit(f"hopbench's document does not verify: {verdict.reason}")
    return int(verdict.metrics["h_diameter"]), float(verdict.metrics["h_aspl"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("orp", type=Path, nargs="?", help="path of an ORP checkout (git clone https://github.com/mnakao/ORP)")
    ap.add_argument("--seconds", type=float, default=60.0, help="time per run, each program (default 60)")
    ap.add_argument("--seeds", type=int, default=3, help="seeds per pair (1..seeds; default 3)")
    ap.add_argument("--pairs", default=DEFAULT_PAIRS, help=f"hosts:radix pairs (default {DEFAULT_PAIRS})")
    ap.add_argument("--config", default="", help="hostswitch-annealing parameters k=v,k=v (default: its defaults)")
    ap.add_argument("--core", type=int, default=0, help="core both programs are pinned to (-1: no pinning)")
    ap.add_argument("--no-build", action="store_true", help="use an already built sample/sa.x")
    ap.add_argument("--keep", type=Path, default=None, help="keep the graphs and documents in this folder")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.worker, args.seconds, args.seed, args.out, args.config)
    if args.orp is None:
        ap.error("give the path of an ORP checkout")
    sys.path.insert(0, str(ROOT))
    from hopbench.harness.problems.hostswitch.bounds import lower_bounds

    print(NOTICE)
    orp = args.orp.resolve()
    exe = orp / "sample" / "sa.x"
    if not args.no_build or not exe.exists():
        exe = build_orp(orp)
    commit = subprocess.run(["git", "-C", str(orp), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip() or "unknown"
    pin = _pin(None if args.core < 0 else args.core)
    config = [c.strip() for c in args.config.split(",") if c.strip()]
    pairs = [tuple(map(int, p.split(":"))) for p in args.pairs.split(",") if p.strip()]
    work = args.keep or Path(tempfile.mkdtemp(prefix="compare_orp_"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"ORP checkout {orp} (commit {commit}), sample/sa.x; hopbench: hostswitch-annealing "
          f"{' '.join(config) or '(defaults)'}")
    print(f"{args.seconds:g} s per run, seeds 1..{args.seeds}, "
          f"{'pinned to core ' + str(args.core) if pin else 'not pinned'}, one run at a time; load average "
          f"{os.getloadavg()[0]:.2f} at start\n", flush=True)
    rows = []
    for n, r in pairs:
        calcs, rate = calibrate_orp(exe, n, r, args.seconds, pin)
        print(f"({n}, {r}): ORP -n {calcs} (calibrated at {rate:,.0f} evaluations/s)", flush=True)
        orp_runs, hb_runs = [], []
        for seed in range(1, args.seeds + 1):
            graph = work / f"orp_h{n}_r{r}_s{seed}.edges"
            o = run_orp(exe, n, r, calcs, seed, graph, pin)
            o["diameter"], o["aspl"] = verify_orp_graph(graph, n, r, o)
            orp_runs.append(o)
            h = run_hopbench(n, r, args.seconds, seed, config, pin, work / f"hopbench_h{n}_r{r}_s{seed}.json")
            h["diameter"], h["aspl"] = verify_hopbench(h["doc"])
            hb_runs.append(h)
            print(f"  seed {seed}: ORP {o['diameter']} / {o['aspl']:.6f} ({o['switches']} switches, {o['evals']:,} "
                  f"evals, SA loop {o['sa_time']:.1f} s, CPU {o['cpu']:.1f} s)   hopbench {h['diameter']} / "
                  f"{h['aspl']:.6f} ({h['switches']} switches, {h['evals']:,} evals in {h['elapsed']:.1f} s, "
                  f"process CPU {h['cpu']:.1f} s)", flush=True)
        rows.append((n, r, orp_runs, hb_runs))

    print(f"\n## hopbench `hostswitch-annealing {' '.join(config)}` vs ORP serial SA: {args.seconds:g} s per run, "
          f"one core each, {args.seeds} seed(s)\n")
    print("| (hosts, radix) | lower bound K / L | ORP mean h-diam. / h-ASPL (switches) | hopbench mean (switches) "
          "| ORP l-L | hopbench l-L | ORP evals/s | hopbench evals/s | hopbench <= ORP |")
    print("|---|---|---|---|---|---|---|---|---|")
    wins = 0
    for n, r, orp_runs, hb_runs in rows:
        od, oa = statistics.fmean(x["diameter"] for x in orp_runs), statistics.fmean(x["aspl"] for x in orp_runs)
        hd, ha = statistics.fmean(x["diameter"] for x in hb_runs), statistics.fmean(x["aspl"] for x in hb_runs)
        kd, la = lower_bounds(n, r)
        ok = (hd, ha) <= (od, oa)
        wins += ok
        om = "/".join(str(x["switches"]) for x in orp_runs)
        hm = "/".join(str(x["switches"]) for x in hb_runs)
        print(f"| ({n}, {r}) | {kd} / {la:.5f} | {od:.2f} / {oa:.5f} ({om}) | {hd:.2f} / {ha:.5f} ({hm}) | "
              f"{oa - la:+.5f} | {ha - la:+.5f} | {statistics.fmean(x['rate'] for x in orp_runs):,.0f} | "
              f"{statistics.fmean(x['rate'] for x in hb_runs):,.0f} | {'yes' if ok else 'no'} |")
    print(f"\nhopbench's mean golf score <= ORP's on {wins} of {len(rows)} pair(s).  ORP's -n is calibrated to the "
          "time budget beforehand (load varies).  ORP's graphs were re-evaluated with hopbench's evaluator and "
          "match ORP's printed values; hopbench's documents verified from scratch.")
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
