"""The static site: self-contained pages (relative links only, every target present), the expected
rows, and -- in headless Chromium -- no console errors and working sorting.

The Chromium test loads ``page.html#selftest`` from ``file://``; the page then sorts a
table both ways and writes what it saw, with any script or resource error caught on
the page, into ``<pre id="selftest">``, which ``--dump-dom`` prints.  Chromium's own
console log (stderr) must stay empty too.  Without a Chromium binary the test is
skipped, unless ``HOPBENCH_REQUIRE_CHROMIUM`` is set (CI), where it fails.
"""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlparse

import pandas as pd
import pytest

from hopbench.harness.report.site import write_site
from tests.harness.report.test_markdown import board_with_declined_cells


class Page(HTMLParser):
    """Collects links, resources and table rows of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.resources: list[str] = []
        self.rows: dict[str, list[str]] = {}
        self._table: str | None = None
        self._in_body = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        if tag in ("img", "script") and a.get("src"):
            self.resources.append(a["src"])
        if tag == "link" and a.get("href"):
            self.resources.append(a["href"])
        if tag == "table":
            self._table = a.get("id")
            self.rows[self._table] = []
        if tag == "tbody":
            self._in_body = True
        if tag == "tr" and self._in_body and self._table is not None:
            self.rows[self._table].append(a.get("data-row"))

    def handle_endtag(self, tag):
        if tag == "tbody":
            self._in_body = False
        if tag == "table":
            self._table = None


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text())
    return page


def expected_rows(suite_dir: Path) -> set[str]:
    rows = pd.read_csv(suite_dir / "board.csv", keep_default_na=False, na_values=[""])
    refs = pd.read_csv(suite_dir / "references.csv", keep_default_na=False, na_values=[""])
    shown = rows.to_dict("records")  # every row, also one whose cells were all declined
    keys = {f"{r['instance']}|{r['solver']}|{r['params']}" for r in shown}
    instances = {r["instance"] for r in shown}
    keys |= {f"†|{r['instance']}|{r['label']}|{r['source']}" for r in refs.to_dict("records")
             if r["instance"] in instances}
    return keys


def test_pages_link_only_to_files_that_exist(tiny):
    site = tiny["out"] / "site"
    pages = sorted(site.glob("*.html"))
    assert [p.name for p in pages] == ["index.html", "tiny.html"]
    for page in pages:
        parsed = parse(page)
        for target in parsed.links + parsed.resources:
            url = urlparse(target)
            if url.scheme == "data" or target.startswith("#"):
                continue
            assert not url.scheme and not url.netloc, f"{page.name} refers to {target} (no CDN, no server)"
            assert (page.parent / url.path).is_file(), f"{page.name}: {target} does not exist"


def test_suite_page_holds_the_board_rows(tiny):
    parsed = parse(tiny["out"] / "site" / "tiny.html")
    got = [k for rows in parsed.rows.values() for k in rows]
    assert len(got) == len(set(got))
    assert set(got) == expected_rows(tiny["out"] / "tiny")
    # each row of ours links its solution file
    board = pd.read_csv(tiny["out"] / "tiny" / "board.csv")
    for rel in board["solution"].dropna():
        assert f"../tiny/{rel}" in parsed.links


def test_a_row_whose_cells_were_all_declined_is_shown(tiny, tmp_path):
    from hopbench.harness.bench.store import Store
    from hopbench.harness.report.writer import write_board

    board = board_with_declined_cells(tiny, tmp_path)
    store = Store.open(tiny["url"])
    write_board(board, store, tmp_path / "lb", plots=False)
    store.close()
    write_site(tmp_path / "lb")
    page = (tmp_path / "lb" / "site" / "tiny.html").read_text()
    parsed = parse(tmp_path / "lb" / "site" / "tiny.html")
    assert {k for rows in parsed.rows.values() for k in rows} == expected_rows(tmp_path / "lb" / "tiny")
    row = re.search(r'<tr class="ours" data-row="ring:16/cap4/b4/aspl\|equality-ga\|[^"]*">(.*?)</tr>', page).group(1)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
    assert cells[4:6] == ["0", '2 declined <a href="#d1">(d1)</a>']  # Runs, Failed, and the note that says why
    assert "No runs to show" not in page
    # the reason whole: the Failed cell's tooltip and the note the link goes to
    reason = board.runs.loc[board.runs["solver"] == "equality-ga", "error"].iloc[0]
    why = html.escape(f"equality-ga (default @5s/200ev) on ring:16/cap4/b4/aspl: {reason}", quote=True)
    assert re.search(r'<tr class="ours" data-row="ring:16/cap4/b4/aspl\|equality-ga\|[^"]*">.*?<td [^>]*title="'
                     + re.escape(why) + '"', page)
    assert f'<li id="d1"><b>d1</b> {why}</li>' in page


def test_index_lists_every_board(tiny, tmp_path):
    dst = tmp_path / "lb"
    shutil.copytree(tiny["out"], dst)
    other = dst / "other"
    shutil.copytree(dst / "tiny", other)
    meta = json.loads((other / "board.json").read_text())
    meta["suite"] = "other"
    (other / "board.json").write_text(json.dumps(meta))
    (dst / "site" / "mine.html").write_text("not written by hopbench")
    write_site(dst)
    parsed = parse(dst / "site" / "index.html")
    assert parsed.rows["suites"] == ["other", "tiny"]
    pages = ["index.html", "mine.html", "other.html", "tiny.html"]
    assert sorted(p.name for p in (dst / "site").glob("*.html")) == pages
    # a board that is gone loses its page (the site wrote it); a page the site never wrote stays
    shutil.rmtree(other)
    write_site(dst)
    assert sorted(p.name for p in (dst / "site").glob("*.html")) == ["index.html", "mine.html", "tiny.html"]


# --------------------------------------------------------------------------- headless Chromium


def chromium() -> str | None:
    for name in (os.environ.get("HOPBENCH_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


@pytest.fixture(scope="module")
def browser():
    exe = chromium()
    if exe is None:
        if os.environ.get("HOPBENCH_REQUIRE_CHROMIUM"):
            pytest.fail("HOPBENCH_REQUIRE_CHROMIUM is set but no chromium binary was found (apt-get install chromium)")
        pytest.skip("no chromium binary (Debian: apt-get install chromium); CI sets HOPBENCH_REQUIRE_CHROMIUM")
    return exe


def run_selftest(exe: str, page: Path, profile: Path, width: int = 1400) -> tuple[dict, list[str]]:
    """Load ``page#selftest`` headless in a window ``width`` pixels wide; returns the page's self-test report
    and Chromium's console lines."""
    cmd = [exe, "--headless", "--no-sandbox", f"--window-size={width},900", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
           "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--disable-extensions", f"--user-data-dir={profile}",
           "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000", "--dump-dom",
           page.resolve().as_uri() + "#selftest"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    m = re.search(r'<pre id="selftest">(.*?)</pre>', proc.stdout, re.S)
    assert m, f"the self-test did not run on {page.name}: {proc.stdout[:500]}"
    import html

    report = json.loads(html.unescape(m.group(1)))
    console = [ln for ln in proc.stderr.splitlines() if ":CONSOLE" in ln]
    return report, console


def _ordered(values: list, descending: bool) -> bool:
    present = [v for v in values if v is not None]
    assert values[:len(present)] == present, "blank cells must sort last"
    pairs = list(zip(present, present[1:]))
    return all((a >= b) if descending else (a <= b) for a, b in pairs)


def test_site_in_headless_chromium(tiny, browser, tmp_path):
    page = tiny["out"] / "site" / "tiny.html"
    report, console = run_selftest(browser, page, tmp_path / "profile")
    assert report["errors"] == [] and console == []
    got = [k for t in report["tables"] for k in t["rows"]]
    assert len(got) == len(set(got)) and set(got) == expected_rows(tiny["out"] / "tiny")
    s = report["sort"]
    assert s is not None and s["column"] == "mean"
    assert sorted(s["asc"]) == sorted(s["before"]) == sorted(s["desc"])  # same rows, new order
    assert _ordered(s["ascValues"], descending=False) and _ordered(s["descValues"], descending=True)
    assert s["asc"] != s["before"] and s["desc"] != s["asc"]
    assert s["ascSort"] == "descending"  # the second click turned the order round


def test_index_in_headless_chromium(tiny, browser, tmp_path):
    report, console = run_selftest(browser, tiny["out"] / "site" / "index.html", tmp_path / "profile")
    assert report["errors"] == [] and console == []
    assert report["tables"] == [{"id": "suites", "rows": ["tiny"]}]


def test_selftest_reports_broken_pages(tiny, browser, tmp_path):
    # the check can fail: a missing image and a script error are both reported
    dst = tmp_path / "lb"
    shutil.copytree(tiny["out"], dst)
    (dst / "tiny" / "plots" / "anytime.png").unlink()
    page = dst / "site" / "tiny.html"
    page.write_text(page.read_text().replace("</body>", "<script>notDefinedAnywhere();</script></body>"))
    report, console = run_selftest(browser, page, tmp_path / "profile")
    assert any("anytime.png" in e for e in report["errors"])
    assert any("notDefinedAnywhere" in e for e in report["errors"]) or any("notDefinedAnywhere" in c for c in console)


@pytest.mark.parametrize("width", [1400, 800])
def test_pages_fit_the_window_at_1400_and_800_pixels(tiny, browser, tmp_path, width):
    # issue 35: the index table ran off the page; a board table wider than the window scrolls in its own box
    dst = tmp_path / "lb"
    shutil.copytree(tiny["out"], dst)
    meta = json.loads((dst / "tiny" / "board.json").read_text())
    meta["description"] = ("A long description with a link (http://research.nii.ac.jp/graphgolf/2024-rules.html) "
                           + "and many words " * 30)
    meta["solvers"] = ["annealing", "edgecut-full", "edgecut-lite", "milp", "random", "random-matching", "vrs"]
    (dst / "tiny" / "board.json").write_text(json.dumps(meta))
    write_site(dst)
    for name in ("index.html", "tiny.html"):
        report, console = run_selftest(browser, dst / "site" / name, tmp_path / f"profile-{name}", width)
        assert report["errors"] == [] and console == []
        assert report["width"]["view"] == width
        assert report["width"]["page"] <= width, (name, report["width"])


def test_board_tables_group_numerically_drop_blank_columns_and_mark_two_seed_intervals(tiny):
    from hopbench.harness.report.formatting import natural_key
    from hopbench.harness.report.site import _read_board, suite_page

    meta, rows, refs = _read_board(tiny["out"] / "tiny")
    # every row shows its budget after its parameters (the suite's 5 s limit and 200 evaluations)
    assert set(rows["budget"]) == {"5s/200ev"}
    rows.loc[0, "runs"] = 2  # as if one seed had failed
    page = suite_page(meta, rows, refs)
    groups = re.findall(r'<h2 id="g-[^"]*">(.*?)</h2>', page)
    assert groups == sorted(groups, key=natural_key) and len(groups) >= 2
    for table in re.findall(r"<table class=\"board.*?</table>", page, re.S):
        heads = re.findall(r"<th [^>]*>(.*?)</th>", table)
        body = [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr class=[^>]*>(.*?)</tr>", table)]
        assert all(len(cells) == len(heads) for cells in body)
        blank = [h for j, h in enumerate(heads) if all(cells[j] == "" for cells in body)]
        assert blank == [], blank
    # some group has no optimum, or nothing that failed: its table goes without that column
    assert any(">Gap opt.</th>" not in t or ">Failed</th>" not in t
               for t in re.findall(r"<table class=\"board.*?</table>", page, re.S))
    assert page.count('<small class="few">(2 seeds)</small>') == 1
    params = re.findall(r'<tr class="ours"[^>]*>(?:<td[^>]*>.*?</td>){3}<td[^>]*>(.*?)</td>', page)
    assert params and all(p.endswith(" @5s/200ev") for p in params)
