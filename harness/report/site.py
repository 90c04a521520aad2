"""The static leaderboard site: plain HTML, one small local script, no server, no CDN.

:func:`write_site` rebuilds ``<out>/site/`` from the board files that
``hopbench board`` wrote (``<out>/<suite>/board.json``, ``board.csv``,
``references.csv``, ``plots/``, ``solutions/``), so the index lists every suite
built so far::

    site/index.html        the suites, with their sizes and provenance
    site/<suite>.html      the plots and one sortable table per instance group;
                           each row's best value links to its solution file
    site/hopbench.js       table sorting (click a header) and the page self-test
    site/hopbench.css

All links are relative (``../<suite>/plots/...``), so the site works when opened
from ``file://``.  The board files are read as untrusted documents: a ``board.json``
whose suite is not the safe name of its directory (``../../x``, an absolute path,
``index``) or whose keys have the wrong types is a one-line error, before anything is
written; ``site/`` is an :class:`~hopbench.harness.outputs.OwnedDirectory` (only its own files
are replaced or removed).  Opening a page with ``#selftest`` runs a self-check after
load: it sorts a table both ways and writes what it saw, with any script error
caught on the page, as JSON into ``<pre id="selftest">`` (used by the headless
Chromium test).
"""
from __future__ import annotations

import html
import io
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hopbench.harness import inputs
from hopbench.harness.errors import HopbenchError
from hopbench.harness.outputs import OwnedDirectory, safe_name
from hopbench.harness.problems.registry import get_kind, kind_of_objective
from hopbench.harness.report.formatting import (column_legend, csv_unsafe, declined_note, drop_empty_columns, few_seeds_note,
                                       fmt_failed, fmt_gap, fmt_metric, fmt_num, fmt_time, interleave,
                                       metric_columns_by_group, names_metric, params_with_budget, reference_label,
                                       reference_metric)

SITE_DIR = "site"
#: suite names that would collide with the site: its directory and its index page
RESERVED_NAMES = (SITE_DIR, "index")

JS = r"""/* hopbench leaderboard tables: click a header to sort; '#selftest' checks the page. */
(function () {
  'use strict';

  function cellValue(row, col, numeric) {
    var cell = row.cells[col];
    if (!cell) { return null; }
    var raw = cell.hasAttribute('data-value') ? cell.getAttribute('data-value') : cell.textContent.trim();
    if (raw === '') { return null; }
    if (numeric) {
      var x = Number(raw);
      return isNaN(x) ? null : x;
    }
    return raw.toLowerCase();
  }

  function sortTable(table, col, ascending) {
    var th = table.tHead.rows[0].cells[col];
    var numeric = th.getAttribute('data-type') === 'num';
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (row, i) { return { row: row, value: cellValue(row, col, numeric), i: i }; });
    keyed.sort(function (a, b) {
      // blanks last whichever the direction; equal values keep their order (stable)
      if (a.value === null || b.value === null) {
        if (a.value === b.value) { return a.i - b.i; }
        return a.value === null ? 1 : -1;
      }
      if (a.value < b.value) { return ascending ? -1 : 1; }
      if (a.value > b.value) { return ascending ? 1 : -1; }
      return a.i - b.i;
    });
    keyed.forEach(function (k) { body.appendChild(k.row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
  }

  function onHeaderClick(event) {
    var th = event.currentTarget;
    var table = th.closest('table');
    var ascending = th.getAttribute('aria-sort') !== 'ascending';
    sortTable(table, th.cellIndex, ascending);
  }

  function rowKeys(table) {
    return Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.getAttribute('data-row'); });
  }

  function columnValues(table, col) {
    var numeric = table.tHead.rows[0].cells[col].getAttribute('data-type') === 'num';
    return Array.prototype.map.call(table.tBodies[0].rows, function (r) { return cellValue(r, col, numeric); });
  }

  function selfTest() {
    // width: whether the page fits the window (a wide table scrolls inside its own box instead)
    var out = { page: document.title, errors: window.__hopbenchErrors || [], tables: [], sort: null,
                width: { view: window.innerWidth, page: document.documentElement.scrollWidth } };
    var tables = document.querySelectorAll('table.sortable');
    Array.prototype.forEach.call(tables, function (t) { out.tables.push({ id: t.id, rows: rowKeys(t) }); });
    for (var k = 0; k < tables.length && out.sort === null; k++) {
      var t = tables[k];
      var th = t.querySelector('th[data-key="' + (document.body.getAttribute('data-selftest-key') || 'mean') + '"]');
      if (!th) { continue; }
      var distinct = {};
      columnValues(t, th.cellIndex).forEach(function (v) { if (v !== null) { distinct[v] = true; } });
      if (Object.keys(distinct).length < 2) { continue; }
      var before = rowKeys(t);
      th.click();
      var asc = rowKeys(t), ascValues = columnValues(t, th.cellIndex);
      th.click();
      var desc = rowKeys(t), descValues = columnValues(t, th.cellIndex);
      out.sort = { table: t.id, column: th.getAttribute('data-key'), before: before, asc: asc,
                   ascValues: ascValues, desc: desc, descValues: descValues,
                   ascSort: th.getAttribute('aria-sort') };
    }
    var pre = document.getElementById('selftest');
    pre.textContent = JSON.stringify(out);
    pre.hidden = false;
    document.body.setAttribute('data-selftest', 'done');
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll('table.sortable th'), function (th) {
      th.addEventListener('click', onHeaderClick);
      th.title = th.title || 'click to sort';
    });
    if (window.location.hash === '#selftest') {
      // after 'load': a missing image reports its error only once the browser has tried it
      if (document.readyState === 'complete') { selfTest(); } else { window.addEventListener('load', selfTest); }
    }
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
}());
"""

