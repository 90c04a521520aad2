"""Side by side with ODP's grid simulated annealing on Graph Golf's grid-graph instances.

    fetch / git clone https://github.com/mnakao/ODP /tmp/ODP     # any checkout of ODP
    python tests/benchmarks/compare_odp_grid.py /tmp/ODP [--seconds 60] [--seeds 3]
        [--instances 5x5:4:2,10x10:6:3,10x10:8:4,20x20:6:3] [--odp-symmetry 1] [--config symmetry=0]
        [--core 0] [--no-build] [--keep DIR]

ODP (Masahiro Nakao's Order/Degree Problem library, https://github.com/mnakao/ODP) is external software
under the Apache License 2.0: this script only builds an unmodified checkout with ``make`` and runs its
sample program ``sample/SA/grid_s.x`` (serial SA of a grid graph from a random one: ``-W``/``-H`` the
grid, ``-D`` the degree, ``-L`` the cable length, ``-S`` its rotational symmetry, ``-n`` evaluations,
``-s`` seed, ``-o`` the best graph in the competition's ``x,y x,y`` format).  Nothing of ODP is part of
hopbench.

Per instance it

1. calibrates ODP's evaluation count ``-n`` to ``--seconds`` of its SA loop (short complete runs measure
   its evaluations per second on the pinned core; the SA loop time excludes its start-up);
2. for each seed, runs ODP, then hopbench's ``grid-annealing`` (time limit ``--seconds``, its kernels
   compiled before the clock starts), one after the other, each pinned to one core with ``taskset``;
3. re-evaluates ODP's output file with hopbench's evaluator (it must validate as a grid graph of the
   instance and match ODP's printed diameter and ASPL), and hopbench's solution the same way;
4. prints per instance the mean diameter and ASPL of each beside the grid bound, the evaluations per
   second of each, and whether hopbench's mean golf score (mean diameter, then mean ASPL) is <= ODP's.

ODP's grid SA needs an even number of ports (W H D) and W H divisible by its symmetry; an instance that
breaks either is skipped with a note.  The machine may be shared: both programs run back to back on one
core, and the CPU seconds each run got are printed.
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

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_INSTANCES = "5x5:4:2,10x10:6:3,10x10:8:4,20x20:6:3"
NOTICE = ("ODP (https://github.com/mnakao/ODP, Masahiro Nakao) is external software under the Apache License "
          "2.0;\nthis script builds an unmodified checkout and runs its grid SA sample; it is not part of hopbench.")
#: ODP's sample graphs (sample/graph/grid, values from its ASPL.txt), where the suite has one
ODP_SAMPLES = {(5, 5, 4, 2): (4, 2.2666666667), (10, 10, 6, 3): (6, 2.9030303030), (10, 10, 8, 4): (5, 2.4262626263)}


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(cmd: list[str], *, cwd: Path | None = None, env: dict | None = None) -> tuple[str, float, float]:
    """(stdout, wall seconds, CPU seconds) of a command; stops the script with its stderr on failure."""
    cpu0, t0 = _child_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False, env=env)
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
    """``make`` the serial library, then the grid SA sample; returns the path of ``grid_s.x``."""
    if not (odp / "Makefile").exists() or not (odp / "sample" / "SA" / "grid_s.c").exists():
        raise SystemExit(f"{odp} does not look like an ODP checkout (no Makefile or sample/SA/grid_s.c)")
    _run(["make", "serial"], cwd=odp)
    _run(["make", "grid_s.x"], cwd=odp / "sample" / "SA")
    return odp / "sample" / "SA" / "grid_s.x"


_FIELDS = {
    "diameter": re.compile(r"^Diameter\s+=\s+(\d+)", re.MULTILINE),
    "aspl": re.compile(r"^ASPL\s+=\s+([0-9.]+)", re.MULTILINE),
    "time": re.compile(r"^Time\s+=\s+([0-9.]+)", re.MULTILINE),
}


def run_odp(exe: Path, inst: tuple[int, int, int, int], sym: int, calcs: int, seed: int, out: Path | None,
            pin: list[str]) -> dict:
    w, h, d, r = inst
    cmd = pin + [str(exe), "-W", str(w), "-H", str(h), "-D", str(d), "-L", str(r), "-S", str(sym),
                 "-n", str(calcs), "-s", str(seed)]
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


def calibrate_odp(exe: Path, inst, sym: int, seconds: float, pin: list[str]) -> tuple[int, float]:
    """ODP's ``-n`` for ``seconds`` of SA loop, from complete short runs (hot to cold, like the real one)."""
    calcs = 1000
    while True:
        r = run_odp(exe, inst, sym, calcs, 1, None, pin)
        if r["sa_time"] >= min(1.0, 0.1 * seconds) or calcs >= 10**9:
            break
        calcs = int(calcs * min(20.0, max(2.0, 1.2 / max(r["sa_time"], 1e-3))))
    return max(1, int(r["rate"] * seconds)), r["rate"]


