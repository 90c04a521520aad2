#!/usr/bin/env bash
# Regenerate the published leaderboards: run the standard suites into one results store, build the
# boards and the site with `hopbench board`, check that every linked solution verifies, and write
# leaderboards/README.md (the exact commands, the machine, the date).  Nothing in leaderboards/ is
# written by hand.
#
# Usage (from anywhere):   leaderboards/publish.sh        (about 4 hours on 2 cores; graphgolf alone 1 h 45 min)
# Environment (optional):
#   STORE   results store URL        (default sqlite:///hopbench-publish.db in the repository root;
#                                      *.db files are git-ignored)
#   JOBS    parallel cells           (default: the number of cores)
#   EXTRA   extra arguments for every `hopbench run`, e.g. "--scheduler tcp://head:8786"
#
# Re-running resumes: cells already in the store are skipped (see `hopbench run`), so an interrupted
# publish continues where it stopped; `hopbench board` always rebuilds the boards from everything
# recorded for the six suites.
set -euo pipefail
cd "$(dirname "$0")/.."

STORE=${STORE:-sqlite:///hopbench-publish.db}
JOBS=${JOBS:-$(nproc)}
EXTRA=${EXTRA:-}
SUITES=edgecut2022,koibuchi2012,equality2022,angara2021,exact-small,graphgolf

if [ -n "$(git status --porcelain -- harness solvers instances 2>/dev/null)" ]; then
  echo "warning: harness/, solvers/ or instances/ have uncommitted changes; the runs record the commit" \
       "$(git rev-parse --short HEAD), not your working tree" >&2
fi

COMMANDS=()
run() {  # run a command and remember it, shell-quoted, for the README (the store URL shown as "$STORE")
  local shown="" arg
  for arg in "$@"; do
    if [ "$arg" = "$STORE" ]; then arg='"$STORE"'
    elif [[ "$arg" =~ [^A-Za-z0-9_./:=,+-] ]]; then arg="'$arg'"
    fi
    shown+="${shown:+ }$arg"
  done
  echo "+ $shown" >&2
  "$@"
  COMMANDS+=("$shown")
}


# Budgets: fast solvers run to completion under the suites' limits; the solvers that always use
# their whole time budget (annealing, the genetic algorithms) get a stated shorter one so that the
# whole publish takes about 4 hours on 2 cores.  A cell's budget is part of its identity, so these
# rows are labelled by it and a longer run is another row, not a replacement.
# --allow-failures: a cell that fails (error, timeout) is recorded and counted in its board row's
# "errors" column; it must not stop the publish (`hopbench run` would otherwise exit 1).
SHORTCUT_FAST=random,edgecut-full,edgecut-lite,vrs,random-matching

# EdgeCut suite (Fuad et al. 2022): every shortcut solver x 5 seeds (milp, deterministic, 1 seed).
run hopbench run --suite edgecut2022 --seeds 5 --solver "$SHORTCUT_FAST" --storage "$STORE" --jobs "$JOBS" --no-progress --allow-failures $EXTRA
# VRS as the EdgeCut paper read it (sequential order, base distances: its Table 2 diameters), a second
# vrs row beside the specified one (random order, current distances); see docs/solvers-greedy.md.
run hopbench run --suite edgecut2022 --seeds 5 --solver vrs --param vrs.order=sequential --param vrs.distances=base --storage "$STORE" --jobs "$JOBS" --no-progress --allow-failures $EXTRA
run hopbench run --suite edgecut2022 --seeds 5 --solver annealing --time-limit 10 --storage "$STORE" --jobs "$JOBS" --no-progress --allow-failures $EXTRA
run hopbench run --suite edgecut2022 --seeds 1 --solver milp --time-limit 30 --storage "$STORE" --jobs "$JOBS" --no-progress --allow-failures $EXTRA
# Koibuchi et al. 2012 random-shortcut instances up to N = 1024 (2^6 .. 2^10): regular problems, so
# random-matching (Koibuchi's own construction); milp would only reach its time limit at these sizes.
run hopbench run --suite koibuchi2012 --max-nodes 1024 --solver random-matching --storage "$STORE" --jobs "$JOBS" --no-progress --allow-failures $EXTRA
# Equality networks (Liang et al. 2022): the GA instances, with unconstrained solvers for comparison.
# equality-ga at 600 s, the budget docs/equality.md's comparison with the paper was measured at
run hopbench run --suite equality2022 --seeds 1 --solver equality-ga --time-limit 600 --storage "$STORE" --jobs "$JOBS" --no-progress --allow-failures $EXTRA
run hopbench run --suite equality2022 --seeds 1 --solver random,edgecut-full --time-limit 60 --storage "$STORE" --jobs "$JOBS" --no-progress --allow-failures $EXTRA
# Angara routing tables (Mukosey et al. 2021), tori of at most 256 nodes (129 of the 159): the
# routing tables of the 30 largest 3D/4D tori would add about 70 MB of solution files.
run hopbench run --suite angara2021 --max-nodes 256 --solver dor,angara-bfs,angara-sssp --storage "$STORE" --jobs "$JOBS" --no-progress --allow-failures $EXTRA
run hopbench run --suite angara2021 --max-nodes 256 --solver angara-ga --time-limit 20 --storage "$STORE" --jobs "$JOBS" --no-progress --allow-failures $EXTRA
# Graph Golf's order/degree problem (the featured pairs with n <= 10,000; empty base, degree <= d):
# annealing in swap mode (its defaults: a regular start, 2-opt swaps, automatic symmetry), 3 seeds x
# 120 s up to 1,024 vertices and 1 seed x 300 s above; random-matching (Koibuchi et al.'s random
# regular construction) beside it as the baseline.
run hopbench run --suite graphgolf --max-nodes 1024 --seeds 3 --solver annealing --time-limit 120 --storage "$STORE" --jobs "$JOBS" --no-progress --allow-failures $EXTRA
run hopbench run --suite graphgolf --min-nodes 1025 --seeds 1 --solver annealing --time-limit 300 --storage "$STORE" --jobs "$JOBS" --no-progress --allow-failures $EXTRA
run hopbench run --suite graphgolf --seeds 3 --solver random-matching --time-limit 10 --storage "$STORE" --jobs "$JOBS" --no-progress --allow-failures $EXTRA
# Small instances with proven optima: every shortcut solver.
run hopbench run --suite exact-small --solver "$SHORTCUT_FAST,milp" --storage "$STORE" --jobs "$JOBS" --no-progress --allow-failures $EXTRA
run hopbench run --suite exact-small --solver annealing --time-limit 10 --storage "$STORE" --jobs "$JOBS" --no-progress --allow-failures $EXTRA
# The boards, plots, solution files and site, from the recorded runs.
# (solution files over 20 kB, mostly routing tables, are gzipped: about 8x smaller)
# Boards before the manifest (.hopbench-manifest.json) recorded no list of what they wrote, and
# `hopbench board` deletes only files its manifest lists: clear such folders once, by hand, here.
for dir in leaderboards/site leaderboards/*/; do
  if [ -d "$dir" ] && [ ! -e "$dir/.hopbench-manifest.json" ]; then
    rm -rf "$dir"
  fi
done
run hopbench board --suite "$SUITES" --storage "$STORE" -o leaderboards --compress-over 20000

# Every solution the boards link to must verify (the same test CI runs over the committed files).
python -m pytest -q tests/test_published_boards.py

# What the boards show was made when and by what the recorded runs say (a resumed publish spans
# several sessions; the runs, not this script's clock, are the record).
recorded=$(python - "$STORE" "$SUITES" <<'PY'
import sys

from harness.bench.store import Store

import pandas as pd

runs = Store.open(sys.argv[1]).dataframe(with_solutions=False)
runs = runs[runs.study.isna() & runs.suite.isin(sys.argv[2].split(","))]
runs = runs.assign(cores=runs.cores.astype("Int64"))  # killed cells carry no cores: keep whole numbers
def listed(column):
    return ", ".join(sorted(str(v) for v in set(runs[column].dropna())))
started, finished = (pd.to_datetime(runs[c], utc=True) for c in ("started_at", "finished_at"))
print(f"- runs: {len(runs)} cells, started {started.min():%Y-%m-%d %H:%M} to finished "
      f"{finished.max():%Y-%m-%d %H:%M} (UTC)")
print(f"- code: hopbench {listed('hopbench_version')} at git commit {listed('git_commit')}; Python "
      f"{listed('python_version')}, numpy {listed('numpy_version')}, numba {listed('numba_version')}")
print(f"- hosts: {listed('host')} ({listed('cores')} cores)")
PY
)
built=$(date -u +%Y-%m-%dT%H:%MZ)

# (each probe may be missing on some systems; the README then says "unknown", the publish goes on)
cpu=$({ lscpu 2>/dev/null || true; } | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)
mem=$({ free -g 2>/dev/null || true; } | awk '/^Mem:/ {print $2 " GB"}')
os=$( (. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-}") || true)
{
  echo "# Leaderboards"
  echo
  echo "Generated by \`hopbench board\` from recorded runs; nothing here is written by hand. Each suite has"
  echo "a directory with \`board.md\` (the board), \`board.csv\` (one row per instance, solver and parameter"
  echo "set), \`references.csv\` (the papers' published values), \`plots/\` and \`solutions/\` (the best run of"
  echo "every row, linked from the board); \`site/index.html\` is the static site (open it from disk)."
  echo "Column definitions: [docs/leaderboards.md](../docs/leaderboards.md)."
  echo
  echo "## How they were made"
  echo
  echo "With \`STORE=$(echo "$STORE" | sed -E 's#://[^@/]*@#://***@#')\` and \`JOBS=$JOBS\` (this is \`leaderboards/publish.sh\`):"
  echo
  echo '```bash'
  printf '%s\n' "${COMMANDS[@]}"
  echo '```'
  echo
  echo "## Machine and date"
  echo
  echo "$recorded"
  echo "- boards built: $built (UTC)"
  echo "- machine: $(hostname), ${cpu:-unknown CPU}, $(nproc) cores, ${mem:-unknown} RAM, ${os:-$(uname -sr)}"
  echo
  echo "## Re-verify"
  echo
  echo "\`hopbench verify leaderboards/<suite>/solutions/<file>.json\` re-checks one linked solution from"
  echo "scratch (files over 20 kB are gzip-compressed as \`.json.gz\`);"
  echo "\`pytest tests/test_published_boards.py\` checks every file every board links to."
} > leaderboards/README.md
echo "published: leaderboards/ (README.md, site/index.html); review and commit it" >&2
