#!/usr/bin/env bash
# Regenerate the published leaderboards: run the standard suites into one results store, build the
# boards and the site with `hopbench board`, check that every linked solution verifies, and write
# each published suite's provenance (the exact commands, the machine, the date) to
# leaderboards/provenance/<suite>.md and leaderboards/README.md.  Nothing in leaderboards/ is written
# by hand (the provenance files of boards published before this layout were split, once, from the
# README of then, and say so).
#
# Usage (from anywhere):   leaderboards/publish.sh        (about 4 hours on 2 cores; the suites' cell times are
#                                                          in leaderboards/README.md)
#                          SUITES=graphgolf leaderboards/publish.sh    (one suite: 1 h 50 min)
# Environment (optional):
#   SUITES  the suites to publish, comma-separated (default: all of ALL_SUITES below).  The others' boards and
#           provenance files stay as they are, so a publish can be split over several sittings.
#   STORE   results store URL        (default sqlite:///hopbench-publish.db in the repository root;
#                                      *.db files are git-ignored)
#   JOBS    parallel cells           (default: the number of cores)
#   EXTRA   extra arguments for every `hopbench run`, e.g. "--scheduler tcp://head:8786"
#   ONLY    instance globs, comma-separated (e.g. "empty:64/cap3/*,empty:96/cap3/*"): re-run, replacing
#           what the store holds, every cell of the matching instances only, and keep the other cells
#           of the store.  For a change that alters a few instances' runs only; the provenance file
#           then lists these commands and, below them, the earlier publish's.  A STORE without the
#           suite's runs (a fresh checkout) first loads the runs the board ships (see IMPORT).
#   IMPORT  1: first load each suite's shipped runs, leaderboards/<suite>/runs.jsonl.xz, into STORE
#           (`hopbench results --merge-from`, which re-checks every solution and refuses a forged row);
#           the runs then find those cells recorded, so an unchanged suite is republished from its
#           shipped runs alone, in minutes.
#
# Re-running resumes: cells already in the store are skipped (see `hopbench run`), so an interrupted
# publish continues where it stopped; `hopbench board` always rebuilds a suite's board from
# everything recorded for it.
set -euo pipefail
cd "$(dirname "$0")/.."