def run_hopbench(inst, seconds: float, seed: int, config: list[str], pin: list[str], out: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    cmd = pin + [sys.executable, str(Path(__file__).resolve()), "--worker", ":".join(map(str, inst)), str(seconds),
                 str(seed), ",".join(config), str(out)]
    _, wall, cpu = _run(cmd, cwd=ROOT, env=env)
    doc = json.loads(out.read_text())
    moves = int((doc.get("extra") or {}).get("moves", 0))
    elapsed = float(doc["elapsed_s"])
    return {"doc": doc, "wall": wall, "cpu": cpu, "evals": moves, "rate": moves / max(elapsed, 1e-9),
            "elapsed": elapsed}


def worker(inst_text: str, seconds: str, seed: str, config: str, out: str) -> int:
    """One hopbench run in this (pinned) process: warm up, solve under the time limit, write the document."""
    from hopbench import solvers
    from hopbench.harness.problems.grid.problem import GridProblem
    from hopbench.solvers.contract import Budget
    from hopbench.solvers.contract.execution import execute
    from hopbench.solvers.contract.warmup import warm_up_solver

    w, h, d, r = (int(x) for x in inst_text.split(":"))
    params = dict(kv.split("=", 1) for kv in config.split(",") if kv)
    warm_up_solver("grid-annealing")
    problem = GridProblem(w, h, d, r)
    outcome = execute(solvers.create("grid-annealing", **params), problem, seed=int(seed),
                      budget=Budget(time_s=float(seconds)))
    Path(out).write_text(json.dumps(outcome.solution.to_dict()))
    return 0


def verify(inst, edges_or_doc, claimed: dict | None = None) -> tuple[int, float]:
    """Evaluate a graph (ODP's file text, or a hopbench document) with hopbench's evaluator."""
    from hopbench.harness.problems.grid.competition import read_edges
    from hopbench.harness.problems.grid.kind import KIND
    from hopbench.harness.problems.grid.problem import GridProblem

    problem = GridProblem(*inst)
    if isinstance(edges_or_doc, dict):
        verdict = KIND.check_result(problem, edges_or_doc)
        if not verdict.valid:
            raise SystemExit(f"hopbench's document does not verify: {verdict.reason}")
        return int(verdict.metrics["diameter"]), float(verdict.metrics["aspl"])
    edges = read_edges(edges_or_doc, problem)
    # ODP's SA may leave a repeated edge or a loop in its file (its library allows multigraphs); neither
    # changes a distance, so they are dropped (and counted) before hopbench's checks of a simple grid graph
    keys = np.unique(np.sort(edges, axis=1), axis=0)
    keys = keys[keys[:, 0] != keys[:, 1]]
    if claimed is not None:
        claimed["dropped"] = len(edges) - len(keys)
    ev = problem.evaluate(keys)  # validates lengths, degrees
    if claimed and (ev.diameter != claimed["diameter"] or abs(ev.aspl - claimed["aspl"]) > 5e-10):
        raise SystemExit(f"ODP's graph evaluates to {ev.diameter:g} / {ev.aspl:.10f}, ODP printed "
                         f"{claimed['diameter']} / {claimed['aspl']:.10f}")
    return int(ev.diameter), float(ev.aspl)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        return worker(*argv[1:6])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("odp", type=Path, help="path of an ODP checkout (git clone https://github.com/mnakao/ODP)")
    ap.add_argument("--seconds", type=float, default=60.0, help="time per run, each program (default 60)")
    ap.add_argument("--seeds", type=int, default=3, help="seeds per instance (1..seeds; default 3)")
    ap.add_argument("--instances", default=DEFAULT_INSTANCES, help=f"WxH:degree:length list (default {DEFAULT_INSTANCES})")
    ap.add_argument("--odp-symmetry", type=int, default=1, choices=(1, 2, 4), help="ODP's -S (default 1)")
    ap.add_argument("--config", default="", help="grid-annealing parameters k=v,k=v (default: its defaults)")
    ap.add_argument("--core", type=int, default=0, help="core both programs are pinned to (-1: no pinning)")
    ap.add_argument("--no-build", action="store_true", help="use an already built sample/SA/grid_s.x")
    ap.add_argument("--keep", type=Path, default=None, help="keep the graphs and solution files in this folder")
    args = ap.parse_args(argv)

    from hopbench.harness.problems.grid.bounds import grid_lower_bounds

    print(NOTICE)
    odp = args.odp.resolve()
    exe = odp / "sample" / "SA" / "grid_s.x"
    if not args.no_build or not exe.exists():
        exe = build_odp(odp)
    commit = subprocess.run(["git", "-C", str(odp), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip() or "unknown"
    pin = _pin(None if args.core < 0 else args.core)
    config = [c.strip() for c in args.config.split(",") if c.strip()]
    instances = []
    for text in args.instances.split(","):
        size, d, r = text.strip().split(":")
        w, h = size.lower().split("x")
        instances.append((int(w), int(h), int(d), int(r)))
    work = args.keep or Path(tempfile.mkdtemp(prefix="compare_odp_grid_"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"ODP checkout {odp} (commit {commit}), sample/SA/grid_s.x -S {args.odp_symmetry}; hopbench: "
          f"grid-annealing {' '.join(config) or '(defaults)'}")
    print(f"{args.seconds:g} s per run, seeds 1..{args.seeds}, "
          f"{'pinned to core ' + str(args.core) if pin else 'not pinned'}, one run at a time; load average "
          f"{os.getloadavg()[0]:.2f} at start\n")
    rows = []
    for inst in instances:
        w, h, d, r = inst
        name = f"({w}x{h}, {d}, {r})"
        if (w * h * d) % 2 or (w * h) % args.odp_symmetry:
            print(f"{name}: ODP's grid SA needs W H D even and W H divisible by -S {args.odp_symmetry}; skipped")
            continue
        calcs, rate = calibrate_odp(exe, inst, args.odp_symmetry, args.seconds, pin)
        print(f"{name}: ODP -n {calcs} (calibrated at {rate:,.0f} evaluations/s)", flush=True)
        odp_runs, hb_runs = [], []
        for seed in range(1, args.seeds + 1):
            graph = work / f"odp_w{w}h{h}d{d}r{r}_s{seed}.edges"
            o = run_odp(exe, inst, args.odp_symmetry, calcs, seed, graph, pin)
            o["diameter"], o["aspl"] = verify(inst, graph.read_text(), o)
            odp_runs.append(o)
            hb = run_hopbench(inst, args.seconds, seed, config, pin, work / f"hopbench_w{w}h{h}d{d}r{r}_s{seed}.json")
            hb["diameter"], hb["aspl"] = verify(inst, hb["doc"])
            hb_runs.append(hb)
            dropped = f", {o['dropped']} repeated edges or loops dropped" if o["dropped"] else ""
            print(f"  seed {seed}: ODP {o['diameter']} / {o['aspl']:.6f} ({o['evals']:,} evals{dropped}, SA loop "
                  f"{o['sa_time']:.1f} s, CPU {o['cpu']:.1f} s)   hopbench {hb['diameter']} / {hb['aspl']:.6f} "
                  f"({hb['evals']:,} evals in {hb['elapsed']:.1f} s, process CPU {hb['cpu']:.1f} s, symmetry "
                  f"{hb['doc']['extra']['symmetry']})", flush=True)
        rows.append((inst, odp_runs, hb_runs))

    print(f"\n## hopbench `grid-annealing {' '.join(config)}` vs ODP grid SA (-S {args.odp_symmetry}): "
          f"{args.seconds:g} s per run, one core each, {args.seeds} seed(s)\n")
    print("| (W x H, d, r) | grid bound D / ASPL | ODP sample D / ASPL | ODP mean D / ASPL | hopbench mean D / ASPL "
          "| ODP evals/s (SA loop s) | hopbench evals/s (s) | hopbench <= ODP |")
    print("|---|---|---|---|---|---|---|---|")
    wins = 0
    for inst, odp_runs, hb_runs in rows:
        w, h, d, r = inst
        lb_d, lb_a, _ = grid_lower_bounds(*inst)
        od = statistics.fmean(x["diameter"] for x in odp_runs)
        oa = statistics.fmean(x["aspl"] for x in odp_runs)
        hd = statistics.fmean(x["diameter"] for x in hb_runs)
        ha = statistics.fmean(x["aspl"] for x in hb_runs)
        sample = ODP_SAMPLES.get(inst)
        ok = (hd, ha) <= (od, oa)
        wins += ok
        print(f"| ({w}x{h}, {d}, {r}) | {lb_d} / {lb_a:.4f} | "
              f"{f'{sample[0]} / {sample[1]:.4f}' if sample else 'n/a'} | {od:.2f} / {oa:.5f} | {hd:.2f} / {ha:.5f} | "
              f"{statistics.fmean(x['rate'] for x in odp_runs):,.0f} ({statistics.fmean(x['sa_time'] for x in odp_runs):.1f}) | "
              f"{statistics.fmean(x['rate'] for x in hb_runs):,.0f} ({statistics.fmean(x['elapsed'] for x in hb_runs):.1f}) | "
              f"{'yes' if ok else 'no'} |")
    print(f"\nhopbench's mean golf score <= ODP's on {wins} of {len(rows)} instance(s).  ODP's -n is calibrated "
          "to the time budget beforehand; the seconds its SA loop actually took are in brackets (load varies).")
    print("ODP's graphs were re-evaluated with hopbench's evaluator and match ODP's printed values (repeated edges "
          "and loops in its files, if any, dropped first: they change no distance).")
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
