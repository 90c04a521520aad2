"""``hopbench equality``: evaluate Equality networks, list the published ones, cost any network.

::

    hopbench equality evaluate 'N14K6[-1,1,3,9](4)' [--p P] [--json] [--check]
    hopbench equality evaluate E361 --json          # a published network by its id
    hopbench equality published [--json]            # Table 2 of Liang et al. 2022, re-evaluated
    hopbench equality cost SPEC|FILE --p P [--layout ...] [--json]
"""
from __future__ import annotations

import argparse
import math
import re

from hopbench.harness.cli._common import fmt_number, print_json

#: seconds the all-pairs cross-check of ``evaluate --check`` may be estimated to take: it is quadratic
#: in N (N=200,000 at d=20,000: about 1,400 s estimated), while the evaluation itself is one BFS
CHECK_SECONDS = 60.0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("equality", help="Equality networks: evaluate, published table, physical cost",
                       description="Equality networks (Liang et al. 2022): evaluate a notation, list the published "
                                   "networks, or estimate the physical cost of any network.")
    actions = p.add_subparsers(dest="equality_command", metavar="ACTION")

    ev = actions.add_parser("evaluate", help="a, d, a*d, B_r, MB%% of one Equality network",
                            description="Evaluate an Equality network given as N..K..[ahops](bhops) (or a published "
                                        "id such as E361) by one BFS from router 0.")
    ev.add_argument("spec", help="detailed notation, e.g. 'N14K6[-1,1,3,9](4)', or a Table 2 id, e.g. E361")
    ev.add_argument("--p", type=int, default=None, metavar="P", help="endpoints per router (adds K/p, b_r, n)")
    ev.add_argument("--check", action="store_true",
                    help="also build the graph and cross-check a and d with the all-pairs distance engine")
    ev.add_argument("--json", action="store_true", help="print JSON")
    ev.set_defaults(func=run)

    pub = actions.add_parser("published", help="the 27 Equality networks of Table 2, re-evaluated",
                             description="Re-evaluate every Equality network of Liang et al. 2022 (Table 2) from "
                                         "its Table 3 link sets and compare with the published a and d.")
    pub.add_argument("--json", action="store_true", help="print JSON")
    pub.set_defaults(func=run)

    cost = actions.add_parser("cost", help="cable/router cost and average cable length of any network",
                              description="Physical cost of a network: the cabinet/cable/router model of Liang et "
                                          "al. 2022 (Sect. 4.1) and Koibuchi et al.'s average cable length "
                                          "(ISCA 2012, Sect. V-C).")
    cost.add_argument("network", help="a topology spec (e.g. equality:N14K6[-1,1,3,9](4), torus:8x8), an "
                                      "Equality notation or id, an edge list file, or a solution JSON file")
    cost.add_argument("--p", type=int, default=None, metavar="P",
                      help="endpoints per router (default: the notation's p, else 8)")
    cost.add_argument("--bandwidth", type=float, default=None, metavar="GBPS",
                      help="channel bandwidth in Gb/s the $/Gb/s cable prices are multiplied by (default 40)")
    cost.add_argument("--json", action="store_true", help="print JSON")
    cost.set_defaults(func=run)
    p.set_defaults(func=run, equality_command=None)


def _network(spec: str):
    from hopbench.harness.problems.shortcut import equality as eq

    s = spec.strip()
    if re.fullmatch(r"[eE]\d{3}", s):
        return eq.published_network(s)
    return eq.parse(s)


def run(args: argparse.Namespace) -> int:
    from hopbench.harness.errors import HopbenchError

    action = getattr(args, "equality_command", None)
    if action == "evaluate":
        return _evaluate(args)
    if action == "published":
        return _published(args)
    if action == "cost":
        return _cost(args)
    raise HopbenchError("hopbench equality needs an action: evaluate, published or cost "
                        "(e.g. hopbench equality evaluate 'N14K6[-1,1,3,9](4)')")


