"""The committed leaderboards (``leaderboards/<suite>/``) are re-verifiable.

Every solution file a published board links to -- from ``board.md``, ``board.csv``
or the site -- exists and passes the checks of ``hopbench verify`` (validity, then
the metrics recomputed from scratch), and its objective equals the row's *Best*.
A simulation result is checked without simulating it again (its metrics from its points,
its network file present), except the quickest one, which is simulated again in full.
The solution directories hold nothing else.  Nothing is skipped: the test ids
name every file checked, and while no board is committed the single id
``no-boards-committed-0-solution-files`` says so (and checks that there is indeed
no board).
"""
from __future__ import annotations

import functools
import math
import re
from pathlib import Path

import pandas as pd
import pytest

from hopbench.harness.documents import read_json
from hopbench.harness.problems.registry import verify_document
from hopbench.harness.traffic.kind import verify_traffic
from hopbench.harness.traffic.problem import TRAFFIC_FORMAT

ROOT = Path(__file__).resolve().parents[1]
BOARDS = ROOT / "leaderboards"
SOLUTION_SUFFIXES = (".json", ".json.gz")


def board_dirs() -> list[Path]:
    return sorted(p.parent for p in BOARDS.glob("*/board.csv"))


def _rows(suite_dir: Path) -> pd.DataFrame:
    return pd.read_csv(suite_dir / "board.csv", dtype={"solution": str, "instance": str, "solver": str},
                       keep_default_na=False, na_values=[""])


def links_of(suite_dir: Path) -> dict[str, set[Path]]:
    """Solution files a suite's board links to, by where the link is (md, csv, site)."""
    out: dict[str, set[Path]] = {"md": set(), "csv": set(), "site": set()}
    md = (suite_dir / "board.md").read_text()
    for target in re.findall(r"\]\((solutions/[^)\s]+)\)", md):
        out["md"].add((suite_dir / target).resolve())
    for target in _rows(suite_dir)["solution"].dropna():
        out["csv"].add((suite_dir / target).resolve())
    page = BOARDS / "site" / f"{suite_dir.name}.html"
    if page.exists():
        for target in re.findall(r'href="([^"]+)"', page.read_text()):
            if target.endswith(SOLUTION_SUFFIXES):
                out["site"].add((page.parent / target).resolve())
    return out


@functools.cache
def expected_best() -> dict[Path, float]:
    """Linked file -> the Best its row shows (read once: every board.csv takes about 0.2 s, and there is a test per
    linked file)."""
    best = {}
    for suite_dir in board_dirs():
        rows = _rows(suite_dir)
        for rel, value in zip(rows["solution"], rows["best"]):
            if isinstance(rel, str):
                best[(suite_dir / rel).resolve()] = float(value)
    return best


def linked_files() -> list[Path]:
    files: set[Path] = set()
    for suite_dir in board_dirs():
        for found in links_of(suite_dir).values():
            files |= found
    return sorted(files)


def traffic_files() -> list[Path]:
    """Linked simulation results (the rows whose objective is a saturation throughput), the quickest to
    re-simulate first (by the seconds each took); only those files are read."""
    found = []
    for suite_dir in board_dirs():
        rows = _rows(suite_dir)
        for rel, objective in zip(rows["solution"], rows["objective_name"]):
            if isinstance(rel, str) and objective == "saturation":
                path = (suite_dir / rel).resolve()
                doc = read_json(path)
                if doc.get("format") == TRAFFIC_FORMAT:
                    found.append((float(doc.get("elapsed_s") or 0), path))
    return [p for _, p in sorted(found)]


FILES = linked_files()
IDS = [str(p.relative_to(BOARDS)) if p.is_relative_to(BOARDS) else str(p) for p in FILES]
SUITES = board_dirs()


@pytest.mark.parametrize("path", FILES or [None], ids=IDS or ["no-boards-committed-0-solution-files"])
def test_linked_solution_verifies(path):
    if path is None:
        assert not board_dirs(), "boards are committed but link no solution file"
        return
    assert path.is_file(), f"linked solution {path} is missing"
    assert path.is_relative_to(BOARDS), f"{path} lies outside leaderboards/"
    doc = read_json(path)
    if doc.get("format") == TRAFFIC_FORMAT:
        # a simulation: its metrics re-derived from its points (the bisection replayed) and its network file
        # present; re-simulating every one would take minutes each, so test_a_published_simulation_reruns
        # re-simulates one in full
        network = doc.get("problem", {}).get("network", "")
        assert ":" in network or (ROOT / network).is_file(), f"{path}: its network {network!r} is not in the repository"
        verdict = verify_traffic(doc, rerun=False)
    else:
        verdict = verify_document(doc)
    assert verdict.valid, verdict.reason
    best = expected_best().get(path)
    if best is not None:
        got = float(verdict.metrics["objective"])
        assert (math.isinf(got) and math.isinf(best)) or math.isclose(got, best, rel_tol=1e-9), (got, best)


@pytest.mark.parametrize("suite_dir", SUITES or [None],
                         ids=[p.name for p in SUITES] or ["no-boards-committed-0-suites"])
