/* hopbench leaderboard tables: click a header to sort; '#selftest' checks the page. */
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