ALL_SUITES=edgecut2022,koibuchi2012,equality2022,angara2021,exact-small,graphgolf,angara2021-traffic,koibuchi2012-traffic,throughput-small
SUITES=${SUITES:-$ALL_SUITES}
STORE=${STORE:-sqlite:///hopbench-publish.db}
JOBS=${JOBS:-$(nproc)}
EXTRA=${EXTRA:-}
ONLY=${ONLY:-}
IMPORT=${IMPORT:-}
IFS=, read -ra ONLY_LIST <<< "${ONLY// /}"

IFS=, read -ra ALL_LIST <<< "$ALL_SUITES"
IFS=, read -ra LIST <<< "${SUITES// /}"
if [ ${#LIST[@]} -eq 0 ]; then
  echo "error: SUITES names no suite; leave it unset for all, or name some of $ALL_SUITES" >&2; exit 2
fi
for suite in "${LIST[@]}"; do
  case ",$ALL_SUITES," in
    *",$suite,"*) ;;
    *) echo "error: SUITES names '$suite', which is not a published suite; use some of $ALL_SUITES" >&2; exit 2 ;;
  esac
done
SUITES=$(IFS=,; echo "${LIST[*]}")

# The suites whose shipped runs (leaderboards/<suite>/runs.jsonl.xz) are loaded into STORE before anything runs.
TO_IMPORT=()
if [ -n "$IMPORT" ]; then
  for suite in "${LIST[@]}"; do
    if [ ! -e "leaderboards/$suite/runs.jsonl.xz" ]; then
      echo "error: IMPORT loads the runs a board ships, but leaderboards/$suite/runs.jsonl.xz does not exist" \
           "(that board was published before boards shipped their runs); publish $suite in full, without IMPORT" >&2
      exit 2
    fi
    TO_IMPORT+=("$suite")
  done
elif [ -n "$ONLY" ]; then
  # A board is rebuilt from everything its suite has in the store: a partial re-run into a store
  # without the earlier publish's runs would publish a board of the re-run instances only.  A store
  # that holds none of them (a fresh checkout) first loads the runs the board ships.
  for suite in "${LIST[@]}"; do
    found=$(python - "$STORE" "$suite" "$ONLY" <<'PY'
import fnmatch
import sys

from harness.bench.store import Store, creates_file
from harness.errors import HopbenchError

url, suite, globs = sys.argv[1], sys.argv[2], [g for g in sys.argv[3].split(",") if g.strip()]
try:
    if creates_file(url):
        raise HopbenchError(f"the results store {url} does not exist")
    runs = Store.open(url, mode="read").dataframe(suite=suite, with_solutions=False)
except HopbenchError as exc:
    print(f"error: ONLY re-runs part of a published suite, but {exc}")
    sys.exit()
others = [i for i in set(runs.instance) if not any(fnmatch.fnmatchcase(i, g.strip()) for g in globs)]
if not others:
    print(f"error: ONLY re-runs part of suite {suite}, but STORE holds none of its other cells, so its board "
          "would show the re-run instances only")
PY
) || exit 2
    if [ -z "$found" ]; then
      continue
    fi
    if [ -e "leaderboards/$suite/runs.jsonl.xz" ]; then
      TO_IMPORT+=("$suite")  # e.g. a fresh checkout: the board's own runs are the earlier publish
    else
      echo "$found; and leaderboards/$suite ships no runs.jsonl.xz to load; point STORE at the earlier publish's" \
           "store, or unset ONLY" >&2
      exit 2
    fi
  done
fi

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
hb_run() {  # one `hopbench run` of the publish, with the shared arguments
  if [ -z "$ONLY" ]; then
    run hopbench run "$@" --storage "$STORE" --jobs "$JOBS" --no-progress --allow-failures $EXTRA
    return
  fi
  local glob
  for glob in "${ONLY_LIST[@]}"; do
    # (a glob this command's selection leaves empty, e.g. a small instance under --min-nodes, is skipped)
    # (the probe names a solver that does not exist: it runs nothing, and its one-line error says
    # whether the selection was empty first)
    probe=$(hopbench run "$@" --instances "$glob" --storage "$STORE" --solver none-such 2>&1 >/dev/null || true)
    if [[ "$probe" == *"has no instance"* ]]; then
      continue
    fi
    run hopbench run "$@" --instances "$glob" --rerun all --storage "$STORE" --jobs "$JOBS" --no-progress \
      --allow-failures $EXTRA
  done
}


# Budgets: fast solvers run to completion under the suites' limits; the solvers that use their whole
# time budget (the genetic algorithms; annealing, unless it meets the lower bound) get a stated one.  A cell's budget
# is part of its identity, so these rows are labelled by it and a longer run is another row, not a
# replacement.
# --allow-failures: a cell that fails (error, timeout) is recorded and counted in its board row's
# "errors" column; it must not stop the publish (`hopbench run` would otherwise exit 1).
SHORTCUT_FAST=random,edgecut-full,edgecut-lite,vrs,random-matching

publish_edgecut2022() {
  # EdgeCut suite (Fuad et al. 2022): every shortcut solver x 5 seeds (milp, deterministic, 1 seed).
  hb_run --suite edgecut2022 --seeds 5 --solver "$SHORTCUT_FAST"
  # VRS as the EdgeCut paper read it (sequential order, base distances: its Table 2 diameters), a
  # second vrs row beside the specified one (random order, current distances); see docs/solvers-greedy.md.
  hb_run --suite edgecut2022 --seeds 5 --solver vrs --param vrs.order=sequential --param vrs.distances=base
  hb_run --suite edgecut2022 --seeds 5 --solver annealing --time-limit 10
  hb_run --suite edgecut2022 --seeds 1 --solver milp --time-limit 30
}

publish_koibuchi2012() {
  # Koibuchi et al. 2012 random-shortcut instances up to N = 1024 (2^6 .. 2^10): regular problems,
  # so random-matching (Koibuchi's own construction); milp would only reach its time limit here.
  hb_run --suite koibuchi2012 --max-nodes 1024 --solver random-matching
}

publish_equality2022() {
  # Equality networks (Liang et al. 2022): the GA instances, with unconstrained solvers for
  # comparison; equality-ga at 600 s, the budget docs/equality.md's comparison with the paper used.
  hb_run --suite equality2022 --seeds 1 --solver equality-ga --time-limit 600
  hb_run --suite equality2022 --seeds 1 --solver random,edgecut-full --time-limit 60
}

publish_angara2021() {
  # Angara routing tables (Mukosey et al. 2021), tori of at most 256 nodes (129 of the 159): the
  # routing tables of the 30 largest 3D/4D tori would add about 70 MB of solution files.
  hb_run --suite angara2021 --max-nodes 256 --solver dor,angara-bfs,angara-sssp
  hb_run --suite angara2021 --max-nodes 256 --solver angara-ga --time-limit 20
}

publish_exact-small() {
  # Small instances with proven optima: every shortcut solver.
  hb_run --suite exact-small --solver "$SHORTCUT_FAST,milp"
  hb_run --suite exact-small --solver annealing --time-limit 10
}

publish_graphgolf() {
  # Graph Golf's order/degree problem (the featured pairs with n <= 10,000; empty base, degree <= d):
  # annealing in swap mode (its defaults: a regular start, 2-opt swaps, automatic symmetry), 3 seeds
  # x 120 s up to 1,024 vertices and 1 seed x 300 s above; random-matching (Koibuchi et al.'s random
  # regular construction) beside it as the baseline.  lift-tabu (tabu search over cyclic lifts) on
  # (512, 4), the one pair up to 1,024 vertices where annealing misses the best-known diameter (its
  # other pairs would add about 70 minutes; docs/graphgolf.md).
  hb_run --suite graphgolf --max-nodes 1024 --seeds 3 --solver annealing --time-limit 120
  hb_run --suite graphgolf --min-nodes 1025 --seeds 1 --solver annealing --time-limit 300
  hb_run --suite graphgolf --instances 'empty:512/cap4/*' --seeds 3 --solver lift-tabu --time-limit 120
  hb_run --suite graphgolf --seeds 3 --solver random-matching --time-limit 10
}

publish_angara2021-traffic() {
  # The angara2021 board's routing tables (DOR, BFS, SSSP, GA; one per torus) simulated on their tori, one seed
  # (it draws only the packet arrivals); every cell ends on its own (saturation by bisection, then the curve).
  hb_run --suite angara2021-traffic --solver simulator
}

publish_koibuchi2012-traffic() {
  # Koibuchi et al. 2012 Sect. IV, the 64-switch networks (24 cells, about 15 minutes on 2 cores).  The 256-switch
  # networks and the faulty DLN-2-6 (24 cells of 5 to 30 minutes each) are not published yet.
  hb_run --suite koibuchi2012-traffic --max-nodes 64 --solver simulator
}

publish_throughput-small() {
  # Throughput as an objective: every problem posed with aspl and with channel-load, and a budget sweep; the
  # three solvers that take channel-load, 3 seeds each under the suite's evaluation budget.
  hb_run --suite throughput-small --solver annealing,edgecut-full,random
}

# The shipped runs first, all of them before any run: each is re-checked, and a refused file stops the publish
# before anything is run or written.
declare -A SUITE_COMMANDS
declare -A IMPORTED
for suite in "${TO_IMPORT[@]}"; do
  COMMANDS=()
  # (no `|| exit` here: it would switch off `set -e` inside run(), and a refused file would not stop the publish)
  run hopbench results --merge-from "leaderboards/$suite/runs.jsonl.xz" --storage "$STORE"
  IMPORTED[$suite]=${COMMANDS[0]}
done
for suite in "${LIST[@]}"; do
  COMMANDS=()
  [ -z "${IMPORTED[$suite]:-}" ] || COMMANDS+=("${IMPORTED[$suite]}")
  "publish_$suite"
  SUITE_COMMANDS[$suite]=$(printf '%s\n' "${COMMANDS[@]}")
done

# The boards, plots, solution files and site, from the recorded runs.
# (solution files over 20 kB, mostly routing tables, are gzipped: about 8x smaller)
# Boards before the manifest (.hopbench-manifest.json) recorded no list of what they wrote, and
# `hopbench board` deletes only files its manifest lists: clear such folders once, by hand, here
# (only those of the suites published now; the site is rebuilt from every board).
for dir in leaderboards/site "${LIST[@]}"; do
  [ "$dir" = leaderboards/site ] || dir=leaderboards/$dir
  if [ -d "$dir" ] && [ ! -e "$dir/.hopbench-manifest.json" ]; then
    rm -rf "$dir"
  fi
done
# The generated folders of the suites published now go, so that nothing of the earlier build stays behind: the
# board removes the files of its previous build only when its manifest is signed with this user's key, and a
# checkout's manifest was signed on the machine that published it (their runs are in STORE by now).
for suite in "${LIST[@]}"; do
  rm -rf "leaderboards/$suite/solutions" "leaderboards/$suite/plots"
done
COMMANDS=()
# --force: the committed boards were written by hopbench, but on a fresh checkout (or another machine) no
# manifest here is signed with this user's key, so hopbench cannot tell them from files it did not write;
# publishing regenerates them on purpose.  (An unsigned manifest still removes nothing.)
# --with-runs: each board ships its runs (runs.jsonl.xz), so a later partial publish needs no earlier store.
run hopbench board --suite "$SUITES" --storage "$STORE" -o leaderboards --compress-over 20000 --force --with-runs
BOARD_COMMAND=${COMMANDS[0]}

# Every solution the rebuilt boards link to must verify (the same test CI runs over all the committed files).
python -m pytest -q tests/test_published_boards.py -k "$(printf '%s\n' "${LIST[@]}" | paste -sd ' ' | sed 's/ / or /g')"

# What each board shows was made when and by what the recorded runs say (a resumed publish spans
# several sittings; the runs, not this script's clock, are the record).
recorded() {  # the provenance lines of one suite's recorded runs
  python - "$STORE" "$1" <<'PY'
import sys

from harness.bench.store import Store

import pandas as pd

runs = Store.open(sys.argv[1]).dataframe(with_solutions=False)
runs = runs[runs.study.isna() & (runs.suite == sys.argv[2])]
runs = runs.assign(cores=runs.cores.astype("Int64"))  # killed cells carry no cores: keep whole numbers
def listed(column):
    return ", ".join(sorted(str(v) for v in set(runs[column].dropna())))
started, finished = (pd.to_datetime(runs[c], utc=True) for c in ("started_at", "finished_at"))
print(f"- runs: {len(runs)} cells, started {started.min():%Y-%m-%d %H:%M} to finished "
      f"{finished.max():%Y-%m-%d %H:%M} (UTC)")
print(f"- code: hopbench {listed('hopbench_version')} at git commit {listed('git_commit')}; Python "
      f"{listed('python_version')}, numpy {listed('numpy_version')}, numba {listed('numba_version')}")
print(f"- hosts: {listed('host')} ({listed('cores')} cores)")
# the time a suite costs: its cells' own run times added up (a publish on N cores takes about this / N of wall
# time, plus the warm-ups; the span above may cover several sittings)
cell_s = float(runs.elapsed_s.fillna(0).sum())
per_cell = cell_s / max(len(runs), 1)
print(f"- time: {cell_s / 60:.0f} min of cell run time in all ("
      + (f"{per_cell / 60:.1f} min" if per_cell >= 60 else f"{per_cell:.1f} s") + " a cell)")
PY
}
built=$(date -u +%Y-%m-%dT%H:%MZ)

# (each probe may be missing on some systems; the file then says "unknown", the publish goes on)
cpu=$({ lscpu 2>/dev/null || true; } | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)
mem=$({ free -g 2>/dev/null || true; } | awk '/^Mem:/ {print $2 " GB"}')
os=$( (. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-}") || true)
mkdir -p leaderboards/provenance
for suite in "${LIST[@]}"; do
  {
    echo "## $suite"
    echo
    only_shown=${ONLY:+ONLY=\'$ONLY\' }
    echo "With \`STORE=$(echo "$STORE" | sed -E 's#://[^@/]*@#://***@#')\` and \`JOBS=$JOBS\` (\`${only_shown}SUITES=$SUITES leaderboards/publish.sh\`):"
    echo
    echo '```bash'
    printf '%s\n' "${SUITE_COMMANDS[$suite]}"
    echo "$BOARD_COMMAND"
    echo '```'
    echo
    if [ -n "$ONLY" ] && [ -e "leaderboards/provenance/$suite.md" ]; then
      # a partial re-run: the other cells come from the earlier publish, whose commands stay on record
      echo "These re-ran every cell of the instances matching \`$ONLY\`; the board's other cells were recorded by the earlier publish:"
      echo
      awk '/^```bash/ {on = 1} /^- runs:/ {exit} on' "leaderboards/provenance/$suite.md"
    fi
    recorded "$suite"
    echo "- board built: $built (UTC)"
    echo "- machine: $(hostname), ${cpu:-unknown CPU}, $(nproc) cores, ${mem:-unknown} RAM, ${os:-$(uname -sr)}"
  } > "leaderboards/provenance/$suite.md.tmp"  # (a failure half-way leaves the old file whole)
  mv "leaderboards/provenance/$suite.md.tmp" "leaderboards/provenance/$suite.md"
done

{
  echo "# Leaderboards"
  echo
  echo "Generated by \`hopbench board\` from recorded runs; nothing here is written by hand. Each suite has"
  echo "a directory with \`board.md\` (the board), \`board.csv\` (one row per instance, solver and parameter"
  echo "set), \`references.csv\` (the papers' published values), \`plots/\` and \`solutions/\` (the best run of"
  echo "every row, linked from the board); \`site/index.html\` is the static site (open it from disk)."
  echo "Column definitions: [docs/leaderboards.md](../docs/leaderboards.md)."
  echo
  echo "# How each board was made"
  echo
  echo "\`leaderboards/publish.sh\` wrote each section below when it last published that suite (from"
  echo "\`leaderboards/provenance/<suite>.md\`): the exact commands, the recorded runs, the machine and the date."
  for suite in "${ALL_LIST[@]}"; do
    if [ -e "leaderboards/provenance/$suite.md" ]; then
      echo
      cat "leaderboards/provenance/$suite.md"
    fi
  done
  echo
  echo "# Re-verify"
  echo
  echo "\`hopbench verify leaderboards/<suite>/solutions/<file>.json\` re-checks one linked solution from"
  echo "scratch (files over 20 kB are gzip-compressed as \`.json.gz\`);"
  echo "\`pytest tests/test_published_boards.py\` checks every file every board links to."
  echo
  echo "# The runs behind each board"
  echo
  echo "Each board ships every run it was built from, beside it: \`leaderboards/<suite>/runs.jsonl.xz\`"
  echo "(xz-compressed JSON lines: every row of the results store with its parameters, provenance, anytime trace"
  echo "and solution; a solution the board ships under \`solutions/\` is referenced by its file and sha256, not"
  echo "repeated).  Load one into a store to re-analyse it, or to re-run part of a suite on a fresh checkout:"
  echo
  echo '\`\`\`bash'
  echo "hopbench results --merge-from leaderboards/<suite>/runs.jsonl.xz --storage sqlite:///mine.db"
  echo "ONLY='<instance glob>' SUITES=<suite> leaderboards/publish.sh      # loads the shipped runs itself"
  echo "IMPORT=1 SUITES=<suite> leaderboards/publish.sh                   # republish from the shipped runs alone"
  echo '\`\`\`'
  echo
  echo "Nothing in the file is trusted: loading it re-verifies every ok row's solution from scratch as an answer"
  echo "to its instance's problem (the instance id derived from its fields, the cell key from its fields), and"
  echo "compares every number the row claims with the recomputed one; one refused row (each said in one line)"
  echo "refuses the whole file.  Format and checks: [docs/leaderboards.md](../docs/leaderboards.md#the-runs-behind-a-board)."
} > leaderboards/README.md
echo "published: $SUITES (leaderboards/README.md, leaderboards/provenance/, site/index.html); review and commit it" >&2