CSS = """body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 110em; padding: 0 1em;
       color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; }
nav { margin-bottom: 1em; }
p.prov, p.legend { font-size: 0.85em; color: #555; max-width: 80em; }
table { border-collapse: collapse; font-size: 0.82em; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.45em; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; cursor: pointer; user-select: none; }
/* a table wider than the window scrolls in its own box, the page does not; long text (solver lists,
   descriptions, reference labels) wraps at spaces within 12-24em; ids, names and numbers never break */
div.scroll { overflow-x: auto; max-width: 100%; }
td.wrap { white-space: normal; min-width: 12em; max-width: 24em; }
#suites td.wrap { min-width: 8em; } td.date { white-space: normal; min-width: 6em; }
td.desc { overflow-wrap: anywhere; }  /* a URL in a description may break */
small.few { color: #a15c00; }
ul.declined { font-size: 0.85em; color: #555; max-width: 80em; }  /* why a solver declined, whole */
th[aria-sort=ascending]::after { content: " \\25B2"; }
th[aria-sort=descending]::after { content: " \\25BC"; }
td.text, th.text { text-align: left; }
tr.published td { background: #fff8e6; font-style: italic; }
tr.ours:hover td { background: #eef5ff; }
figure { display: inline-block; margin: 0.5em 1em 0.5em 0; vertical-align: top; }
figure img { max-width: 40em; border: 1px solid #ddd; }
figcaption { font-size: 0.8em; color: #555; }
pre#selftest { white-space: pre-wrap; font-size: 0.7em; }
"""

#: installed first on every page: records script errors and console.error calls for the self-test
ERROR_HOOK = ("window.__hopbenchErrors=[];window.addEventListener('error',function(e){"
              "var t=e.target;window.__hopbenchErrors.push(e.message?String(e.message):"
              "'failed to load '+((t&&(t.src||t.href))||'a resource'));},true);"
              "(function(){var ce=console.error;console.error=function(){"
              "window.__hopbenchErrors.push(Array.prototype.map.call(arguments,String).join(' '));"
              "return ce.apply(console,arguments);};}());")

PLOT_CAPTIONS = {
    "objective_vs_n": "Mean objective (± 95% CI over seeds) against N, per base topology / group and solver.",
    "anytime": "Anytime curves: best objective so far against wall time, median (line) and quartiles (band) "
               "over seeds, for the largest instance of each group.",
    "winrate": "Win rate: share of the instances both solved where the row's solver has the strictly lower "
               "mean objective.",
}


def _e(text: Any) -> str:
    return html.escape("" if text is None else str(text), quote=True)


def _anchor(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "x"


def _page(title: str, body: list[str]) -> str:
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        '<link rel="icon" href="data:,">',  # no favicon request (nothing to fetch from file://)
        f"<script>{ERROR_HOOK}</script>",
        '<link rel="stylesheet" href="hopbench.css">',
        '<script src="hopbench.js" defer></script>',
        "</head>",
        "<body>",
        *body,
        '<pre id="selftest" hidden></pre>',
        "</body>",
        "</html>",
        "",
    ])


def _num_attr(x: Any) -> str:
    """A sortable ``data-value``: JavaScript's Number() reads these (blank = missing)."""
    if x is None:
        return ""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return ""
    if math.isnan(x):
        return ""
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return repr(x)


