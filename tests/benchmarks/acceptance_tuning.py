"""Tuned vs default parameters on held-out instances (issue 8 acceptance).

1. ``hopbench tune SOLVER --suite edgecut2022 --split tune ... --save`` (n <= 10; ``--save-to published``
   writes the published parameters shipped with hopbench instead of your own tuned-parameter directory),
2. ``hopbench run`` on the ``test`` split (n >= 11) with the defaults and with ``--params tuned`` (the file
   step 1 saved),
3. prints, per instance, the mean objective over seeds of both, and the summary: mean objective,
   mean relative difference, and on how many instances the tuned parameters are not worse.

Run:  python tests/benchmarks/acceptance_tuning.py SOLVER [--trials 30] [--tune-seeds 2]
      [--test-seeds 5] [--time-limit 20] [--workers 2] [--storage sqlite:///tuning.db]
      [--save-to DIR|published] [--skip-tuning]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

from hopbench.harness.bench.store import Store
from hopbench.harness.bench.tuning import tuned_file

ENV = dict(os.environ)


def hopbench(*args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *args], capture_output=True, text=True, env=ENV)
    if out.returncode not in (0, 1):
        raise SystemExit(f"hopbench {' '.join(args)} failed: {out.stderr.strip()}")
    return out.stdout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("solver")
    ap.add_argument("--suite", default="edgecut2022")
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--tune-seeds", type=int, default=2)
    ap.add_argument("--test-seeds", type=int, default=5)
    ap.add_argument("--time-limit", default="20")
    ap.add_argument("--workers", default="2")
    ap.add_argument("--storage", default="sqlite:///tuning.db")
    ap.add_argument("--save-to", metavar="DIR|published",
                    help="where tune saves (default: your own tuned-parameter directory)")
    ap.add_argument("--skip-tuning", action="store_true",
                    help="reuse the saved SOLVER.json ('hopbench run --params tuned' takes: yours, else the published)")
    args = ap.parse_args()

    if not args.skip_tuning:
        save = ["--save-to", args.save_to] if args.save_to else ["--save"]
        out = hopbench("tune", args.solver, "--suite", args.suite, "--split", "tune", "--trials", str(args.trials),
                       "--seeds", str(args.tune_seeds), "--time-limit", args.time_limit, "--workers", args.workers,
                       "--storage", args.storage, *save, "--json")
        print("tuning:", json.dumps(json.loads(out)))
        saved = Path(json.loads(out)["saved"])
    else:
        saved = tuned_file(args.solver)
        if saved is None:
            raise SystemExit(f"no saved tuned parameters of {args.solver}; run without --skip-tuning")
    ENV["HOPBENCH_TUNED_DIR"] = str(saved.parent)  # --params tuned takes exactly this file
    common = ["run", "--suite", args.suite, "--split", "test", "--solver", args.solver, "--seeds",
              str(args.test_seeds), "--time-limit", args.time_limit, "--storage", args.storage, "--no-progress",
              "--jobs", args.workers]
    hopbench(*common)
    hopbench(*common, "--params", "tuned")

    df = Store.open(args.storage).dataframe(suite=args.suite, solvers=[args.solver], with_solutions=False)
    df = df[df.study.isna() & (df.status == "ok")]
    listing = json.loads(hopbench("instances", args.suite, "--json"))["instances"]
    test_ids = {i["id"] for i in listing if i["split"] == "test"}
    df = df[df.instance.isin(test_ids)]
    tuned_tag = json.loads(saved.read_text())["params"]
    df["which"] = ["default" if tag == "default" else "tuned" for tag in df.params_tag]
    table = df.pivot_table(index="instance", columns="which", values="objective", aggfunc="mean")
    if "tuned" not in table:  # the study's best is the defaults: both runs are the same cells
        print("the tuned parameters equal the defaults")
        table["tuned"] = table["default"]
    table["rel_diff_%"] = 100 * (table["tuned"] - table["default"]) / table["default"]
    pd.set_option("display.width", 160)
    print(f"tuned parameters: {tuned_tag}")
    print(table.to_string(float_format=lambda x: f"{x:.4f}"))
    not_worse = int((table["tuned"] <= table["default"] + 1e-12).sum())
    print(f"held-out instances: {len(table)}; mean objective default {table['default'].mean():.4f}, "
          f"tuned {table['tuned'].mean():.4f}; mean relative difference {table['rel_diff_%'].mean():+.2f}%; "
          f"tuned not worse on {not_worse}/{len(table)}")


if __name__ == "__main__":
    main()
