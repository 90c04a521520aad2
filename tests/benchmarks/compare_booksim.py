"""hopbench's cycle-level simulator side by side with BookSim2, on configurations both model the same way.

    python tests/benchmarks/compare_booksim.py --booksim PATH [--quick] [--speedup S] [--speed-only | --accuracy-only]

(or set HOPBENCH_BOOKSIM; ../shared/peers/build-booksim.sh builds it).  Prints:

1. **Accuracy**, per configuration (BookSim's native ``torus`` k=8 n=2 and ``mesh`` 8x8 with
   ``dim_order`` and 2 VCs, 1- and 4-flit packets, uniform / transpose / bitrev traffic, BookSim's
   default router otherwise, its torus channels taking 2 cycles): zero-load latency, saturation
   throughput (the same bisection and the same criterion for both: unstable, or accepted below 95 %
   of offered), and the latency of both at 50 % and 80 % of BookSim's saturation load, with the
   relative differences against the targets (2 %, 5 %, 10 %, 10 %).  ``--speedup 2`` runs both
   routers with ``internal_speedup = 2`` (the Equality paper's BookSim setting).
2. **Speed**, on one core (the process pins itself to ``--cpu``, 0 by default; BookSim runs under ``taskset``):
   simulated router-cycles per second of both on the 16x16 torus with dim_order, uniform traffic, at
   0.3 and 0.6 of its saturation load, and the ratio; and one load point of a 512-switch DLN-2-y
   network with 16 hosts per switch (8,192 hosts; adaptive up*/down*, warm-up plus 10,000 measured
   cycles), timed whole.

Both simulators use the same seed; the numbers are measured in this one run.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

from hopbench.harness.graphs.topologies import parse_spec  # noqa: E402
from hopbench.harness.traffic import booksim  # noqa: E402
from hopbench.harness.traffic.booksim_study import booksim_params  # noqa: E402
from hopbench.harness.traffic.patterns import Hosts, make_pattern  # noqa: E402
from hopbench.harness.traffic.routing import build_routing  # noqa: E402
from hopbench.harness.traffic.simulator import (Network, router_config, simulate_load,  # noqa: E402
                                       zero_load_latency)

TOLERANCE = 0.005      # bisection width, flits/cycle/node
TARGETS = {"zero-load": 0.02, "saturation": 0.05, "at 50%": 0.10, "at 80%": 0.10}


def ours(topology: str, k: int, pattern: str, packet_size: int, **extra) -> Network:
    spec = f"{topology}:{k}x{k}"
    g = parse_spec(spec)
    cfg = router_config(num_vcs=2, packet_size=packet_size, channel_latency=2 if topology == "torus" else 1, **extra)
    hosts = Hosts.build(g.n, 1)
    routing = build_routing("dor", g, num_vcs=2, dims=(k, k), torus=topology == "torus")
    return Network(g, hosts, routing, make_pattern(pattern, hosts, seed=1, dims=(k, k)), cfg)


def theirs(binary: str, topology: str, k: int, pattern: str, packet_size: int, load: float, *, seed: int = 1,
           taskset: int | None = None, **extra) -> booksim.BookSimResult:
    cfg = router_config(num_vcs=2, packet_size=packet_size, channel_latency=2 if topology == "torus" else 1, **extra)
    params = booksim_params(cfg, topology=topology, pattern=pattern, seed=seed)
    text = booksim.booksim_config(topology, k=k, n=2, injection_rate=load, **params)
    exe = binary
    if taskset is not None and shutil.which("taskset"):
        # a wrapper script keeps run_booksim's binary check: taskset would not answer like BookSim
        wrapper = Path(os.environ.get("TMPDIR", "/tmp")) / f"booksim-cpu{taskset}.sh"
        wrapper.write_text(f"#!/bin/sh\nexec taskset -c {taskset} {binary} \"$@\"\n")
        wrapper.chmod(0o755)
        exe = str(wrapper)
    return booksim.run_booksim(exe, text, timeout=900)


def saturated(point) -> bool:
    if point.saturated:
        return True
    return point.accepted is None or point.injected is None or point.accepted < 0.95 * point.injected


def bisect(run) -> float:
    lo, hi = 0.0, 1.0
    if not saturated(run(hi)):
        return hi
    while hi - lo > TOLERANCE:
        mid = (lo + hi) / 2
        if saturated(run(mid)):
            hi = mid
        else:
            lo = mid
    return lo


def rel(a: float | None, b: float | None) -> float:
    if a is None or b is None or b == 0:
        return float("nan")
    return (a - b) / b


def accuracy(binary: str, quick: bool, speedup: int = 1) -> int:
    configs = [(t, ps, pat) for t in ("torus", "mesh") for ps in (1, 4) for pat in ("uniform", "transpose", "bitrev")]
    if quick:
        configs = configs[:2]
    print(f"accuracy: hopbench vs BookSim2 (k=8, n=2, dim_order, 2 VCs, internal speedup {speedup}; relative "
          f"difference, hopbench - BookSim)")
    extra = {"internal_speedup": speedup}
    head = (f"{'config':28} {'zero-load':>19} {'saturation':>21} {'lat @50%':>19} {'lat @80%':>19}")
    print(head)
    misses = 0
    for topology, ps, pattern in configs:
        net = ours(topology, 8, pattern, ps, **extra)
        z_ours = zero_load_latency(net, seed=1).latency_mean
        z_bs = theirs(binary, topology, 8, pattern, ps, 0.01, sample_period=20000, **extra).latency_mean
        sat_bs = bisect(lambda x: theirs(binary, topology, 8, pattern, ps, x, **extra))
        sat_ours = bisect(lambda x: simulate_load(net, x, seed=1))
        lat = {}
        for frac in (0.5, 0.8):
            load = round(frac * sat_bs, 4)
            lat[frac] = (simulate_load(net, load, seed=1).latency_mean,
                         theirs(binary, topology, 8, pattern, ps, load, **extra).latency_mean)
        diffs = {"zero-load": rel(z_ours, z_bs), "saturation": rel(sat_ours, sat_bs),
                 "at 50%": rel(*lat[0.5]), "at 80%": rel(*lat[0.8])}
        marks = {key: ("" if abs(v) <= TARGETS[key] else " !") for key, v in diffs.items()}
        misses += sum(1 for m in marks.values() if m)
        name = f"{topology} {pattern} {ps}-flit"
        print(f"{name:28} {z_ours:6.2f}/{z_bs:6.2f} {diffs['zero-load']:+6.1%}{marks['zero-load']:2}"
              f" {sat_ours:6.3f}/{sat_bs:6.3f} {diffs['saturation']:+6.1%}{marks['saturation']:2}"
              f" {lat[0.5][0]:6.2f}/{lat[0.5][1]:6.2f} {diffs['at 50%']:+6.1%}{marks['at 50%']:2}"
              f" {lat[0.8][0]:6.2f}/{lat[0.8][1]:6.2f} {diffs['at 80%']:+6.1%}{marks['at 80%']:2}", flush=True)
    print(f"targets: zero-load within 2 %, saturation within 5 %, latency at 50 % / 80 % of saturation within 10 %; "
          f"{misses} value(s) outside (marked !)")
    return misses


def speed(binary: str, cpu: int) -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cpu})
    print("\nspeed on one core: 16x16 torus, dim_order, 2 VCs, uniform, 1-flit packets, channel latency 2")
    net = ours("torus", 16, "uniform", 1)
    simulate_load(net, 0.01, seed=1)  # compile before timing
    sat = bisect(lambda x: simulate_load(net, x, seed=1))
    print(f"  hopbench saturation throughput {sat:.4f} flits/cycle/node")
    for frac in (0.3, 0.6):
        load = round(frac * sat, 4)
        t = time.perf_counter()
        p = simulate_load(net, load, seed=1)
        wall = time.perf_counter() - t
        mine = p.cycles * 256 / wall
        b = theirs(binary, "torus", 16, "uniform", 1, load, taskset=cpu)
        their_rate = b.cycles * 256 / b.wall_s
        print(f"  load {load:.4f} ({frac:.0%} of saturation): hopbench {mine / 1e6:.2f} M router-cycles/s "
              f"({p.cycles} cycles in {wall:.2f} s), BookSim {their_rate / 1e6:.2f} M ({b.cycles} cycles in "
              f"{b.wall_s:.2f} s): {mine / their_rate:.2f}x", flush=True)
    # the 512-switch DLN-2-y network with 8,192 hosts
    from hopbench.harness.graphs.topologies import ring
    from hopbench.harness.graphs.graph import Graph

    rng = np.random.default_rng(1)
    base = ring(512)
    y = 4
    extra = []
    for _ in range(y):  # Koibuchi's DLN-2-y: y random perfect matchings on the ring (repeats dropped)
        perm = rng.permutation(512)
        extra.append(perm.reshape(-1, 2))
    g = Graph(512, np.concatenate([base.edges, *extra]))
    # exactly 10 measured sample periods: convergence thresholds no run meets end it only at max_samples
    cfg = router_config(num_vcs=2, packet_size=1, warmup_periods=3, sample_period=1000, max_samples=13,
                        stopping_thres=1e-9, acc_stopping_thres=1e-9)
    hosts = Hosts.build(g.n, 16)
    routing = build_routing("adaptive-updown", g, num_vcs=2)
    net = Network(g, hosts, routing, make_pattern("uniform", hosts, seed=1), cfg)
    simulate_load(Network(g, Hosts.build(g.n, 1), routing, make_pattern("uniform", Hosts.build(g.n, 1)),
                          router_config(num_vcs=2, warmup_periods=1, sample_period=100, max_samples=2)), 0.01)
    t = time.perf_counter()
    p = simulate_load(net, 0.01, seed=1)
    wall = time.perf_counter() - t
    latency = f"{p.latency_mean:.1f} cycles" if p.latency_mean is not None else "-"
    print(f"  DLN-2-{y}, 512 switches (degree up to {g.max_degree}), 8,192 hosts, adaptive up*/down*, uniform 0.01: "
          f"{p.cycles} cycles ({cfg.warmup_periods * cfg.sample_period} warm-up, 10,000 measured, then the drain) "
          f"in {wall:.1f} s (target <= 60 s); status {p.status}, accepted {p.accepted:.4f}, latency {latency}",
          flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--booksim", default=os.environ.get("HOPBENCH_BOOKSIM"))
    ap.add_argument("--quick", action="store_true", help="two accuracy configurations only")
    ap.add_argument("--speed-only", action="store_true")
    ap.add_argument("--accuracy-only", action="store_true")
    ap.add_argument("--cpu", type=int, default=0, help="the core both simulators run on in the speed part")
    ap.add_argument("--speedup", type=int, default=1, help="internal_speedup of both routers in the accuracy part")
    args = ap.parse_args()
    if not args.booksim:
        ap.error("give --booksim PATH or set HOPBENCH_BOOKSIM (../shared/peers/build-booksim.sh builds it)")
    binary = str(booksim.find_booksim(args.booksim))
    if not args.speed_only:
        accuracy(binary, args.quick, args.speedup)
    if not args.accuracy_only:
        speed(binary, args.cpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