def _td(text: str, value: Any = None, *, cls: str = "", numeric: bool = True, title: str | None = None) -> str:
    attrs = ""
    if numeric:
        attrs += f' data-value="{_e(_num_attr(value))}"'
    if cls:
        attrs += f' class="{cls}"'
    if title:
        attrs += f' title="{_e(title)}"'
    return f"<td{attrs}>{text}</td>"


_BLANK_TD = re.compile(r"<td[^>]*></td>")


def _blank_cell(cell: str) -> bool:
    """Whether a rendered cell shows nothing."""
    return bool(_BLANK_TD.fullmatch(cell))


def _ci_cell(rec: dict[str, Any]) -> str:
    """The 95% CI cell, marked when it rests on two seeds (:func:`few_seeds_note`)."""
    text = fmt_num(rec["ci95"])
    note = few_seeds_note(rec)
    if note:
        return _td(f'{text} <small class="few">{_e(note)}</small>', rec["ci95"],
                   title=f"a 95% CI from {int(rec['runs'])} runs: Student's t(0.975, 1) = 12.7 makes it very wide")
    return _td(text, rec["ci95"])


def check_suite_name(name: Any, what: str = "suite name") -> str:
    """A suite name that can name its board directory and its page: a :func:`~hopbench.harness.outputs.safe_name`,
    neither the site's directory nor its index page."""
    safe_name(name, what)
    if name in RESERVED_NAMES:
        raise HopbenchError(f"{what} {name!r} cannot name a board: {SITE_DIR}/ and {SITE_DIR}/index.html are the "
                            f"site's; rename the suite")
    return name


#: the expected type of each ``board.json`` key the pages use (the file may come from anywhere)
_META_TYPES: dict[str, type | tuple[type, ...]] = {
    "suite": str, "description": str, "kinds": list, "solvers": list, "groups": list, "plots": dict,
    "provenance": dict, "instances": int, "rows": int, "references": int}
_PROVENANCE_TYPES: dict[str, type | tuple[type, ...]] = {
    "runs": int, "statuses": dict, "hopbench_versions": list, "git_commits": list, "hosts": list,
    "first_started": (str, type(None)), "last_finished": (str, type(None))}


def _read_meta(suite_dir: Path) -> dict[str, Any]:
    """A suite directory's ``board.json``, checked: its suite is the directory's (safe) name and every
    key the pages use has its type; anything else is a one-line error naming the file."""
    path = suite_dir / "board.json"
    text = inputs.read_text(path, "board file")
    inputs.check_nesting(text, str(path))
    fix = f"rebuild it with 'hopbench board' or remove {suite_dir}"
    try:
        meta = json.loads(text)
    except ValueError as exc:
        raise HopbenchError(f"{path} is not valid JSON ({exc}); {fix}") from None
    if not isinstance(meta, dict):
        raise HopbenchError(f"{path} is not a board summary (a JSON object); {fix}")
    check_suite_name(meta.get("suite"), f"{path}: suite")
    if meta["suite"] != suite_dir.name:
        raise HopbenchError(f"{path} names suite {meta['suite']!r} but lies in {suite_dir.name}/ (a board's "
                            f"directory is its suite's name); {fix}")
    for where, doc, types in (("", meta, _META_TYPES), ("provenance.", meta.get("provenance", {}), _PROVENANCE_TYPES)):
        for key, kind in types.items():
            value = doc.get(key)
            if key in doc and (not isinstance(value, kind) or isinstance(value, bool)
                               or (isinstance(value, list) and not all(isinstance(v, str) for v in value))
                               or (isinstance(value, dict) and not all(isinstance(k, str) for k in value))):
                raise HopbenchError(f"{path}: {where}{key} has the wrong type ({type(value).__name__}); {fix}")
    if not all(isinstance(v, str) for v in meta.get("plots", {}).values()):
        raise HopbenchError(f"{path}: plots must map names to paths; {fix}")
    return meta


