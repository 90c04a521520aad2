"""Throughput as an objective: the ASPL-optimised and the channel-load-optimised shortcut sets side by side.

Reads a store holding runs of ``instances/throughput-small.toml`` (every instance posed with the ``aspl``
and the ``channel-load`` objective) and, per base problem, takes the best run of each objective (by that
objective) and the random baseline's best run by channel load, then measures all three graphs by
independent methods:

* ``L``: the busiest channel under uniform traffic and minimal routing, even split (the objective,
  :mod:`hopbench.harness.engine.channel_load`), and again from the traffic layer's routing tables
  (:func:`hopbench.harness.traffic.bounds.channel_loads` on the ``hop-vc`` routing: every minimal next hop,
  evenly), so the objective is checked by a second implementation; ``1/L`` is the throughput bound;
* the all-paths LP bound (maximum concurrent flow, any routing) by two LP backends, HiGHS and GLOP;
* the simulator's saturation throughput (uniform traffic, minimal adaptive routing with an up*/down*
  escape, 2 VCs, 4-flit packets), flits/cycle/switch.

Usage::

    hopbench run --suite throughput-small --solver annealing,edgecut-full,random --storage sqlite:///tp.db
    python tests/benchmarks/throughput_objective.py --storage sqlite:///tp.db [--solver annealing] [--no-sim]

Prints a markdown table (the one in docs/traffic.md).
"""
from __future__ import annotations

import argparse
import json
import math



def measure(problem, shortcuts, *, simulate_it: bool) -> dict:
    from hopbench.harness.engine.channel_load import max_channel_load
    from hopbench.harness.engine.summary import summary
    from hopbench.harness.traffic.bounds import channel_loads, demand_for, max_concurrent_flow
    from hopbench.harness.traffic.routing import hop_vc

    g = problem.graph_with(problem.validate(shortcuts))  # a store's solution is re-validated, not trusted
    s = summary(g)
    demand = demand_for("uniform", g)
    table_peak = float(channel_loads(hop_vc(g, num_vcs=max(int(s.diameter), 1)), g, demand).max())
    out = {"aspl": s.aspl, "diameter": s.diameter, "L": max_channel_load(g), "L_tables": table_peak,
           "lp_highs": max_concurrent_flow(g, demand, backend="highs").lam,
           "lp_glop": max_concurrent_flow(g, demand, backend="glop").lam}
    if simulate_it:
        from hopbench.harness.traffic.study import simulate

        r = simulate(g, traffic="uniform", routing="adaptive-updown", loads=[], saturation=True, num_vcs=2,
                     packet_size=4, warmup_periods=3, sample_period=1000, max_samples=10)
        out["saturation"] = r.saturation.throughput
    return out


def main(argv: list[str] | None = None) -> int:
    from hopbench.harness.bench.store import Store
    from hopbench.harness.bench.suites import load_suite

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--storage", required=True)
    ap.add_argument("--suite", default="throughput-small")
    ap.add_argument("--solver", default="annealing", help="the optimiser compared (default annealing)")
    ap.add_argument("--no-sim", action="store_true", help="skip the simulations")
    args = ap.parse_args(argv)

    suite = load_suite(args.suite)
    problems = {inst.id: inst.problem() for inst in suite.instances}
    runs = Store.open(args.storage, mode="read").dataframe(suite=args.suite, with_solutions=True)
    runs = runs[runs["status"] == "ok"]
    print("| problem | set | ASPL | L | L (tables) | 1/L | LP bound (HiGHS) | LP bound (GLOP) | saturation (sim) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for inst_id in [i for i in problems if i.endswith("/aspl")]:
        twin = inst_id[: -len("aspl")] + "channel-load"
        picks = []
        ours = runs[runs.solver == args.solver]
        baseline = runs[runs.solver == "random"]
        for label, rows in (("ASPL-optimised", ours[ours.instance == inst_id]),
                            ("load-optimised", ours[ours.instance == twin]),
                            ("random", baseline[baseline.instance == twin])):
            if rows.empty:
                continue
            best = rows.sort_values(["objective", "seed"]).iloc[0]  # each row's own objective ranks it
            picks.append((label, json.loads(best["solution"])["shortcuts"], int(best["seed"])))
        for label, shortcuts, seed in picks:
            m = measure(problems[inst_id], shortcuts, simulate_it=not args.no_sim)
            sat = f"{m['saturation']:.4f}" if "saturation" in m else ""
            print(f"| {inst_id[: -len('/aspl')]} | {label} (seed {seed}) | {m['aspl']:.4f} | {m['L']:.4f} | "
                  f"{m['L_tables']:.4f} | {1 / m['L'] if m['L'] > 0 and math.isfinite(m['L']) else 0:.4f} | "
                  f"{m['lp_highs']:.4f} | {m['lp_glop']:.4f} | {sat} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