def _evaluate(args: argparse.Namespace) -> int:
    import dataclasses

    from hopbench.harness.errors import HopbenchError

    net = _network(args.spec)
    if args.p is not None:
        if args.p < 1:
            raise HopbenchError(f"--p must be >= 1 endpoints per router, got {args.p}")
        net = dataclasses.replace(net, p=args.p, _label=None)
    graph = None
    if args.check:
        from hopbench.harness.engine.distances import summary_seconds_estimate

        # refused up front, before the evaluation: the all-pairs engine is quadratic in N
        graph = net.graph()
        seconds = summary_seconds_estimate(graph)
        if seconds > CHECK_SECONDS:
            raise HopbenchError(f"--check's all-pairs BFS would take about {seconds:,.0f} s on N={net.n} (more than "
                                f"{CHECK_SECONDS:.0f} s); drop --check: a and d come from one BFS from router 0, "
                                f"exact because Equality networks are vertex-transitive")
    doc = net.summary()
    if graph is not None:
        from hopbench.harness.engine.distances import summary

        s = summary(graph)
        doc["check"] = {"a": s.aspl, "d": s.diameter,
                        "agrees": s.diameter == doc["d"] and abs(s.aspl - doc["a"]) <= 1e-12 * max(1.0, s.aspl)}
    if args.json:
        print_json(doc)
        return 0
    print(f"{doc['notation']}" + (f"  p={doc['p']}" if "p" in doc else ""))
    print(f"N {doc['N']}  K {doc['K']}  links {doc['links']}")
    print(f"a {fmt_number(doc['a'], 6)}  d {fmt_number(doc['d'])}  a*d {fmt_number(doc['ad'], 6)}")
    print(f"B_r {doc['B_r']:.4f} ({doc['bisection_links']} links cut)  MB% {doc['MB_percent']:.4g}")
    if "p" in doc:
        print(f"n {doc['endpoints']}  K/p {doc['K_over_p']:.3g}  b_r {doc['b_r']:.4f}")
    if "check" in doc:
        c = doc["check"]
        print(f"all-pairs check: a {fmt_number(c['a'], 6)}  d {fmt_number(c['d'])}  "
              f"{'agrees' if c['agrees'] else 'DISAGREES'}")
    return 0


def _published(args: argparse.Namespace) -> int:
    from hopbench.harness.problems.shortcut import equality as eq

    rows = eq.reproduce_published()
    if args.json:
        print_json(rows)
        return 0
    print(f"{'id':5} {'N':>6} {'K':>3} {'p':>3}  {'a paper':>8} {'a ours':>8} {'d':>4} {'B_r':>6} {'MB%':>7}  status")
    for r in rows:
        ours_a = "-" if r["a_ours"] is None else f"{r['a_ours']:.4f}"
        ours_d = "-" if r["d_ours"] is None else str(r["d_ours"])
        br = "-" if r["B_r"] is None else f"{r['B_r']:.3f}"
        print(f"{r['id']:5} {r['N']:>6} {r['K']:>3} {r['p']:>3}  {r['a']:>8} {ours_a:>8} {r['d']}/{ours_d:<2} "
              f"{br:>6} {r['MB_percent']:>7}  {'matches' if r['matches'] else 'ERRATUM: ' + r.get('erratum', 'differs')}")
    good = sum(r["matches"] for r in rows)
    print(f"{good} of {len(rows)} rows reproduced from Table 3's link sets")
    return 0


def _cost(args: argparse.Namespace) -> int:
    from hopbench.harness import caps
    from hopbench.harness.analysis import physical_cost as pc

    graph, p_default = pc.load_network(args.network)
    p = args.p if args.p is not None else (p_default if p_default is not None else 8)
    # the cost model places every endpoint and its cable: n*p of them, refused before they are allocated
    caps.EDGES.check(graph.n * max(p, 0), f"the endpoint links n*p = {graph.n}*{p}")
    model = pc.LiangCostModel() if args.bandwidth is None else pc.LiangCostModel(bandwidth_gbps=args.bandwidth)
    liang = pc.liang_cost(graph, p, model=model)
    koibuchi = {layout: pc.koibuchi_cable_length(graph, layout=layout) for layout in ("distributed", "centralized")}
    doc = {"n": graph.n, "links": graph.m, "p": p, "liang2022": liang.to_dict(),
           "koibuchi2012": {k: v.to_dict() for k, v in koibuchi.items()}}
    if args.json:
        print_json(doc)
        return 0
    c = liang
    print(f"{graph.n} routers, {graph.m} router links, p={p} endpoints per router ({graph.n * p} endpoints)")
    print(f"Liang et al. 2022 model: {c.cabinets} cabinets, router radix {c.router_radix}")
    print(f"  router links: {c.router_links_copper} copper + {c.router_links_fibre} fibre, "
          f"mean {c.router_link_mean_m:.2f} m; endpoint links mean {c.endpoint_link_mean_m:.2f} m")
    print(f"  cost: routers ${c.router_cost:,.0f} + cables ${c.cable_cost:,.0f} = ${c.total_cost:,.0f}"
          f"  (${c.cost_per_endpoint:,.1f} per endpoint)" if not math.isnan(c.cost_per_endpoint) else "")
    for layout, k in koibuchi.items():
        print(f"Koibuchi et al. 2012, {layout} layout: mean switch-switch cable {k.mean_m:.2f} m "
              f"({k.cabinets} cabinets, {k.intra_cabinet} intra-cabinet of {k.links} cables)")
    return 0