def _read_board(suite_dir: Path) -> tuple[dict[str, Any], Any, Any]:
    import pandas as pd

    meta = _read_meta(suite_dir)
    text_cols = {c: str for c in ("suite", "instance", "group", "solver", "params", "params_json", "solution",
                                  "published_metric", "objective_name", "source", "label", "note", "extra", "budget",
                                  "declined_reasons")}
    tables = []
    for name in ("board.csv", "references.csv"):
        text = inputs.read_text(suite_dir / name, "board file")
        try:
            table = pd.read_csv(io.StringIO(text), dtype=text_cols, keep_default_na=False, na_values=[""])
        except (ValueError, pd.errors.ParserError) as exc:
            raise HopbenchError(f"{suite_dir / name} is not a board table ({str(exc).splitlines()[0]}); rebuild it "
                                f"with 'hopbench board' or remove {suite_dir}") from None
        for col in table.columns:
            if col in text_cols:  # undo csv_safe: the page shows the text itself
                table[col] = table[col].map(csv_unsafe)
        tables.append(table)
    return meta, tables[0], tables[1]


def _clean(rec: dict[str, Any]) -> dict[str, Any]:
    # pandas reads blanks as NaN; the renderers treat None and NaN alike, text fields want None
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in rec.items()}


def _kind_of(rec: dict[str, Any]) -> str:
    """A board row's problem kind, from its objective (objective names are unique across kinds)."""
    return kind_of_objective(str(rec.get("objective_name"))).name


