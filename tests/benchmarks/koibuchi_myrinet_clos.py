"""Koibuchi et al. 2012, Sect. V-A (Fig. 26): random links on a Myrinet-Clos, simulated.

The networks (the 256-host, 80-switch Myrinet-Clos under two cabling plans, ``blocks`` and ``stride``, and the
paper's variants: swapped leaf-midspine links, links added per switch, links added per 64-host group joining the
groups in ``pairs`` or in a ``cycle``) are :mod:`hopbench.harness.graphs.myrinet_clos`'s; its docstring says how
each is built and why two plans.  Suite ``koibuchi2012-clos-traffic`` simulates structure seed 1 of each; this
script adds more structure seeds, the mean host-to-host hops and the routing's channel-load bound.

Every network is simulated with koibuchi2012-traffic's router (virtual cut-through, 2 VCs, 33-flit packets, 10-cycle
stages, 8-cycle channels), uniform traffic from the 256 hosts, minimal adaptive routing with an up*/down* escape
(its root the switch of least eccentricity: a spine), one seed.  Printed per network: links, mean host-to-host
switch hops, the routing's channel-load bound (its paths shared evenly, no simulation), zero-load latency (1 %
load, cycles), saturation throughput (flits/cycle/host, bisection to 1/256) and both against the original.

The paper's finding: random links always cut latency, and cut throughput "significantly", except the links
added per group, which leave it as it was or raise it a little.  (Spreading a group's 8 links over the three
other blocks, 3/3/2, was tried and not kept: it cut the throughput by 32 to 65 %, 3 structure seeds, both
wirings, since a leaf with a link to a block then carries transit traffic of its whole group.)

    python tests/benchmarks/koibuchi_myrinet_clos.py                    # both wirings, one structure seed: 6 minutes
    python tests/benchmarks/koibuchi_myrinet_clos.py --wiring blocks --structure-seeds 1,2,3
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

#: koibuchi2012-traffic's router
ROUTER = dict(num_vcs=2, packet_size=33, vc_buf_size=33, flow_control="vct", routing_delay=10, vc_alloc_delay=10,
              sw_alloc_delay=10, st_final_delay=10, channel_latency=8, latency_thres=2000)


def network(wiring: str, variant: str, seed: int):
    """The variant as a simulation's network: its switch graph, 8 hosts on every leaf."""
    from hopbench.harness.graphs.myrinet_clos import myrinet_clos
    from hopbench.harness.problems.networks import Network

    graph, hosts = myrinet_clos(wiring, variant, seed)
    return Network(graph, source=f"myrinet-clos {wiring} {variant} seed {seed}", hosts=hosts)


def host_hops(net) -> float:
    """Mean switch hops between two hosts on different leaves or the same one (hosts of one leaf: 0)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    g = net.graph
    a = csr_matrix((np.ones(2 * g.m), (np.r_[g.edges[:, 0], g.edges[:, 1]], np.r_[g.edges[:, 1], g.edges[:, 0]])),
                   shape=(g.n, g.n))
    d = shortest_path(a, unweighted=True, directed=False)
    w = np.asarray(net.hosts, dtype=float)
    pairs = np.outer(w, w) - np.diag(w)  # ordered host pairs, a host not paired with itself
    return float((d * pairs).sum() / pairs.sum())


def routing_bound(net) -> float:
    """The channel-load bound of the simulated routing (every minimal candidate and the escape shared evenly),
    uniform traffic, flits/cycle/host: where its paths pile up, without simulating."""
    from hopbench.harness.traffic.bounds import channel_load_bound
    from hopbench.harness.traffic.simulator import router_config
    from hopbench.harness.traffic.study import prepare

    sim, _ = prepare(net, pattern="uniform", routing="adaptive-updown", endpoints="hosts",
                     config=router_config(**ROUTER))
    return channel_load_bound(sim.routing, sim.graph, sim.pattern.demand_matrix(sim.hosts, sim.graph.n))


def main() -> int:
    import hopbench
    from hopbench.harness.graphs.myrinet_clos import VARIANTS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wiring", choices=("blocks", "stride", "both"), default="both")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated, of: " + ", ".join(VARIANTS))
    ap.add_argument("--structure-seeds", default="1", help="seeds of the random links, comma-separated")
    ap.add_argument("--seed", type=int, default=1, help="the simulation's seed (packet arrivals)")
    args = ap.parse_args()
    variants = [v.strip() for v in args.variants.split(",")]
    bad = [v for v in variants if v not in VARIANTS]
    if bad:
        ap.error(f"unknown variant {bad[0]!r}; use some of {', '.join(VARIANTS)}")
    try:
        seeds = [int(s) for s in args.structure_seeds.split(",")]
    except ValueError:
        seeds = [-1]
    if min(seeds) < 0:
        ap.error(f"--structure-seeds is a comma-separated list of integers >= 0, got {args.structure_seeds!r}")
    wirings = ("blocks", "stride") if args.wiring == "both" else (args.wiring,)

    print("| wiring | variant | structure seed | links | host hops | routing bound | zero-load latency | vs original | "
          "saturation | vs original | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for wiring in wirings:
        base: tuple[float, float] | None = None
        for variant in variants:
            for seed in ([1] if variant == "original" else seeds):
                start = time.perf_counter()
                net = network(wiring, variant, seed)
                r = hopbench.simulate(net, traffic="uniform", routing="adaptive-updown", loads=[], endpoints="hosts",
                                      seed=args.seed, zero_load=True, saturation=True, **ROUTER)
                latency, sat = float(r.zero_load.latency_mean), float(r.saturation.throughput)
                if variant == "original":
                    base = (latency, sat)
                vs = ("-", "-") if base is None or variant == "original" else (
                    f"{100 * (latency / base[0] - 1):+.1f} %", f"{100 * (sat / base[1] - 1):+.1f} %")
                print(f"| {wiring} | {variant} | {'-' if variant == 'original' else seed} | {net.graph.m} | "
                      f"{host_hops(net):.3f} | {routing_bound(net):.3f} | {latency:.1f} | {vs[0]} | {sat:.4f} | {vs[1]} | "
                      f"{time.perf_counter() - start:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