def test_board_links_are_complete_and_consistent(suite_dir):
    if suite_dir is None:
        assert not linked_files()
        return
    links = links_of(suite_dir)
    rows = _rows(suite_dir)
    # every row with an ok run links its best solution, in the CSV, the markdown and the site alike
    assert rows.loc[rows["runs"] > 0, "solution"].notna().all()
    assert links["csv"] == links["md"]
    if (BOARDS / "site" / f"{suite_dir.name}.html").exists():
        assert links["site"] == links["csv"]
    # the solutions directory holds exactly the linked files (nothing stale, nothing unverified)
    on_disk = {p.resolve() for p in (suite_dir / "solutions").glob("*") if p.name.endswith(SOLUTION_SUFFIXES)}
    assert on_disk == links["csv"]


@pytest.mark.parametrize("suite_dir", SUITES or [None],
                         ids=[p.name for p in SUITES] or ["no-boards-committed-0-suites"])
def test_no_published_run_beats_its_suites_stated_optimum(suite_dir):
    """A published best better than the suite file's "proven optimum" proves that optimum wrong (as the
    graphgolf (40, 5) optimum 2.2333 was, against a published graph at the lower bound 2.230769)."""
    from hopbench.harness.bench.suites import load_suite
    from hopbench.harness.problems.registry import is_maximised

    if suite_dir is None:
        assert not linked_files()
        return
    optima = {inst.id: (inst.optimum, getattr(inst.problem(), "objective", ""))
              for inst in load_suite(suite_dir.name).instances if inst.optimum is not None}
    rows = _rows(suite_dir)
    for instance, best in zip(rows["instance"], rows["best"]):
        if instance not in optima or pd.isna(best):
            continue
        optimum, objective = optima[instance]
        margin = 1e-9 * max(1.0, abs(optimum))
        beats = best > optimum + margin if is_maximised(objective) else best < optimum - margin
        assert not beats, f"{suite_dir.name} {instance}: published best {best!r} beats the stated optimum {optimum!r}"


def test_a_published_simulation_reruns():
    """The quickest published simulation, simulated again from its row (seed, parameters): the same points."""
    files = traffic_files()
    if not files:
        assert not any(d.name.endswith("-traffic") for d in board_dirs()), "a traffic board links no simulation"
        return
    verdict = verify_document(read_json(files[0]))
    assert verdict.valid, f"{files[0]}: {verdict.reason}"


def test_a_shipped_board_is_rebuilt_from_its_runs_alone(tmp_path, cli):
    """The smallest board that ships its runs (exact-small), loaded into an empty store, every row re-checked,
    gives the committed board again: the same rows, numbers and links (in the columns the committed board has:
    later code may add columns) and the same runs archive, byte for byte."""
    board = ROOT / "leaderboards" / "exact-small"
    store = f"sqlite:///{tmp_path / 'fresh.db'}"
    code, _, err = cli("results", "--merge-from", board / "runs.jsonl.xz", "--storage", store)
    assert code == 0 and "every one re-checked" in err, err
    code, _, err = cli("board", "--suite", "exact-small", "--storage", store, "-o", tmp_path / "again", "--no-plots",
                       "--with-runs", "--compress-over", "20000")
    assert code == 0, err
    again = tmp_path / "again" / "exact-small"
    assert (again / "runs.jsonl.xz").read_bytes() == (board / "runs.jsonl.xz").read_bytes()
    for name in ("board.csv", "references.csv"):
        old, new = pd.read_csv(board / name), pd.read_csv(again / name)
        pd.testing.assert_frame_equal(new[list(old.columns)], old, obj=name)


#: parameters a solver gained after a board's runs were recorded, with a default other than "leave it out":
#: (suite, solver) -> those parameters.  An IMPORT republish re-runs these cells (their keys lack the parameter).
#: annealing's ``overbuild`` (9b7ca45) acts only above 1,024 vertices on an empty base, none of these instances.
PARAMETERS_ADDED_SINCE = {
    ("edgecut2022", "annealing"): {"overbuild"},
    ("exact-small", "annealing"): {"overbuild"},
    ("throughput-small", "annealing"): {"overbuild"},
}


@pytest.mark.parametrize("suite_dir", [d for d in SUITES if (d / "runs.jsonl.xz").exists()], ids=lambda d: d.name)
def test_shipped_runs_keep_their_cell_keys(suite_dir):
    """A cell's key is made of the parameters it records (the solver's whole configuration): a parameter added to a
    solver since would make the shipped cells look unrun to an IMPORT republish.  Every shipped run's parameters are
    what the solver records for them today, but for the known additions above."""
    import json
    import lzma

    from hopbench import solvers

    runs = [row for row in map(json.loads, lzma.open(suite_dir / "runs.jsonl.xz", "rt")) if "solver" in row]
    assert runs
    for row in runs:
        recorded = solvers.create(row["solver"], **row["params"]).recorded_config()
        added = set(recorded) - set(row["params"])
        assert added <= PARAMETERS_ADDED_SINCE.get((suite_dir.name, row["solver"]), set()), \
            f"{row['solver']} now records {sorted(added)}, which its shipped runs lack: declare it recorded_at_default=False"
        assert {k: v for k, v in recorded.items() if k not in added} == row["params"]
