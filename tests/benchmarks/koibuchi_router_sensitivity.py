"""Does the router explain the throughput gap between our Koibuchi study and the paper?

At the paper's settings as ``koibuchi2012-traffic`` states them (2 VCs, one 33-flit packet per VC), the random
shortcut rings (DLN-2-y, minimal adaptive routing with an up*/down* escape) saturate below the hypercube and the
folded hypercube of their degree, where Koibuchi et al. find them similar or ahead.  The paper gives no buffer
size.  This script measures the saturation throughput of the same-degree pairs again with deeper buffers and
with more VCs (more adaptive VCs: VC 0 stays the escape), one seeded simulation per network and router, and
prints each DLN-2-y's throughput as a percentage of its partner's, and the share of the hops that took the escape
VC at the saturation load (up*/down* on the rings, dimension order on the hypercubes).  First it prints what the
escape sub-network can carry by itself: the channel-load bound of the escape routing alone against the whole
adaptive routing's (uniform traffic, every candidate shared evenly).

    python tests/benchmarks/koibuchi_router_sensitivity.py                      # 64 switches, about 2 minutes
    python tests/benchmarks/koibuchi_router_sensitivity.py --switches 256 --routers 2x33,4x33   # about an hour

Routers are ``VCSxBUFFER`` (VCs, flits per VC).  Throughput in flits/cycle/host.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

#: the suite's router, without the two parameters this script varies
ROUTER = dict(packet_size=33, flow_control="vct", routing_delay=10, vc_alloc_delay=10, sw_alloc_delay=10,
              st_final_delay=10, channel_latency=8, latency_thres=2000)
#: switches -> (hosts a switch, [(DLN-2-y, its same-degree partner)]), the suite's pairs
PAIRS = {
    64: (4, [("dlnr:64:4", "hypercube:6"), ("dlnr:64:5", "fhypercube:6")]),
    256: (8, [("dlnr:256:6", "hypercube:8"), ("dlnr:256:7", "fhypercube:8")]),
    512: (16, [("dlnr:512:7", "hypercube:9"), ("dlnr:512:8", "fhypercube:9")]),
}


def routing_of(network: str) -> str:
    return "adaptive-updown" if network.startswith("dlnr:") else "adaptive-dor"


def escape_bounds(network: str, hosts: int) -> tuple[float, float]:
    """(the escape routing's channel-load bound alone, the whole adaptive routing's), flits/cycle/host, uniform."""
    from hopbench.harness.graphs.topologies import parse_spec
    from hopbench.harness.traffic.bounds import channel_load_bound, demand_for
    from hopbench.harness.traffic.routing import build_routing
    from hopbench.harness.traffic.study import escape_mesh

    g = parse_spec(network)
    demand = demand_for("uniform", g, hosts_per_switch=hosts)
    if network.startswith("dlnr:"):
        escape, whole = build_routing("updown", g, num_vcs=1), build_routing("adaptive-updown", g, num_vcs=2)
    else:  # a (folded) hypercube: its escape is dimension order on the hypercube's links, the mesh 2x2x...x2
        dims = escape_mesh(network)
        cube = parse_spec(f"hypercube:{len(dims)}")
        escape = build_routing("dor", cube, num_vcs=1, dims=dims, torus=False)
        whole = build_routing("adaptive-dor", g, num_vcs=2, dims=dims, torus=False)
        return channel_load_bound(escape, cube, demand), channel_load_bound(whole, g, demand)
    return channel_load_bound(escape, g, demand), channel_load_bound(whole, g, demand)


def parse_routers(text: str) -> list[tuple[int, int]]:
    """``VCSxBUFFER,...`` as (VCs, flits a VC) pairs, each checked by the simulator's own rules before any run."""
    from hopbench.harness.errors import HopbenchError
    from hopbench.harness.traffic.simulator import router_config

    out = []
    for item in text.split(","):
        vcs, _, buf = item.strip().partition("x")
        if not (vcs.isdigit() and buf.isdigit()):
            raise ValueError(f"a router is VCSxBUFFER, e.g. 2x33; got {item!r}")
        try:
            router_config(num_vcs=int(vcs), vc_buf_size=int(buf), **ROUTER)
        except HopbenchError as exc:
            raise ValueError(f"router {item.strip()}: {exc}") from None
        out.append((int(vcs), int(buf)))
    return out


def main() -> int:
    import hopbench

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--switches", type=int, default=64, choices=sorted(PAIRS))
    ap.add_argument("--routers", default="2x33,2x66,2x132,4x33", help="VCSxBUFFER, comma-separated")
    ap.add_argument("--pair", type=int, default=None, choices=(0, 1), help="only this pair of the size")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    hosts, pairs = PAIRS[args.switches]
    if args.pair is not None:
        pairs = [pairs[args.pair]]
    try:
        routers = parse_routers(args.routers)
    except ValueError as exc:
        ap.error(str(exc))  # one line, exit code 2

    print("| network | escape routing alone | whole adaptive routing |")
    print("|---|---|---|")
    for pair in pairs:
        for net in pair:
            alone, whole = escape_bounds(net, hosts)
            print(f"| {net} | {alone:.3f} | {whole:.3f} |", flush=True)
    print()
    sat: dict[tuple[str, int, int], float] = {}
    print("| network | routing | VCs | buffer (flits) | saturation | escape share there | seconds |")
    print("|---|---|---|---|---|---|---|")
    for vcs, buf in routers:
        for pair in pairs:
            for net in pair:
                start = time.perf_counter()
                r = hopbench.simulate(net, traffic="uniform", routing=routing_of(net), loads=[0.04], endpoints=hosts,
                                      seed=args.seed, saturation=True, num_vcs=vcs, vc_buf_size=buf, **ROUTER)
                sat[net, vcs, buf] = float(r.saturation.throughput)
                # the search's point at the saturation load: the highest one it found unsaturated
                at = [p for p in r.saturation.points if p.offered == r.saturation.throughput and not p.saturated]
                share = f"{at[0].escape_share:.3f}" if at and at[0].escape_share is not None else "-"
                print(f"| {net} | {routing_of(net)} | {vcs} | {buf} | {sat[net, vcs, buf]:.4f} | {share} | "
                      f"{time.perf_counter() - start:.0f} |", flush=True)
    print()
    print("| router | " + " | ".join(f"{a} / {b}" for a, b in pairs) + " |")
    print("|---|" + "---|" * len(pairs))
    for vcs, buf in routers:
        cells = [f"{100 * sat[a, vcs, buf] / sat[b, vcs, buf]:.0f} %" for a, b in pairs]
        print(f"| {vcs} VCs x {buf} flits | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
