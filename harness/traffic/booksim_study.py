"""``hopbench simulate --engine booksim``: the same study, run by the user's BookSim2 binary.

The network, pattern, router parameters and loads mean what they mean for hopbench's own engine,
so the document has the same rows.  BookSim's native ``torus`` / ``mesh`` runs a ``--topology
torus:...`` / ``mesh:...`` with ``--routing dor`` (its ``dim_order``); any other network runs as
``anynet`` with BookSim's ``min`` routing, which has no deadlock avoidance: refused on a network
with a cycle unless ``--allow-deadlock``.  What BookSim cannot model as hopbench does is refused in
one line rather than approximated (virtual cut-through: its input-queued router has none; more
than one host per switch on its torus/mesh; a channel latency its topology does not have).
"""
from __future__ import annotations

from dataclasses import asdict
from typing import Any

from hopbench.harness.errors import HopbenchError
from hopbench.harness.traffic.simulator import RouterConfig

#: router parameters that mean the same in both engines (BookSim's names)
SHARED = ("num_vcs", "vc_buf_size", "packet_size", "routing_delay", "vc_alloc_delay", "sw_alloc_delay",
          "st_final_delay", "credit_delay", "internal_speedup", "wait_for_tail_credit", "warmup_periods", "sample_period",
          "max_samples", "latency_thres", "stopping_thres", "acc_stopping_thres")
#: BookSim names of hopbench's patterns (the same definitions, traffic.cpp)
PATTERNS = ("uniform", "randperm", "bitrev", "bitcomp", "transpose", "shuffle", "tornado", "neighbor", "hotspot")


def booksim_params(config: RouterConfig, *, topology: str, pattern: str, seed: int) -> dict[str, Any]:
    """BookSim parameters equal to ``config`` on ``topology`` (``torus``, ``mesh`` or ``anynet``)."""
    if config.flow_control != "wormhole":
        raise HopbenchError("BookSim's input-queued router has no virtual cut-through; use flow_control=wormhole "
                            "with --engine booksim, or hopbench's engine for vct")
    if config.injection_latency != 1 or config.ejection_latency != 1:
        raise HopbenchError("BookSim's injection and ejection channels take 1 cycle; leave injection_latency and "
                            "ejection_latency at 1 with --engine booksim")
    if pattern not in PATTERNS:
        raise HopbenchError(f"BookSim has no traffic pattern {pattern!r}")
    values = {name: getattr(config, name) for name in SHARED}
    if topology == "torus":
        # kncube.cpp: torus channels take 2 cycles with use_noc_latency (its default), else 1
        if config.channel_latency not in (1, 2):
            raise HopbenchError("BookSim's torus channels take 1 or 2 cycles (use_noc_latency); set "
                                "channel_latency=1 or 2 with --engine booksim")
        values["use_noc_latency"] = 1 if config.channel_latency == 2 else 0
    elif config.channel_latency != 1:
        raise HopbenchError(f"BookSim's {topology} channels take 1 cycle; set channel_latency=1 with --engine booksim")
    else:
        values["use_noc_latency"] = 0
    values.update(traffic=pattern, seed=int(seed), perm_seed=int(seed), injection_rate_uses_flits=1,
                  sim_type="latency")
    return values


def run_booksim_study(network: Any, args: Any, loads: list[float], config: RouterConfig) -> dict[str, Any]:
    """Every load of ``loads`` through BookSim; the document of ``hopbench simulate --json``."""
    from hopbench.harness import __version__
    from hopbench.harness.problems.networks import endpoints_per_router
    from hopbench.harness.traffic import booksim
    from hopbench.harness.traffic.study import SIMULATION_FORMAT, grid_dims

    if args.faults:
        raise HopbenchError("--faults needs hopbench's engine (BookSim's routings cannot re-route around them)")
    if args.zero_load or args.saturation:
        raise HopbenchError("--zero-load and --saturation use hopbench's engine; with --engine booksim give --loads "
                            "(tests/benchmarks/compare_booksim.py bisects BookSim's saturation itself)")
    if not loads:
        raise HopbenchError("--engine booksim needs --loads")
    binary = booksim.find_booksim(args.booksim)
    graph = network.graph
    grid = grid_dims(network.meta.get("topology"))
    per_switch = endpoints_per_router(network, args.endpoints)
    network_text = None
    if grid is not None and args.routing == "dor":
        dims, is_torus = grid
        if len(set(dims)) != 1:
            raise HopbenchError(f"BookSim's {'torus' if is_torus else 'mesh'} has the same radix in every "
                                f"dimension; {network.meta.get('topology')} has not (run it as anynet with "
                                f"--routing minimal --allow-deadlock, or use hopbench's engine)")
        if (per_switch != 1).any():
            raise HopbenchError("BookSim's torus/mesh have one host per switch; use --endpoints 1")
        topology = "torus" if is_torus else "mesh"
        extra = {"k": dims[0], "n": len(dims)}
    elif args.routing == "minimal":
        topology = "anynet"
        extra = {"graph": graph}
        network_text = booksim.anynet_text(graph, per_switch)
    else:
        raise HopbenchError(f"BookSim cannot run --routing {args.routing} here: its anynet has only 'min' (hopbench "
                            f"--routing minimal, which can deadlock) and its torus/mesh only dim_order "
                            f"(--routing dor on --topology torus:/mesh:)")
    params = booksim_params(config, topology=topology, pattern=args.traffic, seed=args.seed)
    rows = []
    for load in loads:
        text = booksim.booksim_config(topology, allow_deadlock=args.allow_deadlock, injection_rate=load,
                                      **extra, **params)
        result = booksim.run_booksim(binary, text, network_text=network_text, allow_deadlock=args.allow_deadlock)
        row = result.row()
        row.pop("engine", None)
        rows.append(row)
    return {"format": SIMULATION_FORMAT, "engine": "booksim", "booksim": str(binary),
            "source": str(network.meta.get("topology") or network.source), "switches": graph.n, "links": graph.m,
            "hosts": int(per_switch.sum()), "endpoints": str(args.endpoints or 1), "pattern": args.traffic,
            "routing": "dim_order" if topology != "anynet" else "min", "seed": int(args.seed),
            "config": asdict(config), "booksim_topology": topology, "points": rows, "cycle_ns": args.cycle_ns,
            "hopbench": __version__}
