/* Sorting the report's own tables (table.sortable, e.g. the per-block table): each header
   becomes a button (Tab, Enter or Space; a second press reverses). A cell sorts by its
   data-v number when it has one (empty: no value, last either way), else by its data-text
   or its text, in natural order (L1-2 before L1-10); ties keep the page's order. Inlined with viewer.js under one CSP hash. */
(function () {
  "use strict";
  var COLLATE = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

  function value(cell) {
    if (!cell) { return null; }
    var v = cell.getAttribute("data-v");
    if (v !== null) { return v === "" ? null : Number(v); }
    var text = cell.getAttribute("data-text");
    return text !== null ? text : cell.textContent.trim();
  }

  function compare(x, y, desc) {
    var a = x.value, b = y.value, order = 0;
    if (a === null || b === null) {
      if (a !== b) { return a === null ? 1 : -1; }
    } else if (typeof a === "string" || typeof b === "string") {
      order = COLLATE.compare(String(a), String(b));
    } else {
      order = a - b;
    }
    return (desc ? -order : order) || x.order - y.order;
  }

  function sortBy(table, th, column) {
    var desc = th.getAttribute("aria-sort") === "ascending";
    table.querySelectorAll("thead th").forEach(function (x) { x.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", desc ? "descending" : "ascending");
    var body = table.tBodies[0];
    var rows = Array.prototype.map.call(body.rows, function (row) {
      return { row: row, value: value(row.cells[column]), order: Number(row.getAttribute("data-order")) };
    });
    rows.sort(function (x, y) { return compare(x, y, desc); });
    rows.forEach(function (x) { body.appendChild(x.row); });
  }

  document.querySelectorAll("table.sortable").forEach(function (table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row, i) {
      row.setAttribute("data-order", String(i));
    });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, th, column); });
    });
  });
}());