def suite_page(meta: dict[str, Any], rows, refs) -> str:
    """The HTML page of one suite's board."""
    suite = meta["suite"]
    prov = meta.get("provenance", {})
    statuses = ", ".join(f"{v} {k}" for k, v in prov.get("statuses", {}).items())
    body = ['<nav><a href="index.html">All suites</a></nav>', f"<h1>Leaderboard: {_e(suite)}</h1>"]
    if meta.get("description"):
        body.append(f"<p>{_e(meta['description'])}</p>")
    body.append(
        f'<p class="prov">Generated by <code>hopbench board</code> from {_e(prov.get("runs", 0))} recorded runs '
        f"({_e(statuses)}); runs recorded {_e(prov.get('first_started') or '?')} to "
        f"{_e(prov.get('last_finished') or '?')}; hopbench {_e(', '.join(prov.get('hopbench_versions', [])) or '?')};"
        f" git commit {_e(', '.join(c[:10] for c in prov.get('git_commits', [])) or 'unknown')}; host "
        f"{_e(', '.join(prov.get('hosts', [])) or 'unknown')}. Files: "
        f'<a href="../{_e(suite)}/board.md">board.md</a>, <a href="../{_e(suite)}/board.csv">board.csv</a>, '
        f'<a href="../{_e(suite)}/references.csv">references.csv</a>.</p>')
    plots = meta.get("plots", {})
    records = [_clean(r) for r in rows.to_dict("records")]  # every row, also one whose cells were all declined
    ref_records = [_clean(r) for r in refs.to_dict("records")]
    has_best_known = any(r.get("best_known") is not None for r in records)
    # each group's metric columns (a difference column only where some row has a value)
    shown = metric_columns_by_group(records, _kind_of)
    groups = list(shown)
    legend_at = len(body)  # the legend goes here once the tables say which columns they kept
    kept_heads: list[str] = []
    declined = 0  # declined notes, numbered d1, d2, ... over the page as in board.md
    by_instance: dict[str, list[dict[str, Any]]] = {}
    for ref in ref_records:
        by_instance.setdefault(ref["instance"], []).append(ref)
    if groups or plots:
        links = [f'<a href="#g-{_anchor(g)}">{_e(g)}</a>' for g in groups]
        links += ['<a href="#plots">plots</a>'] if plots else []
        body.append("<p>Groups: " + ", ".join(links) + "</p>")
    for number, group in enumerate(groups, 1):
        in_group = [r for r in records if r["group"] == group]
        mcols = shown[group]
        heads = [("instance", "Instance", "text"), ("n", "N", "num"), ("solver", "Solver", "text"),
                 ("params", "Params", "text"), ("runs", "Runs", "num"), ("failed", "Failed", "text"),
                 ("mean", "Mean", "num"), ("ci95", "± 95% CI", "num"), ("best", "Best", "num"),
                 *[(c.column, c.header, "num") for c in mcols], ("median_time_s", "Median time (s)", "num"),
                 ("gap_lower_bound", "Gap LB", "num"), ("gap_optimum", "Gap opt.", "num")]
        if has_best_known:
            heads.append(("gap_best_known", "Gap b.k.", "num"))
        heads += [("gap_published", "Gap pub.", "num"), ("rank", "Rank", "num")]
        body.append(f'<h2 id="g-{_anchor(group)}">{_e(group)}</h2>')
        table: list[tuple[str, list[str]]] = []  # (the <tr ...> opening, its cells)
        declined_notes: list[str] = []
        for instance in dict.fromkeys(r["instance"] for r in in_group):
            block = [r for r in in_group if r["instance"] == instance]
            n = block[0]["n"]
            for what, rec in interleave(block, by_instance.get(instance, [])):
                if what == "ours":
                    key = f"{instance}|{rec['solver']}|{rec['params']}"
                    best = fmt_num(rec["best"])
                    if best and rec.get("solution"):
                        best = f'<a href="../{_e(suite)}/{_e(rec["solution"])}">{best}</a>'
                    pub = fmt_gap(rec["gap_published"])
                    if pub and names_metric(rec):
                        pub += f" ({_e(rec['published_metric'])})"
                    why = declined_note(rec)
                    if why:  # the reason whole: a tooltip on the cell and a numbered note under the table
                        declined += 1
                        failed_cell = _td(f'{_e(fmt_failed(rec))} <a href="#d{declined}">(d{declined})</a>',
                                          cls="text", numeric=False, title=why)
                        declined_notes.append(f'<li id="d{declined}"><b>d{declined}</b> {_e(why)}</li>')
                    else:
                        failed_cell = _td(_e(fmt_failed(rec)), cls="text", numeric=False)
                    cells = [_td(_e(instance), cls="text", numeric=False), _td(fmt_num(n), n),
                             _td(_e(rec["solver"]), cls="text", numeric=False),
                             _td(_e(params_with_budget(rec)), cls="text", numeric=False), _td(str(int(rec["runs"])), rec["runs"]),
                             failed_cell,
                             _td(fmt_num(rec["mean"]), rec["mean"]), _ci_cell(rec),
                             _td(best, rec["best"]),
                             *[_td(fmt_metric(c, rec[c.column]), rec[c.column]) for c in mcols],
                             _td(fmt_time(rec["median_time_s"]), rec["median_time_s"]),
                             _td(fmt_gap(rec["gap_lower_bound"]), rec["gap_lower_bound"]),
                             _td(fmt_gap(rec["gap_optimum"]), rec["gap_optimum"])]
                    if has_best_known:
                        cells.append(_td(fmt_gap(rec["gap_best_known"]), rec["gap_best_known"]))
                    cells += [_td(pub, rec["gap_published"]), _td(fmt_num(rec["rank"]), rec["rank"])]
                    table.append((f'<tr class="ours" data-row="{_e(key)}">', cells))
                else:
                    key = f"†|{instance}|{rec.get('label')}|{rec.get('source')}"
                    blank = _td("", None)
                    cells = [_td(_e(instance), cls="text", numeric=False), _td(fmt_num(n), n),
                             _td(_e(reference_label(rec)), cls="text wrap", numeric=False, title=rec.get("note")),
                             _td("published", cls="text", numeric=False), blank, _td("", cls="text", numeric=False),
                             _td(fmt_num(rec.get("objective")), rec.get("objective")), blank, blank,
                             *[_td(reference_metric(c, rec), rec.get(c.metric) if c.minus is None else None)
                               for c in mcols],
                             blank, blank, blank]
                    if has_best_known:
                        cells.append(blank)
                    cells += [blank, blank]
                    table.append((f'<tr class="published" data-row="{_e(key)}">', cells))
        # a column blank in every row (Gap opt. without optima, the CI of single runs) is left out
        heads, cells_kept = drop_empty_columns(heads, [cells for _, cells in table], _blank_cell)
        kept_heads += [h for _, h, _ in heads]
        body.append(f'<div class="scroll"><table class="board sortable" id="table-{number}"><thead><tr>'
                    + "".join(f'<th data-key="{k}" data-type="{t}"' + (' class="text"' if t == "text" else "")
                              + f">{_e(h)}</th>" for k, h, t in heads)
                    + "</tr></thead><tbody>")
        body.extend(opening + "".join(cells) + "</tr>" for (opening, _), cells in zip(table, cells_kept))
        body.append("</tbody></table></div>")
        if declined_notes:
            body.append('<p class="legend">Declined, with the solver\'s reason:</p><ul class="declined">'
                        + "".join(declined_notes) + "</ul>")
    with_gap_lb = {_kind_of(r) for r in records if r.get("gap_lower_bound") is not None}
    legend = column_legend(kept_heads, (c for mcols in shown.values() for c in mcols),
                           bounds=sorted(get_kind(k).lower_bound_meaning for k in with_gap_lb),
                           published=bool(ref_records))
    legend = legend.replace("**", "").replace("*", "").replace("`", "")
    body.insert(legend_at, f'<details class="legend"><summary>What the columns mean</summary><p class="legend">'
                           f"{_e(legend)}</p></details>")
    if plots:
        body.append('<h2 id="plots">Plots</h2><section class="plots">')
        for name, rel in plots.items():
            src = f"../{suite}/{rel}"
            body.append(f'<figure><a href="{_e(src)}"><img src="{_e(src)}" alt="{_e(name)}"></a>'
                        f"<figcaption>{_e(PLOT_CAPTIONS.get(name, name))}</figcaption></figure>")
        body.append("</section>")
    return _page(f"hopbench leaderboard: {suite}", body)


