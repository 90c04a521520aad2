"""Koibuchi et al. 2012, Sect. IV, side by side with hopbench's simulation of the same networks.

Reads the runs of suites ``koibuchi2012-traffic`` and ``koibuchi2012-512-traffic`` from a results store (run
them first: ``hopbench run --suite koibuchi2012-traffic --solver simulator --storage URL``, the same for the
other suite; or load the boards' runs with ``hopbench results --merge-from leaderboards/<suite>/runs.jsonl.xz``)
and prints, per size and pattern, every network's saturation throughput, zero-load latency and latency at the
stated load, ordered by throughput; then the paper's headline comparisons with the ratios measured here.  A
latency claim is also compared at a load both networks carry: half the lower saturation throughput of the
pair, each network's latency read off its latency curve (linear between the curve's points).
Latencies are in cycles (the paper's 2.5 ns cycles: multiply by 2.5 for ns); throughput in
flits/cycle/host (x 96 Gbps for the paper's unit).

    python tests/benchmarks/compare_koibuchi_traffic.py --storage sqlite:///koibuchi-traffic.db
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

#: the paper's claims (Sect. IV-B and IV-C): (what, ours-vs-theirs pairs by network, the paper's number)
HEADLINES = [
    ("latency, DLN-2-y vs HYPERCUBE-0 (same degree), uniform: up to 18 % lower",
     [("dlnr:64:4", "hypercube:6"), ("dlnr:256:6", "hypercube:8"), ("dlnr:512:7", "hypercube:9")], "latency",
     "uniform"),
    ("latency, DLN-2-y vs F-HYPERCUBE-0 (same degree), uniform: up to 12 % lower",
     [("dlnr:64:5", "fhypercube:6"), ("dlnr:256:7", "fhypercube:8"), ("dlnr:512:8", "fhypercube:9")], "latency",
     "uniform"),
    ("latency, DLN-2-y vs HYPERCUBE-0, bit reversal: up to 16 % lower",
     [("dlnr:64:4", "hypercube:6"), ("dlnr:256:6", "hypercube:8"), ("dlnr:512:7", "hypercube:9")], "latency",
     "bitrev"),
    ("latency, DLN-2-y vs F-HYPERCUBE-0, bit reversal: up to 6 % lower",
     [("dlnr:64:5", "fhypercube:6"), ("dlnr:256:7", "fhypercube:8"), ("dlnr:512:8", "fhypercube:9")], "latency",
     "bitrev"),
    ("throughput, DLN-2-y vs HYPERCUBE-0: similar",
     [("dlnr:64:4", "hypercube:6"), ("dlnr:256:6", "hypercube:8"), ("dlnr:512:7", "hypercube:9")], "throughput", None),
    ("throughput, DLN-2-8 vs F-HYPERCUBE-0 at 512 switches: 36 % higher",
     [("dlnr:512:8", "fhypercube:9")], "throughput", None),
    ("latency, DLN-2-4 vs TORUS-6-0: up to 27 % lower",
     [("dlnr:64:4", "torus:4x4x4"), ("dlnr:256:4", "torus:8x8x4"), ("dlnr:512:4", "torus:8x8x8")], "latency", None),
    ("throughput, DLN-2-4 vs TORUS-6-0: up to 43 % higher",
     [("dlnr:64:4", "torus:4x4x4"), ("dlnr:256:4", "torus:8x8x4"), ("dlnr:512:4", "torus:8x8x8")], "throughput",
     None),
    ("throughput, DLN-2-2 vs the 2-D torus and mesh of its degree: they do not scale",
     [("dlnr:256:2", "torus:16x16"), ("dlnr:256:2", "mesh:16x16"), ("dlnr:512:2", "torus:32x16"),
      ("dlnr:512:2", "mesh:32x16")], "throughput", None),
]

#: the suites whose runs are read
SUITES = ("koibuchi2012-traffic", "koibuchi2012-512-traffic")
METRICS = ("saturation", "zero_load_latency", "latency_at_load", "lp_bound", "zero_load_hops")


def load(url: str) -> dict[tuple[str, str, float], dict]:
    """(network, pattern, faults) -> the mean metrics of its ok runs, its stated load and its latency curve
    (the first run's)."""
    import pandas as pd

    from hopbench.harness.bench.store import Store

    store = Store.open(url)
    df = pd.concat([store.dataframe(suite=s, with_solutions=False) for s in SUITES])
    store.close()
    df = df[df["status"] == "ok"]
    out: dict[tuple[str, str, float], list] = {}
    for _, row in df.iterrows():
        fields = json.loads(row["instance_spec"]) if isinstance(row["instance_spec"], str) else row["instance_spec"]
        m = json.loads(row["metrics"])
        key = (fields["network"], fields.get("traffic", "uniform"), float(fields.get("faults", 0)))
        out.setdefault(key, []).append((m, fields.get("load")))
    data = {}
    for k, runs in out.items():
        metrics = [m for m, _ in runs]
        data[k] = {name: sum(x.get(name) or 0 for x in metrics) / len(metrics)
                   if all(x.get(name) is not None for x in metrics) else None for name in METRICS}
        data[k]["load"] = runs[0][1]
        data[k]["curve"] = metrics[0].get("curve") or []
    return data


def latency_at(m: dict, load: float) -> float | None:
    """The latency at ``load`` read off a network's curve (offered, accepted, latency), linear between the two
    points around it; None when the curve does not reach down to it or up to it below saturation."""
    saturation = m["saturation"] or 0.0
    points = sorted((o, lat) for o, _, lat in m["curve"] if o <= saturation + 1e-12)
    for (o1, l1), (o2, l2) in zip(points, points[1:]):
        if o1 <= load <= o2:
            return l1 + (l2 - l1) * (load - o1) / (o2 - o1) if o2 > o1 else l1
    return None


def fmt(x: float | None, digits: int = 4) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--storage", required=True)
    args = ap.parse_args()
    data = load(args.storage)
    if not data:
        print(f"no ok runs of {' or '.join(SUITES)} in this store", file=sys.stderr)
        return 2
    print("| switches | pattern | network | saturation | zero-load latency | stated load | latency there | LP bound |")
    print("|---|---|---|---|---|---|---|---|")
    from hopbench.harness.graphs.topologies import parse_spec

    for (net, pattern, faults), m in sorted(data.items(), key=lambda kv: (parse_spec(kv[0][0]).n, kv[0][1],
                                                                         kv[0][2], -(kv[1]["saturation"] or 0))):
        label = net + (f" ({faults:g} % links failed)" if faults else "")
        print(f"| {parse_spec(net).n} | {pattern} | {label} | {fmt(m['saturation'])} | "
              f"{fmt(m['zero_load_latency'], 1)} | {m['load'] if m['load'] is not None else '-'} | "
              f"{fmt(m['latency_at_load'], 1)} | {fmt(m['lp_bound'])} |")
    print()
    print("| the paper's claim | pair | pattern | ours |")
    print("|---|---|---|---|")
    for claim, pairs, what, only in HEADLINES:
        for a, b in pairs:
            for pattern in (["uniform", "bitrev", "transpose"] if only is None else [only]):
                ma, mb = data.get((a, pattern, 0.0)), data.get((b, pattern, 0.0))
                if not ma or not mb:
                    continue
                if what == "latency":
                    parts = []
                    common = 0.5 * min(ma["saturation"] or 0.0, mb["saturation"] or 0.0)
                    pairs_of = [("zero load", ma["zero_load_latency"], mb["zero_load_latency"])]
                    if ma["load"] is not None and ma["load"] == mb["load"]:
                        pairs_of.append((f"@ {ma['load']:g}", ma["latency_at_load"], mb["latency_at_load"]))
                    if common > 0:
                        pairs_of.append((f"@ {common:.4f} (curves)", latency_at(ma, common), latency_at(mb, common)))
                    for name, la, lb in pairs_of:
                        if la and lb:
                            cut = 100 * (1 - la / lb)
                            parts.append(f"{name} {abs(cut):.1f} % {'lower' if cut >= 0 else 'higher'}")
                    ours = ", ".join(parts) or "-"
                else:
                    ours = (f"{100 * (ma['saturation'] / mb['saturation'] - 1):+.1f} % "
                            f"({fmt(ma['saturation'])} vs {fmt(mb['saturation'])})")
                print(f"| {claim} | {a} vs {b} | {pattern} | {ours} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
