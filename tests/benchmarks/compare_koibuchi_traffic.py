"""Koibuchi et al. 2012, Sect. IV, side by side with hopbench's simulation of the same networks.

Reads the runs of suite ``koibuchi2012-traffic`` from a results store (run it first:
``hopbench run --suite koibuchi2012-traffic --solver simulator --storage URL``) and prints, per size
and pattern, every network's saturation throughput, zero-load latency and latency at the stated
load, ordered by throughput; then the paper's headline comparisons with the ratios measured here.
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
]


def load(url: str) -> dict[tuple[str, str, float], dict]:
    """(network, pattern, faults) -> the mean metrics of its ok runs."""
    from hopbench.harness.bench.store import Store

    store = Store.open(url)
    df = store.dataframe(suite="koibuchi2012-traffic", with_solutions=False)
    store.close()
    df = df[df["status"] == "ok"]
    out: dict[tuple[str, str, float], dict] = {}
    for _, row in df.iterrows():
        fields = json.loads(row["instance_spec"]) if isinstance(row["instance_spec"], str) else row["instance_spec"]
        m = json.loads(row["metrics"])
        key = (fields["network"], fields.get("traffic", "uniform"), float(fields.get("faults", 0)))
        out.setdefault(key, []).append(m)
    return {k: {name: sum(x.get(name) or 0 for x in v) / len(v) if all(x.get(name) is not None for x in v) else None
                for name in ("saturation", "zero_load_latency", "latency_at_load", "lp_bound", "zero_load_hops")}
            for k, v in out.items()}


def fmt(x: float | None, digits: int = 4) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--storage", required=True)
    args = ap.parse_args()
    data = load(args.storage)
    if not data:
        print("no ok runs of koibuchi2012-traffic in this store", file=sys.stderr)
        return 2
    print("| switches | pattern | network | saturation | zero-load latency | latency @ 0.04 | LP bound |")
    print("|---|---|---|---|---|---|---|")
    from hopbench.harness.graphs.topologies import parse_spec

    for (net, pattern, faults), m in sorted(data.items(), key=lambda kv: (parse_spec(kv[0][0]).n, kv[0][1],
                                                                         kv[0][2], -(kv[1]["saturation"] or 0))):
        label = net + (f" ({faults:g} % links failed)" if faults else "")
        print(f"| {parse_spec(net).n} | {pattern} | {label} | {fmt(m['saturation'])} | "
              f"{fmt(m['zero_load_latency'], 1)} | {fmt(m['latency_at_load'], 1)} | {fmt(m['lp_bound'])} |")
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
                    for key, name in (("zero_load_latency", "zero load"), ("latency_at_load", "@ 0.04")):
                        if ma[key] and mb[key]:
                            cut = 100 * (1 - ma[key] / mb[key])
                            parts.append(f"{name} {abs(cut):.1f} % {'lower' if cut >= 0 else 'higher'}")
                    ours = ", ".join(parts) or "-"
                else:
                    ours = (f"{100 * (ma['saturation'] / mb['saturation'] - 1):+.1f} % "
                            f"({fmt(ma['saturation'])} vs {fmt(mb['saturation'])})")
                print(f"| {claim} | {a} vs {b} | {pattern} | {ours} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