def index_page(metas: list[dict[str, Any]]) -> str:
    """The site's index: one row per suite."""
    body = ["<h1>hopbench leaderboards</h1>",
            "<p>Generated by <code>hopbench board</code> from recorded runs; nothing here is written by hand. "
            "Every row links to the solution file of its best run, which <code>hopbench verify</code> re-checks "
            "from scratch.</p>"]
    if not metas:
        body.append("<p>No boards yet: run a suite, then <code>hopbench board</code>.</p>")
    else:
        heads = [("suite", "Suite", "text"), ("kinds", "Problems", "text"), ("instances", "Instances", "num"),
                 ("rows", "Rows", "num"), ("solvers", "Solvers", "text"), ("runs", "Runs", "num"),
                 ("last", "Last run", "text"), ("description", "Description", "text")]
        body.append('<div class="scroll"><table class="sortable" id="suites"><thead><tr>'
                    + "".join(f'<th data-key="{k}" data-type="{t}"' + (' class="text"' if t == "text" else "")
                              + f">{_e(h)}</th>" for k, h, t in heads) + "</tr></thead><tbody>")
        for m in metas:
            prov = m.get("provenance", {})
            cells = [_td(f'<a href="{_e(m["suite"])}.html">{_e(m["suite"])}</a>', cls="text", numeric=False),
                     _td(_e(", ".join(m.get("kinds", []))), cls="text", numeric=False),
                     _td(_e(m.get("instances", 0)), m.get("instances", 0)),
                     _td(_e(m.get("rows", 0)), m.get("rows", 0)),
                     _td(_e(", ".join(m.get("solvers", []))), cls="text wrap", numeric=False),
                     _td(_e(prov.get("runs", 0)), prov.get("runs", 0)),
                     _td(_e((prov.get("last_finished") or "").replace("T", " ")), cls="text date", numeric=False),
                     _td(_e(m.get("description", "")), cls="text wrap desc", numeric=False)]
            body.append(f'<tr data-row="{_e(m["suite"])}">' + "".join(cells) + "</tr>")
        body.append("</tbody></table></div>")
    return _page("hopbench leaderboards", body)


def board_dirs(out_dir: str | Path) -> list[Path]:
    """Suite directories under ``out_dir`` that hold a board (``board.json``), by name."""
    root = Path(out_dir)
    return sorted(p.parent for p in root.glob("*/board.json") if p.parent.name != SITE_DIR)


def write_site(out_dir: str | Path, *, protect: Mapping[str | Path, str] | None = None, force: bool = False) -> Path:
    """(Re)build ``out_dir/site`` from every board under ``out_dir``; returns the index path.

    Every board is read and checked before anything is written; the site directory is an
    :class:`~hopbench.harness.outputs.OwnedDirectory` (the pages of boards that are gone are removed, files
    someone else put there stay), and ``protect`` names files that must never be written.
    """
    root = Path(out_dir)
    pages: dict[str, str] = {}
    metas = []
    for suite_dir in board_dirs(root):
        meta, rows, refs = _read_board(suite_dir)
        try:
            pages[f"{meta['suite']}.html"] = suite_page(meta, rows, refs)
        except (KeyError, TypeError, ValueError) as exc:  # a board.csv edited by hand (or by someone else)
            raise HopbenchError(f"the board in {suite_dir} cannot be shown ({type(exc).__name__}: {exc}); rebuild "
                                f"it with 'hopbench board' or remove {suite_dir}") from None
        metas.append(meta)
    with OwnedDirectory(root / SITE_DIR, inside=root, protect=protect, force=force,
                        expect=("index.html", "hopbench.js", "hopbench.css")) as site:
        site.write_text("hopbench.js", JS)
        site.write_text("hopbench.css", CSS)
        for name, page in pages.items():
            site.write_text(name, page)
        index = site.write_text("index.html", index_page(metas))
    return index
