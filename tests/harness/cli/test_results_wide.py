"""``hopbench results --wide``: the table with every cell whole, so the reason a solver declined an
instance (or a long error) can be read; the default table cuts a cell at 60 characters and says so on
stderr."""
from __future__ import annotations

from hopbench.harness.bench.store import Store

REASON = ("the model would have about 3,688,352 Boolean terms, above max_terms=3,000,000; raise max_terms "
          "to try anyway (this reason goes on past sixty characters: the end must still be readable)")


def _store(tmp_path) -> str:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    store = Store.open(url)
    common = dict(suite="mine", instance="ring:64/cap10/b16/aspl", instance_spec={"base": "ring:64"},
                  kind="shortcut", params={}, params_tag="default", seed=1, metrics={}, elapsed_s=0.1)
    store.record(dict(common, cell_key="a", solver="milp", status="skipped", error=REASON))
    store.record(dict(common, cell_key="b", solver="random", status="ok", objective=4.5, diameter=8.0, aspl=4.5,
                      evaluations=1, solution={"format": "hopbench.solution/1"}))
    store.close()
    return url


def test_the_default_table_cuts_a_long_reason_and_says_how_to_see_it(cli, tmp_path):
    code, out, err = cli("results", "--storage", _store(tmp_path))
    assert code == 0, err
    assert REASON not in out and REASON[:50] in out and "..." in out
    assert "note: 1 cell(s) cut at 60 characters; --wide shows them whole" in err


def test_wide_shows_the_reason_whole(cli, tmp_path):
    code, out, err = cli("results", "--storage", _store(tmp_path), "--wide")
    assert code == 0, err
    milp = next(line for line in out.splitlines() if " milp " in line)
    assert milp.rstrip().endswith(REASON) and "skipped" in milp
    assert "note:" not in err
    # every line is as wide as the widest cell, as a table's lines are
    assert len({len(line) for line in out.splitlines()}) == 1
